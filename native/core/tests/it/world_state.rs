//! The world the library keeps (edited blocks, block entities, equipment, health) at every tick:
//! by `Reader::world_at` and by a playhead's seeks, steps and reverse play, equal to a straight
//! decode (every event applied from the start), across chunk boundaries and snapshot chunks; the
//! changes each update reports take a viewer's copy from one tick to the next; a live recording
//! followed while it is written; a recording of data version 2 still plays (no world); crafted
//! world sections refused.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::{self, batch, within, write_reel};

use tickreel::format::wire::ChunkEncoder;
use tickreel::format::{
    BlockPos, DecodedChunk, FLAG_SNAPSHOT, FLAG_WORLD, Item, Limits, WorldChange, WorldState,
};
use tickreel::play::{
    Direction, FollowOptions, FollowState, LiveFollower, Playhead, PlayheadOptions, Reader,
    Recording,
};
use tickreel::record::ChunkPolicy;
use tickreel::{Engine, EngineOptions, Event, Pose};

fn pose(x: i64) -> Pose {
    Pose {
        x: x * 4096,
        y: 64 * 4096,
        z: 0,
        yaw: 0,
        pitch: 0,
    }
}

/// `n` ticks of four players editing a small area (so that blocks are edited again and again),
/// with fills, block entities, equipment, health, a player leaving and coming back.
fn world_ticks(n: u32, seed: u64) -> Vec<(u32, Vec<Event>)> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut out = vec![(
        0,
        (1..=4)
            .map(|e| Event::EntityAdd {
                entity: e,
                kind: 147,
                pose: pose(i64::from(e)),
            })
            .collect::<Vec<_>>(),
    )];
    let pos =
        |rng: &mut fastrand::Rng| BlockPos::new(rng.i32(-4..4), rng.i32(60..63), rng.i32(-4..4));
    for t in 1..n {
        let mut ev = vec![Event::Pose {
            entity: 1,
            pose: pose(i64::from(t % 9)),
        }];
        // some ticks have no world event at all
        if rng.u32(0..4) == 0 {
            out.push((t, ev));
            continue;
        }
        for _ in 0..rng.usize(1..4) {
            let entity = rng.u32(1..5);
            ev.push(match rng.u32(0..10) {
                0..=3 => Event::BlockChange {
                    pos: pos(&mut rng),
                    state: rng.u32(0..6),
                    cause: Some(entity),
                    block_entity: (rng.u32(0..5) == 0).then(|| vec![10, 0, 0, rng.u8(..)]),
                },
                4 => Event::BlockChanges {
                    cause: None,
                    blocks: (0..rng.usize(1..6))
                        .map(|_| (pos(&mut rng), rng.u32(0..6)))
                        .collect(),
                },
                5 | 6 => Event::Equipment {
                    entity,
                    slot: rng.u8(0..4),
                    item: rng.u32(0..4),
                    count: rng.u32(0..3),
                },
                7 | 8 => Event::Health {
                    entity,
                    health: rng.u32(0..2001),
                },
                _ => Event::Swing { entity, hand: 0 },
            });
        }
        if t % 97 == 50 {
            ev.push(Event::PlayerLeave { entity: 4 });
        }
        if t % 97 == 60 {
            ev.push(Event::EntityAdd {
                entity: 4,
                kind: 147,
                pose: pose(4),
            });
        }
        out.push((t, ev));
    }
    out
}

/// The world after every tick, applying every event from the start.
fn straight(ticks: &[(u32, Vec<Event>)]) -> BTreeMap<u32, WorldState> {
    let mut w = WorldState::new();
    let mut out = BTreeMap::new();
    for (t, ev) in ticks {
        for e in ev {
            w.apply(e);
        }
        out.insert(*t, w.clone());
    }
    out
}

/// The world at `t` from the straight decode (ticks without events keep the world before them).
fn at(expected: &BTreeMap<u32, WorldState>, t: u32) -> &WorldState {
    expected
        .range(..=t)
        .next_back()
        .expect("tick 0 is recorded")
        .1
}

/// A viewer's copy of the world, changed only by the updates' world changes (each of which must
/// say what was before exactly as the copy has it).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct ViewerCopy {
    blocks: BTreeMap<BlockPos, u32>,
    health: BTreeMap<u32, u32>,
    slots: BTreeMap<(u32, u8), Item>,
}

