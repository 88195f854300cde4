//! Corruption: truncated files, flipped bits, and forged files whose checksums are recomputed so
//! that the parsers behind them see hostile bytes. Every case must end in a clean error or valid
//! data, never a panic, and no single allocation may exceed what the reader's `Limits` allow.
//!
//! The test binary's counting global allocator (`heap`) records the largest single allocation made
//! by the current thread while a measurement runs (per thread, so that tests running in parallel do
//! not interfere).

use crate::common;
use crate::heap;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use tickreel::format::DecodedChunk;
use tickreel::format::Limits;
use tickreel::format::Metadata;
use tickreel::format::wire::{decode_index, encode_index};
use tickreel::format::wire::{put_ivarint, put_uvarint};
use tickreel::format::{FLAG_SNAPSHOT, IndexEntry};
use tickreel::format::{FRAME_HEADER_LEN, FrameHeader};
use tickreel::format::{HEADER_LEN, Header};
use tickreel::play::{Reader, ReaderOptions};
use tickreel::record::ChunkPolicy;
use tickreel::storage::{MemSource, Source};
use tickreel::{Error, Event, Result};
use xxhash_rust::xxh64::xxh64;

// ---------------------------------------------------------------------------------------------
// Largest-allocation tracking
// ---------------------------------------------------------------------------------------------

/// Runs `f` and returns its result with the largest single allocation it made on this thread
/// (the binary's counting allocator, `heap`).
fn largest_alloc<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let (out, allocs) = heap::on_this_thread(f);
    (out, allocs.largest)
}

#[test]
fn the_allocation_counter_counts() {
    // Guards every bound below: the counter must see a large allocation when one happens.
    let (v, largest) = largest_alloc(|| vec![0u8; 3 << 20]);
    assert_eq!(v.len(), 3 << 20);
    assert!(largest >= 3 << 20, "{largest}");
    let ((), largest) = largest_alloc(|| ());
    assert_eq!(largest, 0);
}

// ---------------------------------------------------------------------------------------------
// The file under test and tight limits
// ---------------------------------------------------------------------------------------------

/// Limits far tighter than the defaults, so that the bound checked below is meaningful.
const TIGHT: Limits = Limits {
    max_metadata_bytes: 64 << 10,
    max_index_bytes: 64 << 10,
    max_chunk_bytes: 256 << 10,
    max_chunk_ticks: 4096,
};

/// No single allocation while reading a hostile file may exceed this: the largest of the first
/// read of a recording (256 KiB, or the file if shorter) and the chunk limit.
const ALLOC_BOUND: usize = 256 << 10;

fn options() -> ReaderOptions {
    ReaderOptions { limits: TIGHT }
}

struct Original {
    bytes: Vec<u8>,
    /// Straight decode of the whole file.
    ticks: Vec<(u32, Vec<Event>)>,
    /// File offset where each chunk frame ends, and the number of decoded ticks up to it.
    frame_ends: Vec<(u64, usize)>,
    index_end: usize,
}

/// A small multi-chunk, multi-snapshot file with custom events, player churn and teleports.
fn original() -> &'static Original {
    static O: std::sync::OnceLock<Original> = std::sync::OnceLock::new();
    O.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("small.reel");
        let ticks = common::sim_ticks(3, 90, 11);
        let policy = ChunkPolicy {
            chunk_ticks: 16,
            chunk_bytes: 1 << 20,
            snapshot_interval: 40,
            zstd_level: 3,
        };
        common::write_reel(&path, &ticks, policy);
        let bytes = std::fs::read(&path).unwrap();
        let r = Reader::open_path(&path).unwrap();
        assert!(r.index().len() >= 5, "multi-chunk");
        assert!(r.index().iter().filter(|e| e.has_snapshot()).count() >= 2);
        let decoded: Vec<(u32, Vec<Event>)> = r
            .ticks(0, u32::MAX)
            .map(|t| t.map(|t| (t.tick, t.events)))
            .collect::<Result<_>>()
            .unwrap();
        let frame_ends = r
            .index()
            .iter()
            .map(|e| {
                let end = e.offset + (FRAME_HEADER_LEN as u64) + u64::from(e.compressed_len);
                let n = decoded
                    .iter()
                    .filter(|(t, _)| u64::from(*t) < e.end_tick())
                    .count();
                (end, n)
            })
            .collect();
        Original {
            index_end: r.header().body_end() as usize,
            bytes,
            ticks: decoded,
            frame_ends,
        }
    })
}

