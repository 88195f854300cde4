//! The engine's background worker as the writer threads and shadow buffers reach it: work that
//! runs after the compactions queued before it, completing a [`Finishing`].

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use crossbeam_channel::Sender;

use crate::error::{Error, Result};
use crate::record::shared::engine_shared::EngineShared;
use crate::record::shared::finish::Finishing;
use crate::record::worker::compaction_worker::CompactJob;
use crate::storage::Storage;

/// A way to the engine's background worker that outlives no engine thread: once the worker has
/// stopped, a task fails its handle at once.
#[derive(Debug, Clone)]
pub(crate) struct Background {
    pub(crate) engine: Arc<EngineShared>,
    pub(crate) tx: Sender<CompactJob>,
}

impl Background {
    /// [`Engine::run_in_background`], from anywhere (a writer thread, say).
    pub(crate) fn run(&self, task: Box<dyn FnOnce() -> Result<PathBuf> + Send>, handle: Finishing) {
        background_task(&self.engine, &self.tx, task, handle);
    }

    /// Whether the engine is shutting down or down: no new background work is taken.
    pub(crate) fn is_stopping(&self) -> bool {
        self.engine.stopping.load(Ordering::Acquire)
    }

    /// Where the engine writes its files.
    pub(crate) fn storage(&self) -> Arc<dyn Storage> {
        self.engine.storage.clone()
    }
}

pub(crate) fn background_task(
    engine: &EngineShared,
    tx: &Sender<CompactJob>,
    task: Box<dyn FnOnce() -> Result<PathBuf> + Send>,
    handle: Finishing,
) {
    engine
        .counters
        .compactions_pending
        .fetch_add(1, Ordering::Relaxed);
    if let Err(job) = crate::threads::send(tx, CompactJob::Task { task, handle }) {
        engine
            .counters
            .compactions_pending
            .fetch_sub(1, Ordering::Relaxed);
        engine
            .counters
            .compactions_failed
            .fetch_add(1, Ordering::Relaxed);
        if let Some(h) = job.handle() {
            h.complete(Err(Error::InvalidState(
                "the engine's background worker has stopped".into(),
            )));
        }
    }
}
