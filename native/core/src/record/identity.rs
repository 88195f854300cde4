//! A recording's identity and timing ([`RecordingInfo`]): what its header says of the world, the
//! game and the tick rate, given by whoever writes it (a recorder's options, the synchronous
//! writer, compaction) and written by `publish`.

use crate::error::{Error, Result};

/// Identity and timing of a recording, written to the header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordingInfo {
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

impl RecordingInfo {
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

impl Default for RecordingInfo {
    fn default() -> Self {
        RecordingInfo {
            world_id: [0; 16],
            world_version: [0; 16],
            timestamp_ms: 0,
            tick_rate_millihz: 20_000,
            game_data_version: 0,
            dictionary_id: 0,
        }
    }
}
