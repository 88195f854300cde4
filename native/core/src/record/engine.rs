//! The runtime shared by every recording of a server: writer thread(s) and one compaction worker.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::sync::{Mutex, RwLock};
use crossbeam_channel::{Receiver, Sender, TrySendError, bounded, unbounded};

use crate::error::{Error, Result, between, option};
use crate::record::recorder::{Backpressure, OnExisting, Recorder, RecorderOptions};
use crate::record::shared::budget::Budget;
use crate::record::shared::counters::Counters;
use crate::record::shared::engine_shared::EngineShared;
use crate::record::shared::held::HeldMemory;
use crate::record::shared::hot_slots::HotSlots;
use crate::record::shared::hot_slots::{NONE, OPEN};
use crate::record::shared::pool::BufferPool;
use crate::record::shared::rec_shared::RecShared;
use crate::record::worker::background::Background;
use crate::record::worker::compaction_worker::{CompactJob, compaction_loop};
use crate::record::writer::open_recording::OpenRecording;
use crate::record::writer::resume::PendingResume;
use crate::record::writer::sync_round::SyncThread;
use crate::record::writer::writer_thread::{Ending, Msg, writer_loop};
use crate::storage::live::{LiveDir, live_dir_for};
use crate::storage::{LocalStorage, Storage, SyncCounted};

/// Options of the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineOptions {
    /// Writer threads; recordings are spread over them (default 1).
    pub writer_threads: usize,
    /// Tick messages that may wait in each writer's queue (default 65,536). The queue's slots are
    /// allocated with it, 64 bytes each; a tick of up to 38 bytes (a one-player tick) travels
    /// inside its slot and holds nothing else.
    pub queue_capacity: usize,
    /// Bytes of submitted ticks (those too large for a queue slot) and snapshots that may be in
    /// flight, engine-wide (default 64 MiB): the capacity of the buffers holding them (at least
    /// 512 bytes a tick), so a queue of small ticks counts what it really takes. Besides it, the
    /// recordings' staging rings (a few ticks each, made at a recording's first tick too large
    /// for a queue slot, where a server thread stages its ticks) take at most a quarter of it in
    /// all; past that, recordings queue every tick.
    pub max_inflight_bytes: usize,
    /// Bytes the engine's shadow buffers may hold in all (default 256 MiB); past it, the oldest
    /// blocks of any buffer go first (see [`crate::shadow`]).
    pub shadow_budget_bytes: usize,
    /// Reusable tick buffers kept in the pool (default 4,096), holding at most a quarter of
    /// `max_inflight_bytes`. Queue, in-flight bytes and pool together bound the memory between
    /// the server threads and the writers.
    pub pool_buffers: usize,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            writer_threads: 1,
            queue_capacity: 65_536,
            max_inflight_bytes: 64 << 20,
            shadow_budget_bytes: 256 << 20,
            pool_buffers: 4096,
        }
    }
}

/// Most writer threads an engine may have.
pub const MAX_WRITER_THREADS: usize = 64;

impl EngineOptions {
    /// Checks the options every language gives `Engine::new`: 1 to [`MAX_WRITER_THREADS`]
    /// writer threads, a queue, and a positive shadow budget.
    pub fn validate(&self) -> Result<()> {
        if self.writer_threads == 0 || self.writer_threads > MAX_WRITER_THREADS {
            return Err(Error::invalid(format!(
                "{} must be {} (got {})",
                option("writer_threads"),
                between(1, MAX_WRITER_THREADS),
                self.writer_threads
            )));
        }
        if self.queue_capacity == 0 {
            return Err(Error::invalid(format!(
                "{} must be positive",
                option("queue_capacity")
            )));
        }
        if self.shadow_budget_bytes == 0 {
            return Err(Error::invalid(format!(
                "{} must be positive (it bounds what shadow buffers keep)",
                option("shadow_budget_bytes")
            )));
        }
        Ok(())
    }
}

/// Engine-wide counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EngineStats {
    pub active_recordings: usize,
    /// Messages waiting in the writers' queues, and ticks staged in the recordings' rings.
    pub queue_depth: usize,
    /// Bytes of submitted ticks and snapshots not written yet (what the budget counts, less what
    /// the writers have written and hold back to give back in a batch).
    pub inflight_bytes: usize,
    pub dropped_ticks: u64,
    pub bytes_written: u64,
    pub last_flush_latency_us: u64,
    pub compactions_pending: u64,
    pub compactions_done: u64,
    pub compactions_failed: u64,
    /// Time the writer threads spent waiting for work since the engine started, in all (updated
    /// every 20 ms or so). Against the time passed, it tells how busy the writers are.
    pub writer_idle_us: u64,
    /// Heap bytes the shadow buffers hold in all, against `EngineOptions::shadow_budget_bytes`.
    pub shadow_bytes: usize,
    /// Blocks the shadow buffers gave up for that budget.
    pub shadow_budget_dropped_blocks: u64,
    /// Syncs (`fsync`, `fdatasync`, `syncfs`) the engine's recordings made since it started:
    /// flushes, compaction, publication, recovery.
    pub syncs: u64,
}

