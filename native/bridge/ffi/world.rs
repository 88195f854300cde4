//! World events in C: the constants of their fields (kinds, hands, slots, chat channels, palette
//! kinds), the block of a multi-block change, and the typed event a C caller reads instead of
//! parsing the tick batch encoding (the operations are `crate::api::events` and the world
//! functions of `crate::api::batch`, whose entry points are generated).

use super::convert::{CArg, CResult};
use super::result::FfiResult;
use crate::api::events::EventView;
pub use crate::shared::block_state::TickreelBlockState;
use tickreel::format::{
    ANGLE_UNITS_PER_TURN, Event, POS_SCALE, UseTarget, VEL_SCALE, channel, hand, kind, slot,
    world_kind,
};

/// Decoded events. Opaque: create with `tickreel_events_decode`, release with
/// `tickreel_events_free`. The pointer is a handle, not an address: never dereference it.
pub struct TickreelEvents {
    _private: [u8; 0],
}

/// One event of a recorded tick, typed (`tickreel_events_get`): `kind` says which fields mean
/// something; the others are 0, false or NULL. Pointers point into the `TickreelEvents` it came
/// from and stay valid until that handle is freed.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TickreelEvent {
    /// The tick it happened at.
    pub tick: u32,
    /// What it is: a `TICKREEL_EVENT_*` value (the kind byte of the format). A kind this build
    /// does not understand (`0x4A..=0x7F`) carries its bytes in `data`.
    pub kind: u32,
    /// `entity` is set.
    pub has_entity: bool,
    /// The entity the event belongs to: the moved, added or removed entity; the block change's
    /// cause; who swung, attacked, used, was damaged; whose health or equipment; the chat's
    /// sender; the entity a custom event is placed at.
    pub entity: u32,
    /// `other` is set.
    pub has_other: bool,
    /// The other entity: the attack's target, the entity a use aimed at, the damage's source.
    pub other: u32,
    /// `x`, `y`, `z` are set: a position in blocks (entity add, pose, position, teleport, custom
    /// event placed at a position), or a velocity in blocks per tick (velocity).
    pub has_position: bool,
    /// X in blocks (or blocks per tick).
    pub x: f64,
    /// Y in blocks (or blocks per tick).
    pub y: f64,
    /// Z in blocks (or blocks per tick).
    pub z: f64,
    /// `yaw`, `pitch` are set (entity add, pose, rotation, teleport).
    pub has_rotation: bool,
    /// Yaw in degrees, unbounded.
    pub yaw: f64,
    /// Pitch in degrees.
    pub pitch: f64,
    /// `block` is set: the changed block (block change), the block a use aimed at, the first
    /// block of a multi-block change.
    pub has_block: bool,
    /// The block's position and, for a block change, its new state.
    pub block: TickreelBlockState,
    /// The entity's game-defined kind (entity add).
    pub entity_kind: u32,
    /// The flags value (flags).
    pub flags: u32,
    /// The checkpoint index (checkpoint).
    pub index: u32,
    /// The registered custom event type (custom, custom at).
    pub type_id: u32,
    /// The hand (`TICKREEL_HAND_*`: swing, use).
    pub hand: u32,
    /// The item: an id of the item palette, 0 for none (use, equipment).
    pub item: u32,
    /// The equipment slot (`TICKREEL_SLOT_*` or the game's own above them).
    pub slot: u32,
    /// How many items (equipment).
    pub count: u32,
    /// Damage in hundredths of a health point (damage).
    pub amount: u32,
    /// The damage's cause: an id of the damage-cause palette, 0 for unknown (damage).
    pub cause: u32,
    /// Health in hundredths of a health point (health).
    pub health: u32,
    /// The chat channel (`TICKREEL_CHANNEL_*` or the game's own above them).
    pub channel: u32,
    /// `data` is set (it may still be empty): the chat text (UTF-8, not NUL-terminated), the
    /// block entity's NBT (a block change that has one), the custom payload, the bytes of a kind
    /// this build does not understand.
    pub has_data: bool,
    /// The bytes (NULL when `data_len` is 0).
    pub data: *const u8,
    /// Their length.
    pub data_len: usize,
    /// The blocks of a multi-block change (NULL when `block_count` is 0).
    pub blocks: *const TickreelBlockState,
    /// Their number.
    pub block_count: usize,
}

