//! A recording opened for playback: a [`Reader`] that can be refreshed while the recording grows,
//! the chunk cache and prefetch pool its playheads share, and an identity for cache keys.
//!
//! Every [`crate::play::Playhead`] of one `Recording` shares its decoded chunks. The reader is
//! held as an immutable [`View`]; a live follower replaces it with [`Recording::update`] when the
//! index grows (the identity, and so every cached chunk, stays valid: chunks are immutable once
//! indexed) and with [`Recording::switch_to`] when the recording has been compacted into its final
//! file (a new identity: chunk numbering may differ). Playheads notice a new view on their next
//! call (one atomic load per call) and carry on from the same tick.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::sync::RwLock;

use crate::error::Result;
use crate::play::cache::ChunkCache;
use crate::play::prefetch::PrefetchPool;
use crate::play::view::View;
use crate::reader::Reader;

/// The cache and prefetch pool playheads use. Cheap to clone (two `Arc`s).
#[derive(Debug, Clone)]
pub struct PlaybackContext {
    pub cache: Arc<ChunkCache>,
    pub prefetch: Arc<PrefetchPool>,
}

impl PlaybackContext {
    /// A private cache of `cache_bytes` and pool of `threads` threads with a `queue`-job queue.
    pub fn new(cache_bytes: usize, threads: usize, queue: usize) -> PlaybackContext {
        PlaybackContext {
            cache: ChunkCache::new(cache_bytes),
            prefetch: PrefetchPool::new(threads, queue),
        }
    }

    /// The process-wide cache and pool: share them between recordings so that the byte budget
    /// holds for the whole process.
    pub fn global() -> PlaybackContext {
        PlaybackContext {
            cache: ChunkCache::global(),
            prefetch: PrefetchPool::global(),
        }
    }
}

/// A recording opened for playback. Share it (`Arc<Recording>`) between all its playheads.
#[derive(Debug)]
pub struct Recording {
    current: RwLock<Arc<View>>,
    generation: AtomicU64,
    ctx: PlaybackContext,
}

impl Recording {
    /// Opens a compacted `.reel` file with the process-wide cache and prefetch pool.
    pub fn open_path(path: impl AsRef<Path>) -> Result<Arc<Recording>> {
        Recording::open_path_with(path, &PlaybackContext::global())
    }

    /// Opens a compacted `.reel` file with the given cache and pool.
    pub fn open_path_with(path: impl AsRef<Path>, ctx: &PlaybackContext) -> Result<Arc<Recording>> {
        Ok(Recording::from_reader(Reader::open_path(path)?, ctx))
    }

    /// Wraps an open reader.
    pub fn from_reader(reader: Reader, ctx: &PlaybackContext) -> Arc<Recording> {
        let view = View::new(reader, &ctx.cache);
        Arc::new(Recording {
            current: RwLock::new(Arc::new(view)),
            generation: AtomicU64::new(0),
            ctx: ctx.clone(),
        })
    }

    /// The current view (a reader snapshot).
    pub fn view(&self) -> Arc<View> {
        self.current.read().clone()
    }

    /// Changes whenever the view is replaced.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    pub fn context(&self) -> &PlaybackContext {
        &self.ctx
    }
    pub fn cache(&self) -> &Arc<ChunkCache> {
        &self.ctx.cache
    }
    pub fn prefetch(&self) -> &Arc<PrefetchPool> {
        &self.ctx.prefetch
    }

    /// Replaces the reader with a newer reader of the same recording whose index extends the
    /// current one (a live recording that grew). Cached chunks stay valid. If the new index does
    /// not extend the old one entry for entry, or the frames come from elsewhere, this is a
    /// switch-over (see [`Recording::switch_to`]). Returns whether the identity was kept.
    pub fn update(&self, reader: Reader) -> bool {
        let mut cur = self.current.write();
        let old = &cur.reader;
        let extends = reader.index().len() >= old.index().len()
            && reader.index()[..old.index().len()] == *old.index()
            && reader.describe() == old.describe()
            && reader.header().dictionary_id == old.header().dictionary_id;
        *cur = Arc::new(if extends {
            cur.extended(reader)
        } else {
            View::new(reader, &self.ctx.cache)
        });
        self.generation.fetch_add(1, Ordering::Release);
        extends
    }

    /// Replaces the reader with another reader of the same recording whose chunks may be numbered
    /// differently (the compacted file that replaced a live directory): a new cache identity.
    /// Playheads re-seek to their current tick on their next call.
    pub fn switch_to(&self, reader: Reader) {
        let mut cur = self.current.write();
        *cur = Arc::new(View::new(reader, &self.ctx.cache));
        self.generation.fetch_add(1, Ordering::Release);
    }
}
