//! Recording a live server ([`tickreel::record`]): the engine (writer and compaction threads
//! shared by every recording), its recorders (one per recording, fed from the server thread),
//! and their finishes (pendings: `crate::api::pending`).

use std::path::Path;
use std::time::Duration;

use tickreel_sync::sync::RwLock;

use crate::api::batch::Batch;
use crate::api::engine_options::EngineOptions;
use crate::api::pending::Pending;
use crate::api::recorder_options::RecorderOptions;
use crate::api::{Id, New, Released, TerrainSections};
use crate::shared::handle::HandleType;
use tickreel::format::{EntityInfo, EventType};
use tickreel::record::{self, EngineStats};
use tickreel::record::{RecorderStats, Submitted};
use tickreel_bridge_macros::{bridge_fn, bridge_struct};

/// An engine (C: `TickreelEngine`, Java: `Engine`). Closing it shuts it down once; calls that
/// race with the close see it closed rather than a half-stopped engine.
pub struct Engine {
    engine: record::Engine,
    closed: RwLock<bool>,
}

impl HandleType for Engine {
    const TAG: u8 = 4;
    const NAME: &'static str = "engine";
}

impl Engine {
    /// Runs `f` on the engine unless it was closed.
    pub(crate) fn with<R>(
        &self,
        f: impl FnOnce(&record::Engine) -> tickreel::Result<R>,
    ) -> tickreel::Result<R> {
        let closed = self.closed.read();
        if *closed {
            return Err(tickreel::Error::InvalidState("the engine is closed".into()));
        }
        f(&self.engine)
    }

    /// Shuts the engine down (joins its threads) once.
    fn close(&self) {
        let mut closed = self.closed.write();
        if !*closed {
            self.engine.shutdown();
            *closed = true;
        }
    }
}

/// A recorder (C: `TickreelRecorder`, Java: `Recorder`).
pub struct Recorder(pub(crate) record::Recorder);

impl HandleType for Recorder {
    const TAG: u8 = 5;
    const NAME: &'static str = "recorder";
}

/// What one submission did: queued, dropped by the drop policy, or refused (an error; a
/// backpressure refusal still counts as dropped for C's `out_dropped`).
pub struct Submission(pub tickreel::Result<Submitted>);

/// A recorder's status: fine, or the writer's last error.
pub struct WriterStatus(pub tickreel::Result<()>);

/// Starts an engine: its writer thread(s) and compaction worker. `options` (from
/// `tickreel_engine_options_new`, read here and kept by the caller) may be NULL for the defaults.
/// Stores its handle in `*out_engine` (NULL on
/// failure, when it can be written).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for an invalid option, `TICKREEL_RESULT_IO` if a
/// thread cannot be started.
///
/// Thread safety: any thread. An engine may then be used from any thread.
#[bridge_fn(c = "tickreel_engine_new", c_out = "out_engine", java = "engineNew")]
pub fn engine_new(options: Option<&EngineOptions>) -> tickreel::Result<New<Engine>> {
    Ok(New(Engine {
        engine: record::Engine::new(EngineOptions::or_default(options))?,
        closed: RwLock::new(false),
    }))
}

/// Shuts an engine down and frees it: open recordings are flushed and closed (they stay
/// resumable: starting a recorder on the same path later continues them), pending compactions
/// (recordings already finished) complete, then the threads are joined. Blocks until then.
/// Recorders of this engine that are still held afterwards refuse every call with
/// `TICKREEL_RESULT_INVALID_STATE` (free them); pendings stay valid.
///
/// Call it before the program exits, after freeing or finishing its recorders: the engine's
/// threads are only stopped here. `tickreel_engine_free(NULL)` is a no-op returning
/// `TICKREEL_RESULT_OK`; a freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread. Calls on the same engine running in other threads finish
/// normally (a recorder started meanwhile is closed by the shutdown); calls that start after
/// this one get `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// (Java: `engineClose`, idempotent.)
#[bridge_fn(c = "tickreel_engine_free", java = "engineClose")]
pub fn engine_free(engine: Released<Engine>) {
    if let Some(e) = engine.object {
        e.close();
    }
}

