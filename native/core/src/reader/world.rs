//! The world a reader rebuilds: delta world sections put on their keyframe's world (decoded once
//! and kept), the world at any tick ([`Reader::world_at`]: edited blocks, block entities,
//! entities; no terrain) and, asked for on its own, the terrain in effect at it
//! ([`Reader::terrain_at`], or the first sections of it, [`Reader::terrain_area_at`]).
//!
//! What the reader keeps of them ([`Caches`]: keyframe worlds and the terrain last merged) counts
//! in one byte budget ([`Reader::set_cache_budget`]), is said by [`Reader::heap_bytes`] and can be
//! given back at any time ([`Reader::trim_caches`]).

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::Reader;
use crate::error::{Error, Result};
use crate::format::chunk::DecodedChunk;
use crate::format::index::{FLAG_TERRAIN, rebuild_start, terrain_start};
use crate::format::terrain::Terrain;
use crate::format::world::BlockPos;
use crate::format::world_state::WorldState;

#[cfg(test)]
mod tests; // delta world sections on their keyframes

/// The world at one tick, as returned by [`Reader::world_at`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorldAt {
    pub tick: u32,
    /// Edited blocks, equipment and health at `tick` (after its events).
    pub world: WorldState,
    /// False if the world before the first chunk read is unknown: the recording has no
    /// snapshot within `MAX_CHUNKS_PER_SNAPSHOT` (256) chunks before `tick` (a file not written
    /// by tickreel's writers), or starts in the middle of a world (a shadow-play report) and
    /// has no snapshot before `tick`. The world then holds only what those chunks changed. False
    /// too if the block lists of the snapshot's world section are refused when decoded (a
    /// crafted file: [`WorldState::decode_error`] says why).
    pub complete: bool,
    /// Index of the snapshot chunk the world was rebuilt from.
    pub snapshot_chunk: Option<usize>,
}

impl WorldAt {
    /// The block state at `pos` over `terrain` (the terrain at the same tick,
    /// [`Reader::terrain_at`]): the edited block there if a world event set one, else the
    /// terrain's block (`None` where neither knows it).
    pub fn block(&self, pos: BlockPos, terrain: &Terrain) -> Option<u32> {
        self.world
            .block(pos)
            .or_else(|| terrain.block(pos.x, pos.y, pos.z))
    }
}

/// The first sections of the terrain at a tick, as returned by [`Reader::terrain_area_at`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TerrainArea {
    /// The terrain's first sections in its order (x, then z, then y), at most the number asked
    /// for, each as the terrain at the tick has it.
    pub terrain: Terrain,
    /// How many sections the whole terrain at the tick holds.
    pub total: usize,
}

/// The default of [`Reader::cache_budget`]: 64 MiB (about 4 million edited blocks of keyframe
/// worlds).
pub const DEFAULT_CACHE_BUDGET: usize = 64 << 20;

/// A terrain build in flight, shared by every caller asking for the same terrain (they wait for
/// it instead of building it again).
type TerrainFlight = Arc<OnceLock<std::result::Result<Arc<Terrain>, Arc<Error>>>>;

/// What a reader keeps of what it decoded besides chunks: the worlds of keyframe world sections
/// (by chunk index, most recently used last; the delta sections after a keyframe put their few
/// changes on top of its world, shared, instead of decoding it again, and a world rebuild from a
/// keyframe starts from it) and the terrain last merged (by the index of the last terrain chunk
/// it holds; a later terrain is built on it). Both count in one byte budget, least recently used
/// out first; what was just decoded is always kept (so a world or a terrain larger than the
/// whole budget is still decoded once, not once per use), until [`Reader::trim_caches`] gives it
/// back.
#[derive(Debug)]
pub(super) struct Caches {
    budget: AtomicUsize,
    kept: Mutex<Kept>,
    terrain_flights: Mutex<HashMap<usize, TerrainFlight>>,
}

impl Default for Caches {
    fn default() -> Caches {
        Caches {
            budget: AtomicUsize::new(DEFAULT_CACHE_BUDGET),
            kept: Mutex::default(),
            terrain_flights: Mutex::default(),
        }
    }
}

#[derive(Debug, Default)]
struct Kept {
    /// (chunk, world, its heap bytes), most recently used last.
    keyframes: Vec<(usize, Arc<WorldState>, usize)>,
    /// (last terrain chunk, terrain, its heap bytes).
    terrain: Option<(usize, Arc<Terrain>, usize)>,
    /// Whether the terrain was used after the last keyframe world was (then it goes last).
    terrain_recent: bool,
}

