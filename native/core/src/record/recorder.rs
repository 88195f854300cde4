//! The `Recorder` handle a game server holds per recording. `submit_tick` is the server-thread hot
//! path: O(1) checks and a copy, into the recording's staging ring (`staging`) or, for a tick of a
//! few dozen bytes or one the ring has no room for, onto the writer's bounded lock-free queue,
//! waiting for room no longer than the recording's [`Backpressure`] policy allows.
//!
//! Its other calls, by meaning: `messages` (what a server sends besides ticks: snapshots,
//! terrain, metadata, flushes) and `ending` (finish, close, abort, drop).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crossbeam_channel::{Sender, TrySendError};

use crate::error::{Error, Result};
use crate::record::shared::engine_shared::EngineShared;
use crate::record::shared::hot_slots::{HotRef, Sending};
use crate::record::shared::staging::{Commit, Producer, Staging};
use crate::record::shared::tick_bytes::{INLINE, TickBytes};
use crate::record::writer::writer_thread::{Ending, Msg};

mod ending;
mod messages;

pub use crate::record::options::recorder_options::{
    Backpressure, DEFAULT_BLOCK_DEADLINE, FlushPolicy, MAX_PREVIOUS_RECORDINGS, OnExisting,
    RecorderOptions, SnapshotProvider,
};

/// Outcome of a successful `submit_tick`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Submitted {
    Queued,
    /// The tick was dropped by the `Drop` backpressure policy (counted and recorded as a gap).
    Dropped,
}

/// Counters of one recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecorderStats {
    pub submitted_ticks: u64,
    pub dropped_ticks: u64,
    /// Ticks the writer refused (malformed batch, out of order); see `status()`.
    pub rejected_ticks: u64,
    /// Compressed bytes written to the live directory.
    pub bytes_written: u64,
    pub flushes: u64,
    pub last_flush_latency_us: u64,
    /// Every tick up to and including this one is durably on disk.
    pub flushed_tick: Option<u32>,
    /// Messages waiting in this recording's writer queue (shared with other recordings), and the
    /// ticks it staged that the writer has not taken yet.
    pub queue_depth: usize,
}

#[cfg(feature = "test-hooks")]
use crate::record::shared::hot_slots::SENDING_ONE;
use crate::record::shared::hot_slots::{NONE, OPEN, RETIRED};
use crate::record::shared::rec_shared::{RESUME_DONE, RESUME_FAILED, RESUME_PENDING, RecShared};

/// One recording being written. Cheap to share between threads (`&self` methods); ticks of one
/// recording must be submitted in increasing order (from one thread at a time).
///
/// No call waits for room in a full writer queue past the recording's backpressure policy. Like
/// `submit_tick`, the metadata calls (`player_left`, `offer_snapshot`, `register_*`,
/// `set_user_metadata`) and `flush` then fail with `Error::Backpressure` and queue nothing. Ending
/// a recording (`finish`, `close`, `abort`, or dropping the `Recorder`) never waits for room at all
/// and is never lost: it takes effect after every message queued before it, including those of
/// calls on other threads that found the recording open (it waits for those to be sent, which
/// takes as long as their own wait for room, at most their policy's deadline; so do not end a
/// recording from the writer's own callbacks, a snapshot provider). `finish` and dropping then
/// return at once; `close`, `abort` and `flush` return when the writer has done their work.
#[derive(Debug)]
pub struct Recorder {
    pub(crate) shared: Arc<RecShared>,
    /// `shared.hot`, reached without going through `shared` (see [`HotSlot`]).
    pub(crate) hot: HotRef,
    /// Copies of `shared`'s fields that never change.
    pub(crate) id: u64,
    pub(crate) max_batch: usize,
    pub(crate) backpressure: Backpressure,
    pub(crate) engine: Arc<EngineShared>,
    pub(crate) tx: Sender<Msg>,
    pub(crate) control: Sender<Ending>,
    /// The producer's side of the recording's staging ring.
    pub(crate) stage: Producer,
}

