//! The writer thread (decodes tick batches, chunks, compresses, appends frames to segments, flushes
//! by size/time/player leave, rewrites the metadata file atomically) and the compaction worker.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TryRecvError};

use crate::error::{Error, Result};
use crate::format::Limits;
use crate::format::event::{Event, decode_batch_into};
use crate::format::frame::FRAME_HEADER_LEN;
use crate::format::header::Header;
use crate::format::index::{IndexEntry, snapshot_at_or_before};
use crate::format::metadata::Metadata;
use crate::format::state::EntityTable;
use crate::play::Reader;
use crate::play::reader::FrameSource;
use crate::record::chunker::{Chunker, Frame};
use crate::record::compact::{
    CompactOptions, compact_unpublished, publish_from_live, publish_from_memory,
};
use crate::record::engine::{Ending, EngineShared, Msg};
use crate::record::finish::FinishHandle;
use crate::record::recorder::{RETIRED, RecShared, RecorderOptions};
use crate::record::recover::recover_locked;
use crate::storage::live::{
    MAX_SEGMENT_BYTES, SegmentWriter, WriterLock, encode_meta_file, live_dir_for, write_meta_file,
};

/// Longest nap of an idle writer thread (its wake-up latency when work arrives after a pause).
const IDLE_NAP: Duration = Duration::from_millis(5);

/// How often the writer checks time-based flushes.
const CHECK_INTERVAL: Duration = Duration::from_millis(20);

/// How long a flush on player leave waits: a recording finished within this time (a one-player
/// run ends with its player leaving) goes straight to its compacted file instead of first creating
/// a live directory. The leave is durable at most this plus one check interval later.
const LEAVE_FLUSH_GRACE: Duration = Duration::from_millis(20);

/// First wait before retrying a failed flush; doubled after each failure up to [`RETRY_MAX`].
const RETRY_FIRST: Duration = Duration::from_millis(50);
const RETRY_MAX: Duration = Duration::from_secs(5);

/// Compressed bytes a recording holds while its flushes fail, in multiples of its flush size (at
/// least [`MIN_UNFLUSHED_CAP`]); ticks beyond are dropped and recorded as a gap.
const UNFLUSHED_CAP_FLUSHES: usize = 4;
const MIN_UNFLUSHED_CAP: usize = 1 << 20;

/// What a resumed recording starts from.
#[derive(Debug)]
pub(crate) struct Resumed {
    lock: WriterLock,
    header: Header,
    metadata: Metadata,
    index: Vec<IndexEntry>,
    next_segment: u32,
    table: EntityTable,
    last_tick: Option<u32>,
    last_snapshot: Option<u32>,
}

impl Resumed {
    pub(crate) fn last_tick(&self) -> Option<u32> {
        self.last_tick
    }
}

/// One recording's state on its writer thread.
pub(crate) struct RecWriter {
    shared: Arc<RecShared>,
    engine: Arc<EngineShared>,
    opts: RecorderOptions,
    live_dir: PathBuf,
    chunker: Chunker,
    pending: Vec<Frame>,
    pending_bytes: usize,
    index: Vec<IndexEntry>,
    segment: Option<SegmentWriter>,
    next_segment: u32,
    lock: Option<WriterLock>,
    header: Header,
    metadata: Metadata,
    events: Vec<Event>,
    last_flush: Instant,
    /// Ticks were added since the last flush.
    dirty: bool,
    /// Metadata (entities, event types, user keys) changed since the metadata file was written.
    meta_dirty: bool,
    /// Dropped ticks (the recorder's count) when the metadata file was last written: more since
    /// means new gaps to write.
    dropped_written: u64,
    flush_requested: bool,
    /// A player left at this time: flush once [`LEAVE_FLUSH_GRACE`] has passed.
    leave_flush_at: Option<Instant>,
    /// After a failed flush: the next attempt waits until then, and the wait doubles.
    retry_at: Option<Instant>,
    retry_wait: Duration,
    /// Messages of this recording taken off the queue (see [`Ending`]).
    received: u64,
    /// The live directory's entry in its parent is durable (it was created and synced, or found).
    dir_synced: bool,
}

