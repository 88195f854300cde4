//! How the declared Rust types of `native/bridge/api/` cross the JNI boundary: [`JniArg`] for
//! parameters, [`JniResult`] for results. Each impl states the raw JNI type, the JNI type
//! descriptor and the Java type, so the generated entry points (`OUT_DIR/bridge_jni.rs`, see
//! `native/bridge/codegen/jni.rs`) derive their `RegisterNatives` signatures and their Java
//! declarations from the Rust types; no signature is written by hand. Impls are named by the
//! declared type with its lifetimes made `'static` and serve every lifetime of it.
//!
//! Raw `jni::sys` types are used in the entry points' signatures (they are what the JVM passes;
//! `JString<'l>` and friends are transparent wrappers of them), and wrapped here.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use jni::JNIEnv;
use jni::objects::{JByteArray, JByteBuffer, JDoubleArray, JLongArray, JObjectArray, JString};
use jni::sys::{
    jboolean, jbyteArray, jdouble, jdoubleArray, jint, jlong, jlongArray, jobject, jobjectArray,
    jstring,
};

use super::{Res, bad_arg, handles};
use crate::api::pending::Ended;
use crate::api::{AnyHandle, Id, New, Released, StringPairs};
use crate::shared::handle::HandleType;

/// The JNI type descriptor and the Java spelling of what the JVM passes or receives, and what
/// an entry point returns when it has thrown (Java ignores it). A primitive's descriptor and
/// spelling are its own, so a conversion to or from one names neither; every object is a
/// `jobject`, so a conversion to or from an object names its Java type itself (the default for
/// `jobject` is a compile-time error where it is used).
pub(crate) trait JavaType {
    const SIG: &'static str;
    const JAVA: &'static str;
    const FALLBACK: Self;
}

macro_rules! java_types {
    ($($t:ty => $sig:literal $java:literal $fallback:expr),*) => {$(
        impl JavaType for $t {
            const SIG: &'static str = $sig;
            const JAVA: &'static str = $java;
            const FALLBACK: Self = $fallback;
        }
    )*};
}
java_types!(jint => "I" "int" 0, jlong => "J" "long" 0, jdouble => "D" "double" 0.0,
    jboolean => "Z" "boolean" 0, () => "V" "void" ());

impl JavaType for jobject {
    const SIG: &'static str = panic!("a conversion to or from an object names its Java type");
    const JAVA: &'static str = panic!("a conversion to or from an object names its Java type");
    const FALLBACK: Self = std::ptr::null_mut();
}

/// A parameter type of a Java `native` method.
pub(crate) trait JniArg {
    /// What the JVM passes.
    type Jni: JavaType;
    /// The JNI type descriptor (`I`, `Ljava/lang/String;`, ...).
    const SIG: &'static str = <Self::Jni as JavaType>::SIG;
    /// The Java type, as `NativeBridge.java` spells it (read by the test that writes it).
    #[cfg_attr(not(test), allow(dead_code))]
    const JAVA: &'static str = <Self::Jni as JavaType>::JAVA;
    /// What the conversion produces; the operation gets it by value or by reference.
    type Stored;
    /// Checks and converts; `name` is the parameter's name, for messages.
    fn store(env: &mut JNIEnv<'_>, j: Self::Jni, name: &'static str) -> Res<Self::Stored>;
}

/// Whether a pending's work has ended: a `boolean` (the take throws the work's failure).
impl JniResult for Ended {
    type Jni = jboolean;
    fn into_jni(self, _: &mut JNIEnv<'_>) -> Res<jboolean> {
        Ok(u8::from(self.0.is_some()))
    }
}

/// A path (a finish's file): a `String`.
impl JniResult for PathBuf {
    type Jni = jobject;
    const SIG: &'static str = "Ljava/lang/String;";
    const JAVA: &'static str = "String";
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        Ok(env.new_string(self.to_string_lossy())?.into_raw())
    }
}

/// A result type of a Java `native` method.
pub(crate) trait JniResult {
    type Jni: JavaType;
    const SIG: &'static str = <Self::Jni as JavaType>::SIG;
    #[cfg_attr(not(test), allow(dead_code))]
    const JAVA: &'static str = <Self::Jni as JavaType>::JAVA;
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<Self::Jni>;
}

