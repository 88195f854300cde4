//! Block changes with the shape of real servers ([`ServerBlocks`]; issue 48): besides the players'
//! own mining and building ([`crate::world`]), a survival server's block changes come from its
//! machines and its physics, in bursts. Measured on two real recordings of a survival server
//! (Minecraft 1.21.11, `shared/traces/real-minecraft`): 84–99 % of the changes are to a block
//! changed before, 24–98 % set it back to the state it had before its last change (redstone
//! clocks, lamps, pistons; the rest mostly wire power stepping down), 84–98 % of the ticks with
//! changes repeat an earlier tick's positions, changes come in bursts of 2–10 blocks
//! (up to 90) every 2 ticks, a burst touches 1–3 sections, and a chunk of a few minutes uses tens
//! to hundreds of distinct states. This layer generates, around each player's base (where the
//! player first stood) and around the player:
//!
//! - **redstone machines** ([`ServerBlocks::machines_per_player`]): a clock of period
//!   [`ServerBlocks::machine_period`] driving a line of wire whose power falls by one a block,
//!   repeaters, lamps and a piston, all toggling back and forth in bursts, plus a comparator
//!   whose level changes every cycle; some are *faders* (a comparator chain whose wire power steps
//!   down one level every 4 ticks, as in the longer real recording). A machine runs for minutes,
//!   then a player flips its lever off, and later on again;
//! - **doors, trapdoors, buttons, levers and lamps** ([`ServerBlocks::toggles_per_tick`]): a door
//!   opens (two blocks) and closes 2–5 s later, a button is pressed and springs back after 1 s, a
//!   lever lights a lamp;
//! - **farms** ([`ServerBlocks::farm_crops`]): crops age at random ticks (vanilla's 3 random ticks
//!   per 4096 blocks a tick, a third of them growing: about 1 in 4000 a tick per crop,
//!   [`ServerBlocks::crop_growth_per_tick`]); when most are ripe the player harvests them row by
//!   row (to air) and replants them (age 0) half a second later;
//! - **explosions** ([`ServerBlocks::explosions_per_tick`]): a sphere of radius 2.5–4 blocks near
//!   the player turned to air in one tick, in the shuffled order the server breaks them in, its
//!   edge ragged, a third of the blocks dropping an item entity;
//! - **fills and clears** ([`ServerBlocks::fills_per_tick`]): a box of 3–12 × 1–5 × 3–12 blocks
//!   (`/fill`, WorldEdit) set to one state or cleared to air in one tick, sent as one multi-block
//!   change per 16×16×16 section (the protocol's section update);
//! - **fluids** ([`ServerBlocks::fluids_per_tick`]): water (every 5 ticks) or lava (every 30)
//!   poured on flat ground spreads one ring a step, its level rising with the distance, and
//!   recedes ring by ring when the player takes the source back 5–20 s later.
//!
//! Rates per player and tick at 20 ticks a second. No published figures were found for these;
//! the defaults are chosen so that, on 100 players, the mix looks like the real recordings
//! (machines most of the changes, bursts of a few blocks every 2 ticks, a big burst now and
//! then), not fitted to their bytes. All positions and states are deterministic for a seed.

use std::collections::BTreeMap;

use tickreel::format::{BlockPos, Event, PaletteKind};

