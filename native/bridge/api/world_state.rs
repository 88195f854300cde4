//! The world at a tick, as the library keeps it from world events ([`tickreel::format::WorldState`]):
//! edited blocks, block entities, each entity's health and equipment, and the terrain in effect
//! ([`tickreel::format::Terrain`], the chunk sections the game handed over), which the edited
//! blocks override. C and Java get it as a
//! handle (`TickreelWorldState`, Java `WorldState`) made by `tickreel_reader_world_at` or
//! `tickreel_playhead_world_state`, and read it through typed lists and lookups, never through
//! an encoding of their own.

use std::sync::Arc;

use crate::api::{New, Released, Rows};
use crate::shared::handle::HandleType;
use tickreel::format::{BlockPos, Terrain, WorldChange};
use tickreel_bridge_macros::{bridge_fn, bridge_struct};

/// One entity's world state, as filled in by `tickreel_world_state_entities`.
#[bridge_struct(c = "TickreelEntityWorld", what = "entities with a world state")]
#[derive(Debug, Clone, Copy)]
pub struct EntityRow {
    /// The entity id.
    pub entity: u32,
    /// Its health, in hundredths of a health point, if a health event gave one.
    pub health: Option<u32>,
    /// Its equipment slots in use (the next `equipment_count` entries of
    /// `tickreel_world_state_equipment`, in order of the entities).
    pub equipment_count: u32,
}

/// What an entity has in one equipment slot, as filled in by `tickreel_world_state_equipment`.
#[bridge_struct(c = "TickreelEquipment", what = "equipment slots")]
#[derive(Debug, Clone, Copy)]
pub struct EquipmentRow {
    /// The entity id.
    pub entity: u32,
    /// The slot: a `TICKREEL_SLOT_*` value or the game's own.
    pub slot: u32,
    /// An id of the item palette (never 0).
    pub item: u32,
    /// How many (at least 1).
    pub count: u32,
}

/// A block entity, as filled in by `tickreel_world_state_block_entities`.
#[bridge_struct(c = "TickreelBlockEntity", what = "block entities")]
#[derive(Debug, Clone, Copy)]
pub struct BlockEntityRow<'a> {
    /// Block x.
    pub x: i32,
    /// Block y.
    pub y: i32,
    /// Block z.
    pub z: i32,
    /// Its NBT (big-endian, as the block change gave it), valid until `tickreel_world_state_free`.
    pub data: &'a [u8],
}

/// What a world state holds, as filled in by `tickreel_world_state_info`.
#[bridge_struct(c = "TickreelWorldStateInfo", what = "world state infos")]
#[derive(Debug, Clone, Copy)]
pub struct Info {
    /// The tick it is the world at (after that tick's events; clamped into the recording).
    pub tick: u32,
    /// False if the world before some chunk is unknown (a recording without a snapshot near the
    /// tick, a shadow-play report before its first snapshot, or a chunk that could not be read on
    /// a playhead's way): it then holds only what the chunks read changed.
    pub complete: bool,
    /// Edited blocks (`tickreel_world_state_blocks`).
    pub block_count: usize,
    /// Block entities (`tickreel_world_state_block_entities`).
    pub block_entity_count: usize,
    /// Entities with a health or equipment (`tickreel_world_state_entities`).
    pub entity_count: usize,
    /// Equipment slots in use, over all entities (`tickreel_world_state_equipment`).
    pub equipment_count: usize,
    /// Sections of the terrain in effect (`tickreel_world_state_terrain_sections`).
    pub terrain_section_count: usize,
}