impl RecWriter {
    /// Recovers an unfinished recording's directory (crash or clean stop) to continue it.
    pub(crate) fn resume(dir: &Path) -> Result<Resumed> {
        let lock = WriterLock::acquire(dir)?;
        let rec = recover_locked(dir, &mut |_, _| {})?;
        let reader = Reader::open_live(dir)?;
        let (table, last_tick) = match reader.index().len() {
            0 => (EntityTable::default(), None),
            n => {
                let last = reader.read_chunk(n - 1)?;
                let t = (last.end_tick() - 1) as u32;
                (last.state_at(t), Some(t))
            }
        };
        let last_snapshot = reader
            .index()
            .len()
            .checked_sub(1)
            .and_then(|n| snapshot_at_or_before(reader.index(), n))
            .map(|i| reader.index()[i].start_tick);
        Ok(Resumed {
            lock,
            header: rec.header,
            metadata: rec.metadata,
            index: rec.index,
            next_segment: rec.segments.last().map_or(0, |n| n + 1),
            table,
            last_tick,
            last_snapshot,
        })
    }

    pub(crate) fn new(
        shared: Arc<RecShared>,
        engine: Arc<EngineShared>,
        opts: RecorderOptions,
        resumed: Option<Resumed>,
    ) -> Result<RecWriter> {
        let dict = crate::dictionary::lookup(opts.info.dictionary_id)?;
        let mut chunker = Chunker::new(opts.chunk, dict.as_deref().map(Vec::as_slice))?;
        let live_dir = live_dir_for(&shared.path);
        let info = &opts.info;
        let fresh_header = Header {
            world_id: info.world_id,
            world_version: info.world_version,
            timestamp_ms: info.timestamp_ms,
            tick_rate_millihz: info.tick_rate_millihz,
            game_data_version: info.game_data_version,
            dictionary_id: info.dictionary_id,
            ..Header::default()
        };
        let mut w = RecWriter {
            shared,
            engine,
            live_dir,
            chunker: Chunker::new(opts.chunk, None)?,
            opts,
            pending: Vec::new(),
            pending_bytes: 0,
            index: Vec::new(),
            segment: None,
            next_segment: 0,
            lock: None,
            header: fresh_header,
            metadata: Metadata::default(),
            events: Vec::new(),
            last_flush: Instant::now(),
            dirty: false,
            meta_dirty: false,
            dropped_written: 0,
            flush_requested: false,
            leave_flush_at: None,
            retry_at: None,
            retry_wait: RETRY_FIRST,
            received: 0,
            dir_synced: false,
        };
        if let Some(r) = resumed {
            if r.header.dictionary_id != w.header.dictionary_id {
                return Err(Error::invalid(format!(
                    "the recording uses dictionary {}, the options say {}",
                    r.header.dictionary_id, w.header.dictionary_id
                )));
            }
            chunker.resume_from(r.table, r.last_tick, r.last_snapshot);
            w.header = r.header;
            w.metadata = r.metadata;
            w.index = r.index;
            w.next_segment = r.next_segment;
            w.lock = Some(r.lock);
            w.dir_synced = true;
        }
        w.chunker = chunker;
        Ok(w)
    }

    fn on_tick(&mut self, tick: u32, buf: &[u8]) {
        if self.retry_at.is_some() && self.pending_bytes >= self.unflushed_cap() {
            // Flushes are failing and this recording holds all it may: the tick is dropped and
            // recorded as a gap, so memory stays bounded while the disk is unwritable.
            self.shared.record_drop(tick);
            self.engine.dropped_total.fetch_add(1, Ordering::Relaxed);
            return;
        }
        if let Err(e) = decode_batch_into(buf, &mut self.events) {
            self.reject(tick, e);
            return;
        }
        // The provider is asked when the interval is due, not when the plugin offered a snapshot
        // itself (its bytes must not be replaced).
        if let Some(p) = &self.opts.snapshot_provider
            && !self.chunker.has_offered_snapshot()
            && self.chunker.snapshot_due(tick)
            && let Some(bytes) = p(tick)
        {
            self.chunker.offer_snapshot(bytes);
        }
        let leave = self
            .events
            .iter()
            .any(|e| matches!(e, Event::PlayerLeave { .. }));
        match self.chunker.push_tick(tick, &self.events) {
            Ok(frame) => {
                if let Some(f) = frame {
                    self.add_pending(f);
                }
                self.dirty = true;
            }
            Err(e) => self.reject(tick, e),
        }
        if leave {
            self.player_left();
        }
        if self.pending_bytes >= self.opts.flush.max_pending_bytes {
            self.flush_requested = true;
        }
    }

    /// A player left (an event or `Recorder::player_left`): flush after a short grace, per policy.
    fn player_left(&mut self) {
        if self.opts.flush.on_player_leave && self.leave_flush_at.is_none() {
            self.leave_flush_at = Some(Instant::now() + LEAVE_FLUSH_GRACE);
        }
    }

