//! Playback: playheads forward and backward, random operation sequences against a straight decode,
//! many concurrent viewers over one shared cache, corrupt chunks, stalls, a growing recording.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};
use tickreel::Event;
use tickreel::format::EntityTable;
use tickreel::format::FRAME_HEADER_LEN;
use tickreel::format::IndexEntry;
use tickreel::play::{
    Direction, Motion, PlaybackContext, Playhead, PlayheadOptions, Reader, Recording, Update,
};
use tickreel::storage::frames::FrameSource;
use tickreel::storage::{FileSource, Source};

fn ctx() -> PlaybackContext {
    PlaybackContext::new(256 << 20, 2, 64)
}

/// The state after every tick by a straight decode (`Reader::ticks` + `EntityTable::apply`), the
/// decoded ticks, and every custom/extension event with its tick.
struct Straight {
    first: u32,
    states: Vec<EntityTable>,
    ticks: BTreeMap<u32, Vec<Event>>,
    world: Vec<(u32, Event)>,
}

impl Straight {
    fn of(reader: &Reader) -> Straight {
        let first = reader.first_tick().unwrap();
        let last = reader.last_tick().unwrap();
        let mut table = EntityTable::default();
        let mut ticks = BTreeMap::new();
        let mut world = Vec::new();
        for t in reader.ticks(first, last) {
            let t = t.unwrap();
            for e in &t.events {
                if matches!(e, Event::Custom { .. } | Event::Extension { .. }) {
                    world.push((t.tick, e.clone()));
                }
            }
            ticks.insert(t.tick, t.events);
        }
        let mut states = Vec::new();
        for tick in first..=last {
            if let Some(events) = ticks.get(&tick) {
                for e in events {
                    table.apply(e);
                }
            }
            states.push(table.clone());
        }
        Straight {
            first,
            states,
            ticks,
            world,
        }
    }
    fn at(&self, tick: u32) -> &EntityTable {
        &self.states[(tick - self.first) as usize]
    }
    /// The decoded ticks in `(from, to]`.
    fn between(&self, from: u32, to: u32) -> Vec<(u32, Vec<Event>)> {
        self.ticks
            .range(from + 1..=to)
            .map(|(t, e)| (*t, e.clone()))
            .collect()
    }
}

fn sim_file(dir: &Path, players: u32, ticks: u32, seed: u64) -> std::path::PathBuf {
    let path = dir.join(format!("sim-{players}-{ticks}-{seed}.reel"));
    let t = common::sim_ticks(players, ticks, seed);
    common::write_reel(&path, &t, common::small_policy());
    path
}

/// Checks one update against the straight decode and the previous state; returns the new state.
/// The chunk holding `tick`: the last one starting at or before it (read from the index).
fn find_chunk(index: &[IndexEntry], tick: u32) -> Option<usize> {
    index.iter().rposition(|e| e.start_tick <= tick)
}

/// The nearest chunk at or before chunk `k` that carries a snapshot.
fn snapshot_at_or_before(index: &[IndexEntry], k: usize) -> Option<usize> {
    (0..=k).rev().find(|&i| index[i].has_snapshot())
}

