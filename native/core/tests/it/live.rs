//! The live write path: resume, second writer, compaction equality, torn writes, short runs.
//! (A full queue, backpressure and endings behind it: `full_queue.rs`.)

use crate::common;

use std::path::Path;
use std::time::Duration;

use tickreel::format::EntityTable;
use tickreel::play::Reader;
use tickreel::record::recover;
use tickreel::storage::live::{list_segments, live_dir_for, segment_name};
use tickreel::{Engine, EngineOptions, Error, RecorderOptions};

use crate::common::batch;

/// Straight-decoded states per tick.
fn states(r: &Reader) -> Vec<(u32, EntityTable)> {
    let mut t = EntityTable::default();
    r.ticks(0, u32::MAX)
        .map(|d| {
            let d = d.unwrap();
            for e in &d.events {
                t.apply(e);
            }
            (d.tick, t.clone())
        })
        .collect()
}

#[test]
fn resume_after_clean_stop_then_compaction_equals_input() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.reel");
    let ticks = common::sim_ticks(6, 900, 3);
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, common::small_flush())
        .unwrap();
    for (t, e) in &ticks[..400] {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    rec.flush().unwrap();
    rec.status().unwrap();
    drop(rec); // clean stop: stays resumable
    engine.shutdown();
    assert!(live_dir_for(&path).is_dir());
    assert!(!path.exists());

    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, common::small_flush())
        .unwrap();
    // Recovered on a thread of its own: where it ends is known once that is done.
    assert_eq!(
        rec.wait_resumed(Duration::from_secs(30)).unwrap(),
        Some(399)
    );
    assert_eq!(rec.stats().flushed_tick, Some(399));
    // a tick at or before the resumed end is refused
    assert!(matches!(
        rec.submit_tick(399, &batch(&[])),
        Err(Error::InvalidArgument(_))
    ));
    for (t, e) in &ticks[400..] {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    rec.flush().unwrap();
    let live = Reader::open_live(live_dir_for(&path)).unwrap();
    let live_states = states(&live);
    let live_ticks: Vec<_> = live.ticks(0, u32::MAX).map(|t| t.unwrap()).collect();
    assert_eq!(live_states, common::expected_states(&ticks));
    let out = rec.finish().unwrap().wait().unwrap();
    assert_eq!(out, path);
    assert!(
        !live_dir_for(&path).exists(),
        "segments removed after compaction"
    );
    let compacted = Reader::open_path(&path).unwrap();
    compacted.verify().unwrap();
    let compacted_ticks: Vec<_> = compacted.ticks(0, u32::MAX).map(|t| t.unwrap()).collect();
    assert_eq!(
        compacted_ticks, live_ticks,
        "compaction output equals the live data"
    );
    let analysis = compacted
        .metadata()
        .library
        .analysis
        .as_ref()
        .expect("analysis");
    let fastnbt::Value::Compound(a) = analysis else {
        panic!()
    };
    let Some(fastnbt::Value::List(ents)) = a.get("entities") else {
        panic!("{a:?}")
    };
    assert!(ents.len() >= 6, "one analysis entry per entity");
    let Some(fastnbt::Value::Float(total)) = a.get("distance") else {
        panic!("{a:?}")
    };
    assert!(*total > 100.0, "players walked: {total}");
    engine.shutdown();
}

#[test]
fn a_second_writer_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, common::small_flush())
        .unwrap();
    assert!(matches!(
        engine.start_recording(&path, common::small_flush()),
        Err(Error::Locked(_))
    ));
    // once the live directory exists, another engine (as another process would) is refused by the lock
    rec.submit_tick(0, &batch(&common::sim_ticks(1, 1, 1)[0].1))
        .unwrap();
    rec.flush().unwrap();
    let other = Engine::new(EngineOptions::default()).unwrap();
    assert!(matches!(
        other.start_recording(&path, common::small_flush()),
        Err(Error::Locked(_))
    ));
    rec.abort().unwrap();
    assert!(
        !live_dir_for(&path).exists(),
        "abort removes the live directory"
    );
    // after the first writer is gone the path is free again
    let again = other.start_recording(&path, common::small_flush()).unwrap();
    again.abort().unwrap();
}