impl ViewerCopy {
    fn of(w: &WorldState) -> ViewerCopy {
        let mut c = ViewerCopy {
            blocks: w.blocks().collect(),
            ..ViewerCopy::default()
        };
        for (id, e) in w.entities() {
            if let Some(h) = e.health {
                c.health.insert(id, h);
            }
            for &(s, it) in &e.equipment {
                c.slots.insert((id, s), it);
            }
        }
        c
    }

    fn apply(&mut self, changes: &[WorldChange], what: &str) {
        fn set<K: Ord + Copy + std::fmt::Debug, V: Copy + PartialEq + std::fmt::Debug>(
            m: &mut BTreeMap<K, V>,
            k: K,
            before: Option<V>,
            after: Option<V>,
            what: &str,
        ) {
            assert_eq!(m.get(&k).copied(), before, "{what}: before of {k:?}");
            match after {
                Some(v) => m.insert(k, v),
                None => m.remove(&k),
            };
        }
        for c in changes {
            match *c {
                WorldChange::Block { pos, before, after } => {
                    set(&mut self.blocks, pos, before, after, what)
                }
                WorldChange::Health {
                    entity,
                    before,
                    after,
                } => set(&mut self.health, entity, before, after, what),
                WorldChange::Equipment {
                    entity,
                    slot,
                    before,
                    after,
                } => set(&mut self.slots, (entity, slot), before, after, what),
            }
        }
    }
}

/// `n` ticks of `world_ticks(n, seed)` written with `policy()` to a file in a new directory
/// (kept while its handle lives), their straight decode, and a reader of the file.
fn written_world(
    n: u32,
    seed: u64,
) -> (
    tempfile::TempDir,
    std::path::PathBuf,
    BTreeMap<u32, WorldState>,
    Reader,
) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.reel");
    let ticks = world_ticks(n, seed);
    write_reel(&path, &ticks, policy());
    let expected = straight(&ticks);
    let r = Reader::open_path(&path).unwrap();
    (dir, path, expected, r)
}

fn policy() -> ChunkPolicy {
    ChunkPolicy {
        chunk_ticks: 7,
        snapshot_interval: 25,
        ..ChunkPolicy::default()
    }
}

fn no_prefetch() -> PlayheadOptions {
    PlayheadOptions {
        prefetch: false,
        ..PlayheadOptions::default()
    }
}

/// Checks the playhead's world at its position against the straight decode, and that the copy
/// changed by the update's changes equals it too.
fn check(p: &Playhead, copy: &mut ViewerCopy, expected: &BTreeMap<u32, WorldState>, what: &str) {
    let t = p.position();
    copy.apply(p.update().world_changes(), &format!("{what} at {t}"));
    let want = at(expected, t);
    assert!(p.world_complete(), "{what} at {t}");
    assert_eq!(p.world_state(), want, "{what}: world at {t}");
    assert_eq!(
        *copy,
        ViewerCopy::of(want),
        "{what}: the viewer's copy at {t}"
    );
}

