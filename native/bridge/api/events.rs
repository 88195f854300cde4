//! Decoded events for C (`TickreelEvents`): the ticks that `tickreel_playhead_ticks`,
//! `tickreel_playhead_rebuild_events` and `tickreel_reader_ticks` return, decoded by the core into
//! typed events (`TickreelEvent`), so that a C caller never parses the tick batch encoding.

use crate::api::{New, Released};
use crate::shared::block_state::TickreelBlockState;
use crate::shared::handle::HandleType;
use tickreel::format::{
    ANGLE_UNITS_PER_TURN, BlockPos, Event, POS_SCALE, Pose, UseTarget, VEL_SCALE,
};
use tickreel_bridge_macros::{bridge_fn, bridge_struct};

/// Most events one decode holds (a caller's buffer is untrusted: 16 ticks at the per-tick limit).
const MAX_DECODED_EVENTS: usize = 1 << 20;

/// Events decoded from ticks, each with its tick, and the blocks of multi-block changes laid out
/// for C (`blocks[i]` for event `i`, empty for other kinds). Never changes once made, so the
/// pointers C reads into it stay valid until the handle is freed.
pub struct Events {
    events: Vec<(u32, Event)>,
    blocks: Vec<Vec<TickreelBlockState>>,
}

impl HandleType for Events {
    const TAG: u8 = 17;
    const NAME: &'static str = "events";
}

/// One event of a recorded tick, typed (`tickreel_events_get`): `kind` says which fields mean
/// something; the others are 0, false or NULL. Pointers point into the `TickreelEvents` it came
/// from and stay valid until that handle is freed.
#[bridge_struct(c = "TickreelEvent", what = "events")]
#[derive(Debug, Clone, Default)]
pub struct EventRecord<'a> {
    /// The tick it happened at.
    pub tick: u32,
    /// What it is: a `TICKREEL_EVENT_*` value (the kind byte of the format). A kind this build
    /// does not understand (`0x4A..=0x7F`) carries its bytes in `data`.
    pub kind: u32,
    /// The entity the event belongs to: the moved, added or removed entity; the block change's
    /// cause; who swung, attacked, used, was damaged; whose health or equipment; the chat's
    /// sender; the entity a custom event is placed at.
    pub entity: Option<u32>,
    /// The other entity: the attack's target, the entity a use aimed at, the damage's source.
    pub other: Option<u32>,
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
    pub data: &'a [u8],
    /// The blocks of a multi-block change (NULL when `block_count` is 0).
    pub blocks: &'a [TickreelBlockState],
}

impl<'a> EventRecord<'a> {
    /// The fields of `event` (recorded at `tick`; `blocks` its blocks, if it changes several),
    /// positions in blocks and angles in degrees.
    fn of(tick: u32, event: &'a Event, blocks: &'a [TickreelBlockState]) -> EventRecord<'a> {
        let mut r = EventRecord {
            tick,
            kind: u32::from(event.kind()),
            entity: event.entity(),
            other: event.other_entity(),
            ..EventRecord::default()
        };
        let xyz = |r: &mut EventRecord, [x, y, z]: [i64; 3], scale: f64| {
            (r.has_position, r.x, r.y, r.z) =
                (true, x as f64 / scale, y as f64 / scale, z as f64 / scale);
        };
        let pose = |r: &mut EventRecord, p: &Pose| {
            (r.has_position, r.x, r.y, r.z) = (true, p.x_f64(), p.y_f64(), p.z_f64());
            (r.has_rotation, r.yaw, r.pitch) = (true, p.yaw_deg(), p.pitch_deg());
        };
        let block = |r: &mut EventRecord, p: BlockPos, state: u32| {
            let (x, y, z) = (p.x, p.y, p.z);
            (r.has_block, r.block) = (true, TickreelBlockState { x, y, z, state });
        };
        let deg = |units: i64| units as f64 * 360.0 / ANGLE_UNITS_PER_TURN;
        match event {
            Event::EntityAdd { kind, pose: p, .. } => {
                r.entity_kind = *kind;
                pose(&mut r, p);
            }
            Event::Pose { pose: p, .. } | Event::Teleport { pose: p, .. } => pose(&mut r, p),
            Event::Position { x, y, z, .. } => xyz(&mut r, [*x, *y, *z], POS_SCALE),
            Event::Rotation { yaw, pitch, .. } => {
                (r.has_rotation, r.yaw, r.pitch) = (true, deg(*yaw), deg(*pitch));
            }
            Event::Velocity { x, y, z, .. } => xyz(&mut r, [*x, *y, *z], VEL_SCALE),
            Event::Flags { flags, .. } => r.flags = *flags,
            Event::Checkpoint { index, .. } => r.index = *index,
            Event::EntityRemove { .. } | Event::PlayerLeave { .. } | Event::Attack { .. } => {}
            Event::Custom { type_id, data } => {
                (r.type_id, r.has_data, r.data) = (*type_id, true, data)
            }
            Event::Extension { data, .. } => (r.has_data, r.data) = (true, data),
            Event::BlockChange {
                pos,
                state,
                block_entity,
                ..
            } => {
                block(&mut r, *pos, *state);
                if let Some(nbt) = block_entity {
                    (r.has_data, r.data) = (true, nbt);
                }
            }
            Event::BlockChanges { blocks: b, .. } => {
                if let Some(&(p, s)) = b.first() {
                    block(&mut r, p, s);
                }
                r.blocks = blocks;
            }
            Event::Swing { hand, .. } => r.hand = u32::from(*hand),
            Event::Use {
                hand, item, target, ..
            } => {
                (r.hand, r.item) = (u32::from(*hand), *item);
                if let UseTarget::Block(p) = target {
                    block(&mut r, *p, 0);
                }
            }
            Event::Damage { amount, cause, .. } => (r.amount, r.cause) = (*amount, *cause),
            Event::Health { health, .. } => r.health = *health,
            Event::Equipment {
                slot, item, count, ..
            } => (r.slot, r.item, r.count) = (u32::from(*slot), *item, *count),
            Event::Chat { channel, text, .. } => {
                (r.channel, r.has_data, r.data) = (*channel, true, text.as_bytes());
            }
            Event::CustomAt {
                type_id,
                position,
                data,
                ..
            } => {
                (r.type_id, r.has_data, r.data) = (*type_id, true, data);
                if let Some(p) = position.as_deref() {
                    xyz(&mut r, *p, POS_SCALE);
                }
            }
        }
        r
    }
}

