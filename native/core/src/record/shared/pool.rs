//! A bounded pool of byte buffers, so that `submit_tick` does not allocate in steady state.
//!
//! The pool is a stack (last returned, first reused): a server that keeps its writer busy reuses
//! the few buffers that were just written and read, which are still in cache, instead of cycling
//! through every buffer the pool holds (a FIFO of 4,096 half-KiB buffers is 2 MiB of cold memory;
//! `tickreel bench` measured `submit_tick` at 6–17 ns per player-tick with a FIFO pool and 4–5.6 ns
//! with this stack, for 10 recordings of 10 players). The lock is held for one push or pop; the
//! server thread never waits for it: when the writer (or another server thread) holds it, `take`
//! allocates a fresh buffer instead.

use crate::sync::Mutex;

/// Buffers larger than this are not returned to the pool: an unusually large tick should not pin
/// memory, and a big pooled buffer handed to a small tick would charge the in-flight budget for
/// nothing (64 KiB holds a tick of about 2,800 moving players).
const MAX_POOLED_CAPACITY: usize = 64 << 10;

#[derive(Debug, Default)]
struct Stack {
    buffers: Vec<Vec<u8>>,
    /// Total capacity of `buffers`.
    bytes: usize,
}

#[derive(Debug)]
pub(crate) struct BufferPool {
    stack: Mutex<Stack>,
    max: usize,
    max_bytes: usize,
}

impl BufferPool {
    /// A pool keeping at most `buffers` buffers (at least one) of at most `max_bytes` bytes of
    /// capacity in all.
    pub(crate) fn new(buffers: usize, max_bytes: usize) -> BufferPool {
        let max = buffers.max(1);
        BufferPool {
            stack: Mutex::new(Stack {
                buffers: Vec::with_capacity(max),
                bytes: 0,
            }),
            max,
            max_bytes,
        }
    }

    /// Capacity of the buffers the pool holds.
    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.stack.lock().bytes
    }

    /// A cleared buffer of at least `min_capacity` bytes: the most recently returned one, or a new
    /// one when the pool is empty or its lock is held at this moment. A buffer that must grow grows
    /// to a power of two (at least 512 bytes), so that buffers settle at the size of the largest
    /// ticks after a few uses instead of growing again each time a slightly larger tick comes along.
    #[inline]
    pub(crate) fn take(&self, min_capacity: usize) -> Vec<u8> {
        let pooled = self.stack.try_lock().and_then(|mut s| {
            let b = s.buffers.pop()?;
            s.bytes -= b.capacity();
            Some(b)
        });
        let mut b = pooled.unwrap_or_default();
        b.clear();
        if b.capacity() < min_capacity {
            b.reserve(min_capacity.max(512).next_power_of_two());
        }
        b
    }

    /// Returns a buffer (dropped if the pool is full, by count or bytes, or the buffer is oversized).
    #[inline]
    pub(crate) fn give(&self, b: Vec<u8>) {
        let cap = b.capacity();
        if cap > MAX_POOLED_CAPACITY {
            return;
        }
        let mut s = self.stack.lock();
        if s.buffers.len() < self.max && s.bytes + cap <= self.max_bytes {
            s.bytes += cap;
            s.buffers.push(b);
        }
        // A buffer not kept is freed after the lock is released (`b` outlives the guard).
    }

    /// Returns buffers under one lock (what `give` keeps of each), leaving `bufs` empty.
    pub(crate) fn give_all(&self, bufs: &mut Vec<Vec<u8>>) {
        let mut dropped = Vec::new();
        {
            let mut s = self.stack.lock();
            for b in bufs.drain(..) {
                let cap = b.capacity();
                if cap <= MAX_POOLED_CAPACITY
                    && s.buffers.len() < self.max
                    && s.bytes + cap <= self.max_bytes
                {
                    s.bytes += cap;
                    s.buffers.push(b);
                } else {
                    dropped.push(b);
                }
            }
        }
        // Buffers not kept are freed after the lock is released.
        drop(dropped);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.stack.lock().buffers.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_returned_buffer_is_reused_first() {
        let pool = BufferPool::new(8, 1 << 20);
        let a = pool.take(100);
        let b = pool.take(100);
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        assert_ne!(pa, pb);
        pool.give(a);
        pool.give(b);
        let (first, second) = (pool.take(10), pool.take(10));
        assert_eq!(first.as_ptr(), pb);
        assert_eq!(second.as_ptr(), pa);
    }

    #[test]
    fn buffers_are_cleared_and_grow_to_a_power_of_two() {
        let pool = BufferPool::new(4, 1 << 20);
        let mut b = pool.take(600);
        assert!(b.capacity() >= 1024);
        b.extend_from_slice(&[1, 2, 3]);
        pool.give(b);
        let b = pool.take(3);
        assert!(b.is_empty());
        assert!(b.capacity() >= 1024);
    }

    #[test]
    fn the_pool_is_bounded_and_keeps_no_oversized_buffers() {
        let pool = BufferPool::new(2, 1 << 20);
        for _ in 0..5 {
            pool.give(Vec::with_capacity(64));
        }
        assert_eq!(pool.len(), 2);
        let pool = BufferPool::new(2, 1 << 20);
        pool.give(Vec::with_capacity(MAX_POOLED_CAPACITY + 1));
        assert_eq!(pool.len(), 0);
        // The byte bound: three 1 KiB buffers fit in 3 KiB, a fourth does not.
        let pool = BufferPool::new(100, 3 << 10);
        for _ in 0..4 {
            pool.give(Vec::with_capacity(1024));
        }
        assert_eq!(pool.len(), 3);
        assert_eq!(pool.bytes(), 3 << 10);
        let b = pool.take(10);
        assert_eq!(pool.bytes(), 2 << 10);
        pool.give(b);
        assert_eq!(pool.bytes(), 3 << 10);
    }

    #[test]
    fn give_all_keeps_what_give_would_keep() {
        let pool = BufferPool::new(2, 1 << 20);
        let mut bufs = vec![
            Vec::with_capacity(64),
            Vec::with_capacity(MAX_POOLED_CAPACITY + 1),
            Vec::with_capacity(128),
            Vec::with_capacity(256),
        ];
        pool.give_all(&mut bufs);
        assert!(bufs.is_empty());
        // The oversized one is dropped, and the pool keeps two (its count).
        assert_eq!(pool.len(), 2);
        assert_eq!(pool.bytes(), 64 + 128);
    }

    #[test]
    fn take_does_not_wait_for_a_held_lock() {
        let pool = BufferPool::new(4, 1 << 20);
        pool.give(Vec::with_capacity(64));
        let guard = pool.stack.lock();
        // With the lock held elsewhere, take hands out a fresh buffer instead of waiting.
        let b = pool.take(10);
        assert!(b.capacity() >= 512);
        drop(guard);
        assert_eq!(pool.len(), 1);
    }
}
