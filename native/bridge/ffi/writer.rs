//! The compacted-file writer (`ReelWriter`): ticks go straight into a finished `.reel` file,
//! encoded and compressed on the calling thread. For recording a live server with almost no cost
//! on the server thread, use the recorder instead. Here: the writer's C types (the operations are
//! `crate::api::writer`, whose entry points are generated).

use super::convert::{CArg, CResult};
use super::result::{FfiError, FfiResult};
use tickreel::record::{ChunkPolicy, RecordingInfo, ReelOptions};

/// The generated entry points of `crate::api::writer`, also reachable here.
pub use super::generated::writer::*;

/// A writer of one compacted `.reel` file. Opaque: create with `tickreel_reel_writer_create`, release
/// with `tickreel_reel_writer_free`. The pointer is a handle, not an address: never dereference it.
pub struct TickreelReelWriter {
    _private: [u8; 0],
}

/// Options of `tickreel_reel_writer_create`. Fill with `tickreel_reel_options_default`, then change
/// what you need.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TickreelReelOptions {
    /// Ticks per second times 1000 (default 20000: 20 ticks/s). Must be > 0.
    pub tick_rate_millihz: u32,
    /// The game's own data version (e.g. a Minecraft data version), opaque to tickreel.
    pub game_data_version: u32,
    /// Unix milliseconds when the recording started.
    pub timestamp_ms: i64,
    /// World identity, opaque to tickreel (e.g. a UUID).
    pub world_id: [u8; 16],
    /// World version, opaque to tickreel.
    pub world_version: [u8; 16],
    /// Zstd dictionary id (0: none); a non-zero id must have been registered with the library.
    pub dictionary_id: u16,
    /// Zstd compression level (default 9 for finished files).
    pub zstd_level: i32,
    /// Most ticks one chunk spans (default 100). 1 to 1048576.
    pub chunk_ticks: u32,
    /// Cut a chunk once its uncompressed payload reaches about this many bytes (default 1 MiB).
    /// Must be > 0.
    pub chunk_bytes: usize,
    /// Ticks between snapshots (default 600). Must be > 0.
    pub snapshot_interval: u32,
}

impl TickreelReelOptions {
    fn from_core(o: &ReelOptions) -> Self {
        TickreelReelOptions {
            tick_rate_millihz: o.info.tick_rate_millihz,
            game_data_version: o.info.game_data_version,
            timestamp_ms: o.info.timestamp_ms,
            world_id: o.info.world_id,
            world_version: o.info.world_version,
            dictionary_id: o.info.dictionary_id,
            zstd_level: o.policy.zstd_level,
            chunk_ticks: o.policy.chunk_ticks,
            chunk_bytes: o.policy.chunk_bytes,
            snapshot_interval: o.policy.snapshot_interval,
        }
    }

    /// A translation only: `ReelWriter::create` checks the values (`RecordingInfo::validate`,
    /// `ChunkPolicy::validate`).
    fn to_core(self) -> ReelOptions {
        ReelOptions {
            info: RecordingInfo {
                world_id: self.world_id,
                world_version: self.world_version,
                timestamp_ms: self.timestamp_ms,
                tick_rate_millihz: self.tick_rate_millihz,
                game_data_version: self.game_data_version,
                dictionary_id: self.dictionary_id,
            },
            policy: ChunkPolicy {
                chunk_ticks: self.chunk_ticks,
                chunk_bytes: self.chunk_bytes,
                snapshot_interval: self.snapshot_interval,
                zstd_level: self.zstd_level,
            },
        }
    }
}

/// The caller's options (NULL: `tickreel_reel_options_default`'s).
impl CArg for ReelOptions {
    type C = *const TickreelReelOptions;
    type Stored = ReelOptions;
    unsafe fn store(
        options: *const TickreelReelOptions,
        _: &'static str,
    ) -> FfiResult<ReelOptions> {
        if options.is_null() {
            return Ok(ReelOptions::compacted());
        }
        if !options.is_aligned() {
            return Err(FfiError::Invalid("`options` is misaligned".into()));
        }
        // SAFETY: non-NULL, aligned and readable by the caller's contract; every field is plain
        // data valid for any bit pattern.
        Ok(unsafe { options.read() }.to_core())
    }
}

impl CResult for ReelOptions {
    type C = TickreelReelOptions;
    fn into_c(self) -> FfiResult<TickreelReelOptions> {
        Ok(TickreelReelOptions::from_core(&self))
    }
}
