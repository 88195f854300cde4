//! The compacted-file writer (`ReelWriter`): ticks go straight into a finished `.reel` file,
//! encoded and compressed on the calling thread. For recording a live server with almost no cost
//! on the server thread, use the recorder instead. Here: the writer's C types (the operations are
//! `crate::api::writer`, whose entry points are generated).

use super::convert::{CArg, CResult};
use super::result::{FfiError, FfiResult};
/// Generated from `native/bridge/options.rs` (see [`crate::ffi::options`]).
pub use crate::ffi::options::TickreelReelOptions;
use tickreel::record::{ChunkPolicy, RecordingIdentity, ReelOptions};

/// The generated entry points of `crate::api::writer`, also reachable here.
pub use super::generated::writer::*;

/// A writer of one compacted `.reel` file. Opaque: create with `tickreel_reel_writer_create`, release
/// with `tickreel_reel_writer_free`. The pointer is a handle, not an address: never dereference it.
pub struct TickreelReelWriter {
    _private: [u8; 0],
}

impl TickreelReelOptions {
    fn from_core(o: &ReelOptions) -> Self {
        TickreelReelOptions {
            tick_rate_millihz: o.identity.tick_rate_millihz,
            game_data_version: o.identity.game_data_version,
            timestamp_ms: o.identity.timestamp_ms,
            world_id: o.identity.world_id,
            world_version: o.identity.world_version,
            dictionary_id: o.identity.dictionary_id,
            zstd_level: o.policy.zstd_level,
            chunk_ticks: o.policy.chunk_ticks,
            chunk_bytes: o.policy.chunk_bytes,
            snapshot_interval: o.policy.snapshot_interval,
        }
    }

    /// A translation only: `ReelWriter::create` checks the values (`RecordingIdentity::validate`,
    /// `ChunkPolicy::validate`).
    fn to_core(self) -> ReelOptions {
        ReelOptions {
            identity: RecordingIdentity {
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
