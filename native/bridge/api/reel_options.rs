//! A finished file's options as a builder (C: `TickreelReelOptions`, Java: what `ReelOptions`
//! builds through), as [`crate::api::recorder_options`]: a handle holding the core's
//! [`record::ReelOptions`], starting from the defaults for a finished file
//! ([`record::ReelOptions::compacted`]), with one setter per option; the core checks the whole
//! when the writer is created (`RecordingIdentity::validate`, `ChunkPolicy::validate`).

use tickreel_sync::sync::Mutex;

use crate::api::recorder_options::dictionary;
use crate::api::{Id, New, Released};
use crate::shared::handle::HandleType;
use tickreel::record;
use tickreel_bridge_macros::bridge_fn;

/// A finished file's options being built (C: `TickreelReelOptions`; Java: the handle
/// `ReelOptions` fills for each writer).
pub struct ReelOptions(Mutex<record::ReelOptions>);

impl HandleType for ReelOptions {
    const TAG: u8 = 25;
    const NAME: &'static str = "reel options";
}

impl ReelOptions {
    /// The options given, or the defaults for none.
    pub(crate) fn or_default(options: Option<&ReelOptions>) -> record::ReelOptions {
        options.map_or_else(record::ReelOptions::compacted, |o| o.0.lock().clone())
    }

    fn set(&self, f: impl FnOnce(&mut record::ReelOptions)) -> tickreel::Result<()> {
        f(&mut self.0.lock());
        Ok(())
    }
}

/// Creates a finished file's options with the defaults (20 ticks/s, zstd level 9, chunks of up to
/// 12000 ticks cut at 64 KiB of payload, a snapshot every 600 ticks, started at 0), into
/// `*out_options`. Change them with the `tickreel_reel_options_set_*` functions, pass them to
/// `tickreel_reel_writer_create` (which reads them: one options handle may create many writers)
/// and free them with `tickreel_reel_options_free`.
///
/// Thread safety: any thread; each setter is atomic, and a create on another thread reads them.
#[bridge_fn(
    c = "tickreel_reel_options_new",
    c_out = "out_options",
    java = "reelOptionsNew"
)]
pub fn reel_options_new() -> New<ReelOptions> {
    New(ReelOptions(Mutex::new(record::ReelOptions::compacted())))
}

/// Frees a finished file's options (writers created with them keep their copy). NULL is a no-op.
///
/// Thread safety: any thread.
#[bridge_fn(c = "tickreel_reel_options_free")]
pub fn reel_options_free(_options: Released<ReelOptions>) {}

/// The game's tick rate in ticks per second times 1000 (default 20000: 20 ticks/s). Must be > 0.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_reel_options_set_tick_rate_millihz",
    java = "reelOptionsSetTickRateMillihz"
)]
pub fn set_tick_rate_millihz(
    options: &ReelOptions,
    tick_rate_millihz: u32,
) -> tickreel::Result<()> {
    options.set(|o| o.identity.tick_rate_millihz = tick_rate_millihz)
}

/// The game's own data version (e.g. a Minecraft data version), opaque to tickreel (default 0).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_reel_options_set_game_data_version",
    java = "reelOptionsSetGameDataVersion"
)]
pub fn set_game_data_version(options: &ReelOptions, game_data_version: Id) -> tickreel::Result<()> {
    options.set(|o| o.identity.game_data_version = game_data_version.0)
}

/// When the recording started, in Unix milliseconds (default 0).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_reel_options_set_timestamp_ms",
    java = "reelOptionsSetTimestampMs"
)]
pub fn set_timestamp_ms(options: &ReelOptions, timestamp_ms: i64) -> tickreel::Result<()> {
    options.set(|o| o.identity.timestamp_ms = timestamp_ms)
}

/// The world's identity, opaque to tickreel (e.g. a UUID): 16 bytes, NULL for all zero (the
/// default).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_reel_options_set_world_id",
    java = "reelOptionsSetWorldId"
)]
pub fn set_world_id(options: &ReelOptions, world_id: Option<uuid::Uuid>) -> tickreel::Result<()> {
    options.set(|o| o.identity.world_id = world_id.unwrap_or_default().into_bytes())
}

/// The world's version, opaque to tickreel: 16 bytes, NULL for all zero (the default).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_reel_options_set_world_version",
    java = "reelOptionsSetWorldVersion"
)]
pub fn set_world_version(
    options: &ReelOptions,
    world_version: Option<uuid::Uuid>,
) -> tickreel::Result<()> {
    options.set(|o| o.identity.world_version = world_version.unwrap_or_default().into_bytes())
}

/// The zstd dictionary (1 to 65535; 0 for none, the default) the file's chunks are compressed
/// with; it must have been registered (`tickreel_dictionary_register`).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for an id over 65535.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_reel_options_set_dictionary_id",
    java = "reelOptionsSetDictionaryId"
)]
pub fn set_dictionary_id(options: &ReelOptions, dictionary_id: u32) -> tickreel::Result<()> {
    let dictionary_id = dictionary(dictionary_id)?;
    options.set(|o| o.identity.dictionary_id = dictionary_id)
}

/// Most ticks one chunk spans (default 12000). 1 to 1048576.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_reel_options_set_chunk_ticks",
    java = "reelOptionsSetChunkTicks"
)]
pub fn set_chunk_ticks(options: &ReelOptions, chunk_ticks: u32) -> tickreel::Result<()> {
    options.set(|o| o.chunk_policy.chunk_ticks = chunk_ticks)
}

/// Cut a chunk once its uncompressed payload reaches about this many bytes (default 64 KiB).
/// Must be > 0.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_reel_options_set_chunk_bytes",
    java = "reelOptionsSetChunkBytes"
)]
pub fn set_chunk_bytes(options: &ReelOptions, chunk_bytes: usize) -> tickreel::Result<()> {
    options.set(|o| o.chunk_policy.chunk_bytes = chunk_bytes)
}

/// Ticks between snapshots (default 600). Must be > 0.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_reel_options_set_snapshot_interval",
    java = "reelOptionsSetSnapshotInterval"
)]
pub fn set_snapshot_interval(
    options: &ReelOptions,
    snapshot_interval: u32,
) -> tickreel::Result<()> {
    options.set(|o| o.chunk_policy.snapshot_interval = snapshot_interval)
}

/// Zstd level of the file, -7 to 22 (default 9).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_reel_options_set_zstd_level",
    java = "reelOptionsSetZstdLevel"
)]
pub fn set_zstd_level(options: &ReelOptions, zstd_level: i32) -> tickreel::Result<()> {
    options.set(|o| o.chunk_policy.zstd_level = zstd_level)
}
