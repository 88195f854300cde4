//! A recording's path is checked when it starts, not at its first flush or its finish (where a run
//! that never flushed would have nowhere to go): an empty path, a directory, a missing directory
//! and a directory that takes no new files are refused at `start_recording`, creating nothing.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tickreel::storage::{LocalStorage, Source, Stat, Storage, StorageFile, StorageLock};
use tickreel::{Engine, EngineOptions, Error, RecorderOptions};

fn refused(engine: &Engine, path: &Path, says: &str) {
    match engine.start_recording(path, RecorderOptions::default()) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains(says), "{m}"),
        other => panic!("{}: {other:?}", path.display()),
    }
}

#[test]
fn bad_paths_are_refused_at_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    refused(&engine, Path::new(""), "does not name a file");
    assert!(!Path::new(".live").exists());
    refused(&engine, dir.path(), "is a directory");
    let missing = dir.path().join("nowhere").join("run.reel");
    refused(&engine, &missing, "does not exist");
    assert!(!dir.path().join("nowhere").exists());
    let file = dir.path().join("plain");
    std::fs::write(&file, b"x").unwrap();
    refused(&engine, &file.join("run.reel"), "is not a directory");
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

/// The local disk, except that nothing can be created in `denied`.
#[derive(Debug)]
struct ReadOnlyDir {
    inner: Arc<dyn Storage>,
    denied: PathBuf,
}

impl ReadOnlyDir {
    fn check(&self, dir: &Path) -> tickreel::Result<()> {
        if dir == self.denied {
            return Err(Error::Io(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!("{}: permission denied", dir.display()),
            )));
        }
        Ok(())
    }
}

impl Storage for ReadOnlyDir {
    fn open(&self, path: &Path) -> tickreel::Result<Arc<dyn Source>> {
        self.inner.open(path)
    }
    fn stat(&self, path: &Path) -> tickreel::Result<Option<Stat>> {
        self.inner.stat(path)
    }
    fn list(&self, dir: &Path) -> tickreel::Result<Vec<String>> {
        self.inner.list(dir)
    }
    fn create_dir_all(&self, dir: &Path) -> tickreel::Result<()> {
        self.check(tickreel::storage::parent_dir(dir))?;
        self.inner.create_dir_all(dir)
    }
    fn create(&self, path: &Path) -> tickreel::Result<Box<dyn StorageFile>> {
        self.check(tickreel::storage::parent_dir(path))?;
        self.inner.create(path)
    }
    fn create_new(&self, path: &Path) -> tickreel::Result<Box<dyn StorageFile>> {
        self.check(tickreel::storage::parent_dir(path))?;
        self.inner.create_new(path)
    }
    fn create_temp(
        &self,
        dir: &Path,
        prefix: &str,
        suffix: &str,
    ) -> tickreel::Result<(PathBuf, Box<dyn StorageFile>)> {
        self.check(dir)?;
        self.inner.create_temp(dir, prefix, suffix)
    }
    fn truncate(&self, path: &Path, len: u64) -> tickreel::Result<()> {
        self.inner.truncate(path, len)
    }
    fn rename(&self, from: &Path, to: &Path, replace: bool) -> tickreel::Result<()> {
        self.inner.rename(from, to, replace)
    }
    fn remove_file(&self, path: &Path) -> tickreel::Result<()> {
        self.inner.remove_file(path)
    }
    fn remove_dir(&self, dir: &Path) -> tickreel::Result<()> {
        self.inner.remove_dir(dir)
    }
    fn sync_dir(&self, dir: &Path) -> tickreel::Result<()> {
        self.inner.sync_dir(dir)
    }
    fn lock(&self, path: &Path) -> tickreel::Result<Box<dyn StorageLock>> {
        self.inner.lock(path)
    }
    fn is_locked(&self, path: &Path) -> tickreel::Result<bool> {
        self.inner.is_locked(path)
    }
}

/// A directory that takes no new files (a read-only mount, no permission): refused at the start,
/// with the path in the error, instead of losing a short run at its finish.
#[test]
fn a_directory_that_takes_no_files_is_refused_at_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let storage = Arc::new(ReadOnlyDir {
        inner: LocalStorage::shared(),
        denied: dir.path().to_path_buf(),
    });
    let engine = Engine::with_storage(EngineOptions::default(), storage).unwrap();
    let path = dir.path().join("run.reel");
    let e = engine
        .start_recording(&path, RecorderOptions::default())
        .unwrap_err();
    assert!(matches!(e, Error::Io(_)), "{e:?}");
    assert!(e.to_string().contains("run.reel"), "{e}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
