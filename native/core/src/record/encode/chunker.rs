//! Cuts a tick stream into chunks (by tick span, by size, and at snapshot intervals) and compresses
//! each into a frame. Shared by the compacted-file writer and the live writer thread.

use crate::error::Result;
use crate::error::{between, option};
use crate::format::Limits;
use crate::format::chunk::ChunkEncoder;
use crate::format::event::Event;
use crate::format::frame::FrameHeader;
use crate::format::index::MAX_CHUNKS_PER_SNAPSHOT;
use crate::format::state::EntityTable;
use crate::format::terrain::Terrain;

/// When chunks are cut and snapshots taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkPolicy {
    /// Most ticks one chunk spans (default 100: 5 s at 20 ticks/s; measured: halves the decode work
    /// of a seek against 200 for 2.6 % more bytes).
    pub chunk_ticks: u32,
    /// Cut a chunk once its uncompressed payload reaches about this many bytes (default 1 MiB).
    pub chunk_bytes: usize,
    /// Ticks between snapshots (default 600: 30 s at 20 ticks/s). A snapshot always starts a chunk.
    /// A finished file's writer with the compacted chunking takes one only where it pays
    /// ([`COMPACTED_SNAPSHOT_SPACING`]).
    pub snapshot_interval: u32,
    /// Zstd compression level.
    pub zstd_level: i32,
}

impl ChunkPolicy {
    /// Checks the policy against what readers accept.
    pub fn validate(&self) -> crate::Result<()> {
        let max_ticks = crate::format::Limits::default().max_chunk_ticks as u32;
        if self.chunk_ticks == 0 || self.chunk_ticks > max_ticks {
            return Err(crate::Error::invalid(format!(
                "{} must be {} (got {})",
                option("chunk_ticks"),
                between(1, max_ticks),
                self.chunk_ticks
            )));
        }
        if self.snapshot_interval == 0 {
            return Err(crate::Error::invalid(format!(
                "{} must be at least 1",
                option("snapshot_interval")
            )));
        }
        let max_bytes = crate::format::Limits::default().max_chunk_bytes / 2;
        if self.chunk_bytes == 0 || self.chunk_bytes > max_bytes {
            return Err(crate::Error::invalid(format!(
                "{} must be {} (got {})",
                option("chunk_bytes"),
                between(1, max_bytes),
                self.chunk_bytes
            )));
        }
        check_zstd_level("zstd_level", self.zstd_level)
    }
}

/// Checks a zstd compression level against the levels the linked zstd supports; `what` is the
/// option's name (marked in the error with [`crate::error::option`]).
pub(crate) fn check_zstd_level(what: &str, level: i32) -> crate::Result<()> {
    let levels = zstd::compression_level_range();
    if levels.contains(&level) {
        Ok(())
    } else {
        Err(crate::Error::invalid(format!(
            "{} must be {} (got {level})",
            option(what),
            between(levels.start(), levels.end())
        )))
    }
}

/// Uncompressed bytes a compacted file's chunk is cut at ([`ChunkPolicy::compacted`]).
pub const COMPACTED_CHUNK_BYTES: usize = 64 << 10;
/// Most ticks a compacted file's chunk spans (10 minutes at 20 ticks/s). A sparse recording's
/// chunks are cut by this, not by bytes: each pays a frame header, an index entry, a keyframe and
/// zstd's cold start (measured on real players-only recordings: 5.8 % of the file at 2,400 ticks).
/// Its chunks stay under [`COMPACTED_CHUNK_BYTES`], so a seek decodes no more than a dense file's.
pub const COMPACTED_CHUNK_TICKS: u32 = 12_000;
/// Payload bytes per tick at or below which a finished file's chunk is sparse
/// ([`ChunkPolicy::level_for`]).
pub const SPARSE_BYTES_PER_TICK: u64 = 128;
/// Zstd level of a finished file's sparse chunks ([`ChunkPolicy::level_for`]).
pub const SPARSE_ZSTD_LEVEL: i32 = 19;

impl ChunkPolicy {
    /// The policy of finished files (compaction, the synchronous writer's compacted preset,
    /// reports): zstd level 9 (19 for sparse chunks, [`ChunkPolicy::level_for`]), chunks cut by
    /// bytes ([`COMPACTED_CHUNK_BYTES`], 64 KiB of payload) within [`COMPACTED_CHUNK_TICKS`]
    /// (10 minutes at 20 ticks/s; 2 minutes before issue 49). A dense recording gets short
    /// chunks (100 busy players: about 100 ticks), a sparse one long ones (a few players with the
    /// entities around them: over a minute), so that a seek decodes about the same bytes in
    /// both and a sparse file does not repeat its keyframe every 5 seconds (measured on the
    /// realistic workload: 0.81x the reference encoding with 100-tick chunks, 1.46x with these).
    pub fn compacted() -> ChunkPolicy {
        ChunkPolicy {
            chunk_ticks: COMPACTED_CHUNK_TICKS,
            chunk_bytes: COMPACTED_CHUNK_BYTES,
            zstd_level: 9,
            ..ChunkPolicy::default()
        }
    }
}

