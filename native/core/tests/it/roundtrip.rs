//! Compacted files: round trips, seeking to every tick, metadata, golden bytes.

use crate::common;

use std::collections::HashMap;

use fastnbt::Value;
use tickreel::Event;
use tickreel::Pose;
use tickreel::format::flag;
use tickreel::format::{EntityInfo, EventType};
use tickreel::play::Reader;
use tickreel::record::{ChunkPolicy, ReelOptions, ReelWriter};

#[test]
fn seeking_to_every_tick_equals_a_straight_decode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.reel");
    let ticks = common::sim_ticks(12, 700, 7);
    common::write_reel(&path, &ticks, common::small_policy());
    let reader = Reader::open_path(&path).unwrap();
    assert!(reader.index().len() > 15, "multi-chunk");
    assert!(
        reader.index().iter().filter(|e| e.has_snapshot()).count() > 5,
        "multi-snapshot"
    );
    reader.verify().unwrap();
    // Straight decode from the start, state after every tick.
    let mut table = tickreel::format::EntityTable::default();
    let mut straight = Vec::new();
    for t in reader.ticks(0, u32::MAX) {
        let t = t.unwrap();
        for e in &t.events {
            table.apply(e);
        }
        straight.push((t.tick, table.clone()));
    }
    assert_eq!(straight.len(), 700);
    // ... equals the input's states (quantisation already applied by the simulator)
    let expected = common::expected_states(&ticks);
    assert_eq!(straight, expected);
    // ... and a seek to every tick gives the same state
    for (tick, state) in &expected {
        let s = reader.seek(*tick).unwrap();
        assert_eq!(&s.entities, state, "seek to {tick}");
        let snap = s.snapshot_chunk.unwrap();
        assert!(reader.index()[snap].start_tick <= *tick);
    }
}

#[test]
fn every_event_kind_and_metadata_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kinds.reel");
    let pose = Pose::from_f64(10.5, 64.0, -3.25, 725.0, -12.0);
    let mut w = ReelWriter::create(&path, ReelOptions::default()).unwrap();
    w.user_metadata_mut()
        .insert("map".into(), Value::String("spawn".into()));
    w.user_metadata_mut().insert(
        "anticheat".into(),
        Value::Compound(HashMap::from([("flags".to_string(), Value::Int(2))])),
    );
    w.register_entity(EntityInfo {
        id: 1,
        kind: 147,
        uuid: Some(uuid::Uuid::from_u128(77)),
        name: Some("Alex".into()),
    })
    .unwrap();
    w.register_event_type(EventType {
        id: 5,
        name: "minecraft:set_block".into(),
        version: 3,
    })
    .unwrap();
    let ticks: Vec<(u32, Vec<Event>)> = vec![
        (
            0,
            vec![
                Event::EntityAdd {
                    entity: 1,
                    kind: 147,
                    pose,
                },
                Event::Flags {
                    entity: 1,
                    flags: flag::ON_GROUND,
                },
            ],
        ),
        (
            3,
            vec![Event::Position {
                entity: 1,
                x: 1,
                y: 2,
                z: 3,
            }],
        ),
        (
            4,
            vec![Event::Rotation {
                entity: 1,
                yaw: -99_999_999,
                pitch: 5,
            }],
        ),
        (
            5,
            vec![
                Event::Velocity {
                    entity: 1,
                    x: 800,
                    y: 3360,
                    z: -1,
                },
                Event::Checkpoint {
                    entity: 1,
                    index: 2,
                },
                Event::Custom {
                    type_id: 5,
                    data: vec![1, 2, 3, 4],
                },
                Event::Extension {
                    kind: 0x4B,
                    data: vec![7],
                },
                Event::BlockChange {
                    pos: tickreel::format::BlockPos::new(-7, 70, 1 << 20),
                    state: 3,
                    cause: Some(1),
                    block_entity: Some(vec![10, 0, 0, 0]),
                },
                Event::Chat {
                    sender: Some(1),
                    channel: tickreel::format::channel::PUBLIC,
                    text: "hello".into(),
                },
            ],
        ),
        (9, vec![Event::Teleport { entity: 1, pose }]),
        (10, vec![Event::EntityRemove { entity: 1 }]),
        (
            11,
            vec![
                Event::EntityAdd {
                    entity: 2,
                    kind: 1,
                    pose,
                },
                Event::PlayerLeave { entity: 2 },
            ],
        ),
    ];
    for (t, e) in &ticks {
        w.write_tick(*t, e).unwrap();
    }
    w.finish().unwrap();
    let r = Reader::open_path(&path).unwrap();
    assert_eq!(r.metadata().user["map"], Value::String("spawn".into()));
    assert_eq!(
        r.metadata().library.entities[0].name.as_deref(),
        Some("Alex")
    );
    assert_eq!(
        r.metadata().library.event_types[0].name,
        "minecraft:set_block"
    );
    assert_eq!(r.header().tick_count, 12);
    let got: Vec<_> = r.ticks(0, 100).map(|t| t.unwrap()).collect();
    let p3 = Pose {
        x: 1,
        y: 2,
        z: 3,
        ..pose
    };
    let p4 = Pose {
        yaw: -99_999_999,
        pitch: 5,
        ..p3
    };
    let expect = vec![
        (
            0,
            vec![
                Event::EntityAdd {
                    entity: 1,
                    kind: 147,
                    pose,
                },
                Event::Flags {
                    entity: 1,
                    flags: 1,
                },
            ],
        ),
        (
            3,
            vec![Event::Pose {
                entity: 1,
                pose: p3,
            }],
        ),
        (
            4,
            vec![Event::Pose {
                entity: 1,
                pose: p4,
            }],
        ),
        (5, ticks[3].1.clone()),
        (9, vec![Event::Teleport { entity: 1, pose }]),
        (10, vec![Event::EntityRemove { entity: 1 }]),
        (
            11,
            vec![
                Event::EntityAdd {
                    entity: 2,
                    kind: 1,
                    pose,
                },
                Event::PlayerLeave { entity: 2 },
            ],
        ),
    ];
    let got: Vec<_> = got.into_iter().map(|t| (t.tick, t.events)).collect();
    assert_eq!(got, expect);
}

