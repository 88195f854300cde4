//! Issue-35 figures: a live recording shipped to a real S3-protocol server on loopback
//! (`moto_server`) while it is written, and followed through the bucket alone.
//!
//! Live, in real time: 10 simulated players at 20 ticks/s, started with the default recorder
//! options through `record_shipped` (which makes the local flush interval at most 1 s: the
//! default 5 s is what the lag goal would miss), shipping every 10 s (`--quick`: every 2 s) for
//! six shipping intervals. The follower: its own client (nothing shared with the writer but the
//! bucket; in this process), polling every 500 ms.
//!
//! - `network_s3_requests_per_recording_minute`: the shipper's requests per minute of recording;
//! - `s3live_shipped_segment_ratio`: bytes sent (batches and manifests) over segment bytes;
//! - `live_remote_follow_lag_ms` (the worst) and `live_remote_follow_lag_p50_ms`: from a tick's
//!   `submit_tick` to the follower's view holding it;
//! - `s3live_finish_requests`: requests to finish (upload the `.reel`, remove the live objects).
//!
//! An hour, deterministic: the same 10 players for 72,000 ticks (`--quick`: 12,000) as fast as
//! they encode, flushed and shipped every 200 ticks (10 s of game time: 360 shipments), bytes
//! counted exactly: `s3live_hour_shipped_segment_ratio`, and the requests to finish it.
//!
//! The server thread with and without shipping: paired runs, alternating which goes first, of
//! 10 players submitting a tick every millisecond (2,000 ticks a run), the same recorder
//! options in both; one run ships every 200 ms. `s3live_submit_shipping_ratio` is the median
//! over pairs of the p50 submit time shipping over not shipping (and `_p99_ratio` of the p99).

use std::time::{Duration, Instant};

use tickreel::format::encode_batch;
use tickreel::play::Reader;
use tickreel::storage::live::live_dir_for;
use tickreel::{Engine, EngineOptions, Event, Recorder, RecorderOptions};
use tickreel_object::live::{
    LiveShipper, MAX_SHIPPED_FLUSH_INTERVAL, RemoteFollowOptions, ShipOptions, flush_for_shipping,
    follow_url, live_prefix, manifest_key,
};
use tickreel_object::testing::{BUCKET, S3Server};
use tickreel_object::{ObjectStorage, UploadOptions};
use tickreel_sim::{SimConfig, Simulator};

use super::shared::{blocking_recorder_options, median, percentile};
use super::{Figures, put};

const KEY: &str = "live/bench.reel";
const HOUR_KEY: &str = "live/hour.reel";

pub fn run(quick: bool, out: &mut Figures) {
    let server = S3Server::start();
    live(&server, quick, out);
    hour(&server, quick, out);
    submit(&server, quick, out);
}

fn simulator() -> Simulator {
    Simulator::new(SimConfig {
        players: 10,
        seed: 35,
        ..SimConfig::default()
    })
}

