//! The demo's world: what its simulated players do besides moving, as the built-in events a
//! server plugin submits. They break the ground next to them and place cobblestone or planks
//! (a swing, a use on the block below and a block change caused by the player), hit the zombie
//! that spawned near them (a swing, an attack, damage and the zombie's new health; a zombie at
//! 0 is removed, one left 16 blocks behind despawns, and a new one spawns near the player a few
//! seconds later),
//! switch their held item between a sword and a pickaxe, and chat. The terrain around the
//! course is offered once at the start, as a server offers the chunks around its players.
//!
//! [`DemoWorld`] keeps the truth the demo checks the file against: the edited blocks (the world
//! the reader rebuilds at the last tick must equal them: [`DemoWorld::check_rebuilt`]) and what a
//! shadow-play report about any player must keep and leave out ([`DemoWorld::check_report`]).

use std::collections::HashMap;

use tickreel::format::{BlockPos, EntityTable, PaletteKind, UseTarget, channel, hand, slot};
use tickreel::play::Reader;
use tickreel::{Error, Event, Pose, Recorder};
use tickreel_sim::realistic::kind;
use tickreel_sim::terrain::TerrainGen;
use tickreel_sim::world::{block, item, palette};

use super::demo_course::FIRST_RUNNER;

/// The first zombie's entity id (above the simulator's players and the course's runners).
pub const FIRST_MOB: u32 = 200_000;
/// A zombie's health, in hundredths of a point.
const MOB_HEALTH: u32 = 2000;
/// A diamond sword's hit, in hundredths of a point.
const SWORD_DAMAGE: u32 = 700;
/// The damage cause of a player's attack (the sim's palette).
const PLAYER_ATTACK: u32 = 1;
/// How far a player reaches to hit (blocks).
const REACH: f64 = 4.5;
/// A zombie this far behind its player despawns (blocks).
const LEASH: f64 = 16.0;
/// Per simulated player and tick: a block broken, a block placed, a hit (with the zombie in
/// reach), a chat line, a change of held item. Blocks about as often as on a busy survival server
/// (CastiaMC's 1,726 broken an hour per player, `tickreel_sim::world::WorldRates`); hits more
/// often, so that a two-minute demo shows fights.
const BREAK: f64 = 0.02;
const PLACE: f64 = 0.01;
const HIT: f64 = 0.04;
/// Per player without a zombie and tick: one spawns near them.
const SPAWN: f64 = 0.01;
const CHAT: f64 = 1.0 / 300.0;
const SWITCH: f64 = 1.0 / 200.0;
/// The terrain offered around the course: this many chunk columns a side, centred on the
/// course's middle chunk (24 sections a column).
const TERRAIN_SIDE: i32 = 5;
/// The report's radius ([`tickreel::shadow::ReportOptions`]'s default) and the slack allowed for
/// where in its tick a position is taken.
const RADIUS: f64 = 48.0;
const SLACK: f64 = 1.0;

/// What the simulated players did to the world over the session.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorldCounts {
    pub broken: u64,
    pub placed: u64,
    pub hits: u64,
    pub kills: u64,
    pub chat_lines: u64,
    pub equipment_changes: u64,
    pub terrain_sections: usize,
}

/// What the rebuilt world showed ([`DemoWorld::check_rebuilt`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rebuilt {
    /// Edited blocks in the world rebuilt at the last tick (each equal to the simulated one).
    pub blocks: usize,
    /// Terrain sections in effect at the last tick.
    pub terrain_sections: usize,
}

/// What a report kept of the reported player's world ([`DemoWorld::check_report`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportWorld {
    /// The reported player's hits (all of them in the report's window).
    pub hits: usize,
    /// Block changes in the report: the player's own and others' within the radius.
    pub blocks: usize,
    /// Chat lines in the report (the player's and near players' public lines).
    pub chat_lines: usize,
    /// Chat lines of the window sent by players beyond the radius: none is in the report.
    pub far_chat_lines: usize,
}

