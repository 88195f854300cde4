//! The read path: opening recordings, decoding chunks, seeking, and playback.
//!
//! - [`Reader`]: a recording opened through range reads; decodes chunks (not cached). It lives
//!   below both paths (`crate::reader`): the write path's compaction and resume read with it too;
//! - [`Recording`]: a reader shared by playheads, refreshable while the recording grows;
//! - [`ChunkCache`]: decoded chunks shared by every playhead, bounded in bytes;
//! - [`PrefetchPool`]: background threads decoding ahead of the playheads;
//! - [`LiveFollower`]: keeps a recording current while it is being written, then switches to
//!   its final file;
//! - [`Playhead`]: one viewer's position: `advance()` per server tick, seek, step, speed, reverse.

mod cache;
pub(crate) mod cursor;
mod follow;
mod playhead;
mod prefetch;
mod recording;
mod view;

pub use crate::reader::{
    DEFAULT_CACHE_BUDGET, Reader, ReaderOptions, SeekState, TerrainArea, TickIter, VerifyReport,
    WorldAt,
};
pub use cache::{CacheStats, ChunkCache};
pub use follow::{FollowOptions, FollowState, FollowStats, LiveFollower};
pub use playhead::{
    ChunkFault, Direction, MAX_SPEED, MIN_SPEED, Motion, Playhead, PlayheadOptions, PlayheadStats,
    Rebuild, Update,
};
pub use prefetch::{PrefetchPool, PrefetchStats};
pub use recording::{PlaybackContext, Recording};
pub use view::View;
