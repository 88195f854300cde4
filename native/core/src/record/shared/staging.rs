//! A recording's staging ring: where `submit_tick` puts a tick when it can, instead of a pooled
//! buffer and a message on the writer's queue.
//!
//! At a server's pace (one submit per recording every 50 ms) every line a submit touches is cold,
//! and each costs about as much as copying a kilobyte (`tickreel bench --only paced`, and
//! BENCHMARKS.md, "Session 10"). A tick through the queue touches the recording's slot, the
//! pool, the budget counter, a pooled buffer that cycles with the others and the queue's next
//! slot, one of 65,536. A staged tick touches the recording's slot and the next bytes of a ring of
//! a few ticks that the server thread keeps reusing, and publishes them with one store; the writer
//! thread takes them when its queue runs dry (and before any queued message of the recording).
//!
//! One producer (the submitting thread: [`Producer::busy`] turns a second one away, to the queue)
//! and one consumer (the recording's writer thread). What only the producer uses lives in the
//! `Recorder` handle ([`Producer`]), which the server thread reads anyway: the next entry's place
//! is known from the handle alone, so that its bytes are written while the recording's slot is
//! still on its way from memory. Positions count bytes from the start, so that
//! `tail - head` is what the ring holds. Each entry is a 16-byte header (tick, length, and how many
//! queued messages of the recording came before it) and the batch, padded to 16 bytes; an entry
//! that does not fit before the end of the ring starts over at its beginning, after a header
//! marking the skipped end.
//!
//! Order with the queue: every message a recording puts on the queue adds one to
//! [`Hot::queued_msgs`] (in [`Hot::sends`]) once it is on the queue, and a staged entry carries the count it read. The
//! writer takes an entry only when it has taken that many of the recording's messages off the
//! queue, and before taking a message off the queue it takes every entry that came before it.
//! Another thread's message (metadata, a flush, an ending) is on the queue a moment before it is
//! counted; while one is ([`Hot::sending`], in the same word), ticks take the queue, so that a staged tick is never
//! taken before a message that came before a tick queued ahead of it.
//!
//! A recording being resumed makes no ring: the writer holds its ticks until the recovery is done,
//! and held ticks must stay within the engine's in-flight budget, which counts only queued ones.
//! When the writer is done with a recording, what its ring still holds (a tick submitted as it
//! ended) is no longer counted as waiting.

use std::alloc::Layout;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, Ordering};

use crate::record::shared::engine_shared::{EngineShared, StagedTicks};
use crate::record::shared::hot_slots::OPEN;
use crate::record::shared::hot_slots::{Hot, HotRef};

/// Bytes of an entry's header; entries start at multiples of it.
const HEADER: usize = 16;
/// The length of a header that marks the end of the ring as skipped.
const WRAP: u32 = u32::MAX;
/// Bytes before the ring: the consumer's position and the ticks it took, on a line of their own.
const HEAD_LINE: usize = 64;
/// Smallest and largest ring.
const MIN_CAPACITY: usize = 4 << 10;
const MAX_CAPACITY: usize = 1 << 20;
/// A ring holds this many ticks of the size that made it.
const TICKS: usize = 4;

/// The producer's side of a ring, in the `Recorder` handle.
#[derive(Debug, Default)]
pub(crate) struct Producer {
    /// A thread is staging a tick: another one at the same time queues its tick instead.
    pub busy: AtomicBool,
    /// The ring's capacity (0: none), set once with `data`.
    capacity: AtomicU32,
    /// The ring's block.
    data: AtomicPtr<u8>,
    /// Bytes staged so far (published to the writer in [`Hot::stage_tail`]).
    tail: AtomicU64,
    /// The consumer's position as the producer last read it.
    seen_head: AtomicU64,
}

impl Producer {
    /// Whether the handle has a ring.
    #[inline]
    pub(crate) fn has_ring(&self) -> bool {
        self.capacity.load(Ordering::Relaxed) != 0
    }

