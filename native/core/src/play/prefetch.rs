//! The prefetch pool: a few background threads that read, decode and prepare chunks ahead of the
//! playheads, so that [`crate::play::Playhead::advance`] never waits for I/O or decoding.
//!
//! Jobs go through a bounded queue. A job is a claimed cache flight (see [`crate::play::cache`]):
//! whoever gets to it first runs it (a worker, or a blocking caller that needs it now), so each
//! chunk is decoded once however many playheads ask for it. When the queue is full the request is
//! dropped and counted; the playhead asks again on a later call.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::sync::Mutex;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TrySendError, bounded};

use crate::error::Error;
use crate::play::cache::{Cached, ChunkCache, ChunkKey, Claim, Flight, Lookup, Part};
use crate::play::cursor::ReverseLog;
use crate::play::view::View;

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
///
/// Workers are started on demand, up to the pool's size, and exit once they have been idle for
/// the pool's idle timeout (one second by default): a pool nobody uses holds no thread, so every
/// native thread playback caused is gone a second after its last request (which matters to a
/// plugin that is unloaded, see the JNI's `JNI_OnUnload`). [`PrefetchPool::shutdown`] ends the
/// workers at once; dropping the pool does too.
pub struct PrefetchPool {
    tx: Mutex<Option<Sender<Job>>>,
    rx: Receiver<Job>,
    /// Workers alive, and their handles (finished ones are pruned when a worker starts).
    workers: Arc<Mutex<Workers>>,
    max_threads: usize,
    idle: Duration,
    counters: Arc<Counters>,
}

#[derive(Default)]
struct Workers {
    alive: usize,
    handles: Vec<crate::threads::Handle>,
    spawned: u64,
}

impl std::fmt::Debug for PrefetchPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrefetchPool")
            .field("stats", &self.stats())
            .field("threads", &self.threads())
            .finish()
    }
}

/// Default number of threads of the process-wide pool.
pub const DEFAULT_PREFETCH_THREADS: usize = 2;
/// Default queue length of the process-wide pool.
pub const DEFAULT_PREFETCH_QUEUE: usize = 256;
/// How long a worker waits for a job before it exits.
pub const DEFAULT_PREFETCH_IDLE: Duration = Duration::from_secs(1);

impl PrefetchPool {
    /// A pool of up to `threads` workers (at least one) with a queue of `queue` jobs (at least
    /// one); workers exit after [`DEFAULT_PREFETCH_IDLE`] without a job.
    pub fn new(threads: usize, queue: usize) -> Arc<PrefetchPool> {
        PrefetchPool::with_idle_timeout(threads, queue, DEFAULT_PREFETCH_IDLE)
    }

    /// [`PrefetchPool::new`] whose workers exit after `idle` without a job.
    pub fn with_idle_timeout(threads: usize, queue: usize, idle: Duration) -> Arc<PrefetchPool> {
        let (tx, rx) = bounded::<Job>(queue.max(1));
        Arc::new(PrefetchPool {
            tx: Mutex::new(Some(tx)),
            rx,
            workers: Arc::new(Mutex::new(Workers::default())),
            max_threads: threads.max(1),
            idle,
            counters: Arc::new(Counters::default()),
        })
    }

    /// The process-wide pool used by `Recording::open_path`.
    pub fn global() -> Arc<PrefetchPool> {
        static GLOBAL: OnceLock<Arc<PrefetchPool>> = OnceLock::new();
        GLOBAL
            .get_or_init(|| PrefetchPool::new(DEFAULT_PREFETCH_THREADS, DEFAULT_PREFETCH_QUEUE))
            .clone()
    }

    /// Worker threads alive now.
    pub fn threads(&self) -> usize {
        self.workers.lock().alive
    }

    /// Worker threads started since the pool was created.
    pub fn threads_started(&self) -> u64 {
        self.workers.lock().spawned
    }

    /// Stops taking jobs (requests are dropped and counted from now on), lets the workers finish
    /// what is queued and waits for every one of them to exit. For a library about to be
    /// unloaded; idempotent.
    pub fn shutdown(&self) {
        self.tx.lock().take();
        let handles = std::mem::take(&mut self.workers.lock().handles);
        for h in handles {
            h.join();
        }
    }

    /// Starts a worker if fewer than the pool's size are alive (called after queueing a job).
    fn ensure_worker(&self) {
        let mut w = self.workers.lock();
        if w.alive >= self.max_threads {
            return;
        }
        w.handles.retain(|h| !h.is_finished());
        let rx = self.rx.clone();
        let counters = self.counters.clone();
        let idle = self.idle;
        let workers = self.workers.clone();
        let spawned =
            crate::threads::spawn(format!("tickreel-prefetch-{}", w.spawned), move || {
                worker(&rx, &counters, idle, &workers)
            });
        // Without a thread the queued job waits for a blocking caller to run it (a playhead that
        // needs the chunk runs the claimed flight itself).
        if let Ok(h) = spawned {
            w.alive += 1;
            w.spawned += 1;
            w.handles.push(h);
        }
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
    pub(crate) fn request(
        &self,
        view: &Arc<View>,
        cache: &Arc<ChunkCache>,
        key: ChunkKey,
    ) -> Lookup {
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
                    self.ensure_worker();
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
        self.shutdown();
    }
}

/// One worker: runs jobs until it has waited `idle` for one, or the pool is shut down.
fn worker(rx: &Receiver<Job>, counters: &Counters, idle: Duration, workers: &Mutex<Workers>) {
    loop {
        match crate::threads::recv_until(rx, Some(std::time::Instant::now() + idle)) {
            Ok(job) => {
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
            Err(RecvTimeoutError::Timeout) => {
                // Leaves only with an empty queue, decided under the lock `ensure_worker` takes
                // after queueing: a job queued meanwhile either finds this worker still counted
                // (and this worker sees the job) or starts a new one.
                let mut w = workers.lock();
                if rx.is_empty() {
                    w.alive -= 1;
                    return;
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                workers.lock().alive -= 1;
                return;
            }
        }
    }
}

/// Produces the value of `key`: reads and decodes the chunk (whole, without its movement for
/// [`Part::World`], without its world section for [`Part::Entities`]), or builds its reverse log
/// (getting the decoded chunk, whole or without its world, through the cache first).
pub(crate) fn load(view: &View, cache: &ChunkCache, key: ChunkKey) -> crate::Result<Cached> {
    match key.part {
        Part::Decoded => Ok(Cached::Decoded(Arc::new(
            view.reader.read_chunk(key.chunk as usize)?,
        ))),
        Part::World => Ok(Cached::Decoded(Arc::new(
            view.reader.read_chunk_world(key.chunk as usize)?,
        ))),
        Part::Entities => Ok(Cached::Decoded(Arc::new(
            view.reader.read_chunk_entities(key.chunk as usize)?,
        ))),
        Part::Reverse | Part::EntitiesReverse => {
            let dkey = ChunkKey {
                part: if key.part == Part::Reverse {
                    Part::Decoded
                } else {
                    Part::Entities
                },
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
