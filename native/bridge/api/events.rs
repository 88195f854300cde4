//! Decoded events for C (`TickreelEvents`): the ticks that `tickreel_playhead_ticks`,
//! `tickreel_playhead_rebuild_events` and `tickreel_reader_ticks` return, decoded by the core into
//! typed events (`TickreelEvent`), so that a C caller never parses the tick batch encoding.

use crate::api::{New, Released};
use crate::shared::block_state::TickreelBlockState;
use crate::shared::handle::HandleType;
use tickreel::format::Event;
use tickreel_bridge_macros::bridge_fn;

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

/// One event of an [`Events`], with the C layout of its blocks.
pub struct EventView<'a> {
    pub(crate) tick: u32,
    pub(crate) event: &'a Event,
    pub(crate) blocks: &'a [TickreelBlockState],
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
pub fn get(events: &Events, index: usize) -> tickreel::Result<EventView<'_>> {
    let Some((tick, event)) = events.events.get(index) else {
        return Err(tickreel::Error::invalid(format!(
            "event {index} of {}",
            events.events.len()
        )));
    };
    Ok(EventView {
        tick: *tick,
        event,
        blocks: &events.blocks[index],
    })
}
