//! Crash consistency in-process: recording, flushing, resuming, compaction, publication and
//! recovery run on a disk that loses power at every I/O step in turn (`crash_disk`), and the disk
//! found after the reboot is checked under four models of what survives (only synced data, names
//! without data, torn appends, everything). What was acknowledged flushed is always there, a
//! published `.reel` is always whole, a metadata file is always readable, and recovery itself
//! survives losing power at each of its steps.

use crate::common;
use crate::crash_disk;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crash_disk::{CrashDisk, IMAGES, Image};
use tickreel::format::EntityTable;
use tickreel::play::{Reader, ReaderOptions};
use tickreel::record::RecorderOptions;
use tickreel::record::recover_live;
use tickreel::storage::EntryKind;
use tickreel::storage::live::{LiveDir, live_dir_for};
use tickreel::{Engine, EngineOptions, Event};

const ROOT: &str = "/crash";

fn out() -> PathBuf {
    Path::new(ROOT).join("run.reel")
}

fn options() -> RecorderOptions {
    let mut o = RecorderOptions {
        // Flushes only when the test asks: the same I/O steps in every run.
        flush: common::flush_when_asked(),
        on_existing: tickreel::record::OnExisting::Resume,
        ..RecorderOptions::default()
    };
    o.chunk_policy.chunk_ticks = 10;
    o
}

/// What a scenario was told.
#[derive(Debug, Default)]
struct Run {
    /// Last tick of the last flush that returned Ok.
    acked: Option<u32>,
    /// The finish handle reported the file published.
    finished: bool,
    /// The user metadata key `part` was set to this before a flush that returned Ok.
    part: Option<i32>,
}

/// Records `ticks` in parts of 25, flushing after each, then finishes.
fn record(engine: &Engine, ticks: &[(u32, Vec<Event>)], run: &mut Run, finish: bool) {
    record_parts(engine, ticks, 25, run, finish)
}

/// Records `ticks` in parts of `part` ticks, flushing after each part but the last, then finishes
/// or closes.
fn record_parts(
    engine: &Engine,
    ticks: &[(u32, Vec<Event>)],
    part: usize,
    run: &mut Run,
    finish: bool,
) {
    let rec = match engine.start_recording(out(), options()) {
        Ok(r) => r,
        Err(_) => return,
    };
    let parts: Vec<_> = ticks.chunks(part).collect();
    for (i, part) in parts.iter().enumerate() {
        for (t, e) in *part {
            let _ = rec.submit_tick(*t, &common::batch(e));
        }
        // The last part is flushed by finish (or close).
        if (i + 1 < parts.len() || !finish) && rec.flush().is_ok() {
            run.acked = Some(part.last().unwrap().0);
        }
    }
    if finish {
        run.finished = rec.finish().and_then(|h| h.wait()).is_ok();
    } else {
        let _ = rec.close();
    }
}

/// The expected state after each tick.
fn expected(ticks: &[(u32, Vec<Event>)]) -> BTreeMap<u32, EntityTable> {
    common::expected_states(ticks).into_iter().collect()
}

/// Checks that `reader` holds exactly the states of `want` for every tick it has, and every tick
/// up to `at_least`. Returns its last tick.
fn check_reader(reader: &Reader, want: &BTreeMap<u32, EntityTable>, at_least: Option<u32>) {
    reader.verify().expect("verifies");
    let mut table = EntityTable::default();
    let mut last = None;
    for t in reader.ticks(0, u32::MAX) {
        let t = t.expect("decodes");
        for e in &t.events {
            table.apply(e);
        }
        assert_eq!(Some(&table), want.get(&t.tick), "state at tick {}", t.tick);
        last = Some(t.tick);
    }
    if let Some(a) = at_least {
        assert!(
            reader.last_tick().is_some_and(|l| l >= a),
            "acknowledged up to {a}, found {:?} (last decoded {last:?})",
            reader.last_tick()
        );
    }
}