    /// Whether a tick of `len` bytes may find room in the ring, judged from the handle and the
    /// consumer's position without claiming the ring: `false` only when the ring exists and has
    /// no room for it (or it is too large for the ring), and the tick then takes the queue. While
    /// the writer is behind, every tick that overflows the ring would otherwise pay the claim's
    /// locked instruction for nothing. (Another thread holding the claim may stage meanwhile: a
    /// `true` is checked again under the claim, by [`Claim::copy`].)
    #[inline]
    pub(crate) fn may_fit(&self, len: usize) -> bool {
        self.capacity.load(Ordering::Acquire) == 0 || self.place(len, false).is_some()
    }

    /// Where a tick of `len` bytes goes in the ring, if it has room (the ring exists). Reads the
    /// consumer's position when what the handle last saw of it leaves no room; `remember`: keep
    /// what it read in the handle (only under the claim, whose copy the acquire load orders).
    #[inline]
    fn place(&self, len: usize, remember: bool) -> Option<Place> {
        let capacity = self.capacity.load(Ordering::Acquire) as usize;
        if capacity == 0 {
            return None;
        }
        let need = padded(HEADER + len);
        if need > capacity / 2 {
            return None;
        }
        let tail = self.tail.load(Ordering::Relaxed);
        let at = tail as usize & (capacity - 1);
        let skip = if at + need > capacity {
            capacity - at
        } else {
            0
        };
        let end = tail + (skip + need) as u64;
        if end - self.seen_head.load(Ordering::Relaxed) > capacity as u64 {
            let block = self.data.load(Ordering::Relaxed);
            let head = Staging::head_at(block, self).load(Ordering::Acquire);
            if remember {
                self.seen_head.store(head, Ordering::Relaxed);
            }
            if end - head > capacity as u64 {
                return None;
            }
        }
        Some(Place { at, skip, end })
    }

    /// The producer's side, unless another thread holds it right now.
    #[inline]
    pub(crate) fn claim(&self) -> Option<Claim<'_>> {
        // SeqCst: an ending checks `busy` after it has ended the recording's open state, and a
        // claim checks that state after taking `busy` (in `commit`): one of them sees the other
        // (see `Recorder::transition`).
        (!self.busy.swap(true, Ordering::SeqCst)).then_some(Claim { p: self })
    }
}

/// The producer's side of a ring, held by one thread (released when dropped).
pub(crate) struct Claim<'a> {
    p: &'a Producer,
}

impl Drop for Claim<'_> {
    #[inline]
    fn drop(&mut self) {
        self.p.busy.store(false, Ordering::Release);
    }
}

/// Where a tick goes in a ring with room for it.
struct Place {
    /// Where its entry would start, unless it starts over at the beginning.
    at: usize,
    /// Bytes skipped at the end of the ring (0: none).
    skip: usize,
    /// The producer's position after it.
    end: u64,
}

/// A batch copied into a ring's free space, not published yet.
pub(crate) struct Written {
    /// Where its header goes, in the ring.
    at: usize,
    len: u32,
    /// The producer's position after it.
    end: u64,
}

