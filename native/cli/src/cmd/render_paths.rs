//! What `tickreel render` draws, read from a recording: each entity's path on the x/z plane as
//! continuous stretches (a teleport, a removal or a reappearance ends one), its teleports and its
//! checkpoints, and what it did to the world: the blocks it changed, its hits and its chat lines
//! (world events, marked where they happened). Ticks are streamed from the core [`Reader`] one chunk at a time (for a few drawn
//! entities, only their events are decoded, [`Reader::read_chunk_entity`]); a path's points
//! closer together than a distance that doubles whenever the kept points pass a budget are merged,
//! so that a long recording needs bounded memory (the drawing simplifies further once its scale is
//! known).

use std::collections::{BTreeMap, BTreeSet};

use tickreel::format::{BlockPos, POS_SCALE, Pose};
use tickreel::play::Reader;
use tickreel::{Error, Event};

use crate::svg::simplify::{Pt, thin};

/// Points kept in memory over all paths before the merge distance doubles.
pub const POINT_BUDGET: usize = 400_000;

/// A jump of an entity: where it was, where it landed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Jump {
    pub tick: u32,
    pub from: Pt,
    pub to: Pt,
}

/// A checkpoint an entity reached, where it stood at the end of that tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mark {
    pub tick: u32,
    pub index: u32,
    pub at: Pt,
}

/// Most world marks kept per entity (the rest are counted in [`EntityPath::world_omitted`]).
pub const MAX_WORLD_MARKS: usize = 4096;

/// What a world mark shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorldKind {
    /// A block the entity changed (block change or one block of a multi-block change), at the
    /// block's centre.
    Block,
    /// An attack the entity made, where it stood.
    Hit,
    /// A chat line the entity sent, where it stood.
    Chat,
}

/// A world event of an entity, placed on the map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorldMark {
    pub tick: u32,
    pub kind: WorldKind,
    pub at: Pt,
}

/// One entity's path in the range.
#[derive(Debug, Clone, Default)]
pub struct EntityPath {
    pub id: u32,
    /// Continuous stretches, in order; x and z in blocks.
    pub segments: Vec<Vec<Pt>>,
    pub teleports: Vec<Jump>,
    pub checkpoints: Vec<Mark>,
    /// Its world events (blocks changed, hits, chat), at most [`MAX_WORLD_MARKS`].
    pub world: Vec<WorldMark>,
    /// World marks left out beyond [`MAX_WORLD_MARKS`].
    pub world_omitted: usize,
    /// Whether the last stretch is still open (the entity is present).
    open: bool,
}

impl EntityPath {
    fn last(&self) -> Option<Pt> {
        if !self.open {
            return None;
        }
        self.segments.last().and_then(|s| s.last().copied())
    }

    fn start(&mut self, p: Pt) {
        self.segments.push(vec![p]);
        self.open = true;
    }

    /// Adds `p` to the open stretch (or starts one); returns whether a point was added.
    fn go(&mut self, p: Pt, eps: f64) -> bool {
        if !self.open {
            self.start(p);
            return true;
        }
        let seg = self.segments.last_mut().expect("an open stretch");
        let n = seg.len();
        if seg[n - 1] == p {
            return false;
        }
        if n >= 2 && dist2(p, seg[n - 2]) < eps * eps {
            // close to the point before: the newest position replaces the stretch's end
            seg[n - 1] = p;
            return false;
        }
        seg.push(p);
        true
    }

    /// Adds a world mark (counted instead beyond [`MAX_WORLD_MARKS`]).
    fn mark(&mut self, tick: u32, kind: WorldKind, at: Pt) {
        if self.world.len() < MAX_WORLD_MARKS {
            self.world.push(WorldMark { tick, kind, at });
        } else {
            self.world_omitted += 1;
        }
    }

    /// Points over all stretches.
    pub fn point_count(&self) -> usize {
        self.segments.iter().map(Vec::len).sum()
    }
}

fn dist2(a: Pt, b: Pt) -> f64 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)
}

fn xz(p: &Pose) -> Pt {
    [p.x_f64(), p.z_f64()]
}

/// Every drawn entity's path over ticks `from..=to`.
#[derive(Debug, Clone)]
pub struct Paths {
    pub from: u32,
    pub to: u32,
    pub entities: BTreeMap<u32, EntityPath>,
    /// The merge distance reached (blocks; 0 when every distinct position was kept).
    pub merge_distance: f64,
}