/// A result Java receives in an array it passes (`java_fill` operations: nothing allocated per
/// call), plus an optional plain return value.
pub(crate) trait JniFill {
    /// The array parameter as the JVM passes it.
    type Array;
    const ARRAY_SIG: &'static str;
    #[cfg_attr(not(test), allow(dead_code))]
    const ARRAY_JAVA: &'static str;
    /// What the method returns besides.
    type Jni: JavaType;
    const SIG: &'static str = <Self::Jni as JavaType>::SIG;
    #[cfg_attr(not(test), allow(dead_code))]
    const JAVA: &'static str = <Self::Jni as JavaType>::JAVA;
    fn fill(self, env: &mut JNIEnv<'_>, out: Self::Array) -> Res<Self::Jni>;
}

/// A record (`#[bridge_struct]`) as Java reads it: its fields as `long`s, generated with this
/// impl by `native/bridge/codegen/records.rs`.
pub(crate) trait JavaRecord {
    const LONGS: usize;
    fn longs(&self, out: &mut Vec<i64>);
}

/// `records` as one `long[]`, [`JavaRecord::LONGS`] per record.
pub(crate) fn records_array<R: JavaRecord>(env: &mut JNIEnv<'_>, records: &[R]) -> Res<jobject> {
    let mut out = Vec::with_capacity(R::LONGS * records.len());
    records.iter().for_each(|r| r.longs(&mut out));
    super::long_array(env, &out)
}

/// Records: one `long[]`, [`JavaRecord::LONGS`] per record.
impl<R: JavaRecord + Clone> JniResult for crate::api::Rows<'_, R> {
    type Jni = jobject;
    const SIG: &'static str = LONG_ARRAY_SIG;
    const JAVA: &'static str = LONG_ARRAY_JAVA;
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        records_array(env, &self.0)
    }
}

/// Records written into Java's `long[]` if it has room ([`JavaRecord::LONGS`] per record), and
/// their number either way (Java grows its array and asks again).
impl<R: JavaRecord + Clone> JniFill for crate::api::Rows<'_, R> {
    type Array = jlongArray;
    const ARRAY_SIG: &'static str = LONG_ARRAY_SIG;
    const ARRAY_JAVA: &'static str = LONG_ARRAY_JAVA;
    type Jni = jint;
    fn fill(self, env: &mut JNIEnv<'_>, out: jlongArray) -> Res<jint> {
        let n = jint::try_from(self.0.len()).unwrap_or(jint::MAX);
        // SAFETY: a local reference (or null) passed to the running native method; the wrapper
        // is only used to read the array's length and write into it.
        let room = unsafe { JLongArray::from_raw(out) };
        if room.is_null() || (env.get_array_length(&room)? as usize) < R::LONGS * self.0.len() {
            return Ok(n);
        }
        let mut longs = Vec::with_capacity(R::LONGS * self.0.len());
        self.0.iter().for_each(|r| r.longs(&mut longs));
        env.set_long_array_region(&room, 0, &longs)?;
        Ok(n)
    }
}

/// A new Java `double[]` holding `values` (a record with a float, `codegen/records.rs`).
pub(crate) fn double_array(env: &mut JNIEnv<'_>, values: &[f64]) -> Res<jobject> {
    let len = jint::try_from(values.len()).map_err(|_| bad_arg("result too large"))?;
    let a = env.new_double_array(len)?;
    env.set_double_array_region(&a, 0, values)?;
    Ok(a.into_raw())
}

/// Writes `values` at the start of the Java `double[]` `out` (null or shorter: an
/// `IllegalArgumentException`).
pub(crate) fn fill_doubles(env: &mut JNIEnv<'_>, out: jdoubleArray, values: &[f64]) -> Res<()> {
    // SAFETY: a local reference (or null) passed to the running native method.
    let out = unsafe { JDoubleArray::from_raw(out) };
    if out.is_null() {
        return Err(bad_arg("the output array is null"));
    }
    let n = env.get_array_length(&out)? as usize;
    if n < values.len() {
        return Err(bad_arg(format!(
            "the output array has {n} elements, needs {}",
            values.len()
        )));
    }
    env.set_double_array_region(&out, 0, values)?;
    Ok(())
}

