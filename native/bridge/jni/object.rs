//! Object storage's results that cross into Java in a shape of their own (Cargo feature
//! `object`): a live shipper's counters and an uploaded object. The rest (options, URLs) crosses
//! as handles and strings, see `super::convert`.

use jni::JNIEnv;
use jni::sys::jobject;

use super::convert::{JniResult, LONG_ARRAY_JAVA, LONG_ARRAY_SIG};
use super::{Res, byte_array, long_array};
use crate::api::object::UploadedObject;
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

/// `byte[]`: the object's size in bytes (`u64` big-endian), then its URL in UTF-8 (Java's
/// `Uploaded.fromNative`).
impl JniResult for UploadedObject {
    type Jni = jobject;
    const SIG: &'static str = "[B";
    const JAVA: &'static str = "byte[]";
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        let mut bytes = self.bytes.to_be_bytes().to_vec();
        bytes.extend_from_slice(self.url.as_bytes());
        byte_array(env, &bytes)
    }
}
