//! A position inside one decoded chunk ([`Cursor`]), moved one tick at a time: forward by
//! applying the tick to an [`EntityTable`] ([`forward_tick`]), backward by undoing it with the
//! chunk's [`ReverseLog`] ([`undo_tick`], in [`reverse`]). Playheads move through chunks with it.
//!
//! Forward, [`forward_tick`] produces the events of one tick in the order of a straight decode
//! ([`DecodedChunk::ticks`]): a `Pose` event for every entity with a pose sample at that tick that
//! is not covered by an `EntityAdd` or `Teleport` of the same tick (by entity id), then the
//! tick's other events in recorded order. Every event changes the table through
//! [`EntityTable::apply`], as it does everywhere else.
//!
//! Backward, [`undo_tick`] turns the state at a tick into the state at the tick before: see
//! [`reverse`].

use crate::format::chunk::DecodedChunk;
use crate::format::event::Event;
use crate::format::state::EntityTable;

mod reverse;
#[cfg(test)]
mod tests;

pub use reverse::{ReverseLog, undo_tick};

/// Whether an event changes the world rather than an entity's pose, kind or flags (custom,
/// extension and world events).
#[inline]
pub fn is_world_event(e: &Event) -> bool {
    matches!(e, Event::Custom { .. } | Event::Extension { .. }) || e.is_world()
}

/// Where a playhead stands inside one chunk: how many pose samples of each track and how many
/// event records have been applied.
#[derive(Debug, Default, Clone)]
pub struct Cursor {
    /// Per track (in `DecodedChunk::tracks` order): samples with relative tick `<=` the position.
    track_pos: Vec<u32>,
    /// Records with relative tick `<=` the position.
    rec_pos: usize,
    /// Entities covered by an `EntityAdd`/`Teleport` of the tick being processed (scratch).
    covered: Vec<u32>,
}

impl Cursor {
    /// Positions the cursor after every tick `<= rel` of `chunk` (`rel < 0`: before the chunk).
    pub fn place(&mut self, chunk: &DecodedChunk, rel: i64) {
        self.track_pos.clear();
        if rel < 0 {
            self.track_pos.resize(chunk.tracks.len(), 0);
            self.rec_pos = 0;
        } else if rel >= i64::from(chunk.tick_count) - 1 {
            self.track_pos
                .extend(chunk.tracks.iter().map(|t| t.ticks.len() as u32));
            self.rec_pos = chunk.records.len();
        } else {
            let rel = rel as u32;
            self.track_pos.extend(
                chunk
                    .tracks
                    .iter()
                    .map(|t| t.ticks.partition_point(|&x| x <= rel) as u32),
            );
            self.rec_pos = chunk.records.partition_point(|r| r.rel <= rel);
        }
    }

    /// Heap bytes held by the cursor's buffers.
    pub fn heap_bytes(&self) -> usize {
        self.track_pos.capacity() * 4 + self.covered.capacity() * 4
    }

    fn collect_covered(&mut self, events: &[Event]) {
        self.covered.clear();
        for e in events {
            if let Event::EntityAdd { entity, .. } | Event::Teleport { entity, .. } = e {
                self.covered.push(*entity);
            }
        }
    }
}

/// Applies relative tick `rel` of `chunk` to `state` (the cursor must stand just before it).
/// Each event of the tick, in straight-decode order, is passed to `emit` after being applied.
/// Returns the number of events of the tick.
pub fn forward_tick(
    chunk: &DecodedChunk,
    cur: &mut Cursor,
    rel: u32,
    state: &mut EntityTable,
    mut emit: impl FnMut(&Event),
) -> usize {
    let rec = chunk
        .records
        .get(cur.rec_pos)
        .filter(|r| r.rel == rel)
        .map(|r| r.events.as_slice());
    match rec {
        Some(events) => cur.collect_covered(events),
        None => cur.covered.clear(),
    }
    let mut n = 0;
    let mut j = 0;
    for (t, p) in chunk.tracks.iter().zip(cur.track_pos.iter_mut()) {
        let i = *p as usize;
        if i < t.ticks.len() && t.ticks[i] == rel {
            *p += 1;
            if !cur.covered.contains(&t.entity) {
                state.set_pose_walk(&mut j, t.entity, t.poses[i]);
                emit(&Event::Pose {
                    entity: t.entity,
                    pose: t.poses[i],
                });
                n += 1;
            }
        }
    }
    if let Some(events) = rec {
        for e in events {
            state.apply(e);
            emit(e);
        }
        n += events.len();
        cur.rec_pos += 1;
    }
    n
}
