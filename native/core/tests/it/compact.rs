//! Compaction: the analysis metadata, verification before publication, no silent overwrite of
//! another writer's file, dictionaries, and the finish handle.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use fastnbt::Value;
use tickreel::format::DecodedTick;
use tickreel::format::Limits;
use tickreel::play::{Reader, ReaderOptions};
use tickreel::record::{
    ChunkPolicy, CompactOptions, FlushPolicy, ReelOptions, ReelWriter, compact,
};
use tickreel::storage::live::live_dir_for;
use tickreel::{Engine, EngineOptions, Error, Event, Pose, RecorderOptions};

use crate::common::batch;

fn at(x: f64, y: f64, z: f64) -> Pose {
    Pose::from_f64(x, y, z, 0.0, 0.0)
}

/// Ticks 1..=20 (1 and 20 empty). Entity 1 walks a known path (5 + 0 + 6 + 5 blocks, then turns);
/// entity 2 walks 3 blocks, is removed, re-added 127 blocks away and walks 5 more, then leaves;
/// entity 3 walks 4, teleports, walks 3 + 4; entity 4 is added and removed in the same tick;
/// entity 6 appears by a bare pose (no add) and walks 3.
fn known_paths() -> Vec<(u32, Vec<Event>)> {
    let u = |v: f64| (v * 4096.0) as i64;
    vec![
        (1, vec![]),
        (
            2,
            vec![Event::EntityAdd {
                entity: 1,
                kind: 147,
                pose: at(0.0, 64.0, 0.0),
            }],
        ),
        (
            3,
            vec![
                Event::Pose {
                    entity: 1,
                    pose: at(3.0, 64.0, 4.0),
                },
                Event::EntityAdd {
                    entity: 2,
                    kind: 147,
                    pose: at(10.0, 70.0, 10.0),
                },
            ],
        ),
        (
            4,
            vec![
                Event::Pose {
                    entity: 1,
                    pose: at(3.0, 64.0, 4.0),
                },
                Event::Pose {
                    entity: 2,
                    pose: at(10.0, 70.0, 13.0),
                },
            ],
        ),
        (
            5,
            vec![
                Event::EntityRemove { entity: 2 },
                Event::EntityAdd {
                    entity: 3,
                    kind: 54,
                    pose: at(-5.0, 64.0, -5.0),
                },
            ],
        ),
        (
            6,
            vec![
                Event::Pose {
                    entity: 1,
                    pose: at(3.0, 64.0, 10.0),
                },
                Event::Pose {
                    entity: 3,
                    pose: at(-5.0, 64.0, -1.0),
                },
            ],
        ),
        (
            7,
            vec![Event::Teleport {
                entity: 3,
                pose: at(50.0, 80.0, 50.0),
            }],
        ),
        (
            8,
            vec![
                Event::EntityAdd {
                    entity: 2,
                    kind: 147,
                    pose: at(100.0, 70.0, 100.0),
                },
                Event::Pose {
                    entity: 3,
                    pose: at(50.0, 80.0, 53.0),
                },
            ],
        ),
        (
            9,
            vec![
                Event::Position {
                    entity: 1,
                    x: u(6.0),
                    y: u(60.0),
                    z: u(10.0),
                },
                Event::Pose {
                    entity: 2,
                    pose: at(103.0, 70.0, 104.0),
                },
            ],
        ),
        (
            10,
            vec![Event::Flags {
                entity: 1,
                flags: 1,
            }],
        ),
        (
            11,
            vec![Event::Rotation {
                entity: 1,
                yaw: 16384,
                pitch: 0,
            }],
        ),
        (
            12,
            vec![
                Event::PlayerLeave { entity: 2 },
                Event::Pose {
                    entity: 3,
                    pose: at(50.0, 84.0, 53.0),
                },
            ],
        ),
        (
            13,
            vec![
                Event::EntityAdd {
                    entity: 4,
                    kind: 1,
                    pose: at(1.0, 1.0, 1.0),
                },
                Event::EntityRemove { entity: 4 },
            ],
        ),
        (
            14,
            vec![Event::Pose {
                entity: 6,
                pose: at(2.0, 2.0, 2.0),
            }],
        ),
        (
            15,
            vec![Event::Pose {
                entity: 6,
                pose: at(2.0, 2.0, 5.0),
            }],
        ),
        (
            17,
            vec![Event::Checkpoint {
                entity: 1,
                index: 1,
            }],
        ),
        (20, vec![]),
    ]
}

#[derive(Debug, Clone, PartialEq)]
struct EntityFigures {
    id: u32,
    ticks: u32,
    distance: f64,
    bbox: [f64; 6],
}

