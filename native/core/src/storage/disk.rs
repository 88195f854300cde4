//! The write side of storage: [`Storage`], the one trait every file the core creates, appends,
//! syncs, renames or removes goes through (live directories, compaction, publication, recovery),
//! and the read-side calls those paths need (open for range reads, stat, list).
//!
//! [`LocalStorage`](super::LocalStorage) implements it over the local file system; tests plug in a
//! backend that keeps unsynced writes apart from the durable image and can lose power at any step.
//!
//! The durability contract every implementation follows (and the core relies on; FORMAT.md,
//! "Durability protocol"):
//! - bytes appended to a file are durable only after [`StorageFile::sync`];
//! - a created, renamed or removed directory entry is durable only after [`Storage::sync_dir`] of
//!   the directory holding it (both directories for a rename across them);
//! - [`Storage::rename`] is atomic: after a crash the target names either the old or the new file;
//! - [`Storage::truncate`] returns once the new length is durable;
//! - [`Storage::sync_filesystem`] makes everything written so far durable (every file's bytes and
//!   every directory entry of the file system holding its path): one call that stands for the
//!   syncs of many files (group commit).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::Source;
use crate::error::Result;

/// What a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Dir,
}

/// A directory entry's kind, size and identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    pub kind: EntryKind,
    /// Size in bytes (files).
    pub len: u64,
    /// Identifies the file or directory itself, not its name: it changes when the name is given to
    /// another file (a rename over it, or a removal and a new file with the same name).
    pub identity: (u64, u64),
    /// Last modification, nanoseconds since the Unix epoch (0 where unknown).
    pub modified_ns: i128,
}

