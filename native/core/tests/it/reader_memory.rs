//! What a reader keeps is counted as the allocator hands it out: the reader's own heap
//! (`Reader::heap_bytes`: index, metadata, the keyframe worlds and the terrain it keeps), a
//! decoded chunk with its world (`DecodedChunk::heap_bytes`, what the chunk cache counts) and a
//! world built from events (`WorldState::heap_bytes`, a playhead's), each within a fifth of the
//! bytes measured by the binary's counting allocator ([`crate::heap`]), on worlds of many blocks,
//! block entities and entities and a terrain of many sections. And a reader's caches stay within
//! their budget and are given back.

use std::path::Path;

use crate::{alone, heap};

use tickreel::Pose;
use tickreel::format::{BlockPos, Event, Section, WorldState};
use tickreel::play::Reader;
use tickreel::record::{ChunkPolicy, ReelOptions, ReelWriter};

/// Within a fifth: `counted` against `measured` bytes.
fn within_a_fifth(what: &str, counted: usize, measured: isize) {
    let m = measured as f64;
    let ratio = counted as f64 / m;
    eprintln!("{what}: counted {counted} bytes, measured {measured}: {ratio:.3}");
    assert!(
        measured > 0 && (0.8..=1.2).contains(&ratio),
        "{what}: counted {counted} bytes, measured {measured} ({ratio:.3} of it)"
    );
}

/// The bytes live now (all threads).
fn live() -> isize {
    heap::live()
}

/// A section of `kinds` block states (and air) in a pattern: a palette of `kinds + 1`.
fn varied(cx: i32, cy: i32, cz: i32, kinds: u32) -> Section {
    let states: Vec<u32> = (0..4096u32)
        .map(|i| {
            if i % 3 == 0 {
                0
            } else {
                1 + (i * 7 + (cx as u32) * 13) % kinds
            }
        })
        .collect();
    Section::from_states(cx, cy, cz, &states).unwrap()
}

/// A recording of 400 ticks, a snapshot chunk every 20 (each with a world section: keyframes and
/// deltas on them), whose world holds `blocks` edited blocks from tick 0, a block entity of 12
/// bytes on one block in `every`, and `entities` entities with health and three equipment
/// slots; a few blocks change every tick. Terrain: `sections` sections offered at tick 0 and a
/// fifth of them again at tick 200.
fn world_file(path: &Path, blocks: i32, every: i32, entities: u32, sections: i32) {
    let mut w = ReelWriter::create(
        path,
        ReelOptions {
            chunk_policy: ChunkPolicy {
                chunk_ticks: 20,
                snapshot_interval: 20,
                ..ChunkPolicy::default()
            },
            ..ReelOptions::default()
        },
    )
    .unwrap();
    let side = 256;
    let pos = |i: i32| BlockPos::new(i % side, 64 + i / (side * side), (i / side) % side);
    let columns = (f64::from(sections) / 8.0).sqrt().ceil() as i32;
    let section = |k: i32, kinds: u32| varied(k / 8 % columns, k % 8, k / 8 / columns, kinds);
    for t in 0..400u32 {
        if t == 0 {
            w.offer_terrain((0..sections).map(|k| section(k, 40)).collect())
                .unwrap();
        }
        if t == 200 {
            w.offer_terrain((0..sections).step_by(5).map(|k| section(k, 12)).collect())
                .unwrap();
        }
        let p = Pose::from_f64(f64::from(t) * 0.1, 70.0, 0.0, 0.0, 0.0);
        let mut ev = if t == 0 {
            vec![Event::EntityAdd {
                entity: 1,
                kind: 1,
                pose: p,
            }]
        } else {
            vec![Event::Pose { entity: 1, pose: p }]
        };
        if t == 0 {
            let all: Vec<_> = (0..blocks)
                .filter(|i| i % every != 0)
                .map(|i| (pos(i), 1 + (i as u32 % 50)))
                .collect();
            // at most 32,768 blocks a change
            for part in all.chunks(30_000) {
                ev.push(Event::BlockChanges {
                    cause: None,
                    blocks: part.to_vec(),
                });
            }
            for i in (0..blocks).step_by(every as usize) {
                ev.push(Event::BlockChange {
                    pos: pos(i),
                    state: 60,
                    cause: None,
                    block_entity: Some(vec![i as u8; 12]),
                });
            }
            for e in 0..entities {
                let id = 100 + e;
                ev.push(Event::Health {
                    entity: id,
                    health: 2000,
                });
                for slot in 0..3u8 {
                    ev.push(Event::Equipment {
                        entity: id,
                        slot,
                        item: 5 + u32::from(slot),
                        count: 1,
                    });
                }
            }
        } else {
            for k in 0..4 {
                ev.push(Event::BlockChange {
                    pos: pos((t as i32 * 37 + k * 1001) % (blocks + 5000)),
                    state: 2 + t % 7,
                    cause: None,
                    block_entity: None,
                });
            }
        }
        w.write_tick(t, &ev).unwrap();
    }
    w.finish().unwrap();
}

