//! [`GhostTrack`]: one entity's run as compact column arrays (struct of arrays), built once and
//! then only read. Every sample has a tick (relative to the run's start), a pose (x, y, z in blocks,
//! yaw unbounded and pitch in degrees, as `f64`, exact for the format's fixed point), a velocity per
//! component (per tick: recorded, or estimated from its neighbours) and marks (a discontinuity
//! lands on it; its velocity was recorded; it was synthesised to hold a pose). Flags are kept as a
//! list of changes and checkpoint markers as splits.

use crate::format::pose::Pose;

/// Column indices of the pose components.
pub const X: usize = 0;
pub const Y: usize = 1;
pub const Z: usize = 2;
pub const YAW: usize = 3;
pub const PITCH: usize = 4;
/// Number of pose components.
pub const COLS: usize = 5;

/// Per-sample marks (bits of [`GhostTrack::mark`]).
pub mod mark {
    /// A discontinuity lands on this sample (a teleport, or the entity reappearing): the ghost
    /// holds the previous sample's pose until this tick and then jumps; nothing is interpolated
    /// across it.
    pub const BREAK: u8 = 1 << 0;
    /// The velocity of this sample was recorded (an `Event::Velocity` at its tick).
    pub const RECORDED_VELOCITY: u8 = 1 << 1;
    /// Synthesised, not recorded: a pose held from an earlier sample (the run's first or last
    /// tick, the end of a long gap) or taken from the curve (a sum-of-best segment's end).
    pub const HELD: u8 = 1 << 2;
}

/// A checkpoint marker of the run: its index and the tick offset from the run's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split {
    pub checkpoint: u32,
    pub tick: u32,
}

/// One entity's run, decoded once. Cheap to share (`Arc<GhostTrack>`) between cursors.
#[derive(Debug, Clone, PartialEq)]
pub struct GhostTrack {
    pub(crate) entity: u32,
    pub(crate) tick_rate: f64,
    pub(crate) origin_tick: u32,
    pub(crate) synthetic: bool,
    /// Sample ticks relative to the run's start, strictly increasing, `t[0] == 0`.
    pub(crate) t: Vec<u32>,
    /// x, y, z (blocks), yaw (unbounded), pitch (degrees).
    pub(crate) cols: [Vec<f64>; COLS],
    /// Per tick, per component (blocks/tick, degrees/tick).
    pub(crate) vel: [Vec<f64>; COLS],
    pub(crate) marks: Vec<u8>,
    /// Flag changes: ticks relative to the start (`flag_t[0] == 0`) and the new values.
    pub(crate) flag_t: Vec<u32>,
    pub(crate) flag_v: Vec<u32>,
    /// Checkpoint markers in recorded order.
    pub(crate) splits: Vec<Split>,
}

impl GhostTrack {
    /// The entity whose run this is (0 for synthetic tracks built from several runs).
    pub fn entity(&self) -> u32 {
        self.entity
    }
    /// Ticks per second of the source recording.
    pub fn tick_rate(&self) -> f64 {
        self.tick_rate
    }
    /// Absolute tick of the source recording at which the run starts (`t = 0`).
    pub fn origin_tick(&self) -> u32 {
        self.origin_tick
    }
    /// Whether the track was put together from several runs (a sum-of-best ghost).
    pub fn is_synthetic(&self) -> bool {
        self.synthetic
    }
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.t.len()
    }
    /// Always false: a track has at least one sample.
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }
    /// The run's length in ticks (the last sample's tick).
    pub fn duration_ticks(&self) -> u32 {
        self.t.last().copied().unwrap_or(0)
    }
    /// The run's length in seconds.
    pub fn duration_seconds(&self) -> f64 {
        f64::from(self.duration_ticks()) / self.tick_rate
    }
    /// Tick offset of sample `i`.
    pub fn tick(&self, i: usize) -> u32 {
        self.t[i]
    }
    /// The sample ticks.
    pub fn ticks(&self) -> &[u32] {
        &self.t
    }
    /// Pose of sample `i` as `[x, y, z, yaw, pitch]` (blocks, degrees).
    pub fn pose(&self, i: usize) -> [f64; COLS] {
        std::array::from_fn(|c| self.cols[c][i])
    }
    /// Velocity of sample `i` per tick, as `[x, y, z, yaw, pitch]`.
    pub fn velocity(&self, i: usize) -> [f64; COLS] {
        std::array::from_fn(|c| self.vel[c][i])
    }
    /// Marks of sample `i` (see [`mark`]).
    pub fn mark(&self, i: usize) -> u8 {
        self.marks[i]
    }
    /// Whether a discontinuity (teleport) lands on sample `i`.
    pub fn is_break(&self, i: usize) -> bool {
        self.marks[i] & mark::BREAK != 0
    }
    /// One column: `X`, `Y`, `Z`, `YAW` or `PITCH`.
    pub fn column(&self, c: usize) -> &[f64] {
        &self.cols[c]
    }
    /// Flag changes as `(tick offset, flags)`, the first at tick 0.
    pub fn flag_changes(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.flag_t.iter().copied().zip(self.flag_v.iter().copied())
    }
    /// Flags in effect at tick offset `tick`.
    pub fn flags_at(&self, tick: u32) -> u32 {
        let i = self.flag_t.partition_point(|&t| t <= tick);
        self.flag_v[i.saturating_sub(1)]
    }
    /// Checkpoint markers of the run in recorded order (a split per crossing).
    pub fn splits(&self) -> &[Split] {
        &self.splits
    }
    /// Tick offset at which checkpoint `checkpoint` was first reached.
    pub fn split(&self, checkpoint: u32) -> Option<u32> {
        self.splits
            .iter()
            .find(|s| s.checkpoint == checkpoint)
            .map(|s| s.tick)
    }
    /// Index of the last sample at or before tick offset `t` (0 before the start).
    pub fn sample_at_or_before(&self, t: f64) -> usize {
        self.t
            .partition_point(|&s| f64::from(s) <= t)
            .saturating_sub(1)
    }
    /// The recorded pose of sample `i`, quantised back to the format's fixed point.
    pub fn quantised_pose(&self, i: usize) -> Pose {
        let p = self.pose(i);
        Pose::from_f64(p[X], p[Y], p[Z], p[YAW], p[PITCH])
    }
    /// Approximate heap size in bytes.
    pub fn heap_bytes(&self) -> usize {
        self.t.len() * (4 + 1 + 2 * COLS * 8) + self.flag_t.len() * 8 + self.splits.len() * 8
    }
}

