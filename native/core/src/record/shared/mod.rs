//! What the engine's threads and handles share: the engine's state (pool, hot slots, budget,
//! counters, held memory), one recording's, the staging rings, what travels on a writer's queue,
//! where an ending delivers its result, and how a panic in background work is caught.

pub(super) mod budget;
pub(super) mod counters;
pub(super) mod engine_shared;
pub(crate) mod finish;
pub(crate) mod held;
pub(super) mod hot_slots;
pub(super) mod msg;
pub(super) mod panics;
pub(super) mod pool;
pub(super) mod rec_shared;
pub(super) mod staging;
#[cfg(feature = "test-hooks")]
pub(super) mod stall;
pub(super) mod tick_bytes;
