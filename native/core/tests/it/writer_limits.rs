//! Writers refuse, at the call, what a reader would refuse later: snapshots and ticks too large
//! for a chunk, metadata over the reader's limit, too many entities alive; and a live directory
//! that already holds a chunk too large to read (over the size limit, or expanding beyond the
//! ratio) keeps every other chunk readable after recovery.

use crate::common;

use std::io::Write;

use fastnbt::Value;
use tickreel::format::DATA_VERSION;
use tickreel::format::FrameHeader;
use tickreel::format::{EntityInfo, EventType};
use tickreel::play::Reader;
use tickreel::record::{FlushPolicy, RecorderOptions, ReelOptions, ReelWriter, recover};
use tickreel::storage::live::{list_segments, live_dir_for, segment_name};
use tickreel::{Engine, EngineOptions, Error, Event, Pose};

const MIB: usize = 1 << 20;

fn pose_tick(entity: u32, x: i64) -> Vec<Event> {
    vec![Event::Pose {
        entity,
        pose: Pose {
            x,
            ..Pose::default()
        },
    }]
}

fn is_limit<T: std::fmt::Debug>(r: tickreel::Result<T>) -> String {
    match r {
        Err(Error::LimitExceeded(m)) => m,
        other => panic!("expected LimitExceeded, got {other:?}"),
    }
}

#[test]
fn a_70_mb_snapshot_is_refused_at_the_call_and_the_recording_stays_readable() {
    let dir = tempfile::tempdir().unwrap();
    // The synchronous writer.
    let path = dir.path().join("sync.reel");
    let mut w = ReelWriter::create(&path, ReelOptions::default()).unwrap();
    w.write_tick(0, &pose_tick(1, 0)).unwrap();
    let m = is_limit(w.offer_snapshot(vec![7; 70_000_000]));
    assert!(m.contains("70000000") && m.contains("16777216"), "{m}");
    w.offer_snapshot(vec![7; 1000]).unwrap();
    w.write_tick(1, &pose_tick(1, 10)).unwrap();
    w.finish().unwrap();
    let r = Reader::open_path(&path).unwrap();
    r.verify().unwrap();
    assert_eq!(r.last_tick(), Some(1));

    // The recorder, flushed to a live directory and finished.
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let path = dir.path().join("rec.reel");
    let rec = engine
        .start_recording(&path, RecorderOptions::default())
        .unwrap();
    rec.submit_tick(0, &common::batch(&pose_tick(1, 0)))
        .unwrap();
    is_limit(rec.offer_snapshot(vec![7; 70_000_000]));
    rec.flush().unwrap();
    rec.submit_tick(1, &common::batch(&pose_tick(1, 5)))
        .unwrap();
    assert!(rec.status().is_ok(), "nothing was refused on the writer");
    rec.finish().unwrap().wait().unwrap();
    let r = Reader::open_path(&path).unwrap();
    r.verify().unwrap();
    assert_eq!(r.last_tick(), Some(1));
}

#[test]
fn a_snapshot_provider_over_the_limit_is_reported_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let path = dir.path().join("provider.reel");
    let o = RecorderOptions {
        snapshot_provider: Some(std::sync::Arc::new(|_tick| Some(vec![1; 17 * MIB]))),
        ..RecorderOptions::default()
    };
    let rec = engine.start_recording(&path, o).unwrap();
    for t in 0..3 {
        rec.submit_tick(t, &common::batch(&pose_tick(1, i64::from(t))))
            .unwrap();
    }
    rec.flush().unwrap();
    let status = rec.status();
    assert!(
        matches!(&status, Err(e) if e.to_string().contains("snapshot provider")),
        "{status:?}"
    );
    rec.finish().unwrap().wait().unwrap();
    let r = Reader::open_path(&path).unwrap();
    r.verify().unwrap();
    assert_eq!(r.last_tick(), Some(2));
}

