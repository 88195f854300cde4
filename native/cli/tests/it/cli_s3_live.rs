//! `play --follow s3://...` and `recover s3://...` against a live recording shipped to a real
//! S3-protocol server on loopback while it is written (`tickreel_object::live`).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tickreel::format::encode_batch;
use tickreel::record::FlushPolicy;
use tickreel::{Engine, EngineOptions, Event, Recorder, RecorderOptions};
use tickreel_object::live::{LiveShipper, ShipOptions};
use tickreel_object::testing::S3Server;
use tickreel_object::{UploadOptions, open_url};
use tickreel_sim::{SimConfig, Simulator};

/// A recording at `dir/NAME` shipped to `live/NAME`, with `ticks` ticks submitted and shipped.
fn shipped(
    server: &S3Server,
    engine: &Engine,
    dir: &std::path::Path,
    name: &str,
    ticks: u32,
) -> (Recorder, LiveShipper, u32) {
    let path = dir.join(name);
    let rec = engine
        .start_recording(
            &path,
            RecorderOptions {
                flush: FlushPolicy {
                    interval: Duration::from_millis(50),
                    ..FlushPolicy::default()
                },
                ..RecorderOptions::default()
            },
        )
        .unwrap();
    let shipper = server
        .storage()
        .ship_live(
            &path,
            &format!("live/{name}"),
            ShipOptions {
                interval: Duration::from_millis(200),
            },
        )
        .unwrap();
    let mut sim = Simulator::new(SimConfig {
        players: 3,
        seed: 5,
        ..SimConfig::default()
    });
    let mut batch = Vec::new();
    let mut last = 0;
    for _ in 0..ticks {
        let (t, events): (u32, Vec<Event>) = sim.step();
        batch.clear();
        encode_batch(&events, &mut batch).unwrap();
        rec.submit_tick(t, &batch).unwrap();
        last = t;
        std::thread::sleep(Duration::from_millis(2));
    }
    let start = Instant::now();
    while shipper.stats().last_tick != Some(last) {
        assert!(start.elapsed() < Duration::from_secs(20), "not shipped");
        std::thread::sleep(Duration::from_millis(20));
    }
    (rec, shipper, last)
}

#[test]
fn play_follows_a_recording_shipped_to_a_bucket_until_it_is_finished() {
    let server = S3Server::start_lenient();
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let (rec, shipper, last) = shipped(&server, &engine, dir.path(), "a.reel", 150);
    let url = server.url("live/a.reel");
    let child = Command::new(env!("CARGO_BIN_EXE_tickreel"))
        .args(["play", &url, "--follow", "--poll-ms", "50", "--speed", "16"])
        .args(["--max-ms", "60000"])
        .envs(server.env())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    shipper
        .finish(rec.finish().unwrap(), UploadOptions::default())
        .wait()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let end = stdout.lines().last().unwrap();
    assert!(end.contains(&format!("\"tick\":{last}")), "{end}");

    // Nothing there: refused at once, unless asked to wait.
    let o = Command::new(env!("CARGO_BIN_EXE_tickreel"))
        .args(["play", &server.url("live/none.reel"), "--follow"])
        .envs(server.env())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--wait"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A batch object the manifest names but the bucket has not: the error names that object, it
/// does not say the recording is not there.
#[test]
fn play_follow_names_a_missing_batch_object() {
    let server = S3Server::start_lenient();
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let (rec, shipper, _) = shipped(&server, &engine, dir.path(), "d.reel", 40);
    drop(shipper);
    drop(rec);
    server
        .storage()
        .delete("live/d.reel.live/batch-00000000")
        .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_tickreel"))
        .args(["play", &server.url("live/d.reel"), "--follow"])
        .envs(server.env())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("live/d.reel.live/batch-00000000") && err.contains("missing"),
        "{err}"
    );
    assert!(!err.contains("no such recording"), "{err}");
}

#[test]
fn recover_finishes_a_recording_whose_writer_stopped_shipping() {
    let server = S3Server::start_lenient();
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let (rec, shipper, last) = shipped(&server, &engine, dir.path(), "b.reel", 120);
    // The writer goes away without finishing: what is in the bucket stays.
    drop(shipper);
    drop(rec);
    let url = server.url("live/b.reel");
    assert!(open_url(&url, &server.options()).is_err());
    let o = Command::new(env!("CARGO_BIN_EXE_tickreel"))
        .args(["recover", &url])
        .envs(server.env())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = open_url(&url, &server.options()).unwrap();
    assert!(r.last_tick().unwrap() >= last);
    r.verify().unwrap();
    assert!(
        server
            .storage()
            .head("live/b.reel.live/manifest")
            .unwrap()
            .is_none()
    );
    // Nothing left to recover.
    let o = Command::new(env!("CARGO_BIN_EXE_tickreel"))
        .args(["recover", &url])
        .envs(server.env())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn serve_lists_and_plays_a_recording_shipped_live_to_its_prefix() {
    use crate::serve_support::{Server, names};
    let server = S3Server::start_lenient();
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let (_rec, _shipper, last) = shipped(&server, &engine, dir.path(), "c.reel", 100);
    let env: Vec<(String, String)> = server
        .env()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let env_ref: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let s = Server::start_env(&[&server.url("live"), "--listen", "127.0.0.1:0"], &env_ref);
    let list = names(&s.json("/api/recordings"));
    assert_eq!(list, vec![("c.reel".to_string(), "live".to_string())]);
    let v = s.json(&format!("/api/frames?rec=c.reel&from={last}&count=1"));
    assert_eq!(v["frames"][0]["t"], last, "{v}");
    assert_eq!(v["edge"]["state"], "live", "{v}");
}