impl Recorder {
    /// The final `.reel` path of this recording (for a stream without a file, a name such as
    /// `<stream 7>`).
    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// Whether the recording is written to disk (`false` for [`crate::Engine::start_stream`]).
    pub fn is_persistent(&self) -> bool {
        self.shared.persist
    }

    /// Queues one tick's events in batch encoding (see `format::event`). Server thread: validates
    /// only what is O(1) and copies the batch into the recording's staging ring (or, when it is
    /// small enough for a queue slot or the ring has no room, onto the writer's queue); never I/O.
    pub fn submit_tick(&self, tick: u32, batch: &[u8]) -> Result<Submitted> {
        // The bytes go into the staging ring's free space first (published only once the checks
        // below pass), so that the copy does not wait for the recording's slot to arrive from
        // memory: at a server's pace both are cold (see `staging`).
        // A tick small enough for a queue slot takes the queue: the slots are walked in order, which
        // costs a one-player recording less than a ring of its own (and makes no ring for it). So
        // does a tick the ring has no room for, without claiming it (`Producer::may_fit`).
        let staged = (batch.len() > INLINE && self.stage.may_fit(batch.len()))
            .then(|| self.stage.claim())
            .flatten()
            .map(|c| {
                let w = c.copy(batch);
                (c, w)
            });
        // Reads the handle and its packed slot only (see `HotSlot`): no pointer chase into
        // `shared`, which a server submitting to many recordings would find cold.
        let hot = &*self.hot;
        if hot.state.load(Ordering::Acquire) != OPEN {
            return Err(self.not_open());
        }
        if batch.len() < 2 || batch.len() > self.max_batch {
            return Err(self.bad_size(batch.len()));
        }
        let last = hot.last_submitted.load(Ordering::Relaxed);
        if last != NONE && u64::from(tick) <= last {
            return Err(Self::not_after(tick, last));
        }
        hot.last_submitted.store(u64::from(tick), Ordering::Relaxed);
        match staged {
            Some((claim, Some(written))) => match claim.commit(hot, written, tick) {
                Commit::Done => {
                    let n = hot.submitted.load(Ordering::Relaxed);
                    hot.submitted.store(n + 1, Ordering::Relaxed);
                    return Ok(Submitted::Queued);
                }
                Commit::Queue => {}
                Commit::Closed => return Err(self.not_open()),
            },
            Some((claim, None)) => {
                // The first tick too large for a queue slot makes the ring, and itself takes the
                // queue (as does a tick when the ring has no room).
                if !self.stage.has_ring() {
                    self.make_ring(batch.len());
                }
                drop(claim);
            }
            None => {}
        }
        self.submit_queued(tick, batch)
    }

    /// A batch whose size `submit_tick` refuses (kept out of its hot path).
    #[cold]
    #[inline(never)]
    fn bad_size(&self, len: usize) -> Error {
        if len < 2 {
            return Error::invalid("a tick batch needs at least its 2-byte event count");
        }
        Error::invalid(format!(
            "tick batch of {len} bytes exceeds the limit of {}",
            self.max_batch
        ))
    }

    #[cold]
    #[inline(never)]
    fn not_after(tick: u32, last: u64) -> Error {
        Error::invalid(format!(
            "tick {tick} is not after the last submitted tick {last} (a recording resumed \
             after a restart carries on after its last tick; set {} to StartFresh, the default, \
             to keep the old recording aside and start a new one)",
            crate::error::option("on_existing")
        ))
    }

