//! A storage backend for crash-consistency tests (after redb's crash-test backend): files and
//! directory entries live in memory, with what a process sees kept apart from what survived on the
//! disk. Appended bytes become durable at `StorageFile::sync`, created/renamed/removed names at
//! `sync_dir` of their directory. The disk can "lose power" at any I/O step: that step and
//! every later call fail, and `image` builds the disk as it would be found after a reboot.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use tickreel::storage::{EntryKind, Source, Stat, Storage, StorageFile, StorageLock};
use tickreel::{Error, Result};

/// What survives a power loss, from the strictest model to the most lenient.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Image {
    /// Only synced bytes under synced names (what POSIX promises).
    Durable,
    /// Every name change reached the disk (a metadata journal), data only as far as synced.
    NamesWithoutData,
    /// Synced names; each file keeps its synced bytes plus the first half of what was appended
    /// after them (a torn write).
    Torn,
    /// Everything (a killed process whose page cache survived).
    Everything,
}

pub const IMAGES: [Image; 4] = [
    Image::Durable,
    Image::NamesWithoutData,
    Image::Torn,
    Image::Everything,
];

#[derive(Debug, Default, Clone)]
struct Inode {
    data: Vec<u8>,
    durable: Vec<u8>,
    version: u64,
}

#[derive(Debug, Default, Clone)]
struct Names {
    files: BTreeMap<PathBuf, usize>,
    dirs: BTreeSet<PathBuf>,
}

impl Names {
    fn in_dir<'a>(&'a self, dir: &'a Path) -> impl Iterator<Item = &'a PathBuf> + 'a {
        self.files
            .keys()
            .chain(self.dirs.iter())
            .filter(move |p| p.parent() == Some(dir))
    }
}

#[derive(Debug, Default)]
struct State {
    inodes: Vec<Inode>,
    seen: Names,
    durable: Names,
    locks: HashSet<PathBuf>,
    steps: u64,
    cut: Option<u64>,
    dead: bool,
    temps: u64,
}

fn io_err(kind: io::ErrorKind, what: String) -> Error {
    Error::Io(io::Error::new(kind, what))
}

fn power_lost() -> Error {
    io_err(io::ErrorKind::Other, "power lost".into())
}

impl State {
    /// One I/O step: fails once the power is lost, and loses it at the cut.
    fn step(&mut self) -> Result<()> {
        if self.dead {
            return Err(power_lost());
        }
        self.steps += 1;
        if self.cut == Some(self.steps) {
            self.dead = true;
            return Err(power_lost());
        }
        Ok(())
    }
    fn alive(&self) -> Result<()> {
        if self.dead { Err(power_lost()) } else { Ok(()) }
    }
    fn need_dir(&self, dir: &Path) -> Result<()> {
        if self.seen.dirs.contains(dir) {
            Ok(())
        } else {
            Err(io_err(
                io::ErrorKind::NotFound,
                format!("{}: no such directory", dir.display()),
            ))
        }
    }
    fn inode_of(&self, path: &Path) -> Result<usize> {
        self.seen.files.get(path).copied().ok_or_else(|| {
            io_err(
                io::ErrorKind::NotFound,
                format!("{}: no such file", path.display()),
            )
        })
    }
    fn new_file(&mut self, path: &Path) -> Result<usize> {
        self.need_dir(path.parent().expect("absolute paths"))?;
        if self.seen.files.contains_key(path) || self.seen.dirs.contains(path) {
            return Err(io_err(
                io::ErrorKind::AlreadyExists,
                format!("{}: exists", path.display()),
            ));
        }
        self.inodes.push(Inode::default());
        let ino = self.inodes.len() - 1;
        self.seen.files.insert(path.to_path_buf(), ino);
        Ok(ino)
    }
}

/// The crash-test disk. Cloning shares it.
#[derive(Clone)]
pub struct CrashDisk {
    state: Arc<Mutex<State>>,
}

