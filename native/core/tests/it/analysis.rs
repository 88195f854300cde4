//! The per-player analysis (blocks broken and placed, attacks, reach, attacks in one second,
//! speed over one second, rotation in one tick) of a hand-computed recording, at compaction and
//! in a shadow-play report of the same ticks.

use std::collections::HashMap;
use std::time::Duration;

use fastnbt::Value;

use crate::common::{batch, within};
use tickreel::format::{BlockPos, PaletteKind};
use tickreel::play::Reader;
use tickreel::shadow::{ReportOptions, ShadowBuffer, ShadowOptions};
use tickreel::{Engine, EngineOptions, Event, Pose, RecorderOptions};

const AIR: u32 = 0;
const STONE: u32 = 1;
const DIAMOND_ORE: u32 = 2;
const PLANKS: u32 = 3;
const CAVE_AIR: u32 = 9;

fn p(x: f64, z: f64, yaw: f64, pitch: f64) -> Pose {
    Pose::from_f64(x, 64.0, z, yaw, pitch)
}

fn block(x: i32, state: u32, cause: Option<u32>) -> Event {
    Event::BlockChange {
        pos: BlockPos::new(x, 60, 0),
        state,
        cause,
        block_entity: None,
    }
}

/// Entity 1 walks 0.25 blocks a tick along x for ticks 1 to 40 (5 blocks in any second), turns
/// 45° at tick 10, 90° the short way round at 11 (315° to 45°) and pitches 45° at 12, is
/// teleported 90 blocks on at 41 and walks 2 blocks a tick at 42 and 43. It mines an ore the
/// world set before, a block nobody set, places three blocks and breaks one of them; it hits
/// entity 2 at ticks 21 to 23 from 5, 3 and 10 blocks. Entity 2, teleported next to it at 99,
/// hits it every second tick from 100 to 300 from 3 blocks, but from 30 at tick 200 (after
/// jumping 27 blocks sideways, and back at 201).
fn ticks() -> Vec<(u32, Vec<Event>)> {
    let mut out = Vec::new();
    let mut yaw = 0.0;
    let mut pitch = 0.0;
    for t in 0..=300u32 {
        let mut ev = Vec::new();
        let x1 = 0.25 * f64::from(t);
        match t {
            0 => ev.extend([
                Event::EntityAdd {
                    entity: 1,
                    kind: 1,
                    pose: p(0.0, 0.0, 0.0, 0.0),
                },
                Event::EntityAdd {
                    entity: 2,
                    kind: 1,
                    pose: p(3.0, 4.0, 0.0, 0.0),
                },
            ]),
            1..=40 => {
                match t {
                    10 => yaw = 315.0,
                    11 => yaw = 45.0,
                    12 => pitch = 45.0,
                    _ => {}
                }
                ev.push(Event::Pose {
                    entity: 1,
                    pose: p(x1, 0.0, yaw, pitch),
                });
            }
            41 => ev.push(Event::Teleport {
                entity: 1,
                pose: p(100.0, 0.0, 0.0, 0.0),
            }),
            42 | 43 => ev.push(Event::Pose {
                entity: 1,
                pose: p(100.0 + 2.0 * f64::from(t - 41), 0.0, 0.0, 0.0),
            }),
            _ => {}
        }
        let two = match t {
            21 => Some(p(x1 + 3.0, 4.0, 0.0, 0.0)),
            22 => Some(p(x1, 3.0, 0.0, 0.0)),
            23 => Some(p(x1 + 6.0, 8.0, 0.0, 0.0)),
            200 => Some(p(104.0, 30.0, 0.0, 0.0)),
            201 => Some(p(104.0, 3.0, 0.0, 0.0)),
            _ => None,
        };
        if let Some(pose) = two {
            ev.push(Event::Pose { entity: 2, pose });
        }
        if t == 99 {
            ev.push(Event::Teleport {
                entity: 2,
                pose: p(104.0, 3.0, 0.0, 0.0),
            });
        }
        match t {
            1 => ev.push(block(10, DIAMOND_ORE, None)),
            2 => ev.push(block(10, AIR, Some(1))),
            3 => ev.push(block(11, CAVE_AIR, Some(1))),
            4 => ev.push(Event::BlockChanges {
                cause: Some(1),
                blocks: vec![
                    (BlockPos::new(0, 70, 0), PLANKS),
                    (BlockPos::new(1, 70, 0), PLANKS),
                    (BlockPos::new(2, 70, 0), STONE),
                ],
            }),
            5 => ev.push(Event::BlockChange {
                pos: BlockPos::new(0, 70, 0),
                state: AIR,
                cause: Some(1),
                block_entity: None,
            }),
            21..=23 => ev.push(Event::Attack {
                attacker: 1,
                target: 2,
            }),
            100..=300 if t % 2 == 0 => ev.push(Event::Attack {
                attacker: 2,
                target: 1,
            }),
            _ => {}
        }
        out.push((t, ev));
    }
    out
}

