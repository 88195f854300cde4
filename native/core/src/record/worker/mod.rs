//! The engine's background worker: each finished recording compacted, and work queued behind
//! the compactions (a shadow-play report, say).

pub(crate) mod background;
pub(crate) mod compaction_worker;
