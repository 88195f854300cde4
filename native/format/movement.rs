//! Movement coding: each pose column (x, y, z, yaw, pitch) of each entity in a chunk is coded as
//! residuals against a prediction from its earlier samples. The predictor is chosen per entity,
//! per column, per chunk by whichever gives the fewest varint bytes; the residuals' greatest common
//! divisor is factored out (a source that sends 1/256-turn angles pays for 1/256, not 1/65536).
//! All arithmetic wraps, so hostile input can never panic the decoder.

use crate::format::bytes::zigzag;

/// Predictor ids (stored in the chunk, never reused).
pub const PRED_PREVIOUS: u8 = 0;
pub const PRED_LINEAR: u8 = 1;
pub const PRED_QUADRATIC: u8 = 2;
pub const PRED_DAMPED: u8 = 3;
pub const PREDICTOR_COUNT: u8 = 4;

/// The last three values of a column, newest first, and how many are valid.
#[derive(Debug, Clone, Copy, Default)]
pub struct History {
    h: [i64; 3],
    n: u8,
}

impl History {
    /// History seeded with the entity's keyframe value, or empty (prediction 0: absolute).
    #[inline]
    pub fn new(base: Option<i64>) -> History {
        match base {
            Some(b) => History { h: [b, 0, 0], n: 1 },
            None => History::default(),
        }
    }
    /// After a teleport: only the previous value remains (the next sample is a plain delta).
    #[inline]
    pub fn reset(&mut self) {
        self.n = self.n.min(1);
    }
    #[inline]
    pub fn push(&mut self, v: i64) {
        self.h = [v, self.h[0], self.h[1]];
        self.n = (self.n + 1).min(3);
    }
    /// The predictions of all four predictors (same values as `predict(0..4)`).
    #[inline]
    pub fn predict_all(&self) -> [i64; 4] {
        let [a, b, c] = self.h;
        match self.n {
            0 => [0; 4],
            1 => [a; 4],
            2 => {
                let lin = a.wrapping_mul(2).wrapping_sub(b);
                [a, lin, lin, a.wrapping_add(a.wrapping_sub(b) >> 1)]
            }
            _ => {
                let d = a.wrapping_sub(b);
                [
                    a,
                    a.wrapping_add(d),
                    d.wrapping_mul(3).wrapping_add(c),
                    a.wrapping_add(d >> 1),
                ]
            }
        }
    }

    #[inline]
    pub fn predict(&self, pred: u8) -> i64 {
        let [a, b, c] = self.h;
        match (pred, self.n) {
            (_, 0) => 0,
            (_, 1) | (PRED_PREVIOUS, _) => a,
            (PRED_LINEAR, _) | (PRED_QUADRATIC, 2) => a.wrapping_mul(2).wrapping_sub(b),
            (PRED_QUADRATIC, _) => a.wrapping_sub(b).wrapping_mul(3).wrapping_add(c),
            (PRED_DAMPED, _) => a.wrapping_add(a.wrapping_sub(b) >> 1),
            _ => a,
        }
    }
}

/// Residuals of `values` under `pred`. `resets` are sorted sample indices where history restarts.
pub fn residuals(values: &[i64], base: Option<i64>, resets: &[u32], pred: u8, out: &mut Vec<i64>) {
    out.clear();
    let mut h = History::new(base);
    let mut ri = 0;
    for (i, &v) in values.iter().enumerate() {
        if ri < resets.len() && resets[ri] as usize == i {
            h.reset();
            ri += 1;
        }
        out.push(v.wrapping_sub(h.predict(pred)));
        h.push(v);
    }
}

/// Inverse of [`residuals`]: rebuilds values from residuals (already multiplied by the divisor).
pub fn reconstruct(res: &[i64], base: Option<i64>, resets: &[u32], pred: u8, out: &mut Vec<i64>) {
    out.clear();
    let mut h = History::new(base);
    let mut ri = 0;
    for (i, &r) in res.iter().enumerate() {
        if ri < resets.len() && resets[ri] as usize == i {
            h.reset();
            ri += 1;
        }
        let v = h.predict(pred).wrapping_add(r);
        out.push(v);
        h.push(v);
    }
}