    /// The rest of `submit_tick` for a tick that takes the queue (checked, and counted as the
    /// last submitted).
    #[inline(never)]
    fn submit_queued(&self, tick: u32, batch: &[u8]) -> Result<Submitted> {
        // A batch small enough for a queue slot is copied into its message first, where the
        // message lies (`TickBytes::fill`), and before `Sending::raise`, whose locked instruction
        // drains the stores that made it: the channel's send then reads it back from the cache.
        // Read back at once in 16-byte pieces, each piece spanning several of those stores (a
        // copy of `batch.len()` bytes, fields of other widths) waits for them to reach the
        // cache: a failed store-to-load forwarding, about a dozen cycles each. Made after the
        // checks, and moved field by field into the send as one value with the pooled path's,
        // the message cost a third of a one-player recording's submit that way (perf on the
        // bench's one-player case); so the two paths stay apart.
        if batch.len() > INLINE {
            return self.submit_pooled(tick, batch);
        }
        let mut msg = Msg::Tick {
            id: self.id,
            tick,
            bytes: TickBytes::EMPTY,
        };
        let inline = match &mut msg {
            Msg::Tick { bytes, .. } => bytes.fill(batch),
            _ => false,
        };
        if !inline {
            return self.submit_pooled(tick, batch);
        }
        let sending = self.raise_sending()?;
        self.send_tick(sending, tick, msg, None)
    }

    /// `submit_queued` for a batch too large for a queue slot: in a pooled buffer, counted in the
    /// in-flight budget.
    #[inline(never)]
    fn submit_pooled(&self, tick: u32, batch: &[u8]) -> Result<Submitted> {
        let sending = self.raise_sending()?;
        // The budget counts the buffer's capacity: what the queued tick really holds.
        let mut deadline_at: Option<Instant> = None;
        let mut buf = self.engine.pool.take(batch.len());
        let cap = buf.capacity();
        if !self.engine.budget.reserve_bytes(cap) {
            let ok = match self.deadline(&mut deadline_at) {
                Some(at) => self.engine.budget.wait_reserve(cap, at),
                None => false,
            };
            if !ok {
                self.engine.pool.give(buf);
                return self.dropped(tick);
            }
        }
        buf.extend_from_slice(batch);
        let msg = Msg::Tick {
            id: self.id,
            tick,
            bytes: TickBytes::Pooled(buf),
        };
        self.send_tick(sending, tick, msg, deadline_at)
    }

