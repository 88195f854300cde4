//! What the realistic preset's players do to the world and to each other: they mine, build, fight
//! and chat ([`WorldRates`], with where each rate comes from), as the events a server plugin
//! would submit: a swing and a block change to air for a block broken; a swing, a use on the
//! block below and a block change for a block placed; a swing, an attack, damage and the new
//! health of the mob hit; a chat line; a change of held item when a player turns from one task to
//! another. Blocks are broken along a tunnel and placed along a wall next to the player, as real
//! mining and building go, not at random positions.

use tickreel::format::{BlockPos, Event, PaletteKind, UseTarget, channel, hand, slot};

/// Block states of the palette the preset registers ([`palette`]).
pub mod block {
    pub const AIR: u32 = 0;
    pub const STONE: u32 = 1;
    pub const DEEPSLATE: u32 = 2;
    pub const DIRT: u32 = 3;
    pub const COAL_ORE: u32 = 4;
    pub const IRON_ORE: u32 = 5;
    pub const DIAMOND_ORE: u32 = 6;
    pub const COBBLESTONE: u32 = 7;
    pub const OAK_PLANKS: u32 = 8;
    pub const GLASS: u32 = 9;
    pub const TORCH: u32 = 10;
}

/// Items of the palette.
pub mod item {
    pub const IRON_PICKAXE: u32 = 1;
    pub const DIAMOND_SWORD: u32 = 2;
    pub const COBBLESTONE: u32 = 3;
    pub const OAK_PLANKS: u32 = 4;
}

/// The names the preset registers: (kind, id, name).
pub fn palette() -> Vec<(PaletteKind, u32, &'static str)> {
    use PaletteKind::{Block, DamageCause, Item};
    vec![
        (Block, block::AIR, "minecraft:air"),
        (Block, block::STONE, "minecraft:stone"),
        (Block, block::DEEPSLATE, "minecraft:deepslate"),
        (Block, block::DIRT, "minecraft:dirt"),
        (Block, block::COAL_ORE, "minecraft:coal_ore"),
        (Block, block::IRON_ORE, "minecraft:iron_ore"),
        (Block, block::DIAMOND_ORE, "minecraft:diamond_ore"),
        (Block, block::COBBLESTONE, "minecraft:cobblestone"),
        (Block, block::OAK_PLANKS, "minecraft:oak_planks"),
        (Block, block::GLASS, "minecraft:glass"),
        (Block, block::TORCH, "minecraft:wall_torch[facing=north]"),
        (Item, item::IRON_PICKAXE, "minecraft:iron_pickaxe"),
        (Item, item::DIAMOND_SWORD, "minecraft:diamond_sword"),
        (Item, item::COBBLESTONE, "minecraft:cobblestone"),
        (Item, item::OAK_PLANKS, "minecraft:oak_planks"),
        (DamageCause, 1, "minecraft:player_attack"),
    ]
}

/// Per player and tick (20 ticks a second), how often each act happens.
///
/// Sources:
/// - blocks broken: CastiaMC's December 2023 season recap (castiamc.com/december-2023-recap):
///   370,408,210 blocks mined in 214,605 hours of play, 1,726 an hour per player online, 0.024
///   a tick. (The Cemetech server's first year, cemetech.net 2017, is lower: 6.5 million broken
///   in 12,480 player-hours, 521 an hour; this preset takes the busier server.)
/// - attacks: the same recap's 82,728,094 mobs killed, 385 an hour per player, at two hits a
///   kill (an assumption: a diamond sword's 7 points take two or three hits for most mobs):
///   770 an hour, 0.0107 a tick.
/// - blocks placed: no published figure found; assumed half the blocks broken (0.012 a tick).
/// - chat: no published figure found; assumed one line every two minutes (0.000417 a tick),
///   80 % public, 15 % private, 5 % team.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorldRates {
    pub break_per_tick: f64,
    pub place_per_tick: f64,
    pub attack_per_tick: f64,
    pub chat_per_tick: f64,
}

impl Default for WorldRates {
    fn default() -> Self {
        WorldRates {
            break_per_tick: 370_408_210.0 / 214_605.0 / 72_000.0,
            place_per_tick: 370_408_210.0 / 214_605.0 / 72_000.0 / 2.0,
            attack_per_tick: 82_728_094.0 / 214_605.0 * 2.0 / 72_000.0,
            chat_per_tick: 1.0 / 2400.0,
        }
    }
}