#[derive(Debug)]
struct EngineInner {
    shared: Arc<EngineShared>,
    writers: Vec<Sender<Msg>>,
    /// Each writer's control channel (see [`Ending`]), by the same index as `writers`.
    controls: Vec<Sender<Ending>>,
    compact_tx: Sender<CompactJob>,
    threads: Mutex<Vec<crate::threads::Handle>>,
    next_id: AtomicU64,
    /// Written for the whole of a shutdown, read while a recording is being opened (so that no
    /// recording opens behind the shutdown, and openings do not wait for each other); `true` once
    /// stopped.
    stopped: RwLock<bool>,
}

impl Drop for EngineInner {
    fn drop(&mut self) {
        self.stop();
    }
}

impl EngineInner {
    fn stop(&self) {
        // SeqCst: a tick or message taking the queue raises its recording's `sending`, then checks
        // `stopping`; this sets `stopping`, then waits for every `sending` to drop (below), so
        // what a call sent with `Ok` is on the queue before the writers' `Shutdown`.
        self.shared.stopping.store(true, Ordering::SeqCst);
        // A second caller waits until the first has joined every thread.
        let mut stopped = self.stopped.write();
        if *stopped {
            return;
        }
        *stopped = true;
        #[cfg(feature = "test-hooks")]
        self.shared.stall.set(false);
        // The writers still run: a call waiting for room in the queue gets it, or its deadline.
        self.shared.hot_slots.wait_until_none_sending();
        for w in &self.writers {
            // Waits for room without parking in crossbeam (see `crate::threads`).
            let far = Instant::now() + Duration::from_secs(365 * 24 * 3600);
            let _ = crate::threads::send_until(w, Msg::Shutdown, far);
        }
        // The writers first, then the compactor (started last, so last in the list).
        let mut writers: Vec<_> = self.threads.lock().drain(..).collect();
        let compactor = writers.pop();
        for t in writers {
            t.join();
        }
        let _ = crate::threads::send(&self.compact_tx, CompactJob::Shutdown);
        if let Some(t) = compactor {
            t.join();
        }
        self.shared.threads_done.store(true, Ordering::Release);
    }
}

/// The recording runtime. Clone it freely; its threads stop on `shutdown` or when the last clone is
/// dropped (recorders still held then return `InvalidState`; what they had queued is flushed).
#[derive(Debug, Clone)]
pub struct Engine {
    inner: Arc<EngineInner>,
}

impl Engine {
    pub fn new(options: EngineOptions) -> Result<Engine> {
        Engine::with_storage(options, LocalStorage::shared())
    }

    /// An engine whose recordings are written on `storage` (live directories, compaction,
    /// publication) instead of the local file system.
    pub fn with_storage(options: EngineOptions, storage: Arc<dyn Storage>) -> Result<Engine> {
        options.validate()?;
        let counted = Arc::new(SyncCounted::new(storage));
        let shared = Arc::new(EngineShared {
            storage: counted.clone(),
            counted,
            hot_slots: HotSlots::default(),
            pool: BufferPool::new(options.pool_buffers, options.max_inflight_bytes / 4),
            budget: Budget::new(options.max_inflight_bytes),
            stagings: Mutex::new(Vec::new()),
            #[cfg(feature = "test-hooks")]
            stall: crate::record::shared::stall::WriterStall::new(),
            counters: Counters::default(),
            stopping: std::sync::atomic::AtomicBool::new(false),
            threads_done: Arc::new(std::sync::atomic::AtomicBool::new(false)),
            open_paths: Mutex::new(HashSet::new()),
            held: Arc::new(HeldMemory::new(options.shadow_budget_bytes)),
        });
        let (compact_tx, compact_rx): (Sender<CompactJob>, Receiver<CompactJob>) = unbounded();
        let mut threads = Vec::new();
        let mut writers = Vec::new();
        let mut controls = Vec::new();
        for i in 0..options.writer_threads {
            let (tx, rx) = bounded(options.queue_capacity);
            let (ctl_tx, ctl_rx) = unbounded();
            let sh = shared.clone();
            let ctx = compact_tx.clone();
            // Started here, so that every thread of the engine runs once `new` returns.
            let sync = SyncThread::spawn(format!("tickreel-sync-{i}"), shared.storage.clone());
            threads.push(crate::threads::spawn(
                format!("tickreel-writer-{i}"),
                move || writer_loop(rx, ctl_rx, sh, ctx, sync),
            )?);
            writers.push(tx);
            controls.push(ctl_tx);
        }
        let sh = shared.clone();
        threads.push(crate::threads::spawn("tickreel-compactor", move || {
            compaction_loop(compact_rx, sh)
        })?);
        Ok(Engine {
            inner: Arc::new(EngineInner {
                shared,
                writers,
                controls,
                compact_tx,
                threads: Mutex::new(threads),
                next_id: AtomicU64::new(1),
                stopped: RwLock::new(false),
            }),
        })
    }

