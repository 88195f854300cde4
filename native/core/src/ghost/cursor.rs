//! [`GhostCursor`]: the ghost's pose at a fractional tick.
//!
//! Between two samples `i` and `i + 1` (ticks `t0 < t1`, `h = t1 - t0`, `s = (t - t0) / h`) each
//! component is the cubic Hermite
//! `p(s) = p0 + s m0 h + s² (3 D - 2 m0 h - m1 h) + s³ (-2 D + m0 h + m1 h)`
//! with `D = p1 - p0` (for yaw: the shortest arc, so 359° → 1° turns +2°, and the value stays in
//! the recorded unbounded winding) and tangents `m0`, `m1` the samples' velocities per tick. Each
//! tangent is limited per segment to `[0, 3 D / h]` (zero if `D = 0`): the Fritsch–Carlson
//! condition for a monotone cubic, so the ghost never leaves the segment's bounding box, never
//! overshoots a stop and never drifts while standing. At `s = 0` the value is exactly `p0`: at
//! every recorded tick the ghost is exactly at the recorded pose. If a discontinuity (teleport)
//! lands on sample `i + 1`, the segment holds `p0` until `t1` and the pose jumps there.
//!
//! The cursor keeps the current segment and its polynomial coefficients: sampling forward is O(1)
//! (a few steps at most when a segment ends), any other access a binary search; nothing allocates.

use std::sync::Arc;

use crate::ghost::track::{COLS, GhostTrack, PITCH, X, Y, YAW, Z, col_diff, mark};

/// Where the ghost is in its run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GhostState {
    /// Before the start (`t < 0`): the ghost waits at its first pose.
    #[default]
    NotStarted,
    /// Running.
    Running,
    /// At or after the finish: the ghost stays at its last pose.
    Finished,
}

/// The ghost at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GhostSample {
    /// The time sampled on the ghost's own clock (after its time shift), in ticks.
    pub t: f64,
    pub x: f64,
    pub y: f64,
    pub z: f64,
    /// Degrees, unbounded (continuous with the recorded values).
    pub yaw: f64,
    /// Degrees.
    pub pitch: f64,
    pub flags: u32,
    pub state: GhostState,
}

impl GhostSample {
    /// `[x, y, z]`.
    pub fn position(&self) -> [f64; 3] {
        [self.x, self.y, self.z]
    }
}

/// Limits a tangent to the monotone range of a segment with secant `d` (see the module docs).
#[inline]
fn limit(m: f64, d: f64) -> f64 {
    if d > 0.0 {
        m.clamp(0.0, 3.0 * d)
    } else if d < 0.0 {
        m.clamp(3.0 * d, 0.0)
    } else {
        0.0
    }
}

/// The polynomial coefficients (in `s = (t - t0) / h`) of segment `i` (samples `i`, `i + 1`).
pub(crate) fn segment_coefficients(tr: &GhostTrack, i: usize, coef: &mut [[f64; 4]; COLS]) {
    let h = f64::from(tr.t[i + 1] - tr.t[i]);
    let hold = tr.marks[i + 1] & mark::BREAK != 0;
    for (c, k) in coef.iter_mut().enumerate() {
        let p0 = tr.cols[c][i];
        if hold {
            *k = [p0, 0.0, 0.0, 0.0];
            continue;
        }
        let d = col_diff(c, tr.cols[c][i + 1], p0);
        let sec = d / h;
        let m0 = limit(tr.vel[c][i], sec) * h;
        let m1 = limit(tr.vel[c][i + 1], sec) * h;
        *k = [p0, m0, 3.0 * d - 2.0 * m0 - m1, -2.0 * d + m0 + m1];
    }
}

impl GhostTrack {
    /// The pose `[x, y, z, yaw, pitch]` at tick offset `t` (clamped into the run), exactly as a
    /// [`GhostCursor`] samples it, without a cursor: O(log n).
    pub fn pose_at(&self, t: f64) -> [f64; COLS] {
        let n = self.t.len();
        let i = self.sample_at_or_before(t);
        if i + 1 >= n || t.is_nan() || t <= f64::from(self.t[i]) {
            return self.pose(i);
        }
        let mut coef = [[0.0; 4]; COLS];
        segment_coefficients(self, i, &mut coef);
        let s = (t - f64::from(self.t[i])) * (1.0 / f64::from(self.t[i + 1] - self.t[i]));
        coef.map(|c| c[0] + s * (c[1] + s * (c[2] + s * c[3])))
    }
}