/// Uncompressed bytes a finished file's chunk made mostly of block changes is cut at
/// ([`ChunkPolicy::chunk_bytes_for`]): four times [`COMPACTED_CHUNK_BYTES`], the anchor's
/// compacted frames' 256 KiB. A server's machines repeat their bursts for minutes, and zstd finds
/// the repeats within a frame only (measured on the server workload's block changes: 23 % fewer
/// bytes than 64 KiB chunks; BENCHMARKS.md, issue 48); such a chunk holds no movement, so a seek
/// into it decodes block changes only.
pub const COMPACTED_BLOCK_CHUNK_BYTES: usize = 256 << 10;

/// How far a finished file's world delta sections may grow against their keyframe, in quarters
/// of its blocks ([`ChunkPolicy::world_delta_quarters`]): the keyframe's size (a live writer's
/// a quarter). A seek reads neither list (data version 9), so a finished file writes a keyframe
/// only once a delta would be as large as one: measured on the server workload's block changes
/// (`tickreel bench --only world_blocks`), `world_blocks_vs_hollowcube_compacted_ratio` 1.317
/// with a quarter, 1.387 with this (no gain past it), and level 19 on the lists instead of the
/// policy's 9 adds 1.2 % more (not taken: a report's writer would pay it).
pub const FINISHED_DELTA_QUARTERS: u32 = 4;

/// Payload bytes a finished file's interval snapshot waits for ([`Chunker::space_interval_snapshots`]):
/// four compacted chunks.
pub const COMPACTED_SNAPSHOT_SPACING: u64 = 4 * COMPACTED_CHUNK_BYTES as u64;

impl ChunkPolicy {
    /// The zstd level of the block lists of the world sections (FORMAT.md §7.2, data version
    /// 9): the policy's level.
    pub(crate) fn world_level(&self) -> i32 {
        self.zstd_level
    }

    /// How far a world section's delta may grow against its keyframe, in quarters of the
    /// keyframe's blocks: a quarter, or in a finished file ([`ChunkPolicy::cuts_as_compacted`])
    /// the keyframe's size ([`FINISHED_DELTA_QUARTERS`]).
    pub(crate) fn world_delta_quarters(&self) -> u32 {
        if self.cuts_as_compacted() {
            FINISHED_DELTA_QUARTERS
        } else {
            crate::format::encoder::DELTA_QUARTERS
        }
    }

    /// The zstd level of a chunk of `payload_len` uncompressed bytes spanning `ticks`: the
    /// policy's level, or at least [`SPARSE_ZSTD_LEVEL`] for a sparse chunk of a finished file's
    /// chunking (64 KiB chunks, [`ChunkPolicy::compacted`]) carrying at most
    /// [`SPARSE_BYTES_PER_TICK`] bytes per tick. Such a chunk holds a few players or a quiet
    /// world: a recorded hour of it is at most 9.2 MB of payload, so the higher level costs a
    /// bounded second or two of a writer's core, and it saves 3-4 % there (real recordings:
    /// players only 2.6 %, every entity 4.2 %), where a busy file (100 players: about 650 bytes
    /// per tick) keeps its level and its write time.
    pub fn level_for(&self, payload_len: usize, ticks: u32) -> i32 {
        self.level_for_chunk(payload_len, ticks, 0)
    }

    /// Whether a chunk of `bytes` uncompressed bytes, `block_bytes` of them its block changes'
    /// fields (data version 8's block columns), is a finished file's chunk made mostly of block
    /// changes: at least half its bytes.
    fn block_heavy(&self, block_bytes: usize, bytes: usize) -> bool {
        self.chunk_bytes == COMPACTED_CHUNK_BYTES && block_bytes > 0 && block_bytes * 2 >= bytes
    }

    /// The bytes at which a chunk whose block changes take `block_bytes` of its `bytes` is cut:
    /// the policy's, or [`COMPACTED_BLOCK_CHUNK_BYTES`] for a finished file's chunk made mostly
    /// of block changes.
    pub fn chunk_bytes_for(&self, block_bytes: usize, bytes: usize) -> usize {
        if self.block_heavy(block_bytes, bytes) {
            COMPACTED_BLOCK_CHUNK_BYTES
        } else {
            self.chunk_bytes
        }
    }

    /// [`ChunkPolicy::level_for`] of a chunk whose block changes take `block_bytes` of its
    /// payload: at least [`SPARSE_ZSTD_LEVEL`] for a finished file's chunk made mostly of block
    /// changes, whatever its density (measured on the server workload's block changes: 4 %
    /// fewer bytes than level 9; such chunks are a few per hour of a busy server, cut at
    /// [`COMPACTED_BLOCK_CHUNK_BYTES`], so the level costs the writer about a second per hour).
    pub fn level_for_chunk(&self, payload_len: usize, ticks: u32, block_bytes: usize) -> i32 {
        if self.block_heavy(block_bytes, payload_len) {
            return self.zstd_level.max(SPARSE_ZSTD_LEVEL);
        }
        let sparse = payload_len as u64 <= SPARSE_BYTES_PER_TICK * u64::from(ticks);
        if self.chunk_bytes == COMPACTED_CHUNK_BYTES && sparse {
            self.zstd_level.max(SPARSE_ZSTD_LEVEL)
        } else {
            self.zstd_level
        }
    }

    /// Whether chunks are cut as a finished file's ([`ChunkPolicy::compacted`], whatever its
    /// zstd level): its interval snapshots are then taken only where they pay
    /// ([`COMPACTED_SNAPSHOT_SPACING`]).
    pub(crate) fn cuts_as_compacted(&self) -> bool {
        self.chunk_ticks == COMPACTED_CHUNK_TICKS && self.chunk_bytes == COMPACTED_CHUNK_BYTES
    }
}

