//! `Ghost`, `GhostLoading`, `GhostCursor` and `LiveDelta` natives: ghost racing ([`tickreel::ghost`]).
//!
//! A ghost is an `Arc<GhostTrack>` behind a handle; cursors and deltas hold their own reference,
//! so closing the ghost leaves them working. A background load is the core's [`GhostLoad`].

use std::ffi::c_void;
use std::sync::Arc;

use jni::JNIEnv;
use jni::objects::{JClass, JDoubleArray, JString};
use jni::sys::{JNI_FALSE, JNI_TRUE, jboolean, jdouble, jint, jlong, jobject};
use parking_lot::Mutex;

use super::{Res, bad_arg, entry, get, insert, long_array, method, string_arg, u32_arg};
use tickreel::ghost::{
    GhostCursor, GhostLoad, GhostRange, GhostState, GhostTrack, LiveDelta, RunEnd, RunStart,
};

/// A background load and whether its result was taken.
type Loading = Mutex<(GhostLoad, bool)>;

const GHOST: &str = "Ghost";
const LOADING: &str = "GhostLoading";
const CURSOR: &str = "GhostCursor";
const DELTA: &str = "LiveDelta";

/// Doubles a sample fills: `t, x, y, z, yaw, pitch, flags, state` (0 not started, 1 running,
/// 2 finished).
const SAMPLE_LEN: usize = 8;
/// Doubles a delta reading fills: `raw ticks, shown ticks, ahead (0/1), ghost ticks, distance,
/// tick rate`.
const READING_LEN: usize = 6;

/// Range kinds: 0 = first / last, 1 = tick, 2 = checkpoint.
fn range(start_kind: jint, start: jint, end_kind: jint, end: jint) -> Res<GhostRange> {
    let start = match start_kind {
        0 => RunStart::First,
        1 => RunStart::Tick(u32_arg(start, "start tick")?),
        2 => RunStart::Checkpoint(u32_arg(start, "start checkpoint")?),
        k => return Err(bad_arg(format!("unknown run start kind {k}"))),
    };
    let end = match end_kind {
        0 => RunEnd::Last,
        1 => RunEnd::Tick(u32_arg(end, "end tick")?),
        2 => RunEnd::Checkpoint(u32_arg(end, "end checkpoint")?),
        k => return Err(bad_arg(format!("unknown run end kind {k}"))),
    };
    Ok(GhostRange { start, end })
}

#[allow(clippy::too_many_arguments)]
extern "system" fn ghost_load<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    path: JString<'l>,
    entity: jint,
    start_kind: jint,
    start: jint,
    end_kind: jint,
    end: jint,
) -> jlong {
    entry(&mut env, |env| {
        let path = string_arg(env, &path, "path")?;
        let range = range(start_kind, start, end_kind, end)?;
        let track = GhostTrack::load_path(path, entity as u32, range)?;
        insert(GHOST, Arc::new(track))
    })
}

#[allow(clippy::too_many_arguments)]
extern "system" fn ghost_load_async<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    path: JString<'l>,
    entity: jint,
    start_kind: jint,
    start: jint,
    end_kind: jint,
    end: jint,
) -> jlong {
    entry(&mut env, |env| {
        let path = string_arg(env, &path, "path")?;
        let range = range(start_kind, start, end_kind, end)?;
        let load = GhostTrack::load_async(std::path::PathBuf::from(path), entity as u32, range);
        insert(LOADING, Arc::new(Mutex::new((load, false))))
    })
}

extern "system" fn loading_is_ready<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jboolean {
    entry(&mut env, |_| {
        let l = get::<Loading>(handle, LOADING)?;
        let ready = l.lock().0.is_ready();
        Ok(if ready { JNI_TRUE } else { JNI_FALSE })
    })
}

/// The loaded ghost's handle, `0` while loading; throws the load's error, or
/// `IllegalStateException` once the result was taken.
extern "system" fn loading_take<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    entry(&mut env, |_| {
        let l = get::<Loading>(handle, LOADING)?;
        let mut l = l.lock();
        let (load, taken) = &mut *l;
        if *taken {
            return Err(tickreel::Error::InvalidState(
                "the ghost was already taken from this load".into(),
            )
            .into());
        }
        match load.try_take() {
            None => Ok(0),
            Some(r) => {
                *taken = true;
                insert(GHOST, Arc::new(r?))
            }
        }
    })
}

/// `[entity, origin tick, duration ticks, samples, synthetic (0/1)]`.
extern "system" fn ghost_info<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jobject {
    entry(&mut env, |env| {
        let g = get::<GhostTrack>(handle, GHOST)?;
        long_array(
            env,
            &[
                i64::from(g.entity()),
                i64::from(g.origin_tick()),
                i64::from(g.duration_ticks()),
                g.len() as i64,
                i64::from(g.is_synthetic()),
            ],
        )
    })
}

extern "system" fn ghost_tick_rate<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jdouble {
    entry(&mut env, |_| {
        Ok(get::<GhostTrack>(handle, GHOST)?.tick_rate())
    })
}

/// `[checkpoint, tick offset, ...]` in recorded order.
extern "system" fn ghost_splits<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jobject {
    entry(&mut env, |env| {
        let g = get::<GhostTrack>(handle, GHOST)?;
        let v: Vec<i64> = g
            .splits()
            .iter()
            .flat_map(|s| [i64::from(s.checkpoint), i64::from(s.tick)])
            .collect();
        long_array(env, &v)
    })
}

