//! How a playhead's update crosses into Java (the playhead operations are
//! `crate::api::playhead`; their JNI entry points are generated).

use jni::JNIEnv;
use jni::sys::jobject;

use super::convert::{JniResult, LONG_ARRAY_JAVA, LONG_ARRAY_SIG};
use super::replay::ENTITY_LONGS;
use super::{Res, long_array};
use crate::api::playhead::UpdateRef;
use tickreel::play::{Direction, Motion, Update};

/// `long`s before the entities in an update.
const HEADER_LONGS: usize = 9;

/// `[from, to, motion (0 still, 1 forward, 2 jump), direction (0 forward, 1 backward), stalled,
/// at edge, waiting (0/1 each), fault count, entity count, then per entity: id, kind, flags, x, y,
/// z, yaw, pitch]` (ids, kinds and flags as unsigned 32-bit values), the same entity layout as a
/// `Replay` seek.
fn update_longs(env: &mut JNIEnv<'_>, u: &Update) -> Res<jobject> {
    let entities = u.entities();
    let mut out = Vec::with_capacity(HEADER_LONGS + ENTITY_LONGS * entities.len());
    out.push(i64::from(u.from));
    out.push(i64::from(u.to));
    out.push(match u.motion {
        Motion::Still => 0,
        Motion::Forward => 1,
        Motion::Jump => 2,
    });
    out.push(match u.direction {
        Direction::Forward => 0,
        Direction::Backward => 1,
    });
    out.push(i64::from(u.stalled));
    out.push(i64::from(u.at_edge));
    out.push(i64::from(u.waiting));
    out.push(u.faults().len() as i64);
    out.push(entities.len() as i64);
    for e in entities {
        out.push(i64::from(e.id));
        out.push(i64::from(e.kind));
        out.push(i64::from(e.flags));
        out.extend_from_slice(&e.pose.to_array());
    }
    long_array(env, &out)
}

/// `long[]`, laid out by [`update_longs`] (`PlaybackUpdate.fill` reads it).
impl JniResult for UpdateRef<'_> {
    type Jni = jobject;
    const SIG: &'static str = LONG_ARRAY_SIG;
    const JAVA: &'static str = LONG_ARRAY_JAVA;
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        update_longs(env, self.update())
    }
}
