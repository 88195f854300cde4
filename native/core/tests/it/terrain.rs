//! Terrain (chunk sections the game hands over): stored once in the chunk that follows the offer,
//! returned with the world at every later tick (`Reader::world_at`, `Reader::terrain_at`,
//! `Playhead::terrain`), edited blocks overriding it; a reader that does not know terrain reads
//! every chunk as if it had none; compaction and shadow-play reports keep it; crafted terrain is
//! refused with a clear error.

use std::collections::HashSet;
use std::time::Duration;

use crate::common::within;

use tickreel::format::wire::{decode_piece, piece_of};
use tickreel::format::{
    BlockPos, DecodedChunk, FLAG_TERRAIN, Limits, SECTION_BLOCKS, Section, Terrain,
};
use tickreel::play::{Playhead, Reader, Recording};
use tickreel::record::{ChunkPolicy, ReelOptions, ReelWriter};
use tickreel::shadow::{ReportOptions, ShadowOptions};
use tickreel::{Engine, EngineOptions, Error, Event, Pose};

/// A section with a floor of stone (1) below local y 8, air (0) above, and block state `mark`
/// at local (1, 2, 3).
fn ground(cx: i32, cy: i32, cz: i32, mark: u32) -> Section {
    let states: Vec<u32> = (0..SECTION_BLOCKS)
        .map(|i| {
            let (x, y, z) = (i % 16, i / 256, (i / 16) % 16);
            if (x, y, z) == (1, 2, 3) {
                mark
            } else if y < 8 {
                1
            } else {
                0
            }
        })
        .collect();
    Section::from_states(cx, cy, cz, &states).unwrap()
}

fn walker(t: u32, x: f64) -> Vec<Event> {
    let pose = Pose::from_f64(x, 70.0, 8.0, 0.0, 0.0);
    if t == 0 {
        vec![Event::EntityAdd {
            entity: 1,
            kind: 1,
            pose,
        }]
    } else {
        vec![Event::Pose { entity: 1, pose }]
    }
}

/// First offer before tick 0: 3×3 columns of 2 sections; second before tick 150: section
/// (0, 4, 0) replaced, (5, 4, 0) added. A block edited at tick 60 inside the terrain.
fn write(path: &std::path::Path, with_terrain: bool) {
    let mut w = ReelWriter::create(
        path,
        ReelOptions {
            chunk_policy: ChunkPolicy {
                chunk_ticks: 40,
                ..ChunkPolicy::default()
            },
            ..ReelOptions::default()
        },
    )
    .unwrap();
    for t in 0..300u32 {
        if with_terrain && t == 0 {
            let first: Vec<Section> = (-1..=1)
                .flat_map(|x| (-1..=1).flat_map(move |z| [ground(x, 4, z, 7), ground(x, 5, z, 8)]))
                .collect();
            w.offer_terrain(first).unwrap();
        }
        if with_terrain && t == 150 {
            w.offer_terrain(vec![ground(0, 4, 0, 9), Section::single(5, 4, 0, 3)])
                .unwrap();
        }
        let mut ev = walker(t, f64::from(t) * 0.1);
        if t == 60 {
            ev.push(Event::BlockChange {
                pos: BlockPos::new(1, 64, 1),
                state: 42,
                cause: Some(1),
                block_entity: None,
            });
        }
        w.write_tick(t, &ev).unwrap();
    }
    w.finish().unwrap();
}

#[test]
fn terrain_round_trips_and_is_returned_with_the_world_at_each_tick() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.reel");
    write(&path, true);
    let r = Reader::open_path(&path).unwrap();
    // Stored once per offer: the chunk at 0 and the one cut at 150.
    let flagged: Vec<u32> = r
        .index()
        .iter()
        .filter(|e| e.flags & FLAG_TERRAIN != 0)
        .map(|e| e.start_tick)
        .collect();
    assert_eq!(flagged, [0, 150]);
    r.world_at(149).unwrap();
    let early_terrain = r.terrain_at(149).unwrap();
    assert_eq!(early_terrain.len(), 18);
    assert_eq!(early_terrain.section(0, 4, 0), Some(&ground(0, 4, 0, 7)));
    assert_eq!(early_terrain.block(1, 64 + 2, 3), Some(7));
    assert_eq!(early_terrain.block(-5, 64, -5), Some(1));
    assert_eq!(early_terrain.block(-5, 72, -5), Some(0));
    assert_eq!(early_terrain.block(100, 64, 0), None);
    let late = r.world_at(299).unwrap();
    let late_terrain = r.terrain_at(299).unwrap();
    assert_eq!(late_terrain.len(), 19);
    assert_eq!(late_terrain.block(1, 66, 3), Some(9));
    assert_eq!(
        late_terrain.section(5, 4, 0),
        Some(&Section::single(5, 4, 0, 3))
    );
    assert_eq!(late_terrain.section(1, 5, 1), Some(&ground(1, 5, 1, 8)));
    // Edited blocks override the terrain, from the tick of their edit.
    assert_eq!(
        r.world_at(59)
            .unwrap()
            .block(BlockPos::new(1, 64, 1), &r.terrain_at(59).unwrap()),
        Some(1)
    );
    assert_eq!(
        r.world_at(60)
            .unwrap()
            .block(BlockPos::new(1, 64, 1), &r.terrain_at(60).unwrap()),
        Some(42)
    );
    assert_eq!(late.block(BlockPos::new(1, 64, 1), &late_terrain), Some(42));
    assert_eq!(late.block(BlockPos::new(2, 64, 1), &late_terrain), Some(1));
    // A playhead gives the same, through seeks both ways.
    let rec = Recording::open_path(&path).unwrap();
    let mut p = Playhead::new_at(rec, 250).unwrap();
    assert_eq!(*p.terrain().unwrap(), *late_terrain);
    assert_eq!(p.block(BlockPos::new(1, 64, 1)).unwrap(), Some(42));
    assert_eq!(p.block(BlockPos::new(1, 66, 3)).unwrap(), Some(9));
    p.seek(30).unwrap();
    assert_eq!(*p.terrain().unwrap(), *early_terrain);
    assert_eq!(p.block(BlockPos::new(1, 64, 1)).unwrap(), Some(1));
    assert_eq!(p.block(BlockPos::new(1, 66, 3)).unwrap(), Some(7));
}

