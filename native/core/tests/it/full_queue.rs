//! A full queue between the server thread and the writer: backpressure bounds memory, counts the
//! ticks it drops and records them as gaps; metadata calls follow the backpressure policy; ending a
//! recording never waits for room and loses nothing, and an ending queued behind earlier messages
//! takes effect at shutdown. (The default policy under a stalled writer: `backpressure_default.rs`.)

use std::time::{Duration, Instant};

use tickreel::play::Reader;
use tickreel::record::{Backpressure, Submitted};
use tickreel::storage::live::live_dir_for;
use tickreel::{Engine, EngineOptions, Error, RecorderOptions};

use crate::common;
use crate::common::{batch, recorded_ticks, wait_for_empty_queue, within};

#[test]
fn backpressure_bounds_memory_counts_drops_and_records_gaps() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bp.reel");
    let max_inflight = 64 << 10;
    let engine = Engine::new(EngineOptions {
        queue_capacity: 32,
        max_inflight_bytes: max_inflight,
        ..EngineOptions::default()
    })
    .unwrap();
    let deadline = Duration::from_millis(10);
    let opts = RecorderOptions {
        backpressure: Backpressure::Block { deadline },
        ..RecorderOptions::default()
    };
    let rec = engine.start_recording(&path, opts).unwrap();
    let ticks = common::sim_ticks(50, 200, 5);
    let smallest = ticks.iter().map(|(_, e)| batch(e).len()).min().unwrap();
    let ring_ticks = (16 << 10) / (16 + smallest);
    engine.set_writers_stalled(true);
    let mut refused = Vec::new();
    for (t, e) in &ticks {
        let started = Instant::now();
        match rec.submit_tick(*t, &batch(e)) {
            Ok(Submitted::Queued) => {}
            Err(Error::Backpressure(_)) => refused.push(*t),
            other => panic!("{other:?}"),
        }
        // never blocks past its deadline (with a generous margin for a busy machine: a call
        // that ignored it would wait for the stalled writer, for ever)
        assert!(started.elapsed() < deadline + Duration::from_secs(5));
        let s = engine.stats();
        assert!(s.inflight_bytes <= max_inflight, "{}", s.inflight_bytes);
        // The queue's 32 slots, and the few ticks the recording's staging ring holds (at most
        // 16 KiB, a quarter of the budget, each tick with a 16-byte header).
        assert!(s.queue_depth <= 32 + ring_ticks, "{}", s.queue_depth);
    }
    assert!(!refused.is_empty(), "the stalled writer must cause drops");
    assert_eq!(rec.stats().dropped_ticks, refused.len() as u64);
    assert_eq!(engine.stats().dropped_ticks, refused.len() as u64);
    engine.set_writers_stalled(false);
    let out = rec.finish().unwrap().wait().unwrap();
    let r = Reader::open_path(out).unwrap();
    let meta = &r.metadata().library;
    assert_eq!(meta.stats.dropped_ticks, refused.len() as u64);
    let mut covered = Vec::new();
    for g in &meta.gaps {
        covered.extend(g.from..=g.to);
    }
    assert_eq!(covered, refused, "every dropped tick is recorded as a gap");
    let present: Vec<u32> = r.ticks(0, u32::MAX).map(|t| t.unwrap().tick).collect();
    assert_eq!(present.len() + refused.len(), ticks.len());

    // the Drop policy drops at once and says so
    let engine2 = Engine::new(EngineOptions {
        queue_capacity: 4,
        ..EngineOptions::default()
    })
    .unwrap();
    let rec2 = engine2
        .start_recording(
            dir.path().join("drop.reel"),
            RecorderOptions {
                backpressure: Backpressure::Drop,
                ..RecorderOptions::default()
            },
        )
        .unwrap();
    engine2.set_writers_stalled(true);
    // The staging ring takes the first few, the queue 4 more.
    let outcomes: Vec<_> = ticks[..40]
        .iter()
        .map(|(t, e)| rec2.submit_tick(*t, &batch(e)).unwrap())
        .collect();
    assert!(outcomes.contains(&Submitted::Dropped));
    engine2.set_writers_stalled(false);
    rec2.abort().unwrap();
}