    /// Starts (or, if its live directory exists, resumes, sets aside or refuses, as
    /// [`RecorderOptions::on_existing`] chose) the recording whose final file is `path`.
    /// Resuming returns at once: the directory is recovered on a thread of its own while ticks
    /// and calls queue up (under the backpressure policy); ticks at or before the recording's
    /// last tick are refused once it is known. [`Recorder::wait_resumed`] tells where it ends.
    /// The path must name a file in an existing directory that takes new files (checked here, on
    /// the calling thread: a few `stat` calls and one temporary file created and removed), so
    /// that no run is lost at `finish` for a bad path. A fresh recording costs no file until its
    /// first flush; a run finished before that goes straight to the compacted file.
    pub fn start_recording(
        &self,
        path: impl AsRef<Path>,
        options: RecorderOptions,
    ) -> Result<Recorder> {
        let path = path.as_ref().to_path_buf();
        let inner = &self.inner;
        // No recording may be opened while (or after) the engine shuts down.
        let gone = || Error::InvalidState("the engine has shut down".into());
        if inner.shared.stopping.load(Ordering::Acquire) {
            return Err(gone());
        }
        let stopped = inner.stopped.read();
        if *stopped {
            return Err(gone());
        }
        if !inner.shared.open_paths.lock().insert(path.clone()) {
            return Err(Error::Locked(format!(
                "{} is already being recorded in this process",
                path.display()
            )));
        }
        let result = self.start_inner(&path, options);
        if result.is_err() {
            inner.shared.open_paths.lock().remove(&path);
        }
        drop(stopped);
        result
    }

    /// Starts a stream that is written nowhere: only its observers (e.g. a shadow buffer) see its
    /// ticks. The same [`Recorder`] as a recording, submitted to the same way; `flush` only hands
    /// the open chunk to the observers, `finish` is refused, `close` or `abort` end it.
    pub fn start_stream(&self, options: RecorderOptions) -> Result<Recorder> {
        let inner = &self.inner;
        let gone = || Error::InvalidState("the engine has shut down".into());
        if inner.shared.stopping.load(Ordering::Acquire) {
            return Err(gone());
        }
        let stopped = inner.stopped.read();
        if *stopped {
            return Err(gone());
        }
        let result = self.open(None, options);
        drop(stopped);
        result
    }

    fn start_inner(&self, path: &Path, options: RecorderOptions) -> Result<Recorder> {
        self.open(Some(path), options)
    }

