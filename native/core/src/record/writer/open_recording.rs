//! One recording open on its writer thread ([`OpenRecording`]): decodes its tick batches, chunks and
//! compresses them, appends frames to segments, flushes by size/time/player leave (segment synced,
//! then the metadata file rewritten atomically), and ends by handing itself to the compaction
//! worker (finish), keeping its live directory (close) or removing it (abort).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;

use crate::error::{Error, Result};
use crate::format::event::{Event, decode_batch_into};
use crate::format::frame::FRAME_HEADER_LEN;
use crate::format::header::Header;
use crate::format::index::IndexEntry;
use crate::format::metadata::{EntityInfo, EventType, Metadata, Registry};
use crate::format::palette::PaletteKind;
use crate::record::encode::chunker::{Chunker, Frame};
use crate::record::file::compact::CompactOptions;
use crate::record::options::observer::{MetadataChange, StreamEnd, StreamStart};
use crate::record::options::recorder_options::RecorderOptions;
use crate::record::shared::engine_shared::EngineShared;
use crate::record::shared::finish::Finishing;
use crate::record::shared::msg::Msg;
use crate::record::shared::rec_shared::RecShared;
use crate::record::worker::compaction_worker::CompactJob;
use crate::record::writer::resume::{PendingResume, Resumed};
use crate::storage::live::{Fence, LiveDir, WriterLock, live_dir_for};

mod flush;

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

/// One recording's state on its writer thread.
pub(crate) struct OpenRecording {
    pub(crate) shared: Arc<RecShared>,
    engine: Arc<EngineShared>,
    pub(crate) opts: RecorderOptions,
    live: LiveDir,
    chunker: Chunker,
    pending: Vec<Frame>,
    pending_bytes: usize,
    index: Vec<IndexEntry>,
    /// The segment frames go to, and its length: opened for each flush, closed after it (so a
    /// recording between flushes holds one open file, its lock).
    segment: Option<(u32, u64)>,
    next_segment: u32,
    lock: Option<WriterLock>,
    header: Header,
    metadata: Metadata,
    /// Where each registered entity and event type is in `metadata`.
    registry: Registry,
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
    /// Messages of this recording taken off the queue (see `msg::Ending`), and staged ticks
    /// taken.
    pub(crate) received: u64,
    /// Messages of this recording taken off the queue, its opening aside (what a staged tick
    /// waits for: see `staging`).
    pub(crate) queued_taken: u64,
    /// The writer keeps this recording's staging ring on its list.
    pub(crate) staging_listed: bool,
    /// The identity of the live directory and its lock file when this writer locked it.
    fence: Option<Fence>,
    /// The flush whose round is being committed (see `flush`).
    in_flight: Option<flush::InFlight>,
    /// `Recorder::flush` calls waiting for the next flush.
    flush_acks: Vec<Sender<Result<()>>>,
    /// The observers were told that the stream ended.
    observers_ended: bool,
    /// The live directory being recovered on another thread (resuming).
    resuming: Option<PendingResume<Msg<OpenRecording>>>,
}

impl Drop for OpenRecording {
    fn drop(&mut self) {
        // Whatever way the recording went (a panic in its work, say), its observers hear of it.
        self.end_observers(StreamEnd::Failed);
    }
}

impl OpenRecording {
    pub(crate) fn new(
        shared: Arc<RecShared>,
        engine: Arc<EngineShared>,
        opts: RecorderOptions,
        resumed: Option<Resumed>,
    ) -> Result<OpenRecording> {
        let mut w = OpenRecording::build(shared, engine, opts)?;
        match resumed {
            Some(r) => w.apply_resumed(r)?,
            None => w.start_observers(&Default::default()),
        }
        Ok(w)
    }

