//! Unit tests of the chunk encoder: entity state across removals, re-adds and chunk boundaries.
use super::*;

fn pose(v: i64) -> Pose {
    Pose {
        x: v * 4096,
        y: 64 * 4096 + v,
        z: -v * 100,
        yaw: v * 300,
        pitch: v % 7,
    }
}

/// Entities removed, re-added, implicitly added (by a pose or flags after removal), sampled
/// twice in one tick and teleported, across chunks: every tick's decoded state equals the
/// events applied straight to an `EntityTable`.
#[test]
fn state_survives_removal_readd_and_chunk_boundaries() {
    let mut ticks: Vec<(u32, Vec<Event>)> = Vec::new();
    for t in 0..60u32 {
        let v = i64::from(t);
        let mut e = vec![Event::Pose {
            entity: 1,
            pose: pose(v),
        }];
        // entity 3 lives for a few ticks of each chunk, so that chunks start with dead slots
        if t % 13 == 1 {
            e.push(Event::EntityAdd {
                entity: 3,
                kind: 1,
                pose: pose(v),
            });
        } else if t % 13 == 11 {
            e.push(Event::EntityRemove { entity: 3 });
        }
        match t % 10 {
            0 => e.push(Event::EntityAdd {
                entity: 2,
                kind: 7,
                pose: pose(-v),
            }),
            3 => e.push(Event::EntityRemove { entity: 2 }),
            4 => e.push(Event::Position {
                entity: 2,
                x: v,
                y: 2,
                z: 3,
            }),
            5 => e.push(Event::PlayerLeave { entity: 2 }),
            6 => e.push(Event::Flags {
                entity: 2,
                flags: 9,
            }),
            7 => {
                e.push(Event::Teleport {
                    entity: 1,
                    pose: pose(1000 + v),
                });
                e.push(Event::Rotation {
                    entity: 1,
                    yaw: -v,
                    pitch: 4,
                });
            }
            _ => e.push(Event::Pose {
                entity: 2,
                pose: pose(2 * v),
            }),
        }
        ticks.push((t, e));
    }
    let mut enc = ChunkEncoder::new();
    let mut straight = EntityTable::default();
    let mut comp = zstd::bulk::Compressor::new(1).unwrap();
    let mut dec = zstd::bulk::Decompressor::new().unwrap();
    for part in ticks.chunks(13) {
        enc.begin(part[0].0, None);
        let mut expected = Vec::new();
        for (t, e) in part {
            enc.push_tick(*t, e).unwrap();
            for ev in e {
                straight.apply(ev);
            }
            expected.push((*t, straight.clone()));
        }
        assert_eq!(enc.table(), straight);
        let (h, payload) = enc
            .finish_frame(&mut comp, &mut Vec::new(), &mut Vec::new())
            .unwrap();
        let chunk = crate::format::chunk::decode_frame(
            &h,
            &payload,
            &mut dec,
            &crate::format::Limits::default(),
        )
        .unwrap();
        for (t, table) in expected {
            assert_eq!(chunk.state_at(t), table, "tick {t}");
        }
    }
}
