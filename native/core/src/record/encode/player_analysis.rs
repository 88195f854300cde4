//! The per-player figures of the analysis metadata that staff sort reports by (FORMAT.md,
//! `analysis`): blocks broken and placed by state, attacks made and received, reach at each
//! attack, most attacks in one second ([`Acts`], fed world events in tick order), top horizontal
//! speed over one second and largest rotation in one tick ([`Motion`], fed each entity's pose
//! samples in order).
//!
//! Definitions (exact, so that figures can be checked by hand):
//! - a block is *broken* by an entity when a change it caused (a block change or each block of
//!   a multi-block change with that `cause`) sets an air state: a state the palette names
//!   `minecraft:air`, `minecraft:cave_air` or `minecraft:void_air` (properties ignored), or id 0
//!   when the palette does not name 0. It is counted under the state the block had before, when
//!   an earlier change of the same recording set it, else under no state (unknown). Any other
//!   new state is a block *placed*, counted under that state;
//! - *reach* is the distance, in blocks, between the attacker's and the target's positions
//!   (feet to feet) at the attack's tick, after that tick's moves; an attack on or by an entity
//!   with no known position has none. p99 is the nearest-rank 99th percentile;
//! - *attacks in one second*: the most attacks the entity made within `ticks per second`
//!   consecutive ticks;
//! - *horizontal speed*: the longest horizontal path (x, z) an entity covered within `ticks per
//!   second` consecutive ticks, in blocks per second; a teleport, an appearance or a removal
//!   starts a new path;
//! - *rotation in one tick*: between two consecutive pose samples of one path (a tick without a
//!   sample is no change), `sqrt(Δyaw² + Δpitch²)` in degrees, the yaw difference taken the
//!   short way round.

use std::collections::{BTreeMap, HashMap, VecDeque};

use fastnbt::Value;

use crate::format::palette::{Palette, PaletteKind};
use crate::format::pose::{ANGLE_UNITS_PER_TURN, POS_SCALE, Pose};
use crate::format::{BlockPos, Event};

/// How many states of broken and placed blocks the analysis names per entity.
pub(crate) const TOP_STATES: usize = 8;

/// Movement figures of one entity.
#[derive(Debug, Clone, Default)]
pub(crate) struct Motion {
    /// Horizontal steps of the current path within the last second: (tick, blocks).
    window: VecDeque<(u32, f64)>,
    last: Option<Pose>,
    pub speed_max: f64,
    pub rotation_max: f64,
}

impl Motion {
    /// A pose sample at `tick`, continuing the current path.
    pub(crate) fn sample(&mut self, tick: u32, pose: &Pose, tps: u32) {
        if let Some(prev) = self.last {
            let (dx, dz) = (
                (pose.x - prev.x) as f64 / POS_SCALE,
                (pose.z - prev.z) as f64 / POS_SCALE,
            );
            self.window.push_back((tick, (dx * dx + dz * dz).sqrt()));
            while let Some(&(t, _)) = self.window.front()
                && t + tps <= tick
            {
                self.window.pop_front();
            }
            let speed: f64 = self.window.iter().map(|s| s.1).sum();
            self.speed_max = self.speed_max.max(speed);
            let turn = ANGLE_UNITS_PER_TURN as i64;
            let dyaw = (pose.yaw - prev.yaw).rem_euclid(turn);
            let dyaw = dyaw.min(turn - dyaw) as f64;
            let dpitch = (pose.pitch - prev.pitch) as f64;
            let deg = 360.0 / ANGLE_UNITS_PER_TURN;
            let rot = (dyaw * dyaw + dpitch * dpitch).sqrt() * deg;
            self.rotation_max = self.rotation_max.max(rot);
        }
        self.last = Some(*pose);
    }

    /// A new path starts at `pose` (an appearance, a teleport), or none until the next
    /// appearance (`None`: a removal).
    pub(crate) fn restart(&mut self, pose: Option<&Pose>) {
        self.window.clear();
        self.last = pose.copied();
    }
}

/// What one entity did to the world and to others.
#[derive(Debug, Clone, Default)]
struct Acts {
    /// Blocks broken, by the state they had (`None`: not known).
    broken: HashMap<Option<u32>, u64>,
    placed: HashMap<u32, u64>,
    attacks: u64,
    attacked: u64,
    reach: Vec<f32>,
    /// Ticks of this entity's attacks within the last second.
    recent: VecDeque<u32>,
    attacks_per_second_max: u64,
}

/// The world figures of every entity, fed the world events in tick order.
#[derive(Debug, Default)]
pub(crate) struct WorldFigures {
    acts: BTreeMap<u32, Acts>,
    /// The state each changed block has now.
    blocks: HashMap<BlockPos, u32>,
    /// Air states of the block palette (id 0 too when the palette does not name it).
    air: Vec<u32>,
    tps: u32,
}

fn is_air_name(name: &str) -> bool {
    let base = name.split('[').next().unwrap_or(name);
    matches!(
        base,
        "minecraft:air" | "minecraft:cave_air" | "minecraft:void_air"
    )
}

