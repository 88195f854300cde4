//! Error messages as Java writes them. The core's errors keep their parts apart (kind, path,
//! the operating system's reason, option names marked with [`tickreel::error::option`]); this
//! formats them the way the JDK would: an I/O error reads as `java.nio.file.FileSystemException`
//! ("PATH: reason", no errno), options are named by their Java builder methods, and the cause of
//! an I/O `TickreelException` is the `java.nio.file` exception a JDK call would have thrown
//! ([`nio_cause`]). No logic of its own beyond spelling.

use std::io::ErrorKind as IoKind;

use crate::shared::option_names::java_option;
use tickreel::error::{Error, respell_options};

/// `msg` in Java's words: marked option names spelled as Java's builder methods.
pub(crate) fn java_text(msg: &str) -> String {
    respell_options(msg, |name| Some(java_option(name)))
}

/// The message of a Java exception for `e`: an I/O error as java.nio's ("PATH: reason", or the
/// reason), an invalid argument or state as its reason (the exception's type says the rest),
/// any other error with its kind's words first ("corrupt data: ..."); in Java's words.
pub(crate) fn java_message(e: &Error) -> String {
    let m = match e {
        Error::Io(_) => match e.path() {
            Some(p) => format!("{}: {}", p.display(), e.reason()),
            None => e.reason(),
        },
        Error::InvalidArgument(_) | Error::InvalidState(_) => e.reason(),
        _ => e.to_string(),
    };
    java_text(&m)
}

/// Which `java.nio.file` exception stands for an I/O error of `kind`, by the simple name
/// `TickreelException` knows (`FileSystem` for the rest).
pub(crate) fn nio_cause(kind: IoKind) -> &'static str {
    match kind {
        IoKind::NotFound => "NoSuchFile",
        IoKind::PermissionDenied | IoKind::ReadOnlyFilesystem => "AccessDenied",
        IoKind::AlreadyExists => "FileAlreadyExists",
        IoKind::NotADirectory => "NotDirectory",
        IoKind::DirectoryNotEmpty => "DirectoryNotEmpty",
        _ => "FileSystem",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn messages_read_as_java() {
        assert_eq!(
            java_text("`writer_threads` must be between 1 and 64 (got 0)"),
            "writerThreads must be between 1 and 64 (got 0)"
        );
        assert_eq!(
            java_text("`flush_max_pending_bytes` must be positive"),
            "flushBytes must be positive"
        );
        assert_eq!(
            java_text(
                "/x.reel already exists (a finished recording); set `overwrite` to replace it"
            ),
            "/x.reel already exists (a finished recording); set overwrite(true) to replace it"
        );
        let io = Error::io_at(
            Path::new("/runs/a.reel"),
            std::io::Error::from_raw_os_error(2),
        );
        assert_eq!(java_message(&io), "/runs/a.reel: No such file or directory");
        assert_eq!(nio_cause(io.io_kind().unwrap()), "NoSuchFile");
        assert_eq!(
            java_message(&Error::invalid(
                "`chunk_ticks` must be between 1 and 9 (got 0)"
            )),
            "chunkTicks must be between 1 and 9 (got 0)"
        );
        assert_eq!(
            java_message(&Error::corrupt("bad magic")),
            "corrupt data: bad magic"
        );
    }
}
