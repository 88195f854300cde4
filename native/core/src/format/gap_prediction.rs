//! Predictor 4, **linear in time** (data version 2, FORMAT.md section 9): constant velocity
//! measured per tick, not per sample, so that it predicts across the gaps of a sparse track (a
//! mob that walks on and is sampled every few ticks, a player whose client sends a pose every
//! 2-5 ticks). On a track sampled on consecutive ticks it equals predictor 1 (linear), so the
//! writer only considers it for tracks with a gap.

use crate::format::bytes::zigzag;

/// The predictor id of "linear in time".
pub(crate) const PRED_TIME_LINEAR: u8 = 4;

/// The last two (value, tick) pairs of a column, newest first, and how many are valid. The
/// keyframe value counts as sampled at relative tick −1 (the tick before the chunk's first).
#[derive(Debug, Clone, Copy, Default)]
struct TimedHistory {
    h: [(i64, i64); 2],
    n: u8,
}

impl TimedHistory {
    fn new(base: Option<i64>) -> TimedHistory {
        match base {
            Some(b) => TimedHistory {
                h: [(b, -1), (0, 0)],
                n: 1,
            },
            None => TimedHistory::default(),
        }
    }
    fn reset(&mut self) {
        self.n = self.n.min(1);
    }
    fn push(&mut self, v: i64, t: i64) {
        self.h = [(v, t), self.h[0]];
        self.n = (self.n + 1).min(2);
    }
    /// The prediction for a sample at relative tick `t` (after every tick of the history):
    /// `a + round((a − b) × (t − ta) / (ta − tb))`, halves rounded up, computed exactly
    /// ([`step`]) and wrapped to i64.
    fn predict(&self, t: i64) -> i64 {
        let [(a, ta), (b, tb)] = self.h;
        match self.n {
            0 => 0,
            1 => a,
            _ => a.wrapping_add(step(a.wrapping_sub(b), t - ta, ta - tb)),
        }
    }
}

/// `round(d × dt / span)`, halves rounded up (`span` ≥ 1): `d` itself when the gap repeats
/// (`dt == span`), in i64 when nothing can overflow, else in i128 (each exact, so all equal).
fn step(d: i64, dt: i64, span: i64) -> i64 {
    if dt == span {
        // (2·d·s + s) / 2s = d + 1/2, floored
        return d;
    }
    match d
        .checked_mul(2)
        .and_then(|x| x.checked_mul(dt))
        .and_then(|x| x.checked_add(span))
    {
        Some(n) => n.div_euclid(2 * span),
        None => step_wide(d, dt, span),
    }
}

/// [`step`] computed in i128, wrapped to i64.
fn step_wide(d: i64, dt: i64, span: i64) -> i64 {
    let (dt, span, d) = (i128::from(dt), i128::from(span), i128::from(d));
    (2 * d * dt + span).div_euclid(2 * span) as i64
}

/// Walks a column's samples with their history: `f(i, prediction)` for each, reset before each
/// index in `resets`, `value(i)` pushed after.
fn walk(
    n: usize,
    ticks: &[u32],
    base: Option<i64>,
    resets: &[u32],
    mut f: impl FnMut(usize, i64) -> i64,
) {
    let mut h = TimedHistory::new(base);
    let mut ri = 0;
    for (i, &t) in ticks.iter().enumerate().take(n) {
        if ri < resets.len() && resets[ri] as usize == i {
            h.reset();
            ri += 1;
        }
        let t = i64::from(t);
        let v = f(i, h.predict(t));
        h.push(v, t);
    }
}

/// Whether a track's samples have a gap (so that predictor 4 differs from linear).
pub(crate) fn has_gap(ticks: &[u32]) -> bool {
    ticks.windows(2).any(|w| w[1] != w[0] + 1)
}

/// Residuals of `values` (sampled at relative `ticks`) under predictor 4, into `out`.
pub(crate) fn residuals(
    values: &[i64],
    ticks: &[u32],
    base: Option<i64>,
    resets: &[u32],
    out: &mut [i64],
) {
    walk(values.len(), ticks, base, resets, |i, p| {
        out[i] = values[i].wrapping_sub(p);
        values[i]
    });
}

