//! A recording made through the engine and uploaded once finished
//! (`ObjectStorage::upload_when_finished`), on a real S3-protocol server on loopback: the object
//! reads back tick for tick; the local copy goes only after a successful upload; a refused upload
//! keeps it. A shadow-play report (its `Pending` path) goes the same way.

use std::time::{Duration, Instant};

use tickreel::Pending;
use tickreel::format::encode_batch;
use tickreel::play::Reader;
use tickreel::{Engine, EngineOptions, Error, Event, RecorderOptions};
use tickreel_object::testing::S3Server;
use tickreel_object::{UploadOptions, Uploaded, open_url};
use tickreel_sim::{SimConfig, Simulator};

fn record(engine: &Engine, path: &std::path::Path) -> tickreel::Pending<std::path::PathBuf> {
    let rec = engine
        .start_recording(path, RecorderOptions::default())
        .unwrap();
    let mut sim = Simulator::new(SimConfig {
        players: 5,
        seed: 3,
        ..SimConfig::default()
    });
    let mut batch = Vec::new();
    for _ in 0..400 {
        let (t, events): (u32, Vec<Event>) = sim.step();
        batch.clear();
        encode_batch(&events, &mut batch).unwrap();
        rec.submit_tick(t, &batch).unwrap();
    }
    rec.finish().unwrap()
}

/// Polls (never blocking) until the upload has ended.
fn poll_until_done(mut pending: Pending<Uploaded>) -> tickreel::Result<Uploaded> {
    let start = Instant::now();
    while pending.poll().is_none() {
        assert!(start.elapsed() < Duration::from_secs(60), "upload hangs");
        std::thread::sleep(Duration::from_millis(5));
    }
    pending.wait()
}

#[test]
fn a_finished_recording_is_uploaded_and_its_local_copy_removed_only_after_success() {
    let server = S3Server::start();
    let storage = server.storage();
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();

    let first = dir.path().join("first.reel");
    let pending = storage.upload_when_finished(
        record(&engine, &first),
        "runs/first.reel",
        UploadOptions {
            overwrite: false,
            remove_local: true,
        },
    );
    let up = poll_until_done(pending).unwrap();
    assert_eq!(up.local, first);
    assert!(up.report.removed_local && !first.exists());
    let remote = open_url(&server.url("runs/first.reel"), &server.options()).unwrap();
    remote.verify().unwrap();
    assert_eq!(remote.header().tick_count, 400);

    // the same key again: refused, the second recording stays on disk
    let second = dir.path().join("second.reel");
    let pending = storage.upload_when_finished(
        record(&engine, &second),
        "runs/first.reel",
        UploadOptions {
            overwrite: false,
            remove_local: true,
        },
    );
    let e = poll_until_done(pending).unwrap_err();
    assert!(
        matches!(&e, Error::Io(io) if io.kind() == std::io::ErrorKind::AlreadyExists),
        "{e}"
    );
    assert!(e.to_string().contains("the local file is kept"), "{e}");
    assert!(second.exists());
    Reader::open_path(&second).unwrap().verify().unwrap();
    // a later upload (what `tickreel upload` does) succeeds
    storage
        .upload(&second, "runs/second.reel", UploadOptions::default())
        .unwrap();
    assert!(storage.head("runs/second.reel").unwrap().is_some());
}

#[test]
fn a_shadow_play_report_goes_to_object_storage_the_same_way() {
    use tickreel::shadow::{ReportOptions, ShadowBuffer, ShadowOptions};
    let server = S3Server::start();
    let storage = server.storage();
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let (rec, shadow) = ShadowBuffer::start(
        &engine,
        None,
        RecorderOptions::default(),
        ShadowOptions::default(),
    )
    .unwrap();
    let mut sim = Simulator::new(SimConfig {
        players: 4,
        seed: 9,
        ..SimConfig::default()
    });
    let mut batch = Vec::new();
    for _ in 0..300 {
        let (t, events): (u32, Vec<Event>) = sim.step();
        batch.clear();
        encode_batch(&events, &mut batch).unwrap();
        rec.submit_tick(t, &batch).unwrap();
    }
    rec.flush().unwrap();
    let local = dir.path().join("report-1.reel");
    let report = shadow
        .report(
            1,
            &local,
            ReportOptions {
                after: Duration::ZERO,
                ..ReportOptions::default()
            },
        )
        .unwrap();
    let pending = storage.upload_when_finished(
        report,
        "reports/1.reel",
        UploadOptions {
            overwrite: false,
            remove_local: true,
        },
    );
    let up = poll_until_done(pending).unwrap();
    assert!(!local.exists() && up.report.removed_local);
    let remote = open_url(&server.url("reports/1.reel"), &server.options()).unwrap();
    remote.verify().unwrap();
    assert!(remote.metadata().user.contains_key("report"));
    assert_eq!(remote.last_tick(), Some(299));
}