impl WorldFigures {
    pub(crate) fn new(tps: u32, palette: &Palette) -> WorldFigures {
        let names = palette.names(PaletteKind::Block);
        let mut air: Vec<u32> = names
            .iter()
            .filter(|(_, n)| is_air_name(n))
            .map(|(&id, _)| id)
            .collect();
        if !names.contains_key(&0) {
            air.push(0);
        }
        WorldFigures {
            tps: tps.max(1),
            air,
            ..WorldFigures::default()
        }
    }

    fn block(&mut self, cause: Option<u32>, pos: BlockPos, state: u32) {
        let before = self.blocks.insert(pos, state);
        let Some(id) = cause else { return };
        let a = self.acts.entry(id).or_default();
        if self.air.contains(&state) {
            *a.broken.entry(before).or_default() += 1;
        } else {
            *a.placed.entry(state).or_default() += 1;
        }
    }

    /// A world event at `tick`; `position` gives an entity's position at that tick (blocks).
    pub(crate) fn event(
        &mut self,
        tick: u32,
        e: &Event,
        position: impl Fn(u32) -> Option<[f64; 3]>,
    ) {
        match e {
            Event::BlockChange {
                pos, state, cause, ..
            } => self.block(*cause, *pos, *state),
            Event::BlockChanges { cause, blocks } => {
                for &(p, s) in blocks {
                    self.block(*cause, p, s);
                }
            }
            &Event::Attack { attacker, target } => {
                let reach = match (position(attacker), position(target)) {
                    (Some(a), Some(b)) => {
                        let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
                        Some((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() as f32)
                    }
                    _ => None,
                };
                let tps = self.tps;
                let a = self.acts.entry(attacker).or_default();
                a.attacks += 1;
                a.reach.extend(reach);
                a.recent.push_back(tick);
                while let Some(&t) = a.recent.front()
                    && t + tps <= tick
                {
                    a.recent.pop_front();
                }
                a.attacks_per_second_max = a.attacks_per_second_max.max(a.recent.len() as u64);
                self.acts.entry(target).or_default().attacked += 1;
            }
            _ => {}
        }
    }

    /// Entities with figures.
    pub(crate) fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.acts.keys().copied()
    }

    /// An upper bound of the bytes [`WorldFigures::put_nbt`] adds for `id`.
    pub(crate) fn nbt_bound(&self, id: u32) -> usize {
        self.acts.get(&id).map_or(0, |a| {
            let entries = a.broken.len().min(TOP_STATES) + a.placed.len().min(TOP_STATES);
            // eight named numbers, and per top entry a compound of a state, a count and a name
            8 * 40 + entries * (64 + crate::format::palette::MAX_PALETTE_NAME_BYTES)
        })
    }

    /// Adds the figures of `id` to its compound (keys only where there is something to say).
    pub(crate) fn put_nbt(&self, id: u32, c: &mut HashMap<String, Value>, palette: &Palette) {
        let Some(a) = self.acts.get(&id) else { return };
        let int = |v: u64| Value::Int(v.min(u64::from(u32::MAX)) as u32 as i32);
        let top = |counts: Vec<(Option<u32>, u64)>| {
            let mut counts = counts;
            counts.sort_unstable_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
            Value::List(
                counts
                    .into_iter()
                    .take(TOP_STATES)
                    .map(|(state, n)| {
                        let mut e = HashMap::new();
                        if let Some(s) = state {
                            e.insert("state".to_string(), Value::Int(s as i32));
                            if let Some(name) = palette.name(PaletteKind::Block, s) {
                                e.insert("name".to_string(), Value::String(name.to_string()));
                            }
                        }
                        e.insert("count".to_string(), int(n));
                        Value::Compound(e)
                    })
                    .collect(),
            )
        };
        let broken: u64 = a.broken.values().sum();
        let placed: u64 = a.placed.values().sum();
        if broken > 0 {
            c.insert("blocks_broken".into(), int(broken));
            c.insert(
                "broken".into(),
                top(a.broken.iter().map(|(&s, &n)| (s, n)).collect()),
            );
        }
        if placed > 0 {
            c.insert("blocks_placed".into(), int(placed));
            c.insert(
                "placed".into(),
                top(a.placed.iter().map(|(&s, &n)| (Some(s), n)).collect()),
            );
        }
        if a.attacks > 0 {
            c.insert("attacks".into(), int(a.attacks));
            c.insert(
                "attacks_per_second_max".into(),
                int(a.attacks_per_second_max),
            );
        }
        if a.attacked > 0 {
            c.insert("attacked".into(), int(a.attacked));
        }
        if !a.reach.is_empty() {
            let mut r = a.reach.clone();
            r.sort_unstable_by(f32::total_cmp);
            let rank = (r.len() * 99).div_ceil(100).max(1);
            c.insert("reach_max".into(), Value::Float(r[r.len() - 1]));
            c.insert("reach_p99".into(), Value::Float(r[rank - 1]));
        }
    }
}
