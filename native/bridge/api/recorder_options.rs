//! A recording's options as a builder (C: `TickreelRecorderOptions`, Java: what
//! `RecorderOptions` builds through): a handle holding the core's [`record::RecorderOptions`],
//! starting from its defaults, with one setter per option. Each setter only translates its value
//! (one name and one unit in every language: durations in milliseconds, flags as `bool`, choices
//! as the `TICKREEL_*` numbers); the core checks the whole when a recording starts
//! (`RecorderOptions::validate` and friends), naming the option by its setter. Adding an option
//! adds a setter here and changes no existing symbol.

use std::time::Duration;

use tickreel_sync::sync::Mutex;

use crate::api::{Id, New};
use crate::shared::handle::HandleType;
use tickreel::error::option;
use tickreel::record::{self, Backpressure, DEFAULT_BLOCK_DEADLINE, OnExisting};
use tickreel_bridge_macros::bridge_fn;

/// A recording's options being built (C: `TickreelRecorderOptions`; Java: the handle
/// `RecorderOptions` fills for each start).
pub struct RecorderOptions(Mutex<Building>);

/// The options, and the block deadline kept while the drop policy is chosen.
struct Building {
    options: record::RecorderOptions,
    block_deadline: Duration,
    drop: bool,
}

impl HandleType for RecorderOptions {
    const TAG: u8 = 18;
    const NAME: &'static str = "recorder options";
}

impl RecorderOptions {
    /// The options as they are now (the builder stays usable).
    pub(crate) fn get(&self) -> record::RecorderOptions {
        let b = self.0.lock();
        let mut options = b.options.clone();
        options.backpressure = if b.drop {
            Backpressure::Drop
        } else {
            Backpressure::Block {
                deadline: b.block_deadline,
            }
        };
        options
    }

    /// The options given, or the defaults for none.
    pub(crate) fn or_default(options: Option<&RecorderOptions>) -> record::RecorderOptions {
        options.map_or_else(record::RecorderOptions::default, RecorderOptions::get)
    }

    fn set(&self, f: impl FnOnce(&mut record::RecorderOptions)) -> tickreel::Result<()> {
        f(&mut self.0.lock().options);
        Ok(())
    }
}

/// A duration given in milliseconds (every option builder's unit).
pub(crate) fn ms(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

/// An invalid value of the option `name` (a translation error: out of the C or Java type's range,
/// or a choice out of its constants).
pub(crate) fn invalid(name: &str, what: String) -> tickreel::Error {
    tickreel::Error::invalid(format!("{} {what}", option(name)))
}

/// A dictionary id as the format stores it (the setters take a `uint32_t`: larger ids are refused
/// here, naming the setter).
pub(crate) fn dictionary(dictionary_id: u32) -> tickreel::Result<u16> {
    u16::try_from(dictionary_id).map_err(|_| {
        invalid(
            "dictionary_id",
            format!("must be between 0 and 65535 (got {dictionary_id})"),
        )
    })
}

/// Creates a recording's options with the defaults (20 ticks/s, 100-tick live chunks at zstd
/// level 3, a snapshot every 600 ticks, flush every 5 s / 256 KiB / on player leave, block up to
/// 1 ms under backpressure, start fresh where a live recording exists, compaction at zstd level 9
/// with verification, batches up to 1 MiB, no overwrite), into `*out_options`. Change them with
/// the `tickreel_recorder_options_set_*` functions, pass them to `tickreel_recorder_start` (which
/// reads them: one options handle may start many recordings) and free them with
/// `tickreel_recorder_options_free`.
///
/// Thread safety: any thread; options may be set from several threads (each setter is atomic)
/// and read by a start on another.
#[bridge_fn(
    c = "tickreel_recorder_options_new",
    c_out = "out_options",
    java = "recorderOptionsNew"
)]
pub fn recorder_options_new() -> New<RecorderOptions> {
    New(RecorderOptions(Mutex::new(Building {
        options: record::RecorderOptions::default(),
        block_deadline: DEFAULT_BLOCK_DEADLINE,
        drop: false,
    })))
}

/// Frees recorder options (recordings started with them keep their copy). NULL is a no-op.
///
/// Thread safety: any thread.
#[bridge_fn(c = "tickreel_recorder_options_free")]
pub fn recorder_options_free(_options: crate::api::Released<RecorderOptions>) {}

/// The game's tick rate in ticks per second times 1000 (default 20000: 20 ticks/s). Must be > 0.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_tick_rate_millihz",
    java = "recorderOptionsSetTickRateMillihz"
)]
pub fn set_tick_rate_millihz(
    options: &RecorderOptions,
    tick_rate_millihz: u32,
) -> tickreel::Result<()> {
    options.set(|o| o.identity.tick_rate_millihz = tick_rate_millihz)
}

