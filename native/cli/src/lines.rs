//! Lines of untrusted text read with a bound checked while reading: a line longer than the bound
//! is refused once that many bytes came, never read whole first (`BufRead::lines` would hold a
//! line of any length in memory before anything could look at it).

use std::io::{self, BufRead, Read};
use std::path::Path;

use tickreel::Error;

/// Lines of `input`, one at a time, each at most `max` bytes (its end of line not counted).
pub struct BoundedLines<R> {
    input: R,
    max: usize,
    buf: Vec<u8>,
    lineno: u64,
}

impl<R: BufRead> BoundedLines<R> {
    /// Lines of `input` of at most `max` bytes each.
    pub fn new(input: R, max: usize) -> BoundedLines<R> {
        BoundedLines {
            input,
            max,
            buf: Vec::new(),
            lineno: 0,
        }
    }

    /// The next line's number (1 for the first) and the line without its `\n` or `\r\n`, or
    /// `None` at the end. `path` names the input in
    /// errors: `LimitExceeded` naming the line and the bound for a longer line (after reading at
    /// most `max + 2` of its bytes), an I/O error naming the line for bytes that are not UTF-8.
    pub fn next_line(&mut self, path: &Path) -> tickreel::Result<Option<(u64, &str)>> {
        self.buf.clear();
        self.lineno += 1;
        let lineno = self.lineno;
        let io_err = |e: io::Error| {
            Error::Io(io::Error::new(
                e.kind(),
                format!("{}: line {lineno}: {e}", path.display()),
            ))
        };
        let limit = u64::try_from(self.max)
            .unwrap_or(u64::MAX)
            .saturating_add(2);
        let n = (&mut self.input)
            .take(limit)
            .read_until(b'\n', &mut self.buf)
            .map_err(io_err)?;
        if n == 0 {
            return Ok(None);
        }
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
        }
        if self.buf.len() > self.max {
            return Err(Error::limit(format!(
                "{}: line {lineno}: longer than {} bytes, the most a line may take",
                path.display(),
                self.max
            )));
        }
        std::str::from_utf8(&self.buf)
            .map(|l| Some((lineno, l)))
            .map_err(|_| {
                io_err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "stream did not contain valid UTF-8",
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_up_to_the_bound_pass_and_a_longer_one_is_refused_while_read() {
        let p = Path::new("in.txt");
        let text = b"abcd\r\nabc\n\nabcde\nx";
        let mut lines = BoundedLines::new(&text[..], 4);
        assert_eq!(lines.next_line(p).unwrap(), Some((1, "abcd")));
        assert_eq!(lines.next_line(p).unwrap(), Some((2, "abc")));
        assert_eq!(lines.next_line(p).unwrap(), Some((3, "")));
        let e = lines.next_line(p).unwrap_err().to_string();
        assert!(e.contains("in.txt: line 4: longer than 4 bytes"), "{e}");
        let mut lines = BoundedLines::new(&b"ab\nxyz"[..], 4);
        assert_eq!(lines.next_line(p).unwrap(), Some((1, "ab")));
        assert_eq!(lines.next_line(p).unwrap(), Some((2, "xyz")));
        assert_eq!(lines.next_line(p).unwrap(), None);
        let mut lines = BoundedLines::new(&b"\xff\n"[..], 4);
        let e = lines.next_line(p).unwrap_err().to_string();
        assert!(
            e.contains("line 1: stream did not contain valid UTF-8"),
            "{e}"
        );
    }
}
