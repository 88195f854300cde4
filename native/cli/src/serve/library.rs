//! What the server serves: the recordings under one directory (or one object-storage prefix),
//! and, with a catalog, the recordings it registered. Names given by a browser are resolved here
//! and nowhere else: a name that leaves the directory is refused (`..` or an absolute path as
//! such; a symbolic link pointing outside, and a live directory whose files are symbolic links
//! or anything but regular files, as a missing recording: 404, whatever is outside). Opened recordings are kept (a few dozen, least recently used
//! first out) so that the chunk cache serves repeated requests; a live recording is kept with
//! its [`LiveFollower`], which keeps it up to date.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;
use serde::Serialize;
use tickreel::play::{FollowOptions, FollowState, LiveFollower, PlaybackContext, Recording};
use tickreel::storage::live::{LiveDir, META_FILE};
use tickreel::storage::{LocalStorage, MemSource, Storage, is_refused_member};
use tickreel_catalog::Catalog;

use super::error::{ApiError, ApiResult};

/// How many recordings stay open between requests.
const OPEN_MAX: usize = 64;
/// What the recordings kept open between requests may hold on the heap, all of them together:
/// their indexes, decoded metadata, and the keyframe worlds and terrain their readers keep
/// ([`tickreel::play::Reader::heap_bytes`], which changes as they are used). Counted again after
/// every request ([`Library::settle`]): over it, the least recently used give back what their
/// readers keep, then leave the open set; the one just used is always kept. Decoded chunks are
/// the server's chunk cache's ([`CHUNK_CACHE_BYTES`]).
pub const OPEN_BYTES: usize = 96 << 20;
/// What one open recording's reader may keep of keyframe worlds and terrain
/// ([`tickreel::play::Reader::set_cache_budget`]; the world or terrain decoded last is kept
/// whatever its size, until [`Library::settle`] takes it back).
pub const READER_CACHE_BYTES: usize = 32 << 20;
/// The budget of the server's chunk cache (decoded chunks of every recording it serves).
pub const CHUNK_CACHE_BYTES: usize = 64 << 20;
/// How deep the listing looks into sub-directories.
const LIST_DEPTH: usize = 4;
/// At most this many recordings are listed.
pub const LIST_MAX: usize = 5000;
/// At most this many (recording, course, player) rows of the catalog's runs tag the list.
pub const RUN_TAGS_MAX: u64 = 100_000;
/// The prefix of a name that designates a catalog recording by id (`catalog:12`).
pub const CATALOG_PREFIX: &str = "catalog:";

/// Where the recordings are.
#[derive(Debug, Clone)]
pub enum Root {
    /// A directory (canonical path).
    Dir(PathBuf),
    /// An object-storage prefix, `s3://bucket/prefix` (no trailing slash).
    Object(String),
}

/// One listed recording.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// The name to ask for it by: relative to the root, `/`-separated (or `catalog:ID`).
    pub name: String,
    /// `reel` (a finished file), `live` (a recording being written, or left unfinished), `object`.
    pub kind: &'static str,
    pub size: u64,
    /// Last modification, ms since the Unix epoch, where known.
    pub modified_ms: Option<u64>,
}

/// An opened recording, ready for playheads.
#[derive(Clone)]
pub struct Handle {
    pub name: String,
    pub kind: &'static str,
    pub rec: Arc<Recording>,
    /// Keeps a live recording up to date while a request uses it.
    pub follower: Option<Arc<LiveFollower>>,
    /// Asked for by its live directory's name, which is gone: the final file is served.
    pub finished_live: bool,
}

/// A live recording's state as the API names it.
pub fn state_name(s: FollowState) -> &'static str {
    match s {
        FollowState::Waiting => "waiting",
        FollowState::Live => "live",
        FollowState::Finished => "finished",
        FollowState::Lost => "lost",
        FollowState::Abandoned => "abandoned",
        FollowState::Damaged => "damaged",
    }
}

/// The edge of the recording as it is now: first and last tick, and the live state.
pub fn edge(h: &Handle) -> serde_json::Value {
    let view = h.rec.view();
    let r = view.reader();
    serde_json::json!({
        "first_tick": r.first_tick(),
        "last_tick": r.last_tick(),
        "state": h.live_state().map(state_name),
    })
}

