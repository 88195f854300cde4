//! What each fuzz target does with its input. Shared with the regression tests
//! (`native/core/tests/it/fuzz_regressions.rs` includes this file by path), so that a kept input
//! replays through exactly the code the fuzzer ran. Uses only `tickreel` and the crates it
//! depends on itself (`tempfile`, `xxhash-rust`, `zstd`, `fastnbt`), which its tests can use too.
//!
//! A function panics only when a property listed in its documentation breaks (or when the library
//! panics). Errors returned by the library are the expected answer to bad bytes and are ignored.
//!
//! Checksums: a mutation almost always breaks one of the xxh64 checksums (file header, metadata +
//! index, frame header, frame payload), and the parser would stop there. The reader and recovery
//! targets therefore also run a copy of the input with its checksums recomputed ("fixed up"), so
//! that the fuzzer reaches what lies behind them. A hostile file carries valid checksums anyway:
//! xxh64 detects damage, it authenticates nothing.

#![allow(dead_code)]

#[path = "mem_storage.rs"]
mod mem_storage;
pub use mem_storage::MemStorage;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use fastnbt::Value;
use tickreel::Error;
use tickreel::format::DecodedChunk;
use tickreel::format::EntityTable;
use tickreel::format::Limits;
use tickreel::format::Metadata;
use tickreel::format::wire::decode_frame;
use tickreel::format::{decode_batch, encode_batch};
use tickreel::play::{Reader, ReaderOptions};
use tickreel::record::{ChunkPolicy, Chunker, recover, recover_live_with};
use tickreel::storage::live::{LiveDir, META_FILE, segment_name};
use tickreel::storage::{MemSource, Storage};
use xxhash_rust::xxh64::xxh64;