#[test]
fn a_finished_file_is_not_overwritten_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("done.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, RecorderOptions::default())
        .unwrap();
    rec.submit_tick(5, &batch(&common::sim_ticks(1, 1, 1)[0].1))
        .unwrap();
    rec.finish().unwrap().wait().unwrap();
    // A file in the way: an I/O error of kind AlreadyExists at the path (Java's
    // FileAlreadyExistsException).
    let refused = engine.start_recording(&path, RecorderOptions::default());
    assert!(
        matches!(&refused, Err(e) if e.io_kind() == Some(std::io::ErrorKind::AlreadyExists)
            && e.path() == Some(path.as_path())),
        "{refused:?}"
    );
    assert!(matches!(
        rec.submit_tick(6, &batch(&[])),
        Err(Error::InvalidState(_))
    ));
    assert!(matches!(rec.finish(), Err(Error::InvalidState(_))));
}

#[test]
fn malformed_batches_are_refused_without_harm() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, RecorderOptions::default())
        .unwrap();
    let ticks = common::sim_ticks(2, 10, 9);
    rec.submit_tick(0, &batch(&ticks[0].1)).unwrap();
    assert!(matches!(
        rec.submit_tick(1, &[0]),
        Err(Error::InvalidArgument(_))
    ));
    // passes the O(1) checks, refused by the writer thread
    rec.submit_tick(2, &[0, 1, 0x33, 0x44]).unwrap();
    rec.submit_tick(3, &batch(&ticks[1].1)).unwrap();
    rec.flush().unwrap();
    assert_eq!(rec.stats().rejected_ticks, 1);
    assert!(rec.status().is_err());
    let out = rec.finish().unwrap().wait().unwrap();
    let r = Reader::open_path(out).unwrap();
    let got: Vec<u32> = r.ticks(0, 100).map(|t| t.unwrap().tick).collect();
    assert_eq!(got, vec![0, 3]);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_name() != "lock" {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn a_segment_cut_at_every_byte_of_its_last_frame_recovers_to_the_previous_frame() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("torn.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, common::small_flush())
        .unwrap();
    let ticks = common::sim_ticks(3, 120, 11);
    for (t, e) in &ticks {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    rec.flush().unwrap();
    drop(rec);
    engine.shutdown();
    let live = live_dir_for(&path);
    let before = Reader::open_live(&live).unwrap();
    let n = before.index().len();
    assert!(n >= 3);
    let last = before.index()[n - 1];
    let prev_end = (before.index()[n - 2].end_tick() - 1) as u32;
    let expected = states(&before);
    let seg = list_segments(&live).unwrap().into_iter().max().unwrap();
    assert_eq!(last.segment(), seg);
    let start = u64::from(last.segment_offset());
    let end = start + 36 + u64::from(last.compressed_len);
    for cut in start..end {
        let work = dir.path().join(format!("cut-{cut}"));
        copy_dir(&live, &work);
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(work.join(segment_name(seg)))
            .unwrap();
        f.set_len(cut).unwrap();
        drop(f);
        let report = recover(&work).unwrap();
        assert_eq!(report.bytes_truncated, cut - start, "cut {cut}");
        let r = Reader::open_live(&work).unwrap();
        r.verify().unwrap();
        assert_eq!(r.index().len(), n - 1, "cut {cut}");
        assert_eq!(r.last_tick(), Some(prev_end));
        let got = states(&r);
        assert_eq!(got[..], expected[..got.len()]);
        std::fs::remove_dir_all(&work).unwrap();
    }
}

#[test]
fn a_damaged_metadata_file_is_rebuilt_from_the_segments() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("meta.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, common::small_flush())
        .unwrap();
    let ticks = common::sim_ticks(3, 200, 12);
    for (t, e) in &ticks {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    rec.flush().unwrap();
    drop(rec);
    engine.shutdown();
    let live = live_dir_for(&path);
    std::fs::write(live.join("meta.tkrl"), b"garbage").unwrap();
    let report = recover(&live).unwrap();
    assert!(report.metadata_rebuilt);
    let r = Reader::open_live(&live).unwrap();
    assert_eq!(states(&r), common::expected_states(&ticks));
}

#[test]
fn a_registered_dictionary_compresses_live_and_compacted_chunks() {
    use tickreel::record::CompactOptions;
    // train on payload-like samples: encoded ticks of other simulated sessions
    let samples: Vec<Vec<u8>> = (0..200u64)
        .map(|s| {
            let ticks = common::sim_ticks(4, 50, 1000 + s);
            ticks.iter().flat_map(|(_, e)| batch(e)).collect()
        })
        .collect();
    let dict = tickreel::dictionary::train(&samples, 16 << 10, 4242).unwrap();
    assert_eq!(tickreel::dictionary::register(&dict).unwrap(), 4242);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dict.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let mut opts = common::small_flush();
    opts.identity.dictionary_id = 4242;
    opts.compaction = CompactOptions {
        zstd_level: 12,
        ..CompactOptions::default()
    };
    let rec = engine.start_recording(&path, opts).unwrap();
    let ticks = common::sim_ticks(4, 300, 77);
    for (t, e) in &ticks {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    rec.flush().unwrap();
    let out = rec.finish().unwrap().wait().unwrap();
    let r = Reader::open_path(&out).unwrap();
    assert_eq!(r.header().dictionary_id, 4242);
    assert_eq!(states(&r), common::expected_states(&ticks));
    // an unregistered dictionary id is a clear error, not garbage
    let mut bytes = std::fs::read(&out).unwrap();
    let mut h = tickreel::format::Header::decode(&bytes).unwrap();
    h.dictionary_id = 999;
    bytes[..256].copy_from_slice(&h.encode());
    let other = dir.path().join("other.reel");
    std::fs::write(&other, bytes).unwrap();
    let e = Reader::open_path(&other).unwrap_err();
    assert!(matches!(e, Error::Unsupported(_)), "{e}");
    assert!(
        e.to_string()
            .contains("zstd dictionary 999 is not registered"),
        "{e}"
    );
}

#[test]
fn close_is_synchronous_and_a_stopped_engine_opens_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("close.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let ticks = common::sim_ticks(2, 40, 21);
    let rec = engine
        .start_recording(&path, common::small_flush())
        .unwrap();
    for (t, e) in &ticks[..20] {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    rec.close().unwrap();
    assert!(matches!(rec.close(), Err(Error::InvalidState(_))));
    // the path is free (and resumable) as soon as close returns
    let again = engine
        .start_recording(&path, common::small_flush())
        .unwrap();
    assert_eq!(
        again.wait_resumed(Duration::from_secs(30)).unwrap(),
        Some(19)
    );
    assert_eq!(again.stats().flushed_tick, Some(19));
    for (t, e) in &ticks[20..] {
        again.submit_tick(*t, &batch(e)).unwrap();
    }
    let out = again.finish().unwrap().wait().unwrap();
    assert_eq!(
        states(&Reader::open_path(out).unwrap()),
        common::expected_states(&ticks)
    );
    // shutdown from two threads at once: both return, and nothing opens afterwards
    let e2 = engine.clone();
    let t = std::thread::spawn(move || e2.shutdown());
    engine.shutdown();
    t.join().unwrap();
    assert!(matches!(
        engine.start_recording(dir.path().join("late.reel"), RecorderOptions::default()),
        Err(Error::InvalidState(_))
    ));
}

#[test]
fn empty_ticks_at_the_edges_survive_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let one = &common::sim_ticks(1, 1, 3)[0].1;
    // a server that starts recording before anyone joins, and keeps recording after they leave
    for (n, flush) in [(0, false), (1, true)] {
        let path = dir.path().join(format!("empty-{n}.reel"));
        let rec = engine
            .start_recording(&path, common::small_flush())
            .unwrap();
        rec.submit_tick(1, &batch(&[])).unwrap();
        rec.submit_tick(3, &batch(&[])).unwrap();
        if flush {
            rec.flush().unwrap();
        }
        rec.submit_tick(5, &batch(one)).unwrap();
        rec.submit_tick(9, &batch(&[])).unwrap();
        let out = rec.finish().unwrap().wait().unwrap();
        let r = Reader::open_path(out).unwrap();
        assert_eq!((r.first_tick(), r.last_tick()), (Some(1), Some(9)));
        r.verify().unwrap();
    }
    // only empty ticks
    let path = dir.path().join("only-empty.reel");
    let rec = engine
        .start_recording(&path, common::small_flush())
        .unwrap();
    rec.submit_tick(2, &batch(&[])).unwrap();
    rec.submit_tick(4, &batch(&[])).unwrap();
    let out = rec.finish().unwrap().wait().unwrap();
    let r = Reader::open_path(out).unwrap();
    assert_eq!((r.first_tick(), r.last_tick()), (Some(2), Some(4)));
}
