//! Property tests: random tick streams written with `ReelWriter` and read back, drift over long
//! runs, and arbitrary bytes fed to every parser of untrusted input.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use proptest::prelude::*;
use tickreel::Event;
use tickreel::Pose;
use tickreel::format::BlockPos;
use tickreel::format::DecodedChunk;
use tickreel::format::EntityTable;
use tickreel::format::FrameHeader;
use tickreel::format::Header;
use tickreel::format::IndexEntry;
use tickreel::format::Limits;
use tickreel::format::wire::ChunkEncoder;
use tickreel::format::wire::{decode_index, encode_index};
use tickreel::format::{EntityInfo, EventType, Metadata};
use tickreel::format::{decode_batch, encode_batch};
use tickreel::play::Reader;
use tickreel::record::{ChunkPolicy, ReelOptions, ReelWriter};
use tickreel::storage::MemSource;

// ---------------------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------------------

/// Entity ids come from a small pool so that adds, removes and moves of the same entity meet.
const ENTITY_POOL: u32 = 8;

fn coord() -> impl Strategy<Value = i64> {
    prop_oneof![
        6 => -4_000_000i64..4_000_000,                    // ordinary worlds (±1000 blocks)
        2 => -(30_000_000i64 << 12)..(30_000_000i64 << 12), // the Minecraft world border
        1 => any::<i64>(),                                // anything a 64-bit field can hold
        1 => Just(i64::MIN),
        1 => Just(i64::MAX),
    ]
}

fn yaw() -> impl Strategy<Value = i64> {
    prop_oneof![
        4 => -65_536i64..65_536,
        2 => -(1i64 << 40)..(1i64 << 40), // unbounded: millions of turns
        1 => any::<i64>(),
    ]
}

fn pitch() -> impl Strategy<Value = i64> {
    prop_oneof![4 => -16_384i64..=16_384, 1 => any::<i64>()]
}

fn pose() -> impl Strategy<Value = Pose> {
    (coord(), coord(), coord(), yaw(), pitch()).prop_map(|(x, y, z, yaw, pitch)| Pose {
        x,
        y,
        z,
        yaw,
        pitch,
    })
}

/// A small move relative to the entity's previous pose, applied when the stream is built, so that
/// prediction sees realistic runs as well as wild jumps.
#[derive(Debug, Clone)]
enum Ev {
    Add(u32, u32, Pose),
    Remove(u32),
    AbsPose(u32, Pose),
    Step(u32, [i64; 5]),
    Position(u32, i64, i64, i64),
    Rotation(u32, i64, i64),
    Teleport(u32, Pose),
    Flags(u32, u32),
    Checkpoint(u32, u32),
    Velocity(u32, i64, i64, i64),
    Leave(u32),
    Custom(u32, Vec<u8>),
    Extension(u8, Vec<u8>),
    World(Event),
}

fn ev() -> impl Strategy<Value = Ev> {
    let id = 0..ENTITY_POOL;
    let small = -3000i64..3000;
    prop_oneof![
        3 => (id.clone(), 0u32..400, pose()).prop_map(|(e, k, p)| Ev::Add(e, k, p)),
        1 => id.clone().prop_map(Ev::Remove),
        2 => (id.clone(), pose()).prop_map(|(e, p)| Ev::AbsPose(e, p)),
        8 => (id.clone(), proptest::array::uniform5(small.clone())).prop_map(|(e, d)| Ev::Step(e, d)),
        2 => (id.clone(), coord(), coord(), coord()).prop_map(|(e, x, y, z)| Ev::Position(e, x, y, z)),
        2 => (id.clone(), yaw(), pitch()).prop_map(|(e, y, p)| Ev::Rotation(e, y, p)),
        1 => (id.clone(), pose()).prop_map(|(e, p)| Ev::Teleport(e, p)),
        2 => (id.clone(), any::<u32>()).prop_map(|(e, f)| Ev::Flags(e, f)),
        1 => (id.clone(), any::<u32>()).prop_map(|(e, i)| Ev::Checkpoint(e, i)),
        1 => (id.clone(), small.clone(), small.clone(), any::<i64>())
            .prop_map(|(e, x, y, z)| Ev::Velocity(e, x, y, z)),
        1 => id.prop_map(Ev::Leave),
        1 => (any::<u32>(), proptest::collection::vec(any::<u8>(), 0..40))
            .prop_map(|(t, d)| Ev::Custom(t, d)),
        1 => (0x4Au8..=0x7F, proptest::collection::vec(any::<u8>(), 0..20))
            .prop_map(|(k, d)| Ev::Extension(k, d)),
        2 => world_event().prop_map(Ev::World),
    ]
}

