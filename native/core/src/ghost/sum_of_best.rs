//! The sum-of-best ghost: the best segment between each pair of consecutive checkpoints, taken from
//! whichever of several runs was fastest there, spliced into one synthetic run whose time is the
//! sum of the best segment times.
//!
//! **Segments.** A run's marks are its start (`t = 0`), the first crossing of each checkpoint, and
//! its finish (`t = duration`). The order of marks is the first run's; a segment is a pair of
//! consecutive marks. For each segment, every run that has both marks in that order is a
//! candidate; the fewest ticks wins (the earlier run on a tie). A segment no run has is an error.
//!
//! **Splicing.** Segment `k` covers ticks `a..=b` of its run and is placed at `T_k..=T_k + (b - a)`
//! of the ghost, with `T_0 = 0` and `T_{k+1} = T_k + (b - a)`: each segment is shifted in time so
//! that it starts where the previous one ended, and the total time is the sum of the segments. The
//! run's poses at `a` and `b` are sampled as its ghost would show them (exact if recorded, else
//! interpolated or held). Different runs cross a checkpoint at slightly different poses, so each
//! segment (after the first) is also shifted in space: with `Δ` the previous segment's end pose
//! minus this segment's pose at `a`, the pose at tick `τ` of the segment becomes
//! `p(τ) + Δ · (b - τ) / (b - a)`. The offset is `Δ` at the splice (the segments join exactly)
//! and fades linearly to zero at the segment's end (which stays at its recorded pose, so the offsets
//! never accumulate). For yaw, `Δ` is the shortest arc between the two headings, and the whole
//! segment's yaw also moves by the whole turns (multiples of 360°) that separate the two runs'
//! unbounded values, so the ghost never spins. The segment's first sample coincides with the
//! previous segment's last one and is dropped. Teleports inside a segment are kept; recorded
//! velocities are corrected by the fade's slope; other velocities are estimated afresh on the
//! spliced samples, so the curve is smooth across splices. Flags and checkpoint markers are carried
//! over, re-timed. The track is marked synthetic.

use crate::error::{Error, Result};
use crate::ghost::builder::TrackParts;
use crate::ghost::track::{COLS, GhostTrack, PITCH, Split, X, YAW, Z, mark, shortest_arc};

/// A segment boundary of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Start,
    Checkpoint(u32),
    Finish,
}

impl std::fmt::Display for Mark {
    /// As messages name it: "the start", "checkpoint 2", "the finish".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mark::Start => f.write_str("the start"),
            Mark::Checkpoint(c) => write!(f, "checkpoint {c}"),
            Mark::Finish => f.write_str("the finish"),
        }
    }
}

/// One segment of a sum-of-best ghost and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SumOfBestSegment {
    pub from: Mark,
    pub to: Mark,
    /// Index (into the runs given) of the run it was taken from.
    pub run: usize,
    /// Tick offset in that run where the segment starts.
    pub source_start: u32,
    /// Tick offset in the sum-of-best ghost where it starts.
    pub start: u32,
    /// Its length in ticks.
    pub ticks: u32,
}

/// A sum-of-best ghost and its segments.
#[derive(Debug, Clone, PartialEq)]
pub struct SumOfBest {
    pub track: GhostTrack,
    pub segments: Vec<SumOfBestSegment>,
}

impl SumOfBest {
    /// The sum of the best segment times (the track's duration).
    pub fn total_ticks(&self) -> u32 {
        self.segments.iter().map(|s| s.ticks).sum()
    }
}

impl AsRef<GhostTrack> for GhostTrack {
    fn as_ref(&self) -> &GhostTrack {
        self
    }
}

fn mark_tick(run: &GhostTrack, m: Mark) -> Option<u32> {
    match m {
        Mark::Start => Some(0),
        Mark::Finish => Some(run.duration_ticks()),
        Mark::Checkpoint(i) => run.split(i),
    }
}