    fn unflushed_cap(&self) -> usize {
        (self.opts.flush.max_pending_bytes)
            .saturating_mul(UNFLUSHED_CAP_FLUSHES)
            .max(MIN_UNFLUSHED_CAP)
    }

    fn reject(&mut self, tick: u32, e: Error) {
        self.shared.rejected.fetch_add(1, Ordering::Relaxed);
        self.shared.set_error(format!("tick {tick} refused: {e}"));
    }

    fn add_pending(&mut self, f: Frame) {
        self.pending_bytes += f.payload.len() + FRAME_HEADER_LEN;
        self.pending.push(f);
    }

    fn flush_due(&self, now: Instant) -> bool {
        if let Some(at) = self.retry_at {
            // A failed flush is retried at its time, whatever triggered it.
            return now >= at;
        }
        self.flush_requested
            || self.leave_flush_at.is_some_and(|at| now >= at)
            || ((self.dirty
                || self.meta_dirty
                || self.shared.dropped.load(Ordering::Relaxed) != self.dropped_written)
                && now.duration_since(self.last_flush) >= self.opts.flush.interval)
    }

    /// A flush the writer starts on its own (size, time, player leave): skipped while a failed one
    /// waits for its retry time.
    fn flush_if_due(&mut self, now: Instant) {
        if self.flush_due(now) {
            let _ = self.flush();
        }
    }

    /// Cuts the open chunk, appends pending frames to the segment, fsyncs it, then rewrites the
    /// metadata file atomically (also when only metadata or gaps changed). Only then are the ticks
    /// reported as flushed. A recording that never flushed and has no frames keeps everything in
    /// memory (its metadata travels with `finish`).
    fn flush(&mut self) -> Result<()> {
        self.flush_to_disk(false)
    }

    /// [`Self::flush`]; `persist`: write changed metadata even if nothing was flushed before (a
    /// recording closed to be resumed later keeps its metadata, ticks or not).
    fn flush_to_disk(&mut self, persist: bool) -> Result<()> {
        self.flush_requested = false;
        self.leave_flush_at = None;
        let started = Instant::now();
        if let Some(f) = self.chunker.finish_chunk()? {
            self.add_pending(f);
        }
        self.dirty = false;
        self.last_flush = started;
        let meta_changed =
            self.meta_dirty || self.shared.dropped.load(Ordering::Relaxed) != self.dropped_written;
        if self.pending.is_empty() && (!meta_changed || (self.lock.is_none() && !persist)) {
            return Ok(());
        }
        if let Err(e) = self.write_pending() {
            self.retry_at = Some(started + self.retry_wait);
            self.retry_wait = (self.retry_wait * 2).min(RETRY_MAX);
            self.shared.set_error(format!("flush failed: {e}"));
            return Err(e);
        }
        self.retry_at = None;
        self.retry_wait = RETRY_FIRST;
        let us = started.elapsed().as_micros() as u64;
        self.shared.last_flush_us.store(us, Ordering::Relaxed);
        self.engine.last_flush_us.store(us, Ordering::Relaxed);
        self.shared.flushes.fetch_add(1, Ordering::Relaxed);
        if let Some(t) = self.chunker.last_tick() {
            self.shared
                .flushed_tick
                .store(u64::from(t), Ordering::Release);
        }
        Ok(())
    }

    /// Writes the pending frames and the metadata file. All or nothing as far as readers and
    /// `flushed_tick` go: on an error the index is as before and the frames stay pending (a segment
    /// may hold some of them, or a partial frame: writing continues in a fresh segment, and
    /// recovery drops such copies as overlapping or truncates them as torn).
    fn write_pending(&mut self) -> Result<()> {
        let indexed = self.index.len();
        let r = self.write_frames_and_meta();
        if r.is_err() {
            self.index.truncate(indexed);
            self.segment = None;
        }
        let written = r?;
        self.pending.clear();
        self.pending_bytes = 0;
        self.meta_dirty = false;
        self.shared
            .bytes_written
            .fetch_add(written, Ordering::Relaxed);
        self.engine
            .bytes_written
            .fetch_add(written, Ordering::Relaxed);
        Ok(())
    }