/// Splits the ticks format (per tick: `u32` BE tick, `u32` BE length, that many bytes of its
/// batch) into its ticks and decodes each batch with the core.
fn decode(bytes: &[u8]) -> tickreel::Result<Vec<(u32, Event)>> {
    let corrupt = |m: String| tickreel::Error::corrupt(format!("ticks: {m}"));
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let Some((head, body)) = rest.split_at_checked(8) else {
            return Err(corrupt(format!(
                "{} bytes where a tick header is",
                rest.len()
            )));
        };
        let tick = u32::from_be_bytes(head[..4].try_into().expect("4 bytes"));
        let len = u32::from_be_bytes(head[4..].try_into().expect("4 bytes")) as usize;
        let Some((batch, next)) = body.split_at_checked(len) else {
            return Err(corrupt(format!(
                "tick {tick} claims {len} bytes, {} are left",
                body.len()
            )));
        };
        // The core refuses a malformed batch as an invalid argument (it checks what a game
        // submits); here the bytes claim to be what the library returned: corrupt.
        let events = tickreel::format::decode_batch(batch)
            .map_err(|e| corrupt(format!("tick {tick}: {e}")))?;
        if out.len() + events.len() > MAX_DECODED_EVENTS {
            return Err(tickreel::Error::limit(format!(
                "more than {MAX_DECODED_EVENTS} events in one decode"
            )));
        }
        out.extend(events.into_iter().map(|e| (tick, e)));
        rest = next;
    }
    Ok(out)
}

/// Decodes ticks in the format of `tickreel_playhead_ticks`, `tickreel_playhead_rebuild_events` and
/// `tickreel_reader_ticks` (per tick a big-endian `uint32_t` tick, a big-endian `uint32_t` length,
/// then its events in the tick batch encoding) into typed events, and stores their handle in
/// `*out_events`. Read them with `tickreel_events_count` and `tickreel_events_get`; the bytes are
/// not kept (`buf` may be reused at once). `buf` may be NULL when `len` is 0 (no event).
///
/// Returns `TICKREEL_RESULT_CORRUPT` for bytes that are not in that format (an unknown kind, a
/// malformed event, a length past the end), `TICKREEL_RESULT_LIMIT_EXCEEDED` for more than
/// 1048576 events. On failure `*out_events` is set to NULL (when it can be written).
///
/// Thread safety: any thread. The handle may be read from any number of threads at once.
#[bridge_fn(c = "tickreel_events_decode", c_out = "out_events")]
pub fn decode_ticks(buf: &[u8]) -> tickreel::Result<New<Events>> {
    let events = decode(buf)?;
    let blocks = events
        .iter()
        .map(|(_, e)| match e {
            Event::BlockChanges { blocks, .. } => blocks
                .iter()
                .map(|&(p, state)| TickreelBlockState {
                    x: p.x,
                    y: p.y,
                    z: p.z,
                    state,
                })
                .collect(),
            _ => Vec::new(),
        })
        .collect();
    Ok(New(Events { events, blocks }))
}

/// Frees decoded events (the pointers of the `TickreelEvent`s read from them become invalid).
/// `tickreel_events_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed or invalid
/// handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread; a call on the same handle still running in another thread
/// finishes normally.
#[bridge_fn(c = "tickreel_events_free")]
pub fn free(_events: Released<Events>) {}

/// Stores the number of decoded events in `*out_count`.
///
/// Thread safety: any thread.
#[bridge_fn(c = "tickreel_events_count", c_out = "out_count")]
pub fn count(events: &Events) -> usize {
    events.events.len()
}

/// Stores event `index` (from 0, in the order recorded) in `*out_event`: its tick, its kind
/// (`TICKREEL_EVENT_*`) and its fields. Its pointers (`data`, `blocks`) point into `events` and
/// stay valid until `tickreel_events_free`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `index` is not below the count.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_events_get",
    c_out = "out_event",
    c_out_type = "TickreelEvent"
)]
pub fn get(events: &Events, index: usize) -> tickreel::Result<EventRecord<'_>> {
    let Some((tick, event)) = events.events.get(index) else {
        return Err(tickreel::Error::invalid(format!(
            "event {index} of {}",
            events.events.len()
        )));
    };
    Ok(EventRecord::of(*tick, event, &events.blocks[index]))
}
