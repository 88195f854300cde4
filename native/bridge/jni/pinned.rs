//! Direct `ByteBuffer`s pinned for the hot calls: a `Batch` submitted again and again pins its
//! buffer once (`NativeBridge.pinDirect`), and the `…Pinned` variant of each `direct` operation
//! (generated beside it, `native/bridge/codegen/jni.rs`) then reads the bytes through the pin's
//! handle, `(long pinned, int offset, int length)`, with no call back into the JVM.
//!
//! Why: at a server's pace (a submit every 50 ms, caches cold) the two JNI calls that find a
//! buffer's memory (`GetDirectBufferAddress`, `GetDirectBufferCapacity`) cost about 5 µs of a
//! 15 µs submit on the machine measured (BENCHMARKS.md, JNI), more than the copy itself; a handle
//! lookup stays inside the library.
//!
//! A pin holds a global reference to the buffer, so its memory cannot be freed while the pin is
//! open, and a call clones the pin out of the registry (as every handle), so closing it while a
//! call reads it is safe. The buffer's class is the JDK's: a pin keeps no plugin class loader.

use std::sync::Arc;

use jni::JNIEnv;
use jni::objects::{GlobalRef, JByteBuffer, JClass};
use jni::sys::{jint, jlong, jobject};

use super::convert::{DirectSlice, range_of};
use super::{Res, bad_arg, handles};

/// What error messages call a pin.
pub(crate) const NAME: &str = "pinned buffer";

/// The JNI descriptor of a pinned `direct` parameter: `(long pinned, int offset, int length)`.
pub(crate) const PINNED_SIG: &str = "JII";

/// A direct buffer kept reachable, with its memory's address and capacity.
pub(crate) struct PinnedBuffer {
    /// Keeps the buffer, and so its memory, alive while the pin is open.
    _buffer: GlobalRef,
    ptr: *const u8,
    capacity: usize,
}

// SAFETY: `ptr` is the address of a direct buffer's memory, which the global reference keeps
// allocated for the pin's whole life; the pin itself never writes through it, and readers only
// read it during a call, under the documented contract that the buffer does not change then.
unsafe impl Send for PinnedBuffer {}
// SAFETY: as for `Send`: shared references only read `ptr` and `capacity`.
unsafe impl Sync for PinnedBuffer {}

/// `NativeBridge.pinDirect(ByteBuffer)`: a pin of a direct buffer (null or a heap buffer:
/// `IllegalArgumentException`). Closed with `NativeBridge.close`.
extern "system" fn pin_direct<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    buffer: jobject,
) -> jlong {
    super::entry(&mut env, |env| {
        // SAFETY: a local reference (or null) passed to the running native method.
        let buf = unsafe { JByteBuffer::from_raw(buffer) };
        if buf.is_null() {
            return Err(bad_arg("buffer is null"));
        }
        let ptr = env
            .get_direct_buffer_address(&buf)
            .map_err(|_| bad_arg("buffer is not a direct ByteBuffer"))?;
        let capacity = env
            .get_direct_buffer_capacity(&buf)
            .map_err(|_| bad_arg("buffer is not a direct ByteBuffer"))?;
        let pin = PinnedBuffer {
            _buffer: env.new_global_ref(&buf)?,
            ptr,
            capacity,
        };
        Ok(handles::insert(NAME, Arc::new(pin))?)
    })
}

/// `len` bytes at `offset` of the pinned buffer `pinned` (closed or another handle:
/// `IllegalStateException` / `IllegalArgumentException`; a range outside its capacity:
/// `IllegalArgumentException`). The slice holds the pin for the call.
pub(crate) fn pinned_bytes(
    pinned: jlong,
    offset: jint,
    len: jint,
    name: &'static str,
) -> Res<DirectSlice> {
    let pin = handles::get::<PinnedBuffer>(pinned, NAME)?;
    let (offset, len) = range_of(offset, len, pin.capacity, name)?;
    // SAFETY: `offset + len <= capacity` of the pinned memory at `pin.ptr` (checked above).
    let ptr = unsafe { pin.ptr.add(offset) };
    Ok(DirectSlice::pinned(ptr, len, pin))
}

/// The hand-written native: `pinDirect`.
pub(super) fn methods() -> Vec<jni::NativeMethod> {
    vec![super::method(
        "pinDirect",
        "(Ljava/nio/ByteBuffer;)J",
        pin_direct as *mut std::ffi::c_void,
    )]
}