/// A player as the world layer sees it.
pub(crate) struct PlayerView {
    pub id: u32,
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

/// What a player is doing to the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Task {
    Mine,
    Build,
    Fight,
}

#[derive(Debug, Clone)]
struct Worker {
    /// The next block of the tunnel (mining) or the wall (building).
    tunnel: BlockPos,
    wall: BlockPos,
    task: Task,
    held: u32,
}

/// The world acts of every player, drawn from their own random stream (so that the movement of
/// the preset is the same with or without them).
#[derive(Debug, Clone)]
pub(crate) struct WorldLayer {
    rates: WorldRates,
    rng: fastrand::Rng,
    workers: Vec<Option<Worker>>,
    /// Each mob's health (hundredths of a point), by id.
    health: std::collections::HashMap<u32, u32>,
    lines: u32,
}

const MOB_HEALTH: u32 = 2000;
const SWORD_DAMAGE: u32 = 700;

impl WorldLayer {
    pub(crate) fn new(rates: WorldRates, seed: u64) -> WorldLayer {
        WorldLayer {
            rates,
            rng: fastrand::Rng::with_seed(seed ^ 0x0077_6972_6c64),
            workers: Vec::new(),
            health: Default::default(),
            lines: 0,
        }
    }

    /// One tick's acts of `players`, each near the mobs in `mobs` (its own, by player index).
    pub(crate) fn step(&mut self, players: &[PlayerView], mobs: &[Vec<u32>], out: &mut Vec<Event>) {
        let r = &mut self.rng;
        if self.workers.len() < players.len() {
            self.workers.resize(players.len(), None);
        }
        for (i, p) in players.iter().enumerate() {
            let at = BlockPos::new(p.x.floor() as i32, p.y.floor() as i32, p.z.floor() as i32);
            let w = self.workers[i].get_or_insert_with(|| Worker {
                tunnel: BlockPos::new(at.x + 1, at.y - 20, at.z),
                wall: BlockPos::new(at.x, at.y, at.z + 2),
                task: Task::Mine,
                held: item::IRON_PICKAXE,
            });
            let rates = self.rates;
            // Which act this tick, if any (at most one: the rates are far below one a tick).
            let u = r.f64();
            let task = if u < rates.break_per_tick {
                Some(Task::Mine)
            } else if u < rates.break_per_tick + rates.place_per_tick {
                Some(Task::Build)
            } else if u < rates.break_per_tick + rates.place_per_tick + rates.attack_per_tick {
                Some(Task::Fight)
            } else {
                None
            };
            if let Some(task) = task {
                let held = match task {
                    Task::Mine => item::IRON_PICKAXE,
                    Task::Fight => item::DIAMOND_SWORD,
                    Task::Build => {
                        if r.u32(0..10) < 6 {
                            item::COBBLESTONE
                        } else {
                            item::OAK_PLANKS
                        }
                    }
                };
                if held != w.held {
                    w.held = held;
                    out.push(Event::Equipment {
                        entity: p.id,
                        slot: slot::MAIN_HAND,
                        item: held,
                        count: if held == item::COBBLESTONE || held == item::OAK_PLANKS {
                            64
                        } else {
                            1
                        },
                    });
                }
                w.task = task;
            }
            match task {
                Some(Task::Mine) => {
                    out.push(Event::Swing {
                        entity: p.id,
                        hand: hand::MAIN,
                    });
                    out.push(Event::BlockChange {
                        pos: w.tunnel,
                        state: block::AIR,
                        cause: Some(p.id),
                        block_entity: None,
                    });
                    // Two blocks high, then on along x; now and then a turn or a step down.
                    w.tunnel = match r.u32(0..20) {
                        0 => BlockPos::new(w.tunnel.x, w.tunnel.y - 1, w.tunnel.z + 1),
                        1 => BlockPos::new(w.tunnel.x, w.tunnel.y, w.tunnel.z + 1),
                        _ if w.tunnel.y % 2 == 0 => {
                            BlockPos::new(w.tunnel.x, w.tunnel.y + 1, w.tunnel.z)
                        }
                        _ => BlockPos::new(w.tunnel.x + 1, w.tunnel.y - 1, w.tunnel.z),
                    };
                }
                Some(Task::Build) => {
                    let state = if w.held == item::COBBLESTONE {
                        block::COBBLESTONE
                    } else if r.u32(0..8) == 0 {
                        block::GLASS
                    } else {
                        block::OAK_PLANKS
                    };
                    out.push(Event::Swing {
                        entity: p.id,
                        hand: hand::MAIN,
                    });
                    out.push(Event::Use {
                        entity: p.id,
                        hand: hand::MAIN,
                        item: w.held,
                        target: UseTarget::Block(BlockPos::new(w.wall.x, w.wall.y - 1, w.wall.z)),
                    });
                    out.push(Event::BlockChange {
                        pos: w.wall,
                        state,
                        cause: Some(p.id),
                        block_entity: None,
                    });
                    // A wall four high, then the next column; a new wall near the player now
                    // and then.
                    w.wall = if r.u32(0..64) == 0 {
                        BlockPos::new(at.x, at.y, at.z + 2)
                    } else if w.wall.y - at.y >= 3 {
                        BlockPos::new(w.wall.x + 1, at.y, w.wall.z)
                    } else {
                        BlockPos::new(w.wall.x, w.wall.y + 1, w.wall.z)
                    };
                }
                Some(Task::Fight) => {
                    let Some(&target) = mobs
                        .get(i)
                        .and_then(|m| (!m.is_empty()).then(|| &m[r.usize(0..m.len())]))
                    else {
                        continue;
                    };
                    out.push(Event::Swing {
                        entity: p.id,
                        hand: hand::MAIN,
                    });
                    out.push(Event::Attack {
                        attacker: p.id,
                        target,
                    });
                    out.push(Event::Damage {
                        entity: target,
                        amount: SWORD_DAMAGE,
                        cause: 1,
                        source: Some(p.id),
                    });
                    let h = self.health.entry(target).or_insert(MOB_HEALTH);
                    *h = h.saturating_sub(SWORD_DAMAGE);
                    if *h == 0 {
                        *h = MOB_HEALTH; // it respawns, as mobs do
                    }
                    out.push(Event::Health {
                        entity: target,
                        health: *h,
                    });
                }
                None => {}
            }
            if r.f64() < self.rates.chat_per_tick {
                self.lines += 1;
                let ch = match r.u32(0..20) {
                    0..=15 => channel::PUBLIC,
                    16..=18 => channel::PRIVATE,
                    _ => channel::TEAM,
                };
                let words = ["anyone", "got", "iron", "to", "spare", "at", "base", "lol"];
                let n = 2 + r.usize(0..8);
                let text: Vec<&str> = (0..n).map(|_| words[r.usize(0..words.len())]).collect();
                out.push(Event::Chat {
                    sender: Some(p.id),
                    channel: ch,
                    text: format!("{} #{}", text.join(" "), self.lines),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::realistic::{RealisticConfig, RealisticSim};

    /// An hour of 10 players: the acts come at the documented rates (within sampling noise),
    /// and the movement is the one without them.
    #[test]
    fn the_preset_mines_builds_fights_and_chats_at_its_rates() {
        let cfg = RealisticConfig {
            players: 10,
            ..RealisticConfig::default()
        };
        let mut plain = RealisticSim::new(cfg);
        let mut sim = RealisticSim::with_world(cfg, WorldRates::default());
        let ticks = 72_000u32;
        let (mut broken, mut placed, mut attacks, mut chat) = (0u32, 0u32, 0u32, 0u32);
        for _ in 0..ticks {
            let (t, ev) = sim.step();
            let (t2, moves) = plain.step();
            assert_eq!(t, t2);
            let mut rest: Vec<&Event> = ev.iter().filter(|e| !e.is_world()).collect();
            rest.retain(|e| !matches!(e, Event::Equipment { .. }));
            assert_eq!(rest, moves.iter().collect::<Vec<_>>(), "tick {t}");
            for e in &ev {
                match e {
                    Event::BlockChange { state: 0, .. } => broken += 1,
                    Event::BlockChange { .. } => placed += 1,
                    Event::Attack { .. } => attacks += 1,
                    Event::Chat { .. } => chat += 1,
                    _ => {}
                }
            }
        }
        let per_hour = |n: u32| f64::from(n) / 10.0;
        // 1,726 broken, 863 placed, 771 attacks and 30 lines an hour per player
        assert!((1550.0..1900.0).contains(&per_hour(broken)), "{broken}");
        assert!((750.0..980.0).contains(&per_hour(placed)), "{placed}");
        assert!((650.0..900.0).contains(&per_hour(attacks)), "{attacks}");
        assert!((20.0..40.0).contains(&per_hour(chat)), "{chat}");
    }
}