/// One change of the world the library keeps, as filled in by `tickreel_playhead_world_changes`:
/// what was before (so that reverse play restores it) and what is now. Fields the kind does not
/// use are 0 or false.
#[bridge_struct(c = "TickreelWorldChange", what = "world changes")]
#[derive(Debug, Clone, Copy, Default)]
pub struct WorldChangeRow {
    /// `TICKREEL_WORLD_CHANGE_BLOCK` (0), `_HEALTH` (1) or `_EQUIPMENT` (2).
    pub kind: u32,
    /// Block x (a block change).
    pub x: i32,
    /// Block y (a block change).
    pub y: i32,
    /// Block z (a block change).
    pub z: i32,
    /// The entity (a health or equipment change).
    pub entity: u32,
    /// The slot (an equipment change).
    pub slot: u32,
    /// The block state, health or item before. Not set: the block was not edited, the entity had
    /// no health, the slot was empty.
    pub before: Option<u32>,
    /// The item count before (an equipment change).
    pub before_count: u32,
    /// The block state, health or item now. Not set: the block is no longer edited (restore the
    /// world's own block), the entity has no health, the slot is empty.
    pub after: Option<u32>,
    /// The item count now (an equipment change).
    pub after_count: u32,
}

impl From<&WorldChange> for WorldChangeRow {
    fn from(c: &WorldChange) -> Self {
        match *c {
            WorldChange::Block { pos, before, after } => WorldChangeRow {
                kind: 0,
                x: pos.x,
                y: pos.y,
                z: pos.z,
                before,
                after,
                ..Default::default()
            },
            WorldChange::Health {
                entity,
                before,
                after,
            } => WorldChangeRow {
                kind: 1,
                entity,
                before,
                after,
                ..Default::default()
            },
            WorldChange::Equipment {
                entity,
                slot,
                before,
                after,
            } => WorldChangeRow {
                kind: 2,
                entity,
                slot: u32::from(slot),
                before: before.map(|i| i.item),
                before_count: before.map_or(0, |i| i.count),
                after: after.map(|i| i.item),
                after_count: after.map_or(0, |i| i.count),
                ..Default::default()
            },
        }
    }
}

/// The world at one tick, laid out once for reading (sorted lists), never changed afterwards: the
/// block entity bytes C reads through pointers stay valid until the handle is freed.
pub struct WorldState {
    pub tick: u32,
    /// False if the world before some chunk is unknown (see `tickreel_reader_world_at`).
    pub complete: bool,
    /// Edited blocks and their states, sorted by position (x, then y, then z).
    pub blocks: Vec<(BlockPos, u32)>,
    /// Block entities (NBT), sorted by position.
    pub block_entities: Vec<(BlockPos, Arc<[u8]>)>,
    /// Entities with a health or equipment, sorted by id.
    pub entities: Vec<EntityRow>,
    /// Every entity's non-empty slots: by entity id, then by slot.
    pub equipment: Vec<EquipmentRow>,
    /// The terrain in effect at `tick` (shared with the reader, never changed: the palettes and
    /// indices C reads through pointers stay valid until the handle is freed).
    pub terrain: Arc<Terrain>,
}

impl HandleType for WorldState {
    const TAG: u8 = 19;
    const NAME: &'static str = "world state";
}

impl WorldState {
    /// Lays `world` out for reading.
    pub(crate) fn new(
        tick: u32,
        complete: bool,
        world: &tickreel::format::WorldState,
        terrain: Arc<Terrain>,
    ) -> Self {
        let blocks = world.sorted_blocks();
        let mut block_entities: Vec<(BlockPos, Arc<[u8]>)> = world
            .block_entities()
            .map(|(p, b)| (p, Arc::from(b)))
            .collect();
        block_entities.sort_unstable_by_key(|b| b.0);
        let mut entities = Vec::new();
        let mut equipment = Vec::new();
        for (id, e) in world.entities() {
            entities.push(EntityRow {
                entity: id,
                health: e.health,
                equipment_count: u32::try_from(e.equipment.len()).unwrap_or(u32::MAX),
            });
            equipment.extend(e.equipment.iter().map(|&(slot, item)| EquipmentRow {
                entity: id,
                slot: u32::from(slot),
                item: item.item,
                count: item.count,
            }));
        }
        WorldState {
            tick,
            complete,
            blocks,
            block_entities,
            entities,
            equipment,
            terrain,
        }
    }

    fn block_entity_at(&self, pos: BlockPos) -> Option<&[u8]> {
        self.block_entities
            .binary_search_by_key(&pos, |b| b.0)
            .ok()
            .map(|i| &self.block_entities[i].1[..])
    }
}

