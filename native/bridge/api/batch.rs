//! The tick batch builder, for C engines that would rather not encode events themselves (Java
//! encodes in `Batch`).
//!
//! A batch is one tick's events in the batch encoding of `format::event` (`u16` big-endian event
//! count, then each event as a kind byte and varint fields). Coordinates are given in blocks and
//! angles in degrees, as doubles, and quantised with the core's checks (`Pose::try_from_f64`:
//! 1/4096 block, 1/65536 turn), so a non-finite or out-of-range value is
//! `TICKREEL_RESULT_INVALID_ARGUMENT`.

use tickreel_sync::sync::Mutex;

use crate::api::{New, Released};
use crate::shared::block_state::TickreelBlockState;
use crate::shared::handle::HandleType;
use tickreel::format::{BlockPos, Event, MAX_CUSTOM_EVENT_BYTES, MAX_EVENTS_PER_TICK, UseTarget};
use tickreel::format::{Pose, check_angle, check_position, check_velocity};
use tickreel_bridge_macros::bridge_fn;

/// A batch being built (C: `TickreelBatch`); calls are serialised by its lock.
pub struct Batch(Mutex<BatchBuf>);

impl HandleType for Batch {
    const TAG: u8 = 1;
    const NAME: &'static str = "batch";
}

impl Batch {
    /// Runs `f` over the batch encoding of the events added so far (under the batch's lock).
    pub(crate) fn with_encoded<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(&self.0.lock().bytes)
    }

    /// The events added so far, decoded.
    pub(crate) fn events(&self) -> tickreel::Result<Vec<Event>> {
        tickreel::format::decode_batch(&self.0.lock().bytes)
    }

    fn push(&self, e: Event) -> tickreel::Result<()> {
        self.0.lock().push(e)
    }

    /// Adds a world event after the core's checks of what its encoding does not bound (text,
    /// block-entity data and block counts within their limits, hands known).
    fn push_world(&self, e: Event) -> tickreel::Result<()> {
        tickreel::format::check_world_limits(&e)?;
        self.push(e)
    }
}

/// The encoded events and their count.
struct BatchBuf {
    bytes: Vec<u8>,
    count: usize,
}

impl BatchBuf {
    fn push(&mut self, e: Event) -> tickreel::Result<()> {
        if self.count >= MAX_EVENTS_PER_TICK {
            return Err(tickreel::Error::limit(format!(
                "a tick holds at most {MAX_EVENTS_PER_TICK} events"
            )));
        }
        e.encode(&mut self.bytes);
        self.count += 1;
        self.bytes[..2].copy_from_slice(&(self.count as u16).to_be_bytes());
        Ok(())
    }
}

/// Creates an empty batch builder and stores its handle in `*out_batch`.
///
/// Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `out_batch` is NULL. On failure `*out_batch` is set
/// to NULL (when it can be written).
///
/// Thread safety: any thread. A batch may be used from any thread; calls on one batch are
/// serialised by an internal lock, but a batch is meant to be filled by one thread at a time
/// (the order of events is the order of the calls).
#[bridge_fn(c = "tickreel_batch_new", c_out = "out_batch")]
pub fn new() -> New<Batch> {
    New(Batch(Mutex::new(BatchBuf {
        bytes: vec![0, 0],
        count: 0,
    })))
}

/// Frees a batch. `tickreel_batch_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed,
/// foreign or otherwise invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE` (a double free is
/// detected, not undefined behaviour).
///
/// Thread safety: any thread. A call on the same batch still running in another thread finishes
/// normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[bridge_fn(c = "tickreel_batch_free")]
pub fn free(_batch: Released<Batch>) {}

/// Removes every event from the batch, keeping its memory for reuse (call once per tick).
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_clear")]
pub fn clear(batch: &Batch) {
    let mut b = batch.0.lock();
    b.bytes.truncate(2);
    b.bytes[..2].fill(0);
    b.count = 0;
}

/// Stores the number of events in the batch in `*out_count`.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_event_count", c_out = "out_count")]
pub fn event_count(batch: &Batch) -> usize {
    batch.0.lock().count
}

