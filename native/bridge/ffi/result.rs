//! Result codes, the per-thread last error, and the panic boundary every entry point goes through.

use std::cell::RefCell;
use std::ffi::{CStr, c_char};

use crate::shared::panic::catch;

use tickreel::error::{Error, ErrorKind};

/// The result of every tickreel C function.
///
/// The numeric values are part of the ABI: they never change and are never reused. Codes 1 to 99
/// are the library's own error kinds, numbered once for every language: the same error has the
/// same number and name here and in Java (`TickreelException.Kind`, whose `code()` returns it;
/// `TICKREEL_RESULT_LOCKED` is `Kind.LOCKED`, 8). Codes from 100 are raised by the bindings
/// themselves (`TICKREEL_RESULT_PANIC` is Java's `Kind.INTERNAL`). After any code other than
/// `TICKREEL_RESULT_OK`, `tickreel_last_error` gives a message for the calling thread.
// The one declaration of the codes: their list, C names (`tickreel_result_name`) and the code of
// each core error kind (by its name) are generated from it (`codegen/constants.rs`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TickreelResult {
    /// Success.
    Ok = 0,
    /// An operating-system I/O error (file missing, disk full, permission denied).
    Io = 1,
    /// The bytes are not a valid tickreel structure (bad magic, bad checksum, inconsistent lengths).
    Corrupt = 2,
    /// The bytes end before the structure does (for example a truncated file).
    Truncated = 3,
    /// A length exceeds a configured limit (protects against decompression bombs), or too many
    /// events or handles.
    LimitExceeded = 4,
    /// The file uses a format or data version this build does not understand.
    Unsupported = 5,
    /// An argument is invalid: a malformed tick batch, a tick going backwards, a non-finite
    /// coordinate, a misaligned pointer, a string that is not UTF-8.
    InvalidArgument = 6,
    /// The object is in a state that does not allow the call (already finished, no ticks).
    InvalidState = 7,
    /// Another writer holds the recording's lock file.
    Locked = 8,
    /// The writer could not keep up and the backpressure policy refused the tick.
    Backpressure = 9,
    /// Data is not available yet (a non-blocking call would have had to wait).
    NotReady = 10,
    /// Metadata (NBT) could not be encoded or decoded.
    Metadata = 11,
    /// The catalog's database failed (the message never carries credentials).
    Database = 12,
    /// A pointer argument that must not be NULL was NULL.
    NullArgument = 100,
    /// The handle is not a live handle of the expected type: already freed, of another type,
    /// or never returned by tickreel.
    InvalidHandle = 101,
    /// tickreel panicked (an internal bug). The panic was caught at the C boundary; the object
    /// involved may refuse further calls with this code and should be freed.
    Panic = 102,
    /// The caller's buffer is too small; the function reported the size it needs.
    BufferTooSmall = 103,
}

impl TickreelResult {
    /// The code for a library error: the one whose value is [`Error::code`].
    pub fn of(e: &Error) -> TickreelResult {
        TickreelResult::of_kind(e.kind())
    }
}

// Every library error's C code is the core's number for it (checked at compile time).
const _: () = {
    let mut i = 0;
    while i < ErrorKind::ALL.len() {
        let k = ErrorKind::ALL[i];
        assert!(TickreelResult::of_kind(k) as u32 == k.code());
        i += 1;
    }
};

/// An error raised while serving a C call: a library error or one of the C layer's own.
#[derive(Debug)]
pub(crate) enum FfiError {
    Core(Error),
    /// The named pointer argument was NULL.
    Null(&'static str),
    InvalidHandle(String),
    BufferTooSmall(String),
    /// An argument check of the C layer (alignment, finiteness, UTF-8).
    Invalid(String),
}

impl From<Error> for FfiError {
    fn from(e: Error) -> Self {
        FfiError::Core(e)
    }
}

impl FfiError {
    fn code(&self) -> TickreelResult {
        match self {
            FfiError::Core(e) => TickreelResult::of(e),
            FfiError::Null(_) => TickreelResult::NullArgument,
            FfiError::InvalidHandle(_) => TickreelResult::InvalidHandle,
            FfiError::BufferTooSmall(_) => TickreelResult::BufferTooSmall,
            FfiError::Invalid(_) => TickreelResult::InvalidArgument,
        }
    }