/// Writes `values` at the start of the Java `long[]` `out` (null or shorter: an
/// `IllegalArgumentException`). Nothing is allocated on the Java heap.
pub(crate) fn fill_longs(env: &mut JNIEnv<'_>, out: jlongArray, values: &[i64]) -> Res<()> {
    // SAFETY: a local reference (or null) passed to the running native method.
    let out = unsafe { JLongArray::from_raw(out) };
    if out.is_null() {
        return Err(bad_arg("the output array is null"));
    }
    let n = env.get_array_length(&out)? as usize;
    if n < values.len() {
        return Err(bad_arg(format!(
            "the output array has {n} elements, needs {}",
            values.len()
        )));
    }
    env.set_long_array_region(&out, 0, values)?;
    Ok(())
}

/// One generated Java declaration.
#[cfg(test)]
pub(crate) struct JavaDecl {
    pub name: &'static str,
    /// `(name, Java type)` of each parameter.
    pub params: &'static [(&'static str, &'static str)],
    pub ret: &'static str,
}

/// The JNI method descriptor `(params)ret`.
pub(crate) fn signature(params: &[&str], ret: &str) -> String {
    format!("({}){ret}", params.concat())
}

/// Numbers and flags: per type, what Java passes and how it is checked. Unsigned values come
/// in a wider or same-sized Java type and must not be negative: `u32` a tick, count or id in an
/// `int`, `u64` a duration in milliseconds and `usize` a size in bytes in a `long`. `i64` (a time
/// in nanoseconds or a count that may be negative) and `f64` cross as they are; an [`Id`] (an id,
/// kind or version) is the `int`'s 32 bits, unsigned.
macro_rules! number_args {
    ($($t:ty => $j:ty, $store:expr);*) => {$(
        impl JniArg for $t {
            type Jni = $j;
            type Stored = $t;
            fn store(_: &mut JNIEnv<'_>, v: $j, name: &'static str) -> Res<$t> {
                let store: fn($j, &'static str) -> Res<$t> = $store;
                store(v, name)
            }
        }
    )*};
}
number_args!(
    i64 => jlong, |v, _| Ok(v);
    f64 => jdouble, |v, _| Ok(v);
    u32 => jint, |v, name| u32::try_from(v).map_err(|_| negative(name, v.into()));
    u64 => jlong, |v, name| u64::try_from(v).map_err(|_| negative(name, v));
    usize => jlong, |v, name| usize::try_from(v).map_err(|_| negative(name, v));
    bool => jboolean, |v, _| Ok(v != 0);
    Id => jint, |v, _| Ok(Id(v as u32))
);

/// Results Java receives as they are or widened without loss (a `u32` tick or count is a
/// `long`, so that every value survives; a `bool` a `boolean`).
macro_rules! plain_results {
    ($($t:ty => $j:ty),*) => {$(
        impl JniResult for $t {
            type Jni = $j;
            fn into_jni(self, _: &mut JNIEnv<'_>) -> Res<$j> {
                Ok(<$j>::from(self))
            }
        }
    )*};
}
plain_results!(i32 => jint, i64 => jlong, u32 => jlong, bool => jboolean, f64 => jdouble, () => ());

/// A negative value where none may be, the parameter named as Java's builder method for it (the
/// options' setters name their value after the option).
fn negative(name: &str, v: i64) -> super::Failure {
    let name = crate::shared::option_names::java_option(name);
    bad_arg(format!("{name} must not be negative (got {v})"))
}

/// A Java `String` that must not be null.
fn java_string(env: &mut JNIEnv<'_>, s: jstring, name: &'static str) -> Res<String> {
    // SAFETY: `s` is a local reference (or null) the JVM passed to the native method being run;
    // it stays valid for the whole call, and the wrapper does not outlive it.
    let s = unsafe { JString::from_raw(s) };
    super::string_arg(env, &s, name)
}

impl JniArg for &'static str {
    type Jni = jstring;
    const SIG: &'static str = "Ljava/lang/String;";
    const JAVA: &'static str = "String";
    type Stored = String;
    fn store(env: &mut JNIEnv<'_>, s: jstring, name: &'static str) -> Res<String> {
        java_string(env, s, name)
    }
}

