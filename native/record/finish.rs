//! The handle `Recorder::finish` returns: the caller polls it or waits on it while the compaction
//! worker produces the final file.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use crate::error::{Error, Result};

#[derive(Debug, Default)]
pub(crate) struct FinishState {
    result: Mutex<Option<std::result::Result<PathBuf, Error>>>,
    cv: Condvar,
}

fn dup(r: &std::result::Result<PathBuf, Error>) -> Result<PathBuf> {
    match r {
        Ok(p) => Ok(p.clone()),
        Err(e) => Err(e.duplicate()),
    }
}

impl FinishState {
    pub(crate) fn complete(&self, r: Result<PathBuf>) {
        *self.result.lock() = Some(r);
        self.cv.notify_all();
    }
}

/// Completion of a finished recording's compaction.
#[derive(Debug, Clone)]
pub struct FinishHandle {
    pub(crate) state: Arc<FinishState>,
}

impl FinishHandle {
    pub(crate) fn new() -> FinishHandle {
        FinishHandle {
            state: Arc::new(FinishState::default()),
        }
    }
    /// The final file's path once compaction has completed (or its error); `None` while pending.
    pub fn poll(&self) -> Option<Result<PathBuf>> {
        self.state.result.lock().as_ref().map(dup)
    }
    /// Whether compaction has completed (successfully or not).
    pub fn is_done(&self) -> bool {
        self.state.result.lock().is_some()
    }
    /// Blocks until compaction has completed.
    pub fn wait(&self) -> Result<PathBuf> {
        let mut g = self.state.result.lock();
        while g.is_none() {
            self.state.cv.wait(&mut g);
        }
        dup(g.as_ref().expect("set"))
    }
    /// Blocks up to `timeout`; `None` if still pending.
    pub fn wait_timeout(&self, timeout: Duration) -> Option<Result<PathBuf>> {
        let mut g = self.state.result.lock();
        if g.is_none() {
            self.state.cv.wait_for(&mut g, timeout);
        }
        g.as_ref().map(dup)
    }
}
