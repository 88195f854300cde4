//! Issue-35 figures: a live recording shipped to a real S3-protocol server on loopback
//! (`moto_server`) while it is written, and followed through the bucket alone.
//!
//! The writer: 10 simulated players at 20 ticks/s, paced in real time, local flush every 1 s,
//! shipping every 10 s (`--quick`: every 2 s) for six shipping intervals. The follower: its own
//! client (nothing shared with the writer but the bucket; in this process), polling every 500 ms.
//!
//! - `network_s3_requests_per_recording_minute`: the shipper's requests per minute of recording;
//! - `s3live_shipped_segment_ratio`: bytes sent (batches and manifests) over segment bytes;
//! - `live_remote_follow_lag_ms` (the worst) and `live_remote_follow_lag_p50_ms`: from a tick's
//!   `submit_tick` to the follower's view holding it;
//! - `s3live_finish_requests`: requests to finish (upload the `.reel`, remove the live objects).

use std::time::{Duration, Instant};

use tickreel::format::encode_batch;
use tickreel::record::FlushPolicy;
use tickreel::{Engine, EngineOptions, Event, RecorderOptions};
use tickreel_object::live::{RemoteFollowOptions, ShipOptions, follow_url};
use tickreel_object::testing::{BUCKET, S3Server};
use tickreel_object::{ObjectStorage, UploadOptions};
use tickreel_sim::{SimConfig, Simulator};

use super::shared::percentile;
use super::{Figures, put};

const KEY: &str = "live/bench.reel";

pub fn run(quick: bool, out: &mut Figures) {
    let server = S3Server::start();
    let dir = tempfile::tempdir().expect("bench dir");
    let path = dir.path().join("bench.reel");
    let interval = Duration::from_secs(if quick { 2 } else { 10 });
    let storage = ObjectStorage::new(BUCKET, server.options()).expect("client");
    let engine = Engine::new(EngineOptions::default()).expect("engine");
    let rec = engine
        .start_recording(
            &path,
            RecorderOptions {
                flush: FlushPolicy {
                    interval: Duration::from_secs(1),
                    ..FlushPolicy::default()
                },
                ..RecorderOptions::default()
            },
        )
        .expect("recorder");
    let shipper = storage
        .ship_live(&path, KEY, ShipOptions { interval })
        .expect("shipper");
    let follower = follow_url(
        &server.url(KEY),
        &server.options(),
        &RemoteFollowOptions {
            poll_interval: Duration::from_millis(500),
            ..RemoteFollowOptions::default()
        },
    )
    .expect("follower");

    let mut sim = Simulator::new(SimConfig {
        players: 10,
        seed: 35,
        ..SimConfig::default()
    });
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
    let finish_requests = storage.requests() - before;

    put(
        out,
        "network_s3_requests_per_recording_minute",
        stats.requests as f64 / (live_for.as_secs_f64() / 60.0),
    );
    put(out, "s3live_ship_interval_s", interval.as_secs_f64());
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
