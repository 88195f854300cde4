//! Writes the fuzzers' seed corpora (`fuzz/seeds/<target>/`, committed, a few KB each) from the
//! golden file and small recordings made here. Ignored: run it only to regenerate the seeds,
//! `cargo test -p tickreel --test it -- fuzz_seeds:: --ignored`, and commit what changed.
//! See `fuzz/README.md`.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use fastnbt::Value;
use tickreel::format::encode_batch;
use tickreel::format::wire::encode_preamble;
use tickreel::format::{EntityInfo, EventType, Metadata};
use tickreel::format::{FRAME_HEADER_LEN, FrameHeader};
use tickreel::format::{HEADER_LEN, Header};
use tickreel::play::Reader;
use tickreel::record::{ChunkPolicy, FlushPolicy, ReelOptions, ReelWriter};
use tickreel::storage::live::{META_FILE, live_dir_for, segment_name};
use tickreel::{Engine, EngineOptions, Event, Pose, RecorderOptions};

fn seeds_dir(target: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/seeds")
        .join(target);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn put(target: &str, name: &str, bytes: &[u8]) {
    std::fs::write(seeds_dir(target).join(name), bytes).unwrap();
}

fn golden() -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden.reel")).unwrap()
}

fn policy(chunk_ticks: u32, snapshot_interval: u32) -> ChunkPolicy {
    ChunkPolicy {
        chunk_ticks,
        snapshot_interval,
        ..ChunkPolicy::default()
    }
}

/// A small compacted recording: 2 players for 30 ticks, chunks of 10 ticks, a snapshot, user
/// metadata and a registered entity and event type.
fn small_reel(dir: &Path) -> Vec<u8> {
    let path = dir.join("small.reel");
    let mut w = ReelWriter::create(
        &path,
        ReelOptions {
            chunk_policy: policy(10, 20),
            ..ReelOptions::default()
        },
    )
    .unwrap();
    w.set_user_metadata("map", Value::String("parkour_1".into()))
        .unwrap();
    w.register_entity(EntityInfo {
        id: 1,
        kind: 147,
        uuid: Some(uuid::Uuid::from_u128(7)),
        name: Some("Steve".into()),
    })
    .unwrap();
    w.register_event_type(EventType {
        id: 1000,
        name: "block_change".into(),
        version: 1,
    })
    .unwrap();
    w.offer_snapshot(b"world state".to_vec()).unwrap();
    for (t, e) in common::sim_ticks(2, 30, 11) {
        w.write_tick(t, &e).unwrap();
    }
    w.finish().unwrap();
    std::fs::read(&path).unwrap()
}

/// A small compacted recording of the realistic world (`tickreel_sim::realistic`): one player
/// sending poses every few ticks, mobs that idle and wander, idle entities, items. Its sparse
/// tracks are what data version 2 codes differently (predictor 4, sample ticks as deltas); the
/// test asserts that some of its chunks need data version 2.
fn realistic_reel(dir: &Path) -> Vec<u8> {
    use tickreel_sim::realistic::{RealisticConfig, RealisticSim};
    let mut sim = RealisticSim::new(RealisticConfig {
        players: 1,
        seed: 17,
        entities_per_player: 6,
    });
    let ticks: Vec<_> = (0..160).map(|_| sim.step()).collect();
    let path = dir.join("realistic.reel");
    common::write_reel(&path, &ticks, policy(40, 80));
    std::fs::read(&path).unwrap()
}

/// A small compacted recording of the server workload (`tickreel_sim::blocks`): a redstone
/// machine, doors and levers, a farm, a fill and an explosion around one player, whose block
/// changes go back and forth (data version 8: the table of changed positions, "next", far
/// steps by section, the stream's ticks as gaps and the block columns); the test asserts that
/// some of its chunks need data version 8.
fn server_reel(dir: &Path) -> Vec<u8> {
    use tickreel_sim::blocks::ServerBlocks;
    use tickreel_sim::realistic::{RealisticConfig, RealisticSim};
    use tickreel_sim::world::WorldRates;
    let mut sim = RealisticSim::with_server_world(
        RealisticConfig {
            players: 1,
            seed: 48,
            entities_per_player: 2,
        },
        WorldRates::default(),
        ServerBlocks {
            machines_per_player: 1.0,
            machine_period: (8, 12),
            toggles_per_tick: 0.05,
            farm_crops: 9,
            crop_growth_per_tick: 0.01,
            explosions_per_tick: 0.005,
            fills_per_tick: 0.005,
            fluids_per_tick: 0.005,
            ..ServerBlocks::default()
        },
    );
    let ticks: Vec<_> = (0..200).map(|_| sim.step()).collect();
    let path = dir.join("server.reel");
    common::write_reel(&path, &ticks, policy(50, 100));
    std::fs::read(&path).unwrap()
}

