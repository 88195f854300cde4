//! [`GoldSplits`]: a live attempt against the player's best segments ("gold", as speedrunners
//! call them): at each split, the segment's time against its gold and whether it is a new gold,
//! and at any moment the best possible time (the time so far plus the gold of what is left).
//!
//! **Route and segments.** A route is the checkpoints crossed in order between the start and the
//! finish; segment `k` runs from mark `k` to mark `k + 1` (mark 0 the start, the last mark the
//! finish), so a route of `n` checkpoints has `n + 1` segments, each with its gold in ticks (the
//! catalog's `sum_of_best` of the player gives them). A checkpoint counts when it is the next one
//! of the route; any other crossing (a checkpoint skipped, crossed again or off the route) is
//! ignored, so the splits stay comparable with the gold.
//!
//! **Best possible time.** With the last split at `s` ticks and the current segment `k` under
//! way for `e = live - s` ticks, the best possible time is `s + max(e, gold[k]) + gold[k+1] + ...`:
//! at a split it is the time so far plus the remaining gold segments, and once the segment has
//! taken longer than its gold, every further tick adds to it. Computed from suffix sums kept at
//! construction: [`GoldSplits::best_possible_ticks`] allocates nothing and costs O(1).
//!
//! **New gold.** A segment faster than its gold is a new gold: the reading says so and the gold
//! is updated for the rest of the attempt and the next ones (a restart keeps it, as the player's
//! best it now is).

use crate::error::{Error, Result};
use crate::ghost::sum_of_best::Mark;

/// One split against the gold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GoldSplit {
    /// The segment's index (0: from the start to the route's first checkpoint).
    pub segment: usize,
    pub from: Mark,
    pub to: Mark,
    /// Ticks from the live run's start to this split.
    pub live_ticks: f64,
    /// Ticks the live run took for the segment.
    pub segment_ticks: f64,
    /// The segment's gold before this split, in ticks.
    pub gold_ticks: u32,
    /// `segment - gold` in ticks: negative when the segment was faster than its gold.
    pub delta_ticks: f64,
    /// The segment beat its gold (now the new gold).
    pub new_gold: bool,
    /// The best possible time from this split: the time so far plus the remaining gold, in ticks.
    pub best_possible_ticks: f64,
}

/// A live attempt's splits against the player's gold segments along one route.
#[derive(Debug, Clone, PartialEq)]
pub struct GoldSplits {
    route: Vec<u32>,
    gold: Vec<u32>,
    /// `after[k]`: the gold of the segments after segment `k` (`after[n]` is 0).
    after: Vec<u64>,
    tick_rate: f64,
    /// The segment under way (`gold.len()`: finished).
    next: usize,
    /// Live ticks at the last split (0: the start).
    last: f64,
}

impl GoldSplits {
    /// The splits along `route` (checkpoints in order) with `gold` ticks per segment
    /// (`route.len() + 1` of them, the last one to the finish), at `tick_rate` ticks a second.
    pub fn new(route: &[u32], gold: &[u32], tick_rate: f64) -> Result<GoldSplits> {
        if gold.len() != route.len() + 1 {
            return Err(Error::invalid(format!(
                "a route of {} checkpoints has {} segments; {} gold times given",
                route.len(),
                route.len() + 1,
                gold.len()
            )));
        }
        if !(tick_rate.is_finite() && tick_rate > 0.0) {
            return Err(Error::invalid(format!(
                "the tick rate {tick_rate} is not a positive number"
            )));
        }
        let mut s = GoldSplits {
            route: route.to_vec(),
            gold: gold.to_vec(),
            after: Vec::new(),
            tick_rate,
            next: 0,
            last: 0.0,
        };
        s.sum();
        Ok(s)
    }

    fn sum(&mut self) {
        let n = self.gold.len();
        self.after = vec![0; n];
        for k in (0..n.saturating_sub(1)).rev() {
            self.after[k] = self.after[k + 1] + u64::from(self.gold[k + 1]);
        }
    }

    /// The gold of each segment, in ticks (updated by new golds).
    pub fn gold(&self) -> &[u32] {
        &self.gold
    }

    /// The sum of the gold segments: the best possible time before the run starts, in ticks.
    pub fn sum_of_best_ticks(&self) -> u64 {
        self.gold.iter().map(|&g| u64::from(g)).sum()
    }

    /// Ticks per second.
    pub fn tick_rate(&self) -> f64 {
        self.tick_rate
    }

    fn mark(&self, k: usize) -> Mark {
        match k {
            0 => Mark::Start,
            k if k > self.route.len() => Mark::Finish,
            k => Mark::Checkpoint(self.route[k - 1]),
        }
    }

    /// The live player crossed `checkpoint` `live_ticks` after their start: the split against
    /// the gold if it is the route's next checkpoint, else `None`.
    pub fn checkpoint(&mut self, checkpoint: u32, live_ticks: f64) -> Option<GoldSplit> {
        (self.next < self.route.len() && self.route[self.next] == checkpoint)
            .then(|| self.split(live_ticks))
    }

    /// The live player finished `live_ticks` after their start: the last segment's split, if
    /// every checkpoint of the route was crossed (else `None`: the run took another route).
    pub fn finish(&mut self, live_ticks: f64) -> Option<GoldSplit> {
        (self.next == self.route.len()).then(|| self.split(live_ticks))
    }