/// Stores the engine-wide counters in `*out_stats`.
///
/// Thread safety: any thread, concurrently with any other call.
#[bridge_fn(
    c = "tickreel_engine_stats",
    c_out = "out_stats",
    c_out_type = "TickreelEngineStats",
    java = "engineStats"
)]
pub fn engine_stats(engine: &Engine) -> tickreel::Result<EngineStats> {
    engine.with(|e| Ok(e.stats()))
}

/// Starts recording into the final file `path` (a NUL-terminated path in the platform's
/// encoding). While recording, the data lives in a directory next to `path` (metadata file +
/// append-only segments, durable at each flush); `tickreel_recorder_finish` compacts it into
/// `path`. If that directory exists (a recording closed by `tickreel_recorder_free`, an engine
/// shutdown or a crash), `on_existing` decides: by default (`TICKREEL_ON_EXISTING_START_FRESH`)
/// it is renamed aside to `STEM.previous-N.EXT.live` (one rename; never deleted, `tickreel
/// recover` finishes it) and a new recording starts, whose ticks may start again at 0; with
/// `TICKREEL_ON_EXISTING_RESUME` the recording is resumed (recovered on a thread of its own, the
/// call returns at once; `tickreel_recorder_wait_resumed` says where it ends): ticks must continue
/// after its last tick. A fresh recording costs a few `stat` calls and no file.
/// `options` (from `tickreel_recorder_options_new`, read here and kept by the caller) may be NULL
/// for the defaults. Stores the
/// recorder's handle in `*out_recorder` (NULL on failure, when it can be written).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for an empty path or an invalid option,
/// `TICKREEL_RESULT_LOCKED` if `path` is already being recorded (in this process or another),
/// `TICKREEL_RESULT_INVALID_STATE` if the engine has shut down, `TICKREEL_RESULT_IO` if a finished
/// file exists at `path` and `overwrite` is 0, for a parent directory that is missing or not a
/// directory, a directory given as `path` or one that takes no new file (the message names the
/// path; Java's `TickreelException.path()` returns it), `TICKREEL_RESULT_IO` and the data errors
/// for a live directory that cannot be resumed, and `TICKREEL_RESULT_BACKPRESSURE` if the
/// writer's queue stayed full past
/// the recording's backpressure policy (at once with `TICKREEL_BACKPRESSURE_DROP`): nothing was
/// started, try again later.
///
/// Thread safety: any thread. A recorder may then be used from any thread, but its ticks must be
/// submitted in increasing order, by one thread at a time.
#[bridge_fn(
    c = "tickreel_recorder_start",
    c_out = "out_recorder",
    java = "recorderStart"
)]
pub fn recorder_start(
    engine: &Engine,
    path: &Path,
    options: Option<&RecorderOptions>,
) -> tickreel::Result<New<Recorder>> {
    let options = RecorderOptions::or_default(options);
    let rec = engine.with(|e| e.start_recording(path, options))?;
    Ok(New(Recorder(rec)))
}

/// Starts recording as `tickreel_recorder_start`, naming the game server that records it
/// (`server`: 1 to 64 bytes of UTF-8 without control characters; NULL for none). The recording
/// keeps it in its metadata (`server`), its shadow-play reports carry it, and the catalog stores
/// it on the recording's, runs' and reports' rows. A resumed recording is named again.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a server id out of those bounds, and what
/// `tickreel_recorder_start` returns.
///
/// Thread safety: as `tickreel_recorder_start`.
#[bridge_fn(
    c = "tickreel_recorder_start_on",
    c_out = "out_recorder",
    java = "recorderStartOn"
)]
pub fn recorder_start_on(
    engine: &Engine,
    server: Option<&str>,
    path: &Path,
    options: Option<&RecorderOptions>,
) -> tickreel::Result<New<Recorder>> {
    let options = record::RecorderOptions {
        server: server.map(str::to_owned),
        ..RecorderOptions::or_default(options)
    };
    let rec = engine.with(|e| e.start_recording(path, options))?;
    Ok(New(Recorder(rec)))
}

/// Frees a recorder. A recording still open is closed, not finished: queued ticks are written
/// and flushed by the writer thread, and the recording stays resumable (`tickreel_recorder_start`
/// on the same path with `TICKREEL_ON_EXISTING_RESUME` continues it; a later `_finish` produces
/// the file). A finished recording's
/// compaction goes on (its pending stays valid). `tickreel_recorder_free(NULL)` is a no-op
/// returning `TICKREEL_RESULT_OK`; a freed or invalid handle returns
/// `TICKREEL_RESULT_INVALID_HANDLE`. Never does I/O and never waits, not even for room in a full
/// writer queue: the close then takes effect after every tick queued before it.
///
/// Thread safety: any thread. A call on the same recorder still running in another thread
/// finishes normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[bridge_fn(c = "tickreel_recorder_free")]
pub fn recorder_free(_recorder: Released<Recorder>) {}