    fn write_frames_and_meta(&mut self) -> Result<u64> {
        if self.lock.is_none() {
            fs::create_dir_all(&self.live_dir)?;
            self.lock = Some(WriterLock::acquire(&self.live_dir)?);
        }
        if !self.dir_synced {
            // The new directory's entry is durable before anything in it is reported flushed
            // (retried by the next flush if it fails).
            if let Some(parent) = self.live_dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                crate::storage::sync_dir(parent)?;
            }
            self.dir_synced = true;
        }
        let mut written = 0u64;
        for f in &self.pending {
            if self
                .segment
                .as_ref()
                .is_none_or(|s| s.len() >= MAX_SEGMENT_BYTES)
            {
                // A full segment is made durable before the index can name its frames.
                if let Some(full) = &self.segment {
                    full.sync()?;
                }
                // The number is used up even if creating fails half way (a file left behind
                // must not make every later attempt fail).
                let n = self.next_segment;
                self.next_segment = n + 1;
                self.segment = Some(SegmentWriter::create(&self.live_dir, n)?);
            }
            let seg = self.segment.as_mut().expect("segment open");
            let offset = seg.append(&f.header, &f.payload)?;
            let h = f.header;
            self.index.push(IndexEntry {
                start_tick: h.start_tick,
                tick_count: h.tick_count,
                flags: h.flags,
                offset,
                compressed_len: h.compressed_len,
                uncompressed_len: h.uncompressed_len,
            });
            written += (FRAME_HEADER_LEN + f.payload.len()) as u64;
        }
        if let Some(s) = &self.segment {
            s.sync()?;
        }
        let dropped = self.shared.dropped.load(Ordering::Relaxed);
        self.update_library_meta();
        let bytes = encode_meta_file(self.header.clone(), &self.metadata, &self.index)?;
        write_meta_file(&self.live_dir, &bytes)?;
        self.dropped_written = dropped;
        Ok(written)
    }

    fn update_library_meta(&mut self) {
        let lib = &mut self.metadata.library;
        let c = &self.chunker;
        lib.stats.ticks_written = c.ticks_written;
        lib.stats.events = c.events;
        lib.stats.pose_samples = c.pose_samples;
        lib.stats.uncompressed_bytes = c.uncompressed_bytes;
        let gaps = self.shared.gaps.lock().clone();
        for g in gaps {
            if !lib.gaps.contains(&g) {
                // A gap may have grown since it was last written: replace the older, shorter one.
                lib.gaps.retain(|o| o.from != g.from);
                lib.gaps.push(g);
            }
        }
        lib.stats.dropped_ticks = lib.gaps.iter().map(|g| u64::from(g.to - g.from) + 1).sum();
    }

    /// Ends the recording and hands it to the compaction worker.
    fn finish(mut self, handle: FinishHandle, compact_tx: &Sender<CompactJob>) {
        let out = self.shared.path.clone();
        let options = CompactOptions {
            overwrite: self.opts.overwrite,
            ..self.opts.compaction
        };
        if self.lock.is_none() {
            // Never flushed: compact straight from memory, no directory is ever created.
            let r = self.chunker.finish_chunk().map(|f| {
                if let Some(f) = f {
                    self.add_pending(f);
                }
            });
            if let Err(e) = r {
                self.failed_finish(handle, e);
                return;
            }
            self.update_library_meta();
            let job = CompactJob::Memory {
                frames: std::mem::take(&mut self.pending),
                header: Box::new(self.header.clone()),
                metadata: Box::new(self.metadata.clone()),
                out,
                options,
                handle,
            };
            self.hand_over(job, compact_tx);
            return;
        }
        if let Err(e) = self.flush() {
            self.failed_finish(handle, e);
            return;
        }
        self.segment = None;
        let job = CompactJob::Live {
            dir: self.live_dir.clone(),
            lock: self.lock.take().expect("locked"),
            out,
            options,
            handle,
        };
        self.hand_over(job, compact_tx);
    }

    /// A finish that failed before its compaction: counted as a failed compaction.
    fn failed_finish(&self, handle: FinishHandle, e: Error) {
        self.engine
            .compactions_failed
            .fetch_add(1, Ordering::Relaxed);
        handle.state.complete(Err(e));
    }

    /// Hands a job to the compaction worker (counted pending until the worker is done with it).
    fn hand_over(&self, job: CompactJob, compact_tx: &Sender<CompactJob>) {
        self.engine
            .compactions_pending
            .fetch_add(1, Ordering::Relaxed);
        if let Err(crossbeam_channel::SendError(job)) = compact_tx.send(job) {
            self.engine
                .compactions_pending
                .fetch_sub(1, Ordering::Relaxed);
            if let Some(handle) = job.handle() {
                self.failed_finish(
                    handle.clone(),
                    Error::InvalidState("the compaction worker has stopped".into()),
                );
            }
        }
    }

    /// Stops writing but keeps the recording resumable.
    fn close(mut self) -> Result<()> {
        self.flush_to_disk(true)
    }

    /// Discards everything, including the live directory.
    fn abort(mut self) -> Result<()> {
        self.pending.clear();
        self.segment = None;
        if let Some(lock) = self.lock.take() {
            remove_live_dir(&self.live_dir, lock)?;
        }
        Ok(())
    }
}

