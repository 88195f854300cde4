//! Ticks a server thread stages in its recording's ring (`record::staging`) reach the file in the
//! order they were submitted, also around the messages that take the writer's queue (snapshots,
//! flushes, ticks too large for the ring, ticks submitted while the ring is full), from several
//! threads in turn, and with the writer held.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tickreel::play::Reader;
use tickreel::record::Submitted;
use tickreel::storage::live::live_dir_for;
use tickreel::{Engine, EngineOptions, Event, Recorder, RecorderOptions};

use common::{batch, expected_states, recorded_ticks};

/// `events` with its moves repeated until the batch is larger than `bytes` (a tick too large for
/// a ring of twice that, which takes the queue).
fn inflated(events: &[Event], bytes: usize) -> Vec<Event> {
    let moves: Vec<Event> = events
        .iter()
        .filter(|e| matches!(e, Event::Pose { .. } | Event::Position { .. }))
        .cloned()
        .collect();
    let mut out = events.to_vec();
    while batch(&out).len() <= bytes && !moves.is_empty() {
        out.extend(moves.iter().cloned());
    }
    out
}

/// Submits the first tick (the first large tick makes the ring, and takes the queue itself), waits
/// until the writer has it, then holds the writer and submits the rest.
fn submit_behind_a_held_writer(engine: &Engine, rec: &Recorder, ticks: &[(u32, Vec<Event>)]) {
    rec.submit_tick(ticks[0].0, &batch(&ticks[0].1)).unwrap();
    common::wait_for_empty_queue(engine);
    engine.set_writers_stalled(true);
    for (t, e) in &ticks[1..] {
        assert_eq!(rec.submit_tick(*t, &batch(e)).unwrap(), Submitted::Queued);
    }
}

/// The recording holds every tick of `ticks`, in order, with the entities' states they make.
fn assert_holds(r: &Reader, ticks: &[(u32, Vec<Event>)]) {
    assert_eq!(
        recorded_ticks(r),
        ticks.iter().map(|(t, _)| *t).collect::<Vec<_>>()
    );
    for (t, state) in expected_states(ticks) {
        assert_eq!(r.seek(t).unwrap().entities, state, "tick {t}");
    }
}

#[test]
fn staged_ticks_keep_their_order_with_snapshots_flushes_and_large_ticks() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let mut o = RecorderOptions::default();
    o.chunk.chunk_ticks = 16;
    let rec = engine
        .start_recording(dir.path().join("order.reel"), o)
        .unwrap();
    // 20 players: ticks of a few hundred bytes, so the ring (4 KiB) holds a few of them.
    let mut ticks = common::sim_ticks(20, 300, 11);
    let mut snapshots = Vec::new();
    for (i, (t, events)) in ticks.iter_mut().enumerate() {
        if i % 37 == 5 {
            // The next tick starts a chunk carrying it: a snapshot taken before a staged tick
            // that came before it (or after one that came after it) would start another chunk.
            let blob = format!("world before {t}").into_bytes();
            rec.offer_snapshot(blob.clone()).unwrap();
            snapshots.push((*t, blob));
        }
        if i % 50 == 20 {
            // Larger than half the ring: queued, between staged ticks.
            *events = inflated(events, 3 << 10);
        }
        assert_eq!(
            rec.submit_tick(*t, &batch(events)).unwrap(),
            Submitted::Queued
        );
        if i % 23 == 0 {
            // The writer takes what is staged now and then, and sometimes not for a while.
            std::thread::sleep(Duration::from_millis(10));
        }
        if i % 61 == 0 {
            rec.flush().unwrap();
            assert_eq!(
                rec.stats().flushed_tick,
                Some(*t),
                "a flush covers every staged tick"
            );
        }
    }
    let stats = rec.stats();
    assert_eq!(stats.submitted_ticks, ticks.len() as u64);
    assert_eq!((stats.dropped_ticks, stats.rejected_ticks), (0, 0));
    let r = Reader::open_path(rec.finish().unwrap().wait().unwrap()).unwrap();
    r.verify().unwrap();
    assert_holds(&r, &ticks);
    let found: Vec<(u32, Vec<u8>)> = (0..r.index().len())
        .filter_map(|i| {
            let c = r.read_chunk(i).unwrap();
            c.snapshot.map(|s| (r.index()[i].start_tick, s))
        })
        .collect();
    // The first chunk carries an empty one (no provider).
    snapshots.insert(0, (0, Vec::new()));
    assert_eq!(found, snapshots);
    engine.shutdown();
}

#[test]
fn a_burst_past_the_ring_queues_the_rest_in_order() {
    // Back to back, with the writer held: the ring fills, the following ticks take the queue,
    // and once the writer goes on, it takes the ring's before the queue's.
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(dir.path().join("burst.reel"), RecorderOptions::default())
        .unwrap();
    let ticks = common::sim_ticks(20, 400, 12);
    submit_behind_a_held_writer(&engine, &rec, &ticks);
    let waiting = engine.stats().queue_depth;
    assert_eq!(
        waiting,
        ticks.len() - 1,
        "every tick waits, staged or queued"
    );
    assert_eq!(rec.stats().queue_depth, waiting);
    engine.set_writers_stalled(false);
    let r = Reader::open_path(rec.finish().unwrap().wait().unwrap()).unwrap();
    assert_holds(&r, &ticks);
    assert_eq!(engine.stats().queue_depth, 0);
    engine.shutdown();
}

#[test]
fn threads_that_submit_in_turn_share_one_ring() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = Arc::new(
        engine
            .start_recording(dir.path().join("turns.reel"), RecorderOptions::default())
            .unwrap(),
    );
    let ticks = Arc::new(common::sim_ticks(20, 400, 13));
    let next = Arc::new(Mutex::new(0usize));
    let threads: Vec<_> = (0..4)
        .map(|me| {
            let (rec, ticks, next) = (rec.clone(), ticks.clone(), next.clone());
            std::thread::spawn(move || {
                loop {
                    let mut n = next.lock().unwrap();
                    if *n == ticks.len() {
                        return;
                    }
                    // Each thread takes the ticks whose turn is its own, so that every thread
                    // stages some of them.
                    if *n % 4 == me {
                        let (t, e) = &ticks[*n];
                        rec.submit_tick(*t, &batch(e)).unwrap();
                        *n += 1;
                    }
                    drop(n);
                    std::thread::yield_now();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let rec = Arc::into_inner(rec).unwrap();
    let r = Reader::open_path(rec.finish().unwrap().wait().unwrap()).unwrap();
    assert_holds(&r, &ticks);
    engine.shutdown();
}

#[test]
fn staged_ticks_are_flushed_when_the_engine_shuts_down() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shutdown.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, RecorderOptions::default())
        .unwrap();
    let ticks = common::sim_ticks(20, 30, 14);
    // Held, so that the rest stays staged until the shutdown takes it.
    submit_behind_a_held_writer(&engine, &rec, &ticks);
    assert_eq!(engine.stats().queue_depth, ticks.len() - 1);
    let stopping = {
        let e = engine.clone();
        std::thread::spawn(move || e.shutdown())
    };
    std::thread::sleep(Duration::from_millis(50));
    engine.set_writers_stalled(false);
    stopping.join().unwrap();
    drop(rec);
    assert_holds(&Reader::open_live(live_dir_for(&path)).unwrap(), &ticks);
}