/// Significant bits of the residuals under predictor 4 (the writer's cost, as
/// `movement::choose` counts it for the others).
pub(crate) fn cost(values: &[i64], ticks: &[u32], base: Option<i64>, resets: &[u32]) -> u64 {
    let mut total = 0;
    walk(values.len(), ticks, base, resets, |i, p| {
        total += u64::from(64 - (zigzag(values[i].wrapping_sub(p)) | 1).leading_zeros());
        values[i]
    });
    total
}

/// Inverse of [`residuals`]: rebuilds values from residuals (already multiplied by the divisor).
pub(crate) fn reconstruct(
    res: &[i64],
    ticks: &[u32],
    base: Option<i64>,
    resets: &[u32],
    out: &mut Vec<i64>,
) {
    out.clear();
    walk(res.len(), ticks, base, resets, |i, p| {
        let v = p.wrapping_add(res[i]);
        out.push(v);
        v
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body moving at 3 units a tick, sampled with gaps of 1 to 5 ticks: after the first two
    /// samples every residual is 0 (linear per sample would miss at every change of gap);
    /// half-unit velocities round; residuals and reconstruction are inverse, also across resets
    /// and at the edges of i64.
    /// The step's short cuts (a repeated gap, i64 arithmetic) give what i128 gives, for small
    /// and huge differences, gaps and spans, on both sides of the overflow checks.
    #[test]
    fn step_equals_the_wide_computation() {
        let ds = [
            0i64,
            1,
            -1,
            3,
            -3,
            7,
            -8,
            1 << 20,
            -(1 << 40),
            (1 << 61) - 1,
            1 << 62,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
        ];
        let gaps = [1i64, 2, 3, 5, 100, 4095, 1 << 20, (1 << 32) - 1, 1 << 32];
        for &d in &ds {
            for &dt in &gaps {
                for &span in &gaps {
                    assert_eq!(step(d, dt, span), step_wide(d, dt, span), "{d} {dt} {span}");
                }
            }
        }
        // a pseudo-random sweep
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let d = (x as i64) >> (x % 60);
            let dt = 1 + ((x >> 8) % 1000) as i64;
            let span = 1 + ((x >> 24) % 1000) as i64;
            assert_eq!(step(d, dt, span), step_wide(d, dt, span), "{d} {dt} {span}");
        }
    }

    #[test]
    fn predicts_across_gaps_and_round_trips() {
        let ticks = [0u32, 1, 3, 4, 9, 11, 12, 20];
        let values: Vec<i64> = ticks.iter().map(|&t| 100 + 3 * i64::from(t)).collect();
        let mut res = vec![0; values.len()];
        residuals(&values, &ticks, None, &[], &mut res);
        assert_eq!(res, [100, 3, 0, 0, 0, 0, 0, 0]);
        let mut back = Vec::new();
        reconstruct(&res, &ticks, None, &[], &mut back);
        assert_eq!(back, values);
        // 1.5 units a tick from the keyframe (tick −1): predictions round half up
        let h = TimedHistory {
            h: [(3, 1), (0, -1)],
            n: 2,
        };
        assert_eq!(h.predict(2), 5); // 3 + 1.5 -> 4.5 -> 5
        let h = TimedHistory {
            h: [(-3, 1), (0, -1)],
            n: 2,
        };
        assert_eq!(h.predict(2), -4); // -3 - 1.5 -> -4.5 -> -4
        for base in [None, Some(i64::MIN), Some(7)] {
            let values = [i64::MAX, i64::MIN, 0, -1, i64::MAX - 5, 12];
            let ticks = [2u32, 3, 7, 8, 100, 4000];
            let resets = [3u32, 4];
            let mut res = vec![0; values.len()];
            residuals(&values, &ticks, base, &resets, &mut res);
            reconstruct(&res, &ticks, base, &resets, &mut back);
            assert_eq!(back, values, "{base:?}");
            assert!(cost(&values, &ticks, base, &resets) > 0);
        }
        assert!(has_gap(&ticks) && !has_gap(&[4, 5, 6]) && !has_gap(&[]));
    }
}
