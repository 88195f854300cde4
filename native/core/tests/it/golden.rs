//! The golden file: `tests/data/golden.reel` pins the bytes this build writes for a small,
//! deterministic recording (every event kind, snapshots, metadata, three chunks), so that any change
//! of the format is deliberate. FORMAT.md's worked example is taken from this file.
//!
//! To accept a deliberate change: `TICKREEL_BLESS=1 cargo test -p tickreel --test it -- golden::`,
//! then commit the new file and update the worked example in FORMAT.md.

use crate::common;

use std::collections::HashMap;
use std::path::PathBuf;

use fastnbt::Value;
use tickreel::format::Layout;
use tickreel::format::flag;
use tickreel::format::{BlockPos, PaletteKind, channel, hand, slot};
use tickreel::format::{EntityInfo, EventType, Gap};
use tickreel::format::{FLAG_CUSTOM_EVENTS, FLAG_SNAPSHOT};
use tickreel::play::Reader;
use tickreel::record::{ChunkPolicy, RecordingIdentity, ReelOptions, ReelWriter};
use tickreel::{Event, Pose};

const WORLD_ID: [u8; 16] = [
    0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78, 0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0,
];
const WORLD_VERSION: [u8; 16] = *b"parkour-map-v1.0";
/// 2024-01-01T00:00:00Z.
const TIMESTAMP_MS: i64 = 1_704_067_200_000;
/// Minecraft 1.21.1's data version, as an example of the game's own version.
const GAME_DATA_VERSION: u32 = 3955;

fn golden_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden.reel")
}

fn options() -> ReelOptions {
    ReelOptions {
        identity: RecordingIdentity {
            world_id: WORLD_ID,
            world_version: WORLD_VERSION,
            timestamp_ms: TIMESTAMP_MS,
            tick_rate_millihz: 20_000,
            game_data_version: GAME_DATA_VERSION,
            dictionary_id: 0,
        },
        chunk_policy: ChunkPolicy {
            chunk_ticks: 8,
            chunk_bytes: 1 << 20,
            snapshot_interval: 16,
            zstd_level: 9,
        },
    }
}

/// A player walking north-east and turning, one tick at a time.
fn steve(t: u32) -> Pose {
    let t = f64::from(t);
    Pose::from_f64(
        100.5 + 0.2 * t,
        64.0,
        -20.5 + 0.1 * t,
        -45.0 + 7.5 * t,
        10.0,
    )
}

const ALEX_START: Pose = Pose {
    x: 102 * 4096,
    y: 64 * 4096,
    z: -18 * 4096,
    yaw: 16384, // 90 degrees
    pitch: 0,
};

const ZOMBIE: Pose = Pose {
    x: 110 * 4096 + 2048,
    y: 63 * 4096,
    z: -25 * 4096,
    yaw: -32768, // -180 degrees
    pitch: 0,
};

/// Snapshot bytes offered at tick 0 (opaque to tickreel: here, a made-up block list).
const SNAPSHOT_0: &[u8] = b"blocks:stone@100,63,-21";