/// The checks on a disk found after a power loss, for the recording of `out`.
fn check_image_of(disk: &CrashDisk, out: &Path, run: &Run, want: &BTreeMap<u32, EntityTable>) {
    let storage = disk.storage();
    // Every published recording is whole: it holds every tick of the run.
    let published = storage.stat(out).unwrap().is_some();
    if published {
        let r = Reader::open_with(storage.open(out).unwrap(), ReaderOptions::default())
            .expect("a published file opens");
        check_reader(&r, want, want.keys().last().copied());
    }
    assert!(
        published || !run.finished,
        "a finish was acknowledged, but {} is not on the disk",
        out.display()
    );
    let live = LiveDir::new(storage.clone(), live_dir_for(out));
    if !live.dir_exists().unwrap() {
        assert!(
            published || run.acked.is_none(),
            "ticks up to {:?} were acknowledged, but neither the file nor its live directory is there",
            run.acked
        );
        return;
    }
    // A metadata file, if there is one, is whole before any recovery. Next to a published file,
    // the directory is the remnant of its removal (cut short, or recovered from what was left):
    // it must read cleanly, the recording itself is in the file.
    if live.exists() {
        let r = Reader::open_live_in(&storage, live.path(), ReaderOptions::default())
            .expect("the metadata file opens before recovery");
        if published {
            r.verify().expect("the remnant verifies");
        } else {
            check_reader(&r, want, None);
        }
    }
    recover_live(&live, &mut |_, _| {}).expect("recovery succeeds");
    let r = Reader::open_live_in(&storage, live.path(), ReaderOptions::default())
        .expect("the recovered directory opens");
    if published {
        r.verify().expect("the remnant verifies");
        return;
    }
    check_reader(&r, want, run.acked);
    if let Some(part) = run.part {
        // Metadata flushed is as durable as ticks flushed (it is in the metadata file only).
        let found = match r.metadata().user.get("part") {
            Some(fastnbt::Value::Int(p)) => Some(*p),
            _ => None,
        };
        assert!(
            found.is_some_and(|p| p >= part),
            "part {part} was acknowledged flushed, the metadata says {found:?}"
        );
    }
}

/// Runs `scenario` on copies of `base` that lose power at every I/O step in turn; checks every
/// image of each, and recovery losing power at each of its own steps on the fullest image.
/// Returns the number of cut points.
fn at_every_cut(
    base: &CrashDisk,
    want: &BTreeMap<u32, EntityTable>,
    scenario: impl Fn(&CrashDisk) -> Run,
) -> u64 {
    at_every_cut_of(base, &[(out(), want.clone())], |disk| vec![scenario(disk)])
}

/// [`at_every_cut`] for a scenario recording several files at once: `wants` gives each path
/// and its expected states, the scenario returns what it was told of each, in the same order.
fn at_every_cut_of(
    base: &CrashDisk,
    wants: &[(PathBuf, BTreeMap<u32, EntityTable>)],
    scenario: impl Fn(&CrashDisk) -> Vec<Run>,
) -> u64 {
    let check = |disk: &CrashDisk, runs: &[Run]| {
        for ((path, want), run) in wants.iter().zip(runs) {
            for model in IMAGES {
                check_image_of(&disk.image(model, None), path, run, want);
            }
        }
    };
    let probe = base.image(Image::Everything, None);
    let clean = scenario(&probe);
    assert_eq!(clean.len(), wants.len());
    assert!(
        clean.iter().all(|r| r.finished),
        "the scenario completes without a cut"
    );
    // Power lost right after the scenario: everything it was told is on the disk.
    check(&probe, &clean);
    let steps = probe.steps();
    eprintln!("{steps} cut points, {} images each", IMAGES.len());
    for cut in 1..=steps {
        let disk = base.image(Image::Everything, Some(cut));
        let runs = scenario(&disk);
        assert!(disk.lost_power(), "cut {cut} of {steps} was never reached");
        check(&disk, &runs);
        for ((path, want), run) in wants.iter().zip(&runs) {
            recovery_at_every_cut_of(&disk.image(Image::Everything, None), path, run, want);
        }
    }
    steps
}

