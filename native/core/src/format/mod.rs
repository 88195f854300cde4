//! The tickreel format, bytes only: no files, no threads. See FORMAT.md for every byte.

pub mod bytes;
pub mod chunk;
pub(crate) mod encoder;
pub mod event;
pub mod frame;
pub(crate) mod gap_prediction;
pub mod header;
pub mod index;
pub mod limits;
pub mod metadata;
pub mod movement;
pub mod pose;
pub mod segment;
pub mod state;
pub(crate) mod tracks;

pub use header::DATA_VERSION;

pub use limits::{Limits, MetadataBudget};