/// Block states of the server workload, numbered as a real 1.21 server numbers them (global
/// state ids, most of them two-byte varints), with the names [`palette`] registers.
pub mod state {
    pub const AIR: u32 = 0;
    pub const STONE: u32 = crate::world::block::STONE;
    /// Water of level 0 (a source) to 7: `WATER + level`.
    pub const WATER: u32 = 86;
    /// Lava of level 0 to 7: `LAVA + level`.
    pub const LAVA: u32 = 102;
    /// Stone, glass and planks as [`crate::world::block`] numbers them.
    pub const GLASS: u32 = crate::world::block::GLASS;
    pub const SMOOTH_STONE: u32 = 11_600;
    pub const OAK_PLANKS: u32 = crate::world::block::OAK_PLANKS;
    /// Piston facing east, retracted and extended, and its head.
    pub const PISTON: u32 = 2_035;
    pub const PISTON_EXTENDED: u32 = 2_029;
    pub const PISTON_HEAD: u32 = 2_062;
    /// Redstone wire of power 0 to 15, running east-west: `REDSTONE_WIRE + 9 * (15 - power)`
    /// counts down as the real ids do (stride 9 between power levels).
    pub const REDSTONE_WIRE: u32 = 4_403;
    /// Wheat of age 0 to 7: `WHEAT + age`.
    pub const WHEAT: u32 = 5_300;
    /// Oak door, lower and upper half, closed and open: `OAK_DOOR + 2 * half + open`.
    pub const OAK_DOOR: u32 = 4_654;
    /// Lever off and on.
    pub const LEVER: u32 = 5_800;
    /// Stone button released and pressed.
    pub const BUTTON: u32 = 5_820;
    /// Repeater unpowered and powered.
    pub const REPEATER: u32 = 6_692;
    /// Redstone lamp unlit and lit.
    pub const LAMP: u32 = 7_418;
    /// Oak trapdoor closed and open.
    pub const TRAPDOOR: u32 = 6_140;
    /// Comparator of output level 0 to 15: `COMPARATOR + level`.
    pub const COMPARATOR: u32 = 11_061;
}

/// The names of [`state`]'s ids, to register beside [`crate::world::palette`]'s (which names
/// air, stone, glass and planks).
pub fn palette() -> Vec<(PaletteKind, u32, String)> {
    use state::*;
    let mut p = vec![
        (SMOOTH_STONE, "minecraft:smooth_stone".to_string()),
        (
            PISTON,
            "minecraft:piston[facing=east,extended=false]".into(),
        ),
        (
            PISTON_EXTENDED,
            "minecraft:piston[facing=east,extended=true]".into(),
        ),
        (PISTON_HEAD, "minecraft:piston_head[facing=east]".into()),
        (LEVER, "minecraft:lever[powered=false]".into()),
        (LEVER + 1, "minecraft:lever[powered=true]".into()),
        (BUTTON, "minecraft:stone_button[powered=false]".into()),
        (BUTTON + 1, "minecraft:stone_button[powered=true]".into()),
        (REPEATER, "minecraft:repeater[powered=false]".into()),
        (REPEATER + 1, "minecraft:repeater[powered=true]".into()),
        (LAMP, "minecraft:redstone_lamp[lit=false]".into()),
        (LAMP + 1, "minecraft:redstone_lamp[lit=true]".into()),
        (TRAPDOOR, "minecraft:oak_trapdoor[open=false]".into()),
        (TRAPDOOR + 1, "minecraft:oak_trapdoor[open=true]".into()),
    ];
    for level in 0..8 {
        p.push((WATER + level, format!("minecraft:water[level={level}]")));
        p.push((LAVA + level, format!("minecraft:lava[level={level}]")));
        p.push((WHEAT + level, format!("minecraft:wheat[age={level}]")));
    }
    for power in 0..16 {
        p.push((
            REDSTONE_WIRE + 9 * (15 - power),
            format!("minecraft:redstone_wire[power={power}]"),
        ));
        p.push((
            COMPARATOR + power,
            format!("minecraft:comparator[level={power}]"),
        ));
    }
    for half in 0..2 {
        for open in 0..2 {
            p.push((
                OAK_DOOR + 2 * half + open,
                format!(
                    "minecraft:oak_door[half={},open={}]",
                    ["lower", "upper"][half as usize],
                    open == 1
                ),
            ));
        }
    }
    p.into_iter()
        .filter(|(id, _)| ![state::AIR, state::STONE, state::GLASS, state::OAK_PLANKS].contains(id))
        .map(|(id, n)| (PaletteKind::Block, id, n))
        .collect()
}

/// What the server does to the world besides the players' mining and building; rates per player
/// and tick (module documentation: what each is and where the defaults come from).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerBlocks {
    /// Redstone machines per player's base (a fraction: the share of bases with one).
    pub machines_per_player: f64,
    /// The clock's period in ticks, drawn in this range (even: redstone ticks are 2 game ticks).
    pub machine_period: (u32, u32),
    /// Ticks a machine runs before its lever is flipped off, and stays off, drawn in these.
    pub machine_on: (u32, u32),
    pub machine_off: (u32, u32),
    /// Uses of a door, trapdoor, button or lever at the base.
    pub toggles_per_tick: f64,
    /// Crops of the base's farm (a square of this many, rounded down).
    pub farm_crops: u32,
    /// Chance a crop ages a stage in a tick.
    pub crop_growth_per_tick: f64,
    pub explosions_per_tick: f64,
    pub fills_per_tick: f64,
    pub fluids_per_tick: f64,
}

