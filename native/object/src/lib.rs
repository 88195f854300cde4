//! Recordings in object storage (S3 and S3-compatible stores: MinIO, R2, GCS's S3 API), for
//! [`tickreel`]: the core reads any [`tickreel::storage::Source`]; this crate provides one over
//! range requests ([`ObjectSource`]), uploads finished recordings ([`ObjectStorage::upload`], or
//! [`ObjectStorage::upload_when_finished`] straight from a recorder's `finish()`) and
//! lists them ([`ObjectStorage::list`]); it ships live recordings to a bucket while they are
//! written and follows them from any machine ([`live`]). It keeps tokio, HTTP and `object_store` out of the core.
//!
//! ```no_run
//! use tickreel_object::{ObjectOptions, open_url};
//! let reader = open_url("s3://runs/course-7/best.reel", &ObjectOptions::from_env())?;
//! println!("{} ticks", reader.header().tick_count);
//! # Ok::<(), tickreel::Error>(())
//! ```

// No call that leaves a thread-exit callback on a caller's thread (see `clippy.toml`): a
// plugin's thread that ends after a reload would call into the unloaded library.
#![cfg_attr(
    not(test),
    deny(
        clippy::disallowed_methods,
        clippy::disallowed_macros,
        clippy::disallowed_types
    )
)]

mod client;
mod finish;
pub mod live;
mod options;
mod source;
mod upload;
mod url;

use std::sync::Arc;

pub use client::{ObjectInfo, ObjectStorage};
pub use finish::Uploaded;
pub use options::{Credentials, ObjectOptions};
pub use source::ObjectSource;
use tickreel::ghost::{GhostRange, GhostTrack, LoadFrom};
use tickreel::play::Reader;
use tickreel::storage::Source;
pub use upload::{UploadOptions, UploadReport};
pub use url::{ObjectUrl, S3_SCHEME, is_object_url};

/// A source over the object at `url` (no request until it is read), and its storage client.
pub fn source_for_url(url: &str, options: &ObjectOptions) -> tickreel::Result<Arc<ObjectSource>> {
    let u = ObjectUrl::parse(url)?;
    let storage = ObjectStorage::new(&u.bucket, options.clone())?;
    Ok(Arc::new(ObjectSource::new(&storage, &u.key)?))
}

/// Opens the recording at `url` (one request when header, metadata and index fit in the first
/// read).
pub fn open_url(url: &str, options: &ObjectOptions) -> tickreel::Result<Reader> {
    Reader::open(source_for_url(url, options)?)
}

/// Loads `entity`'s run from the recording at `url` on a background thread (opening it there
/// too): the returned handle never blocks unless asked to.
pub fn load_ghost_async(
    url: &str,
    options: &ObjectOptions,
    entity: u32,
    range: GhostRange,
) -> tickreel::Result<tickreel::Pending<GhostTrack>> {
    let source: Arc<dyn Source> = source_for_url(url, options)?;
    Ok(GhostTrack::load_async(
        LoadFrom::Source(source),
        entity,
        range,
    ))
}

#[cfg(feature = "test-server")]
pub mod testing;