const HEADER_LEN: usize = 256;
const FRAME_HEADER_LEN: usize = 36;

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn be64(b: &[u8], at: usize) -> u64 {
    u64::from_be_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

// ------------------------------------------------------------------------------------------------
// Checksum fix-ups
// ------------------------------------------------------------------------------------------------

/// Recomputes the body checksum (metadata + index) of a file starting with a tickreel header, and,
/// if `clamp_data_end`, lowers `data_end` to the input's length. Does not touch the header's own
/// checksum (see [`fix_header_checksum`]). Returns where the body ends (clamped to the input), or
/// `None` if `buf` does not start with a header.
pub fn fix_body(buf: &mut [u8], clamp_data_end: bool) -> Option<usize> {
    if buf.len() < HEADER_LEN || buf[0..4] != *b"TKRL" {
        return None;
    }
    let meta_len = u64::from(be32(buf, 49));
    let index_len = u64::from(be32(buf, 53));
    let body_end = HEADER_LEN as u64 + meta_len + index_len;
    if body_end <= buf.len() as u64 {
        let sum = xxh64(&buf[HEADER_LEN..body_end as usize], 0);
        buf[88..96].copy_from_slice(&sum.to_be_bytes());
    }
    if clamp_data_end && be64(buf, 80) > buf.len() as u64 {
        let len = buf.len() as u64;
        buf[80..88].copy_from_slice(&len.to_be_bytes());
    }
    Some(body_end.min(buf.len() as u64) as usize)
}

/// Recomputes the header's own checksum (last 8 bytes of the 256-byte header).
pub fn fix_header_checksum(buf: &mut [u8]) {
    if buf.len() >= HEADER_LEN && buf[0..4] == *b"TKRL" {
        let sum = xxh64(&buf[..248], 0);
        buf[248..256].copy_from_slice(&sum.to_be_bytes());
    }
}

/// Recomputes the checksum of a segment's preamble (`TKSG`, 32 bytes: FORMAT.md, section 2) if the
/// segment starts with one, so that mutations of the recording id get past it.
pub fn fix_preamble(buf: &mut [u8]) {
    if buf.len() >= 32 && buf[0..4] == *b"TKSG" {
        let sum = xxh64(&buf[..24], 0);
        buf[24..32].copy_from_slice(&sum.to_be_bytes());
    }
}

/// Recomputes the payload and header checksums of every chunk frame found from `start` on: at each
/// frame magic, left to right, skipping over the payload of a frame that fits in the input.
pub fn fix_frames(buf: &mut [u8], start: usize) {
    let mut pos = start;
    while pos < buf.len() {
        let Some(d) = buf[pos..].windows(4).position(|w| w == b"TKCF") else {
            return;
        };
        let p = pos + d;
        if p + FRAME_HEADER_LEN > buf.len() {
            return;
        }
        let end = (p + FRAME_HEADER_LEN) as u64 + u64::from(be32(buf, p + 16));
        if end <= buf.len() as u64 {
            let sum = xxh64(&buf[p + FRAME_HEADER_LEN..end as usize], 0);
            buf[p + 24..p + 32].copy_from_slice(&sum.to_be_bytes());
        }
        let own = xxh64(&buf[p..p + 32], 0) as u32;
        buf[p + 32..p + 36].copy_from_slice(&own.to_be_bytes());
        pos = if end <= buf.len() as u64 {
            end as usize
        } else {
            p + 4
        };
    }
}

/// A compacted file with every checksum recomputed and `data_end` no larger than the file.
pub fn fix_compacted(buf: &mut [u8]) {
    if let Some(body_end) = fix_body(buf, true) {
        fix_frames(buf, body_end);
        fix_header_checksum(buf);
    }
}

/// A live directory's metadata file with its checksums recomputed.
pub fn fix_meta_file(buf: &mut [u8]) {
    if fix_body(buf, false).is_some() {
        fix_header_checksum(buf);
    }
}

// ------------------------------------------------------------------------------------------------
// reader: header, metadata, index, chunk payloads of a compacted file
// ------------------------------------------------------------------------------------------------

/// `Reader::open_with` over the bytes (as they are, then with checksums fixed up), then every
/// chunk, `verify`, a few seeks and a full tick iteration.
///
/// Properties: no panic; decoded ticks lie inside their chunk, in strictly increasing order,
/// across the whole recording too.
pub fn reader(data: &[u8]) {
    read_compacted(data);
    let mut fixed = data.to_vec();
    fix_compacted(&mut fixed);
    if fixed != data {
        read_compacted(&fixed);
    }
}

fn read_compacted(bytes: &[u8]) {
    let source = Arc::new(MemSource::new(bytes.to_vec()));
    if let Ok(r) = Reader::open_with(source, ReaderOptions::default()) {
        exercise_reader(&r);
    }
}

/// Everything a player does with an open reader.
pub fn exercise_reader(r: &Reader) {
    let _ = (r.header(), r.metadata(), r.tick_rate(), r.describe());
    for i in 0..r.index().len() {
        let full = r.read_chunk(i);
        // What a ghost load runs: one entity's decode of the frame, at the frame's data version.
        let id = full
            .as_ref()
            .ok()
            .and_then(|c| c.tracks.last())
            .map_or(0, |t| t.entity);
        let one = r.read_chunk_entity(i, id);
        if let Ok(c) = full {
            check_chunk(&c);
            check_entity_decode(c, one, id);
        }
    }
    let _ = r.read_chunk(r.index().len());
    let _ = r.verify();
    let (Some(first), Some(last)) = (r.first_tick(), r.last_tick()) else {
        return;
    };
    let mid = (u64::from(first) + u64::from(last)) / 2;
    for t in [0, first, mid as u32, last, u32::MAX] {
        if let Ok(s) = r.seek(t) {
            assert_eq!(s.tick, t.clamp(first, last), "seek({t}) landed elsewhere");
        }
    }
    let mut prev: Option<u32> = None;
    for t in r.ticks(0, u32::MAX) {
        let Ok(t) = t else { break };
        assert!(
            prev.is_none_or(|p| p < t.tick),
            "ticks out of order: {prev:?} then {}",
            t.tick
        );
        prev = Some(t.tick);
    }
}

/// A decoded chunk's ticks are inside it and strictly increasing; its state and samples can be
/// queried anywhere.
pub fn check_chunk(c: &DecodedChunk) {
    let mut prev: Option<u32> = None;
    for t in c.ticks() {
        assert!(
            t.tick >= c.start_tick && u64::from(t.tick) < c.end_tick(),
            "tick {} outside the chunk {}..{}",
            t.tick,
            c.start_tick,
            c.end_tick()
        );
        assert!(prev.is_none_or(|p| p < t.tick), "ticks out of order");
        prev = Some(t.tick);
    }
    // (`DecodedChunk::decode` accepts a tick count of 0: the chunk target can pass one.)
    let last = c.end_tick().saturating_sub(1).max(u64::from(c.start_tick)) as u32;
    let _ = (
        c.state_at(c.start_tick),
        c.state_at(last),
        c.state_at(u32::MAX),
    );
    let _ = c.heap_bytes();
    for t in &c.tracks {
        assert_eq!(
            t.ticks.len(),
            t.poses.len(),
            "a track's ticks and poses differ in number"
        );
        let _ = (t.sample_at_or_before(0), t.sample_at(last - c.start_tick));
    }
}

// ------------------------------------------------------------------------------------------------
// chunk: a decompressed chunk payload
// ------------------------------------------------------------------------------------------------

/// `DecodedChunk::decode` of an uncompressed payload (what the reader reaches only through zstd):
/// input = flags (1 byte), start tick (u32 BE), tick count (u32 BE), payload.
///
/// Properties: those of [`check_chunk`]; and one entity's decode (`DecodedChunk::decode_entity`,
/// what a ghost load runs) never panics, and where the full decode succeeds it gives exactly the
/// full decode's part about that entity (its keyframe entry, its events, its track).
pub fn chunk(data: &[u8]) {
    if data.len() < 9 {
        return;
    }
    let (flags, start, count) = (data[0], be32(data, 1), be32(data, 5));
    let (payload, limits) = (&data[9..], Limits::default());
    let full = DecodedChunk::decode(payload, flags, start, count, &limits);
    let id = full
        .as_ref()
        .ok()
        .and_then(|c| c.tracks.last())
        .map_or(start, |t| t.entity);
    let one = DecodedChunk::decode_entity(payload, flags, start, count, &limits, id);
    if let Ok(c) = full {
        check_chunk(&c);
        check_entity_decode(c, one, id);
    }
}

/// Where the full decode of a chunk succeeded, one entity's decode of the same payload succeeds
/// too and gives exactly the full decode's part about that entity (its keyframe entry, its
/// events, its track).
pub fn check_entity_decode(full: DecodedChunk, one: tickreel::Result<DecodedChunk>, id: u32) {
    let mut want = full;
    want.snapshot = None;
    want.world = None;
    want.keyframe.retain(|e| e.id == id);
    want.tracks.retain(|t| t.entity == id);
    for r in &mut want.records {
        // its own events and those naming it as their other entity (a hit on it, damage it took)
        r.events.retain(|e| e.involves(id));
    }
    want.records.retain(|r| !r.events.is_empty());
    assert_eq!(
        one.expect("an entity decode fails where the full decode succeeds"),
        want,
        "an entity decode differs from the full decode's part"
    );
}

// ------------------------------------------------------------------------------------------------
// recovery: a live directory
// ------------------------------------------------------------------------------------------------

/// A scratch directory, in memory (`/dev/shm`) where there is one: recovery syncs every file.
pub fn scratch_dir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    let base: PathBuf = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    tempfile::Builder::new()
        .prefix("tickreel-fuzz-")
        .tempdir_in(base)
        .expect("scratch directory")
}