#[derive(Debug, Clone, PartialEq)]
struct Totals {
    distance: f64,
}

fn expected_known_paths() -> (Vec<EntityFigures>, Totals) {
    let e = |id, ticks, distance, bbox| EntityFigures {
        id,
        ticks,
        distance,
        bbox,
    };
    (
        vec![
            e(1, 19, 16.0, [0.0, 60.0, 0.0, 6.0, 64.0, 10.0]),
            e(2, 6, 8.0, [10.0, 70.0, 10.0, 103.0, 70.0, 104.0]),
            e(3, 16, 11.0, [-5.0, 64.0, -5.0, 50.0, 84.0, 53.0]),
            e(4, 0, 0.0, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
            e(6, 7, 3.0, [2.0, 2.0, 2.0, 2.0, 2.0, 5.0]),
        ],
        Totals { distance: 38.0 },
    )
}

fn int(c: &std::collections::HashMap<String, Value>, k: &str) -> u32 {
    match c.get(k) {
        Some(Value::Int(v)) => *v as u32,
        other => panic!("analysis key {k}: {other:?} in {c:?}"),
    }
}

fn float(c: &std::collections::HashMap<String, Value>, k: &str) -> f64 {
    match c.get(k) {
        Some(Value::Float(v)) => f64::from(*v),
        other => panic!("analysis key {k}: {other:?} in {c:?}"),
    }
}

fn bbox(v: Option<&Value>) -> Option<[f64; 6]> {
    let Value::List(l) = v? else {
        panic!("bbox is not a list: {v:?}")
    };
    let d: Vec<f64> = l
        .iter()
        .map(|x| match x {
            Value::Float(f) => f64::from(*f),
            other => panic!("bbox entry {other:?}"),
        })
        .collect();
    Some(d.try_into().expect("six values"))
}

fn analysis(r: &Reader) -> (Vec<EntityFigures>, Totals) {
    let Some(Value::Compound(a)) = &r.metadata().library.analysis else {
        panic!("no analysis: {:?}", r.metadata().library)
    };
    let Some(Value::List(list)) = a.get("entities") else {
        panic!("{a:?}")
    };
    let entities = list
        .iter()
        .map(|c| {
            let Value::Compound(c) = c else { panic!() };
            EntityFigures {
                id: int(c, "id"),
                ticks: int(c, "ticks"),
                distance: float(c, "distance"),
                bbox: bbox(c.get("bbox")).expect("entity bbox"),
            }
        })
        .collect();
    let totals = Totals {
        distance: float(a, "distance"),
    };
    // Of the totals only the distance is stored: the span is in the header, the count is the
    // list's length, the overall box the union of the entities' boxes.
    assert!(
        ["ticks", "entity_count", "bbox"]
            .iter()
            .all(|k| !a.contains_key(*k))
    );
    (entities, totals)
}

/// `ticks` is defined as the ticks of the recording's span after which the entity is in the
/// entity table (what `seek` gives): check the figures against that definition too.
fn check_ticks_against_seek(r: &Reader, figures: &[EntityFigures]) {
    let (first, last) = (r.first_tick().unwrap(), r.last_tick().unwrap());
    for f in figures {
        let n = (first..=last)
            .filter(|t| r.seek(*t).unwrap().entities.contains(f.id))
            .count();
        assert_eq!(n as u32, f.ticks, "entity {}", f.id);
    }
}

fn all_ticks(r: &Reader) -> Vec<DecodedTick> {
    r.ticks(0, u32::MAX).map(|t| t.unwrap()).collect()
}

fn names(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Small chunks, and flushed only when the test says so (not at a `PlayerLeave`, not by time).
fn small_chunks() -> RecorderOptions {
    let mut o = RecorderOptions {
        flush: FlushPolicy {
            interval: std::time::Duration::from_secs(3600),
            on_player_leave: false,
            ..FlushPolicy::default()
        },
        ..RecorderOptions::default()
    };
    o.chunk.chunk_ticks = 4;
    o
}

#[test]
fn analysis_gives_exact_figures_through_compact() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src.reel");
    common::write_reel(
        &src,
        &known_paths(),
        ChunkPolicy {
            chunk_ticks: 4,
            ..ChunkPolicy::default()
        },
    );
    let source = Reader::open_path(&src).unwrap();
    for chunk_ticks in [100, 3] {
        let out = dir.path().join(format!("out-{chunk_ticks}.reel"));
        let options = CompactOptions {
            chunk_ticks,
            ..CompactOptions::default()
        };
        compact(&source, &out, options, &mut |_, _| {}).unwrap();
        let r = Reader::open_path(&out).unwrap();
        assert_eq!(all_ticks(&r), all_ticks(&source));
        let (entities, totals) = analysis(&r);
        assert_eq!((entities.clone(), totals), expected_known_paths());
        check_ticks_against_seek(&r, &entities);
    }
}

#[test]
fn analysis_gives_exact_figures_through_recorder_finish() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    // never flushed (compacted from memory) and flushed midway (compacted from the live directory)
    for flush_after in [None, Some(9)] {
        let path = dir.path().join(format!("rec-{flush_after:?}.reel"));
        let rec = engine.start_recording(&path, small_chunks()).unwrap();
        for (t, e) in known_paths() {
            rec.submit_tick(t, &batch(&e)).unwrap();
            if Some(t) == flush_after {
                rec.flush().unwrap();
                assert!(live_dir_for(&path).is_dir());
            }
        }
        assert_eq!(live_dir_for(&path).is_dir(), flush_after.is_some());
        let out = rec.finish().unwrap().wait().unwrap();
        let r = Reader::open_path(&out).unwrap();
        let (entities, totals) = analysis(&r);
        assert_eq!(
            (entities.clone(), totals),
            expected_known_paths(),
            "flush after {flush_after:?}"
        );
        check_ticks_against_seek(&r, &entities);
    }
    engine.shutdown();
}