#[test]
fn the_world_at_every_tick_by_seek_and_step_equals_a_straight_decode() {
    let (_dir, path, expected, r) = written_world(400, 7);
    // Snapshot chunks carry the world (after the first, whose world is empty), and chunks
    // between them do not: the rebuild crosses chunk boundaries.
    let idx = r.index();
    assert!(idx.len() > 50);
    let with_world = idx.iter().filter(|e| e.flags & FLAG_WORLD != 0).count();
    let snapshots = idx.iter().filter(|e| e.has_snapshot()).count();
    assert!(
        with_world >= 10 && with_world == snapshots - 1,
        "{with_world} of {snapshots}"
    );
    assert_eq!(idx[0].flags & FLAG_WORLD, 0);
    // Some world sections are deltas against an earlier keyframe section (data version 5).
    let deltas = (0..idx.len())
        .filter(|&i| {
            let (fh, payload) = r.read_payload(i).unwrap();
            DecodedChunk::decode(
                &payload,
                fh.flags,
                fh.start_tick,
                fh.tick_count,
                &Limits::default(),
            )
            .unwrap()
            .world_delta
            .is_some()
        })
        .count();
    assert!(
        deltas >= 3 && deltas < with_world,
        "{deltas} deltas of {with_world}"
    );
    for (i, e) in idx.iter().enumerate() {
        let c = r.read_chunk(i).unwrap();
        assert_eq!(c.world.is_some(), e.has_snapshot());
        if let Some(w) = &c.world {
            let before = match e.start_tick {
                0 => WorldState::new(),
                t => at(&expected, t - 1).clone(),
            };
            assert_eq!(**w, before, "the world section of chunk {i}");
        }
    }
    // Reader::world_at at every tick
    for t in 0..400 {
        let w = r.world_at(t).unwrap();
        assert!(w.complete);
        assert_eq!(w.world, *at(&expected, t), "world_at {t}");
    }
    // A playhead: seeks in random order, each update's changes taking a copy along.
    let rec = Recording::open_path(&path).unwrap();
    let mut p = Playhead::with_options(rec.clone(), 0, no_prefetch()).unwrap();
    let mut copy = ViewerCopy::default();
    check(&p, &mut copy, &expected, "new");
    let mut rng = fastrand::Rng::with_seed(3);
    for _ in 0..300 {
        let t = if rng.bool() {
            rng.u32(0..400)
        } else {
            // near the last position: same snapshot, both directions
            p.position()
                .saturating_add(rng.u32(0..20))
                .saturating_sub(10)
                .min(399)
        };
        p.seek(t).unwrap();
        check(&p, &mut copy, &expected, "seek");
    }
    // Step forward through every tick, then back through every tick.
    p.seek(0).unwrap();
    check(&p, &mut copy, &expected, "seek 0");
    while p.position() < 399 {
        p.step_forward();
        check(&p, &mut copy, &expected, "step forward");
    }
    while p.position() > 0 {
        p.step_back();
        check(&p, &mut copy, &expected, "step back");
    }
    // Reverse play at speed 3, then forward at speed 5.
    p.seek(399).unwrap();
    check(&p, &mut copy, &expected, "seek end");
    p.set_direction(Direction::Backward);
    p.set_speed(3.0).unwrap();
    p.play();
    for _ in 0..200 {
        p.prepare();
        p.advance();
        check(&p, &mut copy, &expected, "reverse play");
        if p.position() == 0 {
            break;
        }
    }
    assert_eq!(p.position(), 0);
    p.set_direction(Direction::Forward);
    p.set_speed(5.0).unwrap();
    for _ in 0..200 {
        p.prepare();
        p.advance();
        check(&p, &mut copy, &expected, "forward play");
        if p.position() == 399 {
            break;
        }
    }
    assert_eq!(p.position(), 399);
    // The playhead's heap counts the world it keeps: a playhead that played less (smaller
    // buffers) and holds an empty world counts less by at least the world's heap.
    let blocks = p.world_state().block_count();
    assert!(blocks > 100, "{blocks}");
    let with_world = p.heap_bytes();
    let mut q = Playhead::with_options(rec.clone(), 399, no_prefetch()).unwrap();
    q.seek(0).unwrap();
    assert!(q.world_state().is_empty());
    // the jump's update keeps the world before it (for its changes) until the next call
    assert!(q.heap_bytes() >= blocks * 12);
    q.seek(0).unwrap();
    let empty = q.heap_bytes();
    let world = p.world_state().heap_bytes();
    assert!(world >= blocks * 12, "{world} bytes for {blocks} blocks");
    assert!(
        with_world >= empty + world,
        "{with_world} bytes with a world of {world}, {empty} with none"
    );
}

/// Seeks a playhead of the recording at `path` to every tick below `ticks`, from the last back,
/// cold (the chunks decoded and the keyframe worlds kept given back before each), and asks `r`
/// for the world at each as cold: both are the straight decode's.
fn cold_seeks_equal_a_straight_decode(
    path: &Path,
    r: &Reader,
    expected: &BTreeMap<u32, WorldState>,
    ticks: u32,
) {
    let rec = Recording::open_path(path).unwrap();
    let mut p = Playhead::with_options(rec.clone(), 0, no_prefetch()).unwrap();
    for t in (0..ticks).rev() {
        rec.cache().clear();
        rec.view().reader().trim_caches(0);
        assert_eq!(rec.view().reader().cache_bytes(), 0);
        p.seek(t).unwrap();
        assert!(p.world_complete(), "seek {t}");
        assert_eq!(p.world_state(), at(expected, t), "seek {t}");
        r.trim_caches(0);
        let w = r.world_at(t).unwrap();
        assert!(w.complete, "world_at {t}");
        assert_eq!(w.world, *at(expected, t), "world_at {t}");
    }
}