/// The files of a live directory, from the input:
///
/// - byte 0: bits 0-1 the number of segments (0-3); bit 2 set: no metadata file; bit 3 set: keep
///   checksums as they are (otherwise they are fixed up); bits 4-7: the gap between segment
///   numbers (segments are numbered 0, g+1, 2(g+1));
/// - then the metadata file and each segment but the last: a u16 LE length and that many bytes
///   (fewer at the end of the input); the last part takes the rest.
pub fn live_files(data: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let (&flags, mut rest) = data.split_first()?;
    let segments = usize::from(flags & 3);
    let with_meta = flags & 4 == 0;
    let fix = flags & 8 == 0;
    let gap = u32::from(flags >> 4) + 1;
    let mut parts: Vec<Vec<u8>> = Vec::new();
    for i in 0..=segments {
        let part = if i == segments {
            std::mem::take(&mut rest)
        } else {
            let len = match rest {
                [a, b, tail @ ..] => {
                    rest = tail;
                    usize::from(u16::from_le_bytes([*a, *b]))
                }
                _ => 0,
            };
            let (part, tail) = rest.split_at(len.min(rest.len()));
            rest = tail;
            part
        };
        parts.push(part.to_vec());
    }
    let mut files = Vec::new();
    for (i, mut bytes) in parts.into_iter().enumerate() {
        if i == 0 {
            if fix {
                fix_meta_file(&mut bytes);
            }
            if with_meta {
                files.push((META_FILE.to_string(), bytes));
            }
        } else {
            if fix {
                fix_preamble(&mut bytes);
                fix_frames(&mut bytes, 0);
            }
            files.push((segment_name((i as u32 - 1) * gap), bytes));
        }
    }
    Some(files)
}

