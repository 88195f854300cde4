//! tickreel: a native replay library for game servers.
//!
//! The public API is the modules below and the names re-exported at the root ([`Engine`],
//! [`Recorder`], [`Event`], [`Pose`], [`Error`], [`Pending`], ...); each module re-exports its
//! types at its own root, and its submodules are the crate's own (import `tickreel::play::Reader`,
//! `tickreel::format::Metadata`, never a deeper path):
//!
//! - [`format`](mod@format): the on-disk format, bytes only. Its front is what a user of recordings needs:
//!   events and their batch encoding ([`format::Event`], [`format::encode_batch`],
//!   [`format::decode_batch`]), poses in fixed point, the entity state, the metadata, the header,
//!   index entries, frame headers and decoded chunks, and the reader's [`format::Limits`]. The
//!   encoders and codecs behind it are not public; the feature `wire` (tests, fuzzing,
//!   benchmarks only) adds `format::wire`, the byte-level pieces that forge or take apart a file;
//! - [`storage`]: where bytes live (local files, range-read sources);
//! - [`record`]: the write path ([`Engine`], [`Recorder`], [`record::ReelWriter`]), compaction, recovery;
//! - [`play`]: the read path ([`play::Reader`]);
//! - [`shadow`]: shadow play, the last minutes of every player kept in memory, dumped on report;
//! - [`ghost`]: ghost racing (tracks, interpolating cursor, splits, live delta);
//!
//! The C ABI and the JNI glue wrap this crate in `tickreel-bridge`; the command-line tool is
//! `tickreel-cli`.

// No call that leaves a thread-exit callback on a caller's thread (see `clippy.toml`): a
// plugin's thread that ends after a reload would call into the unloaded library.
#![cfg_attr(
    not(test),
    deny(
        clippy::disallowed_methods,
        clippy::disallowed_macros,
        clippy::disallowed_types
    )
)]

pub mod dictionary;
pub mod error;
pub mod format;
pub mod ghost;
mod pending;
pub mod play;
mod reader;
pub mod record;
pub mod shadow;
pub mod storage;
// The shared thread infrastructure (its own crate, which object storage and the bridge use too),
// under the names the core's modules use.
pub(crate) use tickreel_sync::{sync, threads};

pub use error::{Error, ErrorKind, Result};
pub use format::Event;
pub use format::Pose;
pub use pending::{Pending, SharedPending};
pub use record::{Engine, EngineOptions, Recorder, RecorderOptions};
