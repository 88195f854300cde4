//! A report's first pass: which entities came within the radius of the reported player, read
//! from each chunk's positions only (yaw and pitch are stepped over, and so are the y and z of
//! the tracks that the x, or x and z, of their samples already put out of the player's reach:
//! [`DecodedChunk::decode_positions_around`]), on two threads (each chunk stands alone: it
//! starts from its own keyframe). The decompressed payloads are kept, within a bound, for the
//! second pass.

use std::collections::HashSet;
use std::sync::Arc;

use rustc_hash::FxHashSet;

use crate::error::{Error, Result};
use crate::format::chunk::DecodedChunk;
use crate::format::event::Event;
use crate::format::frame::FrameHeader;
use crate::format::pose::{POS_SCALE, Pose};
use crate::format::state::{EntityTable, touched_entity};
use crate::play::Reader;
use crate::shadow::keep::position_given;

/// What the first pass over a report's chunks finds.
pub(super) struct Near {
    /// The entities that came within the radius of the player, the player included (`None`
    /// when the player is never alive in the report: everything is kept then).
    pub entities: Option<FxHashSet<u32>>,
    /// Per chunk, the senders of its chat lines in the report (sorted): whether a line is kept
    /// may depend on where its sender stands ([`crate::shadow::keep::Keeper`]), so their poses
    /// are followed there even when they are not kept ([`super::ticks::Followed`]).
    pub senders: Vec<Vec<u32>>,
    /// The senders of lines that have no position in their chunk before the line (no pose
    /// sample and no event giving one from the report's first tick on): where they stand then
    /// is read from an earlier chunk, so their poses are followed in every chunk.
    pub senders_everywhere: FxHashSet<u32>,
    /// Per chunk, per relative tick: whether any entity has a pose sample there.
    pub sampled: Vec<Vec<bool>>,
    /// The chunk columns (x, z) the player stood in: its keyframe entries and its pose samples
    /// from `first` to `last` (where the report's terrain is kept).
    pub columns: HashSet<(i32, i32)>,
    /// Per chunk, its decompressed payload if the pass kept it for the second one (at most
    /// [`KEPT_PAYLOAD_BYTES`] in all, first come first kept): that pass then decodes it
    /// without reading and decompressing the frame again.
    pub payloads: Vec<Option<(FrameHeader, Vec<u8>)>>,
}

/// The most bytes of decompressed payloads the first pass keeps for the second (half per
/// thread); the chunks past it are read again.
pub(super) const KEPT_PAYLOAD_BYTES: usize = 64 << 20;

/// What one chunk adds to [`Near`].
#[derive(Default)]
struct ChunkNear {
    near: Vec<u32>,
    /// The senders of the chunk's lines in the report, each with whether it has a position in
    /// the chunk before the line.
    senders: Vec<(u32, bool)>,
    seen_player: bool,
    sampled: Vec<bool>,
    columns: Vec<(i32, i32)>,
}

/// What the pass asks of every chunk.
#[derive(Clone, Copy)]
struct Ask {
    player: u32,
    first: u32,
    last: u32,
    /// The squared radius, in fixed point.
    r2: f64,
}