/// Queues one tick given as a batch-encoded buffer (see `tickreel_batch_bytes` for the
/// encoding; the bytes are copied). The server-thread path: O(1) checks, a copy into a pooled
/// buffer and a queue push; never I/O. The batch's events are decoded on the writer thread: a
/// malformed batch is refused there (counted in `rejected_ticks`, reported by
/// `tickreel_recorder_status`), not here. Ticks must be strictly increasing.
///
/// When the writer falls behind, the backpressure policy applies. `TICKREEL_BACKPRESSURE_DROP`:
/// the tick is dropped (counted, recorded as a gap) and the call returns `TICKREEL_RESULT_OK`
/// with `*out_dropped` set to true. `TICKREEL_BACKPRESSURE_BLOCK`: the call waits up to the
/// deadline, then drops the tick the same way and returns `TICKREEL_RESULT_BACKPRESSURE`.
/// `*out_dropped` (if `out_dropped` is not NULL) is false when the tick was queued.
///
/// Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `batch` is NULL, `TICKREEL_RESULT_INVALID_ARGUMENT`
/// for fewer than 2 bytes, more than `max_batch_bytes`, or a tick not after the previous one,
/// `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted or the engine has
/// shut down.
///
/// Thread safety: any thread, but one thread at a time per recorder (ticks in order).
///
/// (Java: `true` if queued, `false` if dropped.)
#[bridge_fn(
    c = "tickreel_recorder_submit_tick",
    c_out = "out_dropped",
    c_out_type = "bool",
    c_out_optional,
    java = "recorderSubmit",
    direct = "batch"
)]
pub fn recorder_submit_tick(recorder: &Recorder, tick: u32, batch: &[u8]) -> Submission {
    Submission(recorder.0.submit_tick(tick, batch))
}

/// Queues one tick holding the events of a batch builder (the batch is left unchanged; clear it
/// before building the next tick). Same rules and results as `tickreel_recorder_submit_tick`.
///
/// Thread safety: any thread, but one thread at a time per recorder (ticks in order). The batch
/// must not be modified by another thread during the call (its lock is held while it is copied).
#[bridge_fn(
    c = "tickreel_recorder_submit_batch",
    c_out = "out_dropped",
    c_out_type = "bool",
    c_out_optional
)]
pub fn recorder_submit_batch(recorder: &Recorder, tick: u32, batch: &Batch) -> Submission {
    Submission(batch.with_encoded(|bytes| recorder.0.submit_tick(tick, bytes)))
}

/// A player left: asks the writer to flush (if the flush policy's `flush_on_player_leave` is
/// set) so that their part of the recording is durable, and starts the player's grace period in
/// a shadow buffer this recorder feeds (`tickreel_shadow_buffer_start`). Adds no event: record the leave
/// itself with `tickreel_batch_player_leave` in the tick's batch. Never does I/O; waits only
/// while the writer's queue is full.
///
/// Returns `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
///
/// Thread safety: any thread, concurrently with other recorder calls.
#[bridge_fn(c = "tickreel_recorder_player_left", java = "recorderPlayerLeft")]
pub fn recorder_player_left(recorder: &Recorder, entity: Id) -> tickreel::Result<()> {
    recorder.0.player_left(entity.0)
}

/// Supplies snapshot bytes (the game's own world state, opaque to tickreel, copied); the next
/// tick starts a chunk carrying them. `bytes` may be NULL when `len` is 0. Never does I/O; waits
/// only while the writer's queue is full.
///
/// Returns `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
///
/// Thread safety: any thread, concurrently with other recorder calls.
#[bridge_fn(c = "tickreel_recorder_offer_snapshot", java = "recorderSnapshot")]
pub fn recorder_offer_snapshot(recorder: &Recorder, bytes: &[u8]) -> tickreel::Result<()> {
    recorder.0.offer_snapshot(bytes.to_vec())
}

