//! A finished file's sparse chunks (issue 49): a recording of a few players is cut by ticks, not
//! by bytes, so its chunks span up to `COMPACTED_CHUNK_TICKS` (10 minutes), and each chunk that
//! carries at most `SPARSE_BYTES_PER_TICK` payload bytes per tick is compressed at
//! `SPARSE_ZSTD_LEVEL` whatever the policy's lower level.

use tickreel::Event;
use tickreel::format::Pose;
use tickreel::play::Reader;
use tickreel::record::{
    COMPACTED_BLOCK_CHUNK_BYTES, COMPACTED_CHUNK_BYTES, COMPACTED_CHUNK_TICKS, ChunkPolicy,
    ReelOptions, ReelWriter, SPARSE_BYTES_PER_TICK, SPARSE_ZSTD_LEVEL,
};

/// One player walking and turning, a pose every 2 ticks (as a real client sends them), for
/// `ticks` ticks.
fn one_player(ticks: u32) -> Vec<(u32, Vec<Event>)> {
    let mut out = vec![(
        0,
        vec![Event::EntityAdd {
            entity: 7,
            kind: 1,
            pose: Pose::default(),
        }],
    )];
    for t in (2..ticks).step_by(2) {
        let f = f64::from(t);
        out.push((
            t,
            vec![Event::Pose {
                entity: 7,
                pose: Pose::from_f64(
                    2_900_000.0 + f * 0.21,
                    64.0 + (f * 0.05).sin(),
                    -4_860_000.0 + (f * 0.013).cos() * 40.0,
                    f * 1.7 % 360.0,
                    (f * 0.03).sin() * 20.0,
                ),
            }],
        ));
    }
    out
}

/// Writes `ticks` with `policy`: the file's size, and per chunk its compressed length and its
/// payload recompressed at level 9 and at the sparse level.
fn write(ticks: &[(u32, Vec<Event>)], policy: ChunkPolicy) -> (u64, Vec<[usize; 3]>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.reel");
    let mut w = ReelWriter::create(
        &path,
        ReelOptions {
            chunk_policy: policy,
            ..ReelOptions::compacted()
        },
    )
    .unwrap();
    for (t, e) in ticks {
        w.write_tick(*t, e).unwrap();
    }
    let size = w.finish().unwrap();
    let r = Reader::open_path(&path).unwrap();
    // it reads back whole
    let back: Vec<_> = r
        .ticks(0, ticks.last().unwrap().0)
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    assert_eq!(back.len(), ticks.len());
    let file = std::fs::read(&path).unwrap();
    let chunks = r
        .index()
        .iter()
        .map(|e| {
            let at = e.offset as usize + tickreel::format::FRAME_HEADER_LEN;
            let frame = &file[at..at + e.compressed_len as usize];
            let payload = zstd::decode_all(frame).unwrap();
            // compressed as the writer does: a large movement as a zstd frame of its own
            // (FORMAT.md, section 6), so each of the stored frames' contents on its own
            let mut parts = Vec::new();
            let (mut pos, mut from) = (0, 0);
            while pos < frame.len() {
                let rest = &frame[pos..];
                let n = zstd::zstd_safe::find_frame_compressed_size(rest).unwrap();
                let len = zstd::zstd_safe::get_frame_content_size(rest)
                    .unwrap()
                    .unwrap();
                parts.push(from..from + len as usize);
                (pos, from) = (pos + n, from + len as usize);
            }
            assert_eq!(from, payload.len());
            let at = |level| {
                parts
                    .iter()
                    .map(|p| {
                        zstd::bulk::compress(&payload[p.clone()], level)
                            .unwrap()
                            .len()
                    })
                    .sum::<usize>()
            };
            [frame.len(), at(9), at(SPARSE_ZSTD_LEVEL)]
        })
        .collect();
    (size, chunks)
}

#[test]
fn level_follows_the_chunks_density_in_finished_files_only() {
    let compacted = ChunkPolicy::compacted();
    let sparse = (SPARSE_BYTES_PER_TICK * 100) as usize;
    assert_eq!(compacted.level_for(sparse, 100), SPARSE_ZSTD_LEVEL);
    assert_eq!(compacted.level_for(sparse + 1, 100), compacted.zstd_level);
    // a level above it is kept
    let ultra = ChunkPolicy {
        zstd_level: 22,
        ..compacted
    };
    assert_eq!(ultra.level_for(10, 100), 22);
    // a live recording's chunking keeps its level
    let live = ChunkPolicy::default();
    assert_eq!(live.level_for(10, 100), live.zstd_level);
}

