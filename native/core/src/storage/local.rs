//! The local file system: [`LocalStorage`] (the core's only user of `std::fs`) and
//! [`FileSource`], a file read with `pread`.

// The one file of the library that implements the file system rule of `clippy.toml`.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use rustix::fs::OFlags;

use super::Source;
use super::disk::{EntryKind, Stat, Storage, StorageFile, StorageLock};
use crate::error::{Error, Result};

/// An I/O error that names the path it happened on.
fn at(path: &Path, e: io::Error) -> Error {
    Error::io_at(path, e)
}

/// What `m` says of a file or directory.
fn stat_of(m: &fs::Metadata) -> Stat {
    Stat {
        kind: if m.is_dir() {
            EntryKind::Dir
        } else {
            EntryKind::File
        },
        len: m.len(),
        identity: (m.dev(), m.ino()),
        modified_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
    }
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

impl LocalFile {
    fn boxed(file: File, path: &Path, len: u64) -> Box<dyn StorageFile> {
        Box::new(LocalFile {
            file,
            path: path.to_path_buf(),
            len,
        })
    }
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
        Ok(Some(stat_of(&m)))
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
        Ok(LocalFile::boxed(file, path, 0))
    }
    fn open_append(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| at(path, e))?;
        let len = file.metadata().map_err(|e| at(path, e))?.len();
        Ok(LocalFile::boxed(file, path, len))
    }
    fn create_new(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(path)
            .map_err(|e| at(path, e))?;
        Ok(LocalFile::boxed(file, path, 0))
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
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| at(path, e))?;
        take_lock(file, path)
    }
    fn is_locked(&self, path: &Path) -> Result<bool> {
        match File::open(path) {
            Ok(f) => probe_lock(&f, path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(at(path, e)),
        }
    }
    fn members(&self) -> Option<Arc<dyn Storage>> {
        Some(LocalMembers::shared())
    }
}