/// One tick: its number, its events, and the snapshot bytes offered just before it.
type GoldenTick = (u32, Vec<Event>, Option<&'static [u8]>);

/// Which build wrote a golden file: data version 2 stored an opaque extension event at tick 9,
/// data version 3 world events there (named by the palette), and an opaque one of a later kind.
#[derive(Clone, Copy, PartialEq)]
enum Written {
    V2,
    V3,
}

/// The world events of tick 9 (data version 3): a block broken by Steve, a hit, a chat line.
fn world_events_of_tick_9() -> Vec<Event> {
    vec![
        Event::BlockChange {
            pos: BlockPos::new(12, 64, -3),
            state: 0,
            cause: Some(1),
            block_entity: None,
        },
        Event::Swing {
            entity: 1,
            hand: hand::MAIN,
        },
        Event::Attack {
            attacker: 1,
            target: 2,
        },
        Event::Equipment {
            entity: 1,
            slot: slot::MAIN_HAND,
            item: 1,
            count: 1,
        },
        Event::Chat {
            sender: Some(2),
            channel: channel::PUBLIC,
            text: "gg".into(),
        },
        Event::Extension {
            kind: 0x4A,
            data: vec![0xca, 0xfe],
        },
    ]
}

/// The recording's ticks (absolute, with gaps) and the snapshots offered before them.
fn ticks() -> Vec<GoldenTick> {
    ticks_of(Written::V3)
}

fn ticks_of(written: Written) -> Vec<GoldenTick> {
    let mut out = Vec::new();
    out.push((
        0,
        vec![
            Event::EntityAdd {
                entity: 1,
                kind: 147,
                pose: steve(0),
            },
            Event::Flags {
                entity: 1,
                flags: flag::ON_GROUND,
            },
            Event::EntityAdd {
                entity: 2,
                kind: 147,
                pose: ALEX_START,
            },
        ],
        Some(SNAPSHOT_0),
    ));
    for t in 1..20u32 {
        if t == 5 || t == 13 {
            continue; // empty ticks are absent
        }
        let mut events = vec![Event::Pose {
            entity: 1,
            pose: steve(t),
        }];
        match t {
            2 => events.push(Event::Position {
                entity: 2,
                x: ALEX_START.x + 1024,
                y: ALEX_START.y,
                z: ALEX_START.z,
            }),
            3 => {
                events.push(Event::Rotation {
                    entity: 2,
                    yaw: ALEX_START.yaw + 70_000, // past a full turn: yaw is unbounded
                    pitch: -2000,
                });
                events.push(Event::Velocity {
                    entity: 1,
                    x: 0,
                    y: 3360,
                    z: 800,
                });
                events.push(Event::Flags {
                    entity: 1,
                    flags: 0,
                });
            }
            4 => events.push(Event::Custom {
                type_id: 100,
                data: vec![0, 0, 0, 100, 0, 0, 0, 63, 0xff, 0xff, 0xff, 0xeb, 1],
            }),
            6 => events.push(Event::Teleport {
                entity: 2,
                pose: Pose {
                    x: -5 * 4096,
                    y: 80 * 4096,
                    z: 7 * 4096,
                    yaw: 0,
                    pitch: 0,
                },
            }),
            7 => events.push(Event::Checkpoint {
                entity: 1,
                index: 1,
            }),
            9 if written == Written::V2 => events.push(Event::Extension {
                kind: 0x41,
                data: vec![0xca, 0xfe],
            }),
            9 => events.extend(world_events_of_tick_9()),
            10 => events.push(Event::EntityAdd {
                entity: 3,
                kind: 54,
                pose: ZOMBIE,
            }),
            11 => events.push(Event::Flags {
                entity: 1,
                flags: flag::ON_GROUND | flag::SPRINTING,
            }),
            12 => events.push(Event::EntityRemove { entity: 3 }),
            15 => events.push(Event::PlayerLeave { entity: 2 }),
            _ => {}
        }
        out.push((t, events, None));
    }
    out
}

/// Writes the golden recording and returns its bytes.
fn generate() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("golden.reel");
    let mut w = ReelWriter::create(&path, options()).unwrap();
    w.user_metadata_mut()
        .insert("map".into(), Value::String("golden_parkour".into()));
    w.user_metadata_mut()
        .insert("attempt".into(), Value::Int(3));
    w.register_entity(EntityInfo {
        id: 1,
        kind: 147,
        uuid: Some(uuid::Uuid::from_u128(
            0x0011_2233_4455_6677_8899_aabb_ccdd_eeff,
        )),
        name: Some("Steve".into()),
    })
    .unwrap();
    w.register_entity(EntityInfo {
        id: 2,
        kind: 147,
        uuid: None,
        name: Some("Alex".into()),
    })
    .unwrap();
    w.register_event_type(EventType {
        id: 100,
        name: "minecraft:block_change".into(),
        version: 1,
    })
    .unwrap();
    w.register_name(PaletteKind::Block, 0, "minecraft:air")
        .unwrap();
    w.register_name(PaletteKind::Item, 1, "minecraft:diamond_pickaxe")
        .unwrap();
    // Ticks 5 and 13 are absent; record them as dropped, to exercise the gap list.
    w.set_gaps(vec![Gap { from: 5, to: 5 }, Gap { from: 13, to: 13 }], 2);
    for (t, events, snapshot) in ticks() {
        if let Some(s) = snapshot {
            w.offer_snapshot(s.to_vec()).unwrap();
        }
        w.write_tick(t, &events).unwrap();
    }
    w.finish().unwrap();
    std::fs::read(&path).unwrap()
}