/// Cold seeks, as a viewer opening a recording seeks (issue 48): before each, the chunks decoded
/// and the keyframe worlds the reader kept are given back, so that every seek reads its keyframe's
/// chunk (its world section alone) and the chunks after its snapshot (without their movement)
/// afresh. At every tick, both ways (a playhead's seek, `Reader::world_at`): the straight decode.
#[test]
fn a_cold_seek_at_every_tick_reads_the_keyframes_world_section_alone_and_equals_a_straight_decode()
{
    let (_dir, path, expected, r) = written_world(400, 11);
    // several keyframes, and deltas on them: the seeks take the keyframe path
    let (mut keyframes, mut deltas) = (0, 0);
    for i in 0..r.index().len() {
        if r.index()[i].flags & FLAG_WORLD == 0 {
            continue;
        }
        let (fh, payload) = r.read_payload(i).unwrap();
        let c = DecodedChunk::decode(
            &payload,
            fh.flags,
            fh.start_tick,
            fh.tick_count,
            &Limits::default(),
        )
        .unwrap();
        keyframes += usize::from(c.world.is_some());
        deltas += usize::from(c.world_delta.is_some());
    }
    assert!(
        keyframes >= 3 && deltas >= 3,
        "{keyframes} keyframes, {deltas} deltas"
    );
    cold_seeks_equal_a_straight_decode(&path, &r, &expected, 400);
}

/// With a crowd moving, each chunk's movement is a zstd frame of its own (FORMAT.md, section 6),
/// and reads without the movement decompress only the frame before it: every chunk's events and
/// world so read are the whole decode's, and cold seeks at every tick (the rebuild's chunks
/// before the position handed to the prefetch pool while the seek decodes its own) and
/// `Reader::world_at` give the straight decode.
#[test]
fn with_the_movement_in_a_frame_of_its_own_cold_seeks_still_equal_a_straight_decode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crowd.reel");
    let mut ticks = world_ticks(240, 12);
    let mut rng = fastrand::Rng::with_seed(3);
    for (t, ev) in &mut ticks {
        for entity in 100..220u32 {
            let pose = Pose {
                x: rng.i64(-(1 << 24)..1 << 24),
                y: rng.i64(0..1 << 20),
                z: rng.i64(-(1 << 24)..1 << 24),
                yaw: 0,
                pitch: 0,
            };
            ev.push(match t {
                0 => Event::EntityAdd {
                    entity,
                    kind: 1,
                    pose,
                },
                _ => Event::Pose { entity, pose },
            });
        }
    }
    let policy = ChunkPolicy {
        chunk_ticks: 20,
        snapshot_interval: 60,
        ..ChunkPolicy::default()
    };
    write_reel(&path, &ticks, policy);
    let expected = straight(&ticks);
    let r = Reader::open_path(&path).unwrap();
    let n = r.index().len();
    let split = (0..n)
        .filter(|&i| {
            let (_, c) = r.read_compressed(i).unwrap();
            zstd::zstd_safe::find_frame_compressed_size(&c).unwrap() < c.len()
        })
        .count();
    assert!(split + 1 >= n, "{split} of {n} chunks in two frames");
    for i in 0..n {
        // read without the movement, an entity's add and teleport have no pose
        let mut whole = r.read_chunk(i).unwrap();
        for e in whole.records.iter_mut().flat_map(|r| &mut r.events) {
            if let Event::EntityAdd { pose, .. } | Event::Teleport { pose, .. } = e {
                *pose = Pose::default();
            }
        }
        let events = r.read_chunk_events(i).unwrap();
        assert!(events.records == whole.records, "chunk {i}: events");
        let w = r.read_chunk_world(i).unwrap();
        assert!(w.records == whole.records, "chunk {i}: world part");
        assert!(w.world == whole.world, "chunk {i}: world");
    }
    cold_seeks_equal_a_straight_decode(&path, &r, &expected, 240);
}

