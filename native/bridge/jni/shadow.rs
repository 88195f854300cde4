//! `ShadowBuffer` natives: shadow play ([`tickreel::shadow`]). Thin: option arrays are decoded,
//! calls are forwarded, results are copied out. A shadow buffer starts with its own recorder (a
//! handle like any `Recorder`'s); its reports complete through the same `FinishHandle` as a
//! recording's finish.

use std::ffi::c_void;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use jni::JNIEnv;
use jni::objects::{JClass, JLongArray, JObjectArray, JString};
use jni::sys::{JNI_FALSE, JNI_TRUE, jboolean, jdouble, jint, jlong, jobject};

use super::recorder::{RECORDER_OPTIONS_LEN, ranged, recorder_options};
use super::{
    Res, bad_arg, entry, get, handles, insert, long_array, longs_arg, method, opt_string_arg,
    string_arg,
};
use crate::api::engine::{Engine, Finish, Recorder};
use crate::ffi::handle::HandleType;
use tickreel::shadow::{ReportOptions, ShadowBuffer, ShadowOptions};

const SHADOW: &str = "ShadowBuffer";

/// Number of `long`s in the shadow options array (`ShadowOptions#toNative`): window (ns), grace
/// period (ns), max bytes (-1: none), block ticks.
const SHADOW_OPTIONS_LEN: usize = 4;

/// Number of `long`s in the report options array (`ReportOptions#toNative`): before (ns, -1:
/// all that is retained), after (ns), radius applies (0/1; the radius is a `double` argument),
/// overwrite (0/1), zstd level.
const REPORT_OPTIONS_LEN: usize = 5;

fn duration(v: i64, what: &str) -> Res<Duration> {
    u64::try_from(v)
        .map(Duration::from_nanos)
        .map_err(|_| bad_arg(format!("{what} must not be negative (got {v} ns)")))
}

pub(super) fn shadow_options(a: &[i64]) -> Res<ShadowOptions> {
    Ok(ShadowOptions {
        window: duration(a[0], "the shadow window")?,
        grace: duration(a[1], "the grace period")?,
        max_bytes: match a[2] {
            -1 => None,
            v => Some(ranged(v, "max bytes")?),
        },
        block_ticks: ranged(a[3], "block ticks")?,
    })
}

pub(super) fn report_options(
    a: &[i64],
    radius: f64,
    metadata: Vec<(String, fastnbt::Value)>,
) -> Res<ReportOptions> {
    Ok(ReportOptions {
        before: match a[0] {
            -1 => None,
            v => Some(duration(v, "before")?),
        },
        after: duration(a[1], "after")?,
        radius: (a[2] != 0).then_some(radius),
        metadata,
        overwrite: a[3] != 0,
        zstd_level: ranged(a[4], "zstd level")?,
    })
}

/// Two `String[]` of the same length, no element null, as string metadata pairs.
fn string_pairs(
    env: &mut JNIEnv<'_>,
    keys: &JObjectArray<'_>,
    values: &JObjectArray<'_>,
) -> Res<Vec<(String, fastnbt::Value)>> {
    if keys.is_null() || values.is_null() {
        return Err(bad_arg("the metadata keys or values are null"));
    }
    let n = env.get_array_length(keys)?;
    if env.get_array_length(values)? != n {
        return Err(bad_arg("the metadata keys and values differ in number"));
    }
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n {
        let k = JString::from(env.get_object_array_element(keys, i)?);
        let key = string_arg(env, &k, "a metadata key")?;
        env.delete_local_ref(k)?;
        let v = JString::from(env.get_object_array_element(values, i)?);
        let value = string_arg(env, &v, "a metadata value")?;
        env.delete_local_ref(v)?;
        out.push((key, fastnbt::Value::String(value)));
    }
    Ok(out)
}

/// Starts a shadowed stream (a recording of `path`, or with `path` null a stream written nowhere
/// else); `[recorder handle, shadow handle]`.
extern "system" fn shadow_start<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    engine: jlong,
    path: JString<'l>,
    recorder: JLongArray<'l>,
    shadow: JLongArray<'l>,
) -> jobject {
    entry(&mut env, |env| {
        let path = opt_string_arg(env, &path)?.map(PathBuf::from);
        let recorder = recorder_options(&longs_arg(
            env,
            &recorder,
            RECORDER_OPTIONS_LEN,
            "recorder options",
        )?)?;
        let options = shadow_options(&longs_arg(
            env,
            &shadow,
            SHADOW_OPTIONS_LEN,
            "shadow options",
        )?)?;
        let e = get::<Engine>(engine, Engine::NAME)?;
        let (rec, shadow) =
            e.with(|e| ShadowBuffer::start(e, path.as_deref(), recorder, options))?;
        let r = insert(Recorder::NAME, Arc::new(Recorder(rec)))?;
        let s = insert(SHADOW, Arc::new(shadow)).inspect_err(|_| drop(handles::remove(r)))?;
        long_array(env, &[r, s]).inspect_err(|_| {
            // Java never sees these handles: close them (the stream ends).
            drop(handles::remove(r));
            drop(handles::remove(s));
        })
    })
}

