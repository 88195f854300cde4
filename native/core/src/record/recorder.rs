//! The `Recorder` handle a game server holds per recording. `submit_tick` is the server-thread hot
//! path: O(1) checks, a copy into a pooled buffer, one push onto a bounded lock-free queue.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{SendTimeoutError, Sender, TrySendError};
use parking_lot::Mutex;

use crate::error::{Error, Result};
use crate::format::metadata::{EntityInfo, EventType, Gap, Metadata};
use crate::format::{Limits, MetadataBudget};
use crate::record::chunker::ChunkPolicy;
use crate::record::compact::CompactOptions;
use crate::record::engine::{Ending, EngineShared, Msg};
use crate::record::finish::FinishHandle;
use crate::record::observer::StreamObserver;
use crate::record::reel_writer::RecordingInfo;

/// What to do when the writer falls behind and the queue or the in-flight byte budget is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backpressure {
    /// Wait up to `deadline` for room; then drop the tick (counted, recorded as a gap) and
    /// return `Error::Backpressure`.
    Block { deadline: Duration },
    /// Drop the tick at once, count it and record the gap; `submit_tick` returns `Submitted::Dropped`.
    Drop,
}

/// When buffered chunks are written to the live directory and made durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlushPolicy {
    /// Flush once this many compressed bytes are waiting (default 256 KiB).
    pub max_pending_bytes: usize,
    /// Flush at least this often while ticks arrive (default 5 s).
    pub interval: Duration,
    /// Flush when a `PlayerLeave` event is recorded or `player_left` is called (default true).
    pub on_player_leave: bool,
}

impl Default for FlushPolicy {
    fn default() -> Self {
        FlushPolicy {
            max_pending_bytes: 256 << 10,
            interval: Duration::from_secs(5),
            on_player_leave: true,
        }
    }
}

/// Called on the writer thread when a snapshot is due, with the tick it will start at.
pub type SnapshotProvider = Arc<dyn Fn(u32) -> Option<Vec<u8>> + Send + Sync>;

/// Options of one recording.
#[derive(Clone)]
pub struct RecorderOptions {
    pub info: RecordingInfo,
    /// Chunking of the live segments (zstd level 3 by default: fast).
    pub chunk: ChunkPolicy,
    pub flush: FlushPolicy,
    pub backpressure: Backpressure,
    /// How `finish` compacts.
    pub compaction: CompactOptions,
    pub snapshot_provider: Option<SnapshotProvider>,
    /// Largest accepted tick batch (default 1 MiB).
    pub max_batch_bytes: usize,
    /// Replace an existing finished file at the path instead of refusing.
    pub overwrite: bool,
    /// Who else sees the stream on its writer thread (e.g. a shadow buffer; see
    /// [`crate::shadow::ShadowBuffer`]).
    pub observers: Vec<Arc<dyn StreamObserver>>,
}

impl RecorderOptions {
    /// Checks what the chunk policy and the recording info do not: the largest tick batch must
    /// hold an empty tick and fit the format's limit for one tick, the flush interval and
    /// threshold must be positive, and the compaction options valid
    /// ([`CompactOptions::validate`]). The bindings check none of it themselves.
    pub fn validate(&self) -> Result<()> {
        if self.flush.interval.is_zero() {
            return Err(Error::invalid("the flush interval must be positive"));
        }
        if self.flush.max_pending_bytes == 0 {
            return Err(Error::invalid(
                "the flush threshold (max_pending_bytes) must be positive",
            ));
        }
        self.compaction.validate()?;
        let max = Limits::default().max_tick_bytes();
        if self.max_batch_bytes < 2 || self.max_batch_bytes > max {
            return Err(Error::invalid(format!(
                "max_batch_bytes {} must be 2..={max}",
                self.max_batch_bytes
            )));
        }
        Ok(())
    }
}

impl Default for RecorderOptions {
    fn default() -> Self {
        RecorderOptions {
            info: RecordingInfo::default(),
            chunk: ChunkPolicy::default(),
            flush: FlushPolicy::default(),
            backpressure: Backpressure::Block {
                deadline: Duration::from_millis(50),
            },
            compaction: CompactOptions::default(),
            snapshot_provider: None,
            max_batch_bytes: 1 << 20,
            overwrite: false,
            observers: Vec::new(),
        }
    }
}

