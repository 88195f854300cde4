//! Ticks a server thread stages in its recording's ring (`record::shared::staging`) reach the file in the
//! order they were submitted, also around the messages that take the writer's queue (snapshots,
//! flushes, ticks too large for the ring, ticks submitted while the ring is full, messages other
//! threads are sending), from several threads in turn, and with the writer held; a recording
//! being resumed stages nothing (its ticks stay within the in-flight budget); what a retired
//! recording left in its ring is not counted as waiting.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tickreel::play::Reader;
use tickreel::record::{Backpressure, Submitted};
use tickreel::storage::live::live_dir_for;
use tickreel::{Engine, EngineOptions, Event, Recorder, RecorderOptions};

use crate::common::{batch, expected_states, recorded_ticks};

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
    o.chunk_policy.chunk_ticks = 16;
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
    // Every call on the recording now says why it cannot be served.
    let errors = [
        rec.submit_tick(1000, &batch(&ticks[1].1)).unwrap_err(),
        rec.finish().map(|_| ()).unwrap_err(),
        rec.close().unwrap_err(),
        rec.abort().unwrap_err(),
    ];
    for e in errors {
        assert!(e.to_string().contains("the engine has shut down"), "{e}");
    }
    drop(rec);
    assert_holds(&Reader::open_live(live_dir_for(&path)).unwrap(), &ticks);
}