impl Kept {
    fn bytes(&self) -> usize {
        self.keyframes.iter().map(|e| e.2).sum::<usize>() + self.terrain.as_ref().map_or(0, |t| t.2)
    }

    /// Gives back the least recently used until at most `max` bytes are kept, keeping the
    /// keyframe world of chunk `keep_world` or the terrain (`keep_terrain`) whatever its size.
    fn trim(&mut self, max: usize, keep_world: Option<usize>, keep_terrain: bool) {
        let mut bytes = self.bytes();
        while bytes > max {
            let oldest_world = self.keyframes.iter().position(|e| Some(e.0) != keep_world);
            let terrain_goes = self.terrain.is_some()
                && !keep_terrain
                && (!self.terrain_recent || oldest_world.is_none());
            if terrain_goes {
                bytes -= self.terrain.take().map_or(0, |t| t.2);
            } else if let Some(k) = oldest_world {
                bytes -= self.keyframes.remove(k).2;
            } else {
                break;
            }
        }
    }
}

impl Caches {
    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn keyframe(&self, chunk: usize) -> Option<Arc<WorldState>> {
        let mut g = self.lock();
        let k = g.keyframes.iter().position(|e| e.0 == chunk)?;
        let e = g.keyframes.remove(k);
        let w = e.1.clone();
        g.keyframes.push(e);
        g.terrain_recent = false;
        Some(w)
    }

    fn put_keyframe(&self, chunk: usize, world: Arc<WorldState>) {
        let bytes = world.heap_bytes();
        let mut g = self.lock();
        g.keyframes.retain(|e| e.0 != chunk);
        g.keyframes.push((chunk, world, bytes));
        g.terrain_recent = false;
        g.trim(self.budget.load(Ordering::Relaxed), Some(chunk), false);
    }

    /// The kept terrain if it is the one of terrain chunk `last`, or (`before`) one of an
    /// earlier terrain chunk.
    fn terrain(&self, last: usize, before: bool) -> Option<(usize, Arc<Terrain>)> {
        let mut g = self.lock();
        let (at, t) = match &g.terrain {
            Some((at, t, _)) if *at == last || (before && *at < last) => (*at, t.clone()),
            _ => return None,
        };
        g.terrain_recent = true;
        Some((at, t))
    }

    fn put_terrain(&self, last: usize, terrain: Arc<Terrain>) {
        let bytes = terrain.heap_bytes();
        let mut g = self.lock();
        g.terrain = Some((last, terrain, bytes));
        g.terrain_recent = true;
        g.trim(self.budget.load(Ordering::Relaxed), None, true);
    }

    pub(super) fn bytes(&self) -> usize {
        self.lock().bytes()
    }
}

impl Reader {
    /// What this reader holds on the heap: its index and decoded metadata, and what it keeps of
    /// the worlds and the terrain it decoded ([`Reader::cache_bytes`]). Decoded chunks are the
    /// chunk cache's ([`crate::play::ChunkCache`]), with its own budget. For caches of open
    /// recordings that count bytes; it changes as the reader is used.
    pub fn heap_bytes(&self) -> usize {
        self.fixed_bytes + self.cache_bytes()
    }

    /// What the reader keeps of the keyframe worlds and the terrain it decoded, in bytes: at most
    /// [`Reader::cache_budget`], or the one world or terrain decoded last when that alone is
    /// larger.
    pub fn cache_bytes(&self) -> usize {
        self.caches.bytes()
    }

    /// The byte budget of what the reader keeps of keyframe worlds and terrain
    /// ([`DEFAULT_CACHE_BUDGET`] unless set).
    pub fn cache_budget(&self) -> usize {
        self.caches.budget.load(Ordering::Relaxed)
    }

    /// Sets [`Reader::cache_budget`], giving back at once what is kept beyond it.
    pub fn set_cache_budget(&self, bytes: usize) {
        self.caches.budget.store(bytes, Ordering::Relaxed);
        self.trim_caches(bytes);
    }

    /// Gives back what the reader keeps of keyframe worlds and terrain, least recently used
    /// first, until at most `max_bytes` are kept (0: all of it). Nothing a caller holds is
    /// affected (worlds and terrains are shared): they are decoded again when next needed.
    pub fn trim_caches(&self, max_bytes: usize) {
        self.caches.lock().trim(max_bytes, None, false);
    }

