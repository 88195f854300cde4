//! The fast passes of a report against the plain walk: the same file content (every decoded
//! tick, the metadata with its entities, analysis and report compound) on a busy stream of
//! entities that wander, come and go, teleport, chat, fight and change blocks.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use rustc_hash::FxHashSet;

use super::{Passes, ReportJob, write_report, write_report_by};
use crate::error::Result;
use crate::format::Limits;
use crate::format::chunk::{ChunkEncoder, DecodedChunk};
use crate::format::event::Event;
use crate::format::metadata::Metadata;
use crate::format::pose::{POS_SCALE, Pose};
use crate::format::state::EntityTable;
use crate::format::terrain::Section;
use crate::format::{BlockPos, UseTarget};
use crate::play::Reader;
use crate::record::{ChunkPolicy, Frame, ReelOptions, ReelWriter};
use crate::shadow::options::{ReportChat, ReportKeep, ReportOptions};
use crate::shadow::ring::Block;
use crate::storage::LocalStorage;

/// A block's length in pose units, for the one-chunk tests of the passes.
pub(super) const B: i64 = 4096;

/// A pose standing at block `x` on the ground (y 64, z 0).
pub(super) fn ground(x: i64) -> Pose {
    Pose {
        x: x * B,
        y: 64 * B,
        ..Pose::default()
    }
}

/// Entities added (kind 1), each on the ground at its block `x`.
pub(super) fn added(entities: &[(u32, i64)]) -> Vec<Event> {
    entities
        .iter()
        .map(|&(entity, x)| Event::EntityAdd {
            entity,
            kind: 1,
            pose: ground(x),
        })
        .collect()
}

/// One chunk of ticks `0..ticks` from 0, `events(t)` at each, encoded and decoded as a report
/// reads it.
pub(super) fn one_chunk(ticks: u32, mut events: impl FnMut(u32) -> Vec<Event>) -> DecodedChunk {
    let mut enc = ChunkEncoder::new();
    enc.begin(0, None);
    for t in 0..ticks {
        enc.push_tick(t, &events(t)).unwrap();
    }
    let mut payload = Vec::new();
    enc.encode_payload(&mut payload);
    DecodedChunk::decode(&payload, enc.flags(), 0, ticks, &Limits::default()).unwrap()
}

/// The first pass as it was before the candidates: every entity checked where it moved, on every
/// pose sample sorted by tick.
pub(super) fn near_entities_reference(
    reader: &Reader,
    player: u32,
    first: u32,
    last: u32,
    radius: f64,
) -> Result<Option<FxHashSet<u32>>> {
    let r = radius * POS_SCALE;
    let r2 = r * r;
    let mut near = HashSet::from([player]);
    let mut seen_player = false;
    let close = |a: &Pose, b: &Pose| {
        let (dx, dy, dz) = ((a.x - b.x) as f64, (a.y - b.y) as f64, (a.z - b.z) as f64);
        dx * dx + dy * dy + dz * dz <= r2
    };
    let mut samples: Vec<(u32, u32, Pose)> = Vec::new();
    let mut moved: Vec<u32> = Vec::new();
    for i in 0..reader.index().len() {
        let chunk = reader.read_chunk(i)?;
        let from = first.max(chunk.start_tick);
        let mut table: EntityTable = if from > chunk.start_tick {
            chunk.state_at(from - 1)
        } else {
            chunk.keyframe.iter().copied().collect()
        };
        let (rel_from, rel_to) = (
            from - chunk.start_tick,
            last.saturating_sub(chunk.start_tick),
        );
        samples.clear();
        for t in &chunk.tracks {
            for (&rel, pose) in t.ticks.iter().zip(&t.poses) {
                if rel >= rel_from && rel <= rel_to {
                    samples.push((rel, t.entity, *pose));
                }
            }
        }
        samples.sort_unstable_by_key(|s| s.0);
        let mut all = true;
        let (mut si, mut ri) = (0, 0);
        let records = &chunk.records;
        while ri < records.len() && records[ri].rel < rel_from {
            ri += 1;
        }
        loop {
            let next_s = samples.get(si).map(|s| s.0);
            let next_r = records.get(ri).map(|r| r.rel).filter(|&r| r <= rel_to);
            let Some(rel) = next_s.into_iter().chain(next_r).min() else {
                break;
            };
            moved.clear();
            while let Some(&(t, id, pose)) = samples.get(si)
                && t == rel
            {
                if let Some(e) = table.get_mut(id) {
                    e.pose = pose;
                }
                moved.push(id);
                si += 1;
            }
            if next_r == Some(rel) {
                for e in &records[ri].events {
                    table.apply(e);
                    moved.extend(e.entity());
                }
                ri += 1;
            }
            let Some(p) = table.get(player).map(|e| e.pose) else {
                all = true;
                continue;
            };
            seen_player = true;
            if all || moved.contains(&player) {
                for e in table.iter() {
                    if !near.contains(&e.id) && close(&e.pose, &p) {
                        near.insert(e.id);
                    }
                }
                all = false;
            } else {
                for id in &moved {
                    if !near.contains(id)
                        && let Some(e) = table.get(*id)
                        && close(&e.pose, &p)
                    {
                        near.insert(*id);
                    }
                }
            }
        }
        if all && let Some(p) = table.get(player).map(|e| e.pose) {
            seen_player = true;
            for e in table.iter() {
                if close(&e.pose, &p) {
                    near.insert(e.id);
                }
            }
        }
    }
    Ok(seen_player.then(|| near.into_iter().collect()))
}