/// The entities that came within `radius` blocks of `player` at any tick of `first..=last`
/// ([`Near`]): the chunks are shared between this thread and a second one (every other chunk),
/// or all done here if that thread cannot be started.
pub(super) fn near_entities(
    reader: &Arc<Reader>,
    player: u32,
    first: u32,
    last: u32,
    radius: f64,
) -> Result<Near> {
    let r = radius * POS_SCALE;
    let ask = Ask {
        player,
        first,
        last,
        r2: r * r,
    };
    let n = reader.index().len();
    let (tx, rx) = crossbeam_channel::bounded(1);
    let other = reader.clone();
    // The second thread takes the odd chunks.
    let helper = if n > 1 {
        crate::threads::spawn("tickreel-report", move || {
            let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                chunks_near(&other, (1..n).step_by(2), ask, KEPT_PAYLOAD_BYTES / 2)
            }))
            .unwrap_or_else(|p| {
                let what = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                Err(Error::InvalidState(format!(
                    "internal error on a report's second thread: {what}"
                )))
            });
            let _ = tx.try_send(out);
        })
        .ok()
    } else {
        None
    };
    let (mine, keep): (Vec<usize>, usize) = match helper {
        Some(_) => ((0..n).step_by(2).collect(), KEPT_PAYLOAD_BYTES / 2),
        None => ((0..n).collect(), KEPT_PAYLOAD_BYTES),
    };
    let here = chunks_near(reader, mine.into_iter(), ask, keep);
    let there = match &helper {
        Some(_) => crate::threads::recv_until(&rx, None).unwrap_or_else(|_| {
            Err(Error::InvalidState(
                "a report's second thread ended without its answer".into(),
            ))
        }),
        None => Ok(Vec::new()),
    };
    if let Some(h) = helper {
        h.join();
    }
    let mut parts = here?;
    parts.extend(there?);
    parts.sort_unstable_by_key(|(i, _, _)| *i);

    let mut near = FxHashSet::default();
    near.insert(player);
    let mut out = Near {
        entities: None,
        senders: Vec::with_capacity(n),
        senders_everywhere: FxHashSet::default(),
        sampled: Vec::with_capacity(n),
        columns: HashSet::new(),
        payloads: Vec::with_capacity(n),
    };
    let mut seen_player = false;
    for (_, c, payload) in parts {
        out.payloads.push(payload);
        near.extend(c.near);
        let mut senders = Vec::with_capacity(c.senders.len());
        for (s, placed) in c.senders {
            senders.push(s);
            if !placed {
                out.senders_everywhere.insert(s);
            }
        }
        senders.sort_unstable();
        senders.dedup();
        out.senders.push(senders);
        seen_player |= c.seen_player;
        out.sampled.push(c.sampled);
        out.columns.extend(c.columns);
    }
    out.entities = seen_player.then_some(near);
    Ok(out)
}

/// A chunk's frame header and decompressed payload.
type Payload = (FrameHeader, Vec<u8>);

/// [`chunk_near`] of each of the chunks `which`, with their indices and their payloads while
/// they fit in `keep` bytes.
fn chunks_near(
    reader: &Reader,
    which: impl Iterator<Item = usize>,
    ask: Ask,
    keep: usize,
) -> Result<Vec<(usize, ChunkNear, Option<Payload>)>> {
    let mut scratch = Scratch::default();
    let mut out = Vec::new();
    let mut room = keep;
    for i in which {
        let (fh, payload) = reader.read_payload(i)?;
        // (the tracks out of the player's reach keep only what puts them out of it)
        let chunk = DecodedChunk::decode_positions_around(
            &payload,
            &fh,
            reader.limits(),
            ask.player,
            ask.r2,
        )?;
        let near = chunk_near(&chunk, ask, &mut scratch);
        let kept = (payload.len() <= room).then(|| {
            room -= payload.len();
            (fh, payload)
        });
        out.push((i, near, kept));
    }
    Ok(out)
}

/// Per thread, reused from chunk to chunk: candidate ids (sorted), the tick bucket offsets of
/// their samples and the samples (candidate index, position), the candidates that changed at a
/// tick (by index), and per candidate: whether it is alive, where it stands, whether it came
/// within the radius.
#[derive(Default)]
struct Scratch {
    candidates: Vec<u32>,
    offsets: Vec<u32>,
    samples: Vec<(u32, [i64; 3])>,
    moved: Vec<u32>,
    alive: Vec<bool>,
    at: Vec<[i64; 3]>,
    hit: Vec<bool>,
}