    /// Makes the world of a chunk decoded with a delta world section (`world_delta`): the
    /// delta on top of the world of its keyframe (the snapshot chunk starting `back` ticks
    /// earlier, whose world section must be a keyframe section), the keyframe's world decoded
    /// once and kept ([`Caches`]). A keyframe before this reader's first chunk is
    /// unknown when the recording starts in the middle of a world (a shadow buffer's window).
    /// A keyframe chunk that is not there (a chunk `recover` could not keep) or cannot be read
    /// (damaged) costs the worlds that stand on it, never their chunks' movement: the chunk
    /// keeps its delta and no world then, and [`Reader::world_at`] says the world there is not
    /// complete. A keyframe that is there but is no keyframe (a chunk without a world section,
    /// or a delta itself) is a crafted file: refused (`Corrupt`), naming both ticks.
    pub fn resolve_world(&self, chunk: &mut DecodedChunk) -> Result<()> {
        let Some(delta) = chunk.world_delta.clone() else {
            return Ok(());
        };
        let start = chunk.start_tick;
        // checked at decode: back <= start
        let at = start - delta.back;
        let missing = |why: &str| {
            Error::corrupt(format!(
                "chunk at tick {start}: its world delta section stands on a keyframe at tick \
                 {at}, {why}"
            ))
        };
        let j = match self.index.binary_search_by_key(&at, |e| e.start_tick) {
            Ok(j) => j,
            Err(_) => return Ok(()),
        };
        let flags = self.index[j].flags;
        if flags & crate::format::FLAG_WORLD == 0 || flags & crate::format::FLAG_SNAPSHOT == 0 {
            return Err(missing("a chunk without a world section"));
        }
        let keyframe = match self.caches.keyframe(j) {
            Some(w) => w,
            None => {
                // only the keyframe's world section: that chunk's events play no part here
                let read = self.read_payload_prefix(j, true).and_then(|(fh, payload)| {
                    DecodedChunk::decode_world_section(&payload, &fh, &self.limits)
                });
                let k = match read {
                    Ok(k) => k,
                    Err(Error::Corrupt(_) | Error::Truncated(_) | Error::LimitExceeded(_)) => {
                        return Ok(());
                    }
                    Err(e) => return Err(e),
                };
                let w = match k.world {
                    Some(w) if k.world_delta.is_none() => w,
                    _ => return Err(missing("whose world section is a delta itself")),
                };
                self.caches.put_keyframe(j, w.clone());
                w
            }
        };
        let world =
            WorldState::with_delta(&keyframe, &delta, &self.limits).map_err(|e| match e {
                Error::Corrupt(m) => Error::corrupt(format!("chunk at tick {start}: {m}")),
                Error::LimitExceeded(m) => Error::limit(format!("chunk at tick {start}: {m}")),
                other => other,
            })?;
        chunk.world = Some(Arc::new(world));
        chunk.world_delta = None;
        Ok(())
    }

    /// Chunk `s`, a snapshot chunk a world rebuild starts from, with its world: a keyframe's
    /// world kept ([`Caches`]) is used as it is (the chunk's events read without its world
    /// section); one decoded here is kept; a delta is put on its keyframe.
    fn read_snapshot_world(&self, s: usize) -> Result<DecodedChunk> {
        if let Some(w) = self.caches.keyframe(s) {
            let mut c = self.read_chunk_events(s)?;
            c.world = Some(w);
            return Ok(c);
        }
        let (fh, payload) = self.read_payload(s)?;
        let mut c = DecodedChunk::decode_world_part(&payload, &fh, &self.limits)?;
        match &c.world {
            Some(w) if fh.flags & crate::format::FLAG_WORLD != 0 => {
                self.caches.put_keyframe(s, w.clone())
            }
            _ => self.resolve_world(&mut c)?,
        }
        Ok(c)
    }

    /// The world at `tick` (clamped into the recording): the world section of the nearest
    /// snapshot chunk at or before it, then every world event from there through `tick`. Decodes
    /// at most `MAX_CHUNKS_PER_SNAPSHOT` (256) chunks, each bounded by the reader's limits, and
    /// neither their movement nor any terrain (a damaged terrain piece fails only what answers
    /// terrain: [`Reader::terrain_at`]).
    pub fn world_at(&self, tick: u32) -> Result<WorldAt> {
        let tick = self.clamp_tick(tick)?;
        let k = self.chunk_for_tick(tick).expect("clamped tick has a chunk");
        let (s, _) = rebuild_start(&self.index, k);
        let snap = self.index[s].has_snapshot().then_some(s);
        let mut complete = snap.is_some() || (s == 0 && !self.metadata.library.starts_mid_world);
        let mut world = WorldState::default();
        for i in s..=k {
            let c = if i == s && snap.is_some() {
                self.read_snapshot_world(i)?
            } else {
                // no snapshot, so no world section: the events are all it holds for a world
                self.read_chunk_events(i)?
            };
            if i == s {
                if let Some(w) = &c.world {
                    world = WorldState::clone(w);
                }
                // a delta whose keyframe is unknown (see `resolve_world`)
                complete &= c.world_delta.is_none();
            }
            world.apply_all(
                c.records
                    .iter()
                    .take_while(|r| c.start_tick + r.rel <= tick)
                    .flat_map(|r| &r.events)
                    .filter(|e| WorldState::changes_with(e)),
            );
        }
        // The snapshot's block lists, read here (a seek leaves them to the world's first read):
        // a list a writer never writes makes the world incomplete rather than the call fail.
        complete &= world.read_lists().is_ok();
        Ok(WorldAt {
            tick,
            world,
            complete,
            snapshot_chunk: snap,
        })
    }

