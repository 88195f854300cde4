//! Shared helpers for integration tests.
#![allow(dead_code)]

pub mod hooked;
pub mod world_shapes;

use std::path::Path;

use std::time::{Duration, Instant};

use tickreel::format::EntityTable;
use tickreel::format::encode_batch;
use tickreel::play::Reader;
use tickreel::record::{
    ChunkPolicy, FlushPolicy, OnExisting, RecorderOptions, ReelOptions, ReelWriter,
};
use tickreel::{Engine, Event, Pose};
use tickreel_sim::{SimConfig, Simulator};

pub fn sim_ticks(players: u32, ticks: u32, seed: u64) -> Vec<(u32, Vec<Event>)> {
    let mut sim = Simulator::new(SimConfig {
        players,
        seed,
        teleport_chance: 0.002,
        churn_chance: 0.002,
        custom_event_chance: 0.01,
    });
    (0..ticks).map(|_| sim.step()).collect()
}

pub fn write_reel(path: &Path, ticks: &[(u32, Vec<Event>)], policy: ChunkPolicy) -> u64 {
    let mut w = ReelWriter::create(
        path,
        ReelOptions {
            chunk_policy: policy,
            ..ReelOptions::default()
        },
    )
    .unwrap();
    for (t, e) in ticks {
        w.write_tick(*t, e).unwrap();
    }
    w.finish().unwrap()
}

/// The entity table after applying every tick up to and including `upto`, straight from the input.
pub fn expected_states(ticks: &[(u32, Vec<Event>)]) -> Vec<(u32, EntityTable)> {
    let mut table = EntityTable::default();
    let mut out = Vec::new();
    for (t, events) in ticks {
        for e in events {
            table.apply(e);
        }
        out.push((*t, table.clone()));
    }
    out
}

/// One tick's events in batch encoding (what `Recorder::submit_tick` takes).
pub fn batch(events: &[Event]) -> Vec<u8> {
    let mut b = Vec::new();
    encode_batch(events, &mut b).unwrap();
    b
}

/// One tick in batch encoding: `entity` moved to `x` (the rest of its pose 0).
pub fn pose_tick(entity: u32, x: i64) -> Vec<u8> {
    batch(&[Event::Pose {
        entity,
        pose: Pose {
            x,
            ..Pose::default()
        },
    }])
}

/// Chunks of 37 ticks, a snapshot every 90 ticks: a short recording has many chunks.
pub fn small_policy() -> ChunkPolicy {
    ChunkPolicy {
        chunk_ticks: 37,
        chunk_bytes: 1 << 20,
        snapshot_interval: 90,
        zstd_level: 3,
    }
}

/// A flush only when the test asks for one (no size, interval or player-leave trigger), so that
/// what is on disk is what the test flushed.
pub fn flush_when_asked() -> FlushPolicy {
    FlushPolicy {
        max_pending_bytes: usize::MAX,
        interval: Duration::from_secs(3600),
        on_player_leave: false,
    }
}

/// Recorder options that flush only when the test asks ([`flush_when_asked`]), and resume a live
/// recording of the path (the tests that start a path again mean to carry it on).
pub fn flushed_when_asked() -> RecorderOptions {
    RecorderOptions {
        flush: flush_when_asked(),
        on_existing: OnExisting::Resume,
        ..RecorderOptions::default()
    }
}

/// Recorder options that flush often (every 2 KiB, every 20 ms, on a player's leave) in chunks of
/// 25 ticks: a live directory soon holds several chunks. A live recording of the path is resumed
/// (the tests that start a path again mean to carry it on).
pub fn small_flush() -> RecorderOptions {
    let mut o = RecorderOptions {
        flush: FlushPolicy {
            max_pending_bytes: 2048,
            interval: Duration::from_millis(20),
            on_player_leave: true,
        },
        on_existing: OnExisting::Resume,
        ..RecorderOptions::default()
    };
    o.chunk_policy.chunk_ticks = 25;
    o
}

/// Waits (up to 10 s) until the engine's queues are empty.
pub fn wait_for_empty_queue(engine: &Engine) {
    let start = Instant::now();
    while engine.stats().queue_depth > 0 && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The ticks of a recording, in the order a straight decode yields them.
pub fn recorded_ticks(r: &Reader) -> Vec<u32> {
    r.ticks(0, u32::MAX).map(|d| d.unwrap().tick).collect()
}

/// Runs `f` on another thread; `None` if it has not returned within 20 s (it is then left running,
/// so that a test that held the writer can release it and fail instead of hanging).
pub fn within<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = crossbeam_channel::bounded(1);
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(20)).ok()
}

/// Checkpoint markers of entity 1: a start crossed twice (a restart), then 1, 2, 3.
pub const CHECKPOINTS: [(u32, u32); 5] = [(60, 0), (120, 0), (300, 1), (520, 2), (800, 3)];

/// A simulated server (3 players, frequent teleports) where entity 1 also crosses checkpoints and
/// gets an occasional recorded velocity.
pub fn checkpoint_run(ticks: u32, seed: u64) -> Vec<(u32, Vec<Event>)> {
    let mut sim = Simulator::new(SimConfig {
        players: 3,
        seed,
        teleport_chance: 0.004,
        churn_chance: 0.0,
        custom_event_chance: 0.01,
    });
    (0..ticks)
        .map(|_| {
            let (t, mut events) = sim.step();
            for &(ct, index) in &CHECKPOINTS {
                if ct == t {
                    events.push(Event::Checkpoint { entity: 1, index });
                }
            }
            if t % 50 == 7 {
                events.push(Event::Velocity {
                    entity: 1,
                    x: 800,
                    y: 0,
                    z: -400,
                });
            }
            (t, events)
        })
        .collect()
}
