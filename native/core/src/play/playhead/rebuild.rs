//! World rebuilds of jump updates: which chunks they need (from the nearest snapshot at or before
//! the new position through its chunk) and filling [`super::Update`]'s rebuild from them.

use super::Playhead;
use super::fetch::{Fetch, Mode};
use crate::format::index::{FLAG_CUSTOM_EVENTS, IndexEntry, find_chunk, snapshot_at_or_before};
use crate::play::cache::Part;

impl Playhead {
    /// Fills the world rebuild of the update from the gathered chunks `s..=e` (fetching any that
    /// were not gathered; in non-blocking mode a missing one makes the rebuild incomplete).
    pub(super) fn fill_rebuild(&mut self, (s, e): (usize, usize), mode: Mode) {
        let view = self.view.clone();
        let idx = view.reader.index();
        let snap = idx[s].has_snapshot().then_some(s);
        self.u.rebuild = true;
        self.u.rb_snapshot_chunk = snap;
        self.u.rb_snapshot_tick = snap.map(|i| idx[i].start_tick);
        self.u.rb_chunks.clear();
        self.u.rb_complete = true;
        let mut memo = std::mem::take(&mut self.rb_memo);
        memo.clear();
        for i in s..=e {
            let got = match self.gathered.get(i, Part::Decoded) {
                Some(f) => f.clone(),
                None => match self.held(i, Part::Decoded) {
                    Some(v) => Fetch::Ready(v),
                    None => self.fetch(i, Part::Decoded, mode),
                },
            };
            match got {
                Fetch::Ready(v) => {
                    if i == s && snap.is_some() {
                        self.u.rb_has_snapshot = true;
                    }
                    let c = v.decoded();
                    memo.push((i, c.clone()));
                    self.u.rb_chunks.push(c);
                }
                Fetch::Pending => self.u.rb_complete = false,
                Fetch::Failed(f) => {
                    self.u.rb_complete = false;
                    self.fault(i, f);
                }
            }
        }
        self.rb_memo = memo;
    }
}

/// Chunks a world rebuild at `q` needs: from the nearest snapshot at or before `q`'s chunk (or
/// the first chunk) through `q`'s chunk.
pub(super) fn rebuild_range(idx: &[IndexEntry], q: u32) -> (usize, usize) {
    let k = find_chunk(idx, q).unwrap_or(0);
    (snapshot_at_or_before(idx, k).unwrap_or(0), k)
}

/// Whether any chunk with custom events overlaps ticks `(lo, hi]`.
pub(super) fn custom_between(idx: &[IndexEntry], lo: u32, hi: u32) -> bool {
    if lo >= hi {
        return false;
    }
    let a = find_chunk(idx, lo + 1).unwrap_or(0);
    let b = find_chunk(idx, hi).unwrap_or(0);
    (a..=b).any(|k| {
        let e = &idx[k];
        e.flags & FLAG_CUSTOM_EVENTS != 0
            && u64::from(e.start_tick) <= u64::from(hi)
            && e.end_tick() > u64::from(lo + 1)
    })
}
