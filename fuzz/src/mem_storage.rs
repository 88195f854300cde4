//! A file system in memory for the `live_dir` target: directories, regular files (with a sparse
//! tail of zeros that takes no memory) and symbolic links, behind the core's `Storage` trait, so
//! that a live directory laid out as an attacker could (members linked outside, a lock linked
//! to the directory, a segment extended by gigabytes) is recovered and read with no file system
//! call and no fsync. Included by `harness.rs` (and so shared with the core's and the CLI's
//! regression tests).
//!
//! What it models of the local file system (`tickreel::storage::LocalStorage`): paths are
//! absolute; the plain storage follows symbolic links everywhere, as `open(2)` does; its
//! [`Storage::members`] view, which the core uses for every file inside a live directory, follows
//! them in the directories of a path but never in its last component, and refuses a member that
//! is a symbolic link or a directory where a file is wanted ([`not_a_regular_member`]), as
//! `LocalMembers` does with `O_NOFOLLOW`. Renames and removals act on names. Locks are held in
//! the process (a second lock of the same file fails with `Error::Locked`). Syncs do nothing.
//! Hard links, FIFOs and devices are not modelled (their refusal is the local storage's own,
//! tested on a real file system by the core's tests of live directories' members).

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::hash::{BuildHasherDefault, Hasher};
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use tickreel::storage::{
    EntryKind, Source, Stat, Storage, StorageFile, StorageLock, not_a_regular_member,
};
use tickreel::{Error, Result};

/// A file may not grow past this in memory by writes (its sparse tail aside).
const MAX_WRITTEN: u64 = 256 << 20;
/// Symbolic links followed in one path at most (Linux's `ELOOP` limit).
const MAX_HOPS: usize = 40;

#[derive(Debug)]
struct FileData {
    id: u64,
    bytes: Vec<u8>,
    /// Zeros after `bytes` (a sparse tail: `set_len` past the end).
    zeros: u64,
    modified: i128,
}

impl FileData {
    fn len(&self) -> u64 {
        self.bytes.len() as u64 + self.zeros
    }
}

#[derive(Debug, Clone)]
enum Node {
    Dir(u64),
    File(Arc<Mutex<FileData>>),
    Link(PathBuf),
}

/// The tree's hash of a path: FxHash's (rotate, xor, multiply), eight bytes at a time. The keys
/// are a handful of short paths, looked up hundreds of times an input; the standard SipHash
/// took most of each lookup.
#[derive(Debug, Default)]
struct PathHasher(u64);

