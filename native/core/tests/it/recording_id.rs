//! The recording id (header bytes 96..112) and the segment preamble that carries it (FORMAT.md,
//! sections 2, 3 and 14): a segment another writer put into a live directory — a writer whose
//! directory was removed and created again by a second writer of the same path — is refused by
//! recovery, compaction, readers and finish, left untouched and named; a stale writer never renames
//! its metadata file over the other recording's; the id survives resuming, recovery of a lost
//! metadata file and compaction; and a legacy directory (id zero, segments without preambles)
//! still recovers, resumes and finishes.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use tickreel::format::SegmentStart;
use tickreel::format::wire::{PREAMBLE_LEN, encode_preamble};
use tickreel::play::{Reader, ReaderOptions};
use tickreel::record::{ChunkPolicy, Chunker, CompactOptions, compact, recover};
use tickreel::storage::frames::read_prefix;
use tickreel::storage::live::{encode_meta_file, list_segments, live_dir_for, segment_name};
use tickreel::storage::{
    LocalStorage, Source, Stat, Storage, StorageFile, StorageLock, write_atomic,
};
use tickreel::{Engine, EngineOptions, Error, Event, Pose, Result};

fn pose(entity: u32, x: i64) -> Vec<Event> {
    vec![Event::Pose {
        entity,
        pose: Pose {
            x,
            ..Pose::default()
        },
    }]
}

/// Records `ticks` of `entity` at `path` on `engine`, flushes and closes (resumable).
fn record(engine: &Engine, path: &Path, ticks: std::ops::Range<u32>, entity: u32) {
    let rec = engine
        .start_recording(path, common::flushed_when_asked())
        .unwrap();
    for t in ticks {
        rec.submit_tick(t, &common::pose_tick(entity, i64::from(t)))
            .unwrap();
    }
    rec.flush().unwrap();
    rec.close().unwrap();
}

/// The ticks a reader holds and the entities named in them.
fn content(r: &Reader) -> (Vec<u32>, Vec<u32>) {
    let mut ticks = Vec::new();
    let mut entities = Vec::new();
    for t in r.ticks(0, u32::MAX) {
        let t = t.unwrap();
        ticks.push(t.tick);
        for e in t.events {
            if let Some(id) = e.entity()
                && !entities.contains(&id)
            {
                entities.push(id);
            }
        }
    }
    (ticks, entities)
}

fn meta_id(live: &Path) -> [u8; 16] {
    Reader::open_live(live).unwrap().header().recording_id
}

fn segment_id(path: &Path) -> SegmentStart {
    SegmentStart::read(&std::fs::read(path).unwrap()[..PREAMBLE_LEN])
}

/// Frames of entity 1 at `ticks`, as a writer of another recording appends them.
fn frames(ticks: std::ops::Range<u32>) -> Vec<u8> {
    let mut c = Chunker::new(ChunkPolicy::default(), None).unwrap();
    let mut out = Vec::new();
    for t in ticks {
        assert!(c.push_tick(t, &pose(1, 7)).unwrap().is_none());
    }
    let f = c.finish_chunk().unwrap().unwrap();
    out.extend_from_slice(&f.header.encode());
    out.extend_from_slice(&f.payload);
    out
}

