//! [`LiveDelta`]: how far behind (`+`) or ahead (`-`) of a ghost the live player is, at any moment.
//!
//! The live player's position is matched to the nearest point of the ghost's path: each segment
//! between consecutive samples is taken as a straight chord, the position is projected onto it
//! (clamped to its ends), and the ghost's time at that point is interpolated along the chord. Only a
//! window of segments around the previous match is searched (`window_behind` before,
//! `window_ahead` after), so a path that crosses itself or laps a course is not confused; when the
//! best match in the window is farther than `reacquire_distance` (the player respawned, or took
//! another route), the whole path is searched. Where the ghost stood still (a zero-length chord, or
//! a hold before a teleport) its time at that point is ambiguous; the time nearest the expected one
//! (the live time minus the previous delta) is taken. Equal distances are broken the same way.
//!
//! The raw delta is `live elapsed - ghost time at the match` (the ghost's time shift included).
//! What is shown goes through two hysteresis rules, so that neither the number nor its sign
//! flickers while the player runs level with the ghost:
//! - the sign flips only when the raw delta passes zero by more than `sign_band_seconds`; while it
//!   is on the other side by less than that, the shown delta is zero with the old sign;
//! - the shown value changes only when it would move by at least `step_seconds` (or the sign flips).

use std::fmt;
use std::sync::Arc;

use crate::ghost::splits::SignedSeconds;
use crate::ghost::track::{GhostTrack, X, Y, Z, mark};

/// Settings of a [`LiveDelta`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeltaOptions {
    /// Segments searched before the previous match.
    pub window_behind: usize,
    /// Segments searched after the previous match.
    pub window_ahead: usize,
    /// Blocks: a windowed match farther than this triggers a search of the whole path.
    pub reacquire_distance: f64,
    /// Seconds the raw delta must pass zero by before the shown sign flips.
    pub sign_band_seconds: f64,
    /// Seconds the shown value must move by before it changes.
    pub step_seconds: f64,
}

impl Default for DeltaOptions {
    fn default() -> Self {
        DeltaOptions {
            window_behind: 10,
            window_ahead: 40,
            reacquire_distance: 8.0,
            sign_band_seconds: 0.1,
            step_seconds: 0.02,
        }
    }
}

/// One reading of the live delta.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeltaReading {
    /// Live elapsed minus the ghost's (shifted) time at the matched point, in ticks.
    pub raw_ticks: f64,
    /// The delta to show, in ticks, after hysteresis (zero or of the shown sign).
    pub shown_ticks: f64,
    /// The shown sign: the live player is ahead of the ghost.
    pub ahead: bool,
    /// The ghost's own time at the matched point, in ticks from its start (unshifted).
    pub ghost_ticks: f64,
    /// Distance from the live player to the matched point, in blocks.
    pub distance: f64,
    /// Ticks per second (for conversions).
    pub tick_rate: f64,
}

impl DeltaReading {
    /// The shown delta in seconds.
    pub fn seconds(&self) -> f64 {
        self.shown_ticks / self.tick_rate
    }
    /// The raw delta in seconds.
    pub fn raw_seconds(&self) -> f64 {
        self.raw_ticks / self.tick_rate
    }
    /// The shown delta with its sticky sign, for display (`+0.35 s`, `-0.00 s`).
    pub fn signed(&self) -> SignedSeconds {
        SignedSeconds {
            negative: self.ahead,
            magnitude: self.seconds().abs(),
        }
    }
}

impl fmt::Display for DeltaReading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.signed().fmt(f)
    }
}

#[derive(Debug, Clone, Copy)]
struct Match {
    seg: usize,
    time: f64,
    d2: f64,
}

/// Tracks the live delta of one live run against one ghost. `update` costs O(window) and does not
/// allocate.
#[derive(Debug, Clone)]
pub struct LiveDelta {
    track: Arc<GhostTrack>,
    options: DeltaOptions,
    time_shift: f64,
    last: Option<(usize, f64)>,
    shown: Option<(f64, bool)>,
}

/// Distances this close (blocks squared) count as equal.
const TIE: f64 = 1e-9;

impl LiveDelta {
    /// Delta against `track` with default options.
    pub fn new(track: Arc<GhostTrack>) -> LiveDelta {
        LiveDelta::with_options(track, DeltaOptions::default())
    }

    pub fn with_options(track: Arc<GhostTrack>, options: DeltaOptions) -> LiveDelta {
        LiveDelta {
            track,
            options,
            time_shift: 0.0,
            last: None,
            shown: None,
        }
    }

    /// The ghost's time shift in ticks (as [`crate::ghost::GhostCursor::set_time_shift`]): a
    /// ghost started later is that much slower at every point.
    pub fn set_time_shift(&mut self, ticks: f64) {
        self.time_shift = if ticks.is_finite() { ticks } else { 0.0 };
    }

    /// Forgets the previous match and shown value (a new live attempt).
    pub fn reset(&mut self) {
        self.last = None;
        self.shown = None;
    }

    /// [`LiveDelta::update`] for input from outside (the C and Java bindings use it): a live time
    /// or a coordinate that is not finite is refused with [`crate::Error::InvalidArgument`]
    /// (naming it, with a short message) instead of giving a meaningless delta.
    pub fn try_update(&mut self, live_ticks: f64, pos: [f64; 3]) -> crate::Result<DeltaReading> {
        crate::error::check_finite("the live time", live_ticks)?;
        for (name, v) in ["x", "y", "z"].into_iter().zip(pos) {
            crate::error::check_finite(name, v)?;
        }
        Ok(self.update(live_ticks, pos))
    }

