//! Shadow play's memory, measured on the real heap (the test binary's counting global allocator,
//! `heap`, in a process where this test runs alone, `alone`): 1,000 players for 10 simulated
//! minutes stay inside the engine's budget, and what the buffer reports holding is what it really
//! holds.
//!
//! The test submits as fast as it can, not at 20 ticks/s, so the writer thread is always the
//! one behind: how far behind depends on the CPU share it gets, which a loaded machine starves.
//! The recorder therefore waits for it (`Backpressure::Block` with a deadline no share reaches)
//! instead of dropping a tick after the default 50 ms: the queue is bounded by
//! `max_inflight_bytes` either way, so what is measured stays the memory, and every tick of the
//! ten minutes is recorded (checked).

use std::time::Duration;

use tickreel::format::encode_batch;
use tickreel::record::Backpressure;
use tickreel::shadow::{ReportOptions, ShadowBuffer, ShadowOptions};
use tickreel::{Engine, EngineOptions, RecorderOptions};
use tickreel_sim::{SimConfig, Simulator};

use crate::{alone, heap};

const BUDGET: usize = 24 << 20;

#[test]
fn a_thousand_players_for_ten_minutes_stay_inside_the_budget() {
    if !alone::in_own_process(
        module_path!(),
        "a_thousand_players_for_ten_minutes_stay_inside_the_budget",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions {
        shadow_budget_bytes: BUDGET,
        max_inflight_bytes: 8 << 20,
        ..EngineOptions::default()
    })
    .unwrap();
    let (rec, shadow) = ShadowBuffer::start(
        &engine,
        None,
        RecorderOptions {
            backpressure: Backpressure::Block {
                deadline: Duration::from_secs(300),
            },
            ..RecorderOptions::default()
        },
        ShadowOptions::default(),
    )
    .unwrap();
    let mut sim = Simulator::new(SimConfig {
        players: 1000,
        seed: 3,
        teleport_chance: 0.0005,
        churn_chance: 0.0002,
        custom_event_chance: 0.002,
    });
    let mut buf = Vec::new();
    let mut moving = None;
    let mut step = || {
        let (t, events) = sim.step();
        moving = events.iter().find_map(|e| match e {
            tickreel::Event::Pose { entity, .. } => Some(*entity),
            _ => None,
        });
        buf.clear();
        encode_batch(&events, &mut buf).unwrap();
        rec.submit_tick(t, &buf).unwrap();
    };
    // A minute to warm up (pools, tables), then the baseline; then nine more minutes.
    for _ in 0..1200 {
        step();
    }
    rec.flush().unwrap();
    let base = heap::live();
    let held_then = shadow.stats().bytes as isize;
    let mut peak_growth = 0isize;
    for i in 0..10_800 {
        step();
        if i % 600 == 0 {
            peak_growth = peak_growth.max(heap::live() - base);
        }
    }
    rec.flush().unwrap();
    peak_growth = peak_growth.max(heap::live() - base);
    let st = shadow.stats();
    let e = engine.stats();
    eprintln!("{st:?}\n{e:?}\npeak heap growth {peak_growth}");
    // Ten minutes of 1,000 players do not fit 24 MiB: the oldest blocks went, counted.
    assert!(st.budget_dropped_blocks > 0, "{st:?}");
    assert!(e.shadow_bytes <= BUDGET, "{e:?}");
    assert_eq!(e.shadow_bytes, st.bytes);
    assert_eq!(e.dropped_ticks, 0, "{e:?}");
    // The heap grew by what the buffer gained, within the budget, plus at most 8 MiB of queue and
    // 4 MiB of everything else (tables, the open chunk).
    let bound = BUDGET as isize - held_then + (12 << 20);
    assert!(
        peak_growth <= bound,
        "heap grew {peak_growth}, bound {bound}"
    );
    // The newest data is kept: the buffer ends at the last tick.
    assert_eq!(st.last_tick, Some(11_999));

    // What the buffer says it holds is what dropping it frees.
    let player = moving.unwrap();
    let out = dir.path().join("r.reel");
    shadow
        .report(
            player,
            &out,
            ReportOptions {
                after: Duration::ZERO,
                ..ReportOptions::default()
            },
        )
        .unwrap()
        .wait()
        .unwrap();
    rec.close().unwrap();
    let held = shadow.stats().bytes as isize;
    let before_drop = heap::live();
    drop(shadow);
    drop(rec);
    let freed = before_drop - heap::live();
    eprintln!("held {held}, freed {freed}");
    assert!(
        (freed - held).abs() <= held / 50 + (256 << 10),
        "held {held}, freed {freed}"
    );
}