#[test]
fn compaction_and_a_live_recording_followed_while_written_keep_the_world() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let mut o = common::flushed_when_asked();
    o.chunk_policy.chunk_ticks = 10;
    o.chunk_policy.snapshot_interval = 30;
    let rec = engine.start_recording(&path, o).unwrap();
    let ticks = world_ticks(300, 11);
    let expected = straight(&ticks);
    rec.submit_tick(0, &batch(&ticks[0].1)).unwrap();
    rec.flush().unwrap();
    let follower = LiveFollower::open(
        &path,
        FollowOptions {
            background: false,
            ..FollowOptions::default()
        },
    )
    .unwrap();
    let mut p = Playhead::with_options(follower.recording().clone(), 0, no_prefetch()).unwrap();
    let mut copy = ViewerCopy::default();
    check(&p, &mut copy, &expected, "live start");
    p.set_speed(4.0).unwrap();
    p.play();
    let mut sent = 1;
    while sent < ticks.len() {
        for (t, ev) in &ticks[sent..(sent + 40).min(ticks.len())] {
            rec.submit_tick(*t, &batch(ev)).unwrap();
        }
        sent = (sent + 40).min(ticks.len());
        rec.flush().unwrap();
        assert_eq!(follower.refresh(), FollowState::Live);
        let last = follower.recording().view().reader().last_tick().unwrap();
        for _ in 0..100 {
            if p.position() >= last {
                break;
            }
            p.prepare();
            p.advance();
            check(&p, &mut copy, &expected, "live follow");
        }
        assert_eq!(p.position(), last);
        // a seek back into the live recording, and back to the end
        let back = last / 2;
        p.seek(back).unwrap();
        check(&p, &mut copy, &expected, "live seek back");
        p.seek(last).unwrap();
        check(&p, &mut copy, &expected, "live seek end");
    }
    let finished = within(move || rec.finish().unwrap().wait().unwrap()).expect("finish");
    assert_eq!(follower.refresh(), FollowState::Finished);
    // switched over to the compacted file: nothing to apply, the world is the same
    p.prepare();
    p.advance();
    check(&p, &mut copy, &expected, "switch-over");
    assert!(p.update().world_changes().is_empty());
    p.set_direction(Direction::Backward);
    for _ in 0..200 {
        p.prepare();
        p.advance();
        check(&p, &mut copy, &expected, "compacted reverse");
        if p.position() == 0 {
            break;
        }
    }
    let r = Reader::open_path(&finished).unwrap();
    for t in (0..300).step_by(7) {
        assert_eq!(
            r.world_at(t).unwrap().world,
            *at(&expected, t),
            "compacted {t}"
        );
    }
}

#[test]
fn a_recording_of_data_version_2_still_plays_without_a_world() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden-v2.reel");
    let r = Reader::open_path(&path).unwrap();
    let last = r.last_tick().unwrap();
    let w = r.world_at(last).unwrap();
    assert!(w.complete && w.world.is_empty());
    let rec = Recording::open_path(&path).unwrap();
    let mut p = Playhead::new(rec).unwrap();
    assert!(p.world_state().is_empty());
    p.seek(last).unwrap();
    assert!(p.world_state().is_empty() && p.update().world_changes().is_empty());
    while p.position() > r.first_tick().unwrap() {
        p.step_back();
        assert!(p.world_state().is_empty());
    }
}

/// A payload of a snapshot chunk at tick 10 whose world section holds what tick 0 edited, and
/// the offset of the world section's length in it (no entity: an empty keyframe, an empty
/// snapshot, then the world section).
fn payload_with_world(events: &[Event]) -> (Vec<u8>, u8) {
    let mut enc = ChunkEncoder::new();
    enc.begin(0, Some(Vec::new()));
    enc.push_tick(0, events).unwrap();
    let mut out = Vec::new();
    enc.encode_payload(&mut out);
    enc.begin(10, Some(Vec::new()));
    enc.push_tick(10, &[]).unwrap();
    enc.encode_payload(&mut out);
    assert_eq!(enc.flags(), FLAG_SNAPSHOT | FLAG_WORLD);
    assert_eq!(&out[..2], [0, 0]);
    (out, enc.flags())
}