#[test]
fn a_segment_of_another_recording_is_refused_by_recovery_compaction_and_finish() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.reel");
    let live = live_dir_for(&path);
    let engine = Engine::new(EngineOptions::default()).unwrap();
    // Writer B's recording: ticks 100..110 of entity 2.
    record(&engine, &path, 100..110, 2);
    let b_id = meta_id(&live);
    assert_ne!(b_id, [0; 16]);
    // Writer A raced the removal and re-creation of the directory: its next segment, with its
    // own id, landed in B's directory (written here directly). Its ticks come after B's, so a
    // recovery that merged it would keep them. And a segment without a preamble (an earlier
    // build's writer) after it.
    let a_id = *uuid::Uuid::new_v4().as_bytes();
    let foreign = live.join(segment_name(5));
    let mut bytes = encode_preamble(&a_id).to_vec();
    bytes.extend_from_slice(&frames(200..210));
    std::fs::write(&foreign, &bytes).unwrap();
    let legacy = live.join(segment_name(6));
    std::fs::write(&legacy, frames(300..310)).unwrap();

    // A reader of B's metadata file never reads them.
    let r = Reader::open_live(&live).unwrap();
    assert_eq!(content(&r), ((100..110).collect(), vec![2]));
    let refused = r.refused_segments().unwrap();
    assert_eq!(
        refused.iter().map(|s| s.path.clone()).collect::<Vec<_>>(),
        vec![foreign.clone(), legacy.clone()]
    );

    // Finishing B refuses to publish and leaves everything as it is, naming both.
    let rec = engine
        .start_recording(&path, common::flushed_when_asked())
        .unwrap();
    let e = rec.finish().unwrap().wait().unwrap_err();
    let m = e.to_string();
    assert!(
        m.contains(&segment_name(5)) && m.contains(&segment_name(6)),
        "{m}"
    );
    assert!(!path.exists());
    assert_eq!(std::fs::read(&foreign).unwrap(), bytes);

    // Recovery keeps exactly B's ticks, and names A's segment (and the legacy one) untouched.
    let report = recover(&live).unwrap();
    let names: Vec<&Path> = report
        .segments_refused
        .iter()
        .map(|s| s.path.as_path())
        .collect();
    assert_eq!(names, vec![foreign.as_path(), legacy.as_path()], "{report}");
    let a = uuid::Uuid::from_bytes(a_id).to_string();
    assert!(report.segments_refused[0].reason.contains(&a), "{report}");
    assert!(report.to_string().contains(&segment_name(5)), "{report}");
    assert_eq!(report.chunks_recovered, 0, "{report}");
    assert_eq!(report.bytes_truncated, 0, "{report}");
    assert_eq!(std::fs::read(&foreign).unwrap(), bytes);
    let r = Reader::open_live(&live).unwrap();
    r.verify().unwrap();
    assert_eq!(content(&r), ((100..110).collect(), vec![2]));
    assert_eq!(r.header().recording_id, b_id);

    // Compaction keeps exactly B's ticks, carries B's id, and names the refused segments.
    let out = dir.path().join("compacted.reel");
    let rep = compact(
        &Reader::open_live(&live).unwrap(),
        &out,
        CompactOptions::default(),
        &mut |_, _| {},
    )
    .unwrap();
    assert_eq!(rep.refused_segments.len(), 2);
    assert_eq!(rep.refused_segments[0].path, foreign);
    let c = Reader::open_path(&out).unwrap();
    c.verify().unwrap();
    assert_eq!(content(&c), ((100..110).collect(), vec![2]));
    assert_eq!(c.header().recording_id, b_id);
    assert_eq!(std::fs::read(&foreign).unwrap(), bytes);

    // Once they are moved away, B resumes and finishes as usual.
    std::fs::rename(&foreign, dir.path().join("a.tks")).unwrap();
    std::fs::rename(&legacy, dir.path().join("legacy.tks")).unwrap();
    let rec = engine
        .start_recording(&path, common::flushed_when_asked())
        .unwrap();
    rec.finish().unwrap().wait().unwrap();
    engine.shutdown();
    let r = Reader::open_path(&path).unwrap();
    assert_eq!(content(&r), ((100..110).collect(), vec![2]));
    assert_eq!(r.recording_id(), Some(uuid::Uuid::from_bytes(b_id)));
    assert!(!live.exists());
}

/// Local storage that runs a hook (once) when a file named `trigger` is about to be created
/// exclusively: what another process does at that instant.
struct Hooked {
    trigger: String,
    hook: Mutex<Option<HookFn>>,
}

type HookFn = Box<dyn FnOnce() + Send>;

impl std::fmt::Debug for Hooked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Hooked({})", self.trigger)
    }
}

impl Hooked {
    fn local() -> Arc<dyn Storage> {
        LocalStorage::shared()
    }
}

impl Storage for Hooked {
    fn open(&self, path: &Path) -> Result<Arc<dyn Source>> {
        Hooked::local().open(path)
    }
    fn stat(&self, path: &Path) -> Result<Option<Stat>> {
        Hooked::local().stat(path)
    }
    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        Hooked::local().list(dir)
    }
    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        Hooked::local().create_dir_all(dir)
    }
    fn create(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        Hooked::local().create(path)
    }
    fn open_append(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        Hooked::local().open_append(path)
    }
    fn create_new(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        if path.file_name().is_some_and(|n| n == self.trigger.as_str())
            && let Some(hook) = self.hook.lock().take()
        {
            hook();
        }
        Hooked::local().create_new(path)
    }
    fn create_temp(
        &self,
        dir: &Path,
        prefix: &str,
        suffix: &str,
    ) -> Result<(PathBuf, Box<dyn StorageFile>)> {
        Hooked::local().create_temp(dir, prefix, suffix)
    }
    fn truncate(&self, path: &Path, len: u64) -> Result<()> {
        Hooked::local().truncate(path, len)
    }
    fn rename(&self, from: &Path, to: &Path, replace: bool) -> Result<()> {
        Hooked::local().rename(from, to, replace)
    }
    fn remove_file(&self, path: &Path) -> Result<()> {
        Hooked::local().remove_file(path)
    }
    fn remove_dir(&self, dir: &Path) -> Result<()> {
        Hooked::local().remove_dir(dir)
    }
    fn sync_dir(&self, dir: &Path) -> Result<()> {
        Hooked::local().sync_dir(dir)
    }
    fn sync_filesystem(&self, path: &Path) -> Result<()> {
        Hooked::local().sync_filesystem(path)
    }
    fn lock(&self, path: &Path) -> Result<Box<dyn StorageLock>> {
        Hooked::local().lock(path)
    }
    fn is_locked(&self, path: &Path) -> Result<bool> {
        Hooked::local().is_locked(path)
    }
}

