//! The analysis metadata written into a compacted file (FORMAT.md, section 4, `analysis`):
//! per entity the ticks it is present, its pose samples, the distance it covered and its bounding
//! box, computed from the straight decode of the source while compacting.

use std::collections::{BTreeMap, HashMap};

use fastnbt::Value;

use crate::format::chunk::DecodedChunk;
use crate::format::event::Event;
use crate::format::pose::Pose;
use crate::format::state::EntityState;

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
fn moved(slot: &mut Option<EntityAnalysis>, tick: u32, p: [f64; 3]) {
    let a = slot.get_or_insert_with(|| EntityAnalysis::new(p));
    a.since.get_or_insert(tick);
    a.sample(p);
    if let Some(f) = a.from {
        a.distance += dist(f, p);
    }
    a.from = Some(p);
}

/// One event of the straight decode at `tick`, applied to the figures in `slot` of the entity it
/// names (see [`Analysis::event`]).
fn apply(slot: &mut Option<EntityAnalysis>, tick: u32, e: &Event) {
    match *e {
        Event::EntityAdd { ref pose, .. } | Event::Teleport { ref pose, .. } => {
            // An appearance (or a replacement, or a jump) starts a new path: no distance.
            let p = position(pose);
            let a = slot.get_or_insert_with(|| EntityAnalysis::new(p));
            a.since.get_or_insert(tick);
            a.sample(p);
            a.from = Some(p);
        }
        Event::Pose { ref pose, .. } => moved(slot, tick, position(pose)),
        Event::EntityRemove { .. } | Event::PlayerLeave { .. } => {
            if let Some(a) = slot.as_mut()
                && let Some(since) = a.since.take()
            {
                // Present after ticks since..tick-1; gone after this one.
                a.ticks += u64::from(tick - since);
                a.from = None;
            }
        }
        _ => {}
    }
}

/// An upper bound of one entity's entry in the analysis NBT (id, ticks, distance, bbox).
const ENTITY_NBT_MAX: usize = 160;

/// The analysis metadata, computed from the straight decode of the source (`DecodedChunk::ticks`,
/// which skips empty ticks: presence is therefore counted from tick spans, not from the ticks the
/// decode yields).
#[derive(Debug, Default)]
pub(crate) struct Analysis {
    entities: BTreeMap<u32, EntityAnalysis>,
}

impl Analysis {
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
            let a = self.entity(s.id, p);
            if a.since.is_none() {
                a.since = Some(start);
                a.from = Some(p);
                a.extend(p);
            }
        }
    }

    /// One event of the straight decode at `tick`. There, every pose sample is carried by exactly
    /// one `Pose`, `EntityAdd` or `Teleport` event of its tick (both of the last two if one tick
    /// has both), and `Position`/`Rotation` never appear.
    pub(crate) fn event(&mut self, tick: u32, e: &Event) {
        let Some(id) = e.entity() else { return };
        let mut slot = self.entities.remove(&id);
        apply(&mut slot, tick, e);
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
                    apply(&mut slot, tick, e);
                    k += 1;
                }
                let carried = evs[k..].iter().take_while(|x| x.0 == rel).any(|x| {
                    matches!(
                        c.records[x.1].events[x.2],
                        Event::EntityAdd { .. } | Event::Teleport { .. }
                    )
                });
                if !carried {
                    moved(&mut slot, c.start_tick + rel, position(pose));
                }
                while k < evs.len() && evs[k].0 == rel {
                    let (tick, e) = event(evs[k]);
                    apply(&mut slot, tick, e);
                    k += 1;
                }
            }
            for &x in &evs[k..] {
                let (tick, e) = event(x);
                apply(&mut slot, tick, e);
            }
            if let Some(a) = slot {
                self.entities.insert(t.entity, a);
            }
        }
        for evs in by_entity.values() {
            for &x in evs {
                let (tick, e) = event(x);
                self.event(tick, e);
            }
        }
    }

    /// Closes the presence of every entity still there at the recording's last tick.
    pub(crate) fn finish(&mut self, last: u32) {
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
        if self.entities.len() * ENTITY_NBT_MAX > max {
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
        let list = self
            .entities
            .iter()
            .map(|(id, a)| {
                total += a.distance;
                let mut c = HashMap::new();
                c.insert("id".into(), Value::Int(*id as i32));
                c.insert("ticks".into(), count(a.ticks));
                c.insert("distance".into(), Value::Float(a.distance as f32));
                c.insert("bbox".into(), bbox(&a.min, &a.max));
                Value::Compound(c)
            })
            .collect();
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
        assert_eq!(
            format!("{:?}", by_chunk.entities),
            format!("{:?}", by_event.entities)
        );
    }
}