impl Default for ServerBlocks {
    fn default() -> Self {
        ServerBlocks {
            machines_per_player: 0.3,
            machine_period: (8, 120),
            machine_on: (1200, 12_000),
            machine_off: (600, 6000),
            // a door, lever or button every 90 s
            toggles_per_tick: 1.0 / 1800.0,
            farm_crops: 64,
            // 3 random ticks per 4096 blocks, a third of them growing
            crop_growth_per_tick: 3.0 / 4096.0 / 3.0,
            // a creeper or TNT every 20 minutes
            explosions_per_tick: 1.0 / 24_000.0,
            // a fill or clear every 30 minutes
            fills_per_tick: 1.0 / 36_000.0,
            // a bucket poured every 10 minutes
            fluids_per_tick: 1.0 / 12_000.0,
        }
    }
}

/// One step of a machine's cycle: the changes it makes `at` ticks into the period.
#[derive(Debug, Clone)]
struct Phase {
    at: u32,
    changes: Vec<(BlockPos, u32)>,
}

#[derive(Debug, Clone)]
struct Machine {
    period: u32,
    phases: Vec<Phase>,
    /// A comparator whose level changes once a cycle (what a hopper's fill level does).
    counter: BlockPos,
    level: u32,
    lever: BlockPos,
    /// Tick the machine's current run (or pause) ends at, and whether it runs.
    until: u32,
    on: bool,
    /// Tick its current cycle started at.
    cycle_start: u32,
}

#[derive(Debug, Clone)]
enum Toggle {
    Door(BlockPos),
    Trapdoor(BlockPos),
    Button(BlockPos),
    /// A lever and the lamp it lights.
    Lever(BlockPos, BlockPos),
}

/// What stands at one player's base.
#[derive(Debug, Clone)]
struct Base {
    machine: Option<Machine>,
    toggles: Vec<(Toggle, bool)>,
    /// The farm's corner, width, and each crop's age (`None`: harvested, not yet replanted).
    farm: BlockPos,
    farm_width: i32,
    crops: Vec<Option<u32>>,
    /// The next crop of a harvest under way.
    harvesting: Option<usize>,
}

/// A fluid poured: its source, its kind, the ring it reached, and when it is taken back.
#[derive(Debug, Clone)]
struct Fluid {
    source: BlockPos,
    base_state: u32,
    step_ticks: u32,
    rings: i32,
    /// Rings spread so far, and dried since it was taken back.
    reached: i32,
    dried: i32,
    next: u32,
    take_back: u32,
    cause: u32,
}

/// An item entity an explosion drops (the realistic preset spawns it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Drop {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    /// A random draw for its lifetime.
    pub life: u32,
}

/// The server's block changes around the players, from a random stream of its own.
#[derive(Debug, Clone)]
pub(crate) struct BlockLayer {
    cfg: ServerBlocks,
    rng: fastrand::Rng,
    bases: Vec<Base>,
    fluids: Vec<Fluid>,
    /// Changes to make at a later tick (door closing, button released, crop replanted), in the
    /// order they were scheduled.
    later: BTreeMap<u32, Vec<(BlockPos, u32)>>,
}

/// Ground level of the sim's world: solid below, air above.
const GROUND: i32 = 64;

fn pos(x: i32, y: i32, z: i32) -> BlockPos {
    BlockPos::new(x, y, z)
}

fn change(pos: BlockPos, state: u32, cause: Option<u32>) -> Event {
    Event::BlockChange {
        pos,
        state,
        cause,
        block_entity: None,
    }
}

impl BlockLayer {
    pub(crate) fn new(cfg: ServerBlocks, seed: u64) -> BlockLayer {
        BlockLayer {
            cfg,
            rng: fastrand::Rng::with_seed(seed ^ 0x0000_626c_6f63_6b73),
            bases: Vec::new(),
            fluids: Vec::new(),
            later: BTreeMap::new(),
        }
    }