#[test]
fn a_writer_racing_the_replacement_of_its_directory_never_takes_over_the_new_recording() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("race.reel");
    let live = live_dir_for(&path);
    let storage = Arc::new(Hooked {
        trigger: segment_name(1),
        hook: Mutex::new(None),
    });
    let a_engine = Engine::with_storage(EngineOptions::default(), storage.clone()).unwrap();
    // Writer A: ticks 0..10 in segment 0; resumed, its next flush (ticks 200..210, after B's,
    // so that a recovery merging them would keep them) creates segment 1.
    record(&a_engine, &path, 0..10, 1);
    let a_id = meta_id(&live);
    let a = a_engine
        .start_recording(&path, common::flushed_when_asked())
        .unwrap();
    for t in 200..210 {
        a.submit_tick(t, &common::pose_tick(1, i64::from(t)))
            .unwrap();
    }
    // Right after A's flush checked its directory, and before it creates segment 1, the
    // directory is removed and writer B (another engine, as another process would) records the
    // same path: A's segment 1 and A's metadata file are created by name in B's directory.
    let (b_path, b_live) = (path.clone(), live.clone());
    let b_id = Arc::new(Mutex::new([0u8; 16]));
    let b_id_out = b_id.clone();
    *storage.hook.lock() = Some(Box::new(move || {
        std::fs::remove_dir_all(&b_live).unwrap();
        let b_engine = Engine::new(EngineOptions::default()).unwrap();
        record(&b_engine, &b_path, 100..110, 2);
        b_engine.shutdown();
        *b_id_out.lock() = meta_id(&b_live);
    }));
    let e = a.flush().unwrap_err();
    assert!(
        matches!(&e, Error::InvalidState(m) if m.contains("removed or replaced")),
        "{e}"
    );
    assert!(a.finish().unwrap().wait().is_err());
    a_engine.shutdown();
    let b_id = *b_id.lock();
    assert_ne!(a_id, b_id);

    // A's segment is in B's directory, with A's id; A's metadata file was written there but,
    // checked once more right before its rename, never replaced B's.
    let foreign = live.join(segment_name(1));
    assert_eq!(segment_id(&foreign), SegmentStart::Preamble(a_id));
    assert!(live.join(".meta.tkrl.tmp").exists());
    let r = Reader::open_live(&live).unwrap();
    assert_eq!(r.header().recording_id, b_id);
    assert_eq!(content(&r), ((100..110).collect(), vec![2]));
    let foreign_bytes = std::fs::read(&foreign).unwrap();

    // Recovery and compaction keep exactly B's ticks and name A's segment, leaving it be.
    let report = recover(&live).unwrap();
    assert_eq!(report.segments_refused.len(), 1, "{report}");
    assert_eq!(report.segments_refused[0].path, foreign, "{report}");
    let r = Reader::open_live(&live).unwrap();
    assert_eq!(content(&r), ((100..110).collect(), vec![2]));
    let out = dir.path().join("compacted.reel");
    let rep = compact(&r, &out, CompactOptions::default(), &mut |_, _| {}).unwrap();
    assert_eq!(rep.refused_segments.len(), 1);
    assert_eq!(rep.refused_segments[0].path, foreign);
    let c = Reader::open_path(&out).unwrap();
    assert_eq!(content(&c), ((100..110).collect(), vec![2]));
    assert_eq!(std::fs::read(&foreign).unwrap(), foreign_bytes);
}

