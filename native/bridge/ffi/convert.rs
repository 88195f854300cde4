//! How the declared Rust types of `native/bridge/api/` cross the C boundary: [`CValue`] for
//! parameters passed by value (numbers, handles), [`CArg`] for parameters read through a pointer
//! the caller vouches for (strings, byte ranges), [`CResult`] for a result returned through an out-pointer, [`CArrayResult`] for a
//! list returned through `(array, capacity, out_count)`. The generated entry points
//! (`OUT_DIR/bridge_ffi.rs`, see `native/bridge/codegen/c.rs`) name an impl by the declared type
//! with its lifetimes made `'static` (`<&'static str as CArg>`), so each impl here serves every
//! lifetime of its type.

use std::ffi::c_char;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::args::{self, Out, OutArray};
use super::handle::{self, COpaque};
use super::result::{FfiError, FfiResult};
use crate::api::pending::Ended;
use crate::api::{Id, New, Released, StringPairs};
use crate::shared::block_state::TickreelBlockState;

/// A parameter type C passes by value: checked without trusting any pointer (a handle is a
/// token, never dereferenced).
pub(crate) trait CValue {
    /// The C parameter.
    type C;
    /// What the conversion produces; the operation gets it by value or by reference.
    type Stored;
    /// Checks and converts the C value; `name` is the parameter's name, for messages.
    fn store(c: Self::C, name: &'static str) -> FfiResult<Self::Stored>;
}

/// A parameter type read through a pointer: its C form, and what the conversion keeps.
pub(crate) trait CArg {
    /// The C parameter (a tuple where one Rust parameter takes two C ones).
    type C;
    /// What the conversion produces; the operation gets it by value or by reference.
    type Stored;
    /// Checks and converts the C value; `name` is the parameter's name, for messages.
    ///
    /// # Safety
    /// The C value must satisfy the contract the generated entry point documents for it.
    unsafe fn store(c: Self::C, name: &'static str) -> FfiResult<Self::Stored>;
}

macro_rules! plain {
    ($($t:ty),*) => {$(
        impl CValue for $t {
            type C = $t;
            type Stored = $t;
            fn store(c: $t, _: &'static str) -> FfiResult<$t> {
                Ok(c)
            }
        }
    )*};
}
plain!(u8, u16, u32, u64, i32, i64, f32, f64, bool, usize);

impl CValue for Id {
    type C = u32;
    type Stored = Id;
    fn store(c: u32, _: &'static str) -> FfiResult<Id> {
        Ok(Id(c))
    }
}

impl CArg for &'static str {
    type C = *const c_char;
    type Stored = String;
    unsafe fn store(c: *const c_char, name: &'static str) -> FfiResult<String> {
        // SAFETY: forwarded contract: NULL or a NUL-terminated string.
        unsafe { args::utf8(c, name) }
    }
}

impl CArg for Option<&'static str> {
    type C = *const c_char;
    type Stored = Option<String>;
    unsafe fn store(c: *const c_char, name: &'static str) -> FfiResult<Option<String>> {
        // SAFETY: forwarded contract: NULL or a NUL-terminated string.
        unsafe { args::opt_utf8(c, name) }
    }
}

impl CArg for Option<&'static Path> {
    type C = *const c_char;
    type Stored = Option<PathBuf>;
    unsafe fn store(c: *const c_char, name: &'static str) -> FfiResult<Option<PathBuf>> {
        if c.is_null() {
            return Ok(None);
        }
        // SAFETY: forwarded contract: a NUL-terminated string.
        unsafe { args::path(c, name) }.map(Some)
    }
}

/// Two arrays of `count` UTF-8 strings.
impl CArg for StringPairs {
    type C = (*const *const c_char, *const *const c_char, usize);
    type Stored = StringPairs;
    unsafe fn store((keys, values, count): Self::C, name: &'static str) -> FfiResult<StringPairs> {
        let _ = name;
        // SAFETY: forwarded contract: `count` readable pointers in each array (or count 0).
        let keys = unsafe { args::array(keys, count, "keys") }?;
        // SAFETY: as above.
        let values = unsafe { args::array(values, count, "values") }?;
        let mut pairs = Vec::with_capacity(count);
        for (&k, &v) in keys.iter().zip(values) {
            // SAFETY: forwarded contract: each pointer is a NUL-terminated string.
            let key = unsafe { args::utf8(k, "keys[]") }?;
            // SAFETY: as above.
            let value = unsafe { args::utf8(v, "values[]") }?;
            pairs.push((key, value));
        }
        Ok(StringPairs(pairs))
    }
}