    /// The recording before it starts: nothing recovered, no observer told.
    fn build(
        shared: Arc<RecShared>,
        engine: Arc<EngineShared>,
        opts: RecorderOptions,
    ) -> Result<OpenRecording> {
        let dict = crate::dictionary::lookup(opts.identity.dictionary_id)?;
        let chunker = Chunker::new(opts.chunk_policy, dict.as_deref().map(|d| d.bytes()))?;
        let live = LiveDir::new(engine.storage.clone(), live_dir_for(&shared.path));
        let id = &opts.identity;
        let fresh_header = Header {
            world_id: id.world_id,
            world_version: id.world_version,
            timestamp_ms: id.timestamp_ms,
            tick_rate_millihz: id.tick_rate_millihz,
            game_data_version: id.game_data_version,
            dictionary_id: id.dictionary_id,
            recording_id: Header::new_recording_id(),
            ..Header::default()
        };
        let mut w = OpenRecording {
            shared,
            engine,
            live,
            chunker: Chunker::new(opts.chunk_policy, None)?,
            opts,
            pending: Vec::new(),
            pending_bytes: 0,
            index: Vec::new(),
            segment: None,
            next_segment: 0,
            lock: None,
            header: fresh_header,
            metadata: Metadata::default(),
            registry: Registry::default(),
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
            queued_taken: 0,
            staging_listed: false,
            in_flight: None,
            flush_acks: Vec::new(),
            fence: None,
            observers_ended: false,
            resuming: None,
        };
        w.chunker = chunker;
        w.metadata.library.server = w.opts.server.clone();
        Ok(w)
    }

    /// A recording whose live directory is being recovered on another thread
    /// ([`PendingResume`]): it takes its messages as they come and holds them until the
    /// recovery is done ([`OpenRecording::poll_resume`]).
    pub(crate) fn new_resuming(
        shared: Arc<RecShared>,
        engine: Arc<EngineShared>,
        opts: RecorderOptions,
        pending: PendingResume<Msg<OpenRecording>>,
    ) -> Result<OpenRecording> {
        let mut w = OpenRecording::build(shared, engine, opts)?;
        w.resuming = Some(pending);
        Ok(w)
    }

    /// Continues from a recovered live directory: its header, metadata, index and entity table.
    fn apply_resumed(&mut self, r: Resumed) -> Result<()> {
        if r.header.dictionary_id != self.header.dictionary_id {
            return Err(Error::invalid(format!(
                "the recording uses dictionary {}, the options say {}",
                r.header.dictionary_id, self.header.dictionary_id
            )));
        }
        self.chunker
            .resume_from(r.table, r.last_tick, r.last_snapshot);
        self.chunker.set_world(r.world);
        self.chunker.continue_terrain(&r.terrain);
        self.chunker
            .set_chunks_since_snapshot(u32::try_from(r.chunks_since_snapshot).unwrap_or(u32::MAX));
        // The stats go on from what the recording holds (they counted only what was written
        // since the last resume): the counts its metadata kept, and the uncompressed bytes of
        // the chunks recovered (exact, from the index).
        let held = &r.metadata.library.stats;
        self.chunker.continue_totals(
            held.ticks_written,
            held.events,
            held.pose_samples,
            r.index.iter().map(|e| u64::from(e.uncompressed_len)).sum(),
        );
        self.header = r.header;
        self.registry = Registry::of(&r.metadata.library);
        self.metadata = r.metadata;
        if self.opts.server.is_some() {
            self.metadata.library.server = self.opts.server.clone();
        }
        self.index = r.index;
        self.next_segment = r.next_segment;
        self.fence = Some(self.live.fence()?);
        self.lock = Some(r.lock);
        self.shared.resumed(r.last_tick, &self.metadata);
        self.start_observers(&r.terrain);
        Ok(())
    }

    /// Tells the observers where the stream starts (`terrain`: what a resumed recording holds).
    fn start_observers(&mut self, terrain: &std::sync::Arc<crate::format::Terrain>) {
        if !self.opts.observers.is_empty() {
            let table = self.chunker.table();
            for o in &self.opts.observers {
                o.started(StreamStart {
                    header: &self.header,
                    metadata: &self.metadata,
                    table: &table,
                    last_tick: self.chunker.last_tick(),
                    terrain,
                });
            }
        }
    }