impl std::fmt::Debug for CrashDisk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.state.lock();
        f.debug_struct("CrashDisk")
            .field("steps", &s.steps)
            .field("cut", &s.cut)
            .field("files", &s.seen.files.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl CrashDisk {
    /// A disk holding the (durable) directory `root`, losing power at I/O step `cut` if given.
    pub fn new(root: &Path, cut: Option<u64>) -> CrashDisk {
        let mut s = State {
            cut,
            ..State::default()
        };
        for d in root.ancestors() {
            s.seen.dirs.insert(d.to_path_buf());
            s.durable.dirs.insert(d.to_path_buf());
        }
        CrashDisk {
            state: Arc::new(Mutex::new(s)),
        }
    }

    /// I/O steps taken so far.
    pub fn steps(&self) -> u64 {
        self.state.lock().steps
    }

    /// Whether the power was lost.
    pub fn lost_power(&self) -> bool {
        self.state.lock().dead
    }

    /// The disk as found after losing power now, under `model`; it loses power again at step
    /// `cut` of its own, if given.
    pub fn image(&self, model: Image, cut: Option<u64>) -> CrashDisk {
        let s = self.state.lock();
        let names = match model {
            Image::Durable | Image::Torn => &s.durable,
            Image::NamesWithoutData | Image::Everything => &s.seen,
        };
        let mut out = State {
            cut,
            ..State::default()
        };
        // A name survives only under a directory that survived.
        out.seen.dirs = names
            .dirs
            .iter()
            .filter(|d| d.ancestors().skip(1).all(|a| names.dirs.contains(a)))
            .cloned()
            .collect();
        for (path, &ino) in &names.files {
            if !out
                .seen
                .dirs
                .contains(path.parent().expect("absolute paths"))
            {
                continue;
            }
            let i = &s.inodes[ino];
            let data = match model {
                Image::Durable | Image::NamesWithoutData => i.durable.clone(),
                Image::Everything => i.data.clone(),
                Image::Torn => {
                    let mut d = i.durable.clone();
                    if i.data.starts_with(&i.durable) {
                        let tail = &i.data[i.durable.len()..];
                        d.extend_from_slice(&tail[..tail.len() / 2]);
                    }
                    d
                }
            };
            out.inodes.push(Inode {
                durable: data.clone(),
                data,
                version: 0,
            });
            out.seen.files.insert(path.clone(), out.inodes.len() - 1);
        }
        out.durable = out.seen.clone();
        CrashDisk {
            state: Arc::new(Mutex::new(out)),
        }
    }

    /// Every file's path and contents, as a process sees them.
    pub fn files(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let s = self.state.lock();
        s.seen
            .files
            .iter()
            .map(|(p, &i)| (p.clone(), s.inodes[i].data.clone()))
            .collect()
    }

    pub fn storage(&self) -> Arc<dyn Storage> {
        Arc::new(self.clone())
    }
}

struct CrashFile {
    state: Arc<Mutex<State>>,
    ino: usize,
    len: u64,
}

impl std::fmt::Debug for CrashFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CrashFile(inode {})", self.ino)
    }
}

impl StorageFile for CrashFile {
    fn append(&mut self, bytes: &[u8]) -> Result<()> {
        let mut s = self.state.lock();
        s.step()?;
        let i = &mut s.inodes[self.ino];
        i.data.extend_from_slice(bytes);
        i.version += 1;
        self.len += bytes.len() as u64;
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
        let mut s = self.state.lock();
        s.step()?;
        let i = &mut s.inodes[self.ino];
        i.durable = i.data.clone();
        Ok(())
    }
    fn len(&self) -> u64 {
        self.len
    }
}

/// Reads one file (its inode: the handle outlives the name, as an open file does).
struct CrashSource {
    state: Arc<Mutex<State>>,
    ino: usize,
    path: PathBuf,
}

impl std::fmt::Debug for CrashSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CrashSource({})", self.path.display())
    }
}

impl Source for CrashSource {
    fn len(&self) -> Result<u64> {
        let s = self.state.lock();
        s.alive()?;
        Ok(s.inodes[self.ino].data.len() as u64)
    }
    fn read_up_to(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let s = self.state.lock();
        s.alive()?;
        let d = &s.inodes[self.ino].data;
        let start = (offset.min(d.len() as u64)) as usize;
        let end = start.saturating_add(len).min(d.len());
        Ok(d[start..end].to_vec())
    }
    fn describe(&self) -> String {
        self.path.display().to_string()
    }
}

struct CrashLock {
    state: Arc<Mutex<State>>,
    path: PathBuf,
}

impl std::fmt::Debug for CrashLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CrashLock({})", self.path.display())
    }
}

impl StorageLock for CrashLock {}

impl Drop for CrashLock {
    fn drop(&mut self) {
        self.state.lock().locks.remove(&self.path);
    }
}

