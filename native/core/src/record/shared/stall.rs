//! The test hook that holds every writer thread before its next message
//! (`Engine::set_writers_stalled`), so that tests and benchmarks can fill the queue or time the
//! server thread's cost alone. Only in a build with the feature `test-hooks`: without it there is
//! no such state in the engine and no check of it in the writer's loop.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::sync::{Condvar, Mutex};

/// Whether the writers are held, and where they wait.
#[derive(Debug)]
pub(crate) struct WriterStall {
    stalled: Mutex<bool>,
    /// `stalled`, read without the lock by every writer before each message.
    flag: AtomicBool,
    /// Writers waiting in [`WriterStall::wait`] now.
    held: AtomicUsize,
    cv: Condvar,
}

impl WriterStall {
    pub(crate) fn new() -> WriterStall {
        WriterStall {
            stalled: Mutex::new(false),
            flag: AtomicBool::new(false),
            held: AtomicUsize::new(0),
            cv: Condvar::new(),
        }
    }

    /// Holds (`true`) or lets go (`false`) the writers.
    pub(crate) fn set(&self, stalled: bool) {
        *self.stalled.lock() = stalled;
        self.flag.store(stalled, Ordering::Release);
        self.cv.notify_all();
    }

    /// Waits while the writers are held (a writer, before its next message).
    pub(crate) fn wait(&self) {
        if !self.flag.load(Ordering::Acquire) {
            return;
        }
        let mut g = self.stalled.lock();
        self.held.fetch_add(1, Ordering::AcqRel);
        while *g {
            self.cv.wait(&mut g);
        }
        self.held.fetch_sub(1, Ordering::AcqRel);
    }

    /// Writers held now (waiting before their next message, taking none).
    pub(crate) fn held(&self) -> usize {
        self.held.load(Ordering::Acquire)
    }
}