/// Removes a live directory's files (metadata file first, holding the lock until the end) and the
/// directory.
fn remove_live_dir(dir: &Path, lock: WriterLock) -> Result<()> {
    // The metadata file goes first: a reader that can still open it finds every segment it names.
    match fs::remove_file(dir.join(crate::storage::live::META_FILE)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
        _ => {}
    }
    for e in fs::read_dir(dir)? {
        let e = e?;
        if e.file_name() != crate::storage::live::LOCK_FILE {
            fs::remove_file(e.path())?;
        }
    }
    drop(lock);
    fs::remove_file(dir.join(crate::storage::live::LOCK_FILE))?;
    fs::remove_dir(dir)?;
    Ok(())
}

/// One writer thread's recordings and what its loop carries between messages.
struct WriterThread {
    recs: HashMap<u64, RecWriter>,
    engine: Arc<EngineShared>,
    compact_tx: Sender<CompactJob>,
    /// Ending messages from the control channel that wait for earlier queued messages.
    endings: Vec<Ending>,
    /// Recordings retired by a panic, with its message: their later calls get it as their error
    /// (until their ending message, which their `Recorder` sends when dropped at the latest).
    retired: HashMap<u64, String>,
    /// In-flight bytes are released in batches: one shared atomic update per 64 KiB (or when the
    /// queue runs dry) instead of one per tick keeps the counter's cache line off the hot path.
    unreleased: usize,
}

/// The text of a caught panic.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    format!("internal error on the writer thread: {what}")
}

/// Runs `f`, turning a panic into its message.
fn guarded<T>(f: impl FnOnce() -> T) -> std::result::Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| panic_message(&*p))
}

/// The writer thread's loop.
pub(crate) fn writer_loop(
    rx: Receiver<Msg>,
    control: Receiver<Ending>,
    engine: Arc<EngineShared>,
    compact_tx: Sender<CompactJob>,
) {
    let mut w = WriterThread {
        recs: HashMap::new(),
        engine,
        compact_tx,
        endings: Vec::new(),
        retired: HashMap::new(),
        unreleased: 0,
    };
    let mut next_check = Instant::now() + CHECK_INTERVAL;
    let mut idle = 0u32;
    // Time spent waiting for work, published with the periodic checks.
    let mut idle_ns = 0u64;
    loop {
        w.engine.wait_if_stalled();
        // Poll, and nap when idle: a blocked receiver would make every producer pay for a wake-up
        // syscall inside submit_tick (measured: ~2.5 us per submit to a one-player recording).
        // With no recording open nobody submits ticks: block until a message comes.
        let next = if w.recs.is_empty() && w.endings.is_empty() {
            if w.unreleased > 0 {
                w.engine.release_bytes(std::mem::take(&mut w.unreleased));
            }
            let waited = Instant::now();
            let next = crossbeam_channel::select! {
                recv(rx) -> m => m.map_err(|_| TryRecvError::Disconnected),
                recv(control) -> e => {
                    // An ending of a recording retired earlier, say: applied at the next check.
                    w.endings.extend(e);
                    Err(TryRecvError::Empty)
                }
                default(Duration::from_secs(1)) => Err(TryRecvError::Empty),
            };
            w.engine
                .writer_idle_ns
                .fetch_add(waited.elapsed().as_nanos() as u64, Ordering::Relaxed);
            match next {
                Err(TryRecvError::Empty) => {
                    w.check(&control, Instant::now());
                    continue;
                }
                other => other,
            }
        } else {
            rx.try_recv()
        };
        match next {
            Ok(m) => {
                idle = 0;
                if !w.handle_guarded(m) {
                    w.shut_down(&rx, &control);
                    return;
                }
            }
            Err(TryRecvError::Empty) => {
                if w.unreleased > 0 {
                    w.engine.release_bytes(std::mem::take(&mut w.unreleased));
                }
                idle = idle.saturating_add(1);
                let nap = match idle {
                    0..=16 => Duration::from_micros(50),
                    17..=256 => Duration::from_micros(500),
                    _ => IDLE_NAP,
                };
                let now = Instant::now();
                let until_check = next_check.saturating_duration_since(now);
                std::thread::sleep(nap.min(until_check).max(Duration::from_micros(10)));
                idle_ns += now.elapsed().as_nanos() as u64;
            }
            Err(TryRecvError::Disconnected) => {
                w.shut_down(&rx, &control);
                return;
            }
        }
        let now = Instant::now();
        if now >= next_check {
            w.engine
                .writer_idle_ns
                .fetch_add(std::mem::take(&mut idle_ns), Ordering::Relaxed);
            w.check(&control, now);
            next_check = now + CHECK_INTERVAL;
        }
    }
}

