//! Entity state as the library tracks it: which entities are alive, their kind, flags and pose.
//! Written into every chunk as its keyframe, rebuilt by readers when seeking, and kept by every
//! playhead as it plays.

use crate::format::event::Event;
use crate::format::pose::Pose;

/// One entity's state at a tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EntityState {
    pub id: u32,
    pub kind: u32,
    pub flags: u32,
    pub pose: Pose,
}

/// All live entities at one tick, sorted by id (no two with the same id).
///
/// A sorted list rather than a map because playback lives on it: a playhead hands it to the
/// plugin as a slice without copying ([`EntityTable::as_slice`]), walks it in id order alongside
/// a chunk's pose tracks (which are sorted by id too) and clones it into a reused buffer on every
/// jump. Lookups are binary searches; adding or removing an entity moves the entities after it,
/// which stays cheap because new entities usually get the highest ids.
#[derive(Debug, PartialEq, Eq, Default)]
pub struct EntityTable {
    entities: Vec<EntityState>,
}

impl Clone for EntityTable {
    fn clone(&self) -> Self {
        EntityTable {
            entities: self.entities.clone(),
        }
    }

    /// Reuses `self`'s buffer (a playhead keeps the previous state this way without allocating).
    fn clone_from(&mut self, source: &Self) {
        self.entities.clone_from(&source.entities);
    }
}

/// Entities in any order; where two have the same id, the later one is kept.
impl FromIterator<EntityState> for EntityTable {
    fn from_iter<I: IntoIterator<Item = EntityState>>(iter: I) -> Self {
        let mut t = EntityTable {
            entities: iter.into_iter().collect(),
        };
        t.normalize();
        t
    }
}

impl EntityTable {
    /// Applies one event; returns `true` if the entity's pose changed (a pose sample is due).
    pub fn apply(&mut self, e: &Event) -> bool {
        match *e {
            Event::EntityAdd { entity, kind, pose } => {
                self.upsert(EntityState {
                    id: entity,
                    kind,
                    flags: 0,
                    pose,
                });
                true
            }
            Event::EntityRemove { entity } | Event::PlayerLeave { entity } => {
                self.remove(entity);
                false
            }
            Event::Pose { entity, pose } | Event::Teleport { entity, pose } => {
                self.entry(entity).pose = pose;
                true
            }
            Event::Position { entity, x, y, z } => {
                let p = &mut self.entry(entity).pose;
                p.x = x;
                p.y = y;
                p.z = z;
                true
            }
            Event::Rotation { entity, yaw, pitch } => {
                let p = &mut self.entry(entity).pose;
                p.yaw = yaw;
                p.pitch = pitch;
                true
            }
            Event::Flags { entity, flags } => {
                self.entry(entity).flags = flags;
                false
            }
            _ => false,
        }
    }

    /// Applies a pose-bearing event (`EntityAdd`, `Pose`, `Position`, `Rotation`, `Teleport`) with
    /// one lookup. Returns the entity's new pose and whether the entity was implicitly added
    /// (a pose for an entity never added); `None` for other events.
    #[inline]
    pub fn apply_pose(&mut self, e: &Event) -> Option<(Pose, bool)> {
        let id = match *e {
            Event::Pose { entity, .. }
            | Event::Position { entity, .. }
            | Event::Rotation { entity, .. }
            | Event::Teleport { entity, .. } => entity,
            Event::EntityAdd { .. } => {
                self.apply(e);
                let Event::EntityAdd { pose, .. } = e else {
                    unreachable!()
                };
                return Some((*pose, false));
            }
            _ => return None,
        };
        let (k, added) = match self.find(id) {
            Ok(k) => (k, false),
            Err(k) => {
                self.entities.insert(
                    k,
                    EntityState {
                        id,
                        ..EntityState::default()
                    },
                );
                (k, true)
            }
        };
        let p = &mut self.entities[k].pose;
        match *e {
            Event::Pose { pose, .. } | Event::Teleport { pose, .. } => *p = pose,
            Event::Position { x, y, z, .. } => {
                p.x = x;
                p.y = y;
                p.z = z;
            }
            Event::Rotation { yaw, pitch, .. } => {
                p.yaw = yaw;
                p.pitch = pitch;
            }
            _ => {}
        }
        Some((*p, added))
    }

    /// The state of entity `id`, if alive.
    #[inline]
    pub fn get(&self, id: u32) -> Option<&EntityState> {
        self.find(id).ok().map(|i| &self.entities[i])
    }

    /// Whether entity `id` is alive.
    pub fn contains(&self, id: u32) -> bool {
        self.find(id).is_ok()
    }