impl Storage for CrashDisk {
    fn open(&self, path: &Path) -> Result<Arc<dyn Source>> {
        let s = self.state.lock();
        s.alive()?;
        let ino = s.inode_of(path)?;
        Ok(Arc::new(CrashSource {
            state: self.state.clone(),
            ino,
            path: path.to_path_buf(),
        }))
    }
    fn stat(&self, path: &Path) -> Result<Option<Stat>> {
        let s = self.state.lock();
        s.alive()?;
        if s.seen.dirs.contains(path) {
            return Ok(Some(Stat {
                kind: EntryKind::Dir,
                len: 0,
                identity: (0, u64::MAX),
                modified_ns: 0,
            }));
        }
        Ok(s.seen.files.get(path).map(|&ino| Stat {
            kind: EntryKind::File,
            len: s.inodes[ino].data.len() as u64,
            identity: (0, ino as u64),
            modified_ns: i128::from(s.inodes[ino].version),
        }))
    }
    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        let s = self.state.lock();
        s.alive()?;
        s.need_dir(dir)?;
        Ok(s.seen
            .in_dir(dir)
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect())
    }
    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        let mut s = self.state.lock();
        s.step()?;
        for d in dir.ancestors() {
            if s.seen.files.contains_key(d) {
                return Err(io_err(
                    io::ErrorKind::AlreadyExists,
                    format!("{}: a file", d.display()),
                ));
            }
            s.seen.dirs.insert(d.to_path_buf());
        }
        Ok(())
    }
    fn create(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        let mut s = self.state.lock();
        s.step()?;
        let ino = match s.seen.files.get(path) {
            Some(&ino) => {
                s.inodes[ino].data.clear();
                ino
            }
            None => s.new_file(path)?,
        };
        Ok(Box::new(CrashFile {
            state: self.state.clone(),
            ino,
            len: 0,
        }))
    }
    fn open_append(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        let mut s = self.state.lock();
        s.step()?;
        let ino = s.inode_of(path)?;
        let len = s.inodes[ino].data.len() as u64;
        Ok(Box::new(CrashFile {
            state: self.state.clone(),
            ino,
            len,
        }))
    }
    fn create_new(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        let mut s = self.state.lock();
        s.step()?;
        let ino = s.new_file(path)?;
        Ok(Box::new(CrashFile {
            state: self.state.clone(),
            ino,
            len: 0,
        }))
    }
    fn create_temp(
        &self,
        dir: &Path,
        prefix: &str,
        suffix: &str,
    ) -> Result<(PathBuf, Box<dyn StorageFile>)> {
        let mut s = self.state.lock();
        s.step()?;
        s.temps += 1;
        let path = dir.join(format!("{prefix}{:06}{suffix}", s.temps));
        let ino = s.new_file(&path)?;
        let f = CrashFile {
            state: self.state.clone(),
            ino,
            len: 0,
        };
        Ok((path, Box::new(f)))
    }
    fn truncate(&self, path: &Path, len: u64) -> Result<()> {
        let mut s = self.state.lock();
        s.step()?;
        let ino = s.inode_of(path)?;
        let i = &mut s.inodes[ino];
        i.data.truncate(len as usize);
        i.durable = i.data.clone();
        Ok(())
    }
    fn rename(&self, from: &Path, to: &Path, replace: bool) -> Result<()> {
        let mut s = self.state.lock();
        s.step()?;
        let ino = s.inode_of(from)?;
        s.need_dir(to.parent().expect("absolute paths"))?;
        if s.seen.dirs.contains(to) || (!replace && s.seen.files.contains_key(to)) {
            return Err(io_err(
                io::ErrorKind::AlreadyExists,
                format!("{}: exists", to.display()),
            ));
        }
        s.seen.files.remove(from);
        s.seen.files.insert(to.to_path_buf(), ino);
        Ok(())
    }
    fn remove_file(&self, path: &Path) -> Result<()> {
        let mut s = self.state.lock();
        s.step()?;
        s.inode_of(path)?;
        s.seen.files.remove(path);
        Ok(())
    }
    fn remove_dir(&self, dir: &Path) -> Result<()> {
        let mut s = self.state.lock();
        s.step()?;
        s.need_dir(dir)?;
        if s.seen.in_dir(dir).next().is_some() {
            return Err(io_err(
                io::ErrorKind::DirectoryNotEmpty,
                format!("{}: not empty", dir.display()),
            ));
        }
        s.seen.dirs.remove(dir);
        Ok(())
    }
    fn sync_dir(&self, dir: &Path) -> Result<()> {
        let mut s = self.state.lock();
        s.step()?;
        s.need_dir(dir)?;
        let State { seen, durable, .. } = &mut *s;
        durable.files.retain(|p, _| p.parent() != Some(dir));
        durable.dirs.retain(|p| p.parent() != Some(dir));
        for (p, &ino) in seen.files.iter().filter(|(p, _)| p.parent() == Some(dir)) {
            durable.files.insert(p.clone(), ino);
        }
        for p in seen.dirs.iter().filter(|p| p.parent() == Some(dir)) {
            durable.dirs.insert(p.clone());
        }
        Ok(())
    }
    fn sync_filesystem(&self, _path: &Path) -> Result<()> {
        // One file system: every file's bytes and every name become durable.
        let mut s = self.state.lock();
        s.step()?;
        for i in &mut s.inodes {
            i.durable = i.data.clone();
        }
        s.durable = s.seen.clone();
        Ok(())
    }
    fn lock(&self, path: &Path) -> Result<Box<dyn StorageLock>> {
        let mut s = self.state.lock();
        s.step()?;
        if !s.seen.files.contains_key(path) {
            s.new_file(path)?;
        }
        if !s.locks.insert(path.to_path_buf()) {
            return Err(Error::Locked(format!("{} is held", path.display())));
        }
        Ok(Box::new(CrashLock {
            state: self.state.clone(),
            path: path.to_path_buf(),
        }))
    }
    fn is_locked(&self, path: &Path) -> Result<bool> {
        let s = self.state.lock();
        s.alive()?;
        Ok(s.seen.files.contains_key(path) && s.locks.contains(path))
    }
}