fn names() -> [(u32, &'static str); 5] {
    [
        (AIR, "minecraft:air"),
        (STONE, "minecraft:stone"),
        (DIAMOND_ORE, "minecraft:diamond_ore"),
        (PLANKS, "minecraft:oak_planks"),
        (CAVE_AIR, "minecraft:cave_air[foo=bar]"),
    ]
}

/// The analysis entry of entity `id`.
fn entry(r: &Reader, id: u32) -> HashMap<String, Value> {
    let Some(Value::Compound(root)) = &r.metadata().library.analysis else {
        panic!("no analysis")
    };
    let Some(Value::List(list)) = root.get("entities") else {
        panic!("no entities: {root:?}")
    };
    list.iter()
        .find_map(|v| match v {
            Value::Compound(c) if c.get("id") == Some(&Value::Int(id as i32)) => Some(c.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no entry of {id}"))
}

fn float(c: &HashMap<String, Value>, k: &str) -> f32 {
    match c.get(k) {
        Some(Value::Float(v)) => *v,
        other => panic!("{k}: {other:?}"),
    }
}

fn int(c: &HashMap<String, Value>, k: &str) -> i32 {
    match c.get(k) {
        Some(Value::Int(v)) => *v,
        other => panic!("{k}: {other:?}"),
    }
}

/// `(state, name, count)` of a top list.
fn top(c: &HashMap<String, Value>, k: &str) -> Vec<(Option<i32>, Option<String>, i32)> {
    let Some(Value::List(l)) = c.get(k) else {
        panic!("{k}: {:?}", c.get(k))
    };
    l.iter()
        .map(|v| {
            let Value::Compound(e) = v else { panic!() };
            (
                e.get("state").map(|_| int(e, "state")),
                match e.get("name") {
                    Some(Value::String(s)) => Some(s.clone()),
                    _ => None,
                },
                int(e, "count"),
            )
        })
        .collect()
}

fn check(r: &Reader) {
    let one = entry(r, 1);
    assert_eq!(int(&one, "blocks_broken"), 3);
    assert_eq!(
        top(&one, "broken"),
        [
            (None, None, 1),
            (Some(2), Some("minecraft:diamond_ore".into()), 1),
            (Some(3), Some("minecraft:oak_planks".into()), 1),
        ]
    );
    assert_eq!(int(&one, "blocks_placed"), 3);
    assert_eq!(
        top(&one, "placed"),
        [
            (Some(3), Some("minecraft:oak_planks".into()), 2),
            (Some(1), Some("minecraft:stone".into()), 1),
        ]
    );
    assert_eq!(int(&one, "attacks"), 3);
    assert_eq!(int(&one, "attacked"), 101);
    assert_eq!(int(&one, "attacks_per_second_max"), 3);
    assert_eq!(float(&one, "reach_max"), 10.0);
    assert_eq!(float(&one, "reach_p99"), 10.0);
    assert_eq!(float(&one, "speed"), 5.0);
    assert!((float(&one, "turn") - 90.0).abs() < 1e-3);

    let two = entry(r, 2);
    assert_eq!(int(&two, "attacks"), 101);
    assert_eq!(int(&two, "attacked"), 3);
    assert_eq!(int(&two, "attacks_per_second_max"), 10);
    assert_eq!(float(&two, "reach_max"), 30.0);
    assert_eq!(float(&two, "reach_p99"), 3.0);
    assert_eq!(float(&two, "speed"), 54.0);
    assert!(!two.contains_key("turn"));
    assert!(!two.contains_key("blocks_broken") && !two.contains_key("placed"));
}

#[test]
fn analysis_figures_at_compaction_equal_the_hand_computed_ones() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let mut o = RecorderOptions::default();
    o.chunk_policy.chunk_ticks = 10;
    let rec = engine.start_recording(&path, o).unwrap();
    for (id, n) in names() {
        rec.register_name(PaletteKind::Block, id, n).unwrap();
    }
    for (t, ev) in ticks() {
        rec.submit_tick(t, &batch(&ev)).unwrap();
    }
    let finished = within(move || rec.finish().unwrap().wait().unwrap()).expect("finish");
    check(&Reader::open_path(&finished).unwrap());
}

#[test]
fn analysis_figures_of_a_report_equal_the_hand_computed_ones() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let mut o = RecorderOptions::default();
    o.chunk_policy.chunk_ticks = 10;
    let (rec, shadow) = ShadowBuffer::start(
        &engine,
        None,
        o,
        ShadowOptions {
            window: Duration::from_secs(60),
            block_ticks: 10,
            ..ShadowOptions::default()
        },
    )
    .unwrap();
    for (id, n) in names() {
        rec.register_name(PaletteKind::Block, id, n).unwrap();
    }
    for (t, ev) in ticks() {
        rec.submit_tick(t, &batch(&ev)).unwrap();
    }
    rec.flush().unwrap();
    let out = dir.path().join("r.reel");
    shadow
        .report(
            1,
            &out,
            ReportOptions {
                after: Duration::ZERO,
                ..ReportOptions::default()
            },
        )
        .unwrap()
        .wait()
        .unwrap();
    let r = Reader::open_path(&out).unwrap();
    assert_eq!(r.first_tick(), Some(0));
    check(&r);
}