#[test]
fn a_reader_that_does_not_know_terrain_reads_every_chunk_as_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let with = dir.path().join("with.reel");
    let without = dir.path().join("without.reel");
    write(&with, true);
    write(&without, false);
    let (a, b) = (
        Reader::open_path(&with).unwrap(),
        Reader::open_path(&without).unwrap(),
    );
    // The offers cut a chunk at 150 that the file without terrain does not have; chunk for
    // chunk, what an older build decodes (its decompression of the whole payload, zstd
    // skipping the terrain frame, and its decode ignoring flag bit 3) is what was written.
    let mut seen = 0;
    for i in 0..a.index().len() {
        let (fh, compressed) = a.read_compressed(i).unwrap();
        // Plain zstd, as any build decompresses a payload.
        let plain = zstd::bulk::decompress(&compressed, fh.uncompressed_len as usize).unwrap();
        let old = DecodedChunk::decode(
            &plain,
            fh.flags & !FLAG_TERRAIN,
            fh.start_tick,
            fh.tick_count,
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(a.read_chunk(i).unwrap().records, old.records);
        if fh.flags & FLAG_TERRAIN != 0 {
            seen += 1;
        }
        if let Some(j) = b
            .index()
            .iter()
            .position(|e| e.start_tick == fh.start_tick && e.tick_count == fh.tick_count)
        {
            // Terrain needs no new data version.
            assert_eq!(b.read_payload(j).unwrap().0.data_version, fh.data_version);
            let mut other = b.read_chunk(j).unwrap();
            other.flags = old.flags;
            assert_eq!(other, old, "chunk {i}");
        }
    }
    assert_eq!(seen, 2);
    // Its world and seeks are the same.
    for t in [0, 60, 149, 150, 299] {
        let (x, y) = (a.world_at(t).unwrap(), b.world_at(t).unwrap());
        assert_eq!(x.world, y.world);
        assert!(b.terrain_at(t).unwrap().is_empty());
        assert_eq!(a.seek(t).unwrap().entities, b.seek(t).unwrap().entities);
    }
    a.verify().unwrap();
}

#[test]
fn crafted_terrain_is_refused_with_a_clear_error() {
    let mut rec = ReelWriter::create(
        tempfile::tempdir().unwrap().path().join("x.reel"),
        ReelOptions::default(),
    )
    .unwrap();
    let mut bad = ground(0, 0, 0, 5);
    bad.packed[3] = u64::MAX; // indices 15 in a palette of 3
    let e = rec.offer_terrain(vec![bad]).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    assert!(
        e.to_string().contains("indexes entry 15 of a palette of 3"),
        "{e}"
    );
    let mut short = ground(0, 0, 0, 5);
    short.packed.truncate(10);
    let e = rec.offer_terrain(vec![short]).unwrap_err();
    assert!(e.to_string().contains("10 longs"), "{e}");
    let e = rec
        .offer_terrain(vec![
            Section::single(0, 0, 0, 1),
            Section::single(0, 0, 0, 2),
        ])
        .unwrap_err();
    assert!(e.to_string().contains("twice"), "{e}");
    let many: Vec<Section> = (0..=Limits::default().max_terrain_sections() as i32)
        .map(|y| Section::single(0, y, 0, 1))
        .collect();
    assert!(matches!(
        rec.offer_terrain(many),
        Err(Error::LimitExceeded(_))
    ));
    // Nothing of it was kept: the file has no terrain.
    rec.write_tick(0, &walker(0, 0.0)).unwrap();
}

#[test]
fn a_damaged_terrain_frame_fails_its_chunk_checksum_and_names_the_chunk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.reel");
    write(&path, true);
    let r = Reader::open_path(&path).unwrap();
    let (fh, compressed) = r.read_compressed(0).unwrap();
    // The piece is the payload's front, whole and decodable.
    let t = decode_piece(piece_of(&compressed).unwrap(), &Limits::default()).unwrap();
    assert_eq!(t.len(), 18);
    // Flip a byte inside the piece on disk: the chunk's checksum refuses it.
    let mut bytes = std::fs::read(&path).unwrap();
    let at = r.index()[0].offset as usize + 36 + 20;
    bytes[at] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    let r = Reader::open_path(&path).unwrap();
    let e = r.terrain_at(10).unwrap_err();
    assert!(matches!(e, Error::Corrupt(_)), "{e}");
    assert!(e.to_string().contains("tick 0"), "{e}");
    assert!(fh.flags & FLAG_TERRAIN != 0);
}

