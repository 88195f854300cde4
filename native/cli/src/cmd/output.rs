//! Standard output, for every command: one writer ([`Out`]) that `main` creates, hands to the
//! command and flushes at the end.
//!
//! A closed stdout (`tickreel dump f | head`, a reader that went away) is a quiet end, never a
//! panic: a write or flush that fails with `EPIPE` returns an error marked [`StdoutClosed`], which
//! the command passes up like any other error (stopping its work), and `main` then exits with
//! status 0 and prints nothing. Other write errors (a full disk behind `> file`) name standard
//! output and fail the command. `println!` is not used anywhere in the tool (it panics on a closed
//! pipe); `clippy::print_stdout` is denied in `main.rs` to keep it so.

use std::io::{self, Write};

// The mark of a closed stdout lives in the library, next to the error wording that keeps it.
pub use tickreel_cli::errors::{StdoutClosed, is_closed, is_closed_io};

/// Bytes kept before they are written to stdout (unless line-buffered).
const CAPACITY: usize = 64 * 1024;

/// The error of a failed write to stdout: marked [`StdoutClosed`] for a closed pipe, otherwise
/// naming standard output.
fn tag(e: io::Error) -> io::Error {
    if is_closed_io(&e) {
        e
    } else if e.kind() == io::ErrorKind::BrokenPipe {
        io::Error::new(io::ErrorKind::BrokenPipe, StdoutClosed)
    } else {
        io::Error::new(e.kind(), format!("standard output: {e}"))
    }
}

/// The tool's standard output: buffered (or line-buffered, see [`Out::set_line_buffered`]);
/// errors as described in the [module documentation](self). What is still buffered when it is
/// dropped is written then, errors ignored: `main` flushes it first.
pub struct Out {
    buf: Vec<u8>,
    line_buffered: bool,
    closed: bool,
    /// Where the bytes go (stdout, or a test's sink).
    sink: Box<dyn Write>,
}

impl Out {
    /// The process's stdout.
    pub fn stdout() -> Out {
        Out::to(Box::new(io::stdout()))
    }

    /// Any sink (for tests).
    pub fn to(sink: Box<dyn Write>) -> Out {
        Out {
            buf: Vec::with_capacity(CAPACITY),
            line_buffered: false,
            closed: false,
            sink,
        }
    }

    /// Writes every complete line at once (for commands whose lines are read as they come, such
    /// as `simulate`'s `flushed TICK`).
    pub fn set_line_buffered(&mut self, on: bool) {
        self.line_buffered = on;
    }

    fn write_buf(&mut self) -> io::Result<()> {
        if self.closed {
            self.buf.clear();
            return Err(tag(io::ErrorKind::BrokenPipe.into()));
        }
        let r = self.sink.write_all(&self.buf).and_then(|()| {
            if self.line_buffered {
                self.sink.flush()
            } else {
                Ok(())
            }
        });
        self.buf.clear();
        r.map_err(|e| self.failed(e))
    }

    fn failed(&mut self, e: io::Error) -> io::Error {
        let e = tag(e);
        if is_closed_io(&e) {
            self.closed = true;
        }
        e
    }
}

impl Write for Out {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Err(tag(io::ErrorKind::BrokenPipe.into()));
        }
        self.buf.extend_from_slice(b);
        if self.buf.len() >= CAPACITY || (self.line_buffered && b.contains(&b'\n')) {
            self.write_buf()?;
        }
        Ok(b.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.write_buf()?;
        self.sink.flush().map_err(|e| self.failed(e))
    }
}

impl Drop for Out {
    fn drop(&mut self) {
        if !self.closed && !self.buf.is_empty() {
            let _ = self.sink.write_all(&self.buf);
            let _ = self.sink.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A sink that records its bytes and fails with `kind` once `limit` bytes were written.
    struct Sink {
        got: Arc<Mutex<Vec<u8>>>,
        limit: usize,
        kind: io::ErrorKind,
    }

    impl Write for Sink {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            let mut g = self.got.lock().unwrap();
            if g.len() + b.len() > self.limit {
                return Err(self.kind.into());
            }
            g.extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn out(limit: usize, kind: io::ErrorKind) -> (Out, Arc<Mutex<Vec<u8>>>) {
        let got = Arc::new(Mutex::new(Vec::new()));
        let sink = Sink {
            got: got.clone(),
            limit,
            kind,
        };
        (Out::to(Box::new(sink)), got)
    }

    #[test]
    fn a_broken_pipe_is_marked_closed_and_stays_closed() {
        let (mut o, _) = out(0, io::ErrorKind::BrokenPipe);
        writeln!(o, "hello").unwrap(); // buffered
        let e = o.flush().unwrap_err();
        assert!(is_closed_io(&e), "{e}");
        assert!(o.closed);
        let e = writeln!(o, "again").unwrap_err();
        assert!(is_closed_io(&e), "{e}");
        let e = tickreel::Error::Io(e);
        assert!(is_closed(&e));
        // Context added by a command keeps the mark.
        assert!(is_closed(&crate::cmd::in_file(
            std::path::Path::new("f"),
            e
        )));
    }

    #[test]
    fn other_errors_name_standard_output() {
        let (mut o, _) = out(0, io::ErrorKind::StorageFull);
        writeln!(o, "x").unwrap();
        let e = o.flush().unwrap_err();
        assert!(!is_closed_io(&e));
        assert!(e.to_string().contains("standard output"), "{e}");
    }

    #[test]
    fn line_buffered_output_writes_each_line() {
        let (mut o, got) = out(usize::MAX, io::ErrorKind::Other);
        o.set_line_buffered(true);
        write!(o, "flushed ").unwrap();
        assert!(got.lock().unwrap().is_empty());
        writeln!(o, "7").unwrap();
        assert_eq!(&*got.lock().unwrap(), b"flushed 7\n");
    }
}

/// `s` as text safe to print on a terminal: control characters (C0, DEL, C1: escape sequences
/// that recolour, move the cursor or retitle the window) and bidirectional overrides (which
/// reorder what follows) are shown as `\u{..}`. For names and reasons a game client or a
/// recording supplied (a player named "\x1b[2J" must not clear a moderator's screen).
pub fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char =
        |c: char| c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    if !s.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_char(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod printable_tests {
    use super::printable;

    #[test]
    fn escapes_and_reorderings_are_shown_not_sent() {
        assert_eq!(printable("Alice"), "Alice");
        assert_eq!(printable("Zoë 名前"), "Zoë 名前");
        assert_eq!(printable("\x1b[2Jevil"), "\\u{1b}[2Jevil");
        assert_eq!(printable("a\u{9b}31mb"), "a\\u{9b}31mb");
        assert_eq!(printable("x\u{202e}gnp.exe"), "x\\u{202e}gnp.exe");
        assert_eq!(printable("tab\there\r\n"), "tab\\u{9}here\\u{d}\\u{a}");
        assert_eq!(printable("\u{7f}"), "\\u{7f}");
    }
}
