//! The `Recorder` handle a game server holds per recording. `submit_tick` is the server-thread hot
//! path: O(1) checks and a copy, into the recording's staging ring (`staging`) or, for a tick of a
//! few dozen bytes or one the ring has no room for, onto the writer's bounded lock-free queue.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crossbeam_channel::{Sender, TrySendError};

use crate::error::{Error, Result};
use crate::format::Limits;
use crate::format::metadata::{EntityInfo, EventType};
use crate::format::palette::PaletteKind;
use crate::record::engine_shared::EngineShared;
use crate::record::finish::Finishing;
use crate::record::hot_slots::{Hot, HotRef};
use crate::record::staging::{Commit, Producer, Staging};
use crate::record::tick_bytes::{INLINE, TickBytes};
use crate::record::writer_thread::{Ending, Msg};

pub use crate::record::recorder_options::{
    Backpressure, FlushPolicy, MAX_PREVIOUS_RECORDINGS, OnExisting, RecorderOptions,
    SnapshotProvider,
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

use crate::record::hot_slots::{ABORTED, CLOSED, FINISHING, NONE, OPEN, RETIRED};
use crate::record::rec_shared::{RESUME_DONE, RESUME_FAILED, RESUME_PENDING, RecShared};

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
        // costs a one-player recording less than a ring of its own (and makes no ring for it).
        let staged = (batch.len() > INLINE)
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
             after a restart carries on after its last tick; `on_existing` StartFresh starts a \
             new one)"
        ))
    }

    /// The rest of `submit_tick` for a tick that takes the queue (checked, and counted as the
    /// last submitted).
    #[inline(never)]
    fn submit_queued(&self, tick: u32, batch: &[u8]) -> Result<Submitted> {
        let hot = &*self.hot;
        // Counted in `sending` until it is on the queue, and the recording checked open again
        // after that: an ending waits for what is counted before it sends its message (see
        // `transition`), so the tick is queued before the ending, or refused; never queued after
        // it and discarded by the writer once `Ok` was returned.
        let _sending = Sending::raise(hot);
        if hot.state.load(Ordering::SeqCst) != OPEN || self.engine.stopping.load(Ordering::SeqCst) {
            return Err(self.not_open());
        }
        // Through the queue: room in the byte budget and the queue. The clock is read only when
        // waiting.
        let mut deadline_at: Option<Instant> = None;
        let deadline = |at: &mut Option<Instant>| match self.backpressure {
            Backpressure::Block { deadline } => {
                Some(*at.get_or_insert_with(|| crate::threads::deadline_in(deadline)))
            }
            Backpressure::Drop => None,
        };
        let bytes = match TickBytes::inline(batch) {
            Some(inline) => inline,
            None => {
                // The budget counts the buffer's capacity: what the queued tick really holds.
                let mut buf = self.engine.pool.take(batch.len());
                let cap = buf.capacity();
                if !self.engine.budget.reserve_bytes(cap) {
                    let ok = match deadline(&mut deadline_at) {
                        Some(at) => self.engine.budget.wait_reserve(cap, at),
                        None => false,
                    };
                    if !ok {
                        self.engine.pool.give(buf);
                        return self.dropped(tick);
                    }
                }
                buf.extend_from_slice(batch);
                TickBytes::Pooled(buf)
            }
        };
        let msg = Msg::Tick {
            id: self.id,
            tick,
            bytes,
        };
        let sent = match self.tx.try_send(msg) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(m)) => match deadline(&mut deadline_at) {
                Some(at) => crate::threads::send_until(&self.tx, m, at),
                None => Err(Some(m)),
            },
            Err(TrySendError::Disconnected(_)) => Err(None),
        };
        match sent {
            Ok(()) => {
                hot.queued_msgs.fetch_add(1, Ordering::Release);
                // One submitter per recording at a time (documented), so no read-modify-write needed.
                let n = hot.submitted.load(Ordering::Relaxed);
                hot.submitted.store(n + 1, Ordering::Relaxed);
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

    fn send(&self, msg: Msg) -> Result<()> {
        // Counted in `sending` until it is counted in `queued_msgs` (see `staging::Claim::commit`),
        // from before the recording is checked open: an ending waits for it (see `transition`).
        let _sending = Sending::raise(&self.hot);
        if self.hot.state.load(Ordering::SeqCst) != OPEN {
            return Err(self.not_open());
        }
        if self.engine.stopping.load(Ordering::SeqCst) {
            return Err(Self::engine_gone());
        }
        // Never blocks past the recorder's backpressure policy: with the queue full, `Block` waits
        // up to its deadline and `Drop` not at all; then the call fails and nothing was queued.
        let full = |_| Error::Backpressure("the writer's queue is full; nothing was queued".into());
        let gone = || Error::InvalidState("the engine has shut down".into());
        let sent = match self.tx.try_send(msg) {
            Ok(()) => Ok(()),
            Err(TrySendError::Disconnected(_)) => Err(gone()),
            Err(TrySendError::Full(msg)) => match self.shared.backpressure {
                Backpressure::Drop => Err(full(msg)),
                Backpressure::Block { deadline } => {
                    match crate::threads::send_until(
                        &self.tx,
                        msg,
                        crate::threads::deadline_in(deadline),
                    ) {
                        Ok(()) => Ok(()),
                        Err(Some(m)) => Err(full(m)),
                        Err(None) => Err(gone()),
                    }
                }
            },
        };
        if sent.is_ok() {
            self.hot.queued_msgs.fetch_add(1, Ordering::Release);
            self.shared.other_sent.fetch_add(1, Ordering::Relaxed);
        }
        sent
    }

    /// Sends an ending message without waiting for queue room: onto the queue when it has room,
    /// else onto the writer's control channel, marked to take effect after every message this
    /// recording has queued so far.
    fn send_ending(&self, msg: Msg) -> Result<()> {
        let gone = Self::engine_gone;
        if self.engine.stopping.load(Ordering::Acquire) {
            return Err(gone());
        }
        // Counted in `sending` until it is counted in `queued_msgs` (see `staging::Claim::commit`).
        let _sending = Sending::raise(&self.hot);
        match self.tx.try_send(msg) {
            Ok(()) => {
                self.hot.queued_msgs.fetch_add(1, Ordering::Release);
                Ok(())
            }
            Err(TrySendError::Disconnected(_)) => Err(gone()),
            // The control channel is unbounded: never full.
            Err(TrySendError::Full(msg)) => crate::threads::send(
                &self.control,
                Ending {
                    id: self.shared.id,
                    after: self.shared.queued(),
                    msg,
                },
            )
            .map_err(|_| gone()),
        }
    }

    /// A player left: triggers a flush (per the flush policy) so that their part is durable, and
    /// starts the player's grace period in a shadow buffer. Record the `PlayerLeave` event itself
    /// in the tick batch; this call adds no event.
    pub fn player_left(&self, entity: u32) -> Result<()> {
        self.send(Msg::PlayerLeft {
            id: self.shared.id,
            entity,
        })
    }

    /// Supplies snapshot bytes (blocks, entities, whatever the game needs to rebuild its world);
    /// the next tick starts a chunk carrying them.
    pub fn offer_snapshot(&self, bytes: Vec<u8>) -> Result<()> {
        Limits::default().check_snapshot(bytes.len())?;
        // Counted against the in-flight budget like ticks, under the same policy.
        let cap = bytes.capacity();
        if !self.engine.budget.reserve_bytes(cap) {
            let ok = match self.shared.backpressure {
                Backpressure::Block { deadline } => self
                    .engine
                    .budget
                    .wait_reserve(cap, crate::threads::deadline_in(deadline)),
                Backpressure::Drop => false,
            };
            if !ok {
                return Err(Error::Backpressure(format!(
                    "a snapshot of {} bytes does not fit in the in-flight budget; nothing was queued",
                    bytes.len()
                )));
            }
        }
        let r = self.send(Msg::Snapshot {
            id: self.shared.id,
            bytes,
        });
        if r.is_err() {
            self.engine.budget.release_bytes(cap);
        }
        r
    }

    /// Supplies terrain, the blocks of an area as chunk sections in Minecraft's layout
    /// ([`crate::format::Section`]: palette of block-state ids named through the block palette,
    /// packed indices), at a recording's start or whenever the game loads or changes an area.
    /// The next tick starts a chunk carrying it; the writer thread compresses it (zstd at
    /// [`crate::format::TERRAIN_ZSTD_LEVEL`]) and stores it once, and readers return it with the
    /// world from that tick on ([`crate::Reader::world_at`]), a later offer's section replacing
    /// an earlier one at the same position. A shadow buffer watching the recording keeps the
    /// latest terrain and puts the sections around a reported player into the report.
    ///
    /// Server thread: checks every section ([`crate::format::Section::validate`]; 1.7 ms for
    /// the 1,176 sections of a 7×7-chunk area, release build) and moves them onto the writer's queue, counted against the in-flight budget
    /// like a snapshot. Refuses (nothing queued) invalid sections (`InvalidArgument`), a position
    /// twice, and an offer over `Limits::max_terrain_sections` / `max_terrain_bytes`
    /// (`LimitExceeded`); the writer refuses terrain that would take the positions ever offered
    /// past `max_terrain_sections` (the recording's error, [`Recorder::status`]). Terrain is as
    /// safe as a tick once acknowledged: it is in the chunk the next tick starts, flushed with it.
    pub fn offer_terrain(&self, sections: Vec<crate::format::Section>) -> Result<()> {
        let terrain = crate::format::terrain::check_offer(sections, &Limits::default())?;
        let budget = terrain
            .sections()
            .map(|s| 64 + 4 * s.palette.len() + 8 * s.packed.len())
            .sum::<usize>();
        if !self.engine.budget.reserve_bytes(budget) {
            let ok = match self.shared.backpressure {
                Backpressure::Block { deadline } => self
                    .engine
                    .budget
                    .wait_reserve(budget, crate::threads::deadline_in(deadline)),
                Backpressure::Drop => false,
            };
            if !ok {
                return Err(Error::Backpressure(format!(
                    "terrain of {budget} bytes does not fit in the in-flight budget; nothing was queued"
                )));
            }
        }
        let r = self.send(Msg::Terrain {
            id: self.shared.id,
            terrain: Box::new(terrain),
            budget,
        });
        if r.is_err() {
            self.engine.budget.release_bytes(budget);
        }
        r
    }

    /// Records who an entity is (uuid, name) in the metadata. Refuses (`LimitExceeded`) what
    /// would make the metadata exceed what a reader accepts.
    pub fn register_entity(&self, info: EntityInfo) -> Result<()> {
        self.shared.meta_budget.lock().entity(&info)?;
        self.send(Msg::Entity {
            id: self.shared.id,
            info: Box::new(info),
        })
    }

    /// Registers a custom event type (id, name, schema version) in the metadata. Refuses
    /// (`LimitExceeded`) what would make the metadata exceed what a reader accepts.
    pub fn register_event_type(&self, t: EventType) -> Result<()> {
        self.shared.meta_budget.lock().event_type(&t)?;
        self.send(Msg::EventType {
            id: self.shared.id,
            t: Box::new(t),
        })
    }

    /// Names palette id `id` of `kind` (a block state, an item, a damage cause that world events
    /// name by id) in the metadata: `register_name(PaletteKind::Block, 1, "minecraft:stone")`.
    /// Naming an id again with the same name does nothing; another name for it is refused
    /// (`InvalidArgument`: the events recorded with it would change meaning), as is what would
    /// make the metadata exceed what a reader accepts (`LimitExceeded`).
    pub fn register_name(&self, kind: PaletteKind, id: u32, name: &str) -> Result<()> {
        if !self.shared.meta_budget.lock().name(kind, id, name)? {
            return Ok(());
        }
        self.send(Msg::Name {
            id: self.shared.id,
            name: Box::new((kind, id, name.to_owned())),
        })
    }

    /// Sets one key of the user's metadata compound.
    pub fn set_user_metadata(&self, key: impl Into<String>, value: fastnbt::Value) -> Result<()> {
        let key = key.into();
        if key == crate::format::metadata::LIBRARY_KEY {
            return Err(Error::invalid("the metadata key \"tickreel\" is reserved"));
        }
        self.shared.meta_budget.lock().user(&key, &value)?;
        self.send(Msg::UserMeta {
            id: self.shared.id,
            meta: Box::new((key, value)),
        })
    }

    /// Asks the writer to flush now; returns once the flush is durable.
    pub fn flush(&self) -> Result<()> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.send(Msg::Flush {
            id: self.shared.id,
            ack: tx,
        })?;
        self.wait_ack(&rx)
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
            self.hot.sending.fetch_add(1, Ordering::SeqCst);
        } else {
            self.hot.sending.fetch_sub(1, Ordering::SeqCst);
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

    /// Ends the recording: remaining ticks are written, then the compaction worker produces the
    /// final `.reel` file. Returns its path later: poll the [`Pending`](crate::Pending) from the
    /// server thread (never blocks), or wait on it elsewhere. A stream without a file
    /// ([`crate::Engine::start_stream`]) has nothing to finish: end it with `close`.
    ///
    /// The final file is written under a temporary name, verified, and only then published at the
    /// recording's path. Unless the recording was started with `RecorderOptions::overwrite`, it
    /// never replaces a file there: if another writer of the same path (another process, or
    /// another `Engine`) finished first, or, for a recording that never flushed, if another writer
    /// is recording the path live (its live directory is locked; `overwrite` does not matter
    /// then), the result is `Error::Locked` naming the path and where the recording was kept: a
    /// recording that flushed stays in its live directory `<path>.live` (resume it, or compact it
    /// to another path), one that never flushed is published as `<stem>.conflict-<n>.<ext>` next
    /// to the path (the first free `n`, from 1).
    ///
    /// A recording whose live directory holds a segment of another recording (one a writer of the
    /// same path put there after the directory was removed and created again: FORMAT.md, sections
    /// 2 and 14) is not published: the result is `Error::InvalidState` naming the segment, and the
    /// recording stays in its live directory, the segment untouched. If the engine is shut down
    /// before the file is published, the result says so.
    pub fn finish(&self) -> Result<crate::Pending<std::path::PathBuf>> {
        if !self.shared.persist {
            return Err(Error::InvalidState(
                "a stream without a file has nothing to finish; end it with close".into(),
            ));
        }
        self.transition(FINISHING)?;
        let (handle, finished) = Finishing::new("recording's finish");
        if self
            .send_ending(Msg::Finish {
                id: self.shared.id,
                handle,
            })
            .is_err()
        {
            // Only a stopped engine refuses an ending: nothing can be recorded any more.
            self.hot.state.store(CLOSED, Ordering::Release);
            return Err(Self::engine_gone());
        }
        Ok(finished)
    }

    /// Stops recording without finishing: what was submitted is flushed and the lock released, so
    /// the recording can be resumed later (by `start_recording` on the same path). Returns once
    /// that is done; dropping a `Recorder` does the same without waiting.
    pub fn close(&self) -> Result<()> {
        self.transition(CLOSED)?;
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.send_ending(Msg::Close {
            id: self.shared.id,
            ack: Some(tx),
        })?;
        self.wait_ack(&rx)
    }

    /// Throws the recording away: queued ticks are discarded and its live directory is removed.
    pub fn abort(&self) -> Result<()> {
        self.transition(ABORTED)?;
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.send_ending(Msg::Abort {
            id: self.shared.id,
            ack: tx,
        })?;
        self.wait_ack(&rx)
    }

    /// Ends the recording's open state (`OPEN` to `to`), then waits until no call that found it
    /// open is still sending (a tick taking the queue, another thread's message, counted in
    /// `sending`) or staging (a tick between its claim of the ring and its publication), so that
    /// the ending message the caller sends next comes after all of them: a call that returned
    /// `Ok` has its tick or message before the ending. The wait lasts as long as those sends (a
    /// `Block` policy's deadline at most, when the queue is full): an ending must not be called
    /// from the writer's own callbacks (a snapshot provider) while the queue may be full.
    fn transition(&self, to: u8) -> Result<()> {
        self.hot
            .state
            .compare_exchange(OPEN, to, Ordering::SeqCst, Ordering::Acquire)
            .map_err(|state| match state {
                _ if self.engine.stopping.load(Ordering::Acquire) => Self::engine_gone(),
                RETIRED => self.not_open(),
                _ => Error::InvalidState("the recording was already finished or aborted".into()),
            })?;
        let mut nap = crate::threads::Nap::default();
        while self.hot.sending.load(Ordering::SeqCst) != 0 || self.stage.busy.load(Ordering::SeqCst)
        {
            nap.nap();
        }
        Ok(())
    }
}

/// Another thread's message on its way to the queue, counted in [`Hot::sending`] until it is
/// counted in `queued_msgs` (or refused); lowered when dropped, also by a panic.
struct Sending<'a>(&'a Hot);

impl<'a> Sending<'a> {
    fn raise(hot: &'a Hot) -> Sending<'a> {
        hot.sending.fetch_add(1, Ordering::SeqCst);
        Sending(hot)
    }
}

impl Drop for Sending<'_> {
    fn drop(&mut self) {
        self.0.sending.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        // Dropped while open: flush what was written and release the lock; the recording stays
        // resumable (start_recording on the same path continues it).
        // A retired recording's writer keeps why it was retired until the recorder goes.
        if self.transition(CLOSED).is_ok() || self.hot.state.load(Ordering::Acquire) == RETIRED {
            let _ = self.send_ending(Msg::Close {
                id: self.shared.id,
                ack: None,
            });
        }
    }
}