/// The chunk column (x, z) of a position.
fn column(p: &Pose) -> (i32, i32) {
    let c = |v: i64| ((v as f64 / POS_SCALE).floor() as i64 >> 4) as i32;
    (c(p.x), c(p.z))
}

/// What one chunk says ([`ChunkNear`]).
///
/// Walks the chunk's ticks in order on one entity table, checking a distance where it may have
/// changed: every entity after the player moved, else the entities that moved (from the first
/// tick with a change on). Only the chunk's candidates are followed: the entities whose
/// positions in the chunk (where they stand before its first tick and their pose samples) come
/// within the radius of the box around the player's, and those an event may move, add or remove
/// (`touched_entity`: an event may add an entity at the origin); no other one can be within the
/// radius at any tick of the chunk (an event that names an entity without moving it, a hit or a
/// chat line, leaves it where it was looked at).
fn chunk_near(chunk: &DecodedChunk, ask: Ask, s: &mut Scratch) -> ChunkNear {
    let Ask {
        player,
        first,
        last,
        r2,
    } = ask;
    let mut out = ChunkNear::default();
    let mut any = vec![false; chunk.tick_count as usize];
    for t in &chunk.tracks {
        for &rel in &t.ticks {
            any[rel as usize] = true;
        }
    }
    let track_of = |id: u32| {
        chunk
            .tracks
            .binary_search_by_key(&id, |t| t.entity)
            .ok()
            .map(|k| &chunk.tracks[k])
    };
    let rel_from = first.max(chunk.start_tick) - chunk.start_tick;
    let rel_to = last.saturating_sub(chunk.start_tick);
    let in_range = |rel: u32| rel >= rel_from && rel <= rel_to;
    // The player's columns in a chunk of the report.
    if chunk.start_tick <= last && chunk.end_tick() > u64::from(first) {
        out.columns.extend(
            chunk
                .keyframe
                .iter()
                .filter(|e| e.id == player)
                .map(|e| column(&e.pose)),
        );
        if let Some(t) = track_of(player) {
            for (&rel, pose) in t.ticks.iter().zip(&t.poses) {
                if in_range(rel) {
                    out.columns.push(column(pose));
                }
            }
        }
    }
    // The last relative tick of the chunk in the report (the chunks overlap the report).
    let hi = rel_to.min(chunk.tick_count.saturating_sub(1));
    if rel_from > hi {
        out.sampled = any;
        return out;
    }
    let mut table: EntityTable = if rel_from > 0 {
        chunk.state_at(chunk.start_tick + rel_from - 1)
    } else {
        chunk.keyframe.iter().copied().collect()
    };
    let records = &chunk.records;
    let r_lo = records.partition_point(|r| r.rel < rel_from);
    let r_hi = records.partition_point(|r| r.rel <= rel_to);
    let records = &records[r_lo..r_hi];

    // The box around the player's positions, and the candidates.
    let mut pbox = BoxOf::default();
    if let Some(e) = table.get(player) {
        pbox.add(&e.pose);
    }
    // (flags for an entity not in the table put it there, at the origin)
    if records.iter().any(|r| {
        r.events
            .iter()
            .any(|e| matches!(*e, Event::Flags { entity, .. } if entity == player))
    }) {
        pbox.add(&Pose::default());
    }
    if let Some(t) = track_of(player) {
        for (&rel, pose) in t.ticks.iter().zip(&t.poses) {
            if in_range(rel) {
                pbox.add(pose);
            }
        }
    }
    let candidates = &mut s.candidates;
    candidates.clear();
    if !pbox.is_empty() {
        // entities that stand still in the chunk (no samples)
        let mut ti = chunk.tracks.iter().peekable();
        for e in table.iter() {
            while ti.next_if(|t| t.entity < e.id).is_some() {}
            if ti.peek().is_some_and(|t| t.entity == e.id) {
                continue;
            }
            if pbox.within(&e.pose, r2) {
                candidates.push(e.id);
            }
        }
        for t in &chunk.tracks {
            let mut b = BoxOf::default();
            if let Some(e) = table.get(t.entity) {
                b.add(&e.pose);
            }
            for (&rel, pose) in t.ticks.iter().zip(&t.poses) {
                if in_range(rel) {
                    b.add(pose);
                }
            }
            if !b.is_empty() && pbox.meets(&b, r2) {
                candidates.push(t.entity);
            }
        }
    }
    for (k, rec) in records.iter().enumerate() {
        for e in &rec.events {
            // An event that does not change where an entity stands (a hit, damage, health,
            // equipment, a block change's cause, a chat line: what the world adds) makes no
            // candidate: the entity is where its samples and the table say, already looked at.
            candidates.extend(touched_entity(e));
            if let Event::Chat {
                sender: Some(sender),
                ..
            } = *e
            {
                // Whether the keeper has a position of the sender from this chunk (a sample or
                // an event from the report's first tick on, up to the line's tick).
                let sampled = track_of(sender).is_some_and(|t| {
                    let from = t.ticks.partition_point(|&r| r < rel_from);
                    t.ticks.get(from).is_some_and(|&r| r <= rec.rel)
                });
                let placed = sampled
                    || records[..=k].iter().any(|r| {
                        r.events
                            .iter()
                            .any(|e| position_given(e).is_some_and(|(id, _)| id == sender))
                    });
                out.senders.push((sender, placed));
            }
        }
    }
    candidates.push(player);
    candidates.sort_unstable();
    candidates.dedup();
    let candidates: &[u32] = candidates;

    // Each candidate's place in the walk: its index in `candidates`, its position and whether
    // it is alive, kept beside the table (samples and checks index them directly; the table
    // takes the events, with the positions of the entities they touch brought up to date first).
    let slot = |id: u32| candidates.binary_search(&id).ok();
    let alive = &mut s.alive;
    let at = &mut s.at;
    alive.clear();
    alive.resize(candidates.len(), false);
    at.clear();
    at.resize(candidates.len(), [0; 3]);
    {
        let mut ti = table.iter().peekable();
        for (k, &id) in candidates.iter().enumerate() {
            while ti.next_if(|e| e.id < id).is_some() {}
            if let Some(e) = ti.next_if(|e| e.id == id) {
                alive[k] = true;
                at[k] = [e.pose.x, e.pose.y, e.pose.z];
            }
        }
    }
    let player_slot = slot(player).expect("the player is a candidate") as u32;
    let hit = &mut s.hit;
    hit.clear();
    hit.resize(candidates.len(), false);

    // The candidates' samples by tick (a counting sort: ticks in order, candidates in order).
    let span = (hi - rel_from + 1) as usize;
    let offsets = &mut s.offsets;
    offsets.clear();
    offsets.resize(span + 1, 0);
    let tracks: Vec<(u32, &crate::format::chunk::Track)> = candidates
        .iter()
        .enumerate()
        .filter_map(|(k, &id)| track_of(id).map(|t| (k as u32, t)))
        .collect();
    for (_, t) in &tracks {
        for &rel in &t.ticks {
            if in_range(rel) {
                offsets[(rel - rel_from) as usize + 1] += 1;
            }
        }
    }
    for k in 1..=span {
        offsets[k] += offsets[k - 1];
    }
    let samples = &mut s.samples;
    samples.clear();
    samples.resize(offsets[span] as usize, (0, [0; 3]));
    let mut fill = offsets.clone();
    for &(k, t) in &tracks {
        for (&rel, pose) in t.ticks.iter().zip(&t.poses) {
            if in_range(rel) {
                let f = &mut fill[(rel - rel_from) as usize];
                samples[*f as usize] = (k, [pose.x, pose.y, pose.z]);
                *f += 1;
            }
        }
    }
    // The ticks where anything changed (a sample of any entity, or an event).
    let mut changed = any[rel_from as usize..=hi as usize].to_vec();
    for rec in records {
        if rec.rel <= hi {
            changed[(rec.rel - rel_from) as usize] = true;
        }
    }

    let close = |a: &[i64; 3], b: &[i64; 3]| {
        let (dx, dy, dz) = (
            (a[0] - b[0]) as f64,
            (a[1] - b[1]) as f64,
            (a[2] - b[2]) as f64,
        );
        dx * dx + dy * dy + dz * dz <= r2
    };
    let moved = &mut s.moved;
    let mut all = true; // check everyone at the first tick
    let mut ri = 0;
    for k in 0..span {
        if !changed[k] {
            continue;
        }
        let rel = rel_from + k as u32;
        moved.clear();
        let mut player_moved = false;
        for &(c, p) in &samples[offsets[k] as usize..offsets[k + 1] as usize] {
            if alive[c as usize] {
                at[c as usize] = p;
            }
            moved.push(c);
            player_moved |= c == player_slot;
        }
        if records.get(ri).is_some_and(|r| r.rel == rel) {
            for e in &records[ri].events {
                // (only an event that may move or add or remove an entity changes a distance)
                if let Some(id) = touched_entity(e) {
                    // (every entity such an event names is a candidate)
                    let c = slot(id).expect("an event's entity is a candidate");
                    if alive[c]
                        && let Some(t) = table.get_mut(id)
                    {
                        [t.pose.x, t.pose.y, t.pose.z] = at[c];
                    }
                    table.apply(e);
                    match table.get(id) {
                        Some(t) => {
                            alive[c] = true;
                            at[c] = [t.pose.x, t.pose.y, t.pose.z];
                        }
                        None => alive[c] = false,
                    }
                    moved.push(c as u32);
                    player_moved |= c as u32 == player_slot;
                }
            }
            ri += 1;
        }
        if !alive[player_slot as usize] {
            all = true;
            continue;
        }
        let p = at[player_slot as usize];
        out.seen_player = true;
        if all || player_moved {
            all = false;
            for c in 0..candidates.len() {
                if alive[c] && close(&at[c], &p) {
                    hit[c] = true;
                }
            }
        } else {
            for &c in moved.iter() {
                if alive[c as usize] && close(&at[c as usize], &p) {
                    hit[c as usize] = true;
                }
            }
        }
    }
    // A chunk where nothing happened after the start still counts its starting state.
    if all && alive[player_slot as usize] {
        let p = at[player_slot as usize];
        out.seen_player = true;
        for c in 0..candidates.len() {
            if alive[c] && close(&at[c], &p) {
                hit[c] = true;
            }
        }
    }
    out.near = candidates
        .iter()
        .zip(hit.iter())
        .filter(|&(_, &h)| h)
        .map(|(&id, _)| id)
        .collect();
    out.sampled = any;
    out
}