    /// The delta when the live player, `live_ticks` after the start of their run, is at `pos`.
    pub fn update(&mut self, live_ticks: f64, pos: [f64; 3]) -> DeltaReading {
        let tr = &*self.track;
        let n = tr.t.len();
        let expected = match self.last {
            Some((_, raw)) => live_ticks - self.time_shift - raw,
            None => live_ticks - self.time_shift,
        };
        let o = &self.options;
        let mut m = match self.last {
            Some((seg, _)) => {
                let lo = seg.saturating_sub(o.window_behind);
                let hi = seg.saturating_add(o.window_ahead).saturating_add(1).min(n);
                self.search(pos, lo, hi, expected)
            }
            None => self.search(pos, 0, n, expected),
        };
        if self.last.is_some() && m.d2 > o.reacquire_distance * o.reacquire_distance {
            let all = self.search(pos, 0, n, expected);
            if all.d2 < m.d2 - TIE {
                m = all;
            }
        }
        let raw = live_ticks - (m.time + self.time_shift);
        self.last = Some((m.seg, raw));
        let rate = tr.tick_rate;
        let band = o.sign_band_seconds * rate;
        let step = o.step_seconds * rate;
        let (shown, ahead) = match self.shown {
            None => (raw, raw < 0.0),
            Some((shown, ahead)) => {
                let flip = if ahead { raw > band } else { raw < -band };
                let ahead = ahead != flip;
                let cand = if ahead { raw.min(0.0) } else { raw.max(0.0) };
                if flip || (cand - shown).abs() >= step {
                    (cand, ahead)
                } else {
                    (shown, ahead)
                }
            }
        };
        self.shown = Some((shown, ahead));
        DeltaReading {
            raw_ticks: raw,
            shown_ticks: shown,
            ahead,
            ghost_ticks: m.time,
            distance: m.d2.sqrt(),
            tick_rate: rate,
        }
    }

    /// The nearest point of samples `lo..hi` (and the chords between them) to `q`.
    fn search(&self, q: [f64; 3], lo: usize, hi: usize, expected: f64) -> Match {
        let tr = &*self.track;
        let (xs, ys, zs) = (&tr.cols[X], &tr.cols[Y], &tr.cols[Z]);
        let mut best = Match {
            seg: lo,
            time: f64::from(tr.t[lo]),
            d2: f64::INFINITY,
        };
        let mut best_gap = f64::INFINITY;
        let mut consider = |seg: usize, time: f64, d2: f64| {
            let gap = (time - expected).abs();
            if d2 < best.d2 - TIE || (d2 <= best.d2 + TIE && gap < best_gap) {
                best = Match { seg, time, d2 };
                best_gap = gap;
            }
        };
        for k in lo..hi {
            let p0 = [xs[k], ys[k], zs[k]];
            let w = [q[0] - p0[0], q[1] - p0[1], q[2] - p0[2]];
            let t0 = f64::from(tr.t[k]);
            if k + 1 >= tr.t.len() {
                consider(k, t0, dot(w, w));
                continue;
            }
            let t1 = f64::from(tr.t[k + 1]);
            let d = [xs[k + 1] - p0[0], ys[k + 1] - p0[1], zs[k + 1] - p0[2]];
            let len2 = dot(d, d);
            if tr.marks[k + 1] & mark::BREAK != 0 || len2 == 0.0 {
                // standing at p0 from t0 until t1: any time in between fits
                consider(k, expected.clamp(t0, t1), dot(w, w));
                continue;
            }
            let u = (dot(w, d) / len2).clamp(0.0, 1.0);
            let r = [w[0] - u * d[0], w[1] - u * d[1], w[2] - u * d[2]];
            consider(k, t0 + u * (t1 - t0), dot(r, r));
        }
        best
    }
}

#[inline]
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::pose::Pose;

    fn straight(n: u32) -> Arc<GhostTrack> {
        let poses: Vec<(u32, Pose)> = (0..n)
            .map(|t| (t, Pose::from_f64(f64::from(t) * 0.25, 64.0, 0.0, 0.0, 0.0)))
            .collect();
        Arc::new(GhostTrack::from_poses(20.0, &poses, &[]).unwrap())
    }

    #[test]
    fn hold_segments_take_the_expected_time() {
        // moves 10 ticks, stands 20 ticks (held), moves again
        let mut poses = Vec::new();
        for t in 0..10u32 {
            poses.push((t, Pose::from_f64(f64::from(t), 0.0, 0.0, 0.0, 0.0)));
        }
        for t in 30..40u32 {
            poses.push((t, Pose::from_f64(f64::from(t - 20), 0.0, 0.0, 0.0, 0.0)));
        }
        let g = Arc::new(GhostTrack::from_poses(20.0, &poses, &[]).unwrap());
        let mut d = LiveDelta::new(g);
        // live is 3 ticks behind all the way
        for t in 3..42u32 {
            let gt = t - 3;
            let x = if gt < 10 {
                f64::from(gt)
            } else if gt < 30 {
                9.0
            } else {
                f64::from(gt.min(39) - 20)
            };
            let r = d.update(f64::from(t), [x, 0.0, 0.0]);
            if gt <= 39 {
                assert!((r.raw_ticks - 3.0).abs() < 1e-9, "t {t}: {r:?}");
            }
        }
    }

    #[test]
    fn reacquires_after_a_jump() {
        let g = straight(400);
        let mut d = LiveDelta::new(g);
        assert!((d.update(10.0, [2.5, 64.0, 0.0]).ghost_ticks - 10.0).abs() < 1e-9);
        // far outside the window: found by the whole-path search
        let r = d.update(300.0, [75.0, 64.0, 0.0]);
        assert!((r.ghost_ticks - 300.0).abs() < 1e-9, "{r:?}");
    }
}