impl JniArg for &'static Path {
    type Jni = jstring;
    const SIG: &'static str = "Ljava/lang/String;";
    const JAVA: &'static str = "String";
    type Stored = PathBuf;
    fn store(env: &mut JNIEnv<'_>, s: jstring, name: &'static str) -> Res<PathBuf> {
        java_string(env, s, name).map(PathBuf::from)
    }
}

/// A path that may be null.
impl JniArg for Option<&'static Path> {
    type Jni = jstring;
    const SIG: &'static str = "Ljava/lang/String;";
    const JAVA: &'static str = "String";
    type Stored = Option<PathBuf>;
    fn store(env: &mut JNIEnv<'_>, s: jstring, _: &'static str) -> Res<Option<PathBuf>> {
        // SAFETY: a local reference (or null) passed to the running native method.
        let s = unsafe { JString::from_raw(s) };
        Ok(super::opt_string_arg(env, &s)?.map(PathBuf::from))
    }
}

/// `String[] {key0, value0, key1, value1, ...}`, no element null.
impl JniArg for StringPairs {
    type Jni = jobjectArray;
    const SIG: &'static str = "[Ljava/lang/String;";
    const JAVA: &'static str = "String[]";
    type Stored = StringPairs;
    fn store(env: &mut JNIEnv<'_>, a: jobjectArray, name: &'static str) -> Res<StringPairs> {
        // SAFETY: a local reference (or null) passed to the running native method.
        let a = unsafe { JObjectArray::from_raw(a) };
        if a.is_null() {
            return Err(bad_arg(format!("{name} is null")));
        }
        let n = env.get_array_length(&a)?;
        if n % 2 != 0 {
            return Err(bad_arg(format!(
                "{name} must hold key, value pairs (got {n} strings)"
            )));
        }
        let mut strings = Vec::with_capacity(n as usize);
        for i in 0..n {
            let s = JString::from(env.get_object_array_element(&a, i)?);
            strings.push(super::string_arg(env, &s, "a metadata key or value")?);
            env.delete_local_ref(s)?;
        }
        let mut it = strings.into_iter();
        let mut pairs = Vec::with_capacity(n as usize / 2);
        while let (Some(k), Some(v)) = (it.next(), it.next()) {
            pairs.push((k, v));
        }
        Ok(StringPairs(pairs))
    }
}

impl JniArg for &'static [u8] {
    type Jni = jbyteArray;
    const SIG: &'static str = "[B";
    const JAVA: &'static str = "byte[]";
    type Stored = Vec<u8>;
    fn store(env: &mut JNIEnv<'_>, a: jbyteArray, name: &'static str) -> Res<Vec<u8>> {
        // SAFETY: as in `java_string`: a local reference passed to the running native method.
        let a = unsafe { JByteArray::from_raw(a) };
        super::bytes_arg(env, &a, name)
    }
}

/// The JNI descriptor of a `direct` parameter: `(ByteBuffer buffer, int offset, int length)`.
pub(crate) const DIRECT_SIG: &str = "Ljava/nio/ByteBuffer;II";

/// Bytes of a direct `ByteBuffer`, read in place for the call (never copied, never kept).
pub(crate) struct DirectSlice {
    ptr: *const u8,
    len: usize,
    /// The pin the bytes are read through (`crate::jni::pinned`'s buffer), held for the call
    /// (`None`: a buffer passed as a local reference of the call).
    _pin: Option<Arc<dyn std::any::Any + Send + Sync>>,
}

impl DirectSlice {
    /// `len` bytes at `ptr`, inside the memory `pin` keeps allocated.
    pub(crate) fn pinned(
        ptr: *const u8,
        len: usize,
        pin: Arc<dyn std::any::Any + Send + Sync>,
    ) -> Self {
        DirectSlice {
            ptr,
            len,
            _pin: Some(pin),
        }
    }
}