#[test]
fn the_id_survives_resuming_a_lost_metadata_file_and_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keep.reel");
    let live = live_dir_for(&path);
    let engine = Engine::new(EngineOptions::default()).unwrap();
    record(&engine, &path, 0..10, 1);
    let id = meta_id(&live);
    assert_ne!(id, [0; 16]);
    // Resumed twice: every segment carries the same id.
    record(&engine, &path, 10..20, 1);
    record(&engine, &path, 20..30, 1);
    let segments = list_segments(&live).unwrap();
    assert_eq!(segments.len(), 3);
    for n in &segments {
        assert_eq!(
            segment_id(&live.join(segment_name(*n))),
            SegmentStart::Preamble(id)
        );
    }
    assert_eq!(meta_id(&live), id);
    // A lost metadata file is rebuilt with the id of the segments.
    std::fs::remove_file(live.join("meta.tkrl")).unwrap();
    let report = recover(&live).unwrap();
    assert!(
        report.metadata_rebuilt && report.segments_refused.is_empty(),
        "{report}"
    );
    assert_eq!(meta_id(&live), id);
    assert_eq!(Reader::open_live(&live).unwrap().last_tick(), Some(29));
    // The finished file carries it.
    let rec = engine
        .start_recording(&path, common::flushed_when_asked())
        .unwrap();
    rec.finish().unwrap().wait().unwrap();
    engine.shutdown();
    let r = Reader::open_path(&path).unwrap();
    assert_eq!(r.recording_id(), Some(uuid::Uuid::from_bytes(id)));
    assert_eq!(r.last_tick(), Some(29));
}

#[test]
fn a_recording_that_never_flushed_is_published_with_its_id() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("short.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, common::flushed_when_asked())
        .unwrap();
    for t in 0..5 {
        rec.submit_tick(t, &common::pose_tick(1, i64::from(t)))
            .unwrap();
    }
    rec.finish().unwrap().wait().unwrap();
    engine.shutdown();
    assert!(!live_dir_for(&path).exists());
    assert!(Reader::open_path(&path).unwrap().recording_id().is_some());
}

/// Turns the live directory of a closed recording into what an earlier build wrote: the metadata
/// file's id zero, segments without preambles, index offsets from the start of each segment.
fn make_legacy(live: &Path) {
    let storage = LocalStorage::shared();
    let meta = storage.open(&live.join("meta.tkrl")).unwrap();
    let (mut header, metadata, mut index) =
        read_prefix(meta.as_ref(), &Default::default()).unwrap();
    header.recording_id = [0; 16];
    for e in &mut index {
        e.offset -= PREAMBLE_LEN as u64;
    }
    for n in list_segments(live).unwrap() {
        let p = live.join(segment_name(n));
        let bytes = std::fs::read(&p).unwrap();
        std::fs::write(&p, &bytes[PREAMBLE_LEN..]).unwrap();
    }
    let bytes = encode_meta_file(header, &metadata, &index).unwrap();
    write_atomic(storage.as_ref(), &live.join("meta.tkrl"), &[&bytes]).unwrap();
}

#[test]
fn a_legacy_directory_without_ids_recovers_resumes_and_finishes_with_id_zero() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("legacy.reel");
    let live = live_dir_for(&path);
    let engine = Engine::new(EngineOptions::default()).unwrap();
    record(&engine, &path, 0..10, 1);
    record(&engine, &path, 10..20, 1);
    make_legacy(&live);
    for n in list_segments(&live).unwrap() {
        assert_eq!(
            segment_id(&live.join(segment_name(n))),
            SegmentStart::Legacy
        );
    }
    // Readable as it is, and recovered as it is.
    let r = Reader::open_live(&live).unwrap();
    r.verify().unwrap();
    assert_eq!(r.recording_id(), None);
    assert_eq!(content(&r).0, (0..20).collect::<Vec<_>>());
    let report = recover(&live).unwrap();
    assert!(report.segments_refused.is_empty(), "{report}");
    assert_eq!(report.chunks_recovered, 0, "{report}");
    assert_eq!(report.bytes_truncated, 0, "{report}");
    assert_eq!(meta_id(&live), [0; 16]);
    // Resumed: the id stays zero, the new segment's preamble says so, and the mix reads back.
    record(&engine, &path, 20..30, 1);
    assert_eq!(meta_id(&live), [0; 16]);
    let last = *list_segments(&live).unwrap().last().unwrap();
    assert_eq!(
        segment_id(&live.join(segment_name(last))),
        SegmentStart::Preamble([0; 16])
    );
    let report = recover(&live).unwrap();
    assert!(report.segments_refused.is_empty(), "{report}");
    assert_eq!(report.chunks_recovered, 0, "{report}");
    // A legacy directory whose metadata file is lost: rebuilt as a legacy recording.
    std::fs::remove_file(live.join("meta.tkrl")).unwrap();
    let report = recover(&live).unwrap();
    assert!(report.segments_refused.is_empty(), "{report}");
    assert_eq!(meta_id(&live), [0; 16]);
    let rec = engine
        .start_recording(&path, common::flushed_when_asked())
        .unwrap();
    rec.finish().unwrap().wait().unwrap();
    engine.shutdown();
    let r = Reader::open_with(
        LocalStorage::shared().open(&path).unwrap(),
        ReaderOptions::default(),
    )
    .unwrap();
    r.verify().unwrap();
    assert_eq!(r.recording_id(), None);
    assert_eq!(content(&r).0, (0..30).collect::<Vec<_>>());
}
