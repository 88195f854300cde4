//! One immutable state of a recording being played: a [`Reader`] and the identity its chunks
//! are cached under. A [`crate::play::Recording`] replaces its view when a live recording grows
//! (same identity) or is compacted (a new one); the prefetch pool and the playheads read chunks
//! through a view.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::play::cache::{ChunkCache, ChunkKey, Part};
use crate::reader::Reader;

/// A cache identity. Its entries are dropped from the cache when the last view using it goes.
#[derive(Debug)]
struct Identity {
    id: u64,
    cache: Arc<ChunkCache>,
}

impl Drop for Identity {
    fn drop(&mut self) {
        self.cache.forget_recording(self.id);
    }
}

fn next_identity() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// One immutable state of a recording: a reader and the identity its chunks are cached under.
#[derive(Debug)]
pub struct View {
    identity: Arc<Identity>,
    pub(crate) reader: Reader,
}

impl View {
    /// A view of `reader` under a new identity in `cache`.
    pub(crate) fn new(reader: Reader, cache: &Arc<ChunkCache>) -> View {
        View {
            identity: Arc::new(Identity {
                id: next_identity(),
                cache: cache.clone(),
            }),
            reader,
        }
    }

    /// A view of `reader`, a newer reader whose index extends this view's, under the same
    /// identity: the chunks cached for this view stay valid.
    pub(crate) fn extended(&self, reader: Reader) -> View {
        View {
            identity: self.identity.clone(),
            reader,
        }
    }

    /// The identity of this view's chunks in the cache.
    pub fn id(&self) -> u64 {
        self.identity.id
    }
    pub fn reader(&self) -> &Reader {
        &self.reader
    }
    /// The cache key of chunk `chunk`.
    pub(crate) fn key(&self, chunk: usize, part: Part) -> ChunkKey {
        ChunkKey {
            recording: self.identity.id,
            chunk: chunk as u32,
            part,
        }
    }
}
