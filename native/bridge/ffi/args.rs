//! Checks and conversions of C arguments. Every raw-pointer access of the C layer goes through
//! here, so that the caller contracts are stated once.

use std::ffi::{CStr, c_char};
use std::path::PathBuf;

use super::result::{FfiError, FfiResult};

/// An array of `len` elements from C (bytes, numbers, string pointers, ...). NULL is accepted only
/// for an empty array.
///
/// # Safety
/// If `len > 0`, `ptr` must point to `len` initialised `T`s that stay valid and unmodified for
/// `'a`.
pub(crate) unsafe fn array<'a, T>(
    ptr: *const T,
    len: usize,
    name: &'static str,
) -> FfiResult<&'a [T]> {
    if len == 0 {
        return Ok(&[]);
    }
    check_array(ptr, len, name)?;
    // SAFETY: non-NULL and aligned (checked), the total size fits `isize` (checked), and the
    // caller guarantees `len` initialised elements valid and unmodified for `'a`.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Checks a caller's buffer of `len` elements the entry point will write: NULL is accepted only
/// for an empty buffer; non-NULL must be aligned, the total size within `isize`.
/// (Nothing is read or written here; the caller of the entry point vouches for the memory.)
pub(crate) fn array_mut<T>(ptr: *mut T, len: usize, name: &'static str) -> FfiResult<()> {
    if len == 0 {
        return Ok(());
    }
    check_array(ptr.cast_const(), len, name)
}

/// The checks of a non-empty array of `len` elements at `ptr`: not NULL, aligned, its size within
/// `isize`.
fn check_array<T>(ptr: *const T, len: usize, name: &'static str) -> FfiResult<()> {
    if ptr.is_null() {
        return Err(FfiError::Null(name));
    }
    if !ptr.is_aligned() {
        return Err(FfiError::Invalid(format!("`{name}` is misaligned")));
    }
    if len
        .checked_mul(size_of::<T>())
        .is_none_or(|b| b > isize::MAX as usize)
    {
        return Err(FfiError::Invalid(format!(
            "`{name}` length {len} is impossible"
        )));
    }
    Ok(())
}

/// A NUL-terminated C string (NULL refused).
///
/// # Safety
/// If non-NULL, `ptr` must point to a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn cstr<'a>(ptr: *const c_char, name: &'static str) -> FfiResult<&'a CStr> {
    if ptr.is_null() {
        return Err(FfiError::Null(name));
    }
    // SAFETY: non-NULL and, by the caller's contract, NUL-terminated and valid for `'a`.
    Ok(unsafe { CStr::from_ptr(ptr) })
}

/// An optional UTF-8 string (NULL gives `None`).
///
/// # Safety
/// As [`cstr`].
pub(crate) unsafe fn opt_utf8(ptr: *const c_char, name: &'static str) -> FfiResult<Option<String>> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: forwarded caller contract.
    let s = unsafe { cstr(ptr, name) }?;
    s.to_str()
        .map(|s| Some(s.to_owned()))
        .map_err(|e| FfiError::Invalid(format!("`{name}` is not UTF-8: {e}")))
}

/// A required UTF-8 string.
///
/// # Safety
/// As [`cstr`].
pub(crate) unsafe fn utf8(ptr: *const c_char, name: &'static str) -> FfiResult<String> {
    if ptr.is_null() {
        return Err(FfiError::Null(name));
    }
    // SAFETY: forwarded caller contract.
    Ok(unsafe { opt_utf8(ptr, name) }?.expect("non-NULL"))
}

/// A file path: any bytes on Unix (as the OS allows), UTF-8 elsewhere. Empty is refused.
///
/// # Safety
/// As [`cstr`].
pub(crate) unsafe fn path(ptr: *const c_char, name: &'static str) -> FfiResult<PathBuf> {
    // SAFETY: forwarded caller contract.
    let s = unsafe { cstr(ptr, name) }?;
    if s.is_empty() {
        return Err(FfiError::Invalid(format!("`{name}` is an empty path")));
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Ok(PathBuf::from(std::ffi::OsStr::from_bytes(s.to_bytes())))
    }
    #[cfg(not(unix))]
    {
        s.to_str()
            .map(PathBuf::from)
            .map_err(|e| FfiError::Invalid(format!("`{name}` is not UTF-8: {e}")))
    }
}

/// A checked pointer to a caller's `T` that tickreel writes a result into.
pub(crate) struct Out<T>(*mut T);

impl<T> Out<T> {
    /// Checks a required out-pointer: non-NULL and aligned.
    ///
    /// # Safety
    /// If non-NULL, `ptr` must be valid for writing one `T` until the entry point returns.
    pub(crate) unsafe fn new(ptr: *mut T, name: &'static str) -> FfiResult<Out<T>> {
        if ptr.is_null() {
            return Err(FfiError::Null(name));
        }
        if !ptr.is_aligned() {
            return Err(FfiError::Invalid(format!("`{name}` is misaligned")));
        }
        Ok(Out(ptr))
    }

    /// Checks an optional out-pointer (NULL: the caller does not want the value).
    ///
    /// # Safety
    /// As [`Out::new`].
    pub(crate) unsafe fn optional(ptr: *mut T, name: &'static str) -> FfiResult<Option<Out<T>>> {
        if ptr.is_null() {
            return Ok(None);
        }
        // SAFETY: forwarded caller contract.
        unsafe { Out::new(ptr, name) }.map(Some)
    }

    pub(crate) fn set(&self, value: T) {
        // SAFETY: checked non-NULL and aligned in `new`, whose caller guaranteed it writable for
        // the duration of the entry point. `write` does not read or drop the old value, which
        // may be uninitialised; every `T` used here is plain data without a destructor.
        unsafe { self.0.write(value) }
    }
}

/// A checked caller array of `T` with room for `capacity` elements, written element by element.
pub(crate) struct OutArray<T> {
    ptr: *mut T,
    capacity: usize,
}

impl<T> OutArray<T> {
    /// NULL is accepted only with `capacity == 0` (a size query).
    ///
    /// # Safety
    /// If `capacity > 0`, `ptr` must be valid for writing `capacity` consecutive `T`s until the
    /// entry point returns.
    pub(crate) unsafe fn new(ptr: *mut T, capacity: usize, name: &'static str) -> FfiResult<Self> {
        if capacity > 0 {
            if ptr.is_null() {
                return Err(FfiError::Null(name));
            }
            if !ptr.is_aligned() {
                return Err(FfiError::Invalid(format!("`{name}` is misaligned")));
            }
            if capacity
                .checked_mul(size_of::<T>())
                .is_none_or(|b| b > isize::MAX as usize)
            {
                return Err(FfiError::Invalid(format!(
                    "`{name}` capacity {capacity} is impossible"
                )));
            }
        }
        Ok(OutArray { ptr, capacity })
    }

    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// Writes element `i`; panics (a bug, caught at the boundary) if `i >= capacity`.
    pub(crate) fn set(&self, i: usize, value: T) {
        assert!(
            i < self.capacity,
            "index {i} beyond capacity {}",
            self.capacity
        );
        // SAFETY: `i < capacity`, and the caller of `new` guaranteed `capacity` writable,
        // aligned (checked) elements; the total size was checked to fit `isize`.
        unsafe { self.ptr.add(i).write(value) }
    }
}