    /// Every live entity, in id order.
    pub fn iter(&self) -> std::slice::Iter<'_, EntityState> {
        self.entities.iter()
    }

    /// Every live entity, sorted by id.
    pub fn as_slice(&self) -> &[EntityState] {
        &self.entities
    }

    pub fn len(&self) -> usize {
        self.entities.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    // ----- for the library's own use (playback, the chunk encoder) -----

    /// Position of entity `id` in [`EntityTable::as_slice`] (`Err`: where it would go).
    #[inline]
    pub(crate) fn find(&self, id: u32) -> Result<usize, usize> {
        self.entities.binary_search_by_key(&id, |e| e.id)
    }

    /// The state of entity `id`, if alive, to change anything but its id.
    #[inline]
    pub(crate) fn get_mut(&mut self, id: u32) -> Option<&mut EntityState> {
        self.find(id).ok().map(|i| &mut self.entities[i])
    }

    /// Puts `s` into the table (replacing an entity with the same id).
    pub(crate) fn upsert(&mut self, s: EntityState) {
        match self.find(s.id) {
            Ok(i) => self.entities[i] = s,
            Err(i) => self.entities.insert(i, s),
        }
    }

    /// Removes entity `id` if present.
    pub(crate) fn remove(&mut self, id: u32) -> Option<EntityState> {
        self.find(id).ok().map(|i| self.entities.remove(i))
    }

    /// Replaces the content with `states` (in any order; where two have the same id, the later
    /// one is kept), reusing the buffer.
    pub(crate) fn reset_to(&mut self, states: &[EntityState]) {
        self.entities.clear();
        self.entities.extend_from_slice(states);
        self.normalize();
    }

    /// Index of entity `id`, searching forward from index `from` (a pass over a chunk's tracks,
    /// sorted by id, walks the table once instead of searching it per track).
    #[inline]
    pub(crate) fn walk(&self, from: usize, id: u32) -> Result<usize, usize> {
        let list = &self.entities;
        let mut j = from;
        while j < list.len() && list[j].id < id {
            j += 1;
        }
        if j < list.len() && list[j].id == id {
            Ok(j)
        } else {
            Err(j)
        }
    }

    /// Sets the pose of entity `id` found by walking from `*j` (creating it, kind 0, if absent, as
    /// `apply(Event::Pose)` does); leaves `*j` at its index.
    #[inline]
    pub(crate) fn set_pose_walk(&mut self, j: &mut usize, id: u32, pose: Pose) {
        match self.walk(*j, id) {
            Ok(k) => {
                self.entities[k].pose = pose;
                *j = k;
            }
            Err(k) => {
                self.entities.insert(
                    k,
                    EntityState {
                        id,
                        pose,
                        ..EntityState::default()
                    },
                );
                *j = k;
            }
        }
    }

    /// Sets the pose of the entity at index `k` of [`EntityTable::as_slice`].
    #[inline]
    pub(crate) fn set_pose_at(&mut self, k: usize, pose: Pose) {
        self.entities[k].pose = pose;
    }

    /// Entities the buffer has room for (for heap accounting).
    pub(crate) fn capacity(&self) -> usize {
        self.entities.capacity()
    }

    /// The entity, created with kind 0 at the origin if a pose event names an entity never added.
    fn entry(&mut self, id: u32) -> &mut EntityState {
        let i = match self.find(id) {
            Ok(i) => i,
            Err(i) => {
                self.entities.insert(
                    i,
                    EntityState {
                        id,
                        ..EntityState::default()
                    },
                );
                i
            }
        };
        &mut self.entities[i]
    }

    /// Sorts by id and drops all but the last of entities with the same id.
    fn normalize(&mut self) {
        self.entities.sort_by_key(|e| e.id);
        self.entities.dedup_by(|later, kept| {
            let same = later.id == kept.id;
            if same {
                *kept = *later;
            }
            same
        });
    }
}