#[test]
fn a_live_recording_and_its_compacted_file_keep_the_terrain() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let mut o = crate::common::flushed_when_asked();
    o.chunk_policy.chunk_ticks = 20;
    let rec = engine.start_recording(&path, o).unwrap();
    let terrain: Vec<Section> = (0..4).map(|y| ground(0, y, 0, 5 + y as u32)).collect();
    rec.offer_terrain(terrain.clone()).unwrap();
    for t in 0..100 {
        if t == 50 {
            rec.offer_terrain(vec![Section::single(0, 1, 0, 77)])
                .unwrap();
        }
        rec.submit_tick(t, &crate::common::batch(&walker(t, 0.5)))
            .unwrap();
    }
    rec.flush().unwrap();
    // Acknowledged by the flush: readable from the live directory.
    let live = tickreel::play::LiveFollower::open(&path, Default::default()).unwrap();
    assert_eq!(
        *live.recording().view().reader().terrain_at(40).unwrap(),
        Terrain::from_sections(terrain.clone())
    );
    drop(live);
    within(move || rec.finish().unwrap().wait().unwrap()).expect("finish");
    let r = Reader::open_path(&path).unwrap();
    assert_eq!(
        *r.terrain_at(49).unwrap(),
        Terrain::from_sections(terrain.clone())
    );
    let late = r.terrain_at(99).unwrap();
    assert_eq!(late.section(0, 1, 0), Some(&Section::single(0, 1, 0, 77)));
    assert_eq!(late.block(1, 2 * 16 + 2, 3), Some(7));
    r.verify().unwrap();

    // Compaction that re-encodes every chunk (another level and chunk length) keeps it too.
    let out = dir.path().join("re.reel");
    tickreel::record::compact(
        &r,
        &out,
        tickreel::record::CompactOptions {
            chunk_ticks: 7,
            ..Default::default()
        },
        &mut |_, _| {},
    )
    .unwrap();
    let c = Reader::open_path(&out).unwrap();
    assert_eq!(c.terrain_at(49).unwrap(), r.terrain_at(49).unwrap());
    assert_eq!(c.terrain_at(99).unwrap(), late);
}

#[test]
fn a_report_keeps_the_terrain_around_its_player() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let (rec, shadow) = tickreel::shadow::ShadowBuffer::start(
        &engine,
        None,
        tickreel::RecorderOptions::default(),
        ShadowOptions {
            window: Duration::from_secs(10),
            block_ticks: 20,
            ..ShadowOptions::default()
        },
    )
    .unwrap();
    // Terrain of 20 columns along x, offered once at the start; the player walks from x 0 to
    // x 40 (columns 0 to 2) during the last 200 ticks of 600.
    let columns: Vec<Section> = (-5..15)
        .map(|x| Section::single(x, 4, 0, (x + 6) as u32))
        .collect();
    rec.offer_terrain(columns).unwrap();
    for t in 0..600u32 {
        let x = if t < 400 {
            0.0
        } else {
            f64::from(t - 400) * 0.2
        };
        rec.submit_tick(t, &crate::common::batch(&walker(t, x)))
            .unwrap();
    }
    rec.flush().unwrap();
    let out = dir.path().join("report.reel");
    shadow
        .report(
            1,
            &out,
            ReportOptions {
                after: Duration::ZERO,
                radius: Some(20.0),
                ..ReportOptions::default()
            },
        )
        .unwrap()
        .wait()
        .unwrap();
    let r = Reader::open_path(&out).unwrap();
    assert!(
        r.first_tick().unwrap() >= 390,
        "the frame with the terrain left the window"
    );
    let t = r.terrain_at(r.first_tick().unwrap()).unwrap();
    let xs: HashSet<i32> = t.sections().map(|s| s.cx).collect();
    // Columns 0..=2 stood in, plus those within 20 blocks (two columns) either side.
    assert_eq!(xs, (-2..=4).collect::<HashSet<_>>());
    assert_eq!(t.block(2 * 16, 64, 3), Some(2 + 6));
    // Without a radius, all of it.
    let all = dir.path().join("all.reel");
    shadow
        .report(
            1,
            &all,
            ReportOptions {
                after: Duration::ZERO,
                radius: None,
                ..ReportOptions::default()
            },
        )
        .unwrap()
        .wait()
        .unwrap();
    let r = Reader::open_path(&all).unwrap();
    assert_eq!(r.terrain_at(u32::MAX).unwrap().len(), 20);
}