/// `TickreelEvent.kind`: an entity appeared.
pub const TICKREEL_EVENT_ENTITY_ADD: u32 = 0x01;
/// An entity disappeared.
pub const TICKREEL_EVENT_ENTITY_REMOVE: u32 = 0x02;
/// An entity's absolute pose.
pub const TICKREEL_EVENT_POSE: u32 = 0x03;
/// An entity's position (as written; readers see poses).
pub const TICKREEL_EVENT_POSITION: u32 = 0x04;
/// An entity's rotation (as written; readers see poses).
pub const TICKREEL_EVENT_ROTATION: u32 = 0x05;
/// A teleport.
pub const TICKREEL_EVENT_TELEPORT: u32 = 0x06;
/// An entity's flags.
pub const TICKREEL_EVENT_FLAGS: u32 = 0x07;
/// A checkpoint reached.
pub const TICKREEL_EVENT_CHECKPOINT: u32 = 0x08;
/// An entity's velocity.
pub const TICKREEL_EVENT_VELOCITY: u32 = 0x09;
/// A player left.
pub const TICKREEL_EVENT_PLAYER_LEAVE: u32 = 0x0A;
/// A block changed.
pub const TICKREEL_EVENT_BLOCK_CHANGE: u32 = 0x40;
/// Many blocks changed at once.
pub const TICKREEL_EVENT_BLOCK_CHANGES: u32 = 0x41;
/// An entity swung a hand.
pub const TICKREEL_EVENT_SWING: u32 = 0x42;
/// An entity attacked another.
pub const TICKREEL_EVENT_ATTACK: u32 = 0x43;
/// An entity used an item.
pub const TICKREEL_EVENT_USE: u32 = 0x44;
/// An entity took damage.
pub const TICKREEL_EVENT_DAMAGE: u32 = 0x45;
/// An entity's health.
pub const TICKREEL_EVENT_HEALTH: u32 = 0x46;
/// An entity's equipment in a slot.
pub const TICKREEL_EVENT_EQUIPMENT: u32 = 0x47;
/// A chat line.
pub const TICKREEL_EVENT_CHAT: u32 = 0x48;
/// A custom event placed at an entity and/or a position.
pub const TICKREEL_EVENT_CUSTOM_AT: u32 = 0x49;
/// A custom event.
pub const TICKREEL_EVENT_CUSTOM: u32 = 0x80;

/// The main hand.
pub const TICKREEL_HAND_MAIN: u32 = 0;
/// The off hand.
pub const TICKREEL_HAND_OFF: u32 = 1;

/// Equipment slot: main hand (values above `TICKREEL_SLOT_BODY` up to 255 are the game's own).
pub const TICKREEL_SLOT_MAIN_HAND: u32 = 0;
/// Equipment slot: off hand.
pub const TICKREEL_SLOT_OFF_HAND: u32 = 1;
/// Equipment slot: feet.
pub const TICKREEL_SLOT_FEET: u32 = 2;
/// Equipment slot: legs.
pub const TICKREEL_SLOT_LEGS: u32 = 3;
/// Equipment slot: chest.
pub const TICKREEL_SLOT_CHEST: u32 = 4;
/// Equipment slot: head.
pub const TICKREEL_SLOT_HEAD: u32 = 5;
/// Equipment slot: body (a horse's armour).
pub const TICKREEL_SLOT_BODY: u32 = 6;

/// Chat channel: public chat everyone sees (values above `TICKREEL_CHANNEL_SYSTEM` are the
/// game's own, treated as private).
pub const TICKREEL_CHANNEL_PUBLIC: u32 = 0;
/// Chat channel: to one player or a few (whispers, party chat).
pub const TICKREEL_CHANNEL_PRIVATE: u32 = 1;
/// Chat channel: a team's chat.
pub const TICKREEL_CHANNEL_TEAM: u32 = 2;
/// Chat channel: the server's messages.
pub const TICKREEL_CHANNEL_SYSTEM: u32 = 3;

