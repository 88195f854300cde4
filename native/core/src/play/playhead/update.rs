//! What one call returns to the plugin ([`Update`], with [`Motion`], [`Rebuild`] and
//! [`ChunkFault`]), and how every call starts, reports into and finishes it.

use std::sync::Arc;

use super::Playhead;
use super::fetch::Mode;
use crate::format::chunk::DecodedChunk;
use crate::format::event::Event;
use crate::format::state::{EntityState, EntityTable};
use crate::format::world_state::{WorldChange, WorldState};
use crate::play::cache::Fault;
use crate::play::cursor;

/// Direction of play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    #[default]
    Forward,
    Backward,
}

/// How the position moved in one update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Motion {
    /// The position did not change.
    #[default]
    Still,
    /// Forward play: apply [`Update::ticks`] in order.
    Forward,
    /// Any other move (reverse play, seek, step back, a jump over an unreadable chunk): apply the
    /// state ([`Update::removed`], [`Update::added`], [`Update::entities`], [`Update::rebuild`]).
    Jump,
}

/// A chunk that could not be read or decoded.
#[derive(Debug, Clone)]
pub struct ChunkFault {
    /// Index of the chunk.
    pub chunk: usize,
    /// Ticks it spans: `start_tick .. start_tick + tick_count`.
    pub start_tick: u32,
    pub tick_count: u32,
    pub error: Fault,
}

/// The ticks of a forward update: `events[start..end]` happened at `tick`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TickSpan {
    pub(super) tick: u32,
    pub(super) start: u32,
    pub(super) end: u32,
}

/// What the plugin must apply after one call. See the [module documentation](super).
#[derive(Debug, Default)]
pub struct Update {
    /// Position before the call.
    pub from: u32,
    /// Position after the call.
    pub to: u32,
    pub motion: Motion,
    /// Direction of play at the time of the call.
    pub direction: Direction,
    /// The data for the next ticks was not ready: the position moved less than asked (maybe not
    /// at all). The playhead catches up on later calls.
    pub stalled: bool,
    /// The position is the first (playing backward) or last (forward) tick of the recording:
    /// further calls return [`Motion::Still`] until the direction changes or, for a recording
    /// still being written, new ticks arrive.
    pub at_edge: bool,
    /// The recording has no tick yet (a live recording before its first flush): there is no
    /// position and no entity. The first update after ticks appear is a [`Motion::Jump`] to the
    /// requested tick (the first one for [`Playhead::new`]) that spawns everything.
    pub waiting: bool,
    pub(super) spans: Vec<TickSpan>,
    pub(super) events: Vec<Event>,
    pub(super) entities: EntityTable,
    pub(super) added: Vec<EntityState>,
    pub(super) removed: Vec<u32>,
    pub(super) rebuild: bool,
    pub(super) rb_snapshot_chunk: Option<usize>,
    pub(super) rb_snapshot_tick: Option<u32>,
    pub(super) rb_has_snapshot: bool,
    pub(super) rb_chunks: Vec<Arc<DecodedChunk>>,
    pub(super) rb_complete: bool,
    pub(super) rb_cut_short: bool,
    pub(super) faults: Vec<ChunkFault>,
    /// The world changes of forward play (before the update's first jump, if any).
    pub(super) world_changes: Vec<WorldChange>,
    /// The world before the update's first jump that rebuilt it, and the world at its end: the
    /// rest of the changes are the difference, found when first asked for (`jump_changes`).
    pub(super) world_before: Option<Arc<WorldState>>,
    pub(super) world_after: Option<Arc<WorldState>>,
    pub(super) jump_changes: std::sync::OnceLock<Vec<WorldChange>>,
}

/// A world rebuild of a [`Motion::Jump`] update ([`Update::rebuild`]): restore the snapshot, then
/// re-apply the custom events.
#[derive(Debug, Clone, Copy)]
pub struct Rebuild<'a> {
    u: &'a Update,
}