impl Default for ChunkPolicy {
    fn default() -> Self {
        ChunkPolicy {
            chunk_ticks: 100,
            chunk_bytes: 1 << 20,
            snapshot_interval: 600,
            zstd_level: 3,
        }
    }
}

/// A zstd context per level and payload buffers, shared by every chunker of a thread: a writer
/// thread serving many recordings keeps one warm context (about 1 MiB at level 3) instead of one
/// per recording.
#[derive(Default)]
struct Compression {
    compressors: Vec<(i32, zstd::bulk::Compressor<'static>)>,
    payload: Vec<u8>,
    compressed: Vec<u8>,
}

fn shared_compressor<'a>(
    compressors: &'a mut Vec<(i32, zstd::bulk::Compressor<'static>)>,
    level: i32,
) -> Result<&'a mut zstd::bulk::Compressor<'static>> {
    let i = match compressors.iter().position(|(l, _)| *l == level) {
        Some(i) => i,
        None => {
            compressors.push((level, zstd::bulk::Compressor::new(level)?));
            compressors.len() - 1
        }
    };
    Ok(&mut compressors[i].1)
}

thread_local! {
    /// Compression contexts and buffers shared by every chunker of a library thread. Not used on
    /// other threads (a synchronous writer's caller): its destructor would keep the shared
    /// library mapped (see [`crate::threads`]); those use the chunker's own.
    static COMPRESSION: std::cell::RefCell<Compression> = std::cell::RefCell::default();
}

/// Names the tick in a limit error.
fn annotate(e: crate::Error, tick: u32) -> crate::Error {
    match e {
        crate::Error::LimitExceeded(m) => crate::Error::LimitExceeded(format!("tick {tick}: {m}")),
        other => other,
    }
}

/// Refuses a tick that would take the running world past [`Limits::max_world_blocks`] edited
/// blocks (a reader refuses a world section that large).
fn check_world_size(
    world: &crate::format::WorldState,
    events: &[Event],
    limits: &Limits,
) -> Result<()> {
    let blocks = |e: &Event| match e {
        Event::BlockChange { .. } => 1,
        Event::BlockChanges { blocks, .. } => blocks.len(),
        _ => 0,
    };
    let most = events.iter().map(blocks).sum::<usize>();
    let max = limits.max_world_blocks();
    if world.block_count() + most <= max {
        return Ok(());
    }
    // Count exactly: only positions not yet edited add to the world.
    let mut new = rustc_hash::FxHashSet::default();
    for e in events {
        match e {
            Event::BlockChange { pos, .. } if world.block(*pos).is_none() => {
                new.insert(*pos);
            }
            Event::BlockChanges { blocks, .. } => {
                new.extend(
                    blocks
                        .iter()
                        .map(|b| b.0)
                        .filter(|p| world.block(*p).is_none()),
                );
            }
            _ => {}
        }
    }
    if world.block_count() + new.len() > max {
        return Err(crate::Error::limit(format!(
            "the world would hold {} edited blocks; limit {max}",
            world.block_count() + new.len()
        )));
    }
    Ok(())
}

/// Puts the terrain piece of `terrain` (compressed at [`crate::format::TERRAIN_ZSTD_LEVEL`], or
/// a piece carried as it is) in front of a chunk's compressed payload and flags the frame with
/// [`crate::format::FLAG_TERRAIN`], and [`crate::format::FLAG_TERRAIN_FULL`] when `full`
/// (FORMAT.md §6.1). Its data version stays the chunk's own.
fn with_terrain(
    header: FrameHeader,
    payload: Vec<u8>,
    terrain: OpenTerrain,
    full: bool,
) -> Result<(FrameHeader, Vec<u8>)> {
    let limits = Limits::default();
    let mut out = match terrain {
        OpenTerrain::Offered(t) => {
            crate::format::terrain::encode_piece(&t, crate::format::TERRAIN_ZSTD_LEVEL, &limits)?
        }
        OpenTerrain::Whole(t) => {
            crate::format::terrain::encode_piece(&t, WHOLE_TERRAIN_ZSTD_LEVEL, &limits)?
        }
        OpenTerrain::Carried { piece, .. } => piece,
    };
    out.extend_from_slice(&payload);
    if out.len() > limits.max_chunk_bytes {
        return Err(crate::Error::limit(format!(
            "a chunk with terrain of {} bytes compressed; limit {}",
            out.len(),
            limits.max_chunk_bytes
        )));
    }
    let full = if full {
        crate::format::FLAG_TERRAIN_FULL
    } else {
        0
    };
    let header = FrameHeader::for_payload(
        header.flags | crate::format::FLAG_TERRAIN | full,
        header.data_version,
        header.start_tick,
        header.tick_count,
        header.uncompressed_len,
        &out,
    );
    Ok((header, out))
}

/// The zstd level of a full terrain piece a writer makes of the whole terrain
/// ([`Chunker::full_terrain_due`]): lower than an offer's ([`crate::format::TERRAIN_ZSTD_LEVEL`],
/// 19), because it is the whole terrain, encoded on the writer's thread. Measured on a ground
/// terrain of 600 sections: 125,103 bytes in 1.47 s at 19, 145,611 in 73 ms at 9, 163,802 in
/// 18 ms at 3 (a loaded machine).
const WHOLE_TERRAIN_ZSTD_LEVEL: i32 = 9;

