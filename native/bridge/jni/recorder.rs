//! `Engine`, `Recorder` and `FinishHandle` natives: the live write path ([`tickreel::record::Engine`]).
//! Shadow buffers, which start a recorder of their own, are in [`super::shadow`].
//!
//! Thin: option arrays are decoded, calls are forwarded, results are copied out. The one thing
//! added here is the engine's close: it takes a write lock so that it waits for calls that use the
//! engine and runs [`Engine::shutdown`] once, which joins every background thread before it
//! returns (the JVM may unload this library after the class loader is collected, so no tickreel
//! thread may outlive the Java `Engine.close()`).

use std::ffi::c_void;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use jni::JNIEnv;
use jni::objects::{JByteArray, JByteBuffer, JClass, JLongArray, JString};
use jni::sys::{JNI_FALSE, JNI_TRUE, jboolean, jint, jlong, jobject};
use parking_lot::RwLock;

use super::handles::HandleError;
use super::writer::{OPTIONS_LEN, entity_info, options_from};
use super::{
    Res, bad_arg, bytes_arg, entry, get, insert, long_array, longs_arg, method, string_arg,
    u32_arg, with_direct_bytes,
};
use tickreel::error::{Error, Result};
use tickreel::format::metadata::EventType;
use tickreel::record::{
    Backpressure, CompactOptions, Engine, EngineOptions, FinishHandle, FlushPolicy, Recorder,
    RecorderOptions, Submitted,
};

pub(super) const ENGINE: &str = "Engine";
pub(super) const RECORDER: &str = "Recorder";
pub(super) const FINISH: &str = "FinishHandle";

/// An engine behind a handle; `closed` under the write lock once shut down.
pub(super) struct JEngine {
    engine: Engine,
    closed: RwLock<bool>,
}

impl JEngine {
    /// Runs `f` unless the engine is closed; a close waits for it.
    pub(super) fn with<R>(&self, f: impl FnOnce(&Engine) -> Res<R>) -> Res<R> {
        let closed = self.closed.read();
        if *closed {
            return Err(Error::InvalidState("the Engine is closed".into()).into());
        }
        f(&self.engine)
    }
}

/// Number of `long`s in the engine options array (`EngineOptions#toNative`): writer threads,
/// queue capacity, in-flight byte budget, pooled buffers, shadow byte budget.
const ENGINE_OPTIONS_LEN: usize = 5;

/// Number of `long`s in the recorder options array (`RecorderOptions#toNative`): the 12 of
/// [`OPTIONS_LEN`], then flush bytes, flush interval (ms), flush on leave (0/1), backpressure
/// (0 block, 1 drop), block deadline (ns), compaction zstd level, compaction chunk ticks,
/// compaction verify (0/1), max batch bytes, overwrite (0/1).
pub(super) const RECORDER_OPTIONS_LEN: usize = OPTIONS_LEN + 10;

/// A Java `long` as the core's type: a translation error for a negative or too large value (the
/// range the core accepts is the core's `validate()`'s to check).
pub(super) fn ranged<T: TryFrom<i64>>(v: i64, what: &str) -> Res<T> {
    T::try_from(v).map_err(|_| {
        if v < 0 {
            bad_arg(format!("{what} must not be negative (got {v})"))
        } else {
            bad_arg(format!("{what} out of range: {v}"))
        }
    })
}

pub(super) fn engine_options(a: &[i64]) -> Res<EngineOptions> {
    Ok(EngineOptions {
        writer_threads: ranged(a[0], "writer threads")?,
        queue_capacity: ranged(a[1], "queue capacity")?,
        max_inflight_bytes: ranged(a[2], "in-flight byte budget")?,
        pool_buffers: ranged(a[3], "pooled buffers")?,
        shadow_budget_bytes: ranged(a[4], "shadow byte budget")?,
    })
}

