//! Uploading a recording once it is finished: [`ObjectStorage::upload_when_finished`] takes the
//! core's [`FinishHandle`] (compaction to the local `.reel`), and on a background thread waits for
//! it, uploads the file and (if asked) removes the local copy. The server thread only polls the
//! returned [`PendingUpload`], which never blocks unless asked to.

use std::path::PathBuf;

use crossbeam_channel::{Receiver, TryRecvError};
use tickreel::record::FinishHandle;
use tickreel::{Error, Result};

use crate::client::ObjectStorage;
use crate::upload::{UploadOptions, UploadReport};

/// What a finished upload tells: the local file and the upload's report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Uploaded {
    pub local: PathBuf,
    pub report: UploadReport,
}

/// An upload waiting for its recording to be finished, then running on its own thread.
/// Dropping the handle does not stop it (the file still gets uploaded; nobody hears how it went).
#[derive(Debug)]
pub struct PendingUpload {
    rx: Option<Receiver<Result<Uploaded>>>,
    result: Option<Result<Uploaded>>,
}

impl PendingUpload {
    /// The result once the upload has ended; `None` while it runs. Never blocks.
    pub fn poll(&mut self) -> Option<&Result<Uploaded>> {
        if self.result.is_none()
            && let Some(rx) = &self.rx
        {
            match rx.try_recv() {
                Ok(r) => self.result = Some(r),
                Err(TryRecvError::Empty) => return None,
                Err(TryRecvError::Disconnected) => self.result = Some(Err(lost())),
            }
            self.rx = None;
        }
        self.result.as_ref()
    }

    /// Blocks until the upload has ended.
    pub fn wait(mut self) -> Result<Uploaded> {
        if let Some(r) = self.result.take() {
            return r;
        }
        match self.rx.take() {
            Some(rx) => rx.recv().unwrap_or_else(|_| Err(lost())),
            None => Err(Error::InvalidState(
                "the upload's result was already taken".into(),
            )),
        }
    }
}

fn lost() -> Error {
    Error::InvalidState("the upload thread ended without a result".into())
}

impl ObjectStorage {
    /// Once `finish` completes (the recording compacted to its local `.reel`), uploads that file
    /// to `key` with `options`, on a background thread. A failed compaction is the result as it
    /// is; a failed upload keeps the local file and says so (a later `tickreel upload` retries).
    pub fn upload_when_finished(
        &self,
        finish: FinishHandle,
        key: &str,
        options: UploadOptions,
    ) -> PendingUpload {
        let (tx, rx) = crossbeam_channel::bounded(1);
        let storage = self.clone();
        let key = key.to_string();
        let job = move || {
            let r = finish.wait().and_then(|local| {
                let report = storage.upload(&local, &key, options)?;
                Ok(Uploaded { local, report })
            });
            let _ = tx.send(r);
        };
        match std::thread::Builder::new()
            .name("tickreel-upload".into())
            .spawn(job)
        {
            Ok(_) => PendingUpload {
                rx: Some(rx),
                result: None,
            },
            Err(e) => PendingUpload {
                rx: None,
                result: Some(Err(Error::Io(e))),
            },
        }
    }
}
