//! Issue-35 figures: how long the default backpressure policy holds the server thread when the
//! writer has fallen behind. The writer threads are held (`Engine::set_writers_stalled`, a test
//! hook) and the queue filled, then every submit finds no room: it waits the default deadline,
//! drops the tick and counts it. The figures are the longest and the median of those submits.

use std::time::{Duration, Instant};

use tickreel::record::{Backpressure, Submitted};
use tickreel::{Engine, EngineOptions, RecorderOptions};

use super::shared::median;
use super::{Figures, put};

/// Queue slots of the engine measured (filled before the timed submits).
const QUEUE: usize = 64;

pub fn run(quick: bool, out: &mut Figures) {
    let submits = if quick { 200 } else { 1000 };
    let (max, med) = stalled_submits(RecorderOptions::default(), submits);
    put(out, "submit_backpressure_max_us", max);
    put(out, "submit_backpressure_median_us", med);
    let drop = RecorderOptions {
        backpressure: Backpressure::Drop,
        ..RecorderOptions::default()
    };
    let (max, _) = stalled_submits(drop, submits);
    put(out, "submit_backpressure_drop_max_us", max);
}

/// The longest and the median submit, in µs, of `submits` ticks to a recording with `options`
/// whose writer is held and whose queue is full; every one must be dropped.
fn stalled_submits(options: RecorderOptions, submits: u32) -> (f64, f64) {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = Engine::new(EngineOptions {
        queue_capacity: QUEUE,
        ..EngineOptions::default()
    })
    .expect("engine");
    let rec = engine
        .start_recording(dir.path().join("stalled.reel"), options)
        .expect("start");
    while engine.stats().queue_depth > 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    engine.set_writers_stalled(true);
    // An empty tick: 2 bytes, inside its queue slot.
    let tick = [0u8, 0];
    for t in 0..QUEUE as u32 {
        assert_eq!(rec.submit_tick(t, &tick).expect("fill"), Submitted::Queued);
    }
    let mut us = Vec::with_capacity(submits as usize);
    for t in QUEUE as u32..QUEUE as u32 + submits {
        let start = Instant::now();
        let r = rec.submit_tick(t, &tick);
        us.push(start.elapsed().as_secs_f64() * 1e6);
        assert!(
            !matches!(r, Ok(Submitted::Queued)),
            "tick {t} found room in a full queue"
        );
    }
    assert_eq!(rec.stats().dropped_ticks, u64::from(submits));
    engine.set_writers_stalled(false);
    let _ = rec.abort();
    engine.shutdown();
    let max = us.iter().copied().fold(0.0, f64::max);
    (max, median(us))
}
