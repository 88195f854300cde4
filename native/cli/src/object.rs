//! Recordings given as object URLs (`s3://bucket/key`): every command that reads a recording
//! accepts one in place of a path. The store is reached with the usual `AWS_*` variables (see
//! `tickreel_object::ObjectOptions::from_env`).

use std::path::Path;

use tickreel::play::Reader;
use tickreel_object::{ObjectOptions, ObjectStorage, ObjectUrl, is_object_url};

/// The URL `path` spells, if it is one (`s3://...`).
pub fn url_of(path: &Path) -> Option<&str> {
    path.to_str().filter(|s| is_object_url(s))
}

/// Options from the environment.
pub fn options() -> ObjectOptions {
    ObjectOptions::from_env()
}

/// A client of the URL's bucket, and the parsed URL.
pub fn storage(url: &str) -> tickreel::Result<(ObjectStorage, ObjectUrl)> {
    let u = ObjectUrl::parse(url)?;
    Ok((ObjectStorage::new(&u.bucket, options())?, u))
}

/// Opens the recording at `url`.
pub fn open(url: &str) -> tickreel::Result<Reader> {
    tickreel_object::open_url(url, &options())
}

/// The object's size in bytes (one request).
pub fn size(url: &str) -> tickreel::Result<u64> {
    let (s, u) = storage(url)?;
    match s.head(&u.key)? {
        Some(info) => Ok(info.size),
        None => Err(tickreel::Error::Io(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{u}: no such object"),
        ))),
    }
}

/// Removes the recording at `location`: an object URL's object, or a local file; one already
/// gone counts as removed (what a prune's `remove` does).
pub fn remove(location: &str) -> tickreel::Result<()> {
    if is_object_url(location) {
        let (s, u) = storage(location)?;
        return s.delete(&u.key);
    }
    match std::fs::remove_file(location) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        r => r.map_err(tickreel::Error::Io),
    }
}