    /// Opens a recording of `path`, or a stream without a file (`None`).
    fn open(&self, path: Option<&Path>, options: RecorderOptions) -> Result<Recorder> {
        let inner = &self.inner;
        options.identity.validate()?;
        options.chunk_policy.validate()?;
        options.validate()?;
        if let Some(p) = path {
            let storage = inner.shared.storage.as_ref();
            let resuming = p.file_name().is_some()
                && storage
                    .stat(&live_dir_for(p))
                    .ok()
                    .flatten()
                    .is_some_and(|s| s.kind == crate::storage::EntryKind::Dir);
            crate::record::file::publish::check_recording_path(storage, p, resuming)?;
        }
        let id = inner.next_id.fetch_add(1, Ordering::Relaxed);
        let Some(path) = path else {
            let name = PathBuf::from(format!("<stream {id}>"));
            let hot = inner.shared.hot_slots.take(OPEN, NONE);
            let shared = Arc::new(RecShared::new(hot, id, name, false, &options, None, None));
            let rec = OpenRecording::new(shared.clone(), inner.shared.clone(), options, None)?;
            return self.hand_to_writer(id, rec, shared);
        };
        let storage = &inner.shared.storage;
        let live = LiveDir::new(storage.clone(), live_dir_for(path));
        if live.dir_exists()? && !live.exists() && storage.stat(path)?.is_some() {
            // The remnant of a removal cut short by a crash: the metadata file goes first, and
            // only once the recording is published at `path`. Nothing in it is needed.
            let lock = live.lock()?;
            // The published file names the recording the remnant's segments belong to.
            let published = storage
                .open(path)?
                .read_up_to(0, crate::format::header::HEADER_LEN)?;
            let published = crate::format::header::Header::decode(&published)?;
            live.remove(lock, &published.recording_id)?;
        }
        // Resuming: the lock is taken here (a directory another writer holds is refused at once),
        // the recovery runs on a thread of its own (it reads every segment).
        // A live directory left by a stopped or crashed server: resumed, set aside or refused as
        // `on_existing` chose. A finished file in the way is refused before
        // anything is set aside.
        let mut resume = live.dir_exists()?;
        if resume && options.on_existing != OnExisting::Resume {
            if !options.overwrite && storage.stat(path)?.is_some() {
                return Err(Error::exists_at(
                    path,
                    &format!(
                        " (a finished recording); set {} to replace it",
                        crate::error::option("overwrite")
                    ),
                ));
            }
            resume = crate::record::writer::restart::on_existing(&live, path, options.on_existing)?;
        }
        let pending = if resume {
            let lock = live.lock()?;
            Some(PendingResume::start(live.clone(), lock)?)
        } else {
            if !options.overwrite && storage.stat(path)?.is_some() {
                return Err(Error::exists_at(
                    path,
                    &format!(
                        " (a finished recording); set {} to replace it",
                        crate::error::option("overwrite")
                    ),
                ));
            }
            None
        };
        let shared = Arc::new(RecShared::new(
            inner.shared.hot_slots.take(OPEN, NONE),
            id,
            path.to_path_buf(),
            true,
            &options,
            None,
            None,
        ));
        let engine = inner.shared.clone();
        let rec = match pending {
            Some(p) => {
                shared.resume_pending();
                OpenRecording::new_resuming(shared.clone(), engine, options, p)?
            }
            None => OpenRecording::new(shared.clone(), engine, options, None)?,
        };
        self.hand_to_writer(id, rec, shared)
    }

    /// Queues an opened recording to its writer thread and returns its handle.
    fn hand_to_writer(
        &self,
        id: u64,
        rec: OpenRecording,
        shared: Arc<RecShared>,
    ) -> Result<Recorder> {
        let inner = &self.inner;
        let w = (id as usize) % inner.writers.len();
        let tx = inner.writers[w].clone();
        // Like every call a server thread makes, opening waits for queue room no longer than the
        // recording's backpressure policy allows.
        let msg = Msg::Open {
            id,
            rec: Box::new(rec),
        };
        let gone = || Error::InvalidState("the engine has shut down".into());
        let full = || {
            Error::Backpressure("the writer's queue is full; the recording was not started".into())
        };
        match tx.try_send(msg) {
            Ok(()) => {}
            Err(TrySendError::Disconnected(_)) => return Err(gone()),
            Err(TrySendError::Full(msg)) => match shared.backpressure {
                Backpressure::Drop => return Err(full()),
                Backpressure::Block { deadline } => {
                    match crate::threads::send_until(
                        &tx,
                        msg,
                        crate::threads::deadline_in(deadline),
                    ) {
                        Ok(()) => {}
                        Err(Some(_)) => return Err(full()),
                        Err(None) => return Err(gone()),
                    }
                }
            },
        }
        inner.shared.counters.active.fetch_add(1, Ordering::Relaxed);
        Ok(Recorder {
            hot: shared.hot.view(),
            id: shared.id,
            max_batch: shared.max_batch,
            backpressure: shared.backpressure,
            shared,
            engine: inner.shared.clone(),
            tx,
            control: inner.controls[w].clone(),
            stage: Default::default(),
        })
    }

    /// What the writer threads need to run background work and share the held-memory budget.
    pub(crate) fn background(&self) -> Background {
        Background {
            engine: self.inner.shared.clone(),
            tx: self.inner.compact_tx.clone(),
        }
    }

    /// The engine-wide budget of memory held by observers.
    pub(crate) fn held_memory(&self) -> &Arc<HeldMemory> {
        &self.inner.shared.held
    }

