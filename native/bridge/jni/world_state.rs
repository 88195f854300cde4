//! How the world at a tick crosses into Java (`WorldState`, and `Update`'s world changes): the
//! lists as `long[]` laid out here, read by `WorldState.java` and `Update.java`. The operations
//! are `crate::api::world_state`, `crate::api::reader::world_at` and
//! `crate::api::playhead::{world_state, world_changes}`; their JNI entry points are generated.

use jni::JNIEnv;
use jni::objects::JLongArray;
use jni::sys::{jint, jlong, jlongArray, jobject};

use super::Res;
use super::convert::{JniArg, JniFill, JniResult, LONG_ARRAY_JAVA, LONG_ARRAY_SIG};
use super::{byte_array, long_array};
use crate::api::playhead::WorldChanges;
use crate::api::world_state::{BlockAt, BlockEntityAt, Blocks, Entities, Equipment, Info};
use tickreel::format::WorldChange;

/// `long`s of a world change (`Update.WORLD_CHANGE_LONGS`).
pub(crate) const WORLD_CHANGE_LONGS: usize = 10;

/// `kind (0 block, 1 health, 2 equipment), x, y, z, entity, slot, before or -1, before count,
/// after or -1, after count` (ids and states as unsigned 32-bit values).
fn world_change_longs(c: &WorldChange) -> [i64; WORLD_CHANGE_LONGS] {
    let opt = |v: Option<u32>| v.map_or(-1, i64::from);
    match *c {
        WorldChange::Block { pos, before, after } => [
            0,
            i64::from(pos.x),
            i64::from(pos.y),
            i64::from(pos.z),
            0,
            0,
            opt(before),
            0,
            opt(after),
            0,
        ],
        WorldChange::Health {
            entity,
            before,
            after,
        } => [
            1,
            0,
            0,
            0,
            i64::from(entity),
            0,
            opt(before),
            0,
            opt(after),
            0,
        ],
        WorldChange::Equipment {
            entity,
            slot,
            before,
            after,
        } => [
            2,
            0,
            0,
            0,
            i64::from(entity),
            i64::from(slot),
            opt(before.map(|i| i.item)),
            before.map_or(0, |i| i64::from(i.count)),
            opt(after.map(|i| i.item)),
            after.map_or(0, |i| i64::from(i.count)),
        ],
    }
}

/// A block coordinate: any Java `int`.
impl JniArg for i32 {
    type Jni = jint;
    const SIG: &'static str = "I";
    const JAVA: &'static str = "int";
    type Stored = i32;
    fn store(_: &mut JNIEnv<'_>, v: jint, _: &'static str) -> Res<i32> {
        Ok(v)
    }
}

/// `long[] {tick, complete (0/1), blocks, block entities, entities, equipment slots, terrain
/// sections}`.
impl JniResult for Info<'_> {
    type Jni = jobject;
    const SIG: &'static str = LONG_ARRAY_SIG;
    const JAVA: &'static str = LONG_ARRAY_JAVA;
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        let w = self.0;
        long_array(
            env,
            &[
                i64::from(w.tick),
                i64::from(w.complete),
                w.blocks.len() as i64,
                w.block_entities.len() as i64,
                w.entities.len() as i64,
                w.equipment.len() as i64,
                w.terrain.len() as i64,
            ],
        )
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

/// `long[]`: `entity, health or -1, slots in use` per entity, sorted by id.
impl JniResult for Entities<'_> {
    type Jni = jobject;
    const SIG: &'static str = LONG_ARRAY_SIG;
    const JAVA: &'static str = LONG_ARRAY_JAVA;
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        let mut out = Vec::with_capacity(3 * self.0.entities.len());
        for e in &self.0.entities {
            out.extend_from_slice(&[
                i64::from(e.entity),
                e.health.map_or(-1, i64::from),
                e.count as i64,
            ]);
        }
        long_array(env, &out)
    }
}

/// `long[]`: `entity, slot, item, count` per slot in use, by entity then slot.
impl JniResult for Equipment<'_> {
    type Jni = jobject;
    const SIG: &'static str = LONG_ARRAY_SIG;
    const JAVA: &'static str = LONG_ARRAY_JAVA;
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        let mut out = Vec::with_capacity(4 * self.0.equipment.len());
        for &(entity, slot, item) in &self.0.equipment {
            out.extend_from_slice(&[
                i64::from(entity),
                i64::from(slot),
                i64::from(item.item),
                i64::from(item.count),
            ]);
        }
        long_array(env, &out)
    }
}

/// The block's state as an unsigned 32-bit value (the edited block's, else the terrain's), or -1
/// if neither gives it (no allocation).
impl JniResult for BlockAt<'_> {
    type Jni = jlong;
    const SIG: &'static str = "J";
    const JAVA: &'static str = "long";
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

/// [`WORLD_CHANGE_LONGS`] longs per change if the array has room, and the number of changes
/// either way (Java grows its array and asks again).
impl JniFill for WorldChanges<'_> {
    type Array = jlongArray;
    const ARRAY_SIG: &'static str = "[J";
    const ARRAY_JAVA: &'static str = "long[]";
    type Jni = jint;
    const SIG: &'static str = "I";
    const JAVA: &'static str = "int";
    fn fill(self, env: &mut JNIEnv<'_>, out: jlongArray) -> Res<jint> {
        let changes = self.changes();
        let n = jint::try_from(changes.len()).unwrap_or(jint::MAX);
        // SAFETY: a local reference (or null) passed to the running native method; the wrapper
        // is only used to read the array's length and write into it.
        let room = unsafe { JLongArray::from_raw(out) };
        if room.is_null()
            || (env.get_array_length(&room)? as usize) < WORLD_CHANGE_LONGS * changes.len()
        {
            return Ok(n);
        }
        let mut chunk = [0i64; WORLD_CHANGE_LONGS * 32];
        for (i, group) in changes.chunks(32).enumerate() {
            for (j, c) in group.iter().enumerate() {
                let o = j * WORLD_CHANGE_LONGS;
                chunk[o..o + WORLD_CHANGE_LONGS].copy_from_slice(&world_change_longs(c));
            }
            let start = jint::try_from(i * 32 * WORLD_CHANGE_LONGS).unwrap_or(jint::MAX);
            env.set_long_array_region(&room, start, &chunk[..group.len() * WORLD_CHANGE_LONGS])?;
        }
        Ok(n)
    }
}
