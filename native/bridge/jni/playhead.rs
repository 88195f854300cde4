//! How a playhead's update crosses into Java (the playhead operations are
//! `crate::api::playhead`; their JNI entry points are generated). Both fill arrays Java keeps
//! (`Update`), so a server tick's `advance()` allocates nothing on the Java heap.

use jni::JNIEnv;
use jni::objects::JLongArray;
use jni::sys::{jint, jlongArray, jobject};

use super::Res;
use super::convert::{JniFill, JniResult, LONG_ARRAY_JAVA, LONG_ARRAY_SIG, fill_longs};
use super::long_array;
use super::reader::{ENTITY_LONGS, entity_longs};
use crate::api::playhead::{Added, EntityList, UpdateRef};
use tickreel::play::{Direction, Motion, Update};

/// `long`s of an update (`Update.HEADER`).
pub(crate) const HEADER_LONGS: usize = 9;

/// `[from, to, motion (0 still, 1 forward, 2 jump), direction (0 forward, 1 backward), stalled,
/// at edge, waiting (0/1 each), fault count, entity count]`.
fn header(u: &Update) -> [i64; HEADER_LONGS] {
    [
        i64::from(u.from),
        i64::from(u.to),
        match u.motion {
            Motion::Still => 0,
            Motion::Forward => 1,
            Motion::Jump => 2,
        },
        match u.direction {
            Direction::Forward => 0,
            Direction::Backward => 1,
        },
        i64::from(u.stalled),
        i64::from(u.at_edge),
        i64::from(u.waiting),
        u.faults().len() as i64,
        u.entities().len() as i64,
    ]
}

/// Into `Update`'s header array ([`HEADER_LONGS`] longs).
impl JniFill for UpdateRef<'_> {
    type Array = jlongArray;
    const ARRAY_SIG: &'static str = "[J";
    const ARRAY_JAVA: &'static str = "long[]";
    type Jni = ();
    fn fill(self, env: &mut JNIEnv<'_>, out: jlongArray) -> Res<()> {
        fill_longs(env, out, &header(self.update()))
    }
}

/// `id, kind, flags, x, y, z, yaw, pitch` per entity (ids, kinds and flags as unsigned 32-bit
/// values, the pose as stored; as a `Reader` seek) if the array has room, and the entity count
/// either way (Java grows its array and asks again).
impl JniFill for EntityList<'_> {
    type Array = jlongArray;
    const ARRAY_SIG: &'static str = "[J";
    const ARRAY_JAVA: &'static str = "long[]";
    type Jni = jint;
    fn fill(self, env: &mut JNIEnv<'_>, out: jlongArray) -> Res<jint> {
        let entities = self.entities();
        let n = jint::try_from(entities.len()).unwrap_or(jint::MAX);
        // SAFETY: a local reference (or null) passed to the running native method; the wrapper
        // is only used to read the array's length.
        let room = unsafe { JLongArray::from_raw(out) };
        if room.is_null() || (env.get_array_length(&room)? as usize) < ENTITY_LONGS * entities.len()
        {
            return Ok(n);
        }
        let mut chunk = [0i64; ENTITY_LONGS * 32];
        for (i, group) in entities.chunks(32).enumerate() {
            for (j, e) in group.iter().enumerate() {
                let o = j * ENTITY_LONGS;
                chunk[o..o + ENTITY_LONGS].copy_from_slice(&entity_longs(e));
            }
            let start = jint::try_from(i * 32 * ENTITY_LONGS).unwrap_or(jint::MAX);
            env.set_long_array_region(&room, start, &chunk[..group.len() * ENTITY_LONGS])?;
        }
        Ok(n)
    }
}

/// `long[]`: 8 per added entity, as [`EntityList`]'s (allocated: asked for only on a jump).
impl JniResult for Added<'_> {
    type Jni = jobject;
    const SIG: &'static str = LONG_ARRAY_SIG;
    const JAVA: &'static str = LONG_ARRAY_JAVA;
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        let mut out = Vec::with_capacity(ENTITY_LONGS * self.entities().len());
        for e in self.entities() {
            out.extend_from_slice(&entity_longs(e));
        }
        long_array(env, &out)
    }
}