/// The chunk columns (x, z) the player stood in from `first` to `last`: its keyframe entries and
/// pose samples, decoded for that entity only (the first pass finds them on its way).
pub(super) fn player_columns_reference(
    reader: &Reader,
    player: u32,
    first: u32,
    last: u32,
) -> Result<HashSet<(i32, i32)>> {
    let column = |p: &Pose| {
        let c = |v: i64| ((v as f64 / POS_SCALE).floor() as i64 >> 4) as i32;
        (c(p.x), c(p.z))
    };
    let mut out = HashSet::new();
    for i in 0..reader.index().len() {
        let chunk = reader.read_chunk_entity(i, player)?;
        if chunk.start_tick > last || chunk.end_tick() <= u64::from(first) {
            continue;
        }
        out.extend(
            chunk
                .keyframe
                .iter()
                .filter(|e| e.id == player)
                .map(|e| column(&e.pose)),
        );
        for t in chunk.tracks.iter().filter(|t| t.entity == player) {
            for (&rel, pose) in t.ticks.iter().zip(&t.poses) {
                let tick = chunk.start_tick + rel;
                if tick >= first && tick <= last {
                    out.insert(column(pose));
                }
            }
        }
    }
    Ok(out)
}

const TICKS: u32 = 1500;
const ENTITIES: u32 = 240;

fn at(x: f64, y: f64, z: f64) -> Pose {
    let f = |v: f64| (v * POS_SCALE) as i64;
    Pose {
        x: f(x),
        y: f(y),
        z: f(z),
        yaw: 0,
        pitch: 0,
    }
}