/// Reads the paths of `only` (every entity when empty) over `from..=to` (default: the whole
/// recording, clamped into it).
pub fn collect(
    reader: &Reader,
    only: &BTreeSet<u32>,
    from: Option<u32>,
    to: Option<u32>,
) -> tickreel::Result<Paths> {
    collect_within(reader, only, from, to, POINT_BUDGET, true)
}

/// The entity an event gives a position to.
fn positioned(ev: &Event) -> Option<u32> {
    match *ev {
        Event::EntityAdd { entity, .. }
        | Event::Pose { entity, .. }
        | Event::Position { entity, .. }
        | Event::Teleport { entity, .. } => Some(entity),
        _ => None,
    }
}

/// Entities drawn at most with a decode of their own events only
/// ([`Reader::read_chunk_entity`], as a ghost load does); more take one decode of everything.
const PER_ENTITY_MAX: usize = 4;

/// The paths being read, tick by tick.
struct Collector<'a> {
    only: &'a BTreeSet<u32>,
    paths: Paths,
    /// Points held over all paths.
    kept: usize,
    budget: usize,
    /// Every entity with a position in the range, drawn or not (for the error naming them).
    seen: BTreeSet<u32>,
    pending: Vec<(u32, u32)>,
}

impl Collector<'_> {
    fn wanted(&self, id: u32) -> bool {
        self.only.is_empty() || self.only.contains(&id)
    }

    fn path(&mut self, id: u32) -> &mut EntityPath {
        self.paths.entities.entry(id).or_insert_with(|| EntityPath {
            id,
            ..EntityPath::default()
        })
    }

    /// Applies one tick's events (of drawn entities; each entity's path depends on its own
    /// events only).
    fn tick(&mut self, tick: u32, events: &[Event]) {
        let eps = self.paths.merge_distance;
        for ev in events {
            let Some(id) = ev.entity() else { continue };
            if positioned(ev).is_some() {
                self.seen.insert(id);
            }
            if !self.wanted(id) {
                continue;
            }
            let path = self.path(id);
            let added = match *ev {
                Event::EntityAdd { pose, .. } => {
                    // a reappearance is a new stretch, not a line from where it left
                    path.start(xz(&pose));
                    true
                }
                Event::Pose { pose, .. } => path.go(xz(&pose), eps),
                // Stored recordings carry `Pose` only (the writer folds these into it); a
                // position is still a position, a rotation does not move anything on the map.
                Event::Position { x, z, .. } => {
                    path.go([x as f64 / POS_SCALE, z as f64 / POS_SCALE], eps)
                }
                Event::Teleport { pose, .. } => {
                    let to_p = xz(&pose);
                    if let Some(from_p) = path.last() {
                        path.teleports.push(Jump {
                            tick,
                            from: from_p,
                            to: to_p,
                        });
                    }
                    path.start(to_p);
                    true
                }
                Event::EntityRemove { .. } | Event::PlayerLeave { .. } => {
                    path.open = false;
                    false
                }
                Event::Checkpoint { index, .. } => {
                    self.pending.push((id, index));
                    false
                }
                _ => {
                    world_marks(path, tick, ev);
                    false
                }
            };
            self.kept += usize::from(added);
        }
        // a checkpoint is where its entity stands once the tick is applied
        for (id, index) in std::mem::take(&mut self.pending) {
            let path = self.path(id);
            if let Some(at) = path.segments.last().and_then(|s| s.last().copied()) {
                path.checkpoints.push(Mark { tick, index, at });
            }
        }
        if self.kept > self.budget {
            let eps = (self.paths.merge_distance * 2.0).max(1.0 / 16.0);
            self.paths.merge_distance = eps;
            self.kept = 0;
            for path in self.paths.entities.values_mut() {
                for seg in &mut path.segments {
                    thin(seg, eps);
                }
                self.kept += path.point_count();
            }
        }
    }
}

