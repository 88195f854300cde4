//! [`RunBuilder`]: collects one entity's recorded poses, flags, checkpoint markers and velocities
//! (absolute ticks, as read from a recording or reported by a live server) and builds a
//! [`GhostTrack`] for a [`GhostRange`].
//!
//! The pose of the entity at a tick without a sample is, as in the recording, the last sample's
//! pose. Building keeps that meaning where it matters:
//! - the run's first tick gets the pose held at that tick if no sample falls on it (and so does
//!   the last tick of a tick-bounded run);
//! - a gap of more than [`GhostOptions::max_interpolated_gap`] ticks without samples is the entity
//!   standing still: a held sample is inserted one tick before the next sample, so the ghost waits
//!   and then moves, instead of creeping across the gap. Shorter gaps are treated as samples that
//!   were not sent (a lower send rate, dropped ticks) and are interpolated over.

use crate::error::{Error, Result};
use crate::format::pose::{Pose, VEL_SCALE};
use crate::ghost::range::GhostRange;
use crate::ghost::track::{COLS, GhostTrack, Split, estimate_velocities, mark};

/// How a run is turned into a track.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GhostOptions {
    /// Longest run of ticks without a sample that is interpolated over; longer gaps are held.
    pub max_interpolated_gap: u32,
}

impl Default for GhostOptions {
    fn default() -> Self {
        GhostOptions {
            max_interpolated_gap: 4,
        }
    }
}

/// Collects one entity's data in tick order and builds tracks from it. Each kind of input
/// (poses, flags, checkpoints, velocities, appearances) must come in non-decreasing tick order;
/// the kinds are independent of each other.
#[derive(Debug, Clone, Default)]
pub struct RunBuilder {
    entity: u32,
    tick_rate: f64,
    ticks: Vec<u32>,
    poses: Vec<Pose>,
    marks: Vec<u8>,
    flags: Vec<(u32, u32)>,
    checkpoints: Vec<(u32, u32)>,
    velocities: Vec<(u32, [f64; 3])>,
    appears: Vec<u32>,
    data_end: Option<u32>,
}

impl RunBuilder {
    /// A builder for `entity` at `tick_rate` ticks per second.
    pub fn new(entity: u32, tick_rate: f64) -> RunBuilder {
        RunBuilder {
            entity,
            tick_rate,
            ..RunBuilder::default()
        }
    }

    /// Reserves room for `n` more pose samples.
    pub fn reserve(&mut self, n: usize) {
        self.ticks.reserve(n);
        self.poses.reserve(n);
        self.marks.reserve(n);
    }

    fn push_pose(&mut self, tick: u32, pose: Pose, m: u8) -> Result<()> {
        match self.ticks.last() {
            Some(&l) if tick < l => Err(Error::invalid(format!(
                "pose at tick {tick} after a pose at tick {l}"
            ))),
            Some(&l) if tick == l => {
                let i = self.ticks.len() - 1;
                self.poses[i] = pose;
                // a later pose of the same tick replaces a held one
                self.marks[i] = (self.marks[i] & !mark::HELD) | m;
                Ok(())
            }
            _ => {
                self.ticks.push(tick);
                self.poses.push(pose);
                self.marks.push(m);
                self.note_tick(tick);
                Ok(())
            }
        }
    }

    /// A pose sample.
    pub fn pose(&mut self, tick: u32, pose: Pose) -> Result<()> {
        self.push_pose(tick, pose, 0)
    }

    /// A teleport: the entity jumped to `pose` at `tick`.
    pub fn teleport(&mut self, tick: u32, pose: Pose) -> Result<()> {
        self.push_pose(tick, pose, mark::BREAK)
    }

    /// The pose the entity is known to hold at `tick` without having moved there (a chunk
    /// keyframe): a sample of the same tick replaces it.
    pub fn held(&mut self, tick: u32, pose: Pose) -> Result<()> {
        if self.ticks.last() == Some(&tick) {
            return Ok(());
        }
        self.push_pose(tick, pose, mark::HELD)
    }