/// A stream of `ENTITIES` entities on a 160-block square: most wander a block at a time on some
/// ticks, a few stand still, some come late, leave and come back, teleport across the square;
/// flags for entities never added (they stand at the origin), chat on every channel, attacks,
/// uses, damage, block changes single and many. Player 1 walks across the square and back,
/// leaves for a while and returns. Entity 302 stands where the player will be at tick 299 (but
/// more than 24 blocks from where the player is until tick 199), leaves for far away at tick 200
/// and gets flags at tick 299: its flags do not put it back where the chunk started.
fn stream() -> Vec<(u32, Vec<Event>)> {
    let mut rng = fastrand::Rng::with_seed(17);
    let mut pos: HashMap<u32, [f64; 3]> = HashMap::new();
    let mut alive: HashSet<u32> = HashSet::new();
    let mut out = Vec::new();
    for t in 0..TICKS {
        let mut ev = Vec::new();
        for id in 1..=ENTITIES {
            let late = id % 7 == 0 && t < 300;
            let away = id == 1 && (600..700).contains(&t);
            let gone = id % 11 == 0 && (800..900).contains(&t);
            if late || away || gone {
                if alive.remove(&id) {
                    ev.push(if id == 1 {
                        Event::PlayerLeave { entity: id }
                    } else {
                        Event::EntityRemove { entity: id }
                    });
                }
                continue;
            }
            if !alive.contains(&id) {
                let p = *pos.entry(id).or_insert_with(|| {
                    [
                        rng.f64() * 160.0 - 80.0,
                        64.0 + rng.f64() * 4.0,
                        rng.f64() * 160.0 - 80.0,
                    ]
                });
                alive.insert(id);
                ev.push(Event::EntityAdd {
                    entity: id,
                    kind: id % 5,
                    pose: at(p[0], p[1], p[2]),
                });
                continue;
            }
            let p = pos.get_mut(&id).expect("placed");
            if id == 1 {
                // across the square and back
                let x = if t < 750 {
                    -80.0 + f64::from(t) * 0.2
                } else {
                    70.0 - f64::from(t - 750) * 0.2
                };
                *p = [x, 64.0, (f64::from(t) * 0.01).sin() * 20.0];
                ev.push(Event::Pose {
                    entity: id,
                    pose: at(p[0], p[1], p[2]),
                });
            } else if id % 13 == 0 {
                // stands still
            } else if rng.u32(0..100) < 3 {
                *p = [rng.f64() * 160.0 - 80.0, 64.0, rng.f64() * 160.0 - 80.0];
                ev.push(Event::Teleport {
                    entity: id,
                    pose: at(p[0], p[1], p[2]),
                });
            } else if rng.u32(0..100) < 40 {
                p[0] += rng.f64() * 2.0 - 1.0;
                p[2] += rng.f64() * 2.0 - 1.0;
                ev.push(Event::Pose {
                    entity: id,
                    pose: at(p[0], p[1], p[2]),
                });
            }
        }
        let some = |rng: &mut fastrand::Rng| rng.u32(1..=ENTITIES + 5);
        if t % 3 == 0 {
            ev.push(Event::Chat {
                sender: rng.bool().then(|| some(&mut rng)),
                channel: rng.u32(0..5),
                text: format!("line {t}"),
            });
        }
        if t % 5 == 0 {
            let (a, b) = (some(&mut rng), some(&mut rng));
            ev.push(Event::Attack {
                attacker: a,
                target: b,
            });
            ev.push(Event::Damage {
                entity: b,
                amount: 100,
                cause: 1,
                source: rng.bool().then_some(a),
            });
        }
        if t % 4 == 1 {
            let b = BlockPos {
                x: rng.i32(-90..90),
                y: 64,
                z: rng.i32(-90..90),
            };
            ev.push(Event::Use {
                entity: some(&mut rng),
                hand: 0,
                item: 3,
                target: match rng.u32(0..3) {
                    0 => UseTarget::Nothing,
                    1 => UseTarget::Entity(some(&mut rng)),
                    _ => UseTarget::Block(b),
                },
            });
            ev.push(Event::BlockChange {
                pos: b,
                state: rng.u32(1..9),
                cause: rng.bool().then(|| some(&mut rng)),
                block_entity: None,
            });
        }
        if t % 50 == 7 {
            let blocks = (0..12)
                .map(|_| {
                    let b = BlockPos {
                        x: rng.i32(-90..90),
                        y: 63,
                        z: rng.i32(-90..90),
                    };
                    (b, rng.u32(1..9))
                })
                .collect();
            ev.push(Event::BlockChanges {
                cause: rng.bool().then(|| some(&mut rng)),
                blocks,
            });
        }
        // Entity 300 stays far while player 1 is there, and chats publicly at the player's last
        // place while the player is away: kept only if its position there is known.
        match t {
            0 => ev.push(Event::EntityAdd {
                entity: 300,
                kind: 9,
                pose: at(500.0, 64.0, 500.0),
            }),
            620 => ev.push(Event::Teleport {
                entity: 300,
                pose: at(
                    -80.0 + 599.0 * 0.2,
                    64.0,
                    (599.0f64 * 0.01).sin() * 20.0 + 2.0,
                ),
            }),
            630 => ev.push(Event::Chat {
                sender: Some(300),
                channel: 0,
                text: "while you were away".into(),
            }),
            690 => ev.push(Event::Teleport {
                entity: 300,
                pose: at(500.0, 64.0, 500.0),
            }),
            _ => {}
        }
        match t {
            0 => ev.push(Event::EntityAdd {
                entity: 302,
                kind: 9,
                pose: at(-80.0 + 299.0 * 0.2, 64.0, (2.99f64).sin() * 20.0),
            }),
            200 => ev.push(Event::Pose {
                entity: 302,
                pose: at(500.0, 64.0, -500.0),
            }),
            299 => ev.push(Event::Flags {
                entity: 302,
                flags: 1,
            }),
            _ => {}
        }
        // Entity 304 is never near the player while it is there: it moves at tick 150 to where
        // the player will be at tick 450, is removed at tick 160, and sends a public line at
        // tick 450 (its last known place is the player's then, so the line is kept). Its place
        // comes from a chunk before the line's.
        match t {
            0 => ev.push(Event::EntityAdd {
                entity: 304,
                kind: 9,
                pose: at(500.0, 64.0, 500.0),
            }),
            150 => ev.push(Event::Pose {
                entity: 304,
                pose: at(-80.0 + 450.0 * 0.2, 64.0, (4.5f64).sin() * 20.0),
            }),
            160 => ev.push(Event::EntityRemove { entity: 304 }),
            450 => ev.push(Event::Chat {
                sender: Some(304),
                channel: 0,
                text: "where I was".into(),
            }),
            _ => {}
        }
        if t % 97 == 5 {
            // flags for an entity never added: it stands at the origin from then on
            ev.push(Event::Flags {
                entity: ENTITIES + 1 + t % 3,
                flags: t,
            });
        }
        out.push((t, ev));
    }
    out
}

