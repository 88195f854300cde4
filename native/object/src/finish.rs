//! Uploading a recording once it is finished: [`ObjectStorage::upload_when_finished`] takes the
//! [`Pending`] path `Recorder::finish` returned (compaction to the local `.reel`), and on a background thread waits for
//! it, uploads the file and (if asked) removes the local copy. The server thread only polls the
//! returned [`Pending`] upload, which never blocks unless asked to.

use std::path::PathBuf;

use tickreel::{Error, Pending, SharedPending};

use crate::client::ObjectStorage;
use crate::upload::{UploadOptions, UploadReport};

/// What a finished upload tells: the local file and the upload's report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Uploaded {
    pub local: PathBuf,
    pub report: UploadReport,
}

impl ObjectStorage {
    /// Once `finish` completes (the recording compacted to its local `.reel`), uploads that file
    /// to `key` with `options`, on a background thread. A failed compaction is the result as it
    /// is; a failed upload keeps the local file and says so (a later `tickreel upload` retries).
    /// The server thread polls the result (`poll` never blocks, `wait` does); dropping it does not
    /// stop the upload (the file still gets uploaded; nobody hears how it went).
    pub fn upload_when_finished(
        &self,
        finish: impl Into<SharedPending<PathBuf>>,
        key: &str,
        options: UploadOptions,
    ) -> Pending<Uploaded> {
        let (tx, pending) = Pending::channel("upload");
        let storage = self.clone();
        let key = key.to_string();
        let finish = finish.into();
        let job = move || {
            let finished = finish
                .wait(None)
                .expect("a wait without a limit ends with the result");
            let r = finished.and_then(|local| {
                let report = storage.upload(&local, &key, options)?;
                Ok(Uploaded { local, report })
            });
            let _ = tx.send(r);
        };
        // Through the core (see `tickreel_sync::threads`); the handle is dropped: the thread detaches.
        match tickreel_sync::threads::spawn("tickreel-upload", job) {
            Ok(_) => pending,
            Err(e) => Pending::ready(Err(Error::Io(e)), "upload"),
        }
    }
}