#[test]
fn golden_bytes_are_what_this_build_writes() {
    let fresh = generate();
    let path = golden_path();
    if std::env::var_os("TICKREEL_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &fresh).unwrap();
        eprintln!("blessed {} ({} bytes)", path.display(), fresh.len());
        return;
    }
    let committed = std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}. Generate it with `TICKREEL_BLESS=1 cargo test -p tickreel --test it -- golden::`.",
            path.display()
        )
    });
    if committed != fresh {
        let first = committed
            .iter()
            .zip(&fresh)
            .position(|(a, b)| a != b)
            .unwrap_or(committed.len().min(fresh.len()));
        panic!(
            "this build writes different bytes than {} (committed {} bytes, now {} bytes, first \
             difference at byte {first}). The on-disk format changed. If that is deliberate, run \
             `TICKREEL_BLESS=1 cargo test -p tickreel --test it -- golden::`, commit the new file and update the worked \
             example in FORMAT.md (a zstd upgrade can also change the compressed bytes).",
            path.display(),
            committed.len(),
            fresh.len(),
        );
    }
    assert!(committed.len() < 4096, "keep the golden file small");
}

/// The golden file as written by builds of data version 1 (before predictor 4): kept as it was
/// (never blessed again), so that files of data version 1 keep reading.
fn golden_v1_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden-v1.reel")
}

/// The golden file as written by builds of data version 2 (before world events): its tick 9
/// holds an opaque extension event of kind 0x41, which is a world event's kind since data
/// version 3. Kept as it was (never blessed again): it must still read as the opaque event.
fn golden_v2_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden-v2.reel")
}

/// Data version 2 writes predictor 4 (linear in time) where it wins: Steve's track has gaps (he
/// has no sample at ticks 5 and 13), so chunks 0 and 1 use it; chunk 2 (no gap) stays readable by
/// data-version-1 readers. Data version 8 (block changes coded with the table of changed
/// positions, the stream's ticks as gaps, their fields in columns) is needed by chunk 1, the one
/// with block changes, and data version 9 (world sections whose block lists are compressed on
/// their own, read on first use) by chunk 2, the snapshot chunk with a world section (a
/// keyframe: the file's first).
#[test]
fn the_committed_golden_file_decodes_to_its_content() {
    check_golden(&golden_path(), 9, &[2, 8, 9], Written::V3);
    check_world_section(&golden_path());
}

/// The golden file as written by builds of data version 8 (world sections' block lists inside
/// the payload, decoded at a seek): kept as it was committed, to check that later builds still
/// read it.
fn golden_v8_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden-v8.reel")
}

#[test]
fn the_golden_file_of_data_version_8_still_decodes_to_its_content() {
    check_golden(&golden_v8_path(), 8, &[2, 8, 5], Written::V3);
    check_world_section(&golden_v8_path());
}

/// The golden file as written by builds of data version 7 (block changes' fields after their kind
/// byte, before the block columns): kept as it was committed, to check that later builds still
/// read it.
fn golden_v7_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden-v7.reel")
}

#[test]
fn the_golden_file_of_data_version_7_still_decodes_to_its_content() {
    check_golden(&golden_v7_path(), 7, &[2, 7, 5], Written::V3);
    check_world_section(&golden_v7_path());
}

/// The golden file as written by builds of data version 6 (block changes coded from two cursors
/// per cause, the stream's ticks relative to the chunk): kept as it was committed, to check that
/// later builds still read it.
fn golden_v6_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden-v6.reel")
}

#[test]
fn the_golden_file_of_data_version_6_still_decodes_to_its_content() {
    check_golden(&golden_v6_path(), 6, &[2, 6, 5], Written::V3);
    check_world_section(&golden_v6_path());
}

/// The golden file as written by builds of data version 5 (block changes coded from one cursor
/// per cause): kept as it was committed, to check that later builds still read it.
fn golden_v5_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden-v5.reel")
}

#[test]
fn the_golden_file_of_data_version_5_still_decodes_to_its_content() {
    check_golden(&golden_v5_path(), 5, &[2, 4, 5], Written::V3);
    check_world_section(&golden_v5_path());
}