/// The data version of each chunk frame of a compacted file.
fn frame_versions(file: &[u8]) -> Vec<u16> {
    let r = Reader::open(std::sync::Arc::new(tickreel::storage::MemSource::new(
        file.to_vec(),
    )))
    .unwrap();
    r.index()
        .iter()
        .map(|e| {
            FrameHeader::decode(&file[e.offset as usize..])
                .unwrap()
                .data_version
        })
        .collect()
}

fn golden_v6() -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden-v6.reel"))
        .unwrap()
}

fn golden_v7() -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden-v7.reel"))
        .unwrap()
}

fn golden_v1() -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden-v1.reel"))
        .unwrap()
}

fn empty_reel(dir: &Path) -> Vec<u8> {
    let path = dir.join("empty.reel");
    ReelWriter::create(&path, ReelOptions::default())
        .unwrap()
        .finish()
        .unwrap();
    std::fs::read(&path).unwrap()
}

/// The decompressed payloads of a compacted file's chunks, as the chunk target reads them.
fn chunk_inputs(file: &[u8]) -> Vec<Vec<u8>> {
    let r = Reader::open(std::sync::Arc::new(tickreel::storage::MemSource::new(
        file.to_vec(),
    )))
    .unwrap();
    r.index()
        .iter()
        .map(|e| {
            let at = e.offset as usize;
            let fh = FrameHeader::decode(&file[at..]).unwrap();
            let compressed =
                &file[at + FRAME_HEADER_LEN..at + FRAME_HEADER_LEN + e.compressed_len as usize];
            let payload = zstd::bulk::decompress(compressed, fh.uncompressed_len as usize).unwrap();
            let mut input = vec![fh.flags];
            input.extend_from_slice(&fh.start_tick.to_be_bytes());
            input.extend_from_slice(&fh.tick_count.to_be_bytes());
            input.extend_from_slice(&payload);
            input
        })
        .collect()
}

fn metadata_section(file: &[u8]) -> Vec<u8> {
    let h = Header::decode(file).unwrap();
    file[HEADER_LEN..HEADER_LEN + h.metadata_len as usize].to_vec()
}

/// A live directory as the recovery target reads it: flags byte, then metadata file and segments
/// (each but the last preceded by its u16 LE length).
fn live_input(flags: u8, meta: &[u8], segments: &[&[u8]]) -> Vec<u8> {
    assert_eq!(usize::from(flags & 3), segments.len());
    let mut parts = vec![meta];
    parts.extend_from_slice(segments);
    let mut out = vec![flags];
    for (i, p) in parts.iter().enumerate() {
        if i + 1 < parts.len() {
            out.extend_from_slice(&u16::try_from(p.len()).unwrap().to_le_bytes());
        }
        out.extend_from_slice(p);
    }
    out
}

/// Frame boundaries of a segment.
fn frame_ends(seg: &[u8]) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut pos = tickreel::format::SegmentStart::read(&seg[..32]).frames_offset();
    assert_eq!(pos, 32, "a segment starts with its preamble");
    while pos < seg.len() {
        let h = FrameHeader::decode(&seg[pos..]).unwrap();
        pos += h.frame_len() as usize;
        ends.push(pos);
    }
    ends
}