impl Handle {
    /// The follower's state, for live recordings (`Finished` for one served by its final file).
    pub fn live_state(&self) -> Option<FollowState> {
        match &self.follower {
            Some(f) => Some(f.state()),
            None => self.finished_live.then_some(FollowState::Finished),
        }
    }
}

struct Opened {
    handle: Handle,
    /// For files: size and modification time when opened (a changed file is opened again).
    stamp: Option<(u64, SystemTime)>,
    used: Instant,
}

pub struct Library {
    pub root: Root,
    catalog: Option<Mutex<Catalog>>,
    open: Mutex<HashMap<String, Opened>>,
    ctx: PlaybackContext,
    /// The served directory's files, opened beneath it ([`LocalStorage::beneath`]): `None` for
    /// an object-storage root, or a directory that could not be resolved.
    beneath: Option<Arc<dyn Storage>>,
    /// Recordings held in memory, by name ([`Library::put_memory`]).
    memory: Mutex<HashMap<PathBuf, Arc<[u8]>>>,
}

impl Library {
    pub fn new(root: Root, catalog: Option<Catalog>) -> Library {
        let beneath = match &root {
            Root::Dir(dir) => LocalStorage::beneath(dir).ok(),
            Root::Object(_) => None,
        };
        Library {
            beneath,
            root,
            catalog: catalog.map(Mutex::new),
            open: Mutex::new(HashMap::new()),
            ctx: PlaybackContext {
                cache: tickreel::play::ChunkCache::new(CHUNK_CACHE_BYTES),
                prefetch: tickreel::play::PrefetchPool::global(),
            },
            memory: Mutex::new(HashMap::new()),
        }
    }

    /// What the open recordings hold now ([`OPEN_BYTES`]).
    pub fn open_bytes(&self) -> usize {
        self.open
            .lock()
            .values()
            .map(|o| o.handle.rec.view().reader().heap_bytes())
            .sum()
    }

    /// Brings what the open recordings hold back within [`OPEN_BYTES`] (and their number within
    /// [`OPEN_MAX`]), least recently used first: a recording first gives back the keyframe
    /// worlds and terrain its reader keeps, then leaves the open set; the most recently used is
    /// always kept. Called after every request that decodes (what a reader keeps grows as it is
    /// used). A request still using a recording that left keeps it until it ends.
    pub fn settle(&self) {
        let mut open = self.open.lock();
        let bytes = |o: &Opened| o.handle.rec.view().reader().heap_bytes();
        let mut total: usize = open.values().map(bytes).sum();
        let mut by_age: Vec<(Instant, String)> =
            open.iter().map(|(k, o)| (o.used, k.clone())).collect();
        by_age.sort();
        // the newest stays, whatever it holds
        by_age.pop();
        for (_, key) in by_age {
            if total <= OPEN_BYTES && open.len() <= OPEN_MAX {
                break;
            }
            let Some(o) = open.get(&key) else { continue };
            let before = bytes(o);
            let view = o.handle.rec.view();
            view.reader().trim_caches(0);
            let after = view.reader().heap_bytes();
            total -= before - after.min(before);
            if total > OPEN_BYTES || open.len() > OPEN_MAX {
                open.remove(&key);
                total -= after.min(total);
            }
        }
    }

    /// Serves `bytes` as the compacted recording called `name` (relative to the root, as a
    /// request names it), from memory, before any file of that name (it is not listed); replaces
    /// what was served under that name, the recording opened from it included. For recordings
    /// that are not files: the `http_api` fuzz target serves each input so, without writing it.
    pub fn put_memory(&self, name: &str, bytes: impl Into<Arc<[u8]>>) -> ApiResult<()> {
        let rel = relative(name)?;
        self.open.lock().remove(&memory_key(&rel));
        self.memory.lock().insert(rel, bytes.into());
        Ok(())
    }

    pub fn has_catalog(&self) -> bool {
        self.catalog.is_some()
    }

