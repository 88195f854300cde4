//! The local file system: [`LocalStorage`] (the core's only user of `std::fs`) and
//! [`FileSource`], a file read with `pread`.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use super::Source;
use super::disk::{EntryKind, Stat, Storage, StorageFile, StorageLock};
use crate::error::{Error, Result};

/// An I/O error that names the path it happened on.
fn at(path: &Path, e: io::Error) -> Error {
    Error::io_at(path, e)
}

/// The local file system.
#[derive(Debug, Default, Clone, Copy)]
pub struct LocalStorage;

impl LocalStorage {
    /// The shared instance.
    pub fn shared() -> Arc<dyn Storage> {
        static LOCAL: OnceLock<Arc<dyn Storage>> = OnceLock::new();
        LOCAL.get_or_init(|| Arc::new(LocalStorage)).clone()
    }
}

/// A file being appended to.
#[derive(Debug)]
struct LocalFile {
    file: File,
    path: PathBuf,
    len: u64,
}

impl StorageFile for LocalFile {
    fn append(&mut self, bytes: &[u8]) -> Result<()> {
        self.file.write_all(bytes).map_err(|e| at(&self.path, e))?;
        self.len += bytes.len() as u64;
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
        self.file.sync_data().map_err(|e| at(&self.path, e))
    }
    fn len(&self) -> u64 {
        self.len
    }
}

/// An advisory lock (`flock`), released when the file is closed.
#[derive(Debug)]
struct LocalLock {
    _file: File,
}

impl StorageLock for LocalLock {}