/// Copies the batch encoding of the events added so far into `buf` (the bytes that
/// `tickreel_reel_writer_write_tick` accepts), and stores its length in `*out_count`.
///
/// The encoding is: a big-endian `u16` event count, then each event as a kind byte followed by
/// its fields as LEB128 varints (signed fields zigzag-coded); see FORMAT.md. An empty batch is
/// the two bytes `00 00`.
///
/// `*out_count` is always set to the encoded length. If `capacity` is smaller, nothing is copied and
/// `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned: call again with a buffer of `*out_count` bytes.
/// `buf` may be NULL when `capacity` is 0, to query the length.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_bytes", c_out_array = "buf", c_out_type = "u8")]
pub fn bytes(batch: &Batch) -> Vec<u8> {
    batch.with_encoded(<[u8]>::to_vec)
}

/// Adds an entity (it appears with a game-defined `kind`, e.g. an entity type id, at the given
/// pose). Position in blocks, yaw and pitch in degrees (yaw unbounded).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range value,
/// `TICKREEL_RESULT_LIMIT_EXCEEDED` if the batch already holds 65535 events.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_entity_add")]
#[allow(clippy::too_many_arguments)]
pub fn entity_add(
    batch: &Batch,
    entity: u32,
    kind: u32,
    x: f64,
    y: f64,
    z: f64,
    yaw: f64,
    pitch: f64,
) -> tickreel::Result<()> {
    let pose = Pose::try_from_f64(x, y, z, yaw, pitch)?;
    batch.push(Event::EntityAdd { entity, kind, pose })
}

/// Removes an entity.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_entity_remove")]
pub fn entity_remove(batch: &Batch, entity: u32) -> tickreel::Result<()> {
    batch.push(Event::EntityRemove { entity })
}

/// Sets an entity's absolute pose: position in blocks, yaw and pitch in degrees (yaw unbounded:
/// pass what the client sends, without normalising).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range value.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_pose")]
pub fn pose(
    batch: &Batch,
    entity: u32,
    x: f64,
    y: f64,
    z: f64,
    yaw: f64,
    pitch: f64,
) -> tickreel::Result<()> {
    let pose = Pose::try_from_f64(x, y, z, yaw, pitch)?;
    batch.push(Event::Pose { entity, pose })
}

/// Sets an entity's position (blocks), leaving its rotation unchanged.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range value.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_position")]
pub fn position(batch: &Batch, entity: u32, x: f64, y: f64, z: f64) -> tickreel::Result<()> {
    batch.push(Event::Position {
        entity,
        x: check_position("x", x)?,
        y: check_position("y", y)?,
        z: check_position("z", z)?,
    })
}

/// Sets an entity's rotation (degrees; yaw unbounded), leaving its position unchanged.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range value.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_rotation")]
pub fn rotation(batch: &Batch, entity: u32, yaw: f64, pitch: f64) -> tickreel::Result<()> {
    batch.push(Event::Rotation {
        entity,
        yaw: check_angle("yaw", yaw)?,
        pitch: check_angle("pitch", pitch)?,
    })
}

/// Teleports an entity: a discontinuity that playback and ghosts never interpolate across.
/// Position in blocks, yaw and pitch in degrees.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range value.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_teleport")]
pub fn teleport(
    batch: &Batch,
    entity: u32,
    x: f64,
    y: f64,
    z: f64,
    yaw: f64,
    pitch: f64,
) -> tickreel::Result<()> {
    let pose = Pose::try_from_f64(x, y, z, yaw, pitch)?;
    batch.push(Event::Teleport { entity, pose })
}

/// Sets an entity's state flags: the full new value (`TICKREEL_FLAG_*` bits, the rest are the
/// game's own), not a change mask.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_flags")]
pub fn flags(batch: &Batch, entity: u32, flags: u32) -> tickreel::Result<()> {
    batch.push(Event::Flags { entity, flags })
}

/// Marks that an entity reached checkpoint `index` (a split for ghosts).
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_checkpoint")]
pub fn checkpoint(batch: &Batch, entity: u32, index: u32) -> tickreel::Result<()> {
    batch.push(Event::Checkpoint { entity, index })
}

/// Sets an entity's velocity in blocks per tick (e.g. knockback); stored at 1/8000 block per tick.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range value.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_velocity")]
pub fn velocity(batch: &Batch, entity: u32, vx: f64, vy: f64, vz: f64) -> tickreel::Result<()> {
    batch.push(Event::Velocity {
        entity,
        x: check_velocity("vx", vx)?,
        y: check_velocity("vy", vy)?,
        z: check_velocity("vz", vz)?,
    })
}

/// A player left: removes the entity (and, in a live recording, triggers a flush).
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_player_leave")]
pub fn player_leave(batch: &Batch, entity: u32) -> tickreel::Result<()> {
    batch.push(Event::PlayerLeave { entity })
}