    /// Whether the live directory is still being recovered: messages wait ([`Self::defer`]).
    pub(crate) fn is_resuming(&self) -> bool {
        self.resuming.is_some()
    }

    /// A registration made while the recording was being recovered, checked against what the
    /// recovered metadata leaves: `false` (and the error reported) if it does not fit.
    pub(crate) fn fits_budget(
        &self,
        check: impl FnOnce(&mut crate::format::MetadataBudget) -> Result<()>,
    ) -> bool {
        match check(&mut self.shared.meta_budget.lock()) {
            Ok(()) => true,
            Err(e) => {
                self.shared.set_error(format!(
                    "a registration made while resuming was refused: {e}"
                ));
                false
            }
        }
    }

    /// Holds a message until the recovery is done.
    pub(crate) fn defer(&mut self, msg: Msg<Self>) {
        if let Some(p) = &mut self.resuming {
            p.defer(msg);
        }
    }

    /// Once the recovery is done (`wait`: wait for it): continues from it, and returns the
    /// messages held meanwhile, in order, with the recovery's error if it failed.
    pub(crate) fn poll_resume(&mut self, wait: bool) -> Option<(Result<()>, Vec<Msg<Self>>)> {
        let pending = self.resuming.as_mut()?;
        let outcome = pending.poll(wait)?;
        let held = self
            .resuming
            .take()
            .map(PendingResume::into_held)
            .unwrap_or_default();
        let r = outcome.and_then(|r| self.apply_resumed(r));
        if let Err(e) = &r {
            self.shared.resume_failed(e);
        }
        Some((r, held))
    }

    /// Tells the observers that the stream ended (once).
    fn end_observers(&mut self, how: StreamEnd) {
        if !self.observers_ended {
            self.observers_ended = true;
            for o in &self.opts.observers {
                o.ended(how);
            }
        }
    }

    /// Cuts the open chunk if an observer asks for it (see `StreamObserver::wants_cut`).
    fn cut_if_wanted(&mut self, now: Instant) {
        if self.opts.observers.iter().any(|o| o.wants_cut(now)) {
            match self.chunker.finish_chunk() {
                Ok(Some(f)) => self.add_pending(f),
                Ok(None) => {}
                Err(e) => self.shared.set_error(format!("cutting a chunk: {e}")),
            }
        }
    }

