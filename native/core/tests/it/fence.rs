//! A writer whose live directory is removed (and perhaps recreated by another writer of the same
//! path) stops writing instead of mixing its frames into the other recording.

use crate::common;

use tickreel::play::Reader;
use tickreel::storage::live::live_dir_for;
use tickreel::{Engine, EngineOptions, Error};

#[test]
fn a_writer_whose_directory_was_replaced_stops_and_never_writes_into_the_new_recording() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.reel");
    let live = live_dir_for(&path);
    let a_engine = Engine::new(EngineOptions::default()).unwrap();
    let a = a_engine
        .start_recording(&path, common::flushed_when_asked())
        .unwrap();
    for t in 0..10 {
        a.submit_tick(t, &common::pose_tick(1, 1000 + i64::from(t)))
            .unwrap();
    }
    a.flush().unwrap();
    // Someone removes A's directory; writer B (another engine, as another process would) records
    // the same path.
    std::fs::remove_dir_all(&live).unwrap();
    let b_engine = Engine::new(EngineOptions::default()).unwrap();
    let b = b_engine
        .start_recording(&path, common::flushed_when_asked())
        .unwrap();
    for t in 100..110 {
        b.submit_tick(t, &common::pose_tick(2, i64::from(t)))
            .unwrap();
    }
    b.flush().unwrap();
    // A keeps recording: its flush fails, naming the directory, and writes nothing there.
    for t in 10..20 {
        a.submit_tick(t, &common::pose_tick(1, 1000 + i64::from(t)))
            .unwrap();
    }
    let e = a.flush().unwrap_err();
    assert!(
        matches!(&e, Error::InvalidState(m) if m.contains("removed or replaced")),
        "{e}"
    );
    assert!(a.finish().unwrap().wait().is_err());
    // B's directory holds B's ticks only, and B finishes cleanly.
    let r = Reader::open_live(&live).unwrap();
    assert_eq!((r.first_tick(), r.last_tick()), (Some(100), Some(109)));
    b.finish().unwrap().wait().unwrap();
    let r = Reader::open_path(&path).unwrap();
    r.verify().unwrap();
    assert_eq!((r.first_tick(), r.last_tick()), (Some(100), Some(109)));
    for t in r.ticks(0, u32::MAX) {
        for e in t.unwrap().events {
            if let Some(id) = e.entity() {
                assert_eq!(id, 2, "a frame of writer A in B's recording: {e:?}");
            }
        }
    }
}

#[test]
fn a_writer_whose_directory_was_removed_stops_with_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gone.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, common::flushed_when_asked())
        .unwrap();
    rec.submit_tick(0, &common::pose_tick(1, 0)).unwrap();
    rec.flush().unwrap();
    std::fs::remove_dir_all(live_dir_for(&path)).unwrap();
    rec.submit_tick(1, &common::pose_tick(1, 1)).unwrap();
    assert!(rec.flush().is_err());
    assert!(rec.status().is_err());
    assert!(
        !live_dir_for(&path).exists(),
        "nothing recreated the directory"
    );
}
