//! What a writer thread gives back to the server threads once it has written a tick: the tick's
//! share of the in-flight byte budget and its pooled buffer. Both go back in batches.
//!
//! Giving them back one tick at a time wrote the budget counter's and the pool's cache lines from
//! the writer's core on every tick, and the server thread's next submit paid for bringing each
//! line back (measured at its real pace: ~400 ns for the counter alone, a sixth of a submit of a
//! 200-player tick). In batches, the server finds both lines where it left them.
//!
//! What is held back stays small and is never in the way: bytes go back once they reach a
//! sixteenth of the budget, buffers sixteen at a time, and everything as soon as a server thread
//! found the budget spent (`Budget::starved`) or the writer has been idle for a while.

use std::sync::atomic::Ordering;

use crate::record::shared::engine_shared::EngineShared;

/// Buffers held before they go back to the pool together.
const BUFFERS: usize = 16;

#[derive(Debug, Default)]
pub(crate) struct Returns {
    /// Bytes written and not yet given back to the budget.
    bytes: usize,
    /// Given back when `bytes` reaches it.
    batch: usize,
    buffers: Vec<Vec<u8>>,
}

impl Returns {
    pub(crate) fn new(engine: &EngineShared) -> Returns {
        Returns {
            bytes: 0,
            batch: (engine.budget.max_inflight / 16).max(64 << 10),
            buffers: Vec::with_capacity(BUFFERS),
        }
    }

    /// Budget bytes of a message that held no pooled buffer (or lost it).
    pub(crate) fn bytes(&mut self, engine: &EngineShared, n: usize) {
        if n == 0 {
            return;
        }
        self.bytes += n;
        engine.budget.held_back.0.fetch_add(n, Ordering::AcqRel);
        if self.bytes >= self.batch {
            self.release(engine);
        }
    }

    /// Gives the held bytes back to the budget.
    fn release(&mut self, engine: &EngineShared) {
        let n = std::mem::take(&mut self.bytes);
        engine.budget.release_bytes(n);
        engine.budget.held_back.0.fetch_sub(n, Ordering::AcqRel);
    }

    /// A written tick's buffer, and the budget bytes it held.
    pub(crate) fn buffer(&mut self, engine: &EngineShared, buf: Vec<u8>) {
        self.bytes(engine, buf.capacity());
        self.buffers.push(buf);
        if self.buffers.len() >= BUFFERS {
            engine.pool.give_all(&mut self.buffers);
        }
    }

    /// Gives everything back if `now` says so or a server thread is waiting for budget.
    pub(crate) fn settle(&mut self, engine: &EngineShared, now: bool) {
        if !(now || engine.budget.take_starved()) {
            return;
        }
        if !self.buffers.is_empty() {
            engine.pool.give_all(&mut self.buffers);
        }
        if self.bytes > 0 {
            self.release(engine);
        }
    }

    #[cfg(test)]
    pub(crate) fn held(&self) -> (usize, usize) {
        (self.bytes, self.buffers.len())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::{Engine, EngineOptions};

    #[test]
    fn held_back_until_a_batch_a_starved_server_or_an_idle_writer() {
        let engine = Engine::new(EngineOptions {
            max_inflight_bytes: 1 << 20,
            ..EngineOptions::default()
        })
        .unwrap();
        let shared = engine.background().engine;
        let inflight = || shared.budget.inflight.load(Ordering::Relaxed);
        let mut r = Returns::new(&shared);
        assert_eq!(r.batch, 64 << 10);
        // Ten 4 KiB ticks written: held back, the budget still counts them.
        assert!(shared.budget.reserve_bytes(10 * 4096));
        for _ in 0..10 {
            r.buffer(&shared, Vec::with_capacity(4096));
        }
        assert_eq!(r.held(), (10 * 4096, 10));
        r.settle(&shared, false);
        assert_eq!(inflight(), 10 * 4096);
        // Written: the engine's figure of bytes in flight leaves them out.
        assert_eq!(engine.stats().inflight_bytes, 0);
        assert_eq!(shared.budget.held_back.0.load(Ordering::Relaxed), 10 * 4096);
        // A server that finds the budget spent asks for them: the next settle gives all back.
        assert!(!shared.budget.reserve_bytes(1 << 20));
        r.settle(&shared, false);
        assert_eq!(r.held(), (0, 0));
        assert_eq!(inflight(), 0);
        // Sixteen buffers go back together; a sixteenth of the budget goes back at once.
        assert!(shared.budget.reserve_bytes(16 * 4096));
        for _ in 0..16 {
            r.buffer(&shared, Vec::with_capacity(4096));
        }
        assert_eq!(r.held(), (0, 0));
        assert_eq!(inflight(), 0);
        // An idle writer gives back what is left.
        assert!(shared.budget.reserve_bytes(100));
        r.bytes(&shared, 100);
        r.settle(&shared, true);
        assert_eq!(inflight(), 0);
        assert_eq!(shared.budget.held_back.0.load(Ordering::Relaxed), 0);
        engine.shutdown();
    }
}