impl<'a> Rebuild<'a> {
    /// The snapshot bytes the recorder was given (`offer_snapshot`; empty if none was offered),
    /// or `None` if the recording has no readable snapshot at or before the position: then start
    /// from the world as it was when recording started (unless the rebuild was
    /// [cut short](Rebuild::cut_short): then the world before its first chunk is unknown).
    pub fn snapshot(&self) -> Option<&'a [u8]> {
        if self.u.rb_has_snapshot {
            self.u.rb_chunks.first()?.snapshot.as_deref()
        } else {
            None
        }
    }
    /// The tick whose events come after the snapshot (the snapshot is the world before them).
    pub fn snapshot_tick(&self) -> Option<u32> {
        self.u.rb_snapshot_tick
    }
    /// Index of the chunk carrying the snapshot.
    pub fn snapshot_chunk(&self) -> Option<usize> {
        self.u.rb_snapshot_chunk
    }
    /// Every custom (and extension) event from the snapshot tick through the new position, in
    /// order, with its tick.
    pub fn events(&self) -> impl Iterator<Item = (u32, &'a Event)> + 'a {
        let until = self.u.to;
        self.u.rb_chunks.iter().flat_map(move |c| {
            let start = c.start_tick;
            c.records
                .iter()
                .take_while(move |r| start + r.rel <= until)
                .flat_map(move |r| {
                    r.events
                        .iter()
                        .filter(|e| cursor::is_world_event(e))
                        .map(move |e| (start + r.rel, e))
                })
        })
    }
    /// False if a chunk between the snapshot and the position could not be read (the faults are
    /// in [`Update::faults`]), or if the rebuild was [cut short](Rebuild::cut_short): the events
    /// are then incomplete.
    pub fn complete(&self) -> bool {
        self.u.rb_complete
    }
    /// True if the recording has no snapshot within
    /// `format::index::MAX_CHUNKS_PER_SNAPSHOT` (256) chunks at or
    /// before the position (a file not written by tickreel's recorders, or by an older build),
    /// and the position is farther than that from the recording's start: the rebuild reads only
    /// those last chunks, so that a seek stays bounded. Also true before the first snapshot of a
    /// recording that starts in the middle of a world (a shadow-play report cut from a longer
    /// stream: its metadata's `starts_mid_world`), whose world before its first tick is unknown. [`Rebuild::snapshot`] is then `None` and
    /// [`Rebuild::events`] holds the custom events of those chunks only, not the world before them;
    /// [`Rebuild::complete`] is false.
    pub fn cut_short(&self) -> bool {
        self.u.rb_cut_short
    }
}

impl Update {
    /// Every live entity at [`Update::to`], sorted by id: kind, flags and pose.
    pub fn entities(&self) -> &[EntityState] {
        self.entities.as_slice()
    }
    /// Forward updates: the recorded ticks covered, in order, each with its events (pose changes
    /// first, then the other events in recorded order). Empty for other motions.
    pub fn ticks(&self) -> impl ExactSizeIterator<Item = (u32, &[Event])> {
        self.spans
            .iter()
            .map(|s| (s.tick, &self.events[s.start as usize..s.end as usize]))
    }
    /// All events of [`Update::ticks`], flat.
    pub fn events(&self) -> &[Event] {
        &self.events
    }
    /// Jump updates: entities alive at `to` that were not alive at `from` (or had another kind).
    pub fn added(&self) -> &[EntityState] {
        &self.added
    }
    /// Jump updates: entities alive at `from` that are not alive at `to` (or have another kind).
    pub fn removed(&self) -> &[u32] {
        &self.removed
    }
    /// Jump updates: the world rebuild to make, or `None` when no custom event lies between the
    /// old and the new position (keep the world as it is).
    pub fn rebuild(&self) -> Option<Rebuild<'_>> {
        self.rebuild.then_some(Rebuild { u: self })
    }
    /// Every update: what changed in the world the library keeps (edited blocks, equipment,
    /// health; [`Playhead::world_state`]) from `from` to `to`, each with what was before, whatever the
    /// motion (forward play, reverse play, a seek). Applying them in order takes a world that
    /// was as at `from` to `to`; a block whose `after` is `None` is no longer edited (restore the
    /// world's own block there). Each position, entity and slot appears at most once in a
    /// [`Motion::Jump`] update (in no particular order), in event order in a forward one.
    ///
    /// A forward update records them as it plays; a jump compares the worlds before and after it
    /// on the first call (the update keeps both, shared, until the playhead's next call): a
    /// consumer that does not read them does not pay for them, one that does pays for the
    /// comparison once (only the changes since the snapshot when both worlds stand on the same
    /// sorted list of blocks, a merge of both lists otherwise).
    pub fn world_changes(&self) -> &[WorldChange] {
        match (&self.world_before, &self.world_after) {
            (Some(before), Some(after)) => self.jump_changes.get_or_init(|| {
                let mut v = self.world_changes.clone();
                before.changes_to(after, &mut |c| v.push(c));
                v
            }),
            _ => &self.world_changes,
        }
    }
    /// Chunks that could not be read during this call.
    pub fn faults(&self) -> &[ChunkFault] {
        &self.faults
    }
    /// The state at `to` as an [`EntityTable`] (allocates; for tests and tools).
    pub fn table(&self) -> EntityTable {
        self.entities.clone()
    }

    pub(super) fn heap_bytes(&self) -> usize {
        let custom: usize = self.events.iter().map(Event::heap_bytes).sum();
        self.spans.capacity() * std::mem::size_of::<TickSpan>()
            + self.events.capacity() * std::mem::size_of::<Event>()
            + custom
            + (self.entities.capacity() + self.added.capacity())
                * std::mem::size_of::<EntityState>()
            + self.removed.capacity() * 4
            + self.rb_chunks.capacity() * std::mem::size_of::<Arc<DecodedChunk>>()
            + self.faults.capacity() * std::mem::size_of::<ChunkFault>()
    }
}

