//! `Playhead` natives: stepping playback of a finished recording ([`tickreel::play::Playhead`]).
//!
//! A playhead is a `Mutex<Playhead>` behind a handle (its calls take `&mut self`; the lock
//! serialises calls from several Java threads). Every call that moves the position returns the
//! update in one `long[]` (see [`update_longs`]).

use std::ffi::c_void;
use std::sync::Arc;

use jni::JNIEnv;
use jni::objects::{JClass, JString};
use jni::sys::{jboolean, jdouble, jint, jlong, jobject};
use parking_lot::Mutex;

use super::replay::ENTITY_LONGS;
use super::{Res, entry, get, insert, long_array, method, string_arg, u32_arg};
use tickreel::play::{Direction, Motion, Playhead, Recording, Update};

const WHAT: &str = "Playhead";

type Shared = Mutex<Playhead>;

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

/// Opens `path` and returns a paused playhead at `tick` (clamped), or at the first tick when
/// `tick` is negative.
extern "system" fn open<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    path: JString<'l>,
    tick: jint,
) -> jlong {
    entry(&mut env, |env| {
        let path = string_arg(env, &path, "path")?;
        let rec = Recording::open_path(path)?;
        let p = if tick < 0 {
            Playhead::new(rec)?
        } else {
            Playhead::new_at(rec, u32_arg(tick, "tick")?)?
        };
        insert(WHAT, Arc::new(Mutex::new(p)))
    })
}

/// The last update (the opening jump right after `open`).
extern "system" fn current<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, handle: jlong) -> jobject {
    entry(&mut env, |env| {
        let p = get::<Shared>(handle, WHAT)?;
        let p = p.lock();
        update_longs(env, p.update())
    })
}

extern "system" fn advance<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, handle: jlong) -> jobject {
    entry(&mut env, |env| {
        let p = get::<Shared>(handle, WHAT)?;
        let mut p = p.lock();
        update_longs(env, p.advance())
    })
}

extern "system" fn seek<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    tick: jint,
) -> jobject {
    entry(&mut env, |env| {
        let tick = u32_arg(tick, "tick")?;
        let p = get::<Shared>(handle, WHAT)?;
        let mut p = p.lock();
        let u = p.seek(tick)?;
        update_longs(env, u)
    })
}

/// One recorded tick forward (`forward` true) or back.
extern "system" fn step<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    forward: jboolean,
) -> jobject {
    entry(&mut env, |env| {
        let p = get::<Shared>(handle, WHAT)?;
        let mut p = p.lock();
        let u = if forward != 0 {
            p.step_forward()
        } else {
            p.step_back()
        };
        update_longs(env, u)
    })
}

/// Plays (`playing` true) or pauses.
extern "system" fn set_playing<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    playing: jboolean,
) {
    entry(&mut env, |_| {
        let p = get::<Shared>(handle, WHAT)?;
        let mut p = p.lock();
        if playing != 0 {
            p.play()
        } else {
            p.pause()
        }
        Ok(())
    })
}

extern "system" fn set_speed<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    speed: jdouble,
) {
    entry(&mut env, |_| {
        let p = get::<Shared>(handle, WHAT)?;
        p.lock().set_speed(speed)?;
        Ok(())
    })
}

extern "system" fn set_reverse<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    reverse: jboolean,
) {
    entry(&mut env, |_| {
        let p = get::<Shared>(handle, WHAT)?;
        p.lock().set_direction(if reverse != 0 {
            Direction::Backward
        } else {
            Direction::Forward
        });
        Ok(())
    })
}

/// The current position (`-1` while waiting for a live recording's first tick).
extern "system" fn position<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, handle: jlong) -> jlong {
    entry(&mut env, |_| {
        let p = get::<Shared>(handle, WHAT)?;
        let p = p.lock();
        Ok(if p.is_waiting() {
            -1
        } else {
            i64::from(p.position())
        })
    })
}

pub(super) fn methods() -> Vec<jni::NativeMethod> {
    vec![
        method(
            "playheadOpen",
            "(Ljava/lang/String;I)J",
            open as *mut c_void,
        ),
        method("playheadCurrent", "(J)[J", current as *mut c_void),
        method("playheadAdvance", "(J)[J", advance as *mut c_void),
        method("playheadSeek", "(JI)[J", seek as *mut c_void),
        method("playheadStep", "(JZ)[J", step as *mut c_void),
        method("playheadSetPlaying", "(JZ)V", set_playing as *mut c_void),
        method("playheadSetSpeed", "(JD)V", set_speed as *mut c_void),
        method("playheadSetReverse", "(JZ)V", set_reverse as *mut c_void),
        method("playheadPosition", "(J)J", position as *mut c_void),
    ]
}