/// A recording stopped without finishing and resumed by a restarted server knows the terrain
/// offered before the restart: it counts those positions against `Limits::max_terrain_sections`
/// (offering them again adds nothing; new positions past the limit are refused, so that every
/// reader can still read the file), and a shadow buffer watching the resumed recording puts
/// that terrain into its reports.
#[test]
fn a_resumed_recording_knows_the_terrain_offered_before_its_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.reel");
    let limit = Limits::default().max_terrain_sections() as i32;
    // Two thirds of the limit before the restart (columns 0.. at y 0); after it, all but column 0
    // again (other states), then positions at y 1 that take the total one past the limit.
    let n = limit * 2 / 3;
    let before: Vec<Section> = (0..n).map(|i| Section::single(i, 0, 0, 5)).collect();
    let again: Vec<Section> = (1..n).map(|i| Section::single(i, 0, 0, 6)).collect();
    let new: Vec<Section> = (0..=limit - n)
        .map(|i| Section::single(i, 1, 0, 7))
        .collect();
    let mut o = crate::common::flushed_when_asked();
    o.chunk_policy.chunk_ticks = 20;

    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine.start_recording(&path, o.clone()).unwrap();
    rec.offer_terrain(before.clone()).unwrap();
    for t in 0..50 {
        rec.submit_tick(t, &crate::common::batch(&walker(t, 0.5)))
            .unwrap();
    }
    rec.flush().unwrap();
    rec.status().unwrap();
    drop(rec); // stopped without finishing: resumable
    engine.shutdown();

    let engine = Engine::new(EngineOptions::default()).unwrap();
    let (rec, shadow) = tickreel::shadow::ShadowBuffer::start(
        &engine,
        Some(&path),
        o,
        ShadowOptions {
            window: Duration::from_secs(10),
            ..ShadowOptions::default()
        },
    )
    .unwrap();
    assert_eq!(rec.wait_resumed(Duration::from_secs(30)).unwrap(), Some(49));
    // Positions offered before: nothing new, accepted.
    rec.offer_terrain(again.clone()).unwrap();
    for t in 50..100 {
        rec.submit_tick(t, &crate::common::batch(&walker(t, 0.5)))
            .unwrap();
    }
    rec.flush().unwrap();
    rec.status().unwrap();
    // New positions that would take the recording's terrain past the limit: refused by the
    // writer (the recording's error), nothing of them stored.
    rec.offer_terrain(new).unwrap();
    for t in 100..120 {
        rec.submit_tick(t, &crate::common::batch(&walker(t, 0.5)))
            .unwrap();
    }
    rec.flush().unwrap();
    let e = rec.status().unwrap_err();
    assert!(e.to_string().contains("terrain refused"), "{e}");
    assert!(e.to_string().contains("limit"), "{e}");

    // The live recording reads: before the second offer the first terrain, after it the second.
    let r = Reader::open_live(tickreel::storage::live::live_dir_for(&path)).unwrap();
    assert_eq!(
        *r.terrain_at(49).unwrap(),
        Terrain::from_sections(before.clone())
    );
    assert_eq!(
        *r.terrain_at(119).unwrap(),
        Terrain::from_sections(before.into_iter().chain(again))
    );

    // A report of the resumed stream carries the terrain offered before the restart, of which
    // its ring holds no frame (the player stands at x 0.5: columns -1 to 1 within the radius).
    let out = dir.path().join("report.reel");
    shadow
        .report(
            1,
            &out,
            ReportOptions {
                after: Duration::ZERO,
                radius: Some(8.0),
                ..ReportOptions::default()
            },
        )
        .unwrap()
        .wait()
        .unwrap();
    let r = Reader::open_path(&out).unwrap();
    let t = r.terrain_at(u32::MAX).unwrap();
    assert_eq!(t.section(0, 0, 0), Some(&Section::single(0, 0, 0, 5)));
    assert_eq!(t.section(1, 0, 0), Some(&Section::single(1, 0, 0, 6)));
    assert!(t.section(limit / 2, 0, 0).is_none(), "outside the radius");
}

/// `file` with the content of chunk 0's terrain piece replaced by `content` of the same length,
/// the frame's payload and header checksums (big-endian, as every field but the skippable
/// frames') made right again: a file whose only fault is its
/// terrain piece.
fn with_piece_content(file: &[u8], offset: usize, content: &[u8]) -> Vec<u8> {
    use xxhash_rust::xxh64::xxh64;
    let mut b = file.to_vec();
    let clen = u32::from_be_bytes(b[offset + 16..offset + 20].try_into().unwrap()) as usize;
    let payload = offset + 36;
    assert_eq!(&b[payload..payload + 4], &[0x5E, 0x2A, 0x4D, 0x18]);
    let n = u32::from_le_bytes(b[payload + 4..payload + 8].try_into().unwrap()) as usize;
    assert_eq!(content.len(), n, "content must keep the piece's length");
    b[payload + 8..payload + 8 + n].copy_from_slice(content);
    let sum = xxh64(&b[payload..payload + clen], 0);
    b[offset + 24..offset + 32].copy_from_slice(&sum.to_be_bytes());
    let head = xxh64(&b[offset..offset + 32], 0) as u32;
    b[offset + 32..offset + 36].copy_from_slice(&head.to_be_bytes());
    b
}

/// A piece's content of `n` bytes holding `body`: "TKTR", its length, its zstd frame, padded
/// with a skippable frame to `n`.
fn piece_content(body: &[u8], n: usize) -> Vec<u8> {
    let mut c = b"TKTR".to_vec();
    tickreel::format::wire::put_uvarint(&mut c, body.len() as u64);
    c.extend(zstd::bulk::compress(body, 19).unwrap());
    let pad = n.checked_sub(c.len() + 8).expect("room for the padding");
    c.extend_from_slice(&[0x50, 0x2A, 0x4D, 0x18]);
    c.extend_from_slice(&(pad as u32).to_le_bytes());
    c.resize(n, 0);
    c
}

/// A body of one section at (0, 0, 0) with `bits`, `palette` and one byte per index.
fn one_section_body(bits: u8, palette: &[u32], indices: &[u8]) -> Vec<u8> {
    use tickreel::format::wire::put_uvarint;
    let mut b = Vec::new();
    put_uvarint(&mut b, 1);
    b.extend_from_slice(&[0, 0, 0, bits]);
    put_uvarint(&mut b, palette.len() as u64);
    for &s in palette {
        put_uvarint(&mut b, u64::from(s));
    }
    b.extend_from_slice(indices);
    b
}