    /// The last chunk flagged with terrain at or before the chunk holding `tick` (clamped).
    fn last_terrain_chunk(&self, tick: u32) -> Result<Option<usize>> {
        let tick = self.clamp_tick(tick)?;
        let k = self.chunk_for_tick(tick).expect("clamped tick has a chunk");
        Ok((0..=k)
            .rev()
            .find(|&i| self.index[i].flags & FLAG_TERRAIN != 0))
    }

    /// The terrain in effect at `tick` (clamped into the recording): the terrain of every chunk
    /// flagged with it ([`crate::format::FLAG_TERRAIN`]) that starts at or before `tick`, in
    /// order, a later section replacing an earlier one at the same position, from the last full
    /// piece ([`crate::format::FLAG_TERRAIN_FULL`]) at or before it (from the first chunk in a
    /// file without full pieces); empty when there is none. Built when asked for, never by a
    /// world rebuild: reads those chunks' frames (their terrain only, not their payload), from
    /// the terrain kept ([`Caches`]) when it is an earlier one after that full piece (the pieces
    /// after it only). Concurrent calls for the same terrain build it once and share it. Reads
    /// at most `MAX_CHUNKS_PER_SNAPSHOT` (256) terrain chunks in a file tickreel wrote, and
    /// refuses more than [`crate::format::MAX_TERRAIN_PIECES_MERGED`] in any (`LimitExceeded`);
    /// memory bounded by `Limits::max_terrain_sections` / `max_terrain_bytes` whatever the file
    /// claims; a damaged piece is refused naming its chunk.
    pub fn terrain_at(&self, tick: u32) -> Result<Arc<Terrain>> {
        let Some(last) = self.last_terrain_chunk(tick)? else {
            return Ok(Arc::default());
        };
        if let Some((_, t)) = self.caches.terrain(last, false) {
            return Ok(t);
        }
        let flight = self
            .caches
            .terrain_flights
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(last)
            .or_default()
            .clone();
        let r = flight
            .get_or_init(|| self.build_terrain(last).map_err(Arc::new))
            .clone();
        {
            let mut flights = self
                .caches
                .terrain_flights
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if flights.get(&last).is_some_and(|f| Arc::ptr_eq(f, &flight)) {
                flights.remove(&last);
            }
        }
        r.map_err(|e| e.duplicate())
    }

    /// Merges the terrain of chunk `last` and the terrain chunks before it (on the kept terrain
    /// when it is an earlier one), and keeps it.
    fn build_terrain(&self, last: usize) -> Result<Arc<Terrain>> {
        if let Some((_, t)) = self.caches.terrain(last, false) {
            return Ok(t);
        }
        let (start, _) = terrain_start(&self.index, last)?;
        let (from, mut merged) = match self.caches.terrain(last, true) {
            // the sections are shared: the copy is of the map, not of the blocks
            Some((at, t)) if at >= start => (at + 1, Terrain::clone(&t)),
            _ => (start, Terrain::default()),
        };
        for i in from..=last {
            if self.index[i].flags & FLAG_TERRAIN != 0 {
                merged
                    .merge(self.read_terrain(i)?, self.limits.max_terrain_sections())
                    .map_err(|e| {
                        let tick = self.index[i].start_tick;
                        e.with_context(&format!(" (chunk {i}, tick {tick})"))
                    })?;
            }
        }
        let merged = Arc::new(merged);
        self.caches.put_terrain(last, merged.clone());
        Ok(merged)
    }

