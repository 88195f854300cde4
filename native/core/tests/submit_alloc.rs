//! `submit_tick` allocates nothing in steady state: once the buffer pool holds buffers that the
//! writer has returned, a submit copies into one of them. Alone in its test binary because it
//! installs a counting global allocator (counting per thread, so the writer's own allocations are
//! not counted).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::{Duration, Instant};

use tickreel::format::event::encode_batch;
use tickreel::{Engine, EngineOptions, Event, RecorderOptions};
use tickreel_sim::{SimConfig, Simulator};

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

struct CountingAlloc;

// SAFETY: every method forwards its arguments unchanged to `System`; the only addition is a
// thread-local counter (const-initialised, no destructor) that touches no allocated memory.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract; passed on as is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        // SAFETY: `ptr` was allocated by `System` with `layout`; the caller upholds `realloc`'s
        // contract for `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

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
    let before = allocations();
    for (t, b) in batches[2000..2500].iter().enumerate() {
        for r in &recs {
            r.submit_tick(2000 + t as u32, b).unwrap();
        }
    }
    let during = allocations() - before;
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
