//! Entity state as the library tracks it: which entities are alive, their kind, flags and pose.
//! Written into every chunk as its keyframe, and rebuilt by readers when seeking.

use std::collections::BTreeMap;

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

/// All live entities at one tick, by id.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EntityTable {
    pub entities: BTreeMap<u32, EntityState>,
}

impl EntityTable {
    /// Applies one event; returns `true` if the entity's pose changed (a pose sample is due).
    pub fn apply(&mut self, e: &Event) -> bool {
        match *e {
            Event::EntityAdd { entity, kind, pose } => {
                self.entities.insert(
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
                self.entities.remove(&entity);
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
    /// one map lookup. Returns the entity's new pose and whether the entity was implicitly added
    /// (a pose for an entity never added); `None` for other events.
    #[inline]
    pub fn apply_pose(&mut self, e: &Event) -> Option<(Pose, bool)> {
        use std::collections::btree_map::Entry;
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
        let (state, added) = match self.entities.entry(id) {
            Entry::Occupied(o) => (o.into_mut(), false),
            Entry::Vacant(v) => (
                v.insert(EntityState {
                    id,
                    ..EntityState::default()
                }),
                true,
            ),
        };
        let p = &mut state.pose;
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

    /// The entity, created with kind 0 at the origin if a pose event names an entity never added.
    fn entry(&mut self, id: u32) -> &mut EntityState {
        self.entities.entry(id).or_insert(EntityState {
            id,
            ..EntityState::default()
        })
    }

    pub fn get(&self, id: u32) -> Option<&EntityState> {
        self.entities.get(&id)
    }

    pub fn len(&self) -> usize {
        self.entities.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }
}