impl CArg for &'static Path {
    type C = *const c_char;
    type Stored = PathBuf;
    unsafe fn store(c: *const c_char, name: &'static str) -> FfiResult<PathBuf> {
        // SAFETY: forwarded contract: NULL or a NUL-terminated string.
        unsafe { args::path(c, name) }
    }
}

/// Bytes, numbers or blocks the caller lends for the call (`&[T]`), read in place (never copied,
/// never kept).
pub(crate) struct CSlice<T> {
    ptr: *const T,
    len: usize,
}

impl<T> std::ops::Deref for CSlice<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: checked by `args::array` (non-NULL, aligned, size within `isize`) when built,
        // and the caller guarantees `len` readable elements until the entry point returns; a
        // `CSlice` never outlives the entry point that built it.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// A caller's buffer (`&mut [T]` of a primitive) the operation writes in place: nothing is
/// allocated per call.
pub(crate) struct CSliceMut<T> {
    ptr: *mut T,
    len: usize,
}

impl<T> std::ops::Deref for CSliceMut<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: as in `deref_mut`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T> std::ops::DerefMut for CSliceMut<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        if self.len == 0 {
            return &mut [];
        }
        // SAFETY: checked by `args::array_mut` (non-NULL, aligned, size within `isize`) when
        // built; the caller guarantees `len` writable elements, not aliased by any other
        // argument, until the entry point returns, and a `CSliceMut` never outlives it.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

macro_rules! slices {
    ($($t:ty),*) => {$(
        impl CArg for &'static [$t] {
            type C = (*const $t, usize);
            type Stored = CSlice<$t>;
            unsafe fn store((ptr, len): Self::C, name: &'static str) -> FfiResult<CSlice<$t>> {
                // SAFETY: forwarded contract: `len` readable elements at `ptr`, or `len` 0.
                let checked = unsafe { args::array(ptr, len, name) }?;
                Ok(CSlice { ptr: checked.as_ptr(), len })
            }
        }

        impl CArg for &'static mut [$t] {
            type C = (*mut $t, usize);
            type Stored = CSliceMut<$t>;
            unsafe fn store((ptr, len): Self::C, name: &'static str) -> FfiResult<CSliceMut<$t>> {
                args::array_mut(ptr, len, name)?;
                Ok(CSliceMut { ptr, len })
            }
        }
    )*};
}
slices!(
    u8,
    u16,
    u32,
    u64,
    i8,
    i16,
    i32,
    i64,
    f32,
    f64,
    TickreelBlockState
);

/// A tick batch (a `direct` parameter): as `&[u8]`, but NULL is refused even with length 0.
///
/// # Safety
/// `len` readable bytes at `ptr` until the entry point returns.
pub(crate) unsafe fn direct_bytes(
    (ptr, len): (*const u8, usize),
    name: &'static str,
) -> FfiResult<CSlice<u8>> {
    if ptr.is_null() {
        return Err(FfiError::Null(name));
    }
    // SAFETY: forwarded contract.
    unsafe { <&'static [u8] as CArg>::store((ptr, len), name) }
}

/// A UUID: NULL (none) or 16 bytes.
impl CArg for Option<uuid::Uuid> {
    type C = *const u8;
    type Stored = Option<uuid::Uuid>;
    unsafe fn store(ptr: *const u8, name: &'static str) -> FfiResult<Option<uuid::Uuid>> {
        if ptr.is_null() {
            return Ok(None);
        }
        // SAFETY: forwarded contract: 16 readable bytes at `ptr`.
        let b = unsafe { args::array(ptr, 16, name) }?;
        Ok(Some(uuid::Uuid::from_bytes(
            b.try_into().expect("16 bytes"),
        )))
    }
}

/// A handle parameter: the object it names (NULL: `TICKREEL_RESULT_NULL_ARGUMENT`; freed or of
/// another type: `TICKREEL_RESULT_INVALID_HANDLE`).
impl<T: COpaque> CValue for &'static T {
    type C = *mut T::Opaque;
    type Stored = Arc<T>;
    fn store(c: *mut T::Opaque, _: &'static str) -> FfiResult<Arc<T>> {
        handle::get::<T>(c)
    }
}

