//! Live recordings in a bucket (opt-in per recording): shipped while they are written
//! ([`LiveShipper`]), followed from any machine ([`follow_url`], the core's follower over
//! [`ObjectLive`]), finished by the writer (one compacted `.reel`, the live objects removed) or,
//! after the writer died, by [`recover_url`].
//!
//! For a recording whose compacted form is `s3://bucket/runs/a.reel`:
//!
//! ```text
//! runs/a.reel.live/manifest        rewritten every shipment, of a size that does not grow with
//!                                  the recording (see `manifest`)
//! runs/a.reel.live/batch-00000000  the segment bytes of one shipment, never rewritten once named
//! runs/a.reel.live/batch-00000001  ...
//! runs/a.reel                      the compacted recording, once finished
//! ```
//!
//! Requests per recording per minute while live: at most `2 × 60 s / interval` (12 at the
//! default 10 s), whatever the tick rate. Bytes sent: the segment bytes, plus per shipment a
//! batch head (20 bytes per segment it adds to) and the manifest (the metadata file's header
//! and metadata, 12 bytes per segment): a constant per shipment, not a share of the recording's
//! length. Finishing costs the upload (1 request, or a multipart upload past 16 MiB, and a
//! `head`), the manifest's delete, a listing of `<key>.live/` and one bulk delete per 1,000
//! live objects (an hour at the default interval: 360 batches, 1 bulk delete).

mod follow;
pub mod index;
pub mod manifest;
mod recover;
mod ship;

pub use follow::{
    BATCHES_PER_POLL, KEPT_BATCHES, MAX_KEPT_BATCH_BYTES, ObjectLive, RemoteFollowOptions,
    STALE_AFTER, follow_url,
};
pub use recover::{MAX_BATCH_BYTES, RecoveredUrl, recover_url};
pub use ship::{
    DEFAULT_SHIP_INTERVAL, LiveShipper, MAX_SHIPPED_FLUSH_INTERVAL, ShipOptions, ShipStats,
    flush_for_shipping,
};

/// The folder of a recording's live objects.
pub fn live_prefix(key: &str) -> String {
    format!("{key}.live")
}

/// The manifest's key.
pub fn manifest_key(key: &str) -> String {
    format!("{key}.live/manifest")
}

/// Batch `n`'s key.
pub fn batch_key(key: &str, n: u32) -> String {
    format!("{key}.live/batch-{n:08}")
}