    /// The entity's flags changed to `flags` at `tick`.
    pub fn flags(&mut self, tick: u32, flags: u32) {
        if self.flags.last().is_none_or(|&(_, f)| f != flags) {
            self.flags.push((tick, flags));
        }
        self.note_tick(tick);
    }

    /// The entity crossed checkpoint `index` at `tick`.
    pub fn checkpoint(&mut self, tick: u32, index: u32) {
        self.checkpoints.push((tick, index));
        self.note_tick(tick);
    }

    /// A recorded velocity in blocks per tick.
    pub fn velocity(&mut self, tick: u32, v: [f64; 3]) {
        self.velocities.push((tick, v));
        self.note_tick(tick);
    }

    /// A recorded `Event::Velocity` (1/8000 block per tick).
    pub fn velocity_units(&mut self, tick: u32, x: i64, y: i64, z: i64) {
        self.velocity(
            tick,
            [
                x as f64 / VEL_SCALE,
                y as f64 / VEL_SCALE,
                z as f64 / VEL_SCALE,
            ],
        );
    }

    /// The entity (re)appeared at `tick` (`EntityAdd`): a discontinuity if it had been seen before.
    pub fn appear(&mut self, tick: u32) {
        self.appears.push(tick);
        self.note_tick(tick);
    }

    /// Data (of any entity) has been read up to and including `tick`.
    pub fn seen_until(&mut self, tick: u32) {
        self.note_tick(tick);
    }

    fn note_tick(&mut self, tick: u32) {
        self.data_end = Some(self.data_end.map_or(tick, |e| e.max(tick)));
    }

    /// Number of pose samples collected.
    pub fn sample_count(&self) -> usize {
        self.ticks.len()
    }

    /// Whether the data seen so far determines the run's end (the loader stops reading then).
    pub fn end_is_known(&self, range: &GhostRange) -> bool {
        match (self.ticks.first(), self.ticks.last(), self.data_end) {
            (Some(&f), Some(&l), Some(d)) => {
                matches!(
                    range.resolve(&self.checkpoints, f, l, d, false),
                    Ok(Some(_))
                )
            }
            _ => false,
        }
    }

    /// Builds the track of `range`.
    pub fn build(&self, range: &GhostRange, options: &GhostOptions) -> Result<GhostTrack> {
        if !(self.tick_rate.is_finite() && self.tick_rate > 0.0) {
            return Err(Error::invalid(format!(
                "tick rate {} is not positive",
                self.tick_rate
            )));
        }
        let (Some(&first), Some(&last), Some(data_end)) =
            (self.ticks.first(), self.ticks.last(), self.data_end)
        else {
            return Err(Error::invalid(format!(
                "entity {} has no pose in the data read",
                self.entity
            )));
        };
        let (start, end) = range
            .resolve(&self.checkpoints, first, last, data_end, true)?
            .expect("complete resolution is never pending");
        // The first sample at or before the start, or else the first after it.
        let i0 = self.ticks.partition_point(|&t| t <= start);
        let (start, i0) = match i0.checked_sub(1) {
            Some(i) => (start, i),
            None if first <= end => (first, 0),
            None => {
                return Err(Error::invalid(format!(
                    "entity {} has no pose in ticks {start} to {end}",
                    self.entity
                )));
            }
        };
        let i1 = self.ticks.partition_point(|&t| t <= end);
        let appear_break = |i: usize| i > 0 && self.appears.binary_search(&self.ticks[i]).is_ok();
        let mut out = TrackParts::with_capacity(i1 - i0 + 2, start);
        let first_mark = if self.ticks[i0] == start {
            self.marks[i0] & !mark::BREAK
        } else {
            mark::HELD
        };
        out.push(start, &self.poses[i0], first_mark);
        for i in i0 + 1..i1 {
            let gap = self.ticks[i] - out.last_tick();
            let mut m = self.marks[i];
            if appear_break(i) {
                m |= mark::BREAK;
            }
            if gap - 1 > options.max_interpolated_gap && m & mark::BREAK == 0 {
                let prev = self.poses[i - 1];
                out.push(self.ticks[i] - 1, &prev, mark::HELD);
            }
            out.push(self.ticks[i], &self.poses[i], m);
        }
        if out.last_tick() < end {
            let p = self.poses[i1 - 1];
            out.push(end, &p, mark::HELD);
        }
        // Recorded velocities at sample ticks.
        let mut k = 0;
        for &(tick, v) in &self.velocities {
            if tick < start || tick > end {
                continue;
            }
            let rel = tick - start;
            while k < out.t.len() && out.t[k] < rel {
                k += 1;
            }
            if k < out.t.len() && out.t[k] == rel {
                for (c, &vc) in v.iter().enumerate() {
                    out.vel[c][k] = vc;
                }
                out.marks[k] |= mark::RECORDED_VELOCITY;
            }
        }
        // Flags: the value in effect at the start, then the changes within the run.
        let f0 = self.flags.partition_point(|&(t, _)| t <= start);
        let initial = f0.checked_sub(1).map_or(0, |i| self.flags[i].1);
        let mut flag_t = vec![0];
        let mut flag_v = vec![initial];
        for &(t, f) in &self.flags[f0..] {
            if t > end {
                break;
            }
            if flag_v.last() != Some(&f) {
                flag_t.push(t - start);
                flag_v.push(f);
            }
        }
        let splits = self
            .checkpoints
            .iter()
            .filter(|&&(t, _)| t >= start && t <= end)
            .map(|&(t, checkpoint)| Split {
                checkpoint,
                tick: t - start,
            })
            .collect();
        Ok(out.finish(self.entity, self.tick_rate, flag_t, flag_v, splits, false))
    }
}

