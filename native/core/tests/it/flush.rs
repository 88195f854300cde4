//! The flush policy of the live write path: each trigger (size, time, player leave) flushes on its
//! own; metadata and gaps that change after the last flush reach the files; a finish right behind
//! a player leave costs no live directory; failing flushes keep memory bounded, record what they
//! had to drop as a gap, and publish nothing twice once the disk is writable again.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use tickreel::format::EntityInfo;
use tickreel::play::Reader;
use tickreel::record::{Backpressure, FlushPolicy, Submitted};
use tickreel::storage::live::live_dir_for;
use tickreel::{Engine, EngineOptions, Event, Recorder, RecorderOptions};
use tickreel_sim::{SimConfig, Simulator};

use crate::common::{batch, recorded_ticks, wait_for_empty_queue, within};

fn options(flush: FlushPolicy) -> RecorderOptions {
    let mut o = RecorderOptions {
        flush,
        ..RecorderOptions::default()
    };
    o.chunk_policy.chunk_ticks = 5;
    o
}

const NEVER: Duration = Duration::from_secs(3600);

/// Polls until every tick up to `tick` is reported flushed (10 s at most).
fn wait_flushed(rec: &Recorder, tick: u32) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if rec.stats().flushed_tick.is_some_and(|t| t >= tick) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    false
}

#[test]
fn each_trigger_flushes_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let ticks = common::sim_ticks(2, 40, 5);
    let submit = |rec: &Recorder, upto: usize| {
        for (t, e) in &ticks[..upto] {
            rec.submit_tick(*t, &batch(e)).unwrap();
        }
    };

    // Size: every cut chunk is over the 1-byte threshold.
    let by_size = engine
        .start_recording(
            dir.path().join("size.reel"),
            options(FlushPolicy {
                max_pending_bytes: 1,
                interval: NEVER,
                on_player_leave: false,
            }),
        )
        .unwrap();
    submit(&by_size, 40);
    // The first chunk cut (by tick 5) is over the threshold: its flush starts a group-commit
    // round at once, and the ticks taken while that round is committed go in the next one (a
    // size flush also cuts the open chunk, so everything so far becomes durable). Without the
    // size trigger nothing would flush at all (interval and leave are off).
    assert!(wait_flushed(&by_size, 35), "{:?}", by_size.stats());
    // At most one round per chunk cut (8): how many cuts share a round depends on how fast the
    // submitting thread is against the commits, so no tighter bound.
    let n = by_size.stats().flushes;
    assert!((2..=8).contains(&n), "{:?}", by_size.stats());

    // Time: nothing is big enough, but the interval passes.
    let by_time = engine
        .start_recording(
            dir.path().join("time.reel"),
            options(FlushPolicy {
                max_pending_bytes: usize::MAX,
                interval: Duration::from_millis(30),
                on_player_leave: false,
            }),
        )
        .unwrap();
    submit(&by_time, 12);
    assert!(wait_flushed(&by_time, 11), "{:?}", by_time.stats());

    // Player leave: an event in a tick, and a `player_left` call.
    let leave = FlushPolicy {
        max_pending_bytes: usize::MAX,
        interval: NEVER,
        on_player_leave: true,
    };
    let by_leave = engine
        .start_recording(dir.path().join("leave.reel"), options(leave))
        .unwrap();
    submit(&by_leave, 12);
    by_leave
        .submit_tick(12, &batch(&[Event::PlayerLeave { entity: 1 }]))
        .unwrap();
    assert!(wait_flushed(&by_leave, 12), "{:?}", by_leave.stats());
    let by_call = engine
        .start_recording(dir.path().join("call.reel"), options(leave))
        .unwrap();
    submit(&by_call, 12);
    by_call.player_left(1).unwrap();
    assert!(wait_flushed(&by_call, 11), "{:?}", by_call.stats());

    // With every trigger off, nothing flushes on its own (each of the above would have by now).
    let quiet = engine
        .start_recording(
            dir.path().join("quiet.reel"),
            options(FlushPolicy {
                max_pending_bytes: usize::MAX,
                interval: NEVER,
                on_player_leave: false,
            }),
        )
        .unwrap();
    submit(&quiet, 40);
    quiet
        .submit_tick(40, &batch(&[Event::PlayerLeave { entity: 1 }]))
        .unwrap();
    quiet.player_left(2).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(quiet.stats().flushes, 0);
    assert!(!live_dir_for(quiet.path()).exists());
    for r in [by_size, by_time, by_leave, by_call, quiet] {
        r.abort().unwrap();
    }
}