/// Takes the exclusive lock of the open lock file `file` (a few short retries), then writes the
/// holder's process id into it.
fn take_lock(mut file: File, path: &Path) -> Result<Box<dyn StorageLock>> {
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

/// Whether another holder has the lock of the open lock file `file` (takes it for an instant if
/// it is free; released when `file` is closed).
fn probe_lock(file: &File, path: &Path) -> Result<bool> {
    match file.try_lock() {
        Ok(()) => Ok(false),
        Err(fs::TryLockError::WouldBlock) => Ok(true),
        Err(fs::TryLockError::Error(e)) => Err(at(path, e)),
    }
}

/// The local file system as it is used for the members of a live directory
/// ([`Storage::members`]): files are opened with `O_NOFOLLOW` (a symbolic link in the last
/// component is refused, never followed) and `O_NONBLOCK` (a FIFO is refused, never waited on;
/// cleared again once the file is known to be a regular one), then checked with `fstat` to be a
/// regular file with one name (a hard link from elsewhere is refused, see
/// [`super::disk::HARD_LINKED`]); `stat` is `lstat`, with the same checks. Removal and rename act on names and never follow anyway;
/// directory calls are [`LocalStorage`]'s.
#[derive(Debug, Default, Clone, Copy)]
struct LocalMembers;

impl LocalMembers {
    fn shared() -> Arc<dyn Storage> {
        static MEMBERS: OnceLock<Arc<dyn Storage>> = OnceLock::new();
        MEMBERS.get_or_init(|| Arc::new(LocalMembers)).clone()
    }
}

/// What a file type is, for a refusal ("a symbolic link").
fn kind_of(t: fs::FileType) -> &'static str {
    if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_block_device() || t.is_char_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

/// Opens the member `path` with `options`, never following a symbolic link in its last
/// component; anything but a regular file is refused ([`super::not_a_regular_member`]).
fn open_member(path: &Path, options: &mut OpenOptions) -> Result<File> {
    let flags = OFlags::NOFOLLOW | OFlags::NONBLOCK;
    let file = match options.custom_flags(flags.bits() as i32).open(path) {
        Ok(f) => f,
        Err(e) => {
            // ELOOP (a symbolic link), EISDIR, ENXIO (a FIFO without a reader), ...: say what
            // is there instead of the operating system's words for it.
            if e.kind() != io::ErrorKind::NotFound
                && let Ok(m) = fs::symlink_metadata(path)
                && !m.is_file()
            {
                return Err(super::not_a_regular_member(path, kind_of(m.file_type())));
            }
            return Err(at(path, e));
        }
    };
    let m = file.metadata().map_err(|e| at(path, e))?;
    if !m.is_file() {
        return Err(super::not_a_regular_member(path, kind_of(m.file_type())));
    }
    if m.nlink() > 1 {
        return Err(super::not_a_regular_member(path, super::disk::HARD_LINKED));
    }
    let fl = rustix::fs::fcntl_getfl(&file).map_err(|e| at(path, e.into()))?;
    rustix::fs::fcntl_setfl(&file, fl - OFlags::NONBLOCK).map_err(|e| at(path, e.into()))?;
    Ok(file)
}

impl Storage for LocalMembers {
    fn open(&self, path: &Path) -> Result<Arc<dyn Source>> {
        let file = open_member(path, OpenOptions::new().read(true))?;
        Ok(Arc::new(FileSource {
            file,
            path: path.to_path_buf(),
        }))
    }
    fn stat(&self, path: &Path) -> Result<Option<Stat>> {
        let m = match fs::symlink_metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(at(path, e)),
        };
        if !m.is_file() && !m.is_dir() {
            return Err(super::not_a_regular_member(path, kind_of(m.file_type())));
        }
        if m.is_file() && m.nlink() > 1 {
            return Err(super::not_a_regular_member(path, super::disk::HARD_LINKED));
        }
        Ok(Some(stat_of(&m)))
    }
    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        LocalStorage.list(dir)
    }
    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        LocalStorage.create_dir_all(dir)
    }
    fn create(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        // Cut only once the file is known to be a member of its own: `O_TRUNC` would cut a
        // hard-linked file elsewhere before the check could refuse it.
        let file = open_member(
            path,
            OpenOptions::new().write(true).create(true).truncate(false),
        )?;
        file.set_len(0).map_err(|e| at(path, e))?;
        Ok(LocalFile::boxed(file, path, 0))
    }
    fn open_append(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        let file = open_member(path, OpenOptions::new().append(true))?;
        let len = file.metadata().map_err(|e| at(path, e))?.len();
        Ok(LocalFile::boxed(file, path, len))
    }
    fn create_new(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        let file = open_member(path, OpenOptions::new().create_new(true).append(true))?;
        Ok(LocalFile::boxed(file, path, 0))
    }
    fn create_temp(
        &self,
        dir: &Path,
        prefix: &str,
        suffix: &str,
    ) -> Result<(PathBuf, Box<dyn StorageFile>)> {
        // A new name, created exclusively (`O_EXCL` never follows a symbolic link).
        LocalStorage.create_temp(dir, prefix, suffix)
    }
    fn truncate(&self, path: &Path, len: u64) -> Result<()> {
        let f = open_member(path, OpenOptions::new().write(true))?;
        f.set_len(len).map_err(|e| at(path, e))?;
        f.sync_all().map_err(|e| at(path, e))
    }
    fn rename(&self, from: &Path, to: &Path, replace: bool) -> Result<()> {
        LocalStorage.rename(from, to, replace)
    }
    fn remove_file(&self, path: &Path) -> Result<()> {
        LocalStorage.remove_file(path)
    }
    fn remove_dir(&self, dir: &Path) -> Result<()> {
        LocalStorage.remove_dir(dir)
    }
    fn sync_dir(&self, dir: &Path) -> Result<()> {
        LocalStorage.sync_dir(dir)
    }
    fn sync_filesystem(&self, path: &Path) -> Result<()> {
        LocalStorage.sync_filesystem(path)
    }
    fn lock(&self, path: &Path) -> Result<Box<dyn StorageLock>> {
        let file = open_member(
            path,
            OpenOptions::new()
                .create(true)
                .truncate(false)
                .read(true)
                .write(true),
        )?;
        take_lock(file, path)
    }
    fn is_locked(&self, path: &Path) -> Result<bool> {
        match open_member(path, OpenOptions::new().read(true)) {
            Ok(f) => probe_lock(&f, path),
            Err(Error::Io(e)) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }
    fn members(&self) -> Option<Arc<dyn Storage>> {
        Some(LocalMembers::shared())
    }
}

