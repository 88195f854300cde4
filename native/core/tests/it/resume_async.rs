//! Resuming never blocks the caller: `start_recording` on an existing live directory returns while
//! the directory is recovered on a thread of its own (held here at its first look at the
//! directory); ticks and calls made meanwhile wait in order and are applied once it is done; a
//! tick at or before the recording's end is refused then; a recovery that fails retires the
//! recording with its error.

use crate::common;
use crate::common::hooked;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::common::batch;
use tickreel::play::Reader;
use tickreel::record::FlushPolicy;
use tickreel::storage::live::live_dir_for;
use tickreel::{Engine, EngineOptions, Error, RecorderOptions};

fn options() -> RecorderOptions {
    RecorderOptions {
        flush: FlushPolicy {
            max_pending_bytes: 4 << 10,
            ..FlushPolicy::default()
        },
        on_existing: tickreel::record::OnExisting::Resume,
        ..RecorderOptions::default()
    }
}

/// A disk whose `list` of the live directory waits while `hold` is set (or fails while `fail` is).
fn held_disk(
    live: std::path::PathBuf,
    hold: Arc<AtomicBool>,
    fail: Arc<AtomicBool>,
) -> Arc<hooked::Hooked> {
    hooked::Hooked::new(Box::new(move |op, path| {
        if op == "list" && path == live {
            while hold.load(Ordering::Acquire) {
                std::thread::sleep(Duration::from_millis(1));
            }
            if fail.load(Ordering::Acquire) {
                return Err(Error::Io(std::io::Error::other("the disk went away")));
            }
        }
        Ok(())
    }))
}

#[test]
fn a_resume_returns_at_once_and_holds_what_comes_meanwhile() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.reel");
    let ticks = common::sim_ticks(4, 600, 9);
    {
        let engine = Engine::new(EngineOptions::default()).unwrap();
        let rec = engine.start_recording(&path, options()).unwrap();
        for (t, e) in &ticks[..300] {
            rec.submit_tick(*t, &batch(e)).unwrap();
        }
        rec.close().unwrap();
        engine.shutdown();
    }
    let hold = Arc::new(AtomicBool::new(true));
    let fail = Arc::new(AtomicBool::new(false));
    let engine = Engine::with_storage(
        EngineOptions::default(),
        held_disk(live_dir_for(&path), hold.clone(), fail.clone()),
    )
    .unwrap();
    // Returns although the recovery is held.
    let rec = engine.start_recording(&path, options()).unwrap();
    assert!(matches!(
        rec.wait_resumed(Duration::ZERO),
        Err(Error::NotReady(_))
    ));
    // Ticks, metadata and a flush request wait in order.
    rec.submit_tick(299, &batch(&ticks[299].1)).unwrap(); // refused once the end is known
    for (t, e) in &ticks[300..450] {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    rec.set_user_metadata("phase", fastnbt::Value::String("resumed".into()))
        .unwrap();
    let flusher = {
        let rec = &rec;
        std::thread::scope(|s| {
            let h = s.spawn(move || rec.flush());
            std::thread::sleep(Duration::from_millis(50));
            assert!(!h.is_finished(), "a flush waits for the recovery");
            hold.store(false, Ordering::Release);
            h.join().unwrap()
        })
    };
    flusher.unwrap();
    assert_eq!(
        rec.wait_resumed(Duration::from_secs(30)).unwrap(),
        Some(299)
    );
    assert_eq!(
        rec.stats().rejected_ticks,
        1,
        "tick 299 was already recorded"
    );
    for (t, e) in &ticks[450..] {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    let out = rec.finish().unwrap().wait().unwrap();
    let r = Reader::open_path(&out).unwrap();
    r.verify().unwrap();
    assert_eq!((r.first_tick(), r.last_tick()), (Some(0), Some(599)));
    let want = common::expected_states(&ticks);
    for (t, state) in want.iter().step_by(37) {
        assert_eq!(&r.seek(*t).unwrap().entities, state, "tick {t}");
    }
    assert_eq!(
        r.metadata().user.get("phase"),
        Some(&fastnbt::Value::String("resumed".into()))
    );
}

#[test]
fn a_failed_recovery_retires_the_recording_with_its_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.reel");
    {
        let engine = Engine::new(EngineOptions::default()).unwrap();
        let rec = engine.start_recording(&path, options()).unwrap();
        for (t, e) in &common::sim_ticks(2, 50, 3) {
            rec.submit_tick(*t, &batch(e)).unwrap();
        }
        rec.close().unwrap();
    }
    let hold = Arc::new(AtomicBool::new(false));
    let fail = Arc::new(AtomicBool::new(true));
    let engine = Engine::with_storage(
        EngineOptions::default(),
        held_disk(live_dir_for(&path), hold, fail),
    )
    .unwrap();
    let rec = engine.start_recording(&path, options()).unwrap();
    let e = rec.wait_resumed(Duration::from_secs(30)).unwrap_err();
    assert!(e.to_string().contains("the disk went away"), "{e}");
    // Every later call fails with it; the directory is left as it was, resumable.
    let start = std::time::Instant::now();
    while rec.status().is_ok() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(rec.flush().is_err());
    assert!(rec.finish().and_then(|h| h.wait()).is_err());
    assert!(live_dir_for(&path).join("meta.tkrl").exists());
}

#[test]
fn a_resume_creates_no_file_on_the_calling_thread() {
    // A fresh recording's start probes its directory with a temporary file; a resume does not
    // (its ticks stay in its live directory if `finish` cannot write), so the call is a few
    // `stat`s, the lock and a thread start.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.reel");
    let ticks = common::sim_ticks(1, 40, 3);
    {
        let engine = Engine::new(EngineOptions::default()).unwrap();
        let rec = engine.start_recording(&path, options()).unwrap();
        for (t, e) in &ticks[..20] {
            rec.submit_tick(*t, &batch(e)).unwrap();
        }
        rec.close().unwrap();
        engine.shutdown();
    }
    let caller = std::thread::current().id();
    let created = Arc::new(AtomicBool::new(false));
    let seen = created.clone();
    let storage = hooked::Hooked::new(Box::new(move |op, _| {
        if std::thread::current().id() == caller && op.starts_with("create") {
            seen.store(true, Ordering::Release);
        }
        Ok(())
    }));
    let engine = Engine::with_storage(EngineOptions::default(), storage).unwrap();
    let rec = engine.start_recording(&path, options()).unwrap();
    assert!(
        !created.load(Ordering::Acquire),
        "the resume created a file"
    );
    assert_eq!(rec.wait_resumed(Duration::from_secs(30)).unwrap(), Some(19));
    for (t, e) in &ticks[20..] {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    let out = rec.finish().unwrap().wait().unwrap();
    assert_eq!(Reader::open_path(&out).unwrap().last_tick(), Some(39));
    engine.shutdown();
}
