//! The memory between server threads and a stalled writer is bounded by the engine's options, as
//! measured on the real heap: the test binary's global allocator (`heap`) counts the bytes live on
//! every thread, in a process where this test runs alone (`alone`).

use std::time::{Duration, Instant};

use tickreel::format::encode_batch;
use tickreel::record::{Backpressure, Submitted};
use tickreel::{Engine, EngineOptions, Error, Event, Pose, RecorderOptions};

use crate::alone;
use crate::heap::live;

const BUDGET: usize = 4 << 20;

fn wait_drained(engine: &Engine) {
    let start = Instant::now();
    while (engine.stats().queue_depth > 0 || engine.stats().inflight_bytes > 0)
        && start.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_stalled_writer_holds_no_more_than_the_budget_on_the_heap() {
    if !alone::in_own_process(
        module_path!(),
        "a_stalled_writer_holds_no_more_than_the_budget_on_the_heap",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // The queue alone would let 65,536 large ticks wait; the byte budget must bound them first.
    let engine = Engine::new(EngineOptions {
        queue_capacity: 65_536,
        max_inflight_bytes: BUDGET,
        ..EngineOptions::default()
    })
    .unwrap();
    let rec = engine
        .start_recording(
            dir.path().join("flood.reel"),
            RecorderOptions {
                backpressure: Backpressure::Drop,
                ..RecorderOptions::default()
            },
        )
        .unwrap();
    let mut empty = Vec::new();
    encode_batch(&[], &mut empty).unwrap();
    let pose = Pose::from_f64(1.0, 64.0, 1.0, 0.0, 0.0);
    let mut big = Vec::new();
    encode_batch(
        &(0..4000)
            .map(|entity| Event::Pose { entity, pose })
            .collect::<Vec<_>>(),
        &mut big,
    )
    .unwrap();
    // The pool may keep a quarter of the budget; allow that plus 1 MiB of slack (the recorder's
    // gap list, the sim-free batches above are already allocated).
    let bound = (BUDGET + BUDGET / 4 + (1 << 20)) as isize;
    let mut tick = 0u32;
    std::thread::sleep(Duration::from_millis(50)); // the writer takes the Open message
    engine.set_writers_stalled(true);
    let before = live();

    // 30,000 empty ticks: 2 bytes each, carried inside their queue slots (allocated with the
    // queue): all queued, and the heap does not grow for them.
    let mut queued = 0;
    for _ in 0..30_000 {
        if rec.submit_tick(tick, &empty).unwrap() == Submitted::Queued {
            queued += 1;
        }
        tick += 1;
    }
    let grown = live() - before;
    assert!(
        grown <= 1 << 20,
        "empty ticks: {grown} bytes live, bound 1 MiB"
    );
    assert_eq!(queued, 30_000);
    assert_eq!(engine.stats().inflight_bytes, 0);

    // Large ticks on top: the byte budget bounds them (200 of them would hold 16 MB).
    let mut queued = 0;
    for _ in 0..200 {
        if rec.submit_tick(tick, &big).unwrap() == Submitted::Queued {
            queued += 1;
        }
        tick += 1;
    }
    assert!(queued < 200 && queued > 10, "{queued} large ticks queued");
    assert!(engine.stats().inflight_bytes <= BUDGET);
    let grown = live() - before;
    assert!(
        grown <= bound,
        "large ticks: {grown} bytes live, bound {bound}"
    );

    // Snapshots count too: with the budget spent, a snapshot is refused, not queued.
    let refused = rec.offer_snapshot(vec![7u8; 1 << 20]);
    assert!(
        matches!(refused, Err(Error::Backpressure(_))),
        "{refused:?}"
    );
    let grown = live() - before;
    assert!(
        grown <= bound,
        "snapshots: {grown} bytes live, bound {bound}"
    );

    engine.set_writers_stalled(false);
    wait_drained(&engine);
    let s = rec.stats();
    assert_eq!(s.submitted_ticks + s.dropped_ticks, u64::from(tick));
    assert!(s.dropped_ticks > 0);
    // With the writer caught up, snapshots fit again.
    rec.offer_snapshot(vec![7u8; 1 << 20]).unwrap();
    rec.abort().unwrap();
    engine.shutdown();
}