#[test]
fn a_sparse_recording_is_one_chunk_per_ten_minutes_at_the_sparse_level() {
    let ticks = one_player(COMPACTED_CHUNK_TICKS - 10);
    let (_, chunks) = write(&ticks, ChunkPolicy::compacted());
    assert_eq!(
        chunks.len(),
        1,
        "{} ticks in one chunk",
        COMPACTED_CHUNK_TICKS - 10
    );
    let [stored, at_nine, at_sparse] = chunks[0];
    assert_eq!(stored, at_sparse);
    assert!(stored < at_nine, "{stored} against {at_nine} at level 9");
    // without the finished-file chunking (a byte less), the policy's level
    let other = ChunkPolicy {
        chunk_bytes: COMPACTED_CHUNK_BYTES - 1,
        ..ChunkPolicy::compacted()
    };
    for [stored, at_nine, _] in write(&ticks, other).1 {
        assert_eq!(stored, at_nine);
    }
    // a longer one is cut by ticks
    let (_, chunks) = write(
        &one_player(COMPACTED_CHUNK_TICKS + 10),
        ChunkPolicy::compacted(),
    );
    assert_eq!(chunks.len(), 2);
}

/// A server's block changes alone, 40 a tick, from machines, farms and explosions spread over
/// 64 sections (issue 48).
fn server_blocks(ticks: u32) -> Vec<(u32, Vec<Event>)> {
    let mut rng = fastrand::Rng::with_seed(48);
    (0..ticks)
        .map(|t| {
            let events = (0..40)
                .map(|_| Event::BlockChange {
                    pos: tickreel::format::BlockPos::new(
                        rng.i32(0..128),
                        rng.i32(0..64),
                        rng.i32(0..128),
                    ),
                    state: rng.u32(0..40) * 9,
                    cause: None,
                    block_entity: None,
                })
                .collect();
            (t, events)
        })
        .collect()
}

#[test]
fn a_finished_files_chunk_of_block_changes_is_cut_at_256_kib_at_the_sparse_level() {
    let compacted = ChunkPolicy::compacted();
    // made mostly of block changes: at least half its bytes
    assert_eq!(
        compacted.chunk_bytes_for(35_000, 70_000),
        COMPACTED_BLOCK_CHUNK_BYTES
    );
    assert_eq!(
        compacted.chunk_bytes_for(34_999, 70_000),
        COMPACTED_CHUNK_BYTES
    );
    assert_eq!(compacted.chunk_bytes_for(0, 0), COMPACTED_CHUNK_BYTES);
    assert_eq!(
        compacted.level_for_chunk(70_000, 1, 35_000),
        SPARSE_ZSTD_LEVEL
    );
    assert_eq!(
        compacted.level_for_chunk(70_000, 1, 34_999),
        compacted.zstd_level
    );
    // a live recording's chunking keeps its bytes and level
    let live = ChunkPolicy::default();
    assert_eq!(live.chunk_bytes_for(35_000, 70_000), live.chunk_bytes);
    assert_eq!(live.level_for_chunk(70_000, 1, 35_000), live.zstd_level);

    let ticks = server_blocks(3000);
    let (_, chunks) = write(&ticks, compacted);
    let r = chunks.first().unwrap();
    // the first chunk (about 256 KiB of payload, dense: over 128 bytes a tick) is stored at
    // the sparse level
    assert_eq!(r[0], r[2], "{chunks:?}");
    assert!(r[2] < r[1], "{chunks:?}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.reel");
    let mut w = ReelWriter::create(&path, ReelOptions::compacted()).unwrap();
    for (t, e) in &ticks {
        w.write_tick(*t, e).unwrap();
    }
    w.finish().unwrap();
    let index = Reader::open_path(&path).unwrap().index().to_vec();
    let first = index[0].uncompressed_len as usize;
    assert!(
        first > 3 * COMPACTED_CHUNK_BYTES && first <= COMPACTED_BLOCK_CHUNK_BYTES + 4096,
        "{index:?}"
    );
}