/// The stream's frames as a shadow buffer holds them: a straight file's chunks of 100 ticks.
fn blocks(dir: &Path) -> (crate::format::header::Header, Vec<Arc<Block>>) {
    let path = dir.join("straight.reel");
    let mut w = ReelWriter::create(
        &path,
        ReelOptions {
            chunk_policy: ChunkPolicy {
                chunk_ticks: 100,
                ..ChunkPolicy::compacted()
            },
            ..ReelOptions::compacted()
        },
    )
    .unwrap();
    for (t, ev) in stream() {
        w.write_tick(t, &ev).unwrap();
    }
    w.finish().unwrap();
    let r = Reader::open_path(&path).unwrap();
    let blocks = (0..r.index().len())
        .map(|i| {
            let (header, payload) = r.read_compressed(i).unwrap();
            Arc::new(Block::new(&Frame { header, payload }))
        })
        .collect::<Vec<_>>();
    assert!(blocks.len() >= 10);
    (r.header().clone(), blocks)
}

/// Every decoded tick, the metadata and the terrain (at the last tick) of a report file.
fn content(
    path: &Path,
) -> (
    Vec<crate::format::chunk::DecodedTick>,
    Metadata,
    Arc<crate::format::Terrain>,
) {
    let r = Reader::open_path(path).unwrap();
    let ticks = r
        .ticks(r.first_tick().unwrap(), r.last_tick().unwrap())
        .collect::<Result<Vec<_>>>()
        .unwrap();
    let terrain = r.terrain_at(r.last_tick().unwrap()).unwrap();
    (ticks, r.metadata().clone(), terrain)
}

/// One section per chunk column over the stream's square and around it (the report keeps those
/// near where its player stood).
fn terrain() -> Arc<crate::format::Terrain> {
    Arc::new(crate::format::Terrain::from_sections((-3..14).flat_map(
        |x| (-3..14).map(move |z| Section::single(x, 0, z, 1)),
    )))
}