#[derive(Debug, Clone, Copy)]
struct Mob {
    id: u32,
    x: f64,
    y: f64,
    z: f64,
    health: u32,
}

/// The simulated players' world acts and the truth to check the recording against.
#[derive(Debug, Clone)]
pub struct DemoWorld {
    rng: fastrand::Rng,
    next_mob: u32,
    /// Each player's zombie, by player.
    mobs: HashMap<u32, Mob>,
    /// The edited blocks as the simulation left them (air included).
    blocks: HashMap<BlockPos, u32>,
    pub counts: WorldCounts,
    /// Every simulated player's position (blocks) at each tick, for the report's radius.
    positions: Vec<Vec<(u32, [f64; 3])>>,
    attacks: Vec<(u32, u32)>,
    changes: Vec<(u32, BlockPos, Option<u32>)>,
    chats: Vec<(u32, u32)>,
}

/// Whether `id` is one of the simulator's players (not a runner, not a zombie).
pub fn is_simulated_player(id: u32) -> bool {
    id < FIRST_RUNNER
}

impl DemoWorld {
    pub fn new(seed: u64) -> DemoWorld {
        DemoWorld {
            rng: fastrand::Rng::with_seed(seed ^ 0x0064_656d_6f77),
            next_mob: FIRST_MOB,
            mobs: HashMap::new(),
            blocks: HashMap::new(),
            counts: WorldCounts::default(),
            positions: Vec::new(),
            attacks: Vec::new(),
            changes: Vec::new(),
            chats: Vec::new(),
        }
    }

    /// Registers the names of the blocks, items and damage causes the players use, and offers
    /// the terrain around the course (centred on its middle chunk).
    pub fn started(&mut self, rec: &Recorder, seed: u64) -> tickreel::Result<()> {
        for (kind, id, name) in palette() {
            rec.register_name(kind, id, name)?;
        }
        debug_assert!(palette().iter().any(|p| p.0 == PaletteKind::DamageCause));
        let sections = TerrainGen::new(seed).area(1, 0, TERRAIN_SIDE)?;
        self.counts.terrain_sections = sections.len();
        rec.offer_terrain(sections)
    }

    /// Adds tick `tick`'s world acts of the simulated players in `table` (the state before the
    /// tick) to `events` (the tick's events so far): none for a player leaving in this tick.
    pub fn tick(&mut self, tick: u32, events: &mut Vec<Event>, table: &EntityTable) {
        let leaving: Vec<u32> = events
            .iter()
            .filter_map(|e| match *e {
                Event::EntityRemove { entity } | Event::PlayerLeave { entity } => Some(entity),
                _ => None,
            })
            .collect();
        let players: Vec<(u32, [f64; 3])> = table
            .iter()
            .filter(|s| is_simulated_player(s.id))
            .map(|s| (s.id, [s.pose.x_f64(), s.pose.y_f64(), s.pose.z_f64()]))
            .collect();
        while self.positions.len() < tick as usize {
            self.positions.push(Vec::new());
        }
        self.positions.push(players.clone());
        // zombies of players who left
        let gone: Vec<u32> = self
            .mobs
            .keys()
            .copied()
            .filter(|p| leaving.contains(p) || !players.iter().any(|q| q.0 == *p))
            .collect();
        for p in gone {
            if let Some(m) = self.mobs.remove(&p) {
                events.push(Event::EntityRemove { entity: m.id });
            }
        }
        for &(p, at) in &players {
            if leaving.contains(&p) {
                continue;
            }
            self.mob(tick, p, at, events);
            self.edit(tick, p, at, events);
            if self.rng.f64() < SWITCH {
                let held = if self.rng.bool() {
                    item::DIAMOND_SWORD
                } else {
                    item::IRON_PICKAXE
                };
                events.push(Event::Equipment {
                    entity: p,
                    slot: slot::MAIN_HAND,
                    item: held,
                    count: 1,
                });
                self.counts.equipment_changes += 1;
            }
            if self.rng.f64() < CHAT {
                events.push(Event::Chat {
                    sender: Some(p),
                    channel: channel::PUBLIC,
                    text: format!("player{p}: anyone up for the course?"),
                });
                self.chats.push((tick, p));
                self.counts.chat_lines += 1;
            }
        }
    }

