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

/// A chunk decoded without its movement (what a world rebuild reads) holds the same keyframe,
/// snapshot, world section and events as the whole decode, with no track and the poses of
/// `EntityAdd` / `Teleport` left at their default; and its block changes, coded against the
/// chunk (data version 4), read back as written.
#[test]
fn the_world_part_of_a_chunk_is_the_whole_decode_without_movement() {
    use crate::format::chunk::DecodedChunk;
    use crate::format::world::BlockPos;
    let mut enc = ChunkEncoder::new();
    let mut comp = zstd::bulk::Compressor::new(1).unwrap();
    let lim = crate::format::Limits::default();
    enc.begin(0, None);
    enc.push_tick(
        0,
        &[Event::BlockChange {
            pos: BlockPos::new(-3, 70, 9),
            state: 4,
            cause: None,
            block_entity: None,
        }],
    )
    .unwrap();
    enc.finish_frame(&mut comp, &mut Vec::new(), &mut Vec::new())
        .unwrap();
    enc.begin(10, Some(vec![1, 2, 3]));
    for t in 10..30u32 {
        let v = i64::from(t);
        let mut e = vec![Event::Pose {
            entity: 1,
            pose: pose(v),
        }];
        if t == 12 {
            e.push(Event::EntityAdd {
                entity: 2,
                kind: 5,
                pose: pose(-v),
            });
        }
        if t == 15 {
            e.push(Event::Teleport {
                entity: 1,
                pose: pose(500),
            });
        }
        e.push(Event::BlockChange {
            pos: BlockPos::new(t as i32, 64 + (t % 2) as i32, -7),
            state: t % 3,
            cause: Some(1),
            block_entity: (t == 20).then(|| vec![10, 0]),
        });
        enc.push_tick(t, &e).unwrap();
    }
    let (h, payload) = enc
        .finish_frame(&mut comp, &mut Vec::new(), &mut Vec::new())
        .unwrap();
    assert_eq!(h.data_version, 9, "a world section (data version 9)");
    let mut dec = zstd::bulk::Decompressor::new().unwrap();
    let bytes = crate::format::chunk::decompress_frame(&h, &payload, &mut dec, &lim).unwrap();
    let whole = DecodedChunk::decode_version(&bytes, &h, &lim, None).unwrap();
    let part = DecodedChunk::decode_world_part(&bytes, &h, &lim).unwrap();
    assert!(part.tracks.is_empty() && !whole.tracks.is_empty());
    assert_eq!(part.keyframe, whole.keyframe);
    assert_eq!(part.snapshot, whole.snapshot);
    assert_eq!(part.world, whole.world);
    assert_eq!(
        part.world.as_ref().unwrap().block(BlockPos::new(-3, 70, 9)),
        Some(4)
    );
    let unposed = |c: &DecodedChunk| {
        let mut r = c.records.clone();
        for e in r.iter_mut().flat_map(|r| r.events.iter_mut()) {
            if let Event::EntityAdd { pose, .. } | Event::Teleport { pose, .. } = e {
                *pose = Pose::default();
            }
        }
        r
    };
    assert_eq!(part.records, unposed(&whole));
    let blocks: Vec<_> = whole
        .records
        .iter()
        .flat_map(|r| &r.events)
        .filter(|e| matches!(e, Event::BlockChange { .. }))
        .collect();
    assert_eq!(blocks.len(), 20);
    assert_eq!(
        blocks[10],
        &Event::BlockChange {
            pos: BlockPos::new(20, 64, -7),
            state: 2,
            cause: Some(1),
            block_entity: Some(vec![10, 0]),
        }
    );
}