impl Claim<'_> {
    /// Copies `batch` into the ring's free space (and, when it starts over at the beginning, marks
    /// the end skipped), without publishing it: `None` when the handle has no ring or it has no
    /// room. Reads only the handle, so that the copy does not wait for the recording's slot.
    #[inline]
    pub(crate) fn copy(&self, batch: &[u8]) -> Option<Written> {
        let p = self.p;
        let Place { at, skip, end } = p.place(batch.len(), true)?;
        let block = p.data.load(Ordering::Relaxed);
        let entry = if skip > 0 { 0 } else { at };
        // SAFETY: `block` is the ring `install` put in this handle, `HEAD_LINE + capacity` bytes
        // long; every byte written lies in `[tail, end)` of the ring (below `capacity`, as `at +
        // skip + need <= capacity` or the entry starts over at 0), which the consumer has given
        // back (`end - head <= capacity`) and reads only after `commit` publishes it. This thread
        // holds the claim, so no other producer writes there.
        unsafe {
            let ring = block.add(HEAD_LINE);
            if skip > 0 {
                Staging::write_header(ring.add(at), 0, WRAP, 0);
            }
            std::ptr::copy_nonoverlapping(batch.as_ptr(), ring.add(entry + HEADER), batch.len());
        }
        Some(Written {
            at: entry,
            len: batch.len() as u32,
            end,
        })
    }

    /// Publishes what `copy` wrote as tick `tick`, after the queued messages `hot` counts so far
    /// (see [`Commit`]).
    #[inline]
    pub(crate) fn commit(self, hot: &Hot, w: Written, tick: u32) -> Commit {
        let p = self.p;
        // Another thread's message on its way to the queue and not counted yet: this tick could
        // be taken before it, and so before a tick this thread queued after it. Taking the queue
        // keeps the order. (`sending` is raised before such a message is sent and lowered as it
        // is counted, in one step; the queue orders its sends, so a message sent before this
        // thread's last queued tick is either counted here or still shows in `sending`: one load
        // reads both.)
        let sends = hot.sends.load(Ordering::SeqCst);
        if Hot::sending(sends) {
            return Commit::Queue;
        }
        let after = Hot::queued_msgs(sends);
        // An ending counted in `after` came after this tick's checks: the writer may be done with
        // the recording before it looks at this entry.
        if hot.state.load(Ordering::SeqCst) != OPEN {
            return Commit::Closed;
        }
        let block = p.data.load(Ordering::Relaxed);
        // SAFETY: as in `copy`, which found these 16 bytes free in this handle's ring (`w.at` is
        // below `capacity - HEADER`), and nothing has been published since: the claim is held.
        unsafe {
            Staging::write_header(block.add(HEAD_LINE + w.at), tick, w.len, after);
        }
        p.tail.store(w.end, Ordering::Relaxed);
        let staged = hot.staged.load(Ordering::Relaxed);
        hot.staged.store(staged + 1, Ordering::Relaxed);
        hot.stage_tail.store(w.end, Ordering::Release);
        Commit::Done
    }
}

/// What became of a staged tick at [`Claim::commit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Commit {
    /// Published to the writer.
    Done,
    /// Not published: the tick takes the queue.
    Queue,
    /// Not published: the recording was ended meanwhile.
    Closed,
}

/// The ring's memory (owned by the recording's shared state); the producer reaches it through
/// the pointer and capacity its [`Producer`] holds.
#[derive(Debug)]
pub(crate) struct Staging {
    block: *mut u8,
    capacity: usize,
    /// The engine's count of staging bytes holds `capacity` for the ring; given back on drop.
    engine: Arc<EngineShared>,
    /// The recording's slot (its tail and staged ticks, for the stats).
    hot: HotRef,
    /// The writer is done with the recording: nothing staged is pending any more.
    ended: AtomicBool,
}

// SAFETY: the block is plain memory that `Staging` owns; what is read and written in it, from
// which thread, is ordered by the positions (release stores, acquire loads), as described above.
unsafe impl Send for Staging {}
// SAFETY: as for `Send`: the block is written through a [`Claim`] (one producer at a time, kept
// single by `Producer::busy`) and read through `peek` and `consume` (one consumer, the recording's
// writer thread).
unsafe impl Sync for Staging {}

impl StagedTicks for Staging {
    fn pending(&self) -> u64 {
        Staging::pending(self)
    }
}

/// One staged tick, read in place until [`Staging::consume`].
pub(crate) struct Entry<'a> {
    pub tick: u32,
    pub bytes: &'a [u8],
    /// The head after this entry.
    next: u64,
}

#[inline]
fn padded(n: usize) -> usize {
    n.div_ceil(HEADER) * HEADER
}

