//! A writer thread and its work: its loop, the recordings open on it (decoding, chunking,
//! segments, flushes), group commit, what it gives back to the server threads, and a live
//! recording found at start (resumed, set aside or refused).

pub(super) mod open_recording;
pub(super) mod restart;
pub(super) mod resume;
pub(super) mod returns;
pub(super) mod sync_round;
pub(super) mod writer_thread;