/// The entity whose state `e` may change (per [`EntityTable::apply`]), if any.
pub(crate) fn touched_entity(e: &Event) -> Option<u32> {
    match *e {
        Event::EntityAdd { entity, .. }
        | Event::EntityRemove { entity }
        | Event::PlayerLeave { entity }
        | Event::Pose { entity, .. }
        | Event::Teleport { entity, .. }
        | Event::Position { entity, .. }
        | Event::Rotation { entity, .. }
        | Event::Flags { entity, .. } => Some(entity),
        _ => None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The table as it was before it became a sorted list: a map by id, with events applied as
    /// below. The sorted table must behave exactly like it.
    #[derive(Default)]
    struct MapTable(BTreeMap<u32, EntityState>);

    impl MapTable {
        fn apply(&mut self, e: &Event) -> bool {
            match *e {
                Event::EntityAdd { entity, kind, pose } => {
                    self.0.insert(
                        entity,
                        EntityState {
                            id: entity,
                            kind,
                            flags: 0,
                            pose,
                        },
                    );
                    true
                }
                Event::EntityRemove { entity } | Event::PlayerLeave { entity } => {
                    self.0.remove(&entity);
                    false
                }
                Event::Pose { entity, pose } | Event::Teleport { entity, pose } => {
                    self.entry(entity).pose = pose;
                    true
                }
                Event::Position { entity, x, y, z } => {
                    let p = &mut self.entry(entity).pose;
                    p.x = x;
                    p.y = y;
                    p.z = z;
                    true
                }
                Event::Rotation { entity, yaw, pitch } => {
                    let p = &mut self.entry(entity).pose;
                    p.yaw = yaw;
                    p.pitch = pitch;
                    true
                }
                Event::Flags { entity, flags } => {
                    self.entry(entity).flags = flags;
                    false
                }
                _ => false,
            }
        }

        fn entry(&mut self, id: u32) -> &mut EntityState {
            self.0.entry(id).or_insert(EntityState {
                id,
                ..EntityState::default()
            })
        }

        fn to_vec(&self) -> Vec<EntityState> {
            self.0.values().copied().collect()
        }
    }

    pub(crate) fn pose(v: i64) -> Pose {
        Pose {
            x: v,
            y: 64 * 4096 + v,
            z: -v,
            yaw: v * 7,
            pitch: v % 100,
        }
    }

    /// One random event over entity ids 1 to 5 (the test streams of this module and of playback).
    pub(crate) fn random_event(rng: &mut fastrand::Rng) -> Event {
        let entity = rng.u32(1..6);
        let v = rng.i64(-100_000..100_000);
        match rng.u32(0..12) {
            0 => Event::EntityAdd {
                entity,
                kind: rng.u32(0..3),
                pose: pose(v),
            },
            1 => Event::EntityRemove { entity },
            2 => Event::PlayerLeave { entity },
            3 | 4 => Event::Pose {
                entity,
                pose: pose(v),
            },
            5 => Event::Position {
                entity,
                x: v,
                y: v,
                z: v,
            },
            6 => Event::Rotation {
                entity,
                yaw: v,
                pitch: v / 2,
            },
            7 => Event::Teleport {
                entity,
                pose: pose(v),
            },
            8 | 9 => Event::Flags {
                entity,
                flags: rng.u32(0..8),
            },
            10 => Event::Custom {
                type_id: 3,
                data: vec![rng.u8(..); 3],
            },
            _ => Event::Checkpoint { entity, index: 1 },
        }
    }

    /// Random events over a few entity ids, including poses of entities never added (implicit
    /// creation), removals, teleports, partial poses and events that change no entity.
    fn random_events(seed: u64, n: usize) -> Vec<Event> {
        let mut rng = fastrand::Rng::with_seed(seed);
        (0..n).map(|_| random_event(&mut rng)).collect()
    }

    #[test]
    fn sorted_table_applies_events_exactly_as_a_map_by_id() {
        for seed in 0..20 {
            let mut map = MapTable::default();
            let mut table = EntityTable::default();
            let mut by_pose = EntityTable::default();
            for e in random_events(seed, 1000) {
                assert_eq!(table.apply(&e), map.apply(&e), "seed {seed} {e:?}");
                assert_eq!(table.as_slice(), map.to_vec(), "seed {seed}");
                // apply_pose: the same state for pose-bearing events.
                let before = by_pose.get(touched_entity(&e).unwrap_or(0)).copied();
                match by_pose.apply_pose(&e) {
                    Some((p, added)) => {
                        let now = by_pose.get(touched_entity(&e).unwrap()).unwrap();
                        assert_eq!(now.pose, p);
                        let was_add = matches!(e, Event::EntityAdd { .. });
                        assert_eq!(added, before.is_none() && !was_add);
                    }
                    None => {
                        by_pose.apply(&e);
                    }
                }
                assert_eq!(by_pose, table, "seed {seed}");
            }
        }
    }

    #[test]
    fn built_from_any_order_the_later_duplicate_wins() {
        let s = |id, kind| EntityState {
            id,
            kind,
            ..EntityState::default()
        };
        let t: EntityTable = [s(5, 0), s(2, 1), s(5, 2), s(1, 0), s(2, 3)]
            .into_iter()
            .collect();
        assert_eq!(t.as_slice(), [s(1, 0), s(2, 3), s(5, 2)]);
        let mut r = EntityTable::default();
        r.reset_to(&[s(5, 0), s(2, 1), s(5, 2), s(1, 0), s(2, 3)]);
        assert_eq!(r, t);
        assert!(t.contains(2) && !t.contains(3));
    }
}
