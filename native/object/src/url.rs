//! Object URLs: `s3://bucket/key`, and telling them apart from local paths.

use tickreel::{Error, Result};

/// The URL scheme of S3 and S3-compatible stores.
pub const S3_SCHEME: &str = "s3://";

/// A parsed object URL: `s3://bucket/key` (the key may be empty for a listing of the whole bucket).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ObjectUrl {
    pub bucket: String,
    pub key: String,
}

impl ObjectUrl {
    /// Parses `s3://bucket/key`. Fails (`InvalidArgument`) on another scheme, a missing or
    /// malformed bucket name, or a key with empty, `.` or `..` parts.
    pub fn parse(url: &str) -> Result<ObjectUrl> {
        let rest = url
            .strip_prefix(S3_SCHEME)
            .ok_or_else(|| Error::invalid(format!("{url:?} is not an s3:// URL")))?;
        let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
        let bucket_ok = (3..=63).contains(&bucket.len())
            && bucket
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
            && !bucket.starts_with(['-', '.'])
            && !bucket.ends_with(['-', '.']);
        if !bucket_ok {
            return Err(Error::invalid(format!(
                "{url:?}: {bucket:?} is not a bucket name (3 to 63 lowercase letters, digits, '-' and '.')"
            )));
        }
        let key = key.trim_end_matches('/');
        if !key.is_empty()
            && key
                .split('/')
                .any(|p| p.is_empty() || p == "." || p == "..")
        {
            return Err(Error::invalid(format!(
                "{url:?}: the key has an empty, '.' or '..' part"
            )));
        }
        Ok(ObjectUrl {
            bucket: bucket.to_string(),
            key: key.to_string(),
        })
    }

    /// The same bucket, another key.
    pub fn with_key(&self, key: impl Into<String>) -> ObjectUrl {
        ObjectUrl {
            bucket: self.bucket.clone(),
            key: key.into(),
        }
    }
}

impl std::fmt::Display for ObjectUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{S3_SCHEME}{}/{}", self.bucket, self.key)
    }
}

/// Whether `s` names an object (an `s3://` URL) rather than a local path.
pub fn is_object_url(s: &str) -> bool {
    s.starts_with(S3_SCHEME)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bucket_and_key() {
        let u = ObjectUrl::parse("s3://runs-eu/course/7/run.reel").unwrap();
        assert_eq!(u.bucket, "runs-eu");
        assert_eq!(u.key, "course/7/run.reel");
        assert_eq!(u.to_string(), "s3://runs-eu/course/7/run.reel");
        assert_eq!(ObjectUrl::parse("s3://runs").unwrap().key, "");
        assert_eq!(ObjectUrl::parse("s3://runs/a/").unwrap().key, "a");
        assert!(is_object_url("s3://runs/a.reel"));
        assert!(!is_object_url("runs/a.reel"));
    }

    #[test]
    fn refuses_what_is_not_an_object_url() {
        for bad in [
            "runs/a.reel",
            "http://runs/a",
            "s3://",
            "s3://ab/k",
            "s3://Runs/k",
            "s3://-runs/k",
            "s3://runs/a//b",
            "s3://runs/../b",
            "s3://runs/./b",
        ] {
            let e = ObjectUrl::parse(bad).unwrap_err();
            assert!(matches!(e, Error::InvalidArgument(_)), "{bad}: {e}");
        }
    }
}
