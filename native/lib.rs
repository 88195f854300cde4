//! tickreel: a native replay library for game servers.
//!
//! - [`format`]: the on-disk format, bytes only;
//! - [`storage`]: where bytes live (local files, range-read sources);
//! - [`record`]: the write path ([`record::ReelWriter`] for finished files);
//! - [`play`]: the read path ([`play::Reader`]);
//! - [`sim`]: a synthetic server used by the demo, tests and benchmarks.

pub mod dictionary;
pub mod error;
pub mod format;
pub mod ghost;
pub mod play;
pub mod record;
pub mod sim;
pub mod storage;

pub use error::{Error, Result};
pub use format::event::Event;
pub use format::pose::Pose;