impl std::ops::Deref for DirectSlice {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: built by `direct_bytes` or `pinned_bytes` from the buffer's address and a range
        // checked against its capacity. The buffer is a local reference of the running native
        // call, or is kept by the pin this slice holds, so its memory stays valid while the call
        // runs, and a `DirectSlice` never outlives the call. The documented contract forbids
        // writing to the buffer during the call.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// `(offset, len)` as a range inside `capacity` bytes (negative or outside:
/// `IllegalArgumentException`).
pub(crate) fn range_of(
    offset: jint,
    len: jint,
    capacity: usize,
    name: &'static str,
) -> Res<(usize, usize)> {
    let (Ok(off), Ok(n)) = (usize::try_from(offset), usize::try_from(len)) else {
        return Err(bad_arg(format!(
            "negative {name} range (offset {offset}, length {len})"
        )));
    };
    if off.checked_add(n).is_none_or(|end| end > capacity) {
        return Err(bad_arg(format!(
            "{name} range {off}+{n} exceeds its capacity {capacity}"
        )));
    }
    Ok((off, n))
}

/// `len` bytes at `offset` of a direct `ByteBuffer` (null, heap buffer or a range outside its
/// capacity: `IllegalArgumentException`).
pub(crate) fn direct_bytes(
    env: &mut JNIEnv<'_>,
    buf: jobject,
    offset: jint,
    len: jint,
    name: &'static str,
) -> Res<DirectSlice> {
    // SAFETY: a local reference (or null) passed to the running native method.
    let buf = unsafe { JByteBuffer::from_raw(buf) };
    if buf.is_null() {
        return Err(bad_arg(format!("{name} is null")));
    }
    let addr = env
        .get_direct_buffer_address(&buf)
        .map_err(|_| bad_arg(format!("{name} is not a direct ByteBuffer")))?;
    let capacity = env
        .get_direct_buffer_capacity(&buf)
        .map_err(|_| bad_arg(format!("{name} is not a direct ByteBuffer")))?;
    let (offset, len) = range_of(offset, len, capacity, name)?;
    // SAFETY: `offset <= capacity` of the buffer's memory starting at `addr`.
    let ptr = unsafe { addr.add(offset) };
    Ok(DirectSlice {
        ptr,
        len,
        _pin: None,
    })
}

/// A UUID: `null` or `long[] {msb, lsb}`.
impl JniArg for Option<uuid::Uuid> {
    type Jni = jlongArray;
    const SIG: &'static str = "[J";
    const JAVA: &'static str = "long[]";
    type Stored = Option<uuid::Uuid>;
    fn store(env: &mut JNIEnv<'_>, a: jlongArray, name: &'static str) -> Res<Option<uuid::Uuid>> {
        // SAFETY: a local reference (or null) passed to the running native method.
        let a = unsafe { JLongArray::from_raw(a) };
        if a.is_null() {
            return Ok(None);
        }
        let v = super::longs_arg(env, &a, 2, name)?;
        Ok(Some(uuid::Uuid::from_u64_pair(v[0] as u64, v[1] as u64)))
    }
}

/// An `Option<&str>`: a Java `String` that may be null.
impl JniArg for Option<&'static str> {
    type Jni = jstring;
    const SIG: &'static str = "Ljava/lang/String;";
    const JAVA: &'static str = "String";
    type Stored = Option<String>;
    fn store(env: &mut JNIEnv<'_>, s: jstring, _: &'static str) -> Res<Option<String>> {
        // SAFETY: a local reference (or null) passed to the running native method.
        let s = unsafe { JString::from_raw(s) };
        super::opt_string_arg(env, &s)
    }
}

/// A size (a file's length): a Java `long`.
impl JniResult for u64 {
    type Jni = jlong;
    fn into_jni(self, _: &mut JNIEnv<'_>) -> Res<jlong> {
        jlong::try_from(self).map_err(|_| bad_arg(format!("{self} does not fit a Java long")))
    }
}

/// A handle: the object it names (closed or of another type: `IllegalStateException` /
/// `IllegalArgumentException`).
impl<T: HandleType> JniArg for &'static T {
    type Jni = jlong;
    type Stored = Arc<T>;
    fn store(_: &mut JNIEnv<'_>, h: jlong, _: &'static str) -> Res<Arc<T>> {
        Ok(handles::get::<T>(h, T::NAME)?)
    }
}

/// A handle that may be `0` (options: `0` for the defaults); else as `&T`.
impl<T: HandleType> JniArg for Option<&'static T> {
    type Jni = jlong;
    type Stored = Option<Arc<T>>;
    fn store(_: &mut JNIEnv<'_>, h: jlong, _: &'static str) -> Res<Option<Arc<T>>> {
        if h == 0 {
            return Ok(None);
        }
        Ok(Some(handles::get::<T>(h, T::NAME)?))
    }
}

