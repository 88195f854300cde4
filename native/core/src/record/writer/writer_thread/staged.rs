//! The writer thread's side of the recordings' staging rings (see `record::staging`): which
//! staged ticks it may take, and when.

use super::{Msg, WriterThread};
use crate::record::shared::panics::guarded;

impl WriterThread {
    /// A message just taken off the queue: first the staged ticks of its recording that came
    /// before it, then it counts as taken.
    pub(super) fn before_queued(&mut self, msg: &Msg) {
        if let Some(id) = msg.recording()
            && !matches!(msg, Msg::Open { .. })
        {
            self.take_staged(id);
            if let Some(r) = self.recs.get_mut(&id) {
                r.queued_taken += 1;
            }
        }
    }

    /// Takes recording `id`'s staged ticks that no message still on the queue comes before (and
    /// puts its ring on the list of rings to look at); `true` if it took any.
    fn take_staged(&mut self, id: u64) -> bool {
        let Some(r) = self.recs.get_mut(&id) else {
            return false;
        };
        if !matches!(r.shared.staging.get(), Some(Some(_))) {
            return false;
        }
        if !r.staging_listed {
            r.staging_listed = true;
            self.staged.push(id);
        }
        let shared = r.shared.clone();
        let Some(Some(ring)) = shared.staging.get() else {
            return false;
        };
        let mut took = false;
        while let Some(r) = self.recs.get(&id) {
            // No ring is made while its recording resumes (see `Recorder::make_ring`): the writer
            // is done resuming it (`is_resuming`) before the recording is told it resumed. Were it
            // otherwise, the entries would wait here for the recovery.
            if r.is_resuming() {
                break;
            }
            let taken = r.queued_taken;
            let entry = match guarded(|| ring.peek(&shared.hot, taken)) {
                Ok(Some(entry)) => entry,
                Ok(None) => break,
                Err(m) => {
                    self.retire(id, m);
                    break;
                }
            };
            took = true;
            if let Err(m) = guarded(|| self.tick(id, entry.tick, entry.bytes)) {
                self.retire(id, m);
            }
            ring.consume(entry);
            // A tick past the flush size starts its round now, as a queued one would.
            self.start_urgent_round();
        }
        took
    }

    /// Takes the staged ticks of every recording with a ring (see [`Self::take_staged`]).
    pub(super) fn take_all_staged(&mut self) -> bool {
        let mut took = false;
        let mut i = 0;
        while i < self.staged.len() {
            let id = self.staged[i];
            if self.recs.contains_key(&id) {
                took |= self.take_staged(id);
                i += 1;
            } else {
                self.staged.swap_remove(i);
            }
        }
        took
    }

    /// Lists the rings made since the last look (a recording's first large tick makes its ring)
    /// and takes what every ring holds.
    pub(super) fn look_at_staging(&mut self) {
        let new: Vec<u64> = self
            .recs
            .iter()
            .filter(|(_, r)| !r.staging_listed && matches!(r.shared.staging.get(), Some(Some(_))))
            .map(|(id, _)| *id)
            .collect();
        for id in new {
            self.take_staged(id);
        }
        self.take_all_staged();
    }
}