/// The game's own data version (e.g. a Minecraft data version), opaque to tickreel (default 0).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_game_data_version",
    java = "recorderOptionsSetGameDataVersion"
)]
pub fn set_game_data_version(
    options: &RecorderOptions,
    game_data_version: Id,
) -> tickreel::Result<()> {
    options.set(|o| o.identity.game_data_version = game_data_version.0)
}

/// When the recording started, in Unix milliseconds (default 0).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_timestamp_ms",
    java = "recorderOptionsSetTimestampMs"
)]
pub fn set_timestamp_ms(options: &RecorderOptions, timestamp_ms: i64) -> tickreel::Result<()> {
    options.set(|o| o.identity.timestamp_ms = timestamp_ms)
}

/// The world's identity, opaque to tickreel (e.g. a UUID): 16 bytes, NULL for all zero (the
/// default).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_world_id",
    java = "recorderOptionsSetWorldId"
)]
pub fn set_world_id(
    options: &RecorderOptions,
    world_id: Option<uuid::Uuid>,
) -> tickreel::Result<()> {
    options.set(|o| o.identity.world_id = world_id.unwrap_or_default().into_bytes())
}

/// The world's version, opaque to tickreel: 16 bytes, NULL for all zero (the default).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_world_version",
    java = "recorderOptionsSetWorldVersion"
)]
pub fn set_world_version(
    options: &RecorderOptions,
    world_version: Option<uuid::Uuid>,
) -> tickreel::Result<()> {
    options.set(|o| o.identity.world_version = world_version.unwrap_or_default().into_bytes())
}

/// The zstd dictionary (1 to 65535; 0 for none, the default) the live segments and the compacted
/// file are compressed with; it must have been registered (`tickreel_dictionary_register`).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_dictionary_id",
    java = "recorderOptionsSetDictionaryId"
)]
pub fn set_dictionary_id(options: &RecorderOptions, dictionary_id: u32) -> tickreel::Result<()> {
    let dictionary_id = dictionary(dictionary_id)?;
    options.set(|o| o.identity.dictionary_id = dictionary_id)
}

/// Most ticks one live chunk spans (default 100). 1 to 1048576.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_chunk_ticks",
    java = "recorderOptionsSetChunkTicks"
)]
pub fn set_chunk_ticks(options: &RecorderOptions, chunk_ticks: u32) -> tickreel::Result<()> {
    options.set(|o| o.chunk_policy.chunk_ticks = chunk_ticks)
}

/// Cut a live chunk once its uncompressed payload reaches about this many bytes (default 1 MiB).
/// Must be > 0.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_chunk_bytes",
    java = "recorderOptionsSetChunkBytes"
)]
pub fn set_chunk_bytes(options: &RecorderOptions, chunk_bytes: usize) -> tickreel::Result<()> {
    options.set(|o| o.chunk_policy.chunk_bytes = chunk_bytes)
}

/// Ticks between snapshots (default 600). Must be > 0.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_snapshot_interval",
    java = "recorderOptionsSetSnapshotInterval"
)]
pub fn set_snapshot_interval(
    options: &RecorderOptions,
    snapshot_interval: u32,
) -> tickreel::Result<()> {
    options.set(|o| o.chunk_policy.snapshot_interval = snapshot_interval)
}

/// Zstd level of the live segments, -7 to 22 (default 3: fast).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_zstd_level",
    java = "recorderOptionsSetZstdLevel"
)]
pub fn set_zstd_level(options: &RecorderOptions, zstd_level: i32) -> tickreel::Result<()> {
    options.set(|o| o.chunk_policy.zstd_level = zstd_level)
}

/// Flush at least this often while ticks arrive, in milliseconds (default 5000). Must be > 0.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_flush_interval",
    java = "recorderOptionsSetFlushInterval"
)]
pub fn set_flush_interval(options: &RecorderOptions, flush_interval: u64) -> tickreel::Result<()> {
    options.set(|o| o.flush.interval = ms(flush_interval))
}

/// Flush once this many compressed bytes are waiting (default 256 KiB). Must be > 0.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_flush_max_pending_bytes",
    java = "recorderOptionsSetFlushMaxPendingBytes"
)]
pub fn set_flush_max_pending_bytes(
    options: &RecorderOptions,
    flush_max_pending_bytes: usize,
) -> tickreel::Result<()> {
    options.set(|o| o.flush.max_pending_bytes = flush_max_pending_bytes)
}

/// Flush when a player leaves (a `PlayerLeave` event or `tickreel_recorder_player_left`)
/// (default true).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_flush_on_player_leave",
    java = "recorderOptionsSetFlushOnPlayerLeave"
)]
pub fn set_flush_on_player_leave(
    options: &RecorderOptions,
    flush_on_player_leave: bool,
) -> tickreel::Result<()> {
    options.set(|o| o.flush.on_player_leave = flush_on_player_leave)
}