impl Staging {
    /// A ring sized for ticks of `len` bytes, registered with the engine, if the engine's rings
    /// stay within [`Budget::max_staging`](crate::record::shared::budget::Budget::max_staging) with it.
    pub(crate) fn new(engine: &Arc<EngineShared>, hot: HotRef, len: usize) -> Option<Arc<Staging>> {
        let capacity =
            (padded(HEADER + len).next_power_of_two() * TICKS).clamp(MIN_CAPACITY, MAX_CAPACITY);
        if padded(HEADER + len) > capacity / 2 {
            return None;
        }
        let fits =
            engine
                .budget
                .staging_bytes
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                    (n + capacity <= engine.budget.max_staging).then_some(n + capacity)
                });
        if fits.is_err() {
            return None;
        }
        let layout = Layout::from_size_align(HEAD_LINE + capacity, HEAD_LINE).ok()?;
        // SAFETY: the layout's size is not zero.
        let block = unsafe { std::alloc::alloc_zeroed(layout) };
        if block.is_null() {
            engine
                .budget
                .staging_bytes
                .fetch_sub(capacity, Ordering::AcqRel);
            return None;
        }
        let ring = Arc::new(Staging {
            block,
            capacity,
            engine: engine.clone(),
            hot,
            ended: AtomicBool::new(false),
        });
        let mut all = engine.stagings.lock();
        all.retain(|w| w.strong_count() > 0);
        let listed: std::sync::Weak<dyn StagedTicks> = Arc::<Staging>::downgrade(&ring);
        all.push(listed);
        Some(ring)
    }

    /// Ticks staged and not taken yet (none once the writer is done with the recording).
    pub(crate) fn pending(&self) -> u64 {
        if self.ended.load(Ordering::Acquire) {
            return 0;
        }
        let staged = self.hot.staged.load(Ordering::Acquire);
        staged.saturating_sub(Self::taken_at(self.block, self).load(Ordering::Acquire))
    }

    /// The writer is done with the recording (finished, closed, aborted or retired): whatever is
    /// still staged is left, and no longer pending. The memory stays until the `Recorder` handle
    /// goes (its producer side points into it).
    pub(crate) fn end(&self) {
        self.ended.store(true, Ordering::Release);
    }

    /// Points the producer at this ring (once, before any `copy`).
    pub(crate) fn install(&self, p: &Producer) {
        p.data.store(self.block, Ordering::Relaxed);
        p.capacity.store(self.capacity as u32, Ordering::Release);
    }

    /// The consumer's position, at the start of the block.
    #[inline]
    fn head_at(block: *mut u8, _owner: &impl Sized) -> &AtomicU64 {
        // SAFETY: the block starts with 64 zeroed, 64-aligned bytes reserved for the head (an
        // `AtomicU64` has the layout of a `u64`), and lives as long as `_owner`: the `Staging`
        // itself, or the `Producer` it was installed in (in the `Recorder`, which holds the
        // recording's shared state, which owns the ring).
        unsafe { &*(block as *const AtomicU64) }
    }

    /// The ticks the consumer took, next to its position.
    #[inline]
    fn taken_at(block: *mut u8, _owner: &Staging) -> &AtomicU64 {
        // SAFETY: as for `head_at`: bytes 8 to 16 of the block's first line, 8-aligned.
        unsafe { &*(block.add(8) as *const AtomicU64) }
    }

    /// # Safety
    /// `at` points to `HEADER` writable bytes of a ring.
    #[inline]
    unsafe fn write_header(at: *mut u8, tick: u32, len: u32, after: u64) {
        let mut h = [0u8; HEADER];
        h[..4].copy_from_slice(&tick.to_le_bytes());
        h[4..8].copy_from_slice(&len.to_le_bytes());
        h[8..].copy_from_slice(&after.to_le_bytes());
        // SAFETY: the caller's promise.
        unsafe { std::ptr::copy_nonoverlapping(h.as_ptr(), at, HEADER) };
    }

    /// The oldest staged tick, if the writer has taken the `taken` queued messages it comes after.
    /// Consumer only.
    pub(crate) fn peek(&self, hot: &Hot, taken: u64) -> Option<Entry<'_>> {
        let tail = hot.stage_tail.load(Ordering::Acquire);
        let head_pos = Self::head_at(self.block, self);
        let mut head = head_pos.load(Ordering::Relaxed);
        loop {
            if head >= tail {
                return None;
            }
            let at = head as usize & (self.capacity - 1);
            let h = self.read(at, HEADER);
            let len = u32::from_le_bytes([h[4], h[5], h[6], h[7]]);
            if len == WRAP {
                head += (self.capacity - at) as u64;
                head_pos.store(head, Ordering::Release);
                continue;
            }
            let after = u64::from_le_bytes(h[8..].try_into().expect("8 bytes"));
            if after > taken {
                return None;
            }
            let len = len as usize;
            let next = head + padded(HEADER + len) as u64;
            assert!(
                at + HEADER + len <= self.capacity && next <= tail,
                "a staged entry runs past the ring or its tail"
            );
            return Some(Entry {
                tick: u32::from_le_bytes([h[0], h[1], h[2], h[3]]),
                bytes: self.read(at + HEADER, len),
                next,
            });
        }
    }

    /// `len` bytes of the ring from `at`, which the caller has checked lie in `[head, tail)`.
    fn read(&self, at: usize, len: usize) -> &[u8] {
        assert!(at + len <= self.capacity);
        // SAFETY: in bounds (checked above); the bytes lie between the head and a tail loaded with
        // acquire ordering, so the producer wrote them before publishing that tail and does not
        // write them again until the head has passed them (after the returned borrow ends).
        unsafe { std::slice::from_raw_parts(self.block.add(HEAD_LINE + at), len) }
    }

    /// Gives `entry`'s bytes back to the producer. Consumer only.
    pub(crate) fn consume(&self, entry: Entry<'_>) {
        Self::head_at(self.block, self).store(entry.next, Ordering::Release);
        let taken = Self::taken_at(self.block, self);
        taken.store(taken.load(Ordering::Relaxed) + 1, Ordering::Release);
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let layout = Layout::from_size_align(HEAD_LINE + self.capacity, HEAD_LINE)
            .expect("the layout it was allocated with");
        // SAFETY: allocated in `new` with this layout, and dropped once.
        unsafe { std::alloc::dealloc(self.block, layout) };
        self.engine
            .budget
            .staging_bytes
            .fetch_sub(self.capacity, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A producer over a ring of `capacity` bytes whose consumer stands at `head`, the producer
    /// at `tail` (no writer behind it: only the positions count).
    fn producer(block: &mut [u64], capacity: usize, tail: u64, head: u64) -> Producer {
        let p = Producer::default();
        let data = block.as_mut_ptr().cast::<u8>();
        Staging::head_at(data, &p).store(head, Ordering::Relaxed);
        p.data.store(data, Ordering::Relaxed);
        p.capacity.store(capacity as u32, Ordering::Release);
        p.tail.store(tail, Ordering::Relaxed);
        p
    }

    #[test]
    fn a_tick_without_room_in_the_ring_is_known_before_the_claim() {
        const CAP: usize = MIN_CAPACITY;
        let mut block = vec![0u64; (HEAD_LINE + CAP) / 8];
        // No ring yet: the claim is where it gets made.
        assert!(Producer::default().may_fit(100));
        // An empty ring has room; a tick larger than half the ring never fits.
        let p = producer(&mut block, CAP, 0, 0);
        assert!(p.may_fit(100));
        assert!(!p.may_fit(CAP / 2));
        // Full: the consumer has taken nothing.
        let p = producer(&mut block, CAP, CAP as u64, 0);
        assert!(!p.may_fit(100));
        assert!(p.claim().expect("free").copy(&[0; 100]).is_none());
        // Once the consumer has given back enough, there is room again, read from its position
        // (the handle's last sight of it is older).
        Staging::head_at(p.data.load(Ordering::Relaxed), &p).store(128, Ordering::Release);
        assert!(p.may_fit(100));
        assert!(!p.may_fit(120), "a 16-byte header and 120 bytes need 144");
        // Judged without the claim, and without remembering what it read there; the copy under the
        // claim does.
        assert_eq!(p.seen_head.load(Ordering::Relaxed), 0);
        let w = p.claim().expect("free").copy(&[7; 100]).expect("room");
        assert_eq!((w.at, w.end), (0, CAP as u64 + 128));
        assert_eq!(p.seen_head.load(Ordering::Relaxed), 128);
    }
}
