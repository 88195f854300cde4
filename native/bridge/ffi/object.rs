//! Object storage (`crate::api::object`, whose entry points are generated): the C types of the
//! options that reach a store and of a pending upload, and how an upload's state crosses.

use super::convert::CResult;
use super::result::FfiResult;
use crate::api::object::UploadState;

/// How to reach an object store: endpoint, region, credentials, timeouts, retries. Opaque:
/// create with `tickreel_object_options_new` (reads the `AWS_*` variables), change with
/// `tickreel_object_options_set_*`, release with `tickreel_object_options_free`.
pub struct TickreelObjectOptions {
    _private: [u8; 0],
}

/// A recording's finish followed by its upload, running in the background. Opaque: created by
/// `tickreel_recorder_finish_upload`, polled with `tickreel_pending_upload_poll`, released with
/// `tickreel_pending_upload_free`.
pub struct TickreelPendingUpload {
    _private: [u8; 0],
}

/// C learns whether the upload has ended, and its failure as the call's result.
impl CResult for UploadState {
    type C = bool;
    fn into_c(self) -> FfiResult<bool> {
        match self.split() {
            (_, Err(e)) => Err(e),
            (v, Ok(())) => Ok(v.unwrap_or(false)),
        }
    }
    fn split(self) -> (Option<bool>, FfiResult<()>) {
        match self.0 {
            None => (Some(false), Ok(())),
            Some(Ok(_)) => (Some(true), Ok(())),
            Some(Err(e)) => (Some(true), Err(e.into())),
        }
    }
}