/// Builds the sum-of-best ghost of `runs` (see the module docs).
pub fn sum_of_best<R: AsRef<GhostTrack>>(runs: &[R]) -> Result<SumOfBest> {
    let runs: Vec<&GhostTrack> = runs.iter().map(AsRef::as_ref).collect();
    let first = *runs
        .first()
        .ok_or_else(|| Error::invalid("a sum of best needs at least one run"))?;
    let rate = first.tick_rate();
    if let Some(r) = runs.iter().find(|r| r.tick_rate() != rate) {
        return Err(Error::invalid(format!(
            "runs at different tick rates ({rate} and {})",
            r.tick_rate()
        )));
    }
    let mut marks = vec![Mark::Start];
    for s in first.splits() {
        if !marks.contains(&Mark::Checkpoint(s.checkpoint)) {
            marks.push(Mark::Checkpoint(s.checkpoint));
        }
    }
    marks.push(Mark::Finish);
    // Choose the best run for each segment.
    let mut segments = Vec::with_capacity(marks.len() - 1);
    let mut start = 0u32;
    for w in marks.windows(2) {
        let (from, to) = (w[0], w[1]);
        let best = runs
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                let a = mark_tick(r, from)?;
                let b = mark_tick(r, to)?;
                (b >= a).then_some((b - a, i, a))
            })
            .min_by_key(|&(ticks, i, _)| (ticks, i))
            .ok_or_else(|| {
                Error::invalid(format!(
                    "no run has the segment from {from} to {to} in that order"
                ))
            })?;
        segments.push(SumOfBestSegment {
            from,
            to,
            run: best.1,
            source_start: best.2,
            start,
            ticks: best.0,
        });
        start += best.0;
    }
    let track = splice(&runs, &segments)?;
    Ok(SumOfBest { track, segments })
}

/// Appends a flag change (replacing one at the same tick; skipping one that changes nothing).
fn push_flag(t: u32, f: u32, flag_t: &mut Vec<u32>, flag_v: &mut Vec<u32>) {
    if flag_t.last() == Some(&t) {
        *flag_v.last_mut().expect("parallel arrays") = f;
        if flag_v.len() >= 2 && flag_v[flag_v.len() - 2] == f {
            flag_t.pop();
            flag_v.pop();
        }
    } else if flag_v.last() != Some(&f) {
        flag_t.push(t);
        flag_v.push(f);
    }
}