/// Copies a live directory (without its lock file).

#[test]
fn metadata_calls_respect_the_backpressure_policy_when_the_queue_is_full() {
    use tickreel::format::EntityInfo;
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions {
        queue_capacity: 4,
        ..EngineOptions::default()
    })
    .unwrap();
    for backpressure in [
        Backpressure::Drop,
        Backpressure::Block {
            deadline: Duration::from_millis(20),
        },
    ] {
        let path = dir
            .path()
            .join(format!("{backpressure:?}.reel").replace(['{', '}', ' ', ':'], ""));
        let rec = engine
            .start_recording(
                &path,
                RecorderOptions {
                    backpressure,
                    ..RecorderOptions::default()
                },
            )
            .unwrap();
        std::thread::sleep(Duration::from_millis(50)); // let the writer take the Open message
        engine.set_writers_stalled(true);
        let ticks = common::sim_ticks(1, 10, 1);
        for (t, e) in &ticks {
            let _ = rec.submit_tick(*t, &batch(e));
        }
        let started = Instant::now();
        let info = EntityInfo {
            id: 1,
            ..EntityInfo::default()
        };
        assert!(matches!(
            rec.register_entity(info),
            Err(Error::Backpressure(_))
        ));
        assert!(matches!(rec.player_left(1), Err(Error::Backpressure(_))));
        assert!(matches!(
            rec.offer_snapshot(vec![1]),
            Err(Error::Backpressure(_))
        ));
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "never blocked past the deadline"
        );
        engine.set_writers_stalled(false);
        // once the writer has drained its queue, the same call goes through
        let waited = Instant::now();
        while engine.stats().queue_depth > 0 && waited.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(5));
        }
        rec.register_entity(EntityInfo {
            id: 1,
            ..EntityInfo::default()
        })
        .unwrap();
        rec.abort().unwrap();
    }
}

