//! `Replay` natives: a finished recording opened through [`Reader`].

use std::ffi::c_void;
use std::sync::Arc;

use jni::JNIEnv;
use jni::objects::{JClass, JString};
use jni::sys::{jint, jlong, jobject};

use super::{bad_arg, byte_array, entry, get, insert, long_array, method, string_arg, u32_arg};
use tickreel::format::event::encode_batch;
use tickreel::play::Reader;

const WHAT: &str = "Replay";

/// Most bytes one `replayTicks` call returns; the Java side asks for the rest in further calls.
const MAX_TICKS_BYTES: usize = 4 << 20;

fn uuid_longs(bytes: [u8; 16]) -> [i64; 2] {
    let (a, b) = uuid::Uuid::from_bytes(bytes).as_u64_pair();
    [a as i64, b as i64]
}

extern "system" fn open<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, path: JString<'l>) -> jlong {
    entry(&mut env, |env| {
        let path = string_arg(env, &path, "path")?;
        let reader = Reader::open_path(path)?;
        insert(WHAT, Arc::new(reader))
    })
}

/// `[first tick or -1, last tick or -1, tick count, chunk count, tick rate (millihertz), timestamp
/// ms, world id msb, lsb, world version msb, lsb, game data version, dictionary id, format version,
/// data version, file length]`.
extern "system" fn info<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, handle: jlong) -> jobject {
    entry(&mut env, |env| {
        let r = get::<Reader>(handle, WHAT)?;
        let h = r.header();
        let world = uuid_longs(h.world_id);
        let version = uuid_longs(h.world_version);
        let values = [
            r.first_tick().map_or(-1, i64::from),
            r.last_tick().map_or(-1, i64::from),
            i64::from(h.tick_count),
            i64::from(h.chunk_count),
            i64::from(h.tick_rate_millihz),
            h.timestamp_ms,
            world[0],
            world[1],
            version[0],
            version[1],
            i64::from(h.game_data_version),
            i64::from(h.dictionary_id),
            i64::from(h.version),
            i64::from(h.data_version),
            h.data_end as i64,
        ];
        long_array(env, &values)
    })
}

/// The whole metadata section as an NBT root compound (user keys plus the library's `"tickreel"`).
extern "system" fn metadata<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, handle: jlong) -> jobject {
    entry(&mut env, |env| {
        let r = get::<Reader>(handle, WHAT)?;
        let bytes = r.metadata().encode()?;
        byte_array(env, &bytes)
    })
}

/// Number of `long`s per entity in a seek result.
pub(crate) const ENTITY_LONGS: usize = 8;

/// `[tick, chunk, snapshot chunk or -1, entity count, then per entity: id, kind, flags, x, y, z,
/// yaw, pitch]` (ids, kinds and flags as unsigned 32-bit values).
extern "system" fn seek<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    tick: jint,
) -> jobject {
    entry(&mut env, |env| {
        let tick = u32_arg(tick, "tick")?;
        let r = get::<Reader>(handle, WHAT)?;
        let s = r.seek(tick)?;
        let mut out = Vec::with_capacity(4 + ENTITY_LONGS * s.entities.len());
        out.push(i64::from(s.tick));
        out.push(s.chunk as i64);
        out.push(s.snapshot_chunk.map_or(-1, |c| c as i64));
        out.push(s.entities.len() as i64);
        for e in s.entities.iter() {
            out.push(i64::from(e.id));
            out.push(i64::from(e.kind));
            out.push(i64::from(e.flags));
            out.extend_from_slice(&e.pose.to_array());
        }
        long_array(env, &out)
    })
}

/// `[chunks, ticks, pose samples, events]`.
extern "system" fn verify<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, handle: jlong) -> jobject {
    entry(&mut env, |env| {
        let r = get::<Reader>(handle, WHAT)?;
        let v = r.verify()?;
        long_array(
            env,
            &[
                v.chunks as i64,
                v.ticks as i64,
                v.pose_samples as i64,
                v.events as i64,
            ],
        )
    })
}

/// Decoded ticks in `from..=to`, each as `u32 BE tick, u32 BE length, batch` (the tick batch
/// encoding). Stops after the tick that crosses about 4 MiB; the caller continues from the tick
/// after the last one returned. Empty when no tick is in the range.
extern "system" fn ticks<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    from: jint,
    to: jint,
) -> jobject {
    entry(&mut env, |env| {
        let from = u32_arg(from, "from tick")?;
        let to = u32_arg(to, "to tick")?;
        if to < from {
            return Err(bad_arg(format!("tick range {from}..={to} is empty")));
        }
        let r = get::<Reader>(handle, WHAT)?;
        let mut out = Vec::new();
        let mut batch = Vec::new();
        for t in r.ticks(from, to) {
            let t = t?;
            batch.clear();
            encode_batch(&t.events, &mut batch)?;
            out.extend_from_slice(&t.tick.to_be_bytes());
            out.extend_from_slice(&(batch.len() as u32).to_be_bytes());
            out.extend_from_slice(&batch);
            if out.len() >= MAX_TICKS_BYTES {
                break;
            }
        }
        byte_array(env, &out)
    })
}

pub(super) fn methods() -> Vec<jni::NativeMethod> {
    vec![
        method("replayOpen", "(Ljava/lang/String;)J", open as *mut c_void),
        method("replayInfo", "(J)[J", info as *mut c_void),
        method("replayMetadata", "(J)[B", metadata as *mut c_void),
        method("replaySeek", "(JI)[J", seek as *mut c_void),
        method("replayVerify", "(J)[J", verify as *mut c_void),
        method("replayTicks", "(JII)[B", ticks as *mut c_void),
    ]
}
