//! A storage that is the local disk, except that a hook sees every call first (with what it is
//! and its path) and may fail it or hold it: for tests of what happens around one I/O step.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tickreel::storage::{LocalStorage, Source, Stat, Storage, StorageFile, StorageLock};

/// Sees each call (`"create_temp"`, `"list"`, ...) and its path before the disk does.
pub type Hook = Box<dyn Fn(&str, &Path) -> tickreel::Result<()> + Send + Sync>;

pub struct Hooked {
    inner: Arc<dyn Storage>,
    hook: Hook,
}

impl std::fmt::Debug for Hooked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Hooked")
    }
}

impl Hooked {
    pub fn new(hook: Hook) -> Arc<Hooked> {
        Arc::new(Hooked {
            inner: LocalStorage::shared(),
            hook,
        })
    }
}

impl Storage for Hooked {
    fn open(&self, path: &Path) -> tickreel::Result<Arc<dyn Source>> {
        (self.hook)("open", path)?;
        self.inner.open(path)
    }
    fn stat(&self, path: &Path) -> tickreel::Result<Option<Stat>> {
        (self.hook)("stat", path)?;
        self.inner.stat(path)
    }
    fn list(&self, dir: &Path) -> tickreel::Result<Vec<String>> {
        (self.hook)("list", dir)?;
        self.inner.list(dir)
    }
    fn create_dir_all(&self, dir: &Path) -> tickreel::Result<()> {
        (self.hook)("create_dir_all", dir)?;
        self.inner.create_dir_all(dir)
    }
    fn create(&self, path: &Path) -> tickreel::Result<Box<dyn StorageFile>> {
        (self.hook)("create", path)?;
        self.inner.create(path)
    }
    fn open_append(&self, path: &Path) -> tickreel::Result<Box<dyn StorageFile>> {
        (self.hook)("open_append", path)?;
        self.inner.open_append(path)
    }
    fn create_new(&self, path: &Path) -> tickreel::Result<Box<dyn StorageFile>> {
        (self.hook)("create_new", path)?;
        self.inner.create_new(path)
    }
    fn create_temp(
        &self,
        dir: &Path,
        prefix: &str,
        suffix: &str,
    ) -> tickreel::Result<(PathBuf, Box<dyn StorageFile>)> {
        (self.hook)("create_temp", dir)?;
        self.inner.create_temp(dir, prefix, suffix)
    }
    fn truncate(&self, path: &Path, len: u64) -> tickreel::Result<()> {
        (self.hook)("truncate", path)?;
        self.inner.truncate(path, len)
    }
    fn rename(&self, from: &Path, to: &Path, replace: bool) -> tickreel::Result<()> {
        (self.hook)("rename", from)?;
        self.inner.rename(from, to, replace)
    }
    fn remove_file(&self, path: &Path) -> tickreel::Result<()> {
        (self.hook)("remove_file", path)?;
        self.inner.remove_file(path)
    }
    fn sync_filesystem(&self, path: &Path) -> tickreel::Result<()> {
        (self.hook)("sync_filesystem", path)?;
        self.inner.sync_filesystem(path)
    }
    fn remove_dir(&self, dir: &Path) -> tickreel::Result<()> {
        (self.hook)("remove_dir", dir)?;
        self.inner.remove_dir(dir)
    }
    fn sync_dir(&self, dir: &Path) -> tickreel::Result<()> {
        (self.hook)("sync_dir", dir)?;
        self.inner.sync_dir(dir)
    }
    fn lock(&self, path: &Path) -> tickreel::Result<Box<dyn StorageLock>> {
        (self.hook)("lock", path)?;
        self.inner.lock(path)
    }
    fn is_locked(&self, path: &Path) -> tickreel::Result<bool> {
        (self.hook)("is_locked", path)?;
        self.inner.is_locked(path)
    }
}