impl Storage for LocalStorage {
    fn open(&self, path: &Path) -> Result<Arc<dyn Source>> {
        Ok(Arc::new(FileSource::open(path)?))
    }
    fn stat(&self, path: &Path) -> Result<Option<Stat>> {
        let m = match fs::metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(at(path, e)),
        };
        Ok(Some(Stat {
            kind: if m.is_dir() {
                EntryKind::Dir
            } else {
                EntryKind::File
            },
            len: m.len(),
            identity: (m.dev(), m.ino()),
            modified_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
        }))
    }
    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for e in fs::read_dir(dir).map_err(|e| at(dir, e))? {
            out.push(
                e.map_err(|e| at(dir, e))?
                    .file_name()
                    .to_string_lossy()
                    .into_owned(),
            );
        }
        Ok(out)
    }
    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        fs::create_dir_all(dir).map_err(|e| at(dir, e))
    }
    fn create(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        let file = File::create(path).map_err(|e| at(path, e))?;
        Ok(Box::new(LocalFile {
            file,
            path: path.to_path_buf(),
            len: 0,
        }))
    }
    fn open_append(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| at(path, e))?;
        let len = file.metadata().map_err(|e| at(path, e))?.len();
        Ok(Box::new(LocalFile {
            file,
            path: path.to_path_buf(),
            len,
        }))
    }
    fn create_new(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(path)
            .map_err(|e| at(path, e))?;
        Ok(Box::new(LocalFile {
            file,
            path: path.to_path_buf(),
            len: 0,
        }))
    }
    fn create_temp(
        &self,
        dir: &Path,
        prefix: &str,
        suffix: &str,
    ) -> Result<(PathBuf, Box<dyn StorageFile>)> {
        // A name no other call of this process (counter) or of another process (pid) takes at
        // once, created exclusively; not `tempfile`, whose random names come from a thread-local
        // generator seeded with std::thread::current() (a thread-exit callback on the caller's
        // thread; see `crate::threads`).
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let pid = std::process::id();
        let mut tries = 0;
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let path = dir.join(format!("{prefix}{pid:x}-{n:x}-{nanos:08x}{suffix}"));
            // Mode 0666 before the umask, like `File::create`.
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o666)
                .open(&path)
            {
                Ok(file) => {
                    let f = LocalFile {
                        file,
                        path: path.clone(),
                        len: 0,
                    };
                    return Ok((path, Box::new(f)));
                }
                // A name left by an earlier process with the same id: the next one.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 100 => tries += 1,
                Err(e) => return Err(at(dir, e)),
            }
        }
    }
    fn truncate(&self, path: &Path, len: u64) -> Result<()> {
        let f = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| at(path, e))?;
        f.set_len(len).map_err(|e| at(path, e))?;
        f.sync_all().map_err(|e| at(path, e))
    }
    fn rename(&self, from: &Path, to: &Path, replace: bool) -> Result<()> {
        if replace {
            return fs::rename(from, to).map_err(|e| at(to, e));
        }
        // renameat2(RENAME_NOREPLACE), or hard link + unlink where that is not supported.
        match tempfile::TempPath::try_from_path(from)
            .map_err(|e| at(from, e))?
            .persist_noclobber(to)
        {
            Ok(()) => Ok(()),
            Err(e) => {
                // The source stays where it was (a TempPath would remove it when dropped).
                let _ = e.path.keep();
                Err(at(to, e.error))
            }
        }
    }
    fn remove_file(&self, path: &Path) -> Result<()> {
        fs::remove_file(path).map_err(|e| at(path, e))
    }
    fn remove_dir(&self, dir: &Path) -> Result<()> {
        fs::remove_dir(dir).map_err(|e| at(dir, e))
    }
    fn sync_dir(&self, dir: &Path) -> Result<()> {
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| at(dir, e))
    }
    fn sync_filesystem(&self, path: &Path) -> Result<()> {
        let f = File::open(path).map_err(|e| at(path, e))?;
        #[cfg(target_os = "linux")]
        rustix::fs::syncfs(&f).map_err(|e| at(path, e.into()))?;
        #[cfg(not(target_os = "linux"))]
        {
            // No per-file-system sync: the whole system's (sync(2)), then this file system's
            // directory for the ordering sync(2) does not promise everywhere.
            rustix::fs::sync();
            f.sync_all().map_err(|e| at(path, e))?;
        }
        Ok(())
    }
    fn lock(&self, path: &Path) -> Result<Box<dyn StorageLock>> {
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| at(path, e))?;
        // A follower checking whether the lock is held takes it for an instant (`is_locked`):
        // a few short retries keep that from refusing a writer.
        let mut tries = 0;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(fs::TryLockError::WouldBlock) if tries < 5 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(4));
                }
                Err(fs::TryLockError::WouldBlock) => {
                    return Err(Error::Locked(format!(
                        "{} is held by another writer",
                        path.display()
                    )));
                }
                Err(fs::TryLockError::Error(e)) => return Err(at(path, e)),
            }
        }
        // The holder's process id, for people looking at a stuck directory.
        file.set_len(0).map_err(|e| at(path, e))?;
        let _ = writeln!(file, "{}", std::process::id());
        Ok(Box::new(LocalLock { _file: file }))
    }
    fn is_locked(&self, path: &Path) -> Result<bool> {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(at(path, e)),
        };
        match file.try_lock() {
            // Released when `file` is closed.
            Ok(()) => Ok(false),
            Err(fs::TryLockError::WouldBlock) => Ok(true),
            Err(fs::TryLockError::Error(e)) => Err(at(path, e)),
        }
    }
}

/// A local file read with `pread` (no shared cursor, so any number of threads may read at once).
#[derive(Debug)]
pub struct FileSource {
    file: File,
    path: PathBuf,
}

impl FileSource {
    pub fn open(path: impl AsRef<Path>) -> Result<FileSource> {
        let path = path.as_ref().to_path_buf();
        let file = File::open(&path).map_err(|e| at(&path, e))?;
        Ok(FileSource { file, path })
    }
}

impl Source for FileSource {
    fn len(&self) -> Result<u64> {
        Ok(self.file.metadata().map_err(|e| at(&self.path, e))?.len())
    }
    fn read_up_to(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let size = self.len()?;
        let avail = size.saturating_sub(offset).min(len as u64) as usize;
        let mut buf = vec![0u8; avail];
        let mut done = 0;
        while done < avail {
            let n = self
                .file
                .read_at(&mut buf[done..], offset + done as u64)
                .map_err(|e| at(&self.path, e))?;
            if n == 0 {
                break;
            }
            done += n;
        }
        buf.truncate(done);
        Ok(buf)
    }
    fn describe(&self) -> String {
        self.path.display().to_string()
    }
}