impl Playhead {
    pub(super) fn begin(&mut self) {
        let u = &mut self.u;
        u.from = self.pos;
        u.to = self.pos;
        u.motion = Motion::Still;
        u.direction = self.direction;
        u.stalled = false;
        u.at_edge = false;
        u.waiting = false;
        u.spans.clear();
        u.events.clear();
        u.added.clear();
        u.removed.clear();
        u.rebuild = false;
        u.rb_snapshot_chunk = None;
        u.rb_snapshot_tick = None;
        u.rb_has_snapshot = false;
        u.rb_chunks.clear();
        u.rb_complete = true;
        u.rb_cut_short = false;
        u.faults.clear();
        u.world_changes.clear();
        u.world_before = None;
        u.world_after = None;
        u.jump_changes = std::sync::OnceLock::new();
    }

    pub(super) fn finish(&mut self) {
        self.u.to = self.pos;
        if self.u.world_before.is_some() {
            self.u.world_after = Some(self.world.clone());
        }
        self.u.waiting = self.waiting;
        self.gathered.clear();
        if self.u.motion == Motion::Jump {
            self.stats.jumps += 1;
        }
        self.prefetch_ahead();
    }

    pub(super) fn stall(&mut self) {
        self.u.stalled = true;
        self.stats.stalls += 1;
    }

    pub(super) fn fault(&mut self, k: usize, f: Fault) {
        let e = self.view.reader.index()[k];
        self.stats.faults += 1;
        self.u.faults.push(ChunkFault {
            chunk: k,
            start_tick: e.start_tick,
            tick_count: e.tick_count,
            error: f,
        });
    }

    /// A blocking call cannot stall; a transient failure there is just reported.
    pub(super) fn stall_in_move(&mut self, mode: Mode) {
        if mode == Mode::NonBlocking {
            self.u.stalled = true;
        }
    }
}

/// Entities of `cur` not in `prev` (or of another kind) and ids of `prev` not in `cur` (or of
/// another kind). Both lists are sorted by id.
pub(super) fn diff(
    prev: &[EntityState],
    cur: &[EntityState],
    added: &mut Vec<EntityState>,
    removed: &mut Vec<u32>,
) {
    added.clear();
    removed.clear();
    let (mut i, mut j) = (0, 0);
    while i < prev.len() || j < cur.len() {
        match (prev.get(i), cur.get(j)) {
            (Some(a), Some(b)) if a.id == b.id => {
                if a.kind != b.kind {
                    removed.push(a.id);
                    added.push(*b);
                }
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if a.id < b.id => {
                removed.push(a.id);
                i += 1;
            }
            (Some(a), None) => {
                removed.push(a.id);
                i += 1;
            }
            (_, Some(b)) => {
                added.push(*b);
                j += 1;
            }
            (None, None) => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::pose::Pose;

    fn st(id: u32, kind: u32) -> EntityState {
        EntityState {
            id,
            kind,
            flags: 0,
            pose: Pose::default(),
        }
    }

    #[test]
    fn diff_reports_additions_removals_and_kind_changes() {
        let prev = [st(1, 0), st(2, 0), st(4, 1)];
        let cur = [st(2, 0), st(3, 0), st(4, 2), st(9, 0)];
        let (mut a, mut r) = (Vec::new(), Vec::new());
        diff(&prev, &cur, &mut a, &mut r);
        assert_eq!(r, vec![1, 4]);
        assert_eq!(a.iter().map(|e| e.id).collect::<Vec<_>>(), vec![3, 4, 9]);
    }
}
