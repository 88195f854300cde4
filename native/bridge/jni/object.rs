//! How an upload's state crosses into Java's `PendingUpload` (the operations are
//! `crate::api::object`; their entry points are generated).

use jni::JNIEnv;
use jni::sys::jobject;

use super::Res;
use super::convert::JniResult;
use crate::api::object::UploadState;

/// The uploaded object's URL, `null` while running; the failure is thrown.
impl JniResult for UploadState {
    type Jni = jobject;
    const SIG: &'static str = "Ljava/lang/String;";
    const JAVA: &'static str = "String";
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        match self.0 {
            None => Ok(std::ptr::null_mut()),
            Some(r) => Ok(env.new_string(r?)?.into_raw()),
        }
    }
}
