//! The read path: opening recordings, decoding chunks, seeking, and playback.
//!
//! - [`Reader`]: a recording opened through range reads; decodes chunks (not cached);
//! - [`Recording`]: a reader shared by playheads, refreshable while the recording grows;
//! - [`ChunkCache`]: decoded chunks shared by every playhead, bounded in bytes;
//! - [`PrefetchPool`]: background threads decoding ahead of the playheads;
//! - [`LiveFollower`]: keeps a recording current while it is being written, then switches to
//!   its final file;
//! - [`Playhead`]: one viewer's position: `advance()` per server tick, seek, step, speed, reverse.

pub mod cache;
pub(crate) mod cursor;
pub mod follow;
pub mod playhead;
pub mod prefetch;
pub mod reader;
pub mod recording;

/// The old name of [`cursor`], still imported by `prefetch.rs` (being rewritten on another
/// branch). Remove once that file imports `cursor::ReverseLog`.
pub(crate) use cursor as replay;

pub use cache::{CacheStats, ChunkCache};
pub use follow::{FollowOptions, FollowState, FollowStats, LiveFollower};
pub use playhead::{
    ChunkFault, Direction, Motion, Playhead, PlayheadOptions, PlayheadStats, Rebuild, Update, World,
};
pub use prefetch::{PrefetchPool, PrefetchStats};
pub use reader::{Reader, ReaderOptions, SeekState, TickIter, VerifyReport};
pub use recording::{PlaybackContext, Recording, View};
