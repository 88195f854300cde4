//! Playing a chunk backward: [`undo_tick`] turns the state at a tick into the state at the tick
//! before, using a [`ReverseLog`]: built once per chunk (off the server thread, by the prefetch
//! pool, and shared by every reverse viewer through the chunk cache). It stores how to undo every
//! non-pose event that touched an entity (the previous flags for a flags change, else the whole
//! prior state), and the prior state of pose changes only where the prior pose is not simply the
//! previous pose sample (or the keyframe pose). So it is small, building it costs a scan of the
//! samples plus a little per event (not a replay), and undoing a tick costs about what applying it
//! costs.

use super::{Cursor, is_world_event};
use crate::format::chunk::DecodedChunk;
use crate::format::event::Event;
use crate::format::pose::Pose;
use crate::format::state::{EntityState, EntityTable, touched_entity};

/// How to undo one event that touched an entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Undo {
    /// A `Flags` event on a live entity: its previous flags (its pose is not involved).
    Flags { entity: u32, flags: u32 },
    /// Anything else: the entity's whole prior state (`None`: it was not alive).
    State {
        entity: u32,
        prior: Option<EntityState>,
    },
}

impl Undo {
    /// The undo of event `e` on entity `id` whose state before it was `prior`.
    fn of(e: &Event, id: u32, prior: Option<&EntityState>) -> Undo {
        match (e, prior) {
            (Event::Flags { .. }, Some(p)) => Undo::Flags {
                entity: id,
                flags: p.flags,
            },
            _ => Undo::State {
                entity: id,
                prior: prior.copied(),
            },
        }
    }
}

/// A pose change whose prior state is not "the previous sample of the track (or the keyframe
/// pose) on an entity that was alive": rare (an entity re-created without a pose in the chunk).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PoseOverride {
    rel: u32,
    track: u32,
    prior: Option<EntityState>,
}

/// What it takes to play one chunk backward. See the module documentation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReverseLog {
    /// Per record, the range of `undo` holding its events' prior states (`records.len() + 1`).
    rec_undo: Vec<u32>,
    undo: Vec<Undo>,
    /// Sorted by `(rel, track)`.
    overrides: Vec<PoseOverride>,
    /// Per track, the entity's pose in the keyframe.
    track_base: Vec<Option<Pose>>,
}