/// Opens, verifies and iterates a file, and seeks into it. Returns the ticks read before the first
/// error, and that error (if any).
fn exercise(source: Arc<dyn Source>) -> (Vec<(u32, Vec<Event>)>, Option<Error>) {
    let r = match Reader::open_with(source, options()) {
        Ok(r) => r,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut got = Vec::new();
    let mut err = None;
    for t in r.ticks(0, u32::MAX) {
        match t {
            Ok(t) => got.push((t.tick, t.events)),
            Err(e) => {
                err = Some(e);
                break;
            }
        }
    }
    let verified = r.verify();
    if err.is_none() {
        err = verified.err();
    }
    if let (Some(f), Some(l)) = (r.first_tick(), r.last_tick()) {
        for t in [f, l, f.wrapping_add(l.wrapping_sub(f) / 2), u32::MAX] {
            if let Err(e) = r.seek(t) {
                err.get_or_insert(e);
            }
        }
    }
    for i in 0..r.index().len() {
        if let Ok(c) = r.read_chunk(i) {
            let _ = c.state_at(c.start_tick);
        }
    }
    (got, err)
}

fn is_clean(e: &Error) -> bool {
    matches!(
        e,
        Error::Corrupt(_) | Error::Truncated(_) | Error::LimitExceeded(_) | Error::Unsupported(_)
    )
}

/// Runs `exercise` on `bytes`, turning a panic into a test failure that names the trial, and
/// checking the allocation bound.
fn checked(bytes: Vec<u8>, trial: &str) -> (Vec<(u32, Vec<Event>)>, Option<Error>) {
    let src: Arc<dyn Source> = Arc::new(MemSource::new(bytes));
    let (out, largest) = largest_alloc(|| catch_unwind(AssertUnwindSafe(|| exercise(src))));
    let out = out.unwrap_or_else(|_| panic!("panic while reading {trial}"));
    assert!(
        largest <= ALLOC_BOUND,
        "{trial}: a single allocation of {largest} bytes exceeds {ALLOC_BOUND}"
    );
    if let Some(e) = &out.1 {
        assert!(is_clean(e), "{trial}: unexpected error kind {e:?}");
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Truncation
// ---------------------------------------------------------------------------------------------

#[test]
fn truncation_at_every_offset_is_a_clean_truncated_error() {
    let o = original();
    for cut in 0..o.bytes.len() {
        let (got, err) = checked(o.bytes[..cut].to_vec(), &format!("file cut at {cut}"));
        assert!(got.is_empty(), "cut at {cut}: a short file must not open");
        assert!(
            matches!(err, Some(Error::Truncated(_))),
            "cut at {cut}: {err:?}"
        );
    }
    // The whole file reads back completely.
    let (got, err) = checked(o.bytes.clone(), "the intact file");
    assert!(err.is_none(), "{err:?}");
    assert_eq!(got, o.ticks);
}

/// A source that claims the original length but whose bytes end early, like an object whose
/// upload was cut off or a range read that comes back short.
#[derive(Debug)]
struct ShortSource {
    bytes: Vec<u8>,
    claimed: u64,
}

impl Source for ShortSource {
    fn len(&self) -> Result<u64> {
        Ok(self.claimed)
    }
    fn read_up_to(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let start = offset.min(self.bytes.len() as u64) as usize;
        let end = start.saturating_add(len).min(self.bytes.len());
        Ok(self.bytes[start..end].to_vec())
    }
    fn describe(&self) -> String {
        "short source".into()
    }
}

#[test]
fn reading_past_a_cut_yields_a_valid_prefix_then_a_truncated_error() {
    let o = original();
    for cut in 0..o.bytes.len() {
        let src = Arc::new(ShortSource {
            bytes: o.bytes[..cut].to_vec(),
            claimed: o.bytes.len() as u64,
        });
        let ((got, err), largest) =
            largest_alloc(|| catch_unwind(AssertUnwindSafe(|| exercise(src))).unwrap());
        assert!(largest <= ALLOC_BOUND, "cut at {cut}: allocation {largest}");
        assert!(
            matches!(err, Some(Error::Truncated(_))),
            "cut at {cut}: {err:?}"
        );
        // Every chunk whose frame lies wholly before the cut is read, and nothing after it.
        let expect = if cut < o.index_end {
            0
        } else {
            o.frame_ends
                .iter()
                .take_while(|(end, _)| *end <= cut as u64)
                .last()
                .map_or(0, |(_, n)| *n)
        };
        assert_eq!(got.len(), expect, "cut at {cut}");
        assert_eq!(got[..], o.ticks[..expect], "cut at {cut}: a valid prefix");
    }
}

// ---------------------------------------------------------------------------------------------
// Bit flips
// ---------------------------------------------------------------------------------------------

#[test]
fn random_bit_flips_are_detected_without_panics() {
    let o = original();
    let mut rng = fastrand::Rng::with_seed(SEED);
    let trials = 4000;
    let mut detected = 0;
    for trial in 0..trials {
        let mut b = o.bytes.clone();
        let flips = rng.usize(1..4);
        let mut at = Vec::new();
        for _ in 0..flips {
            let i = rng.usize(..b.len());
            b[i] ^= 1 << rng.u8(0..8);
            at.push(i);
        }
        let (got, err) = checked(b, &format!("trial {trial}, bits flipped at {at:?}"));
        match err {
            Some(_) => detected += 1,
            None => assert_eq!(got, o.ticks, "trial {trial}: undetected change of the data"),
        }
    }
    // Every byte of a compacted file is covered by a checksum (header, metadata + index, frame
    // headers, payloads), so every flip is detected.
    assert_eq!(detected, trials);
}

/// Fixed seed of the random trials (reproducible failures).
const SEED: u64 = 0x5EED_0FB1_7500;

// ---------------------------------------------------------------------------------------------
// Forged files: valid checksums around hostile contents
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct ForgedChunk {
    flags: u8,
    data_version: u16,
    start_tick: u32,
    tick_count: u32,
    uncompressed_len: u32,
    compressed: Vec<u8>,
}

/// A file taken apart, to be edited and put back together with every length, offset and checksum
/// recomputed, so that the reader's parsers (not its checksums) meet the edit.
#[derive(Debug, Clone)]
struct Forge {
    header: Header,
    metadata: Vec<u8>,
    chunks: Vec<ForgedChunk>,
}

type Edit<'a, T> = &'a dyn Fn(&mut T);

impl Forge {
    fn parse(bytes: &[u8]) -> Forge {
        let header = Header::decode(bytes).unwrap();
        let m1 = HEADER_LEN + header.metadata_len as usize;
        let i1 = m1 + header.index_len as usize;
        let entries = decode_index(&bytes[m1..i1], header.chunk_count).unwrap();
        let chunks = entries
            .iter()
            .map(|e| {
                let o = e.offset as usize;
                let fh = FrameHeader::decode(&bytes[o..]).unwrap();
                let p = o + FRAME_HEADER_LEN;
                ForgedChunk {
                    flags: fh.flags,
                    data_version: fh.data_version,
                    start_tick: fh.start_tick,
                    tick_count: fh.tick_count,
                    uncompressed_len: fh.uncompressed_len,
                    compressed: bytes[p..p + fh.compressed_len as usize].to_vec(),
                }
            })
            .collect();
        Forge {
            header,
            metadata: bytes[HEADER_LEN..m1].to_vec(),
            chunks,
        }
    }

    fn payload(&self, i: usize) -> Vec<u8> {
        let c = &self.chunks[i];
        zstd::bulk::decompress(&c.compressed, c.uncompressed_len as usize).unwrap()
    }

    /// Compresses `payload` into chunk `i`, padded as writers pad it (so that the parsers behind
    /// the expansion check meet it).
    fn set_payload(&mut self, i: usize, payload: &[u8]) {
        let c = &mut self.chunks[i];
        c.compressed = zstd::bulk::compress(payload, 3).unwrap();
        tickreel::format::wire::pad_payload(&mut c.compressed, payload.len());
        c.uncompressed_len = payload.len() as u32;
    }

    fn assemble(&self) -> Vec<u8> {
        self.assemble_with(&|_| {}, &|_| {}, &|_| {})
    }

    /// `meta` edits the metadata bytes (frames are placed after the edited length), `index` the
    /// encoded index, `header` the header after its lengths and checksums are computed (the header
    /// checksum itself is always recomputed).
    fn assemble_with(
        &self,
        meta: Edit<'_, Vec<u8>>,
        index: Edit<'_, Vec<u8>>,
        header: Edit<'_, Header>,
    ) -> Vec<u8> {
        let mut m = self.metadata.clone();
        meta(&mut m);
        let mut entries = Vec::new();
        let mut body = Vec::new();
        for c in &self.chunks {
            let fh = FrameHeader::for_payload(
                c.flags,
                c.data_version,
                c.start_tick,
                c.tick_count,
                c.uncompressed_len,
                &c.compressed,
            );
            entries.push(IndexEntry {
                start_tick: c.start_tick,
                tick_count: c.tick_count,
                flags: c.flags,
                offset: body.len() as u64,
                compressed_len: c.compressed.len() as u32,
                uncompressed_len: c.uncompressed_len,
            });
            body.extend_from_slice(&fh.encode());
            body.extend_from_slice(&c.compressed);
        }
        let prefix = (HEADER_LEN + m.len() + encode_index(&entries).len()) as u64;
        for e in &mut entries {
            e.offset += prefix;
        }
        let mut ix = encode_index(&entries);
        index(&mut ix);
        let mut h = self.header.clone();
        h.metadata_len = m.len() as u32;
        h.index_len = ix.len() as u32;
        h.chunk_count = entries.len() as u32;
        h.data_end = (HEADER_LEN + m.len() + ix.len() + body.len()) as u64;
        let mut covered = m.clone();
        covered.extend_from_slice(&ix);
        h.body_checksum = xxh64(&covered, 0);
        header(&mut h);
        let mut out = h.encode().to_vec();
        out.extend_from_slice(&m);
        out.extend_from_slice(&ix);
        out.extend_from_slice(&body);
        out
    }
}

fn forge() -> Forge {
    Forge::parse(&original().bytes)
}

#[test]
fn the_forge_reassembles_the_original_byte_for_byte() {
    // Guards the forged trials: an unedited forge must be the original file.
    let o = original();
    let mut f = forge();
    assert_eq!(f.assemble(), o.bytes);
    // ... and re-compressing a payload unchanged still reads back the same ticks.
    let p = f.payload(1);
    f.set_payload(1, &p);
    let (got, err) = checked(f.assemble(), "recompressed");
    assert!(err.is_none(), "{err:?}");
    assert_eq!(got, o.ticks);
}

/// Random edits of a byte string, including overlong varints planted at random positions.
fn mutate(rng: &mut fastrand::Rng, b: &mut Vec<u8>) -> String {
    let mut log = Vec::new();
    for _ in 0..rng.usize(1..5) {
        let n = b.len();
        match rng.u8(0..7) {
            0 | 1 if n > 0 => {
                let i = rng.usize(..n);
                b[i] ^= 1 << rng.u8(0..8);
                log.push(format!("flip@{i}"));
            }
            2 if n > 0 => {
                let i = rng.usize(..n);
                b[i] = [0, 0xFF, 0x80, 0x7F, 1, rng.u8(..)][rng.usize(..6)];
                log.push(format!("set@{i}={}", b[i]));
            }
            3 => {
                let i = rng.usize(..=n);
                let k = rng.usize(1..8);
                b.splice(i..i, (0..k).map(|_| rng.u8(..)));
                log.push(format!("insert@{i}x{k}"));
            }
            4 if n > 0 => {
                let i = rng.usize(..n);
                let k = rng.usize(1..8).min(n - i);
                b.drain(i..i + k);
                log.push(format!("remove@{i}x{k}"));
            }
            5 if n > 0 => {
                let i = rng.usize(..n);
                b.truncate(i);
                log.push(format!("truncate@{i}"));
            }
            _ => {
                // A huge varint (2^63 and more) where a small one was.
                let i = rng.usize(..=n);
                let v: u64 =
                    [u64::MAX, 1 << 63, (1 << 32) + 1, u64::from(u32::MAX)][rng.usize(..4)];
                let mut bytes = Vec::new();
                put_uvarint(&mut bytes, v);
                let end = (i + 1).min(n);
                b.splice(i..end, bytes);
                log.push(format!("varint@{i}={v}"));
            }
        }
    }
    log.join(",")
}

#[test]
fn forged_chunk_payloads_give_clean_errors_or_data() {
    let base = forge();
    let payloads: Vec<Vec<u8>> = (0..base.chunks.len()).map(|i| base.payload(i)).collect();
    let mut rng = fastrand::Rng::with_seed(SEED ^ 1);
    let mut errors = 0;
    let trials = 3000;
    for trial in 0..trials {
        let mut f = base.clone();
        let i = rng.usize(..payloads.len());
        let mut p = payloads[i].clone();
        let what = mutate(&mut rng, &mut p);
        f.set_payload(i, &p);
        let (_, err) = checked(f.assemble(), &format!("trial {trial}: chunk {i} {what}"));
        errors += usize::from(err.is_some());
    }
    // Most random edits of a payload break its structure; the decoder must notice.
    assert!(
        errors > trials / 2,
        "only {errors} of {trials} edits detected"
    );
}

#[test]
fn forged_frame_headers_give_clean_errors() {
    let base = forge();
    let mut rng = fastrand::Rng::with_seed(SEED ^ 2);
    let interesting = |rng: &mut fastrand::Rng| -> u32 {
        [
            0,
            1,
            2,
            16,
            4095,
            4096,
            4097,
            1 << 31,
            u32::MAX - 1,
            u32::MAX,
            rng.u32(..),
        ][rng.usize(..11)]
    };
    for trial in 0..2000 {
        let mut f = base.clone();
        let i = rng.usize(..f.chunks.len());
        let c = &mut f.chunks[i];
        let field = rng.u8(0..5);
        match field {
            0 => c.flags = rng.u8(..),
            1 => c.data_version = [0, 2, u16::MAX, rng.u16(..)][rng.usize(..4)],
            2 => c.start_tick = interesting(&mut rng),
            3 => c.tick_count = interesting(&mut rng),
            _ => c.uncompressed_len = interesting(&mut rng),
        }
        let trial = format!("trial {trial}: chunk {i} field {field} = {c:?}");
        checked(f.assemble(), &trial);
    }
}

#[test]
fn forged_metadata_and_index_give_clean_errors() {
    let base = forge();
    let mut rng = fastrand::Rng::with_seed(SEED ^ 3);
    for trial in 0..2000 {
        let mut edit = base.metadata.clone();
        let what = mutate(&mut rng, &mut edit);
        let bytes = base.assemble_with(&|m| *m = edit.clone(), &|_| {}, &|_| {});
        checked(bytes, &format!("trial {trial}: metadata {what}"));
    }
    let honest = {
        let b = base.assemble();
        let h = Header::decode(&b).unwrap();
        let s = HEADER_LEN + h.metadata_len as usize;
        b[s..s + h.index_len as usize].to_vec()
    };
    for trial in 0..2000 {
        let mut edit = honest.clone();
        let what = mutate(&mut rng, &mut edit);
        let bytes = base.assemble_with(&|_| {}, &|ix| *ix = edit.clone(), &|_| {});
        checked(bytes, &format!("trial {trial}: index {what}"));
    }
}

// ---------------------------------------------------------------------------------------------
// Handcrafted hostile files
// ---------------------------------------------------------------------------------------------

/// Opens `bytes` with default limits; returns the first error of open + verify, checking that no
/// single allocation reached 1 MiB on the way.
fn default_limits_error(bytes: Vec<u8>) -> Error {
    let src: Arc<dyn Source> = Arc::new(MemSource::new(bytes));
    let (res, largest) = largest_alloc(|| Reader::open(src).and_then(|r| r.verify()));
    assert!(largest < 1 << 20, "allocated {largest} bytes at once");
    res.expect_err("a hostile file must not verify")
}

/// A one-chunk file whose payload is `payload` (no snapshot), spanning `ticks` ticks from 0.
fn with_payload(payload: &[u8], ticks: u32) -> Vec<u8> {
    let mut f = forge();
    f.chunks.truncate(1);
    f.chunks[0].flags = 0;
    f.chunks[0].tick_count = ticks;
    f.set_payload(0, payload);
    // The header spans the one chunk, as a writer's would (a reader refuses one that does not).
    let first = f.chunks[0].start_tick;
    f.assemble_with(&|_| {}, &|_| {}, &|h| {
        h.first_tick = first;
        h.tick_count = ticks;
    })
}

fn payload_error(payload: &[u8], ticks: u32) -> Error {
    let (_, err) = checked(with_payload(payload, ticks), "handcrafted payload");
    // The same bytes straight into the chunk decoder.
    let direct = DecodedChunk::decode(payload, 0, 0, ticks, &TIGHT);
    let err = err.expect("a hostile payload must not decode");
    assert!(
        direct.is_err(),
        "{err:?} but the decoder accepts the payload"
    );
    err
}

/// The movement section of a payload with one track (entity 1) and no keyframe, snapshot or
/// events: `runs` as (gap, len) varint pairs, `resets` as deltas, then predictor 0 / divisor 1 for
/// every column and `samples` residuals of 0 per column.
fn movement_payload(runs: &[(u64, u64)], resets: &[u64], samples: usize) -> Vec<u8> {
    let mut p = vec![0, 0]; // no keyframe entities, empty event stream
    put_uvarint(&mut p, 1); // one moving entity
    put_uvarint(&mut p, 1); // entity id 1
    put_uvarint(&mut p, runs.len() as u64);
    for &(gap, len) in runs {
        put_uvarint(&mut p, gap);
        put_uvarint(&mut p, len);
    }
    put_uvarint(&mut p, resets.len() as u64);
    for &d in resets {
        put_uvarint(&mut p, d);
    }
    for _ in 0..5 {
        p.push(0);
        put_uvarint(&mut p, 1);
    }
    for _ in 0..5 * samples {
        put_ivarint(&mut p, 0);
    }
    p
}

#[path = "corruption/limits.rs"]
mod limits;

/// A world section's block list that the chunk's checksum cannot tell from a writer's (the file
/// forged with every checksum recomputed) but that no writer writes (a position repeated): a
/// seek onto its snapshot holds the list unread and says the world complete; the first read of
/// the world decodes and refuses it, and from then on the playhead says the world is not
/// complete and why, rather than answering a wrong world. `Reader::world_at` (which reads the
/// lists) says it incomplete, and `verify` refuses the file, naming the chunk.
#[test]
fn a_crafted_block_list_makes_the_world_incomplete_not_wrong() {
    use tickreel::format::{BlockPos, FLAG_WORLD};
    use tickreel::play::{Playhead, Recording};
    use tickreel::record::{ReelOptions, ReelWriter};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.reel");
    let mut w = ReelWriter::create(
        &path,
        ReelOptions {
            chunk_policy: ChunkPolicy {
                chunk_ticks: 10,
                snapshot_interval: 20,
                ..ChunkPolicy::default()
            },
            ..ReelOptions::default()
        },
    )
    .unwrap();
    for t in 0..40u32 {
        let ev: Vec<Event> = (0..if t < 5 { 4 } else { 0 })
            .map(|k| Event::BlockChange {
                pos: BlockPos::new(t as i32 * 4 + k, 64, 0),
                state: 1,
                cause: None,
                block_entity: None,
            })
            .collect();
        w.write_tick(t, &ev).unwrap();
    }
    w.finish().unwrap();
    let intact = Reader::open_path(&path).unwrap();
    let mut forge = Forge::parse(&std::fs::read(&path).unwrap());
    let i = forge
        .chunks
        .iter()
        .position(|c| c.flags & FLAG_WORLD != 0)
        .expect("a snapshot chunk with a world section");
    assert_eq!(forge.chunks[i].data_version, 9);
    let start = forge.chunks[i].start_tick;
    let pos = BlockPos::new(0, 64, 0);
    assert_eq!(
        intact.world_at(start + 2).unwrap().world.block(pos),
        Some(1)
    );
    let crafted = crate::world_state::crafted_list(&forge.payload(i), |list| {
        // the second block's dx: 0 (was +1), its position the first one's
        assert_eq!(list[5], 2);
        list[5] = 0;
    });
    forge.set_payload(i, &crafted);
    let path = dir.path().join("crafted.reel");
    std::fs::write(&path, forge.assemble()).unwrap();

    let mut p = Playhead::new(Recording::open_path(&path).unwrap()).unwrap();
    p.seek(start + 2).unwrap();
    assert!(p.world_complete(), "the lists are not read at the seek");
    assert_eq!(
        p.world_state().block(pos),
        None,
        "a refused list reads as empty"
    );
    assert!(!p.world_complete());
    let e = p.world_state().decode_error().expect("the refusal is kept");
    assert!(e.to_string().contains("not increasing"), "{e}");
    assert!(!p.world_complete(), "from then on");

    let r = Reader::open_path(&path).unwrap();
    let at = r.world_at(start + 2).unwrap();
    assert!(!at.complete);
    assert!(intact.world_at(start + 2).unwrap().complete);
    let e = r.verify().unwrap_err();
    assert!(
        e.to_string().contains("not increasing") && e.to_string().contains(&format!("chunk {i}")),
        "{e}"
    );
}