extern "system" fn cursor_new<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, ghost: jlong) -> jlong {
    entry(&mut env, |_| {
        let g = get::<GhostTrack>(ghost, GHOST)?;
        insert(CURSOR, Arc::new(Mutex::new(GhostCursor::new(g))))
    })
}

/// Fills `out` (at least [`SAMPLE_LEN`] doubles) with the ghost at `t` ticks.
extern "system" fn cursor_sample<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    t: jdouble,
    out: JDoubleArray<'l>,
) {
    entry(&mut env, |env| {
        let c = get::<Mutex<GhostCursor>>(handle, CURSOR)?;
        let s = c.lock().sample(t);
        let state = match s.state {
            GhostState::NotStarted => 0.0,
            GhostState::Running => 1.0,
            GhostState::Finished => 2.0,
        };
        let values: [f64; SAMPLE_LEN] = [
            s.t,
            s.x,
            s.y,
            s.z,
            s.yaw,
            s.pitch,
            f64::from(s.flags),
            state,
        ];
        fill(env, &out, &values)
    })
}

fn fill(env: &mut JNIEnv<'_>, out: &JDoubleArray<'_>, values: &[f64]) -> Res<()> {
    if out.is_null() {
        return Err(bad_arg("the output array is null"));
    }
    let n = env.get_array_length(out)? as usize;
    if n < values.len() {
        return Err(bad_arg(format!(
            "the output array has {n} elements, needs {}",
            values.len()
        )));
    }
    env.set_double_array_region(out, 0, values)?;
    Ok(())
}

extern "system" fn cursor_set_time_shift<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    ticks: jdouble,
) {
    entry(&mut env, |_| {
        get::<Mutex<GhostCursor>>(handle, CURSOR)?
            .lock()
            .set_time_shift(ticks);
        Ok(())
    })
}

extern "system" fn delta_new<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, ghost: jlong) -> jlong {
    entry(&mut env, |_| {
        let g = get::<GhostTrack>(ghost, GHOST)?;
        insert(DELTA, Arc::new(Mutex::new(LiveDelta::new(g))))
    })
}

/// Fills `out` (at least [`READING_LEN`] doubles) with the reading; returns the shown seconds.
#[allow(clippy::too_many_arguments)]
extern "system" fn delta_update<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    live_ticks: jdouble,
    x: jdouble,
    y: jdouble,
    z: jdouble,
    out: JDoubleArray<'l>,
) -> jdouble {
    entry(&mut env, |env| {
        let d = get::<Mutex<LiveDelta>>(handle, DELTA)?;
        let r = d.lock().try_update(live_ticks, [x, y, z])?;
        let values: [f64; READING_LEN] = [
            r.raw_ticks,
            r.shown_ticks,
            if r.ahead { 1.0 } else { 0.0 },
            r.ghost_ticks,
            r.distance,
            r.tick_rate,
        ];
        fill(env, &out, &values)?;
        Ok(r.seconds())
    })
}

extern "system" fn delta_set_time_shift<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    ticks: jdouble,
) {
    entry(&mut env, |_| {
        get::<Mutex<LiveDelta>>(handle, DELTA)?
            .lock()
            .set_time_shift(ticks);
        Ok(())
    })
}

extern "system" fn delta_reset<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, handle: jlong) {
    entry(&mut env, |_| {
        get::<Mutex<LiveDelta>>(handle, DELTA)?.lock().reset();
        Ok(())
    })
}

pub(super) fn methods() -> Vec<jni::NativeMethod> {
    vec![
        method(
            "ghostLoad",
            "(Ljava/lang/String;IIIII)J",
            ghost_load as *mut c_void,
        ),
        method(
            "ghostLoadAsync",
            "(Ljava/lang/String;IIIII)J",
            ghost_load_async as *mut c_void,
        ),
        method(
            "ghostLoadingIsReady",
            "(J)Z",
            loading_is_ready as *mut c_void,
        ),
        method("ghostLoadingTake", "(J)J", loading_take as *mut c_void),
        method("ghostInfo", "(J)[J", ghost_info as *mut c_void),
        method("ghostTickRate", "(J)D", ghost_tick_rate as *mut c_void),
        method("ghostSplits", "(J)[J", ghost_splits as *mut c_void),
        method("ghostCursorNew", "(J)J", cursor_new as *mut c_void),
        method("ghostCursorSample", "(JD[D)V", cursor_sample as *mut c_void),
        method(
            "ghostCursorSetTimeShift",
            "(JD)V",
            cursor_set_time_shift as *mut c_void,
        ),
        method("liveDeltaNew", "(J)J", delta_new as *mut c_void),
        method("liveDeltaUpdate", "(JDDDD[D)D", delta_update as *mut c_void),
        method(
            "liveDeltaSetTimeShift",
            "(JD)V",
            delta_set_time_shift as *mut c_void,
        ),
        method("liveDeltaReset", "(J)V", delta_reset as *mut c_void),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_decode() {
        assert_eq!(range(0, 0, 0, 0).unwrap(), GhostRange::all());
        assert_eq!(range(2, 1, 2, 3).unwrap(), GhostRange::checkpoints(1, 3));
        assert_eq!(range(1, 10, 1, 20).unwrap(), GhostRange::ticks(10, 20));
        assert!(range(3, 0, 0, 0).is_err());
        assert!(range(1, -1, 0, 0).is_err());
        assert!(range(0, 0, 9, 0).is_err());
    }
}
