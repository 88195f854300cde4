//! [`SyncCounted`]: a [`Storage`] that counts the durability calls made through it (file syncs,
//! directory syncs, file-system syncs, truncations), so an engine can report how many fsyncs its
//! recordings cost (`EngineStats::syncs`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::Source;
use super::disk::{Stat, Storage, StorageFile, StorageLock};
use crate::error::Result;

/// Forwards every call to another storage, counting those that wait for the disk.
#[derive(Debug)]
pub(crate) struct SyncCounted {
    inner: Arc<dyn Storage>,
    syncs: Arc<AtomicU64>,
}

impl SyncCounted {
    pub fn new(inner: Arc<dyn Storage>) -> SyncCounted {
        SyncCounted {
            inner,
            syncs: Arc::new(AtomicU64::new(0)),
        }
    }
    /// Syncs made through this storage so far (each `fsync`, `fdatasync` or `syncfs` counts one).
    pub fn syncs(&self) -> u64 {
        self.syncs.load(Ordering::Relaxed)
    }
    fn count(&self) {
        self.syncs.fetch_add(1, Ordering::Relaxed);
    }
    fn wrap(&self, file: Box<dyn StorageFile>) -> Box<dyn StorageFile> {
        Box::new(CountedFile {
            inner: file,
            syncs: self.syncs.clone(),
        })
    }
}

#[derive(Debug)]
struct CountedFile {
    inner: Box<dyn StorageFile>,
    syncs: Arc<AtomicU64>,
}

impl StorageFile for CountedFile {
    fn append(&mut self, bytes: &[u8]) -> Result<()> {
        self.inner.append(bytes)
    }
    fn sync(&mut self) -> Result<()> {
        self.syncs.fetch_add(1, Ordering::Relaxed);
        self.inner.sync()
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
}

impl Storage for SyncCounted {
    fn open(&self, path: &Path) -> Result<Arc<dyn Source>> {
        self.inner.open(path)
    }
    fn read(&self, path: &Path) -> Result<Vec<u8>> {
        self.inner.read(path)
    }
    fn stat(&self, path: &Path) -> Result<Option<Stat>> {
        self.inner.stat(path)
    }
    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        self.inner.list(dir)
    }
    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        self.inner.create_dir_all(dir)
    }
    fn create(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        Ok(self.wrap(self.inner.create(path)?))
    }
    fn open_append(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        Ok(self.wrap(self.inner.open_append(path)?))
    }
    fn create_new(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        Ok(self.wrap(self.inner.create_new(path)?))
    }
    fn create_temp(
        &self,
        dir: &Path,
        prefix: &str,
        suffix: &str,
    ) -> Result<(PathBuf, Box<dyn StorageFile>)> {
        let (path, f) = self.inner.create_temp(dir, prefix, suffix)?;
        Ok((path, self.wrap(f)))
    }
    fn truncate(&self, path: &Path, len: u64) -> Result<()> {
        self.count();
        self.inner.truncate(path, len)
    }
    fn rename(&self, from: &Path, to: &Path, replace: bool) -> Result<()> {
        self.inner.rename(from, to, replace)
    }
    fn remove_file(&self, path: &Path) -> Result<()> {
        self.inner.remove_file(path)
    }
    fn remove_dir(&self, dir: &Path) -> Result<()> {
        self.inner.remove_dir(dir)
    }
    fn sync_dir(&self, dir: &Path) -> Result<()> {
        self.count();
        self.inner.sync_dir(dir)
    }
    fn sync_filesystem(&self, path: &Path) -> Result<()> {
        self.count();
        self.inner.sync_filesystem(path)
    }
    fn lock(&self, path: &Path) -> Result<Box<dyn StorageLock>> {
        self.inner.lock(path)
    }
    fn is_locked(&self, path: &Path) -> Result<bool> {
        self.inner.is_locked(path)
    }
    fn members(&self) -> Option<Arc<dyn Storage>> {
        // The inner storage's member view, still counted (in the same count).
        let inner = self.inner.members()?;
        Some(Arc::new(SyncCounted {
            inner,
            syncs: self.syncs.clone(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::LocalStorage;

    #[test]
    fn counts_file_directory_and_file_system_syncs() {
        let dir = tempfile::tempdir().unwrap();
        let s = SyncCounted::new(LocalStorage::shared());
        let mut f = s.create(&dir.path().join("a")).unwrap();
        f.append(b"x").unwrap();
        assert_eq!(s.syncs(), 0, "appends are not syncs");
        f.sync().unwrap();
        s.sync_dir(dir.path()).unwrap();
        s.sync_filesystem(dir.path()).unwrap();
        assert_eq!(s.syncs(), 3);
    }
}
