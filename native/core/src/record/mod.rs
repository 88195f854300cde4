//! The write path: chunking, compacted files, the live recorder (engine, queue, writer thread,
//! segments, flush policy), compaction and crash recovery.
//!
//! Its folders are its floors, from the bottom up; a file imports only its own folder and the
//! folders below it (`tests/layers.sh` checks that no circle of imports comes back, and that
//! nothing here imports the read path, `crate::play`; what both read recordings with, the
//! `Reader`, lives below both in `crate::reader`):
//! 1. [`encode`]: what ticks become, with no file and no thread: `chunker` (chunks, compressed
//!    into frames), `analysis` and `player_analysis` (the analysis metadata);
//! 2. [`file`]: recordings as files, below any engine: `identity` (what a header says of the
//!    recording), `publish` (a compacted file's bytes on their way to its path), `reel_writer`
//!    (the synchronous writer), `compact` (a live recording or frames in memory -> one `.reel`)
//!    and `recover` (crash recovery of a live directory);
//! 3. [`options`]: what a recording is started with: `recorder_options` and the stream
//!    `observer`s it names (a `shadow::ShadowBuffer` is one);
//! 4. [`shared`]: what the engine's threads and handles share: `engine_shared` (the engine's
//!    state: storage, `pool`, `hot_slots`, `budget`, `counters`, `held` memory, and with feature
//!    `test-hooks` only, the writers' `stall` hook), `rec_shared` (one recording's), `hot_slots`
//!    (what `submit_tick` touches, and a recording's lifecycle states), `staging` (the rings
//!    `submit_tick` writes into), `tick_bytes` and `msg` (what travels on a writer's queue),
//!    `finish` (where an ending delivers its result) and `panics`;
//! 5. [`worker`]: the engine's background worker: `compaction_worker` (its loop: each
//!    finished recording compacted) and `background` (work queued behind the compactions, such
//!    as a shadow-play report);
//! 6. [`writer`]: a writer thread and its work: `writer_thread` (its loop;
//!    `writer_thread::staged`, its side of the staging rings), `open_recording` (one recording
//!    on its writer: decode, chunk, segments; `open_recording::flush`), `sync_round` (group
//!    commit), `returns` (what it gives back to the server threads), `resume` and `restart` (a
//!    live recording found at start: resumed, set aside or refused);
//! 7. the handles, on top: `recorder` (the `Recorder` a server thread submits to, on the
//!    server's tick thread; `recorder::messages`, its calls besides ticks, `recorder::ending`,
//!    its endings) and `engine` (the `Engine`, which makes the shared state and starts the
//!    threads).

pub(crate) mod encode;
pub(crate) mod engine;
pub(crate) mod file;
pub(crate) mod options;
mod recorder;
pub(crate) mod shared;
pub(crate) mod worker;
pub(crate) mod writer;

pub use encode::chunker::{
    COMPACTED_BLOCK_CHUNK_BYTES, COMPACTED_CHUNK_BYTES, COMPACTED_CHUNK_TICKS, ChunkPolicy,
    Chunker, Frame, SPARSE_BYTES_PER_TICK, SPARSE_ZSTD_LEVEL,
};
pub use engine::{Engine, EngineOptions, EngineStats, MAX_WRITER_THREADS};
pub use file::compact::{CompactOptions, CompactReport, compact, compact_in};
pub use file::identity::RecordingIdentity;
pub use file::publish::{PublishError, UnpublishedReel};
pub use file::recover::{
    RecoverReport, recover, recover_live, recover_live_with, recover_with_progress,
};
pub use file::reel_writer::{ReelOptions, ReelWriter};
pub use options::observer::{MetadataChange, StreamEnd, StreamObserver, StreamStart};
pub use recorder::{
    Backpressure, DEFAULT_BLOCK_DEADLINE, FlushPolicy, MAX_PREVIOUS_RECORDINGS, OnExisting,
    Recorder, RecorderOptions, RecorderStats, SnapshotProvider, Submitted,
};
