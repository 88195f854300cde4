//! The edited blocks as of a tick for the viewer (`GET /api/blocks?rec=R&tick=T`): the world the
//! core rebuilds at that tick ([`tickreel::play::Reader::world_at`]: the nearest snapshot's world and
//! the world events after it), so that a recording with more block changes than the page could
//! hold, or one that starts in the middle of a world (a shadow-play report, whose earlier edits
//! are in its first snapshot, not in its events), shows the blocks as they were. With them, the
//! block changes of the ticks just after `T`, so that the page follows a playback without asking
//! again at every tick: it applies them as the play position passes them (and undoes them going
//! back), and asks again once the position leaves the window they cover.
//!
//! The answer: `{"tick", "blocks": [[x, y, z, state]...], "count", "complete", "changes":
//! [[tick, x, y, z, state]...], "to", "limits"}`: `blocks` the edited blocks at `tick` that are
//! not air (in no particular order), `complete` false when the world before the chunks read is
//! unknown (see [`tickreel::play::WorldAt::complete`]), `changes` every block change of the ticks
//! `tick + 1 ..= to` in tick order (air included: a block removed), `to` the last tick they
//! cover.
//!
//! Bounds, from the server and never from the file: the world rebuilt is bounded by the core
//! (`Limits::max_world_blocks`, at most 256 chunks read); at most [`MAX_BLOCKS`] blocks are sent,
//! a world with more is a 413 answer that says so (nothing is cut silently: a world cut anywhere
//! would show holes that are not there); the changes cover at most [`MAX_CHANGE_TICKS`] ticks and
//! [`MAX_CHANGES`] rows, cut before the tick that would pass it.

use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tickreel::format::{Event, PaletteKind, WorldState};

use super::error::{ApiError, ApiResult};
use super::library::{Handle, label};
use super::terrain::is_air;

/// Most blocks in one answer (about 25 bytes each as JSON: 6.5 MB).
pub const MAX_BLOCKS: usize = 262_144;
/// Most ticks of changes after the tick asked for (5 minutes at 20 ticks a second).
pub const MAX_CHANGE_TICKS: u32 = 6_000;
/// Most block changes sent after the tick asked for.
pub const MAX_CHANGES: usize = 65_536;

#[derive(Debug, Deserialize)]
pub struct BlocksQuery {
    pub rec: String,
    /// The tick (clamped into the recording); without it, the recording's edits
    /// ([`super::info::Markers::blocks`]).
    pub tick: Option<u32>,
}

/// The answer for `tick`, as JSON bytes (blocking: rebuilds the world, reads the ticks after
/// it). Written from the rows directly, never as JSON values (which take about 160 bytes a
/// block where the rows take 16).
pub fn at(h: &Handle, tick: u32) -> ApiResult<Vec<u8>> {
    let view = h.rec.view();
    let r = view.reader();
    let what = label(&h.name);
    let w = r.world_at(tick).map_err(|e| ApiError::of(&what, e))?;
    let palette = &r.metadata().library.palette;
    let air = |state: u32| is_air(palette.name(PaletteKind::Block, state), state);
    let blocks = shown(&w.world, &air, MAX_BLOCKS).map_err(|n| {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "{what}: the world at tick {} holds {n} edited blocks, more than this server \
                 sends in one answer ({MAX_BLOCKS})",
                w.tick
            ),
        )
    })?;
    let (changes, to) = changes_after(r, w.tick, MAX_CHANGE_TICKS, MAX_CHANGES);
    #[derive(Serialize)]
    struct Answer<'a> {
        tick: u32,
        blocks: &'a [(i32, i32, i32, u32)],
        count: usize,
        complete: bool,
        changes: &'a [Change],
        to: u32,
        limits: Value,
    }
    serde_json::to_vec(&Answer {
        tick: w.tick,
        blocks: &blocks,
        count: blocks.len(),
        complete: w.complete,
        changes: &changes,
        to,
        limits: json!({"blocks": MAX_BLOCKS, "change_ticks": MAX_CHANGE_TICKS, "changes": MAX_CHANGES}),
    })
    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

/// The edited blocks of `world` that are not air, `[x, y, z, state]`, or (when there are more
/// than `max`) how many there are.
fn shown(
    world: &WorldState,
    air: &dyn Fn(u32) -> bool,
    max: usize,
) -> Result<Vec<(i32, i32, i32, u32)>, usize> {
    let n = world.blocks().filter(|&(_, s)| !air(s)).count();
    if n > max {
        return Err(n);
    }
    Ok(world
        .blocks()
        .filter(|&(_, s)| !air(s))
        .map(|(p, s)| (p.x, p.y, p.z, s))
        .collect())
}

/// A block change sent: tick, x, y, z, state.
type Change = (u32, i32, i32, i32, u32);

/// The block changes of the ticks after `tick`, at most `max_ticks` of them and `max_rows` rows
/// (a tick's changes are sent whole or not at all), and the last tick they cover. A damaged
/// chunk ends them before it. Reads the chunks' events only ([`tickreel::play::Reader::events`]).
fn changes_after(
    r: &tickreel::play::Reader,
    tick: u32,
    max_ticks: u32,
    max_rows: usize,
) -> (Vec<Change>, u32) {
    let Some(last) = r.last_tick() else {
        return (Vec::new(), tick);
    };
    let end = tick.saturating_add(max_ticks).min(last);
    let mut rows: Vec<Change> = Vec::new();
    let mut to = tick;
    if end > tick {
        let mut here: Vec<Change> = Vec::new();
        // the ticks read (a tick without a record has no change): all of them unless stopped
        let mut whole = true;
        for t in r.events(tick + 1, end) {
            let Ok(t) = t else {
                whole = false;
                break;
            };
            here.clear();
            for e in &t.events {
                match e {
                    Event::BlockChange { pos, state, .. } => {
                        here.push(row(t.tick, pos.x, pos.y, pos.z, *state))
                    }
                    Event::BlockChanges { blocks, .. } => {
                        for (pos, state) in blocks {
                            here.push(row(t.tick, pos.x, pos.y, pos.z, *state));
                        }
                    }
                    _ => {}
                }
            }
            if rows.len() + here.len() > max_rows {
                whole = false;
                break;
            }
            rows.append(&mut here);
            to = t.tick;
        }
        if whole {
            to = end;
        }
    }
    (rows, to)
}

fn row(tick: u32, x: i32, y: i32, z: i32, state: u32) -> Change {
    (tick, x, y, z, state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tickreel::format::BlockPos;

    fn place(w: &mut WorldState, x: i32, state: u32) {
        w.apply(&Event::BlockChange {
            pos: BlockPos::new(x, 64, 0),
            state,
            cause: None,
            block_entity: None,
        });
    }

    #[test]
    fn air_left_out_and_bounded() {
        let mut w = WorldState::new();
        for x in 0..5 {
            place(&mut w, x, 1);
        }
        // one of them dug out again (air), one never there but set to air
        place(&mut w, 2, 0);
        place(&mut w, 9, 0);
        let air = |s: u32| s == 0;
        let mut got = shown(&w, &air, 4).unwrap();
        got.sort_unstable();
        assert_eq!(
            got,
            vec![(0, 64, 0, 1), (1, 64, 0, 1), (3, 64, 0, 1), (4, 64, 0, 1)]
        );
        // past the bound: how many, not a part of them
        assert_eq!(shown(&w, &air, 3), Err(4));
    }
}