/// World events with small and extreme fields (data versions 3 and 4), and block changes to a
/// few blocks and states, so that blocks are changed again and set back (data version 7), through
/// cycles of three states and by far steps into sections changed before, at extreme positions too
/// (data version 8).
fn world_event() -> impl Strategy<Value = Event> {
    let pos =
        (any::<i32>(), -64i32..320, any::<i32>()).prop_map(|(x, y, z)| BlockPos::new(x, y, z));
    let opt = proptest::option::of(0u32..8);
    prop_oneof![
        (0i32..6, 60i32..63, -40i32..-36, 0u32..3, opt.clone()).prop_map(
            |(x, y, z, state, cause)| Event::BlockChange {
                pos: BlockPos::new(x * 4, y, z),
                state,
                cause,
                block_entity: None,
            }
        ),
        (
            pos.clone(),
            any::<u32>(),
            opt.clone(),
            proptest::option::of(proptest::collection::vec(any::<u8>(), 0..16))
        )
            .prop_map(|(pos, state, cause, block_entity)| Event::BlockChange {
                pos,
                state,
                cause,
                block_entity
            }),
        (
            opt.clone(),
            proptest::collection::vec((pos.clone(), 0u32..30_000), 1..20)
        )
            .prop_map(|(cause, blocks)| Event::BlockChanges { cause, blocks }),
        (0u32..8, 0u8..2).prop_map(|(entity, hand)| Event::Swing { entity, hand }),
        (0u32..8, 0u32..8).prop_map(|(attacker, target)| Event::Attack { attacker, target }),
        (0u32..8, any::<u32>(), any::<u32>(), opt.clone()).prop_map(
            |(entity, amount, cause, source)| Event::Damage {
                entity,
                amount,
                cause,
                source
            }
        ),
        (0u32..8, 0u8..7, any::<u32>(), 0u32..65).prop_map(|(entity, slot, item, count)| {
            Event::Equipment {
                entity,
                slot,
                item,
                count,
            }
        }),
        (opt.clone(), 0u32..4, ".{0,40}").prop_map(|(sender, channel, text)| Event::Chat {
            sender,
            channel,
            text
        }),
        (
            any::<u32>(),
            opt,
            proptest::option::of(any::<[i64; 3]>().prop_map(Box::new)),
            proptest::collection::vec(any::<u8>(), 0..20)
        )
            .prop_map(|(type_id, entity, position, data)| Event::CustomAt {
                type_id,
                entity,
                position,
                data
            }),
    ]
}

/// One input tick: its number, its events, and snapshot bytes offered just before it.
type InputTick = (u32, Vec<Event>, Option<Vec<u8>>);

#[derive(Debug, Clone)]
struct TickSpec {
    /// Ticks since the previous tick (ticks need not be contiguous).
    gap: u32,
    events: Vec<Ev>,
    /// Snapshot bytes offered just before this tick.
    snapshot: Option<Vec<u8>>,
}

fn tick_spec() -> impl Strategy<Value = TickSpec> {
    (
        prop_oneof![8 => Just(1u32), 2 => 1u32..5, 1 => 5u32..300],
        proptest::collection::vec(ev(), 0..10),
        proptest::option::weighted(0.05, proptest::collection::vec(any::<u8>(), 0..30)),
    )
        .prop_map(|(gap, events, snapshot)| TickSpec {
            gap,
            events,
            snapshot,
        })
}

fn policy() -> impl Strategy<Value = ChunkPolicy> {
    (1u32..25, 16usize..4096, 1u32..60, 1i32..4).prop_map(
        |(chunk_ticks, chunk_bytes, snapshot_interval, zstd_level)| ChunkPolicy {
            chunk_ticks,
            chunk_bytes,
            snapshot_interval,
            zstd_level,
        },
    )
}