/// Reports `player` into `path`; the handle of the report's `FinishHandle`.
#[allow(clippy::too_many_arguments)]
extern "system" fn shadow_report<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    player: jint,
    path: JString<'l>,
    options: JLongArray<'l>,
    radius: jdouble,
    keys: JObjectArray<'l>,
    values: JObjectArray<'l>,
) -> jlong {
    entry(&mut env, |env| {
        let path = string_arg(env, &path, "path")?;
        let a = longs_arg(env, &options, REPORT_OPTIONS_LEN, "report options")?;
        let metadata = string_pairs(env, &keys, &values)?;
        let options = report_options(&a, radius, metadata)?;
        let shadow = get::<ShadowBuffer>(handle, SHADOW)?;
        let h = shadow.report(player as u32, PathBuf::from(path), options)?;
        insert(Finish::NAME, Arc::new(Finish(h)))
    })
}

/// `[bytes, blocks, first tick or -1, last tick or -1, alive entities, departed players, expired
/// blocks, budget-dropped blocks, budget-dropped ticks, reports capturing, reports started]`.
extern "system" fn shadow_stats<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jobject {
    entry(&mut env, |env| {
        let s = get::<ShadowBuffer>(handle, SHADOW)?.stats();
        long_array(
            env,
            &[
                s.bytes as i64,
                s.blocks as i64,
                s.first_tick.map_or(-1, i64::from),
                s.last_tick.map_or(-1, i64::from),
                s.alive_entities as i64,
                s.departed_players as i64,
                s.expired_blocks as i64,
                s.budget_dropped_blocks as i64,
                s.budget_dropped_ticks as i64,
                s.reports_capturing as i64,
                s.reports_started as i64,
            ],
        )
    })
}

extern "system" fn shadow_is_attached<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jboolean {
    entry(&mut env, |_| {
        let attached = get::<ShadowBuffer>(handle, SHADOW)?.is_attached();
        Ok(if attached { JNI_TRUE } else { JNI_FALSE })
    })
}

pub(super) fn methods() -> Vec<jni::NativeMethod> {
    vec![
        method(
            "shadowStart",
            "(JLjava/lang/String;[J[J)[J",
            shadow_start as *mut c_void,
        ),
        method(
            "shadowReport",
            "(JILjava/lang/String;[JD[Ljava/lang/String;[Ljava/lang/String;)J",
            shadow_report as *mut c_void,
        ),
        method("shadowStats", "(J)[J", shadow_stats as *mut c_void),
        method(
            "shadowIsAttached",
            "(J)Z",
            shadow_is_attached as *mut c_void,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_decode() {
        let o = shadow_options(&[10_000_000_000, 0, -1, 20]).unwrap();
        assert_eq!(o.window, Duration::from_secs(10));
        assert_eq!((o.max_bytes, o.block_ticks), (None, 20));
        assert_eq!(
            shadow_options(&[1, 1, 4096, 1]).unwrap().max_bytes,
            Some(4096)
        );
        assert!(shadow_options(&[-5, 0, -1, 20]).is_err());
        assert!(shadow_options(&[1, 0, -2, 20]).is_err());
        assert!(shadow_options(&[1, 0, -1, -20]).is_err());
        let r = report_options(&[-1, 0, 1, 0, 3], 48.0, Vec::new()).unwrap();
        assert_eq!(
            r,
            ReportOptions {
                after: Duration::ZERO,
                ..ReportOptions::default()
            }
        );
        let r = report_options(&[5, 7, 0, 1, 3], f64::NAN, Vec::new()).unwrap();
        assert_eq!(r.before, Some(Duration::from_nanos(5)));
        assert_eq!((r.radius, r.overwrite, r.zstd_level), (None, true, 3));
        assert!(report_options(&[-2, 0, 1, 0, 9], 48.0, Vec::new()).is_err());
        assert!(report_options(&[-1, -1, 1, 0, 9], 48.0, Vec::new()).is_err());
    }
}