/// `a - b` for angles in degrees, along the shortest arc: in `[-180, 180)`.
#[inline]
pub fn shortest_arc(a: f64, b: f64) -> f64 {
    let d = a - b;
    d - 360.0 * ((d + 180.0) / 360.0).floor()
}

/// The difference `next - prev` of column `c`: shortest arc for yaw, plain otherwise.
#[inline]
pub(crate) fn col_diff(c: usize, next: f64, prev: f64) -> f64 {
    if c == YAW {
        shortest_arc(next, prev)
    } else {
        next - prev
    }
}

/// Fills the estimated velocities (samples not marked [`mark::RECORDED_VELOCITY`] for x, y, z;
/// always for the angles). Within each continuous section (between breaks) an interior sample
/// gets the non-uniform three-point derivative `(h1 d0 + h0 d1) / (h0 + h1)` (the central
/// difference when ticks are evenly spaced), a section's ends the one-sided difference, a lone
/// sample zero.
pub(crate) fn estimate_velocities(
    t: &[u32],
    cols: &[Vec<f64>; COLS],
    marks: &[u8],
    vel: &mut [Vec<f64>; COLS],
) {
    let n = t.len();
    let mut a = 0;
    while a < n {
        let mut b = a + 1;
        while b < n && marks[b] & mark::BREAK == 0 {
            b += 1;
        }
        if b - a == 1 {
            let recorded = marks[a] & mark::RECORDED_VELOCITY != 0;
            for (c, v) in vel.iter_mut().enumerate() {
                if !(c < YAW && recorded) {
                    v[a] = 0.0;
                }
            }
        } else {
            for c in 0..COLS {
                let p = &cols[c];
                let keep = c < YAW;
                let v = &mut vel[c];
                // secant of the segment before sample i, and its length in ticks
                let mut h0 = f64::from(t[a + 1] - t[a]);
                let mut d0 = col_diff(c, p[a + 1], p[a]) / h0;
                if !(keep && marks[a] & mark::RECORDED_VELOCITY != 0) {
                    v[a] = d0;
                }
                for i in a + 1..b - 1 {
                    let h1 = f64::from(t[i + 1] - t[i]);
                    let d1 = col_diff(c, p[i + 1], p[i]) / h1;
                    if !(keep && marks[i] & mark::RECORDED_VELOCITY != 0) {
                        v[i] = (h1 * d0 + h0 * d1) / (h0 + h1);
                    }
                    (h0, d0) = (h1, d1);
                }
                if !(keep && marks[b - 1] & mark::RECORDED_VELOCITY != 0) {
                    v[b - 1] = d0;
                }
            }
        }
        a = b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_arc_wraps() {
        assert_eq!(shortest_arc(1.0, 359.0), 2.0);
        assert_eq!(shortest_arc(359.0, 1.0), -2.0);
        assert_eq!(shortest_arc(7205.0, 7200.0), 5.0);
        assert_eq!(shortest_arc(-170.0, 170.0), 20.0);
        assert_eq!(shortest_arc(10.0, 10.0 + 720.0), 0.0);
    }

    #[test]
    fn velocities_follow_uneven_spacing_and_stop_at_breaks() {
        let t = vec![0, 1, 3, 4, 5];
        // x = 2 t^2 on the first four samples, then a teleport
        let x = vec![0.0, 2.0, 18.0, 32.0, 1000.0];
        let zeros = vec![0.0; 5];
        let cols = [
            x,
            zeros.clone(),
            zeros.clone(),
            zeros.clone(),
            zeros.clone(),
        ];
        let marks = vec![0, 0, 0, 0, mark::BREAK];
        let mut vel: [Vec<f64>; COLS] = std::array::from_fn(|_| vec![0.0; 5]);
        estimate_velocities(&t, &cols, &marks, &mut vel);
        // the three-point derivative is exact for a quadratic: 4 t
        assert_eq!(vel[X][1], 4.0);
        assert_eq!(vel[X][2], 12.0);
        assert_eq!(vel[X][0], 2.0); // one-sided at the start
        assert_eq!(vel[X][3], 14.0); // one-sided before the break
        assert_eq!(vel[X][4], 0.0); // a lone sample after the break
    }
}
