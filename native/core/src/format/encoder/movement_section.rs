//! The movement section of a chunk's payload (section 4, FORMAT.md §7): the open chunk's sample
//! log regrouped by entity into columns, each column coded with the predictor that costs it
//! least, in data version 1's layout unless a column or a track's ticks need version 2's.

use super::{ChunkEncoder, RESET_BIT, sample_ticks};
use crate::format::bytes::{put_ivarints, put_uvarint};
use crate::format::{gap_prediction, movement};

/// Buffers of `encode_payload`, kept for their capacity.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// Slots with samples, by entity id.
    order: Vec<u32>,
    /// Per slot: first index of its samples in the flat columns, and the next free one.
    start: Vec<u32>,
    cursor: Vec<u32>,
    last_reset: Vec<u32>,
    ticks: Vec<u32>,
    cols: [Vec<i64>; 5],
    res: [Vec<i64>; 5],
    /// (slot, sample index within the entity) of every teleport reset.
    resets: Vec<(u32, u32)>,
    /// Reset indices grouped by entity in `order`, and each entity's range in it.
    reset_idx: Vec<u32>,
    reset_range: Vec<(u32, u32)>,
    bases: Vec<Option<[i64; 5]>>,
    /// The movement section's codings, written after the track headers.
    codings: Vec<u8>,
}

impl ChunkEncoder {
    /// Section 4: per entity its sample ticks and resets, then per column each entity's coding,
    /// then the residuals. Returns whether the section needs data version 2: a column uses
    /// predictor 4 (linear in time; considered for the tracks with a gap, and taken where it costs
    /// fewer residual bits than the best of the others), or a track's sample ticks are shorter as
    /// tick deltas than as runs. Otherwise it is written in data version 1's layout.
    pub(super) fn encode_movement(&self, sc: &mut Scratch, out: &mut Vec<u8>) -> bool {
        self.group_samples(sc);
        let n = sc.order.len();
        // The codings first (with the sample ticks, they decide the layout); written after the
        // track headers.
        let mut codings = std::mem::take(&mut sc.codings);
        codings.clear();
        let mut timed = false;
        for col in 0..5 {
            for (i, &s) in sc.order.iter().enumerate() {
                let (a, b) = (
                    sc.start[s as usize] as usize,
                    sc.cursor[s as usize] as usize,
                );
                let (ra, rb) = sc.reset_range[i];
                let (values, base) = (&sc.cols[col][a..b], sc.bases[i].map(|p| p[col]));
                let resets = &sc.reset_idx[ra as usize..rb as usize];
                let (mut pred, mut divisor, cost) =
                    movement::choose_costed(values, base, resets, &mut sc.res[col][a..b]);
                let ticks = &sc.ticks[a..b];
                if gap_prediction::has_gap(ticks)
                    && gap_prediction::cost(values, ticks, base, resets) < cost
                {
                    let res = &mut sc.res[col][a..b];
                    gap_prediction::residuals(values, ticks, base, resets, res);
                    divisor = movement::divide_by_gcd(res);
                    pred = gap_prediction::PRED_TIME_LINEAR;
                    timed = true;
                }
                codings.push(pred);
                put_uvarint(&mut codings, divisor);
            }
        }
        let v2 = timed
            || sc.order.iter().any(|&s| {
                let (a, b) = (sc.start[s as usize], sc.cursor[s as usize]);
                sample_ticks::deltas_shorter(&sc.ticks[a as usize..b as usize])
            });
        put_uvarint(out, n as u64);
        let mut prev = 0u32;
        for (i, &s) in sc.order.iter().enumerate() {
            let id = self.slots[s as usize].id;
            put_uvarint(out, u64::from(if i == 0 { id } else { id - prev }));
            prev = id;
            let (a, b) = (
                sc.start[s as usize] as usize,
                sc.cursor[s as usize] as usize,
            );
            sample_ticks::encode(&sc.ticks[a..b], v2, out);
            let (ra, rb) = sc.reset_range[i];
            let resets = &sc.reset_idx[ra as usize..rb as usize];
            put_uvarint(out, resets.len() as u64);
            let mut p = 0u32;
            for &r in resets {
                put_uvarint(out, u64::from(r - p));
                p = r;
            }
        }
        out.extend_from_slice(&codings);
        sc.codings = codings;
        for col in 0..5 {
            for &s in &sc.order {
                let (a, b) = (
                    sc.start[s as usize] as usize,
                    sc.cursor[s as usize] as usize,
                );
                put_ivarints(out, &sc.res[col][a..b]);
            }
        }
        v2
    }

    /// Regroups the sample log by entity (in id order) into flat columns: each entity's samples
    /// are `start[slot]..cursor[slot]`, a later sample of the same tick replacing the earlier one.
    fn group_samples(&self, sc: &mut Scratch) {
        let slots = &self.slots;
        sc.order.clear();
        sc.order
            .extend((0..slots.len() as u32).filter(|&s| slots[s as usize].samples > 0));
        sc.order.sort_unstable_by_key(|&s| slots[s as usize].id);
        sc.start.clear();
        sc.start.resize(slots.len(), 0);
        let mut total = 0u32;
        for &s in &sc.order {
            sc.start[s as usize] = total;
            total += slots[s as usize].samples;
        }
        sc.cursor.clear();
        sc.cursor.extend_from_slice(&sc.start);
        sc.last_reset.clear();
        sc.last_reset.resize(slots.len(), u32::MAX);
        let total = total as usize;
        sc.ticks.resize(total, 0);
        for c in sc.cols.iter_mut().chain(sc.res.iter_mut()) {
            c.resize(total, 0);
        }
        sc.resets.clear();
        for ls in &self.log {
            let s = (ls.slot & !RESET_BIT) as usize;
            let (start, c) = (sc.start[s], sc.cursor[s]);
            let idx = if c > start && sc.ticks[c as usize - 1] == ls.rel {
                c - 1
            } else {
                sc.ticks[c as usize] = ls.rel;
                sc.cursor[s] = c + 1;
                c
            };
            for (col, v) in sc.cols.iter_mut().zip(ls.pose) {
                col[idx as usize] = v;
            }
            if ls.slot & RESET_BIT != 0 && sc.last_reset[s] != idx {
                sc.last_reset[s] = idx;
                sc.resets.push((s as u32, idx - start));
            }
        }
        // Resets by entity order (the entity's own resets are already in sample order).
        let start = &sc.start;
        sc.resets.sort_by_key(|&(s, _)| start[s as usize]);
        sc.reset_idx.clear();
        sc.reset_range.clear();
        sc.bases.clear();
        let mut j = 0;
        for &s in &sc.order {
            let a = sc.reset_idx.len() as u32;
            while j < sc.resets.len() && sc.resets[j].0 == s {
                sc.reset_idx.push(sc.resets[j].1);
                j += 1;
            }
            sc.reset_range.push((a, sc.reset_idx.len() as u32));
            let id = slots[s as usize].id;
            sc.bases.push(
                self.keyframe
                    .binary_search_by_key(&id, |e| e.id)
                    .ok()
                    .map(|i| self.keyframe[i].pose.to_array()),
            );
        }
    }
}