#[test]
fn verify_decodes_every_terrain_piece_and_refuses_what_readers_refuse() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.reel");
    write(&path, true);
    // A well-formed terrain file verifies.
    let r = Reader::open_path(&path).unwrap();
    r.verify().unwrap();
    let offset = r.index()[0].offset as usize;
    let (_, compressed) = r.read_compressed(0).unwrap();
    let n = u32::from_le_bytes(compressed[4..8].try_into().unwrap()) as usize;
    let original = piece_of(&compressed).unwrap().to_vec();
    assert_eq!(original.len(), n);
    let file = std::fs::read(&path).unwrap();
    // The same content written back: the file still verifies (the forging is sound).
    let same = dir.path().join("same.reel");
    std::fs::write(&same, with_piece_content(&file, offset, &original)).unwrap();
    Reader::open_path(&same).unwrap().verify().unwrap();

    let good_indices: Vec<u8> = (0..SECTION_BLOCKS).map(|i| (i % 2) as u8).collect();
    let mut bad_index = good_indices.clone();
    bad_index[100] = 2;
    let mut magic = original.clone();
    magic[3] = b'X';
    let mut body_flip = original.clone();
    // the zstd frame's magic
    let z = original
        .windows(4)
        .position(|w| w == [0x28, 0xB5, 0x2F, 0xFD])
        .unwrap();
    body_flip[z] ^= 0x55;
    let mut leftover = one_section_body(4, &[1, 2], &good_indices);
    leftover.push(0);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("wrong magic", magic),
        ("a damaged body", body_flip),
        (
            "an index past the palette",
            piece_content(&one_section_body(4, &[1, 2], &bad_index), n),
        ),
        (
            "bits below the palette's",
            piece_content(&one_section_body(0, &[1, 2], &good_indices), n),
        ),
        (
            "bits over 16",
            piece_content(&one_section_body(17, &[1, 2], &good_indices), n),
        ),
        (
            "an empty palette",
            piece_content(&one_section_body(4, &[], &[]), n),
        ),
        (
            "bits for a palette of one",
            piece_content(&one_section_body(4, &[1], &[]), n),
        ),
        ("bytes left over", piece_content(&leftover, n)),
        ("a body shorter than it says", {
            let mut c = piece_content(&one_section_body(4, &[1, 2], &good_indices), n);
            c[4] += 1; // U (4,104, two varint bytes) one more than the body
            c
        }),
    ];
    for (i, (what, content)) in cases.into_iter().enumerate() {
        let bad = dir.path().join(format!("bad{i}.reel"));
        std::fs::write(&bad, with_piece_content(&file, offset, &content)).unwrap();
        let r = Reader::open_path(&bad).unwrap();
        // What readers refuse ...
        let read = r
            .terrain_at(10)
            .err()
            .unwrap_or_else(|| panic!("{what}: read"));
        // ... verify refuses, naming the chunk, while the chunk's events still decode.
        r.read_chunk(0).unwrap();
        let e = r
            .verify()
            .err()
            .unwrap_or_else(|| panic!("{what}: verified"));
        assert!(
            matches!(
                e,
                Error::Corrupt(_) | Error::Truncated(_) | Error::LimitExceeded(_)
            ),
            "{what}: {e}"
        );
        assert!(e.to_string().contains("chunk 0, tick 0"), "{what}: {e}");
        assert_eq!(e.to_string(), read.to_string(), "{what}");
        // compaction refuses it too
        let out = dir.path().join(format!("bad{i}.compact.reel"));
        let compacted = tickreel::record::compact(
            &r,
            &out,
            tickreel::record::CompactOptions::default(),
            &mut |_, _| {},
        );
        // compaction refuses it too, with the reader's own error (naming the chunk)
        let compacted = compacted
            .err()
            .unwrap_or_else(|| panic!("{what}: compacted"));
        assert_eq!(compacted.to_string(), read.to_string(), "{what}");
    }
}

#[test]
fn verify_refuses_a_merged_terrain_over_the_readers_limit() {
    // Two offers of 10 single-state sections at different positions: 20 in effect from tick 50.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.reel");
    let mut w = ReelWriter::create(
        &path,
        ReelOptions {
            chunk_policy: ChunkPolicy {
                chunk_ticks: 40,
                ..ChunkPolicy::default()
            },
            ..ReelOptions::default()
        },
    )
    .unwrap();
    for t in 0..100u32 {
        if t == 0 || t == 50 {
            let y = if t == 0 { 0 } else { 10 };
            w.offer_terrain((y..y + 10).map(|cy| Section::single(0, cy, 0, 1)).collect())
                .unwrap();
        }
        w.write_tick(t, &walker(t, f64::from(t) * 0.1)).unwrap();
    }
    w.finish().unwrap();
    Reader::open_path(&path).unwrap().verify().unwrap();
    // A reader whose limits allow 16 sections in effect: it refuses the terrain from tick 50, and
    // verify refuses the file, naming the chunk.
    let limits = Limits {
        max_chunk_bytes: 16 * 4096,
        ..Limits::default()
    };
    assert_eq!(limits.max_terrain_sections(), 16);
    let r = Reader::open_with(
        std::sync::Arc::new(tickreel::storage::FileSource::open(&path).unwrap()),
        tickreel::play::ReaderOptions { limits },
    )
    .unwrap();
    r.terrain_at(10).unwrap();
    assert!(matches!(r.terrain_at(60), Err(Error::LimitExceeded(_))));
    let e = r.verify().err().unwrap_or_else(|| panic!("verified"));
    assert!(matches!(e, Error::LimitExceeded(_)), "{e}");
    assert!(e.to_string().contains("(tick 50)"), "{e}");
    assert!(e.to_string().contains("20 sections; limit 16"), "{e}");
}