/// The world marks of `ev`, an event of `path`'s entity: the blocks it changed at their centres,
/// an attack or a chat line where the entity stands (none if it has no position yet).
fn world_marks(path: &mut EntityPath, tick: u32, ev: &Event) {
    let centre = |p: BlockPos| [f64::from(p.x) + 0.5, f64::from(p.z) + 0.5];
    match ev {
        Event::BlockChange { pos, .. } => path.mark(tick, WorldKind::Block, centre(*pos)),
        Event::BlockChanges { blocks, .. } => {
            for (p, _) in blocks {
                path.mark(tick, WorldKind::Block, centre(*p));
            }
        }
        Event::Attack { .. } | Event::Chat { .. } => {
            let kind = if matches!(ev, Event::Attack { .. }) {
                WorldKind::Hit
            } else {
                WorldKind::Chat
            };
            if let Some(at) = path.last() {
                path.mark(tick, kind, at);
            }
        }
        _ => {}
    }
}

/// [`collect`] keeping about `budget` points in memory; `per_entity`: decode only the drawn
/// entities' events when there are few.
fn collect_within(
    reader: &Reader,
    only: &BTreeSet<u32>,
    from: Option<u32>,
    to: Option<u32>,
    budget: usize,
    per_entity: bool,
) -> tickreel::Result<Paths> {
    let (Some(first), Some(last)) = (reader.first_tick(), reader.last_tick()) else {
        return Err(Error::InvalidArgument("the recording has no ticks".into()));
    };
    let from = from.unwrap_or(first);
    let to = to.unwrap_or(last).min(last);
    if from > to {
        return Err(Error::InvalidArgument(format!(
            "no ticks to draw: --from {from} is after --to {to} (the recording has ticks {first}..={last})"
        )));
    }
    let mut c = Collector {
        only,
        paths: Paths {
            from,
            to,
            entities: BTreeMap::new(),
            merge_distance: 0.0,
        },
        kept: 0,
        budget,
        seen: BTreeSet::new(),
        pending: Vec::new(),
    };
    if from > first {
        // who is where when the range starts
        for e in reader.seek(from - 1)?.entities.iter() {
            c.seen.insert(e.id);
            if c.wanted(e.id) {
                c.path(e.id).start(xz(&e.pose));
                c.kept += 1;
            }
        }
    }
    let per_entity = per_entity && !only.is_empty() && only.len() <= PER_ENTITY_MAX;
    if per_entity {
        let start = reader.chunk_for_tick(from).unwrap_or(0);
        for i in start..reader.index().len() {
            if reader.index()[i].start_tick > to {
                break;
            }
            for &id in only {
                for t in reader.read_chunk_entity(i, id)?.ticks() {
                    if (from..=to).contains(&t.tick) {
                        c.tick(t.tick, &t.events);
                    }
                }
            }
        }
    } else {
        for t in reader.ticks(from, to) {
            let t = t?;
            c.tick(t.tick, &t.events);
        }
    }
    let mut paths = c.paths;
    paths.entities.retain(|_, p| !p.segments.is_empty());
    let missing: Vec<u32> = only
        .iter()
        .copied()
        .filter(|id| !paths.entities.contains_key(id))
        .collect();
    if !missing.is_empty() {
        let mut seen = c.seen;
        if per_entity {
            // only the drawn entities were decoded: a full read says who is there
            for t in reader.ticks(from, to) {
                seen.extend(t?.events.iter().filter_map(positioned));
            }
        }
        let have: Vec<String> = seen.iter().take(20).map(u32::to_string).collect();
        let missing: Vec<String> = missing.iter().map(u32::to_string).collect();
        return Err(Error::InvalidArgument(format!(
            "entity {} has no position in ticks {from}..={to}{}",
            missing.join(", "),
            if have.is_empty() {
                String::new()
            } else {
                let more = if seen.len() > have.len() { ", ..." } else { "" };
                format!(" (entities there: {}{more})", have.join(", "))
            }
        )));
    }
    if paths.entities.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "nothing to draw: no entity has a position in ticks {from}..={to}"
        )));
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tickreel::record::{ReelOptions, ReelWriter};

    /// One entity walking a wiggly line east for `n` ticks, teleported back west at tick `n / 2`.
    fn walk(path: &std::path::Path, n: u32) {
        let mut w = ReelWriter::create(path, ReelOptions::default()).unwrap();
        for t in 0..n {
            let x = f64::from(t) * 0.3 - if t >= n / 2 { 500.0 } else { 0.0 };
            let z = (f64::from(t) * 0.7).sin();
            let pose = Pose::from_f64(x, 64.0, z, 0.0, 0.0);
            let ev = match t {
                0 => Event::EntityAdd {
                    entity: 1,
                    kind: 1,
                    pose,
                },
                t if t == n / 2 => Event::Teleport { entity: 1, pose },
                _ => Event::Pose { entity: 1, pose },
            };
            w.write_tick(t, &[ev]).unwrap();
        }
        w.finish().unwrap();
    }

    #[test]
    fn past_the_budget_close_points_merge_and_the_ends_stay() {
        let dir = tempfile::tempdir().unwrap();
        let reel = dir.path().join("walk.reel");
        walk(&reel, 20_000);
        let r = Reader::open_path(&reel).unwrap();
        let all = collect_within(&r, &BTreeSet::new(), None, None, usize::MAX, false).unwrap();
        assert_eq!(all.merge_distance, 0.0);
        assert_eq!(all.entities[&1].point_count(), 20_000);
        let few = collect_within(&r, &BTreeSet::new(), None, None, 2_000, false).unwrap();
        assert!(few.merge_distance > 0.0);
        let path = &few.entities[&1];
        assert!(
            path.point_count() <= 2_000 + 2_000 / 2,
            "{}",
            path.point_count()
        );
        // the teleport still splits the path, and each stretch keeps its first and last position
        assert_eq!(path.segments.len(), 2);
        assert_eq!(path.teleports.len(), 1);
        for (mine, theirs) in path.segments.iter().zip(&all.entities[&1].segments) {
            assert_eq!(mine.first(), theirs.first());
            assert_eq!(mine.last(), theirs.last());
        }
        // every kept point is a recorded position
        let full = &all.entities[&1].segments[0];
        for p in &path.segments[0] {
            assert!(
                full.iter().any(|q| dist2(*p, *q) < 1e-12),
                "{p:?} is a recorded point"
            );
        }
    }

    #[test]
    fn decoding_only_the_drawn_entities_draws_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let reel = dir.path().join("sim.reel");
        let mut sim = tickreel_sim::Simulator::new(tickreel_sim::SimConfig {
            players: 5,
            seed: 4,
            teleport_chance: 0.004,
            churn_chance: 0.002,
            custom_event_chance: 0.01,
        });
        let mut w = ReelWriter::create(&reel, ReelOptions::default()).unwrap();
        for _ in 0..3000 {
            let (t, mut ev) = sim.step();
            if t % 97 == 0 {
                let moved: Vec<u32> = ev.iter().filter_map(positioned).collect();
                for entity in moved {
                    ev.push(Event::Checkpoint {
                        entity,
                        index: t / 97,
                    });
                }
            }
            w.write_tick(t, &ev).unwrap();
        }
        w.finish().unwrap();
        let r = Reader::open_path(&reel).unwrap();
        for (from, to) in [(None, None), (Some(700), Some(2100))] {
            // three entities of the range, those that teleported first
            let every =
                collect_within(&r, &BTreeSet::new(), from, to, POINT_BUDGET, false).unwrap();
            let mut ids: Vec<&EntityPath> = every.entities.values().collect();
            ids.sort_by_key(|p| (p.teleports.is_empty(), p.checkpoints.is_empty(), p.id));
            let only: BTreeSet<u32> = ids.iter().take(3).map(|p| p.id).collect();
            assert!(ids.len() > 3 && !ids[0].teleports.is_empty());
            let fast = collect_within(&r, &only, from, to, POINT_BUDGET, true).unwrap();
            let full = collect_within(&r, &only, from, to, POINT_BUDGET, false).unwrap();
            assert_eq!(fast.entities.len(), 3);
            for (a, b) in fast.entities.values().zip(full.entities.values()) {
                assert_eq!(
                    (a.id, &a.segments, &a.teleports),
                    (b.id, &b.segments, &b.teleports)
                );
                assert_eq!(a.checkpoints, b.checkpoints);
            }
            assert!(fast.entities.values().any(|p| !p.checkpoints.is_empty()));
        }
        let err = collect_within(&r, &BTreeSet::from([77]), None, None, POINT_BUDGET, true)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("entity 77 has no position") && err.contains("entities there: 1, 2, 3"),
            "{err}"
        );
    }
}
