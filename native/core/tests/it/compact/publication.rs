//! Publication of a compacted file: never replacing a file unless told to, two writers of one path.

use super::*;

/// Two engines and two different walks (`a`, then `b`) to record into one path of `dir`.
struct Rivals {
    dir: tempfile::TempDir,
    a: Vec<(u32, Vec<Event>)>,
    b: Vec<(u32, Vec<Event>)>,
    ea: Engine,
    eb: Engine,
}

fn rivals() -> Rivals {
    Rivals {
        dir: tempfile::tempdir().unwrap(),
        a: walk(0, 1),
        b: walk(100, 2),
        ea: Engine::new(EngineOptions::default()).unwrap(),
        eb: Engine::new(EngineOptions::default()).unwrap(),
    }
}

/// `err` is `Error::Locked`, and its message names each of `paths`.
#[track_caller]
fn assert_locked_naming(err: &Error, paths: &[&Path]) {
    match err {
        Error::Locked(m) => {
            for p in paths {
                assert!(m.contains(&*p.to_string_lossy()), "{m}");
            }
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn compact_does_not_replace_an_existing_file_unless_told_to() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src.reel");
    common::write_reel(&src, &known_paths(), ChunkPolicy::default());
    let source = Reader::open_path(&src).unwrap();
    let out = dir.path().join("out.reel");
    std::fs::write(&out, b"precious").unwrap();
    let r = compact(&source, &out, CompactOptions::default(), &mut |_, _| {});
    assert!(
        matches!(&r, Err(e) if e.io_kind() == Some(std::io::ErrorKind::AlreadyExists)
            && e.path() == Some(out.as_path())
            && e.to_string().contains("already exists")),
        "{r:?}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"precious");
    assert_eq!(names(dir.path()), set(&["src.reel", "out.reel"]));
    let options = CompactOptions {
        overwrite: true,
        ..CompactOptions::default()
    };
    compact(&source, &out, options, &mut |_, _| {}).unwrap();
    assert_eq!(
        all_ticks(&Reader::open_path(&out).unwrap()),
        all_ticks(&source)
    );
    assert_eq!(names(dir.path()), set(&["src.reel", "out.reel"]));
}

#[test]
fn two_engines_finishing_the_same_unflushed_path_never_overwrite_each_other() {
    let Rivals { dir, a, b, ea, eb } = rivals();

    // one after the other: the second is refused and its ticks are kept next to the path
    let path = dir.path().join("run.reel");
    let ra = record(&ea, &path, &a, false);
    let rb = record(&eb, &path, &b, false);
    assert_eq!(ra.finish().unwrap().wait().unwrap(), path);
    let err = rb.finish().unwrap().wait().unwrap_err();
    let conflict = dir.path().join("run.conflict-1.reel");
    assert_locked_naming(&err, &[&path, &conflict]);
    assert!(holds(&path, &a), "the first file was replaced");
    assert!(
        holds(&conflict, &b),
        "the second recording's ticks were lost"
    );
    assert_eq!(names(dir.path()), set(&["run.reel", "run.conflict-1.reel"]));

    // both at once: exactly one wins, the other's ticks are kept
    let path = dir.path().join("race.reel");
    let rc = record(&ea, &path, &a, false);
    let rd = record(&eb, &path, &b, false);
    let (hc, hd) = (rc.finish().unwrap(), rd.finish().unwrap());
    let (c, d) = (hc.wait(), hd.wait());
    assert!(c.is_ok() != d.is_ok(), "{c:?} {d:?}");
    let (winner, loser, err) = match (c, d) {
        (Ok(_), Err(e)) => (&a, &b, e),
        (Err(e), Ok(_)) => (&b, &a, e),
        _ => unreachable!(),
    };
    assert!(matches!(err, Error::Locked(_)), "{err:?}");
    let conflict = dir.path().join("race.conflict-1.reel");
    assert!(holds(&path, winner));
    assert!(holds(&conflict, loser));
    assert_eq!(
        names(dir.path()),
        set(&[
            "run.reel",
            "run.conflict-1.reel",
            "race.reel",
            "race.conflict-1.reel"
        ])
    );
    ea.shutdown();
    eb.shutdown();
}

#[test]
fn with_overwrite_the_later_recording_replaces_the_file() {
    let Rivals { dir, a, b, ea, eb } = rivals();
    let path = dir.path().join("run.reel");
    let ra = record(&ea, &path, &a, false);
    let rb = record(&eb, &path, &b, true);
    ra.finish().unwrap().wait().unwrap();
    assert_eq!(rb.finish().unwrap().wait().unwrap(), path);
    assert!(holds(&path, &b));
    assert_eq!(names(dir.path()), set(&["run.reel"]));
}

#[test]
fn an_unflushed_recording_does_not_publish_a_path_another_writer_records_live() {
    let Rivals { dir, a, b, ea, eb } = rivals();
    let path = dir.path().join("run.reel");
    // both start before either has a live directory (else the second would be refused at once)
    let ra = record(&ea, &path, &a, false);
    // even with overwrite: the live directory is another writer's recording in progress
    let rb = record(&eb, &path, &b, true);
    ra.flush().unwrap();
    let live = live_dir_for(&path);
    assert!(live.is_dir());
    let err = rb.finish().unwrap().wait().unwrap_err();
    let conflict = dir.path().join("run.conflict-1.reel");
    assert_locked_naming(&err, &[&live, &conflict]);
    assert!(!path.exists());
    assert!(holds(&conflict, &b));
    assert_eq!(ra.finish().unwrap().wait().unwrap(), path);
    assert!(holds(&path, &a));
    assert_eq!(names(dir.path()), set(&["run.reel", "run.conflict-1.reel"]));
}

#[test]
fn a_live_recording_that_loses_the_race_keeps_its_live_directory() {
    let Rivals { dir, a, b, ea, eb } = rivals();
    let path = dir.path().join("run.reel");
    let ra = record(&ea, &path, &a, false);
    let rb = record(&eb, &path, &b, false);
    rb.finish().unwrap().wait().unwrap();
    ra.flush().unwrap();
    let live = live_dir_for(&path);
    let err = ra.finish().unwrap().wait().unwrap_err();
    assert_locked_naming(&err, &[&path, &live]);
    assert!(holds(&path, &b), "the published file was replaced");
    assert_eq!(names(dir.path()), set(&["run.reel", "run.reel.live"]));
    // the live directory is unlocked and complete: it compacts elsewhere ...
    let elsewhere = dir.path().join("a.reel");
    compact(
        &Reader::open_live(&live).unwrap(),
        &elsewhere,
        CompactOptions::default(),
        &mut |_, _| {},
    )
    .unwrap();
    assert!(holds(&elsewhere, &a));
    // ... or resumes and finishes, here replacing the other file
    let again = ea
        .start_recording(
            &path,
            RecorderOptions {
                overwrite: true,
                on_existing: tickreel::record::OnExisting::Resume,
                ..RecorderOptions::default()
            },
        )
        .unwrap();
    assert_eq!(again.finish().unwrap().wait().unwrap(), path);
    assert!(holds(&path, &a));
    assert_eq!(names(dir.path()), set(&["run.reel", "a.reel"]));
}
