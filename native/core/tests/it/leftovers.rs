//! What a killed compaction leaves behind (its temporary files next to the final path) is removed
//! by the recording's next recovery or compaction, once it is old enough to be nobody's work.

use crate::common;

use std::path::Path;
use std::time::{Duration, SystemTime};

use tickreel::play::Reader;
use tickreel::record::{CompactOptions, RecorderOptions, compact, recover};
use tickreel::storage::live::live_dir_for;
use tickreel::{Engine, EngineOptions, Event, Pose};

fn touch(path: &Path, age: Duration) {
    let f = std::fs::File::create(path).unwrap();
    f.set_modified(SystemTime::now() - age).unwrap();
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn stale_temporary_files_are_removed_by_recovery_and_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, RecorderOptions::default())
        .unwrap();
    let pose = |x| {
        common::batch(&[Event::Pose {
            entity: 1,
            pose: Pose {
                x,
                ..Pose::default()
            },
        }])
    };
    rec.submit_tick(0, &pose(0)).unwrap();
    rec.flush().unwrap();
    rec.close().unwrap();
    drop(rec);
    let hour = Duration::from_secs(3600);
    touch(&dir.path().join(".run.reel.aB3xQ9.tmp"), hour);
    touch(&dir.path().join(".run.reel.Zz0011.body.tmp"), hour);
    // Someone else's (another path) and a fresh one (a compaction that may still be running).
    touch(&dir.path().join(".other.reel.aB3xQ9.tmp"), hour);
    touch(&dir.path().join(".run.reel.fresh1.tmp"), Duration::ZERO);
    recover(&live_dir_for(&path)).unwrap();
    assert_eq!(
        names(dir.path()),
        [
            ".other.reel.aB3xQ9.tmp",
            ".run.reel.fresh1.tmp",
            "run.reel.live"
        ]
    );
    // Compaction to a path removes that path's stale files too.
    let out = dir.path().join("other.reel");
    let source = Reader::open_live(live_dir_for(&path)).unwrap();
    compact(&source, &out, CompactOptions::default(), &mut |_, _| {}).unwrap();
    assert_eq!(
        names(dir.path()),
        [".run.reel.fresh1.tmp", "other.reel", "run.reel.live"]
    );
}

#[test]
fn a_failed_compaction_says_the_recording_is_still_in_its_live_directory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("blocked.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(
            &path,
            RecorderOptions {
                overwrite: true,
                ..RecorderOptions::default()
            },
        )
        .unwrap();
    rec.submit_tick(
        0,
        &common::batch(&[Event::Pose {
            entity: 1,
            pose: Pose::default(),
        }]),
    )
    .unwrap();
    rec.flush().unwrap();
    // A directory in the way of the final file: the publication cannot replace it.
    std::fs::create_dir(&path).unwrap();
    std::fs::write(path.join("x"), b"x").unwrap();
    let e = rec.finish().unwrap().wait().unwrap_err().to_string();
    let live = live_dir_for(&path);
    assert!(
        e.contains("still in its live directory") && e.contains(&live.display().to_string()),
        "{e}"
    );
    Reader::open_live(&live).unwrap().verify().unwrap();
}
