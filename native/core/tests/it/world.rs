//! World events through the whole write path: a recorder takes block changes, hits, equipment,
//! health and chat with the names of their ids, a reader of the live recording and of the finished
//! file gives them back exactly, with the palette, in chunks of data version 4 to 6; finished
//! files take interval snapshots only where they pay.

use crate::common::{batch, within};

use tickreel::format::{BlockPos, PaletteKind, UseTarget, channel, hand, slot};
use tickreel::play::Reader;
use tickreel::{Engine, EngineOptions, Error, Event, Pose, RecorderOptions};

fn pose(x: i64) -> Pose {
    Pose {
        x: x * 4096,
        y: 64 * 4096,
        z: 0,
        yaw: 0,
        pitch: 0,
    }
}

/// Two players: one mines and builds, both fight and chat.
fn ticks() -> Vec<(u32, Vec<Event>)> {
    let mut out = vec![(
        0,
        vec![
            Event::EntityAdd {
                entity: 1,
                kind: 147,
                pose: pose(0),
            },
            Event::EntityAdd {
                entity: 2,
                kind: 147,
                pose: pose(3),
            },
            Event::Equipment {
                entity: 1,
                slot: slot::MAIN_HAND,
                item: 5,
                count: 1,
            },
        ],
    )];
    for t in 1..60u32 {
        let mut ev = vec![Event::Pose {
            entity: 1,
            pose: pose(i64::from(t % 7)),
        }];
        match t % 6 {
            0 => ev.push(Event::BlockChange {
                pos: BlockPos::new(t as i32, 63, -(t as i32)),
                state: 0,
                cause: Some(1),
                block_entity: None,
            }),
            1 => ev.extend([
                Event::Swing {
                    entity: 2,
                    hand: hand::MAIN,
                },
                Event::Attack {
                    attacker: 2,
                    target: 1,
                },
                Event::Damage {
                    entity: 1,
                    amount: 250,
                    cause: 1,
                    source: Some(2),
                },
                Event::Health {
                    entity: 1,
                    health: 2000 - t * 10,
                },
            ]),
            2 => ev.push(Event::BlockChanges {
                cause: Some(1),
                blocks: (0..16)
                    .map(|i| (BlockPos::new(i, 70, t as i32), 2))
                    .collect(),
            }),
            3 => ev.push(Event::Chat {
                sender: Some(2),
                channel: channel::PUBLIC,
                text: format!("tick {t}"),
            }),
            4 => ev.push(Event::Use {
                entity: 1,
                hand: hand::OFF,
                item: 6,
                target: UseTarget::Block(BlockPos::new(0, 64, 0)),
            }),
            _ => {}
        }
        out.push((t, ev));
    }
    out
}

/// The non-pose events of each tick, as a straight decode gives them back.
fn world_of(ticks: &[(u32, Vec<Event>)]) -> Vec<(u32, Vec<Event>)> {
    ticks
        .iter()
        .map(|(t, ev)| {
            let w: Vec<Event> = ev.iter().filter(|e| e.is_world()).cloned().collect();
            (*t, w)
        })
        .filter(|(_, w)| !w.is_empty())
        .collect()
}

fn read_world(r: &Reader) -> Vec<(u32, Vec<Event>)> {
    let ticks: Vec<_> = r
        .ticks(0, u32::MAX)
        .map(|t| t.map(|t| (t.tick, t.events)))
        .collect::<tickreel::Result<_>>()
        .unwrap();
    world_of(&ticks)
}

#[test]
fn world_events_and_their_names_survive_the_live_recording_and_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("world.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let mut o = RecorderOptions::default();
    o.chunk_policy.chunk_ticks = 10;
    let rec = engine.start_recording(&path, o).unwrap();
    rec.register_name(PaletteKind::Block, 0, "minecraft:air")
        .unwrap();
    rec.register_name(PaletteKind::Block, 2, "minecraft:oak_planks")
        .unwrap();
    rec.register_name(PaletteKind::Item, 5, "minecraft:diamond_pickaxe")
        .unwrap();
    rec.register_name(PaletteKind::DamageCause, 1, "minecraft:player_attack")
        .unwrap();
    // the same name again is fine; another name for a named id is refused
    rec.register_name(PaletteKind::Block, 0, "minecraft:air")
        .unwrap();
    let e = rec
        .register_name(PaletteKind::Block, 0, "minecraft:stone")
        .unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    assert!(
        rec.register_name(PaletteKind::Item, 9, "")
            .is_err_and(|e| matches!(e, Error::InvalidArgument(_)))
    );
    let input = ticks();
    for (t, ev) in &input {
        rec.submit_tick(*t, &batch(ev)).unwrap();
    }
    rec.flush().unwrap();

    // the live recording, read while it is open
    let live = Reader::open_live(tickreel::storage::live::live_dir_for(&path)).unwrap();
    assert_eq!(read_world(&live), world_of(&input));
    let palette = &live.metadata().library.palette;
    assert_eq!(
        palette.name(PaletteKind::Block, 2),
        Some("minecraft:oak_planks")
    );
    assert_eq!(palette.name(PaletteKind::Block, 0), Some("minecraft:air"));
    drop(live);

    let finished = within(move || rec.finish().unwrap().wait().unwrap()).expect("finish");
    let r = Reader::open_path(&finished).unwrap();
    assert_eq!(read_world(&r), world_of(&input));
    assert_eq!(r.header().data_version, 9);
    // every chunk holds world events (a block change or a hit every few ticks): version 4, 9
    // where it has a world section (its block lists compressed on their own), else 8 where it
    // holds a block change (two cursors per cause, the table of changed positions, the stream's
    // ticks as gaps, the block columns)
    let mut sevens = 0;
    for (i, e) in r.index().iter().enumerate() {
        let blocks = r
            .read_chunk(i)
            .unwrap()
            .records
            .iter()
            .flat_map(|t| &t.events)
            .any(|e| matches!(e, Event::BlockChange { .. }));
        sevens += usize::from(blocks);
        let want = if e.flags & tickreel::format::FLAG_WORLD != 0 {
            9
        } else if blocks {
            8
        } else {
            4
        };
        assert_eq!(r.read_payload(i).unwrap().0.data_version, want, "chunk {i}");
    }
    assert!(sevens > 0);
    let p = &r.metadata().library.palette;
    assert_eq!(
        p.name(PaletteKind::Item, 5),
        Some("minecraft:diamond_pickaxe")
    );
    assert_eq!(
        p.name(PaletteKind::DamageCause, 1),
        Some("minecraft:player_attack")
    );
    assert_eq!(p.names(PaletteKind::Block).len(), 2);
    // an entity's own view of a chunk keeps the events that involve it as the other party
    let chunk = r.read_chunk(0).unwrap();
    let hits = chunk
        .records
        .iter()
        .flat_map(|rec| &rec.events)
        .filter(|e| matches!(e, Event::Attack { target: 1, .. }))
        .count();
    assert!(hits > 0);
}