/// The box around some positions (fixed point, x, y, z).
#[derive(Clone, Copy)]
struct BoxOf {
    lo: [i64; 3],
    hi: [i64; 3],
}

impl Default for BoxOf {
    fn default() -> BoxOf {
        BoxOf {
            lo: [i64::MAX; 3],
            hi: [i64::MIN; 3],
        }
    }
}

impl BoxOf {
    fn add(&mut self, p: &Pose) {
        for (k, v) in [p.x, p.y, p.z].into_iter().enumerate() {
            self.lo[k] = self.lo[k].min(v);
            self.hi[k] = self.hi[k].max(v);
        }
    }
    fn is_empty(&self) -> bool {
        self.lo[0] > self.hi[0]
    }
    /// Whether a point may be within `sqrt(r2)` of a point of the box: the squared distance to
    /// the box, computed as a distance between two points is, at most `r2`.
    fn within(&self, p: &Pose, r2: f64) -> bool {
        let mut b = BoxOf::default();
        b.add(p);
        self.meets(&b, r2)
    }
    /// Whether a point of `other` may be within `sqrt(r2)` of a point of the box. Each gap is
    /// at most the difference of any two points' coordinates, so a pair of points closer than
    /// the radius (by the same arithmetic as `close`) makes this true.
    fn meets(&self, other: &BoxOf, r2: f64) -> bool {
        let mut d2 = 0.0;
        for k in 0..3 {
            let gap = if other.lo[k] > self.hi[k] {
                (other.lo[k] - self.hi[k]) as f64
            } else if self.lo[k] > other.hi[k] {
                (self.lo[k] - other.hi[k]) as f64
            } else {
                0.0
            };
            d2 += gap * gap;
        }
        d2 <= r2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shadow::report::tests::{B, added, ground, one_chunk};

    /// An entity far from the player that only events without a position name (health lines,
    /// here) is no candidate of the first pass: it cannot come within the radius, and following
    /// it was what a world's hits and health cost a report. One that an event moves is, and one
    /// within reach is found near as before.
    #[test]
    fn an_entity_named_only_by_events_that_do_not_move_it_is_no_candidate() {
        let chunk = one_chunk(20, |t| {
            let mut ev = Vec::new();
            if t == 0 {
                ev = added(&[(1, 0), (2, 1000), (3, 2000), (4, 5)]);
            } else {
                ev.push(Event::Pose {
                    entity: 1,
                    pose: ground(i64::from(t) % 3),
                });
                ev.push(Event::Health {
                    entity: 2,
                    health: 20 - t,
                });
                if t == 10 {
                    ev.push(Event::Teleport {
                        entity: 3,
                        pose: ground(2001),
                    });
                }
            }
            ev
        });
        let r = 24.0 * B as f64;
        let mut s = Scratch::default();
        // From tick 1: the entities stand where tick 0 added them (the adds name them all).
        let ask = Ask {
            player: 1,
            first: 1,
            last: 19,
            r2: r * r,
        };
        let out = chunk_near(&chunk, ask, &mut s);
        assert!(
            !s.candidates.contains(&2),
            "named only by health: {:?}",
            s.candidates
        );
        assert!(
            s.candidates.contains(&3),
            "moved by an event: {:?}",
            s.candidates
        );
        assert_eq!(out.near, vec![1, 4]);
    }

    /// Each line's sender, with whether it has a position in the chunk from the report's first
    /// tick up to the line: a sample (2), an event giving one (4: a teleport), or neither (3,
    /// standing where it was added before the report's first tick; its position comes from an
    /// earlier tick, so it is followed in every chunk). A line before the sender's first sample
    /// in the report has none either (2 at tick 2).
    #[test]
    fn each_line_says_whether_its_sender_has_a_position_in_the_chunk() {
        let chunk = one_chunk(20, |t| {
            let mut ev = Vec::new();
            if t == 0 {
                ev = added(&[(1, 0), (2, 10), (3, 20), (4, 30)]);
            } else {
                ev.push(Event::Pose {
                    entity: 1,
                    pose: ground(i64::from(t) % 3),
                });
                if t >= 5 {
                    ev.push(Event::Pose {
                        entity: 2,
                        pose: ground(10 + i64::from(t)),
                    });
                }
            }
            if t == 5 {
                ev.push(Event::Teleport {
                    entity: 4,
                    pose: ground(40),
                });
            }
            let line = |sender: u32| Event::Chat {
                sender: Some(sender),
                channel: 0,
                text: format!("{sender} at {t}"),
            };
            match t {
                2 => ev.push(line(2)),
                8 => ev.extend([line(2), line(3), line(4)]),
                _ => {}
            }
            ev
        });
        let r = 24.0 * B as f64;
        let ask = Ask {
            player: 1,
            first: 1,
            last: 19,
            r2: r * r,
        };
        let out = chunk_near(&chunk, ask, &mut Scratch::default());
        assert_eq!(
            out.senders,
            vec![(2, false), (2, true), (3, false), (4, true)]
        );
    }
}