fn check_update(u: &Update, prev: &EntityTable, straight: &Straight, index: &[IndexEntry]) {
    let now = u.table();
    assert_eq!(&now, straight.at(u.to), "state at {}", u.to);
    match u.motion {
        Motion::Still => {
            assert_eq!(u.from, u.to);
            assert_eq!(&now, prev);
        }
        Motion::Forward => {
            assert!(u.to > u.from);
            let got: Vec<(u32, Vec<Event>)> = u.ticks().map(|(t, e)| (t, e.to_vec())).collect();
            assert_eq!(got, straight.between(u.from, u.to), "{}..{}", u.from, u.to);
            // Applying the events to the previous state gives the new state.
            let mut t = prev.clone();
            for (_, events) in u.ticks() {
                for e in events {
                    t.apply(e);
                }
            }
            assert_eq!(t, now);
        }
        Motion::Jump => {
            // removed + added turn the previous entity set into the new one.
            let mut ids: BTreeMap<u32, u32> = prev.iter().map(|e| (e.id, e.kind)).collect();
            for id in u.removed() {
                assert!(ids.remove(id).is_some(), "removed {id} was not alive");
            }
            for e in u.added() {
                assert!(
                    ids.insert(e.id, e.kind).is_none(),
                    "added {} was alive",
                    e.id
                );
            }
            let want: BTreeMap<u32, u32> = now.iter().map(|e| (e.id, e.kind)).collect();
            assert_eq!(ids, want);
            let (lo, hi) = (u.from.min(u.to), u.from.max(u.to));
            match u.rebuild() {
                None => assert!(
                    !straight.world.iter().any(|(t, _)| *t > lo && *t <= hi),
                    "world events between {lo} and {hi} but no rebuild"
                ),
                Some(rb) => {
                    let k = find_chunk(index, u.to).unwrap();
                    let snap = snapshot_at_or_before(index, k);
                    assert_eq!(rb.snapshot_chunk(), snap);
                    let from_tick = snap.map_or(0, |s| index[s].start_tick);
                    assert_eq!(rb.snapshot_tick(), snap.map(|s| index[s].start_tick));
                    assert!(rb.snapshot().is_some() == snap.is_some());
                    let got: Vec<(u32, Event)> = rb.events().map(|(t, e)| (t, e.clone())).collect();
                    let want: Vec<(u32, Event)> = straight
                        .world
                        .iter()
                        .filter(|(t, _)| *t >= from_tick && *t <= u.to)
                        .cloned()
                        .collect();
                    assert_eq!(got, want);
                    assert!(rb.complete());
                }
            }
        }
    }
}

/// `prepare` then `advance`: never stalls when nothing else evicts the cache.
fn step_play(ph: &mut Playhead) -> &Update {
    ph.prepare();
    let u = ph.advance();
    assert!(!u.stalled, "stalled after prepare at {}", u.from);
    u
}

#[test]
fn reverse_play_over_a_whole_file_yields_the_forward_states_in_reverse() {
    let dir = tempfile::tempdir().unwrap();
    let path = sim_file(dir.path(), 12, 800, 11);
    let rec = Recording::open_path_with(&path, &ctx()).unwrap();
    let view = rec.view();
    let index = view.reader().index().to_vec();
    assert!(index.len() > 15, "multi-chunk");
    let straight = Straight::of(view.reader());
    assert!(!straight.world.is_empty(), "custom events present");
    let (first, last) = (
        view.reader().first_tick().unwrap(),
        view.reader().last_tick().unwrap(),
    );

    let mut ph = Playhead::new(rec.clone()).unwrap();
    let first_update = ph.update();
    assert_eq!(first_update.motion, Motion::Jump);
    assert_eq!(first_update.added().len(), first_update.entities().len());
    assert!(first_update.rebuild().is_some());
    let mut forward = vec![(ph.position(), ph.update().table())];
    ph.play();
    loop {
        let prev = forward.last().unwrap().1.clone();
        let u = step_play(&mut ph);
        check_update(u, &prev, &straight, &index);
        if u.motion == Motion::Still {
            assert!(u.at_edge);
            break;
        }
        assert_eq!(u.motion, Motion::Forward);
        assert_eq!(u.to, u.from + 1);
        forward.push((u.to, u.table()));
    }
    assert_eq!(forward.len() as u32, last - first + 1);

    let mut ph = Playhead::new_at(rec.clone(), last).unwrap();
    ph.set_direction(Direction::Backward);
    ph.play();
    let mut backward = vec![(ph.position(), ph.update().table())];
    let mut rebuilds = 0;
    loop {
        let prev = backward.last().unwrap().1.clone();
        let u = step_play(&mut ph);
        check_update(u, &prev, &straight, &index);
        if u.motion == Motion::Still {
            assert!(u.at_edge);
            break;
        }
        assert_eq!(u.motion, Motion::Jump);
        assert_eq!(u.to + 1, u.from);
        rebuilds += u.rebuild().is_some() as u32;
        backward.push((u.to, u.table()));
    }
    backward.reverse();
    assert_eq!(backward, forward);
    assert!(rebuilds > 0, "reverse play crossed custom events");
    let st = rec.cache().stats();
    assert_eq!(st.decodes as usize, index.len(), "each chunk decoded once");
    assert_eq!(st.reverse_builds as usize, index.len());
}

