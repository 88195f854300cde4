//! The changes between two worlds: every block, health and equipment slot that differs, each
//! with what it is in the first world and in the second ([`WorldState::changes_to`]), as a jump
//! of a playhead reports them. Two worlds on the same sorted list compare only their changes
//! since it; others merge their sorted lists.

use std::collections::BTreeMap;

use super::{EntityWorld, WorldChange, WorldState};
use crate::format::world::BlockPos;

impl WorldState {
    /// Reports every difference between this world and `new` as the changes that turn this one
    /// into it: health and equipment first (by entity, then slot), then blocks by position
    /// (a block whose block entity changed where its state did not is reported with the same
    /// state before and after). Each position, entity and slot at most once.
    pub fn changes_to(&self, new: &WorldState, changed: &mut impl FnMut(WorldChange)) {
        if std::ptr::eq(self, new) {
            return;
        }
        entity_changes(&self.entities, &new.entities, changed);
        // Without block entities on either side, each difference is a change as it is found.
        let direct = self.block_entities.is_empty() && new.block_entities.is_empty();
        let mut diffs: Vec<(BlockPos, Option<u32>, Option<u32>)> = Vec::new();
        let mut emit = |pos, before, after| {
            if direct {
                changed(WorldChange::Block { pos, before, after });
            } else {
                diffs.push((pos, before, after));
            }
        };
        if std::sync::Arc::ptr_eq(&self.base, &new.base) {
            // on the same keyframe list: only what either changed on it can differ
            let delta = |w: &'_ WorldState| {
                w.delta
                    .as_ref()
                    .map_or(&[][..], |d| d.get(&w.base))
                    .iter()
                    .map(|b| b.0)
                    .collect::<Vec<_>>()
            };
            let same_delta = match (&self.delta, &new.delta) {
                (None, None) => true,
                (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
                _ => false,
            };
            let (da, db) = if same_delta {
                (Vec::new(), Vec::new())
            } else {
                (delta(self), delta(new))
            };
            let mut ps: Vec<BlockPos> = self
                .overlay
                .keys()
                .chain(new.overlay.keys())
                .chain(da.iter())
                .chain(db.iter())
                .copied()
                .collect();
            ps.sort_unstable();
            ps.dedup();
            for p in ps {
                let (a, b) = (self.block(p), new.block(p));
                if a != b {
                    emit(p, a, b);
                }
            }
        } else {
            let (a, b) = (self.sorted_view(), new.sorted_view());
            block_diff(a.iter().copied(), b.iter().copied(), emit);
        }
        if direct {
            return;
        }
        // block entities that changed where the state did not
        let mut nbt: Vec<BlockPos> = self
            .block_entities
            .iter()
            .filter(|(p, v)| new.block_entities.get(p).is_none_or(|w| w[..] != v[..]))
            .map(|(p, _)| *p)
            .chain(
                new.block_entities
                    .keys()
                    .filter(|p| !self.block_entities.contains_key(p))
                    .copied(),
            )
            .collect();
        nbt.sort_unstable();
        let mut d = diffs.into_iter().peekable();
        let mut n = nbt.into_iter().peekable();
        loop {
            let next = match (d.peek(), n.peek()) {
                (None, None) => break,
                (Some(x), Some(&q)) if q < x.0 => None,
                (Some(_), _) => d.next(),
                (None, Some(_)) => None,
            };
            let (pos, before, after) = match next {
                Some(x) => {
                    if n.peek() == Some(&x.0) {
                        n.next();
                    }
                    x
                }
                None => {
                    let q = n.next().expect("peeked");
                    let s = new.block(q);
                    (q, s, s)
                }
            };
            changed(WorldChange::Block { pos, before, after });
        }
    }
}