    fn machine(&mut self, at: BlockPos, tick: u32) -> Machine {
        let r = &mut self.rng;
        let (lo, hi) = self.cfg.machine_period;
        let period = (r.u32(lo / 2..=hi / 2) * 2).max(4);
        let wire = r.i32(4..16);
        let y = at.y;
        let mut phases = Vec::new();
        let repeaters = [pos(at.x, y, at.z), pos(at.x + 1, y, at.z + 1)];
        let line: Vec<BlockPos> = (0..wire).map(|i| pos(at.x + 2 + i, y, at.z)).collect();
        if r.u32(0..3) == 0 {
            // a fader: two wires stepping down one power level every 4 ticks, refilled at the
            // cycle's start (a comparator subtraction clock)
            let steps = (period / 4).clamp(2, 16);
            for k in 0..steps {
                let power = 15 - k.min(15);
                phases.push(Phase {
                    at: k * 4,
                    changes: vec![
                        (line[0], state::REDSTONE_WIRE + 9 * (15 - power)),
                        (
                            line[1],
                            state::REDSTONE_WIRE + 9 * (15 - power.saturating_sub(1)),
                        ),
                    ],
                });
            }
        } else {
            let lamps: Vec<BlockPos> = (0..r.i32(1..5))
                .map(|i| pos(at.x + 2 + wire, y + 1 + i % 2, at.z + i / 2))
                .collect();
            let piston = pos(at.x + 2, y, at.z + 2);
            let half = period / 2;
            let mut on = vec![(repeaters[0], state::REPEATER + 1)];
            on.extend(
                line.iter()
                    .enumerate()
                    .map(|(i, &p)| (p, state::REDSTONE_WIRE + 9 * (i as u32).min(15))),
            );
            on.push((piston, state::PISTON_EXTENDED));
            on.push((pos(piston.x + 1, y, piston.z), state::PISTON_HEAD));
            phases.push(Phase { at: 0, changes: on });
            phases.push(Phase {
                at: 2.min(half - 1),
                changes: std::iter::once((repeaters[1], state::REPEATER + 1))
                    .chain(lamps.iter().map(|&l| (l, state::LAMP + 1)))
                    .collect(),
            });
            let mut off = vec![(repeaters[0], state::REPEATER)];
            off.extend(line.iter().map(|&p| (p, state::REDSTONE_WIRE + 9 * 15)));
            off.push((pos(piston.x + 1, y, piston.z), state::AIR));
            off.push((piston, state::PISTON));
            phases.push(Phase {
                at: half,
                changes: off,
            });
            phases.push(Phase {
                at: half + 2.min(half - 1),
                changes: std::iter::once((repeaters[1], state::REPEATER))
                    .chain(lamps.iter().map(|&l| (l, state::LAMP)))
                    .collect(),
            });
        }
        let (lo, hi) = self.cfg.machine_on;
        Machine {
            period,
            phases,
            counter: pos(at.x, y, at.z - 1),
            level: 0,
            lever: pos(at.x - 1, y, at.z),
            until: tick + self.rng.u32(lo..=hi),
            on: true,
            cycle_start: tick,
        }
    }

    fn base(&mut self, at: BlockPos, tick: u32) -> Base {
        let machine = (self.rng.f64() < self.cfg.machines_per_player)
            .then(|| self.machine(pos(at.x + 8, GROUND, at.z - 12), tick));
        let r = &mut self.rng;
        let mut toggles = Vec::new();
        for i in 0..r.i32(2..6) {
            let p = pos(at.x - 6 + 3 * i, GROUND, at.z + 6);
            toggles.push((
                match r.u32(0..4) {
                    0 => Toggle::Door(p),
                    1 => Toggle::Trapdoor(p),
                    2 => Toggle::Button(p),
                    _ => Toggle::Lever(p, pos(p.x, p.y + 2, p.z)),
                },
                false,
            ));
        }
        let width = (self.cfg.farm_crops as f64).sqrt().floor() as i32;
        let crops = (0..width * width).map(|_| Some(r.u32(0..8))).collect();
        Base {
            machine,
            toggles,
            farm: pos(at.x - 12, GROUND, at.z - 4),
            farm_width: width,
            crops,
            harvesting: None,
        }
    }

