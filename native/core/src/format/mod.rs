//! The tickreel format, bytes only: no files, no threads. See FORMAT.md for every byte.
//!
//! The front, what a user of recordings needs (the modules behind it are the crate's own):
//!
//! - events of a tick and their batch encoding: [`Event`], [`encode_batch`], [`decode_batch`],
//!   [`decode_batch_into`], the event [`kind`] codes, the entity [`flag`] bits,
//!   [`MAX_EVENTS_PER_TICK`], [`MAX_CUSTOM_EVENT_BYTES`];
//! - poses in fixed point: [`Pose`], [`Quantity`], [`check_position`], [`check_angle`],
//!   [`check_velocity`], [`quantise_pos`], [`quantise_angle`], [`quantise_vel`], [`POS_SCALE`],
//!   [`ANGLE_UNITS_PER_TURN`], [`VEL_SCALE`];
//! - world events ([`Event::BlockChange`] and the others after it): [`BlockPos`], [`BlockState`],
//!   [`UseTarget`], the [`world_kind`] codes, [`hand`], [`slot`] and [`channel`] values, their
//!   limits [`MAX_BLOCK_ENTITY_BYTES`], [`MAX_CHAT_BYTES`], [`MAX_BLOCKS_PER_CHANGE`];
//! - the state of entities at a tick: [`EntityState`], [`EntityTable`]; the world at a tick
//!   (edited blocks, equipment, health): [`WorldState`], [`EntityWorld`], [`Item`], and what an
//!   update changed in it, [`WorldChange`];
//! - the metadata section: [`Metadata`], [`LibraryMeta`], [`EntityInfo`], [`EventType`], [`Gap`],
//!   [`Stats`], [`LIBRARY_KEY`], [`check_nbt_shape`]; the names world events' ids stand for:
//!   [`Palette`], [`PaletteKind`], [`MAX_PALETTE_NAME_BYTES`], [`MAX_PALETTE_NAMES`];
//! - the header and the index: [`Header`], [`Layout`], [`HEADER_LEN`], [`FORMAT_VERSION`],
//!   [`DATA_VERSION`], [`IndexEntry`], [`FLAG_SNAPSHOT`], [`FLAG_CUSTOM_EVENTS`], [`FLAG_WORLD`];
//! - terrain, the blocks of an area the game handed over: [`Section`] (Minecraft's layout,
//!   [`bits_for`], [`longs_for`], [`SECTION_BLOCKS`], [`MAX_SECTION_PALETTE`],
//!   [`MAX_SECTION_BITS`]), [`Terrain`], [`TERRAIN_ZSTD_LEVEL`], the flags [`FLAG_TERRAIN`] and
//!   [`FLAG_TERRAIN_FULL`], [`MAX_TERRAIN_PIECES_MERGED`], [`MAX_CHUNKS_PER_SNAPSHOT`];
//! - what a reader accepts: [`Limits`], [`MetadataBudget`];
//! - frames and chunks, as [`play::Reader`](crate::play::Reader) hands them out: [`FrameHeader`],
//!   [`FRAME_HEADER_LEN`], [`DecodedChunk`] (its [`Track`]s and [`TickRecord`]s), [`DecodedTick`];
//!   the start of a live segment, [`SegmentStart`].
//!
//! With the feature `wire` (tests, fuzzing, benchmarks; not part of the stable API), `wire`
//! adds the byte-level pieces that forge or take apart a file by hand: frames, the chunk and index
//! codecs, segment preambles, varints.

// Every `pub` item in here is reachable from outside the crate, through the front or `wire`
// (without the feature, the pieces only `wire` re-exports are `pub` for its sake).
#![cfg_attr(feature = "wire", warn(unreachable_pub))]

pub(crate) mod block_coding;
pub(crate) mod bytes;
pub(crate) mod chunk;
pub(crate) mod encoder;
pub(crate) mod event;
pub(crate) mod frame;
pub(crate) mod gap_prediction;
pub(crate) mod header;
pub(crate) mod index;
pub(crate) mod limits;
pub(crate) mod metadata;
pub(crate) mod movement;
pub(crate) mod palette;
pub(crate) mod pose;
pub(crate) mod segment;
pub(crate) mod state;
pub(crate) mod terrain;
pub(crate) mod tracks;
pub(crate) mod world;
pub(crate) mod world_state;