#[test]
fn crafted_world_sections_are_refused_with_clear_errors() {
    let lim = Limits::default();
    let blocks: Vec<Event> = (0..20)
        .map(|i| Event::BlockChange {
            pos: BlockPos::new(i, 64, 0),
            state: 1,
            cause: None,
            block_entity: None,
        })
        .collect();
    let (ok, flags) = payload_with_world(&blocks);
    let c = DecodedChunk::decode(&ok, flags, 10, 1, &lim).unwrap();
    assert_eq!(c.world.as_ref().unwrap().block_count(), 20);
    // the world flag without a snapshot
    let e = DecodedChunk::decode(&ok, FLAG_WORLD, 10, 1, &lim).unwrap_err();
    assert!(e.to_string().contains("world flag"), "{e}");
    // data version 9: back, then the block list: n, its bytes U, its compressed bytes Z
    let section_len = ok[2] as usize;
    assert!(section_len < 0x80);
    assert_eq!(ok[3], 0, "a keyframe section (back = 0)");
    assert_eq!(ok[4], 20, "20 blocks");
    let u = ok[5] as usize;
    assert!(u < 0x80 && ok[6] < 0x80);
    // more blocks than the list's bytes can hold (4 bytes a block at least)
    let mut big = ok.clone();
    big[4] = (u / 4 + 1) as u8;
    let e = DecodedChunk::decode(&big, flags, 10, 1, &lim).unwrap_err();
    assert!(matches!(e, tickreel::Error::Corrupt(_)), "{e}");
    assert!(e.to_string().contains("world block list"), "{e}");
    // more blocks than the limit, whatever the bytes
    let small = Limits {
        max_chunk_bytes: 16 * 64,
        ..Limits::default()
    };
    let e = DecodedChunk::decode(&ok, flags, 10, 1, &small).unwrap_err();
    assert!(matches!(e, tickreel::Error::LimitExceeded(_)), "{e}");
    assert!(e.to_string().contains("20 blocks; limit 16"), "{e}");
    // compressed bytes past the section
    let mut z0 = ok.clone();
    z0[6] = 0x7F;
    assert!(DecodedChunk::decode(&z0, flags, 10, 1, &lim).is_err());
    // a section length past the payload
    let mut long = ok.clone();
    long[2] = 0x7F;
    assert!(DecodedChunk::decode(&long, flags, 10, 1, &lim).is_err());
}

/// A block list its chunk's checksum cannot tell from a writer's, but that no writer writes (the
/// same position twice): the chunk decodes (the list is kept as stored, not read at the seek),
/// and the list's first read refuses it: the world then reads as having no edited block, and
/// says why from then on.
#[test]
fn a_crafted_block_list_is_refused_when_first_read() {
    let blocks: Vec<Event> = (0..20)
        .map(|i| Event::BlockChange {
            pos: BlockPos::new(i, 64, 0),
            state: 1,
            cause: None,
            block_entity: None,
        })
        .collect();
    let (ok, flags) = payload_with_world(&blocks);
    let (ok_world, crafted_world) = {
        let lim = Limits::default();
        let crafted = crafted_list(&ok, |list| {
            // the second block's dx: 0 (was +1), its position the first one's
            // (the first block: dx 0, dy 64 in two bytes, dz 0, state 1)
            assert_eq!(list[5], 2);
            list[5] = 0;
        });
        let a = DecodedChunk::decode(&ok, flags, 10, 1, &lim).unwrap();
        let b = DecodedChunk::decode(&crafted, flags, 10, 1, &lim).unwrap();
        (a.world.unwrap(), b.world.unwrap())
    };
    assert!(ok_world.read_lists().is_ok() && ok_world.decode_error().is_none());
    // not read yet: nothing refused so far
    assert!(crafted_world.decode_error().is_none());
    assert_eq!(crafted_world.block(BlockPos::new(0, 64, 0)), None);
    let e = crafted_world.decode_error().expect("refused on first read");
    assert!(e.to_string().contains("not increasing"), "{e}");
    assert_eq!(crafted_world.block_count(), 0);
    assert_eq!(crafted_world.blocks().count(), 0);
    assert!(crafted_world.read_lists().is_err());
    // a list cut short inside its last block (its bytes still hold 4 a block), or too short
    // for its count (refused with the chunk)
    let crafted = crafted_list(&ok, |list| list.truncate(list.len() - 1));
    let w = DecodedChunk::decode(&crafted, flags, 10, 1, &Limits::default())
        .unwrap()
        .world
        .unwrap();
    assert!(w.read_lists().is_err());
    let crafted = crafted_list(&ok, |list| list.truncate(list.len() - 3));
    assert!(DecodedChunk::decode(&crafted, flags, 10, 1, &Limits::default()).is_err());
    let crafted = crafted_list(&ok, |list| list.push(0));
    let w = DecodedChunk::decode(&crafted, flags, 10, 1, &Limits::default())
        .unwrap()
        .world
        .unwrap();
    let e = w.read_lists().unwrap_err();
    assert!(e.to_string().contains("left over"), "{e}");
}

