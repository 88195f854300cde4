//! What ticks become, with no file and no thread: chunks compressed into frames, and the
//! analysis metadata of a compacted file. The floor of the write path: it imports nothing above.

pub(crate) mod analysis;
pub(crate) mod chunker;
pub(crate) mod player_analysis;
