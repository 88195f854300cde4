//! A server restarted while its recording's live directory exists: `on_existing` resumes it,
//! sets it aside (`STEM.previous-N.reel`, never deleted) and starts fresh (the default), or
//! refuses; `overwrite` with the defaults starts fresh.

use crate::common;

use std::path::Path;
use std::time::Duration;

use tickreel::play::Reader;
use tickreel::record::OnExisting;
use tickreel::storage::live::live_dir_for;
use tickreel::{Engine, EngineOptions, Error, RecorderOptions};

use crate::common::batch;

fn options(on_existing: OnExisting) -> RecorderOptions {
    RecorderOptions {
        on_existing,
        ..common::small_flush()
    }
}

/// Records ticks `0..n` at `path` and stops the server without finishing (the live directory
/// stays, as after a stop or a crash).
fn stopped_server(path: &Path, n: u32) {
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(path, options(OnExisting::Resume))
        .unwrap();
    for t in 0..n {
        rec.submit_tick(t, &batch(&[])).unwrap();
    }
    rec.flush().unwrap();
    drop(rec);
    engine.shutdown();
    assert!(live_dir_for(path).is_dir());
}

fn last_live_tick(live: &Path) -> u32 {
    let r = Reader::open_live(live).unwrap();
    let last = r.index().last().expect("a chunk");
    last.start_tick + last.tick_count - 1
}

#[test]
fn start_fresh_sets_the_old_recording_aside_and_starts_again_at_tick_0() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.reel");
    stopped_server(&path, 100);

    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, options(OnExisting::StartFresh))
        .unwrap();
    assert_eq!(rec.wait_resumed(Duration::from_secs(30)).unwrap(), None);
    for t in 0..10 {
        rec.submit_tick(t, &batch(&[])).unwrap();
    }
    let out = rec.finish().unwrap().wait().unwrap();
    assert_eq!(out, path);
    Reader::open_path(&path).unwrap();

    // The old recording is kept whole under the first side name, and finishes there.
    let side = dir.path().join("run.previous-1.reel");
    assert!(!live_dir_for(&path).exists());
    assert_eq!(last_live_tick(&live_dir_for(&side)), 99);
    let old = engine
        .start_recording(&side, options(OnExisting::Resume))
        .unwrap();
    assert_eq!(old.wait_resumed(Duration::from_secs(30)).unwrap(), Some(99));
    old.finish().unwrap().wait().unwrap();
    Reader::open_path(&side).unwrap();
    engine.shutdown();

    // A second restart takes the next free side name (the first is a finished file now).
    std::fs::remove_file(&path).unwrap();
    stopped_server(&path, 5);
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(
            &path,
            RecorderOptions {
                overwrite: true,
                ..options(OnExisting::StartFresh)
            },
        )
        .unwrap();
    rec.submit_tick(0, &batch(&[])).unwrap();
    rec.close().unwrap();
    engine.shutdown();
    let second = dir.path().join("run.previous-2.reel");
    assert_eq!(last_live_tick(&live_dir_for(&second)), 4);
}

/// What a server owner expects of a plain restart with the defaults: ticks from 0 again are
/// recorded (no "tick 0 is not after the last submitted tick 99"), and the old recording is kept
/// whole aside.
#[test]
fn a_restart_with_the_defaults_starts_at_tick_0_and_keeps_the_old_recording() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.reel");
    stopped_server(&path, 100);
    assert_eq!(
        RecorderOptions::default().on_existing,
        OnExisting::StartFresh
    );
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, RecorderOptions::default())
        .unwrap();
    for t in 0..10 {
        rec.submit_tick(t, &batch(&[])).unwrap();
    }
    rec.finish().unwrap().wait().unwrap();
    engine.shutdown();
    let r = Reader::open_path(&path).unwrap();
    let (first, last) = (r.index().first().unwrap(), r.index().last().unwrap());
    assert_eq!(
        (first.start_tick, last.start_tick + last.tick_count - 1),
        (0, 9)
    );
    let side = dir.path().join("run.previous-1.reel");
    assert_eq!(last_live_tick(&live_dir_for(&side)), 99);
}

/// Resuming (chosen) refuses a tick the old recording already has, saying what to do.
#[test]
fn a_resumed_recording_refuses_an_old_tick_and_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.reel");
    stopped_server(&path, 100);
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, options(OnExisting::Resume))
        .unwrap();
    assert_eq!(rec.wait_resumed(Duration::from_secs(30)).unwrap(), Some(99));
    let msg = rec.submit_tick(0, &batch(&[])).unwrap_err().to_string();
    assert!(
        msg.contains("tick 0 is not after the last submitted tick 99")
            && msg.contains("`on_existing`")
            && msg.contains("StartFresh"),
        "{msg}"
    );
    rec.submit_tick(100, &batch(&[])).unwrap();
    rec.close().unwrap();
    engine.shutdown();
}

/// `overwrite` with the defaults starts fresh (it used to resume); the live directory stays
/// `on_existing`'s to decide.
#[test]
fn overwrite_with_the_defaults_starts_fresh() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.reel");
    stopped_server(&path, 50);
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(
            &path,
            RecorderOptions {
                overwrite: true,
                ..RecorderOptions::default()
            },
        )
        .unwrap();
    assert_eq!(rec.wait_resumed(Duration::from_secs(30)).unwrap(), None);
    rec.submit_tick(0, &batch(&[])).unwrap();
    rec.finish().unwrap().wait().unwrap();
    engine.shutdown();
    let side = dir.path().join("run.previous-1.reel");
    assert_eq!(last_live_tick(&live_dir_for(&side)), 49);
}

#[test]
fn refuse_says_what_to_do_and_leaves_the_recording_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.reel");
    stopped_server(&path, 20);
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let e = engine
        .start_recording(&path, options(OnExisting::Refuse))
        .unwrap_err();
    assert_eq!(e.io_kind(), Some(std::io::ErrorKind::AlreadyExists), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("`on_existing`") && msg.contains("StartFresh"),
        "{msg}"
    );
    assert_eq!(last_live_tick(&live_dir_for(&path)), 19);
    // The path is free again: a Resume start carries on.
    let rec = engine
        .start_recording(&path, options(OnExisting::Resume))
        .unwrap();
    assert_eq!(rec.wait_resumed(Duration::from_secs(30)).unwrap(), Some(19));
    rec.close().unwrap();
    engine.shutdown();
    assert!(!dir.path().join("run.previous-1.reel.live").exists());
}

#[test]
fn start_fresh_leaves_a_recording_another_writer_holds() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, options(OnExisting::Resume))
        .unwrap();
    rec.submit_tick(0, &batch(&[])).unwrap();
    rec.flush().unwrap();
    // Another engine (another server process on the same path) must not move it away.
    let other = Engine::new(EngineOptions::default()).unwrap();
    let e = other
        .start_recording(&path, options(OnExisting::StartFresh))
        .unwrap_err();
    assert!(matches!(e, Error::Locked(_)), "{e}");
    assert!(live_dir_for(&path).is_dir());
    assert!(!dir.path().join("run.previous-1.reel.live").exists());
    rec.close().unwrap();
    other.shutdown();
    engine.shutdown();
}