/// Samples one [`GhostTrack`]. Several cursors may share a track.
#[derive(Debug, Clone)]
pub struct GhostCursor {
    track: Arc<GhostTrack>,
    time_shift: f64,
    /// The run's last tick, as `f64`.
    end: f64,
    seg: usize,
    seg_t0: f64,
    seg_t1: f64,
    inv_h: f64,
    coef: [[f64; 4]; COLS],
    flag_i: usize,
    flag_value: u32,
    flag_t0: f64,
    flag_t1: f64,
}

impl GhostCursor {
    /// A cursor at the start of `track`.
    pub fn new(track: Arc<GhostTrack>) -> GhostCursor {
        let end = f64::from(track.duration_ticks());
        let mut c = GhostCursor {
            track,
            time_shift: 0.0,
            end,
            seg: 0,
            seg_t0: f64::INFINITY,
            seg_t1: f64::NEG_INFINITY,
            inv_h: 0.0,
            coef: [[0.0; 4]; COLS],
            flag_i: 0,
            flag_value: 0,
            flag_t0: 0.0,
            flag_t1: 0.0,
        };
        if c.track.len() >= 2 {
            c.load_segment(0);
        }
        c.load_flag(0);
        c
    }

    /// The track sampled.
    pub fn track(&self) -> &Arc<GhostTrack> {
        &self.track
    }

    /// Delays the ghost by `ticks` (negative: it starts earlier). `sample(t)` shows the run at
    /// `t - ticks`.
    pub fn set_time_shift(&mut self, ticks: f64) {
        self.time_shift = if ticks.is_finite() { ticks } else { 0.0 };
    }

    /// The time shift in ticks.
    pub fn time_shift(&self) -> f64 {
        self.time_shift
    }

    /// The ghost at `t` ticks from the (shifted) start of its run. O(1) when `t` moves forward a
    /// little from the previous call, O(log n) otherwise; never allocates.
    #[inline]
    pub fn sample(&mut self, t: f64) -> GhostSample {
        let tt = t - self.time_shift;
        if tt.is_nan() || tt < 0.0 {
            // before the start (or NaN)
            return self.at_sample(0, tt, GhostState::NotStarted, 0);
        }
        if tt >= self.end {
            let tr = &*self.track;
            return self.at_sample(
                tr.t.len() - 1,
                tt,
                GhostState::Finished,
                tr.flag_v.len() - 1,
            );
        }
        if !(tt >= self.seg_t0 && tt < self.seg_t1) {
            self.locate(tt);
        }
        if !(tt >= self.flag_t0 && tt < self.flag_t1) {
            self.locate_flag(tt);
        }
        let s = (tt - self.seg_t0) * self.inv_h;
        let e = |c: &[f64; 4]| c[0] + s * (c[1] + s * (c[2] + s * c[3]));
        GhostSample {
            t: tt,
            x: e(&self.coef[X]),
            y: e(&self.coef[Y]),
            z: e(&self.coef[Z]),
            yaw: e(&self.coef[YAW]),
            pitch: e(&self.coef[PITCH]),
            flags: self.flag_value,
            state: GhostState::Running,
        }
    }

    fn at_sample(&self, i: usize, tt: f64, state: GhostState, flag: usize) -> GhostSample {
        let c = &self.track.cols;
        GhostSample {
            t: tt,
            x: c[X][i],
            y: c[Y][i],
            z: c[Z][i],
            yaw: c[YAW][i],
            pitch: c[PITCH][i],
            flags: self.track.flag_v[flag],
            state,
        }
    }

    /// Finds the segment holding `tt` (`0 <= tt < end`).
    fn locate(&mut self, tt: f64) {
        let t = &self.track.t;
        if tt >= self.seg_t1 {
            // forward: a few steps, then a binary search
            for i in self.seg + 1..(self.seg + 5).min(t.len() - 1) {
                if tt < f64::from(t[i + 1]) {
                    self.load_segment(i);
                    return;
                }
            }
        }
        let i = t.partition_point(|&s| f64::from(s) <= tt) - 1;
        self.load_segment(i);
    }

