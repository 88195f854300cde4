//! The tickreel format, bytes only: no files, no threads. See FORMAT.md for every byte.

pub mod bytes;
pub mod chunk;
pub mod encoder;
pub mod event;
pub mod frame;
pub mod header;
pub mod index;
pub mod metadata;
pub mod movement;
pub mod pose;
pub mod state;

pub use header::DATA_VERSION;

/// Limits applied to every length read from untrusted bytes before anything is allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest metadata section accepted.
    pub max_metadata_bytes: usize,
    /// Largest index section accepted.
    pub max_index_bytes: usize,
    /// Largest uncompressed chunk payload accepted.
    pub max_chunk_bytes: usize,
    /// Most ticks one chunk may span.
    pub max_chunk_ticks: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_metadata_bytes: 16 << 20,
            max_index_bytes: 256 << 20,
            max_chunk_bytes: 64 << 20,
            max_chunk_ticks: 1 << 20,
        }
    }
}