#[test]
fn positions_never_drift_over_ten_thousand_ticks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("drift.reel");
    let mut w = ReelWriter::create(&path, ReelOptions::default()).unwrap();
    let mut exact = Vec::new();
    for t in 0..10_000u32 {
        // a slow spiral with sub-quantum steps: rounding error must not accumulate
        let a = f64::from(t) * 0.001;
        let x = 1000.0 + a.cos() * 50.0 + f64::from(t) * 0.0000611;
        let z = -500.0 + a.sin() * 50.0;
        let yaw = f64::from(t) * 7.3; // unbounded, many turns
        exact.push((x, z, yaw));
        let pose = Pose::from_f64(x, 70.0, z, yaw, 0.0);
        let e = if t == 0 {
            Event::EntityAdd {
                entity: 9,
                kind: 0,
                pose,
            }
        } else {
            Event::Pose { entity: 9, pose }
        };
        w.write_tick(t, &[e]).unwrap();
    }
    w.finish().unwrap();
    let r = Reader::open_path(&path).unwrap();
    for (i, t) in r.ticks(0, u32::MAX).enumerate() {
        let t = t.unwrap();
        let pose = match &t.events[0] {
            Event::EntityAdd { pose, .. } | Event::Pose { pose, .. } => *pose,
            other => panic!("{other:?}"),
        };
        let (x, z, yaw) = exact[i];
        assert!((pose.x_f64() - x).abs() <= 0.5 / 4096.0 + 1e-9, "tick {i}");
        assert!((pose.z_f64() - z).abs() <= 0.5 / 4096.0 + 1e-9, "tick {i}");
        assert!(
            (pose.yaw_deg() - yaw).abs() <= 0.5 * 360.0 / 65536.0 + 1e-9,
            "tick {i}"
        );
    }
}

#[test]
fn empty_recording_is_valid() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.reel");
    let w = ReelWriter::create(&path, ReelOptions::default()).unwrap();
    w.finish().unwrap();
    let r = Reader::open_path(&path).unwrap();
    assert_eq!(r.header().tick_count, 0);
    assert!(r.seek(0).is_err());
    r.verify().unwrap();
}

#[test]
fn a_recording_spanning_every_u32_tick_is_refused_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("span.reel");
    let mut w = ReelWriter::create(&path, ReelOptions::default()).unwrap();
    let pose = Pose::default();
    w.write_tick(
        0,
        &[Event::EntityAdd {
            entity: 1,
            kind: 0,
            pose,
        }],
    )
    .unwrap();
    w.write_tick(u32::MAX, &[Event::Pose { entity: 1, pose }])
        .unwrap();
    assert!(matches!(w.finish(), Err(tickreel::Error::LimitExceeded(_))));
}

#[test]
fn bad_options_and_oversized_events_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("opts.reel");
    for policy in [
        ChunkPolicy {
            chunk_ticks: 0,
            ..ChunkPolicy::default()
        },
        ChunkPolicy {
            chunk_ticks: (1 << 20) + 1,
            ..ChunkPolicy::default()
        },
        ChunkPolicy {
            snapshot_interval: 0,
            ..ChunkPolicy::default()
        },
        ChunkPolicy {
            zstd_level: 1000,
            ..ChunkPolicy::default()
        },
    ] {
        let r = ReelWriter::create(
            &path,
            ReelOptions {
                chunk_policy: policy,
                ..ReelOptions::default()
            },
        );
        assert!(
            matches!(r, Err(tickreel::Error::InvalidArgument(_))),
            "{policy:?}"
        );
    }
    let mut o = ReelOptions::default();
    o.identity.tick_rate_millihz = 0;
    assert!(ReelWriter::create(&path, o).is_err());
    assert!(ReelWriter::create(dir.path().join("missing/x.reel"), ReelOptions::default()).is_err());
    // a custom event larger than readers accept is refused, and the writer stays usable
    let mut w = ReelWriter::create(&path, ReelOptions::default()).unwrap();
    let big = Event::Custom {
        type_id: 1,
        data: vec![0; (1 << 20) + 1],
    };
    assert!(matches!(
        w.write_tick(0, &[big]),
        Err(tickreel::Error::InvalidArgument(_))
    ));
    w.write_tick(
        1,
        &[Event::Custom {
            type_id: 1,
            data: vec![7; 1 << 20],
        }],
    )
    .unwrap();
    w.finish().unwrap();
    let r = Reader::open_path(&path).unwrap();
    r.verify().unwrap();
    assert_eq!(r.ticks(0, 10).count(), 1);
    // a directory is not a recording file
    assert!(Reader::open_path(dir.path()).is_err());
}
