//! The engine-wide budget of bytes in flight between the server threads and the writers, and of
//! the recordings' staging rings.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A value on a cache line of its own.
#[derive(Debug, Default)]
#[repr(align(64))]
pub(crate) struct Padded<T>(pub T);

/// Bytes of submitted ticks and snapshots in flight, and of the staging rings.
#[derive(Debug)]
pub(crate) struct Budget {
    pub inflight: AtomicUsize,
    /// Set by a server thread that found the in-flight budget spent; on a line of its own, read
    /// by the writers each time their queue runs dry.
    pub starved: Padded<AtomicBool>,
    /// Budget bytes the writers have written and hold back (for `EngineStats`; written by the
    /// writers only, on a line of its own).
    pub held_back: Padded<AtomicUsize>,
    pub max_inflight: usize,
    /// Bytes of the recordings' staging rings, and what they may take in all (a quarter of the
    /// in-flight budget; see `staging`).
    pub staging_bytes: AtomicUsize,
    pub max_staging: usize,
}

impl Budget {
    /// A budget of `max_inflight` bytes in flight; the staging rings get a quarter of it.
    pub(crate) fn new(max_inflight: usize) -> Budget {
        Budget {
            inflight: AtomicUsize::new(0),
            starved: Padded(AtomicBool::new(false)),
            held_back: Padded(AtomicUsize::new(0)),
            max_inflight,
            staging_bytes: AtomicUsize::new(0),
            max_staging: max_inflight / 4,
        }
    }

    #[inline]
    pub(crate) fn reserve_bytes(&self, n: usize) -> bool {
        let prev = self.inflight.fetch_add(n, Ordering::AcqRel);
        if prev + n > self.max_inflight && prev > 0 {
            self.inflight.fetch_sub(n, Ordering::AcqRel);
            // The writers hold back what they wrote (see `returns`): ask for it now.
            if !self.starved.0.load(Ordering::Relaxed) {
                self.starved.0.store(true, Ordering::Release);
            }
            return false;
        }
        true
    }
    /// Whether a server thread found the budget spent since the last call (a writer's question).
    pub(crate) fn take_starved(&self) -> bool {
        self.starved.0.load(Ordering::Acquire) && self.starved.0.swap(false, Ordering::AcqRel)
    }
    /// Retries `reserve_bytes` until `deadline` (the `Block` policy).
    pub(crate) fn wait_reserve(&self, n: usize, deadline: Instant) -> bool {
        loop {
            if self.reserve_bytes(n) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_micros(100));
        }
    }
    #[inline]
    pub(crate) fn release_bytes(&self, n: usize) {
        self.inflight.fetch_sub(n, Ordering::AcqRel);
    }

    /// Bytes in flight less what the writers have written and hold back (for `EngineStats`).
    pub(crate) fn inflight_not_written(&self) -> usize {
        self.inflight
            .load(Ordering::Acquire)
            .saturating_sub(self.held_back.0.load(Ordering::Acquire))
    }
}
