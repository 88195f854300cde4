//! Shadow play ([`tickreel::shadow`]): a stream kept in memory (the last minutes of every
//! player), reported into a file around one player on demand. A shadow buffer starts with its
//! own recorder; its reports complete through pendings, as a recording's finish.

use std::path::Path;

use crate::api::engine::{Engine, Recorder};
use crate::api::pending::Pending;
use crate::api::recorder_options::RecorderOptions;
use crate::api::report_options::ReportOptions;
use crate::api::shadow_options::ShadowOptions;
use crate::api::{Id, New, Released, StringPairs};
use crate::shared::handle::HandleType;
use tickreel::shadow::{self, ShadowStats};
use tickreel_bridge_macros::{bridge_fn, bridge_struct};

/// A shadow buffer (C: `TickreelShadowBuffer`, Java: `ShadowBuffer`).
pub struct ShadowBuffer(pub(crate) shadow::ShadowBuffer);

impl HandleType for ShadowBuffer {
    const TAG: u8 = 12;
    const NAME: &'static str = "shadow buffer";
}

/// A started shadowed stream: its recorder and its buffer (two handles, both or neither).
pub struct Started {
    pub recorder: Recorder,
    pub shadow: ShadowBuffer,
}

/// Starts a shadowed stream: stores in `*out_recorder` the recorder to submit its ticks to (as
/// any recorder) and in `*out_shadow` the buffer that keeps them. With a `path` (a NUL-terminated
/// path in the platform's encoding) the stream is also the recording of that path, exactly as
/// `tickreel_recorder_start` (resumed if its live directory exists; the buffer's blocks are its
/// chunks). With `path` NULL it is written nowhere but the buffer (blocks of
/// `tickreel_shadow_options_set_block_ticks`): its recorder's `tickreel_recorder_finish` returns
/// `TICKREEL_RESULT_INVALID_STATE`; end it with `tickreel_recorder_free` or `_abort`. Either way
/// `tickreel_recorder_player_left` starts a player's grace period. `recorder_options` (from
/// `tickreel_recorder_options_new`) and `shadow_options` (from `tickreel_shadow_options_new`) may
/// be NULL for the defaults. On failure both outputs are set to NULL (when they can be written).
///
/// The two handles are freed separately. Freeing the shadow does not end the stream: the recorder
/// keeps feeding its blocks until the stream ends; after the stream ends (recorder freed,
/// aborted or finished, or the engine shut down) the shadow still reports from what it retained.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for an empty path or an invalid option (a zero or
/// longer-than-a-day window, a grace period over a day, `block_ticks` out of range),
/// `TICKREEL_RESULT_INVALID_HANDLE` for a freed engine, and otherwise what
/// `tickreel_recorder_start` returns.
///
/// Thread safety: any thread. The recorder is then used as any recorder; the shadow from any
/// thread.
///
/// (Java: `long[] {recorder, shadow}`.)
#[bridge_fn(
    c = "tickreel_shadow_buffer_start",
    c_out = "out_recorder, out_shadow",
    c_out_type = "*mut TickreelRecorder, *mut TickreelShadowBuffer",
    java = "shadowBufferStart"
)]
pub fn start(
    engine: &Engine,
    path: Option<&Path>,
    recorder_options: Option<&RecorderOptions>,
    shadow_options: Option<&ShadowOptions>,
) -> tickreel::Result<Started> {
    start_with(
        engine,
        path,
        RecorderOptions::or_default(recorder_options),
        ShadowOptions::or_default(shadow_options),
    )
}

fn start_with(
    engine: &Engine,
    path: Option<&Path>,
    recorder_options: tickreel::record::RecorderOptions,
    shadow_options: shadow::ShadowOptions,
) -> tickreel::Result<Started> {
    let (rec, shadow) =
        engine.with(|e| shadow::ShadowBuffer::start(e, path, recorder_options, shadow_options))?;
    Ok(Started {
        recorder: Recorder(rec),
        shadow: ShadowBuffer(shadow),
    })
}