/// Palette kind (`tickreel_recorder_register_name`, `tickreel_reader_palette_name`): block states.
pub const TICKREEL_PALETTE_BLOCK: u32 = 0;
/// Palette kind: items.
pub const TICKREEL_PALETTE_ITEM: u32 = 1;
/// Palette kind: damage causes.
pub const TICKREEL_PALETTE_DAMAGE_CAUSE: u32 = 2;

/// Blocks the caller lends for the call (a multi-block change), read in place.
pub(crate) struct CBlocks {
    ptr: *const TickreelBlockState,
    len: usize,
}

impl std::ops::Deref for CBlocks {
    type Target = [TickreelBlockState];
    fn deref(&self) -> &[TickreelBlockState] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: checked by `args::array` (non-NULL, aligned, size within `isize`) when built,
        // and the caller guarantees `len` readable blocks until the entry point returns; a
        // `CBlocks` never outlives the entry point that built it.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl CArg for &'static [TickreelBlockState] {
    type C = (*const TickreelBlockState, usize);
    type Stored = CBlocks;
    unsafe fn store(
        (ptr, len): (*const TickreelBlockState, usize),
        name: &'static str,
    ) -> FfiResult<CBlocks> {
        // SAFETY: forwarded contract: `len` readable blocks at `ptr`, or `len` 0.
        let checked = unsafe { super::args::array(ptr, len, name) }?;
        Ok(CBlocks {
            ptr: checked.as_ptr(),
            len,
        })
    }
}

const NO_EVENT: TickreelEvent = TickreelEvent {
    tick: 0,
    kind: 0,
    has_entity: false,
    entity: 0,
    has_other: false,
    other: 0,
    has_position: false,
    x: 0.0,
    y: 0.0,
    z: 0.0,
    has_rotation: false,
    yaw: 0.0,
    pitch: 0.0,
    has_block: false,
    block: TickreelBlockState {
        x: 0,
        y: 0,
        z: 0,
        state: 0,
    },
    entity_kind: 0,
    flags: 0,
    index: 0,
    type_id: 0,
    hand: 0,
    item: 0,
    slot: 0,
    count: 0,
    amount: 0,
    cause: 0,
    health: 0,
    channel: 0,
    has_data: false,
    data: std::ptr::null(),
    data_len: 0,
    blocks: std::ptr::null(),
    block_count: 0,
};

fn deg(units: i64) -> f64 {
    units as f64 * 360.0 / ANGLE_UNITS_PER_TURN
}