/// A chunk with block changes (data version 7) writes its stream behind the marker, each record's
/// tick as a gap and its count as a varint, so that a machine's cycles repeat byte for byte; a
/// chunk without one keeps the earlier form; both decode to what was written, and a crafted gap
/// stream with an empty record or a tick past the chunk is refused.
#[test]
fn a_chunk_with_block_changes_writes_its_ticks_as_gaps() {
    use crate::format::block_coding::GAPS_MARKER;
    use crate::format::chunk::DecodedChunk;
    use crate::format::world::BlockPos;
    let lamp = |t: u32| Event::BlockChange {
        pos: BlockPos::new(40, 64, 0),
        state: 7418 + (t / 4) % 2,
        cause: None,
        block_entity: None,
    };
    let lim = crate::format::Limits::default();
    let encode = |blocks: bool| {
        let mut enc = ChunkEncoder::new();
        enc.begin(100, None);
        let mut ticks = Vec::new();
        for t in 100..160u32 {
            let mut e = vec![Event::Flags {
                entity: 1,
                flags: t % 3,
            }];
            if blocks && t % 4 == 0 {
                e.push(lamp(t));
            }
            if t % 2 == 0 {
                enc.push_tick(t, &e).unwrap();
                ticks.push((t - 100, e));
            }
        }
        let mut payload = Vec::new();
        enc.encode_payload(&mut payload);
        (enc.payload_version(), payload, ticks)
    };
    for blocks in [true, false] {
        let (version, payload, ticks) = encode(blocks);
        let c = DecodedChunk::decode(&payload, 0, 100, 60, &lim).unwrap();
        let got: Vec<_> = c
            .records
            .iter()
            .map(|r| {
                let mut ev = r.events.clone();
                // the implicit add of entity 1 before its first flags
                ev.retain(|e| !matches!(e, Event::EntityAdd { .. }));
                (r.rel, ev)
            })
            .collect();
        assert_eq!(got, ticks);
        // keyframe (no entity), stream length, stream
        let mut r = crate::format::bytes::ByteReader::new(&payload[1..]);
        let len = r.uvarint().unwrap() as usize;
        let stream = &payload[1 + r.position()..][..len];
        assert_eq!(stream.starts_with(&GAPS_MARKER), blocks);
        assert_eq!(version, if blocks { 8 } else { 1 });
        if blocks {
            // after the marker, the five block columns (data version 8), then tick 100 (gap 0;
            // 3 events: entity 1's implicit add, its flags, the lamp's kind byte)
            let mut r = crate::format::bytes::ByteReader::new(&stream[3..]);
            for _ in 0..5 {
                let n = r.uvarint().unwrap() as usize;
                r.bytes(n).unwrap();
            }
            let body = &stream[3 + r.position()..];
            assert_eq!(&body[..2], &[0, 3]);
            // from the third cycle on, the lamp's records 8 ticks apart are the same bytes:
            // find two equal runs of 16 bytes 8 ticks apart
            let windows: Vec<&[u8]> = body.windows(16).collect();
            assert!(
                windows
                    .iter()
                    .enumerate()
                    .any(|(i, w)| windows[i + 1..].contains(w)),
                "no repeat in {body:?}"
            );
        }
    }
    // crafted: a record without events, a tick past the chunk
    let crafted = |stream: &[u8]| {
        let mut p = vec![0];
        crate::format::bytes::put_uvarint(&mut p, stream.len() as u64);
        p.extend_from_slice(stream);
        p.push(0); // no tracks
        DecodedChunk::decode(&p, 0, 0, 10, &lim)
    };
    // (the marker, five empty block columns)
    assert!(crafted(&[0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0x07, 1, 0]).is_ok());
    let err = crafted(&[0, 0, 0, 0, 0, 0, 0, 0, 1, 0]).unwrap_err();
    assert!(err.to_string().contains("without events"), "{err}");
    assert!(crafted(&[0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0x07, 1, 0, 8, 1, 0x07, 1, 0]).is_err());
    assert!(crafted(&[0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0x07, 1, 0, 7, 1, 0x07, 1, 0]).is_ok());
}