/// `recover` of a live directory made from the input (see [`live_files`]), then
/// `Reader::open_live` and what a player does with it, then `recover` again.
///
/// Properties: no panic; a recovered directory opens (unless its header names a zstd dictionary
/// that is not registered); recovering it again keeps the same chunks and changes nothing.
pub fn recovery(data: &[u8]) {
    let Some(files) = live_files(data) else {
        return;
    };
    let dir = scratch_dir();
    for (name, bytes) in &files {
        std::fs::write(dir.path().join(name), bytes).expect("writing the live directory");
    }
    let Ok(first) = recover(dir.path()) else {
        return;
    };
    match Reader::open_live(dir.path()) {
        Ok(r) => exercise_reader(&r),
        Err(Error::Unsupported(_)) => {}
        Err(e) => panic!("a recovered directory does not open: {e}"),
    }
    let again = recover(dir.path()).expect("recovering a recovered directory");
    assert_eq!(again.chunks_kept, first.chunks_kept, "{first:?}\n{again:?}");
    assert_eq!(again.chunks_recovered, 0, "{first:?}\n{again:?}");
    assert_eq!(again.bytes_truncated, 0, "{first:?}\n{again:?}");
    assert!(!again.metadata_rebuilt, "{first:?}\n{again:?}");
}

// ------------------------------------------------------------------------------------------------
// batch: the input of `Recorder::submit_tick`
// ------------------------------------------------------------------------------------------------

/// `decode_batch`; then what the writer thread does with a decoded batch, and the reader's decode
/// of the frames it wrote, twice: the chunker at ticks 0, 1 and 5 (chunks of 2 ticks, so the last
/// chunk starts from a keyframe); and at the sparse ticks 0, 2, 3 and 7 in one chunk of 16 ticks,
/// with every `Pose` event moved on by a constant velocity per tick, so that the writer codes
/// tracks with gaps (data version 2: predictor 4, sample ticks as deltas).
///
/// Properties: a decoded batch re-encodes and decodes to the same events; every frame the writer
/// produces decodes; each chunk's state at its last tick is the next chunk's keyframe, and the
/// last chunk's state at its last tick is the writer's own entity table.
pub fn batch(data: &[u8]) {
    let Ok(events) = decode_batch(data) else {
        return;
    };
    let mut again = Vec::new();
    encode_batch(&events, &mut again).expect("a decoded batch re-encodes");
    let back = decode_batch(&again).expect("a re-encoded batch decodes");
    assert_eq!(back, events, "batch round trip");

    write_and_read(2, &[0, 1, 5], |_| events.clone());
    write_and_read(16, &[0, 2, 3, 7], |tick| moved(&events, tick));
}

/// `events` with every `Pose` event's position moved by (3, −1, 2) units and its yaw by 5 units
/// per tick, wrapping.
fn moved(events: &[tickreel::Event], tick: u32) -> Vec<tickreel::Event> {
    let k = i64::from(tick);
    events
        .iter()
        .map(|e| match *e {
            tickreel::Event::Pose { entity, mut pose } => {
                pose.x = pose.x.wrapping_add(3 * k);
                pose.y = pose.y.wrapping_sub(k);
                pose.z = pose.z.wrapping_add(2 * k);
                pose.yaw = pose.yaw.wrapping_add(5 * k);
                tickreel::Event::Pose { entity, pose }
            }
            ref other => other.clone(),
        })
        .collect()
}

/// The chunker (chunks of `chunk_ticks`) fed `events_at(tick)` at each of `ticks`, then the
/// reader's decode of every frame it wrote, checked as [`batch`] documents.
fn write_and_read(
    chunk_ticks: u32,
    ticks: &[u32],
    events_at: impl Fn(u32) -> Vec<tickreel::Event>,
) {
    let policy = ChunkPolicy {
        chunk_ticks,
        snapshot_interval: 1000,
        zstd_level: 1,
        ..ChunkPolicy::default()
    };
    let mut chunker = Chunker::new(policy, None).expect("chunker");
    let mut frames = Vec::new();
    for &tick in ticks {
        // A refused tick leaves the chunker usable (the writer thread carries on).
        if let Ok(f) = chunker.push_tick(tick, &events_at(tick)) {
            frames.extend(f);
        }
    }
    frames.extend(chunker.finish_chunk().expect("finishing the chunk"));
    let mut dec = zstd::bulk::Decompressor::new().expect("zstd");
    let decoded: Vec<DecodedChunk> = frames
        .iter()
        .map(|f| {
            decode_frame(&f.header, &f.payload, &mut dec, &Limits::default())
                .unwrap_or_else(|e| panic!("the writer wrote a chunk its reader refuses: {e}"))
        })
        .collect();
    for c in &decoded {
        check_chunk(c);
    }
    for w in decoded.windows(2) {
        let end = w[0].state_at((w[0].end_tick() - 1) as u32);
        let key: EntityTable = w[1].keyframe.iter().copied().collect();
        assert_eq!(
            end, key,
            "a chunk's end state differs from the next chunk's keyframe"
        );
    }
    if let Some(c) = decoded.last() {
        let end = c.state_at((c.end_tick() - 1) as u32);
        assert_eq!(
            end,
            chunker.table(),
            "the decoded state differs from the writer's"
        );
    }
}