#[test]
fn metadata_and_gaps_that_change_after_the_last_flush_reach_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions {
        queue_capacity: 64,
        ..EngineOptions::default()
    })
    .unwrap();
    let path = dir.path().join("meta.reel");
    let rec = engine
        .start_recording(
            &path,
            RecorderOptions {
                backpressure: Backpressure::Drop,
                ..options(FlushPolicy {
                    max_pending_bytes: usize::MAX,
                    interval: NEVER,
                    on_player_leave: false,
                })
            },
        )
        .unwrap();
    let ticks = common::sim_ticks(1, 200, 2);
    for (t, e) in &ticks[..20] {
        assert_eq!(rec.submit_tick(*t, &batch(e)).unwrap(), Submitted::Queued);
    }
    rec.flush().unwrap();
    // After the last flush that wrote frames: metadata only.
    rec.set_user_metadata("course", fastnbt::Value::String("spiral".into()))
        .unwrap();
    rec.register_entity(EntityInfo {
        id: 1,
        name: Some("runner".into()),
        ..EntityInfo::default()
    })
    .unwrap();
    rec.flush().unwrap();
    let live = Reader::open_live(live_dir_for(&path)).unwrap();
    assert_eq!(
        live.metadata().user.get("course"),
        Some(&fastnbt::Value::String("spiral".into())),
        "a flush with only metadata changes writes the metadata file"
    );
    assert!(live.metadata().library.entities.iter().any(|e| e.id == 1));
    // Then ticks dropped (the queue full while the writer is held), and nothing else written.
    wait_for_empty_queue(&engine);
    engine.set_writers_stalled(true);
    let mut dropped = Vec::new();
    for (t, e) in &ticks[20..] {
        if rec.submit_tick(*t, &batch(e)).unwrap() == Submitted::Dropped {
            dropped.push(*t);
        }
    }
    engine.set_writers_stalled(false);
    assert!(!dropped.is_empty());
    wait_for_empty_queue(&engine);
    rec.set_user_metadata("late", fastnbt::Value::Int(7))
        .unwrap();
    let out = rec.finish().unwrap().wait().unwrap();
    let r = Reader::open_path(out).unwrap();
    let meta = r.metadata();
    assert_eq!(
        meta.user.get("course"),
        Some(&fastnbt::Value::String("spiral".into()))
    );
    assert_eq!(meta.user.get("late"), Some(&fastnbt::Value::Int(7)));
    assert!(
        meta.library
            .entities
            .iter()
            .any(|e| e.name.as_deref() == Some("runner"))
    );
    assert_eq!(meta.library.stats.dropped_ticks, dropped.len() as u64);
    let in_gaps: Vec<u32> = meta
        .library
        .gaps
        .iter()
        .flat_map(|g| g.from..=g.to)
        .collect();
    assert_eq!(in_gaps, dropped);
    // Every submitted tick is either in the file or in a gap.
    let mut all = recorded_ticks(&r);
    all.extend(&dropped);
    all.sort_unstable();
    assert_eq!(all, ticks.iter().map(|(t, _)| *t).collect::<Vec<_>>());
}

