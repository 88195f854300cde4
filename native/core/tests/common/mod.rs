//! Shared helpers for integration tests.
#![allow(dead_code)]

use std::path::Path;

use std::time::{Duration, Instant};

use tickreel::format::event::encode_batch;
use tickreel::format::state::EntityTable;
use tickreel::play::Reader;
use tickreel::record::{ChunkPolicy, ReelOptions, ReelWriter};
use tickreel::{Engine, Event};
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
            policy,
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