/// Turns specs into concrete ticks, resolving `Step` against the entity's current pose.
fn build(start: u32, specs: &[TickSpec]) -> Vec<InputTick> {
    let mut table = EntityTable::default();
    let mut tick = start;
    let mut out = Vec::new();
    for (i, s) in specs.iter().enumerate() {
        if i > 0 {
            tick += s.gap;
        }
        let mut events = Vec::new();
        for e in &s.events {
            let e = match e.clone() {
                Ev::Add(entity, kind, pose) => Event::EntityAdd { entity, kind, pose },
                Ev::Remove(entity) => Event::EntityRemove { entity },
                Ev::AbsPose(entity, pose) => Event::Pose { entity, pose },
                Ev::Step(entity, d) => {
                    let p = table.get(entity).map(|s| s.pose).unwrap_or_default();
                    let a = p.to_array();
                    let moved: [i64; 5] = std::array::from_fn(|k| a[k].wrapping_add(d[k]));
                    Event::Pose {
                        entity,
                        pose: Pose::from_array(moved),
                    }
                }
                Ev::Position(entity, x, y, z) => Event::Position { entity, x, y, z },
                Ev::Rotation(entity, yaw, pitch) => Event::Rotation { entity, yaw, pitch },
                Ev::Teleport(entity, pose) => Event::Teleport { entity, pose },
                Ev::Flags(entity, flags) => Event::Flags { entity, flags },
                Ev::Checkpoint(entity, index) => Event::Checkpoint { entity, index },
                Ev::Velocity(entity, x, y, z) => Event::Velocity { entity, x, y, z },
                Ev::Leave(entity) => Event::PlayerLeave { entity },
                Ev::Custom(type_id, data) => Event::Custom { type_id, data },
                Ev::Extension(kind, data) => Event::Extension { kind, data },
                Ev::World(e) => e,
            };
            table.apply(&e);
            events.push(e);
        }
        out.push((tick, events, s.snapshot.clone()));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The documented folding, as a model
// ---------------------------------------------------------------------------------------------

/// What a straight decode must yield for `ticks`, following FORMAT.md: per tick, one `Pose` per
/// entity that received a pose-bearing event (`EntityAdd`, `Pose`, `Position`, `Rotation`,
/// `Teleport`), carrying its last pose of the tick, in entity-id order, unless an `EntityAdd` or
/// `Teleport` of that entity in the same tick carries it; then the other events in recorded order,
/// with `EntityAdd`/`Teleport` carrying that last pose. A pose or flags event for an entity that is
/// not alive adds it first (kind 0, at the origin). Ticks left with no event are absent.
fn fold(ticks: &[(u32, Vec<Event>)]) -> Vec<(u32, Vec<Event>)> {
    let mut table = EntityTable::default();
    let mut out = Vec::new();
    for (tick, events) in ticks {
        let mut stream: Vec<Event> = Vec::new();
        let mut samples: BTreeMap<u32, Pose> = BTreeMap::new();
        for e in events {
            let creates = matches!(
                e,
                Event::Pose { .. }
                    | Event::Position { .. }
                    | Event::Rotation { .. }
                    | Event::Teleport { .. }
                    | Event::Flags { .. }
            );
            if creates {
                let id = e.entity().unwrap();
                if table.get(id).is_none() {
                    let add = Event::EntityAdd {
                        entity: id,
                        kind: 0,
                        pose: Pose::default(),
                    };
                    table.apply(&add);
                    stream.push(add);
                    samples.insert(id, Pose::default());
                }
            }
            let moved = table.apply(e);
            if !matches!(
                e,
                Event::Pose { .. } | Event::Position { .. } | Event::Rotation { .. }
            ) {
                stream.push(e.clone());
            }
            if moved {
                let id = e.entity().unwrap();
                samples.insert(id, table.get(id).unwrap().pose);
            }
        }
        let mut covered = BTreeSet::new();
        for e in &mut stream {
            if let Event::EntityAdd { entity, pose, .. } | Event::Teleport { entity, pose } = e {
                *pose = samples[entity];
                covered.insert(*entity);
            }
        }
        let mut decoded: Vec<Event> = samples
            .iter()
            .filter(|(id, _)| !covered.contains(id))
            .map(|(&entity, &pose)| Event::Pose { entity, pose })
            .collect();
        decoded.extend(stream);
        if !decoded.is_empty() {
            out.push((*tick, decoded));
        }
    }
    out
}

fn write_mem(ticks: &[InputTick], policy: ChunkPolicy) -> (tempfile::TempDir, Reader) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.reel");
    let mut w = ReelWriter::create(
        &path,
        ReelOptions {
            chunk_policy: policy,
            ..ReelOptions::default()
        },
    )
    .unwrap();
    for (t, e, snap) in ticks {
        if let Some(s) = snap {
            w.offer_snapshot(s.clone()).unwrap();
        }
        w.write_tick(*t, e).unwrap();
    }
    w.finish().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let reader = Reader::open(Arc::new(MemSource::new(bytes))).unwrap();
    (dir, reader)
}

// ---------------------------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn random_streams_round_trip(
        start in prop_oneof![Just(0u32), 0u32..1_000_000],
        specs in proptest::collection::vec(tick_spec(), 1..120),
        policy in policy(),
    ) {
        let full = build(start, &specs);
        let (_dir, reader) = write_mem(&full, policy);
        let ticks: Vec<(u32, Vec<Event>)> =
            full.iter().map(|(t, e, _)| (*t, e.clone())).collect();

        // Header and index agree with the input.
        let first = ticks[0].0;
        let last = ticks.last().unwrap().0;
        prop_assert_eq!(reader.header().first_tick, first);
        prop_assert_eq!(reader.header().tick_count, last - first + 1);
        prop_assert_eq!(reader.first_tick(), Some(first));
        prop_assert_eq!(reader.last_tick(), Some(last));
        let report = reader.verify().unwrap();
        prop_assert_eq!(report.chunks, reader.index().len());

        // The straight decode yields exactly the folded input.
        let decoded: Vec<(u32, Vec<Event>)> = reader
            .ticks(0, u32::MAX)
            .map(|t| t.map(|t| (t.tick, t.events)))
            .collect::<tickreel::Result<_>>()
            .unwrap();
        prop_assert_eq!(&decoded, &fold(&ticks));

        // The state after every input tick, from the straight decode and from a seek, equals the
        // input's state.
        let expected = common::expected_states(&ticks);
        let mut table = EntityTable::default();
        let mut di = decoded.iter().peekable();
        for (tick, state) in &expected {
            while let Some((t, events)) = di.peek() {
                if t > tick {
                    break;
                }
                for e in events {
                    table.apply(e);
                }
                di.next();
            }
            prop_assert_eq!(&table, state, "straight decode at tick {}", tick);
            let s = reader.seek(*tick).unwrap();
            prop_assert_eq!(&s.entities, state, "seek to tick {}", tick);
        }

        // Snapshots: every chunk that starts where one was offered carries exactly those bytes;
        // chunks that carry one without an offer (the interval) carry empty bytes.
        let offered: BTreeMap<u32, &Vec<u8>> = full
            .iter()
            .filter_map(|(t, _, s)| s.as_ref().map(|s| (*t, s)))
            .collect();
        for (i, entry) in reader.index().iter().enumerate() {
            let chunk = reader.read_chunk(i).unwrap();
            prop_assert_eq!(chunk.snapshot.is_some(), entry.has_snapshot());
            if let Some(bytes) = offered.get(&entry.start_tick) {
                prop_assert_eq!(chunk.snapshot.as_ref(), Some(*bytes));
            } else if let Some(s) = &chunk.snapshot {
                prop_assert!(s.is_empty());
            }
            prop_assert!(entry.tick_count <= policy.chunk_ticks, "chunk span within the policy");
        }
        for t in offered.keys() {
            let c = reader.chunk_for_tick(*t).unwrap();
            prop_assert_eq!(reader.index()[c].start_tick, *t, "an offered snapshot starts a chunk");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Drift
// ---------------------------------------------------------------------------------------------

const HALF_POS: f64 = 0.5 / 4096.0;
const HALF_ANGLE: f64 = 0.5 * 360.0 / 65536.0;

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// A random walk with sub-quantum steps (and, for yaw, many unbounded turns) over 10,000
    /// ticks: every decoded pose is the exact value rounded to the nearest quantum, so the error
    /// never exceeds half a quantum and never accumulates.
    #[test]
    fn positions_never_drift(
        seed in any::<u64>(),
        origin in (-30_000_000.0f64..30_000_000.0, -64.0f64..320.0, -30_000_000.0f64..30_000_000.0),
        players in 1u32..4,
        policy in policy(),
    ) {
        let mut rng = fastrand::Rng::with_seed(seed);
        let ticks = 10_000u32;
        // exact[t][p] = (x, y, z, yaw, pitch) in blocks and degrees
        let mut state: Vec<[f64; 5]> = (0..players)
            .map(|p| [origin.0 + f64::from(p), origin.1, origin.2 - f64::from(p), rng.f64() * 720.0 - 360.0, 0.0])
            .collect();
        let mut exact: Vec<Vec<[f64; 5]>> = Vec::with_capacity(ticks as usize);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("drift.reel");
        let mut w = ReelWriter::create(&path, ReelOptions { chunk_policy: policy, ..ReelOptions::default() }).unwrap();
        // Steps well below a quantum most of the time (1/4096 block, 1/65536 turn), sometimes larger.
        let pos_q = 1.0 / 4096.0;
        let ang_q = 360.0 / 65536.0;
        for t in 0..ticks {
            let mut events = Vec::new();
            for (p, s) in state.iter_mut().enumerate() {
                let scale = if rng.u8(..) < 240 { 0.7 } else { 40.0 };
                s[0] += (rng.f64() * 2.0 - 1.0) * pos_q * scale;
                s[1] += (rng.f64() * 2.0 - 1.0) * pos_q * scale;
                s[2] += (rng.f64() * 2.0 - 1.0) * pos_q * scale + 0.3 * pos_q;
                s[3] += (rng.f64() * 2.0 - 1.0) * ang_q * scale + 11.0; // keeps turning
                s[4] = (s[4] + (rng.f64() * 2.0 - 1.0) * ang_q * scale).clamp(-90.0, 90.0);
                let pose = Pose::from_f64(s[0], s[1], s[2], s[3], s[4]);
                let entity = p as u32 + 1;
                events.push(if t == 0 {
                    Event::EntityAdd { entity, kind: 1, pose }
                } else {
                    Event::Pose { entity, pose }
                });
            }
            exact.push(state.clone());
            w.write_tick(t, &events).unwrap();
        }
        w.finish().unwrap();
        let r = Reader::open_path(&path).unwrap();
        let mut n = 0usize;
        for t in r.ticks(0, u32::MAX) {
            let t = t.unwrap();
            let row = &exact[t.tick as usize];
            for e in &t.events {
                let (entity, pose) = match e {
                    Event::EntityAdd { entity, pose, .. } | Event::Pose { entity, pose } => (*entity, *pose),
                    other => panic!("unexpected {other:?}"),
                };
                let s = row[entity as usize - 1];
                prop_assert_eq!(pose, Pose::from_f64(s[0], s[1], s[2], s[3], s[4]), "tick {}", t.tick);
                prop_assert!((pose.x_f64() - s[0]).abs() <= HALF_POS + 1e-7, "x at tick {}", t.tick);
                prop_assert!((pose.y_f64() - s[1]).abs() <= HALF_POS + 1e-7, "y at tick {}", t.tick);
                prop_assert!((pose.z_f64() - s[2]).abs() <= HALF_POS + 1e-7, "z at tick {}", t.tick);
                prop_assert!((pose.yaw_deg() - s[3]).abs() <= HALF_ANGLE + 1e-7, "yaw at tick {}", t.tick);
                prop_assert!((pose.pitch_deg() - s[4]).abs() <= HALF_ANGLE + 1e-7, "pitch at tick {}", t.tick);
                n += 1;
            }
        }
        prop_assert_eq!(n, ticks as usize * players as usize);
    }
}

#[path = "proptest_roundtrip/parsers.rs"]
mod parsers;