#[test]
fn what_a_reader_keeps_is_counted_within_a_fifth() {
    if !alone::in_own_process(
        module_path!(),
        "what_a_reader_keeps_is_counted_within_a_fifth",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // blocks only; blocks with many block entities; many entities
    let shapes = [
        ("blocks", 200_000, 1_000_000, 10, 600),
        ("block entities", 60_000, 2, 10, 600),
        ("entities", 20_000, 1_000_000, 12_000, 600),
    ];
    for (what, blocks, every, entities, sections) in shapes {
        let path = dir.path().join(format!("{what}.reel"));
        world_file(&path, blocks, every, entities, sections);
        let last = 399;

        // the reader: its index and metadata, then the keyframe worlds and terrain it keeps
        let base = live();
        let r = Reader::open_path(&path).unwrap();
        r.read_chunk_events(0).unwrap();
        let opened = live();
        for t in [0, 150, 270, last] {
            drop(r.world_at(t).unwrap());
        }
        let worlds = r.cache_bytes();
        within_a_fifth(&format!("{what}: keyframe worlds"), worlds, live() - opened);
        let before = live();
        drop(r.terrain_at(last).unwrap());
        within_a_fifth(
            &format!("{what}: terrain"),
            r.cache_bytes() - worlds,
            live() - before,
        );
        within_a_fifth(
            &format!("{what}: the reader"),
            r.heap_bytes(),
            live() - base,
        );
        let (kept, before) = (r.cache_bytes(), live());
        r.trim_caches(0);
        assert_eq!(r.cache_bytes(), 0);
        within_a_fifth(&format!("{what}: given back"), kept, before - live());

        // a decoded chunk with its world (a keyframe's; a delta's, put on its keyframe's world,
        // which the reader then keeps), as the chunk cache counts it
        for (i, e) in r.index().iter().enumerate().skip(1).step_by(7) {
            if e.flags & tickreel::format::FLAG_WORLD == 0 {
                continue;
            }
            r.trim_caches(0);
            let before = live();
            let c = r.read_chunk(i).unwrap();
            // its world's block lists read (a chunk counts them as read from the start)
            if let Some(w) = &c.world {
                w.read_lists().unwrap();
            }
            let keyframe = r.cache_bytes();
            let own = live() - before - keyframe as isize;
            let counted = c.heap_bytes();
            if keyframe == 0 {
                within_a_fifth(&format!("{what}: chunk {i}"), counted, own);
            } else {
                // a delta's world shares its keyframe's sorted blocks, counted whole in both (so
                // that a chunk the cache keeps after the reader gave the keyframe back is not
                // undercounted): what the chunk holds alone, and at most that and the keyframe
                eprintln!("{what}: chunk {i}: counted {counted}, own {own}, keyframe {keyframe}");
                assert!(
                    counted as f64 >= 0.8 * own as f64 && counted <= own as usize + keyframe,
                    "{what}: chunk {i}: counted {counted}, own {own}, keyframe {keyframe}"
                );
            }
            drop(c);
        }
        drop(r);

        // a world built by events (a playhead's)
        let events: Vec<Event> = {
            let r = Reader::open_path(&path).unwrap();
            r.events(0, 0).flat_map(|t| t.unwrap().events).collect()
        };
        let before = live();
        let mut world = WorldState::new();
        for e in &events {
            world.apply(e);
        }
        let grown = live() - before;
        within_a_fifth(
            &format!("{what}: a world of events"),
            world.heap_bytes(),
            grown,
        );
    }
}

/// What a reader keeps of keyframe worlds and terrain stays within its budget (the one world or
/// terrain decoded last aside) and is given back when asked.
#[test]
fn a_readers_caches_keep_to_their_budget() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.reel");
    world_file(&path, 60_000, 1_000_000, 10, 100);
    let r = Reader::open_path(&path).unwrap();
    let one = {
        r.world_at(399).unwrap();
        r.cache_bytes()
    };
    assert!(one > 60_000 * 16, "{one}");
    r.trim_caches(0);
    assert_eq!(r.cache_bytes(), 0);
    r.set_cache_budget(one + one / 2);
    for t in (0..400).step_by(20) {
        r.world_at(t).unwrap();
        assert!(r.cache_bytes() <= one + one / 2, "tick {t}");
    }
    // nothing kept under a budget of one byte but what was decoded last
    r.set_cache_budget(1);
    assert_eq!(r.cache_bytes(), 0);
    let t = r.terrain_at(399).unwrap();
    assert_eq!(r.cache_bytes(), t.heap_bytes());
    r.world_at(399).unwrap();
    assert_eq!(
        r.cache_bytes(),
        one,
        "the world decoded last, the terrain given back"
    );
    assert!(r.heap_bytes() > r.cache_bytes());
    r.set_cache_budget(0);
    assert_eq!(r.cache_bytes(), 0);
}