/// A read-only view of the local file system beneath one directory, for a server that answers
/// names its clients give ([`LocalStorage::beneath`]). Every file is opened first and checked
/// second: the open file's own path (`/proc/self/fd/N`, the kernel's name for what was actually
/// opened) must lie beneath the root, so that a directory swapped for a symbolic link between a
/// name's check and its open (or while a live recording is followed) is refused instead of read.
/// Members of live directories ([`Storage::members`]) are further opened as [`LocalMembers`]
/// opens them (no symbolic link in the last component, one name). Nothing is created, written,
/// truncated, renamed, removed or locked.
#[derive(Debug, Clone)]
struct Beneath {
    root: PathBuf,
    members: bool,
}

impl LocalStorage {
    /// A read-only view of the local file system beneath `root` (made absolute and resolved
    /// first): a file whose opened form lies outside `root` is refused with an error naming the
    /// path ([`super::is_refused_member`]), whatever symbolic links led there and whenever they
    /// changed. Calls that would write fail with `Unsupported`.
    pub fn beneath(root: impl AsRef<Path>) -> Result<Arc<dyn Storage>> {
        let root = root.as_ref();
        let root = fs::canonicalize(root).map_err(|e| at(root, e))?;
        Ok(Arc::new(Beneath {
            root,
            members: false,
        }))
    }
}

impl Beneath {
    /// Refuses `file` (opened as `path`) unless what was opened lies beneath the root.
    fn check(&self, file: File, path: &Path) -> Result<File> {
        use std::os::fd::AsRawFd;
        let opened = fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()))
            .map_err(|e| at(path, e))?;
        if opened.starts_with(&self.root) {
            Ok(file)
        } else {
            Err(super::not_a_regular_member(path, super::disk::OUTSIDE))
        }
    }
    fn read_only(&self, path: &Path) -> Error {
        Error::Unsupported(format!(
            "{}: a read-only view of {}",
            path.display(),
            self.root.display()
        ))
    }
}

impl Storage for Beneath {
    fn open(&self, path: &Path) -> Result<Arc<dyn Source>> {
        let file = if self.members {
            open_member(path, OpenOptions::new().read(true))?
        } else {
            File::open(path).map_err(|e| at(path, e))?
        };
        Ok(Arc::new(FileSource {
            file: self.check(file, path)?,
            path: path.to_path_buf(),
        }))
    }
    fn stat(&self, path: &Path) -> Result<Option<Stat>> {
        if self.members {
            LocalMembers.stat(path)
        } else {
            LocalStorage.stat(path)
        }
    }
    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        LocalStorage.list(dir)
    }
    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        Err(self.read_only(dir))
    }
    fn create(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        Err(self.read_only(path))
    }
    fn open_append(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        Err(self.read_only(path))
    }
    fn create_new(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        Err(self.read_only(path))
    }
    fn create_temp(
        &self,
        dir: &Path,
        _prefix: &str,
        _suffix: &str,
    ) -> Result<(PathBuf, Box<dyn StorageFile>)> {
        Err(self.read_only(dir))
    }
    fn truncate(&self, path: &Path, _len: u64) -> Result<()> {
        Err(self.read_only(path))
    }
    fn rename(&self, from: &Path, _to: &Path, _replace: bool) -> Result<()> {
        Err(self.read_only(from))
    }
    fn remove_file(&self, path: &Path) -> Result<()> {
        Err(self.read_only(path))
    }
    fn remove_dir(&self, dir: &Path) -> Result<()> {
        Err(self.read_only(dir))
    }
    fn sync_dir(&self, _dir: &Path) -> Result<()> {
        Ok(())
    }
    fn sync_filesystem(&self, _path: &Path) -> Result<()> {
        Ok(())
    }
    fn lock(&self, path: &Path) -> Result<Box<dyn StorageLock>> {
        Err(self.read_only(path))
    }
    fn is_locked(&self, path: &Path) -> Result<bool> {
        // Whether a writer holds the lock: probed on the file opened and checked as any other.
        match open_member(path, OpenOptions::new().read(true)) {
            Ok(f) => probe_lock(&self.check(f, path)?, path),
            Err(Error::Io(e)) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }
    fn members(&self) -> Option<Arc<dyn Storage>> {
        Some(Arc::new(Beneath {
            root: self.root.clone(),
            members: true,
        }))
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
