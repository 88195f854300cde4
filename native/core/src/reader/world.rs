//! The world a reader rebuilds: delta world sections put on their keyframe's world (decoded once
//! and kept, [`KeyframeWorlds`]), the world at any tick ([`Reader::world_at`]) and the terrain in
//! effect at it ([`Reader::terrain_at`]).

use std::sync::Arc;

use super::Reader;
use crate::error::{Error, Result};
use crate::format::chunk::DecodedChunk;
use crate::format::index::{FLAG_TERRAIN, rebuild_start};
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
    /// has no snapshot before `tick`. The world then holds only what those chunks changed.
    pub complete: bool,
    /// Index of the snapshot chunk the world was rebuilt from.
    pub snapshot_chunk: Option<usize>,
    /// The terrain in effect at `tick` ([`Reader::terrain_at`]): the blocks the game handed
    /// over, which [`WorldAt::block`] overrides with the edited blocks.
    pub terrain: Arc<Terrain>,
}

impl WorldAt {
    /// The block state at `pos`: the edited block there if a world event set one, else the
    /// terrain's block (`None` where neither knows it).
    pub fn block(&self, pos: BlockPos) -> Option<u32> {
        self.world
            .block(pos)
            .or_else(|| self.terrain.block(pos.x, pos.y, pos.z))
    }
}

/// The worlds of keyframe world sections a reader decoded, most recently used last, at most
/// [`KeyframeWorlds::BUDGET`] bytes of them (the last one always kept). A world is decoded once
/// and shared (`Arc`) by the worlds of every delta section after it: a seek into a recording
/// of 100,000 edited blocks decodes the few changes since the keyframe, not the whole world.
/// Not emptied with the chunk cache: it holds no chunk, only what the deltas stand on.
#[derive(Debug, Default)]
pub(super) struct KeyframeWorlds(std::sync::Mutex<Vec<(usize, Arc<WorldState>)>>);

impl KeyframeWorlds {
    /// 64 MiB: about 4 million edited blocks.
    const BUDGET: usize = 64 << 20;

    fn get(&self, chunk: usize) -> Option<Arc<WorldState>> {
        let mut v = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let k = v.iter().position(|e| e.0 == chunk)?;
        let e = v.remove(k);
        let w = e.1.clone();
        v.push(e);
        Some(w)
    }

    fn put(&self, chunk: usize, world: Arc<WorldState>) {
        let mut v = self.0.lock().unwrap_or_else(|p| p.into_inner());
        v.retain(|e| e.0 != chunk);
        v.push((chunk, world));
        let mut total: usize = v.iter().map(|e| e.1.heap_bytes()).sum();
        while total > Self::BUDGET && v.len() > 1 {
            total -= v.remove(0).1.heap_bytes();
        }
    }
}

impl Reader {
    /// Makes the world of a chunk decoded with a delta world section (`world_delta`): the
    /// delta on top of the world of its keyframe (the snapshot chunk starting `back` ticks
    /// earlier, whose world section must be a keyframe section), the keyframe's world decoded
    /// once and kept ([`KeyframeWorlds`]). A keyframe before this reader's first chunk is
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
        let keyframe = match self.keyframe_worlds.get(j) {
            Some(w) => w,
            None => {
                let read = self.read_payload(j).and_then(|(fh, payload)| {
                    DecodedChunk::decode_world_part(&payload, &fh, &self.limits)
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
                self.keyframe_worlds.put(j, w.clone());
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

    /// The world at `tick` (clamped into the recording): the world section of the nearest
    /// snapshot chunk at or before it, then every world event from there through `tick`. Decodes
    /// at most `MAX_CHUNKS_PER_SNAPSHOT` (256) chunks, each bounded by the reader's limits.
    pub fn world_at(&self, tick: u32) -> Result<WorldAt> {
        let tick = self.clamp_tick(tick)?;
        let k = self.chunk_for_tick(tick).expect("clamped tick has a chunk");
        let (s, _) = rebuild_start(&self.index, k);
        let snap = self.index[s].has_snapshot().then_some(s);
        let mut complete = snap.is_some() || (s == 0 && !self.metadata.library.starts_mid_world);
        let mut world = WorldState::default();
        for i in s..=k {
            let c = self.read_chunk_world(i)?;
            if i == s {
                if let Some(w) = &c.world {
                    world = WorldState::clone(w);
                }
                // a delta whose keyframe is unknown (see `resolve_world`)
                complete &= c.world_delta.is_none();
            }
            for r in c
                .records
                .iter()
                .take_while(|r| c.start_tick + r.rel <= tick)
            {
                for e in &r.events {
                    world.apply(e);
                }
            }
        }
        Ok(WorldAt {
            tick,
            world,
            complete,
            snapshot_chunk: snap,
            terrain: self.terrain_at(tick)?,
        })
    }

    /// The terrain in effect at `tick` (clamped into the recording): the terrain of every chunk
    /// flagged with it ([`crate::format::FLAG_TERRAIN`]) that starts at or before `tick`, in
    /// order, a later section replacing an earlier one at the same position; empty when there
    /// is none. Reads those chunks' frames (their terrain only, not their payload); the last
    /// result is kept, so seeks within one terrain reuse it. Memory bounded by
    /// `Limits::max_terrain_sections` / `max_terrain_bytes` whatever the file claims.
    pub fn terrain_at(&self, tick: u32) -> Result<Arc<Terrain>> {
        let tick = self.clamp_tick(tick)?;
        let k = self.chunk_for_tick(tick).expect("clamped tick has a chunk");
        let chunks: Vec<usize> = (0..=k)
            .filter(|&i| self.index[i].flags & FLAG_TERRAIN != 0)
            .collect();
        let Some(&last) = chunks.last() else {
            return Ok(Arc::default());
        };
        if let Some((at, t)) = &*self.terrain.lock().unwrap_or_else(|p| p.into_inner())
            && *at == last
        {
            return Ok(t.clone());
        }
        let mut merged = Terrain::default();
        for i in chunks {
            merged.merge(self.read_terrain(i)?, self.limits.max_terrain_sections())?;
        }
        let merged = Arc::new(merged);
        *self.terrain.lock().unwrap_or_else(|p| p.into_inner()) = Some((last, merged.clone()));
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

    /// The terrain chunk `i` carries (empty if its flags have no
    /// [`crate::format::FLAG_TERRAIN`]), its frame checked against the index and its checksum.
    pub fn read_terrain(&self, i: usize) -> Result<Terrain> {
        let (fh, bytes) = self.read_compressed(i)?;
        if fh.flags & FLAG_TERRAIN == 0 {
            return Ok(Terrain::default());
        }
        fh.verify_payload(&bytes)?;
        let piece = crate::format::terrain::piece_of(&bytes)
            .map_err(|e| e.with_context(&format!(" (chunk {i}, tick {})", fh.start_tick)))?;
        crate::format::terrain::decode_piece(piece, &self.limits)
            .map_err(|e| e.with_context(&format!(" (chunk {i}, tick {})", fh.start_tick)))
    }
}
