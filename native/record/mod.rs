//! The write path: chunking, compacted files.

pub mod chunker;
pub mod reel_writer;

pub use chunker::{ChunkPolicy, Chunker, Frame};
pub use reel_writer::{RecordingInfo, ReelOptions, ReelWriter};
