//! [`GhostSet`]: several ghosts (the top N times, a personal best, a sum-of-best ghost) sampled
//! together at one moment, each with its own time shift, into a slice the caller owns.

use std::sync::Arc;

use crate::ghost::cursor::{GhostCursor, GhostSample};
use crate::ghost::track::GhostTrack;

/// Ghosts sampled together. Sampling allocates nothing.
#[derive(Debug, Clone, Default)]
pub struct GhostSet {
    cursors: Vec<GhostCursor>,
}

impl GhostSet {
    pub fn new() -> GhostSet {
        GhostSet::default()
    }

    /// The `n` fastest of `tracks` (shortest duration first; equal times keep their order).
    pub fn top_n(tracks: impl IntoIterator<Item = Arc<GhostTrack>>, n: usize) -> GhostSet {
        let mut all: Vec<Arc<GhostTrack>> = tracks.into_iter().collect();
        all.sort_by_key(|t| t.duration_ticks());
        all.truncate(n);
        GhostSet {
            cursors: all.into_iter().map(GhostCursor::new).collect(),
        }
    }

    /// Adds a ghost; returns its index.
    pub fn push(&mut self, track: Arc<GhostTrack>) -> usize {
        self.cursors.push(GhostCursor::new(track));
        self.cursors.len() - 1
    }

    pub fn len(&self) -> usize {
        self.cursors.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cursors.is_empty()
    }

    /// The track of ghost `i`.
    pub fn track(&self, i: usize) -> Option<&Arc<GhostTrack>> {
        self.cursors.get(i).map(GhostCursor::track)
    }

    /// The cursor of ghost `i` (to set its time shift, or sample it alone).
    pub fn cursor_mut(&mut self, i: usize) -> Option<&mut GhostCursor> {
        self.cursors.get_mut(i)
    }

    /// Delays ghost `i` by `ticks` (negative: earlier). Returns false if there is no ghost `i`.
    pub fn set_time_shift(&mut self, i: usize, ticks: f64) -> bool {
        match self.cursors.get_mut(i) {
            Some(c) => {
                c.set_time_shift(ticks);
                true
            }
            None => false,
        }
    }

    /// Samples every ghost at `t` into `out[i]` (ghost `i`); returns how many were written, the
    /// smaller of the set's size and `out.len()`.
    pub fn sample_into(&mut self, t: f64, out: &mut [GhostSample]) -> usize {
        let mut n = 0;
        for (c, o) in self.cursors.iter_mut().zip(out.iter_mut()) {
            *o = c.sample(t);
            n += 1;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::pose::Pose;
    use crate::ghost::cursor::GhostState;

    fn run(ticks: u32, speed: f64) -> Arc<GhostTrack> {
        let poses: Vec<(u32, Pose)> = (0..=ticks)
            .map(|t| (t, Pose::from_f64(f64::from(t) * speed, 0.0, 0.0, 0.0, 0.0)))
            .collect();
        Arc::new(GhostTrack::from_poses(20.0, &poses, &[]).unwrap())
    }

    #[test]
    fn top_n_keeps_the_fastest_and_samples_them_together() {
        let tracks = vec![run(50, 0.2), run(30, 0.3), run(40, 0.25), run(60, 0.1)];
        let mut set = GhostSet::top_n(tracks, 3);
        assert_eq!(set.len(), 3);
        let durations: Vec<u32> = (0..3)
            .map(|i| set.track(i).unwrap().duration_ticks())
            .collect();
        assert_eq!(durations, vec![30, 40, 50]);
        assert!(set.set_time_shift(2, 10.0));
        assert!(!set.set_time_shift(7, 1.0));
        let mut out = [GhostSample::default(); 5];
        assert_eq!(set.sample_into(35.0, &mut out), 3);
        assert_eq!(out[0].state, GhostState::Finished);
        assert_eq!(out[1].state, GhostState::Running);
        assert_eq!(out[1].x, 35.0 * 0.25);
        assert_eq!(out[2].t, 25.0);
        assert_eq!(out[3], GhostSample::default());
        let mut short = [GhostSample::default(); 2];
        assert_eq!(set.sample_into(1.0, &mut short), 2);
    }
}