#[test]
fn an_empty_recording_has_empty_analysis_totals() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("empty.reel");
    common::write_reel(&src, &[(3, vec![]), (7, vec![])], ChunkPolicy::default());
    let out = dir.path().join("out.reel");
    compact(
        &Reader::open_path(&src).unwrap(),
        &out,
        CompactOptions::default(),
        &mut |_, _| {},
    )
    .unwrap();
    let (entities, totals) = analysis(&Reader::open_path(&out).unwrap());
    assert!(entities.is_empty());
    assert_eq!(totals, Totals { distance: 0.0 });
}

#[test]
fn a_failed_reel_writer_finish_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("taken.reel");
    // the final path is a directory: publication fails after the file was written
    std::fs::create_dir(&out).unwrap();
    let mut w = ReelWriter::create(&out, ReelOptions::compacted()).unwrap();
    for (t, e) in known_paths() {
        w.write_tick(t, &e).unwrap();
    }
    assert!(w.finish().is_err());
    assert_eq!(names(dir.path()), set(&["taken.reel"]));
    assert!(out.is_dir());
}

/// Rewrites the compacted file at `path` with one more user metadata key (shifting the index).
fn with_user_metadata(path: &Path, key: &str, value: Value) {
    use tickreel::format::Metadata;
    use tickreel::format::wire::{decode_index, encode_index};
    use tickreel::format::{HEADER_LEN, Header};
    let bytes = std::fs::read(path).unwrap();
    let mut h = Header::decode(&bytes).unwrap();
    let (m, i) = (h.metadata_len as usize, h.index_len as usize);
    let mut meta = Metadata::decode(&bytes[HEADER_LEN..HEADER_LEN + m]).unwrap();
    let mut index =
        decode_index(&bytes[HEADER_LEN + m..HEADER_LEN + m + i], h.chunk_count).unwrap();
    meta.user.insert(key.into(), value);
    let meta = meta.encode().unwrap();
    let shift = (meta.len() - m) as u64;
    for e in &mut index {
        e.offset += shift;
    }
    let index = encode_index(&index);
    assert_eq!(index.len(), i);
    let mut body = meta.clone();
    body.extend_from_slice(&index);
    h.metadata_len = meta.len() as u32;
    h.data_end += shift;
    h.body_checksum = xxhash_rust::xxh64::xxh64(&body, 0);
    let mut out = h.encode().to_vec();
    out.extend_from_slice(&body);
    out.extend_from_slice(&bytes[HEADER_LEN + m + i..]);
    std::fs::write(path, out).unwrap();
}

#[test]
fn a_compacted_file_that_fails_verification_is_never_published() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("big-meta.reel");
    // 17 MiB of user metadata: readable with raised limits, but not with the default ones the
    // compacted file is read back with. Writers refuse to write such a file, so it is made here
    // by hand from a small one (as an older writer or another tool could have).
    let mut w = ReelWriter::create(&src, ReelOptions::default()).unwrap();
    for (t, e) in known_paths() {
        w.write_tick(t, &e).unwrap();
    }
    w.finish().unwrap();
    with_user_metadata(
        &src,
        "blob",
        Value::ByteArray(fastnbt::ByteArray::new(vec![7; 17 << 20])),
    );
    let source = Reader::open_with(
        std::sync::Arc::new(tickreel::storage::FileSource::open(&src).unwrap()),
        ReaderOptions {
            limits: Limits {
                max_metadata_bytes: 64 << 20,
                ..Limits::default()
            },
        },
    )
    .unwrap();
    let out = dir.path().join("out.reel");
    let r = compact(&source, &out, CompactOptions::default(), &mut |_, _| {});
    assert!(matches!(r, Err(Error::LimitExceeded(_))), "{r:?}");
    assert!(
        !out.exists(),
        "a file that failed verification was published"
    );
    assert_eq!(names(dir.path()), set(&["big-meta.reel"]));
}

