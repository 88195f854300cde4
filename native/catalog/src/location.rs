//! Where a registered recording lives, as its row says: a path on this machine (stored
//! absolute), or an object URL (`s3://bucket/key`, with the feature `object`). A location given
//! to register is validated and then read from, so that a row never points at a recording (or an
//! object) that is not there: registering after an upload reads the uploaded object itself.

use std::path::{Path, PathBuf};

use tickreel::play::Reader;
use tickreel::storage::LocalStorage;
use tickreel::{Error, Result};

/// The longest location accepted, in bytes (a path or a URL; S3 keys are at most 1,024 bytes).
pub const MAX_LOCATION_BYTES: usize = 4096;

/// A location as given to register, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A path on this machine (made absolute when registered).
    Path(PathBuf),
    /// An object URL, as written (`s3://bucket/key`).
    Object(String),
}

impl Location {
    /// Checks `location`: not empty, at most [`MAX_LOCATION_BYTES`], no NUL; an `s3://` URL with
    /// a bucket and a key (with the feature `object`: the bucket's name and the key's parts
    /// checked as `tickreel_object::ObjectUrl` does), or a path; another scheme (`gs://`,
    /// `http://`, `file://`) is refused.
    pub fn parse(location: &str) -> Result<Location> {
        if location.is_empty() {
            return Err(Error::invalid("a recording's location must not be empty"));
        }
        if location.len() > MAX_LOCATION_BYTES {
            return Err(Error::limit(format!(
                "a recording's location of {} bytes (at most {MAX_LOCATION_BYTES})",
                location.len()
            )));
        }
        if location.contains('\0') {
            return Err(Error::invalid("a recording's location contains a NUL byte"));
        }
        if location.starts_with("s3://") {
            #[cfg(feature = "object")]
            {
                let url = tickreel_object::ObjectUrl::parse(location)?;
                if url.key.is_empty() {
                    return Err(Error::invalid(format!(
                        "{location:?}: an object URL needs a key after the bucket"
                    )));
                }
                return Ok(Location::Object(url.to_string()));
            }
            #[cfg(not(feature = "object"))]
            return Err(Error::Unsupported(format!(
                "{location}: this build reads no object URL (feature \"object\")"
            )));
        }
        if let Some((scheme, _)) = location.split_once("://")
            && !scheme.is_empty()
            && scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.')
        {
            return Err(Error::invalid(format!(
                "{location}: a recording's location is a path or an s3:// URL, not {scheme}://"
            )));
        }
        Ok(Location::Path(PathBuf::from(location)))
    }
}

/// A finished recording opened to be registered: its reader, the location its row gives and its
/// size in bytes.
pub(crate) struct Opened {
    pub reader: Reader,
    /// What the reader reads (the run checks hash it).
    pub source: std::sync::Arc<dyn tickreel::storage::Source>,
    pub location: String,
    pub size: u64,
}

/// Opens the finished file at `file`; its row names it absolutely. A live recording directory
/// is refused.
pub(crate) fn open_path(file: &Path) -> Result<Opened> {
    if file.is_dir() {
        return Err(Error::InvalidState(format!(
            "{} is a live recording directory, not a finished recording: finish it first",
            file.display()
        )));
    }
    // The row names the file absolutely; resolving a caller's path opens nothing (the
    // file-system rule of clippy.toml is about what the library reads and writes).
    #[allow(clippy::disallowed_methods)]
    let location = std::fs::canonicalize(file).map_err(|e| Error::io_at(file, e))?;
    let source: std::sync::Arc<dyn tickreel::storage::Source> =
        std::sync::Arc::new(tickreel::storage::FileSource::open(&location)?);
    let reader = Reader::open(source.clone())?;
    let size = LocalStorage::shared().stat(&location)?.map_or(0, |s| s.len);
    let location = location.to_str().map(str::to_owned).ok_or_else(|| {
        Error::invalid(format!(
            "{}: a recording's location must be UTF-8",
            location.display()
        ))
    })?;
    Ok(Opened {
        reader,
        source,
        location,
        size,
    })
}

/// Opens the object at `url` (checked by [`Location::parse`]) with `options`: the object must be
/// there and hold a finished recording.
#[cfg(feature = "object")]
pub(crate) fn open_object(url: &str, options: &tickreel_object::ObjectOptions) -> Result<Opened> {
    use tickreel::storage::Source;
    let source = tickreel_object::source_for_url(url, options)?;
    let reader = Reader::open(source.clone())?;
    let size = source.len()?;
    Ok(Opened {
        reader,
        source: source.clone(),
        location: source.url().to_string(),
        size,
    })
}

/// Opens what `location` names: a path, or (feature `object`) an object read with `options`
/// (`None`: the `AWS_*` variables).
pub(crate) fn open(
    location: &str,
    #[cfg(feature = "object")] options: Option<&tickreel_object::ObjectOptions>,
) -> Result<Opened> {
    match Location::parse(location)? {
        Location::Path(p) => open_path(&p),
        #[cfg(feature = "object")]
        Location::Object(url) => match options {
            Some(o) => open_object(&url, o),
            None => open_object(&url, &tickreel_object::ObjectOptions::from_env()),
        },
        #[cfg(not(feature = "object"))]
        Location::Object(url) => Err(Error::Unsupported(format!(
            "{url}: this build reads no object URL (feature \"object\")"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_are_checked() {
        assert_eq!(
            Location::parse("runs/a.reel").unwrap(),
            Location::Path("runs/a.reel".into())
        );
        for bad in [
            "",
            "gs://bucket/a.reel",
            "http://h/a.reel",
            "file:///tmp/a",
            "a\0b",
        ] {
            let e = Location::parse(bad).unwrap_err();
            assert_eq!(
                e.kind(),
                tickreel::ErrorKind::InvalidArgument,
                "{bad:?}: {e}"
            );
        }
        let long = "a".repeat(MAX_LOCATION_BYTES + 1);
        assert!(Location::parse(&long).is_err());
        let s3 = Location::parse("s3://runs-eu/a/b.reel");
        #[cfg(feature = "object")]
        {
            assert_eq!(
                s3.unwrap(),
                Location::Object("s3://runs-eu/a/b.reel".into())
            );
            for bad in [
                "s3://runs-eu",
                "s3://runs-eu/",
                "s3://Bad/k",
                "s3://runs-eu/a//b",
            ] {
                let e = Location::parse(bad).unwrap_err();
                assert_eq!(e.kind(), tickreel::ErrorKind::InvalidArgument, "{bad}: {e}");
            }
        }
        #[cfg(not(feature = "object"))]
        assert_eq!(s3.unwrap_err().kind(), tickreel::ErrorKind::Unsupported);
    }
}