/// A file being written: appends only (the format never rewrites bytes in place).
pub trait StorageFile: Send + fmt::Debug {
    /// Appends `bytes` (not yet durable).
    fn append(&mut self, bytes: &[u8]) -> Result<()>;
    /// Makes every appended byte durable.
    fn sync(&mut self) -> Result<()>;
    /// Bytes appended so far.
    fn len(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// An exclusive writer lock, released when dropped (and by the system when the process dies).
pub trait StorageLock: Send + fmt::Debug {}

/// Where the core's files live. Implementations are safe to call from many threads; errors of
/// the local file system name the path.
pub trait Storage: Send + Sync + fmt::Debug {
    /// Opens a file for range reads. The handle keeps reading the same file after its name is
    /// removed or given to another file.
    fn open(&self, path: &Path) -> Result<Arc<dyn Source>>;
    /// Reads a whole file.
    fn read(&self, path: &Path) -> Result<Vec<u8>> {
        let source = self.open(path)?;
        let len = source.len()?;
        source.read_exact_at(0, usize::try_from(len).unwrap_or(usize::MAX))
    }
    /// What `path` names, or `None` if nothing.
    fn stat(&self, path: &Path) -> Result<Option<Stat>>;
    /// Names of the entries of directory `dir`, in no particular order.
    fn list(&self, dir: &Path) -> Result<Vec<String>>;
    /// Creates `dir` and its missing parents (not yet durable: see [`Storage::sync_dir`]).
    fn create_dir_all(&self, dir: &Path) -> Result<()>;
    /// Creates a file, or empties the one at `path`.
    fn create(&self, path: &Path) -> Result<Box<dyn StorageFile>>;
    /// Opens an existing file to append to it (its length is the file's; an error of kind
    /// `NotFound` if there is none). Segments are reopened so for each flush, which keeps a
    /// recording between flushes down to one open file (its lock).
    fn open_append(&self, path: &Path) -> Result<Box<dyn StorageFile>>;
    /// Creates a file that must not exist yet (an error of kind `AlreadyExists` if it does).
    fn create_new(&self, path: &Path) -> Result<Box<dyn StorageFile>>;
    /// Creates a file with a unique name `dir/{prefix}XXXXXX{suffix}`.
    fn create_temp(
        &self,
        dir: &Path,
        prefix: &str,
        suffix: &str,
    ) -> Result<(PathBuf, Box<dyn StorageFile>)>;
    /// Cuts `path` to `len` bytes and makes the new length durable.
    fn truncate(&self, path: &Path, len: u64) -> Result<()>;
    /// Moves `from` to `to` atomically. `replace`: whatever `to` names is replaced; otherwise the
    /// move fails with an error of kind `AlreadyExists` if `to` exists, even if it appears at
    /// the same moment.
    fn rename(&self, from: &Path, to: &Path, replace: bool) -> Result<()>;
    /// Removes a file (an error of kind `NotFound` if there is none).
    fn remove_file(&self, path: &Path) -> Result<()>;
    /// Removes an empty directory.
    fn remove_dir(&self, dir: &Path) -> Result<()>;
    /// Makes the entries of `dir` (files created, renamed or removed in it) durable.
    fn sync_dir(&self, dir: &Path) -> Result<()>;
    /// Makes everything written on the file system holding `path` durable, as if every file
    /// written were synced and every directory changed had [`Storage::sync_dir`] (Linux
    /// `syncfs`). The writer threads' group commit makes a whole round of flushes durable with
    /// two such calls.
    fn sync_filesystem(&self, path: &Path) -> Result<()>;
    /// Takes the exclusive lock of the lock file `path` (created if missing) or fails with
    /// `Error::Locked` if another holder (any process) has it.
    fn lock(&self, path: &Path) -> Result<Box<dyn StorageLock>>;
    /// Whether another holder has the lock of `path`; `false` if `path` does not exist. May take
    /// the lock for an instant when it is free.
    fn is_locked(&self, path: &Path) -> Result<bool>;
    /// This storage as it must be used for the members of a live directory (every file inside
    /// one: metadata file, segments, lock file, temporary files), or `None` if it has no symbolic
    /// links or other special files to guard against (the default: backends in memory).
    ///
    /// Every call of the returned storage on a file path never follows a symbolic link in the
    /// path's last component, and fails with an error naming the path ([`is_refused_member`])
    /// if the path names anything but a regular file of its own (a symbolic link, a FIFO, a
    /// device; a directory where a file is opened; a file with another name, which a hard link
    /// from elsewhere gives it): nothing outside the directory is read, written,
    /// truncated or locked through a member's name. Calls on directories (`list`, `sync_dir`,
    /// `create_dir_all`, `remove_dir`, `sync_filesystem`) are as this storage's: the live
    /// directory itself is the user's path and may be a symbolic link. `stat` reports a
    /// directory as one and refuses everything else that is not a regular file.
    fn members(&self) -> Option<Arc<dyn Storage>> {
        None
    }
}

/// Why a member of a live directory was refused (see [`Storage::members`]): what it is instead of
/// a regular file of its own. The `source` of the I/O error [`not_a_regular_member`] makes.
#[derive(Debug)]
pub struct RefusedMember {
    /// "a symbolic link", "a directory", ..., or [`HARD_LINKED`].
    pub what: &'static str,
}

/// What a refused member is when it is a regular file with more than one name: a hard link made
/// elsewhere (outside the directory, to a file the directory's owner never wrote) looks the same
/// as the file itself, so a member with another name is never written, truncated or read. The
/// library itself never gives a member a second name.
pub const HARD_LINKED: &str = "a file with another name (a hard link)";

/// What a refused file is when the file actually opened lies outside the directory a view was
/// confined to ([`crate::storage::LocalStorage::beneath`]): a directory on its way was swapped
/// for a symbolic link.
pub const OUTSIDE: &str = "outside the directory it was asked beneath";

impl fmt::Display for RefusedMember {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let not = if self.what == HARD_LINKED {
            "not a file of its own"
        } else if self.what == OUTSIDE {
            "once opened"
        } else {
            "not a regular file"
        };
        write!(
            f,
            "is {}, {not}: the files of a live directory are never followed out of it",
            self.what
        )
    }
}

impl std::error::Error for RefusedMember {}

/// The error of a live directory's member at `path` that is `what` ("a symbolic link") instead
/// of a regular file: an I/O error of kind `InvalidData` naming the path.
pub fn not_a_regular_member(path: &Path, what: &'static str) -> crate::Error {
    crate::Error::io_at(
        path,
        std::io::Error::new(std::io::ErrorKind::InvalidData, RefusedMember { what }),
    )
}

/// Whether `e` is the refusal of a live directory's member that is not a regular file
/// ([`Storage::members`]). Such an error is never transient and never means "missing": recovery
/// stops at it instead of rebuilding the metadata file, a follower gives up.
pub fn is_refused_member(e: &crate::Error) -> bool {
    let crate::Error::Io(io) = e else {
        return false;
    };
    io.get_ref()
        .and_then(|i| i.downcast_ref::<crate::error::PathIoError>())
        .and_then(|p| p.source.get_ref())
        .is_some_and(|s| s.is::<RefusedMember>())
}

/// The directory holding `path` (`.` for a bare file name).
pub fn parent_dir(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Replaces `path` with `parts` concatenated, atomically: the temp file `.NAME.tmp` next to it
/// written and synced, renamed over `path`, then the directory synced. A reader sees the old bytes
/// or the new, never a mix. One writer per `path` at a time (the temp file's name is fixed, so a
/// crash leaves at most one behind, replaced by the next write).
pub fn write_atomic(storage: &dyn Storage, path: &Path, parts: &[&[u8]]) -> Result<()> {
    write_atomic_checked(storage, path, parts, &|| Ok(()))
}

/// [`write_atomic`], calling `check` after the temp file is synced and right before the rename: if
/// it fails, the rename is not made and the temp file is left as it is (the check failing means
/// the directory may no longer be the caller's, so nothing in it is touched by name).
pub fn write_atomic_checked(
    storage: &dyn Storage,
    path: &Path,
    parts: &[&[u8]],
    check: &dyn Fn() -> Result<()>,
) -> Result<()> {
    let dir = parent_dir(path);
    let name = path
        .file_name()
        .ok_or_else(|| crate::Error::invalid(format!("{} has no file name", path.display())))?;
    let tmp = dir.join(format!(".{}.tmp", name.to_string_lossy()));
    let mut fenced = false;
    let mut f = storage.create(&tmp)?;
    let written = (|| {
        for p in parts {
            f.append(p)?;
        }
        f.sync()?;
        drop(f);
        Ok(())
    })()
    .and_then(|()| check().inspect_err(|_| fenced = true))
    .and_then(|()| storage.rename(&tmp, path, true));
    if let Err(e) = written {
        if !fenced {
            let _ = storage.remove_file(&tmp);
        }
        return Err(e);
    }
    storage.sync_dir(dir)
}

/// A temporary file that is removed when dropped unless [`TempFile::keep`] was called.
#[derive(Debug)]
pub struct TempFile {
    storage: Arc<dyn Storage>,
    path: Option<PathBuf>,
}

impl TempFile {
    pub fn new(storage: Arc<dyn Storage>, path: PathBuf) -> TempFile {
        TempFile {
            storage,
            path: Some(path),
        }
    }
    pub fn path(&self) -> &Path {
        self.path.as_deref().expect("kept temp files are consumed")
    }
    /// Stops removing the file on drop (it was renamed away); returns its path.
    pub fn keep(mut self) -> PathBuf {
        self.path.take().expect("kept once")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Some(p) = self.path.take() {
            let _ = self.storage.remove_file(&p);
        }
    }
}