    /// One tick's block changes (appended to `out`) and the item entities dropped (to `drops`).
    pub(crate) fn step(
        &mut self,
        tick: u32,
        players: &[crate::world::PlayerView],
        out: &mut Vec<Event>,
        drops: &mut Vec<Drop>,
    ) {
        while self.bases.len() < players.len() {
            let p = &players[self.bases.len()];
            let at = pos(p.x.floor() as i32, GROUND, p.z.floor() as i32);
            let b = self.base(at, tick);
            self.bases.push(b);
        }
        if let Some(changes) = self.later.remove(&tick) {
            out.extend(changes.into_iter().map(|(p, s)| change(p, s, None)));
        }
        for (i, p) in players.iter().enumerate() {
            self.machine_tick(i, tick, p.id, out);
            self.base_tick(i, tick, p.id, out);
            let at = pos(p.x.floor() as i32, GROUND, p.z.floor() as i32);
            let u = self.rng.f64();
            let c = self.cfg;
            if u < c.explosions_per_tick {
                self.explode(at, out, drops);
            } else if u < c.explosions_per_tick + c.fills_per_tick {
                self.fill(at, p.id, out);
            } else if u < c.explosions_per_tick + c.fills_per_tick + c.fluids_per_tick {
                self.pour(at, tick, p.id, out);
            }
        }
        self.fluids_tick(tick, out);
    }

    fn later(&mut self, tick: u32, p: BlockPos, s: u32) {
        self.later.entry(tick).or_default().push((p, s));
    }

    fn machine_tick(&mut self, i: usize, tick: u32, player: u32, out: &mut Vec<Event>) {
        let Some(m) = self.bases[i].machine.as_mut() else {
            return;
        };
        if tick >= m.until {
            // the player flips the lever
            m.on = !m.on;
            let (lo, hi) = if m.on {
                self.cfg.machine_on
            } else {
                self.cfg.machine_off
            };
            m.until = tick + self.rng.u32(lo..=hi);
            m.cycle_start = tick;
            out.push(change(
                m.lever,
                state::LEVER + u32::from(m.on),
                Some(player),
            ));
            return;
        }
        if !m.on {
            return;
        }
        let at = tick - m.cycle_start;
        let at = if at >= m.period {
            m.cycle_start += m.period;
            // the comparator reads a container that fills and empties over the cycles
            m.level = (m.level + 1) % 6;
            out.push(change(m.counter, state::COMPARATOR + m.level, None));
            0
        } else {
            at
        };
        for ph in m.phases.iter().filter(|ph| ph.at == at) {
            out.extend(ph.changes.iter().map(|&(p, s)| change(p, s, None)));
        }
    }

