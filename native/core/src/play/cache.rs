//! The chunk cache: decoded chunks (and the reverse logs built from them), shared by every
//! playhead of a recording and across recordings, bounded in bytes, least recently used first out.
//!
//! Keys are `(recording identity, chunk index, part)`. A recording's identity
//! ([`crate::play::Recording`]) stays the same while its index only grows (a live recording), so
//! cached chunks stay valid as chunks are appended; it changes when the chunks may have changed
//! (switch-over to the compacted file), so stale entries are never served and simply age out.
//!
//! Loading is single-flight: the first request for a missing key claims it (a *flight*); later
//! requests for the same key join that flight instead of decoding again. A flight is either queued
//! on the prefetch pool or running; a blocking caller that finds it still queued runs it itself
//! (so a blocking `seek` never waits behind the prefetch queue, and pool workers never wait on
//! work that nobody runs). Non-blocking callers ([`ChunkCache::lookup`]) never wait.
//!
//! Failures are cached too (a corrupt chunk is read once, not once per viewer per tick), except
//! I/O errors, which may be transient: those are reported to the flight's waiters and forgotten.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use crate::sync::{Condvar, Mutex};

use crate::error::{Error, Result};
use crate::format::chunk::DecodedChunk;
use crate::play::cursor::ReverseLog;

/// Which derived form of a chunk an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Part {
    /// The decoded chunk.
    Decoded,
    /// The reverse log built from it (for backward play).
    Reverse,
    /// The chunk decoded without its movement (no track; `EntityAdd` and `Teleport` with a
    /// default pose): what a world rebuild needs of the chunks before its position
    /// ([`crate::Reader::read_chunk_world`]). Held as [`Cached::Decoded`].
    World,
    /// The chunk decoded without its world section (and without its snapshot bytes): every
    /// track, the keyframe and the events ([`crate::Reader::read_chunk_entities`]). What a
    /// playhead without the world plays ([`crate::play::PlayheadOptions::world`]). Held as
    /// [`Cached::Decoded`].
    Entities,
    /// The reverse log built from [`Part::Entities`] (the same log as [`Part::Reverse`]'s, for
    /// a playhead without the world: no whole chunk decoded for it).
    EntitiesReverse,
}

/// A cache key: recording identity, chunk index, part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChunkKey {
    pub recording: u64,
    pub chunk: u32,
    pub part: Part,
}

/// A cached value.
#[derive(Debug, Clone)]
pub enum Cached {
    Decoded(Arc<DecodedChunk>),
    Reverse(Arc<ReverseLog>),
}

impl Cached {
    fn heap_bytes(&self) -> usize {
        match self {
            Cached::Decoded(c) => c.heap_bytes(),
            Cached::Reverse(l) => l.heap_bytes(),
        }
    }
    /// The decoded chunk (panics on a reverse log: keys and values always agree).
    pub fn decoded(self) -> Arc<DecodedChunk> {
        match self {
            Cached::Decoded(c) => c,
            Cached::Reverse(_) => unreachable!("a Decoded key holds a decoded chunk"),
        }
    }
    /// The reverse log.
    pub fn reverse(self) -> Arc<ReverseLog> {
        match self {
            Cached::Reverse(l) => l,
            Cached::Decoded(_) => unreachable!("a Reverse key holds a reverse log"),
        }
    }
}

/// A load that failed; shared by everyone who asked.
pub type Fault = Arc<Error>;

/// Counters of a cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Requests served from a ready entry (decoded chunks and reverse logs).
    pub hits: u64,
    /// Requests that found nothing and started a load (one per load).
    pub misses: u64,
    /// Requests that joined a load already in flight (not counted as hits or misses).
    pub joins: u64,
    /// Chunk reads and decodes (failed ones included).
    pub decodes: u64,
    /// Chunk reads and decodes without the movement, for world rebuilds ([`Part::World`];
    /// failed ones included).
    pub world_decodes: u64,
    /// Chunk reads and decodes without the world section, for playheads without the world
    /// ([`Part::Entities`]; failed ones included).
    pub entity_decodes: u64,
    /// Reverse logs built (failed ones included).
    pub reverse_builds: u64,
    /// Loads that failed.
    pub failures: u64,
    /// Entries dropped to stay within the byte budget.
    pub evictions: u64,
    /// Bytes held now (by `DecodedChunk::heap_bytes` and `ReverseLog::heap_bytes`).
    pub bytes: u64,
    /// Entries held now (ready or failed).
    pub entries: u64,
    /// The byte budget.
    pub capacity: u64,
}