    fn split(&mut self, live_ticks: f64) -> GoldSplit {
        let k = self.next;
        let segment_ticks = live_ticks - self.last;
        let gold_ticks = self.gold[k];
        let new_gold = segment_ticks < f64::from(gold_ticks);
        if new_gold {
            self.gold[k] = segment_ticks.max(0.0).ceil() as u32;
            self.sum();
        }
        self.next = k + 1;
        self.last = live_ticks;
        GoldSplit {
            segment: k,
            from: self.mark(k),
            to: self.mark(k + 1),
            live_ticks,
            segment_ticks,
            gold_ticks,
            delta_ticks: segment_ticks - f64::from(gold_ticks),
            new_gold,
            best_possible_ticks: live_ticks + self.remaining(k + 1),
        }
    }

    /// The gold of segments `k..`.
    fn remaining(&self, k: usize) -> f64 {
        match k.checked_sub(1) {
            None => self.sum_of_best_ticks() as f64,
            Some(j) => self.after.get(j).copied().unwrap_or(0) as f64,
        }
    }

    /// The best possible time when the live player is `live_ticks` into the run: the last split's
    /// time, the current segment's elapsed time or its gold (the larger), and the gold of the
    /// segments after it, in ticks. The run's time once finished.
    pub fn best_possible_ticks(&self, live_ticks: f64) -> f64 {
        let k = self.next;
        if k >= self.gold.len() {
            return self.last;
        }
        let elapsed = (live_ticks - self.last).max(f64::from(self.gold[k]));
        self.last + elapsed + self.remaining(k + 1)
    }

    /// The best possible time in seconds ([`GoldSplits::best_possible_ticks`]).
    pub fn best_possible_seconds(&self, live_ticks: f64) -> f64 {
        self.best_possible_ticks(live_ticks) / self.tick_rate
    }

    /// Starts a new attempt (the gold, new golds included, is kept).
    pub fn reset(&mut self) {
        self.next = 0;
        self.last = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Route 1, 2; gold 20, 30, 30 ticks (sum of best 80), as in the catalog's sum-of-best test.
    fn splits() -> GoldSplits {
        GoldSplits::new(&[1, 2], &[20, 30, 30], 20.0).unwrap()
    }

    #[test]
    fn splits_against_the_gold_by_hand() {
        let mut g = splits();
        assert_eq!(g.sum_of_best_ticks(), 80);
        // before the run, and while the first segment is within its gold: the sum of best
        assert_eq!(g.best_possible_ticks(0.0), 80.0);
        assert_eq!(g.best_possible_ticks(15.0), 80.0);
        // 25 ticks into a 20-tick gold: 5 ticks lost already
        assert_eq!(g.best_possible_ticks(25.0), 85.0);
        // off-route and out-of-order crossings are ignored
        assert_eq!(g.checkpoint(2, 24.0), None);
        assert_eq!(g.finish(24.0), None);
        let s = g.checkpoint(1, 26.0).unwrap();
        assert_eq!(
            (s.segment, s.from, s.to),
            (0, Mark::Start, Mark::Checkpoint(1))
        );
        assert_eq!(
            (s.segment_ticks, s.gold_ticks, s.delta_ticks),
            (26.0, 20, 6.0)
        );
        assert!(!s.new_gold);
        // time so far + the remaining gold (30 + 30)
        assert_eq!(s.best_possible_ticks, 86.0);
        assert_eq!(g.checkpoint(1, 27.0), None, "crossed again");
        // a new gold: 25 ticks where the gold was 30
        let s = g.checkpoint(2, 51.0).unwrap();
        assert_eq!(
            (s.segment_ticks, s.delta_ticks, s.new_gold),
            (25.0, -5.0, true)
        );
        assert_eq!(s.best_possible_ticks, 81.0);
        assert_eq!(g.gold(), &[20, 25, 30]);
        assert_eq!(g.best_possible_ticks(60.0), 81.0);
        assert_eq!(g.best_possible_ticks(90.0), 90.0);
        let s = g.finish(83.0).unwrap();
        assert_eq!(
            (s.to, s.delta_ticks, s.new_gold),
            (Mark::Finish, 2.0, false)
        );
        assert_eq!(s.best_possible_ticks, 83.0);
        assert_eq!(g.best_possible_ticks(100.0), 83.0);
        assert_eq!(g.finish(84.0), None);
        // the next attempt starts from the new gold
        g.reset();
        assert_eq!(g.best_possible_ticks(0.0), 75.0);
        assert!((g.best_possible_seconds(0.0) - 3.75).abs() < 1e-12);
    }

    #[test]
    fn a_route_without_checkpoints_has_one_segment() {
        let mut g = GoldSplits::new(&[], &[40], 20.0).unwrap();
        assert_eq!(g.checkpoint(0, 10.0), None);
        let s = g.finish(38.0).unwrap();
        assert_eq!(
            (s.from, s.to, s.new_gold),
            (Mark::Start, Mark::Finish, true)
        );
    }

    #[test]
    fn gold_for_another_number_of_segments_is_refused() {
        let e = GoldSplits::new(&[1, 2], &[20, 30], 20.0).unwrap_err();
        assert!(e.to_string().contains("3 segments; 2 gold times"), "{e}");
        assert!(GoldSplits::new(&[1], &[1, 2], 0.0).is_err());
    }
}