    /// Runs `f` on the catalog (blocking; call from a blocking task).
    pub fn with_catalog<T>(&self, f: impl FnOnce(&Catalog) -> tickreel::Result<T>) -> ApiResult<T> {
        let Some(c) = &self.catalog else {
            return Err(ApiError::bad_request(
                "no catalog: start the server with --catalog URL",
            ));
        };
        f(&c.lock()).map_err(|e| ApiError::new(axum::http::StatusCode::BAD_GATEWAY, e.to_string()))
    }

    /// The recordings under the root, sorted by name (at most [`LIST_MAX`]).
    pub fn list(&self) -> ApiResult<Vec<Entry>> {
        let mut out = Vec::new();
        match &self.root {
            Root::Dir(dir) => walk(dir, dir, 0, &mut out),
            Root::Object(url) => objects::list(url, &mut out)?,
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// The catalog's recordings (empty without a catalog), at most [`LIST_MAX`], each with its
    /// server and the courses and players of its runs (at most [`RUN_TAGS_MAX`] in all).
    pub fn catalog_entries(&self) -> ApiResult<Vec<serde_json::Value>> {
        if self.catalog.is_none() {
            return Ok(Vec::new());
        }
        let (recs, runs) =
            self.with_catalog(|c| Ok((c.recordings()?, c.recording_runs(RUN_TAGS_MAX)?)))?;
        let mut tags: HashMap<i64, (Vec<String>, Vec<String>)> = HashMap::new();
        for (id, course, player) in runs {
            let (courses, players) = tags.entry(id).or_default();
            if !courses.contains(&course) {
                courses.push(course);
            }
            if !players.contains(&player) {
                players.push(player);
            }
        }
        Ok(recs
            .into_iter()
            .rev()
            .take(LIST_MAX)
            .map(|r| {
                let (courses, players) = tags.remove(&r.id).unwrap_or_default();
                serde_json::json!({
                    "server": r.server,
                    "courses": courses,
                    "players": players,
                    "name": format!("{CATALOG_PREFIX}{}", r.id),
                    "location": r.location,
                    "first_tick": r.first_tick,
                    "last_tick": r.last_tick,
                    "summary": r.summary,
                    "size": r.size_bytes,
                    "started_ms": r.started_ms,
                    "seconds": f64::from(r.duration_ticks()) / r.tick_rate.max(1e-9),
                })
            })
            .collect())
    }

    /// Where the recording called `name` lives (a path or an object URL), as a catalog row
    /// names it; `None` for a name that is not served, or a catalog recording.
    pub fn location(&self, name: &str) -> Option<String> {
        if name.starts_with(CATALOG_PREFIX) {
            return None;
        }
        match self.resolve(name).ok()?.1 {
            Target::File(p) | Target::Finished(p) | Target::Live(p) => {
                Some(p.to_string_lossy().into_owned())
            }
            Target::Object(u) => Some(u),
            Target::Memory(_) => None,
        }
    }

    /// Opens the recording called `name` (or returns it from the open set).
    pub fn open(&self, name: &str) -> ApiResult<Handle> {
        let (key, target) = self.resolve(name)?;
        let stamp = match &target {
            Target::File(p) | Target::Finished(p) => std::fs::metadata(p)
                .ok()
                .map(|m| (m.len(), m.modified().unwrap_or(UNIX_EPOCH))),
            _ => None,
        };
        {
            let mut open = self.open.lock();
            if let Some(o) = open.get_mut(&key)
                && o.stamp == stamp
            {
                o.used = Instant::now();
                return Ok(o.handle.clone());
            }
        }
        let finished_live = matches!(target, Target::Finished(_));
        let handle = match target {
            Target::File(p) | Target::Finished(p) => {
                let reader = self
                    .storage_for(&p)
                    .open(&p)
                    .and_then(tickreel::play::Reader::open)
                    .map_err(|e| refused_as_missing(name, e))?;
                Handle {
                    name: name.to_string(),
                    kind: "reel",
                    rec: Recording::from_reader(reader, &self.ctx),
                    follower: None,
                    finished_live,
                }
            }
            Target::Live(p) => {
                // Its segments are looked at (not followed) first: one that is not a regular file
                // of its own refuses the directory even before its metadata file is there (a
                // follower waiting for the metadata file reads no segment yet).
                let live = LiveDir::new(self.storage_for(&p), &p);
                for n in live.segments().map_err(|e| refused_as_missing(name, e))? {
                    live.segment_len(n)
                        .map_err(|e| refused_as_missing(name, e))?;
                }
                let options = FollowOptions {
                    poll_interval: Duration::from_millis(100),
                    context: Some(self.ctx.clone()),
                    ..FollowOptions::default()
                };
                // The members of a live directory are opened without following a symbolic
                // link (the core's storage check): one that is not a regular file refuses the
                // directory, answered as a missing recording (it may point anywhere).
                let f = LiveFollower::open_in(self.storage_for(&p), &p, options)
                    .map_err(|e| refused_as_missing(name, e))?;
                Handle {
                    name: name.to_string(),
                    kind: "live",
                    rec: f.recording().clone(),
                    follower: Some(Arc::new(f)),
                    finished_live: false,
                }
            }
            Target::Memory(bytes) => {
                let reader = tickreel::play::Reader::open(Arc::new(MemSource::new(bytes)))
                    .map_err(|e| refused_as_missing(name, e))?;
                Handle {
                    name: name.to_string(),
                    kind: "reel",
                    rec: Recording::from_reader(reader, &self.ctx),
                    follower: None,
                    finished_live,
                }
            }
            Target::Object(url) => match objects::open(&url) {
                Ok(reader) => Handle {
                    name: name.to_string(),
                    kind: "object",
                    rec: Recording::from_reader(reader, &self.ctx),
                    follower: None,
                    finished_live,
                },
                // Not compacted yet: a recording shipped live to the bucket, if it is one.
                Err(e) if e.io_kind() == Some(std::io::ErrorKind::NotFound) => {
                    let f = objects::follow(&url)
                        .map_err(|e| ApiError::of(&label(name), e))?
                        .ok_or_else(|| ApiError::of(&label(name), e))?;
                    Handle {
                        name: name.to_string(),
                        kind: "live",
                        rec: f.recording().clone(),
                        follower: Some(Arc::new(f)),
                        finished_live: false,
                    }
                }
                Err(e) => return Err(ApiError::of(&label(name), e)),
            },
        };
        let mut open = self.open.lock();
        // Followers of recordings that ended stop polling once nobody asked for a while.
        open.retain(|_, o| {
            let ended = matches!(
                o.handle.live_state(),
                Some(FollowState::Finished | FollowState::Lost)
            );
            !(ended && o.used.elapsed() > Duration::from_secs(60))
        });
        handle
            .rec
            .view()
            .reader()
            .set_cache_budget(READER_CACHE_BYTES);
        open.insert(
            key,
            Opened {
                handle: handle.clone(),
                stamp,
                used: Instant::now(),
            },
        );
        drop(open);
        self.settle();
        Ok(handle)
    }

    /// How the files of `path` are opened: beneath the served directory when they are in it (a
    /// name a browser gave: what is actually opened is checked to be inside, so a directory
    /// swapped for a symbolic link after [`Library::resolve`] looked is refused), as they are
    /// otherwise (a catalog's location, the operator's own).
    fn storage_for(&self, path: &Path) -> Arc<dyn Storage> {
        match (&self.root, &self.beneath) {
            (Root::Dir(dir), Some(beneath)) if path.starts_with(dir) => beneath.clone(),
            _ => LocalStorage::shared(),
        }
    }

    /// Where `name` lives; refuses names outside the root.
    fn resolve(&self, name: &str) -> ApiResult<(String, Target)> {
        if let Some(id) = name.strip_prefix(CATALOG_PREFIX) {
            let id: i64 = id.parse().map_err(|_| {
                ApiError::bad_request(format!("{}: not a catalog recording id", label(name)))
            })?;
            let rec = self.with_catalog(|c| c.recording(id))?;
            let Some(rec) = rec else {
                return Err(ApiError::not_found(format!(
                    "{}: no such catalog recording",
                    label(name)
                )));
            };
            // The catalog is the operator's own: its locations are trusted as they are.
            let target = if objects::is_url(&rec.location) {
                Target::Object(rec.location.clone())
            } else {
                Target::File(PathBuf::from(&rec.location))
            };
            return Ok((name.to_string(), target));
        }
        let rel = relative(name)?;
        if let Some(bytes) = self.memory.lock().get(&rel) {
            return Ok((memory_key(&rel), Target::Memory(bytes.clone())));
        }
        match &self.root {
            Root::Object(url) => {
                let key = rel.to_string_lossy().replace('\\', "/");
                Ok((key.clone(), Target::Object(format!("{url}/{key}"))))
            }
            Root::Dir(dir) => {
                let mut joined = dir.join(&rel);
                let mut finished = false;
                // A live recording that was finished since: its final file.
                if !joined.exists()
                    && let Some(stem) = joined.to_str().and_then(|s| s.strip_suffix(".live"))
                    && Path::new(stem).is_file()
                {
                    joined = PathBuf::from(stem);
                    finished = true;
                }
                // A name that resolves outside the directory (through a symbolic link) is
                // answered as a missing one, whether or not its target exists there: nothing
                // about the outside shows.
                let real = match joined.canonicalize() {
                    Ok(real) if real.starts_with(dir) => real,
                    _ => return Err(no_such_recording(name)),
                };
                let key = real.to_string_lossy().into_owned();
                if real.is_dir() {
                    if !is_live_dir(&real) {
                        return Err(ApiError::bad_request(format!(
                            "{}: a directory, not a recording",
                            label(name)
                        )));
                    }
                    Ok((key, Target::Live(real)))
                } else if finished {
                    // not shared with the file's own name: this one reports itself finished
                    Ok((format!("{key} (finished live)"), Target::Finished(real)))
                } else {
                    Ok((key, Target::File(real)))
                }
            }
        }
    }
}

/// Recordings in object storage (feature `object`); without it an `s3://` root or catalog
/// location is refused with `Unsupported`.
#[cfg(feature = "object")]
mod objects {
    use super::{ApiError, ApiResult, Entry, LIST_MAX};

    pub fn is_url(location: &str) -> bool {
        tickreel_object::is_object_url(location)
    }

    pub fn open(url: &str) -> tickreel::Result<tickreel::play::Reader> {
        crate::object::open(url)
    }

    /// A follower of the recording shipped live to `url` (`None` if it has no live objects).
    pub fn follow(url: &str) -> tickreel::Result<Option<tickreel::play::LiveFollower>> {
        let f = tickreel_object::live::follow_url(
            url,
            &crate::object::options(),
            &tickreel_object::live::RemoteFollowOptions::default(),
        )?;
        Ok((f.state() != tickreel::play::FollowState::Waiting).then_some(f))
    }

    /// The `.reel` objects under the prefix `url` and the recordings shipped live there (named by
    /// their `.reel` key, kind `live`), appended to `out` (at most [`LIST_MAX`]).
    pub fn list(url: &str, out: &mut Vec<Entry>) -> ApiResult<()> {
        let (storage, u) =
            crate::object::storage(&format!("{url}/")).map_err(|e| ApiError::of(url, e))?;
        for o in storage.list(&u.key).map_err(|e| ApiError::of(url, e))? {
            let full = o.url.to_string();
            let name = full
                .strip_prefix(&format!("{url}/"))
                .unwrap_or(&full)
                .to_string();
            if out.len() >= LIST_MAX {
                break;
            }
            if name.ends_with(".reel") {
                out.push(Entry {
                    name,
                    kind: "object",
                    size: o.size,
                    modified_ms: None,
                });
            } else if let Some(reel) = name.strip_suffix(".live/manifest")
                && reel.ends_with(".reel")
            {
                out.push(Entry {
                    name: reel.to_string(),
                    kind: "live",
                    size: o.size,
                    modified_ms: None,
                });
            }
        }
        Ok(())
    }
}

#[cfg(not(feature = "object"))]
mod objects {
    use super::{ApiError, ApiResult, Entry};

    fn unsupported(url: &str) -> tickreel::Error {
        tickreel::Error::Unsupported(format!(
            "{url}: object storage is not in this build (feature \"object\")"
        ))
    }

    pub fn is_url(location: &str) -> bool {
        location.starts_with("s3://")
    }

    pub fn open(url: &str) -> tickreel::Result<tickreel::play::Reader> {
        Err(unsupported(url))
    }

    pub fn follow(url: &str) -> tickreel::Result<Option<tickreel::play::LiveFollower>> {
        Err(unsupported(url))
    }

    pub fn list(url: &str, _out: &mut Vec<Entry>) -> ApiResult<()> {
        Err(ApiError::of(url, unsupported(url)))
    }
}

enum Target {
    File(PathBuf),
    /// The final file of a live directory asked for by name.
    Finished(PathBuf),
    Live(PathBuf),
    Object(String),
    /// A recording held in memory ([`Library::put_memory`]).
    Memory(Arc<[u8]>),
}

/// The open set's key of the recording held in memory as `rel` (no path or catalog name starts
/// so).
fn memory_key(rel: &Path) -> String {
    format!("memory:{}", rel.display())
}

/// The answer for a name that is not served: missing, outside the directory, or a live directory
/// whose files lead out of it (all alike, so that none tells what exists outside).
fn no_such_recording(name: &str) -> ApiError {
    ApiError::not_found(format!("{}: no such recording", label(name)))
}

/// A file of the served directory that was refused once opened (a symbolic link out of it, a
/// member that is not a file of its own) is answered as a missing recording, like a name that
/// resolves outside: nothing about the outside shows.
fn refused_as_missing(name: &str, e: tickreel::Error) -> ApiError {
    if is_refused_member(&e) {
        no_such_recording(name)
    } else {
        ApiError::of(&label(name), e)
    }
}

/// `name` as error messages quote it: at most 64 characters.
pub fn label(name: &str) -> String {
    match name.char_indices().nth(64) {
        None => name.to_string(),
        Some((cut, _)) => format!("{}… ({} bytes)", &name[..cut], name.len()),
    }
}

/// `name` as a relative path of plain components, or a refusal.
fn relative(name: &str) -> ApiResult<PathBuf> {
    if name.is_empty() {
        return Err(ApiError::bad_request("no recording named (rec=NAME)"));
    }
    if name.len() > 1024 || name.contains('\0') {
        return Err(ApiError::bad_request("the recording name is not valid"));
    }
    let p = Path::new(name);
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::CurDir => {}
            _ => {
                return Err(ApiError::forbidden(format!(
                    "{}: outside the served directory (only names relative to it are served)",
                    label(name)
                )));
            }
        }
    }
    if out.as_os_str().is_empty() {
        return Err(ApiError::bad_request("no recording named (rec=NAME)"));
    }
    Ok(out)
}