/// `tickreel_shadow_buffer_start` naming the game server that records the stream (`server`: 1 to
/// 64 bytes of UTF-8 without control characters; NULL for none), as `tickreel_recorder_start_on`
/// names a recording's: the recording's metadata (`server`) and every report of the buffer carry
/// it, and the catalog stores it on the report's row. Returns `TICKREEL_RESULT_INVALID_ARGUMENT`
/// for a server id out of those bounds, and what `tickreel_shadow_buffer_start` returns.
///
/// Thread safety: as `tickreel_shadow_buffer_start`.
///
/// (Java: `long[] {recorder, shadow}`.)
#[bridge_fn(
    c = "tickreel_shadow_buffer_start_on",
    c_out = "out_recorder, out_shadow",
    c_out_type = "*mut TickreelRecorder, *mut TickreelShadowBuffer",
    java = "shadowBufferStartOn"
)]
pub fn start_on(
    engine: &Engine,
    server: Option<&str>,
    path: Option<&Path>,
    recorder_options: Option<&RecorderOptions>,
    shadow_options: Option<&ShadowOptions>,
) -> tickreel::Result<Started> {
    let recorder_options = tickreel::record::RecorderOptions {
        server: server.map(str::to_owned),
        ..RecorderOptions::or_default(recorder_options)
    };
    let shadow_options = ShadowOptions::or_default(shadow_options);
    start_with(engine, path, recorder_options, shadow_options)
}

/// Reports `player` (an entity id): the buffer keeps capturing for the options' `after` of game
/// time, then the engine's background worker writes the window around the player (with the
/// entities that came within the options' `radius`) to `path`, a `.reel` file that appears only
/// complete. Does not wait: stores in `*out_pending` a pending to poll (`tickreel_pending_poll`) or
/// wait on (`tickreel_pending_wait`), whose result is the report's path
/// (`tickreel_pending_take_path`), to be freed with `tickreel_pending_free`. The report's reference is the newest tick the writer has taken in:
/// call `tickreel_recorder_flush` first to make it the last tick submitted.
///
/// `metadata_keys` and `metadata_values` are `metadata_count` UTF-8 strings each, stored as
/// string pairs in the report compound of the file's user metadata, beside the library's keys
/// (which they may not use: `player`, `report_tick`, `first_tick`, ...; see FORMAT.md). Both may be NULL when
/// `metadata_count` is 0. `options` (from `tickreel_report_options_new`) may be NULL for the
/// defaults.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for an empty path, an invalid option (a negative
/// or non-finite radius, `before` or `after` over a day, a bad zstd level), a key that is
/// not UTF-8 or is the library's, or a player the buffer holds nothing of (never seen, or gone
/// longer than the grace period and the window); `TICKREEL_RESULT_INVALID_STATE` before the
/// stream's first tick and once the engine shut down. A report onto an existing file without
/// `overwrite` gets a pending that fails with `TICKREEL_RESULT_IO` ("already exists"), as does one
/// whose file cannot be written. On failure `*out_pending` is set to NULL
/// (when it can be written).
///
/// Thread safety: any thread, concurrently with any other call on the shadow (reports of the same
/// or other players may be made at once) and on its recorder.
#[bridge_fn(
    c = "tickreel_shadow_buffer_report",
    c_out = "out_pending",
    java = "shadowBufferReport"
)]
pub fn report(
    shadow: &ShadowBuffer,
    player: Id,
    path: &Path,
    options: Option<&ReportOptions>,
    metadata: StringPairs,
) -> tickreel::Result<New<Pending>> {
    let handle = shadow
        .0
        .report(player.0, path, with_metadata(options, metadata))?;
    Ok(Pending::path(handle))
}