/// The terrain a chunk carries: offered (encoded into a piece when the chunk is cut), the whole
/// terrain (a full piece made because one was due), or a piece carried from a recording that was
/// read back (compaction), written as it is.
#[derive(Debug, Clone)]
enum OpenTerrain {
    Offered(Terrain),
    Whole(Terrain),
    /// `piece`: the whole skippable frame (magic, length, content), as the source's chunk had it
    /// in front of its payload; `terrain`: what it holds, decoded by the source's reader.
    Carried {
        piece: Vec<u8>,
        terrain: Terrain,
    },
}

impl OpenTerrain {
    fn into_terrain(self) -> Terrain {
        match self {
            OpenTerrain::Offered(t)
            | OpenTerrain::Whole(t)
            | OpenTerrain::Carried { terrain: t, .. } => t,
        }
    }
}

/// A compressed chunk ready to be written.
#[derive(Debug, Clone)]
pub struct Frame {
    pub header: FrameHeader,
    pub payload: Vec<u8>,
}

/// A chunk written as it is, without re-encoding ([`Chunker::adopt`]): its frame (header and
/// compressed payload, unchanged), the entity table after its last tick, and its counts.
#[derive(Debug, Clone)]
pub(crate) struct AdoptedChunk {
    pub frame: Frame,
    pub end_table: EntityTable,
    /// The chunk's world events (and entity removals) in order: they carry the running world
    /// (edited blocks, equipment, health) over the chunk.
    pub world_events: Vec<Event>,
    pub events: u64,
    pub pose_samples: u64,
    pub ticks_written: u64,
    /// The world before the chunk's first tick, if it carries a snapshot (its world section's,
    /// a keyframe section: a chunk with a delta section is never written as it is; empty
    /// without one): the running world from then on.
    pub start_world: Option<crate::format::WorldState>,
    /// Its terrain piece's terrain, if it has one (decoded by the source's reader): it counts
    /// as offered.
    pub terrain: Option<Terrain>,
}

/// The chunking state machine.
pub struct Chunker {
    policy: ChunkPolicy,
    enc: ChunkEncoder,
    /// Only for a recording with a dictionary; others share their thread's context.
    own_compressor: Option<zstd::bulk::Compressor<'static>>,
    /// Contexts and buffers for chunks cut on a thread that is not the library's.
    own_compression: Option<Box<Compression>>,
    last_snapshot: Option<u32>,
    /// Chunks begun since the last snapshot chunk, that one and the open one included.
    chunks_since_snapshot: u32,
    /// Whether a snapshot chunk is started at least every [`MAX_CHUNKS_PER_SNAPSHOT`] chunks
    /// (all writers but compaction and reports, which carry their source's snapshots only).
    bound_snapshot_distance: bool,
    /// Interval snapshots are taken only once this many payload bytes were written since the
    /// last snapshot chunk began ([`Chunker::space_interval_snapshots`]); `None`: at every
    /// interval.
    snapshot_spacing: Option<u64>,
    /// [`Chunker::uncompressed_bytes`] when the last snapshot chunk began.
    bytes_at_snapshot: u64,
    pending_snapshot: Option<Vec<u8>>,
    /// Terrain offered (or carried) for the next chunk (offers before it merged, later sections
    /// replacing earlier ones at the same position).
    pending_terrain: Option<OpenTerrain>,
    /// The terrain the open chunk carries, put in front of its payload when it is cut, and
    /// whether its piece is full ([`crate::format::FLAG_TERRAIN_FULL`]).
    open_terrain: Option<(OpenTerrain, bool)>,
    /// Every section position offered so far: the terrain in effect at the end holds one section
    /// per position, which a reader bounds by `Limits::max_terrain_sections`.
    terrain_positions: rustc_hash::FxHashSet<(i32, i32, i32)>,
    /// The terrain in effect from the next chunk begun: every section offered or carried so far
    /// (pending included), a later one replacing an earlier one at the same position; what a full
    /// terrain piece holds. Its sections are shared with the offers'.
    terrain: Terrain,
    /// Chunks begun so far (adopted ones included): the next chunk's ordinal.
    chunks_begun: u64,
    /// The ordinal of the last chunk begun with a full terrain piece (`None`: none yet, or none
    /// since a resume, whose earlier chunks are not counted): a terrain piece is made full when
    /// this is [`MAX_CHUNKS_PER_SNAPSHOT`] chunks back or more.
    full_terrain_at: Option<u64>,
    /// The first chunk takes no snapshot unless one is offered ([`Chunker::start_mid_world`]).
    mid_world_start: bool,
    /// Whether terrain pieces are ever made full (always, but in tests that forge files written
    /// before full pieces: [`Chunker::forge_no_full_terrain`]).
    full_terrain_pieces: bool,
    open: bool,
    last_tick: Option<u32>,
    /// Totals over all chunks finished so far.
    pub events: u64,
    pub pose_samples: u64,
    pub uncompressed_bytes: u64,
    pub ticks_written: u64,
}

impl std::fmt::Debug for Chunker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chunker")
            .field("policy", &self.policy)
            .field("open", &self.open)
            .field("last_tick", &self.last_tick)
            .finish()
    }
}