    fn base_tick(&mut self, i: usize, tick: u32, player: u32, out: &mut Vec<Event>) {
        let r = &mut self.rng;
        let b = &mut self.bases[i];
        // a door, trapdoor, button or lever used
        if r.f64() < self.cfg.toggles_per_tick && !b.toggles.is_empty() {
            let k = r.usize(0..b.toggles.len());
            let (t, open) = &mut b.toggles[k];
            let mut later = Vec::new();
            match *t {
                Toggle::Door(p) => {
                    let up = pos(p.x, p.y + 1, p.z);
                    out.push(change(p, state::OAK_DOOR + 1, Some(player)));
                    out.push(change(up, state::OAK_DOOR + 3, None));
                    let close = tick + r.u32(40..100);
                    later.push((close, p, state::OAK_DOOR));
                    later.push((close, up, state::OAK_DOOR + 2));
                }
                Toggle::Trapdoor(p) => {
                    *open = !*open;
                    out.push(change(p, state::TRAPDOOR + u32::from(*open), Some(player)));
                }
                Toggle::Button(p) => {
                    out.push(change(p, state::BUTTON + 1, Some(player)));
                    later.push((tick + 20, p, state::BUTTON));
                }
                Toggle::Lever(p, lamp) => {
                    *open = !*open;
                    out.push(change(p, state::LEVER + u32::from(*open), Some(player)));
                    later.push((
                        tick + if *open { 2 } else { 4 },
                        lamp,
                        state::LAMP + u32::from(*open),
                    ));
                }
            }
            for (t, p, s) in later {
                self.later(t, p, s);
            }
        }
        let r = &mut self.rng;
        let b = &mut self.bases[i];
        // crops grow
        let w = b.farm_width;
        let mut grown = Vec::new();
        for (k, c) in b.crops.iter_mut().enumerate() {
            if let Some(age) = c.as_mut().filter(|a| **a < 7)
                && r.f64() < self.cfg.crop_growth_per_tick
            {
                *age += 1;
                grown.push((k, *age));
            }
        }
        let at = |k: usize| pos(b.farm.x + k as i32 % w, b.farm.y, b.farm.z + k as i32 / w);
        out.extend(
            grown
                .into_iter()
                .map(|(k, age)| change(at(k), state::WHEAT + age, None)),
        );
        // a harvest starts when three quarters are ripe, and goes on two crops a tick
        let ripe = b.crops.iter().filter(|c| **c == Some(7)).count();
        if b.harvesting.is_none() && !b.crops.is_empty() && ripe * 4 >= b.crops.len() * 3 {
            b.harvesting = Some(0);
        }
        let mut replant = Vec::new();
        if let Some(next) = b.harvesting {
            for k in next..(next + 2).min(b.crops.len()) {
                if b.crops[k] == Some(7) {
                    b.crops[k] = None;
                    out.push(change(at(k), state::AIR, Some(player)));
                    replant.push(k);
                }
            }
            b.harvesting = Some(next + 2).filter(|&n| n < b.crops.len());
        }
        let spots: Vec<BlockPos> = replant.iter().map(|&k| at(k)).collect();
        for &k in &replant {
            self.bases[i].crops[k] = Some(0);
        }
        for p in spots {
            self.later(tick + 10, p, state::WHEAT);
        }
    }

    /// A sphere near the player turned to air, in a shuffled order, a third of it dropping items.
    fn explode(&mut self, at: BlockPos, out: &mut Vec<Event>, drops: &mut Vec<Drop>) {
        let r = &mut self.rng;
        let radius = 2.5 + r.f64() * 1.5;
        let c = pos(at.x + r.i32(-4..=4), GROUND - 1, at.z + r.i32(-4..=4));
        let n = radius.ceil() as i32;
        let mut blocks = Vec::new();
        for dx in -n..=n {
            for dy in -n..=0 {
                for dz in -n..=n {
                    let d = f64::from(dx * dx + dy * dy + dz * dz).sqrt();
                    // the edge is ragged: rays lose power on their way
                    if d <= radius - 1.0 || (d <= radius && r.bool()) {
                        blocks.push(pos(c.x + dx, c.y + dy, c.z + dz));
                    }
                }
            }
        }
        r.shuffle(&mut blocks);
        for p in blocks {
            out.push(change(p, state::AIR, None));
            if r.u32(0..3) == 0 {
                drops.push(Drop {
                    x: f64::from(p.x) + 0.5,
                    y: f64::from(p.y) + 0.5,
                    z: f64::from(p.z) + 0.5,
                    life: r.u32(..),
                });
            }
        }
    }

    /// A box near the player filled with one state or cleared to air: one multi-block change
    /// per section it touches, each in the section's order (y, z, x).
    fn fill(&mut self, at: BlockPos, player: u32, out: &mut Vec<Event>) {
        let r = &mut self.rng;
        let (w, h, d) = (r.i32(3..=12), r.i32(1..=5), r.i32(3..=12));
        let clear = r.u32(0..3) == 0;
        let s = if clear {
            state::AIR
        } else {
            [
                state::STONE,
                state::GLASS,
                state::OAK_PLANKS,
                state::SMOOTH_STONE,
            ][r.usize(0..4)]
        };
        let y0 = if clear { GROUND - h } else { GROUND };
        let (x0, z0) = (at.x + r.i32(-6..=2), at.z + r.i32(-6..=2));
        let mut sections: BTreeMap<(i32, i32, i32), Vec<(BlockPos, u32)>> = BTreeMap::new();
        for y in y0..y0 + h {
            for z in z0..z0 + d {
                for x in x0..x0 + w {
                    sections
                        .entry((x >> 4, y >> 4, z >> 4))
                        .or_default()
                        .push((pos(x, y, z), s));
                }
            }
        }
        for (_, blocks) in sections {
            out.push(Event::BlockChanges {
                cause: Some(player),
                blocks,
            });
        }
    }