impl ReverseLog {
    /// Builds the log. Only the states an undo needs are computed: the prior state of every
    /// entity a non-pose event touches, and the prior state of the few pose changes that do not
    /// simply follow the previous sample. Between two events touching an entity its pose is its
    /// last sample, so pose samples are only scanned, never applied: the cost is
    /// O(samples + events), a fraction of replaying the chunk.
    pub fn build(chunk: &DecodedChunk) -> ReverseLog {
        let tracks = &chunk.tracks;
        // Keyframes are written sorted by id; the table is robust to any order anyway.
        let mut state: EntityTable = chunk.keyframe.iter().copied().collect();
        let track_of = |id: u32| tracks.binary_search_by_key(&id, |t| t.entity).ok();
        let track_base: Vec<Option<Pose>> = tracks
            .iter()
            .map(|t| state.get(t.entity).map(|s| s.pose))
            .collect();
        // 1. Where non-pose events touch entities that have pose samples: (track, rel, covers),
        //    `covers` for an EntityAdd/Teleport (its sample at that tick is not a pose event).
        //    `Flags` events are left out: on a live entity they change neither presence nor pose;
        //    on a dead one (re-created at the origin) the removal that killed it lies between the
        //    same two samples, or the entity has no earlier sample and no keyframe pose, so the
        //    next sample is special anyway.
        let mut touches: Vec<(u32, u32, bool)> = Vec::new();
        for r in &chunk.records {
            for e in &r.events {
                let Some(id) = touched_entity(e) else {
                    continue;
                };
                if matches!(e, Event::Flags { .. }) {
                    continue;
                }
                if let Some(ti) = track_of(id) {
                    let covers = matches!(e, Event::EntityAdd { .. } | Event::Teleport { .. });
                    touches.push((ti as u32, r.rel, covers));
                }
            }
        }
        touches.sort_unstable();
        // 2. The pose events whose prior state is not plainly known: the entity's first sample
        //    when it is not in the keyframe, or a sample after an event touched the entity since
        //    its previous sample (or since the chunk start). Others follow the previous sample on
        //    a live entity: nothing to record.
        let mut special: Vec<(u32, u32, u32)> = Vec::new(); // (rel, track, sample)
        let mut ti_lo = 0;
        for (ti, t) in tracks.iter().enumerate() {
            let ti_hi = ti_lo + touches[ti_lo..].partition_point(|x| x.0 == ti as u32);
            let mine = &touches[ti_lo..ti_hi];
            ti_lo = ti_hi;
            let mut k = 0; // first touch at or after the window start
            for (i, &r) in t.ticks.iter().enumerate() {
                let lo = if i > 0 { t.ticks[i - 1] } else { 0 };
                while k < mine.len() && mine[k].1 < lo {
                    k += 1;
                }
                let covered = mine[k..]
                    .iter()
                    .take_while(|x| x.1 <= r)
                    .any(|x| x.1 == r && x.2);
                if covered {
                    continue;
                }
                let touched_since = mine.get(k).is_some_and(|x| x.1 < r);
                if touched_since || (i == 0 && track_base[ti].is_none()) {
                    special.push((r, ti as u32, i as u32));
                }
            }
        }
        special.sort_unstable();
        // 3. One sweep in event order over the special pose events and the records, keeping the
        //    touched entities' states exact. `last_set[ti]`: tick of the last change applied to
        //    the entity by this sweep; a later sample means its pose is that sample's.
        let mut last_set: Vec<Option<u32>> = vec![None; tracks.len()];
        let sync = |state: &mut EntityTable, last_set: &[Option<u32>], ti: usize, upto: u32| {
            let t = &tracks[ti];
            let n = t.ticks.partition_point(|&x| x < upto);
            if let Some(s) = n.checked_sub(1)
                && last_set[ti].is_none_or(|l| t.ticks[s] > l)
                && let Some(e) = state.get_mut(t.entity)
            {
                e.pose = t.poses[s];
            }
        };
        let mut log = ReverseLog {
            rec_undo: Vec::with_capacity(chunk.records.len() + 1),
            undo: Vec::new(),
            overrides: Vec::new(),
            track_base,
        };
        log.rec_undo.push(0);
        let mut si = 0;
        for rec in chunk.records.iter().map(Some).chain(std::iter::once(None)) {
            // Special pose events up to this record's tick (all of them after the last record).
            while let Some(&(r, ti, i)) = special.get(si) {
                if rec.is_some_and(|rec| r > rec.rel) {
                    break;
                }
                let (ti, i) = (ti as usize, i as usize);
                let t = &tracks[ti];
                sync(&mut state, &last_set, ti, r);
                let prior = state.get(t.entity).copied();
                let default = pose_default(chunk, &log.track_base, ti, i);
                if prior.is_none() || default.is_none() || prior.map(|s| s.pose) != default {
                    log.overrides.push(PoseOverride {
                        rel: r,
                        track: ti as u32,
                        prior,
                    });
                }
                let mut j = 0;
                state.set_pose_walk(&mut j, t.entity, t.poses[i]);
                last_set[ti] = Some(r);
                si += 1;
            }
            let Some(rec) = rec else { break };
            for e in &rec.events {
                if let Some(id) = touched_entity(e) {
                    // A flags change on a live entity needs only its previous flags: its pose
                    // (stale in `state` here, see `sync`) is neither recorded nor changed.
                    if let Event::Flags { flags, .. } = *e
                        && let Some(s) = state.get_mut(id)
                    {
                        log.undo.push(Undo::Flags {
                            entity: id,
                            flags: s.flags,
                        });
                        s.flags = flags;
                        continue;
                    }
                    let ti = track_of(id);
                    if let Some(ti) = ti {
                        // A sample at this tick is a pose event before the records, unless an
                        // EntityAdd/Teleport of this tick covers it (then it happens there).
                        let covered = rec.events.iter().any(|x| {
                            matches!(x, Event::EntityAdd { entity, .. } | Event::Teleport { entity, .. } if *entity == id)
                        });
                        let upto = if covered { rec.rel } else { rec.rel + 1 };
                        sync(&mut state, &last_set, ti, upto);
                    }
                    log.undo.push(Undo::of(e, id, state.get(id)));
                    state.apply(e);
                    if let Some(ti) = ti {
                        last_set[ti] = Some(rec.rel);
                    }
                }
            }
            log.rec_undo.push(log.undo.len() as u32);
        }
        log
    }