impl std::fmt::Debug for RecorderOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecorderOptions")
            .field("info", &self.info)
            .field("chunk", &self.chunk)
            .field("flush", &self.flush)
            .field("backpressure", &self.backpressure)
            .field("compaction", &self.compaction)
            .field("snapshot_provider", &self.snapshot_provider.is_some())
            .field("max_batch_bytes", &self.max_batch_bytes)
            .field("overwrite", &self.overwrite)
            .field("observers", &self.observers.len())
            .finish()
    }
}

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
    /// Messages waiting in this recording's writer queue (shared with other recordings).
    pub queue_depth: usize,
}

pub(crate) const OPEN: u8 = 0;
pub(crate) const FINISHING: u8 = 1;
pub(crate) const CLOSED: u8 = 2;
pub(crate) const ABORTED: u8 = 3;
/// Retired by the writer after an internal error (a panic in its work): see `status()`.
pub(crate) const RETIRED: u8 = 4;

const NONE: u64 = u64::MAX;

/// State shared between a `Recorder` handle and the writer thread.
#[derive(Debug)]
pub(crate) struct RecShared {
    pub id: u64,
    pub path: PathBuf,
    /// Written to a live directory and a compacted file (`false`: a stream only its observers see).
    pub persist: bool,
    pub state: AtomicU8,
    pub last_submitted: AtomicU64,
    pub submitted: AtomicU64,
    /// Messages other than ticks (metadata, snapshots, flushes) accepted onto the queue.
    pub other_sent: AtomicU64,
    pub dropped: AtomicU64,
    pub rejected: AtomicU64,
    pub bytes_written: AtomicU64,
    pub flushes: AtomicU64,
    pub last_flush_us: AtomicU64,
    pub flushed_tick: AtomicU64,
    pub error: Mutex<Option<String>>,
    pub gaps: Mutex<Vec<Gap>>,
    pub backpressure: Backpressure,
    pub max_batch: usize,
    /// What the metadata may still take (checked at the call, on the server thread).
    pub meta_budget: Mutex<MetadataBudget>,
}

impl RecShared {
    pub(crate) fn new(
        id: u64,
        path: PathBuf,
        persist: bool,
        opts: &RecorderOptions,
        last_tick: Option<u32>,
        metadata: Option<&Metadata>,
    ) -> RecShared {
        let limits = Limits::default();
        RecShared {
            id,
            path,
            persist,
            state: AtomicU8::new(OPEN),
            last_submitted: AtomicU64::new(last_tick.map_or(NONE, u64::from)),
            submitted: AtomicU64::new(0),
            other_sent: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            bytes_written: AtomicU64::new(0),
            flushes: AtomicU64::new(0),
            last_flush_us: AtomicU64::new(0),
            flushed_tick: AtomicU64::new(last_tick.map_or(NONE, u64::from)),
            error: Mutex::new(None),
            gaps: Mutex::new(Vec::new()),
            backpressure: opts.backpressure,
            max_batch: opts.max_batch_bytes,
            meta_budget: Mutex::new(match metadata {
                Some(m) => MetadataBudget::of(m, &limits),
                None => MetadataBudget::new(&limits),
            }),
        }
    }

    /// Messages of this recording accepted onto the writer's queue so far (an ending message that
    /// takes the control channel waits for this many; see [`Ending`]).
    pub(crate) fn queued(&self) -> u64 {
        self.submitted.load(Ordering::Relaxed) + self.other_sent.load(Ordering::Relaxed)
    }

    pub(crate) fn set_error(&self, msg: String) {
        *self.error.lock() = Some(msg);
    }

    pub(crate) fn record_drop(&self, tick: u32) {
        self.dropped.fetch_add(1, Ordering::Relaxed);
        let mut g = self.gaps.lock();
        match g.last_mut() {
            Some(gap) if gap.to.checked_add(1) == Some(tick) => gap.to = tick,
            _ => g.push(Gap {
                from: tick,
                to: tick,
            }),
        }
    }
}

