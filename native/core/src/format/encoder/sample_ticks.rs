//! The sample ticks of a movement track header (FORMAT.md section 7.4): as runs of consecutive
//! ticks (`R ≥ 1`, then `gap, len` per run), or, from data version 2 on, as tick deltas (`0`, `N`,
//! then per sample the ticks skipped since the previous one), whichever is shorter. A run count
//! of 0 never occurs in data version 1's layout (a track has samples), so data version 2 reads
//! every payload of data version 1 alike.

use crate::format::bytes::{put_uvarint, uvarint_len};

/// Runs of consecutive ticks: (gap from the previous run's end, length).
fn runs(ticks: &[u32]) -> impl Iterator<Item = (u32, u32)> + '_ {
    let mut i = 0;
    let mut end = 0u32;
    std::iter::from_fn(move || {
        let s = *ticks.get(i)?;
        let mut l = 1;
        while i + l < ticks.len() && ticks[i + l] == s + l as u32 {
            l += 1;
        }
        let run = (s - end, l as u32);
        end = s + l as u32;
        i += l;
        Some(run)
    })
}

/// The ticks skipped before each sample: the first sample's tick, then `tick − previous − 1`.
fn deltas(ticks: &[u32]) -> impl Iterator<Item = u32> + '_ {
    ticks
        .iter()
        .enumerate()
        .map(|(i, &t)| if i == 0 { t } else { t - ticks[i - 1] - 1 })
}

/// Bytes of the run form's body and its run count.
fn runs_body(ticks: &[u32]) -> (usize, usize) {
    runs(ticks).fold((0, 0), |(bytes, n), (g, l)| {
        (
            bytes + uvarint_len(u64::from(g)) + uvarint_len(u64::from(l)),
            n + 1,
        )
    })
}

fn deltas_body(ticks: &[u32]) -> usize {
    deltas(ticks).map(|d| uvarint_len(u64::from(d))).sum()
}

/// Bytes of the delta form: the 0 marker, the sample count, the deltas.
fn deltas_len(ticks: &[u32]) -> usize {
    1 + uvarint_len(ticks.len() as u64) + deltas_body(ticks)
}

/// Whether the delta form (data version 2) is shorter than the runs.
pub(super) fn deltas_shorter(ticks: &[u32]) -> bool {
    // One run (consecutive ticks) is never longer than its deltas.
    if ticks.len() < 2 || ticks[ticks.len() - 1] - ticks[0] + 1 == ticks.len() as u32 {
        return false;
    }
    let (rb, r) = runs_body(ticks);
    deltas_len(ticks) < uvarint_len(r as u64) + rb
}

/// Writes a track's sample ticks: runs, or (if `deltas_allowed`, data version 2) tick deltas
/// where they are shorter.
pub(super) fn encode(ticks: &[u32], deltas_allowed: bool, out: &mut Vec<u8>) {
    if deltas_allowed && deltas_shorter(ticks) {
        out.push(0);
        put_uvarint(out, ticks.len() as u64);
        for d in deltas(ticks) {
            put_uvarint(out, u64::from(d));
        }
        return;
    }
    put_uvarint(out, runs(ticks).count() as u64);
    for (g, l) in runs(ticks) {
        put_uvarint(out, u64::from(g));
        put_uvarint(out, u64::from(l));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Consecutive ticks stay runs; a sparse track becomes deltas (one byte a sample instead of
    /// two), and only where that is allowed (data version 2).
    #[test]
    fn the_shorter_form_is_written() {
        let dense: Vec<u32> = (0..50).collect();
        let sparse: Vec<u32> = (0..20).map(|i| i * 3 + i % 2).collect();
        assert!(!deltas_shorter(&dense) && deltas_shorter(&sparse));
        let mut out = Vec::new();
        encode(&dense, true, &mut out);
        assert_eq!(out, [1, 0, 50]);
        out.clear();
        encode(&sparse, true, &mut out);
        assert_eq!(&out[..3], [0, 20, 0]);
        assert_eq!(out.len(), 2 + 20);
        out.clear();
        encode(&sparse, false, &mut out);
        assert_eq!(out.len(), 1 + 2 * 20);
        assert_eq!(&out[..3], [20, 0, 1]);
    }
}
