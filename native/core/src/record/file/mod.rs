//! Recordings as files, below any engine: the header's identity, the bytes of a compacted file on
//! their way to its path, the synchronous writer, compaction and crash recovery.

pub(super) mod compact;
pub(super) mod identity;
pub(super) mod publish;
pub(super) mod recover;
pub(super) mod reel_writer;