/// Supplies terrain: the blocks of an area as `sections_count` chunk sections in Minecraft's
/// layout (`TickreelTerrainSection`; copied), at the recording's start or whenever the game
/// loads or changes an area. The next tick starts a chunk carrying it, stored once, compressed;
/// readers return it with the world from that tick on (`tickreel_world_state_block`,
/// `tickreel_world_state_terrain_sections`), a later offer's section replacing an earlier one at
/// the same position. Checks every section on the calling thread; never does I/O; waits only
/// while the writer's queue is full.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` (nothing queued) for an invalid section (a palette
/// of 0 or more than 4096 states, `bits` not matching it, `packed_len` not matching `bits`, an
/// index past the palette), a section position twice, or more than 16,384 sections;
/// `TICKREEL_RESULT_LIMIT_EXCEEDED` for terrain whose coded form would exceed 16 MiB;
/// `TICKREEL_RESULT_NULL_ARGUMENT` for a NULL array with a length;
/// `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
///
/// Thread safety: any thread, concurrently with other recorder calls.
#[bridge_fn(c = "tickreel_recorder_offer_terrain", java = "recorderTerrain")]
pub fn recorder_offer_terrain(
    recorder: &Recorder,
    sections: TerrainSections,
) -> tickreel::Result<()> {
    recorder.0.offer_terrain(sections.0)
}

/// Records who an entity is, in the recording's metadata: its game-defined `kind`, optionally a
/// 16-byte UUID (`uuid`, NULL for none) and a UTF-8 name (`name`, NULL for none). Registering an
/// id again replaces the earlier entry. Never does I/O; waits only while the writer's queue is
/// full.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `name` is not UTF-8,
/// `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
///
/// Thread safety: any thread, concurrently with other recorder calls.
#[bridge_fn(
    c = "tickreel_recorder_register_entity",
    java = "recorderRegisterEntity"
)]
pub fn recorder_register_entity(
    recorder: &Recorder,
    entity: Id,
    kind: Id,
    uuid: Option<uuid::Uuid>,
    name: Option<&str>,
) -> tickreel::Result<()> {
    recorder.0.register_entity(EntityInfo {
        id: entity.0,
        kind: kind.0,
        uuid,
        name: name.map(str::to_owned),
    })
}

/// Registers a custom event type in the recording's metadata: its id (as used by
/// `tickreel_batch_custom`), a UTF-8 name and the game's schema version of its payload. Never
/// does I/O; waits only while the writer's queue is full.
///
/// Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `name` is NULL, `TICKREEL_RESULT_INVALID_ARGUMENT`
/// if it is not UTF-8, `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
///
/// Thread safety: any thread, concurrently with other recorder calls.
#[bridge_fn(
    c = "tickreel_recorder_register_event_type",
    java = "recorderRegisterEventType"
)]
pub fn recorder_register_event_type(
    recorder: &Recorder,
    type_id: Id,
    name: &str,
    version: Id,
) -> tickreel::Result<()> {
    recorder.0.register_event_type(EventType {
        id: type_id.0,
        name: name.to_owned(),
        version: version.0,
    })
}

/// Names id `id` of palette `kind` (`TICKREEL_PALETTE_BLOCK`, `_ITEM` or `_DAMAGE_CAUSE`) in the
/// recording's metadata, e.g. block state 1 as `"minecraft:stone"`, so that the recording
/// explains its world events across game versions. Naming an id again with the same name does
/// nothing. Never does I/O; waits only while the writer's queue is full.
///
/// Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `name` is NULL, `TICKREEL_RESULT_INVALID_ARGUMENT`
/// for an unknown kind, a name that is not UTF-8, empty or over 256 bytes, or an id named
/// otherwise already; `TICKREEL_RESULT_LIMIT_EXCEEDED` beyond 131072 names of a kind or the
/// metadata budget; `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
///
/// Thread safety: any thread, concurrently with other recorder calls.
#[bridge_fn(c = "tickreel_recorder_register_name", java = "recorderRegisterName")]
pub fn recorder_register_name(
    recorder: &Recorder,
    kind: Id,
    id: Id,
    name: &str,
) -> tickreel::Result<()> {
    let kind = tickreel::format::PaletteKind::from_code(kind.0)?;
    recorder.0.register_name(kind, id.0, name)
}