/// A short recording of one entity walking from `start`, so that whose ticks a file holds shows.
fn walk(start: u32, entity: u32) -> Vec<(u32, Vec<Event>)> {
    (start..start + 10)
        .map(|t| {
            let pose = at(f64::from(t), 64.0, f64::from(entity));
            let e = if t == start {
                Event::EntityAdd {
                    entity,
                    kind: 1,
                    pose,
                }
            } else {
                Event::Pose { entity, pose }
            };
            (t, vec![e])
        })
        .collect()
}

fn record(
    engine: &Engine,
    path: &Path,
    ticks: &[(u32, Vec<Event>)],
    overwrite: bool,
) -> tickreel::Recorder {
    // Never flushed unless the test says so, however slow the machine.
    let flush = FlushPolicy {
        interval: std::time::Duration::from_secs(3600),
        ..FlushPolicy::default()
    };
    let rec = engine
        .start_recording(
            path,
            RecorderOptions {
                overwrite,
                flush,
                ..RecorderOptions::default()
            },
        )
        .unwrap();
    for (t, e) in ticks {
        rec.submit_tick(*t, &batch(e)).unwrap();
    }
    rec
}

fn holds(path: &Path, ticks: &[(u32, Vec<Event>)]) -> bool {
    let r = Reader::open_path(path).unwrap();
    r.first_tick() == Some(ticks[0].0) && r.last_tick() == Some(ticks.last().unwrap().0)
}

#[test]
fn compaction_with_a_dictionary_reads_back_identically() {
    let samples: Vec<Vec<u8>> = (0..200u64)
        .map(|s| {
            let ticks = common::sim_ticks(4, 50, 2000 + s);
            ticks.iter().flat_map(|(_, e)| batch(e)).collect()
        })
        .collect();
    let dict = tickreel::dictionary::train(&samples, 16 << 10, 4343).unwrap();
    assert_eq!(tickreel::dictionary::register(&dict).unwrap(), 4343);
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("plain.reel");
    let ticks = common::sim_ticks(4, 400, 91);
    common::write_reel(
        &src,
        &ticks,
        ChunkPolicy {
            chunk_ticks: 30,
            ..ChunkPolicy::default()
        },
    );
    let source = Reader::open_path(&src).unwrap();
    assert_eq!(source.header().dictionary_id, 0);
    let out = dir.path().join("dict.reel");
    let options = CompactOptions {
        dictionary_id: Some(4343),
        ..CompactOptions::default()
    };
    let rep = compact(&source, &out, options, &mut |_, _| {}).unwrap();
    let r = Reader::open_path(&out).unwrap();
    assert_eq!(r.header().dictionary_id, 4343);
    assert_eq!(rep.chunks_out, r.index().len());
    r.verify().unwrap();
    assert_eq!(all_ticks(&r), all_ticks(&source));
    assert_eq!(
        (r.first_tick(), r.last_tick()),
        (source.first_tick(), source.last_tick())
    );
    for t in [0, 17, 199, 399] {
        assert_eq!(
            r.seek(t).unwrap().entities,
            source.seek(t).unwrap().entities
        );
    }
    // and back to no dictionary: still the same ticks
    let plain = dir.path().join("plain-again.reel");
    let options = CompactOptions {
        dictionary_id: Some(0),
        ..CompactOptions::default()
    };
    compact(&r, &plain, options, &mut |_, _| {}).unwrap();
    let p = Reader::open_path(&plain).unwrap();
    assert_eq!(p.header().dictionary_id, 0);
    assert_eq!(all_ticks(&p), all_ticks(&source));
    // the chunks really were compressed with the dictionary (trained on this kind of data)
    let size = |p: &Path| std::fs::metadata(p).unwrap().len();
    assert!(size(&out) < size(&plain), "{} {}", size(&out), size(&plain));
}

