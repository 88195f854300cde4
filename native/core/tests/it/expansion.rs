//! Payloads that compress better than a reader accepts (FORMAT.md, sections 6 and 12): a 16 MiB
//! snapshot of zeros, and keyframes of 100,000 identical idle entities. Every writer (the recorder's
//! live segments, the synchronous writer, compaction at level 9) pads them with a zstd skippable
//! frame, so that the recording writes, recovers, compacts, verifies and reads back, and no frame
//! anywhere expands beyond what a reader accepts (FORMAT.md, section 12: 4096 + 256 × its
//! compressed length).

use crate::common;

use std::path::Path;
use std::time::Duration;

use tickreel::format::IndexEntry;
use tickreel::play::Reader;
use tickreel::record::{
    Backpressure, CompactOptions, RecorderOptions, ReelOptions, ReelWriter, compact, recover,
};
use tickreel::storage::live::live_dir_for;
use tickreel::{Engine, EngineOptions, Event, Pose};

// The expansion rule of FORMAT.md, section 12, written out: a reader refuses a payload that
// decompresses to more than `EXPANSION_SLACK + MAX_EXPANSION × compressed` bytes; writers pad
// a payload that would, to the fewest compressed bytes the rule allows.
const EXPANSION_SLACK: u64 = 4096;
const MAX_EXPANSION: u64 = 256;

fn max_uncompressed_len(compressed: u64) -> u64 {
    EXPANSION_SLACK + MAX_EXPANSION * compressed
}

fn min_compressed_len(uncompressed: u64) -> u64 {
    uncompressed
        .saturating_sub(EXPANSION_SLACK)
        .div_ceil(MAX_EXPANSION)
}

const SNAPSHOT: usize = 16 << 20;
const IDLE: u32 = 100_000;
/// Entities added per tick (a tick holds at most 65535 events).
const PER_TICK: u32 = 25_000;
const TICKS: u32 = 60;

/// Tick `t`'s events: the idle entities are added over the first ticks, all at the same pose;
/// afterwards only entity 0 moves. Chunks of 10 ticks then start with a keyframe of 100,000
/// identical entries (ids 1 apart), which zstd compresses far beyond the ratio.
fn tick(t: u32) -> Vec<Event> {
    let first = t * PER_TICK + 1;
    let mut events: Vec<Event> = (first..(first + PER_TICK).min(IDLE + 1))
        .map(|entity| Event::EntityAdd {
            entity,
            kind: 7,
            pose: Pose {
                x: 4096,
                y: 64 * 4096,
                z: -4096,
                yaw: 0,
                pitch: 0,
            },
        })
        .collect();
    events.push(Event::Pose {
        entity: 0,
        pose: Pose {
            x: i64::from(t) * 800,
            ..Pose::default()
        },
    });
    events
}

/// Every frame of `r` is within the ratio; returns how many are padded to exactly the least
/// length a reader accepts (a skippable frame with content can only make that length).
fn padded_frames(r: &Reader) -> usize {
    let mut padded = 0;
    for (i, e) in r.index().iter().enumerate() {
        let (c, u) = (u64::from(e.compressed_len), u64::from(e.uncompressed_len));
        assert!(
            u <= max_uncompressed_len(c),
            "{}: chunk {i} expands {c} bytes to {u}",
            r.describe()
        );
        if min_compressed_len(u) > 0 && c == min_compressed_len(u) {
            padded += 1;
        }
    }
    padded
}

/// Checks a recording written from [`tick`] with the snapshot at tick 0.
fn check(r: &Reader) {
    r.verify().unwrap();
    assert_eq!((r.first_tick(), r.last_tick()), (Some(0), Some(TICKS - 1)));
    let snapshot_chunk: &IndexEntry = &r.index()[0];
    assert!(snapshot_chunk.has_snapshot());
    let first = r.read_chunk(0).unwrap();
    assert_eq!(first.snapshot.as_deref(), Some(&vec![0u8; SNAPSHOT][..]));
    let state = r.seek(TICKS - 1).unwrap();
    assert_eq!(state.entities.len(), IDLE as usize + 1);
    let idle = state.entities.get(IDLE).unwrap();
    assert_eq!((idle.kind, idle.pose.y), (7, 64 * 4096));
    assert_eq!(
        state.entities.get(0).unwrap().pose.x,
        i64::from(TICKS - 1) * 800
    );
    assert!(
        padded_frames(r) >= 1,
        "{}: the snapshot chunk is padded",
        r.describe()
    );
    // The keyframe of 100,000 entities does not cut every tick into a chunk of its own (only the
    // snapshot and the ticks adding 25,000 entities each fill a chunk by themselves).
    assert!(
        r.index().len() <= 12,
        "{}: {} chunks for {TICKS} ticks",
        r.describe(),
        r.index().len()
    );
}

fn record_live(engine: &Engine, path: &Path) {
    let options = RecorderOptions {
        chunk_policy: tickreel::record::ChunkPolicy {
            chunk_ticks: 10,
            ..Default::default()
        },
        flush: common::flush_when_asked(),
        backpressure: Backpressure::Block {
            deadline: Duration::from_secs(30),
        },
        on_existing: tickreel::record::OnExisting::Resume,
        ..RecorderOptions::default()
    };
    let rec = engine.start_recording(path, options).unwrap();
    rec.offer_snapshot(vec![0; SNAPSHOT]).unwrap();
    for t in 0..TICKS {
        rec.submit_tick(t, &common::batch(&tick(t))).unwrap();
        if t % 20 == 19 {
            rec.flush().unwrap();
        }
    }
    rec.flush().unwrap();
    rec.status().unwrap();
    rec.close().unwrap();
}

#[test]
fn the_recorder_pads_its_segments_and_recovery_and_compaction_keep_every_chunk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idle.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    record_live(&engine, &path);
    let live = live_dir_for(&path);
    let before = Reader::open_live(&live).unwrap();
    check(&before);
    // Recovery keeps every chunk: none is refused as expanding too far.
    let report = recover(&live).unwrap();
    assert_eq!(report.chunks_oversized, 0, "{report}");
    assert_eq!(report.chunks_kept, before.index().len(), "{report}");
    check(&Reader::open_live(&live).unwrap());
    // Compaction at level 9 re-chunks and recompresses: padded again.
    let out = dir.path().join("compacted.reel");
    compact(
        &Reader::open_live(&live).unwrap(),
        &out,
        CompactOptions::default(),
        &mut |_, _| {},
    )
    .unwrap();
    check(&Reader::open_path(&out).unwrap());
    // And the recording's own finish (resumed, one more flush, compaction worker) too.
    let rec = engine
        .start_recording(
            &path,
            RecorderOptions {
                backpressure: Backpressure::Block {
                    deadline: Duration::from_secs(30),
                },
                on_existing: tickreel::record::OnExisting::Resume,
                ..RecorderOptions::default()
            },
        )
        .unwrap();
    rec.finish().unwrap().wait().unwrap();
    engine.shutdown();
    check(&Reader::open_path(&path).unwrap());
}

#[test]
fn the_synchronous_writer_pads_its_frames() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sync.reel");
    let mut options = ReelOptions::compacted();
    options.chunk_policy.chunk_ticks = 10;
    let mut w = ReelWriter::create(&path, options).unwrap();
    w.offer_snapshot(vec![0; SNAPSHOT]).unwrap();
    for t in 0..TICKS {
        w.write_tick(t, &tick(t)).unwrap();
    }
    w.finish().unwrap();
    check(&Reader::open_path(&path).unwrap());
}