/// Column arrays being assembled (shared with the sum-of-best splicer).
#[derive(Debug)]
pub(crate) struct TrackParts {
    pub(crate) origin: u32,
    pub(crate) t: Vec<u32>,
    pub(crate) cols: [Vec<f64>; COLS],
    pub(crate) vel: [Vec<f64>; COLS],
    pub(crate) marks: Vec<u8>,
}

impl TrackParts {
    pub(crate) fn with_capacity(n: usize, origin: u32) -> TrackParts {
        TrackParts {
            origin,
            t: Vec::with_capacity(n),
            cols: std::array::from_fn(|_| Vec::with_capacity(n)),
            vel: std::array::from_fn(|_| Vec::with_capacity(n)),
            marks: Vec::with_capacity(n),
        }
    }

    fn push(&mut self, abs_tick: u32, p: &Pose, m: u8) {
        self.push_f64(
            abs_tick - self.origin,
            [p.x_f64(), p.y_f64(), p.z_f64(), p.yaw_deg(), p.pitch_deg()],
            [0.0; COLS],
            m,
        );
    }

    pub(crate) fn push_f64(&mut self, rel: u32, pose: [f64; COLS], vel: [f64; COLS], m: u8) {
        self.t.push(rel);
        for c in 0..COLS {
            self.cols[c].push(pose[c]);
            self.vel[c].push(vel[c]);
        }
        self.marks.push(m);
    }

    fn last_tick(&self) -> u32 {
        self.t.last().map_or(0, |&t| t + self.origin)
    }

    pub(crate) fn finish(
        mut self,
        entity: u32,
        tick_rate: f64,
        flag_t: Vec<u32>,
        flag_v: Vec<u32>,
        splits: Vec<Split>,
        synthetic: bool,
    ) -> GhostTrack {
        estimate_velocities(&self.t, &self.cols, &self.marks, &mut self.vel);
        GhostTrack {
            entity,
            tick_rate,
            origin_tick: self.origin,
            synthetic,
            t: self.t,
            cols: self.cols,
            vel: self.vel,
            marks: self.marks,
            flag_t,
            flag_v,
            splits,
        }
    }
}

