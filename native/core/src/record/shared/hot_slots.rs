//! The per-recording state `submit_tick` reads and writes, kept in slots side by side.
//!
//! A server at its pace submits to each recording once per tick, 50 ms apart, and finds every
//! recording's state cold. With each state in an allocation of its own, each submit paid a cache
//! (and often a TLB) miss for it: measured as half of a submit to a one-player recording. Slots
//! packed 64 to a page, one cache line each, turn a loop over recordings started together into a
//! walk the hardware prefetcher follows.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use crate::sync::Mutex;

const PER_PAGE: usize = 64;

// A recording's lifecycle, in [`Hot::state`]: open, then ending (finish, close or abort), or
// retired by its writer.
pub(crate) const OPEN: u8 = 0;
pub(crate) const FINISHING: u8 = 1;
pub(crate) const CLOSED: u8 = 2;
pub(crate) const ABORTED: u8 = 3;
/// Retired by the writer after an internal error (a panic in its work): see `status()`.
pub(crate) const RETIRED: u8 = 4;

/// No tick (in [`Hot::last_submitted`], and the recording's flushed and resumed ticks).
pub(crate) const NONE: u64 = u64::MAX;

/// [`Hot::sends`]: one call sending right now (its low bits).
pub(crate) const SENDING_ONE: u64 = 1;
/// [`Hot::sends`]: one message counted on the queue (its high bits).
pub(crate) const QUEUED_ONE: u64 = 1 << 20;

/// What `submit_tick` touches of its recording: one cache line, shared with the writer through
/// `state` and the staging ring's tail, and with the recording's other callers through `sends`
/// (see [`crate::record::shared::staging`]).
#[derive(Debug, Default)]
#[repr(C, align(64))]
pub(crate) struct Hot {
    /// [`OPEN`], [`FINISHING`], [`CLOSED`], [`ABORTED`] or [`RETIRED`].
    pub state: AtomicU8,
    /// The last tick submitted (`u64::MAX`: none yet).
    pub last_submitted: AtomicU64,
    /// Ticks accepted (queued or staged).
    pub submitted: AtomicU64,
    /// Two counts in one word, so that a call that has sent its message counts it and stops
    /// counting itself as sending in one atomic step (one locked instruction fewer per tick that
    /// takes the queue), and a staged tick reads both at once:
    /// - in the bits from 20 ([`QUEUED_ONE`]; [`Hot::queued_msgs`]), the messages of the
    ///   recording put on the writer's queue so far (not counting its opening);
    /// - in the 20 low bits ([`SENDING_ONE`]; [`Hot::sending`]), the calls sending one of the
    ///   recording's messages right now, not counted on the queue yet: another thread's
    ///   (metadata, flushes, endings), during which a tick staged meanwhile takes the queue
    ///   instead, and the submitter's own tick taking the queue. Raised before the recording is
    ///   checked open; an ending waits for it to drop before sending its message.
    pub sends: AtomicU64,
    /// Bytes staged so far, as published to the writer.
    pub stage_tail: AtomicU64,
    /// Ticks staged so far (for the queue depth in the stats).
    pub staged: AtomicU64,
}

impl Hot {
    /// Whether a [`Hot::sends`] value counts a call sending right now.
    #[inline]
    pub(crate) fn sending(sends: u64) -> bool {
        sends & (QUEUED_ONE - 1) != 0
    }

    /// The messages on the queue a [`Hot::sends`] value counts.
    #[inline]
    pub(crate) fn queued_msgs(sends: u64) -> u64 {
        sends / QUEUED_ONE
    }
}

#[derive(Debug)]
struct Page {
    slots: [Hot; PER_PAGE],
    /// Bit `i` set: slot `i` belongs to a recording.
    used: AtomicU64,
}

/// An engine's slots, pages added as recordings start.
#[derive(Debug, Default)]
pub(crate) struct HotSlots {
    pages: Mutex<Vec<Arc<Page>>>,
}

impl HotSlots {
    /// A free slot (in the first page with one), set to `state` and `last_submitted`.
    pub(crate) fn take(&self, state: u8, last_submitted: u64) -> HotSlot {
        let mut pages = self.pages.lock();
        let found = pages.iter().find_map(|p| {
            let used = p.used.load(Ordering::Acquire);
            // Only `take` sets bits, under the lock: the free bit found stays free.
            (used != u64::MAX).then(|| (p.clone(), (!used).trailing_zeros() as u8))
        });
        let (page, idx) = found.unwrap_or_else(|| {
            let p = Arc::new(Page {
                slots: std::array::from_fn(|_| Hot::default()),
                used: AtomicU64::new(0),
            });
            pages.push(p.clone());
            (p, 0)
        });
        page.used.fetch_or(1 << idx, Ordering::AcqRel);
        drop(pages);
        let slot = HotRef { page, idx };
        slot.state.store(state, Ordering::Release);
        slot.last_submitted.store(last_submitted, Ordering::Release);
        slot.submitted.store(0, Ordering::Release);
        slot.sends.store(0, Ordering::Release);
        slot.stage_tail.store(0, Ordering::Release);
        slot.staged.store(0, Ordering::Release);
        HotSlot(slot)
    }
}