/// What a non-blocking lookup found.
#[derive(Debug, Clone)]
pub enum Lookup {
    Ready(Cached),
    /// Being loaded (queued or running).
    Pending,
    /// Not in the cache and not being loaded.
    Absent,
    Failed(Fault),
}

#[derive(Debug)]
enum FlightState {
    Queued,
    Running,
    Done(std::result::Result<Cached, Fault>),
}

/// One load in flight.
#[derive(Debug)]
pub struct Flight {
    state: Mutex<FlightState>,
    done: Condvar,
}

impl Flight {
    fn new() -> Arc<Flight> {
        Arc::new(Flight {
            state: Mutex::new(FlightState::Queued),
            done: Condvar::new(),
        })
    }
    /// Takes the flight to run it; false if someone else runs or ran it.
    pub fn try_start(&self) -> bool {
        let mut s = self.state.lock();
        if matches!(*s, FlightState::Queued) {
            *s = FlightState::Running;
            true
        } else {
            false
        }
    }
    fn wait(&self) -> std::result::Result<Cached, Fault> {
        let mut s = self.state.lock();
        loop {
            if let FlightState::Done(r) = &*s {
                return r.clone();
            }
            self.done.wait(&mut s);
        }
    }
    fn finish(&self, r: std::result::Result<Cached, Fault>) {
        *self.state.lock() = FlightState::Done(r);
        self.done.notify_all();
    }
}

#[derive(Debug)]
enum Slot {
    Loading(Arc<Flight>),
    Ready {
        value: Cached,
        bytes: usize,
        stamp: u64,
    },
    Failed {
        fault: Fault,
        stamp: u64,
    },
}

#[derive(Debug, Default)]
struct Inner {
    slots: HashMap<ChunkKey, Slot>,
    /// Ready and failed entries by last use.
    lru: BTreeMap<u64, ChunkKey>,
    next_stamp: u64,
    bytes: usize,
}

impl Inner {
    fn touch(&mut self, key: ChunkKey) {
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        if let Some(Slot::Ready { stamp: s, .. } | Slot::Failed { stamp: s, .. }) =
            self.slots.get_mut(&key)
        {
            self.lru.remove(s);
            *s = stamp;
            self.lru.insert(stamp, key);
        }
    }
}

/// Bytes charged for a cached failure.
const FAULT_BYTES: usize = 256;

/// The shared cache. See the module documentation.
#[derive(Debug)]
pub struct ChunkCache {
    inner: Mutex<Inner>,
    capacity: usize,
    hits: AtomicU64,
    misses: AtomicU64,
    joins: AtomicU64,
    decodes: AtomicU64,
    world_decodes: AtomicU64,
    entity_decodes: AtomicU64,
    reverse_builds: AtomicU64,
    failures: AtomicU64,
    evictions: AtomicU64,
}

/// Default byte budget of the process-wide cache.
pub const DEFAULT_CACHE_BYTES: usize = 256 << 20;

/// What [`ChunkCache::claim`] found.
pub enum Claim {
    Ready(Cached),
    Failed(Fault),
    /// A load is in flight; the flight can be waited on (or run, if still queued).
    Joined(Arc<Flight>),
    /// The caller claimed the load and must run it (or hand it to the pool).
    Claimed(Arc<Flight>),
}

impl ChunkCache {
    /// A cache holding up to `capacity_bytes` of decoded data.
    pub fn new(capacity_bytes: usize) -> Arc<ChunkCache> {
        Arc::new(ChunkCache {
            inner: Mutex::new(Inner::default()),
            capacity: capacity_bytes,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            joins: AtomicU64::new(0),
            decodes: AtomicU64::new(0),
            world_decodes: AtomicU64::new(0),
            entity_decodes: AtomicU64::new(0),
            reverse_builds: AtomicU64::new(0),
            failures: AtomicU64::new(0),
            evictions: AtomicU64::new(0),
        })
    }