/// `payload` (of [`payload_with_world`], data version 9) with its world section's block list
/// decompressed, edited by `edit` and compressed again, every length after it recomputed.
pub(crate) fn crafted_list(payload: &[u8], edit: impl Fn(&mut Vec<u8>)) -> Vec<u8> {
    use tickreel::format::wire::put_uvarint;
    let len = payload[2] as usize;
    let section = &payload[3..3 + len];
    let (n, u, zl) = (section[1], section[2] as usize, section[3] as usize);
    assert!(n < 0x80 && u < 0x80 && zl < 0x80);
    let z = &section[4..4 + zl];
    let mut list = zstd::bulk::decompress(z, u).unwrap();
    edit(&mut list);
    let z = zstd::bulk::compress(&list, 3).unwrap();
    let mut body = vec![0, n];
    put_uvarint(&mut body, list.len() as u64);
    put_uvarint(&mut body, z.len() as u64);
    body.extend_from_slice(&z);
    body.extend_from_slice(&section[4 + zl..]);
    let mut out = payload[..2].to_vec();
    put_uvarint(&mut out, body.len() as u64);
    out.extend_from_slice(&body);
    out.extend_from_slice(&payload[3 + len..]);
    out
}

#[test]
fn a_writer_refuses_a_world_past_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.reel");
    let mut w = tickreel::record::ReelWriter::create(&path, Default::default()).unwrap();
    let max = Limits::default().max_world_blocks();
    let fill = |y: i32| Event::BlockChanges {
        cause: None,
        blocks: (0..32_768)
            .map(|i| (BlockPos::new(i % 256, y, i / 256), 1))
            .collect(),
    };
    let mut y = 0;
    while (y as usize + 1) * 32_768 <= max {
        w.write_tick(y as u32, &[fill(y)]).unwrap();
        y += 1;
    }
    // the same blocks again are no new blocks
    w.write_tick(y as u32, &[fill(0)]).unwrap();
    let e = w.write_tick(y as u32 + 1, &[fill(y)]).unwrap_err();
    assert!(matches!(e, tickreel::Error::LimitExceeded(_)), "{e}");
    assert!(e.to_string().contains("edited blocks"), "{e}");
}

#[test]
fn compaction_carries_the_world_over_chunks_it_copies_as_they_are() {
    use tickreel::record::{CompactOptions, compact};
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src.reel");
    // Ticks 0..10: a chunk large enough to be copied as it is (big custom events), editing
    // blocks; then small chunks, re-encoded, whose snapshots must carry those edits.
    let mut ticks = world_ticks(60, 5);
    let mut rng = fastrand::Rng::with_seed(1);
    for (t, ev) in ticks.iter_mut().take(10) {
        ev.push(Event::BlockChange {
            pos: BlockPos::new(100 + *t as i32, 70, 0),
            state: 9,
            cause: None,
            block_entity: None,
        });
        ev.push(Event::Custom {
            type_id: 1,
            data: (0..4000).map(|_| rng.u8(..)).collect(),
        });
    }
    write_reel(
        &src,
        &ticks,
        ChunkPolicy {
            chunk_ticks: 10,
            snapshot_interval: 20,
            ..ChunkPolicy::default()
        },
    );
    let expected = straight(&ticks);
    let out = dir.path().join("out.reel");
    let r = Reader::open_path(&src).unwrap();
    compact(
        &r,
        &out,
        CompactOptions {
            chunk_ticks: 10,
            ..CompactOptions::default()
        },
        &mut |_, _| {},
    )
    .unwrap();
    let c = Reader::open_path(&out).unwrap();
    // the first chunk was copied as it is
    assert_eq!(
        c.read_compressed(0).unwrap().1,
        r.read_compressed(0).unwrap().1
    );
    assert!(c.index().len() >= 3);
    for t in 0..60 {
        assert_eq!(
            c.world_at(t).unwrap().world,
            *at(&expected, t),
            "compacted {t}"
        );
    }
}

