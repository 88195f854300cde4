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

/// What a live shipper has done so far, as filled in by `tickreel_live_shipper_stats`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TickreelShipStats {
    /// Manifests written (one per shipment).
    pub shipments: u64,
    /// Batch objects written (segment bytes flushed since the shipment before).
    pub batches: u64,
    /// Requests sent (batches, manifests; failed ones too).
    pub requests: u64,
    /// Segment bytes shipped (what the local segments held at the last shipment).
    pub segment_bytes: u64,
    /// Bytes sent: batches plus manifests.
    pub shipped_bytes: u64,
    /// Shipments that failed (retried at the next interval).
    pub errors: u64,
    /// The last tick in the bucket; meaningful only when `has_last_tick` is true.
    pub last_tick: u32,
    /// Whether any tick is in the bucket yet (`last_tick` is valid).
    pub has_last_tick: bool,
}

impl crate::ffi::convert::CResult for tickreel_object::live::ShipStats {
    type C = TickreelShipStats;
    fn into_c(self) -> crate::ffi::result::FfiResult<TickreelShipStats> {
        Ok(TickreelShipStats {
            shipments: self.shipments,
            batches: self.batches,
            requests: self.requests,
            segment_bytes: self.segment_bytes,
            shipped_bytes: self.shipped_bytes,
            errors: self.errors,
            last_tick: self.last_tick.unwrap_or(0),
            has_last_tick: self.last_tick.is_some(),
        })
    }
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