impl WriterThread {
    fn end(&self, rec: &RecWriter) {
        self.engine.open_paths.lock().remove(&rec.shared.path);
        self.engine.active.fetch_sub(1, Ordering::Relaxed);
    }

    /// The periodic work: endings that have become due, and flushes by time, leave and retry.
    fn check(&mut self, control: &Receiver<Ending>, now: Instant) {
        self.take_endings(control, false);
        let mut panicked = Vec::new();
        for (id, r) in self.recs.iter_mut() {
            if let Err(m) = guarded(|| r.flush_if_due(now)) {
                panicked.push((*id, m));
            }
        }
        for (id, m) in panicked {
            self.retire(id, m);
        }
    }

    /// Retires a recording after a panic in its work: what it flushed stays on disk (resumable),
    /// its calls get the panic as their error.
    fn retire(&mut self, id: u64, msg: String) {
        if let Some(r) = self.recs.remove(&id) {
            r.shared.set_error(msg.clone());
            r.shared.state.store(RETIRED, Ordering::Release);
            self.end(&r);
            self.retired.insert(id, msg);
        }
    }

    /// The recording a queued message is for, counting the message (see [`Ending`]).
    fn rec_for(&mut self, id: u64) -> Option<&mut RecWriter> {
        let r = self.recs.get_mut(&id)?;
        r.received += 1;
        Some(r)
    }

    /// Takes what waits on the control channel and applies every ending whose recording's earlier
    /// messages have all been taken off the queue (`all`: every ending, at shutdown, when the
    /// queue has been emptied). An ending of a retired recording is due at once.
    fn take_endings(&mut self, control: &Receiver<Ending>, all: bool) {
        self.endings.extend(control.try_iter());
        let mut i = 0;
        while i < self.endings.len() {
            let e = &self.endings[i];
            let due = all
                || self.retired.contains_key(&e.id)
                || self.recs.get(&e.id).is_some_and(|r| r.received >= e.after);
            if due {
                let e = self.endings.swap_remove(i);
                self.handle_guarded(e.msg);
            } else {
                i += 1;
            }
        }
    }

    /// Every message before the shutdown has been handled: apply the waiting endings, close what
    /// is still open (flushed, resumable), then answer whatever was sent after the shutdown (an
    /// error) and release what it held, so that no caller waits for an answer that never comes.
    fn shut_down(&mut self, rx: &Receiver<Msg>, control: &Receiver<Ending>) {
        self.take_endings(control, true);
        for (_, r) in std::mem::take(&mut self.recs) {
            self.end(&r);
            let shared = r.shared.clone();
            if let Err(m) = guarded(|| r.close()) {
                shared.set_error(m);
            }
        }
        let late = rx
            .try_iter()
            .chain(control.try_iter().map(|e| e.msg))
            .chain(std::mem::take(&mut self.endings).into_iter().map(|e| e.msg));
        for msg in late {
            self.unreleased += msg.budget_bytes();
            Reply::of(&msg).fail("the engine has shut down");
            match msg {
                Msg::Open { rec, .. } => self.end(&rec),
                Msg::Tick { buf, .. } => self.engine.pool.give(buf),
                _ => {}
            }
        }
        if self.unreleased > 0 {
            self.engine
                .release_bytes(std::mem::take(&mut self.unreleased));
        }
    }

    /// [`Self::handle`], surviving a panic (a bug) in one recording's work: that recording is
    /// retired with the panic as its error (what it flushed stays on disk, resumable), a caller
    /// waiting on the message gets the error, and the thread goes on serving the other recordings.
    fn handle_guarded(&mut self, msg: Msg) -> bool {
        let id = msg.recording();
        let reply = Reply::of(&msg);
        let budget = msg.budget_bytes();
        match guarded(|| self.handle(msg)) {
            Ok(go_on) => go_on,
            Err(msg) => {
                if let Some(id) = id {
                    self.retire(id, msg.clone());
                }
                reply.fail(&msg);
                // The message's buffer was lost in the unwinding (every arm releases its bytes
                // last, after any work that could panic); its bytes leave the budget anyway.
                self.unreleased += budget;
                true
            }
        }
    }