// ------------------------------------------------------------------------------------------------
// terrain: a chunk's terrain piece
// ------------------------------------------------------------------------------------------------

/// A terrain piece, as a reader decodes the one in front of a chunk flagged with terrain: byte 0
/// says what the rest is: 0, a terrain body uncompressed (`decode_body`: what the fuzzer mutates
/// best); 1, a piece's content (magic, body length, the body compressed: `decode_piece`); else,
/// a chunk's payload starting with the piece's skippable frame (`piece_of`, then
/// `decode_piece`).
///
/// Properties: no panic, no allocation past the limits; decoded terrain holds only valid
/// sections, in order, each answering for every block; it encodes to a body that decodes to the
/// same terrain, and to a piece (zstd level 1) that decodes to it too; merging it into itself
/// changes nothing.
pub fn terrain(data: &[u8]) {
    use tickreel::format::wire::{decode_body, decode_piece, piece_of};
    let Some((&what, rest)) = data.split_first() else {
        return;
    };
    let limits = Limits::default();
    let decoded = match what {
        0 => decode_body(rest, &limits),
        1 => decode_piece(rest, &limits),
        _ => piece_of(rest).and_then(|c| decode_piece(c, &limits)),
    };
    if let Ok(t) = decoded {
        check_terrain(&t, &limits);
    }
}

/// The properties of decoded terrain [`terrain`] checks.
pub fn check_terrain(t: &tickreel::format::Terrain, limits: &Limits) {
    use tickreel::format::wire::{decode_body, decode_piece, encode_body, encode_piece, piece_of};
    let mut prev: Option<(i32, i32, i32)> = None;
    for s in t.sections() {
        s.validate()
            .unwrap_or_else(|e| panic!("a decoded section is not valid: {e}"));
        assert!(prev < Some(s.key()), "sections out of order");
        prev = Some(s.key());
        // (A section past 2^27 has no block position in 32 bits.)
        let at = |c: i32, l: i32| c.checked_mul(16).and_then(|v| v.checked_add(l));
        for (lx, ly, lz) in [(0, 0, 0), (15, 15, 15), (3, 9, 14)] {
            let want = s.state(lx as usize, ly as usize, lz as usize);
            assert!(s.palette.contains(&want), "a block outside the palette");
            if let (Some(x), Some(y), Some(z)) = (at(s.cx, lx), at(s.cy, ly), at(s.cz, lz)) {
                assert_eq!(t.block(x, y, z), Some(want), "the block at ({x}, {y}, {z})");
            }
        }
    }
    let body = encode_body(t);
    let again = decode_body(&body, limits)
        .unwrap_or_else(|e| panic!("an encoded body does not decode: {e}"));
    assert!(again == *t, "terrain body round trip");
    if body.len() <= limits.max_terrain_bytes() {
        let piece = encode_piece(t, 1, limits).expect("decoded terrain encodes");
        let back = piece_of(&piece)
            .and_then(|c| decode_piece(c, limits))
            .unwrap_or_else(|e| panic!("an encoded piece does not decode: {e}"));
        assert!(back == *t, "terrain piece round trip");
    }
    let mut merged = t.clone();
    merged
        .merge(t.clone(), limits.max_terrain_sections())
        .expect("terrain merged into itself stays within its own count");
    assert!(merged == *t, "merging terrain into itself changed it");
}

// ------------------------------------------------------------------------------------------------
// world_section: the world sections of snapshot chunks (keyframe and delta)
// ------------------------------------------------------------------------------------------------