impl HotSlots {
    /// Waits until no slot counts a call sending right now ([`Hot::sending`]); for the engine's
    /// shutdown, after it has set `stopping` (calls that raise `sending` later refuse to send).
    pub(crate) fn wait_until_none_sending(&self) {
        let pages: Vec<Arc<Page>> = self.pages.lock().clone();
        let mut nap = crate::threads::Nap::default();
        for page in pages {
            for slot in &page.slots {
                while Hot::sending(slot.sends.load(Ordering::SeqCst)) {
                    nap.nap();
                }
            }
        }
    }
}

/// A view of a slot (what a `Recorder` handle keeps, next to the `RecShared` that owns the slot).
#[derive(Debug, Clone)]
pub(crate) struct HotRef {
    page: Arc<Page>,
    idx: u8,
}

impl std::ops::Deref for HotRef {
    type Target = Hot;
    #[inline]
    fn deref(&self) -> &Hot {
        &self.page.slots[usize::from(self.idx)]
    }
}

/// A recording's slot, given back when dropped.
#[derive(Debug)]
pub(crate) struct HotSlot(HotRef);

impl HotSlot {
    pub(crate) fn view(&self) -> HotRef {
        self.0.clone()
    }
}

impl std::ops::Deref for HotSlot {
    type Target = Hot;
    #[inline]
    fn deref(&self) -> &Hot {
        &self.0
    }
}

impl Drop for HotSlot {
    fn drop(&mut self) {
        self.0
            .page
            .used
            .fetch_and(!(1u64 << self.0.idx), Ordering::AcqRel);
    }
}

/// A message on its way to the queue, counted as sending in [`Hot::sends`] until [`Sending::queued`]
/// counts it on the queue instead (one step), or, refused, it is dropped (also by a panic).
pub(crate) struct Sending<'a>(&'a Hot);

impl<'a> Sending<'a> {
    #[inline]
    pub(crate) fn raise(hot: &'a Hot) -> Sending<'a> {
        hot.sends.fetch_add(SENDING_ONE, Ordering::SeqCst);
        Sending(hot)
    }

    /// The message is on the queue: counted there, and no longer as sending, at once.
    #[inline]
    pub(crate) fn queued(self) {
        self.0
            .sends
            .fetch_add(QUEUED_ONE - SENDING_ONE, Ordering::SeqCst);
        std::mem::forget(self);
    }
}

impl Drop for Sending<'_> {
    #[inline]
    fn drop(&mut self) {
        self.0.sends.fetch_sub(SENDING_ONE, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_distinct_side_by_side_and_reused() {
        let slots = HotSlots::default();
        let a = slots.take(1, 7);
        let b = slots.take(0, u64::MAX);
        assert_eq!(a.state.load(Ordering::Relaxed), 1);
        assert_eq!(a.last_submitted.load(Ordering::Relaxed), 7);
        assert_eq!(b.last_submitted.load(Ordering::Relaxed), u64::MAX);
        let (pa, pb) = (&*a as *const Hot as usize, &*b as *const Hot as usize);
        assert_eq!(pb - pa, 64, "neighbouring slots, one cache line each");
        assert_eq!(std::mem::size_of::<Hot>(), 64);
        a.submitted.store(5, Ordering::Relaxed);
        drop(a);
        // The freed slot is taken again, reset.
        let c = slots.take(2, 3);
        assert_eq!(&*c as *const Hot as usize, pa);
        assert_eq!(c.submitted.load(Ordering::Relaxed), 0);
        // A view outlives nothing: it reads the same slot.
        let v = c.view();
        c.submitted.store(9, Ordering::Relaxed);
        assert_eq!(v.submitted.load(Ordering::Relaxed), 9);
    }

    #[test]
    fn a_send_counts_as_sending_then_on_the_queue_in_one_word() {
        let slots = HotSlots::default();
        let hot = slots.take(OPEN, NONE);
        let sends = || hot.sends.load(Ordering::SeqCst);
        assert!(!Hot::sending(sends()));
        let a = Sending::raise(&hot);
        let b = Sending::raise(&hot);
        assert!(Hot::sending(sends()));
        assert_eq!(Hot::queued_msgs(sends()), 0);
        // Counted on the queue: one fewer sending, one more queued, in the same step.
        a.queued();
        assert!(Hot::sending(sends()));
        assert_eq!(Hot::queued_msgs(sends()), 1);
        // Refused (dropped without `queued`): no longer sending, not counted.
        drop(b);
        assert!(!Hot::sending(sends()));
        assert_eq!(Hot::queued_msgs(sends()), 1);
        // Many sends in flight stay below the queued count's bits.
        let many: Vec<_> = (0..1000).map(|_| Sending::raise(&hot)).collect();
        assert_eq!(Hot::queued_msgs(sends()), 1);
        for s in many {
            s.queued();
        }
        assert!(!Hot::sending(sends()));
        assert_eq!(Hot::queued_msgs(sends()), 1001);
    }

    #[test]
    fn a_full_page_adds_another() {
        let slots = HotSlots::default();
        let taken: Vec<_> = (0..PER_PAGE + 3).map(|_| slots.take(0, 0)).collect();
        let mut addrs: Vec<usize> = taken.iter().map(|s| &**s as *const Hot as usize).collect();
        addrs.sort_unstable();
        addrs.dedup();
        assert_eq!(addrs.len(), PER_PAGE + 3);
        assert_eq!(slots.pages.lock().len(), 2);
    }
}
