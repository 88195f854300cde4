//! The write path: chunking, compacted files, the live recorder (engine, queue, writer thread,
//! segments, flush policy), compaction and crash recovery.

pub mod chunker;
pub mod compact;
pub mod engine;
pub mod finish;
mod pool;
pub mod recorder;
pub mod recover;
pub mod reel_writer;
mod writer;

pub use chunker::{ChunkPolicy, Chunker, Frame, check_zstd_level};
pub use compact::{CompactOptions, CompactReport, compact};
pub use engine::{Engine, EngineOptions, EngineStats};
pub use finish::FinishHandle;
pub use recorder::{
    Backpressure, FlushPolicy, Recorder, RecorderOptions, RecorderStats, SnapshotProvider,
    Submitted,
};
pub use recover::{RecoverReport, recover};
pub use reel_writer::{PublishError, RecordingInfo, ReelOptions, ReelWriter, UnpublishedReel};