/// Two world sections as a reader decodes them from snapshot chunks: a big-endian `u16` length
/// `n`, then `n` bytes of a first section, the rest a second. Each is decoded as a section of data
/// version 5 and of data version 9 (a keyframe or a delta section; from 9 the block lists kept
/// compressed, decoded on first read) and as one of data versions 3 and 4; a delta second
/// section is put on the first when that is a keyframe of the same version, on an empty world
/// otherwise, as a reader's `resolve_world` does.
///
/// Properties: no panic, no allocation past the limits; a world whose lists' first read refuses
/// them says so ([`WorldState::decode_error`]) and reads as the rest of it; a decoded world
/// encodes to a keyframe section that decodes to the same world (every version), its blocks
/// sorted, counted and answered by position; a delta section of data version 5 encodes again
/// to the same section, one of data version 9 to a section giving the same world; a delta put
/// on its keyframe gives a world whose blocks are the keyframe's with the delta's changes.
pub fn world_section(data: &[u8]) {
    use tickreel::format::WorldState;
    use tickreel::format::wire::{WorldSection, decode_world, decode_world_section};
    if data.len() < 2 {
        return;
    }
    let n = usize::from(u16::from_be_bytes([data[0], data[1]])).min(data.len() - 2);
    let (first, second) = data[2..].split_at(n);
    let limits = Limits::default();
    for body in [first, second] {
        if let Ok(w) = decode_world(body, &limits) {
            check_world(&w, &limits);
        }
    }
    for version in [5u16, 9] {
        let keyframe = match decode_world_section(first, &limits, version) {
            Ok(WorldSection::Full(w)) => {
                check_world(&w, &limits);
                Some(w)
            }
            Ok(WorldSection::Delta(d)) => {
                check_delta(&WorldState::default(), &d, &limits, version);
                None
            }
            Err(_) => None,
        };
        match decode_world_section(second, &limits, version) {
            Ok(WorldSection::Full(w)) => check_world(&w, &limits),
            Ok(WorldSection::Delta(d)) => {
                check_delta(&keyframe.unwrap_or_default(), &d, &limits, version)
            }
            Err(_) => {}
        }
    }
}

/// A decoded world's properties ([`world_section`]).
fn check_world(w: &tickreel::format::WorldState, limits: &Limits) {
    use tickreel::format::wire::{
        WorldSection, decode_world, decode_world_section, decode_world_v5, encode_world,
        encode_world_section, encode_world_v5,
    };
    let sorted = w.sorted_blocks();
    assert_eq!(sorted.len(), w.block_count(), "block count");
    assert_eq!(w.blocks().len(), w.block_count(), "blocks listed");
    assert_eq!(w.blocks().count(), w.block_count(), "blocks listed");
    assert!(
        sorted.windows(2).all(|p| p[0].0 < p[1].0),
        "blocks not sorted or repeated"
    );
    for &(p, s) in sorted.iter().take(64) {
        assert_eq!(w.block(p), Some(s), "the block at {p:?}");
    }
    assert_eq!(
        w.read_lists().is_err(),
        w.decode_error().is_some(),
        "a refused list is said so"
    );
    let body = encode_world(w);
    let again = decode_world(&body, limits)
        .unwrap_or_else(|e| panic!("an encoded world section does not decode: {e}"));
    assert!(again == *w, "world section round trip");
    let v5 = encode_world_v5(w, 0);
    match decode_world_v5(&v5, limits) {
        Ok(WorldSection::Full(again)) => assert!(again == *w, "keyframe section round trip"),
        other => panic!("an encoded keyframe section decodes to {other:?}"),
    }
    let v9 = encode_world_section(w, 0, 3);
    match decode_world_section(&v9, limits, 9) {
        Ok(WorldSection::Full(again)) => {
            assert!(again == *w, "keyframe section round trip (data version 9)");
            assert!(again.decode_error().is_none(), "a written list reads");
        }
        other => panic!("an encoded keyframe section decodes to {other:?}"),
    }
}

/// A decoded delta's properties on `keyframe` ([`world_section`]), read as data version
/// `version`.
fn check_delta(
    keyframe: &tickreel::format::WorldState,
    d: &tickreel::format::WorldDelta,
    limits: &Limits,
    version: u16,
) {
    use tickreel::format::wire::{
        WorldSection, decode_world_section, encode_world_section, encode_world_v5, world_with_delta,
    };
    let Ok(w) = world_with_delta(keyframe, d, limits) else {
        return;
    };
    check_world(&w, limits);
    if w.decode_error().is_some() {
        return;
    }
    if version < 9 {
        let section = encode_world_v5(&w, d.back);
        match decode_world_section(&section, limits, 5) {
            Ok(WorldSection::Delta(again)) => assert!(again == *d, "delta section round trip"),
            other => panic!("a delta section encodes again to {other:?}"),
        }
    }
    let section = encode_world_section(&w, d.back, 3);
    match decode_world_section(&section, limits, 9) {
        Ok(WorldSection::Delta(again)) => {
            assert_eq!(
                again.changed_blocks(),
                d.changed_blocks(),
                "delta round trip"
            );
            let w2 = world_with_delta(keyframe, &again, limits).expect("a written delta");
            assert!(w2 == w, "delta section round trip (data version 9)");
            assert!(w2.decode_error().is_none(), "a written delta reads");
        }
        other => panic!("a delta section encodes again to {other:?}"),
    }
    // The world's blocks: the keyframe's, but where the delta says otherwise.
    let changed = w
        .sorted_blocks()
        .iter()
        .filter(|&&(p, s)| keyframe.block(p) != Some(s))
        .count()
        + keyframe
            .sorted_blocks()
            .iter()
            .filter(|&&(p, _)| w.block(p).is_none())
            .count();
    assert_eq!(changed, d.changed_blocks(), "blocks the delta changed");
}