    /// The error of a call on a recording this thread no longer has.
    fn gone(&mut self, id: u64, ending: bool) -> Error {
        let why = if ending {
            self.retired.remove(&id)
        } else {
            self.retired.get(&id).cloned()
        };
        Error::InvalidState(why.unwrap_or_else(|| "the recording is no longer open".into()))
    }

    /// Handles one message; `false` for `Shutdown`.
    fn handle(&mut self, msg: Msg) -> bool {
        match msg {
            Msg::Open { id, rec } => {
                self.recs.insert(id, *rec);
            }
            Msg::Tick { id, tick, buf } => {
                if let Some(r) = self.rec_for(id) {
                    r.on_tick(tick, &buf);
                    if r.flush_requested {
                        r.flush_if_due(Instant::now());
                    }
                }
                self.unreleased += buf.capacity();
                if self.unreleased >= 64 << 10 {
                    self.engine
                        .release_bytes(std::mem::take(&mut self.unreleased));
                }
                self.engine.pool.give(buf);
            }
            Msg::PlayerLeft { id } => {
                if let Some(r) = self.rec_for(id) {
                    r.player_left();
                }
            }
            Msg::Snapshot { id, bytes } => {
                let cap = bytes.capacity();
                if let Some(r) = self.rec_for(id) {
                    r.chunker.offer_snapshot(bytes);
                }
                self.unreleased += cap;
            }
            Msg::Entity { id, info } => {
                if let Some(r) = self.rec_for(id) {
                    let list = &mut r.metadata.library.entities;
                    list.retain(|e| e.id != info.id);
                    list.push(*info);
                    r.meta_dirty = true;
                }
            }
            Msg::EventType { id, t } => {
                if let Some(r) = self.rec_for(id) {
                    let list = &mut r.metadata.library.event_types;
                    list.retain(|e| e.id != t.id);
                    list.push(*t);
                    r.meta_dirty = true;
                }
            }
            Msg::UserMeta { id, meta } => {
                if let Some(r) = self.rec_for(id) {
                    let (key, value) = *meta;
                    r.metadata.user.insert(key, value);
                    r.meta_dirty = true;
                }
            }
            Msg::Flush { id, ack } => {
                let res = match self.rec_for(id) {
                    Some(r) => r.flush(),
                    None => Err(self.gone(id, false)),
                };
                let _ = ack.send(res);
            }
            Msg::Finish { id, handle } => match self.recs.remove(&id) {
                Some(r) => {
                    self.end(&r);
                    r.finish(handle, &self.compact_tx);
                }
                None => handle.state.complete(Err(self.gone(id, true))),
            },
            Msg::Abort { id, ack } => {
                let res = match self.recs.remove(&id) {
                    Some(r) => {
                        self.end(&r);
                        r.abort()
                    }
                    None => match self.retired.contains_key(&id) {
                        true => Err(self.gone(id, true)),
                        false => Ok(()),
                    },
                };
                let _ = ack.send(res);
            }
            Msg::Close { id, ack } => {
                let res = match self.recs.remove(&id) {
                    Some(r) => {
                        let path = r.shared.path.clone();
                        let shared = r.shared.clone();
                        // The lock is released (the RecWriter is gone) before the path is free,
                        // also when closing panics.
                        let res = guarded(|| r.close()).unwrap_or_else(|m| {
                            shared.set_error(m.clone());
                            Err(Error::InvalidState(m))
                        });
                        self.engine.open_paths.lock().remove(&path);
                        self.engine.active.fetch_sub(1, Ordering::Relaxed);
                        res
                    }
                    None => match self.retired.contains_key(&id) {
                        true => Err(self.gone(id, true)),
                        false => Ok(()),
                    },
                };
                if let Some(ack) = ack {
                    let _ = ack.send(res);
                }
            }
            Msg::Shutdown => return false,
        }
        true
    }
}

/// Where the answer to a message goes, kept aside so that a panic while handling it still answers.
enum Reply {
    None,
    Ack(Sender<Result<()>>),
    Finish(FinishHandle),
}

impl Reply {
    fn of(msg: &Msg) -> Reply {
        match msg {
            Msg::Flush { ack, .. } | Msg::Abort { ack, .. } => Reply::Ack(ack.clone()),
            Msg::Close { ack: Some(ack), .. } => Reply::Ack(ack.clone()),
            Msg::Finish { handle, .. } => Reply::Finish(handle.clone()),
            _ => Reply::None,
        }
    }