    fn message(&self) -> String {
        match self {
            // C names an option as the core does (its setter's suffix)
            FfiError::Core(e) => tickreel::error::respell_options(&e.to_string(), |_| None),
            FfiError::Null(arg) => format!("argument `{arg}` is NULL"),
            FfiError::InvalidHandle(m) => format!("invalid handle: {m}"),
            FfiError::BufferTooSmall(m) => format!("buffer too small: {m}"),
            FfiError::Invalid(m) => format!("invalid argument: {m}"),
        }
    }
}

/// Result type of the bodies of entry points.
pub(crate) type FfiResult<T = ()> = std::result::Result<T, FfiError>;

/// The longest message kept, in bytes, its NUL not counted (longer ones are cut at a character).
const MESSAGE_MAX: usize = 4095;

/// A thread's last error, held inline: no heap, no `Drop`, so the thread-local registers no
/// destructor and a C caller's thread never keeps an unloaded (`dlclose`d) library mapped (see
/// `tickreel_sync::threads`).
struct LastError {
    code: TickreelResult,
    len: usize,
    /// The message's `len` bytes, then a NUL.
    message: [u8; MESSAGE_MAX + 1],
}

impl LastError {
    fn bytes(&self) -> &[u8] {
        &self.message[..self.len]
    }
}

thread_local! {
    static LAST_ERROR: RefCell<LastError> = const {
        RefCell::new(LastError {
            code: TickreelResult::Ok,
            len: 0,
            message: [0; MESSAGE_MAX + 1],
        })
    };
}

fn set_last_error(code: TickreelResult, message: String) {
    let mut bytes = message.into_bytes();
    bytes.retain(|&b| b != 0);
    let mut n = bytes.len().min(MESSAGE_MAX);
    while n > 0 && n < bytes.len() && (bytes[n] & 0xC0) == 0x80 {
        n -= 1; // do not cut a UTF-8 sequence in half
    }
    // `try_with` fails only while the thread is being torn down; the code is still returned.
    let _ = LAST_ERROR.try_with(|l| {
        let mut l = l.borrow_mut();
        l.code = code;
        l.len = n;
        l.message[..n].copy_from_slice(&bytes[..n]);
        l.message[n] = 0;
    });
}

/// Runs the body of an entry point: catches panics, turns errors into codes and records the
/// message for the calling thread. Every `extern "C"` function goes through here.
pub(crate) fn guard(f: impl FnOnce() -> FfiResult) -> TickreelResult {
    match catch(f) {
        Ok(Ok(())) => TickreelResult::Ok,
        Ok(Err(e)) => {
            let code = e.code();
            set_last_error(code, e.message());
            code
        }
        Err(panic) => {
            set_last_error(
                TickreelResult::Panic,
                format!("tickreel panicked (a bug): {panic}"),
            );
            TickreelResult::Panic
        }
    }
}

/// Copies the calling thread's last error message into `buf` as a NUL-terminated string.
///
/// Returns the length in bytes of the whole message, not counting the terminating NUL (as
/// `snprintf` does). If that is `>= len`, the message was truncated (at a UTF-8 character
/// boundary) to fit `len - 1` bytes plus the NUL; call again with a buffer of at least the
/// returned value + 1. With `len == 0`, nothing is written and `buf` may be NULL. If no call on
/// this thread has failed yet, the message is empty and 0 is returned. Messages are kept up to
/// 4095 bytes (a longer one is cut at a character boundary).
///
/// The last error is replaced by every call on the same thread that returns a code other than
/// `TICKREEL_RESULT_OK`, and left unchanged by calls that succeed (like `errno`).
///
/// # Safety
/// `buf` must point to at least `len` writable bytes (or `len` must be 0).
///
/// Thread safety: any thread; each thread has its own last error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_last_error(buf: *mut c_char, len: usize) -> usize {
    let copy = |l: &LastError| {
        let bytes = l.bytes();
        if len > 0 && !buf.is_null() {
            let mut n = bytes.len().min(len - 1);
            while n > 0 && n < bytes.len() && (bytes[n] & 0xC0) == 0x80 {
                n -= 1; // do not cut a UTF-8 sequence in half
            }
            // SAFETY: the caller guarantees `len` writable bytes at `buf`; `n + 1 <= len`, and the
            // source is our own CString, which cannot overlap the caller's buffer.
            unsafe {
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf.cast::<u8>(), n);
                buf.add(n).write(0);
            }
        }
        bytes.len()
    };
    catch(|| LAST_ERROR.try_with(|l| copy(&l.borrow())).unwrap_or(0)).unwrap_or(0)
}