#[test]
fn a_finish_right_behind_a_player_leave_creates_no_live_directory() {
    // A one-player run ends with its player leaving and is finished at once: the leave flush
    // waits for its grace, the finish comes first, and the run goes straight to its compacted
    // file. The writer is held while the run is queued, so that it takes the leave and the finish
    // back to back whatever this machine's scheduling.
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let runs = 20;
    let mut recs = Vec::new();
    engine.set_writers_stalled(true);
    for i in 0..runs {
        let path = dir.path().join(format!("run{i}.reel"));
        let rec = engine
            .start_recording(&path, RecorderOptions::default())
            .unwrap();
        // One player walking for 3 s, as `tickreel bench` measures a short run.
        let mut sim = Simulator::new(SimConfig {
            players: 1,
            seed: i,
            ..SimConfig::default()
        });
        let ticks: Vec<_> = (0..60).map(|_| sim.step()).collect();
        for (t, e) in &ticks {
            rec.submit_tick(*t, &batch(e)).unwrap();
        }
        rec.submit_tick(60, &batch(&[Event::PlayerLeave { entity: 1 }]))
            .unwrap();
        let handle = rec.finish().unwrap();
        recs.push((rec, handle, path));
    }
    engine.set_writers_stalled(false);
    for (rec, handle, path) in recs {
        let out = handle.wait().unwrap();
        assert_eq!(rec.stats().flushes, 0, "{}", path.display());
        assert!(!live_dir_for(&path).exists());
        let size = std::fs::metadata(&out).unwrap().len();
        assert!(size <= 1024, "{size} bytes");
        assert_eq!(Reader::open_path(&out).unwrap().last_tick(), Some(60));
    }
    // Nothing but the finished files.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), runs as usize, "{names:?}");
    assert!(names.iter().all(|n| n.ends_with(".reel")), "{names:?}");
}

/// Creates `blocker` as a directory where a file must go (so creating the file fails, even as root).
fn block(blocker: &Path) {
    std::fs::create_dir_all(blocker).unwrap();
}

#[test]
fn several_server_threads_record_through_two_writer_threads() {
    // Minestom ticks instances on several threads: four threads submit to five recordings each,
    // spread over two writer threads, with a queue small enough that some endings take the
    // control channel. Every recording ends with exactly the ticks its thread queued.
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions {
        writer_threads: 2,
        queue_capacity: 64,
        ..EngineOptions::default()
    })
    .unwrap();
    let threads: Vec<_> = (0..4u64)
        .map(|th| {
            let engine = engine.clone();
            let dir = dir.path().to_path_buf();
            std::thread::spawn(move || {
                let recs: Vec<_> = (0..5)
                    .map(|i| {
                        let path = dir.join(format!("t{th}-{i}.reel"));
                        let mut o = options(FlushPolicy::default());
                        o.backpressure = Backpressure::Block {
                            deadline: Duration::from_secs(10),
                        };
                        engine.start_recording(path, o).unwrap()
                    })
                    .collect();
                let ticks = common::sim_ticks(3, 200, th);
                for (t, e) in &ticks {
                    for rec in &recs {
                        assert_eq!(rec.submit_tick(*t, &batch(e)).unwrap(), Submitted::Queued);
                    }
                }
                let handles: Vec<_> = recs.iter().map(|r| r.finish().unwrap()).collect();
                let want: Vec<u32> = ticks.iter().map(|(t, _)| *t).collect();
                for h in handles {
                    let r = Reader::open_path(h.wait().unwrap()).unwrap();
                    r.verify().unwrap();
                    assert_eq!(recorded_ticks(&r), want);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(engine.stats().active_recordings, 0);
    assert_eq!(engine.stats().dropped_ticks, 0);
    engine.shutdown();
}

#[test]
fn a_finish_waiting_behind_a_full_queue_completes_when_its_recording_is_retired() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions {
        queue_capacity: 8,
        ..EngineOptions::default()
    })
    .unwrap();
    let mut o = options(FlushPolicy::default());
    o.backpressure = Backpressure::Drop;
    o.chunk_policy.snapshot_interval = 4;
    o.snapshot_provider = Some(std::sync::Arc::new(|tick| {
        assert!(tick < 4, "plugin bug at tick {tick}");
        None
    }));
    let rec = engine
        .start_recording(dir.path().join("bad.reel"), o)
        .unwrap();
    wait_for_empty_queue(&engine);
    engine.set_writers_stalled(true);
    for (t, e) in common::sim_ticks(1, 8, 1) {
        assert_eq!(rec.submit_tick(t, &batch(&e)).unwrap(), Submitted::Queued);
    }
    // The queue is full: the finish takes the control channel, behind ticks that will panic.
    let handle = rec.finish().unwrap();
    engine.set_writers_stalled(false);
    let r = within(move || handle.wait()).expect("the finish completed");
    let err = r.unwrap_err().to_string();
    assert!(err.contains("plugin bug at tick 4"), "{err}");
    // Calls on the retired recording say why, at once.
    let err = rec.submit_tick(100, &batch(&[])).unwrap_err().to_string();
    assert!(err.contains("plugin bug"), "{err}");
    drop(rec);
    engine.shutdown();
}

#[test]
fn starting_a_recording_does_not_wait_behind_another_start() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions {
        queue_capacity: 2,
        ..EngineOptions::default()
    })
    .unwrap();
    let first = engine
        .start_recording(dir.path().join("a.reel"), RecorderOptions::default())
        .unwrap();
    wait_for_empty_queue(&engine);
    engine.set_writers_stalled(true);
    for (t, e) in common::sim_ticks(1, 4, 1) {
        let _ = first.submit_tick(t, &batch(&e));
    }
    // One start waits for room for 10 s (Block policy); a Drop-policy start meanwhile is refused
    // at once instead of waiting behind it.
    let (e, p) = (engine.clone(), dir.path().join("blocked.reel"));
    let blocked = std::thread::spawn(move || {
        let o = RecorderOptions {
            backpressure: Backpressure::Block {
                deadline: Duration::from_secs(10),
            },
            ..RecorderOptions::default()
        };
        e.start_recording(p, o).map(|r| r.abort())
    });
    std::thread::sleep(Duration::from_millis(50));
    let (e, p) = (engine.clone(), dir.path().join("dropped.reel"));
    let refused = within(move || {
        let o = RecorderOptions {
            backpressure: Backpressure::Drop,
            ..RecorderOptions::default()
        };
        e.start_recording(p, o).map(|_| ())
    });
    let still_blocked = !blocked.is_finished();
    engine.set_writers_stalled(false);
    assert!(
        matches!(refused, Some(Err(tickreel::Error::Backpressure(_)))),
        "{refused:?}"
    );
    assert!(still_blocked, "the other start was still waiting for room");
    blocked.join().unwrap().unwrap().unwrap();
    first.abort().unwrap();
    engine.shutdown();
}