/// A handle being closed: removed from the registry if it names a live object of the type
/// (closing twice, or a stale handle, is harmless; a handle of another type is refused).
impl<T: HandleType> JniArg for Released<T> {
    type Jni = jlong;
    type Stored = Released<T>;
    fn store(_: &mut JNIEnv<'_>, h: jlong, _: &'static str) -> Res<Released<T>> {
        match handles::get::<T>(h, T::NAME) {
            Ok(object) => {
                drop(handles::remove(h));
                Ok(Released {
                    object: Some(object),
                })
            }
            Err(handles::HandleError::Closed(_)) => Ok(Released { object: None }),
            Err(e) => Err(e.into()),
        }
    }
}

/// Any handle, closed without a type check.
impl JniArg for AnyHandle {
    type Jni = jlong;
    type Stored = AnyHandle;
    fn store(_: &mut JNIEnv<'_>, h: jlong, _: &'static str) -> Res<AnyHandle> {
        Ok(AnyHandle {
            _object: handles::remove(h),
        })
    }
}

impl JniResult for &'static str {
    type Jni = jobject;
    const SIG: &'static str = "Ljava/lang/String;";
    const JAVA: &'static str = "String";
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        Ok(env.new_string(self)?.into_raw())
    }
}

/// A new handle (a positive `long`).
impl<T: HandleType> JniResult for New<T> {
    type Jni = jlong;
    fn into_jni(self, _: &mut JNIEnv<'_>) -> Res<jlong> {
        super::insert(T::NAME, Arc::new(self.0))
    }
}

/// Bytes (an NBT compound, encoded ticks): a new `byte[]`.
impl JniResult for Vec<u8> {
    type Jni = jobject;
    const SIG: &'static str = "[B";
    const JAVA: &'static str = "byte[]";
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        super::byte_array(env, &self)
    }
}

/// Ids: a new `long[]` (unsigned 32-bit values).
impl JniResult for Vec<u32> {
    type Jni = jobject;
    const SIG: &'static str = "[J";
    const JAVA: &'static str = "long[]";
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        let v: Vec<i64> = self.into_iter().map(i64::from).collect();
        super::long_array(env, &v)
    }
}

/// A new handle that may not exist yet: `0` until it does.
impl<T: HandleType> JniResult for Option<New<T>> {
    type Jni = jlong;
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jlong> {
        self.map_or(Ok(0), |new| new.into_jni(env))
    }
}

/// The Java type of a `long[]` result (the layout is the operation's).
pub(crate) const LONG_ARRAY_SIG: &str = "[J";
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const LONG_ARRAY_JAVA: &str = "long[]";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::playhead::{Playhead, UpdateRef};

    /// Signatures come from the declared types: `playheadOpen(String, int) -> long` and
    /// `playheadSeek(long, int, long[] out) -> void` (a fill), as `RegisterNatives` needs them.
    #[test]
    fn jni_signatures_follow_the_rust_types() {
        let open = signature(
            &[<&'static Path as JniArg>::SIG, <u32 as JniArg>::SIG],
            <New<Playhead> as JniResult>::SIG,
        );
        assert_eq!(open, "(Ljava/lang/String;I)J");
        let seek = signature(
            &[
                <&'static Playhead as JniArg>::SIG,
                <u32 as JniArg>::SIG,
                <UpdateRef<'static> as JniFill>::ARRAY_SIG,
            ],
            <UpdateRef<'static> as JniFill>::SIG,
        );
        assert_eq!(seek, "(JI[J)V");
        assert_eq!(<&'static [u8] as JniArg>::JAVA, "byte[]");
        assert_eq!(<() as JniResult>::SIG, "V");
    }

    /// `Pose.java`'s quantity codes (for `quantityCheck`) are the core's.
    #[test]
    fn java_quantity_codes_are_the_cores() {
        use tickreel::format::Quantity;
        let src =
            include_str!("../../../java-bindings/tickreel/src/main/java/io/tickreel/Pose.java");
        for (name, q) in [
            ("POSITION", Quantity::Position),
            ("ANGLE", Quantity::Angle),
            ("VELOCITY", Quantity::Velocity),
        ] {
            let decl = format!("static final int {name} = {};", q.code());
            assert!(src.contains(&decl), "Pose.java lacks `{decl}`");
        }
    }
}