/// The calling thread's last error message as a NUL-terminated UTF-8 string (empty if no call
/// has failed on this thread yet). Never NULL.
///
/// Lifetime: the string belongs to tickreel. It stays valid until the next tickreel call on the
/// same thread that returns a code other than `TICKREEL_RESULT_OK` (which replaces it), or until
/// the thread exits, whichever comes first. Copy it if you need it longer, or use
/// `tickreel_last_error`, which copies into your buffer.
///
/// Thread safety: any thread; each thread has its own last error.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_last_error_message() -> *const c_char {
    catch(|| {
        LAST_ERROR
            .try_with(|l| l.borrow().message.as_ptr().cast::<c_char>())
            .unwrap_or(c"".as_ptr())
    })
    .unwrap_or(c"".as_ptr())
}

/// The code of the calling thread's last failed call (`TICKREEL_RESULT_OK` if none has failed).
///
/// Thread safety: any thread; each thread has its own last error.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_last_error_code() -> TickreelResult {
    catch(|| {
        LAST_ERROR
            .try_with(|l| l.borrow().code)
            .unwrap_or(TickreelResult::Ok)
    })
    .unwrap_or(TickreelResult::Panic)
}

/// The name of a result code as spelled in this header (e.g. `"TICKREEL_RESULT_CORRUPT"`), or
/// `"TICKREEL_RESULT_UNKNOWN"` for a value that is not a code. The string is static: never free it.
///
/// Thread safety: any thread.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_result_name(code: u32) -> *const c_char {
    TickreelResult::ALL
        .iter()
        .find(|c| **c as u32 == code)
        .map_or(c"TICKREEL_RESULT_UNKNOWN", |c| c.c_name())
        .as_ptr()
}

/// The library version (e.g. `"0.1.0"`). The string is static: never free it.
///
/// Thread safety: any thread.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_version() -> *const c_char {
    const VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => panic!("version contains a NUL"),
        };
    VERSION.as_ptr()
}

/// `tickreel_features()` bit: this build carries object storage (`tickreel_object_*`).
pub const TICKREEL_FEATURE_OBJECT: u32 = 1;
/// `tickreel_features()` bit: this build carries the catalog (`tickreel_catalog_*`).
pub const TICKREEL_FEATURE_CATALOG: u32 = 2;
/// `tickreel_features()` bit: this build's catalog opens `postgres://` URLs besides `sqlite:` ones.
pub const TICKREEL_FEATURE_POSTGRES: u32 = 4;

