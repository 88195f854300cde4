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
///
/// The final file is written under a temporary name, verified, and only then published at the
/// recording's path. Unless the recording was started with `RecorderOptions::overwrite`, it never
/// replaces a file there: if another writer of the same path (another process, or another
/// `Engine`) finished first, or, for a recording that never flushed, if another writer is
/// recording the path live (its live directory is locked; `overwrite` does not matter then), the
/// handle completes with `Error::Locked` naming the path and where the recording was kept: a
/// recording that flushed stays in its live directory `<path>.live` (resume it, or compact it to
/// another path), one that never flushed is published as `<stem>.conflict-<n>.<ext>` next to the
/// path (the first free `n`, from 1).
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