#[test]
fn the_fast_passes_make_the_file_the_plain_walk_makes() {
    let dir = tempfile::tempdir().unwrap();
    let (header, blocks) = blocks(dir.path());
    let terrain = terrain();
    let cases = [
        // (player, first, last, radius, chat)
        (1, 0, TICKS - 1, Some(24.0), ReportChat::Near),
        (1, 250, 1234, Some(16.0), ReportChat::Near),
        (1, 610, 690, Some(16.0), ReportChat::Near),
        (7, 120, 1400, Some(24.0), ReportChat::Public),
        (26, 333, 1111, Some(8.0), ReportChat::All),
        (1, 0, TICKS - 1, None, ReportChat::Near),
        // never there: every entity is kept
        (9_999, 0, 900, Some(16.0), ReportChat::Near),
    ];
    let mut kept_counts = Vec::new();
    let mut terrain_kept = Vec::new();
    for (k, (player, first, last, radius, chat)) in cases.into_iter().enumerate() {
        let job = |passes: Passes| ReportJob {
            storage: Arc::new(LocalStorage),
            header: header.clone(),
            entities: HashMap::new(),
            event_types: Vec::new(),
            palette: Default::default(),
            user: HashMap::new(),
            server: None,
            terrain: terrain.clone(),
            terrain_piece: None,
            blocks: blocks.clone(),
            origin: Some(0),
            player,
            first,
            last,
            report_tick: (first + last) / 2,
            left_tick: None,
            created_ms: 0,
            path: dir.path().join(format!("{k}-{passes:?}.reel")),
            options: ReportOptions {
                radius,
                keep: ReportKeep {
                    all_blocks: false,
                    chat,
                },
                ..ReportOptions::default()
            },
        };
        let fast = write_report_by(job(Passes::Fast), Passes::Fast).unwrap();
        let plain = write_report_by(job(Passes::Reference), Passes::Reference).unwrap();
        let (fast_ticks, fast_meta, fast_terrain) = content(&fast);
        let (plain_ticks, plain_meta, plain_terrain) = content(&plain);
        assert_eq!(fast_terrain, plain_terrain, "case {k}: the terrain differs");
        terrain_kept.push(plain_terrain.len());
        assert_eq!(fast_ticks.len(), plain_ticks.len(), "case {k}");
        for (a, b) in fast_ticks.iter().zip(&plain_ticks) {
            assert_eq!(a, b, "case {k}");
        }
        // (not printed: the analysis of every entity)
        assert!(fast_meta == plain_meta, "case {k}: the metadata differs");
        let ids: HashSet<u32> = plain_ticks
            .iter()
            .flat_map(|t| &t.events)
            .filter_map(|e| match e {
                Event::Pose { entity, .. } => Some(*entity),
                _ => None,
            })
            .collect();
        kept_counts.push(ids.len());
        if k == 0 {
            let events = || plain_ticks.iter().flat_map(|t| &t.events);
            let away_line = |e: &Event| {
                matches!(
                    e,
                    Event::Chat {
                        sender: Some(300),
                        ..
                    }
                )
            };
            let kept_300 = |e: &&Event| e.entity() == Some(300) && !away_line(e);
            assert!(
                events().any(away_line) && events().find(kept_300).is_none(),
                "the line of a sender never kept, near the player's last place"
            );
            let line_304 = |e: &Event| {
                matches!(
                    e,
                    Event::Chat {
                        sender: Some(304),
                        ..
                    }
                )
            };
            assert!(
                events().any(line_304)
                    && !events().any(|e| e.entity() == Some(304) && !line_304(e)),
                "the line of a removed sender never kept, at its place from an earlier chunk"
            );
        }
    }
    // The cases keep some of the entities, not none and not all (but for no radius).
    for k in 0..5 {
        assert!(
            (2..(ENTITIES as usize - 10)).contains(&kept_counts[k]),
            "{kept_counts:?}"
        );
    }
    assert!(kept_counts[5] > ENTITIES as usize - 40, "{kept_counts:?}");
    // The terrain kept is some of the sections with a radius, all without.
    assert!(
        (1..terrain.len()).contains(&terrain_kept[1]),
        "{terrain_kept:?}"
    );
    assert_eq!(terrain_kept[5], terrain.len(), "{terrain_kept:?}");
}

/// A report that keeps all of the stream's terrain carries the stored piece that holds it as it
/// is (its bytes, here compressed at level 3, not the writer's 19): the terrain is not compressed
/// again. One that keeps part of it (a radius) encodes what it keeps; one whose stream has no
/// piece holding all of it, likewise.
#[test]
fn a_report_keeping_all_the_terrain_carries_its_stored_piece() {
    use crate::format::FLAG_TERRAIN;
    let dir = tempfile::tempdir().unwrap();
    let (header, blocks) = blocks(dir.path());
    let terrain = terrain();
    let content = crate::format::terrain::encode_piece(&terrain, 3, &Default::default()).unwrap();
    let stored = Arc::new(content.clone());
    let piece_of_report = |path: &Path| {
        let r = Reader::open_path(path).unwrap();
        let i = (0..r.index().len())
            .find(|&i| r.index()[i].flags & FLAG_TERRAIN != 0)
            .unwrap();
        let (_, c) = r.read_compressed(i).unwrap();
        (
            crate::format::terrain::piece_of(&c).unwrap().to_vec(),
            r.terrain_at(r.last_tick().unwrap()).unwrap(),
        )
    };
    let job = |name: &str, radius: Option<f64>, piece: Option<Arc<Vec<u8>>>| ReportJob {
        storage: Arc::new(LocalStorage),
        header: header.clone(),
        entities: HashMap::new(),
        event_types: Vec::new(),
        palette: Default::default(),
        user: HashMap::new(),
        server: None,
        terrain: terrain.clone(),
        terrain_piece: piece,
        blocks: blocks.clone(),
        origin: Some(0),
        player: 1,
        first: 0,
        last: TICKS - 1,
        report_tick: TICKS / 2,
        left_tick: None,
        created_ms: 0,
        path: dir.path().join(name),
        options: ReportOptions {
            radius,
            ..ReportOptions::default()
        },
    };
    let stored_content = crate::format::terrain::piece_of(&content).unwrap().to_vec();
    let all = write_report(job("all.reel", None, Some(stored.clone()))).unwrap();
    let (piece, t) = piece_of_report(&all);
    assert_eq!(piece, stored_content, "the stored piece, as it is");
    assert_eq!(t, terrain);
    // without a stored piece that holds it all: encoded (at the writer's level, other bytes)
    let encoded = write_report(job("encoded.reel", None, None)).unwrap();
    let (piece, t) = piece_of_report(&encoded);
    assert_ne!(piece, stored_content);
    assert_eq!(t, terrain);
    // a radius keeps part of it: what it keeps, encoded
    let part = write_report(job("part.reel", Some(24.0), Some(stored))).unwrap();
    let (piece, t) = piece_of_report(&part);
    assert_ne!(piece, stored_content);
    assert!(t.len() < terrain.len() && !t.is_empty(), "{}", t.len());
}