#[test]
fn a_tick_of_70_one_mib_custom_events_is_refused_and_the_file_stays_readable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("custom.reel");
    let mut w = ReelWriter::create(&path, ReelOptions::default()).unwrap();
    w.write_tick(0, &pose_tick(1, 0)).unwrap();
    let big: Vec<Event> = (0..70)
        .map(|i| Event::Custom {
            type_id: i,
            data: vec![i as u8; MIB],
        })
        .collect();
    let m = is_limit(w.write_tick(1, &big));
    assert!(m.contains("tick 1"), "{m}");
    // Ticks that each fit are cut into chunks a reader accepts, however many come.
    for t in 2..8u32 {
        let fits: Vec<Event> = (0..15)
            .map(|i| Event::Custom {
                type_id: i,
                data: (0..MIB).map(|b| (b as u32 ^ t ^ i) as u8).collect(),
            })
            .collect();
        w.write_tick(t, &fits).unwrap();
    }
    w.finish().unwrap();
    let r = Reader::open_path(&path).unwrap();
    let v = r.verify().unwrap();
    // The first tick adds entity 1 implicitly (one stored event).
    assert_eq!(v.events, 6 * 15 + 1);
    assert!(r.index().len() >= 3, "{} chunks", r.index().len());
}

#[test]
fn a_batch_limit_beyond_one_tick_of_the_format_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    for bad in [0, 1, 16 * MIB + 1] {
        let o = RecorderOptions {
            max_batch_bytes: bad,
            ..RecorderOptions::default()
        };
        let r = engine.start_recording(dir.path().join(format!("b{bad}.reel")), o);
        assert!(matches!(r, Err(Error::InvalidArgument(_))), "{bad}: {r:?}");
    }
    let zero = RecorderOptions {
        flush: FlushPolicy {
            interval: std::time::Duration::ZERO,
            ..FlushPolicy::default()
        },
        ..RecorderOptions::default()
    };
    let r = engine.start_recording(dir.path().join("zero.reel"), zero);
    assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
}

#[test]
fn the_metadata_bomb_is_refused_at_the_call_and_the_recording_stays_readable() {
    let dir = tempfile::tempdir().unwrap();
    let info = |id: u32| EntityInfo {
        id,
        kind: 1,
        uuid: Some(uuid::Uuid::from_u128(u128::from(id))),
        name: Some(format!("a rather long player name number {id:08}")),
    };
    // The recorder: 200,000 named entities do not fit in 16 MiB of metadata.
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let path = dir.path().join("bomb.reel");
    let o = RecorderOptions {
        flush: common::flush_when_asked(),
        ..RecorderOptions::default()
    };
    let rec = engine.start_recording(&path, o).unwrap();
    rec.submit_tick(0, &common::batch(&pose_tick(1, 0)))
        .unwrap();
    let mut accepted = 0;
    let mut refused = None;
    let mut id = 0;
    while id < 200_000 {
        match rec.register_entity(info(id)) {
            Ok(()) => accepted += 1,
            // a writer slower than this loop (a loaded machine): the call queued nothing, and a
            // plugin tries again
            Err(Error::Backpressure(_)) => {
                std::thread::sleep(std::time::Duration::from_millis(1));
                continue;
            }
            Err(e) => {
                refused = Some(e);
                break;
            }
        }
        id += 1;
    }
    let refused = is_limit(Err::<(), _>(refused.expect("the bomb is refused")));
    assert!(refused.contains("16777216"), "{refused}");
    assert!(accepted > 50_000, "{accepted}");
    // Replacing an entity that is registered already still works; a user key too large fails.
    rec.register_entity(info(0)).unwrap();
    is_limit(rec.set_user_metadata(
        "blob",
        Value::ByteArray(fastnbt::ByteArray::new(vec![0; 16 * MIB])),
    ));
    is_limit(rec.register_event_type(EventType {
        id: 1,
        name: "x".repeat(MIB),
        version: 1,
    }));
    rec.finish().unwrap().wait().unwrap();
    let r = Reader::open_path(&path).unwrap();
    r.verify().unwrap();
    assert_eq!(r.metadata().library.entities.len(), accepted);

    // The synchronous writer.
    let path = dir.path().join("bomb-sync.reel");
    let mut w = ReelWriter::create(&path, ReelOptions::default()).unwrap();
    w.write_tick(0, &pose_tick(1, 0)).unwrap();
    let mut n = 0;
    while w.register_entity(info(n)).is_ok() {
        n += 1;
    }
    w.finish().unwrap();
    assert_eq!(
        Reader::open_path(&path)
            .unwrap()
            .metadata()
            .library
            .entities
            .len(),
        n as usize
    );
    // Metadata set around the check (user_metadata_mut) is refused at finish, nothing published.
    let path = dir.path().join("bypass.reel");
    let mut w = ReelWriter::create(&path, ReelOptions::default()).unwrap();
    w.user_metadata_mut().insert(
        "blob".into(),
        Value::ByteArray(fastnbt::ByteArray::new(vec![0; 17 * MIB])),
    );
    is_limit(w.finish());
    assert!(!path.exists());
}