#[test]
fn random_operations_match_a_straight_decode() {
    let dir = tempfile::tempdir().unwrap();
    let path = sim_file(dir.path(), 10, 900, 5);
    let rec = Recording::open_path_with(&path, &ctx()).unwrap();
    let view = rec.view();
    let index = view.reader().index().to_vec();
    let straight = Straight::of(view.reader());
    let (first, last) = (
        view.reader().first_tick().unwrap(),
        view.reader().last_tick().unwrap(),
    );
    for seed in 0..4u64 {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut ph = Playhead::new_at(rec.clone(), rng.u32(first..=last)).unwrap();
        let mut state = ph.update().table();
        assert_eq!(&state, straight.at(ph.position()));
        for op in 0..2500 {
            let u: &Update = match rng.u32(0..100) {
                0..=4 => ph.seek(rng.u32(first..=last + 50)).unwrap(),
                5..=9 => {
                    // Seeks near the position (same or next chunk) are common in practice.
                    let t = ph.position().saturating_sub(40) + rng.u32(0..80);
                    ph.seek(t).unwrap()
                }
                10..=17 => ph.step_forward(),
                18..=25 => ph.step_back(),
                26..=30 => {
                    let s = [0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 7.5, 16.0][rng.usize(..10)];
                    ph.set_speed(s).unwrap();
                    continue;
                }
                31..=35 => {
                    ph.set_direction(if rng.bool() {
                        Direction::Forward
                    } else {
                        Direction::Backward
                    });
                    continue;
                }
                36..=38 => {
                    ph.pause();
                    continue;
                }
                39..=44 => {
                    ph.play();
                    continue;
                }
                45..=47 => {
                    ph.request_seek(rng.u32(first..=last));
                    step_play(&mut ph)
                }
                _ => step_play(&mut ph),
            };
            check_update(u, &state, &straight, &index);
            assert!(u.faults().is_empty());
            state = u.table();
            assert_eq!(&state, straight.at(ph.position()), "seed {seed} op {op}");
            assert_eq!(ph.update().to, ph.position());
        }
    }
}

#[test]
fn speed_accumulates_fractions_and_rejects_out_of_range_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = sim_file(dir.path(), 3, 300, 2);
    let rec = Recording::open_path_with(&path, &ctx()).unwrap();
    let mut ph = Playhead::new(rec).unwrap();
    for bad in [0.2, 16.5, f64::NAN, f64::INFINITY, -1.0] {
        assert!(matches!(
            ph.set_speed(bad),
            Err(tickreel::Error::InvalidArgument(_))
        ));
    }
    ph.set_speed(0.25).unwrap();
    ph.play();
    let moved: Vec<u32> = (0..8)
        .map(|_| {
            step_play(&mut ph);
            ph.position()
        })
        .collect();
    assert_eq!(moved, vec![0, 0, 0, 1, 1, 1, 1, 2]);
    ph.set_speed(1.5).unwrap();
    let p = ph.position();
    step_play(&mut ph);
    step_play(&mut ph);
    assert_eq!(ph.position(), p + 3);
    ph.set_speed(16.0).unwrap();
    let u = step_play(&mut ph);
    assert_eq!(u.to - u.from, 16);
    assert_eq!(
        u.ticks().len(),
        16,
        "every covered tick, pose-only ones included"
    );
    ph.pause();
    assert_eq!(step_play(&mut ph).motion, Motion::Still);
    ph.set_direction(Direction::Backward);
    ph.set_speed(4.0).unwrap();
    ph.play();
    let p = ph.position();
    let u = step_play(&mut ph);
    assert_eq!((u.motion, u.from, u.to), (Motion::Jump, p, p - 4));
}