#[test]
fn finish_handle_poll_reports_pending_success_and_failure() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let path = dir.path().join("ok.reel");
    let rec = record(&engine, &path, &walk(0, 1), false);
    // While the writer is held the finish cannot be handled: a held writer takes at most one more
    // message (the one it may have been taking when held), and two ticks are queued before it.
    engine.set_writers_stalled(true);
    for t in [10, 11] {
        let pose = at(f64::from(t), 64.0, 1.0);
        rec.submit_tick(t, &batch(&[Event::Pose { entity: 1, pose }]))
            .unwrap();
    }
    let mut h = rec.finish().unwrap();
    assert!(h.poll().is_none());
    assert!(!h.is_ready());
    engine.set_writers_stalled(false);
    let done = h
        .wait_timeout(std::time::Duration::from_secs(60))
        .expect("finished");
    assert_eq!(done.as_ref().unwrap(), &path);
    assert!(h.is_ready());
    assert!(matches!(h.poll(), Some(Ok(p)) if *p == path));
    assert!(
        matches!(h.poll(), Some(Ok(p)) if *p == path),
        "poll repeats"
    );
    assert_eq!(h.wait().unwrap(), path, "wait takes the result");

    // a compaction that fails: the directory of the path is gone by then
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let rec = record(&engine, &sub.join("gone.reel"), &walk(0, 1), false);
    std::fs::remove_dir(&sub).unwrap();
    let mut h = rec.finish().unwrap();
    let failed = h.wait_timeout(std::time::Duration::from_secs(60));
    assert!(matches!(failed, Some(Err(Error::Io(_)))), "{failed:?}");
    assert!(matches!(h.poll(), Some(Err(Error::Io(_)))), "poll repeats");
    assert_eq!(engine.stats().compactions_failed, 1);
    engine.shutdown();
}

#[path = "compact/publication.rs"]
mod publication;

/// The committed fixtures (made by `tickreel dict train` and `tickreel compact --dictionary-id`,
/// see tests/data/README.md): `sample.dict` is dictionary 4711; `dict-4712.reel` a recording
/// compressed with dictionary 4712, which no test registers.
#[test]
fn dictionary_fixtures_register_and_a_missing_one_is_named() {
    let data = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let missing = Reader::open_path(data.join("dict-4712.reel")).unwrap_err();
    assert!(matches!(missing, Error::Unsupported(_)), "{missing}");
    assert!(
        missing
            .to_string()
            .contains("zstd dictionary 4712 is not registered"),
        "{missing}"
    );
    let dict = std::fs::read(data.join("sample.dict")).unwrap();
    assert_eq!(tickreel::dictionary::id_of(&dict).unwrap(), 4711);
    assert_eq!(tickreel::dictionary::register(&dict).unwrap(), 4711);
    // written with it, read back, and compacted without it: the same ticks
    let dir = tempfile::tempdir().unwrap();
    let ticks = common::sim_ticks(3, 300, 4711);
    let path = dir.path().join("d.reel");
    let mut w = tickreel::record::ReelWriter::create(
        &path,
        tickreel::record::ReelOptions {
            identity: tickreel::record::RecordingIdentity {
                dictionary_id: 4711,
                ..Default::default()
            },
            policy: ChunkPolicy::compacted(),
        },
    )
    .unwrap();
    for (t, e) in &ticks {
        w.write_tick(*t, e).unwrap();
    }
    w.finish().unwrap();
    let r = Reader::open_path(&path).unwrap();
    assert_eq!(r.header().dictionary_id, 4711);
    r.verify().unwrap();
    let plain = dir.path().join("plain.reel");
    let options = CompactOptions {
        dictionary_id: Some(0),
        ..CompactOptions::default()
    };
    compact(&r, &plain, options, &mut |_, _| {}).unwrap();
    let p = Reader::open_path(&plain).unwrap();
    assert_eq!(p.header().dictionary_id, 0);
    assert_eq!(all_ticks(&p), all_ticks(&r));
    // the zstd frames name the dictionary too: a frame of dictionary 4711 read as 4712's is
    // refused by zstd (Corrupt), never garbage
    let mut bytes = std::fs::read(&path).unwrap();
    let mut h = tickreel::format::Header::decode(&bytes).unwrap();
    h.dictionary_id = 4713;
    bytes[..256].copy_from_slice(&h.encode());
    let mut other = dict.clone();
    other[4..8].copy_from_slice(&4713u32.to_le_bytes());
    tickreel::dictionary::register(&other).unwrap();
    let crafted = dir.path().join("crafted.reel");
    std::fs::write(&crafted, &bytes).unwrap();
    let r = Reader::open_path(&crafted).unwrap();
    let e = r.verify().unwrap_err();
    assert!(matches!(e, Error::Corrupt(_)), "{e}");
}
