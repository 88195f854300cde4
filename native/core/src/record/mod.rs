//! The write path: chunking, compacted files, the live recorder (engine, queue, writer thread,
//! segments, flush policy), compaction and crash recovery.
//!
//! Its files import each other in one direction, from the top down (`tests/layers.sh` checks
//! that no circle comes back, and that nothing here imports the read path, `crate::play`; what
//! both read recordings with, the `Reader`, lives below both in `crate::reader`):
//! - the handles: `engine` (the `Engine`, which makes the shared state and starts the threads),
//!   `recorder` (the `Recorder` a server thread submits to; `recorder::messages`, its calls
//!   besides ticks, `recorder::ending`, its endings) and `recorder_options`;
//! - a writer thread and its work: `writer_thread` (its loop; `writer_thread::staged`, its side of
//!   the staging rings), `open_recording` (one recording on its writer; `open_recording::flush`),
//!   `resume`, `restart` (a live recording found at start: resumed, set aside or refused),
//!   `sync_round` (group commit), `compaction_worker` and `background`;
//! - what the engine's threads and handles share: `engine_shared` (the engine's state: storage,
//!   pool, hot slots, `budget`, `counters`, `held` memory, and with feature `test-hooks` only,
//!   the writers' `stall` hook), `rec_shared` (one recording's), `hot_slots` (what `submit_tick`
//!   touches, and a recording's lifecycle states), `staging`, `returns`, `msg`, `tick_bytes`,
//!   `pool`, `finish`, `panics`;
//! - files, below any engine: `compact`, `recover`, `reel_writer` (the synchronous writer),
//!   `publish`, `chunker`, `analysis`, `info` and `observer`.

pub(crate) mod analysis;
pub(crate) mod background;
mod budget;
pub(crate) mod chunker;
mod compact;
pub(crate) mod compaction_worker;
mod counters;
pub(crate) mod engine;
mod engine_shared;
pub(crate) mod finish;
pub(crate) mod held;
mod hot_slots;
mod identity;
mod msg;
pub mod observer;
mod open_recording;
mod panics;
pub(crate) mod player_analysis;
mod pool;
mod publish;
mod rec_shared;
mod recorder;
mod recorder_options;
mod recover;
mod reel_writer;
mod restart;
mod resume;
mod returns;
mod staging;
#[cfg(feature = "test-hooks")]
mod stall;
mod sync_round;
mod tick_bytes;
mod writer_thread;

pub use chunker::{
    COMPACTED_BLOCK_CHUNK_BYTES, COMPACTED_CHUNK_BYTES, COMPACTED_CHUNK_TICKS, ChunkPolicy,
    Chunker, Frame, SPARSE_BYTES_PER_TICK, SPARSE_ZSTD_LEVEL,
};
pub use compact::{CompactOptions, CompactReport, compact, compact_in};
pub use engine::{Engine, EngineOptions, EngineStats, MAX_WRITER_THREADS};
pub use identity::RecordingIdentity;
pub use observer::{MetadataChange, StreamEnd, StreamObserver, StreamStart};
pub use publish::{PublishError, UnpublishedReel};
pub use recorder::{
    Backpressure, DEFAULT_BLOCK_DEADLINE, FlushPolicy, MAX_PREVIOUS_RECORDINGS, OnExisting,
    Recorder, RecorderOptions, RecorderStats, SnapshotProvider, Submitted,
};
pub use recover::{RecoverReport, recover, recover_live, recover_live_with, recover_with_progress};
pub use reel_writer::{ReelOptions, ReelWriter};