pub(super) fn recorder_options(a: &[i64]) -> Res<RecorderOptions> {
    let reel = options_from(&a[..OPTIONS_LEN])?;
    let b = &a[OPTIONS_LEN..];
    let backpressure = match b[3] {
        0 => Backpressure::Block {
            deadline: Duration::from_nanos(ranged(b[4], "block deadline")?),
        },
        1 => Backpressure::Drop,
        other => return Err(bad_arg(format!("unknown backpressure policy {other}"))),
    };
    Ok(RecorderOptions {
        info: reel.info,
        chunk: reel.policy,
        flush: FlushPolicy {
            max_pending_bytes: ranged(b[0], "flush bytes")?,
            interval: Duration::from_millis(ranged(b[1], "flush interval")?),
            on_player_leave: b[2] != 0,
        },
        backpressure,
        compaction: CompactOptions {
            zstd_level: ranged(b[5], "compaction level")?,
            chunk_ticks: ranged(b[6], "compaction chunk ticks")?,
            verify: b[7] != 0,
            dictionary_id: None,
            // The recording's `overwrite` (below) decides.
            overwrite: false,
        },
        snapshot_provider: None,
        max_batch_bytes: ranged(b[8], "max batch bytes")?,
        overwrite: b[9] != 0,
        observers: Vec::new(),
    })
}

extern "system" fn engine_new<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    options: JLongArray<'l>,
) -> jlong {
    entry(&mut env, |env| {
        let options = engine_options(&longs_arg(
            env,
            &options,
            ENGINE_OPTIONS_LEN,
            "engine options",
        )?)?;
        let engine = Engine::new(options)?;
        insert(
            ENGINE,
            Arc::new(JEngine {
                engine,
                closed: RwLock::new(false),
            }),
        )
    })
}

/// `[active recordings, queue depth, in-flight bytes, dropped ticks, bytes written, last flush
/// latency µs, compactions pending, done, failed, shadow bytes, shadow budget dropped blocks]`.
extern "system" fn engine_stats<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jobject {
    entry(&mut env, |env| {
        let e = get::<JEngine>(handle, ENGINE)?;
        let s = e.with(|e| Ok(e.stats()))?;
        long_array(
            env,
            &[
                s.active_recordings as i64,
                s.queue_depth as i64,
                s.inflight_bytes as i64,
                s.dropped_ticks as i64,
                s.bytes_written as i64,
                s.last_flush_latency_us as i64,
                s.compactions_pending as i64,
                s.compactions_done as i64,
                s.compactions_failed as i64,
                s.shadow_bytes as i64,
                s.shadow_budget_dropped_blocks as i64,
            ],
        )
    })
}

/// Shuts the engine down (open recordings are flushed and closed, pending compactions complete)
/// and joins its threads, then releases the handle. Idempotent; waits for calls using the engine.
extern "system" fn engine_close<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, handle: jlong) {
    entry(&mut env, |_| {
        let e = match super::handles::get::<JEngine>(handle, ENGINE) {
            Ok(e) => e,
            Err(HandleError::Closed(_)) => return Ok(()), // closed before: nothing to do
            Err(e) => return Err(e.into()),
        };
        let mut closed = e.closed.write();
        if !*closed {
            e.engine.shutdown();
            *closed = true;
        }
        drop(closed);
        drop(super::handles::remove(handle));
        Ok(())
    })
}

/// Test hook (`Engine#setWritersStalled`): holds the writer threads while `stalled`. Bound only
/// in a library built with the feature `test-hooks` (the Java tests and benchmarks build one).
#[cfg(feature = "test-hooks")]
extern "system" fn engine_set_writers_stalled<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    stalled: jboolean,
) {
    entry(&mut env, |_| {
        let e = get::<JEngine>(handle, ENGINE)?;
        e.with(|e| {
            e.set_writers_stalled(stalled != 0);
            Ok(())
        })
    })
}

extern "system" fn recorder_start<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    engine: jlong,
    path: JString<'l>,
    options: JLongArray<'l>,
) -> jlong {
    entry(&mut env, |env| {
        let path = string_arg(env, &path, "path")?;
        let options = recorder_options(&longs_arg(
            env,
            &options,
            RECORDER_OPTIONS_LEN,
            "recorder options",
        )?)?;
        let e = get::<JEngine>(engine, ENGINE)?;
        let rec = e.with(|e| Ok(e.start_recording(PathBuf::from(path), options)?))?;
        insert(RECORDER, Arc::new(rec))
    })
}