/// Adds a game-specific event: a registered `type_id` and `len` opaque bytes (copied).
/// `data` may be NULL when `len` is 0.
///
/// Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `data` is NULL with `len > 0`,
/// `TICKREEL_RESULT_LIMIT_EXCEEDED` if `len` is over 1 MiB (1048576 bytes).
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_custom")]
pub fn custom(batch: &Batch, type_id: u32, data: &[u8]) -> tickreel::Result<()> {
    if data.len() > MAX_CUSTOM_EVENT_BYTES {
        return Err(tickreel::Error::limit(format!(
            "custom event of {} bytes; at most {MAX_CUSTOM_EVENT_BYTES}",
            data.len()
        )));
    }
    batch.push(Event::Custom {
        type_id,
        data: data.to_vec(),
    })
}

/// `Some(entity)` when `has_entity`.
fn opt(has_entity: bool, entity: u32) -> Option<u32> {
    has_entity.then_some(entity)
}

/// A hand value as the format's byte; anything else is refused by the core's check.
fn hand_byte(hand: u32) -> u8 {
    u8::try_from(hand).unwrap_or(u8::MAX)
}

/// A block changed at (`x`, `y`, `z`) to `state` (an id of the block palette: register its name
/// with `tickreel_recorder_register_name`), changed by entity `cause` if `has_cause`, with the
/// block entity's NBT (a sign's text, a chest's contents) in `block_entity`, or none when
/// `block_entity_len` is 0 (`block_entity` may then be NULL).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for block-entity data over 65536 bytes,
/// `TICKREEL_RESULT_NULL_ARGUMENT` if `block_entity` is NULL with a length,
/// `TICKREEL_RESULT_LIMIT_EXCEEDED` if the batch already holds 65535 events.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_block_change")]
#[allow(clippy::too_many_arguments)]
pub fn block_change(
    batch: &Batch,
    x: i32,
    y: i32,
    z: i32,
    state: u32,
    has_cause: bool,
    cause: u32,
    block_entity: &[u8],
) -> tickreel::Result<()> {
    batch.push_world(Event::BlockChange {
        pos: BlockPos::new(x, y, z),
        state,
        cause: opt(has_cause, cause),
        block_entity: (!block_entity.is_empty()).then(|| block_entity.to_vec()),
    })
}

/// Many blocks changed at once (a section update, a fill, an explosion): `blocks_count` blocks,
/// each a position and its new state, changed by entity `cause` if `has_cause`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for no block or more than 32768,
/// `TICKREEL_RESULT_NULL_ARGUMENT` if `blocks` is NULL with a count.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_block_changes")]
pub fn block_changes(
    batch: &Batch,
    has_cause: bool,
    cause: u32,
    blocks: &[TickreelBlockState],
) -> tickreel::Result<()> {
    if blocks.len() > tickreel::format::MAX_BLOCKS_PER_CHANGE {
        return Err(tickreel::Error::invalid(format!(
            "a change of {} blocks; at most {}",
            blocks.len(),
            tickreel::format::MAX_BLOCKS_PER_CHANGE
        )));
    }
    batch.push_world(Event::BlockChanges {
        cause: opt(has_cause, cause),
        blocks: blocks
            .iter()
            .map(|b| (BlockPos::new(b.x, b.y, b.z), b.state))
            .collect(),
    })
}

/// An entity swung a hand (`TICKREEL_HAND_MAIN` or `TICKREEL_HAND_OFF`).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for another hand.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_swing")]
pub fn swing(batch: &Batch, entity: u32, hand: u32) -> tickreel::Result<()> {
    batch.push_world(Event::Swing {
        entity,
        hand: hand_byte(hand),
    })
}

/// An entity attacked another (a hit, whether or not it did damage).
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_attack")]
pub fn attack(batch: &Batch, attacker: u32, target: u32) -> tickreel::Result<()> {
    batch.push_world(Event::Attack { attacker, target })
}

/// An entity used `item` (an id of the item palette, 0 for an empty hand) in `hand`, on nothing.
/// See `tickreel_batch_use_on_entity` and `tickreel_batch_use_on_block`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a hand other than `TICKREEL_HAND_*`.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_use")]
pub fn use_item(batch: &Batch, entity: u32, hand: u32, item: u32) -> tickreel::Result<()> {
    batch.push_world(Event::Use {
        entity,
        hand: hand_byte(hand),
        item,
        target: UseTarget::Nothing,
    })
}