#[test]
fn a_batch_with_a_malformed_world_event_is_refused_and_spares_the_recording() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, RecorderOptions::default())
        .unwrap();
    let good = ticks();
    rec.submit_tick(0, &batch(&good[0].1)).unwrap();
    // a swing with hand 2, encoded by hand: kind, length, entity 1, hand 2
    let bad = [0u8, 1, 0x42, 2, 1, 2];
    // the server thread only copies the bytes; the writer thread refuses the tick
    rec.submit_tick(1, &bad).unwrap();
    rec.submit_tick(2, &batch(&good[2].1)).unwrap();
    rec.flush().unwrap();
    assert_eq!(rec.stats().rejected_ticks, 1);
    let said = rec.status().unwrap_err().to_string();
    assert!(
        said.contains("tick 1") && said.contains("unknown hand 2"),
        "{said}"
    );
    let finished = within(move || rec.finish().unwrap().wait()).expect("finish");
    let r = Reader::open_path(finished.unwrap()).unwrap();
    let ticks: Vec<u32> = r.ticks(0, u32::MAX).map(|t| t.unwrap().tick).collect();
    assert_eq!(ticks, [0, 2]);
}

/// `n` ticks of one player mining a tunnel and building a wall in turn (a block change a tick),
/// with a custom event of `pad` bytes every tick (0: none).
fn miner(n: u32, pad: usize) -> Vec<(u32, Vec<Event>)> {
    (0..n)
        .map(|t| {
            let i = t as i32;
            let mut ev = vec![Event::BlockChange {
                pos: if t % 2 == 0 {
                    BlockPos::new(i / 2, 40, 0)
                } else {
                    BlockPos::new(i / 2, 64 + i % 4, 2)
                },
                state: t % 3,
                cause: Some(1),
                block_entity: None,
            }];
            if pad > 0 {
                ev.push(Event::Custom {
                    type_id: 1,
                    data: (0..pad).map(|k| (k as u32 * 7919 + t) as u8).collect(),
                });
            }
            (t, ev)
        })
        .collect()
}

/// The snapshot chunks' start ticks of a finished file (compacted policy) of `ticks`, after
/// checking the world at every tick against the events replayed straight.
fn finished_snapshots(ticks: &[(u32, Vec<Event>)]) -> Vec<u32> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("finished.reel");
    let mut w =
        tickreel::record::ReelWriter::create(&path, tickreel::record::ReelOptions::compacted())
            .unwrap();
    for (t, ev) in ticks {
        w.write_tick(*t, ev).unwrap();
    }
    w.finish().unwrap();
    let r = Reader::open_path(&path).unwrap();
    let mut world = tickreel::format::WorldState::default();
    for (t, ev) in ticks {
        for e in ev {
            world.apply(e);
        }
        if t % 7 == 0 || *t + 1 == ticks.len() as u32 {
            let at = r.world_at(*t).unwrap();
            assert!(at.complete, "tick {t}");
            assert_eq!(at.world, world, "tick {t}");
        }
    }
    r.index()
        .iter()
        .filter(|e| e.has_snapshot())
        .map(|e| e.start_tick)
        .collect()
}

/// A finished file takes an interval snapshot (whose world section repeats every edited block)
/// only once four compacted chunks of payload came since the last: block changes alone take
/// one at the start only, a dense recording one every `snapshot_interval` (600 ticks) as before.
/// The world at every tick is the events replayed either way.
#[test]
fn finished_files_take_interval_snapshots_only_where_they_pay() {
    assert_eq!(finished_snapshots(&miner(3000, 0)), [0]);
    // 1 KiB of custom events a tick: 600 KiB between interval snapshots
    assert_eq!(
        finished_snapshots(&miner(3000, 1024)),
        [0, 600, 1200, 1800, 2400]
    );
}