/// The hot path: one call per tick. `true` = queued, `false` = dropped by the `Drop` policy.
extern "system" fn recorder_submit<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    tick: jint,
    buf: JByteBuffer<'l>,
    offset: jint,
    len: jint,
) -> jboolean {
    entry(&mut env, |env| {
        let tick = u32_arg(tick, "tick")?;
        let rec = get::<Recorder>(handle, RECORDER)?;
        with_direct_bytes(env, &buf, offset, len, |bytes| {
            Ok(match rec.submit_tick(tick, bytes)? {
                Submitted::Queued => JNI_TRUE,
                Submitted::Dropped => JNI_FALSE,
            })
        })
    })
}

fn with_recorder<R>(handle: jlong, f: impl FnOnce(&Recorder) -> Result<R>) -> Res<R> {
    let rec = get::<Recorder>(handle, RECORDER)?;
    Ok(f(&rec)?)
}

extern "system" fn recorder_player_left<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    entity: jint,
) {
    entry(&mut env, |_| {
        with_recorder(handle, |r| r.player_left(entity as u32))
    })
}

extern "system" fn recorder_snapshot<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    bytes: JByteArray<'l>,
) {
    entry(&mut env, |env| {
        let bytes = bytes_arg(env, &bytes, "snapshot")?;
        with_recorder(handle, |r| r.offer_snapshot(bytes))
    })
}

#[allow(clippy::too_many_arguments)]
extern "system" fn recorder_register_entity<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    id: jint,
    kind: jint,
    has_uuid: jboolean,
    msb: jlong,
    lsb: jlong,
    name: JString<'l>,
) {
    entry(&mut env, |env| {
        let info = entity_info(env, id, kind, has_uuid, msb, lsb, &name)?;
        with_recorder(handle, |r| r.register_entity(info))
    })
}

extern "system" fn recorder_register_event_type<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    id: jint,
    name: JString<'l>,
    version: jint,
) {
    entry(&mut env, |env| {
        let t = EventType {
            id: id as u32,
            name: string_arg(env, &name, "event type name")?,
            version: version as u32,
        };
        with_recorder(handle, |r| r.register_event_type(t))
    })
}

extern "system" fn recorder_put_metadata<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    nbt: JByteArray<'l>,
) {
    entry(&mut env, |env| {
        let entries = crate::api::nbt_entries(&bytes_arg(env, &nbt, "metadata")?)?;
        with_recorder(handle, |r| {
            entries
                .into_iter()
                .try_for_each(|(k, v)| r.set_user_metadata(k, v))
        })
    })
}

extern "system" fn recorder_flush<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, handle: jlong) {
    entry(&mut env, |_| with_recorder(handle, Recorder::flush))
}

/// `[submitted, dropped, rejected, bytes written, flushes, last flush latency µs, flushed tick or
/// -1, queue depth]`.
extern "system" fn recorder_stats<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jobject {
    entry(&mut env, |env| {
        let s = with_recorder(handle, |r| Ok(r.stats()))?;
        long_array(
            env,
            &[
                s.submitted_ticks as i64,
                s.dropped_ticks as i64,
                s.rejected_ticks as i64,
                s.bytes_written as i64,
                s.flushes as i64,
                s.last_flush_latency_us as i64,
                s.flushed_tick.map_or(-1, i64::from),
                s.queue_depth as i64,
            ],
        )
    })
}

/// The resumed recording's last tick, -1 if none; waits up to `timeout_ms`.
extern "system" fn recorder_wait_resumed<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    timeout_ms: jlong,
) -> jlong {
    entry(&mut env, |_| {
        let ms = u64::try_from(timeout_ms)
            .map_err(|_| bad_arg(format!("the timeout must be >= 0 (got {timeout_ms} ms)")))?;
        let t = with_recorder(handle, |r| r.wait_resumed(Duration::from_millis(ms)))?;
        Ok(t.map_or(-1, i64::from))
    })
}

extern "system" fn recorder_status<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, handle: jlong) {
    entry(&mut env, |_| with_recorder(handle, Recorder::status))
}

