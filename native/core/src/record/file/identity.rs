//! A recording's identity ([`RecordingIdentity`]): what its header says of the world, the game, its
//! start and its tick rate (and the dictionary its chunks need), given by whoever writes it (a
//! recorder's options, the synchronous writer, compaction) and written by `publish`.

use crate::error::{Error, Result};

/// A recording's identity (world, world version, start time, tick rate, game data version, and the
/// dictionary its chunks are compressed with), written to the header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordingIdentity {
    pub world_id: [u8; 16],
    pub world_version: [u8; 16],
    /// Unix milliseconds when the recording started.
    pub timestamp_ms: i64,
    /// Ticks per second times 1000.
    pub tick_rate_millihz: u32,
    /// The game's own data version.
    pub game_data_version: u32,
    /// Zstd dictionary id (0 = none); the dictionary must be registered.
    pub dictionary_id: u16,
}

impl RecordingIdentity {
    /// Checks the values a reader depends on.
    pub fn validate(&self) -> Result<()> {
        if self.tick_rate_millihz == 0 {
            return Err(Error::invalid(format!(
                "the tick rate {} must be positive",
                crate::error::option("tick_rate_millihz")
            )));
        }
        Ok(())
    }
}

impl Default for RecordingIdentity {
    fn default() -> Self {
        RecordingIdentity {
            world_id: [0; 16],
            world_version: [0; 16],
            timestamp_ms: 0,
            tick_rate_millihz: 20_000,
            game_data_version: 0,
            dictionary_id: 0,
        }
    }
}