/// Reports the player with UUID `uuid` (16 bytes, most significant first, as
/// `tickreel_recorder_register_entity` takes it) as `tickreel_shadow_buffer_report` reports an
/// entity id: an entity id changes when a player relogs, the UUID does not. Reports the newest
/// entity of that UUID the buffer holds data of (the one after the last relog).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `uuid` or when no entity registered with
/// that UUID has data in the buffer, and otherwise what `tickreel_shadow_buffer_report` returns.
/// On failure `*out_pending` is set to NULL (when it can be written).
///
/// Thread safety: any thread, as `tickreel_shadow_buffer_report`.
#[bridge_fn(
    c = "tickreel_shadow_buffer_report_uuid",
    c_out = "out_pending",
    java = "shadowBufferReportUuid"
)]
pub fn report_uuid(
    shadow: &ShadowBuffer,
    uuid: Option<uuid::Uuid>,
    path: &Path,
    options: Option<&ReportOptions>,
    metadata: StringPairs,
) -> tickreel::Result<New<Pending>> {
    let uuid = uuid.ok_or_else(|| tickreel::Error::invalid("a report needs the player's UUID"))?;
    let handle = shadow
        .0
        .report_uuid(uuid, path, with_metadata(options, metadata))?;
    Ok(Pending::path(handle))
}

/// The report options with the caller's string pairs as the report compound's metadata.
pub(crate) fn with_metadata(
    options: Option<&ReportOptions>,
    metadata: StringPairs,
) -> shadow::ReportOptions {
    shadow::ReportOptions {
        metadata: metadata
            .0
            .into_iter()
            .map(|(k, v)| (k, fastnbt::Value::String(v)))
            .collect(),
        ..ReportOptions::or_default(options)
    }
}

/// Stores the buffer's counters in `*out_stats`. Never waits for the writer (it takes the
/// buffer's lock briefly).
///
/// Thread safety: any thread, concurrently with any other call.
#[bridge_fn(
    c = "tickreel_shadow_buffer_stats",
    c_out = "out_stats",
    c_out_type = "TickreelShadowStats",
    java = "shadowBufferStats"
)]
pub fn stats(shadow: &ShadowBuffer) -> ShadowStats {
    shadow.0.stats()
}

/// Stores in `*out_attached` whether the stream still feeds the buffer (false once it ended: its
/// recorder freed, aborted or finished, or the engine shut down). Never blocks.
///
/// Thread safety: any thread, concurrently with any other call.
#[bridge_fn(
    c = "tickreel_shadow_buffer_attached",
    c_out = "out_attached",
    java = "shadowBufferIsAttached"
)]
pub fn attached(shadow: &ShadowBuffer) -> bool {
    shadow.0.is_attached()
}

/// Frees a shadow handle. Reports already made go on (their finish handles stay valid); the
/// buffer's memory is released once its stream has ended too (see `tickreel_shadow_buffer_start`).
/// `tickreel_shadow_buffer_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed or invalid
/// handle returns `TICKREEL_RESULT_INVALID_HANDLE`. Never blocks.
///
/// Thread safety: any thread. A call on the same shadow still running in another thread finishes
/// normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[bridge_fn(c = "tickreel_shadow_buffer_free")]
pub fn free(_shadow: Released<ShadowBuffer>) {}

/// Counters of a shadow buffer, as filled in by `tickreel_shadow_buffer_stats`. Bytes are the heap
/// allocations the buffer holds, measured as they are made.
#[bridge_struct(c = "TickreelShadowStats", of = "tickreel::shadow::ShadowStats")]
pub struct ShadowStatsFields {
    /// Heap bytes of the retained blocks.
    pub bytes: usize,
    /// Blocks retained.
    pub blocks: usize,
    /// Entities alive now.
    pub alive_entities: usize,
    /// Players who left within their grace period.
    pub departed_players: usize,
    /// Reports waiting for their capture to end.
    pub reports_capturing: usize,
    /// Blocks dropped because the window no longer needed them.
    pub expired_blocks: u64,
    /// Blocks given up for a memory budget (the buffer's `max_bytes` or the engine's
    /// `shadow_budget_bytes`) while still inside the window.
    pub budget_dropped_blocks: u64,
    /// Ticks of those blocks.
    pub budget_dropped_ticks: u64,
    /// Reports handed to the engine's background worker.
    pub reports_started: u64,
    /// First tick retained in blocks, if a block is retained.
    pub first_tick: Option<u32>,
    /// Last tick retained in blocks (later ticks wait in the open block), if a block is retained.
    pub last_tick: Option<u32>,
}
