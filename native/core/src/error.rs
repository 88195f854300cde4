//! The one error type of the library, and the one number per error kind that every language
//! shares: [`ErrorKind::code`] is the C result code (`TICKREEL_RESULT_*`) and the Java
//! `TickreelException.Kind` code of the same error; [`ErrorKind::name`] is the name both spell
//! (`TICKREEL_RESULT_<name>`, `Kind.<name>`).

use std::io;
use std::path::{Path, PathBuf};

/// Everything that can go wrong in tickreel.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An operating-system I/O error (file missing, disk full, permission denied).
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
    /// The bytes are not a valid tickreel structure (bad magic, bad checksum, inconsistent lengths).
    #[error("corrupt data: {0}")]
    Corrupt(String),
    /// The bytes end before the structure does.
    #[error("truncated data: {0}")]
    Truncated(String),
    /// A length in the input exceeds a configured limit (protects against decompression bombs).
    #[error("limit exceeded: {0}")]
    LimitExceeded(String),
    /// The file uses a format or data version this build does not understand.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// An argument given by the caller is invalid (tick going backwards, malformed batch, bad option).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The handle or recording is in a state that does not allow the call (finished, closed, aborted).
    #[error("invalid state: {0}")]
    InvalidState(String),
    /// Another writer holds the recording's lock file.
    #[error("recording is locked by another writer: {0}")]
    Locked(String),
    /// The writer could not keep up and the backpressure policy refused the tick.
    #[error("backpressure: {0}")]
    Backpressure(String),
    /// Data is not available yet (a non-blocking call would have had to wait).
    #[error("not ready: {0}")]
    NotReady(String),
    /// Metadata (NBT) could not be encoded or decoded.
    #[error("metadata error: {0}")]
    Metadata(String),
    /// The catalog's database failed (SQLite, PostgreSQL): the query, the connection. The
    /// message never carries credentials.
    #[error("database error: {0}")]
    Database(String),
}

/// The path an I/O error happened on, carried inside the [`io::Error`] of an [`Error::Io`] (so
/// that the variant keeps its shape and its [`io::ErrorKind`]): see [`Error::io_at`],
/// [`Error::path`].
#[derive(Debug)]
pub struct PathIoError {
    pub path: PathBuf,
    pub source: io::Error,
}

impl std::fmt::Display for PathIoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.source)
    }
}

impl std::error::Error for PathIoError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// What kind of error an [`Error`] is, with its number in every language.
///
/// The numbers are part of the C ABI and of the Java API: they never change and are never
/// reused. Codes 1 to 99 belong to the library's own errors (this enum); codes from 100 are raised
/// by a binding itself (a NULL pointer, an invalid handle, a caught panic, a small buffer).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// [`Error::Io`].
    Io = 1,
    /// [`Error::Corrupt`].
    Corrupt = 2,
    /// [`Error::Truncated`].
    Truncated = 3,
    /// [`Error::LimitExceeded`].
    LimitExceeded = 4,
    /// [`Error::Unsupported`].
    Unsupported = 5,
    /// [`Error::InvalidArgument`].
    InvalidArgument = 6,
    /// [`Error::InvalidState`].
    InvalidState = 7,
    /// [`Error::Locked`].
    Locked = 8,
    /// [`Error::Backpressure`].
    Backpressure = 9,
    /// [`Error::NotReady`].
    NotReady = 10,
    /// [`Error::Metadata`].
    Metadata = 11,
    /// [`Error::Database`].
    Database = 12,
}

impl ErrorKind {
    /// Every kind, in numeric order.
    pub const ALL: [ErrorKind; 12] = [
        ErrorKind::Io,
        ErrorKind::Corrupt,
        ErrorKind::Truncated,
        ErrorKind::LimitExceeded,
        ErrorKind::Unsupported,
        ErrorKind::InvalidArgument,
        ErrorKind::InvalidState,
        ErrorKind::Locked,
        ErrorKind::Backpressure,
        ErrorKind::NotReady,
        ErrorKind::Metadata,
        ErrorKind::Database,
    ];