    /// The terrain piece chunk `i` carries as it is stored: its content (`"TKTR"`, the body's
    /// length, the body compressed; FORMAT.md §6.1), not decoded; `None` if its flags have no
    /// [`crate::format::FLAG_TERRAIN`]. Its frame is checked against the index and its checksum,
    /// and the piece's frame as [`Reader::read_terrain`] checks it, naming the chunk. What
    /// `dump --metadata` prints, and [`crate::record::ReelWriter::offer_terrain_piece`] takes.
    pub fn terrain_piece(&self, i: usize) -> Result<Option<Vec<u8>>> {
        let (fh, bytes) = self.read_compressed(i)?;
        if fh.flags & FLAG_TERRAIN == 0 {
            return Ok(None);
        }
        fh.verify_payload(&bytes)?;
        crate::format::terrain::piece_of(&bytes)
            .map(|p| Some(p.to_vec()))
            .map_err(|e| e.with_context(&format!(" (chunk {i}, tick {})", fh.start_tick)))
    }

    /// The first `max_sections` sections (in the terrain's order: x, then z, then y) of the
    /// terrain in effect at `tick` ([`Reader::terrain_at`]), and how many the whole terrain
    /// holds: what a viewer that shows a bounded area needs, in memory bounded by that area
    /// (plus one terrain piece being decoded), not by the whole terrain. Taken from the kept
    /// terrain when it is that one; otherwise the terrain pieces [`Reader::terrain_at`] merges
    /// (from the last full piece) are read and checked as it checks them (the same errors, the
    /// merged terrain's section limit and the piece bound included), but only the sections of
    /// the area are built, and nothing is kept.
    pub fn terrain_area_at(&self, tick: u32, max_sections: usize) -> Result<TerrainArea> {
        let Some(last) = self.last_terrain_chunk(tick)? else {
            return Ok(TerrainArea::default());
        };
        if let Some((_, t)) = self.caches.terrain(last, false) {
            return Ok(TerrainArea {
                terrain: t.first_sections(max_sections),
                total: t.len(),
            });
        }
        let max = self.limits.max_terrain_sections();
        // every position of the terrain so far; the area is the first `max_sections` of them,
        // and `bound` the last position in it once there are that many (positions are only
        // ever added, so a position past the bound never comes back into the area)
        let mut keys: BTreeSet<(i32, i32, i32)> = BTreeSet::new();
        let mut bound: Option<(i32, i32, i32)> = None;
        let mut area = Terrain::default();
        let (start, _) = terrain_start(&self.index, last)?;
        for i in start..=last {
            if self.index[i].flags & FLAG_TERRAIN == 0 {
                continue;
            }
            let (fh, bytes) = self.read_compressed(i)?;
            let at = |e: Error| e.with_context(&format!(" (chunk {i}, tick {})", fh.start_tick));
            fh.verify_payload(&bytes).map_err(at)?;
            let content = crate::format::terrain::piece_of(&bytes).map_err(at)?;
            let mut keep = |k: (i32, i32, i32)| {
                let new = keys.insert(k);
                if max_sections == 0 {
                    return false;
                }
                if keys.len() <= max_sections {
                    if keys.len() == max_sections {
                        bound = keys.last().copied();
                    }
                    return true;
                }
                let b = bound.expect("set once the area is full");
                if new && k < b {
                    // one more position before the bound: the bound's own leaves the area
                    bound = keys.range(..b).next_back().copied();
                    return true;
                }
                k <= b
            };
            let piece =
                crate::format::terrain::decode_piece_where(content, &self.limits, &mut keep)
                    .map_err(at)?;
            if keys.len() > max {
                return Err(at(Error::limit(format!(
                    "terrain of {} sections; limit {max}",
                    keys.len()
                ))));
            }
            area.merge(piece, usize::MAX)?;
            if let Some(b) = bound {
                area.retain_up_to(b);
            }
        }
        Ok(TerrainArea {
            terrain: area,
            total: keys.len(),
        })
    }

    /// The terrain chunk `i` carries (empty if its flags have no
    /// [`crate::format::FLAG_TERRAIN`]), its frame checked against the index and its checksum.
    pub fn read_terrain(&self, i: usize) -> Result<Terrain> {
        let (fh, bytes) = self.read_compressed(i)?;
        if fh.flags & FLAG_TERRAIN == 0 {
            return Ok(Terrain::default());
        }
        let at = |e: Error| e.with_context(&format!(" (chunk {i}, tick {})", fh.start_tick));
        fh.verify_payload(&bytes).map_err(at)?;
        let piece = crate::format::terrain::piece_of(&bytes).map_err(at)?;
        crate::format::terrain::decode_piece(piece, &self.limits).map_err(at)
    }
}
