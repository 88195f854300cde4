//! A bounded pool of byte buffers, so that `submit_tick` does not allocate in steady state.

use crossbeam_channel::{Receiver, Sender, bounded};

/// Buffers larger than this are not returned to the pool (an unusually large tick should not pin memory).
const MAX_POOLED_CAPACITY: usize = 256 << 10;

#[derive(Debug)]
pub(crate) struct BufferPool {
    tx: Sender<Vec<u8>>,
    rx: Receiver<Vec<u8>>,
}

impl BufferPool {
    pub(crate) fn new(buffers: usize) -> BufferPool {
        let (tx, rx) = bounded(buffers.max(1));
        BufferPool { tx, rx }
    }
    /// A cleared buffer of at least `min_capacity` bytes: from the pool, or a new one when the pool
    /// is empty. A buffer that must grow grows to a power of two (at least 512 bytes), so that
    /// buffers settle at the size of the largest ticks after a few uses instead of growing again
    /// each time a slightly larger tick comes along.
    #[inline]
    pub(crate) fn take(&self, min_capacity: usize) -> Vec<u8> {
        let mut b = self.rx.try_recv().unwrap_or_default();
        b.clear();
        if b.capacity() < min_capacity {
            b.reserve(min_capacity.max(512).next_power_of_two());
        }
        b
    }
    /// Returns a buffer (dropped if the pool is full or the buffer is oversized).
    #[inline]
    pub(crate) fn give(&self, b: Vec<u8>) {
        if b.capacity() <= MAX_POOLED_CAPACITY {
            let _ = self.tx.try_send(b);
        }
    }
}
