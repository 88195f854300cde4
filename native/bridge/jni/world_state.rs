//! How the world at a tick crosses into Java (`WorldState`, and `Update`'s world changes): the
//! lists as `long[]` laid out here, read by `WorldState.java` and `Update.java`. The operations
//! are `crate::api::world_state`, `crate::api::reader::world_at` and
//! `crate::api::playhead::{world_state, world_changes}`; their JNI entry points are generated.

use jni::JNIEnv;
use jni::sys::{jint, jlong, jobject};

use super::Res;
use super::convert::{JniArg, JniResult, LONG_ARRAY_JAVA, LONG_ARRAY_SIG};
use super::{byte_array, long_array};
use crate::api::world_state::{BlockAt, BlockEntityAt, Blocks};

/// A block coordinate: any Java `int`.
impl JniArg for i32 {
    type Jni = jint;
    type Stored = i32;
    fn store(_: &mut JNIEnv<'_>, v: jint, _: &'static str) -> Res<i32> {
        Ok(v)
    }
}

/// `long[]`: `x, y, z, state` per block, sorted by position.
impl JniResult for Blocks<'_> {
    type Jni = jobject;
    const SIG: &'static str = LONG_ARRAY_SIG;
    const JAVA: &'static str = LONG_ARRAY_JAVA;
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        let mut out = Vec::with_capacity(4 * self.0.blocks.len());
        for &(p, state) in &self.0.blocks {
            out.extend_from_slice(&[
                i64::from(p.x),
                i64::from(p.y),
                i64::from(p.z),
                i64::from(state),
            ]);
        }
        long_array(env, &out)
    }
}

/// The block's state as an unsigned 32-bit value (the edited block's, else the terrain's), or -1
/// if neither gives it (no allocation).
impl JniResult for BlockAt<'_> {
    type Jni = jlong;
    fn into_jni(self, _: &mut JNIEnv<'_>) -> Res<jlong> {
        Ok(self.edited.or(self.terrain).map_or(-1, i64::from))
    }
}

/// `byte[]`, or `null` without a block entity.
impl JniResult for BlockEntityAt {
    type Jni = jobject;
    const SIG: &'static str = "[B";
    const JAVA: &'static str = "byte[]";
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        match self.0 {
            Some(b) => byte_array(env, &b),
            None => Ok(std::ptr::null_mut()),
        }
    }
}
