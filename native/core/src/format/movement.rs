//! Movement coding: each pose column (x, y, z, yaw, pitch) of each entity in a chunk is coded as
//! residuals against a prediction from its earlier samples. The predictor is chosen per entity,
//! per column, per chunk by whichever gives the fewest varint bytes; the residuals' greatest common
//! divisor is factored out (a source that sends 1/256-turn angles pays for 1/256, not 1/65536).
//! All arithmetic wraps, so hostile input can never panic the decoder.

use crate::format::bytes::zigzag;

/// Predictor ids (stored in the chunk, never reused).
pub(crate) const PRED_PREVIOUS: u8 = 0;
pub(crate) const PRED_LINEAR: u8 = 1;
pub(crate) const PRED_QUADRATIC: u8 = 2;
pub(crate) const PRED_DAMPED: u8 = 3;
pub(crate) const PREDICTOR_COUNT: u8 = 4;

/// The last three values of a column, newest first, and how many are valid.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct History {
    h: [i64; 3],
    n: u8,
}

impl History {
    /// History seeded with the entity's keyframe value, or empty (prediction 0: absolute).
    #[inline]
    pub(crate) fn new(base: Option<i64>) -> History {
        match base {
            Some(b) => History { h: [b, 0, 0], n: 1 },
            None => History::default(),
        }
    }
    /// After a teleport: only the previous value remains (the next sample is a plain delta).
    #[inline]
    pub(crate) fn reset(&mut self) {
        self.n = self.n.min(1);
    }
    #[inline]
    pub(crate) fn push(&mut self, v: i64) {
        self.h = [v, self.h[0], self.h[1]];
        self.n = (self.n + 1).min(3);
    }
    /// The predictions of all four predictors (same values as `predict(0..4)`).
    #[inline]
    pub(crate) fn predict_all(&self) -> [i64; 4] {
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
    pub(crate) fn predict(&self, pred: u8) -> i64 {
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

/// One step of a walk over a column: a sample whose history is not yet three values deep (the
/// first samples, and the two after each reset), or a run of samples whose history is simply the
/// three values before each of them.
enum Step<'h> {
    Slow(usize, &'h History),
    Fast(std::ops::Range<usize>),
}

/// Walks `values` as [`History`] sees them (seeded with `base`, reset at `resets`), so that the
/// steady state can run as a tight loop over the slice instead of shifting a history per sample.
#[inline]
fn walk(values: &[i64], base: Option<i64>, resets: &[u32], mut f: impl FnMut(Step<'_>)) {
    let mut h = History::new(base);
    let mut ri = 0;
    let mut i = 0;
    let n = values.len();
    while i < n {
        if ri < resets.len() && resets[ri] as usize == i {
            h.reset();
            ri += 1;
        }
        if h.n < 3 || i < 3 {
            f(Step::Slow(i, &h));
            h.push(values[i]);
            i += 1;
            continue;
        }
        let end = match resets.get(ri) {
            Some(&r) if r as usize > i => (r as usize).min(n),
            _ => n,
        };
        f(Step::Fast(i..end));
        h = History {
            h: [values[end - 1], values[end - 2], values[end - 3]],
            n: 3,
        };
        i = end;
    }
}

/// Significant bits of a zigzagged residual: a closer proxy than whole varint bytes for what
/// zstd's entropy stage pays, and cheap to compute.
#[inline(always)]
fn bits(r: i64) -> u64 {
    u64::from(64 - (zigzag(r) | 1).leading_zeros())
}

/// Residual bits of each predictor over `v[3..]`, each sample predicted from the three before it.
/// The hottest loop of the live writer: on CPUs with AVX-512 (vector leading-zero count) a copy
/// compiled for it runs about 8x faster (measured: 0.39 against 3.3 ns per sample).
#[inline]
fn steady_costs(v: &[i64]) -> [u64; 4] {
    #[cfg(target_arch = "x86_64")]
    if avx512() {
        // SAFETY: the function only needs the CPU features `avx512()` checked.
        return unsafe { steady_costs_avx512(v) };
    }
    steady_costs_portable(v)
}

/// Whether the AVX-512 copy may run: the CPU has it and `TICKREEL_PORTABLE` is not set (set it
/// to measure the portable loop on such a CPU). Decided once per process.
#[cfg(target_arch = "x86_64")]
pub fn avx512() -> bool {
    static FAST: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FAST.get_or_init(|| {
        std::env::var_os("TICKREEL_PORTABLE").is_none()
            && std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512cd")
    })
}

/// Whether the AVX-512 copy may run (never on this architecture).
#[cfg(not(target_arch = "x86_64"))]
pub fn avx512() -> bool {
    false
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512cd")]
fn steady_costs_avx512(v: &[i64]) -> [u64; 4] {
    steady_costs_portable(v)
}

#[inline(always)]
fn steady_costs_portable(v: &[i64]) -> [u64; 4] {
    let n = v.len();
    if n < 4 {
        return [0; 4];
    }
    // four shifted views, so that the compiler can vectorise the loop
    let (c, b, a, x) = (&v[..n - 3], &v[1..n - 2], &v[2..n - 1], &v[3..]);
    let (mut c0, mut c1, mut c2, mut c3) = (0u64, 0u64, 0u64, 0u64);
    for i in 0..x.len() {
        let d = a[i].wrapping_sub(b[i]);
        c0 += bits(x[i].wrapping_sub(a[i]));
        c1 += bits(x[i].wrapping_sub(a[i].wrapping_add(d)));
        c2 += bits(x[i].wrapping_sub(d.wrapping_mul(3).wrapping_add(c[i])));
        c3 += bits(x[i].wrapping_sub(a[i].wrapping_add(d >> 1)));
    }
    [c0, c1, c2, c3]
}

/// Residuals of `values` under `pred`. `resets` are sorted sample indices where history restarts.
#[cfg(test)]
fn residuals(values: &[i64], base: Option<i64>, resets: &[u32], pred: u8, out: &mut Vec<i64>) {
    out.clear();
    out.resize(values.len(), 0);
    residuals_into(values, base, resets, pred, out);
}

/// `residuals` into a slice as long as `values`.
fn residuals_into(values: &[i64], base: Option<i64>, resets: &[u32], pred: u8, out: &mut [i64]) {
    walk(values, base, resets, |step| match step {
        Step::Slow(i, h) => out[i] = values[i].wrapping_sub(h.predict(pred)),
        Step::Fast(r) => {
            let (v, o) = (&values[r.start - 3..r.end], &mut out[r]);
            match pred {
                PRED_PREVIOUS => {
                    for (o, w) in o.iter_mut().zip(v.windows(4)) {
                        *o = w[3].wrapping_sub(w[2]);
                    }
                }
                PRED_LINEAR => {
                    for (o, w) in o.iter_mut().zip(v.windows(4)) {
                        let d = w[2].wrapping_sub(w[1]);
                        *o = w[3].wrapping_sub(w[2].wrapping_add(d));
                    }
                }
                PRED_QUADRATIC => {
                    for (o, w) in o.iter_mut().zip(v.windows(4)) {
                        let d = w[2].wrapping_sub(w[1]);
                        *o = w[3].wrapping_sub(d.wrapping_mul(3).wrapping_add(w[0]));
                    }
                }
                _ => {
                    for (o, w) in o.iter_mut().zip(v.windows(4)) {
                        let d = w[2].wrapping_sub(w[1]);
                        *o = w[3].wrapping_sub(w[2].wrapping_add(d >> 1));
                    }
                }
            }
        }
    });
}

/// Inverse of `residuals`: rebuilds values from residuals (already multiplied by the divisor).
/// Once the history is three values deep, each run of samples up to the next reset is one tight
/// loop per predictor (the decoder's hottest loop).
pub(crate) fn reconstruct(
    res: &[i64],
    base: Option<i64>,
    resets: &[u32],
    pred: u8,
    out: &mut Vec<i64>,
) {
    out.clear();
    out.reserve(res.len());
    let mut h = History::new(base);
    let mut ri = 0;
    let mut i = 0;
    while i < res.len() {
        if ri < resets.len() && resets[ri] as usize == i {
            h.reset();
            ri += 1;
        }
        if h.n < 3 {
            let v = h.predict(pred).wrapping_add(res[i]);
            out.push(v);
            h.push(v);
            i += 1;
            continue;
        }
        let end = match resets.get(ri) {
            Some(&r) if r as usize > i => (r as usize).min(res.len()),
            _ => res.len(),
        };
        let [mut a, mut b, mut c] = h.h;
        // one loop per predictor, the prediction inlined
        macro_rules! run {
            (|$a:ident, $b:ident, $c:ident| $p:expr) => {
                for &r in &res[i..end] {
                    let ($a, $b, $c) = (a, b, c);
                    let v = ($p).wrapping_add(r);
                    out.push(v);
                    (c, b, a) = (b, a, v);
                }
            };
        }
        match pred {
            PRED_LINEAR => run!(|a, b, _c| a.wrapping_add(a.wrapping_sub(b))),
            PRED_QUADRATIC => run!(|a, b, c| a.wrapping_sub(b).wrapping_mul(3).wrapping_add(c)),
            PRED_DAMPED => run!(|a, b, _c| a.wrapping_add(a.wrapping_sub(b) >> 1)),
            _ => run!(|a, _b, _c| a),
        }
        h = History { h: [a, b, c], n: 3 };
        i = end;
    }
}

/// Picks the predictor with the fewest residual bits, writes its residuals divided by their
/// greatest common divisor into `out` (as long as `values`), and returns (predictor, divisor).
/// The four candidates are costed in one pass; only the winner's residuals are materialised.
#[cfg(test)]
fn choose(values: &[i64], base: Option<i64>, resets: &[u32], out: &mut [i64]) -> (u8, u64) {
    let (pred, divisor, _) = choose_costed(values, base, resets, out);
    (pred, divisor)
}

/// `choose`, also returning the chosen predictor's cost (significant bits of its residuals
/// before the divisor), to compare with predictor 4 (`format::gap_prediction`).
pub(crate) fn choose_costed(
    values: &[i64],
    base: Option<i64>,
    resets: &[u32],
    out: &mut [i64],
) -> (u8, u64, u64) {
    let mut cost = [0u64; PREDICTOR_COUNT as usize];
    walk(values, base, resets, |step| match step {
        Step::Slow(i, h) => {
            for (c, p) in cost.iter_mut().zip(h.predict_all()) {
                *c += bits(values[i].wrapping_sub(p));
            }
        }
        Step::Fast(r) => {
            let run = steady_costs(&values[r.start - 3..r.end]);
            for (c, k) in cost.iter_mut().zip(run) {
                *c += k;
            }
        }
    });
    // Ties go to the simplest predictor.
    let pred = (0..PREDICTOR_COUNT)
        .min_by_key(|&p| cost[p as usize])
        .unwrap_or(PRED_PREVIOUS);
    residuals_into(values, base, resets, pred, out);
    (pred, divide_by_gcd(out), cost[pred as usize])
}

/// Divides residuals by the greatest common divisor of their magnitudes (1 if it is 0 or 1) and
/// returns it.
pub(crate) fn divide_by_gcd(out: &mut [i64]) -> u64 {
    let mut g = 0u64;
    for &r in out.iter() {
        g = gcd(g, r.unsigned_abs());
        if g == 1 {
            break;
        }
    }
    let g = g.max(1);
    if g > 1 {
        for r in out.iter_mut() {
            *r /= g as i64;
        }
    }
    g
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
        let mut res = vec![0; values.len()];
        let (pred, divisor) = choose(&values, None, &[], &mut res);
        assert_eq!(pred, PRED_QUADRATIC);
        assert!(divisor % 256 == 0, "divisor {divisor}");
        let mut back = Vec::new();
        let undivided: Vec<i64> = res.iter().map(|r| r * divisor as i64).collect();
        reconstruct(&undivided, None, &[], pred, &mut back);
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
    fn steady_costs_match_the_history_walk() {
        // the dispatched (possibly AVX-512) loop against a per-sample History, on values that
        // make every bit count from 1 to 64 appear
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for len in [4usize, 5, 9, 17, 64, 101] {
            let v: Vec<i64> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (seed as i64) >> (seed % 64)
                })
                .collect();
            let mut expected = [0u64; 4];
            let mut h = History::new(None);
            for (i, &x) in v.iter().enumerate() {
                if i >= 3 {
                    for (c, p) in expected.iter_mut().zip(h.predict_all()) {
                        *c += bits(x.wrapping_sub(p));
                    }
                }
                h.push(x);
            }
            assert_eq!(steady_costs(&v), expected, "len {len}");
            assert_eq!(steady_costs_portable(&v), expected, "len {len}");
        }
    }

    #[test]
    fn hostile_values_do_not_panic() {
        let values = [i64::MAX, i64::MIN, i64::MAX, 0, i64::MIN];
        let mut res = vec![0; values.len()];
        let (pred, divisor) = choose(&values, Some(i64::MIN), &[2], &mut res);
        let undivided: Vec<i64> = res.iter().map(|r| r.wrapping_mul(divisor as i64)).collect();
        let mut back = Vec::new();
        reconstruct(&undivided, Some(i64::MIN), &[2], pred, &mut back);
        assert_eq!(back, values);
    }
}
