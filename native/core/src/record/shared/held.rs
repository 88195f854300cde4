//! Memory held on purpose beyond the write path's own buffers (the shadow buffers' blocks), under
//! one engine-wide budget: past it, the holder with the oldest block gives it up first.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::Instant;

use crate::sync::Mutex;

/// Something that holds blocks of memory it can give up, oldest first.
pub(crate) trait Holder: Send + Sync {
    /// When its oldest block was made (`None`: it holds nothing it can give up).
    fn oldest(&self) -> Option<Instant>;
    /// Drops its oldest block; the bytes freed (0 if none).
    fn evict_oldest(&self) -> usize;
}

/// The engine-wide budget.
pub(crate) struct HeldMemory {
    limit: usize,
    used: AtomicUsize,
    evicted_blocks: AtomicU64,
    holders: Mutex<Vec<Weak<dyn Holder>>>,
}

impl std::fmt::Debug for HeldMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeldMemory")
            .field("limit", &self.limit)
            .field("used", &self.used())
            .finish()
    }
}

impl HeldMemory {
    pub(crate) fn new(limit: usize) -> HeldMemory {
        HeldMemory {
            limit,
            used: AtomicUsize::new(0),
            evicted_blocks: AtomicU64::new(0),
            holders: Mutex::new(Vec::new()),
        }
    }

    pub(crate) fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// Blocks given up for the budget since the engine started.
    pub(crate) fn evicted_blocks(&self) -> u64 {
        self.evicted_blocks.load(Ordering::Relaxed)
    }

    pub(crate) fn register(&self, holder: Weak<dyn Holder>) {
        let mut g = self.holders.lock();
        g.retain(|h| h.strong_count() > 0);
        g.push(holder);
    }

    pub(crate) fn add(&self, bytes: usize) {
        self.used.fetch_add(bytes, Ordering::Relaxed);
    }

    pub(crate) fn sub(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
    }

    /// Gives up the oldest blocks of any holder until the budget holds. Call it holding no
    /// holder's lock: it takes each holder's in turn.
    pub(crate) fn make_room(&self) {
        while self.used() > self.limit {
            let oldest = {
                let g = self.holders.lock();
                g.iter()
                    .filter_map(|w| w.upgrade())
                    .filter_map(|h| h.oldest().map(|t| (t, h)))
                    .min_by_key(|(t, _)| *t)
                    .map(|(_, h)| h)
            };
            let Some(h) = oldest else { return };
            if h.evict_oldest() == 0 {
                // Another thread took it meanwhile; the next addition tries again.
                return;
            }
            self.evicted_blocks.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Makes an `Arc` of a holder usable as a `Weak<dyn Holder>`.
pub(crate) fn weak_holder<T: Holder + 'static>(h: &Arc<T>) -> Weak<dyn Holder> {
    let weak: Weak<T> = Arc::downgrade(h);
    weak
}