    fn pour(&mut self, at: BlockPos, tick: u32, player: u32, out: &mut Vec<Event>) {
        let r = &mut self.rng;
        let water = r.u32(0..4) != 0;
        let source = pos(at.x + r.i32(-3..=3), GROUND, at.z + r.i32(-3..=3));
        let f = Fluid {
            source,
            base_state: if water { state::WATER } else { state::LAVA },
            step_ticks: if water { 5 } else { 30 },
            rings: if water { 7 } else { 3 },
            reached: 0,
            dried: 0,
            next: tick + if water { 5 } else { 30 },
            take_back: tick + r.u32(100..400),
            cause: player,
        };
        out.push(change(source, f.base_state, Some(player)));
        self.fluids.push(f);
    }

    /// Fluids spread a ring a step (level = distance), and recede a ring a step once taken back.
    fn fluids_tick(&mut self, tick: u32, out: &mut Vec<Event>) {
        let ring = |c: BlockPos, k: i32| {
            let mut v = Vec::new();
            for dx in -k..=k {
                let dz = k - dx.abs();
                v.push(pos(c.x + dx, c.y, c.z + dz));
                if dz != 0 {
                    v.push(pos(c.x + dx, c.y, c.z - dz));
                }
            }
            v
        };
        self.fluids.retain_mut(|f| {
            if tick == f.take_back {
                out.push(change(f.source, state::AIR, Some(f.cause)));
                f.next = tick + f.step_ticks;
                return f.reached > 0;
            }
            if tick != f.next {
                return true;
            }
            f.next = tick + f.step_ticks;
            if tick < f.take_back {
                if f.reached < f.rings {
                    f.reached += 1;
                    let level = f.reached as u32;
                    out.extend(
                        ring(f.source, f.reached)
                            .into_iter()
                            .map(|p| change(p, f.base_state + level, None)),
                    );
                }
                true
            } else {
                // receding: the innermost ring left dries first
                f.dried += 1;
                out.extend(
                    ring(f.source, f.dried)
                        .into_iter()
                        .map(|p| change(p, state::AIR, None)),
                );
                f.dried < f.reached
            }
        });
    }
}

/// The shape of a run's block changes (single and multi-block changes alike, each block
/// counted), as the module documentation states it for the real recordings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BlockStats {
    pub changes: u64,
    /// Ticks with at least one change.
    pub ticks: u64,
    /// Changes per tick with changes: mean, 90th percentile, largest.
    pub burst_mean: f64,
    pub burst_p90: u64,
    pub burst_max: u64,
    /// Share of the changes in ticks of 8 changes or more.
    pub in_bursts_of_8: f64,
    /// Share of the changes that set a block back to the state it had before its last change.
    pub back_to_previous: f64,
    /// Share of the changes to a block changed before.
    pub to_changed_block: f64,
    /// Distinct states.
    pub states: usize,
    /// Share of the gaps between ticks with changes of 1, 2, 3–20 and over 20 ticks.
    pub gap_shares: [f64; 4],
}