#[test]
fn sixty_four_viewers_share_one_decode_per_chunk() {
    let dir = tempfile::tempdir().unwrap();
    let path = sim_file(dir.path(), 16, 1200, 3);
    let ctx = PlaybackContext::new(512 << 20, 2, 32);
    let rec = Recording::open_path_with(&path, &ctx).unwrap();
    let chunks = rec.view().reader().index().len();
    let last = rec.view().reader().last_tick().unwrap();
    let results: Vec<(bool, u64)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|thread| {
                let rec = rec.clone();
                s.spawn(move || {
                    let mut out = Vec::new();
                    for v in 0..8 {
                        let backward = (thread + v) % 2 == 1;
                        out.push((backward, view_digest(&rec, backward, last, v)));
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert_eq!(results.len(), 64);
    for backward in [false, true] {
        let d: Vec<u64> = results
            .iter()
            .filter(|r| r.0 == backward)
            .map(|r| r.1)
            .collect();
        assert_eq!(d.len(), 32);
        assert!(d.iter().all(|x| *x == d[0]), "identical results");
    }
    let st = rec.cache().stats();
    assert_eq!(
        st.decodes as usize, chunks,
        "each chunk decoded exactly once"
    );
    assert_eq!(st.reverse_builds as usize, chunks);
    assert_eq!(st.failures, 0);
    assert!(st.hits > st.misses);
}

/// Plays a whole recording and digests what the plugin would have applied: forward viewers at
/// various speeds without ever waiting (stalls are caught up, so every tick's events arrive);
/// backward viewers at 1x with `prepare` (every state).
fn view_digest(rec: &Arc<Recording>, backward: bool, last: u32, v: usize) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    if backward {
        let mut ph = Playhead::new_at(rec.clone(), last).unwrap();
        ph.set_direction(Direction::Backward);
        ph.play();
        loop {
            ph.prepare();
            let u = ph.advance();
            assert!(!u.stalled);
            if u.motion == Motion::Still {
                break;
            }
            (u.to, format!("{:?}", u.entities())).hash(&mut h);
        }
        h.finish()
    } else {
        let mut ph = Playhead::new(rec.clone()).unwrap();
        ph.set_speed([1.0, 3.0, 8.0, 16.0][v % 4]).unwrap();
        ph.play();
        loop {
            let u = ph.advance();
            for (t, events) in u.ticks() {
                (t, format!("{events:?}")).hash(&mut h);
            }
            if u.at_edge && u.motion == Motion::Still {
                format!("{:?}", u.entities()).hash(&mut h);
                break;
            }
            if u.stalled {
                std::thread::yield_now();
            }
        }
        h.finish()
    }
}

/// Flips one byte in the middle of chunk `k`'s compressed payload.
fn corrupt_chunk(path: &Path, k: usize) -> IndexEntry {
    let e = Reader::open_path(path).unwrap().index()[k];
    let mut bytes = std::fs::read(path).unwrap();
    let at = e.offset as usize + FRAME_HEADER_LEN + e.compressed_len as usize / 2;
    bytes[at] ^= 0x5a;
    std::fs::write(path, bytes).unwrap();
    e
}

/// A source whose reads in `[lo, hi)` wait until the gate opens (or 30 s pass, so that a
/// playhead that wrongly blocks makes the test fail instead of hang).
#[derive(Debug)]
struct GatedSource {
    inner: FileSource,
    range: Mutex<(u64, u64)>,
    open: Mutex<bool>,
    cv: Condvar,
}

impl GatedSource {
    fn set_gate(&self, lo: u64, hi: u64) {
        *self.range.lock() = (lo, hi);
        *self.open.lock() = false;
    }
    fn open_gate(&self) {
        *self.open.lock() = true;
        self.cv.notify_all();
    }
}

impl Source for GatedSource {
    fn len(&self) -> tickreel::Result<u64> {
        self.inner.len()
    }
    fn read_up_to(&self, offset: u64, len: usize) -> tickreel::Result<Vec<u8>> {
        let (lo, hi) = *self.range.lock();
        if offset >= lo && offset < hi {
            let mut open = self.open.lock();
            if !*open {
                let _ = self.cv.wait_for(&mut open, Duration::from_secs(30));
            }
        }
        self.inner.read_up_to(offset, len)
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
}

/// Frames of a compacted file, for readers assembled by hand (a growing index).
#[derive(Debug)]
struct Frames(Arc<dyn Source>);

impl FrameSource for Frames {
    fn read_frame(&self, e: &IndexEntry) -> tickreel::Result<Vec<u8>> {
        self.0
            .read_exact_at(e.offset, FRAME_HEADER_LEN + e.compressed_len as usize)
    }
    fn describe(&self) -> String {
        self.0.describe()
    }
}

fn prefix_reader(full: &Reader, source: &Arc<dyn Source>, chunks: usize) -> Reader {
    Reader::from_parts(
        full.header().clone(),
        full.metadata().clone(),
        full.index()[..chunks].to_vec(),
        Arc::new(Frames(source.clone())),
        *full.limits(),
    )
    .unwrap()
}

#[path = "play/faults.rs"]
mod faults;

/// The prefetch workers live only while there is work: they start on a playhead's first request,
/// exit after the idle timeout, and start again on the next request.
#[test]
fn prefetch_workers_exit_when_idle_and_come_back_on_demand() {
    let dir = tempfile::tempdir().unwrap();
    let path = sim_file(dir.path(), 4, 400, 5);
    let ctx = PlaybackContext {
        cache: tickreel::play::ChunkCache::new(64 << 20),
        prefetch: tickreel::play::PrefetchPool::with_idle_timeout(2, 16, Duration::from_millis(50)),
    };
    assert_eq!(ctx.prefetch.threads(), 0, "no thread before any request");
    let wait_idle = |what: &str| {
        let start = std::time::Instant::now();
        while ctx.prefetch.threads() > 0 {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "{what}: {} workers still alive",
                ctx.prefetch.threads()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    let rec = Recording::open_path_with(&path, &ctx).unwrap();
    let mut ph = Playhead::new(rec.clone()).unwrap();
    ph.play();
    for _ in 0..100 {
        ph.prepare();
        ph.advance();
    }
    let started = ctx.prefetch.threads_started();
    assert!(started >= 1, "the playhead's requests started a worker");
    // Every queued job is taken by a worker (run, or skipped when the playhead read the chunk
    // first): wait for them, a loaded machine may not have scheduled the worker yet.
    let start = std::time::Instant::now();
    while {
        let st = ctx.prefetch.stats();
        st.queued == 0 || st.run + st.skipped + st.dropped < st.queued
    } {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{:?}",
            ctx.prefetch.stats()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    wait_idle("after the first run");
    // Used again: the pool starts workers again.
    let last = rec.view().reader().last_tick().unwrap();
    ph.seek(last).unwrap();
    ph.set_direction(Direction::Backward);
    for _ in 0..100 {
        ph.prepare();
        ph.advance();
    }
    assert!(
        ctx.prefetch.threads_started() > started,
        "workers restarted on demand"
    );
    wait_idle("after the second run");
    // Shut down, requests are dropped and no thread starts.
    ctx.prefetch.shutdown();
    let before = ctx.prefetch.threads_started();
    ph.seek(0).unwrap();
    for _ in 0..50 {
        ph.advance();
    }
    assert_eq!(ctx.prefetch.threads_started(), before);
    assert_eq!(ctx.prefetch.threads(), 0);
}