impl Chunker {
    pub fn new(policy: ChunkPolicy, dictionary: Option<&[u8]>) -> Result<Chunker> {
        policy.validate()?;
        let own_compressor = match dictionary {
            Some(d) => Some(zstd::bulk::Compressor::with_dictionary(
                policy.zstd_level,
                d,
            )?),
            None => None,
        };
        let mut enc = ChunkEncoder::new();
        enc.set_world_level(policy.world_level());
        enc.set_world_delta_quarters(policy.world_delta_quarters());
        Ok(Chunker {
            policy,
            enc,
            own_compressor,
            own_compression: None,
            last_snapshot: None,
            chunks_since_snapshot: 0,
            bound_snapshot_distance: true,
            snapshot_spacing: None,
            bytes_at_snapshot: 0,
            pending_snapshot: None,
            pending_terrain: None,
            open_terrain: None,
            terrain_positions: Default::default(),
            terrain: Terrain::default(),
            chunks_begun: 0,
            full_terrain_at: None,
            full_terrain_pieces: true,
            mid_world_start: false,
            open: false,
            last_tick: None,
            events: 0,
            pose_samples: 0,
            uncompressed_bytes: 0,
            ticks_written: 0,
        })
    }

    /// Continues the totals of a recording already written (resume): its counts of ticks,
    /// events and pose samples, and of uncompressed payload bytes, so that its stats count the
    /// whole recording, not only what was written since the resume.
    pub(crate) fn continue_totals(
        &mut self,
        ticks_written: u64,
        events: u64,
        pose_samples: u64,
        uncompressed_bytes: u64,
    ) {
        self.ticks_written = ticks_written;
        self.events = events;
        self.pose_samples = pose_samples;
        self.uncompressed_bytes = uncompressed_bytes;
    }

    /// Continues after ticks already written elsewhere (resume): the entity table at that point
    /// and the tick of the last snapshot.
    pub fn resume_from(
        &mut self,
        table: EntityTable,
        last_tick: Option<u32>,
        last_snapshot: Option<u32>,
    ) {
        self.enc.set_table(&table);
        self.last_tick = last_tick;
        self.last_snapshot = last_snapshot;
    }

    /// Continues with `world` as the running world (resume: the world after the last tick
    /// already written), so that the next snapshots carry it.
    pub(crate) fn set_world(&mut self, world: crate::format::WorldState) {
        self.enc.set_world(world);
    }

    /// Continues after `terrain`, the terrain in effect after the ticks already written (resume):
    /// its positions count as offered, so that the terrain the recording ends with stays within
    /// `Limits::max_terrain_sections` however often the game restarts and offers it again.
    /// The next terrain piece is full (the chunks written before are not counted here).
    pub(crate) fn continue_terrain(&mut self, terrain: &Terrain) {
        self.terrain_positions
            .extend(terrain.sections().map(|s| (s.cx, s.cy, s.cz)));
        self.terrain = terrain.clone();
        self.full_terrain_at = None;
    }

    /// Writes no full terrain piece ([`crate::format::FLAG_TERRAIN_FULL`]), as writers did
    /// before them: for forging such files. Feature `wire`, tests only.
    #[cfg(feature = "wire")]
    pub fn forge_no_full_terrain(&mut self) {
        self.full_terrain_pieces = false;
    }

    /// Whether a terrain piece in the next chunk begun must be full: no full piece since the
    /// start (or the resume), or the last one [`MAX_CHUNKS_PER_SNAPSHOT`] chunks back or more.
    /// Compaction re-encodes a chunk with terrain it would otherwise copy as it is then.
    pub(crate) fn full_terrain_due(&self) -> bool {
        self.full_terrain_pieces
            && self
                .full_terrain_at
                .is_none_or(|f| self.chunks_begun - f >= MAX_CHUNKS_PER_SNAPSHOT as u64)
    }

    /// The terrain of the chunk being begun, from `pending` (offered or carried for it): full
    /// when it holds every section in effect (the first piece of a recording: kept as it is,
    /// flagged), or made full when one is due ([`Chunker::full_terrain_due`]: the whole terrain,
    /// encoded when the chunk is cut); else as it is.
    fn begin_terrain(&mut self, pending: OpenTerrain) -> (OpenTerrain, bool) {
        let holds_all = match &pending {
            OpenTerrain::Offered(t)
            | OpenTerrain::Whole(t)
            | OpenTerrain::Carried { terrain: t, .. } => t.len() == self.terrain.len(),
        };
        let full = self.full_terrain_pieces && (holds_all || self.full_terrain_due());
        if full {
            self.full_terrain_at = Some(self.chunks_begun);
        }
        if full && !holds_all {
            (OpenTerrain::Whole(self.terrain.clone()), true)
        } else {
            (pending, full)
        }
    }

    /// The recording starts in the middle of a world (`starts_mid_world`): the first chunk
    /// takes no snapshot of its own unless one is offered for it (an empty one would claim an
    /// empty world there). Call before the first tick.
    pub(crate) fn start_mid_world(&mut self) {
        self.mid_world_start = true;
    }

    /// Continues after `n` chunks since (and including) the last snapshot chunk (resume).
    pub(crate) fn set_chunks_since_snapshot(&mut self, n: u32) {
        self.chunks_since_snapshot = n;
    }

    /// Takes snapshots only where offered (or carried) and every `snapshot_interval` ticks, never
    /// for the chunk count: for writers that carry a source's snapshots (compaction, reports),
    /// which have no snapshot bytes to put in between.
    pub(crate) fn carry_snapshots_only(&mut self) {
        self.bound_snapshot_distance = false;
    }

