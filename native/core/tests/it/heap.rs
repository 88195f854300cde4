//! The test binary's global allocator: the system allocator, counting what tests measure of the
//! real heap.
//!
//! - On one thread, while [`on_this_thread`] runs a closure: how many allocations it made and the
//!   largest one (thread-local, so tests running in parallel on other threads are not counted).
//! - On every thread, once [`count_process`] has been called: the bytes live ([`live`]) and their
//!   peak ([`peak_growth`]). Only meaningful where nothing else runs in the process, so only the
//!   tests that run alone in a child process ([`crate::alone`]) switch it on; until then it costs
//!   every allocation one relaxed load.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};

pub struct Counting;

thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

static PROCESS: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

fn grew(by: isize) {
    if PROCESS.load(Ordering::Relaxed) {
        let now = LIVE.fetch_add(by, Ordering::Relaxed) + by;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }
}

fn shrank(by: isize) {
    if PROCESS.load(Ordering::Relaxed) {
        LIVE.fetch_sub(by, Ordering::Relaxed);
    }
}

fn note(size: usize) {
    // `try_with`: never fails for const-initialised cells without destructors, but an allocator
    // must not panic in any case.
    let _ = ARMED.try_with(|armed| {
        if armed.get() {
            let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
            let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
        }
    });
}

// SAFETY: every method forwards its arguments unchanged to `System`; the only additions are
// atomic counters and thread-local `Cell`s (const-initialised, no destructors), which neither
// allocate, unwind nor touch allocated memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract; passed on as is.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size() as isize);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrank(layout.size() as isize);
        // SAFETY: `ptr` was allocated by `System` with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: `ptr` was allocated by `System` with `layout`; the caller upholds `realloc`'s
        // contract for `new_size`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            grew(new_size as isize - layout.size() as isize);
        }
        p
    }
}

/// What a closure allocated on its own thread.
#[derive(Debug, Clone, Copy)]
pub struct ThreadAllocs {
    /// Allocations and reallocations.
    pub count: u64,
    /// The largest single one, in bytes.
    pub largest: usize,
}

/// Runs `f` and returns its result with what it allocated on this thread (not on others).
pub fn on_this_thread<T>(f: impl FnOnce() -> T) -> (T, ThreadAllocs) {
    ALLOCATIONS.with(|n| n.set(0));
    LARGEST.with(|l| l.set(0));
    ARMED.with(|a| a.set(true));
    let out = catch_unwind(AssertUnwindSafe(f));
    ARMED.with(|a| a.set(false));
    let allocs = ThreadAllocs {
        count: ALLOCATIONS.with(Cell::get),
        largest: LARGEST.with(Cell::get),
    };
    match out {
        Ok(v) => (v, allocs),
        Err(p) => resume_unwind(p),
    }
}

/// Counts the bytes live on every thread from now on (for the rest of the process).
pub fn count_process() {
    PROCESS.store(true, Ordering::SeqCst);
}

/// Bytes allocated and not yet freed, on all threads, since [`count_process`].
pub fn live() -> isize {
    assert!(
        PROCESS.load(Ordering::Relaxed),
        "count_process() first (in a test alone in its process)"
    );
    LIVE.load(Ordering::Relaxed)
}

/// Runs `f` and returns its result with the peak growth of the bytes live on all threads while it
/// ran.
pub fn peak_growth<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = live();
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    let grown = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    (out, grown.max(0) as usize)
}