/// The C form of one decoded event; its pointers point into `view`'s storage.
pub(crate) fn event(view: &EventView<'_>) -> TickreelEvent {
    let mut c = TickreelEvent {
        tick: view.tick,
        kind: u32::from(view.event.kind()),
        ..NO_EVENT
    };
    if let Some(e) = view.event.entity() {
        (c.has_entity, c.entity) = (true, e);
    }
    if let Some(o) = view.event.other_entity() {
        (c.has_other, c.other) = (true, o);
    }
    let pose = |c: &mut TickreelEvent, p: &tickreel::format::Pose| {
        (c.has_position, c.x, c.y, c.z) = (true, p.x_f64(), p.y_f64(), p.z_f64());
        (c.has_rotation, c.yaw, c.pitch) = (true, p.yaw_deg(), p.pitch_deg());
    };
    let data = |c: &mut TickreelEvent, d: &[u8]| {
        c.has_data = true;
        c.data_len = d.len();
        c.data = if d.is_empty() {
            std::ptr::null()
        } else {
            d.as_ptr()
        };
    };
    let block = |c: &mut TickreelEvent, p: tickreel::format::BlockPos, state: u32| {
        c.has_block = true;
        c.block = TickreelBlockState {
            x: p.x,
            y: p.y,
            z: p.z,
            state,
        };
    };
    match view.event {
        Event::EntityAdd { kind, pose: p, .. } => {
            c.entity_kind = *kind;
            pose(&mut c, p);
        }
        Event::Pose { pose: p, .. } | Event::Teleport { pose: p, .. } => pose(&mut c, p),
        Event::Position { x, y, z, .. } => {
            (c.has_position, c.x, c.y, c.z) = (
                true,
                *x as f64 / POS_SCALE,
                *y as f64 / POS_SCALE,
                *z as f64 / POS_SCALE,
            );
        }
        Event::Rotation { yaw, pitch, .. } => {
            (c.has_rotation, c.yaw, c.pitch) = (true, deg(*yaw), deg(*pitch));
        }
        Event::Velocity { x, y, z, .. } => {
            (c.has_position, c.x, c.y, c.z) = (
                true,
                *x as f64 / VEL_SCALE,
                *y as f64 / VEL_SCALE,
                *z as f64 / VEL_SCALE,
            );
        }
        Event::Flags { flags, .. } => c.flags = *flags,
        Event::Checkpoint { index, .. } => c.index = *index,
        Event::EntityRemove { .. } | Event::PlayerLeave { .. } => {}
        Event::Custom { type_id, data: d } => {
            c.type_id = *type_id;
            data(&mut c, d);
        }
        Event::Extension { data: d, .. } => data(&mut c, d),
        Event::BlockChange {
            pos,
            state,
            block_entity,
            ..
        } => {
            block(&mut c, *pos, *state);
            if let Some(nbt) = block_entity {
                data(&mut c, nbt);
            }
        }
        Event::BlockChanges { blocks, .. } => {
            if let Some(&(p, s)) = blocks.first() {
                block(&mut c, p, s);
            }
            c.block_count = view.blocks.len();
            if !view.blocks.is_empty() {
                c.blocks = view.blocks.as_ptr();
            }
        }
        Event::Swing { hand, .. } => c.hand = u32::from(*hand),
        Event::Attack { .. } => {}
        Event::Use {
            hand, item, target, ..
        } => {
            c.hand = u32::from(*hand);
            c.item = *item;
            if let UseTarget::Block(p) = target {
                block(&mut c, *p, 0);
            }
        }
        Event::Damage { amount, cause, .. } => {
            c.amount = *amount;
            c.cause = *cause;
        }
        Event::Health { health, .. } => c.health = *health,
        Event::Equipment {
            slot, item, count, ..
        } => {
            c.slot = u32::from(*slot);
            c.item = *item;
            c.count = *count;
        }
        Event::Chat { channel, text, .. } => {
            c.channel = *channel;
            data(&mut c, text.as_bytes());
        }
        Event::CustomAt {
            type_id,
            position,
            data: d,
            ..
        } => {
            c.type_id = *type_id;
            if let Some([x, y, z]) = position.as_deref() {
                (c.has_position, c.x, c.y, c.z) = (
                    true,
                    *x as f64 / POS_SCALE,
                    *y as f64 / POS_SCALE,
                    *z as f64 / POS_SCALE,
                );
            }
            data(&mut c, d);
        }
    }
    c
}

impl CResult for EventView<'_> {
    type C = TickreelEvent;
    fn into_c(self) -> FfiResult<TickreelEvent> {
        Ok(event(&self))
    }
}

/// Checks at compile time that the C constants are the format's values.
const _: () = {
    assert!(TICKREEL_EVENT_ENTITY_ADD == kind::ENTITY_ADD as u32);
    assert!(TICKREEL_EVENT_PLAYER_LEAVE == kind::PLAYER_LEAVE as u32);
    assert!(TICKREEL_EVENT_CUSTOM == kind::CUSTOM as u32);
    assert!(TICKREEL_EVENT_BLOCK_CHANGE == world_kind::BLOCK_CHANGE as u32);
    assert!(TICKREEL_EVENT_BLOCK_CHANGES == world_kind::BLOCK_CHANGES as u32);
    assert!(TICKREEL_EVENT_SWING == world_kind::SWING as u32);
    assert!(TICKREEL_EVENT_ATTACK == world_kind::ATTACK as u32);
    assert!(TICKREEL_EVENT_USE == world_kind::USE as u32);
    assert!(TICKREEL_EVENT_DAMAGE == world_kind::DAMAGE as u32);
    assert!(TICKREEL_EVENT_HEALTH == world_kind::HEALTH as u32);
    assert!(TICKREEL_EVENT_EQUIPMENT == world_kind::EQUIPMENT as u32);
    assert!(TICKREEL_EVENT_CHAT == world_kind::CHAT as u32);
    assert!(TICKREEL_EVENT_CUSTOM_AT == world_kind::CUSTOM_AT as u32);
    assert!(TICKREEL_HAND_MAIN == hand::MAIN as u32);
    assert!(TICKREEL_HAND_OFF == hand::OFF as u32);
    assert!(TICKREEL_SLOT_MAIN_HAND == slot::MAIN_HAND as u32);
    assert!(TICKREEL_SLOT_OFF_HAND == slot::OFF_HAND as u32);
    assert!(TICKREEL_SLOT_FEET == slot::FEET as u32);
    assert!(TICKREEL_SLOT_LEGS == slot::LEGS as u32);
    assert!(TICKREEL_SLOT_CHEST == slot::CHEST as u32);
    assert!(TICKREEL_SLOT_HEAD == slot::HEAD as u32);
    assert!(TICKREEL_SLOT_BODY == slot::BODY as u32);
    assert!(TICKREEL_CHANNEL_PUBLIC == channel::PUBLIC);
    assert!(TICKREEL_CHANNEL_PRIVATE == channel::PRIVATE);
    assert!(TICKREEL_CHANNEL_TEAM == channel::TEAM);
    assert!(TICKREEL_CHANNEL_SYSTEM == channel::SYSTEM);
};