    /// The player's zombie: spawned near them, hit while in reach, removed at 0 health or when
    /// left behind.
    fn mob(&mut self, tick: u32, p: u32, at: [f64; 3], events: &mut Vec<Event>) {
        let Some(mut m) = self.mobs.get(&p).copied() else {
            if self.rng.f64() >= SPAWN {
                return;
            }
            let id = self.next_mob;
            self.next_mob += 1;
            let (dx, dz) = (self.rng.f64() * 3.0 - 1.5, self.rng.f64() * 3.0 - 1.5);
            let m = Mob {
                id,
                x: at[0] + dx,
                y: at[1],
                z: at[2] + dz,
                health: MOB_HEALTH,
            };
            events.push(Event::EntityAdd {
                entity: id,
                kind: kind::ZOMBIE,
                pose: Pose::from_f64(m.x, m.y, m.z, self.rng.f64() * 360.0 - 180.0, 0.0),
            });
            events.push(Event::Health {
                entity: id,
                health: MOB_HEALTH,
            });
            self.mobs.insert(p, m);
            return;
        };
        let d = distance(at, [m.x, m.y, m.z]);
        if d > LEASH {
            events.push(Event::EntityRemove { entity: m.id });
            self.mobs.remove(&p);
            return;
        }
        if d <= REACH && self.rng.f64() < HIT {
            events.push(Event::Swing {
                entity: p,
                hand: hand::MAIN,
            });
            events.push(Event::Attack {
                attacker: p,
                target: m.id,
            });
            events.push(Event::Damage {
                entity: m.id,
                amount: SWORD_DAMAGE,
                cause: PLAYER_ATTACK,
                source: Some(p),
            });
            m.health = m.health.saturating_sub(SWORD_DAMAGE);
            events.push(Event::Health {
                entity: m.id,
                health: m.health,
            });
            self.attacks.push((tick, p));
            self.counts.hits += 1;
            if m.health == 0 {
                events.push(Event::EntityRemove { entity: m.id });
                self.mobs.remove(&p);
                self.counts.kills += 1;
            } else {
                self.mobs.insert(p, m);
            }
        }
    }

    /// A block broken below the player's side, or one placed beside them.
    fn edit(&mut self, tick: u32, p: u32, at: [f64; 3], events: &mut Vec<Event>) {
        let (dx, dz) = (self.rng.i32(-1..=1), self.rng.i32(-1..=1));
        let (x, y, z) = (
            at[0].floor() as i32 + dx,
            at[1].floor() as i32,
            at[2].floor() as i32 + dz,
        );
        let r = self.rng.f64();
        let (pos, state) = if r < BREAK {
            self.counts.broken += 1;
            (BlockPos::new(x, y - 1, z), block::AIR)
        } else if r < BREAK + PLACE {
            let (state, held) = if self.rng.bool() {
                (block::COBBLESTONE, item::COBBLESTONE)
            } else {
                (block::OAK_PLANKS, item::OAK_PLANKS)
            };
            events.push(Event::Use {
                entity: p,
                hand: hand::MAIN,
                item: held,
                target: UseTarget::Block(BlockPos::new(x, y - 1, z)),
            });
            self.counts.placed += 1;
            (BlockPos::new(x, y, z), state)
        } else {
            return;
        };
        events.push(Event::Swing {
            entity: p,
            hand: hand::MAIN,
        });
        events.push(Event::BlockChange {
            pos,
            state,
            cause: Some(p),
            block_entity: None,
        });
        self.blocks.insert(pos, state);
        self.changes.push((tick, pos, Some(p)));
    }

