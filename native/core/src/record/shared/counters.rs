//! The engine's statistics counters (what `EngineStats` reports besides the budget and queues).

use std::sync::atomic::{AtomicU64, AtomicUsize};

/// Engine-wide counters, updated with relaxed orderings (statistics only: nothing is ordered by
/// them).
#[derive(Debug, Default)]
pub(crate) struct Counters {
    /// Recordings handed to a writer and not retired yet.
    pub active: AtomicUsize,
    pub dropped_total: AtomicU64,
    pub bytes_written: AtomicU64,
    pub last_flush_us: AtomicU64,
    pub compactions_pending: AtomicU64,
    pub compactions_done: AtomicU64,
    pub compactions_failed: AtomicU64,
    pub writer_idle_ns: AtomicU64,
}