#[test]
#[ignore = "writes fuzz/seeds; regenerate with: cargo test -p tickreel --test it -- --ignored fuzz_seeds::write_fuzz_seeds"]
fn write_fuzz_seeds() {
    let tmp = tempfile::tempdir().unwrap();

    // reader: the golden file, a small recording, an empty one.
    let golden = golden();
    let small = small_reel(tmp.path());
    let empty = empty_reel(tmp.path());
    put("reader", "golden.reel", &golden);
    put("reader", "small.reel", &small);
    put("reader", "empty.reel", &empty);
    // Data version 2's paths (predictor 4, sample ticks as deltas) on sparse tracks, and a file of
    // data version 1 (still read).
    let realistic = realistic_reel(tmp.path());
    let versions = frame_versions(&realistic);
    assert!(
        versions.contains(&2),
        "no realistic chunk needs data version 2: {versions:?}"
    );
    let v1 = golden_v1();
    assert!(frame_versions(&v1).iter().all(|&v| v == 1));
    put("reader", "realistic.reel", &realistic);
    put("reader", "golden-v1.reel", &v1);
    // Data version 8's block changes (and files of data versions 6 and 7, still read).
    let server = server_reel(tmp.path());
    let versions = frame_versions(&server);
    assert!(
        versions.contains(&8),
        "no server chunk needs data version 8: {versions:?}"
    );
    let v6 = golden_v6();
    assert!(frame_versions(&v6).contains(&6));
    let v7 = golden_v7();
    assert!(frame_versions(&v7).contains(&7));
    put("reader", "server.reel", &server);
    put("reader", "golden-v6.reel", &v6);
    put("reader", "golden-v7.reel", &v7);

    // chunk: every decompressed payload of those.
    for (name, file) in [
        ("golden", &golden),
        ("small", &small),
        ("realistic", &realistic),
        ("golden-v1", &v1),
        ("server", &server),
    ] {
        for (i, input) in chunk_inputs(file).iter().enumerate() {
            put("chunk", &format!("{name}-{i}"), input);
        }
    }

    // metadata: the files' metadata sections, and one with every NBT type.
    put("metadata", "golden", &metadata_section(&golden));
    put("metadata", "small", &metadata_section(&small));
    put("metadata", "empty", &metadata_section(&empty));
    let mut m = Metadata::default();
    m.user.insert(
        "all".into(),
        Value::Compound(
            [
                ("b", Value::Byte(-1)),
                ("s", Value::Short(300)),
                ("i", Value::Int(70000)),
                ("l", Value::Long(-5)),
                ("f", Value::Float(1.5)),
                ("d", Value::Double(-2.25)),
                ("str", Value::String("é𝄞\0".into())),
                ("ba", Value::ByteArray(fastnbt::ByteArray::new(vec![1, 2]))),
                ("ia", Value::IntArray(fastnbt::IntArray::new(vec![3]))),
                ("la", Value::LongArray(fastnbt::LongArray::new(vec![4]))),
                ("list", Value::List(vec![Value::List(vec![Value::Int(1)])])),
                ("empty", Value::List(vec![])),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        ),
    );
    m.library
        .gaps
        .push(tickreel::format::Gap { from: 3, to: 9 });
    m.library.analysis = Some(Value::Compound(
        [("distance".to_string(), Value::Float(12.5))].into(),
    ));
    m.library.extra.insert("future_key".into(), Value::Int(1));
    put("metadata", "every-type", &m.encode().unwrap());

    // batch: every event kind, a few simulated ticks, an empty tick.
    let pose = Pose {
        x: -5,
        y: 64 * 4096,
        z: 1 << 40,
        yaw: -65536 * 30 + 7,
        pitch: 1234,
    };
    let every_kind = vec![
        Event::EntityAdd {
            entity: 7,
            kind: 122,
            pose,
        },
        Event::Pose { entity: 7, pose },
        Event::Position {
            entity: 7,
            x: 1,
            y: -2,
            z: 3,
        },
        Event::Rotation {
            entity: 7,
            yaw: 100_000_000,
            pitch: -16384,
        },
        Event::Teleport { entity: 9, pose },
        Event::Flags {
            entity: 7,
            flags: 0b101,
        },
        Event::Checkpoint {
            entity: 7,
            index: 4,
        },
        Event::Velocity {
            entity: 7,
            x: -8000,
            y: 3360,
            z: 0,
        },
        Event::Custom {
            type_id: 1000,
            data: vec![1, 2, 3],
        },
        Event::Extension {
            kind: 0x4A,
            data: vec![9; 5],
        },
        Event::BlockChanges {
            cause: Some(3),
            blocks: vec![
                (tickreel::format::BlockPos::new(0, 64, 0), 1),
                (tickreel::format::BlockPos::new(1, 64, 0), 2),
            ],
        },
        Event::Attack {
            attacker: 3,
            target: 9,
        },
        Event::Chat {
            sender: None,
            channel: tickreel::format::channel::SYSTEM,
            text: "a joined".into(),
        },
        Event::EntityRemove { entity: 3 },
        Event::PlayerLeave { entity: 9 },
    ];
    let encode = |events: &[Event]| {
        let mut b = Vec::new();
        encode_batch(events, &mut b).unwrap();
        b
    };
    put("batch", "every-kind", &encode(&every_kind));
    put("batch", "empty", &encode(&[]));
    for (t, e) in common::sim_ticks(3, 40, 5).iter().step_by(13) {
        put("batch", &format!("sim-{t}"), &encode(e));
    }

    // recovery: a live directory the engine wrote (metadata file + one segment), the same frames
    // over two segments, and without the metadata file.
    let path = tmp.path().join("live.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let mut options = RecorderOptions {
        flush: FlushPolicy {
            max_pending_bytes: 1024,
            interval: Duration::from_millis(10),
            on_player_leave: true,
        },
        chunk_policy: policy(8, 16),
        ..RecorderOptions::default()
    };
    options.chunk_policy.zstd_level = 3;
    let rec = engine.start_recording(&path, options).unwrap();
    for (t, e) in common::sim_ticks(2, 30, 9) {
        rec.submit_tick(t, &common::batch(&e)).unwrap();
    }
    rec.flush().unwrap();
    rec.close().unwrap();
    engine.shutdown();
    let dir = live_dir_for(&path);
    let meta = std::fs::read(dir.join(META_FILE)).unwrap();
    let seg = std::fs::read(dir.join(segment_name(0))).unwrap();
    put("recovery", "one-segment", &live_input(1, &meta, &[&seg]));
    let ends = frame_ends(&seg);
    let cut = ends[ends.len() / 2];
    // The second segment starts with the recording's preamble too.
    let id = Header::decode(&meta).unwrap().recording_id;
    let mut second = encode_preamble(&id).to_vec();
    second.extend_from_slice(&seg[cut..]);
    put(
        "recovery",
        "two-segments",
        &live_input(2 | 0x10, &meta, &[&seg[..cut], &second]),
    );
    put("recovery", "no-metadata", &live_input(1 | 4, &[], &[&seg]));
    put(
        "recovery",
        "torn-tail",
        &live_input(1, &meta, &[&seg[..seg.len() - 7]]),
    );

    // csv_import: the importer's documented forms.
    put(
        "csv_import",
        "all-columns.csv",
        b"tick,entity,x,y,z,yaw,pitch,on_ground,teleport,checkpoint\n\
          0,1,0.5,64,-3.25,90,-10,true,,\n\
          0,2,10,64,10,0,0,,,\n\
          1,1,0.75,64,-3.25,95.5,-10,1,,1\n\
          3,1,100,70,100,720,0,false,true,\n\
          3,2,10,64.5,10,0,0,0,,2\n",
    );
    put(
        "csv_import",
        "reordered.csv",
        "\u{feff}Entity, TICK ,pitch,yaw,z,y,x\n\n5,0,0,0,0,64,0\n5,1,1,1,1,64,1\n".as_bytes(),
    );
    put(
        "csv_import",
        "minimal.csv",
        b"tick,entity,x,y,z,yaw,pitch\n0,1,0,0,0,0,0\n",
    );
}

#[test]
#[ignore = "writes fuzz/seeds/terrain and fuzz/seeds/world_section; regenerate with: cargo test -p tickreel --test it -- --ignored fuzz_seeds::write_terrain_and_world_seeds"]
fn write_terrain_and_world_seeds() {
    use tickreel::format::wire::{
        WorldSection, decode_world_v5, encode_body, encode_piece, encode_world,
        encode_world_section, encode_world_v5,
    };
    use tickreel::format::{BlockPos, Limits, SECTION_BLOCKS, Section, Terrain, WorldState};

    // terrain: byte 0 says what follows (0: a body, 1: a piece's content, 2: a chunk payload
    // starting with the piece), for sections of one state, of a few (one byte an index) and of
    // more than 256 (two bytes an index).
    let few: Vec<u32> = (0..SECTION_BLOCKS as u32)
        .map(|i| if i / 256 < 8 { 1 } else { i % 5 })
        .collect();
    let many: Vec<u32> = (0..SECTION_BLOCKS as u32).map(|i| i % 300).collect();
    let small = Terrain::from_sections([
        Section::single(0, 4, 0, 1),
        Section::single(-1, 4, 0, 0),
        Section::from_states(0, 3, 0, &few).unwrap(),
    ]);
    let wide = Terrain::from_sections([
        Section::from_states(2, -1, 7, &many).unwrap(),
        Section::single(2, 0, 7, 9),
    ]);
    let limits = Limits::default();
    for (name, t) in [("small", &small), ("wide", &wide)] {
        let mut body = vec![0];
        body.extend_from_slice(&encode_body(t));
        put("terrain", &format!("{name}-body"), &body);
        let piece = encode_piece(t, 19, &limits).unwrap();
        // the skippable frame's 8 bytes of magic and length, then the content
        let mut content = vec![1];
        content.extend_from_slice(&piece[8..]);
        put("terrain", &format!("{name}-piece"), &content);
        let mut payload = vec![2];
        payload.extend_from_slice(&piece);
        payload.extend_from_slice(&zstd::bulk::compress(b"the chunk's payload", 3).unwrap());
        put("terrain", &format!("{name}-payload"), &payload);
    }
    put("terrain", "empty-body", &[0, 0]);

    // world_section: a big-endian u16 length, a first section, a second (a keyframe section and
    // a delta section against it, and other pairs).
    let pair = |a: &[u8], b: &[u8]| {
        let mut out = (a.len() as u16).to_be_bytes().to_vec();
        out.extend_from_slice(a);
        out.extend_from_slice(b);
        out
    };
    let block = |x, y, z, state, nbt: Option<Vec<u8>>| Event::BlockChange {
        pos: BlockPos::new(x, y, z),
        state,
        cause: None,
        block_entity: nbt,
    };
    let mut w = WorldState::new();
    for e in [
        block(0, 64, 0, 1, None),
        block(1, 64, 0, 1, None),
        block(-5, 70, 3, 9, Some(vec![10, 0, 0, 0])),
        block(100, -20, -100, 4, None),
        Event::BlockChanges {
            cause: Some(1),
            blocks: (0..12).map(|i| (BlockPos::new(i, 63, 2), 2)).collect(),
        },
        Event::Health {
            entity: 1,
            health: 2000,
        },
        Event::Equipment {
            entity: 1,
            slot: 0,
            item: 5,
            count: 1,
        },
        Event::Equipment {
            entity: 4,
            slot: 3,
            item: 8,
            count: 64,
        },
    ] {
        w.apply(&e);
    }
    let keyframe = encode_world_v5(&w, 0);
    let Ok(WorldSection::Full(mut later)) = decode_world_v5(&keyframe, &limits) else {
        panic!("a keyframe section decodes to its world");
    };
    for e in [
        block(0, 64, 0, 3, None),
        block(2, 64, 0, 1, None),
        block(-5, 70, 3, 0, None),
        Event::Health {
            entity: 1,
            health: 500,
        },
        Event::EntityRemove { entity: 4 },
    ] {
        later.apply(&e);
    }
    let delta = encode_world_v5(&later, 40);
    put("world_section", "keyframe-delta", &pair(&keyframe, &delta));
    put(
        "world_section",
        "keyframe-keyframe",
        &pair(&keyframe, &encode_world_v5(&later, 0)),
    );
    put("world_section", "delta-keyframe", &pair(&delta, &keyframe));
    put("world_section", "v4-world", &pair(&encode_world(&w), &[]));
    put(
        "world_section",
        "empty",
        &pair(
            &encode_world_v5(&WorldState::new(), 0),
            &encode_world_v5(&WorldState::new(), 1),
        ),
    );
    // data version 9: the block lists compressed on their own (a delta's after the world's
    // block count)
    let keyframe9 = encode_world_section(&w, 0, 3);
    let delta9 = encode_world_section(&later, 40, 3);
    put(
        "world_section",
        "keyframe-delta-v9",
        &pair(&keyframe9, &delta9),
    );
    put(
        "world_section",
        "delta-keyframe-v9",
        &pair(&delta9, &keyframe9),
    );
    put(
        "world_section",
        "empty-v9",
        &pair(
            &encode_world_section(&WorldState::new(), 0, 3),
            &encode_world_section(&WorldState::new(), 1, 3),
        ),
    );
}