/// One recording being written. Cheap to share between threads (`&self` methods); ticks of one
/// recording must be submitted in increasing order (from one thread at a time).
///
/// No call waits for room in a full writer queue past the recording's backpressure policy. Like
/// `submit_tick`, the metadata calls (`player_left`, `offer_snapshot`, `register_*`,
/// `set_user_metadata`) and `flush` then fail with `Error::Backpressure` and queue nothing. Ending
/// a recording (`finish`, `close`, `abort`, or dropping the `Recorder`) never waits for room at all
/// and is never lost: it takes effect after every message queued before it. `finish` and dropping
/// return at once; `close`, `abort` and `flush` return when the writer has done their work.
#[derive(Debug)]
pub struct Recorder {
    pub(crate) shared: Arc<RecShared>,
    pub(crate) engine: Arc<EngineShared>,
    pub(crate) tx: Sender<Msg>,
    pub(crate) control: Sender<Ending>,
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
    /// only what is O(1), copies into a pooled buffer and pushes onto the writer's queue; never I/O.
    pub fn submit_tick(&self, tick: u32, batch: &[u8]) -> Result<Submitted> {
        let sh = &*self.shared;
        if sh.state.load(Ordering::Acquire) != OPEN {
            return Err(self.not_open());
        }
        if batch.len() < 2 {
            return Err(Error::invalid(
                "a tick batch needs at least its 2-byte event count",
            ));
        }
        if batch.len() > sh.max_batch {
            return Err(Error::invalid(format!(
                "tick batch of {} bytes exceeds the limit of {}",
                batch.len(),
                sh.max_batch
            )));
        }
        let last = sh.last_submitted.load(Ordering::Relaxed);
        if last != NONE && u64::from(tick) <= last {
            return Err(Error::invalid(format!(
                "tick {tick} is not after the last submitted tick {last}"
            )));
        }
        sh.last_submitted.store(u64::from(tick), Ordering::Relaxed);
        let len = batch.len();
        // Fast path: room in the byte budget and the queue. The clock is read only when waiting.
        let mut deadline_at: Option<Instant> = None;
        let deadline = |at: &mut Option<Instant>| match sh.backpressure {
            Backpressure::Block { deadline } => {
                Some(*at.get_or_insert_with(|| Instant::now() + deadline))
            }
            Backpressure::Drop => None,
        };
        // The budget counts the buffer's capacity: what the queued tick really holds.
        let mut buf = self.engine.pool.take(len);
        let cap = buf.capacity();
        if !self.engine.reserve_bytes(cap) {
            let ok = match deadline(&mut deadline_at) {
                Some(at) => self.engine.wait_reserve(cap, at),
                None => false,
            };
            if !ok {
                self.engine.pool.give(buf);
                return self.dropped(tick);
            }
        }
        buf.extend_from_slice(batch);
        let msg = Msg::Tick {
            id: sh.id,
            tick,
            buf,
        };
        let sent = match self.tx.try_send(msg) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(m)) => match deadline(&mut deadline_at) {
                Some(at) => match self
                    .tx
                    .send_timeout(m, at.saturating_duration_since(Instant::now()))
                {
                    Ok(()) => Ok(()),
                    Err(SendTimeoutError::Timeout(m)) => Err(Some(m)),
                    Err(SendTimeoutError::Disconnected(_)) => Err(None),
                },
                None => Err(Some(m)),
            },
            Err(TrySendError::Disconnected(_)) => Err(None),
        };
        match sent {
            Ok(()) => {
                // One submitter per recording at a time (documented), so no read-modify-write needed.
                let n = sh.submitted.load(Ordering::Relaxed);
                sh.submitted.store(n + 1, Ordering::Relaxed);
                Ok(Submitted::Queued)
            }
            Err(returned) => {
                self.engine.release_bytes(cap);
                match returned {
                    Some(Msg::Tick { buf, .. }) => {
                        self.engine.pool.give(buf);
                        self.dropped(tick)
                    }
                    _ => Err(Error::InvalidState("the engine has shut down".into())),
                }
            }
        }
    }

    fn dropped(&self, tick: u32) -> Result<Submitted> {
        self.shared.record_drop(tick);
        self.engine.dropped_total.fetch_add(1, Ordering::Relaxed);
        match self.shared.backpressure {
            Backpressure::Drop => Ok(Submitted::Dropped),
            Backpressure::Block { deadline } => Err(Error::Backpressure(format!(
                "tick {tick} dropped: the writer had no room for {deadline:?}"
            ))),
        }
    }

    /// The error of a call on a recording that is no longer open.
    fn not_open(&self) -> Error {
        if self.shared.state.load(Ordering::Acquire) == RETIRED
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
    fn wait_ack(&self, rx: &crossbeam_channel::Receiver<Result<()>>) -> Result<()> {
        loop {
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(r) => return r,
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                    return Err(Self::engine_gone());
                }
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                    if self.engine.threads_done.load(Ordering::Acquire) {
                        return rx.try_recv().unwrap_or_else(|_| Err(Self::engine_gone()));
                    }
                }
            }
        }
    }

    fn send(&self, msg: Msg) -> Result<()> {
        if self.shared.state.load(Ordering::Acquire) != OPEN {
            return Err(self.not_open());
        }
        if self.engine.stopping.load(Ordering::Acquire) {
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
                Backpressure::Block { deadline } => match self.tx.send_timeout(msg, deadline) {
                    Ok(()) => Ok(()),
                    Err(SendTimeoutError::Timeout(m)) => Err(full(m)),
                    Err(SendTimeoutError::Disconnected(_)) => Err(gone()),
                },
            },
        };
        if sent.is_ok() {
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
        match self.tx.try_send(msg) {
            Ok(()) => Ok(()),
            Err(TrySendError::Disconnected(_)) => Err(gone()),
            Err(TrySendError::Full(msg)) => self
                .control
                .send(Ending {
                    id: self.shared.id,
                    after: self.shared.queued(),
                    msg,
                })
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
        if !self.engine.reserve_bytes(cap) {
            let ok = match self.shared.backpressure {
                Backpressure::Block { deadline } => {
                    self.engine.wait_reserve(cap, Instant::now() + deadline)
                }
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
            self.engine.release_bytes(cap);
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

    /// Counters of this recording.
    pub fn stats(&self) -> RecorderStats {
        let sh = &*self.shared;
        let flushed = sh.flushed_tick.load(Ordering::Relaxed);
        RecorderStats {
            submitted_ticks: sh.submitted.load(Ordering::Relaxed),
            dropped_ticks: sh.dropped.load(Ordering::Relaxed),
            rejected_ticks: sh.rejected.load(Ordering::Relaxed),
            bytes_written: sh.bytes_written.load(Ordering::Relaxed),
            flushes: sh.flushes.load(Ordering::Relaxed),
            last_flush_latency_us: sh.last_flush_us.load(Ordering::Relaxed),
            flushed_tick: (flushed != NONE).then_some(flushed as u32),
            queue_depth: self.tx.len(),
        }
    }

    /// The last error the writer reported for this recording, if any.
    pub fn status(&self) -> Result<()> {
        match &*self.shared.error.lock() {
            Some(m) => Err(Error::InvalidState(format!("writer error: {m}"))),
            None => Ok(()),
        }
    }

    /// Ends the recording: remaining ticks are written, then the compaction worker produces the
    /// final `.reel` file. Returns a handle to poll or wait on. A stream without a file
    /// ([`crate::Engine::start_stream`]) has nothing to finish: end it with `close`.
    pub fn finish(&self) -> Result<FinishHandle> {
        if !self.shared.persist {
            return Err(Error::InvalidState(
                "a stream without a file has nothing to finish; end it with close".into(),
            ));
        }
        self.transition(FINISHING)?;
        let handle = FinishHandle::new(self.engine.threads_done.clone());
        if self
            .send_ending(Msg::Finish {
                id: self.shared.id,
                handle: handle.clone(),
            })
            .is_err()
        {
            self.shared.state.store(OPEN, Ordering::Release);
            return Err(Error::InvalidState("the engine has shut down".into()));
        }
        Ok(handle)
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

    fn transition(&self, to: u8) -> Result<()> {
        self.shared
            .state
            .compare_exchange(OPEN, to, Ordering::AcqRel, Ordering::Acquire)
            .map(|_| ())
            .map_err(|state| match state {
                RETIRED => self.not_open(),
                _ => Error::InvalidState("the recording was already finished or aborted".into()),
            })
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        // Dropped while open: flush what was written and release the lock; the recording stays
        // resumable (start_recording on the same path continues it).
        // A retired recording's writer keeps why it was retired until the recorder goes.
        if self.transition(CLOSED).is_ok() || self.shared.state.load(Ordering::Acquire) == RETIRED {
            let _ = self.send_ending(Msg::Close {
                id: self.shared.id,
                ack: None,
            });
        }
    }
}