    fn fail(self, msg: &str) {
        match self {
            Reply::None => {}
            Reply::Ack(ack) => {
                let _ = ack.send(Err(Error::InvalidState(msg.into())));
            }
            Reply::Finish(handle) => {
                if !handle.is_done() {
                    handle.state.complete(Err(Error::InvalidState(msg.into())));
                }
            }
        }
    }
}

/// Work for the compaction worker.
pub(crate) enum CompactJob {
    /// A recording that was flushed to a live directory.
    Live {
        dir: PathBuf,
        lock: WriterLock,
        out: PathBuf,
        options: CompactOptions,
        handle: FinishHandle,
    },
    /// A recording that finished before its first flush: frames still in memory.
    Memory {
        frames: Vec<Frame>,
        header: Box<Header>,
        metadata: Box<Metadata>,
        out: PathBuf,
        options: CompactOptions,
        handle: FinishHandle,
    },
    Shutdown,
}

impl CompactJob {
    /// The handle the job completes (`None` for `Shutdown`).
    fn handle(&self) -> Option<&FinishHandle> {
        match self {
            CompactJob::Live { handle, .. } | CompactJob::Memory { handle, .. } => Some(handle),
            CompactJob::Shutdown => None,
        }
    }
}

/// Frames held in memory, addressed by offsets into one buffer.
#[derive(Debug)]
struct MemFrames {
    bytes: Vec<u8>,
}

impl FrameSource for MemFrames {
    fn read_frame(&self, e: &IndexEntry) -> Result<Vec<u8>> {
        let start = e.offset as usize;
        let end = start + FRAME_HEADER_LEN + e.compressed_len as usize;
        self.bytes
            .get(start..end)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| Error::corrupt("in-memory frame out of range"))
    }
    fn describe(&self) -> String {
        "<unflushed recording>".into()
    }
}

fn memory_reader(frames: Vec<Frame>, header: Header, metadata: Metadata) -> Result<Reader> {
    let mut bytes = Vec::new();
    let mut index = Vec::with_capacity(frames.len());
    for f in frames {
        let h = f.header;
        index.push(IndexEntry {
            start_tick: h.start_tick,
            tick_count: h.tick_count,
            flags: h.flags,
            offset: bytes.len() as u64,
            compressed_len: h.compressed_len,
            uncompressed_len: h.uncompressed_len,
        });
        bytes.extend_from_slice(&h.encode());
        bytes.extend_from_slice(&f.payload);
    }
    Reader::from_parts(
        header,
        metadata,
        index,
        Arc::new(MemFrames { bytes }),
        Limits::default(),
    )
}

/// The compaction worker's loop.
pub(crate) fn compaction_loop(rx: Receiver<CompactJob>, engine: Arc<EngineShared>) {
    while let Ok(job) = rx.recv() {
        let Some(handle) = job.handle().cloned() else {
            return; // Shutdown
        };
        // A panic in one job (a bug) fails that job's handle, not the worker.
        let result = guarded(|| compact_job(job)).unwrap_or_else(|m| Err(Error::InvalidState(m)));
        engine.compactions_pending.fetch_sub(1, Ordering::Relaxed);
        if result.is_ok() {
            engine.compactions_done.fetch_add(1, Ordering::Relaxed);
        } else {
            engine.compactions_failed.fetch_add(1, Ordering::Relaxed);
        }
        handle.state.complete(result);
    }
}

/// Compacts and publishes one finished recording; the path of its file.
fn compact_job(job: CompactJob) -> Result<PathBuf> {
    match job {
        CompactJob::Shutdown => Err(Error::InvalidState("not a compaction".into())),
        CompactJob::Live {
            dir,
            lock,
            out,
            options,
            ..
        } => {
            // The live directory is removed only once the file is published; if it cannot be
            // (another writer's file is at the path), the directory stays, unlocked.
            Reader::open_live(&dir)
                .and_then(|reader| compact_unpublished(&reader, &out, options, &mut |_, _| {}))
                .and_then(|(_, file)| publish_from_live(file, &out, &dir, options.overwrite))
                .and_then(|_| remove_live_dir(&dir, lock))
                .map(|_| out)
        }
        CompactJob::Memory {
            frames,
            header,
            metadata,
            out,
            options,
            ..
        } => {
            // On a conflict with another writer of the path, the file is kept next to it.
            memory_reader(frames, *header, *metadata)
                .and_then(|reader| compact_unpublished(&reader, &out, options, &mut |_, _| {}))
                .and_then(|(_, file)| publish_from_memory(file, &out, options.overwrite))
                .map(|_| out)
        }
    }
}