    /// Counts the submitter's tick as sending, then checks the recording open.
    ///
    /// Counted in `sending` until it is on the queue, and the recording checked open again
    /// after that: an ending waits for what is counted before it sends its message (see
    /// `transition`), so the tick is queued before the ending, or refused; never queued after
    /// it and discarded by the writer once `Ok` was returned.
    #[inline(always)]
    fn raise_sending(&self) -> Result<Sending<'_>> {
        let hot = &*self.hot;
        let sending = Sending::raise(hot);
        if hot.state.load(Ordering::SeqCst) != OPEN || self.engine.stopping.load(Ordering::SeqCst) {
            return Err(self.not_open());
        }
        Ok(sending)
    }

    /// The deadline of a wait for room (`None` under `Drop`: no wait), fixed by the first wait
    /// of a call. The clock is read only when waiting.
    #[inline(always)]
    fn deadline(&self, at: &mut Option<Instant>) -> Option<Instant> {
        match self.backpressure {
            Backpressure::Block { deadline } => {
                Some(*at.get_or_insert_with(|| crate::threads::deadline_in(deadline)))
            }
            Backpressure::Drop => None,
        }
    }

    /// Puts a tick's message on the queue, waiting for room as the backpressure policy allows
    /// (until `deadline_at` if an earlier wait of the call fixed it), and counts it.
    #[inline(always)]
    fn send_tick(
        &self,
        sending: Sending<'_>,
        tick: u32,
        msg: Msg,
        mut deadline_at: Option<Instant>,
    ) -> Result<Submitted> {
        let hot = &*self.hot;
        let sent = match self.tx.try_send(msg) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(m)) => match self.deadline(&mut deadline_at) {
                Some(at) => crate::threads::send_until(&self.tx, m, at),
                None => Err(Some(m)),
            },
            Err(TrySendError::Disconnected(_)) => Err(None),
        };
        match sent {
            Ok(()) => {
                // One submitter per recording at a time (documented), so no read-modify-write needed.
                let n = hot.submitted.load(Ordering::Relaxed);
                hot.submitted.store(n + 1, Ordering::Relaxed);
                // Last: an ending that finds nothing sending any more counts this tick in what it
                // comes after (`RecShared::queued`, read when it takes the control channel).
                sending.queued();
                Ok(Submitted::Queued)
            }
            Err(returned) => match returned {
                Some(Msg::Tick { bytes, .. }) => {
                    if let TickBytes::Pooled(buf) = bytes {
                        self.engine.budget.release_bytes(buf.capacity());
                        self.engine.pool.give(buf);
                    }
                    self.dropped(tick)
                }
                _ => Err(Error::InvalidState("the engine has shut down".into())),
            },
        }
    }

    /// Makes the recording's staging ring, sized for ticks of `len` bytes (once; the engine may
    /// have no room for it, and the recording then queues every tick).
    fn make_ring(&self, len: usize) {
        // Not while the recording resumes: the writer holds its ticks until the recovery is done,
        // and those off the queue are within the in-flight budget (a ring's would not be).
        if self.shared.resume.load(Ordering::Acquire) == RESUME_PENDING {
            return;
        }
        self.shared.staging.get_or_init(|| {
            let ring = Staging::new(&self.engine, self.shared.hot.view(), len);
            if let Some(r) = &ring {
                r.install(&self.stage);
            }
            ring
        });
    }

    fn dropped(&self, tick: u32) -> Result<Submitted> {
        self.shared.record_drop(tick);
        self.engine
            .counters
            .dropped_total
            .fetch_add(1, Ordering::Relaxed);
        match self.shared.backpressure {
            Backpressure::Drop => Ok(Submitted::Dropped),
            Backpressure::Block { deadline } => Err(Error::Backpressure(format!(
                "tick {tick} dropped: the writer had no room for {}",
                crate::error::duration(deadline)
            ))),
        }
    }

    /// The error of a call on a recording that is no longer open.
    #[cold]
    #[inline(never)]
    fn not_open(&self) -> Error {
        if self.engine.stopping.load(Ordering::Acquire) {
            return Self::engine_gone();
        }
        if self.hot.state.load(Ordering::Acquire) == RETIRED
            && let Some(m) = &*self.shared.error.lock()
        {
            return Error::InvalidState(format!("the recording was retired: {m}"));
        }
        Error::InvalidState("the recording is no longer open".into())
    }

    fn engine_gone() -> Error {
        Error::InvalidState("the engine has shut down".into())
    }

    /// Waits for the writer's answer to a message, or until the engine has stopped without one.
    /// Polls (never parks in crossbeam, see [`crate::threads::Nap`]): these calls wait for I/O
    /// anyway, and a blocking receive would leave a thread-local destructor on the caller's thread.
    fn wait_ack(&self, rx: &crossbeam_channel::Receiver<Result<()>>) -> Result<()> {
        let mut nap = crate::threads::Nap::default();
        loop {
            match rx.try_recv() {
                Ok(r) => return r,
                Err(crossbeam_channel::TryRecvError::Disconnected) => {
                    return Err(Self::engine_gone());
                }
                Err(crossbeam_channel::TryRecvError::Empty) => {
                    if self.engine.threads_done.load(Ordering::Acquire) {
                        return rx.try_recv().unwrap_or_else(|_| Err(Self::engine_gone()));
                    }
                    nap.nap();
                }
            }
        }
    }

    /// Waits up to `timeout` for a resumed recording's live directory to be recovered (see
    /// `Engine::start_recording`) and returns its last recorded tick (`None` for a recording
    /// without ticks, or a fresh one, at once). Ticks submitted must come after it. Fails with the
    /// recovery's error if it failed, `NotReady` if it is still running at the timeout.
    pub fn wait_resumed(&self, timeout: Duration) -> Result<Option<u32>> {
        let until = Instant::now() + timeout;
        loop {
            match self.shared.resume.load(Ordering::Acquire) {
                RESUME_PENDING if Instant::now() < until => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                RESUME_PENDING => {
                    return Err(Error::NotReady(
                        "the recording's live directory is still being recovered".into(),
                    ));
                }
                RESUME_FAILED => {
                    let why = self.shared.error.lock().clone();
                    return Err(Error::InvalidState(
                        why.unwrap_or_else(|| "resuming the recording failed".into()),
                    ));
                }
                RESUME_DONE => {
                    let t = self.shared.resumed_tick.load(Ordering::Acquire);
                    return Ok((t != NONE).then_some(t as u32));
                }
                _ => return Ok(None),
            }
        }
    }

    /// Counters of this recording.
    pub fn stats(&self) -> RecorderStats {
        let sh = &*self.shared;
        let flushed = sh.flushed_tick.load(Ordering::Relaxed);
        RecorderStats {
            submitted_ticks: sh.hot.submitted.load(Ordering::Relaxed),
            dropped_ticks: sh.dropped.load(Ordering::Relaxed),
            rejected_ticks: sh.rejected.load(Ordering::Relaxed),
            bytes_written: sh.bytes_written.load(Ordering::Relaxed),
            flushes: sh.flushes.load(Ordering::Relaxed),
            last_flush_latency_us: sh.last_flush_us.load(Ordering::Relaxed),
            flushed_tick: (flushed != NONE).then_some(flushed as u32),
            queue_depth: self.tx.len() + self.staged_pending(),
        }
    }

    /// Test hook (feature `test-hooks`): ticks this recording put in its staging ring so far.
    #[cfg(feature = "test-hooks")]
    pub fn staged_ticks(&self) -> u64 {
        self.hot.staged.load(Ordering::Acquire)
    }

    /// Test hook (feature `test-hooks`): while `on`, the recording acts as if another thread were
    /// sending it a message (a snapshot, a flush) that is not counted yet: ticks take the queue,
    /// and an ending waits (see `transition`).
    #[cfg(feature = "test-hooks")]
    pub fn hold_a_send(&self, on: bool) {
        if on {
            self.hot.sends.fetch_add(SENDING_ONE, Ordering::SeqCst);
        } else {
            self.hot.sends.fetch_sub(SENDING_ONE, Ordering::SeqCst);
        }
    }

    /// Test hook (feature `test-hooks`): while `on`, the recording acts as if a tick were being
    /// staged (claimed, not published yet): the submitter's ticks take the queue, and an ending
    /// waits (see `transition`).
    #[cfg(feature = "test-hooks")]
    pub fn hold_the_ring(&self, on: bool) {
        self.stage.busy.store(on, Ordering::SeqCst);
    }

    /// Ticks of this recording staged and not taken by the writer yet.
    fn staged_pending(&self) -> usize {
        match self.shared.staging.get() {
            Some(Some(ring)) => ring.pending() as usize,
            _ => 0,
        }
    }

    /// The last error the writer reported for this recording, if any.
    ///
    /// A flush's I/O failure keeps its kind: an [`Error::Io`] with the operating system's kind
    /// ([`Error::io_kind`]) and the path it happened on ([`Error::path`]); other writer errors
    /// (a refused tick, a snapshot provider's failure) are [`Error::InvalidState`].
    pub fn status(&self) -> Result<()> {
        let error = self.shared.error.lock();
        match &*error {
            Some(m) => match &*self.shared.io_error.lock() {
                Some(e) => Err(e
                    .duplicate()
                    .with_context(" (writer error: a flush failed; it is retried)")),
                None => Err(Error::InvalidState(format!("writer error: {m}"))),
            },
            None => Ok(()),
        }
    }
}
