//! The read path: opening recordings, decoding chunks, seeking.

pub mod reader;

pub use reader::{Reader, ReaderOptions, SeekState, TickIter, VerifyReport};