// ------------------------------------------------------------------------------------------------
// metadata: the NBT metadata section
// ------------------------------------------------------------------------------------------------

/// `Metadata::decode`; when it succeeds, `encode` and `decode` again.
///
/// Properties: decoded metadata re-encodes; the encoding decodes to an equal value (NaN floats
/// aside) and re-encodes to the same bytes.
pub fn metadata(data: &[u8]) {
    let Ok(m) = Metadata::decode(data) else {
        return;
    };
    let bytes = m.encode().expect("decoded metadata re-encodes");
    let m2 = Metadata::decode(&bytes).expect("re-encoded metadata decodes");
    if !metadata_has_nan(&m) {
        // The writer's counters are not metadata (they are the header's, FORMAT.md §3): the
        // `stats` of an earlier build's metadata is read, and not written again.
        let mut expected = m.clone();
        expected.library.stats = Default::default();
        assert_eq!(m2, expected, "metadata round trip");
    }
    let bytes2 = m2.encode().expect("metadata re-encodes twice");
    assert!(bytes2 == bytes, "metadata encoding is not stable");
}

fn metadata_has_nan(m: &Metadata) -> bool {
    m.user.values().any(has_nan)
        || m.library.extra.values().any(has_nan)
        || m.library.analysis.as_ref().is_some_and(has_nan)
}

fn has_nan(v: &Value) -> bool {
    match v {
        Value::Float(f) => f.is_nan(),
        Value::Double(f) => f.is_nan(),
        Value::List(l) => l.iter().any(has_nan),
        Value::Compound(c) => c.values().any(has_nan),
        _ => false,
    }
}

/// Opens and verifies a recording an import wrote at `path`, checking it against what the import
/// reported: its size (`bytes`), its ticks with data (each decodes) and its tick range. Panics
/// otherwise.
pub fn imported(path: &Path, bytes: u64, ticks: u64, range: (Option<u32>, Option<u32>)) -> Reader {
    let size = std::fs::metadata(path)
        .expect("an imported recording exists")
        .len();
    assert_eq!(size, bytes, "the import reported another size");
    let r =
        Reader::open_path(path).unwrap_or_else(|e| panic!("an imported file does not open: {e}"));
    r.verify()
        .unwrap_or_else(|e| panic!("an imported file does not verify: {e}"));
    let mut decoded = 0u64;
    for t in r.ticks(0, u32::MAX) {
        t.unwrap_or_else(|e| panic!("an imported tick does not decode: {e}"));
        decoded += 1;
    }
    assert_eq!(decoded, ticks, "ticks with data");
    assert_eq!(
        (r.first_tick(), r.last_tick()),
        range,
        "the recording's tick range"
    );
    r
}

/// Bytes as text, for a failure's message.
pub fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// What an import that failed must leave: a message of at most `max_bytes`, and nothing in its
/// directory (no recording, no temporary file). Panics otherwise.
pub fn failed_import(dir: &Path, message: &str, max_bytes: usize) {
    assert!(
        message.len() <= max_bytes,
        "an error message of {} bytes: {}…",
        message.len(),
        message.chars().take(200).collect::<String>()
    );
    let left: Vec<_> = std::fs::read_dir(dir)
        .expect("listing the scratch directory")
        .map(|e| e.expect("a directory entry").file_name())
        .collect();
    assert!(left.is_empty(), "a failed import left {left:?}: {message}");
}

// ------------------------------------------------------------------------------------------------
// live_dir: a live directory's members as an attacker lays them out
// ------------------------------------------------------------------------------------------------

/// The members a `live_dir` input may replace, in the order of the bits of its second byte: the
/// metadata file, three segments, the writer lock and the metadata file's temporary name.
const MEMBERS: [&str; 6] = [
    META_FILE,
    "seg-000000.tks",
    "seg-000001.tks",
    "seg-000002.tks",
    "lock",
    ".meta.tkrl.tmp",
];

