//! Object storage's results that cross into Java in a shape of their own (Cargo feature
//! `object`): a live shipper's counters. The rest (options, uploads, URLs) crosses as handles,
//! strings and `crate::api::Polled`, see `super::convert`.

use jni::JNIEnv;
use jni::sys::jobject;

use super::convert::{JniResult, LONG_ARRAY_JAVA, LONG_ARRAY_SIG};
use super::{Res, long_array};
use tickreel_object::live::ShipStats;

/// `long[] {shipments, batches, requests, segment bytes, shipped bytes, errors, last tick or -1}`
/// (Java's `ShipStats.fromNative`).
impl JniResult for ShipStats {
    type Jni = jobject;
    const SIG: &'static str = LONG_ARRAY_SIG;
    const JAVA: &'static str = LONG_ARRAY_JAVA;
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        let s = self;
        long_array(
            env,
            &[
                s.shipments as i64,
                s.batches as i64,
                s.requests as i64,
                s.segment_bytes as i64,
                s.shipped_bytes as i64,
                s.errors as i64,
                s.last_tick.map_or(-1, i64::from),
            ],
        )
    }
}