#[test]
fn a_resumed_recording_carries_the_world_on_into_its_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("resumed.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let opts = || {
        let mut o = common::flushed_when_asked();
        o.chunk_policy.chunk_ticks = 10;
        o.chunk_policy.snapshot_interval = 30;
        o
    };
    let ticks = world_ticks(200, 23);
    let expected = straight(&ticks);
    let rec = engine.start_recording(&path, opts()).unwrap();
    for (t, ev) in &ticks[..100] {
        rec.submit_tick(*t, &batch(ev)).unwrap();
    }
    rec.flush().unwrap();
    rec.close().unwrap();
    drop(rec);
    let rec = engine.start_recording(&path, opts()).unwrap();
    for (t, ev) in &ticks[100..] {
        rec.submit_tick(*t, &batch(ev)).unwrap();
    }
    rec.flush().unwrap();
    // the live directory: the snapshots written after the resume carry the world from before
    let live = Reader::open_live(tickreel::storage::live::live_dir_for(&path)).unwrap();
    for t in 100..200 {
        assert_eq!(
            live.world_at(t).unwrap().world,
            *at(&expected, t),
            "live {t}"
        );
    }
    drop(live);
    let finished = within(move || rec.finish().unwrap().wait().unwrap()).expect("finish");
    let r = Reader::open_path(&finished).unwrap();
    for t in 100..200 {
        assert_eq!(
            r.world_at(t).unwrap().world,
            *at(&expected, t),
            "resumed {t}"
        );
    }
}

/// A finished file's writer (the compacted preset) lets a world delta section grow to its
/// keyframe's size before writing a keyframe again; a live writer's policy, to a quarter of it.
/// A world growing by 30 % of the first keyframe between snapshots: the live policy writes
/// keyframes where the finished file writes deltas (the last, 90 changes on 100, too).
#[test]
fn a_finished_file_writes_deltas_up_to_its_keyframes_size() {
    let dir = tempfile::tempdir().unwrap();
    let keyframes = |opts: tickreel::record::ReelOptions, name: &str| {
        let path = dir.path().join(name);
        let mut w = tickreel::record::ReelWriter::create(&path, opts).unwrap();
        let mut x = 0;
        for s in 0..4u32 {
            w.offer_snapshot(Vec::new()).unwrap();
            let n = if s == 0 { 100 } else { 30 };
            let ev: Vec<Event> = (0..n)
                .map(|_| {
                    x += 1;
                    Event::BlockChange {
                        pos: BlockPos::new(x, 64, 0),
                        state: 1,
                        cause: None,
                        block_entity: None,
                    }
                })
                .collect();
            w.write_tick(s * 10, &ev).unwrap();
        }
        w.offer_snapshot(Vec::new()).unwrap();
        w.write_tick(40, &[]).unwrap();
        w.finish().unwrap();
        let r = tickreel::play::Reader::open_path(&path).unwrap();
        (0..r.index().len())
            .filter(|&i| r.index()[i].flags & FLAG_WORLD != 0)
            .map(|i| {
                let (fh, payload) = r.read_payload(i).unwrap();
                let c = DecodedChunk::decode(
                    &payload,
                    fh.flags,
                    fh.start_tick,
                    fh.tick_count,
                    r.limits(),
                )
                .unwrap();
                c.world_delta.is_none()
            })
            .collect::<Vec<bool>>()
    };
    // worlds of 100, 130, 160, 190 blocks at the snapshots of ticks 10, 20, 30, 40
    assert_eq!(
        keyframes(tickreel::record::ReelOptions::default(), "live.reel"),
        [true, true, false, true]
    );
    assert_eq!(
        keyframes(tickreel::record::ReelOptions::compacted(), "finished.reel"),
        [true, false, false, false]
    );
}