/// Adds the keys of `nbt`, a big-endian NBT root compound (as Minecraft writes it), to the
/// recording's user metadata (a key given again replaces the earlier value). The key
/// `"tickreel"` is the library's own.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `nbt` is not an NBT compound, nests too deeply
/// or uses the reserved key.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_set_user_metadata",
    java = "recorderSetUserMetadata"
)]
pub fn recorder_set_user_metadata(recorder: &Recorder, nbt: &[u8]) -> tickreel::Result<()> {
    crate::api::nbt_entries(nbt)?
        .into_iter()
        .try_for_each(|(k, v)| recorder.0.set_user_metadata(k, v))
}

/// Asks the writer to flush now and waits until every tick submitted before this call is durably
/// in the live directory (segments fsynced, metadata rewritten atomically). Blocks for the I/O:
/// not for the server thread.
///
/// Returns `TICKREEL_RESULT_OK` once durable (a tick the writer refused is not an error here: see
/// `tickreel_recorder_status`), `TICKREEL_RESULT_IO` if the flush failed,
/// `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
///
/// Thread safety: any thread, concurrently with other recorder calls.
#[bridge_fn(c = "tickreel_recorder_flush", java = "recorderFlush")]
pub fn recorder_flush(recorder: &Recorder) -> tickreel::Result<()> {
    recorder.0.flush()
}

/// Stores the recording's counters in `*out_stats`. Never blocks.
///
/// Thread safety: any thread, concurrently with any other call; the counters are read one by one
/// and may be mutually a little out of date.
#[bridge_fn(
    c = "tickreel_recorder_stats",
    c_out = "out_stats",
    c_out_type = "TickreelRecorderStats",
    java = "recorderStats"
)]
pub fn recorder_stats(recorder: &Recorder) -> RecorderStats {
    recorder.0.stats()
}

/// Waits up to `timeout_ms` for a resumed recording to be recovered (`tickreel_recorder_start`
/// on an existing live directory returns at once and recovers it on a thread of its own) and
/// stores its last recorded tick in `*out_tick` with `*out_has_tick` = true (false for a recording
/// without ticks, and at once for a fresh one). Ticks submitted must come after it.
///
/// Returns `TICKREEL_RESULT_NOT_READY` if the recovery still runs at the timeout,
/// `TICKREEL_RESULT_INVALID_STATE` (with its error as the message) if it failed.
///
/// Thread safety: any thread, concurrently with other recorder calls.
///
/// (Java: the tick, or -1 for none.)
#[bridge_fn(
    c = "tickreel_recorder_wait_resumed",
    c_out = "out_has_tick, out_tick",
    c_out_type = "bool, u32",
    java = "recorderWaitResumed"
)]
pub fn recorder_wait_resumed(
    recorder: &Recorder,
    timeout_ms: u32,
) -> tickreel::Result<Option<u32>> {
    recorder
        .0
        .wait_resumed(Duration::from_millis(u64::from(timeout_ms)))
}

/// The writer's health for this recording: `TICKREEL_RESULT_OK` if it has reported no error,
/// otherwise `TICKREEL_RESULT_INVALID_STATE` with the writer's last error as the calling
/// thread's last error message (e.g. `tick 12 refused: ...` for a malformed batch, or a failed
/// flush). The writer processes ticks asynchronously: call `tickreel_recorder_flush` first to be
/// sure every submitted tick has been looked at. An error stays reported; the recording goes on
/// (refused ticks are skipped). Never blocks.
///
/// Thread safety: any thread, concurrently with other recorder calls.
#[bridge_fn(c = "tickreel_recorder_status")]
pub fn recorder_status(recorder: &Recorder) -> tickreel::Result<()> {
    recorder.0.status()
}

/// The writer's last error for this recording as a value (Java: `null`, or a `TickreelException`
/// with the error's kind, returned rather than thrown).
#[bridge_fn(java = "recorderStatus")]
pub fn recorder_status_value(recorder: &Recorder) -> WriterStatus {
    WriterStatus(recorder.0.status())
}