    fn load_segment(&mut self, i: usize) {
        let tr = &*self.track;
        let (t0, t1) = (tr.t[i], tr.t[i + 1]);
        self.seg = i;
        self.seg_t0 = f64::from(t0);
        self.seg_t1 = f64::from(t1);
        self.inv_h = 1.0 / f64::from(t1 - t0);
        segment_coefficients(tr, i, &mut self.coef);
    }

    fn locate_flag(&mut self, tt: f64) {
        let ft = &self.track.flag_t;
        let i = if tt >= self.flag_t1 && self.flag_i + 2 >= ft.len() {
            ft.len() - 1
        } else if tt >= self.flag_t1 && tt < f64::from(ft[self.flag_i + 2]) {
            self.flag_i + 1
        } else {
            ft.partition_point(|&s| f64::from(s) <= tt)
                .saturating_sub(1)
        };
        self.load_flag(i);
    }

    fn load_flag(&mut self, i: usize) {
        let ft = &self.track.flag_t;
        self.flag_i = i;
        self.flag_value = self.track.flag_v[i];
        self.flag_t0 = f64::from(ft[i]);
        self.flag_t1 = ft.get(i + 1).map_or(f64::INFINITY, |&t| f64::from(t));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::pose::Pose;
    use crate::ghost::builder::{GhostOptions, RunBuilder};
    use crate::ghost::range::GhostRange;

    fn track(samples: &[(u32, f64, f64)]) -> Arc<GhostTrack> {
        let poses: Vec<(u32, Pose)> = samples
            .iter()
            .map(|&(t, x, yaw)| (t, Pose::from_f64(x, 64.0, 0.0, yaw, 0.0)))
            .collect();
        Arc::new(GhostTrack::from_poses(20.0, &poses, &[]).unwrap())
    }

    #[test]
    fn states_and_exact_samples() {
        let g = track(&[(0, 0.0, 0.0), (1, 1.0, 11.25), (2, 3.0, 22.5)]);
        let mut c = GhostCursor::new(g);
        assert_eq!(c.sample(-0.5).state, GhostState::NotStarted);
        assert_eq!(c.sample(-0.5).x, 0.0);
        assert_eq!(c.sample(f64::NAN).state, GhostState::NotStarted);
        assert_eq!(c.sample(0.0).state, GhostState::Running);
        assert_eq!(c.sample(1.0).x, 1.0);
        assert_eq!(c.sample(2.0).state, GhostState::Finished);
        assert_eq!(c.sample(2.0).x, 3.0);
        assert_eq!(c.sample(9.0).yaw, 22.5);
        // back again: random access
        assert_eq!(c.sample(1.0).yaw, 11.25);
        let mid = c.sample(0.5);
        assert!(mid.x > 0.0 && mid.x < 1.0, "{mid:?}");
    }

    #[test]
    fn time_shift_delays_the_ghost() {
        let g = track(&[(0, 0.0, 0.0), (5, 5.0, 0.0), (10, 10.0, 0.0)]);
        let mut c = GhostCursor::new(g);
        c.set_time_shift(5.0);
        assert_eq!(c.sample(4.0).state, GhostState::NotStarted);
        assert_eq!(c.sample(5.0).x, 0.0);
        assert_eq!(c.sample(15.0).x, 10.0);
        c.set_time_shift(-5.0);
        assert_eq!(c.sample(-2.5).x, c.sample(-2.5).t);
        assert_eq!(c.sample(-2.5).t, 2.5);
    }

    #[test]
    fn flags_follow_changes_forward_and_backward() {
        let mut b = RunBuilder::new(1, 20.0);
        for t in 0..20 {
            b.pose(t, Pose::from_f64(f64::from(t), 0.0, 0.0, 0.0, 0.0))
                .unwrap();
        }
        b.flags(0, 1);
        b.flags(5, 2);
        b.flags(6, 3);
        b.flags(12, 4);
        let g = Arc::new(
            b.build(&GhostRange::all(), &GhostOptions::default())
                .unwrap(),
        );
        let mut c = GhostCursor::new(g.clone());
        let mut t = -1.0;
        while t < 21.0 {
            let s = c.sample(t);
            let want = g.flags_at(t.clamp(0.0, 19.0).floor() as u32);
            assert_eq!(s.flags, want, "t {t}");
            t += 0.25;
        }
        for &t in &[13.0, 0.5, 5.5, 19.5, 6.0, 4.99] {
            assert_eq!(c.sample(t).flags, g.flags_at(t.floor() as u32), "t {t}");
        }
    }
}