    /// The world `reader` rebuilds at its last tick holds exactly the blocks the simulation
    /// edited, each with the state it left, and the terrain offered.
    pub fn check_rebuilt(&self, reader: &Reader) -> tickreel::Result<Rebuilt> {
        let last = reader.last_tick().unwrap_or(0);
        let at = reader.world_at(last)?;
        let rebuilt: HashMap<BlockPos, u32> = at.world.blocks().collect();
        if !at.complete || rebuilt != self.blocks {
            let wrong = self
                .blocks
                .iter()
                .filter(|(p, s)| rebuilt.get(p) != Some(s))
                .count();
            return Err(Error::Corrupt(format!(
                "the world rebuilt at tick {last} has {} edited blocks ({} complete) where the \
                 simulation left {} ({wrong} of them differ)",
                rebuilt.len(),
                if at.complete { "" } else { "not" },
                self.blocks.len()
            )));
        }
        let terrain = reader.terrain_at(last)?.len();
        if terrain != self.counts.terrain_sections {
            return Err(Error::Corrupt(format!(
                "{terrain} terrain sections in effect at tick {last}; {} were offered",
                self.counts.terrain_sections
            )));
        }
        Ok(Rebuilt {
            blocks: rebuilt.len(),
            terrain_sections: terrain,
        })
    }

    fn position(&self, tick: u32, id: u32) -> Option<[f64; 3]> {
        let at = self.positions.get(tick as usize)?;
        at.iter().find(|p| p.0 == id).map(|p| p.1)
    }

    /// Whether `other` was beyond the report's radius (with slack) of `player` at `tick`
    /// (`None`: one of them was not online).
    fn far(&self, tick: u32, player: u32, other: [f64; 3]) -> Option<bool> {
        let p = self.position(tick, player)?;
        Some(distance(p, other) > RADIUS + SLACK)
    }

    /// The report about `player` (file `report`) keeps every hit, block change and chat line of
    /// theirs within its window, block changes and public chat of others only within the
    /// radius, and no chat line of a player beyond it.
    pub fn check_report(&self, report: &Reader, player: u32) -> tickreel::Result<ReportWorld> {
        let (Some(first), Some(last)) = (report.first_tick(), report.last_tick()) else {
            return Err(Error::Corrupt("the report holds no tick".into()));
        };
        let window = |t: u32| (first..=last).contains(&t);
        let mut attacks = Vec::new();
        let mut changes = Vec::new();
        let mut chats = Vec::new();
        for t in report.ticks(first, last) {
            let t = t?;
            for e in &t.events {
                match e {
                    Event::Attack { attacker, .. } if *attacker == player => attacks.push(t.tick),
                    Event::BlockChange { pos, cause, .. } => changes.push((t.tick, *pos, *cause)),
                    Event::Chat { sender, .. } => chats.push((t.tick, *sender)),
                    _ => {}
                }
            }
        }
        let expected: Vec<u32> = self
            .attacks
            .iter()
            .filter(|a| a.1 == player && window(a.0))
            .map(|a| a.0)
            .collect();
        if attacks != expected {
            return Err(Error::Corrupt(format!(
                "the report holds {} hits of player {player}; the session had {} in its window",
                attacks.len(),
                expected.len()
            )));
        }
        for &(t, pos, cause) in &self.changes {
            if cause == Some(player) && window(t) && !changes.contains(&(t, pos, cause)) {
                return Err(Error::Corrupt(format!(
                    "the report lacks player {player}'s block change at {pos:?} (tick {t})"
                )));
            }
        }
        for &(t, pos, cause) in &changes {
            let centre = [
                f64::from(pos.x) + 0.5,
                f64::from(pos.y) + 0.5,
                f64::from(pos.z) + 0.5,
            ];
            if cause != Some(player) && self.far(t, player, centre) != Some(false) {
                return Err(Error::Corrupt(format!(
                    "the report holds a block change at {pos:?} (tick {t}) beyond its radius"
                )));
            }
        }
        let mut far_lines = 0;
        for &(t, sender) in &self.chats {
            if !window(t) {
                continue;
            }
            let kept = chats.contains(&(t, Some(sender)));
            if sender == player {
                if !kept {
                    return Err(Error::Corrupt(format!(
                        "the report lacks player {player}'s chat line of tick {t}"
                    )));
                }
                continue;
            }
            let far = self
                .position(t, sender)
                .and_then(|s| self.far(t, player, s))
                .unwrap_or(true);
            if far {
                far_lines += 1;
                if kept {
                    return Err(Error::Corrupt(format!(
                        "the report holds player {sender}'s chat line of tick {t}, sent beyond \
                         its radius"
                    )));
                }
            }
        }
        Ok(ReportWorld {
            hits: attacks.len(),
            blocks: changes.len(),
            chat_lines: chats.len(),
            far_chat_lines: far_lines,
        })
    }
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tickreel::record::{ReelOptions, ReelWriter};