/// A handle that may be NULL (options: NULL for the defaults); else as `&T`.
impl<T: COpaque> CValue for Option<&'static T> {
    type C = *mut T::Opaque;
    type Stored = Option<Arc<T>>;
    fn store(c: *mut T::Opaque, _: &'static str) -> FfiResult<Option<Arc<T>>> {
        if c.is_null() {
            return Ok(None);
        }
        handle::get::<T>(c).map(Some)
    }
}

/// A handle being freed: removed from the registry (NULL: nothing, as `free(NULL)`).
impl<T: COpaque> CValue for Released<T> {
    type C = *mut T::Opaque;
    type Stored = Released<T>;
    fn store(c: *mut T::Opaque, _: &'static str) -> FfiResult<Released<T>> {
        handle::remove::<T>(c).map(|object| Released { object })
    }
}

/// Whether a pending's work has ended, and its failure as the call's result (the out-pointer
/// still says it ended).
impl CResult for Ended {
    type C = bool;
    fn into_c(self) -> FfiResult<bool> {
        match self.split() {
            (_, Err(e)) => Err(e),
            (v, Ok(())) => Ok(v.unwrap_or(false)),
        }
    }
    fn split(self) -> (Option<bool>, FfiResult<()>) {
        match self.0 {
            None => (Some(false), Ok(())),
            Some(Ok(_)) => (Some(true), Ok(())),
            Some(Err(e)) => (Some(true), Err(e.into())),
        }
    }
}

/// A result type: its C form, written through the out-pointer.
pub(crate) trait CResult {
    type C;
    fn into_c(self) -> FfiResult<Self::C>;
    /// The value for the out-pointer, if any, and whether the call failed: by default the value
    /// on success only. (A refused submission still tells C it was dropped.)
    fn split(self) -> (Option<Self::C>, FfiResult<()>)
    where
        Self: Sized,
    {
        match self.into_c() {
            Ok(v) => (Some(v), Ok(())),
            Err(e) => (None, Err(e)),
        }
    }
    /// What the out-pointer holds when the call fails (written before anything else is
    /// checked), if anything: NULL for a new handle.
    fn on_failure() -> Option<Self::C> {
        None
    }
}

macro_rules! plain_result {
    ($($t:ty),*) => {$(
        impl CResult for $t {
            type C = $t;
            fn into_c(self) -> FfiResult<$t> {
                Ok(self)
            }
        }
    )*};
}
plain_result!(u8, u16, u32, u64, i32, i64, f32, f64, bool, usize);

impl CResult for () {
    type C = ();
    fn into_c(self) -> FfiResult<()> {
        Ok(())
    }
}

impl<T: COpaque> CResult for New<T> {
    type C = *mut T::Opaque;
    fn into_c(self) -> FfiResult<*mut T::Opaque> {
        handle::insert(self.0)
    }
    fn on_failure() -> Option<*mut T::Opaque> {
        Some(std::ptr::null_mut())
    }
}

/// A new handle that may not exist yet (a background load still running): C gets
/// `TICKREEL_RESULT_NOT_READY` until it does.
impl<T: COpaque> CResult for Option<New<T>> {
    type C = *mut T::Opaque;
    fn into_c(self) -> FfiResult<*mut T::Opaque> {
        match self {
            Some(new) => new.into_c(),
            None => {
                Err(tickreel::Error::NotReady(format!("the {} is still loading", T::NAME)).into())
            }
        }
    }
    fn on_failure() -> Option<*mut T::Opaque> {
        Some(std::ptr::null_mut())
    }
}