    /// The number of this kind in every language (C result code, Java `Kind.code()`).
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The kind with this number, if it is one.
    pub fn from_code(code: u32) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.code() == code)
    }

    /// The name in every language, upper snake case: `"INVALID_ARGUMENT"` (C
    /// `TICKREEL_RESULT_INVALID_ARGUMENT`, Java `TickreelException.Kind.INVALID_ARGUMENT`).
    pub const fn name(self) -> &'static str {
        match self {
            ErrorKind::Io => "IO",
            ErrorKind::Corrupt => "CORRUPT",
            ErrorKind::Truncated => "TRUNCATED",
            ErrorKind::LimitExceeded => "LIMIT_EXCEEDED",
            ErrorKind::Unsupported => "UNSUPPORTED",
            ErrorKind::InvalidArgument => "INVALID_ARGUMENT",
            ErrorKind::InvalidState => "INVALID_STATE",
            ErrorKind::Locked => "LOCKED",
            ErrorKind::Backpressure => "BACKPRESSURE",
            ErrorKind::NotReady => "NOT_READY",
            ErrorKind::Metadata => "METADATA",
            ErrorKind::Database => "DATABASE",
        }
    }
}

/// `v`, if it is finite; else an [`Error::InvalidArgument`] naming `what` ("x must be a finite
/// number (got NaN)"). The one finiteness check of every language's input.
pub fn check_finite(what: &str, v: f64) -> Result<f64> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(Error::invalid(format!(
            "{what} must be a finite number (got {v})"
        )))
    }
}

/// An option's name as an error message writes it: its Rust name between backticks
/// (`` `chunk_ticks` ``, `` `flush_interval` ``), which is also C's (the suffix of its setter,
/// `tickreel_recorder_options_set_chunk_ticks`). The message stays structured for the bindings:
/// each spells the marked names in its own language ([`respell_options`]: C as they are, Java as
/// its builder methods), so that a Java message never shows a Rust name.
pub fn option(name: &str) -> String {
    format!("`{name}`")
}

/// A closed range as messages write it in every language: "between 1 and 64" (never Rust's
/// `1..=64`).
pub fn between(low: impl std::fmt::Display, high: impl std::fmt::Display) -> String {
    format!("between {low} and {high}")
}

