//! Live recordings in object storage ([`tickreel_object::live`], Cargo feature `object`): a
//! recorder's live recording shipped to the bucket while it is written (`LiveShipper`), followed
//! from any machine by URL, and finished into one uploaded `.reel` with the live objects removed.

use std::path::PathBuf;
use std::time::Duration;

use tickreel_sync::sync::RwLock;

use crate::api::engine::Recorder;
use crate::api::object::ObjectOptions;
use crate::api::pending::Pending;
use crate::api::playhead::{self, Playhead};
use crate::api::{New, Released};
use crate::shared::handle::HandleType;
use tickreel_bridge_macros::{bridge_fn, bridge_struct};
use tickreel_object::live::{RemoteFollowOptions, ShipOptions, ShipStats};
use tickreel_object::{ObjectStorage, ObjectUrl, UploadOptions};

/// A recorder's live recording being shipped to the bucket (Rust:
/// `tickreel_object::live::LiveShipper`; C: `TickreelLiveShipper`, Java: `LiveShipper`). Its
/// counters stay readable after its finish.
pub struct LiveShipper {
    shipping: RwLock<Shipping>,
    /// The recording's final local path, to check that a finish names the same recorder.
    reel: PathBuf,
    /// The store's options, for the pending the finish returns.
    options: tickreel_object::ObjectOptions,
}

enum Shipping {
    Live(tickreel_object::live::LiveShipper),
    Finished(ShipStats),
}

impl HandleType for LiveShipper {
    const TAG: u8 = 20;
    const NAME: &'static str = "live shipper";
}

/// Starts shipping `recorder`'s live recording to the object URL `url` (`s3://bucket/key`, the
/// key the compacted recording will have; the live objects go under `<key>.live/`) every
/// `interval_ms` milliseconds on a background thread: the segment bytes flushed since the last
/// shipment as one object, then the manifest, so at most `2 × 60000 / interval_ms` requests a
/// minute (12 at 10000 ms). The recorder's flush interval becomes at most 1 s (a follower then
/// sees a tick within `interval_ms` plus 1 s and its poll); `tickreel_recorder_submit_tick` costs
/// the same. A follower elsewhere sees the shipped ticks (`tickreel_playhead_follow_url`). A
/// recording resumed after a restart resumes shipping to the same key. Blocks
/// on two requests, checking that nothing is at the key yet. Stores the shipper's handle in
/// `*out_shipper`; end it with `tickreel_live_shipper_finish` (freeing it stops the shipping and
/// leaves what is in the bucket: a follower reports the recording ended, `tickreel recover`
/// finishes it).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a malformed URL or an interval of 0,
/// `TICKREEL_RESULT_INVALID_STATE` for a recorder without a file (a stream),
/// `TICKREEL_RESULT_IO` if a recording or another recording's live objects are at the key, or the store
/// refuses or cannot be reached. On failure `*out_shipper` is set to NULL (when it can be written).
///
/// Thread safety: any thread, concurrently with other recorder calls.
#[bridge_fn(
    c = "tickreel_recorder_ship_live",
    c_out = "out_shipper",
    java = "recorderShipLive"
)]
pub fn recorder_ship_live(
    recorder: &Recorder,
    url: &str,
    options: &ObjectOptions,
    interval_ms: u32,
) -> tickreel::Result<New<LiveShipper>> {
    let target = ObjectUrl::parse(url)?;
    let options = options.get();
    let storage = ObjectStorage::new(&target.bucket, options.clone())?;
    let ship = ShipOptions {
        interval: Duration::from_millis(u64::from(interval_ms)),
    };
    let reel = recorder.0.path().to_path_buf();
    let shipper = storage.ship_recorder(&recorder.0, &target.key, ship)?;
    Ok(New(LiveShipper {
        shipping: RwLock::new(Shipping::Live(shipper)),
        reel,
        options,
    }))
}

/// Stores the shipper's counters in `*out_stats` (after `tickreel_live_shipper_finish`: as they
/// were when shipping stopped). Never blocks on the network.
///
/// Thread safety: any thread; waits while `tickreel_live_shipper_finish` takes the shipper.
#[bridge_fn(
    c = "tickreel_live_shipper_stats",
    c_out = "out_stats",
    c_out_type = "TickreelShipStats",
    java = "liveShipperStats"
)]
pub fn shipper_stats(shipper: &LiveShipper) -> ShipStats {
    match &*shipper.shipping.read() {
        Shipping::Live(s) => s.stats(),
        Shipping::Finished(stats) => stats.clone(),
    }
}