#[test]
fn ticks_submitted_while_a_recording_resumes_take_the_queue() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("resumed.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let ticks = common::sim_ticks(20, 90, 15);
    let resuming = || RecorderOptions {
        on_existing: tickreel::record::OnExisting::Resume,
        ..RecorderOptions::default()
    };
    let rec = engine.start_recording(&path, resuming()).unwrap();
    for (t, e) in &ticks[..30] {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    assert!(rec.staged_ticks() > 0);
    rec.close().unwrap();
    drop(rec);
    // Held, so that the recovery is not done while the next ticks come: the writer holds them
    // until it is, in the budget, off the queue (a ring would hold them outside it).
    common::wait_for_empty_queue(&engine);
    engine.set_writers_stalled(true);
    let rec = engine.start_recording(&path, resuming()).unwrap();
    for (t, e) in &ticks[30..60] {
        assert_eq!(rec.submit_tick(*t, &batch(e)).unwrap(), Submitted::Queued);
    }
    assert_eq!(rec.staged_ticks(), 0, "a resuming recording staged ticks");
    assert!(engine.stats().inflight_bytes > 0);
    engine.set_writers_stalled(false);
    assert_eq!(
        rec.wait_resumed(Duration::from_secs(10)).unwrap(),
        Some(ticks[29].0)
    );
    for (t, e) in &ticks[60..] {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    assert!(
        rec.staged_ticks() > 0,
        "resumed, the recording stages again"
    );
    let r = Reader::open_path(rec.finish().unwrap().wait().unwrap()).unwrap();
    assert_holds(&r, &ticks);
    engine.shutdown();
}

#[test]
fn a_tick_submitted_while_another_thread_sends_a_message_takes_the_queue() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(dir.path().join("sending.reel"), RecorderOptions::default())
        .unwrap();
    let ticks = common::sim_ticks(20, 6, 16);
    submit_behind_a_held_writer(&engine, &rec, &ticks[..2]);
    assert_eq!(rec.staged_ticks(), 1);
    // A message on its way and not counted: a staged tick could be taken before it, and before
    // a tick queued after it.
    rec.hold_a_send(true);
    for (t, e) in &ticks[2..4] {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    assert_eq!(
        rec.staged_ticks(),
        1,
        "staged while a message was on its way"
    );
    rec.hold_a_send(false);
    for (t, e) in &ticks[4..] {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    assert_eq!(rec.staged_ticks(), 3);
    engine.set_writers_stalled(false);
    let r = Reader::open_path(rec.finish().unwrap().wait().unwrap()).unwrap();
    assert_holds(&r, &ticks);
    engine.shutdown();
}

#[test]
fn another_threads_messages_never_reorder_the_ticks() {
    // The server thread alternates ticks that take the queue (one move fits in a queue slot) and
    // staged ones, while another thread keeps sending metadata.
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = Arc::new(
        engine
            .start_recording(dir.path().join("meta.reel"), RecorderOptions::default())
            .unwrap(),
    );
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let meta = {
        let (rec, stop) = (rec.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut n = 0i64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                rec.set_user_metadata("n", fastnbt::Value::Long(n)).unwrap();
                n += 1;
                // Often, not flooding the queue (a full queue sends every tick there).
                for _ in 0..(n % 7) * 50 {
                    std::hint::spin_loop();
                }
            }
            n
        })
    };
    let mut ticks = common::sim_ticks(20, 4000, 17);
    for (i, (t, e)) in ticks.iter_mut().enumerate() {
        if i % 2 == 1 {
            e.retain(|e| matches!(e, Event::Pose { .. } | Event::Position { .. }));
            e.truncate(1);
            assert!(
                !e.is_empty() && batch(e).len() <= 38,
                "a tick for a queue slot"
            );
        }
        rec.submit_tick(*t, &batch(e)).unwrap();
        // Paced a little, so that the writer keeps up and the ring has room.
        if i % 4 == 3 {
            std::thread::sleep(Duration::from_micros(100));
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let sent = meta.join().unwrap();
    assert!(sent > 100, "{sent} metadata messages");
    let rec = Arc::into_inner(rec).unwrap();
    assert_eq!(rec.stats().rejected_ticks, 0, "{:?}", rec.status());
    assert!(rec.staged_ticks() > 100, "{} staged", rec.staged_ticks());
    let r = Reader::open_path(rec.finish().unwrap().wait().unwrap()).unwrap();
    assert_holds(&r, &ticks);
    engine.shutdown();
}

#[test]
fn a_retired_recording_leaves_nothing_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let mut o = RecorderOptions::default();
    o.chunk_policy.snapshot_interval = 8;
    o.snapshot_provider = Some(Arc::new(|tick| {
        assert!(tick < 8, "plugin bug at tick {tick}");
        None
    }));
    let rec = engine
        .start_recording(dir.path().join("retired.reel"), o)
        .unwrap();
    // The writer takes the staged ticks after the first in one go, and the provider's panic at
    // tick 8 retires the recording with the rest still in the ring.
    let ticks = common::sim_ticks(20, 12, 18);
    submit_behind_a_held_writer(&engine, &rec, &ticks);
    assert!(rec.staged_ticks() >= 10, "{}", rec.staged_ticks());
    engine.set_writers_stalled(false);
    common::wait_for_empty_queue(&engine);
    let err = rec.status().unwrap_err().to_string();
    assert!(err.contains("plugin bug at tick 8"), "{err}");
    assert_eq!(engine.stats().queue_depth, 0);
    assert_eq!(rec.stats().queue_depth, 0);
    drop(rec);
    engine.shutdown();
}

#[test]
fn a_call_that_waits_without_end_for_room_neither_panics_nor_keeps_ticks_off_the_ring() {
    // `Block` with a deadline past what the clock can count: a call waiting for room in a full
    // queue waits until there is room (it panicked on the deadline's overflow, and a caller that
    // caught the panic left every later tick of the recording off its ring).
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions {
        queue_capacity: 8,
        ..EngineOptions::default()
    })
    .unwrap();
    let o = RecorderOptions {
        backpressure: Backpressure::Block {
            deadline: Duration::MAX,
        },
        ..RecorderOptions::default()
    };
    let rec = Arc::new(
        engine
            .start_recording(dir.path().join("forever.reel"), o)
            .unwrap(),
    );
    let ticks = common::sim_ticks(20, 40, 19);
    submit_behind_a_held_writer(&engine, &rec, &ticks[..2]);
    // Small ticks fill the queue behind the held writer.
    let mut small = Vec::new();
    for (t, e) in &ticks[2..12] {
        let mut e = e.clone();
        e.retain(|e| matches!(e, Event::Pose { .. } | Event::Position { .. }));
        e.truncate(1);
        small.push((*t, e));
    }
    for (t, e) in &small[..8] {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    let waiting = {
        let rec = rec.clone();
        std::thread::spawn(move || rec.set_user_metadata("k", fastnbt::Value::Int(1)))
    };
    std::thread::sleep(Duration::from_millis(100));
    assert!(!waiting.is_finished(), "the call waits for room");
    engine.set_writers_stalled(false);
    waiting.join().expect("no panic").unwrap();
    let staged = rec.staged_ticks();
    let mut all: Vec<(u32, Vec<Event>)> = ticks[..2].to_vec();
    all.extend(small[..8].iter().cloned());
    for (t, e) in &ticks[12..] {
        rec.submit_tick(*t, &batch(e)).unwrap();
        all.push((*t, e.clone()));
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(rec.staged_ticks() > staged, "later ticks are staged again");
    let rec = Arc::into_inner(rec).unwrap();
    let r = Reader::open_path(rec.finish().unwrap().wait().unwrap()).unwrap();
    assert_holds(&r, &all);
    engine.shutdown();
}