/// A duration as messages write it in every language: "50 ms", "2 s", "750 µs" (never Rust's
/// `Debug` form such as `50ms` or `1.5s`).
pub fn duration(d: std::time::Duration) -> String {
    let us = d.as_micros();
    if us == 0 || !us.is_multiple_of(1000) && us < 10_000 {
        format!("{us} µs")
    } else if us.is_multiple_of(1_000_000) {
        format!("{} s", us / 1_000_000)
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// A span of ticks as messages write it: "ticks 3 to 9", or "no ticks".
pub(crate) fn tick_span(first: Option<u32>, last: Option<u32>) -> String {
    match (first, last) {
        (Some(a), Some(b)) => format!("ticks {a} to {b}"),
        (Some(a), None) | (None, Some(a)) => format!("tick {a}"),
        (None, None) => "no ticks".into(),
    }
}

/// `msg` with each option name marked by [`option`] spelled as `spell` says (as it is where
/// `spell` does not know it), without the backticks.
pub fn respell_options(msg: &str, spell: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(msg.len());
    let mut rest = msg;
    while let Some(start) = rest.find('`') {
        let Some(len) = rest[start + 1..].find('`') else {
            break;
        };
        let name = &rest[start + 1..start + 1 + len];
        out.push_str(&rest[..start]);
        out.push_str(spell(name).as_deref().unwrap_or(name));
        rest = &rest[start + len + 2..];
    }
    out.push_str(rest);
    out
}

/// `s` without the standard library's " (os error N)" (the errno, which the reason before it
/// already says in words).
fn without_os_error(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(" (os error ") {
        let tail = &rest[i + " (os error ".len()..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && tail[digits..].starts_with(')') {
            out.push_str(&rest[..i]);
            rest = &tail[digits + 1..];
        } else {
            out.push_str(&rest[..i + 1]);
            rest = &rest[i + 1..];
        }
    }
    out.push_str(rest);
    out
}

fn path_of(e: &io::Error) -> Option<&Path> {
    e.get_ref()
        .and_then(|i| i.downcast_ref::<PathIoError>())
        .map(|p| p.path.as_path())
}

/// What an I/O error says without its path.
fn source_of(e: &io::Error) -> &dyn std::fmt::Display {
    match e.get_ref().and_then(|i| i.downcast_ref::<PathIoError>()) {
        Some(p) => &p.source,
        None => e,
    }
}

/// Result alias used throughout the crate.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn corrupt(msg: impl Into<String>) -> Self {
        Error::Corrupt(msg.into())
    }
    pub fn truncated(msg: impl Into<String>) -> Self {
        Error::Truncated(msg.into())
    }
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::InvalidArgument(msg.into())
    }
    /// The same error with `more` appended to its message (same variant, same I/O error kind).
    pub fn with_context(self, more: &str) -> Self {
        let add = |m: String| format!("{m}{more}");
        match self {
            Error::Io(e) => match path_of(&e) {
                Some(p) => Error::io_at(
                    p,
                    io::Error::new(e.kind(), format!("{}{more}", source_of(&e))),
                ),
                None => Error::Io(io::Error::new(e.kind(), format!("{e}{more}"))),
            },
            Error::Corrupt(m) => Error::Corrupt(add(m)),
            Error::Truncated(m) => Error::Truncated(add(m)),
            Error::LimitExceeded(m) => Error::LimitExceeded(add(m)),
            Error::Unsupported(m) => Error::Unsupported(add(m)),
            Error::InvalidArgument(m) => Error::InvalidArgument(add(m)),
            Error::InvalidState(m) => Error::InvalidState(add(m)),
            Error::Locked(m) => Error::Locked(add(m)),
            Error::Backpressure(m) => Error::Backpressure(add(m)),
            Error::NotReady(m) => Error::NotReady(add(m)),
            Error::Metadata(m) => Error::Metadata(add(m)),
            Error::Database(m) => Error::Database(add(m)),
        }
    }
    pub fn limit(msg: impl Into<String>) -> Self {
        Error::LimitExceeded(msg.into())
    }
}

