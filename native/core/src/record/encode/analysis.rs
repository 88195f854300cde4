//! The analysis metadata written into a compacted file (FORMAT.md, section 4, `analysis`):
//! per entity the ticks it is present, its pose samples, the distance it covered and its bounding
//! box, and what staff sort reports by ([`super::player_analysis`]: blocks broken and placed,
//! attacks, reach, speed, rotation), computed from the straight decode of the source while
//! compacting, and from a report's events while writing it.

use std::collections::{BTreeMap, HashMap};

use fastnbt::Value;

use crate::format::chunk::DecodedChunk;
use crate::format::event::Event;
use crate::format::palette::Palette;
use crate::format::pose::Pose;
use crate::format::state::EntityState;
use crate::record::encode::player_analysis::{Motion, WorldFigures};

/// Per-entity figures gathered while compacting (see FORMAT.md, section 4, `analysis`).
#[derive(Debug, Clone)]
struct EntityAnalysis {
    /// Ticks of closed presence intervals counted so far.
    ticks: u64,
    /// The tick since which the entity is present (in the entity table), if it is.
    since: Option<u32>,
    distance: f64,
    min: [f64; 3],
    max: [f64; 3],
    /// Where the next move is measured from: `None` after a removal.
    from: Option<[f64; 3]>,
    motion: Motion,
}

impl EntityAnalysis {
    fn new(p: [f64; 3]) -> EntityAnalysis {
        EntityAnalysis {
            ticks: 0,
            since: None,
            distance: 0.0,
            min: p,
            max: p,
            from: None,
            motion: Motion::default(),
        }
    }

    fn extend(&mut self, p: [f64; 3]) {
        for (k, v) in p.iter().enumerate() {
            self.min[k] = self.min[k].min(*v);
            self.max[k] = self.max[k].max(*v);
        }
    }

    /// A pose sample.
    fn sample(&mut self, p: [f64; 3]) {
        self.extend(p);
    }
}

fn position(pose: &Pose) -> [f64; 3] {
    [pose.x_f64(), pose.y_f64(), pose.z_f64()]
}

/// The largest f32 not above `v` (a box's lower corner rounded outwards).
fn f32_at_most(v: f64) -> f32 {
    let f = v as f32;
    if f64::from(f) > v { f.next_down() } else { f }
}