/// The palette kind codes are the core's (`PaletteKind::from_code`).
#[cfg(test)]
#[test]
fn palette_codes_match_the_core() {
    use tickreel::format::PaletteKind;
    assert_eq!(
        PaletteKind::from_code(TICKREEL_PALETTE_BLOCK).unwrap(),
        PaletteKind::Block
    );
    assert_eq!(
        PaletteKind::from_code(TICKREEL_PALETTE_ITEM).unwrap(),
        PaletteKind::Item
    );
    assert_eq!(
        PaletteKind::from_code(TICKREEL_PALETTE_DAMAGE_CAUSE).unwrap(),
        PaletteKind::DamageCause
    );
    assert!(PaletteKind::from_code(3).is_err());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::batch::*;
    use crate::ffi::generated::events::*;
    use crate::ffi::result::TickreelResult;
    use tickreel::format::{BlockPos, decode_batch};

    const OK: TickreelResult = TickreelResult::Ok;

    fn batch_bytes(b: *mut crate::ffi::TickreelBatch) -> Vec<u8> {
        let mut len = 0;
        // SAFETY: a length query (NULL, capacity 0), then a buffer of that length.
        unsafe {
            tickreel_batch_bytes(b, std::ptr::null_mut(), 0, &mut len);
            let mut buf = vec![0u8; len];
            assert_eq!(tickreel_batch_bytes(b, buf.as_mut_ptr(), len, &mut len), OK);
            buf
        }
    }

    /// Every world batch function writes the core's encoding of its event, and the typed events
    /// read them back field by field.
    #[test]
    fn world_batch_functions_encode_as_the_core_and_decode_typed() {
        let mut b = std::ptr::null_mut();
        // SAFETY: `b` is writable.
        assert_eq!(unsafe { tickreel_batch_new(&mut b) }, OK);
        let nbt = [10u8, 0, 0, 0];
        let blocks = [
            TickreelBlockState {
                x: 1,
                y: 2,
                z: 3,
                state: 4,
            },
            TickreelBlockState {
                x: -1,
                y: 2,
                z: 3,
                state: 0,
            },
        ];
        // SAFETY: every pointer is valid for its length.
        unsafe {
            assert_eq!(
                tickreel_batch_block_change(b, 1, -2, 3, 9, true, 7, nbt.as_ptr(), nbt.len()),
                OK
            );
            assert_eq!(
                tickreel_batch_block_changes(b, false, 0, blocks.as_ptr(), blocks.len()),
                OK
            );
            assert_eq!(tickreel_batch_chat(b, false, 0, 3, c"hi".as_ptr()), OK);
            assert_eq!(
                tickreel_batch_custom_at(b, 5, true, 2, false, 0.0, 0.0, 0.0, std::ptr::null(), 0),
                OK
            );
        }
        assert_eq!(tickreel_batch_swing(b, 1, TICKREEL_HAND_OFF), OK);
        assert_eq!(tickreel_batch_attack(b, 1, 2), OK);
        assert_eq!(tickreel_batch_use_on_block(b, 1, 0, 6, 4, 5, 6), OK);
        assert_eq!(tickreel_batch_damage(b, 2, 150, 3, false, 0), OK);
        assert_eq!(tickreel_batch_health(b, 2, 1850), OK);
        assert_eq!(tickreel_batch_equipment(b, 1, 5, 8, 1), OK);
        assert_eq!(
            tickreel_batch_swing(b, 1, 2),
            TickreelResult::InvalidArgument
        );
        let expected = vec![
            Event::BlockChange {
                pos: BlockPos::new(1, -2, 3),
                state: 9,
                cause: Some(7),
                block_entity: Some(nbt.to_vec()),
            },
            Event::BlockChanges {
                cause: None,
                blocks: vec![(BlockPos::new(1, 2, 3), 4), (BlockPos::new(-1, 2, 3), 0)],
            },
            Event::Chat {
                sender: None,
                channel: 3,
                text: "hi".into(),
            },
            Event::CustomAt {
                type_id: 5,
                entity: Some(2),
                position: None,
                data: vec![],
            },
            Event::Swing { entity: 1, hand: 1 },
            Event::Attack {
                attacker: 1,
                target: 2,
            },
            Event::Use {
                entity: 1,
                hand: 0,
                item: 6,
                target: UseTarget::Block(BlockPos::new(4, 5, 6)),
            },
            Event::Damage {
                entity: 2,
                amount: 150,
                cause: 3,
                source: None,
            },
            Event::Health {
                entity: 2,
                health: 1850,
            },
            Event::Equipment {
                entity: 1,
                slot: 5,
                item: 8,
                count: 1,
            },
        ];
        let bytes = batch_bytes(b);
        assert_eq!(decode_batch(&bytes).unwrap(), expected);
        assert_eq!(crate::ffi::batch::tickreel_batch_free(b), OK);

        // As a tick of the ticks format, decoded into typed events.
        let mut ticks = Vec::new();
        crate::api::encode_ticks([(42, expected.as_slice())], &mut ticks).unwrap();
        let mut h = std::ptr::null_mut();
        // SAFETY: `ticks` is readable, `h` writable.
        assert_eq!(
            unsafe { tickreel_events_decode(ticks.as_ptr(), ticks.len(), &mut h) },
            OK
        );
        let get = |i: usize| {
            let mut e = std::mem::MaybeUninit::<TickreelEvent>::uninit();
            // SAFETY: `e` is writable storage for one event.
            assert_eq!(unsafe { tickreel_events_get(h, i, e.as_mut_ptr()) }, OK);
            // SAFETY: written by the call above.
            unsafe { e.assume_init() }
        };
        let e = get(0);
        assert_eq!(
            (e.tick, e.kind, e.has_entity, e.entity, e.block, e.data_len),
            (
                42,
                TICKREEL_EVENT_BLOCK_CHANGE,
                true,
                7,
                TickreelBlockState {
                    x: 1,
                    y: -2,
                    z: 3,
                    state: 9
                },
                4
            )
        );
        let e = get(1);
        // SAFETY: `blocks` points at `block_count` blocks owned by the live handle.
        let got = unsafe { std::slice::from_raw_parts(e.blocks, e.block_count) };
        assert_eq!(got, &blocks);
        let e = get(2);
        assert_eq!(
            (e.kind, e.has_entity, e.channel),
            (TICKREEL_EVENT_CHAT, false, 3)
        );
        // SAFETY: `data` points at `data_len` bytes owned by the live handle.
        assert_eq!(
            unsafe { std::slice::from_raw_parts(e.data, e.data_len) },
            b"hi"
        );
        let e = get(7);
        assert_eq!(
            (e.kind, e.entity, e.amount, e.cause, e.has_other),
            (TICKREEL_EVENT_DAMAGE, 2, 150, 3, false)
        );
        let mut e = std::mem::MaybeUninit::<TickreelEvent>::uninit();
        // SAFETY: `e` is writable.
        let past = unsafe { tickreel_events_get(h, 10, e.as_mut_ptr()) };
        assert_eq!(past, TickreelResult::InvalidArgument);
        assert_eq!(tickreel_events_free(h), OK);
        assert_eq!(tickreel_events_free(h), TickreelResult::InvalidHandle);
    }
}