impl Error {
    /// What kind of error this is. Exhaustive on purpose: a new variant must get a kind.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Io(_) => ErrorKind::Io,
            Error::Corrupt(_) => ErrorKind::Corrupt,
            Error::Truncated(_) => ErrorKind::Truncated,
            Error::LimitExceeded(_) => ErrorKind::LimitExceeded,
            Error::Unsupported(_) => ErrorKind::Unsupported,
            Error::InvalidArgument(_) => ErrorKind::InvalidArgument,
            Error::InvalidState(_) => ErrorKind::InvalidState,
            Error::Locked(_) => ErrorKind::Locked,
            Error::Backpressure(_) => ErrorKind::Backpressure,
            Error::NotReady(_) => ErrorKind::NotReady,
            Error::Metadata(_) => ErrorKind::Metadata,
            Error::Database(_) => ErrorKind::Database,
        }
    }

    /// The error's number in every language: `self.kind().code()`.
    pub fn code(&self) -> u32 {
        self.kind().code()
    }

    /// An I/O error on `path`: an [`Error::Io`] of `e`'s kind whose message names the path
    /// ("/runs/42.reel.live: Permission denied"), and which [`Error::path`] returns.
    pub fn io_at(path: &Path, e: io::Error) -> Error {
        let kind = e.kind();
        Error::Io(io::Error::new(
            kind,
            PathIoError {
                path: path.to_path_buf(),
                source: e,
            },
        ))
    }

    /// A file that is in the way at `path` (a finished recording, a compaction's or a report's
    /// output): an I/O error of kind `AlreadyExists` (in Java, a `FileAlreadyExistsException`
    /// cause), its message "PATH: already exists" followed by `more`.
    pub(crate) fn exists_at(path: &Path, more: &str) -> Error {
        Error::io_at(
            path,
            io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("already exists{more}"),
            ),
        )
    }

    /// The path an I/O error happened on, if it names one ([`Error::io_at`]: every error of the
    /// local file system's storage does).
    pub fn path(&self) -> Option<&Path> {
        match self {
            Error::Io(e) => path_of(e),
            _ => None,
        }
    }

    /// What went wrong, without the kind's prefix, the path or an errno: for an I/O error the
    /// operating system's words ("No such file or directory"), else the message. With
    /// [`Error::path`] and [`Error::io_kind`], what a binding formats in its own idiom (Java:
    /// "PATH: reason", as `java.nio.file.FileSystemException`).
    pub fn reason(&self) -> String {
        match self {
            Error::Io(e) => without_os_error(&source_of(e).to_string()),
            Error::Corrupt(m)
            | Error::Truncated(m)
            | Error::LimitExceeded(m)
            | Error::Unsupported(m)
            | Error::InvalidArgument(m)
            | Error::InvalidState(m)
            | Error::Locked(m)
            | Error::Backpressure(m)
            | Error::NotReady(m)
            | Error::Metadata(m)
            | Error::Database(m) => m.clone(),
        }
    }

    /// The operating system's kind of an I/O error (`NotFound`, `PermissionDenied`...).
    pub fn io_kind(&self) -> Option<io::ErrorKind> {
        match self {
            Error::Io(e) => Some(e.kind()),
            _ => None,
        }
    }

    /// A copy of the error (I/O errors keep their kind, path and message).
    pub fn duplicate(&self) -> Error {
        match self {
            Error::Io(e) => match path_of(e) {
                Some(p) => Error::io_at(p, io::Error::new(e.kind(), source_of(e).to_string())),
                None => Error::Io(io::Error::new(e.kind(), e.to_string())),
            },
            Error::Corrupt(m) => Error::Corrupt(m.clone()),
            Error::Truncated(m) => Error::Truncated(m.clone()),
            Error::LimitExceeded(m) => Error::LimitExceeded(m.clone()),
            Error::Unsupported(m) => Error::Unsupported(m.clone()),
            Error::InvalidArgument(m) => Error::InvalidArgument(m.clone()),
            Error::InvalidState(m) => Error::InvalidState(m.clone()),
            Error::Locked(m) => Error::Locked(m.clone()),
            Error::Backpressure(m) => Error::Backpressure(m.clone()),
            Error::NotReady(m) => Error::NotReady(m.clone()),
            Error::Metadata(m) => Error::Metadata(m.clone()),
            Error::Database(m) => Error::Database(m.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_words() {
        use std::time::Duration;
        assert_eq!(duration(Duration::from_millis(50)), "50 ms");
        assert_eq!(duration(Duration::from_secs(2)), "2 s");
        assert_eq!(duration(Duration::from_millis(1500)), "1500 ms");
        assert_eq!(duration(Duration::from_micros(750)), "750 µs");
        assert_eq!(duration(Duration::from_micros(1250)), "1250 µs");
        assert_eq!(duration(Duration::ZERO), "0 µs");
    }

    #[test]
    fn option_names_are_respelled_and_os_errors_dropped() {
        let m = format!(
            "{} 0 must be {}; see {}",
            option("chunk_ticks"),
            between(1, 64),
            option("other")
        );
        assert_eq!(m, "`chunk_ticks` 0 must be between 1 and 64; see `other`");
        let java = respell_options(&m, |n| (n == "chunk_ticks").then(|| "chunkTicks".into()));
        assert_eq!(java, "chunkTicks 0 must be between 1 and 64; see other");
        assert_eq!(respell_options("a ` b", |_| None), "a ` b");
        assert_eq!(
            without_os_error("Denied (os error 13) (os error x) (os error 2)"),
            "Denied (os error x)"
        );
    }

    #[test]
    fn kinds_have_distinct_codes_and_names_and_round_trip() {
        let mut codes = std::collections::HashSet::new();
        let mut names = std::collections::HashSet::new();
        for (i, k) in ErrorKind::ALL.into_iter().enumerate() {
            assert_eq!(
                k.code(),
                i as u32 + 1,
                "{k:?}: ALL is in numeric order from 1"
            );
            assert!(codes.insert(k.code()) && names.insert(k.name()), "{k:?}");
            assert_eq!(ErrorKind::from_code(k.code()), Some(k));
            assert!(k.code() < 100, "codes from 100 belong to the bindings");
            let debug: String = format!("{k:?}")
                .chars()
                .enumerate()
                .flat_map(|(i, c)| {
                    let sep = (i > 0 && c.is_ascii_uppercase()).then_some('_');
                    sep.into_iter().chain([c.to_ascii_uppercase()])
                })
                .collect();
            assert_eq!(k.name(), debug);
        }
        assert_eq!(ErrorKind::from_code(0), None);
        assert_eq!(ErrorKind::from_code(13), None);
    }

    #[test]
    fn every_error_has_its_kind() {
        let errors = [
            Error::Io(io::Error::other("x")),
            Error::corrupt("x"),
            Error::truncated("x"),
            Error::limit("x"),
            Error::Unsupported("x".into()),
            Error::invalid("x"),
            Error::InvalidState("x".into()),
            Error::Locked("x".into()),
            Error::Backpressure("x".into()),
            Error::NotReady("x".into()),
            Error::Metadata("x".into()),
            Error::Database("x".into()),
        ];
        for (e, k) in errors.iter().zip(ErrorKind::ALL) {
            assert_eq!(e.kind(), k, "{e}");
            assert_eq!(e.code(), k.code());
            assert_eq!(e.duplicate().kind(), k);
            assert_eq!(e.duplicate().with_context(" more").kind(), k);
        }
    }

    #[test]
    fn an_io_error_at_a_path_keeps_its_kind_and_path_through_copies() {
        let e = Error::io_at(
            Path::new("/runs/42.reel.live"),
            io::Error::from(io::ErrorKind::PermissionDenied),
        );
        assert_eq!(e.kind(), ErrorKind::Io);
        assert_eq!(e.io_kind(), Some(io::ErrorKind::PermissionDenied));
        assert_eq!(e.path(), Some(Path::new("/runs/42.reel.live")));
        assert_eq!(
            e.to_string(),
            "I/O error: /runs/42.reel.live: permission denied"
        );
        let more = e.duplicate().with_context(" (flushing tick 7)");
        assert_eq!(more.path(), Some(Path::new("/runs/42.reel.live")));
        assert_eq!(more.io_kind(), Some(io::ErrorKind::PermissionDenied));
        assert_eq!(
            more.to_string(),
            "I/O error: /runs/42.reel.live: permission denied (flushing tick 7)"
        );
        assert_eq!(more.reason(), "permission denied (flushing tick 7)");
        let os = Error::io_at(Path::new("/runs"), io::Error::from_raw_os_error(2))
            .with_context(" (flushing)");
        assert!(os.to_string().contains("(os error 2)"), "{os}");
        assert_eq!(os.reason(), "No such file or directory (flushing)");
        assert_eq!(Error::corrupt("bad magic").reason(), "bad magic");
        assert_eq!(Error::Io(io::Error::other("x")).path(), None);
        assert_eq!(Error::corrupt("x").io_kind(), None);
    }
}
