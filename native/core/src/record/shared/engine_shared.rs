//! The state an engine shares with its writer threads, its compaction worker and its recorders
//! ([`EngineShared`]): storage, the buffer pool, the recordings' hot slots, the in-flight budget,
//! the statistics counters, the staging rings (for the stats), the shutdown flags, the paths
//! being recorded and the memory observers hold. Below everything that runs on it; the
//! `Engine` (`engine`) makes it and starts the threads.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Weak};

use crate::record::shared::budget::Budget;
use crate::record::shared::counters::Counters;
use crate::record::shared::held::HeldMemory;
use crate::record::shared::hot_slots::HotSlots;
use crate::record::shared::pool::BufferPool;
#[cfg(feature = "test-hooks")]
use crate::record::shared::stall::WriterStall;
use crate::storage::{Storage, SyncCounted};
use crate::sync::Mutex;

/// State the engine shares with its threads and recorders.
#[derive(Debug)]
pub(crate) struct EngineShared {
    /// Where every recording of this engine is written (`counted`, as the trait object).
    pub storage: Arc<dyn Storage>,
    /// The same storage, counting its syncs.
    pub counted: Arc<SyncCounted>,
    pub pool: BufferPool,
    /// What `submit_tick` touches of each recording, packed.
    pub hot_slots: HotSlots,
    /// Bytes in flight and in staging rings.
    pub budget: Budget,
    /// Every staging ring (for the queue depth in the stats).
    pub stagings: Mutex<Vec<Weak<dyn StagedTicks>>>,
    /// The test hook holding the writer threads (`Engine::set_writers_stalled`).
    #[cfg(feature = "test-hooks")]
    pub stall: WriterStall,
    /// Statistics counters.
    pub counters: Counters,
    /// Set when a shutdown starts: recorders refuse calls from then on.
    pub stopping: std::sync::atomic::AtomicBool,
    /// Set once every thread has been joined: whoever still waits for an answer gets none.
    pub threads_done: Arc<std::sync::atomic::AtomicBool>,
    /// Paths with a recorder open in this process.
    pub open_paths: Mutex<HashSet<PathBuf>>,
    /// Memory that observers (shadow buffers) hold, engine-wide.
    pub held: Arc<HeldMemory>,
}

/// A recording's staging ring as the engine's stats see it (`staging::Staging`): the ticks staged
/// and not taken by the writer yet.
pub(crate) trait StagedTicks: Send + Sync + std::fmt::Debug {
    fn pending(&self) -> u64;
}
