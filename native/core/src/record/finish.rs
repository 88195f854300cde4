//! The handle `Recorder::finish` returns: the caller polls it or waits on it while the compaction
//! worker produces the final file.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::sync::{Condvar, Mutex};

use crate::error::{Error, Result};

#[derive(Debug, Default)]
pub(crate) struct FinishState {
    result: Mutex<Option<std::result::Result<PathBuf, Error>>>,
    cv: Condvar,
    /// Set once every thread of the engine has been joined: a result not in by then never comes.
    engine_down: Arc<AtomicBool>,
}

/// How often a waiter looks whether the engine went down without completing its handle.
const DOWN_CHECK: Duration = Duration::from_millis(50);

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

    /// Completes a handle the engine can no longer complete (it was shut down first).
    fn settle(&self, g: &mut Option<std::result::Result<PathBuf, Error>>) {
        if g.is_none() && self.engine_down.load(Ordering::Acquire) {
            *g = Some(Err(Error::InvalidState(
                "the engine was shut down before the recording was finished".into(),
            )));
        }
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
///
/// A recording whose live directory holds a segment of another recording (one a writer of the
/// same path put there after the directory was removed and created again: FORMAT.md, sections 2
/// and 14) is not published: the handle completes with `Error::InvalidState` naming the segment,
/// and the recording stays in its live directory, the segment untouched.
#[derive(Debug, Clone)]
pub struct FinishHandle {
    pub(crate) state: Arc<FinishState>,
}

impl FinishHandle {
    /// A pending handle of an engine whose `engine_down` flag is set once all its threads are
    /// joined.
    pub(crate) fn new(engine_down: Arc<AtomicBool>) -> FinishHandle {
        FinishHandle {
            state: Arc::new(FinishState {
                engine_down,
                ..FinishState::default()
            }),
        }
    }
    /// The final file's path once compaction has completed (or its error); `None` while pending.
    /// A handle whose engine was shut down before it completed reports that error.
    pub fn poll(&self) -> Option<Result<PathBuf>> {
        let mut g = self.state.result.lock();
        self.state.settle(&mut g);
        g.as_ref().map(dup)
    }
    /// Whether compaction has completed (successfully or not).
    pub fn is_done(&self) -> bool {
        self.poll().is_some()
    }
    /// Blocks until compaction has completed (or the engine was shut down without completing it).
    pub fn wait(&self) -> Result<PathBuf> {
        let mut g = self.state.result.lock();
        loop {
            self.state.settle(&mut g);
            if let Some(r) = g.as_ref() {
                return dup(r);
            }
            self.state.cv.wait_for(&mut g, DOWN_CHECK);
        }
    }
    /// Blocks up to `timeout`; `None` if still pending.
    pub fn wait_timeout(&self, timeout: Duration) -> Option<Result<PathBuf>> {
        let until = Instant::now() + timeout;
        let mut g = self.state.result.lock();
        loop {
            self.state.settle(&mut g);
            let left = until.saturating_duration_since(Instant::now());
            if g.is_some() || left.is_zero() {
                return g.as_ref().map(dup);
            }
            self.state.cv.wait_for(&mut g, left.min(DOWN_CHECK));
        }
    }
}
