//! How the tool words errors: every message names the file it concerns ([`in_file`], [`io_at`]),
//! quotes at most [`ECHO_MAX_CHARS`] characters of any input ([`echo`]), and a write to a closed
//! stdout ([`StdoutClosed`], see the binary's `cmd::output`) passes through unchanged, so that it
//! stays a quiet end.

use std::io;
use std::path::Path;

use tickreel::Error;

/// Marks the `io::Error` of a write to a closed stdout.
#[derive(Debug)]
pub struct StdoutClosed;

impl std::fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("standard output was closed")
    }
}

impl std::error::Error for StdoutClosed {}

/// Whether `e` is (or wraps) a write to a closed stdout.
pub fn is_closed(e: &Error) -> bool {
    matches!(e, Error::Io(io) if is_closed_io(io))
}

/// Whether `e` is a write to a closed stdout.
pub fn is_closed_io(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|r| r.is::<StdoutClosed>())
}

/// Prefixes an error's message with the file it concerns, unless it already names it (I/O errors
/// from opening do).
pub fn in_file(path: &Path, e: Error) -> Error {
    context(e, &path.display().to_string())
}

/// Prefixes an I/O error's message with the file it concerns (for errors writing an output: a
/// data error there is about the input, not the file being written). Other errors are kept.
pub fn io_in_file(path: &Path, e: Error) -> Error {
    match e {
        Error::Io(_) => in_file(path, e),
        other => other,
    }
}

/// An I/O error on `path`, naming it.
pub fn io_at(path: &Path, e: io::Error) -> Error {
    in_file(path, Error::Io(e))
}

/// Prefixes an error's message with `ctx` (kept as it is if the message already contains `ctx`).
/// A write to a closed stdout is kept as it is (see [`is_closed`]).
pub fn context(e: Error, ctx: &str) -> Error {
    if is_closed(&e) {
        return e;
    }
    let f = |m: String| {
        if m.contains(ctx) {
            m
        } else {
            format!("{ctx}: {m}")
        }
    };
    match e {
        Error::Corrupt(m) => Error::Corrupt(f(m)),
        Error::Truncated(m) => Error::Truncated(f(m)),
        Error::LimitExceeded(m) => Error::LimitExceeded(f(m)),
        Error::Unsupported(m) => Error::Unsupported(f(m)),
        Error::Metadata(m) => Error::Metadata(f(m)),
        Error::InvalidArgument(m) => Error::InvalidArgument(f(m)),
        Error::InvalidState(m) => Error::InvalidState(f(m)),
        Error::Io(io) => Error::Io(io::Error::new(io.kind(), f(io.to_string()))),
        other => other,
    }
}

/// Most characters of a piece of input (a CSV field, a column name) an error message quotes.
pub const ECHO_MAX_CHARS: usize = 64;

/// A piece of input quoted for an error message: `"text"`, or, past [`ECHO_MAX_CHARS`]
/// characters, its first ones, an ellipsis and its length in bytes (`"abc"… (104857600 bytes)`),
/// so that a 100 MB field does not become a 100 MB message.
pub fn echo(s: &str) -> String {
    match s.char_indices().nth(ECHO_MAX_CHARS) {
        None => format!("{s:?}"),
        Some((cut, _)) => format!("{:?}… ({} bytes)", &s[..cut], s.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echo_caps_long_input() {
        assert_eq!(echo("sixty"), "\"sixty\"");
        let exact = "x".repeat(ECHO_MAX_CHARS);
        assert_eq!(echo(&exact), format!("{exact:?}"));
        let long = "é".repeat(1000);
        let e = echo(&long);
        assert!(e.ends_with("\"… (2000 bytes)"), "{e}");
        assert_eq!(e.matches('é').count(), ECHO_MAX_CHARS, "{e}");
        assert!(e.len() < 200, "{e}");
    }

    #[test]
    fn context_names_the_file_once_and_keeps_a_closed_stdout() {
        let e = in_file(Path::new("a.csv"), Error::InvalidArgument("bad".into()));
        assert_eq!(e.to_string(), in_file(Path::new("a.csv"), e).to_string());
        let io_err = io_at(Path::new("b.reel"), io::ErrorKind::NotFound.into());
        assert!(io_err.to_string().contains("b.reel"), "{io_err}");
        let data = io_in_file(Path::new("c.reel"), Error::Corrupt("x".into()));
        assert!(!data.to_string().contains("c.reel"), "{data}");
        let closed = Error::Io(io::Error::new(io::ErrorKind::BrokenPipe, StdoutClosed));
        let closed = in_file(Path::new("d.csv"), closed);
        assert!(is_closed(&closed));
        assert!(!closed.to_string().contains("d.csv"), "{closed}");
    }
}
