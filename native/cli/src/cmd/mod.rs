//! One module per subcommand. Each exposes `Args` (clap) and
//! `run(Args, &mut Out) -> tickreel::Result<()>`: everything it prints goes to the [`Out`] that
//! `main` hands it (see [`output`] for a closed stdout), and errors end up as one line on stderr.

pub mod compact;
pub mod demo;
pub mod dump;
pub mod export;
pub mod files;
pub mod ghost;
pub mod import;
pub mod info;
pub mod json;
pub mod output;
pub mod play;
pub mod progress;
pub mod recover;
pub mod simulate;
pub mod verify;

pub use output::Out;

use std::path::Path;

use tickreel::Error;
use tickreel::play::Reader;

/// Opens a recording given on the command line (a `.reel` file or a live recording directory);
/// errors name the file.
pub fn open(path: &Path) -> tickreel::Result<Reader> {
    Reader::open_any(path).map_err(|e| in_file(path, e))
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
pub fn io_at(path: &Path, e: std::io::Error) -> Error {
    in_file(path, Error::Io(e))
}

/// Prefixes an error's message with `ctx` (kept as it is if the message already contains `ctx`).
/// A write to a closed stdout is kept as it is (see [`output::is_closed`]).
pub fn context(e: Error, ctx: &str) -> Error {
    if output::is_closed(&e) {
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
        Error::Io(io) => Error::Io(std::io::Error::new(io.kind(), f(io.to_string()))),
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

/// A note on stderr (`tickreel: ...`); a closed stderr is ignored.
pub fn note(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "tickreel: {msg}");
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
}