/// What this build of the library carries: `TICKREEL_FEATURE_OBJECT`, `TICKREEL_FEATURE_CATALOG`
/// and `TICKREEL_FEATURE_POSTGRES` bits (the library's default build has all three; a build for
/// recording and playing only, Cargo's `--no-default-features`, has none, and its object storage
/// and catalog functions are not defined; `--no-default-features --features catalog` has the
/// catalog on SQLite only, and refuses `postgres://` URLs). Never fails.
///
/// Thread safety: any thread.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_features() -> u32 {
    crate::api::library::features()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last() -> (TickreelResult, String) {
        let mut buf = [0 as c_char; 256];
        // SAFETY: `buf` has 256 writable bytes.
        let n = unsafe { tickreel_last_error(buf.as_mut_ptr(), buf.len()) };
        // SAFETY: tickreel_last_error NUL-terminated it.
        let s = unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_str()
            .unwrap()
            .to_owned();
        assert_eq!(n, s.len());
        (tickreel_last_error_code(), s)
    }

    #[test]
    fn codes_are_distinct_and_named() {
        let mut seen = std::collections::HashSet::new();
        for c in TickreelResult::ALL {
            assert!(seen.insert(c as u32), "{c:?} reuses a value");
            // SAFETY: static NUL-terminated string.
            let name = unsafe { CStr::from_ptr(tickreel_result_name(c as u32)) };
            let expected = format!("{c:?}")
                .chars()
                .flat_map(|ch| {
                    let up = ch.to_ascii_uppercase();
                    if ch.is_ascii_uppercase() {
                        vec!['_', up]
                    } else {
                        vec![up]
                    }
                })
                .collect::<String>();
            assert_eq!(name.to_str().unwrap(), format!("TICKREEL_RESULT{expected}"));
        }
        // SAFETY: static NUL-terminated string.
        let unknown = unsafe { CStr::from_ptr(tickreel_result_name(99)) };
        assert_eq!(unknown.to_str().unwrap(), "TICKREEL_RESULT_UNKNOWN");
        // The values are the ABI: pin a few.
        assert_eq!(TickreelResult::Metadata as u32, 11);
        assert_eq!(TickreelResult::BufferTooSmall as u32, 103);
    }

    #[test]
    fn errors_set_the_thread_last_error_and_success_keeps_it() {
        let code = guard(|| Err(Error::corrupt("bad frame").into()));
        assert_eq!(code, TickreelResult::Corrupt);
        assert_eq!(
            last(),
            (TickreelResult::Corrupt, "corrupt data: bad frame".into())
        );
        assert_eq!(guard(|| Ok(())), TickreelResult::Ok);
        assert_eq!(last().0, TickreelResult::Corrupt);
        // Another thread has its own.
        std::thread::spawn(|| assert_eq!(last(), (TickreelResult::Ok, String::new())))
            .join()
            .unwrap();
    }

    #[test]
    fn panics_are_caught_and_reported() {
        let code = guard(|| panic!("boom {}", 42));
        assert_eq!(code, TickreelResult::Panic);
        let (c, m) = last();
        assert_eq!(c, TickreelResult::Panic);
        assert!(m.contains("boom 42"), "{m}");
    }

    #[test]
    fn messages_are_truncated_at_char_boundaries() {
        guard(|| Err(FfiError::Invalid("é".repeat(10))));
        let full = "invalid argument: ".len() + 20;
        let mut buf = [0x55 as c_char; 20];
        // SAFETY: `buf` has 20 writable bytes.
        let n = unsafe { tickreel_last_error(buf.as_mut_ptr(), 20) };
        assert_eq!(n, full);
        // SAFETY: NUL-terminated by the call.
        let s = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap();
        assert_eq!(s, "invalid argument: "); // 18 bytes; the 2-byte 'é' did not fit in 19
        // SAFETY: len 0 writes nothing.
        let got = unsafe { tickreel_last_error(std::ptr::null_mut(), 0) };
        assert_eq!(got, full);
        // SAFETY: the pointer is valid until the next failing call on this thread.
        let p = unsafe { CStr::from_ptr(tickreel_last_error_message()) };
        assert_eq!(p.to_bytes().len(), full);
    }
}