/// An entity used `item` in `hand` on entity `target` (interacting with a villager, a mount).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a hand other than `TICKREEL_HAND_*`.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_use_on_entity")]
pub fn use_on_entity(
    batch: &Batch,
    entity: u32,
    hand: u32,
    item: u32,
    target: u32,
) -> tickreel::Result<()> {
    batch.push_world(Event::Use {
        entity,
        hand: hand_byte(hand),
        item,
        target: UseTarget::Entity(target),
    })
}

/// An entity used `item` in `hand` on the block at (`x`, `y`, `z`) (opening a door, placing
/// against a face).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a hand other than `TICKREEL_HAND_*`.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_use_on_block")]
#[allow(clippy::too_many_arguments)]
pub fn use_on_block(
    batch: &Batch,
    entity: u32,
    hand: u32,
    item: u32,
    x: i32,
    y: i32,
    z: i32,
) -> tickreel::Result<()> {
    batch.push_world(Event::Use {
        entity,
        hand: hand_byte(hand),
        item,
        target: UseTarget::Block(BlockPos::new(x, y, z)),
    })
}

/// An entity took `amount` hundredths of a health point of damage of `cause` (an id of the
/// damage-cause palette, 0 for unknown), dealt by entity `source` if `has_source`.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_damage")]
pub fn damage(
    batch: &Batch,
    entity: u32,
    amount: u32,
    cause: u32,
    has_source: bool,
    source: u32,
) -> tickreel::Result<()> {
    batch.push_world(Event::Damage {
        entity,
        amount,
        cause,
        source: opt(has_source, source),
    })
}

/// An entity's health is now `health` hundredths of a health point (a Minecraft heart is 200).
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_health")]
pub fn health(batch: &Batch, entity: u32, health: u32) -> tickreel::Result<()> {
    batch.push_world(Event::Health { entity, health })
}

/// An entity's equipment in `slot` (`TICKREEL_SLOT_*`, or the game's own up to 255) is now
/// `count` of `item` (an id of the item palette, 0 for nothing).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a slot above 255.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_equipment")]
pub fn equipment(
    batch: &Batch,
    entity: u32,
    slot: u32,
    item: u32,
    count: u32,
) -> tickreel::Result<()> {
    let slot = u8::try_from(slot)
        .map_err(|_| tickreel::Error::invalid(format!("equipment slot {slot}; at most 255")))?;
    batch.push_world(Event::Equipment {
        entity,
        slot,
        item,
        count,
    })
}

/// A chat line: its `text` (NUL-terminated UTF-8, at most 4096 bytes), its `channel`
/// (`TICKREEL_CHANNEL_*` or the game's own above them, treated as private) and its sender entity
/// if `has_sender`.
///
/// Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `text` is NULL, `TICKREEL_RESULT_INVALID_ARGUMENT`
/// if it is not UTF-8 or longer than 4096 bytes.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_chat")]
pub fn chat(
    batch: &Batch,
    has_sender: bool,
    sender: u32,
    channel: u32,
    text: &str,
) -> tickreel::Result<()> {
    batch.push_world(Event::Chat {
        sender: opt(has_sender, sender),
        channel,
        text: text.to_owned(),
    })
}

/// A game-specific event placed at entity `entity` (if `has_entity`) and/or at position (`x`,
/// `y`, `z`) in blocks (if `has_position`), so that a report's radius and a viewer can place it:
/// a registered `type_id` and `data_len` opaque bytes (copied; `data` may be NULL when
/// `data_len` is 0).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range position or data
/// over 1 MiB, `TICKREEL_RESULT_NULL_ARGUMENT` if `data` is NULL with a length.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[bridge_fn(c = "tickreel_batch_custom_at")]
#[allow(clippy::too_many_arguments)]
pub fn custom_at(
    batch: &Batch,
    type_id: u32,
    has_entity: bool,
    entity: u32,
    has_position: bool,
    x: f64,
    y: f64,
    z: f64,
    data: &[u8],
) -> tickreel::Result<()> {
    let position = if has_position {
        Some([
            check_position("x", x)?,
            check_position("y", y)?,
            check_position("z", z)?,
        ])
    } else {
        None
    };
    batch.push_world(Event::CustomAt {
        type_id,
        entity: opt(has_entity, entity),
        position: position.map(Box::new),
        data: data.to_vec(),
    })
}