    pub(crate) fn on_tick(&mut self, tick: u32, buf: &[u8]) {
        if self.retry_at.is_some() && self.pending_bytes >= self.unflushed_cap() {
            // Flushes are failing and this recording holds all it may: the tick is dropped and
            // recorded as a gap, so memory stays bounded while the disk is unwritable.
            self.shared.record_drop(tick);
            self.engine
                .counters
                .dropped_total
                .fetch_add(1, Ordering::Relaxed);
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
            && let Err(e) = self.chunker.offer_snapshot(bytes)
        {
            self.shared.set_error(format!(
                "the snapshot provider's snapshot for tick {tick}: {e}"
            ));
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
                if !self.opts.observers.is_empty() {
                    for o in &self.opts.observers {
                        o.tick(tick, &self.events);
                    }
                    self.cut_if_wanted(Instant::now());
                }
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

    pub(crate) fn flush_requested(&self) -> bool {
        self.flush_requested
    }

    /// Supplies snapshot bytes; the next tick starts a chunk carrying them (the recorder
    /// checked the limit at the call).
    pub(crate) fn offer_snapshot(&mut self, bytes: Vec<u8>) {
        if let Err(e) = self.chunker.offer_snapshot(bytes) {
            self.shared.set_error(format!("snapshot refused: {e}"));
        }
    }

    /// Supplies terrain; the next tick starts a chunk carrying it (the recorder checked the
    /// sections at the call).
    pub(crate) fn offer_terrain(&mut self, terrain: crate::format::Terrain) {
        if let Err(e) = self.chunker.offer_terrain(terrain) {
            self.shared.set_error(format!("terrain refused: {e}"));
        }
    }

    /// Adds or replaces an entity's identity in the metadata.
    pub(crate) fn register_entity(&mut self, info: EntityInfo) {
        for o in &self.opts.observers {
            o.metadata(MetadataChange::Entity(&info));
        }
        self.registry.entity(&mut self.metadata.library, info);
        self.meta_dirty = true;
    }

    /// Adds or replaces a custom event type in the metadata.
    pub(crate) fn register_event_type(&mut self, t: EventType) {
        for o in &self.opts.observers {
            o.metadata(MetadataChange::EventType(&t));
        }
        self.registry.event_type(&mut self.metadata.library, t);
        self.meta_dirty = true;
    }

    /// Names a palette id in the metadata (the recorder checked the name against its budget).
    pub(crate) fn register_name(&mut self, kind: PaletteKind, id: u32, name: &str) {
        for o in &self.opts.observers {
            o.metadata(MetadataChange::Name(kind, id, name));
        }
        if let Err(e) = self.metadata.library.palette.insert(kind, id, name) {
            self.shared.set_error(format!("palette name refused: {e}"));
        }
        self.meta_dirty = true;
    }

    /// Sets one key of the user metadata.
    pub(crate) fn set_user_metadata(&mut self, key: String, value: fastnbt::Value) {
        for o in &self.opts.observers {
            o.metadata(MetadataChange::User(&key, &value));
        }
        self.metadata.user.insert(key, value);
        self.meta_dirty = true;
    }

    /// `Recorder::player_left`: tells the observers, then as [`Self::player_left`].
    pub(crate) fn player_left_call(&mut self, entity: u32) {
        for o in &self.opts.observers {
            o.player_left(entity);
        }
        self.player_left();
    }

    /// A player left (an event or `Recorder::player_left`): flush after a short grace, per policy.
    pub(crate) fn player_left(&mut self) {
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
        for o in &self.opts.observers {
            o.frame(&f);
        }
        if !self.shared.persist {
            return;
        }
        self.pending_bytes += f.payload.len() + FRAME_HEADER_LEN;
        self.pending.push(f);
    }

    /// Ends the recording and hands it to the compaction worker.
    pub(crate) fn finish(mut self, handle: Finishing, compact_tx: &Sender<CompactJob>) {
        if !self.shared.persist {
            self.end_observers(StreamEnd::Closed);
            handle.complete(Err(Error::InvalidState(
                "a stream without a file has nothing to finish".into(),
            )));
            return;
        }
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
            self.end_observers(StreamEnd::Finished);
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
        self.end_observers(StreamEnd::Finished);
        self.segment = None;
        let job = CompactJob::Live {
            live: self.live.clone(),
            lock: self.lock.take().expect("locked"),
            out,
            options,
            handle,
        };
        self.hand_over(job, compact_tx);
    }

    /// A finish that failed before its compaction: counted as a failed compaction.
    pub(crate) fn failed_finish(&self, handle: Finishing, e: Error) {
        self.engine
            .counters
            .compactions_failed
            .fetch_add(1, Ordering::Relaxed);
        handle.complete(Err(e));
    }

    /// Hands a job to the compaction worker (counted pending until the worker is done with it).
    fn hand_over(&self, job: CompactJob, compact_tx: &Sender<CompactJob>) {
        self.engine
            .counters
            .compactions_pending
            .fetch_add(1, Ordering::Relaxed);
        if let Err(job) = crate::threads::send(compact_tx, job) {
            self.engine
                .counters
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
    pub(crate) fn close(mut self) -> Result<()> {
        let r = self.flush_to_disk(true);
        self.end_observers(StreamEnd::Closed);
        r
    }

    /// Discards everything, including the live directory.
    pub(crate) fn abort(mut self) -> Result<()> {
        self.end_observers(StreamEnd::Aborted);
        self.pending.clear();
        self.segment = None;
        if let Some(lock) = self.lock.take() {
            self.live.remove(lock, &self.header.recording_id)?;
        }
        Ok(())
    }
}