/// Recovery of `disk`'s live directory, losing power at each of its steps; then a full recovery
/// of each image must still find everything acknowledged.
fn recovery_at_every_cut_of(
    disk: &CrashDisk,
    out: &Path,
    run: &Run,
    want: &BTreeMap<u32, EntityTable>,
) {
    let dir = live_dir_for(out);
    let probe = disk.image(Image::Everything, None);
    let live = LiveDir::new(probe.storage(), &dir);
    if !live.dir_exists().unwrap() || recover_live(&live, &mut |_, _| {}).is_err() {
        return;
    }
    for cut in 1..=probe.steps() {
        let cutting = disk.image(Image::Everything, Some(cut));
        let live = LiveDir::new(cutting.storage(), &dir);
        // Fails at the cut, or succeeds if the cut hit its best-effort cleanup of stale temporary
        // files; either way the power was lost during it.
        let _ = recover_live(&live, &mut |_, _| {});
        assert!(cutting.lost_power(), "cut {cut} was never reached");
        for model in IMAGES {
            check_image_of(&cutting.image(model, None), out, run, want);
        }
    }
}

fn engine(disk: &CrashDisk) -> Engine {
    Engine::with_storage(EngineOptions::default(), disk.storage()).unwrap()
}

#[test]
fn recording_flushing_compaction_and_publication_survive_power_loss_at_every_step() {
    let ticks = common::sim_ticks(3, 100, 41);
    let want = expected(&ticks);
    let base = CrashDisk::new(Path::new(ROOT), None);
    let steps = at_every_cut(&base, &want, |disk| {
        let engine = engine(disk);
        let mut run = Run::default();
        record(&engine, &ticks, &mut run, true);
        engine.shutdown();
        run
    });
    // Four flushes (directory, lock, segments, metadata file), compaction and publication.
    assert!(steps > 40, "only {steps} I/O steps");
}

#[test]
fn a_short_run_finished_from_memory_survives_power_loss_at_every_step() {
    // Never flushed: finish compacts straight from memory and publishes without a live directory.
    let ticks = common::sim_ticks(1, 60, 44);
    let want = expected(&ticks);
    let base = CrashDisk::new(Path::new(ROOT), None);
    let steps = at_every_cut(&base, &want, |disk| {
        let engine = engine(disk);
        let mut run = Run::default();
        record_parts(&engine, &ticks, ticks.len(), &mut run, true);
        engine.shutdown();
        assert!(run.acked.is_none());
        run
    });
    assert!(steps >= 4, "only {steps} I/O steps");
    assert!(
        base.image(Image::Everything, None).files().is_empty(),
        "the base disk is untouched"
    );
}

#[test]
fn resuming_a_recording_survives_power_loss_at_every_step() {
    let ticks = common::sim_ticks(3, 100, 42);
    let want = expected(&ticks);
    // The first half is recorded, flushed and closed on a disk that keeps everything.
    let base = CrashDisk::new(Path::new(ROOT), None);
    {
        let engine = engine(&base);
        let mut first = Run::default();
        record(&engine, &ticks[..50], &mut first, false);
        engine.shutdown();
        assert_eq!(first.acked, Some(49));
    }
    at_every_cut(&base, &want, |disk| {
        let engine = engine(disk);
        // The first half was acknowledged before this run started.
        let mut run = Run {
            acked: Some(49),
            ..Run::default()
        };
        record(&engine, &ticks[50..], &mut run, true);
        engine.shutdown();
        run
    });
}

#[test]
fn a_live_directory_after_power_loss_holds_only_whole_files() {
    // The live directory of an unfinished recording, as a reboot finds it: every file in it is a
    // segment, the metadata file, the lock, or the metadata file's temp file (no other leftovers).
    let ticks = common::sim_ticks(2, 60, 43);
    let disk = CrashDisk::new(Path::new(ROOT), Some(30));
    let engine = engine(&disk);
    let mut run = Run::default();
    record(&engine, &ticks, &mut run, false);
    engine.shutdown();
    for model in IMAGES {
        let image = disk.image(model, None);
        for path in image.files().keys() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let ok = name == "lock"
                || name == "meta.tkrl"
                || name == ".meta.tkrl.tmp"
                || tickreel::storage::live::parse_segment_name(&name).is_some();
            assert!(ok, "{model:?}: unexpected file {}", path.display());
        }
        let live = image.storage();
        let dir = live_dir_for(&out());
        if let Some(s) = live.stat(&dir).unwrap() {
            assert_eq!(s.kind, EntryKind::Dir);
        }
    }
}