fn splice(runs: &[&GhostTrack], segments: &[SumOfBestSegment]) -> Result<GhostTrack> {
    let cap = segments
        .iter()
        .map(|s| runs[s.run].sample_at_or_before(f64::from(s.source_start + s.ticks)) + 2)
        .sum();
    let mut out = TrackParts::with_capacity(cap, 0);
    let mut flag_t: Vec<u32> = Vec::new();
    let mut flag_v: Vec<u32> = Vec::new();
    let mut splits = Vec::new();
    for (k, seg) in segments.iter().enumerate() {
        let run = runs[seg.run];
        let (a, b) = (seg.source_start, seg.source_start + seg.ticks);
        let start_pose = run.pose_at(f64::from(a));
        // The offset that makes this segment start at the previous one's end.
        let mut delta = [0.0; COLS];
        let mut turns = 0.0;
        if k > 0 {
            let n = out.t.len() - 1;
            let prev: [f64; COLS] = std::array::from_fn(|c| out.cols[c][n]);
            for c in 0..COLS {
                delta[c] = prev[c] - start_pose[c];
            }
            let arc = shortest_arc(prev[YAW], start_pose[YAW]);
            turns = ((delta[YAW] - arc) / 360.0).round() * 360.0;
            delta[YAW] = arc;
        }
        let span = f64::from(b - a);
        let blended = |tau: u32, p: [f64; COLS]| -> [f64; COLS] {
            let w = if span > 0.0 {
                f64::from(b - tau) / span
            } else {
                0.0
            };
            let mut q = p;
            for c in X..=PITCH {
                q[c] += delta[c] * w;
            }
            q[YAW] += turns;
            q
        };
        let slope: [f64; COLS] =
            std::array::from_fn(|c| if span > 0.0 { -delta[c] / span } else { 0.0 });
        let to_out = |tau: u32| seg.start + (tau - a);
        if k == 0 {
            let i = run.sample_at_or_before(f64::from(a));
            let m = if run.tick(i) == a {
                run.mark(i) & !mark::BREAK
            } else {
                mark::HELD
            };
            let v = if run.tick(i) == a {
                run.velocity(i)
            } else {
                [0.0; COLS]
            };
            out.push_f64(0, start_pose, v, m & !mark::BREAK);
        }
        // Recorded samples strictly inside (a, b], then the pose at b if none was recorded there.
        let first = run.sample_at_or_before(f64::from(a)) + 1;
        let mut last_tick = a;
        for i in first..run.len() {
            let tau = run.tick(i);
            if tau <= a {
                continue;
            }
            if tau > b {
                break;
            }
            let mut v = run.velocity(i);
            for c in X..=Z {
                v[c] += slope[c];
            }
            out.push_f64(to_out(tau), blended(tau, run.pose(i)), v, run.mark(i));
            last_tick = tau;
        }
        if last_tick < b {
            out.push_f64(
                to_out(b),
                blended(b, run.pose_at(f64::from(b))),
                [0.0; COLS],
                mark::HELD,
            );
        }
        // Flags: the value at a, then the changes in (a, b].
        push_flag(to_out(a), run.flags_at(a), &mut flag_t, &mut flag_v);
        for (t, f) in run.flag_changes() {
            if t > a && t <= b {
                push_flag(to_out(t), f, &mut flag_t, &mut flag_v);
            }
        }
        if k == 0
            && let Mark::Checkpoint(i) = seg.from
        {
            splits.push(Split {
                checkpoint: i,
                tick: 0,
            });
        }
        if let Mark::Checkpoint(i) = seg.to {
            splits.push(Split {
                checkpoint: i,
                tick: to_out(b),
            });
        }
    }
    let entity = runs[0].entity();
    Ok(out.finish(entity, runs[0].tick_rate(), flag_t, flag_v, splits, true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::pose::Pose;

    /// A run along x with checkpoints every 10 blocks, at `speeds[k]` blocks per tick in segment k.
    fn run(speeds: &[f64], y: f64) -> GhostTrack {
        let mut poses = Vec::new();
        let mut cps = Vec::new();
        let (mut x, mut t) = (0.0, 0u32);
        poses.push((0, Pose::from_f64(0.0, y, 0.0, 0.0, 0.0)));
        for (k, &v) in speeds.iter().enumerate() {
            let n = (10.0 / v).round() as u32;
            for _ in 0..n {
                t += 1;
                x += 10.0 / f64::from(n);
                poses.push((t, Pose::from_f64(x, y, 0.0, 0.0, 0.0)));
            }
            if k + 1 < speeds.len() {
                cps.push((t, k as u32 + 1));
            }
        }
        GhostTrack::from_poses(20.0, &poses, &cps).unwrap()
    }

    #[test]
    fn picks_the_best_segment_of_each_pair() {
        let a = run(&[1.0, 0.5, 1.0], 64.0);
        let b = run(&[0.5, 1.0, 2.0], 65.0);
        let sob = sum_of_best(&[&a, &b]).unwrap();
        let runs: Vec<usize> = sob.segments.iter().map(|s| s.run).collect();
        assert_eq!(runs, vec![0, 1, 1]);
        assert_eq!(sob.total_ticks(), 10 + 10 + 5);
        assert_eq!(sob.track.duration_ticks(), 25);
        assert!(sob.track.is_synthetic());
        assert_eq!(sob.track.split(1), Some(10));
        assert_eq!(sob.track.split(2), Some(20));
        // the y offset of run b (one block) fades in from the first splice
        assert_eq!(sob.track.pose_at(10.0)[1], 64.0);
        assert_eq!(sob.track.pose_at(20.0)[1], 65.0);
        assert!(sum_of_best::<GhostTrack>(&[]).is_err());
    }
}