#[test]
fn snapshots_come_from_the_provider_at_each_interval_and_from_an_offered_blob_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let mut o = options(FlushPolicy::default());
    o.chunk_policy.snapshot_interval = 20;
    o.snapshot_provider = Some(std::sync::Arc::new(|tick| {
        Some(format!("world at {tick}").into_bytes())
    }));
    let rec = engine
        .start_recording(dir.path().join("snap.reel"), o)
        .unwrap();
    let ticks = common::sim_ticks(2, 60, 4);
    for (t, e) in &ticks {
        if *t == 33 {
            // A blob offered by the plugin (a big world edit, say): the next tick starts a chunk
            // with it, and the interval counts from there.
            rec.offer_snapshot(b"edited world".to_vec()).unwrap();
        }
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    let r = Reader::open_path(rec.finish().unwrap().wait().unwrap()).unwrap();
    let snapshots: Vec<(u32, Vec<u8>)> = (0..r.index().len())
        .filter_map(|i| {
            let c = r.read_chunk(i).unwrap();
            assert_eq!(c.snapshot.is_some(), r.index()[i].has_snapshot());
            c.snapshot.map(|s| (r.index()[i].start_tick, s))
        })
        .collect();
    let want: Vec<(u32, Vec<u8>)> = vec![
        (0, b"world at 0".to_vec()),
        (20, b"world at 20".to_vec()),
        (33, b"edited world".to_vec()),
        (53, b"world at 53".to_vec()),
    ];
    assert_eq!(snapshots, want);
    // A seek finds the nearest snapshot at or before its tick.
    assert_eq!(
        r.seek(40)
            .unwrap()
            .snapshot_chunk
            .map(|c| r.index()[c].start_tick),
        Some(33)
    );
}

#[path = "flush/failures.rs"]
mod failures;