    /// Takes an interval snapshot (one not offered) only where it pays: once `bytes` of payload
    /// were written since the last snapshot chunk began, as well as `snapshot_interval` ticks.
    /// For finished files ([`ChunkPolicy::compacted`]), whose interval snapshots carry nothing
    /// but the world section: a sparse recording (a few players, or block changes alone) then
    /// does not repeat its world every 30 s, while a world rebuild on seek still decodes at most
    /// the interval's chunks or `bytes` and one chunk more from its snapshot.
    pub(crate) fn space_interval_snapshots(&mut self, bytes: u64) {
        self.snapshot_spacing = Some(bytes);
    }

    /// Payload bytes written since the last snapshot chunk began, the open chunk's included.
    fn bytes_since_snapshot(&self) -> u64 {
        let open = if self.open {
            self.enc.approx_bytes() as u64
        } else {
            0
        };
        (self.uncompressed_bytes + open).saturating_sub(self.bytes_at_snapshot)
    }

    /// Whether the next chunk begun must carry a snapshot because
    /// [`MAX_CHUNKS_PER_SNAPSHOT`] chunks were begun since the last one.
    fn snapshot_owed(&self) -> bool {
        self.bound_snapshot_distance
            && self.chunks_since_snapshot as usize >= MAX_CHUNKS_PER_SNAPSHOT
    }

    /// The entity state after the last tick added.
    pub fn table(&self) -> EntityTable {
        self.enc.table()
    }
    pub fn last_tick(&self) -> Option<u32> {
        self.last_tick
    }
    /// Whether a chunk is open with ticks not yet in a frame.
    pub fn has_open_chunk(&self) -> bool {
        self.open
    }
    /// First tick of the open chunk.
    pub fn open_chunk_start(&self) -> Option<u32> {
        self.open.then(|| self.enc.start_tick())
    }

    /// Supplies the user's snapshot bytes; the next tick starts a new chunk carrying them.
    /// Refuses a snapshot over `Limits::max_snapshot_bytes` (nothing changes then).
    pub fn offer_snapshot(&mut self, bytes: Vec<u8>) -> Result<()> {
        Limits::default().check_snapshot(bytes.len())?;
        self.pending_snapshot = Some(bytes);
        Ok(())
    }

    /// [`Chunker::offer_snapshot`] without the limit: compaction carries snapshots over from a
    /// recording that was read back (its chunks fit what a reader accepts; the compacted file is
    /// verified before it is published).
    pub(crate) fn carry_snapshot(&mut self, bytes: Vec<u8>) {
        self.pending_snapshot = Some(bytes);
    }

    /// Supplies terrain (chunk sections, checked by the caller with
    /// [`crate::format::terrain::check_offer`]); the next tick starts a new chunk carrying it,
    /// merged with any other terrain offered before that tick. Refuses (nothing changed) terrain
    /// that would take the sections a reader holds at once, every position ever offered, past
    /// `Limits::max_terrain_sections`, or the pending terrain's coded body past
    /// `Limits::max_terrain_bytes`.
    pub fn offer_terrain(&mut self, terrain: Terrain) -> Result<()> {
        let limits = Limits::default();
        let new = self.new_terrain_positions(&terrain, "offered")?;
        let keep = self.pending_terrain.take();
        let mut merged = keep
            .clone()
            .map(OpenTerrain::into_terrain)
            .unwrap_or_default();
        let terrain_copy = terrain.clone();
        let r = merged
            .merge(terrain, limits.max_terrain_sections())
            .and_then(|()| crate::format::terrain::check_offer_size(&merged, &limits));
        if let Err(e) = r {
            self.pending_terrain = keep;
            return Err(e);
        }
        self.terrain_positions.extend(new);
        self.terrain
            .merge(terrain_copy, usize::MAX)
            .expect("no section limit");
        self.pending_terrain = Some(OpenTerrain::Offered(merged));
        Ok(())
    }

    /// The section positions of `terrain` not offered or carried before, refused (nothing
    /// changed) when they would take the positions ever offered or carried past
    /// `Limits::max_terrain_sections`, as a reader's merge refuses (`what`: "offered", "carried",
    /// for the message).
    fn new_terrain_positions(&self, terrain: &Terrain, what: &str) -> Result<Vec<(i32, i32, i32)>> {
        let max = Limits::default().max_terrain_sections();
        let new: Vec<_> = terrain
            .sections()
            .map(|s| (s.cx, s.cy, s.cz))
            .filter(|p| !self.terrain_positions.contains(p))
            .collect();
        if self.terrain_positions.len() + new.len() > max {
            return Err(crate::Error::limit(format!(
                "the terrain {what} would hold {} sections; limit {max}",
                self.terrain_positions.len() + new.len()
            )));
        }
        Ok(new)
    }

    /// Carries a terrain piece from a recording that was read back (compaction): `piece` is the
    /// whole skippable frame in front of the source chunk's payload, `terrain` what it holds (as
    /// the source's reader decoded it, within its limits). The next chunk begun carries the piece
    /// as it is, not decompressed nor compressed again, so the only bound it meets is the one
    /// its reader checked; terrain offered or carried before the same tick is merged with it
    /// (then encoded). Refuses (nothing changed) terrain that would take the positions ever
    /// carried or offered past `Limits::max_terrain_sections`, as a reader's merge refuses.
    pub(crate) fn carry_terrain_piece(&mut self, piece: Vec<u8>, terrain: Terrain) -> Result<()> {
        if self.pending_terrain.is_some() {
            return self.offer_terrain(terrain);
        }
        let new = self.new_terrain_positions(&terrain, "carried")?;
        self.terrain_positions.extend(new);
        self.terrain
            .merge(terrain.clone(), usize::MAX)
            .expect("no section limit");
        self.pending_terrain = Some(OpenTerrain::Carried { piece, terrain });
        Ok(())
    }

