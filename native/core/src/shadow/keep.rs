//! What a report keeps of each tick's events: what concerns the reported player (the entities
//! within the radius, the blocks and placed events near the player, the interactions with kept
//! entities, the chat privacy allows), and nothing else ([`ReportKeep`] documents the rules).

use rustc_hash::{FxHashMap, FxHashSet};

use crate::format::event::Event;
use crate::format::pose::POS_SCALE;
use crate::format::state::EntityState;
use crate::format::{BlockPos, UseTarget, channel};
use crate::shadow::options::{ReportChat, ReportKeep};

/// The entity an event puts somewhere and where (fixed point): what [`Keeper::observe`] takes
/// in.
pub(crate) fn position_given(e: &Event) -> Option<(u32, [i64; 3])> {
    match *e {
        Event::EntityAdd { entity, pose, .. }
        | Event::Pose { entity, pose }
        | Event::Teleport { entity, pose } => Some((entity, [pose.x, pose.y, pose.z])),
        Event::Position { entity, x, y, z } => Some((entity, [x, y, z])),
        _ => None,
    }
}

/// The filter of one report, fed the report's ticks in order.
pub(crate) struct Keeper {
    player: u32,
    /// Squared radius in fixed-point units (`None`: no radius, everything placed is kept).
    r2: Option<f64>,
    /// Entities kept with their whole track (`None`: all).
    included: Option<FxHashSet<u32>>,
    keep: ReportKeep,
    /// Each entity's last known position (fixed point), removed entities' too.
    positions: FxHashMap<u32, [i64; 3]>,
}

impl Keeper {
    /// A filter keeping `included` (`None`: every entity) and what happens within `radius`
    /// blocks of `player`.
    pub(crate) fn new(
        player: u32,
        radius: Option<f64>,
        included: Option<FxHashSet<u32>>,
        keep: ReportKeep,
    ) -> Keeper {
        Keeper {
            player,
            r2: radius.map(|r| (r * POS_SCALE) * (r * POS_SCALE)),
            included,
            keep,
            positions: FxHashMap::default(),
        }
    }

    /// Takes in where the entities of a state stand (the state just before the report's first
    /// tick).
    pub(crate) fn observe_state(&mut self, state: &[EntityState]) {
        for e in state {
            self.positions.insert(e.id, [e.pose.x, e.pose.y, e.pose.z]);
        }
    }

    /// Whether the entity is kept with its whole track.
    pub(crate) fn keeps_entity(&self, id: u32) -> bool {
        self.included.as_ref().is_none_or(|s| s.contains(&id))
    }

    /// Takes in the positions one tick's events carry; call before [`Keeper::filter`] for the
    /// same tick (distances are measured where everyone stands at that tick).
    pub(crate) fn observe(&mut self, events: &[Event]) {
        for (id, p) in events.iter().filter_map(position_given) {
            self.positions.insert(id, p);
        }
    }

    /// Whether a fixed-point position is within the radius of the reported player now.
    fn near(&self, p: [f64; 3]) -> bool {
        let Some(r2) = self.r2 else { return true };
        let Some(me) = self.positions.get(&self.player) else {
            return false;
        };
        let d = [0, 1, 2].map(|k| p[k] - me[k] as f64);
        d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= r2
    }

    /// Whether a block (its centre) is within the radius of the reported player now.
    fn near_block(&self, b: BlockPos) -> bool {
        let c = |v: i32| (f64::from(v) + 0.5) * POS_SCALE;
        self.all_blocks() || self.near([c(b.x), c(b.y), c(b.z)])
    }

    fn all_blocks(&self) -> bool {
        self.keep.all_blocks || self.r2.is_none()
    }

    fn near_entity(&self, id: u32) -> bool {
        self.positions
            .get(&id)
            .is_some_and(|p| self.near(p.map(|v| v as f64)))
    }

    fn keeps_opt(&self, id: Option<u32>) -> bool {
        id.is_some_and(|id| self.keeps_entity(id))
    }

    /// The event as the report keeps it: `None` when it is left out, a multi-block change cut to
    /// its blocks within the radius.
    pub(crate) fn filter(&self, e: Event) -> Option<Event> {
        let by_player = |id: Option<u32>| id == Some(self.player);
        let kept = match &e {
            Event::BlockChange { pos, cause, .. } => by_player(*cause) || self.near_block(*pos),
            Event::BlockChanges { cause, blocks } => {
                if by_player(*cause) || self.all_blocks() {
                    true
                } else {
                    let near: Vec<_> = blocks
                        .iter()
                        .copied()
                        .filter(|b| self.near_block(b.0))
                        .collect();
                    return (!near.is_empty()).then_some(Event::BlockChanges {
                        cause: *cause,
                        blocks: near,
                    });
                }
            }
            Event::Use { entity, target, .. } => {
                self.keeps_entity(*entity)
                    || match *target {
                        UseTarget::Entity(t) => self.keeps_entity(t),
                        UseTarget::Block(b) => self.near_block(b),
                        UseTarget::Nothing => false,
                    }
            }
            Event::Attack { .. } | Event::Damage { .. } => {
                self.keeps_opt(e.entity()) || self.keeps_opt(e.other_entity())
            }
            Event::Chat {
                sender, channel: c, ..
            } => match self.keep.chat {
                ReportChat::All => true,
                ReportChat::Public if matches!(*c, channel::PUBLIC | channel::SYSTEM) => true,
                _ => {
                    by_player(*sender)
                        || (*c == channel::PUBLIC && sender.is_some_and(|s| self.near_entity(s)))
                }
            },
            Event::CustomAt {
                entity, position, ..
            } => match (entity, position) {
                (None, None) => true,
                _ => {
                    self.keeps_opt(*entity)
                        || position
                            .as_deref()
                            .is_some_and(|p| self.all_blocks() || self.near(p.map(|v| v as f64)))
                }
            },
            // Nothing places them.
            Event::Custom { .. } | Event::Extension { .. } => true,
            _ => self.keeps_opt(e.entity()),
        };
        kept.then_some(e)
    }
}