/// The edited blocks, sorted by position.
pub struct Blocks<'a>(pub &'a WorldState);

/// The terrain's sections, sorted by x, then z, then y.
pub struct TerrainSectionsOf<'a>(pub &'a WorldState);

/// The block at one position: its state if an event edited it, else the terrain's if a section
/// covers it, and its block entity.
pub struct BlockAt<'a> {
    /// The state a world event gave it.
    pub edited: Option<u32>,
    /// The terrain's state there.
    pub terrain: Option<u32>,
    pub block_entity: Option<&'a [u8]>,
}

/// The block entity NBT at one position, if any (Java: `byte[]` or `null`).
pub struct BlockEntityAt(pub Option<Vec<u8>>);

/// Frees a world state (the pointers of the `TickreelBlockAt`s and `TickreelBlockEntity`s read
/// from it become invalid). `tickreel_world_state_free(NULL)` is a no-op returning
/// `TICKREEL_RESULT_OK`; a freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread; a call on the same handle still running in another thread
/// finishes normally.
#[bridge_fn(c = "tickreel_world_state_free")]
pub fn free(_world: Released<WorldState>) {}

/// Stores in `*out_info` the tick the world state is at, whether it is complete, and how many
/// blocks, block entities, entities and equipment slots it holds.
///
/// Thread safety: any thread; a world state never changes.
#[bridge_fn(
    c = "tickreel_world_state_info",
    c_out = "out_info",
    c_out_type = "TickreelWorldStateInfo",
    java = "worldStateInfo"
)]
pub fn info(world: &WorldState) -> Info {
    let w = world;
    Info {
        tick: w.tick,
        complete: w.complete,
        block_count: w.blocks.len(),
        block_entity_count: w.block_entities.len(),
        entity_count: w.entities.len(),
        equipment_count: w.equipment.len(),
        terrain_section_count: w.terrain.len(),
    }
}

/// Copies every edited block with its state (an id of the block palette,
/// `tickreel_reader_palette_name`) into `blocks`, sorted by position (x, then y, then z). A block
/// no world event touched is not listed: the world there is as the game had it.
///
/// `*out_count` is always set to the number of blocks. If it exceeds `capacity`, nothing is
/// copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned: call again with room for
/// `*out_count` blocks. `blocks` may be NULL when `capacity` is 0, to query the count.
///
/// Thread safety: any thread; a world state never changes.
///
/// (Java: a `long[]` of `x, y, z, state` per block.)
#[bridge_fn(
    c = "tickreel_world_state_blocks",
    c_out_array = "blocks",
    c_out_type = "TickreelBlockState",
    java = "worldStateBlocks"
)]
pub fn blocks(world: &WorldState) -> Blocks<'_> {
    Blocks(world)
}

/// Stores in `*out_block` the block at `x`, `y`, `z`: its state (the one a world event gave it,
/// else the terrain's where a terrain section covers it, else unknown), whether an event edited
/// it, and its block entity NBT if its last change gave one (`block_entity` points into `world`
/// and stays valid until `tickreel_world_state_free`).
///
/// Thread safety: any thread; a world state never changes.
///
/// (Java: the state, or -1 for a block neither an event nor the terrain gives.)
#[bridge_fn(
    c = "tickreel_world_state_block",
    c_out = "out_block",
    c_out_type = "TickreelBlockAt",
    java = "worldStateBlock"
)]
pub fn block(world: &WorldState, x: i32, y: i32, z: i32) -> BlockAt<'_> {
    let pos = BlockPos::new(x, y, z);
    BlockAt {
        edited: world
            .blocks
            .binary_search_by_key(&pos, |b| b.0)
            .ok()
            .map(|i| world.blocks[i].1),
        terrain: world.terrain.block(x, y, z),
        block_entity: world.block_entity_at(pos),
    }
}