    /// Makes `world` the running world, the world before the next tick, where it is not already
    /// (compaction: a snapshot chunk's world, as the source's reader resolves it, which the
    /// events before it need not have made: a recording that starts in the middle of a world,
    /// or a world section a writer put there). The next world section is a delta against the
    /// last keyframe where one pays, as ever.
    pub(crate) fn carry_world(&mut self, world: &crate::format::WorldState) {
        if self.enc.world() != world {
            self.enc.carry_world(world);
        }
    }

    /// Makes the next snapshot chunk carry the delta world section `delta` as it is, and the
    /// running world unknown but for what the events after it change (compaction: a delta
    /// whose keyframe the source does not hold, so that the compacted file's world there is as
    /// unknown, and said incomplete, as the source's).
    pub(crate) fn carry_world_delta(&mut self, delta: &crate::format::WorldDelta) {
        let mut section = Vec::new();
        delta.encode_section(self.policy.world_level(), &mut section);
        self.enc.carry_world_section(section);
    }

    /// Replaces the running world without recording a change: the world sections of the
    /// snapshot chunks after it say so, the events do not. For forging files whose world
    /// sections are not what their events make (a recording cut out of the middle of a world,
    /// a world section standing on another writer's world): feature `wire`, tests only.
    #[cfg(feature = "wire")]
    pub fn forge_world(&mut self, world: crate::format::WorldState) {
        self.enc.set_world(world);
    }

    /// Applies `events` to the running world without recording them (see
    /// [`Chunker::forge_world`]): the next world section, a delta where one pays, lists changes
    /// no event made. Feature `wire`, tests only.
    #[cfg(feature = "wire")]
    pub fn forge_world_change(&mut self, events: &[Event]) {
        self.enc.apply_world(events);
    }

    /// Whether terrain was offered for the next chunk.
    pub fn has_offered_terrain(&self) -> bool {
        self.pending_terrain.is_some()
    }

    /// Whether snapshot bytes were offered for the next chunk.
    pub fn has_offered_snapshot(&self) -> bool {
        self.pending_snapshot.is_some()
    }

    /// Whether a tick at `tick` would start a snapshot (interval elapsed, snapshot offered, or a
    /// chunk starting at `tick` after [`MAX_CHUNKS_PER_SNAPSHOT`] chunks without one; a chunk
    /// cut at `tick` by the size bound of its events, which this cannot foresee, takes a snapshot
    /// then too, empty unless one was offered).
    pub fn snapshot_due(&self, tick: u32) -> bool {
        self.pending_snapshot.is_some()
            || self.last_snapshot.is_none_or(|s| {
                tick.saturating_sub(s) >= self.policy.snapshot_interval
                    && self
                        .snapshot_spacing
                        .is_none_or(|b| self.bytes_since_snapshot() >= b)
            })
            || (self.snapshot_owed() && self.starts_chunk(tick))
    }

    /// Whether a tick at `tick` starts a new chunk by the span and size of the open one (not
    /// counting the size bound of the tick's own events).
    fn starts_chunk(&self, tick: u32) -> bool {
        !self.open
            || tick.saturating_sub(self.enc.start_tick()) >= self.policy.chunk_ticks
            || self.chunk_full()
    }

    /// Whether the open chunk reached the bytes it is cut at ([`ChunkPolicy::chunk_bytes_for`]).
    fn chunk_full(&self) -> bool {
        let bytes = self.enc.approx_bytes();
        bytes >= self.policy.chunk_bytes_for(self.enc.block_bytes(), bytes)
    }

    /// Adds a tick. Returns the frame of a chunk that had to be cut first, if any.
    pub fn push_tick(&mut self, tick: u32, events: &[Event]) -> Result<Option<Frame>> {
        if let Some(l) = self.last_tick
            && tick <= l
        {
            return Err(crate::Error::invalid(format!(
                "tick {tick} is not after the last recorded tick {l}"
            )));
        }
        crate::format::chunk::validate_events(events)?;
        // The format's limits (format::limits): the tick, the entities alive, the chunk's bound.
        let limits = Limits::default();
        let tick_bound = limits.check_tick(events).map_err(|e| annotate(e, tick))?;
        if self.enc.alive_count() + events.len() > limits.max_alive_entities() {
            let new = events
                .iter()
                .filter_map(Event::entity)
                .filter(|id| !self.enc.is_alive(*id))
                .count();
            limits
                .check_alive(self.enc.alive_count(), new)
                .map_err(|e| annotate(e, tick))?;
        }
        check_world_size(self.enc.world(), events, &limits).map_err(|e| annotate(e, tick))?;
        if self.mid_world_start && self.last_snapshot.is_none() && self.last_tick.is_none() {
            // the snapshot interval counts from the first tick, which has none of its own
            self.last_snapshot = Some(tick);
        }
        let snapshot_due = self.snapshot_due(tick);
        let mut out = None;
        if self.open {
            let span_full = tick - self.enc.start_tick() >= self.policy.chunk_ticks;
            // Upper bounds, counting every event of the tick as a sample and as a stored event.
            let bound_full = self.enc.bound_bytes() + tick_bound > limits.chunk_cut_bytes()
                || self.enc.sample_count() as usize + events.len() > limits.max_chunk_samples()
                || self.enc.event_count() as usize + events.len() > limits.max_chunk_events();
            if span_full
                || snapshot_due
                || self.pending_terrain.is_some()
                || bound_full
                || self.chunk_full()
            {
                out = self.finish_chunk()?;
            }
        }
        if !self.open {
            let snapshot = if snapshot_due || self.snapshot_owed() {
                self.last_snapshot = Some(tick);
                self.chunks_since_snapshot = 0;
                self.bytes_at_snapshot = self.uncompressed_bytes;
                Some(self.pending_snapshot.take().unwrap_or_default())
            } else {
                None
            };
            self.chunks_since_snapshot = self.chunks_since_snapshot.saturating_add(1);
            self.enc.begin(tick, snapshot);
            self.open_terrain = self.pending_terrain.take().map(|t| self.begin_terrain(t));
            self.chunks_begun += 1;
            self.open = true;
        }
        self.enc.push_tick(tick, events)?;
        self.last_tick = Some(tick);
        self.ticks_written += 1;
        Ok(out)
    }

