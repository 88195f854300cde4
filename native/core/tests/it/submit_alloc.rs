//! `submit_tick` allocates nothing in steady state: once the buffer pool holds buffers that the
//! writer has returned, a submit copies into one of them. Counted by the test binary's global
//! allocator (`heap`), on this thread only: neither the writer's own allocations nor those of
//! tests running in parallel are counted.

use std::time::{Duration, Instant};

use tickreel::format::encode_batch;
use tickreel::{Engine, EngineOptions, Event, RecorderOptions};
use tickreel_sim::{SimConfig, Simulator};

use crate::heap;

#[test]
fn submit_tick_allocates_nothing_in_steady_state() {
    let dir = tempfile::tempdir().unwrap();
    let mut sim = Simulator::new(SimConfig {
        players: 10,
        seed: 7,
        ..SimConfig::default()
    });
    let batches: Vec<Vec<u8>> = (0..2500)
        .map(|_| {
            let (_, events) = sim.step();
            let moves: Vec<Event> = events
                .into_iter()
                .filter(|e| !matches!(e, Event::EntityAdd { .. }))
                .collect();
            let mut b = Vec::new();
            encode_batch(&moves, &mut b).unwrap();
            b
        })
        .collect();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let recs: Vec<_> = (0..4)
        .map(|i| {
            engine
                .start_recording(
                    dir.path().join(format!("r{i}.reel")),
                    RecorderOptions::default(),
                )
                .unwrap()
        })
        .collect();
    let drain = || {
        let until = Instant::now() + Duration::from_secs(30);
        while engine.stats().inflight_bytes > 0 || engine.stats().queue_depth > 0 {
            assert!(Instant::now() < until, "the writer did not drain its queue");
            std::thread::sleep(Duration::from_millis(1));
        }
    };
    // Warm-up: the pool fills with buffers the writer has returned.
    for (t, b) in batches[..2000].iter().enumerate() {
        for r in &recs {
            r.submit_tick(t as u32, b).unwrap();
        }
    }
    drain();
    // Steady state, with the writer held so that the count is this thread's submits alone.
    engine.set_writers_stalled(true);
    let ((), allocs) = heap::on_this_thread(|| {
        for (t, b) in batches[2000..2500].iter().enumerate() {
            for r in &recs {
                r.submit_tick(2000 + t as u32, b).unwrap();
            }
        }
    });
    let during = allocs.count;
    engine.set_writers_stalled(false);
    assert_eq!(
        during, 0,
        "2,000 submits in steady state allocated {during} times"
    );
    for r in recs {
        r.finish().unwrap().wait().unwrap();
    }
    engine.shutdown();
}
