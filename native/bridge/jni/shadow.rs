//! How the shadow operations' types cross into Java's `ShadowBuffer` (the operations are
//! `crate::api::shadow`; their JNI entry points are generated): stats and starts (their options
//! are builder handles, `crate::api::shadow_options` and `crate::api::report_options`). A
//! shadow buffer starts with its own recorder (a handle like any `Recorder`'s); its reports
//! complete through the same finish handle (Java: `Pending<Path>`) as a recording's finish.

use std::sync::Arc;

use jni::JNIEnv;
use jni::sys::jobject;

use super::convert::{JniResult, LONG_ARRAY_JAVA, LONG_ARRAY_SIG};
use super::{Res, handles, insert, long_array};
use crate::api::engine::Recorder;
use crate::api::shadow::{ShadowBuffer, Started};
use crate::shared::handle::HandleType;

/// `long[] {recorder, shadow}`, both handles or neither.
impl JniResult for Started {
    type Jni = jobject;
    const SIG: &'static str = LONG_ARRAY_SIG;
    const JAVA: &'static str = LONG_ARRAY_JAVA;
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        let r = insert(Recorder::NAME, Arc::new(self.recorder))?;
        let s = insert(ShadowBuffer::NAME, Arc::new(self.shadow))
            .inspect_err(|_| drop(handles::remove(r)))?;
        long_array(env, &[r, s]).inspect_err(|_| {
            // Java never sees these handles: close them (the stream ends).
            drop(handles::remove(r));
            drop(handles::remove(s));
        })
    }
}
