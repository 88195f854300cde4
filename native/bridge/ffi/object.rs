//! Object storage (`crate::api::object`, whose entry points are generated): the C types of the
//! options that reach a store and of a pending upload (a poll crosses as every
//! `crate::api::Polled`, see `crate::ffi::convert`).

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