/// Ends the recording: the ticks still queued are written, then the engine's compaction worker
/// produces the final `.reel` file (atomically, verified if so configured) and removes the live
/// directory. Does not wait: stores in `*out_pending` a pending to poll (`tickreel_pending_poll`)
/// or wait on (`tickreel_pending_wait`), whose result is the final file's path
/// (`tickreel_pending_take_path`), to be freed with `tickreel_pending_free`. Afterwards the
/// recorder refuses every call with `TICKREEL_RESULT_INVALID_STATE` except `_stats`, `_status`
/// and `tickreel_recorder_free`, which must still be called.
///
/// Never waits for room in a full writer queue: the finish then takes effect after every tick
/// queued before it.
///
/// Returns `TICKREEL_RESULT_INVALID_STATE` if the recording was already finished or aborted (a
/// second finish), the engine has shut down, or the recorder feeds a stream without a file
/// (`tickreel_shadow_buffer_start` with a NULL path: end it with `tickreel_recorder_free` or `_abort`).
/// On failure `*out_pending` is set to NULL (when it can be written).
///
/// Thread safety: any thread, concurrently with other recorder calls; only one finish or abort
/// succeeds.
#[bridge_fn(
    c = "tickreel_recorder_finish",
    c_out = "out_pending",
    java = "recorderFinish"
)]
pub fn recorder_finish(recorder: &Recorder) -> tickreel::Result<New<Pending>> {
    Ok(Pending::path(recorder.0.finish()?))
}

/// Throws the recording away: queued ticks are discarded and its live directory is removed.
/// Blocks until the writer has done so. Afterwards the recorder behaves as after a finish.
///
/// Returns `TICKREEL_RESULT_INVALID_STATE` if the recording was already finished or aborted or
/// the engine has shut down, `TICKREEL_RESULT_IO` if the directory could not be removed.
///
/// Thread safety: any thread, concurrently with other recorder calls; only one finish or abort
/// succeeds.
#[bridge_fn(c = "tickreel_recorder_abort", java = "recorderAbort")]
pub fn recorder_abort(recorder: &Recorder) -> tickreel::Result<()> {
    recorder.0.abort()
}

/// Engine-wide counters, as filled in by `tickreel_engine_stats`.
#[bridge_struct(c = "TickreelEngineStats", of = "tickreel::record::EngineStats")]
pub struct EngineStatsFields {
    /// Recordings open (started, not yet finished, aborted or freed).
    pub active_recordings: usize,
    /// Messages waiting in the writers' queues, and ticks staged in the recordings' rings.
    pub queue_depth: usize,
    /// Bytes of submitted ticks not yet processed by a writer.
    pub inflight_bytes: usize,
    /// Ticks dropped by backpressure, over all recordings.
    pub dropped_ticks: u64,
    /// Compressed bytes written to live directories.
    pub bytes_written: u64,
    /// Duration of the last flush, in microseconds.
    pub last_flush_latency_us: u64,
    /// Finished recordings waiting for, or in, compaction.
    pub compactions_pending: u64,
    /// Compactions completed successfully.
    pub compactions_done: u64,
    /// Compactions that failed.
    pub compactions_failed: u64,
    /// Heap bytes the engine's shadow buffers hold in all, against
    /// `tickreel_engine_options_set_shadow_budget_bytes`.
    pub shadow_bytes: usize,
    /// Blocks the shadow buffers gave up for that budget.
    pub shadow_budget_dropped_blocks: u64,
    /// File-system syncs (`fsync`, `fdatasync`, `syncfs`) the engine's recordings made since it
    /// started: flushes (one group commit, two syncs, for every recording flushed together),
    /// compaction, publication, recovery.
    pub syncs: u64,
}

/// Counters of one recording, as filled in by `tickreel_recorder_stats`.
#[bridge_struct(c = "TickreelRecorderStats", of = "tickreel::record::RecorderStats")]
pub struct RecorderStatsFields {
    /// Ticks queued by `tickreel_recorder_submit_tick` / `_submit_batch`.
    pub submitted_ticks: u64,
    /// Ticks dropped by backpressure (recorded as gaps).
    pub dropped_ticks: u64,
    /// Ticks the writer refused (a malformed batch); see `tickreel_recorder_status`.
    pub rejected_ticks: u64,
    /// Compressed bytes written to the live directory.
    pub bytes_written: u64,
    /// Flushes done.
    pub flushes: u64,
    /// Duration of the last flush, in microseconds.
    pub last_flush_latency_us: u64,
    /// Messages waiting in this recording's writer queue (shared with other recordings), and the
    /// ticks it staged that the writer has not taken yet.
    pub queue_depth: usize,
    /// Every tick up to and including this one is durably on disk, if any tick is durable yet.
    pub flushed_tick: Option<u32>,
}
