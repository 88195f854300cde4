//! Uploading a finished `.reel`: one request for a small file, a multipart upload for a large one;
//! never over an existing object unless asked; the uploaded size checked; the local copy removed
//! only after all of that succeeded. A failure leaves the local file where it was and says so.

use std::path::Path;

use object_store::{MultipartUpload, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload};
use tickreel::storage::{LocalStorage, Source};
use tickreel::{Error, Result};

use crate::client::{ObjectStorage, object_path};
use crate::url::ObjectUrl;

/// How to upload.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UploadOptions {
    /// Replace an existing object of the same key (refused otherwise).
    pub overwrite: bool,
    /// Remove the local file once the upload is complete and its size checked.
    pub remove_local: bool,
}

/// What an upload did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadReport {
    pub url: ObjectUrl,
    pub bytes: u64,
    /// Parts of a multipart upload; 0 for a single request.
    pub parts: usize,
    pub removed_local: bool,
}

impl ObjectStorage {
    /// Uploads the file at `local` to `key` (see the module's description). Errors name the file
    /// and the URL and say that the local file is kept.
    pub fn upload(&self, local: &Path, key: &str, options: UploadOptions) -> Result<UploadReport> {
        let url = self.url(key);
        let kept = |e: Error| {
            e.with_context(&format!(
                " (uploading {} to {url}; the local file is kept)",
                local.display()
            ))
        };
        let report = self.upload_inner(local, &url, options).map_err(kept)?;
        if options.remove_local {
            LocalStorage::shared().remove_file(local).map_err(|e| {
                Error::Io(std::io::Error::new(
                    e.io_kind().unwrap_or(std::io::ErrorKind::Other),
                    format!(
                        "{url} is uploaded, but {} could not be removed: {e}",
                        local.display()
                    ),
                ))
            })?;
        }
        Ok(UploadReport {
            removed_local: options.remove_local,
            ..report
        })
    }

    fn upload_inner(
        &self,
        local: &Path,
        url: &ObjectUrl,
        options: UploadOptions,
    ) -> Result<UploadReport> {
        let path = object_path(url)?;
        let file = LocalStorage::shared().open(local)?;
        // The size now is what is uploaded and checked afterwards: a file that shrinks meanwhile
        // fails the read; one that grows is cut at this size (never more than was measured).
        let size = file.len()?;
        let store = self.inner.store.clone();
        let mut parts = 0;
        if size <= self.options().multipart_threshold {
            let bytes = file.read_exact_at(
                0,
                usize::try_from(size)
                    .map_err(|_| Error::limit(format!("{}: {size} bytes", local.display())))?,
            )?;
            let mode = if options.overwrite {
                PutMode::Overwrite
            } else {
                PutMode::Create
            };
            let opts = PutOptions {
                mode,
                ..PutOptions::default()
            };
            self.run(url, async move {
                store.put_opts(&path, PutPayload::from(bytes), opts).await
            })?;
        } else {
            // S3 cannot refuse to complete a multipart upload over an existing key through this
            // client: look first (another uploader could still race in between).
            if !options.overwrite && self.head(&url.key)?.is_some() {
                return Err(exists(url));
            }
            let mut upload = self.run(url, async move { store.put_multipart(&path).await })?;
            // never more than the size measured first (a file still growing is cut there)
            if let Err(e) = self.send_parts(url, &*file, size, upload.as_mut(), &mut parts) {
                let _ = self.run(url, async move { upload.abort().await });
                return Err(e);
            }
            self.run(url, async move { upload.complete().await })?;
        }
        match self.head(&url.key)? {
            Some(info) if info.size == size => {}
            Some(info) => {
                return Err(Error::Io(std::io::Error::other(format!(
                    "{url} has {} bytes after the upload, {} has {size}",
                    info.size,
                    local.display()
                ))));
            }
            None => {
                return Err(Error::Io(std::io::Error::other(format!(
                    "{url} is missing after the upload"
                ))));
            }
        }
        Ok(UploadReport {
            url: url.clone(),
            bytes: size,
            parts,
            removed_local: false,
        })
    }

    /// Reads the file part by part and sends each.
    fn send_parts(
        &self,
        url: &ObjectUrl,
        file: &dyn Source,
        size: u64,
        upload: &mut dyn MultipartUpload,
        parts: &mut usize,
    ) -> Result<()> {
        let part_size = self.options().part_size.max(1) as u64;
        let mut offset = 0;
        while offset < size {
            let len = part_size.min(size - offset);
            let buf = file.read_exact_at(offset, len as usize)?;
            self.run(url, upload.put_part(PutPayload::from(buf)))?;
            *parts += 1;
            offset += len;
        }
        Ok(())
    }
}

fn exists(url: &ObjectUrl) -> Error {
    Error::Io(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        format!("{url}: the object already exists"),
    ))
}