#[test]
fn a_new_recording_clears_the_remnant_of_a_removal_cut_short() {
    // Find a cut inside the removal of the live directory after publication: the file is
    // published, the directory is left without its metadata file (removed first).
    let ticks = common::sim_ticks(2, 60, 45);
    let base = CrashDisk::new(Path::new(ROOT), None);
    let live_meta = live_dir_for(&out()).join("meta.tkrl");
    let remnant = (1..200)
        .map(|cut| {
            let disk = base.image(Image::Everything, Some(cut));
            let engine = engine(&disk);
            record(&engine, &ticks, &mut Run::default(), true);
            engine.shutdown();
            disk.image(Image::Everything, None)
        })
        .find(|d| {
            let files = d.files();
            files.contains_key(&out())
                && !files.contains_key(&live_meta)
                && files.keys().any(|p| p.starts_with(live_dir_for(&out())))
        })
        .expect("a cut leaves a remnant");
    // Without overwrite: refused as an existing recording, and the remnant is gone.
    let engine = engine(&remnant);
    let refused = engine.start_recording(out(), options());
    assert!(
        matches!(&refused, Err(e) if e.io_kind() == Some(std::io::ErrorKind::AlreadyExists)
            && e.path() == Some(out().as_path())),
        "{refused:?}"
    );
    let storage = remnant.storage();
    assert!(storage.stat(&live_dir_for(&out())).unwrap().is_none());
    // With overwrite: a fresh recording, nothing of the old one in it.
    let mut o = options();
    o.overwrite = true;
    let rec = engine.start_recording(out(), o).unwrap();
    for (t, e) in &ticks[..20] {
        rec.submit_tick(*t, &common::batch(e)).unwrap();
    }
    rec.finish().unwrap().wait().unwrap();
    engine.shutdown();
    let r = Reader::open_with(storage.open(&out()).unwrap(), ReaderOptions::default()).unwrap();
    assert_eq!(r.last_tick(), Some(19));
}

