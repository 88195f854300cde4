//! The one error type of the library. Bindings map its variants to C result codes and Java exceptions.

use std::io;

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
            Error::Io(e) => Error::Io(io::Error::new(e.kind(), format!("{e}{more}"))),
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
        }
    }
    pub fn limit(msg: impl Into<String>) -> Self {
        Error::LimitExceeded(msg.into())
    }
}

impl Error {
    /// A copy of the error (I/O errors keep their kind and message).
    pub fn duplicate(&self) -> Error {
        match self {
            Error::Io(e) => Error::Io(io::Error::new(e.kind(), e.to_string())),
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
        }
    }
}
