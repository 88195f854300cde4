//! A resumed recording's stats go on from what it held (issue 31): `ticks_written`, `events` and
//! `pose_samples` of a recording stopped without finishing and resumed equal a straight
//! recording's of the same ticks (they counted only what was written since the resume).

use crate::common;

use std::path::Path;
use std::time::Duration;

use tickreel::format::Stats;
use tickreel::play::Reader;
use tickreel::storage::live::live_dir_for;
use tickreel::{Engine, EngineOptions};

use crate::common::batch;

/// The stats of the live directory of `path`, as a reader sees them.
fn live_stats(path: &Path) -> Stats {
    Reader::open_live(live_dir_for(path))
        .unwrap()
        .metadata()
        .library
        .stats
}

#[test]
fn a_resumed_recordings_stats_count_what_it_held() {
    let dir = tempfile::tempdir().unwrap();
    let ticks = common::sim_ticks(6, 900, 3);

    let straight = dir.path().join("straight.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&straight, common::small_flush())
        .unwrap();
    for (t, e) in &ticks {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    rec.flush().unwrap();
    rec.status().unwrap();
    drop(rec);
    engine.shutdown();
    let want = live_stats(&straight);
    assert!(want.ticks_written > 0 && want.pose_samples > 0, "{want:?}");

    let resumed = dir.path().join("resumed.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&resumed, common::small_flush())
        .unwrap();
    for (t, e) in &ticks[..400] {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    rec.flush().unwrap();
    rec.status().unwrap();
    drop(rec); // stopped without finishing: resumable
    engine.shutdown();
    let before = live_stats(&resumed);
    assert!(before.ticks_written > 0 && before.ticks_written < want.ticks_written);

    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&resumed, common::small_flush())
        .unwrap();
    rec.wait_resumed(Duration::from_secs(30)).unwrap();
    for (t, e) in &ticks[400..] {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    rec.flush().unwrap();
    rec.status().unwrap();
    let got = live_stats(&resumed);
    let counts = |s: &Stats| (s.ticks_written, s.events, s.pose_samples, s.dropped_ticks);
    assert_eq!(
        counts(&got),
        counts(&want),
        "resumed {got:?}, straight {want:?}"
    );
    // the uncompressed bytes are the chunks' (cut differently at the resume): their sum
    let r = Reader::open_live(live_dir_for(&resumed)).unwrap();
    let bytes: u64 = r
        .index()
        .iter()
        .map(|e| u64::from(e.uncompressed_len))
        .sum();
    assert_eq!(got.uncompressed_bytes, bytes);
    drop(rec);
    engine.shutdown();
}