    /// Builds the log with a full forward replay of the chunk (every pose sample applied): the
    /// reference that [`ReverseLog::build`] must equal.
    #[cfg(test)]
    pub(crate) fn build_full(chunk: &DecodedChunk) -> ReverseLog {
        // Keyframes are written sorted by id; the table is robust to any order anyway.
        let mut state: EntityTable = chunk.keyframe.iter().copied().collect();
        let track_base: Vec<Option<Pose>> = chunk
            .tracks
            .iter()
            .map(|t| state.get(t.entity).map(|s| s.pose))
            .collect();
        let mut log = ReverseLog {
            rec_undo: Vec::with_capacity(chunk.records.len() + 1),
            undo: Vec::new(),
            overrides: Vec::new(),
            track_base,
        };
        log.rec_undo.push(0);
        let mut cur = Cursor::default();
        cur.place(chunk, -1);
        for rel in 0..chunk.tick_count {
            let rec = chunk
                .records
                .get(cur.rec_pos)
                .filter(|r| r.rel == rel)
                .map(|r| r.events.as_slice());
            match rec {
                Some(events) => cur.collect_covered(events),
                None => cur.covered.clear(),
            }
            let mut j = 0;
            for (ti, (t, p)) in chunk
                .tracks
                .iter()
                .zip(cur.track_pos.iter_mut())
                .enumerate()
            {
                let i = *p as usize;
                if i < t.ticks.len() && t.ticks[i] == rel {
                    *p += 1;
                    if cur.covered.contains(&t.entity) {
                        continue;
                    }
                    let prior = state.walk(j, t.entity).ok().map(|k| state.as_slice()[k]);
                    let default = pose_default(chunk, &log.track_base, ti, i);
                    if prior.is_none() || default.is_none() || prior.map(|s| s.pose) != default {
                        log.overrides.push(PoseOverride {
                            rel,
                            track: ti as u32,
                            prior,
                        });
                    }
                    state.set_pose_walk(&mut j, t.entity, t.poses[i]);
                }
            }
            if let Some(events) = rec {
                for e in events {
                    if let Some(id) = touched_entity(e) {
                        log.undo.push(Undo::of(e, id, state.get(id)));
                    }
                    state.apply(e);
                }
                log.rec_undo.push(log.undo.len() as u32);
                cur.rec_pos += 1;
            }
        }
        log
    }

    /// How many pose changes have their prior state stored.
    #[cfg(test)]
    pub(super) fn override_count(&self) -> usize {
        self.overrides.len()
    }

    /// Heap bytes, for cache accounting.
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.rec_undo.capacity() * 4
            + self.undo.capacity() * std::mem::size_of::<Undo>()
            + self.overrides.capacity() * std::mem::size_of::<PoseOverride>()
            + self.track_base.capacity() * std::mem::size_of::<Option<Pose>>()
    }
}

/// The pose an entity had before sample `i` of track `ti`, if it simply is the previous sample
/// (or the keyframe pose for the first sample).
#[inline]
fn pose_default(chunk: &DecodedChunk, base: &[Option<Pose>], ti: usize, i: usize) -> Option<Pose> {
    if i > 0 {
        Some(chunk.tracks[ti].poses[i - 1])
    } else {
        base[ti]
    }
}

fn restore(state: &mut EntityTable, entity: u32, prior: Option<EntityState>) {
    match prior {
        Some(s) => state.upsert(s),
        None => {
            state.remove(entity);
        }
    }
}

/// Undoes relative tick `rel` of `chunk` (the cursor must stand just after it): `state` becomes
/// the state at the tick before. Returns whether the tick had world (custom/extension) events.
pub fn undo_tick(
    chunk: &DecodedChunk,
    log: &ReverseLog,
    cur: &mut Cursor,
    rel: u32,
    state: &mut EntityTable,
) -> bool {
    let mut world = false;
    let ri = cur.rec_pos.checked_sub(1);
    let rec = ri
        .and_then(|ri| chunk.records.get(ri))
        .filter(|r| r.rel == rel);
    match rec {
        Some(r) => {
            let ri = ri.expect("record index");
            cur.collect_covered(&r.events);
            world = r.events.iter().any(is_world_event);
            let (a, b) = (log.rec_undo[ri] as usize, log.rec_undo[ri + 1] as usize);
            for u in log.undo[a..b].iter().rev() {
                match *u {
                    Undo::Flags { entity, flags } => {
                        if let Some(s) = state.get_mut(entity) {
                            s.flags = flags;
                        }
                    }
                    Undo::State { entity, prior } => restore(state, entity, prior),
                }
            }
            cur.rec_pos -= 1;
        }
        None => cur.covered.clear(),
    }
    let lo = log.overrides.partition_point(|o| o.rel < rel);
    let hi = log.overrides.partition_point(|o| o.rel <= rel);
    let overrides = &log.overrides[lo..hi];
    let mut j = 0;
    for (ti, (t, p)) in chunk
        .tracks
        .iter()
        .zip(cur.track_pos.iter_mut())
        .enumerate()
    {
        let i = *p as usize;
        if i > 0 && t.ticks[i - 1] == rel {
            *p -= 1;
            if cur.covered.contains(&t.entity) {
                continue;
            }
            let at = state.walk(j, t.entity);
            j = match at {
                Ok(k) | Err(k) => k,
            };
            if let Some(o) = overrides.iter().find(|o| o.track as usize == ti) {
                restore(state, t.entity, o.prior);
            } else if let Some(pose) = pose_default(chunk, &log.track_base, ti, i - 1)
                && let Ok(k) = at
            {
                state.set_pose_at(k, pose);
            }
        }
    }
    world
}
