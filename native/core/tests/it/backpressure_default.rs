//! The default backpressure under a stalled writer: `submit_tick` waits about 1 ms for room, then
//! drops the tick, counts it (recorder and engine stats), fails with `Backpressure`, and the
//! finished recording lists the gap: a stalled writer never holds the server thread for a tick,
//! and never makes a recording with dropped ticks look complete.

use std::time::{Duration, Instant};

use tickreel::play::Reader;
use tickreel::record::{Backpressure, DEFAULT_BLOCK_DEADLINE, Submitted};
use tickreel::{Engine, EngineOptions, Error, RecorderOptions};

use crate::common;
use crate::common::batch;

#[test]
fn the_default_holds_a_submit_briefly_then_drops_counts_and_records_the_gap() {
    assert_eq!(
        RecorderOptions::default().backpressure,
        Backpressure::Block {
            deadline: DEFAULT_BLOCK_DEADLINE
        }
    );
    assert!(DEFAULT_BLOCK_DEADLINE <= Duration::from_millis(2));
    let dir = tempfile::tempdir().unwrap();
    // A queue of 4 slots: full after 4 ticks while the writer is held.
    let engine = Engine::new(EngineOptions {
        queue_capacity: 4,
        ..EngineOptions::default()
    })
    .unwrap();
    let path = dir.path().join("stalled.reel");
    let rec = engine
        .start_recording(&path, RecorderOptions::default())
        .unwrap();
    common::wait_for_empty_queue(&engine);
    engine.set_writers_stalled(true);
    // Empty ticks (2 bytes): each takes a queue slot.
    let (mut queued, mut dropped) = (Vec::new(), Vec::new());
    let (mut longest, mut waited) = (Duration::ZERO, Duration::ZERO);
    for t in 0..40 {
        let start = Instant::now();
        let r = rec.submit_tick(t, &batch(&[]));
        let took = start.elapsed();
        longest = longest.max(took);
        match r {
            Ok(Submitted::Queued) => queued.push(t),
            Err(e @ Error::Backpressure(_)) => {
                assert!(e.to_string().contains(&format!("tick {t} dropped")), "{e}");
                waited += took;
                dropped.push(t);
            }
            other => panic!("tick {t}: {other:?}"),
        }
    }
    engine.set_writers_stalled(false);
    assert_eq!(queued, (0..4).collect::<Vec<_>>());
    assert_eq!(dropped, (4..40).collect::<Vec<_>>());
    // Generous bounds for a busy machine: each call far below a 50 ms tick, and the 36 drops
    // together far below the 36 × 50 ms the old default (a 50 ms wait) took.
    assert!(longest < Duration::from_millis(200), "{longest:?}");
    assert!(waited < Duration::from_millis(900), "{waited:?}");
    let s = rec.stats();
    assert_eq!((s.submitted_ticks, s.dropped_ticks), (4, 36), "{s:?}");
    assert_eq!(engine.stats().dropped_ticks, 36);
    // Recording goes on once the writer catches up.
    common::wait_for_empty_queue(&engine);
    rec.submit_tick(40, &batch(&[])).unwrap();
    let out = rec.finish().unwrap().wait().unwrap();
    let r = Reader::open_path(out).unwrap();
    let lib = &r.metadata().library;
    assert_eq!(
        (lib.gaps.len(), lib.gaps[0].from, lib.gaps[0].to),
        (1, 4, 39)
    );
    assert_eq!(lib.stats.dropped_ticks, 36);
    let last = r.index().last().unwrap();
    assert_eq!(last.start_tick + last.tick_count - 1, 40);
    engine.shutdown();
}

/// The other calls a server thread makes wait no longer than the policy either, and queue nothing
/// when they fail.
#[test]
fn a_snapshot_or_a_flush_under_a_stalled_writer_fails_within_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions {
        queue_capacity: 2,
        ..EngineOptions::default()
    })
    .unwrap();
    let rec = engine
        .start_recording(dir.path().join("calls.reel"), RecorderOptions::default())
        .unwrap();
    common::wait_for_empty_queue(&engine);
    engine.set_writers_stalled(true);
    for t in 0..2 {
        rec.submit_tick(t, &batch(&[])).unwrap();
    }
    let start = Instant::now();
    let snapshot = rec.offer_snapshot(vec![1; 64]);
    let flush = rec.flush();
    let took = start.elapsed();
    engine.set_writers_stalled(false);
    assert!(
        matches!(snapshot, Err(Error::Backpressure(_))),
        "{snapshot:?}"
    );
    assert!(matches!(flush, Err(Error::Backpressure(_))), "{flush:?}");
    assert!(took < Duration::from_millis(400), "{took:?}");
    rec.abort().unwrap();
    engine.shutdown();
}