impl GhostTrack {
    /// A track from raw pose samples `(tick, pose)` in increasing tick order (ticks relative to
    /// anything; the first becomes `t = 0`), with checkpoint markers `(tick, index)`. For tests,
    /// live runs and tools; use [`RunBuilder`] for teleports, flags and velocities.
    pub fn from_poses(
        tick_rate: f64,
        poses: &[(u32, Pose)],
        checkpoints: &[(u32, u32)],
    ) -> Result<GhostTrack> {
        let mut b = RunBuilder::new(0, tick_rate);
        for &(t, p) in poses {
            b.pose(t, p)?;
        }
        for &(t, i) in checkpoints {
            b.checkpoint(t, i);
        }
        b.build(&GhostRange::all(), &GhostOptions::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ghost::range::{RunEnd, RunStart};

    fn p(x: f64) -> Pose {
        Pose::from_f64(x, 64.0, 0.0, 0.0, 0.0)
    }

    #[test]
    fn long_gaps_are_held_short_gaps_interpolated() {
        let mut b = RunBuilder::new(1, 20.0);
        for (t, x) in [(0, 0.0), (1, 1.0), (3, 3.0), (20, 4.0), (21, 5.0)] {
            b.pose(t, p(x)).unwrap();
        }
        let g = b
            .build(&GhostRange::all(), &GhostOptions::default())
            .unwrap();
        assert_eq!(g.ticks(), &[0, 1, 3, 19, 20, 21]);
        assert_eq!(g.mark(3), mark::HELD);
        assert_eq!(g.pose(3)[0], 3.0);
    }

    #[test]
    fn ranges_hold_the_pose_at_their_edges_and_keep_splits_and_flags() {
        let mut b = RunBuilder::new(1, 20.0);
        b.flags(0, 1);
        for t in 0..50u32 {
            if t == 30 {
                b.teleport(t, p(100.0)).unwrap();
            } else if t % 2 == 0 {
                b.pose(t, p(f64::from(t))).unwrap();
            }
        }
        b.flags(12, 5);
        b.checkpoint(11, 0);
        b.checkpoint(40, 1);
        b.velocity(14, [0.5, 0.0, 0.0]);
        let range = GhostRange {
            start: RunStart::Checkpoint(0),
            end: RunEnd::Tick(47),
        };
        let g = b.build(&range, &GhostOptions::default()).unwrap();
        assert_eq!(g.origin_tick(), 11);
        assert_eq!(g.ticks()[0], 0);
        assert_eq!(g.pose(0)[0], 10.0, "held pose of tick 10 at tick 11");
        assert_eq!(g.mark(0), mark::HELD);
        assert_eq!(g.duration_ticks(), 36);
        assert_eq!(g.pose(g.len() - 1)[0], 46.0);
        assert_eq!(
            g.splits(),
            &[
                Split {
                    checkpoint: 0,
                    tick: 0
                },
                Split {
                    checkpoint: 1,
                    tick: 29
                }
            ]
        );
        assert_eq!(g.flags_at(0), 1);
        assert_eq!(g.flags_at(1), 5);
        let tp = g.ticks().iter().position(|&t| t == 19).unwrap();
        assert!(g.is_break(tp));
        let v = g.ticks().iter().position(|&t| t == 3).unwrap();
        assert_eq!(g.velocity(v)[0], 0.5);
        assert_ne!(g.mark(v) & mark::RECORDED_VELOCITY, 0);
    }

    #[test]
    fn errors_instead_of_panics() {
        let b = RunBuilder::new(3, 20.0);
        assert!(
            b.build(&GhostRange::all(), &GhostOptions::default())
                .is_err()
        );
        let mut b = RunBuilder::new(3, 20.0);
        b.pose(10, p(0.0)).unwrap();
        assert!(b.pose(9, p(0.0)).is_err());
        assert!(
            b.build(&GhostRange::checkpoints(0, 1), &GhostOptions::default())
                .is_err()
        );
        assert!(
            b.build(&GhostRange::ticks(20, 30), &GhostOptions::default())
                .is_err()
        );
    }
}