extern "system" fn recorder_finish<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlong {
    entry(&mut env, |_| {
        let h = with_recorder(handle, Recorder::finish)?;
        insert(FINISH, Arc::new(h))
    })
}

extern "system" fn recorder_abort<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, handle: jlong) {
    entry(&mut env, |_| with_recorder(handle, Recorder::abort))
}

/// The final path as a Java string, or the stored error.
fn finish_result(env: &mut JNIEnv<'_>, r: Option<Result<PathBuf>>) -> Res<jobject> {
    match r {
        None => Ok(std::ptr::null_mut()),
        Some(Ok(p)) => Ok(env.new_string(p.to_string_lossy())?.into_raw()),
        Some(Err(e)) => Err(e.into()),
    }
}

extern "system" fn finish_poll<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jobject {
    entry(&mut env, |env| {
        let h = get::<FinishHandle>(handle, FINISH)?;
        finish_result(env, h.poll())
    })
}

extern "system" fn finish_is_done<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jboolean {
    entry(&mut env, |_| {
        let h = get::<FinishHandle>(handle, FINISH)?;
        Ok(if h.is_done() { JNI_TRUE } else { JNI_FALSE })
    })
}

/// Waits up to `timeout_nanos` (negative: without limit); null if still pending.
extern "system" fn finish_await<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    timeout_nanos: jlong,
) -> jobject {
    entry(&mut env, |env| {
        let h = get::<FinishHandle>(handle, FINISH)?;
        let r = match u64::try_from(timeout_nanos) {
            Ok(n) => h.wait_timeout(Duration::from_nanos(n)),
            Err(_) => Some(h.wait()),
        };
        finish_result(env, r)
    })
}

pub(super) fn methods() -> Vec<jni::NativeMethod> {
    #[allow(unused_mut)] // pushed to with the feature `test-hooks`
    let mut methods = vec![
        method("engineNew", "([J)J", engine_new as *mut c_void),
        method("engineStats", "(J)[J", engine_stats as *mut c_void),
        method("engineClose", "(J)V", engine_close as *mut c_void),
        method(
            "recorderStart",
            "(JLjava/lang/String;[J)J",
            recorder_start as *mut c_void,
        ),
        method(
            "recorderSubmit",
            "(JILjava/nio/ByteBuffer;II)Z",
            recorder_submit as *mut c_void,
        ),
        method(
            "recorderPlayerLeft",
            "(JI)V",
            recorder_player_left as *mut c_void,
        ),
        method(
            "recorderSnapshot",
            "(J[B)V",
            recorder_snapshot as *mut c_void,
        ),
        method(
            "recorderRegisterEntity",
            "(JIIZJJLjava/lang/String;)V",
            recorder_register_entity as *mut c_void,
        ),
        method(
            "recorderRegisterEventType",
            "(JILjava/lang/String;I)V",
            recorder_register_event_type as *mut c_void,
        ),
        method(
            "recorderPutMetadata",
            "(J[B)V",
            recorder_put_metadata as *mut c_void,
        ),
        method("recorderFlush", "(J)V", recorder_flush as *mut c_void),
        method("recorderStats", "(J)[J", recorder_stats as *mut c_void),
        method("recorderStatus", "(J)V", recorder_status as *mut c_void),
        method(
            "recorderWaitResumed",
            "(JJ)J",
            recorder_wait_resumed as *mut c_void,
        ),
        method("recorderFinish", "(J)J", recorder_finish as *mut c_void),
        method("recorderAbort", "(J)V", recorder_abort as *mut c_void),
        method(
            "finishPoll",
            "(J)Ljava/lang/String;",
            finish_poll as *mut c_void,
        ),
        method("finishIsDone", "(J)Z", finish_is_done as *mut c_void),
        method(
            "finishAwait",
            "(JJ)Ljava/lang/String;",
            finish_await as *mut c_void,
        ),
    ];
    #[cfg(feature = "test-hooks")]
    methods.push(method(
        "engineSetWritersStalled",
        "(JZ)V",
        engine_set_writers_stalled as *mut c_void,
    ));
    methods
}