/// Whether `dir` is a live recording directory: named so, or holding a metadata file. The
/// metadata file is looked at, not followed (`lstat`): whatever it is, opening the directory
/// checks it ([`tickreel::storage::Storage::members`]).
fn is_live_dir(dir: &Path) -> bool {
    dir.extension().is_some_and(|e| e == "live")
        || std::fs::symlink_metadata(dir.join(META_FILE)).is_ok()
}

fn walk(root: &Path, dir: &Path, depth: usize, out: &mut Vec<Entry>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        if out.len() >= LIST_MAX {
            return;
        }
        let path = e.path();
        let Some(file_name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if file_name.starts_with('.') {
            continue;
        }
        let Ok(meta) = e.metadata() else { continue };
        let name = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        let modified_ms = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_millis() as u64);
        if meta.is_dir() {
            if is_live_dir(&path) {
                let size = std::fs::read_dir(&path)
                    .map(|rd| {
                        rd.flatten()
                            .filter_map(|f| f.metadata().ok())
                            .map(|m| m.len())
                            .sum()
                    })
                    .unwrap_or(0);
                out.push(Entry {
                    name,
                    kind: "live",
                    size,
                    modified_ms,
                });
            } else if depth < LIST_DEPTH {
                walk(root, &path, depth + 1, out);
            }
        } else if meta.is_file() && file_name.ends_with(".reel") {
            out.push(Entry {
                name,
                kind: "reel",
                size: meta.len(),
                modified_ms,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A finished recording whose user metadata holds `values` empty compounds: about one byte
    /// each on disk, tens of bytes each once decoded.
    fn heavy(path: &Path, values: usize) {
        use tickreel::format::Event;
        use tickreel::record::{ReelOptions, ReelWriter};
        let mut w = ReelWriter::create(path, ReelOptions::default()).unwrap();
        let empty = fastnbt::Value::Compound(HashMap::new());
        w.set_user_metadata("heavy", fastnbt::Value::List(vec![empty; values]))
            .unwrap();
        let pose = tickreel::Pose::from_f64(1.0, 64.0, 0.0, 0.0, 0.0);
        let add = Event::EntityAdd {
            entity: 1,
            kind: 0,
            pose,
        };
        w.write_tick(0, &[add]).unwrap();
        w.finish().unwrap();
    }

    #[test]
    fn the_open_set_is_bounded_in_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        // Each about 0.8 MB on disk and about 43 MiB decoded: five do not fit in OPEN_BYTES.
        let values = 800_000;
        for i in 0..5 {
            heavy(&real.join(format!("h{i}.reel")), values);
        }
        let lib = Library::new(Root::Dir(real.clone()), None);
        let mut kept_max = 0;
        for round in 0..2 {
            for i in 0..5 {
                let h = lib.open(&format!("h{i}.reel")).unwrap();
                let one = h.rec.view().reader().heap_bytes();
                assert!(one > 32 << 20, "round {round}: {one} bytes for h{i}");
                let bytes = lib.open_bytes();
                let open = lib.open.lock();
                assert!(
                    bytes <= OPEN_BYTES,
                    "round {round}: {} recordings kept, {bytes} bytes",
                    open.len()
                );
                let key = real.join(format!("h{i}.reel"));
                assert!(
                    open.contains_key(key.to_str().unwrap()),
                    "the newest is kept"
                );
                kept_max = kept_max.max(open.len());
            }
        }
        assert!((2..5).contains(&kept_max), "{kept_max} kept at most");
    }

    #[test]
    fn a_recording_in_memory_is_served_before_a_file_of_its_name_and_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        heavy(&real.join("m.reel"), 1);
        let elsewhere = tempfile::tempdir().unwrap();
        heavy(&elsewhere.path().join("m.reel"), 7);
        let seven = std::fs::read(elsewhere.path().join("m.reel")).unwrap();
        let lib = Library::new(Root::Dir(real.clone()), None);
        let values = |name: &str| {
            let h = lib.open(name).unwrap();
            let view = h.rec.view();
            match view.reader().metadata().user.get("heavy") {
                Some(fastnbt::Value::List(l)) => l.len(),
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(values("m.reel"), 1, "the file");
        lib.put_memory("m.reel", seven).unwrap();
        assert_eq!(values("m.reel"), 7, "the bytes in memory, not the file");
        assert_eq!(values("./m.reel"), 7);
        assert_eq!(lib.location("m.reel"), None);
        assert!(lib.list().unwrap().iter().all(|e| e.name == "m.reel"));
        // Replaced: the recording opened from the first bytes is not kept.
        let one = std::fs::read(real.join("m.reel")).unwrap();
        lib.put_memory("m.reel", one).unwrap();
        assert_eq!(values("m.reel"), 1);
        // Damaged bytes are answered as a damaged file is.
        lib.put_memory("m.reel", vec![0u8; 300]).unwrap();
        assert!(lib.open("m.reel").is_err());
        assert!(lib.put_memory("../x.reel", vec![1]).is_err());
    }

    #[test]
    fn names_that_leave_the_root_are_refused() {
        for bad in ["../x.reel", "/etc/passwd", "a/../../b.reel", "", "./"] {
            assert!(relative(bad).is_err(), "{bad} accepted");
        }
        assert_eq!(relative("a/./b.reel").unwrap(), PathBuf::from("a/b.reel"));
    }
}