fn live(server: &S3Server, quick: bool, out: &mut Figures) {
    let dir = tempfile::tempdir().expect("bench dir");
    let path = dir.path().join("bench.reel");
    let interval = Duration::from_secs(if quick { 2 } else { 10 });
    let storage = ObjectStorage::new(BUCKET, server.options()).expect("client");
    let engine = Engine::new(EngineOptions::default()).expect("engine");
    let (rec, shipper) = storage
        .record_shipped(
            &engine,
            &path,
            RecorderOptions::default(),
            KEY,
            ShipOptions { interval },
        )
        .expect("recorder and shipper");
    let follower = follow_url(
        &server.url(KEY),
        &server.options(),
        &RemoteFollowOptions {
            poll_interval: Duration::from_millis(500),
            ..RemoteFollowOptions::default()
        },
    )
    .expect("follower");

    let mut sim = simulator();
    let tick = Duration::from_millis(50);
    let run_for = interval * 6;
    let start = Instant::now();
    let mut submitted: Vec<(u32, Instant)> = Vec::new();
    let mut lags = Vec::new();
    let mut seen = 0usize;
    let mut batch = Vec::new();
    let mut n = 0u32;
    while start.elapsed() < run_for {
        let (t, events): (u32, Vec<Event>) = sim.step();
        batch.clear();
        encode_batch(&events, &mut batch).expect("encode");
        rec.submit_tick(t, &batch).expect("submit");
        submitted.push((t, Instant::now()));
        n += 1;
        // What the follower holds now: the lag of every tick that became visible.
        if let Some(last) = follower.stats().last_tick {
            while seen < submitted.len() && submitted[seen].0 <= last {
                lags.push(submitted[seen].1.elapsed().as_secs_f64() * 1e3);
                seen += 1;
            }
        }
        if let Some(wait) = (start + tick * n).checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    let live_for = start.elapsed();
    let stats = shipper.stats();
    let finish_requests = finish_and_upload(&storage, shipper, rec);

    put(
        out,
        "network_s3_requests_per_recording_minute",
        stats.requests as f64 / (live_for.as_secs_f64() / 60.0),
    );
    put(out, "s3live_ship_interval_s", interval.as_secs_f64());
    put(
        out,
        "s3live_flush_interval_ms",
        MAX_SHIPPED_FLUSH_INTERVAL.as_secs_f64() * 1e3,
    );
    put(
        out,
        "s3live_shipped_segment_ratio",
        stats.shipped_bytes as f64 / stats.segment_bytes.max(1) as f64,
    );
    out.insert("s3live_segment_bytes".into(), stats.segment_bytes.into());
    out.insert("s3live_shipped_bytes".into(), stats.shipped_bytes.into());
    out.insert("s3live_ticks_followed".into(), (lags.len() as u64).into());
    out.insert("s3live_finish_requests".into(), finish_requests.into());
    if !lags.is_empty() {
        let worst = lags.iter().copied().fold(0.0, f64::max);
        put(out, "live_remote_follow_lag_ms", worst);
        put(
            out,
            "live_remote_follow_lag_p50_ms",
            percentile(&mut lags, 0.5),
        );
    }
}

/// An hour of ticks shipped every 10 s of game time, without waiting an hour.
fn hour(server: &S3Server, quick: bool, out: &mut Figures) {
    const EVERY: u32 = 200;
    let ticks: u32 = if quick { 12_000 } else { 72_000 };
    let dir = tempfile::tempdir().expect("bench dir");
    let path = dir.path().join("hour.reel");
    let storage = ObjectStorage::new(BUCKET, server.options()).expect("client");
    let engine = Engine::new(EngineOptions::default()).expect("engine");
    // No time-based flush and no drops: the bytes depend on the ticks alone.
    let rec = engine
        .start_recording(&path, blocking_recorder_options())
        .expect("recorder");
    let shipper = storage
        .ship_live(
            &path,
            HOUR_KEY,
            ShipOptions {
                interval: Duration::from_secs(24 * 3600),
            },
        )
        .expect("shipper");
    let mut sim = simulator();
    let mut batch = Vec::new();
    // What the manifests would have carried with the index inside (the last build's).
    let mut index_bytes = 0u64;
    for i in 1..=ticks {
        let (t, events): (u32, Vec<Event>) = sim.step();
        batch.clear();
        encode_batch(&events, &mut batch).expect("encode");
        rec.submit_tick(t, &batch).expect("submit");
        if i % EVERY == 0 {
            rec.flush().expect("flush");
            shipper.ship_now().expect("shipment");
            let r = Reader::open_live(live_dir_for(&path)).expect("live reader");
            index_bytes += u64::from(r.header().index_len);
        }
    }
    let stats = shipper.stats();
    let manifest = storage
        .head(&manifest_key(HOUR_KEY))
        .expect("head")
        .map_or(0, |o| o.size);
    let finish_requests = finish_and_upload(&storage, shipper, rec);
    let left = storage.list(&live_prefix(HOUR_KEY)).expect("listing").len();

    out.insert("s3live_hour_ticks".into(), u64::from(ticks).into());
    out.insert("s3live_hour_shipments".into(), stats.shipments.into());
    out.insert(
        "s3live_hour_segment_bytes".into(),
        stats.segment_bytes.into(),
    );
    out.insert(
        "s3live_hour_shipped_bytes".into(),
        stats.shipped_bytes.into(),
    );
    out.insert("s3live_hour_last_manifest_bytes".into(), manifest.into());
    out.insert(
        "s3live_hour_index_bytes_left_out".into(),
        index_bytes.into(),
    );
    put(
        out,
        "s3live_hour_shipped_segment_ratio",
        stats.shipped_bytes as f64 / stats.segment_bytes.max(1) as f64,
    );
    put(
        out,
        "s3live_hour_ratio_with_index",
        (stats.shipped_bytes + index_bytes) as f64 / stats.segment_bytes.max(1) as f64,
    );
    out.insert("s3live_hour_finish_requests".into(), finish_requests.into());
    out.insert("s3live_hour_live_objects_left".into(), (left as u64).into());
}

/// Submit times (ns) of one run: 2,000 ticks of 10 players, one a millisecond.
/// Finishes `rec` and waits for `shipper` to upload it (the local files removed); returns the
/// requests that took.
fn finish_and_upload(storage: &ObjectStorage, shipper: LiveShipper, rec: Recorder) -> u64 {
    let before = storage.requests();
    shipper
        .finish(
            rec.finish().expect("finish"),
            UploadOptions {
                overwrite: false,
                remove_local: true,
            },
        )
        .wait()
        .expect("finished and uploaded");
    storage.requests() - before
}

fn submit_run(server: &S3Server, ticks: &[(u32, Vec<u8>)], shipping: bool, n: usize) -> Vec<f64> {
    let dir = tempfile::tempdir().expect("bench dir");
    let path = dir.path().join("submit.reel");
    let storage = ObjectStorage::new(BUCKET, server.options()).expect("client");
    let engine = Engine::new(EngineOptions::default()).expect("engine");
    let rec = engine
        .start_recording(&path, flush_for_shipping(RecorderOptions::default()))
        .expect("recorder");
    let key = format!("live/submit-{n}.reel");
    let shipper = shipping.then(|| {
        storage
            .ship_live(
                &path,
                &key,
                ShipOptions {
                    interval: Duration::from_millis(200),
                },
            )
            .expect("shipper")
    });
    let mut times = Vec::with_capacity(ticks.len());
    let start = Instant::now();
    for (i, (t, bytes)) in ticks.iter().enumerate() {
        let at = Instant::now();
        rec.submit_tick(*t, bytes).expect("submit");
        times.push(at.elapsed().as_nanos() as f64);
        let next = start + Duration::from_millis(i as u64 + 1);
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    if let Some(s) = &shipper {
        assert!(
            s.stats().shipments > 0,
            "the shipper shipped during the run"
        );
    }
    drop(shipper);
    rec.finish().expect("finish").wait().expect("compacted");
    times
}

fn submit(server: &S3Server, quick: bool, out: &mut Figures) {
    let mut sim = simulator();
    let ticks: Vec<(u32, Vec<u8>)> = (0..2_000)
        .map(|_| {
            let (t, events): (u32, Vec<Event>) = sim.step();
            let mut b = Vec::new();
            encode_batch(&events, &mut b).expect("encode");
            (t, b)
        })
        .collect();
    let pairs = if quick { 2 } else { 5 };
    let (mut p50, mut p99) = (Vec::new(), Vec::new());
    let (mut ship50, mut plain50) = (Vec::new(), Vec::new());
    for pair in 0..pairs {
        let one = |shipping: bool| {
            let mut t = submit_run(server, &ticks, shipping, pair);
            (percentile(&mut t, 0.5), percentile(&mut t, 0.99))
        };
        let (ship, plain) = if pair % 2 == 0 {
            let s = one(true);
            (s, one(false))
        } else {
            let p = one(false);
            (one(true), p)
        };
        p50.push(ship.0 / plain.0);
        p99.push(ship.1 / plain.1);
        ship50.push(ship.0);
        plain50.push(plain.0);
    }
    put(out, "s3live_submit_p50_ns", median(ship50));
    put(out, "s3live_submit_plain_p50_ns", median(plain50));
    put(out, "s3live_submit_shipping_ratio", median(p50));
    put(out, "s3live_submit_shipping_p99_ratio", median(p99));
}