/// Copies every block entity (the position and a pointer to its NBT, valid until
/// `tickreel_world_state_free`) into `block_entities`, sorted by position.
///
/// `*out_count` is always set to their number. If it exceeds `capacity`, nothing is copied and
/// `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `block_entities` may be NULL when `capacity`
/// is 0, to query the count.
///
/// Thread safety: any thread; a world state never changes.
#[bridge_fn(
    c = "tickreel_world_state_block_entities",
    c_out_array = "block_entities",
    c_out_type = "TickreelBlockEntity"
)]
pub fn block_entities(world: &WorldState) -> Rows<'_, BlockEntityRow<'_>> {
    let rows = world.block_entities.iter().map(|(p, data)| BlockEntityRow {
        x: p.x,
        y: p.y,
        z: p.z,
        data: &data[..],
    });
    Rows::from(rows.collect::<Vec<_>>())
}

/// The block entity NBT at a position, or none (Java's `WorldState.blockEntity`).
#[bridge_fn(java = "worldStateBlockEntity")]
pub fn block_entity(world: &WorldState, x: i32, y: i32, z: i32) -> BlockEntityAt {
    BlockEntityAt(
        world
            .block_entity_at(BlockPos::new(x, y, z))
            .map(<[u8]>::to_vec),
    )
}

/// Copies every entity with a health or equipment (its id, its health if a health event gave one,
/// its number of equipment slots in use) into `entities`, sorted by id.
///
/// `*out_count` is always set to their number. If it exceeds `capacity`, nothing is copied and
/// `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `entities` may be NULL when `capacity` is 0,
/// to query the count.
///
/// Thread safety: any thread; a world state never changes.
///
/// (Java: a `long[]` of `entity, health or -1, slots in use` per entity.)
#[bridge_fn(
    c = "tickreel_world_state_entities",
    c_out_array = "entities",
    c_out_type = "TickreelEntityWorld",
    java = "worldStateEntities"
)]
pub fn entities(world: &WorldState) -> Rows<'_, EntityRow> {
    Rows::from(&world.entities[..])
}

/// Copies every equipment slot in use (entity, slot, item, count) into `equipment`, sorted by
/// entity, then slot: the entities of `tickreel_world_state_entities` in order, each with its
/// `equipment_count` slots.
///
/// `*out_count` is always set to their number. If it exceeds `capacity`, nothing is copied and
/// `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `equipment` may be NULL when `capacity` is 0,
/// to query the count.
///
/// Thread safety: any thread; a world state never changes.
///
/// (Java: a `long[]` of `entity, slot, item, count` per slot.)
#[bridge_fn(
    c = "tickreel_world_state_equipment",
    c_out_array = "equipment",
    c_out_type = "TickreelEquipment",
    java = "worldStateEquipment"
)]
pub fn equipment(world: &WorldState) -> Rows<'_, EquipmentRow> {
    Rows::from(&world.equipment[..])
}

/// Copies the terrain in effect at the world state's tick (the chunk sections the game handed
/// over with `tickreel_recorder_offer_terrain`, a later offer's section replacing an earlier one)
/// into `sections`, sorted by x, then z, then y. `palette` and `packed` point into `world` and
/// stay valid until `tickreel_world_state_free`; `packed` is NULL for a section of one state.
/// The edited blocks (`tickreel_world_state_blocks`) override the terrain;
/// `tickreel_world_state_block` gives the block that results.
///
/// `*out_count` is always set to their number. If it exceeds `capacity`, nothing is copied and
/// `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `sections` may be NULL when `capacity` is 0,
/// to query the count.
///
/// Thread safety: any thread; a world state never changes.
///
/// (Java: a `long[]` of the layout `TerrainSection` reads.)
#[bridge_fn(
    c = "tickreel_world_state_terrain_sections",
    c_out_array = "sections",
    c_out_type = "TickreelTerrainSection",
    java = "worldStateTerrainSections"
)]
pub fn terrain_sections(world: &WorldState) -> TerrainSectionsOf<'_> {
    TerrainSectionsOf(world)
}

/// A world state of `world` with `terrain` (a new handle).
pub(crate) fn new(
    tick: u32,
    complete: bool,
    world: &tickreel::format::WorldState,
    terrain: Arc<Terrain>,
) -> New<WorldState> {
    New(WorldState::new(tick, complete, world, terrain))
}