impl Hasher for PathHasher {
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            self.0 =
                (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

#[derive(Debug, Default)]
struct Tree {
    /// By path (absolute, plain: no `.`, `..` or repeated separator), hashed as bytes: a
    /// `PathBuf` key compares by components, and a sorted map's many comparisons are each a
    /// `memcmp`, which the sanitizer intercepts and libFuzzer records (a tenth of the target's
    /// time in all).
    nodes: HashMap<OsString, Node, BuildHasherDefault<PathHasher>>,
    next_id: u64,
    clock: i128,
    locks: HashSet<u64>,
}

impl Tree {
    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
    fn tick(&mut self) -> i128 {
        self.clock += 1;
        self.clock
    }
    fn node(&self, p: &Path) -> Option<Node> {
        if p == Path::new("/") {
            return Some(Node::Dir(0));
        }
        self.nodes.get(p.as_os_str()).cloned()
    }
    fn insert(&mut self, p: PathBuf, n: Node) {
        self.nodes.insert(p.into_os_string(), n);
    }
    fn remove(&mut self, p: &Path) {
        self.nodes.remove(p.as_os_str());
    }
    /// The paths of the entries directly in `dir`.
    fn children<'a>(&'a self, dir: &'a Path) -> impl Iterator<Item = &'a Path> + 'a {
        self.nodes
            .keys()
            .map(Path::new)
            .filter(move |k| k.parent() == Some(dir))
    }
    fn new_file(&mut self, p: &Path) -> Arc<Mutex<FileData>> {
        let data = Arc::new(Mutex::new(FileData {
            id: self.id(),
            bytes: Vec::new(),
            zeros: 0,
            modified: self.tick(),
        }));
        self.insert(p.to_path_buf(), Node::File(data.clone()));
        data
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn err(path: &Path, kind: io::ErrorKind, what: &str) -> Error {
    Error::io_at(path, io::Error::new(kind, what.to_string()))
}

fn not_found(path: &Path) -> Error {
    err(path, io::ErrorKind::NotFound, "no such file or directory")
}

/// A file system in memory; see the module's documentation. Clones share it.
#[derive(Debug, Clone, Default)]
pub struct MemStorage {
    tree: Arc<Mutex<Tree>>,
    /// The view of a live directory's members: no symbolic link followed in a last component.
    members: bool,
}

impl MemStorage {
    pub fn new() -> MemStorage {
        MemStorage::default()
    }

    /// `link` made a symbolic link to `target` (replacing what was there).
    pub fn symlink(&self, target: &Path, link: &Path) -> Result<()> {
        let mut t = lock(&self.tree);
        let at = Self::parent_resolved(&t, link)?;
        t.insert(at, Node::Link(target.to_path_buf()));
        Ok(())
    }

    /// The file `path` (followed) made `extra` bytes longer, the new bytes zeros held as a count.
    pub fn extend_sparse(&self, path: &Path, extra: u64) -> Result<()> {
        let data = self.file_at(path)?;
        let mut d = lock(&data);
        d.zeros = d.zeros.saturating_add(extra);
        Ok(())
    }

    /// `path` with every symbolic link followed, but in its last component unless `follow_last`.
    fn resolve(tree: &Tree, path: &Path, follow_last: bool) -> Result<PathBuf> {
        if let Some(p) = Self::resolved_as_is(tree, path, follow_last) {
            return Ok(p);
        }
        let mut todo: Vec<OsString> = Vec::new();
        push_components(&mut todo, path);
        let mut cur = PathBuf::from("/");
        let mut hops = 0;
        while let Some(c) = todo.pop() {
            if c == ".." {
                cur.pop();
                continue;
            }
            let next = cur.join(&c);
            match tree.node(&next) {
                Some(Node::Link(target)) if follow_last || !todo.is_empty() => {
                    hops += 1;
                    if hops > MAX_HOPS {
                        return Err(err(
                            path,
                            io::ErrorKind::Other,
                            "too many levels of symbolic links",
                        ));
                    }
                    if target.is_absolute() {
                        cur = PathBuf::from("/");
                    }
                    push_components(&mut todo, &target);
                }
                Some(Node::File(_)) if !todo.is_empty() => {
                    return Err(err(path, io::ErrorKind::NotADirectory, "not a directory"));
                }
                _ => cur = next,
            }
        }
        Ok(cur)
    }

    /// `path` itself when it is what [`MemStorage::resolve`] would make of it: absolute and plain
    /// (no `.` or `..`, no repeated or trailing separator), with no symbolic link to follow and
    /// no file where a directory is wanted on the way (what nearly every call of the target
    /// names); `None` otherwise. Allocates nothing but the answer.
    fn resolved_as_is(tree: &Tree, path: &Path, follow_last: bool) -> Option<PathBuf> {
        use std::os::unix::ffi::OsStrExt;
        let b = path.as_os_str().as_bytes();
        let plain = b.len() > 1
            && b[0] == b'/'
            && !b.ends_with(b"/")
            && b[1..]
                .split(|&c| c == b'/')
                .all(|c| !c.is_empty() && c != b"." && c != b"..");
        if !plain {
            return None;
        }
        for (i, p) in path.ancestors().enumerate() {
            let last = i == 0;
            match tree.nodes.get(p.as_os_str()) {
                Some(Node::Link(_)) if follow_last || !last => return None,
                Some(Node::File(_)) if !last => return None,
                _ => {}
            }
        }
        Some(path.to_path_buf())
    }

    /// Where the last component of `path` is, its directories followed (a name to act on).
    fn parent_resolved(tree: &Tree, path: &Path) -> Result<PathBuf> {
        let name = path
            .file_name()
            .ok_or_else(|| err(path, io::ErrorKind::InvalidInput, "no file name"))?;
        let parent = Self::resolve(tree, path.parent().unwrap_or(Path::new("/")), true)?;
        match tree.node(&parent) {
            Some(Node::Dir(_)) => Ok(parent.join(name)),
            Some(_) => Err(err(path, io::ErrorKind::NotADirectory, "not a directory")),
            None => Err(not_found(path)),
        }
    }

    /// The node a file call on `path` acts on: its last component followed unless this is the
    /// members' view.
    fn target(&self, tree: &Tree, path: &Path) -> Result<(PathBuf, Option<Node>)> {
        let p = if self.members {
            Self::parent_resolved(tree, path)?
        } else {
            Self::resolve(tree, path, true)?
        };
        let n = tree.node(&p);
        Ok((p, n))
    }

    /// Refuses a node that is not a regular file, as the local storage does.
    fn regular(&self, path: &Path, n: Option<Node>) -> Result<Option<Arc<Mutex<FileData>>>> {
        match n {
            None => Ok(None),
            Some(Node::File(d)) => Ok(Some(d)),
            Some(Node::Dir(_)) if self.members => Err(not_a_regular_member(path, "a directory")),
            Some(Node::Dir(_)) => Err(err(path, io::ErrorKind::IsADirectory, "is a directory")),
            // Only the members' view stops at a link.
            Some(Node::Link(_)) => Err(not_a_regular_member(path, "a symbolic link")),
        }
    }

    fn file_at(&self, path: &Path) -> Result<Arc<Mutex<FileData>>> {
        let t = lock(&self.tree);
        let (_, n) = self.target(&t, path)?;
        self.regular(path, n)?.ok_or_else(|| not_found(path))
    }

    /// The file at `path`, created (empty) if there is none; emptied if `truncate`.
    fn file_or_new(&self, path: &Path, truncate: bool) -> Result<Arc<Mutex<FileData>>> {
        let mut t = lock(&self.tree);
        let (p, n) = self.target(&t, path)?;
        match self.regular(path, n)? {
            Some(d) => {
                if truncate {
                    let now = t.tick();
                    let mut f = lock(&d);
                    f.bytes.clear();
                    f.zeros = 0;
                    f.modified = now;
                }
                Ok(d)
            }
            None => {
                // A dangling link followed: the file is made where it points, as open(2) does.
                Self::parent_resolved(&t, &p)?;
                Ok(t.new_file(&p))
            }
        }
    }

    fn writer(&self, path: &Path, data: Arc<Mutex<FileData>>) -> Box<dyn StorageFile> {
        let len = lock(&data).len();
        Box::new(MemFile {
            data,
            tree: self.tree.clone(),
            path: path.to_path_buf(),
            len,
        })
    }
}

/// Pushes the components of `p` on `todo` so that its first is popped first.
fn push_components(todo: &mut Vec<OsString>, p: &Path) {
    for c in p.components().rev() {
        match c {
            Component::Normal(s) => todo.push(s.to_os_string()),
            Component::ParentDir => todo.push(OsString::from("..")),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
}

/// A file open for appending.
#[derive(Debug)]
struct MemFile {
    data: Arc<Mutex<FileData>>,
    tree: Arc<Mutex<Tree>>,
    path: PathBuf,
    len: u64,
}

impl StorageFile for MemFile {
    fn append(&mut self, bytes: &[u8]) -> Result<()> {
        let now = lock(&self.tree).tick();
        let mut d = lock(&self.data);
        if d.len() + bytes.len() as u64 > MAX_WRITTEN {
            return Err(err(
                &self.path,
                io::ErrorKind::StorageFull,
                "a file in memory past 256 MiB",
            ));
        }
        if d.zeros > 0 {
            let n = d.bytes.len() + d.zeros as usize;
            d.bytes.resize(n, 0);
            d.zeros = 0;
        }
        d.bytes.extend_from_slice(bytes);
        d.modified = now;
        self.len = d.len();
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }
    fn len(&self) -> u64 {
        self.len
    }
}

/// A file open for range reads (it keeps reading the same file after its name goes).
#[derive(Debug)]
struct MemSourceOf {
    data: Arc<Mutex<FileData>>,
    path: PathBuf,
}

impl Source for MemSourceOf {
    fn len(&self) -> Result<u64> {
        Ok(lock(&self.data).len())
    }
    fn read_up_to(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let d = lock(&self.data);
        let total = d.len();
        let start = offset.min(total);
        let end = start.saturating_add(len as u64).min(total);
        // Zeroed memory (`calloc`: the sanitizer's allocator does not clear again what the
        // system gave it cleared, a sparse tail's megabyte read), then the bytes written.
        let mut out = vec![0u8; (end - start) as usize];
        let have = d.bytes.len() as u64;
        if start < have {
            let written = &d.bytes[start as usize..end.min(have) as usize];
            out[..written.len()].copy_from_slice(written);
        }
        Ok(out)
    }
    fn describe(&self) -> String {
        self.path.display().to_string()
    }
}

#[derive(Debug)]
struct MemLock {
    tree: Arc<Mutex<Tree>>,
    id: u64,
}

impl StorageLock for MemLock {}

impl Drop for MemLock {
    fn drop(&mut self) {
        lock(&self.tree).locks.remove(&self.id);
    }
}

impl Storage for MemStorage {
    fn open(&self, path: &Path) -> Result<Arc<dyn Source>> {
        let data = self.file_at(path)?;
        Ok(Arc::new(MemSourceOf {
            data,
            path: path.to_path_buf(),
        }))
    }
    fn stat(&self, path: &Path) -> Result<Option<Stat>> {
        let t = lock(&self.tree);
        let (_, n) = self.target(&t, path)?;
        Ok(match n {
            None => None,
            Some(Node::Dir(id)) => Some(Stat {
                kind: EntryKind::Dir,
                len: 0,
                identity: (0, id),
                modified_ns: 0,
            }),
            Some(Node::Link(_)) => return Err(not_a_regular_member(path, "a symbolic link")),
            Some(Node::File(d)) => {
                let d = lock(&d);
                Some(Stat {
                    kind: EntryKind::File,
                    len: d.len(),
                    identity: (0, d.id),
                    modified_ns: d.modified,
                })
            }
        })
    }
    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        let t = lock(&self.tree);
        let p = Self::resolve(&t, dir, true)?;
        match t.node(&p) {
            Some(Node::Dir(_)) => {
                let mut names: Vec<String> = t
                    .children(&p)
                    .filter_map(|k| k.file_name())
                    .map(|n| n.to_string_lossy().into_owned())
                    .collect();
                // in one order whatever the map's (the same input runs the same way)
                names.sort();
                Ok(names)
            }
            Some(_) => Err(err(dir, io::ErrorKind::NotADirectory, "not a directory")),
            None => Err(not_found(dir)),
        }
    }
    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        let mut t = lock(&self.tree);
        let mut sofar = PathBuf::from("/");
        for c in dir.components() {
            if let Component::Normal(s) = c {
                sofar.push(s);
                let p = Self::resolve(&t, &sofar, true)?;
                match t.node(&p) {
                    Some(Node::Dir(_)) => {}
                    None => {
                        let id = t.id();
                        t.insert(p, Node::Dir(id));
                    }
                    Some(_) => {
                        return Err(err(dir, io::ErrorKind::AlreadyExists, "a file is there"));
                    }
                }
            }
        }
        Ok(())
    }
    fn create(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        let data = self.file_or_new(path, true)?;
        Ok(self.writer(path, data))
    }
    fn open_append(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        let data = self.file_at(path)?;
        Ok(self.writer(path, data))
    }
    fn create_new(&self, path: &Path) -> Result<Box<dyn StorageFile>> {
        let data = {
            let mut t = lock(&self.tree);
            // O_EXCL: never follows a link, whatever the view.
            let p = Self::parent_resolved(&t, path)?;
            if t.node(&p).is_some() {
                return Err(err(path, io::ErrorKind::AlreadyExists, "file exists"));
            }
            t.new_file(&p)
        };
        Ok(self.writer(path, data))
    }
    fn create_temp(
        &self,
        dir: &Path,
        prefix: &str,
        suffix: &str,
    ) -> Result<(PathBuf, Box<dyn StorageFile>)> {
        let n = lock(&self.tree).id();
        let path = dir.join(format!("{prefix}{n:06}{suffix}"));
        let file = self.create_new(&path)?;
        Ok((path, file))
    }
    fn truncate(&self, path: &Path, len: u64) -> Result<()> {
        let data = self.file_at(path)?;
        let now = lock(&self.tree).tick();
        let mut d = lock(&data);
        if len <= d.bytes.len() as u64 {
            d.bytes.truncate(len as usize);
            d.zeros = 0;
        } else {
            d.zeros = len - d.bytes.len() as u64;
        }
        d.modified = now;
        Ok(())
    }
    fn rename(&self, from: &Path, to: &Path, replace: bool) -> Result<()> {
        let mut t = lock(&self.tree);
        let f = Self::parent_resolved(&t, from)?;
        let d = Self::parent_resolved(&t, to)?;
        let Some(node) = t.node(&f) else {
            return Err(not_found(from));
        };
        match t.node(&d) {
            Some(_) if !replace => {
                return Err(err(to, io::ErrorKind::AlreadyExists, "file exists"));
            }
            Some(Node::Dir(_)) => {
                return Err(err(to, io::ErrorKind::IsADirectory, "is a directory"));
            }
            _ => {}
        }
        if f == d {
            return Ok(());
        }
        if matches!(node, Node::Dir(_)) {
            return Err(err(
                from,
                io::ErrorKind::Unsupported,
                "renaming a directory is not modelled",
            ));
        }
        t.remove(&f);
        t.insert(d, node);
        Ok(())
    }
    fn remove_file(&self, path: &Path) -> Result<()> {
        let mut t = lock(&self.tree);
        let p = Self::parent_resolved(&t, path)?;
        match t.node(&p) {
            None => Err(not_found(path)),
            Some(Node::Dir(_)) => Err(err(path, io::ErrorKind::IsADirectory, "is a directory")),
            Some(_) => {
                t.remove(&p);
                Ok(())
            }
        }
    }
    fn remove_dir(&self, dir: &Path) -> Result<()> {
        let mut t = lock(&self.tree);
        let p = Self::parent_resolved(&t, dir)?;
        match t.node(&p) {
            Some(Node::Dir(_)) => {
                if t.children(&p).next().is_some() {
                    return Err(err(
                        dir,
                        io::ErrorKind::DirectoryNotEmpty,
                        "directory not empty",
                    ));
                }
                t.remove(&p);
                Ok(())
            }
            Some(_) => Err(err(dir, io::ErrorKind::NotADirectory, "not a directory")),
            None => Err(not_found(dir)),
        }
    }
    fn sync_dir(&self, dir: &Path) -> Result<()> {
        let t = lock(&self.tree);
        let p = Self::resolve(&t, dir, true)?;
        match t.node(&p) {
            Some(Node::Dir(_)) => Ok(()),
            Some(_) => Err(err(dir, io::ErrorKind::NotADirectory, "not a directory")),
            None => Err(not_found(dir)),
        }
    }
    fn sync_filesystem(&self, _path: &Path) -> Result<()> {
        Ok(())
    }
    fn lock(&self, path: &Path) -> Result<Box<dyn StorageLock>> {
        let data = self.file_or_new(path, false)?;
        let id = lock(&data).id;
        let mut t = lock(&self.tree);
        if !t.locks.insert(id) {
            return Err(Error::Locked(format!("{}: locked", path.display())));
        }
        Ok(Box::new(MemLock {
            tree: self.tree.clone(),
            id,
        }))
    }
    fn is_locked(&self, path: &Path) -> Result<bool> {
        match self.file_at(path) {
            Ok(d) => {
                let id = lock(&d).id;
                Ok(lock(&self.tree).locks.contains(&id))
            }
            Err(Error::Io(e)) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }
    fn members(&self) -> Option<Arc<dyn Storage>> {
        (!self.members).then(|| {
            Arc::new(MemStorage {
                tree: self.tree.clone(),
                members: true,
            }) as Arc<dyn Storage>
        })
    }
}