/// Ships now, on the calling thread (blocks on up to two requests): what the next interval
/// would, e.g. after `tickreel_recorder_flush` so that a follower sees every tick flushed.
///
/// Returns `TICKREEL_RESULT_IO` if a request failed (the next shipment retries it),
/// `TICKREEL_RESULT_INVALID_STATE` after `tickreel_live_shipper_finish`.
///
/// Thread safety: any thread; not on a server thread (it waits on the network).
#[bridge_fn(c = "tickreel_live_shipper_ship_now", java = "liveShipperShipNow")]
pub fn shipper_ship_now(shipper: &LiveShipper) -> tickreel::Result<()> {
    match &*shipper.shipping.read() {
        Shipping::Live(s) => s.ship_now(),
        Shipping::Finished(_) => Err(finished()),
    }
}

fn finished() -> tickreel::Error {
    tickreel::Error::InvalidState("the live shipper was already finished".into())
}

/// Ends `recorder`'s recording (as `tickreel_recorder_finish`) and the shipping: once the
/// recording is compacted, uploads its `.reel` to the shipper's key (never over an existing
/// object unless `overwrite`, the uploaded size checked, the local file removed if
/// `remove_local`), then removes the live objects, on a background thread. Stores the pending in
/// `*out_pending`: poll it with `tickreel_pending_poll`, read the object with
/// `tickreel_pending_take_upload`. A failed
/// compaction or upload leaves the live objects in the bucket (`tickreel recover` finishes them).
/// The shipper's handle must still be freed.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `recorder` is not the recording the shipper
/// ships, `TICKREEL_RESULT_INVALID_STATE` if the shipper was already finished, and the codes of
/// `tickreel_recorder_finish` (the shipping then goes on). On failure `*out_pending` is set to
/// NULL (when it can be written).
///
/// Thread safety: any thread, concurrently with other calls on the shipper and the recorder.
#[bridge_fn(
    c = "tickreel_live_shipper_finish",
    c_out = "out_pending",
    java = "liveShipperFinish"
)]
pub fn shipper_finish(
    shipper: &LiveShipper,
    recorder: &Recorder,
    overwrite: bool,
    remove_local: bool,
) -> tickreel::Result<New<Pending>> {
    if recorder.0.path() != shipper.reel {
        return Err(tickreel::Error::invalid(format!(
            "the shipper ships {}, not the recorder's {}",
            shipper.reel.display(),
            recorder.0.path().display()
        )));
    }
    let mut shipping = shipper.shipping.write();
    let Shipping::Live(live) = &*shipping else {
        return Err(finished());
    };
    let finish = recorder.0.finish()?;
    let stats = live.stats();
    let Shipping::Live(live) = std::mem::replace(&mut *shipping, Shipping::Finished(stats)) else {
        unreachable!("checked above, under the same lock");
    };
    let upload = UploadOptions {
        overwrite,
        remove_local,
    };
    Ok(Pending::upload(
        live.finish(finish, upload),
        shipper.options.clone(),
    ))
}

/// Frees a shipper's handle; a shipper not yet finished stops shipping (what is in the bucket
/// stays). `tickreel_live_shipper_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed
/// or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread.
#[bridge_fn(c = "tickreel_live_shipper_free")]
pub fn shipper_free(_shipper: Released<LiveShipper>) {}

/// Like `tickreel_playhead_follow`, for a live recording shipped to object storage from any
/// machine: `location` is the compacted recording's URL (`s3://bucket/key`, as given to
/// `tickreel_recorder_ship_live`), read with `options`. A background thread polls the manifest
/// (every 500 ms), so new ticks appear within the shipper's interval plus a poll; when the
/// recording is finished it goes on from the uploaded `.reel`, and a recording whose shipper
/// stopped reporting is reported ended. `tickreel_playhead_free` stops the polling thread.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a malformed URL, `TICKREEL_RESULT_IO` if
/// neither the live objects nor the final object exist, or the store refuses or cannot be
/// reached. On failure `*out_playhead` is set to NULL (when it can be written).
///
/// Thread safety: any thread, as `tickreel_playhead_open`.
#[bridge_fn(
    c = "tickreel_playhead_follow_url",
    c_out = "out_playhead",
    java = "playheadFollowUrl"
)]
pub fn playhead_follow_url(
    location: &str,
    options: &ObjectOptions,
    start_tick: u32,
) -> tickreel::Result<New<Playhead>> {
    let follower = tickreel_object::live::follow_url(
        location,
        &options.get(),
        &RemoteFollowOptions::default(),
    )?;
    playhead::on_follower(follower, start_tick)
}

/// What a live shipper has done so far, as filled in by `tickreel_live_shipper_stats`.
#[bridge_struct(c = "TickreelShipStats", of = "tickreel_object::live::ShipStats")]
pub struct ShipStatsFields {
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
    /// The last tick in the bucket, if any tick is in it yet.
    pub last_tick: Option<u32>,
}