    /// Ends the open chunk (its frame is returned, to be written first) and continues after
    /// `chunk`, a chunk encoded elsewhere that is written as it is (compaction copies chunks
    /// that need no re-encoding): its end table becomes the running entity state, so that the
    /// next chunk's keyframe follows on from it, and its counts join the totals.
    pub(crate) fn adopt(&mut self, chunk: &AdoptedChunk) -> Result<Option<Frame>> {
        let h = &chunk.frame.header;
        if let Some(l) = self.last_tick
            && h.start_tick <= l
        {
            return Err(crate::Error::invalid(format!(
                "a chunk starting at tick {} is not after the last recorded tick {l}",
                h.start_tick
            )));
        }
        let out = self.finish_chunk()?;
        // Its terrain comes with its frame: what was offered for the next chunk is offered
        // after it, so the next chunk carries it (and counts it).
        if let Some(t) = &chunk.terrain {
            if h.flags & crate::format::FLAG_TERRAIN_FULL != 0 {
                self.full_terrain_at = Some(self.chunks_begun);
            } else if self.full_terrain_due() {
                return Err(crate::Error::InvalidState(format!(
                    "a chunk starting at tick {} copied with a terrain piece that is not full \
                     where a full one is due",
                    h.start_tick
                )));
            }
            self.terrain_positions
                .extend(t.sections().map(|s| (s.cx, s.cy, s.cz)));
            self.terrain
                .merge(t.clone(), usize::MAX)
                .expect("no section limit");
        }
        self.chunks_begun += 1;
        self.enc.set_table(&chunk.end_table);
        match &chunk.start_world {
            // its keyframe world section: the next deltas stand on it
            Some(w) if h.flags & crate::format::FLAG_WORLD != 0 => {
                self.enc.adopt_keyframe(w, h.start_tick)
            }
            Some(w) => self.carry_world(w),
            None => {}
        }
        self.enc.apply_world(&chunk.world_events);
        self.last_tick = Some(h.start_tick + (h.tick_count - 1));
        // (A chunk without one counts as the interval's start too when none came before: the
        // chunk after it is not made to carry one because the recording began with no snapshot.)
        if h.flags & crate::format::index::FLAG_SNAPSHOT != 0 || self.last_snapshot.is_none() {
            self.last_snapshot = Some(h.start_tick);
            self.chunks_since_snapshot = 0;
            self.bytes_at_snapshot = self.uncompressed_bytes;
        }
        self.chunks_since_snapshot = self.chunks_since_snapshot.saturating_add(1);
        self.events += chunk.events;
        self.pose_samples += chunk.pose_samples;
        self.uncompressed_bytes += u64::from(h.uncompressed_len);
        self.ticks_written += chunk.ticks_written;
        Ok(out)
    }

    /// Cuts the open chunk (if any) into a frame.
    pub fn finish_chunk(&mut self) -> Result<Option<Frame>> {
        if !self.open {
            return Ok(None);
        }
        self.open = false;
        let policy = self.policy;
        let mut cut = |c: &mut Compression| {
            let Compression {
                compressors,
                payload,
                compressed,
            } = c;
            let ticks = self.enc.encode_frame_payload(payload)?;
            // A dictionary's compressor keeps the policy's level; the others follow the chunk's
            // density (`ChunkPolicy::level_for`).
            let compressor = match &mut self.own_compressor {
                Some(own) => own,
                None => shared_compressor(
                    compressors,
                    policy.level_for_chunk(payload.len(), ticks, self.enc.block_bytes()),
                )?,
            };
            self.enc.compress_frame(compressor, payload, compressed)
        };
        let (header, payload) = if crate::threads::is_library_thread() {
            COMPRESSION.with(|c| cut(&mut c.borrow_mut()))?
        } else {
            let mut own = self.own_compression.take().unwrap_or_default();
            let r = cut(&mut own);
            self.own_compression = Some(own);
            r?
        };
        let (header, payload) = match self.open_terrain.take() {
            Some((t, full)) => with_terrain(header, payload, t, full)?,
            None => (header, payload),
        };
        self.events += self.enc.event_count();
        self.pose_samples += self.enc.sample_count();
        self.uncompressed_bytes += u64::from(header.uncompressed_len);
        Ok(Some(Frame { header, payload }))
    }
}