/// The golden file as written by builds of data version 4 (world sections without `back`, every
/// one a whole world): kept as it was committed, to check that later builds still read it.
fn golden_v4_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden-v4.reel")
}

#[test]
fn the_golden_file_of_data_version_4_still_decodes_to_its_content() {
    check_golden(&golden_v4_path(), 4, &[2, 4, 4], Written::V3);
    check_world_section(&golden_v4_path());
}

/// The golden file as written by builds of data version 3 (block changes coded on their own,
/// three absolute coordinates each): kept as it was committed, to check that later builds still
/// read it, block changes included.
fn golden_v3_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden-v3.reel")
}

#[test]
fn the_golden_file_of_data_version_3_still_decodes_to_its_content() {
    check_golden(&golden_v3_path(), 3, &[2, 3, 3], Written::V3);
    check_world_section(&golden_v3_path());
}

fn check_world_section(path: &std::path::Path) {
    let r = Reader::open_path(path).unwrap();
    // Chunk 2 is a snapshot chunk after the world events of chunk 1: it carries their world in
    // its world section (flag FLAG_WORLD), which needs data version 3 too.
    let idx = r.index();
    assert_eq!(
        idx[2].flags & tickreel::format::FLAG_WORLD,
        tickreel::format::FLAG_WORLD
    );
    assert!(
        idx[..2]
            .iter()
            .all(|e| e.flags & tickreel::format::FLAG_WORLD == 0)
    );
    let w = r.read_chunk(2).unwrap().world.unwrap();
    assert_eq!(*w, r.world_at(idx[2].start_tick - 1).unwrap().world);
    assert!(!w.is_empty());
    let palette = &r.metadata().library.palette;
    assert_eq!(palette.name(PaletteKind::Block, 0), Some("minecraft:air"));
    assert_eq!(
        palette.name(PaletteKind::Item, 1),
        Some("minecraft:diamond_pickaxe")
    );
}

#[test]
fn the_golden_file_of_data_version_2_still_decodes_to_its_content() {
    check_golden(&golden_v2_path(), 2, &[2, 2, 1], Written::V2);
    let r = Reader::open_path(golden_v2_path()).unwrap();
    assert!(r.metadata().library.palette.is_empty());
}

#[test]
fn the_golden_file_of_data_version_1_still_decodes_to_its_content() {
    check_golden(&golden_v1_path(), 1, &[1, 1, 1], Written::V2);
}

