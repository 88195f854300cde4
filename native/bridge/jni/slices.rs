//! Slices across JNI (the codegen's `&[T]` and `&mut [T]` parameter kinds, `T` a primitive):
//! `&[T]` is a Java array copied in for the call (`int[]` for `u32`, its values checked not
//! negative); `&mut [T]` is a Java array the operation writes in place, lent through
//! `GetPrimitiveArrayCritical` (no copy and nothing allocated on the Java heap per call on
//! HotSpot) and released, its writes committed, when the stored value drops. The generated entry
//! points convert such a buffer after every other argument and drop it before the result
//! crosses, so that no other JNI call runs inside the critical region.

use std::ffi::c_void;

use jni::JNIEnv;
use jni::objects::{JDoubleArray, JIntArray, JLongArray, JPrimitiveArray, TypeArray};
use jni::sys::{jarray, jdoubleArray, jintArray, jlongArray};

use super::convert::JniArg;
use super::{Res, bad_arg};

/// A Java primitive array lent for one call (a critical region): derefs to its elements.
pub(crate) struct Critical<T> {
    env: *mut jni::sys::JNIEnv,
    array: jarray,
    ptr: *mut T,
    len: usize,
}

impl<T> Critical<T> {
    /// Lends `array` (a Java `T[]` by its registered signature; null refused).
    fn lend(env: &mut JNIEnv<'_>, array: jarray, name: &'static str) -> Res<Critical<T>> {
        if array.is_null() {
            return Err(bad_arg(format!("{name} is null")));
        }
        // SAFETY: a local reference passed to the running native method; the wrapper is only
        // used to read the length.
        let a = unsafe { JPrimitiveArray::<i8>::from_raw(array) };
        let len = env.get_array_length(&a)? as usize;
        let _ = a.into_raw();
        let raw = env.get_raw();
        let mut c = Critical {
            env: raw,
            array,
            ptr: std::ptr::null_mut(),
            len,
        };
        if len == 0 {
            return Ok(c);
        }
        // SAFETY: `raw` is the running call's environment, whose function table the JVM fills.
        let get = unsafe { (**raw).GetPrimitiveArrayCritical }
            .ok_or_else(|| bad_arg("the JVM lacks GetPrimitiveArrayCritical"))?;
        // SAFETY: a valid environment and a live local reference to a primitive array.
        let p = unsafe { get(raw, array, std::ptr::null_mut()) };
        if p.is_null() {
            return Err(bad_arg(format!("{name} could not be lent (out of memory)")));
        }
        c.ptr = p.cast();
        Ok(c)
    }
}

impl<T> std::ops::Deref for Critical<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        if self.ptr.is_null() {
            return &[];
        }
        // SAFETY: `ptr` is the array's `len` elements, lent until `drop`; `T` is the array's
        // element type (the method's registered signature says so).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T> std::ops::DerefMut for Critical<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        if self.ptr.is_null() {
            return &mut [];
        }
        // SAFETY: as in `deref`; the region is exclusive to this call.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl<T> Drop for Critical<T> {
    fn drop(&mut self) {
        if self.ptr.is_null() {
            return;
        }
        // SAFETY: the environment and array this region was lent from, in the same call; mode 0
        // commits the writes and ends the region.
        unsafe {
            if let Some(release) = (**self.env).ReleasePrimitiveArrayCritical {
                release(self.env, self.array, self.ptr.cast::<c_void>(), 0);
            }
        }
    }
}

/// Copies a Java array's elements (null refused).
fn copy_in<T: TypeArray + Default + Copy>(
    env: &mut JNIEnv<'_>,
    a: &JPrimitiveArray<'_, T>,
    name: &'static str,
    get: impl Fn(&mut JNIEnv<'_>, &JPrimitiveArray<'_, T>, &mut [T]) -> jni::errors::Result<()>,
) -> Res<Vec<T>> {
    if a.is_null() {
        return Err(bad_arg(format!("{name} is null")));
    }
    let n = env.get_array_length(a)? as usize;
    let mut v = vec![T::default(); n];
    get(env, a, &mut v)?;
    Ok(v)
}

/// Per primitive, its Java array: `&[T]` copied in for the call, `&mut [T]` lent in place.
macro_rules! arrays {
    ($($t:ty => $array:ident, $wrapper:ident, $sig:literal, $java:literal, $get:ident);*) => {$(
        impl JniArg for &'static [$t] {
            type Jni = $array;
            const SIG: &'static str = $sig;
            const JAVA: &'static str = $java;
            type Stored = Vec<$t>;
            fn store(env: &mut JNIEnv<'_>, a: $array, name: &'static str) -> Res<Vec<$t>> {
                // SAFETY: a local reference (or null) passed to the running native method.
                let a = unsafe { $wrapper::from_raw(a) };
                copy_in(env, &a, name, |e, a, b| e.$get(a, 0, b))
            }
        }

        impl JniArg for &'static mut [$t] {
            type Jni = $array;
            const SIG: &'static str = $sig;
            const JAVA: &'static str = $java;
            type Stored = Critical<$t>;
            fn store(env: &mut JNIEnv<'_>, a: $array, name: &'static str) -> Res<Critical<$t>> {
                Critical::lend(env, a, name)
            }
        }
    )*};
}
arrays!(
    i32 => jintArray, JIntArray, "[I", "int[]", get_int_array_region;
    i64 => jlongArray, JLongArray, "[J", "long[]", get_long_array_region;
    f64 => jdoubleArray, JDoubleArray, "[D", "double[]", get_double_array_region
);

/// Unsigned numbers (checkpoints, ticks): an `int[]`, each value not negative.
impl JniArg for &'static [u32] {
    type Jni = jintArray;
    const SIG: &'static str = "[I";
    const JAVA: &'static str = "int[]";
    type Stored = Vec<u32>;
    fn store(env: &mut JNIEnv<'_>, a: jintArray, name: &'static str) -> Res<Vec<u32>> {
        let v = <&'static [i32] as JniArg>::store(env, a, name)?;
        v.into_iter()
            .enumerate()
            .map(|(i, x)| {
                u32::try_from(x)
                    .map_err(|_| bad_arg(format!("{name}[{i}] must not be negative (got {x})")))
            })
            .collect()
    }
}
