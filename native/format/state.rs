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
