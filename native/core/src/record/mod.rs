//! The write path: chunking, compacted files, the live recorder (engine, queue, writer thread,
//! segments, flush policy), compaction and crash recovery.

pub(crate) mod analysis;
pub(crate) mod background;
mod budget;
mod chunker;
mod compact;
pub(crate) mod compaction_worker;
mod counters;
pub(crate) mod engine;
mod engine_shared;
mod finish;
pub(crate) mod held;
mod hot_slots;
mod info;
mod msg;
pub mod observer;
mod open_recording;
mod panics;
mod pool;
mod publish;
mod rec_shared;
mod recorder;
mod recorder_options;
mod recover;
mod reel_writer;
mod resume;
mod returns;
mod staging;
#[cfg(feature = "test-hooks")]
mod stall;
mod sync_round;
mod tick_bytes;
mod writer_thread;

pub use chunker::{
    COMPACTED_CHUNK_BYTES, COMPACTED_CHUNK_TICKS, ChunkPolicy, Chunker, Frame, check_zstd_level,
};
pub use compact::{CompactOptions, CompactReport, compact, compact_in};
pub use engine::{Engine, EngineOptions, EngineStats, MAX_WRITER_THREADS};
pub use finish::FinishHandle;
pub use info::RecordingInfo;
pub use observer::{MetadataChange, StreamEnd, StreamObserver, StreamStart};
pub use publish::{PublishError, UnpublishedReel};
pub use recorder::{
    Backpressure, FlushPolicy, Recorder, RecorderOptions, RecorderStats, SnapshotProvider,
    Submitted,
};
pub use recover::{RecoverReport, recover, recover_live, recover_with_progress};
pub use reel_writer::{ReelOptions, ReelWriter};
