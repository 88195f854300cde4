//! tickreel: a native replay library for game servers.
//!
//! - [`format`]: the on-disk format, bytes only;
//! - [`storage`]: where bytes live (local files, range-read sources);
//! - [`record`]: the write path ([`Engine`], [`Recorder`], [`record::ReelWriter`]), compaction, recovery;
//! - [`play`]: the read path ([`play::Reader`]);
//! - [`ghost`]: ghost racing (tracks, interpolating cursor, splits, live delta);
//! - [`ffi`]: the C ABI behind `include/tickreel.h`;
//! - [`jni`]: the JNI glue behind `java-bindings/`;
//! - [`sim`]: a synthetic server used by the demo, tests and benchmarks.

pub mod dictionary;
pub mod error;
pub mod ffi;
pub mod format;
pub mod ghost;
pub mod jni;
pub mod play;
pub mod record;
pub mod sim;
pub mod storage;

pub use error::{Error, Result};
pub use format::event::Event;
pub use format::pose::Pose;
pub use record::{Engine, EngineOptions, Recorder, RecorderOptions};