/// The time of a report keeping all of a ground-like terrain (5×5 columns of 24 sections, a few
/// states in layers with noise) with its stored piece and without (compressed again: what
/// reports did before), printed (`--nocapture`); both files hold the same terrain.
#[test]
fn a_report_of_a_whole_terrain_with_and_without_its_stored_piece() {
    let dir = tempfile::tempdir().unwrap();
    let (header, blocks) = blocks(dir.path());
    let mut noise = 0x9E37_79B9_7F4A_7C15u64;
    let mut sections = Vec::new();
    for cx in -2..=2 {
        for cz in -2..=2 {
            for cy in -4..20 {
                let states: Vec<u32> = (0..crate::format::SECTION_BLOCKS)
                    .map(|i| {
                        noise ^= noise << 13;
                        noise ^= noise >> 7;
                        noise ^= noise << 17;
                        let y = cy * 16 + (i / 256) as i32;
                        match y {
                            ..0 => 1 + (noise % 3) as u32,
                            0..60 => 4 + u32::from(noise.is_multiple_of(16)),
                            60..64 => 6 + (noise % 2) as u32,
                            _ => 0,
                        }
                    })
                    .collect();
                sections.push(Section::from_states(cx, cy, cz, &states).unwrap());
            }
        }
    }
    let terrain = Arc::new(crate::format::Terrain::from_sections(sections));
    let stored = crate::format::terrain::encode_piece(
        &terrain,
        crate::format::TERRAIN_ZSTD_LEVEL,
        &Default::default(),
    )
    .unwrap();
    let job = |name: &str, piece: Option<Arc<Vec<u8>>>| ReportJob {
        storage: Arc::new(LocalStorage),
        header: header.clone(),
        entities: HashMap::new(),
        event_types: Vec::new(),
        palette: Default::default(),
        user: HashMap::new(),
        server: None,
        terrain: terrain.clone(),
        terrain_piece: piece,
        blocks: blocks.clone(),
        origin: Some(0),
        player: 1,
        first: 0,
        last: TICKS - 1,
        report_tick: TICKS / 2,
        left_tick: None,
        created_ms: 0,
        path: dir.path().join(name),
        options: ReportOptions {
            radius: None,
            ..ReportOptions::default()
        },
    };
    for level in [3, 9, 19] {
        let t = std::time::Instant::now();
        let p = crate::format::terrain::encode_piece(&terrain, level, &Default::default()).unwrap();
        eprintln!(
            "encoded at level {level}: {} bytes in {:?}",
            p.len(),
            t.elapsed()
        );
    }
    let t = std::time::Instant::now();
    let carried = write_report(job("carried.reel", Some(Arc::new(stored.clone())))).unwrap();
    let with_piece = t.elapsed();
    let t = std::time::Instant::now();
    let encoded = write_report(job("encoded.reel", None)).unwrap();
    let without = t.elapsed();
    eprintln!(
        "a report keeping a terrain of {} sections ({} bytes stored): {with_piece:?} with its \
         stored piece, {without:?} compressing it again",
        terrain.len(),
        stored.len()
    );
    let a = Reader::open_path(&carried).unwrap();
    let b = Reader::open_path(&encoded).unwrap();
    let last = a.last_tick().unwrap();
    assert_eq!(a.terrain_at(last).unwrap(), b.terrain_at(last).unwrap());
    assert_eq!(*a.terrain_at(last).unwrap(), *terrain);
}
