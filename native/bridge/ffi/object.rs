//! Object storage (`crate::api::object` and `crate::api::object_live`, whose entry points are
//! generated): the C types of the options that reach a store, of an uploaded object (a pending's
//! take) and of a live shipper and its counters.

/// How to reach an object store: endpoint, region, credentials, timeouts, retries. Opaque:
/// create with `tickreel_object_options_new` (reads the `AWS_*` variables), change with
/// `tickreel_object_options_set_*`, release with `tickreel_object_options_free`.
pub struct TickreelObjectOptions {
    _private: [u8; 0],
}

/// A recorder's live recording being shipped to object storage. Opaque: created by
/// `tickreel_recorder_ship_live`, finished with `tickreel_live_shipper_finish`, released with
/// `tickreel_live_shipper_free`.
pub struct TickreelLiveShipper {
    _private: [u8; 0],
}

/// An uploaded object as C receives it (`c_out_string` with an extra out-pointer): its URL, and
/// its size in bytes through `*out_bytes`.
impl crate::ffi::convert::CResult for crate::api::object::UploadedObject {
    type C = Vec<u8>;
    fn into_c(self) -> crate::ffi::result::FfiResult<Vec<u8>> {
        Ok(self.url.into_bytes())
    }
}

impl crate::ffi::convert::CArrayExtra for crate::api::object::UploadedObject {
    type C = u64;
    fn extra(&self) -> u64 {
        self.bytes
    }
}
