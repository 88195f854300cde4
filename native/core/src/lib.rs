//! tickreel: a native replay library for game servers.
//!
//! - [`format`]: the on-disk format, bytes only;
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
pub mod record;
pub mod shadow;
pub mod storage;
// The shared thread infrastructure (its own crate, which object storage and the bridge use too),
// under the names the core's modules use.
pub(crate) use tickreel_sync::{sync, threads};

pub use error::{Error, ErrorKind, Result};
pub use format::Event;
pub use format::Pose;
pub use pending::Pending;
pub use record::{Engine, EngineOptions, Recorder, RecorderOptions};