/// The smallest f32 not below `v` (a box's upper corner rounded outwards).
fn f32_at_least(v: f64) -> f32 {
    let f = v as f32;
    if f64::from(f) < v { f.next_up() } else { f }
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

/// A `Pose` sample of the entity whose figures are in `slot` (created at its first sight).
fn moved(slot: &mut Option<EntityAnalysis>, tick: u32, pose: &Pose, tps: u32) {
    let p = position(pose);
    let a = slot.get_or_insert_with(|| EntityAnalysis::new(p));
    moved_at(a, p, tick, pose, tps);
}

/// [`moved`] for an entity with figures (`p`: the pose's position).
fn moved_at(a: &mut EntityAnalysis, p: [f64; 3], tick: u32, pose: &Pose, tps: u32) {
    a.since.get_or_insert(tick);
    a.sample(p);
    if let Some(f) = a.from {
        a.distance += dist(f, p);
        a.motion.sample(tick, pose, tps);
    } else {
        a.motion.restart(Some(pose));
    }
    a.from = Some(p);
}

/// One event of the straight decode at `tick`, applied to the figures in `slot` of the entity it
/// names (see [`Analysis::event`]).
fn apply_with(slot: &mut Option<EntityAnalysis>, tick: u32, e: &Event, tps: u32) {
    match *e {
        Event::Pose { ref pose, .. } => moved(slot, tick, pose, tps),
        Event::EntityAdd { ref pose, .. } | Event::Teleport { ref pose, .. } => {
            // An appearance (or a replacement, or a jump) starts a new path: no distance.
            let p = position(pose);
            let a = slot.get_or_insert_with(|| EntityAnalysis::new(p));
            a.since.get_or_insert(tick);
            a.sample(p);
            a.from = Some(p);
            a.motion.restart(Some(pose));
        }
        Event::EntityRemove { .. } | Event::PlayerLeave { .. } => {
            if let Some(a) = slot.as_mut()
                && let Some(since) = a.since.take()
            {
                // Present after ticks since..tick-1; gone after this one.
                a.ticks += u64::from(tick - since);
                a.from = None;
                a.motion.restart(None);
            }
        }
        _ => {}
    }
}

/// An upper bound of one entity's entry in the analysis NBT (id, ticks, distance, bbox, speed,
/// rotation; its world figures are bounded by [`WorldFigures::nbt_bound`]).
const ENTITY_NBT_MAX: usize = 200;

/// The analysis metadata, computed from the straight decode of the source (`DecodedChunk::ticks`,
/// which skips empty ticks: presence is therefore counted from tick spans, not from the ticks the
/// decode yields).
#[derive(Debug, Default)]
pub(crate) struct Analysis {
    entities: BTreeMap<u32, EntityAnalysis>,
    world: WorldFigures,
    /// Ticks per second (one second of the speed and attack figures; 0 until set: 20).
    tps: u32,
    palette: Palette,
    /// The event-by-event path: each entity's position (blocks) after the current tick's moves,
    /// and the current tick's attacks, measured once its moves are all in.
    positions: HashMap<u32, [f64; 3]>,
    attacks: Vec<(u32, Event)>,
}

impl Analysis {
    /// The analysis of a recording at `tick_rate_millihz` whose ids `palette` names.
    pub(crate) fn new(tick_rate_millihz: u32, palette: &Palette) -> Analysis {
        let tps = tick_rate_millihz.div_ceil(1000).max(1);
        Analysis {
            world: WorldFigures::new(tps, palette),
            tps,
            palette: palette.clone(),
            ..Analysis::default()
        }
    }

    fn tps(&self) -> u32 {
        if self.tps == 0 { 20 } else { self.tps }
    }

    fn entity(&mut self, id: u32, p: [f64; 3]) -> &mut EntityAnalysis {
        self.entities
            .entry(id)
            .or_insert_with(|| EntityAnalysis::new(p))
    }

    /// Entities in a chunk's keyframe are present from the chunk's start. Only matters when the
    /// source does not start with an empty table (else they were all seen appearing).
    pub(crate) fn keyframe(&mut self, start: u32, states: &[EntityState]) {
        for s in states {
            let p = position(&s.pose);
            self.positions.insert(s.id, p);
            let a = self.entity(s.id, p);
            if a.since.is_none() {
                a.since = Some(start);
                a.from = Some(p);
                a.extend(p);
                a.motion.restart(Some(&s.pose));
            }
        }
    }

    /// One event of the straight decode at `tick`. There, every pose sample is carried by exactly
    /// one `Pose`, `EntityAdd` or `Teleport` event of its tick (both of the last two if one tick
    /// has both), and `Position`/`Rotation` never appear.
    ///
    /// World events go to [`WorldFigures`]; an attack is measured once the tick's moves are all
    /// in (at the next tick, or [`Analysis::finish`]).
    pub(crate) fn event(&mut self, tick: u32, e: &Event) {
        if self.attacks.first().is_some_and(|a| a.0 != tick) {
            self.measure_attacks();
        }
        match e {
            Event::EntityAdd { entity, pose, .. }
            | Event::Teleport { entity, pose }
            | Event::Pose { entity, pose } => {
                self.positions.insert(*entity, position(pose));
            }
            Event::Attack { .. } => self.attacks.push((tick, e.clone())),
            _ if e.is_world() => self.world.event(tick, e, |_| None),
            _ => {}
        }
        self.entity_event(tick, e);
    }

    fn measure_attacks(&mut self) {
        let positions = &self.positions;
        for (tick, e) in self.attacks.drain(..) {
            self.world.event(tick, &e, |id| positions.get(&id).copied());
        }
    }

    /// The entity figures of one event (not its world figures).
    fn entity_event(&mut self, tick: u32, e: &Event) {
        let Some(id) = e.entity() else { return };
        let tps = self.tps();
        match e {
            // the bulk of the events: a pose of an entity with figures, changed in place
            Event::Pose { pose, .. } => {
                if let Some(a) = self.entities.get_mut(&id) {
                    moved_at(a, position(pose), tick, pose, tps);
                    return;
                }
            }
            Event::EntityAdd { .. }
            | Event::Teleport { .. }
            | Event::EntityRemove { .. }
            | Event::PlayerLeave { .. } => {}
            // (what `apply_with` leaves alone)
            _ => return,
        }
        let mut slot = self.entities.remove(&id);
        apply_with(&mut slot, tick, e, tps);
        if let Some(a) = slot {
            self.entities.insert(id, a);
        }
    }

    /// A whole decoded chunk (its keyframe included), with the same result as its straight
    /// decode's events (`DecodedChunk::ticks`) given to [`Analysis::event`] one by one, but
    /// without building them: every event concerns one entity only, so each entity's samples and
    /// record events are merged in the straight decode's order (per tick: its sample as a `Pose`
    /// unless an `EntityAdd` or `Teleport` of that tick carries it, then its events in recorded
    /// order) entity by entity.
    pub(crate) fn chunk(&mut self, c: &DecodedChunk) {
        self.keyframe(c.start_tick, &c.keyframe);
        self.chunk_world(c);
        let tps = self.tps();
        // Each entity's record events, in order: (tick, record, event).
        let mut by_entity: BTreeMap<u32, Vec<(u32, usize, usize)>> = BTreeMap::new();
        for (ri, rec) in c.records.iter().enumerate() {
            for (ei, e) in rec.events.iter().enumerate() {
                if let Some(id) = e.entity() {
                    by_entity.entry(id).or_default().push((rec.rel, ri, ei));
                }
            }
        }
        let no_events = Vec::new();
        let event = |x: (u32, usize, usize)| (c.start_tick + x.0, &c.records[x.1].events[x.2]);
        for t in &c.tracks {
            let evs = by_entity.remove(&t.entity);
            let evs = evs.as_ref().unwrap_or(&no_events);
            // this entity's figures, taken out of the map while its events are applied
            let mut slot = self.entities.remove(&t.entity);
            let mut k = 0;
            for (&rel, pose) in t.ticks.iter().zip(&t.poses) {
                while k < evs.len() && evs[k].0 < rel {
                    let (tick, e) = event(evs[k]);
                    apply_with(&mut slot, tick, e, tps);
                    k += 1;
                }
                let carried = evs[k..].iter().take_while(|x| x.0 == rel).any(|x| {
                    matches!(
                        c.records[x.1].events[x.2],
                        Event::EntityAdd { .. } | Event::Teleport { .. }
                    )
                });
                if !carried {
                    moved(&mut slot, c.start_tick + rel, pose, tps);
                }
                while k < evs.len() && evs[k].0 == rel {
                    let (tick, e) = event(evs[k]);
                    apply_with(&mut slot, tick, e, tps);
                    k += 1;
                }
            }
            for &x in &evs[k..] {
                let (tick, e) = event(x);
                apply_with(&mut slot, tick, e, tps);
            }
            if let Some(a) = slot {
                self.entities.insert(t.entity, a);
            }
        }
        for evs in by_entity.values() {
            for &x in evs {
                let (tick, e) = event(x);
                self.entity_event(tick, e);
            }
        }
    }

    /// The world figures of a chunk's events, in tick order; an attack's positions are the
    /// entities' poses at its tick (their last sample at or before it, else the keyframe's).
    fn chunk_world(&mut self, c: &DecodedChunk) {
        let tracks: HashMap<u32, &crate::format::chunk::Track> =
            c.tracks.iter().map(|t| (t.entity, t)).collect();
        let at = |id: u32, rel: u32| -> Option<[f64; 3]> {
            if let Some(t) = tracks.get(&id) {
                let k = t.ticks.partition_point(|&r| r <= rel);
                if k > 0 {
                    return Some(position(&t.poses[k - 1]));
                }
            }
            c.keyframe
                .iter()
                .find(|s| s.id == id)
                .map(|s| position(&s.pose))
        };
        for rec in &c.records {
            for e in rec.events.iter().filter(|e| e.is_world()) {
                self.world
                    .event(c.start_tick + rec.rel, e, |id| at(id, rec.rel));
            }
        }
    }

    /// Closes the presence of every entity still there at the recording's last tick.
    pub(crate) fn finish(&mut self, last: u32) {
        self.measure_attacks();
        for a in self.entities.values_mut() {
            if let Some(since) = a.since.take() {
                a.ticks += u64::from(last - since) + 1;
            }
        }
    }

    /// The analysis as NBT, kept small (it is a quarter of a 3-second run's file): Floats, with
    /// boxes rounded outwards so that they still hold every position, and of the totals only the
    /// distance (the span is in the header, the entity count is the list's length, the overall box
    /// is the union of the entities' boxes).
    /// The analysis as NBT. When the per-entity list would take more than a quarter of the
    /// metadata a reader accepts (some 30,000 entities), it is left out: only `distance` and
    /// `entities_omitted` (the number of entities) are written, so that the analysis can never
    /// make a compacted file unreadable.
    pub(crate) fn to_nbt(&self) -> Value {
        let max = crate::format::Limits::default().max_metadata_bytes / 4;
        let world: usize = self
            .world
            .ids()
            .map(|id| ENTITY_NBT_MAX + self.world.nbt_bound(id))
            .sum();
        if self.entities.len() * ENTITY_NBT_MAX + world > max {
            let total: f64 = self.entities.values().map(|a| a.distance).sum();
            let mut root = HashMap::new();
            root.insert("distance".into(), Value::Float(total as f32));
            root.insert(
                "entities_omitted".into(),
                Value::Int(self.entities.len().min(i32::MAX as usize) as i32),
            );
            return Value::Compound(root);
        }
        self.full_nbt()
    }

    fn full_nbt(&self) -> Value {
        // Counts are Ints holding u32 bit patterns (as ids and ticks elsewhere in the metadata).
        let count = |v: u64| Value::Int(v.min(u64::from(u32::MAX)) as u32 as i32);
        let bbox = |min: &[f64; 3], max: &[f64; 3]| {
            let lo = min.iter().map(|v| Value::Float(f32_at_most(*v)));
            let hi = max.iter().map(|v| Value::Float(f32_at_least(*v)));
            Value::List(lo.chain(hi).collect())
        };
        let mut total = 0.0;
        let mut list: BTreeMap<u32, HashMap<String, Value>> = self
            .entities
            .iter()
            .map(|(id, a)| {
                total += a.distance;
                let mut c = HashMap::new();
                c.insert("id".into(), Value::Int(*id as i32));
                c.insert("ticks".into(), count(a.ticks));
                c.insert("distance".into(), Value::Float(a.distance as f32));
                c.insert("bbox".into(), bbox(&a.min, &a.max));
                if a.motion.speed_max > 0.0 {
                    c.insert("speed".into(), Value::Float(a.motion.speed_max as f32));
                }
                if a.motion.rotation_max > 0.0 {
                    c.insert("turn".into(), Value::Float(a.motion.rotation_max as f32));
                }
                (*id, c)
            })
            .collect();
        for id in self.world.ids() {
            let c = list
                .entry(id)
                .or_insert_with(|| HashMap::from([("id".to_string(), Value::Int(id as i32))]));
            self.world.put_nbt(id, c, &self.palette);
        }
        let list = list.into_values().map(Value::Compound).collect();
        let mut root = HashMap::new();
        root.insert("entities".into(), Value::List(list));
        root.insert("distance".into(), Value::Float(total as f32));
        Value::Compound(root)
    }
}

#[cfg(test)]
mod rounding_tests {
    use super::{ENTITY_NBT_MAX, f32_at_least, f32_at_most};
    use crate::format::state::EntityState;

    #[test]
    fn an_entity_entry_stays_within_its_bound_and_huge_lists_are_left_out() {
        let mut a = super::Analysis::default();
        let kf: Vec<EntityState> = (0..3)
            .map(|id| EntityState {
                id: u32::MAX - id,
                ..EntityState::default()
            })
            .collect();
        a.keyframe(u32::MAX - 10, &kf);
        a.finish(u32::MAX);
        let one = crate::format::limits::nbt_bytes(&a.to_nbt());
        assert!(one < 3 * ENTITY_NBT_MAX, "{one}");
        let many: Vec<EntityState> = (0..40_000)
            .map(|id| EntityState {
                id,
                ..EntityState::default()
            })
            .collect();
        let mut a = super::Analysis::default();
        a.keyframe(0, &many);
        a.finish(0);
        let v = a.to_nbt();
        let fastnbt::Value::Compound(c) = &v else {
            panic!("{v:?}")
        };
        assert!(!c.contains_key("entities"));
        assert_eq!(
            c.get("entities_omitted"),
            Some(&fastnbt::Value::Int(40_000))
        );
    }

    #[test]
    fn boxes_round_outwards_where_f32_cannot_hold_a_position() {
        // 5000 + 1/4096 block: between two f32 values (their step at 5000 is 1/2048).
        let v = 5000.0 + 1.0 / 4096.0;
        let (lo, hi) = (f32_at_most(v), f32_at_least(v));
        assert!(f64::from(lo) < v && f64::from(hi) > v);
        assert_eq!(lo.next_up(), hi);
        // Values an f32 holds stay exact; negative values round away from the box too.
        assert_eq!((f32_at_most(64.5), f32_at_least(64.5)), (64.5, 64.5));
        assert!(f64::from(f32_at_most(-v)) < -v && f64::from(f32_at_least(-v)) > -v);
    }
}

#[cfg(test)]
mod chunk_tests {
    use crate::format::Limits;
    use crate::format::chunk::{ChunkEncoder, DecodedChunk};
    use crate::format::event::Event;
    use crate::format::pose::Pose;

    fn pose(e: u32, t: u32) -> Pose {
        Pose::from_f64(
            f64::from(e) + f64::from(t) * 0.3,
            64.0 + f64::from(t % 5),
            f64::from(t) * f64::from(e % 3),
            0.0,
            0.0,
        )
    }

    /// Adds, removals, re-adds, teleports (also in the tick of an add), bare poses of absent
    /// entities, removals in the tick of a sample, flags, on sparse ticks over three chunks: the
    /// chunk-wise analysis equals the event-by-event one over the straight decode.
    #[test]
    fn chunk_analysis_equals_the_analysis_of_the_straight_decode() {
        let mut enc = ChunkEncoder::new();
        let (mut by_chunk, mut by_event) = (super::Analysis::default(), super::Analysis::default());
        for part in 0..3u32 {
            let start = part * 40;
            enc.begin(start, None);
            for t in start..start + 40 {
                let mut ev = Vec::new();
                for e in 1..=9u32 {
                    match (t + e) % 11 {
                        0 => ev.push(Event::EntityAdd {
                            entity: e,
                            kind: 1,
                            pose: pose(e, t),
                        }),
                        3 => ev.push(Event::EntityRemove { entity: e }),
                        5 if e % 2 == 0 => {
                            ev.push(Event::EntityAdd {
                                entity: e,
                                kind: 2,
                                pose: pose(e, t),
                            });
                            ev.push(Event::Teleport {
                                entity: e,
                                pose: pose(e + 50, t),
                            });
                        }
                        7 => ev.push(Event::Teleport {
                            entity: e,
                            pose: pose(e + 90, t),
                        }),
                        8 => {
                            ev.push(Event::Pose {
                                entity: e,
                                pose: pose(e, t),
                            });
                            ev.push(Event::PlayerLeave { entity: e });
                        }
                        // world events: an attack (measured at the tick's poses), blocks
                        1 if e % 3 == 0 => {
                            ev.push(Event::Attack {
                                attacker: e,
                                target: e % 9 + 1,
                            });
                            ev.push(Event::BlockChange {
                                pos: crate::format::BlockPos::new(e as i32, 0, (t % 4) as i32),
                                state: t % 3,
                                cause: Some(e),
                                block_entity: None,
                            });
                        }
                        x if x % 2 == 1 || e == 9 => ev.push(Event::Pose {
                            entity: e,
                            pose: pose(e, t),
                        }),
                        _ => ev.push(Event::Flags {
                            entity: e,
                            flags: t,
                        }),
                    }
                }
                enc.push_tick(t, &ev).unwrap();
            }
            let mut payload = Vec::new();
            enc.encode_payload(&mut payload);
            let c =
                DecodedChunk::decode(&payload, enc.flags(), start, 40, &Limits::default()).unwrap();
            by_chunk.chunk(&c);
            by_event.keyframe(c.start_tick, &c.keyframe);
            for t in c.ticks() {
                for e in &t.events {
                    by_event.event(t.tick, e);
                }
            }
        }
        by_chunk.finish(119);
        by_event.finish(119);
        assert_eq!(by_chunk.entities.len(), 9);
        assert_eq!(by_chunk.to_nbt(), by_event.to_nbt());
        // the world figures are there, and equal
        let nbt = format!("{:?}", by_chunk.to_nbt());
        assert!(
            nbt.contains("reach_max") && nbt.contains("blocks_placed"),
            "{nbt}"
        );
        assert_eq!(
            format!("{:?}", by_chunk.entities),
            format!("{:?}", by_event.entities)
        );
    }
}