/// A path a C caller receives as a NUL-terminated string (`c_out_string`).
impl CResult for std::path::PathBuf {
    type C = Vec<u8>;
    fn into_c(self) -> FfiResult<Vec<u8>> {
        Ok(path_bytes(&self))
    }
}

#[cfg(unix)]
fn path_bytes(p: &std::path::Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn path_bytes(p: &std::path::Path) -> Vec<u8> {
    p.to_string_lossy().into_owned().into_bytes()
}

/// Copies a string result into the caller's buffer with its NUL and reports its length (without
/// the NUL) in `*out_len`. With capacity 0 nothing is copied (a length query); a buffer too small
/// for the string and its NUL is `TICKREEL_RESULT_BUFFER_TOO_SMALL`, nothing copied.
pub(crate) fn fill_string<R: CResult<C = Vec<u8>>>(
    value: R,
    out: &OutArray<c_char>,
    out_len: Option<&Out<usize>>,
) -> FfiResult<()> {
    let bytes = value.into_c()?;
    if let Some(l) = out_len {
        l.set(bytes.len());
    }
    if out.capacity() == 0 {
        return Ok(());
    }
    if bytes.len() >= out.capacity() {
        return Err(FfiError::BufferTooSmall(format!(
            "the string needs {} bytes with its NUL, the buffer has {}",
            bytes.len() + 1,
            out.capacity()
        )));
    }
    for (i, &b) in bytes.iter().enumerate() {
        out.set(i, b as c_char);
    }
    out.set(bytes.len(), 0);
    Ok(())
}

/// A list result, for the count/capacity convention.
pub(crate) trait CArrayResult {
    type Item;
    fn len(&self) -> usize;
    /// Writes every item; `out` has room for [`CArrayResult::len`] items.
    fn write(self, out: &OutArray<Self::Item>);
    /// Says what did not fit, for the buffer-too-small message.
    fn describe(&self) -> String;
}

/// A record (`#[bridge_struct]`): its C struct, generated with this impl by
/// `native/bridge/codegen/records.rs`.
pub(crate) trait CRecord {
    type C;
    /// What a list of them holds, for the buffer-too-small message.
    const WHAT: &'static str;
    fn to_c(&self) -> Self::C;
}

/// Records, each as its C struct.
impl<R: CRecord + Clone> CArrayResult for crate::api::Rows<'_, R> {
    type Item = R::C;
    fn len(&self) -> usize {
        self.0.len()
    }
    fn write(self, out: &OutArray<R::C>) {
        for (i, r) in self.0.iter().enumerate() {
            out.set(i, r.to_c());
        }
    }
    fn describe(&self) -> String {
        format!("{} {}", self.0.len(), R::WHAT)
    }
}

/// A list result with one more value for C, written even when the list does not fit.
pub(crate) trait CArrayExtra {
    type C;
    fn extra(&self) -> Self::C;
}

/// Bytes (an encoded NBT compound, ...).
impl CArrayResult for Vec<u8> {
    type Item = u8;
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn write(self, out: &OutArray<u8>) {
        for (i, b) in self.into_iter().enumerate() {
            out.set(i, b);
        }
    }
    fn describe(&self) -> String {
        format!("{} bytes", Vec::len(self))
    }
}

/// Entity ids.
impl CArrayResult for Vec<u32> {
    type Item = u32;
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn write(self, out: &OutArray<u32>) {
        for (i, v) in self.into_iter().enumerate() {
            out.set(i, v);
        }
    }
    fn describe(&self) -> String {
        format!("{} ids", Vec::len(self))
    }
}

/// Reports the list's length in `*out_count` and copies it into `out` if it fits
/// (`TICKREEL_RESULT_BUFFER_TOO_SMALL`, nothing copied, otherwise).
pub(crate) fn fill_array<L: CArrayResult>(
    list: L,
    out: &OutArray<L::Item>,
    out_count: &Out<usize>,
) -> FfiResult<()> {
    let n = list.len();
    out_count.set(n);
    if n > out.capacity() {
        return Err(FfiError::BufferTooSmall(format!(
            "{}, room for {}",
            list.describe(),
            out.capacity()
        )));
    }
    list.write(out);
    Ok(())
}