/// The health and equipment differences from the entities `old` to `new` (both by id), by id
/// then slot.
fn entity_changes(
    old: &BTreeMap<u32, EntityWorld>,
    new: &BTreeMap<u32, EntityWorld>,
    changed: &mut impl FnMut(WorldChange),
) {
    let empty = EntityWorld::default();
    let (mut a, mut b) = (old.iter().peekable(), new.iter().peekable());
    loop {
        let (id, x, y) = match (a.peek(), b.peek()) {
            (None, None) => return,
            (Some(&(&i, x)), None) => {
                a.next();
                (i, x, &empty)
            }
            (None, Some(&(&j, y))) => {
                b.next();
                (j, &empty, y)
            }
            (Some(&(&i, x)), Some(&(&j, y))) => match i.cmp(&j) {
                std::cmp::Ordering::Less => {
                    a.next();
                    (i, x, &empty)
                }
                std::cmp::Ordering::Greater => {
                    b.next();
                    (j, &empty, y)
                }
                std::cmp::Ordering::Equal => {
                    a.next();
                    b.next();
                    (i, x, y)
                }
            },
        };
        if x == y {
            continue;
        }
        if x.health != y.health {
            changed(WorldChange::Health {
                entity: id,
                before: x.health,
                after: y.health,
            });
        }
        // both slot lists are sorted by slot
        let (mut s, mut t) = (x.equipment.iter().peekable(), y.equipment.iter().peekable());
        loop {
            let (slot, before, after) = match (s.peek(), t.peek()) {
                (None, None) => break,
                (Some(&&(k, it)), None) => {
                    s.next();
                    (k, Some(it), None)
                }
                (None, Some(&&(k, it))) => {
                    t.next();
                    (k, None, Some(it))
                }
                (Some(&&(k, i1)), Some(&&(l, i2))) => match k.cmp(&l) {
                    std::cmp::Ordering::Less => {
                        s.next();
                        (k, Some(i1), None)
                    }
                    std::cmp::Ordering::Greater => {
                        t.next();
                        (l, None, Some(i2))
                    }
                    std::cmp::Ordering::Equal => {
                        s.next();
                        t.next();
                        (k, Some(i1), Some(i2))
                    }
                },
            };
            if before != after {
                changed(WorldChange::Equipment {
                    entity: id,
                    slot,
                    before,
                    after,
                });
            }
        }
    }
}

/// The blocks of the sorted list `base` with the sorted changes `over` on top (`None`: the block
/// is not edited), by position.
pub(super) fn merge_sorted<'a>(
    base: &'a [(BlockPos, u32)],
    over: &'a [(BlockPos, Option<u32>)],
) -> impl Iterator<Item = (BlockPos, u32)> + 'a {
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || {
        loop {
            let from_base = match (base.get(i), over.get(j)) {
                (None, None) => return None,
                (Some(b), Some(o)) => b.0 < o.0,
                (Some(_), None) => true,
                (None, Some(_)) => false,
            };
            if from_base {
                i += 1;
                return Some(base[i - 1]);
            }
            let (q, t) = over[j];
            j += 1;
            if base.get(i).is_some_and(|b| b.0 == q) {
                i += 1;
            }
            if let Some(t) = t {
                return Some((q, t));
            }
        }
    })
}

