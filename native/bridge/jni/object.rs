//! Object storage's results that cross into Java in a shape of their own (Cargo feature
//! `object`): a live shipper's counters and an uploaded object. The rest (options, URLs) crosses
//! as handles and strings, see `super::convert`.

use jni::JNIEnv;
use jni::sys::jobject;

use super::convert::JniResult;
use super::{Res, byte_array};
use crate::api::object::UploadedObject;

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
