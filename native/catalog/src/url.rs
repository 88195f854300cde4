//! Where a catalog lives: `sqlite:PATH` (the default: an embedded database file, created when
//! missing) or `postgres://user:password@host:port/database` (also `postgresql://`). A URL is
//! only ever shown redacted: its password replaced by `***`.

use std::path::PathBuf;

use tickreel::{Error, Result};

/// A parsed catalog URL.
#[derive(Clone, PartialEq, Eq)]
pub enum CatalogUrl {
    /// An SQLite database file.
    Sqlite(PathBuf),
    /// A PostgreSQL server, with the full connection string (kept private: see [`CatalogUrl::redacted`]).
    Postgres {
        url: String,
        /// The password and its percent-encoded form, scrubbed from every message.
        secrets: Vec<String>,
    },
}

impl std::fmt::Debug for CatalogUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.redacted())
    }
}

impl CatalogUrl {
    /// Parses `url`. A string without a scheme is refused (say `sqlite:` to mean a file).
    pub fn parse(url: &str) -> Result<CatalogUrl> {
        if let Some(path) = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
        {
            if path.is_empty() {
                return Err(Error::invalid("catalog URL sqlite: needs a file path"));
            }
            return Ok(CatalogUrl::Sqlite(PathBuf::from(path)));
        }
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(CatalogUrl::Postgres {
                url: url.to_owned(),
                secrets: secrets(url),
            });
        }
        let scheme = url.split_once(':').map_or("", |(s, _)| s);
        let shown = if scheme.is_empty() || scheme.contains('/') {
            "no scheme".to_owned()
        } else {
            format!("the scheme {scheme}:")
        };
        Err(Error::Unsupported(format!(
            "catalog URL with {shown}: use sqlite:PATH or postgres://USER@HOST/DB"
        )))
    }

    /// The URL with its password replaced by `***`: the only form that errors and logs show.
    pub fn redacted(&self) -> String {
        match self {
            CatalogUrl::Sqlite(p) => format!("sqlite:{}", p.display()),
            CatalogUrl::Postgres { url, secrets } => {
                let mut shown = url.clone();
                for s in secrets.iter().filter(|s| !s.is_empty()) {
                    shown = shown.replace(s.as_str(), "***");
                }
                shown
            }
        }
    }
}

/// The password of a `postgres://` URL: in its user info (`user:password@`) or a `password=`
/// query parameter, raw and percent-decoded.
fn secrets(url: &str) -> Vec<String> {
    let mut out = Vec::new();
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?']).next().unwrap_or("");
    if let Some((userinfo, _)) = authority.rsplit_once('@')
        && let Some((_, pw)) = userinfo.split_once(':')
    {
        out.push(pw.to_owned());
    }
    if let Some((_, query)) = rest.split_once('?') {
        for kv in query.split('&') {
            if let Some(pw) = kv.strip_prefix("password=") {
                out.push(pw.to_owned());
            }
        }
    }
    let decoded: Vec<String> = out.iter().map(|s| percent_decode(s)).collect();
    out.extend(decoded);
    out.retain(|s| !s.is_empty());
    // the longest first, so that a shorter secret inside a longer one leaves no part visible
    out.sort_by_key(|s| std::cmp::Reverse(s.len()));
    out.dedup();
    out
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(hex) = std::str::from_utf8(&b[i + 1..i + 3])
            && let Ok(v) = u8::from_str_radix(hex, 16)
        {
            out.push(v);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_and_never_show_the_password() {
        assert_eq!(
            CatalogUrl::parse("sqlite:runs/catalog.db").unwrap(),
            CatalogUrl::Sqlite("runs/catalog.db".into())
        );
        assert_eq!(
            CatalogUrl::parse("sqlite:///tmp/c.db").unwrap(),
            CatalogUrl::Sqlite("/tmp/c.db".into())
        );
        let u = CatalogUrl::parse("postgres://bob:s%40cret@db.example:5433/runs").unwrap();
        assert_eq!(u.redacted(), "postgres://bob:***@db.example:5433/runs");
        assert!(!format!("{u:?}").contains("cret"));
        let q = CatalogUrl::parse("postgresql://h/db?user=bob&password=hunter2").unwrap();
        assert_eq!(q.redacted(), "postgresql://h/db?user=bob&password=***");
        let e = CatalogUrl::parse("mongodb://bob:pw@h/db").unwrap_err();
        assert!(e.to_string().contains("mongodb:") && !e.to_string().contains("pw"));
        assert!(CatalogUrl::parse("catalog.db").is_err());
        assert!(CatalogUrl::parse("sqlite:").is_err());
    }

    #[test]
    fn percent_decoding_handles_short_escapes() {
        assert_eq!(percent_decode("a%40b"), "a@b");
        assert_eq!(percent_decode("a%4"), "a%4");
        assert_eq!(percent_decode("%"), "%");
    }
}