    /// Engine-wide counters.
    pub fn stats(&self) -> EngineStats {
        let s = &self.inner.shared;
        EngineStats {
            active_recordings: s.counters.active.load(Ordering::Relaxed),
            queue_depth: self.inner.writers.iter().map(Sender::len).sum::<usize>()
                + s.stagings
                    .lock()
                    .iter()
                    .filter_map(std::sync::Weak::upgrade)
                    .map(|r| r.pending() as usize)
                    .sum::<usize>(),
            inflight_bytes: s.budget.inflight_not_written(),
            dropped_ticks: s.counters.dropped_total.load(Ordering::Relaxed),
            bytes_written: s.counters.bytes_written.load(Ordering::Relaxed),
            last_flush_latency_us: s.counters.last_flush_us.load(Ordering::Relaxed),
            compactions_pending: s.counters.compactions_pending.load(Ordering::Relaxed),
            compactions_done: s.counters.compactions_done.load(Ordering::Relaxed),
            compactions_failed: s.counters.compactions_failed.load(Ordering::Relaxed),
            writer_idle_us: s.counters.writer_idle_ns.load(Ordering::Relaxed) / 1000,
            shadow_bytes: s.held.used(),
            shadow_budget_dropped_blocks: s.held.evicted_blocks(),
            syncs: s.counted.syncs(),
        }
    }

    /// Flushes open recordings and stops the threads after pending compactions complete; returns
    /// once every thread has been joined (also when called from several threads at once). Recorders
    /// still held afterwards return `InvalidState`.
    pub fn shutdown(&self) {
        self.inner.stop();
    }

    /// Test hook (feature `test-hooks`): holds every writer thread before its next message while
    /// `stalled` is true, so that tests and benchmarks can fill the queue or time the server
    /// thread's cost alone.
    #[cfg(feature = "test-hooks")]
    pub fn set_writers_stalled(&self, stalled: bool) {
        self.inner.shared.stall.set(stalled);
    }

    /// Test hook (feature `test-hooks`): whether every writer thread is held by
    /// [`Engine::set_writers_stalled`] now, taking no message. A writer is held at its next
    /// message, or within a second when it has no recording open.
    #[cfg(feature = "test-hooks")]
    pub fn writers_held(&self) -> bool {
        self.inner.shared.stall.held() >= self.inner.writers.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every binding's engine options are checked here (the bindings only translate).
    #[test]
    fn engine_and_compaction_options_are_validated_by_the_core() {
        assert!(EngineOptions::default().validate().is_ok());
        let bad = |o: EngineOptions| match Engine::new(o) {
            Err(e @ Error::InvalidArgument(_)) => e.to_string(),
            other => panic!("{:?}", other.map(|_| ())),
        };
        let threads = |n| EngineOptions {
            writer_threads: n,
            ..EngineOptions::default()
        };
        assert!(bad(threads(0)).contains("`writer_threads` must be between 1 and 64 (got 0)"));
        assert!(bad(threads(MAX_WRITER_THREADS + 1)).contains("(got 65)"));
        assert!(threads(MAX_WRITER_THREADS).validate().is_ok());
        bad(EngineOptions {
            queue_capacity: 0,
            ..EngineOptions::default()
        });
        bad(EngineOptions {
            shadow_budget_bytes: 0,
            ..EngineOptions::default()
        });
        let compact = crate::record::CompactOptions::default();
        assert!(compact.validate().is_ok());
        for c in [
            crate::record::CompactOptions {
                zstd_level: 99,
                ..compact
            },
            crate::record::CompactOptions {
                chunk_ticks: 0,
                ..compact
            },
        ] {
            assert!(c.validate().is_err(), "{c:?}");
            let r = RecorderOptions {
                compaction: c,
                ..RecorderOptions::default()
            };
            assert!(matches!(r.validate(), Err(Error::InvalidArgument(_))));
        }
        let r = RecorderOptions {
            flush: crate::record::FlushPolicy {
                max_pending_bytes: 0,
                ..crate::record::FlushPolicy::default()
            },
            ..RecorderOptions::default()
        };
        assert!(r.validate().is_err());
    }

    /// Every queued tick occupies one `Msg` slot: rare large messages must stay boxed. A tick
    /// carries up to `tick_bytes::INLINE` bytes inline, which makes a slot 56 bytes.
    #[test]
    fn queue_messages_stay_small() {
        assert!(
            std::mem::size_of::<Msg>() <= 56,
            "Msg is {} bytes",
            std::mem::size_of::<Msg>()
        );
    }
}