/// Calls `f(pos, before, after)` for every position whose state differs between the blocks `a`
/// (before) and `b` (after), both sorted by position, by position.
fn block_diff(
    a: impl Iterator<Item = (BlockPos, u32)>,
    b: impl Iterator<Item = (BlockPos, u32)>,
    mut f: impl FnMut(BlockPos, Option<u32>, Option<u32>),
) {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    loop {
        match (a.peek().copied(), b.peek().copied()) {
            (None, None) => return,
            (Some((p, s)), None) => {
                f(p, Some(s), None);
                a.next();
            }
            (None, Some((q, t))) => {
                f(q, None, Some(t));
                b.next();
            }
            (Some((p, s)), Some((q, t))) => match p.cmp(&q) {
                std::cmp::Ordering::Less => {
                    f(p, Some(s), None);
                    a.next();
                }
                std::cmp::Ordering::Greater => {
                    f(q, None, Some(t));
                    b.next();
                }
                std::cmp::Ordering::Equal => {
                    if s != t {
                        f(p, Some(s), Some(t));
                    }
                    a.next();
                    b.next();
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::tests::bc;
    use super::*;
    use crate::format::Limits;
    use crate::format::event::Event;

    /// A world from a decoded section (sorted list) with random changes on top, against a
    /// plain map of the same changes.
    fn random_world(
        rng: &mut fastrand::Rng,
        base: &WorldState,
        nbt: bool,
    ) -> (WorldState, BTreeMap<BlockPos, u32>) {
        let mut w = base.clone();
        let mut m: BTreeMap<BlockPos, u32> = base.sorted_blocks().into_iter().collect();
        for _ in 0..rng.usize(0..60) {
            let p = BlockPos::new(rng.i32(0..8), rng.i32(0..3), rng.i32(-4..4));
            match rng.u8(0..7) {
                5 => w.apply(&Event::Health {
                    entity: rng.u32(0..4),
                    health: rng.u32(0..3),
                }),
                6 => w.apply(&Event::Equipment {
                    entity: rng.u32(0..4),
                    slot: rng.u8(0..3),
                    item: rng.u32(0..3),
                    count: rng.u32(0..2),
                }),
                0 => {
                    w.set_block(p, None, None, &mut |_| {});
                    m.remove(&p);
                }
                1 if nbt => {
                    let nbt: Arc<[u8]> = Arc::from(vec![rng.u8(..)]);
                    let s = rng.u32(1..4);
                    w.set_block(p, Some(s), Some(nbt), &mut |_| {});
                    m.insert(p, s);
                }
                _ => {
                    let s = rng.u32(1..4);
                    w.apply(&bc(p.x, p.y, p.z, s));
                    m.insert(p, s);
                }
            }
        }
        (w, m)
    }

    #[test]
    fn sorted_blocks_and_changes_between_worlds_follow_a_plain_map() {
        let mut rng = fastrand::Rng::with_seed(5);
        for round in 0..300 {
            // a base as a decoded section gives it (a sorted list), or none
            let (start, _) = random_world(&mut rng, &WorldState::new(), round % 2 == 0);
            let mut bytes = Vec::new();
            start.encode(&mut bytes);
            let decoded = WorldState::decode(&bytes, &Limits::default()).unwrap();
            assert_eq!(decoded, start);
            let base_b = if round % 3 == 0 {
                WorldState::new()
            } else {
                decoded.clone()
            };
            let (a, ma) = random_world(&mut rng, &decoded, round % 2 == 0);
            let (b, mb) = random_world(&mut rng, &base_b, round % 2 == 0);
            for (w, m) in [(&a, &ma), (&b, &mb)] {
                let want: Vec<(BlockPos, u32)> = m.iter().map(|(&p, &s)| (p, s)).collect();
                assert_eq!(w.sorted_blocks(), want, "round {round}");
                assert_eq!(w.block_count(), m.len());
                let mut any: Vec<_> = w.blocks().collect();
                assert_eq!(w.blocks().len(), m.len());
                any.sort_unstable();
                assert_eq!(any, want);
                for p in m.keys() {
                    assert_eq!(w.block(*p), m.get(p).copied());
                }
            }
            // the changes from a to b, applied to a copy of a, give b; each reported once
            let mut copy = ma.clone();
            let mut nbt: BTreeMap<BlockPos, Vec<u8>> =
                a.block_entities().map(|(p, b)| (p, b.to_vec())).collect();
            let mut seen = std::collections::BTreeSet::new();
            let mut ents = a.entities.clone();
            let mut seen_ent = std::collections::BTreeSet::new();
            a.changes_to(&b, &mut |c| {
                match c {
                    WorldChange::Health {
                        entity,
                        before,
                        after,
                    } => {
                        assert!(seen_ent.insert((entity, None)), "round {round}");
                        let e = ents.entry(entity).or_default();
                        assert_eq!(e.health, before, "round {round}");
                        e.health = after;
                    }
                    WorldChange::Equipment {
                        entity,
                        slot,
                        before,
                        after,
                    } => {
                        assert!(seen_ent.insert((entity, Some(slot))), "round {round}");
                        let e = ents.entry(entity).or_default();
                        assert_eq!(e.slot(slot), before, "round {round}");
                        e.set_slot(slot, after);
                    }
                    WorldChange::Block { .. } => {}
                }
                if let WorldChange::Block { pos, before, after } = c {
                    assert!(seen.insert(pos), "round {round}: {pos:?} twice");
                    assert_eq!(copy.get(&pos).copied(), before, "round {round}");
                    match after {
                        Some(s) => copy.insert(pos, s),
                        None => copy.remove(&pos),
                    };
                    match b.block_entity(pos) {
                        Some(x) => nbt.insert(pos, x.to_vec()),
                        None => nbt.remove(&pos),
                    };
                }
            });
            assert_eq!(copy, mb, "round {round}");
            let want_nbt: BTreeMap<BlockPos, Vec<u8>> =
                b.block_entities().map(|(p, b)| (p, b.to_vec())).collect();
            assert_eq!(nbt, want_nbt, "round {round}");
            ents.retain(|_, e| !e.is_empty());
            assert_eq!(ents, b.entities, "round {round}");
        }
    }
}