impl BlockStats {
    pub fn of(ticks: &[(u32, Vec<Event>)]) -> BlockStats {
        use std::collections::{HashMap, HashSet};
        let mut s = BlockStats::default();
        let mut history: HashMap<BlockPos, (u32, Option<u32>)> = HashMap::new();
        let mut states = HashSet::new();
        let mut sizes = Vec::new();
        let (mut back, mut again) = (0u64, 0u64);
        let mut gaps = [0u64; 4];
        let mut last: Option<u32> = None;
        for (t, ev) in ticks {
            let mut n = 0u64;
            let mut one = |p: BlockPos, st: u32| {
                n += 1;
                states.insert(st);
                match history.get_mut(&p) {
                    Some(h) => {
                        again += 1;
                        if h.1 == Some(st) {
                            back += 1;
                        }
                        *h = (st, Some(h.0));
                    }
                    None => {
                        history.insert(p, (st, None));
                    }
                }
            };
            for e in ev {
                match e {
                    Event::BlockChange { pos, state, .. } => one(*pos, *state),
                    Event::BlockChanges { blocks, .. } => {
                        for &(p, st) in blocks {
                            one(p, st);
                        }
                    }
                    _ => {}
                }
            }
            if n == 0 {
                continue;
            }
            if let Some(l) = last {
                gaps[match t - l {
                    0..=1 => 0,
                    2 => 1,
                    3..=20 => 2,
                    _ => 3,
                }] += 1;
            }
            last = Some(*t);
            sizes.push(n);
        }
        s.changes = sizes.iter().sum();
        s.ticks = sizes.len() as u64;
        let total = s.changes.max(1) as f64;
        s.burst_mean = s.changes as f64 / s.ticks.max(1) as f64;
        s.in_bursts_of_8 = sizes.iter().filter(|&&n| n >= 8).sum::<u64>() as f64 / total;
        sizes.sort_unstable();
        s.burst_p90 = sizes.get(sizes.len() * 9 / 10).copied().unwrap_or(0);
        s.burst_max = sizes.last().copied().unwrap_or(0);
        s.back_to_previous = back as f64 / total;
        s.to_changed_block = again as f64 / total;
        s.states = states.len();
        let g = gaps.iter().sum::<u64>().max(1) as f64;
        s.gap_shares = gaps.map(|n| n as f64 / g);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::realistic::{RealisticConfig, RealisticSim};
    use crate::world::WorldRates;

    fn run(players: u32, ticks: u32) -> Vec<(u32, Vec<Event>)> {
        let cfg = RealisticConfig {
            players,
            seed: 48,
            ..RealisticConfig::default()
        };
        let mut sim =
            RealisticSim::with_server_world(cfg, WorldRates::default(), ServerBlocks::default());
        (0..ticks).map(|_| sim.step()).collect()
    }

    /// 20 players for 20 minutes: every kind of change appears, in bursts, mostly going back and
    /// forth, as in the real recordings (module documentation).
    #[test]
    fn the_server_workload_has_the_shape_of_real_servers() {
        let ticks = run(20, 24_000);
        let s = BlockStats::of(&ticks);
        eprintln!("{s:?}");
        let has = |f: &dyn Fn(&Event) -> bool| ticks.iter().flat_map(|t| &t.1).any(f);
        let to = |st: u32| move |e: &Event| matches!(e, Event::BlockChange { state, .. } if *state == st);
        assert!(
            has(&to(state::LAMP + 1)) && has(&to(state::PISTON_HEAD)),
            "machines"
        );
        assert!(
            has(&to(state::WHEAT + 7)) && has(&to(state::WHEAT)),
            "farms"
        );
        assert!(has(&to(state::WATER + 3)), "fluids");
        assert!(
            has(&|e| matches!(e, Event::BlockChanges { blocks, .. } if blocks.len() >= 9)),
            "fills"
        );
        assert!(has(&|e| matches!(
            e,
            Event::EntityAdd {
                kind: crate::realistic::kind::ITEM,
                ..
            }
        )));
        assert!((0.25..=0.95).contains(&s.back_to_previous), "{s:?}");
        assert!((0.5..=0.99).contains(&s.to_changed_block), "{s:?}");
        assert!(s.burst_max >= 60 && s.burst_p90 >= 4, "{s:?}");
        assert!((2.0..=30.0).contains(&s.burst_mean), "{s:?}");
        assert!(s.in_bursts_of_8 >= 0.15, "{s:?}");
        assert!(s.states >= 50, "{s:?}");
        // the same seed gives the same changes
        assert_eq!(run(3, 600), run(3, 600));
    }

    /// Every state the workload sets is named once, by this palette or the preset's.
    #[test]
    fn every_state_is_named_once() {
        let mut names = std::collections::HashMap::new();
        for (_, id, n) in crate::world::palette()
            .into_iter()
            .filter(|p| p.0 == PaletteKind::Block)
            .map(|(k, id, n)| (k, id, n.to_string()))
            .chain(palette())
        {
            assert!(names.insert(id, n).is_none(), "{id} named twice");
        }
        for (_, ev) in run(20, 24_000) {
            for e in ev {
                if let Event::BlockChange { state, .. } = e {
                    assert!(names.contains_key(&state), "{state} has no name");
                }
            }
        }
    }
}