fn check_golden(
    path: &std::path::Path,
    data_version: u16,
    frame_versions: &[u16],
    written: Written,
) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[0..4], b"TKRL");
    let r = Reader::open_path(path).unwrap();
    let report = r.verify().unwrap();
    assert_eq!(report.chunks, 3);
    let versions: Vec<u16> = (0..3)
        .map(|i| r.read_payload(i).unwrap().0.data_version)
        .collect();
    assert_eq!(versions, frame_versions);

    // Header.
    let h = r.header();
    assert_eq!(h.version, 1);
    assert_eq!(h.world_id, WORLD_ID);
    assert_eq!(h.world_version, WORLD_VERSION);
    assert_eq!(h.timestamp_ms, TIMESTAMP_MS);
    assert_eq!(h.dictionary_id, 0);
    assert_eq!(h.tick_count, 20);
    assert_eq!(h.chunk_count, 3);
    assert_eq!(h.tick_rate_millihz, 20_000);
    assert_eq!(h.game_data_version, GAME_DATA_VERSION);
    assert_eq!(h.data_version, data_version);
    assert_eq!(h.layout, Layout::Compacted);
    assert_eq!(h.first_tick, 0);
    assert_eq!(h.data_end, bytes.len() as u64);

    // Metadata.
    let m = r.metadata();
    assert_eq!(m.user["map"], Value::String("golden_parkour".into()));
    assert_eq!(m.user["attempt"], Value::Int(3));
    assert_eq!(m.user.len(), 2);
    let names: Vec<_> = m.library.entities.iter().map(|e| e.name.clone()).collect();
    assert_eq!(names, [Some("Steve".into()), Some("Alex".into())]);
    assert_eq!(
        m.library.entities[0].uuid,
        Some(uuid::Uuid::from_u128(
            0x0011_2233_4455_6677_8899_aabb_ccdd_eeff
        ))
    );
    assert_eq!(m.library.event_types[0].name, "minecraft:block_change");
    // The writer's counters: from the metadata's `stats` in files of earlier builds, from the
    // header and the index in this build's (FORMAT.md §3); the same figures either way.
    assert_eq!(m.library.stats.ticks_written, 18);
    assert_eq!(m.library.stats.pose_samples, 23);
    assert_eq!(m.library.stats.dropped_ticks, 2);
    assert_eq!(
        m.library.stats.uncompressed_bytes,
        r.index()
            .iter()
            .map(|e| u64::from(e.uncompressed_len))
            .sum::<u64>()
    );
    assert_eq!(
        m.library.gaps,
        [Gap { from: 5, to: 5 }, Gap { from: 13, to: 13 }]
    );

    // Index: chunks [0, 8), [8, 16), [16, 20); snapshots at 0 (offered) and 16 (interval).
    let spans: Vec<_> = r
        .index()
        .iter()
        .map(|e| (e.start_tick, e.tick_count, e.flags))
        .collect();
    assert_eq!(
        spans,
        [
            (0, 8, FLAG_SNAPSHOT | FLAG_CUSTOM_EVENTS),
            (8, 8, FLAG_CUSTOM_EVENTS),
            // since data version 3 the snapshot chunk carries the world of tick 9's events
            (
                16,
                4,
                match written {
                    Written::V2 => FLAG_SNAPSHOT,
                    Written::V3 => FLAG_SNAPSHOT | tickreel::format::FLAG_WORLD,
                }
            ),
        ]
    );
    assert_eq!(
        r.read_chunk(0).unwrap().snapshot.as_deref(),
        Some(SNAPSHOT_0)
    );
    assert_eq!(r.read_chunk(2).unwrap().snapshot.as_deref(), Some(&[][..]));
    let k2 = r.read_chunk(2).unwrap().keyframe;
    assert_eq!(k2.iter().map(|e| e.id).collect::<Vec<_>>(), [1]);
    assert_eq!(k2[0].pose, steve(15));
    assert_eq!(k2[0].flags, flag::ON_GROUND | flag::SPRINTING);

    // The straight decode, tick by tick: poses folded as FORMAT.md describes.
    let decoded: HashMap<u32, Vec<Event>> = r
        .ticks(0, u32::MAX)
        .map(|t| t.map(|t| (t.tick, t.events)))
        .collect::<tickreel::Result<_>>()
        .unwrap();
    assert_eq!(decoded.len(), 18, "ticks 5 and 13 are empty");
    assert!(!decoded.contains_key(&5) && !decoded.contains_key(&13));
    let input: HashMap<u32, Vec<Event>> = ticks_of(written)
        .into_iter()
        .map(|(t, e, _)| (t, e))
        .collect();
    for (t, events) in &decoded {
        let expected = match t {
            // Position and Rotation fold into one absolute Pose per entity, sorted by entity.
            2 => vec![
                Event::Pose {
                    entity: 1,
                    pose: steve(2),
                },
                Event::Pose {
                    entity: 2,
                    pose: Pose {
                        x: ALEX_START.x + 1024,
                        ..ALEX_START
                    },
                },
            ],
            3 => {
                let mut v = vec![
                    Event::Pose {
                        entity: 1,
                        pose: steve(3),
                    },
                    Event::Pose {
                        entity: 2,
                        pose: Pose {
                            x: ALEX_START.x + 1024,
                            yaw: ALEX_START.yaw + 70_000,
                            pitch: -2000,
                            ..ALEX_START
                        },
                    },
                ];
                v.extend(input[t][2..].iter().cloned());
                v
            }
            // EntityAdd and Teleport carry the pose; the other events follow the poses.
            _ => input[t].clone(),
        };
        assert_eq!(events, &expected, "tick {t}");
    }

    // The state after every tick, by straight decode and by seeking, equals the input's.
    let plain: Vec<(u32, Vec<Event>)> = ticks_of(written)
        .into_iter()
        .map(|(t, e, _)| (t, e))
        .collect();
    for (t, state) in common::expected_states(&plain) {
        assert_eq!(r.seek(t).unwrap().entities, state, "seek to {t}");
    }
    let last = r.seek(19).unwrap().entities;
    assert_eq!(last.len(), 1);
    assert_eq!(last.get(1).unwrap().pose, steve(19));
}