/// 120 ticks of the walker in 40-tick chunks, the chunks starting at the ticks of `pieces`
/// carrying their terrain, encoded at zstd `level` (the writer uses 19): a reader of them.
fn forged_terrain(pieces: &[(u32, Terrain)], level: i32) -> Reader {
    use crate::common::world_shapes::{frames, metadata, reader_of};
    use tickreel::format::FrameHeader;
    let plain = frames(
        ChunkPolicy {
            chunk_ticks: 40,
            ..ChunkPolicy::default()
        },
        0..120,
        |t, _| walker(t, f64::from(t) * 0.1),
    );
    let forged: Vec<_> = plain
        .into_iter()
        .map(|f| {
            let Some((_, t)) = pieces.iter().find(|p| p.0 == f.header.start_tick) else {
                return f;
            };
            let mut payload =
                tickreel::format::wire::encode_piece(t, level, &Limits::default()).unwrap();
            payload.extend_from_slice(&f.payload);
            let h = f.header;
            tickreel::record::Frame {
                header: FrameHeader::for_payload(
                    h.flags | FLAG_TERRAIN,
                    h.data_version,
                    h.start_tick,
                    h.tick_count,
                    h.uncompressed_len,
                    &payload,
                ),
                payload,
            }
        })
        .collect();
    reader_of(&forged, metadata(false))
}

/// The terrain pieces of `r`'s chunks, by start tick, as stored.
fn pieces_of(r: &Reader) -> Vec<(u32, Vec<u8>)> {
    (0..r.index().len())
        .filter(|&i| r.index()[i].flags & FLAG_TERRAIN != 0)
        .map(|i| {
            let (fh, c) = r.read_compressed(i).unwrap();
            (fh.start_tick, piece_of(&c).unwrap().to_vec())
        })
        .collect()
}

#[test]
fn compaction_carries_terrain_pieces_as_they_are() {
    // Pieces compressed at level 3: compressed again (at the writer's 19) they would differ.
    let first: Vec<Section> = (-1..=1)
        .flat_map(|x| (-1..=1).flat_map(move |z| [ground(x, 4, z, 7), ground(x, 5, z, 8)]))
        .collect();
    let source = forged_terrain(
        &[
            (0, Terrain::from_sections(first)),
            (
                80,
                Terrain::from_sections([ground(0, 4, 0, 9), Section::single(5, 4, 0, 3)]),
            ),
        ],
        3,
    );
    source.verify().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.reel");
    tickreel::record::compact(
        &source,
        &out,
        tickreel::record::CompactOptions::default(),
        &mut |_, _| {},
    )
    .unwrap();
    let back = Reader::open_path(&out).unwrap();
    let pieces = pieces_of(&back);
    assert_eq!(pieces.iter().map(|p| p.0).collect::<Vec<_>>(), [0, 80]);
    assert_eq!(
        pieces,
        pieces_of(&source),
        "the pieces' bytes are the source's"
    );
    for t in [0, 79, 80, 119] {
        assert_eq!(back.terrain_at(t).unwrap(), source.terrain_at(t).unwrap());
    }
}

#[test]
fn compaction_accepts_the_terrain_readers_accept() {
    // 600 sections of a 4,096-entry palette of one-byte ids: a body of 7.4 MB, within the
    // readers' 16 MiB; counted at 5 bytes a palette entry it was 17.2 MB, and refused.
    let sections: Vec<Section> = (0..600)
        .map(|i| {
            let mut s = Section::single(i % 30, i / 30, 0, 0);
            s.palette = (0..4096).map(|p| p % 100).collect();
            s.bits = 12;
            s.packed = vec![0; tickreel::format::longs_for(12)];
            s
        })
        .collect();
    let terrain = Terrain::from_sections(sections);
    assert!(tickreel::format::wire::encode_body(&terrain).len() < 16 << 20);
    let source = forged_terrain(&[(40, terrain)], 1);
    source.verify().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.reel");
    tickreel::record::compact(
        &source,
        &out,
        tickreel::record::CompactOptions::default(),
        &mut |_, _| {},
    )
    .unwrap();
    let back = Reader::open_path(&out).unwrap();
    assert_eq!(
        back.terrain_at(100).unwrap(),
        source.terrain_at(100).unwrap()
    );
    assert_eq!(back.terrain_at(100).unwrap().len(), 600);
}

/// A terrain piece that is malformed (its frame's checksums right: the fault is inside the
/// piece) fails what answers terrain, naming its chunk, and nothing else: the world at every tick
/// (no terrain read for it), the events and the seeks are those of the sound file.
#[test]
fn a_malformed_terrain_piece_fails_only_what_answers_terrain() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.reel");
    write(&path, true);
    let good = Reader::open_path(&path).unwrap();
    let offset = good.index()[0].offset as usize;
    let (_, compressed) = good.read_compressed(0).unwrap();
    let n = u32::from_le_bytes(compressed[4..8].try_into().unwrap()) as usize;
    let mut indices: Vec<u8> = (0..SECTION_BLOCKS).map(|i| (i % 2) as u8).collect();
    indices[100] = 2; // past a palette of two
    let bad = dir.path().join("bad.reel");
    std::fs::write(
        &bad,
        with_piece_content(
            &std::fs::read(&path).unwrap(),
            offset,
            &piece_content(&one_section_body(4, &[1, 2], &indices), n),
        ),
    )
    .unwrap();
    let r = Reader::open_path(&bad).unwrap();
    for t in [0, 59, 60, 149, 150, 299] {
        let (w, g) = (r.world_at(t).unwrap(), good.world_at(t).unwrap());
        assert_eq!(w, g, "tick {t}");
        assert_eq!(r.seek(t).unwrap(), good.seek(t).unwrap(), "tick {t}");
    }
    let events = |r: &Reader| -> Vec<_> { r.events(0, 299).map(Result::unwrap).collect() };
    assert_eq!(events(&r), events(&good));
    for t in [0, 149, 299] {
        let e = r.terrain_at(t).unwrap_err();
        assert!(matches!(e, Error::Corrupt(_)), "{e}");
        assert!(e.to_string().contains("(chunk 0, tick 0)"), "{e}");
        let a = r.terrain_area_at(t, 4).unwrap_err();
        assert_eq!(a.to_string(), e.to_string());
    }
}

