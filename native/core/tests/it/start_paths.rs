//! A recording's path is checked when it starts, not at its first flush or its finish (where a run
//! that never flushed would have nowhere to go): an empty path, a directory, a missing directory
//! and a directory that takes no new files are refused at `start_recording`, creating nothing.

use crate::common::hooked;

use std::path::Path;

use tickreel::{Engine, EngineOptions, Error, RecorderOptions};

fn refused(engine: &Engine, path: &Path, says: &str) {
    match engine.start_recording(path, RecorderOptions::default()) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains(says), "{m}"),
        other => panic!("{}: {other:?}", path.display()),
    }
}

/// Refused as an I/O error of `kind` at `at` (what the operating system would have said).
fn refused_io(engine: &Engine, path: &Path, at: &Path, kind: std::io::ErrorKind, says: &str) {
    match engine.start_recording(path, RecorderOptions::default()) {
        Err(e @ Error::Io(_)) => {
            assert_eq!(e.io_kind(), Some(kind), "{e}");
            assert_eq!(e.path(), Some(at), "{e}");
            assert!(e.to_string().contains(says), "{e}");
        }
        other => panic!("{}: {other:?}", path.display()),
    }
}

#[test]
fn bad_paths_are_refused_at_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    refused(&engine, Path::new(""), "does not name a file");
    assert!(!Path::new(".live").exists());
    use std::io::ErrorKind::{IsADirectory, NotADirectory, NotFound};
    refused_io(
        &engine,
        dir.path(),
        dir.path(),
        IsADirectory,
        "is a directory",
    );
    let missing = dir.path().join("nowhere").join("run.reel");
    let nowhere = dir.path().join("nowhere");
    refused_io(&engine, &missing, &nowhere, NotFound, "does not exist");
    assert!(!dir.path().join("nowhere").exists());
    let file = dir.path().join("plain");
    std::fs::write(&file, b"x").unwrap();
    refused_io(
        &engine,
        &file.join("run.reel"),
        &file,
        NotADirectory,
        "not a directory",
    );
    // Nothing was left in the directory but the file put there.
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1);
    // A good path still starts, and the probe leaves nothing behind.
    let ok = dir.path().join("ok.reel");
    let rec = engine
        .start_recording(&ok, RecorderOptions::default())
        .unwrap();
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    rec.abort().unwrap();
}

/// A directory that takes no new files (a read-only mount, no permission): refused at the start,
/// with the path in the error, instead of losing a short run at its finish.
#[test]
fn a_directory_that_takes_no_files_is_refused_at_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let denied = dir.path().to_path_buf();
    // Nothing can be created in `denied`.
    let storage = hooked::Hooked::new(Box::new(move |op, path| {
        let creates = matches!(
            op,
            "create" | "create_new" | "create_temp" | "create_dir_all"
        );
        let dir = if op == "create_temp" {
            path
        } else {
            path.parent().unwrap_or(path)
        };
        if creates && dir == denied {
            return Err(Error::Io(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!("{}: permission denied", dir.display()),
            )));
        }
        Ok(())
    }));
    let engine = Engine::with_storage(EngineOptions::default(), storage).unwrap();
    let path = dir.path().join("run.reel");
    let e = engine
        .start_recording(&path, RecorderOptions::default())
        .unwrap_err();
    assert!(matches!(e, Error::Io(_)), "{e:?}");
    assert!(e.to_string().contains("run.reel"), "{e}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// An I/O failure after the start (here the recording's directory replaced by a file before its
/// first flush) is an `Error::Io` that keeps the operating system's kind and names the path, in
/// `Recorder::flush`, `Recorder::status` and the message.
#[test]
fn an_io_failure_while_recording_names_its_path_and_kind() {
    use tickreel::format::{Event, encode_batch};
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("runs");
    std::fs::create_dir(&sub).unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(sub.join("run.reel"), RecorderOptions::default())
        .unwrap();
    // The directory goes away and a file takes its name: the live directory cannot be created.
    std::fs::remove_dir(&sub).unwrap();
    std::fs::write(&sub, b"not a directory").unwrap();
    let mut batch = Vec::new();
    let pose = tickreel::Pose::from_f64(1.0, 2.0, 3.0, 0.0, 0.0);
    encode_batch(
        &[Event::EntityAdd {
            entity: 1,
            kind: 0,
            pose,
        }],
        &mut batch,
    )
    .unwrap();
    rec.submit_tick(0, &batch).unwrap();
    let e = rec.flush().unwrap_err();
    assert_eq!(e.kind(), tickreel::ErrorKind::Io, "{e}");
    assert_eq!(
        e.io_kind(),
        Some(std::io::ErrorKind::NotADirectory),
        "{e:?}"
    );
    let path = e.path().expect("the error names its path");
    assert!(path.starts_with(&sub), "{}", path.display());
    assert!(e.to_string().contains(&*sub.to_string_lossy()), "{e}");
    let status = rec.status().unwrap_err();
    assert_eq!(status.path(), e.path(), "{status}");
    assert_eq!(status.io_kind(), e.io_kind());
    drop(rec);
}