    /// The process-wide cache ([`DEFAULT_CACHE_BYTES`]) used by `Recording::open_path`.
    pub fn global() -> Arc<ChunkCache> {
        static GLOBAL: OnceLock<Arc<ChunkCache>> = OnceLock::new();
        GLOBAL
            .get_or_init(|| ChunkCache::new(DEFAULT_CACHE_BYTES))
            .clone()
    }

    pub fn stats(&self) -> CacheStats {
        let (bytes, entries) = {
            let g = self.inner.lock();
            (g.bytes as u64, g.lru.len() as u64)
        };
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            joins: self.joins.load(Ordering::Relaxed),
            decodes: self.decodes.load(Ordering::Relaxed),
            world_decodes: self.world_decodes.load(Ordering::Relaxed),
            entity_decodes: self.entity_decodes.load(Ordering::Relaxed),
            reverse_builds: self.reverse_builds.load(Ordering::Relaxed),
            failures: self.failures.load(Ordering::Relaxed),
            evictions: self.evictions.load(Ordering::Relaxed),
            bytes,
            entries,
            capacity: self.capacity as u64,
        }
    }

    /// Non-blocking lookup; never starts a load.
    pub fn lookup(&self, key: ChunkKey) -> Lookup {
        let mut g = self.inner.lock();
        let r = match g.slots.get(&key) {
            None => return Lookup::Absent,
            Some(Slot::Loading(_)) => return Lookup::Pending,
            Some(Slot::Ready { value, .. }) => Lookup::Ready(value.clone()),
            Some(Slot::Failed { fault, .. }) => Lookup::Failed(fault.clone()),
        };
        g.touch(key);
        drop(g);
        if matches!(r, Lookup::Ready(_)) {
            self.hits.fetch_add(1, Ordering::Relaxed);
        }
        r
    }

    /// Looks `key` up and, if it is absent, claims its load for the caller.
    pub(crate) fn claim(&self, key: ChunkKey) -> Claim {
        let mut g = self.inner.lock();
        let r = match g.slots.get(&key) {
            Some(Slot::Ready { value, .. }) => Claim::Ready(value.clone()),
            Some(Slot::Failed { fault, .. }) => Claim::Failed(fault.clone()),
            Some(Slot::Loading(f)) => {
                let f = f.clone();
                drop(g);
                self.joins.fetch_add(1, Ordering::Relaxed);
                return Claim::Joined(f);
            }
            None => {
                let f = Flight::new();
                g.slots.insert(key, Slot::Loading(f.clone()));
                drop(g);
                self.misses.fetch_add(1, Ordering::Relaxed);
                return Claim::Claimed(f);
            }
        };
        g.touch(key);
        drop(g);
        if matches!(r, Claim::Ready(_)) {
            self.hits.fetch_add(1, Ordering::Relaxed);
        }
        r
    }

    /// Runs a claimed (or queued and taken) flight: `load` produces the value.
    pub(crate) fn run(
        &self,
        key: ChunkKey,
        flight: &Flight,
        load: impl FnOnce() -> Result<Cached>,
    ) -> std::result::Result<Cached, Fault> {
        let r = load().map_err(Arc::new);
        match key.part {
            Part::Decoded => self.decodes.fetch_add(1, Ordering::Relaxed),
            Part::World => self.world_decodes.fetch_add(1, Ordering::Relaxed),
            Part::Entities => self.entity_decodes.fetch_add(1, Ordering::Relaxed),
            Part::Reverse | Part::EntitiesReverse => {
                self.reverse_builds.fetch_add(1, Ordering::Relaxed)
            }
        };
        self.complete(key, flight, r.clone());
        r
    }

    /// Records the result of a flight and wakes its waiters.
    fn complete(&self, key: ChunkKey, flight: &Flight, r: std::result::Result<Cached, Fault>) {
        {
            let mut g = self.inner.lock();
            let ours =
                matches!(g.slots.get(&key), Some(Slot::Loading(f)) if std::ptr::eq(&**f, flight));
            if ours {
                let stamp = g.next_stamp;
                g.next_stamp += 1;
                match &r {
                    Ok(v) => {
                        let bytes = v.heap_bytes();
                        g.bytes += bytes;
                        g.slots.insert(
                            key,
                            Slot::Ready {
                                value: v.clone(),
                                bytes,
                                stamp,
                            },
                        );
                        g.lru.insert(stamp, key);
                    }
                    Err(e) if matches!(**e, Error::Io(_)) => {
                        g.slots.remove(&key);
                    }
                    Err(e) => {
                        g.bytes += FAULT_BYTES;
                        g.slots.insert(
                            key,
                            Slot::Failed {
                                fault: e.clone(),
                                stamp,
                            },
                        );
                        g.lru.insert(stamp, key);
                    }
                }
                self.evict(&mut g);
            }
        }
        if r.is_err() {
            self.failures.fetch_add(1, Ordering::Relaxed);
        }
        flight.finish(r);
    }

    /// Drops least recently used entries until within budget (always keeping the newest one, so
    /// that a chunk larger than the whole budget can still be used).
    fn evict(&self, g: &mut Inner) {
        while g.bytes > self.capacity && g.lru.len() > 1 {
            let (_, key) = g.lru.pop_first().expect("non-empty");
            match g.slots.remove(&key) {
                Some(Slot::Ready { bytes, .. }) => g.bytes -= bytes,
                Some(Slot::Failed { .. }) => g.bytes -= FAULT_BYTES,
                other => unreachable!("only ready and failed slots are in the LRU: {other:?}"),
            }
            self.evictions.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Gets `key`, loading it with `load` on this thread if needed (single-flight: concurrent
    /// callers wait for one load). Blocks.
    pub(crate) fn get_blocking(
        &self,
        key: ChunkKey,
        load: impl FnOnce() -> Result<Cached>,
    ) -> std::result::Result<Cached, Fault> {
        match self.claim(key) {
            Claim::Ready(v) => Ok(v),
            Claim::Failed(f) => Err(f),
            // A fresh claim is usually ours to run, but a caller who joined it between the claim
            // and here may have taken it first (it runs queued flights itself): then wait.
            Claim::Claimed(f) | Claim::Joined(f) => {
                if f.try_start() {
                    self.run(key, &f, load)
                } else {
                    match f.wait() {
                        // Abandoned before anyone ran it (the prefetch queue was full): load it here.
                        Err(e) if matches!(*e, Error::NotReady(_)) => self.get_blocking(key, load),
                        r => r,
                    }
                }
            }
        }
    }

    /// Abandons a claimed flight that could not be handed to anyone, unless someone already took
    /// it to run it (the slot is freed; a blocking waiter then loads it itself).
    pub(crate) fn abandon(&self, key: ChunkKey, flight: &Flight, why: Error) {
        if !flight.try_start() {
            return;
        }
        {
            let mut g = self.inner.lock();
            if matches!(g.slots.get(&key), Some(Slot::Loading(f)) if std::ptr::eq(&**f, flight)) {
                g.slots.remove(&key);
            }
        }
        flight.finish(Err(Arc::new(why)));
    }

    /// Drops every entry of one recording identity (failed ones included).
    pub fn forget_recording(&self, recording: u64) {
        let mut g = self.inner.lock();
        let keys: Vec<ChunkKey> = g
            .slots
            .iter()
            .filter(|(k, s)| k.recording == recording && !matches!(s, Slot::Loading(_)))
            .map(|(k, _)| *k)
            .collect();
        for k in keys {
            match g.slots.remove(&k) {
                Some(Slot::Ready { bytes, stamp, .. }) => {
                    g.bytes -= bytes;
                    g.lru.remove(&stamp);
                }
                Some(Slot::Failed { stamp, .. }) => {
                    g.bytes -= FAULT_BYTES;
                    g.lru.remove(&stamp);
                }
                _ => {}
            }
        }
    }

    /// Drops every ready and failed entry (loads in flight complete normally).
    pub fn clear(&self) {
        let mut g = self.inner.lock();
        g.slots.retain(|_, s| matches!(s, Slot::Loading(_)));
        g.lru.clear();
        g.bytes = 0;
    }
}

/// A copy of an error for a caller (errors are shared in the cache; `Error` is not `Clone`).
pub fn error_of(f: &Fault) -> Error {
    f.duplicate()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(ticks: u32, samples: usize) -> Cached {
        Cached::Decoded(Arc::new(DecodedChunk {
            start_tick: 0,
            tick_count: ticks,
            flags: 0,
            keyframe: Vec::new(),
            snapshot: Some(vec![0; samples]),
            world: None,
            world_delta: None,
            records: Vec::new(),
            tracks: Vec::new(),
        }))
    }

    fn key(c: u32) -> ChunkKey {
        ChunkKey {
            recording: 1,
            chunk: c,
            part: Part::Decoded,
        }
    }

    #[test]
    fn single_flight_decodes_once_for_many_threads() {
        let cache = ChunkCache::new(1 << 20);
        let loads = AtomicU64::new(0);
        std::thread::scope(|s| {
            for _ in 0..16 {
                s.spawn(|| {
                    for c in 0..8 {
                        let v = cache
                            .get_blocking(key(c), || {
                                loads.fetch_add(1, Ordering::Relaxed);
                                std::thread::yield_now();
                                Ok(chunk(c + 1, 10))
                            })
                            .unwrap();
                        assert_eq!(v.decoded().tick_count, c + 1);
                    }
                });
            }
        });
        assert_eq!(loads.load(Ordering::Relaxed), 8);
        let st = cache.stats();
        assert_eq!(st.decodes, 8);
        assert_eq!(st.misses, 8);
        assert_eq!(st.hits + st.joins + st.misses, 16 * 8);
        assert_eq!(st.entries, 8);
    }

    #[test]
    fn lru_eviction_keeps_the_budget_and_recent_entries() {
        let one = chunk(1, 1000).heap_bytes();
        let cache = ChunkCache::new(one * 3);
        for c in 0..3 {
            cache.get_blocking(key(c), || Ok(chunk(1, 1000))).unwrap();
        }
        // Touch chunk 0 so that chunk 1 is the oldest.
        assert!(matches!(cache.lookup(key(0)), Lookup::Ready(_)));
        cache.get_blocking(key(3), || Ok(chunk(1, 1000))).unwrap();
        assert!(matches!(cache.lookup(key(1)), Lookup::Absent));
        assert!(matches!(cache.lookup(key(0)), Lookup::Ready(_)));
        let st = cache.stats();
        assert_eq!(st.evictions, 1);
        assert!(st.bytes as usize <= one * 3);
        // An entry larger than the budget is kept alone.
        cache
            .get_blocking(key(9), || Ok(chunk(1, one * 10)))
            .unwrap();
        assert!(matches!(cache.lookup(key(9)), Lookup::Ready(_)));
        assert_eq!(cache.stats().entries, 1);
    }

    #[test]
    fn failures_are_cached_except_io_errors() {
        let cache = ChunkCache::new(1 << 20);
        let r = cache.get_blocking(key(0), || Err(Error::corrupt("bad")));
        assert!(matches!(*r.unwrap_err(), Error::Corrupt(_)));
        assert!(matches!(cache.lookup(key(0)), Lookup::Failed(_)));
        let r = cache.get_blocking(key(1), || Err(Error::Io(std::io::Error::other("flaky"))));
        assert!(r.is_err());
        assert!(matches!(cache.lookup(key(1)), Lookup::Absent));
        assert_eq!(cache.stats().failures, 2);
        // Forgetting a recording drops its failures too.
        cache.forget_recording(1);
        assert!(matches!(cache.lookup(key(0)), Lookup::Absent));
        assert_eq!(cache.stats().bytes, 0);
    }

    #[test]
    fn a_queued_flight_is_run_by_a_blocking_caller() {
        let cache = ChunkCache::new(1 << 20);
        let Claim::Claimed(f) = cache.claim(key(0)) else {
            panic!("absent key is claimed")
        };
        assert!(matches!(cache.lookup(key(0)), Lookup::Pending));
        // Nobody started it (e.g. still in the pool's queue): a blocking get runs it.
        let v = cache.get_blocking(key(0), || Ok(chunk(7, 1))).unwrap();
        assert_eq!(v.decoded().tick_count, 7);
        // The queued job later finds it taken.
        assert!(!f.try_start());
        assert_eq!(cache.stats().decodes, 1);
    }
}
