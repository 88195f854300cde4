//! Compaction copies a chunk that needs no re-encoding (one at least half the size a compacted
//! chunk is cut at) as it is, and re-encodes and merges the small ones around it: the result
//! reads exactly as the source does, tick by tick and seek by seek.

use tickreel::Event;
use tickreel::play::Reader;
use tickreel::record::{ChunkPolicy, CompactOptions, ReelOptions, ReelWriter, compact};
use tickreel_sim::{SimConfig, Simulator};

/// 100 players for 400 ticks (dense: chunks over 32 KiB), then 2 of them for 1,000 ticks
/// (sparse: small chunks), then 100 again: written with the recorder's policy (100-tick chunks,
/// level 3).
fn source(path: &std::path::Path) -> Vec<(u32, Vec<Event>)> {
    let mut sim = Simulator::new(SimConfig {
        players: 100,
        seed: 3,
        ..SimConfig::default()
    });
    let mut w = ReelWriter::create(
        path,
        ReelOptions {
            chunk_policy: ChunkPolicy::default(),
            ..ReelOptions::compacted()
        },
    )
    .unwrap();
    let mut ticks = Vec::new();
    for _ in 0..1800u32 {
        let (t, mut ev) = sim.step();
        if (400..1400).contains(&t) {
            ev.retain(|e| e.entity().is_some_and(|id| id <= 2));
        }
        w.write_tick(t, &ev).unwrap();
        ticks.push((t, ev));
    }
    w.finish().unwrap();
    ticks
}

#[test]
fn big_chunks_are_copied_and_small_ones_merged_and_everything_reads_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let src_path = dir.path().join("src.reel");
    source(&src_path);
    let src = Reader::open_path(&src_path).unwrap();
    let out = dir.path().join("out.reel");
    let rep = compact(&src, &out, CompactOptions::default(), &mut |_, _| {}).unwrap();
    let back = Reader::open_path(&out).unwrap();

    // The big chunks are in the output byte for byte; the small ones were merged.
    let big: Vec<usize> = (0..src.index().len())
        .filter(|&i| src.index()[i].uncompressed_len >= 32 << 10)
        .collect();
    assert!(big.len() >= 8, "{} big chunks", big.len());
    for &i in &big {
        let e = &src.index()[i];
        let j = back
            .index()
            .iter()
            .position(|o| o.start_tick == e.start_tick)
            .expect("a copied chunk keeps its start");
        assert_eq!(back.index()[j].tick_count, e.tick_count);
        assert_eq!(
            back.read_compressed(j).unwrap(),
            src.read_compressed(i).unwrap()
        );
    }
    assert!(rep.chunks_out < rep.chunks_in - 5, "{rep:?}");

    // Everything reads as the source does.
    let all = |r: &Reader| {
        r.ticks(0, u32::MAX)
            .collect::<tickreel::Result<Vec<_>>>()
            .unwrap()
    };
    assert_eq!(all(&back), all(&src));
    assert_eq!(
        (back.first_tick(), back.last_tick()),
        (src.first_tick(), src.last_tick())
    );
    for t in (0..1800)
        .step_by(37)
        .chain([399, 400, 401, 1399, 1400, 1799])
    {
        assert_eq!(
            back.seek(t).unwrap().entities,
            src.seek(t).unwrap().entities,
            "tick {t}"
        );
    }
    let (s, b) = (
        &src.metadata().library.stats,
        &back.metadata().library.stats,
    );
    assert_eq!(
        (b.events, b.pose_samples, b.uncompressed_bytes > 0),
        (s.events, s.pose_samples, true)
    );
    assert_eq!(
        back.verify().unwrap().pose_samples,
        src.verify().unwrap().pose_samples
    );
}
