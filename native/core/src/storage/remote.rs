//! Live recordings kept somewhere else than a local directory (object storage, reached by the
//! `tickreel-object` crate): what a follower polls ([`RemoteLive`]) and what one poll finds
//! ([`RemotePoll`]). The core knows nothing of the network: an implementation does its requests
//! on the follower's polling thread and hands back byte sources.

use std::sync::Arc;

use super::Source;
use super::frames::FrameSource;
use crate::error::Result;

/// What one poll of a remote live recording found.
#[derive(Debug)]
pub enum RemotePoll {
    /// Neither live metadata nor a final file: not started yet, or removed.
    Nothing,
    /// The live metadata is the one the previous poll returned (the writer has not shipped since).
    Unchanged,
    /// New live metadata: the bytes of a live recording's metadata file (header of a segmented
    /// recording, metadata, index whose offsets are `(segment << 32) | offset`) and where the
    /// frames it indexes are read.
    Live {
        meta: Arc<dyn Source>,
        frames: Arc<dyn FrameSource>,
    },
    /// The recording is finished: its compacted file.
    Finished(Arc<dyn Source>),
}

/// A live recording reached through something else than local files. Implementations must be
/// safe to call from the follower's background thread; each call may do I/O.
pub trait RemoteLive: Send + Sync + std::fmt::Debug {
    /// Looks once at what is there.
    fn poll(&self) -> Result<RemotePoll>;
    /// A name (URL) for messages.
    fn describe(&self) -> String;
}
