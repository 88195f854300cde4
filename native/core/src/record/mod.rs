//! The write path: chunking, compacted files, the live recorder (engine, queue, writer thread,
//! segments, flush policy), compaction and crash recovery.

mod analysis;
pub mod chunker;
pub mod compact;
mod compaction_worker;
pub mod engine;
pub mod finish;
mod open_recording;
mod pool;
mod publish;
pub mod recorder;
pub mod recover;
pub mod reel_writer;
mod writer_thread;

pub use chunker::{ChunkPolicy, Chunker, Frame, check_zstd_level};
pub use compact::{CompactOptions, CompactReport, compact, compact_in};
pub use engine::{Engine, EngineOptions, EngineStats};
pub use finish::FinishHandle;
pub use publish::{PublishError, UnpublishedReel};
pub use recorder::{
    Backpressure, FlushPolicy, Recorder, RecorderOptions, RecorderStats, SnapshotProvider,
    Submitted,
};
pub use recover::{RecoverReport, recover};
pub use reel_writer::{RecordingInfo, ReelOptions, ReelWriter};
