//! Where a catalog lives: `sqlite:PATH` (the default: an embedded database file, created when
//! missing) or `postgres://user:password@host:port/database` (also `postgresql://`). A URL is
//! only ever shown redacted: its password replaced by `***`.
//!
//! A PostgreSQL URL's query also carries the catalog's own connection settings, taken out of it
//! before the rest reaches the driver: `sslmode` (as libpq spells it, see [`SslMode`]),
//! `sslrootcert=FILE` (the CA that verifies the server; `system` or absent: the system's roots)
//! and `pool_max=N` (how many connections one catalog opens, [`DEFAULT_POOL_MAX`] by default).

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
        /// The settings the catalog takes out of the query.
        options: PgOptions,
    },
}

/// How a PostgreSQL connection is secured: libpq's `sslmode`, default [`SslMode::Prefer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SslMode {
    /// Plain TCP, never TLS (a server that demands TLS refuses the connection).
    Disable,
    /// TLS when the server offers it, plain TCP when it does not; the certificate is not verified.
    #[default]
    Prefer,
    /// TLS or no connection; encrypted, but the certificate is not verified (no protection from
    /// a man in the middle).
    Require,
    /// TLS, and the server's certificate chain must lead to the CA (`sslrootcert`, else the
    /// system's roots); its host name is not checked.
    VerifyCa,
    /// [`SslMode::VerifyCa`], and the certificate must name the host of the URL: what a managed
    /// database over the Internet needs.
    VerifyFull,
}

impl SslMode {
    /// The mode spelled as libpq spells it.
    pub fn parse(s: &str) -> Option<SslMode> {
        Some(match s {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            _ => return None,
        })
    }

    /// Whether the server's certificate is verified.
    pub fn verifies(self) -> bool {
        matches!(self, SslMode::VerifyCa | SslMode::VerifyFull)
    }
}

/// How many connections one catalog opens at most when the URL does not say (`pool_max`).
pub const DEFAULT_POOL_MAX: usize = 4;
/// The most connections a URL may ask for (`pool_max`).
pub const MAX_POOL_MAX: usize = 64;

/// The catalog's own settings of a PostgreSQL URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgOptions {
    /// `sslmode`.
    pub ssl_mode: SslMode,
    /// `sslrootcert=FILE`: the CA certificates (PEM) that verify the server; `None`: the
    /// system's roots.
    pub root_cert: Option<PathBuf>,
    /// `pool_max=N`: connections opened at most, 1 to [`MAX_POOL_MAX`].
    pub pool_max: usize,
}

impl Default for PgOptions {
    fn default() -> PgOptions {
        PgOptions {
            ssl_mode: SslMode::default(),
            root_cert: None,
            pool_max: DEFAULT_POOL_MAX,
        }
    }
}

/// Takes the catalog's settings out of `url`'s query: the options, and the URL left for the
/// driver.
fn take_options(url: &str) -> Result<(PgOptions, String)> {
    let mut options = PgOptions::default();
    let Some((base, query)) = url.split_once('?') else {
        return Ok((options, url.to_owned()));
    };
    let mut rest = Vec::new();
    for kv in query.split('&') {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        let value = percent_decode(v);
        match k {
            "sslmode" => {
                options.ssl_mode = SslMode::parse(&value).ok_or_else(|| {
                    Error::invalid(format!(
                        "catalog URL: sslmode={value} is not one of disable, prefer, require, \
                         verify-ca, verify-full"
                    ))
                })?;
            }
            "sslrootcert" => {
                options.root_cert = match value.as_str() {
                    "" => return Err(Error::invalid("catalog URL: sslrootcert= needs a file")),
                    "system" => None,
                    file => Some(PathBuf::from(file)),
                };
            }
            "pool_max" => {
                options.pool_max = value
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=MAX_POOL_MAX).contains(n))
                    .ok_or_else(|| {
                        Error::invalid(format!(
                            "catalog URL: pool_max={value} is not a number from 1 to {MAX_POOL_MAX}"
                        ))
                    })?;
            }
            _ => rest.push(kv),
        }
    }
    if options.root_cert.is_some() && !options.ssl_mode.verifies() {
        return Err(Error::invalid(format!(
            "catalog URL: sslrootcert is only used to verify the server: say sslmode=verify-full \
             (or verify-ca), not {:?}",
            options.ssl_mode
        )));
    }
    let driver = if rest.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", rest.join("&"))
    };
    Ok((options, driver))
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
            let secrets = secrets(url);
            let (options, _) = take_options(url).map_err(|e| scrub(e, &secrets))?;
            return Ok(CatalogUrl::Postgres {
                url: url.to_owned(),
                secrets,
                options,
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
            CatalogUrl::Postgres { url, secrets, .. } => {
                let mut shown = url.clone();
                for s in secrets.iter().filter(|s| !s.is_empty()) {
                    shown = shown.replace(s.as_str(), "***");
                }
                shown
            }
        }
    }
}

impl CatalogUrl {
    /// A PostgreSQL URL without the catalog's own settings: what the driver parses.
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    pub(crate) fn driver_url(&self) -> Option<String> {
        match self {
            CatalogUrl::Sqlite(_) => None,
            CatalogUrl::Postgres { url, .. } => take_options(url).ok().map(|(_, u)| u),
        }
    }
}

/// `e` with the secrets replaced by `***`.
fn scrub(e: Error, secrets: &[String]) -> Error {
    let mut msg = e.to_string();
    for s in secrets.iter().filter(|s| !s.is_empty()) {
        msg = msg.replace(s.as_str(), "***");
    }
    Error::invalid(msg)
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
    fn the_catalog_takes_its_settings_out_of_the_query() {
        let u = CatalogUrl::parse(
            "postgres://bob:pw@db.example/runs?sslmode=verify-full&sslrootcert=/etc/ca%20x.pem\
             &connect_timeout=5&pool_max=20",
        )
        .unwrap();
        let CatalogUrl::Postgres { options, .. } = &u else {
            panic!("not postgres")
        };
        assert_eq!(options.ssl_mode, SslMode::VerifyFull);
        assert_eq!(options.root_cert.as_deref(), Some("/etc/ca x.pem".as_ref()));
        assert_eq!(options.pool_max, 20);
        assert_eq!(
            u.driver_url().unwrap(),
            "postgres://bob:pw@db.example/runs?connect_timeout=5"
        );
        let d = CatalogUrl::parse("postgres://h/db").unwrap();
        assert_eq!(d.driver_url().unwrap(), "postgres://h/db");
        let CatalogUrl::Postgres { options, .. } = &d else {
            panic!("not postgres")
        };
        assert_eq!(*options, PgOptions::default());
        assert_eq!(options.ssl_mode, SslMode::Prefer);
        for bad in [
            "postgres://h/db?sslmode=allow",
            "postgres://h/db?pool_max=0",
            "postgres://h/db?pool_max=65",
            "postgres://h/db?pool_max=x",
            "postgres://h/db?sslrootcert=",
            "postgres://h/db?sslmode=require&sslrootcert=/ca.pem",
        ] {
            assert!(CatalogUrl::parse(bad).is_err(), "{bad}");
        }
        let e = CatalogUrl::parse("postgres://h/db?password=hunter2&sslmode=hunter2").unwrap_err();
        assert!(!e.to_string().contains("hunter2"), "{e}");
    }

    #[test]
    fn percent_decoding_handles_short_escapes() {
        assert_eq!(percent_decode("a%40b"), "a@b");
        assert_eq!(percent_decode("a%4"), "a%4");
        assert_eq!(percent_decode("%"), "%");
    }
}