/// `TICKREEL_BACKPRESSURE_BLOCK` (the default) or `TICKREEL_BACKPRESSURE_DROP`. When the writer
/// falls behind, the default holds the calling thread up to the block deadline (1 ms: 2% of a
/// 50 ms tick), then drops the tick: counted (`dropped_ticks` in the recorder's and the engine's
/// stats), recorded as a gap in the recording, and returned as `TICKREEL_RESULT_BACKPRESSURE`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for another value.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_backpressure",
    java = "recorderOptionsSetBackpressure"
)]
pub fn set_backpressure(options: &RecorderOptions, backpressure: u32) -> tickreel::Result<()> {
    let drop = match backpressure {
        0 => false,
        1 => true,
        other => {
            return Err(invalid(
                "backpressure",
                format!(
                    "{other} is neither TICKREEL_BACKPRESSURE_BLOCK (0) nor \
                     TICKREEL_BACKPRESSURE_DROP (1)"
                ),
            ));
        }
    };
    options.0.lock().drop = drop;
    Ok(())
}

/// With `TICKREEL_BACKPRESSURE_BLOCK`: the longest `tickreel_recorder_submit_tick` waits for
/// room, in milliseconds (default 1; the call returns within about this + 1 ms). A whole tick (50)
/// or more lets a stalled writer stall the server.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_block_deadline",
    java = "recorderOptionsSetBlockDeadline"
)]
pub fn set_block_deadline(options: &RecorderOptions, block_deadline: u64) -> tickreel::Result<()> {
    options.0.lock().block_deadline = ms(block_deadline);
    Ok(())
}

/// Zstd level of the final compacted file, -7 to 22 (default 9).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_compaction_zstd_level",
    java = "recorderOptionsSetCompactionZstdLevel"
)]
pub fn set_compaction_zstd_level(
    options: &RecorderOptions,
    compaction_zstd_level: i32,
) -> tickreel::Result<()> {
    options.set(|o| o.compaction.zstd_level = compaction_zstd_level)
}

/// Most ticks a chunk of the final compacted file spans (default 12000; chunks are cut sooner at
/// 64 KiB of payload). 1 to 1048576.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_compaction_chunk_ticks",
    java = "recorderOptionsSetCompactionChunkTicks"
)]
pub fn set_compaction_chunk_ticks(
    options: &RecorderOptions,
    compaction_chunk_ticks: u32,
) -> tickreel::Result<()> {
    options.set(|o| o.compaction.chunk_ticks = compaction_chunk_ticks)
}

/// Read the final file back and check it before reporting the finish done (default true).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_compaction_verify",
    java = "recorderOptionsSetCompactionVerify"
)]
pub fn set_compaction_verify(
    options: &RecorderOptions,
    compaction_verify: bool,
) -> tickreel::Result<()> {
    options.set(|o| o.compaction.verify = compaction_verify)
}

/// Largest accepted tick batch in bytes (default 1 MiB). At least 2 (an empty tick), at most the
/// format's limit for one tick.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_max_batch_bytes",
    java = "recorderOptionsSetMaxBatchBytes"
)]
pub fn set_max_batch_bytes(
    options: &RecorderOptions,
    max_batch_bytes: usize,
) -> tickreel::Result<()> {
    options.set(|o| o.max_batch_bytes = max_batch_bytes)
}

/// Replace an existing finished file at the path instead of refusing (default false). A live
/// recording of the path is `on_existing`'s (with `TICKREEL_ON_EXISTING_RESUME`, resumed, and its
/// finish replaces the file).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_overwrite",
    java = "recorderOptionsSetOverwrite"
)]
pub fn set_overwrite(options: &RecorderOptions, overwrite: bool) -> tickreel::Result<()> {
    options.set(|o| o.overwrite = overwrite)
}

/// What starting does with a live recording of the path (a stopped or crashed server's):
/// `TICKREEL_ON_EXISTING_START_FRESH` (the default: kept aside as `STEM.previous-N.EXT`, never
/// lost, and a new recording starts, so ticks may start again at 0), `TICKREEL_ON_EXISTING_RESUME`
/// (continue it after its last tick) or `TICKREEL_ON_EXISTING_REFUSE`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for another value.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_recorder_options_set_on_existing",
    java = "recorderOptionsSetOnExisting"
)]
pub fn set_on_existing(options: &RecorderOptions, on_existing: u32) -> tickreel::Result<()> {
    let on_existing = match on_existing {
        0 => OnExisting::Resume,
        1 => OnExisting::StartFresh,
        2 => OnExisting::Refuse,
        other => {
            return Err(invalid(
                "on_existing",
                format!(
                    "{other} is none of TICKREEL_ON_EXISTING_RESUME (0), \
                     TICKREEL_ON_EXISTING_START_FRESH (1) and TICKREEL_ON_EXISTING_REFUSE (2)"
                ),
            ));
        }
    };
    options.set(|o| o.on_existing = on_existing)
}
