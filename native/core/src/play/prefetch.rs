//! The prefetch pool: a few background threads that read, decode and prepare chunks ahead of the
//! playheads, so that [`crate::play::Playhead::advance`] never waits for I/O or decoding.
//!
//! Jobs go through a bounded queue. A job is a claimed cache flight (see [`crate::play::cache`]):
//! whoever gets to it first runs it (a worker, or a blocking caller that needs it now), so each
//! chunk is decoded once however many playheads ask for it. When the queue is full the request is
//! dropped and counted; the playhead asks again on a later call.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

use crossbeam_channel::{Sender, TrySendError, bounded};
use parking_lot::Mutex;

use crate::error::Error;
use crate::play::cache::{Cached, ChunkCache, ChunkKey, Claim, Flight, Lookup, Part};
use crate::play::cursor::ReverseLog;
use crate::play::recording::View;

/// One prefetch job.
struct Job {
    view: Arc<View>,
    key: ChunkKey,
    flight: Arc<Flight>,
    cache: Arc<ChunkCache>,
}

/// Counters of a pool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PrefetchStats {
    /// Jobs queued.
    pub queued: u64,
    /// Jobs run by a worker.
    pub run: u64,
    /// Jobs a worker found already done by someone else.
    pub skipped: u64,
    /// Requests dropped because the queue was full.
    pub dropped: u64,
}

#[derive(Debug, Default)]
struct Counters {
    queued: AtomicU64,
    run: AtomicU64,
    skipped: AtomicU64,
    dropped: AtomicU64,
}

/// A small shared pool of prefetch threads with a bounded queue.
pub struct PrefetchPool {
    tx: Mutex<Option<Sender<Job>>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    counters: Arc<Counters>,
}

impl std::fmt::Debug for PrefetchPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrefetchPool")
            .field("stats", &self.stats())
            .finish()
    }
}

/// Default number of threads of the process-wide pool.
pub const DEFAULT_PREFETCH_THREADS: usize = 2;
/// Default queue length of the process-wide pool.
pub const DEFAULT_PREFETCH_QUEUE: usize = 256;

impl PrefetchPool {
    /// A pool of `threads` workers (at least one) with a queue of `queue` jobs (at least one).
    pub fn new(threads: usize, queue: usize) -> Arc<PrefetchPool> {
        let (tx, rx) = bounded::<Job>(queue.max(1));
        let counters = Arc::new(Counters::default());
        let handles = (0..threads.max(1))
            .map(|i| {
                let rx = rx.clone();
                let counters = counters.clone();
                std::thread::Builder::new()
                    .name(format!("tickreel-prefetch-{i}"))
                    .spawn(move || {
                        for job in rx {
                            if job.flight.try_start() {
                                let Job {
                                    view,
                                    key,
                                    flight,
                                    cache,
                                } = job;
                                let _ = cache.run(key, &flight, || load(&view, &cache, key));
                                counters.run.fetch_add(1, Ordering::Relaxed);
                            } else {
                                counters.skipped.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    })
                    .expect("spawn a prefetch thread")
            })
            .collect();
        Arc::new(PrefetchPool {
            tx: Mutex::new(Some(tx)),
            threads: Mutex::new(handles),
            counters,
        })
    }

    /// The process-wide pool used by `Recording::open_path`.
    pub fn global() -> Arc<PrefetchPool> {
        static GLOBAL: OnceLock<Arc<PrefetchPool>> = OnceLock::new();
        GLOBAL
            .get_or_init(|| PrefetchPool::new(DEFAULT_PREFETCH_THREADS, DEFAULT_PREFETCH_QUEUE))
            .clone()
    }

    pub fn stats(&self) -> PrefetchStats {
        let c = &self.counters;
        PrefetchStats {
            queued: c.queued.load(Ordering::Relaxed),
            run: c.run.load(Ordering::Relaxed),
            skipped: c.skipped.load(Ordering::Relaxed),
            dropped: c.dropped.load(Ordering::Relaxed),
        }
    }

    /// Makes sure `key` is ready or being loaded, without blocking. Returns what the cache holds
    /// now (`Pending` if a load was just queued).
    pub fn request(&self, view: &Arc<View>, cache: &Arc<ChunkCache>, key: ChunkKey) -> Lookup {
        match cache.claim(key) {
            Claim::Ready(v) => Lookup::Ready(v),
            Claim::Failed(f) => Lookup::Failed(f),
            Claim::Joined(_) => Lookup::Pending,
            Claim::Claimed(flight) => {
                let job = Job {
                    view: view.clone(),
                    key,
                    flight: flight.clone(),
                    cache: cache.clone(),
                };
                let sent = match &*self.tx.lock() {
                    Some(tx) => match tx.try_send(job) {
                        Ok(()) => true,
                        Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => false,
                    },
                    None => false,
                };
                if sent {
                    self.counters.queued.fetch_add(1, Ordering::Relaxed);
                } else {
                    self.counters.dropped.fetch_add(1, Ordering::Relaxed);
                    cache.abandon(
                        key,
                        &flight,
                        Error::NotReady("the prefetch queue is full".into()),
                    );
                }
                Lookup::Pending
            }
        }
    }
}

impl Drop for PrefetchPool {
    fn drop(&mut self) {
        self.tx.lock().take();
        for h in self.threads.lock().drain(..) {
            let _ = h.join();
        }
    }
}

/// Produces the value of `key`: reads and decodes the chunk, or builds its reverse log (getting
/// the decoded chunk through the cache first).
pub(crate) fn load(view: &View, cache: &ChunkCache, key: ChunkKey) -> crate::Result<Cached> {
    match key.part {
        Part::Decoded => Ok(Cached::Decoded(Arc::new(
            view.reader.read_chunk(key.chunk as usize)?,
        ))),
        Part::Reverse => {
            let dkey = ChunkKey {
                part: Part::Decoded,
                ..key
            };
            let chunk = cache
                .get_blocking(dkey, || load(view, cache, dkey))
                .map_err(|f| crate::play::cache::error_of(&f))?
                .decoded();
            Ok(Cached::Reverse(Arc::new(ReverseLog::build(&chunk))))
        }
    }
}