#[test]
fn ending_a_recording_never_waits_for_room_in_a_full_queue_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions {
        queue_capacity: 8,
        ..EngineOptions::default()
    })
    .unwrap();
    let opts = RecorderOptions {
        backpressure: Backpressure::Drop,
        ..common::small_flush()
    };
    let paths: Vec<_> = ["finished", "dropped", "closed", "aborted"]
        .iter()
        .map(|n| dir.path().join(format!("{n}.reel")))
        .collect();
    let recs: Vec<_> = paths
        .iter()
        .map(|p| engine.start_recording(p, opts.clone()).unwrap())
        .collect();
    wait_for_empty_queue(&engine);
    engine.set_writers_stalled(true);
    // Fill each recording's staging ring and the queue from all four recordings; what did not
    // fit was dropped.
    let ticks = common::sim_ticks(2, 400, 9);
    let mut queued = vec![Vec::new(); recs.len()];
    for (t, e) in &ticks {
        for (i, rec) in recs.iter().enumerate() {
            if rec.submit_tick(*t, &batch(e)).unwrap() == Submitted::Queued {
                queued[i].push(*t);
            }
        }
    }
    let full = engine.stats().queue_depth;
    assert!(
        queued
            .iter()
            .all(|q| !q.is_empty() && q.len() < ticks.len()),
        "every ring and the queue are full: each recording dropped ticks"
    );
    assert!(
        full > 8,
        "the 8 queued messages and the staged ticks wait: {full}"
    );
    // A new recording is refused at once (Drop policy) instead of waiting for room.
    let (e, late, o) = (engine.clone(), dir.path().join("late.reel"), opts.clone());
    let Some(refused) = within(move || e.start_recording(late, o).map(|_| ())) else {
        engine.set_writers_stalled(false);
        panic!("start_recording waited for room in the full queue");
    };
    assert!(
        matches!(refused, Err(Error::Backpressure(_))),
        "{refused:?}"
    );

    // End all four from other threads while the writer is held: finish and drop return at once;
    // close and abort are queued at once, then wait for the writer.
    let (done_tx, done_rx) = crossbeam_channel::unbounded();
    let mut recs = recs.into_iter();
    let (finished, dropped, closed, aborted) = (
        recs.next().unwrap(),
        recs.next().unwrap(),
        recs.next().unwrap(),
        recs.next().unwrap(),
    );
    let tx = done_tx.clone();
    let t1 = std::thread::spawn(move || {
        let h = finished.finish();
        tx.send("finish").unwrap();
        h
    });
    let tx = done_tx.clone();
    let t2 = std::thread::spawn(move || {
        drop(dropped);
        tx.send("drop").unwrap();
    });
    let t3 = std::thread::spawn(move || closed.close());
    let t4 = std::thread::spawn(move || aborted.abort());
    let mut returned = Vec::new();
    while returned.len() < 2 {
        match done_rx.recv_timeout(Duration::from_secs(20)) {
            Ok(what) => returned.push(what),
            Err(_) => break,
        }
    }
    let still_stalled_queue = engine.stats().queue_depth;
    // Held longer than the writer's 20 ms check interval, its first check comes right after it
    // takes the first message off the queue: the endings on the control channel must wait there
    // for the rest of their recordings' messages.
    std::thread::sleep(Duration::from_millis(100));
    engine.set_writers_stalled(false);
    assert_eq!(
        returned.len(),
        2,
        "finish and drop returned while the writer was held: {returned:?}"
    );
    assert_eq!(still_stalled_queue, full, "nothing was taken off the queue");

    let handle = t1.join().unwrap().unwrap();
    t2.join().unwrap();
    t3.join().unwrap().unwrap();
    t4.join().unwrap().unwrap();
    // Every tick queued before the ending is in the finished file...
    let out = handle.wait().unwrap();
    let r = Reader::open_path(&out).unwrap();
    r.verify().unwrap();
    assert_eq!(recorded_ticks(&r), queued[0]);
    // ...in the dropped and the closed recording's live directories (resumable)...
    for (i, path) in [(1, &paths[1]), (2, &paths[2])] {
        let waited = Instant::now();
        let rec = loop {
            match engine.start_recording(path, opts.clone()) {
                Err(Error::Locked(_)) if waited.elapsed() < Duration::from_secs(10) => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                other => break other.unwrap(),
            }
        };
        let r = Reader::open_live(live_dir_for(path)).unwrap();
        assert_eq!(recorded_ticks(&r), queued[i], "recording {i}");
        rec.abort().unwrap();
    }
    // ...and the aborted one left nothing.
    assert!(!paths[3].exists() && !live_dir_for(&paths[3]).exists());
    // With the queue drained, a new recording starts again.
    engine
        .start_recording(dir.path().join("late.reel"), opts)
        .unwrap()
        .abort()
        .unwrap();
}

#[test]
fn an_ending_that_waits_for_earlier_messages_takes_effect_at_shutdown() {
    // The writer is held with a full queue when the engine shuts down: the finish that took the
    // control channel still completes, after every tick queued before it.
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions {
        queue_capacity: 4,
        ..EngineOptions::default()
    })
    .unwrap();
    let opts = RecorderOptions {
        backpressure: Backpressure::Drop,
        ..RecorderOptions::default()
    };
    let rec = engine
        .start_recording(dir.path().join("a.reel"), opts)
        .unwrap();
    wait_for_empty_queue(&engine);
    engine.set_writers_stalled(true);
    let mut queued = Vec::new();
    for (t, e) in common::sim_ticks(1, 10, 3) {
        if rec.submit_tick(t, &batch(&e)).unwrap() == Submitted::Queued {
            queued.push(t);
        }
    }
    assert_eq!(queued.len(), 4);
    let Some((handle, rec)) = within(move || (rec.finish(), rec)) else {
        engine.set_writers_stalled(false);
        panic!("finish waited for room in the full queue");
    };
    let handle = handle.unwrap();
    drop(rec);
    engine.shutdown(); // releases the held writer
    let out = handle.wait().unwrap();
    assert_eq!(recorded_ticks(&Reader::open_path(out).unwrap()), queued);
}
