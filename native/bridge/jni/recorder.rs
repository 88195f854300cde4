//! How the engine family's types cross into Java (`Engine`, `Recorder`, and a finish as a
//! `Pending<Path>`; the operations are `crate::api::engine`, their JNI entry points generated):
//! counters, submissions and finish states. Plus the test hook the Java tests bind.

#[cfg(feature = "test-hooks")]
use std::ffi::c_void;

use jni::JNIEnv;
use jni::sys::{JNI_FALSE, JNI_TRUE, jboolean, jlong, jobject};

use super::Res;
use super::convert::JniResult;
use crate::api::engine::{Submission, WriterStatus};
use tickreel::record::Submitted;

/// `true` if queued, `false` if dropped by the drop policy; a refusal is thrown.
impl JniResult for Submission {
    type Jni = jboolean;
    fn into_jni(self, _: &mut JNIEnv<'_>) -> Res<jboolean> {
        Ok(match self.0? {
            Submitted::Queued => JNI_TRUE,
            Submitted::Dropped => JNI_FALSE,
        })
    }
}

/// A tick, or `-1` for none.
impl JniResult for Option<u32> {
    type Jni = jlong;
    fn into_jni(self, _: &mut JNIEnv<'_>) -> Res<jlong> {
        Ok(self.map_or(-1, i64::from))
    }
}

/// `null` when fine, else the writer's error as a new `TickreelException` (its kind the core's
/// number), returned rather than thrown.
impl JniResult for WriterStatus {
    type Jni = jobject;
    const SIG: &'static str = "Ljava/lang/Object;";
    const JAVA: &'static str = "Object";
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        match self.0 {
            Ok(()) => Ok(std::ptr::null_mut()),
            Err(e) => Ok(super::exception_of(env, &e)?.into_raw()),
        }
    }
}

/// Test hook: holds the engine's writerThreads while `stalled` (bound only in a library built
/// with the feature `test-hooks`; `NativeBridge.java` declares it always).
#[cfg(feature = "test-hooks")]
extern "system" fn engine_set_writers_stalled<'l>(
    mut env: jni::JNIEnv<'l>,
    _class: jni::objects::JClass<'l>,
    handle: jlong,
    stalled: jboolean,
) {
    use crate::api::engine::Engine;
    use crate::shared::handle::HandleType;
    super::entry(&mut env, |_| {
        let e = super::handles::get::<Engine>(handle, Engine::NAME)?;
        Ok(e.with(|e| {
            e.set_writers_stalled(stalled != 0);
            Ok(())
        })?)
    })
}

/// The hand-written natives: the test hook, with the feature `test-hooks` only.
#[cfg(feature = "test-hooks")]
pub(super) fn methods() -> Vec<jni::NativeMethod> {
    vec![super::method(
        "engineSetWritersStalled",
        &super::convert::signature(
            &[
                <&'static crate::api::engine::Engine as super::convert::JniArg>::SIG,
                <bool as super::convert::JniArg>::SIG,
            ],
            <() as JniResult>::SIG,
        ),
        engine_set_writers_stalled as *mut c_void,
    )]
}

/// The hand-written natives: none without the feature `test-hooks`.
#[cfg(not(feature = "test-hooks"))]
pub(super) fn methods() -> Vec<jni::NativeMethod> {
    Vec::new()
}
