//! Where a recording's finish (or a shadow-play report) delivers its result: the caller holds a
//! [`Pending<PathBuf>`](crate::Pending) (`Recorder::finish`), the write path a [`Finishing`]
//! that the writer thread, the compaction worker and a panic guard share until one of them
//! answers.

use std::path::PathBuf;
use std::sync::Arc;

use crate::Pending;
use crate::error::Result;
use crate::pending::Sender;
use crate::sync::Mutex;

/// What a finish's [`Pending`] says if the engine goes down before answering it.
const ENGINE_DOWN: &str = "the engine was shut down before the recording was finished";

/// The answering side of a finish: cloned into the messages and jobs that carry it, answered
/// once (later answers are ignored). Dropped unanswered everywhere (the engine shut down with the
/// job queued), the caller's [`Pending`] reports that the engine went down first.
#[derive(Debug, Clone)]
pub(crate) struct Finishing(Arc<Mutex<Option<Sender<PathBuf>>>>);

impl Finishing {
    /// A finish and the result its caller polls or waits on (`what` names the work in errors:
    /// "recording's finish", "shadow-play report").
    pub(crate) fn new(what: &'static str) -> (Finishing, Pending<PathBuf>) {
        let (tx, pending) = Pending::channel(what);
        (
            Finishing(Arc::new(Mutex::new(Some(tx)))),
            pending.when_lost(ENGINE_DOWN),
        )
    }

    /// Answers the finish (the first answer counts).
    pub(crate) fn complete(&self, result: Result<PathBuf>) {
        if let Some(tx) = self.0.lock().take() {
            // Nobody may be waiting any more (the caller dropped its `Pending`): that is fine.
            let _ = tx.send(result);
        }
    }

    /// Whether the finish was answered.
    pub(crate) fn is_answered(&self) -> bool {
        self.0.lock().is_none()
    }
}