/// A payload whose movement takes at least `SPLIT_MOVEMENT_BYTES` is compressed as two zstd
/// frames: the first holds every byte before the movement, so that a read without the movement
/// decompresses it alone (the second, damaged here, is not even decompressed then); the whole
/// payload still decompresses to the payload. A small chunk stays one frame.
#[test]
fn a_large_movement_is_a_zstd_frame_of_its_own_and_reads_without_it_skip_it() {
    use crate::format::chunk::{
        DecodedChunk, decompress_frame, decompress_frame_prefix, prefix_end,
    };
    use crate::format::world::BlockPos;
    let lim = crate::format::Limits::default();
    let mut comp = zstd::bulk::Compressor::new(3).unwrap();
    let mut dec = zstd::bulk::Decompressor::new().unwrap();
    let mut rng = fastrand::Rng::with_seed(5);
    let mut chunk = |enc: &mut ChunkEncoder, rng: &mut fastrand::Rng, entities: u32| {
        enc.begin(0, Some(vec![7; 40]));
        for t in 0..100u32 {
            let mut e: Vec<Event> = (1..=entities)
                .map(|id| Event::Pose {
                    entity: id,
                    pose: pose(rng.i64(-100_000..100_000)),
                })
                .collect();
            e.push(Event::BlockChange {
                pos: BlockPos::new(rng.i32(-50..50), 64, t as i32),
                state: rng.u32(1..9),
                cause: None,
                block_entity: None,
            });
            enc.push_tick(t, &e).unwrap();
        }
        let mut scratch = Vec::new();
        let frame = enc
            .finish_frame(&mut comp, &mut scratch, &mut Vec::new())
            .unwrap();
        (frame, scratch)
    };
    let mut enc = ChunkEncoder::new();
    let ((h, compressed), payload) = chunk(&mut enc, &mut rng, 60);
    let at = enc.movement_at;
    assert!(
        payload.len() - at >= SPLIT_MOVEMENT_BYTES,
        "{} {at}",
        payload.len()
    );
    let first = zstd::zstd_safe::find_frame_compressed_size(&compressed).unwrap();
    assert!(first < compressed.len());
    assert_eq!(
        dec.decompress(&compressed[..first], at).unwrap(),
        payload[..at]
    );
    assert_eq!(
        decompress_frame(&h, &compressed, &mut dec, &lim).unwrap(),
        payload
    );
    // The prefix read gives the first frame; its decodes without the movement are the whole
    // payload's.
    let end = |p: &[u8]| prefix_end(p, h.flags, false);
    let prefix = decompress_frame_prefix(&h, &compressed, &mut dec, &lim, end).unwrap();
    assert_eq!(prefix, payload[..at]);
    let (a, b) = (
        DecodedChunk::decode_world_part(&prefix, &h, &lim).unwrap(),
        DecodedChunk::decode_world_part(&payload, &h, &lim).unwrap(),
    );
    assert_eq!(
        (a.keyframe, a.snapshot, a.records),
        (b.keyframe, b.snapshot, b.records)
    );
    // The movement's frame damaged (and the checksum made to match): the whole payload no
    // longer decompresses, the prefix still does.
    let mut damaged = compressed.clone();
    damaged[first] ^= 0xff; // the second frame's magic
    let dh = FrameHeader::for_payload(
        h.flags,
        h.data_version,
        h.start_tick,
        h.tick_count,
        h.uncompressed_len,
        &damaged,
    );
    assert!(decompress_frame(&dh, &damaged, &mut dec, &lim).is_err());
    assert_eq!(
        decompress_frame_prefix(&dh, &damaged, &mut dec, &lim, end).unwrap(),
        payload[..at]
    );
    // A small chunk: one frame, and the prefix read decompresses it whole.
    let ((h, compressed), payload) = chunk(&mut enc, &mut rng, 2);
    assert!(payload.len() - enc.movement_at < SPLIT_MOVEMENT_BYTES);
    let n = zstd::zstd_safe::find_frame_compressed_size(&compressed).unwrap();
    assert_eq!(
        zstd::zstd_safe::get_frame_content_size(&compressed[..n]).unwrap(),
        Some(payload.len() as u64)
    );
    let end = |p: &[u8]| prefix_end(p, h.flags, false);
    assert_eq!(
        decompress_frame_prefix(&h, &compressed, &mut dec, &lim, end).unwrap(),
        payload
    );
}