    /// Three players for `ticks` ticks (players 1 and 2 side by side, player 3 200 blocks away)
    /// with the demo's world, written straight to a file.
    fn session(path: &std::path::Path, ticks: u32) -> DemoWorld {
        let mut world = DemoWorld::new(7);
        let mut table = EntityTable::default();
        let mut w = ReelWriter::create(path, ReelOptions::default()).unwrap();
        for (k, id, name) in palette() {
            w.register_name(k, id, name).unwrap();
        }
        let at = |p: u32, tick: u32| {
            let x = if p == 3 { 200.0 } else { f64::from(p) * 3.0 };
            Pose::from_f64(x + f64::from(tick % 40) * 0.05, 64.0, 0.0, 0.0, 0.0)
        };
        for tick in 0..ticks {
            let mut events: Vec<Event> = (1..=3)
                .map(|p| match tick {
                    0 => Event::EntityAdd {
                        entity: p,
                        kind: kind::PLAYER,
                        pose: at(p, tick),
                    },
                    _ => Event::Pose {
                        entity: p,
                        pose: at(p, tick),
                    },
                })
                .collect();
            world.tick(tick, &mut events, &table);
            for e in &events {
                table.apply(e);
            }
            w.write_tick(tick, &events).unwrap();
        }
        w.finish().unwrap();
        world
    }

    #[test]
    fn the_rebuilt_world_must_equal_the_simulated_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.reel");
        let mut world = session(&path, 1200);
        let reader = Reader::open_path(&path).unwrap();
        let rebuilt = world.check_rebuilt(&reader).unwrap();
        assert!(rebuilt.blocks > 10, "{rebuilt:?}");
        assert!(
            world.counts.hits > 0 && world.counts.chat_lines > 0,
            "{:?}",
            world.counts
        );
        // a block the file does not hold
        world.blocks.insert(BlockPos::new(0, 300, 0), block::STONE);
        let e = world.check_rebuilt(&reader).unwrap_err();
        assert!(e.to_string().contains("differ"), "{e}");
    }

    #[test]
    fn a_report_must_leave_far_players_out_and_keep_the_players_hits() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.reel");
        let mut world = session(&path, 2000);
        assert!(
            world.chats.iter().any(|c| c.1 == 3),
            "player 3 never chatted"
        );
        // the whole session is no report about player 1: it holds player 3's far blocks
        // and chat
        let reader = Reader::open_path(&path).unwrap();
        let e = world.check_report(&reader, 1).unwrap_err();
        assert!(e.to_string().contains("beyond"), "{e}");
        // a hit of player 1 the file does not hold
        world.changes.clear();
        world.chats.clear();
        world.attacks.push((5, 1));
        let e = world.check_report(&reader, 1).unwrap_err();
        assert!(e.to_string().contains("hits of player 1"), "{e}");
    }
}