pub use chunk::{DecodedChunk, DecodedTick, TickRecord, Track};
pub use event::check_limits as check_world_limits;
pub use event::{
    Event, MAX_CUSTOM_EVENT_BYTES, MAX_EVENTS_PER_TICK, decode_batch, decode_batch_into,
    encode_batch, flag, kind,
};
pub use frame::{FRAME_HEADER_LEN, FrameHeader};
pub use header::{DATA_VERSION, FORMAT_VERSION, HEADER_LEN, Header, HeaderStats, Layout};
pub use index::{
    FLAG_CUSTOM_EVENTS, FLAG_SNAPSHOT, FLAG_TERRAIN, FLAG_TERRAIN_FULL, FLAG_WORLD, IndexEntry,
    MAX_CHUNKS_PER_SNAPSHOT, MAX_TERRAIN_PIECES_MERGED,
};
pub use limits::{Limits, MetadataBudget};
pub use metadata::{
    EntityInfo, EventType, Gap, LIBRARY_KEY, LibraryMeta, MAX_SERVER_ID_BYTES, Metadata, Stats,
    check_nbt_shape, check_server_id,
};
pub use palette::{MAX_PALETTE_NAME_BYTES, MAX_PALETTE_NAMES, Palette, PaletteKind};
pub use pose::{
    ANGLE_UNITS_PER_TURN, POS_SCALE, Pose, Quantity, VEL_SCALE, check_angle, check_position,
    check_velocity, quantise_angle, quantise_pos, quantise_vel,
};
pub use segment::SegmentStart;
pub use state::{EntityState, EntityTable};
pub use terrain::{
    MAX_SECTION_BITS, MAX_SECTION_PALETTE, SECTION_BLOCKS, Section, TERRAIN_ZSTD_LEVEL, Terrain,
    bits_for, longs_for,
};
pub use world::{
    BlockPos, BlockState, MAX_BLOCK_ENTITY_BYTES, MAX_BLOCKS_PER_CHANGE, MAX_CHAT_BYTES, UseTarget,
    channel, hand, slot, world_kind,
};
pub use world_state::{EntityWorld, Item, WorldChange, WorldDelta, WorldState};

/// The byte-level pieces of the format for code that forges or takes apart a file by hand: the
/// corruption and fuzz-seed tests, the fuzz harness, the benchmarks' baselines. Feature `wire`;
/// not part of the stable API (the names follow the crate's internals).
#[cfg(feature = "wire")]
pub mod wire {
    pub use super::bytes::{put_ivarint, put_uvarint};
    pub use super::chunk::{ChunkEncoder, decode_frame};
    pub use super::frame::pad_payload;
    pub use super::index::{decode_index, encode_index, find_chunk, snapshot_at_or_before};
    pub use super::limits::{max_uncompressed_len, min_compressed_len};
    pub use super::movement::avx512;
    pub use super::segment::{PREAMBLE_LEN, encode_preamble};
    pub use super::terrain::{
        check_offer, decode_body, decode_piece, encode_body, encode_piece, piece_of,
    };
    pub use super::world_state::WorldSection;

    use super::{Limits, WorldDelta, WorldState};

    /// Decodes the world section of a snapshot chunk of data version 3 or 4 (FORMAT.md, the
    /// world section): its body, all of `body`, as a chunk's decode does.
    pub fn decode_world(body: &[u8], limits: &Limits) -> crate::Result<WorldState> {
        WorldState::decode(body, limits)
    }

    /// Decodes a world section of data version 5: a keyframe section's world or a delta
    /// section, as a chunk's decode does.
    pub fn decode_world_v5(body: &[u8], limits: &Limits) -> crate::Result<WorldSection> {
        WorldState::decode_v5(body, limits)
    }

    /// The world section (data version 3 or 4) a writer writes of `world`.
    pub fn encode_world(world: &WorldState) -> Vec<u8> {
        let mut out = Vec::new();
        world.encode(&mut out);
        out
    }

    /// The world section (data version 5) a writer writes of `world`: a keyframe section if
    /// `back` is 0, else a delta section of the blocks changed since `world` was last compacted
    /// (the keyframe's world, `back` ticks earlier).
    pub fn encode_world_v5(world: &WorldState, back: u32) -> Vec<u8> {
        let mut out = Vec::new();
        world.encode_v5(back, &mut out);
        out
    }

    /// Decodes a world section of a chunk of data version `data_version` (5 or later): from
    /// data version 9 its block lists kept as stored, decoded on first read.
    pub fn decode_world_section(
        body: &[u8],
        limits: &Limits,
        data_version: u16,
    ) -> crate::Result<WorldSection> {
        WorldState::decode_section(body, limits, data_version)
    }

    /// The world section (data version 9) a writer writes of `world`, as
    /// [`encode_world_v5`] but its block list compressed at `level`.
    pub fn encode_world_section(world: &WorldState, back: u32, level: i32) -> Vec<u8> {
        let mut out = Vec::new();
        world.encode_section(back, level, &mut out);
        out
    }

    /// The world of a delta section on the world of its keyframe section, as a reader makes it
    /// (`Reader::resolve_world`); `keyframe` as [`decode_world_v5`] gives a keyframe section's
    /// world (one sorted list: a world changed since is no keyframe's).
    pub fn world_with_delta(
        keyframe: &WorldState,
        delta: &WorldDelta,
        limits: &Limits,
    ) -> crate::Result<WorldState> {
        WorldState::with_delta(keyframe, delta, limits)
    }
}