/// The chosen coding of one column: predictor, divisor, and the divided residuals.
#[derive(Debug, Clone, Default)]
pub struct ColumnCoding {
    pub predictor: u8,
    pub divisor: u64,
    pub residuals: Vec<i64>,
}

/// Picks the predictor with the fewest residual bits and factors out the residuals' GCD.
/// The four candidates are costed in one pass; only the winner's residuals are materialised.
pub fn choose(
    values: &[i64],
    base: Option<i64>,
    resets: &[u32],
    _scratch: &mut Vec<i64>,
    best: &mut ColumnCoding,
) {
    let mut cost = [0usize; PREDICTOR_COUNT as usize];
    let mut h = History::new(base);
    let mut ri = 0;
    for (i, &v) in values.iter().enumerate() {
        if ri < resets.len() && resets[ri] as usize == i {
            h.reset();
            ri += 1;
        }
        let preds = h.predict_all();
        for (c, p) in cost.iter_mut().zip(preds) {
            // Significant bits of the zigzagged residual: a closer proxy than whole varint bytes
            // for what zstd's entropy stage pays, and cheaper to compute.
            *c += (64 - (zigzag(v.wrapping_sub(p)) | 1).leading_zeros()) as usize;
        }
        h.push(v);
    }
    // Ties go to the simplest predictor.
    let pred = (0..PREDICTOR_COUNT)
        .min_by_key(|&p| cost[p as usize])
        .unwrap_or(PRED_PREVIOUS);
    best.predictor = pred;
    residuals(values, base, resets, pred, &mut best.residuals);
    let g = best
        .residuals
        .iter()
        .fold(0u64, |g, &r| gcd(g, r.unsigned_abs()));
    let g = if g <= 1 { 1 } else { g };
    best.divisor = g;
    if g > 1 {
        for r in &mut best.residuals {
            *r /= g as i64;
        }
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_predictor_round_trips_with_resets() {
        let values: Vec<i64> = (0..50).map(|i| i * i * 7 - 3 * i + (i % 5) * 100).collect();
        let resets = [0u32, 10, 11, 30];
        for pred in 0..PREDICTOR_COUNT {
            for base in [None, Some(123)] {
                let mut r = Vec::new();
                residuals(&values, base, &resets, pred, &mut r);
                let mut back = Vec::new();
                reconstruct(&r, base, &resets, pred, &mut back);
                assert_eq!(back, values, "pred {pred} base {base:?}");
            }
        }
    }

    #[test]
    fn quadratic_motion_picks_a_higher_order_predictor_and_gcd() {
        // a falling body: constant second difference, all multiples of 256
        let values: Vec<i64> = (0..40).map(|i| (1000 - i * i * 3) * 256).collect();
        let mut best = ColumnCoding::default();
        choose(&values, None, &[], &mut Vec::new(), &mut best);
        assert_eq!(best.predictor, PRED_QUADRATIC);
        assert!(best.divisor % 256 == 0, "divisor {}", best.divisor);
        let mut back = Vec::new();
        let undivided: Vec<i64> = best
            .residuals
            .iter()
            .map(|r| r * best.divisor as i64)
            .collect();
        reconstruct(&undivided, None, &[], best.predictor, &mut back);
        assert_eq!(back, values);
    }

    #[test]
    fn predict_all_matches_predict() {
        let mut h = History::new(None);
        for v in [5i64, -7, 1 << 40, i64::MIN, 3, i64::MAX] {
            let all = h.predict_all();
            for p in 0..PREDICTOR_COUNT {
                assert_eq!(all[p as usize], h.predict(p));
            }
            h.push(v);
            if v == 3 {
                h.reset();
            }
        }
    }

    #[test]
    fn hostile_values_do_not_panic() {
        let values = [i64::MAX, i64::MIN, i64::MAX, 0, i64::MIN];
        let mut best = ColumnCoding::default();
        choose(&values, Some(i64::MIN), &[2], &mut Vec::new(), &mut best);
        let undivided: Vec<i64> = best
            .residuals
            .iter()
            .map(|r| r.wrapping_mul(best.divisor as i64))
            .collect();
        let mut back = Vec::new();
        reconstruct(&undivided, Some(i64::MIN), &[2], best.predictor, &mut back);
        assert_eq!(back, values);
    }
}