/// The first sections of the terrain at a tick, built without the rest of it, are those of the
/// whole terrain, over offers that add positions before and after the area's and replace
/// sections inside and outside it; and the count is the whole terrain's.
#[test]
fn the_area_of_a_terrain_is_the_whole_terrains_first_sections() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.reel");
    let mut w = ReelWriter::create(
        &path,
        ReelOptions {
            chunk_policy: ChunkPolicy {
                chunk_ticks: 10,
                ..ChunkPolicy::default()
            },
            ..ReelOptions::default()
        },
    )
    .unwrap();
    let mut rng = fastrand::Rng::with_seed(47);
    for t in 0..100u32 {
        if t % 10 == 0 {
            let mut at = HashSet::new();
            let offer: Vec<Section> = (0..rng.usize(1..30))
                .filter_map(|_| {
                    let p = (rng.i32(-4..4), rng.i32(-2..3), rng.i32(-4..4));
                    at.insert(p)
                        .then(|| Section::single(p.0, p.1, p.2, t * 100 + rng.u32(1..50)))
                })
                .collect();
            w.offer_terrain(offer).unwrap();
        }
        w.write_tick(t, &walker(t, f64::from(t) * 0.1)).unwrap();
    }
    w.finish().unwrap();
    for tick in [0, 35, 99] {
        let whole = Reader::open_path(&path).unwrap().terrain_at(tick).unwrap();
        assert!(tick < 99 || whole.len() > 40, "{} sections", whole.len());
        for n in [0, 1, 2, 5, 13, 40, whole.len(), 1000] {
            // a reader of its own each time: nothing kept from another call
            let r = Reader::open_path(&path).unwrap();
            let area = r.terrain_area_at(tick, n).unwrap();
            assert_eq!(area.total, whole.len(), "tick {tick}, {n}");
            assert_eq!(area.terrain, whole.first_sections(n), "tick {tick}, {n}");
            assert_eq!(r.cache_bytes(), 0, "the area is not kept");
        }
        // from the whole terrain kept, the same
        let r = Reader::open_path(&path).unwrap();
        r.terrain_at(tick).unwrap();
        let area = r.terrain_area_at(tick, 7).unwrap();
        assert_eq!(area.terrain, whole.first_sections(7));
    }
}

/// A source that counts what is read of it: the offsets of the reads since [`Counting::reset`].
#[derive(Debug)]
struct Counting {
    inner: tickreel::storage::MemSource,
    reads: std::sync::Mutex<Vec<u64>>,
}

impl Counting {
    fn reset(&self) -> Vec<u64> {
        std::mem::take(&mut self.reads.lock().unwrap())
    }
}

impl tickreel::storage::Source for Counting {
    fn len(&self) -> tickreel::Result<u64> {
        self.inner.len()
    }
    fn read_up_to(&self, offset: u64, len: usize) -> tickreel::Result<Vec<u8>> {
        self.reads.lock().unwrap().push(offset);
        self.inner.read_up_to(offset, len)
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
}

/// `n` terrain offers, one every other tick in one-tick chunks (so `2n` chunks, a piece every
/// other one), each a section of one state at one of 100 positions (later offers replacing
/// earlier ones); written with full pieces unless `old` (as writers before them wrote). The
/// file's bytes, and the terrain every offer merged makes.
fn many_pieces(n: u32, old: bool) -> (Vec<u8>, Terrain) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.reel");
    let mut w = ReelWriter::create(
        &path,
        ReelOptions {
            chunk_policy: ChunkPolicy {
                chunk_ticks: 1,
                ..ChunkPolicy::default()
            },
            ..ReelOptions::default()
        },
    )
    .unwrap();
    if old {
        w.forge_no_full_terrain();
    }
    let mut expected = Terrain::default();
    for t in 0..2 * n {
        if t % 2 == 0 {
            let k = t / 2;
            let s = Section::single((k % 100) as i32, 4, 0, k + 1);
            expected
                .merge(Terrain::from_sections([s.clone()]), usize::MAX)
                .unwrap();
            w.offer_terrain(vec![s]).unwrap();
        }
        w.write_tick(t, &walker(t, f64::from(t) * 0.01)).unwrap();
    }
    w.finish().unwrap();
    (std::fs::read(&path).unwrap(), expected)
}

/// A reader of `bytes` through a [`Counting`] source, its opening's reads forgotten.
fn counted(bytes: Vec<u8>) -> (Reader, std::sync::Arc<Counting>) {
    let src = std::sync::Arc::new(Counting {
        inner: tickreel::storage::MemSource::new(bytes),
        reads: Default::default(),
    });
    let r = Reader::open(src.clone()).unwrap();
    src.reset();
    (r, src)
}

