//! How the reader operations' results cross into Java's `Reader` (the operations are
//! `crate::api::reader`; their JNI entry points are generated).

use jni::JNIEnv;
use jni::sys::jobject;

use super::convert::{JniResult, LONG_ARRAY_JAVA, LONG_ARRAY_SIG};
use super::{Res, long_array};
use crate::api::reader::ReaderInfo;
use tickreel::format::EntityState;
use tickreel::play::SeekState;

/// Number of `long`s per entity in a seek result (and in a playhead update).
pub(crate) const ENTITY_LONGS: usize = 8;

/// One entity as Java reads it: id, kind, flags (unsigned 32-bit values), then x, y, z, yaw,
/// pitch as stored.
pub(crate) fn entity_longs(e: &EntityState) -> [i64; ENTITY_LONGS] {
    let p = e.pose.to_array();
    [
        i64::from(e.id),
        i64::from(e.kind),
        i64::from(e.flags),
        p[0],
        p[1],
        p[2],
        p[3],
        p[4],
    ]
}

fn uuid_longs(bytes: [u8; 16]) -> [i64; 2] {
    let (a, b) = uuid::Uuid::from_bytes(bytes).as_u64_pair();
    [a as i64, b as i64]
}

/// `long[] {first tick or -1, last tick or -1, tick count, chunk count, tick rate (millihertz),
/// timestamp ms, world id msb, lsb, world version msb, lsb, game data version, dictionary id,
/// format version, data version, file length, ticks written, events, pose samples, dropped ticks}`
/// (`Header.fromNative`).
impl JniResult for ReaderInfo<'_> {
    type Jni = jobject;
    const SIG: &'static str = LONG_ARRAY_SIG;
    const JAVA: &'static str = LONG_ARRAY_JAVA;
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        let r = self.0;
        let h = r.header();
        let world = uuid_longs(h.world_id);
        let version = uuid_longs(h.world_version);
        let stats = &r.metadata().library.stats;
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
            stats.ticks_written as i64,
            stats.events as i64,
            stats.pose_samples as i64,
            stats.dropped_ticks as i64,
        ];
        long_array(env, &values)
    }
}

/// `long[] {tick, chunk, snapshot chunk or -1, entity count, then per entity: id, kind, flags,
/// x, y, z, yaw, pitch}` (ids, kinds and flags as unsigned 32-bit values, the pose as stored).
impl JniResult for SeekState {
    type Jni = jobject;
    const SIG: &'static str = LONG_ARRAY_SIG;
    const JAVA: &'static str = LONG_ARRAY_JAVA;
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        let s = self;
        let mut out = Vec::with_capacity(4 + ENTITY_LONGS * s.entities.len());
        out.push(i64::from(s.tick));
        out.push(s.chunk as i64);
        out.push(s.snapshot_chunk.map_or(-1, |c| c as i64));
        out.push(s.entities.len() as i64);
        for e in s.entities.iter() {
            out.extend_from_slice(&entity_longs(e));
        }
        long_array(env, &out)
    }
}

/// A palette name: a `String`, or `null` for an id the recording does not name.
impl JniResult for crate::api::reader::PaletteName {
    type Jni = jobject;
    const SIG: &'static str = "Ljava/lang/String;";
    const JAVA: &'static str = "String";
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        match self.0 {
            Some(n) => Ok(env.new_string(n)?.into_raw()),
            None => Ok(std::ptr::null_mut()),
        }
    }
}