#[test]
fn too_many_entities_alive_at_once_are_refused_per_tick() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crowd.reel");
    let mut w = ReelWriter::create(&path, ReelOptions::default()).unwrap();
    let max = tickreel::format::Limits::default().max_alive_entities() as u32;
    let adds = |from: u32, n: u32| -> Vec<Event> {
        (from..from + n)
            .map(|entity| Event::EntityAdd {
                entity,
                kind: 1,
                pose: Pose::default(),
            })
            .collect()
    };
    // 65,535 events per tick at most: fill up to the limit over a few ticks.
    let mut t = 0;
    let mut alive = 0;
    while alive < max {
        let n = (max - alive).min(60_000);
        w.write_tick(t, &adds(alive, n)).unwrap();
        alive += n;
        t += 1;
    }
    let m = is_limit(w.write_tick(t, &adds(alive, 1)));
    assert!(m.contains(&format!("tick {t}")), "{m}");
    // Removing one makes room for one.
    w.write_tick(t, &[Event::EntityRemove { entity: 0 }])
        .unwrap();
    w.write_tick(t + 1, &adds(alive, 1)).unwrap();
    w.finish().unwrap();
    Reader::open_path(&path).unwrap().verify().unwrap();
}

#[test]
fn recovery_drops_chunks_too_large_to_read_and_keeps_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let path = dir.path().join("old.reel");
    let rec = engine
        .start_recording(&path, RecorderOptions::default())
        .unwrap();
    for t in 0..10 {
        rec.submit_tick(t, &common::batch(&pose_tick(1, i64::from(t))))
            .unwrap();
    }
    rec.flush().unwrap();
    rec.close().unwrap();
    drop(rec);
    engine.shutdown();
    // An older writer appended a frame claiming 70 MB uncompressed (checksums valid).
    let live = live_dir_for(&path);
    let seg = *list_segments(&live).unwrap().last().unwrap();
    let payload = vec![0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0];
    let h = FrameHeader::for_payload(0, DATA_VERSION, 10, 5, 70_000_000, &payload);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(live.join(segment_name(seg)))
        .unwrap();
    f.write_all(&h.encode()).unwrap();
    f.write_all(&payload).unwrap();
    // And one that expands beyond the ratio a reader accepts (1 MiB from a few dozen bytes, not
    // padded): a valid chunk of ticks 20..22 with an empty snapshot of 1 MiB of zeros.
    let mut chunk = vec![0u8, 0x80, 0x80, 0x40];
    chunk.resize(chunk.len() + (1 << 20), 0);
    chunk.extend_from_slice(&[0, 0]);
    let payload = zstd::bulk::compress(&chunk, 3).unwrap();
    assert!(payload.len() < 1000, "{}", payload.len());
    let h = FrameHeader::for_payload(1, DATA_VERSION, 20, 2, chunk.len() as u32, &payload);
    f.write_all(&h.encode()).unwrap();
    f.write_all(&payload).unwrap();
    drop(f);
    let report = recover(&live).unwrap();
    assert_eq!(report.chunks_oversized, 2, "{report}");
    let r = Reader::open_live(&live).unwrap();
    r.verify().unwrap();
    assert_eq!(r.last_tick(), Some(9));
}