/// The chunks whose frames start at `offsets`.
fn chunks_read(r: &Reader, offsets: &[u64]) -> Vec<usize> {
    let mut v: Vec<usize> = offsets
        .iter()
        .filter_map(|o| r.index().iter().position(|e| e.offset == *o))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
fn terrain_at_the_end_of_many_pieces_reads_at_most_256_chunks_back() {
    use tickreel::format::{FLAG_TERRAIN_FULL, MAX_CHUNKS_PER_SNAPSHOT};
    let (bytes, expected) = many_pieces(400, false);
    let (old_bytes, _) = many_pieces(400, true);
    {
        // what full pieces cost and save (printed with --nocapture)
        let (old, _) = counted(old_bytes.clone());
        let t = std::time::Instant::now();
        old.terrain_at(old.last_tick().unwrap()).unwrap();
        let old_time = t.elapsed();
        let (new, _) = counted(bytes.clone());
        let t = std::time::Instant::now();
        new.terrain_at(new.last_tick().unwrap()).unwrap();
        eprintln!(
            "400 terrain pieces in 800 chunks: {} bytes with full pieces, {} without; the terrain \
             at the end in {:?} with, {old_time:?} without",
            bytes.len(),
            old_bytes.len(),
            t.elapsed()
        );
    }
    let (r, src) = counted(bytes);
    r.verify().unwrap();
    src.reset();
    let index = r.index();
    assert_eq!(index.len(), 800);
    let terrain: Vec<usize> = (0..index.len())
        .filter(|&i| index[i].flags & FLAG_TERRAIN != 0)
        .collect();
    assert_eq!(terrain.len(), 400);
    let full: Vec<usize> = terrain
        .iter()
        .copied()
        .filter(|&i| index[i].flags & FLAG_TERRAIN_FULL != 0)
        .collect();
    // the first piece holds all the terrain so far; then one every 256 chunks
    assert_eq!(full, [0, 256, 512, 768]);
    let last = *terrain.last().unwrap();
    let got = r.terrain_at(r.last_tick().unwrap()).unwrap();
    let read = chunks_read(&r, &src.reset());
    assert!(!read.is_empty());
    assert!(
        read.len() <= MAX_CHUNKS_PER_SNAPSHOT && read[0] + MAX_CHUNKS_PER_SNAPSHOT > last,
        "read chunks {:?}..={:?} ({} of them) for the terrain at chunk {last}",
        read.first(),
        read.last(),
        read.len()
    );
    assert_eq!(read, (768..=last).step_by(2).collect::<Vec<_>>());
    assert_eq!(*got, expected, "the terrain is every piece merged");
    // at a tick just before a full piece: the pieces from the one before it
    let before = r.terrain_at(index[766].start_tick).unwrap();
    let read = chunks_read(&r, &src.reset());
    assert_eq!(read.first(), Some(&512));
    assert!(read.len() <= MAX_CHUNKS_PER_SNAPSHOT);
    assert_eq!(before.len(), 100);
    // the area (nothing kept to start from) reads the same pieces as the whole terrain
    r.trim_caches(0);
    let area = r.terrain_area_at(r.last_tick().unwrap(), 10).unwrap();
    assert_eq!(
        chunks_read(&r, &src.reset()),
        (768..=last).step_by(2).collect::<Vec<_>>()
    );
    assert_eq!(area.total, expected.len());
    assert_eq!(area.terrain, expected.first_sections(10));
}

/// A file written before full terrain pieces (none flagged) reads as before: every piece from
/// the first chunk, the same terrain; compaction rewrites it with full pieces, the same terrain
/// at every tick.
#[test]
fn a_file_without_full_terrain_pieces_reads_every_piece_and_compacts_to_full_ones() {
    use tickreel::format::FLAG_TERRAIN_FULL;
    let (bytes, expected) = many_pieces(300, true);
    let (r, src) = counted(bytes);
    r.verify().unwrap();
    assert!(r.index().iter().all(|e| e.flags & FLAG_TERRAIN_FULL == 0));
    src.reset();
    let got = r.terrain_at(r.last_tick().unwrap()).unwrap();
    let read = chunks_read(&r, &src.reset());
    assert_eq!(read, (0..600).step_by(2).collect::<Vec<_>>());
    assert_eq!(*got, expected);

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.reel");
    tickreel::record::compact(
        &r,
        &out,
        tickreel::record::CompactOptions::default(),
        &mut |_, _| {},
    )
    .unwrap();
    let back = Reader::open_path(&out).unwrap();
    back.verify().unwrap();
    let full: Vec<u32> = back
        .index()
        .iter()
        .filter(|e| e.flags & FLAG_TERRAIN_FULL != 0)
        .map(|e| e.start_tick)
        .collect();
    assert!(full.len() >= 2 && full[0] == 0, "{full:?}");
    for t in (0..600).step_by(7).chain([599]) {
        assert_eq!(
            back.terrain_at(t).unwrap(),
            r.terrain_at(t).unwrap(),
            "tick {t}"
        );
    }
}

/// A file without full pieces whose terrain at the end merges more than
/// `MAX_TERRAIN_PIECES_MERGED` pieces: refused there (and by `verify`), naming the limit and the
/// chunk, read before it; compaction makes it readable.
#[test]
fn merging_more_terrain_pieces_than_the_bound_is_refused_naming_it() {
    use tickreel::format::MAX_TERRAIN_PIECES_MERGED;
    let n = MAX_TERRAIN_PIECES_MERGED as u32 + 1;
    let (bytes, expected) = many_pieces(n, true);
    let (r, _src) = counted(bytes);
    let e = r.terrain_at(r.last_tick().unwrap()).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(_)), "{e}");
    let m = e.to_string();
    assert!(
        m.contains(&format!("limit {MAX_TERRAIN_PIECES_MERGED}")),
        "{m}"
    );
    assert!(m.contains("chunk 8192"), "{m}");
    let e = r.terrain_area_at(r.last_tick().unwrap(), 10).unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(_)), "{e}");
    let e = r.verify().unwrap_err();
    assert!(matches!(e, Error::LimitExceeded(_)), "{e}");
    // the last tick before the last piece merges exactly the bound
    assert_eq!(r.terrain_at(2 * n - 3).unwrap().len(), 100);

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.reel");
    tickreel::record::compact(
        &r,
        &out,
        tickreel::record::CompactOptions::default(),
        &mut |_, _| {},
    )
    .unwrap();
    let back = Reader::open_path(&out).unwrap();
    assert_eq!(*back.terrain_at(2 * n - 1).unwrap(), expected);
}
