//! Compaction keeps the world (issue 47): every snapshot's world, keyframe or delta section,
//! resolved as readers resolve it and carried into the compacted file, so that the world rebuilt
//! at every tick (and whether it is known there) is the source's, on the shapes the adversarial
//! pass crafted and on recordings of the simulator; what readers refuse, compaction refuses with
//! the reader's own error.

use std::path::Path;

use tickreel::format::FLAG_WORLD;
use tickreel::play::Reader;
use tickreel::record::{ChunkPolicy, CompactOptions, compact};
use tickreel::{Error, Event};

use crate::common::world_shapes::{
    big_keyframe, keyframe_gone, metadata, reader_of, refused, report_shaped,
};

/// Compacts `source` into `dir/name` and opens the result.
fn compacted(source: &Reader, dir: &Path, name: &str) -> Reader {
    let out = dir.join(name);
    compact(source, &out, CompactOptions::default(), &mut |_, _| {}).unwrap();
    Reader::open_path(&out).unwrap()
}

/// The world at every tick of `a` equals `b`'s, and whether it is known there (`complete`);
/// returns the most edited blocks seen at a tick.
fn same_world_at_every_tick(a: &Reader, b: &Reader, what: &str) -> usize {
    assert_eq!(
        (a.first_tick(), a.last_tick()),
        (b.first_tick(), b.last_tick()),
        "{what}: span"
    );
    let mut most = 0;
    for t in a.first_tick().unwrap()..=a.last_tick().unwrap() {
        let (x, y) = (a.world_at(t).unwrap(), b.world_at(t).unwrap());
        assert_eq!(x.complete, y.complete, "{what}: complete at tick {t}");
        assert!(x.world == y.world, "{what}: world at tick {t}");
        most = most.max(x.world.block_count());
    }
    most
}

#[test]
fn a_report_shaped_file_compacts_with_its_first_keyframe_world() {
    let dir = tempfile::tempdir().unwrap();
    let source = reader_of(&report_shaped(), metadata(true));
    let at = source.world_at(100).unwrap();
    assert!(
        at.complete && at.world.block_count() == 500,
        "the forged keyframe"
    );
    assert_eq!(at.world.entity(2).and_then(|e| e.health), Some(1500));
    let out = compacted(&source, dir.path(), "report.reel");
    assert!(out.metadata().library.starts_mid_world);
    let most = same_world_at_every_tick(&source, &out, "report-shaped");
    assert!(most >= 560, "{most} blocks");
    // The entity alive before its first tick is there, with its kind.
    let first = out.read_chunk(0).unwrap();
    assert_eq!(first.keyframe.len(), 1);
    assert_eq!(first.keyframe, source.read_chunk(0).unwrap().keyframe);
    out.verify().unwrap();
}

#[test]
fn a_big_keyframe_and_its_deltas_compact_whole() {
    let dir = tempfile::tempdir().unwrap();
    let frames = big_keyframe(100_000, 64);
    let source = reader_of(&frames, metadata(false));
    // one keyframe of 100,000 blocks, then 63 deltas on it (the writer's rule) and a keyframe
    let worlds = frames
        .iter()
        .filter(|f| f.header.flags & FLAG_WORLD != 0)
        .count();
    assert_eq!(worlds, 65);
    let out = compacted(&source, dir.path(), "big.reel");
    let most = same_world_at_every_tick(&source, &out, "big keyframe");
    assert!(most >= 100_000, "{most} blocks");
    // The compacted file writes deltas too, not a keyframe of 100,000 blocks per snapshot.
    let size = std::fs::metadata(dir.path().join("big.reel"))
        .unwrap()
        .len();
    assert!(size < 4 << 20, "{size} bytes");
}

#[test]
fn a_file_without_its_first_keyframe_compacts_with_its_world_unknown_there() {
    let dir = tempfile::tempdir().unwrap();
    let source = reader_of(&keyframe_gone(), metadata(true));
    let first = source.first_tick().unwrap();
    assert!(!source.world_at(first).unwrap().complete);
    let out = compacted(&source, dir.path(), "gone.reel");
    same_world_at_every_tick(&source, &out, "keyframe gone");
    // And the same window cut mid-chunk: no snapshot at its first tick.
    let frames: Vec<_> = report_shaped()
        .into_iter()
        .skip_while(|f| f.header.start_tick < 140)
        .collect();
    assert_eq!(frames[0].header.flags & FLAG_WORLD, 0);
    let source = reader_of(&frames, metadata(true));
    let out = compacted(&source, dir.path(), "mid.reel");
    assert!(!out.world_at(140).unwrap().complete);
    same_world_at_every_tick(&source, &out, "mid-chunk window");
}

#[test]
fn files_readers_refuse_compaction_refuses_with_the_readers_error() {
    let dir = tempfile::tempdir().unwrap();
    for (what, frames) in refused() {
        let source = reader_of(&frames, metadata(true));
        let read = source
            .verify()
            .err()
            .unwrap_or_else(|| panic!("{what}: verified"));
        let out = dir.path().join("out.reel");
        let e = compact(&source, &out, CompactOptions::default(), &mut |_, _| {})
            .err()
            .unwrap_or_else(|| panic!("{what}: compacted"));
        assert!(matches!(e, Error::Corrupt(_)), "{what}: {e}");
        assert_eq!(e.to_string(), read.to_string(), "{what}");
        assert!(!out.exists(), "{what}: nothing published");
    }
}

#[test]
fn simulated_recordings_with_block_events_compact_with_the_same_world() {
    let dir = tempfile::tempdir().unwrap();
    use tickreel_sim::realistic::{RealisticConfig, RealisticSim};
    let mut sim = RealisticSim::with_world(
        RealisticConfig {
            players: 4,
            entities_per_player: 10,
            ..RealisticConfig::default()
        },
        tickreel_sim::world::WorldRates {
            break_per_tick: 0.2,
            place_per_tick: 0.1,
            ..Default::default()
        },
    );
    let ticks: Vec<(u32, Vec<Event>)> = (0..1200).map(|_| sim.step()).collect();
    let blocks = ticks
        .iter()
        .flat_map(|(_, e)| e)
        .filter(|e| matches!(e, Event::BlockChange { .. } | Event::BlockChanges { .. }))
        .count();
    assert!(blocks > 50, "{blocks} block events");
    for (name, policy) in [
        // small chunks and frequent snapshots: many delta sections, re-chunked by compaction
        (
            "small.reel",
            ChunkPolicy {
                chunk_ticks: 20,
                snapshot_interval: 60,
                ..ChunkPolicy::default()
            },
        ),
        // the recorder's defaults
        ("default.reel", ChunkPolicy::default()),
    ] {
        let path = dir.path().join(name);
        crate::common::write_reel(&path, &ticks, policy);
        let source = Reader::open_path(&path).unwrap();
        let out = compacted(&source, dir.path(), &format!("c-{name}"));
        let most = same_world_at_every_tick(&source, &out, name);
        assert!(most > 0, "{name}");
    }
}