/// What the `live_dir` target recovers and reads with: the default limits but 256 KiB chunks, so
/// that recovery searches a damaged stretch for the next frame within 256 KiB (one such frame's
/// reach), not the default 64 MiB: a segment extended by 16 GiB of zeros costs a short search.
pub fn live_dir_limits() -> Limits {
    Limits {
        max_chunk_bytes: 256 << 10,
        ..Limits::default()
    }
}

/// A live directory from the input, laid out as an attacker could, in a file system in memory
/// ([`MemStorage`]: no file system call, no fsync): byte 0 as [`live_files`]'s; byte 1, one bit
/// per member of [`MEMBERS`]: a symbolic link to a file outside the directory (byte 2's bit set
/// too: a symbolic link to a directory outside; a link to the directory itself for the lock);
/// byte 3: 0xff extends the last segment, sparse, by 16 GiB of zeros, 0xfe by 1 MiB + 3 bytes,
/// anything else leaves it; the rest as [`live_files`]'s parts. Then `recover` (with
/// [`live_dir_limits`]), a reader of the directory with the same limits and what a player does
/// with it, and `recover` again.
///
/// Properties: no panic, no unbounded memory (libFuzzer's limits); the file and directory
/// outside are never changed (their bytes and entries compared after every step); a member that
/// is a link is never read through (recovery and opening fail naming it, or succeed without it).
pub fn live_dir(data: &[u8]) {
    let [_, links, link_dirs, extend, ..] = data else {
        return;
    };
    let extend: u64 = match *extend {
        0xff => 16 << 30,
        0xfe => (1 << 20) + 3,
        _ => 0,
    };
    let (links, link_dirs) = (*links, *link_dirs);
    let mut rest = vec![data[0]];
    rest.extend_from_slice(&data[4..]);
    let Some(files) = live_files(&rest) else {
        return;
    };
    let fs = MemStorage::new();
    let storage: Arc<dyn Storage> = Arc::new(fs.clone());
    let outside = Path::new("/scratch/outside");
    storage.create_dir_all(outside).expect("outside directory");
    let sentinel = outside.join("sentinel");
    let sentinel_bytes = b"tickreel must never write here\n".repeat(64);
    write_file(&storage, &sentinel, &sentinel_bytes);
    let dir = Path::new("/scratch/run.reel.live");
    storage.create_dir_all(dir).expect("live directory");
    let last_segment = files
        .iter()
        .rev()
        .find(|(n, _)| n.starts_with("seg-"))
        .map(|(n, _)| n.clone());
    for (name, bytes) in &files {
        let p = dir.join(name);
        write_file(&storage, &p, bytes);
        if extend > 0 && last_segment.as_deref() == Some(name) {
            fs.extend_sparse(&p, extend).expect("sparse segment");
        }
    }
    for (bit, name) in MEMBERS.iter().enumerate() {
        if links & (1 << bit) == 0 {
            continue;
        }
        let target = match (link_dirs & (1 << bit) != 0, *name) {
            (true, "lock") => dir.to_path_buf(),
            (true, _) => outside.to_path_buf(),
            (false, _) => sentinel.clone(),
        };
        fs.symlink(&target, &dir.join(name)).expect("a link");
    }
    let untouched = |step: &str| {
        let now = storage
            .read(&sentinel)
            .expect("the sentinel is still there");
        assert!(
            now == sentinel_bytes,
            "{step} changed a file outside the directory"
        );
        let entries = storage.list(outside).expect("outside").len();
        assert_eq!(entries, 1, "{step} added to a directory outside");
    };
    let limits = live_dir_limits();
    let live = LiveDir::new(storage.clone(), dir);
    let first = recover_live_with(&live, &limits, &mut |_, _| {});
    untouched("recover");
    // (`..` for whatever else a reader's options hold.)
    #[allow(clippy::needless_update)]
    let options = ReaderOptions {
        limits,
        ..ReaderOptions::default()
    };
    if let Ok(r) = Reader::open_live_in(&storage, dir, options) {
        exercise_reader(&r);
    }
    untouched("reading");
    if first.is_ok() {
        let _ = recover_live_with(&live, &limits, &mut |_, _| {});
        untouched("recovering again");
    }
}

/// `path` made a file of `bytes` in `storage`.
fn write_file(storage: &Arc<dyn Storage>, path: &Path, bytes: &[u8]) {
    let mut f = storage.create(path).expect("a file in memory");
    f.append(bytes).expect("writing a file in memory");
}