#[test]
fn a_group_commit_of_several_recordings_survives_power_loss_at_every_step() {
    // Three recordings flush together: their flushes are queued while the writer is held, so
    // that it takes them in one go and commits them in one round (frames appended, temporary
    // metadata files written, one file-system sync, the renames, another sync). Power is lost at
    // each step of the rounds, of the finishes and of the publications.
    let names = ["a.reel", "b.reel", "c.reel"];
    let ticks: Vec<_> = (0..names.len() as u64)
        .map(|i| common::sim_ticks(2, 60, 50 + i))
        .collect();
    let wants: Vec<(PathBuf, BTreeMap<u32, EntityTable>)> = names
        .iter()
        .zip(&ticks)
        .map(|(n, t)| (Path::new(ROOT).join(n), expected(t)))
        .collect();
    let base = CrashDisk::new(Path::new(ROOT), None);
    let steps = at_every_cut_of(&base, &wants, |disk| {
        let engine = engine(disk);
        let mut runs: Vec<Run> = names.iter().map(|_| Run::default()).collect();
        let recs: Vec<_> = wants
            .iter()
            .map(|(p, _)| engine.start_recording(p, options()).ok())
            .collect();
        for part in 0..3 {
            let range = part * 20..(part + 1) * 20;
            // Everything sent before (the openings) is taken first.
            while engine.stats().queue_depth > 0 {
                std::thread::yield_now();
            }
            engine.set_writers_stalled(true);
            // The writer may be past its check for the stall, about to take one more message:
            // count on the queue only once it is held.
            let holding = std::time::Instant::now();
            while !engine.writers_held() && holding.elapsed().as_secs() < 10 {
                std::thread::yield_now();
            }
            // What the queue must hold before the writer goes on: every call that was accepted (a
            // recording the writer retired just before the stall refuses them).
            let mut queued = 0;
            for (rec, t) in recs.iter().zip(&ticks) {
                if let Some(rec) = rec {
                    for (tick, e) in &t[range.clone()] {
                        if rec.submit_tick(*tick, &common::batch(e)).is_ok() {
                            queued += 1;
                        }
                    }
                }
            }
            if part == 2 {
                engine.set_writers_stalled(false);
                break;
            }
            for rec in recs.iter().flatten() {
                if rec
                    .set_user_metadata("part", fastnbt::Value::Int(part as i32))
                    .is_ok()
                {
                    queued += 1;
                }
            }
            std::thread::scope(|s| {
                let flushing: Vec<_> = recs
                    .iter()
                    .map(|rec| s.spawn(move || rec.as_ref().map(|r| r.flush().is_ok())))
                    .collect();
                // Each flush is queued, or refused at once (its thread ends while the writer is
                // held, which no queued flush can: its answer waits for the writer).
                let waited = std::time::Instant::now();
                loop {
                    let refused = flushing
                        .iter()
                        .zip(&recs)
                        .filter(|(h, rec)| rec.is_some() && h.is_finished())
                        .count();
                    let want_depth = queued + recs.iter().flatten().count() - refused;
                    let depth = engine.stats().queue_depth;
                    if depth >= want_depth {
                        break;
                    }
                    // A recording the writer failed (its I/O cut while it was still opening it,
                    // before the stall took hold) no longer counts what it had staged as waiting:
                    // the count above cannot be reached, and there is no group commit to set up.
                    if recs.iter().flatten().any(|r| r.status().is_err()) {
                        break;
                    }
                    if waited.elapsed().as_secs() >= 10 {
                        // Let the flushes end before failing, so that the test fails, not hangs.
                        engine.set_writers_stalled(false);
                        panic!(
                            "the flushes were not queued: queue depth {depth}, {want_depth} \
                             expected ({queued} calls accepted, {refused} flushes refused)"
                        );
                    }
                    std::thread::yield_now();
                }
                engine.set_writers_stalled(false);
                for (h, run) in flushing.into_iter().zip(runs.iter_mut()) {
                    if h.join().unwrap() == Some(true) {
                        run.acked = Some(range.end as u32 - 1);
                        run.part = Some(part as i32);
                    }
                }
            });
        }
        for (rec, run) in recs.into_iter().zip(runs.iter_mut()) {
            if let Some(rec) = rec {
                run.finished = rec.finish().and_then(|h| h.wait()).is_ok();
            }
        }
        engine.shutdown();
        runs
    });
    assert!(steps > 60, "only {steps} I/O steps");
}

#[test]
fn a_group_commit_round_takes_two_file_system_syncs_for_all_its_recordings() {
    let disk = CrashDisk::new(Path::new(ROOT), None);
    let engine = engine(&disk);
    let ticks = common::sim_ticks(1, 20, 60);
    let recs: Vec<_> = (0..8)
        .map(|i| {
            engine
                .start_recording(Path::new(ROOT).join(format!("r{i}.reel")), options())
                .unwrap()
        })
        .collect();
    // First flushes (which create the directories and lock files) out of the way.
    for rec in &recs {
        rec.submit_tick(0, &common::batch(&ticks[0].1)).unwrap();
        rec.flush().unwrap();
    }
    engine.set_writers_stalled(true);
    for rec in &recs {
        for (t, e) in &ticks[1..] {
            rec.submit_tick(*t, &common::batch(e)).unwrap();
        }
    }
    let before = engine.stats().syncs;
    std::thread::scope(|s| {
        let hs: Vec<_> = recs.iter().map(|r| s.spawn(move || r.flush())).collect();
        while engine.stats().queue_depth < recs.len() * 20 {
            std::thread::yield_now();
        }
        engine.set_writers_stalled(false);
        for h in hs {
            h.join().unwrap().unwrap();
        }
    });
    // Eight recordings flushed: one round, two syncs (not three per recording).
    assert_eq!(engine.stats().syncs - before, 2);
    for rec in &recs {
        assert_eq!(rec.stats().flushed_tick, Some(19));
    }
    engine.shutdown();
}
