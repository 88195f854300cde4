//! Following a recording while it is being written, from this process or another one (only the
//! files are used).
//!
//! A [`LiveFollower`] owns a [`Recording`] and keeps its view current:
//!
//! * while the recording is live (`<final>.reel.live/`), it polls the metadata file
//!   `meta.tkrl` (one `stat`: its inode, size and modification time change on every flush, since
//!   the writer replaces it by rename) and, when it changed, opens the directory again and hands
//!   the new reader to [`Recording::update`]: the cache identity is kept, playheads see the new
//!   ticks on their next call. The writer makes frames durable before it rewrites the metadata
//!   file, so a reader that only follows the metadata file never sees a half-written frame. The
//!   segment files of each new reader are opened at once ([`Reader::pin`]), so a view stays
//!   readable after the directory is removed;
//! * when the metadata file is gone and the final `.reel` exists (compaction renames it into
//!   place before removing the live directory), it checks that the file is the same recording
//!   (recording id, start time, world, first tick, at least as many ticks) and switches to it with
//!   [`Recording::switch_to`]; playheads re-find their tick in it without anything to apply;
//! * before the first flush there is neither: the recording is empty and playheads
//!   [wait](crate::play::Update::waiting); a recording that was never flushed may also appear
//!   directly as the final file.
//!
//! I/O errors on the way (a segment deleted between reading the metadata file and opening it,
//! a file renamed while being opened) are transient: the poll is retried on the next interval
//! and nothing is remembered as a failure. Polling runs on a background thread (the default) so
//! that [`crate::play::Playhead::advance`] never touches the files, or only on explicit
//! [`LiveFollower::refresh`] calls.
//!
//! A writer that crashed (or closed the recording to resume it later) leaves its live directory
//! behind, and its lock free: once the metadata file has not changed for `lost_after`, the
//! follower checks the lock (at most once per `lost_after`) and reports
//! [`FollowState::Abandoned`] while nobody holds it; it goes back to [`FollowState::Live`] as
//! soon as the recording is resumed and flushed again.
//!
//! A live directory that cannot be read for `lost_after` in a row is damage, not a transient
//! error: a segment its metadata file names is missing (and no final file appeared), its
//! metadata file is refused, or it has no metadata file and no writer holds it. The follower
//! then reports [`FollowState::Damaged`], and [`FollowStats::damage`] says what is wrong;
//! polling goes on (a repaired or resumed directory goes back to [`FollowState::Live`]).
//!
//! A recording kept elsewhere (object storage: [`LiveFollower::open_remote`]) is followed the
//! same way through a [`RemoteLive`]: each poll asks it what is there. New live metadata is
//! installed as above; the final file is switched to with the same checks; live metadata that
//! has not changed for `lost_after` (its writer ships at least once per interval, even with
//! nothing new, so a stale one means the writer is gone) makes the state
//! [`FollowState::Abandoned`]; nothing at all for `lost_after` after it was seen live makes it
//! [`FollowState::Lost`].

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::sync::{Condvar, Mutex};

use crate::error::{Error, Result};
use crate::play::recording::{PlaybackContext, Recording};
use crate::reader::{Reader, ReaderOptions};
use crate::storage::live::{LiveDir, META_FILE, live_dir_for, members_of};
use crate::storage::remote::{RemoteLive, RemotePoll};
use crate::storage::{EntryKind, LocalStorage, Stat, Storage, is_refused_member};

/// How a [`LiveFollower`] polls.
#[derive(Debug, Clone)]
pub struct FollowOptions {
    /// Time between two polls of the background thread.
    pub poll_interval: Duration,
    /// Poll on a background thread; if false, only [`LiveFollower::refresh`] polls.
    pub background: bool,
    /// A live directory gone with no matching final file for this long (an aborted recording)
    /// makes the state [`FollowState::Lost`].
    pub lost_after: Duration,
    /// Cache and prefetch pool of the recording (`None`: the process-wide ones).
    pub context: Option<PlaybackContext>,
}

impl Default for FollowOptions {
    fn default() -> Self {
        FollowOptions {
            poll_interval: Duration::from_millis(100),
            background: true,
            lost_after: Duration::from_secs(5),
            context: None,
        }
    }
}

/// Where a followed recording is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FollowState {
    /// Nothing written yet: no live directory, no final file.
    Waiting,
    /// Following the live directory: more ticks may come.
    Live,
    /// Reading the final compacted file: the recording is complete, nothing more will come.
    Finished,
    /// The live directory went away and no matching final file appeared (the recording was
    /// aborted). Polling goes on in case it comes back.
    Lost,
    /// The live directory is there but no writer holds it: its writer crashed, or closed the
    /// recording to resume it later. Nothing more comes until someone resumes it; polling goes
    /// on.
    Abandoned,
    /// The live directory is there but cannot be read, and has not been for `lost_after`: a
    /// segment its metadata file names is missing, the metadata file is refused, or there is no
    /// metadata file and no writer holds the directory. [`FollowStats::damage`] says what;
    /// polling goes on.
    Damaged,
}

/// Counters of a follower.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FollowStats {
    /// Polls done.
    pub polls: u64,
    /// Views installed from the live directory (each with more chunks than the one before).
    pub updates: u64,
    /// Switches to the final file (0 or 1).
    pub switches: u64,
    /// Polls that failed (all retried).
    pub errors: u64,
    /// The last failure, if any.
    pub last_error: Option<String>,
    /// Last tick of the current view.
    pub last_tick: Option<u32>,
    /// While the state is [`FollowState::Damaged`]: what is missing or refused.
    pub damage: Option<String>,
}

/// What identifies one version of the metadata file: its identity, size and modification time
/// (the writer replaces it by rename, so every rewrite changes at least the identity).
fn stamp_of(storage: &dyn Storage, path: &Path) -> Result<Option<Stat>> {
    Ok(storage.stat(path)?.filter(|s| s.kind == EntryKind::File))
}

fn is_not_found(e: &Error) -> bool {
    matches!(e, Error::Io(io) if io.kind() == std::io::ErrorKind::NotFound)
}

/// A live directory without its metadata file (see [`Shared::without_meta`]).
enum NoMeta {
    /// No live directory (or a recording seen live before: it is being removed).
    NoDirectory,
    /// The directory is there: a writer before its first flush, or not for `lost_after` yet.
    Pending,
    /// There for `lost_after` and nobody holds it.
    Damaged(Error),
}

#[derive(Debug)]
struct Poller {
    state: FollowState,
    stamp: Option<Stat>,
    lost_since: Option<Instant>,
    /// The metadata file has been the same since then (while following the live directory).
    unchanged_since: Option<Instant>,
    /// When the writer's lock was last checked.
    lock_probed: Option<Instant>,
    /// The live directory has failed to open since then (every poll in between failed).
    failing_since: Option<Instant>,
    /// The live directory has been there without a metadata file since then (never followed).
    no_meta_since: Option<Instant>,
    stats: FollowStats,
}

#[derive(Debug)]
struct Shared {
    storage: Arc<dyn Storage>,
    rec: Arc<Recording>,
    live: PathBuf,
    final_path: Option<PathBuf>,
    /// A recording kept elsewhere: polled through it (`storage`, `live` and `final_path` unused).
    remote: Option<Arc<dyn RemoteLive>>,
    options: FollowOptions,
    /// Held for a whole poll (I/O included).
    poller: Mutex<Poller>,
    /// State and counters as of the last poll: read without waiting for a poll in progress.
    published: Mutex<(FollowState, FollowStats)>,
    stop: Mutex<bool>,
    wake: Condvar,
}

/// Keeps a [`Recording`] up to date with a recording being written. See the
/// [module documentation](self). Dropping it stops the background thread; the recording keeps
/// its last view.
#[derive(Debug)]
pub struct LiveFollower {
    shared: Arc<Shared>,
    thread: Option<crate::threads::Handle>,
}

impl Recording {
    /// Follows a recording given by its final `.reel` path or its live directory: see
    /// [`LiveFollower::open`].
    pub fn follow(path: impl AsRef<Path>, options: FollowOptions) -> Result<LiveFollower> {
        LiveFollower::open(path, options)
    }
}

/// The live directory and final file of `path` (either of them).
fn paths_of(storage: &dyn Storage, path: &Path) -> (PathBuf, Option<PathBuf>) {
    let s = path.as_os_str().to_string_lossy();
    if let Some(stem) = s.strip_suffix(".live") {
        return (path.to_path_buf(), Some(PathBuf::from(stem)));
    }
    if matches!(storage.stat(path), Ok(Some(s)) if s.kind == EntryKind::Dir) {
        // A live directory under another name: no known final file.
        return (path.to_path_buf(), None);
    }
    (live_dir_for(path), Some(path.to_path_buf()))
}

impl LiveFollower {
    /// Follows the recording at `path`: its final `.reel` path (the live directory is
    /// `<path>.live`) or its live directory. Polls once before returning (the recording then
    /// holds whatever exists: live ticks, the final file, or nothing yet). Fails only if what
    /// exists cannot be read for a reason other than a transient I/O error.
    pub fn open(path: impl AsRef<Path>, options: FollowOptions) -> Result<LiveFollower> {
        LiveFollower::open_in(LocalStorage::shared(), path.as_ref(), options)
    }

    /// [`LiveFollower::open`] through `storage`: every file the follower reads, now and at each
    /// poll, is opened by it (a server confines its followers with
    /// [`LocalStorage::beneath`](crate::storage::LocalStorage::beneath)).
    pub fn open_in(
        storage: Arc<dyn Storage>,
        path: &Path,
        options: FollowOptions,
    ) -> Result<LiveFollower> {
        let (live, final_path) = paths_of(storage.as_ref(), path);
        LiveFollower::start(storage, live, final_path, None, options)
    }

    /// Follows a recording kept elsewhere (see the [module documentation](self)): `lost_after`
    /// is also how long its live metadata may stay unchanged before the writer counts as gone.
    /// Polls once before returning, as [`LiveFollower::open`].
    pub fn open_remote(
        remote: Arc<dyn RemoteLive>,
        options: FollowOptions,
    ) -> Result<LiveFollower> {
        let name = PathBuf::from(remote.describe());
        LiveFollower::start(LocalStorage::shared(), name, None, Some(remote), options)
    }

    fn start(
        storage: Arc<dyn Storage>,
        live: PathBuf,
        final_path: Option<PathBuf>,
        remote: Option<Arc<dyn RemoteLive>>,
        options: FollowOptions,
    ) -> Result<LiveFollower> {
        let ctx = options
            .context
            .clone()
            .unwrap_or_else(PlaybackContext::global);
        let rec = Recording::from_reader(Reader::empty(), &ctx);
        let shared = Arc::new(Shared {
            storage,
            rec,
            live,
            final_path,
            remote,
            options,
            poller: Mutex::new(Poller {
                state: FollowState::Waiting,
                stamp: None,
                lost_since: None,
                unchanged_since: None,
                lock_probed: None,
                failing_since: None,
                no_meta_since: None,
                stats: FollowStats::default(),
            }),
            published: Mutex::new((FollowState::Waiting, FollowStats::default())),
            stop: Mutex::new(false),
            wake: Condvar::new(),
        });
        {
            let mut p = shared.poller.lock();
            p.stats.polls += 1;
            if let Err(e) = shared.poll(&mut p) {
                // A member that is not a regular file (a symbolic link out of the directory)
                // stays what it is: refused at once.
                let transient = matches!(e, Error::Io(_)) && !is_refused_member(&e);
                if !transient {
                    return Err(e);
                }
                p.stats.errors += 1;
                p.stats.last_error = Some(e.to_string());
            }
            *shared.published.lock() = (p.state, p.stats.clone());
        }
        let thread = if shared.options.background {
            let s = shared.clone();
            Some(crate::threads::spawn("tickreel-follow", move || s.run())?)
        } else {
            None
        };
        Ok(LiveFollower { shared, thread })
    }

    /// The followed recording: give it to playheads.
    pub fn recording(&self) -> &Arc<Recording> {
        &self.shared.rec
    }

    /// Polls now (blocking on a little I/O) and returns the state. Errors are transient and
    /// counted in [`FollowStats::errors`]; the next poll retries.
    pub fn refresh(&self) -> FollowState {
        self.shared.poll_counted()
    }

    /// The state as of the last poll (never waits for a poll in progress).
    pub fn state(&self) -> FollowState {
        self.shared.published.lock().0
    }

    /// Whether the recording is complete (switched to, or opened as, its final file).
    pub fn is_finished(&self) -> bool {
        self.state() == FollowState::Finished
    }

    /// Counters as of the last poll (never waits for a poll in progress).
    pub fn stats(&self) -> FollowStats {
        self.shared.published.lock().1.clone()
    }

    /// The live directory followed (for a remote recording: its URL).
    pub fn live_dir(&self) -> &Path {
        &self.shared.live
    }

    /// The final file, if known.
    pub fn final_path(&self) -> Option<&Path> {
        self.shared.final_path.as_deref()
    }
}

impl Drop for LiveFollower {
    fn drop(&mut self) {
        *self.shared.stop.lock() = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.thread.take() {
            t.join();
        }
    }
}

impl Shared {
    /// The background thread: polls every interval until finished or stopped.
    fn run(&self) {
        loop {
            if self.poll_counted() == FollowState::Finished {
                return;
            }
            let mut stop = self.stop.lock();
            if !*stop {
                self.wake.wait_for(&mut stop, self.options.poll_interval);
            }
            if *stop {
                return;
            }
        }
    }

    fn poll_counted(&self) -> FollowState {
        let mut p = self.poller.lock();
        p.stats.polls += 1;
        if let Err(e) = self.poll(&mut p) {
            p.stats.errors += 1;
            p.stats.last_error = Some(e.to_string());
        }
        *self.published.lock() = (p.state, p.stats.clone());
        p.state
    }

    /// One poll. Errors leave everything as it was (the next poll retries), unless the live
    /// directory has failed to open for `lost_after` ([`FollowState::Damaged`]).
    fn poll(&self, p: &mut Poller) -> Result<()> {
        if p.state == FollowState::Finished {
            return Ok(());
        }
        if let Some(remote) = &self.remote {
            return self.poll_remote(remote.as_ref(), p);
        }
        // Why the live directory could not be read, if it is there but was not.
        let mut unreadable = None;
        match stamp_of(
            members_of(&self.storage).as_ref(),
            &self.live.join(META_FILE),
        ) {
            Ok(Some(s)) => {
                p.lost_since = None;
                p.no_meta_since = None;
                if p.stamp == Some(s)
                    && matches!(p.state, FollowState::Live | FollowState::Abandoned)
                {
                    return self.check_writer(p);
                }
                let opened =
                    Reader::open_live_in(&self.storage, &self.live, ReaderOptions::default());
                match opened.and_then(|r| r.pin().map(|()| r)) {
                    Ok(r) => {
                        self.install_live(p, r);
                        p.stamp = Some(s);
                        return Ok(());
                    }
                    // Being removed after compaction: look for the final file.
                    Err(e) if is_not_found(&e) => unreadable = Some(e),
                    Err(e) => return self.failed(p, e),
                }
            }
            Ok(None) => {}
            Err(e) if is_not_found(&e) => {}
            Err(e) => return Err(e),
        }
        let fin = match &self.final_path {
            Some(f) if stamp_of(self.storage.as_ref(), f)?.is_some() => f,
            _ => {
                if let Some(e) = unreadable {
                    // A segment the metadata file names is missing, and no final file.
                    return self.failed(p, e);
                }
                return match self.without_meta(p)? {
                    NoMeta::NoDirectory => self.nothing_there(p),
                    NoMeta::Pending => Ok(()),
                    NoMeta::Damaged(e) => self.failed(p, e),
                };
            }
        };
        let r = Reader::open_with(self.storage.open(fin)?, ReaderOptions::default())?;
        self.switch_final(p, r, &fin.display().to_string())
    }

    /// One poll of a remote recording (see the module's documentation).
    fn poll_remote(&self, remote: &dyn RemoteLive, p: &mut Poller) -> Result<()> {
        match remote.poll()? {
            RemotePoll::Nothing => self.nothing_there(p),
            RemotePoll::Unchanged => {
                p.lost_since = None;
                let since = *p.unchanged_since.get_or_insert_with(Instant::now);
                if p.state == FollowState::Live && since.elapsed() >= self.options.lost_after {
                    p.state = FollowState::Abandoned;
                }
                Ok(())
            }
            RemotePoll::Live { meta, frames } => {
                p.lost_since = None;
                let r = Reader::open_live_parts(meta.as_ref(), frames, ReaderOptions::default());
                match r {
                    Ok(r) => {
                        self.install_live(p, r);
                        Ok(())
                    }
                    Err(e) => self.failed(p, e),
                }
            }
            RemotePoll::Finished(source) => {
                let name = source.describe();
                let r = Reader::open_with(source, ReaderOptions::default())?;
                self.switch_final(p, r, &name)
            }
        }
    }

    /// Switches to the final file `r` (named `name`), once it is checked to be the compacted
    /// form of the recording followed live, if it was.
    fn switch_final(&self, p: &mut Poller, r: Reader, name: &str) -> Result<()> {
        if matches!(
            p.state,
            FollowState::Live | FollowState::Lost | FollowState::Abandoned
        ) {
            let view = self.rec.view();
            let (live, h) = (view.reader(), r.header());
            let same = h.timestamp_ms == live.header().timestamp_ms
                && h.world_id == live.header().world_id
                && h.recording_id == live.header().recording_id
                && r.first_tick() == live.first_tick()
                && r.last_tick() >= live.last_tick();
            if !same {
                // Another recording's file (the live one may have been aborted): keep waiting.
                self.nothing_there(p)?;
                return Err(Error::InvalidState(format!(
                    "{name} is not the compacted form of the followed recording"
                )));
            }
        }
        p.stats.last_tick = r.last_tick();
        self.rec.switch_to(r);
        p.failing_since = None;
        p.stats.damage = None;
        p.state = FollowState::Finished;
        p.stats.switches += 1;
        Ok(())
    }

    /// The metadata file did not change: after `lost_after`, whether a writer still holds the
    /// directory (checked at most once per `lost_after`).
    fn check_writer(&self, p: &mut Poller) -> Result<()> {
        let every = self.options.lost_after;
        let since = *p.unchanged_since.get_or_insert_with(Instant::now);
        if since.elapsed() < every || p.lock_probed.is_some_and(|t| t.elapsed() < every) {
            return Ok(());
        }
        p.lock_probed = Some(Instant::now());
        let held = LiveDir::new(self.storage.clone(), &self.live).is_locked()?;
        p.state = if held {
            FollowState::Live
        } else {
            FollowState::Abandoned
        };
        Ok(())
    }

    /// The live directory is there and could not be read (`e`): transient (the error is
    /// returned, the next poll retries) until it has lasted `lost_after`, then
    /// [`FollowState::Damaged`].
    fn failed(&self, p: &mut Poller, e: Error) -> Result<()> {
        let since = *p.failing_since.get_or_insert_with(Instant::now);
        if since.elapsed() >= self.options.lost_after {
            p.state = FollowState::Damaged;
            p.stats.damage = Some(e.to_string());
        }
        Err(e)
    }

    /// Neither the metadata file nor the final file is there, in a recording never seen live:
    /// if the live directory is there without a metadata file for `lost_after` and no writer
    /// holds it (a writer holds it before its first flush), the reason it cannot be read.
    fn without_meta(&self, p: &mut Poller) -> Result<NoMeta> {
        let dir_there = matches!(
            self.storage.stat(&self.live),
            Ok(Some(s)) if s.kind == EntryKind::Dir
        );
        if !dir_there || !matches!(p.state, FollowState::Waiting | FollowState::Damaged) {
            p.no_meta_since = None;
            return Ok(NoMeta::NoDirectory);
        }
        let every = self.options.lost_after;
        let since = *p.no_meta_since.get_or_insert_with(Instant::now);
        if since.elapsed() < every || p.lock_probed.is_some_and(|t| t.elapsed() < every) {
            return Ok(NoMeta::Pending);
        }
        p.lock_probed = Some(Instant::now());
        if LiveDir::new(self.storage.clone(), &self.live).is_locked()? {
            return Ok(NoMeta::Pending);
        }
        // Damaged at once: it has been like this for `lost_after` already.
        p.failing_since.get_or_insert(since);
        Ok(NoMeta::Damaged(Error::Io(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!(
                "{}: missing: the live directory has no metadata file and no writer holds it \
                 (its writer stopped before its first flush, or the file was removed)",
                self.live.join(META_FILE).display()
            ),
        ))))
    }

    fn install_live(&self, p: &mut Poller, r: Reader) {
        p.unchanged_since = None;
        p.lock_probed = None;
        p.failing_since = None;
        p.stats.damage = None;
        let cur = self.rec.view();
        let changed = p.state != FollowState::Live
            || r.index() != cur.reader().index()
            || r.metadata() != cur.reader().metadata();
        p.state = FollowState::Live;
        if changed {
            p.stats.last_tick = r.last_tick();
            self.rec.update(r);
            p.stats.updates += 1;
        }
    }

    /// Neither the live metadata file nor the final file is there.
    fn nothing_there(&self, p: &mut Poller) -> Result<()> {
        p.failing_since = None;
        if matches!(
            p.state,
            FollowState::Live | FollowState::Lost | FollowState::Abandoned | FollowState::Damaged
        ) {
            let since = *p.lost_since.get_or_insert_with(Instant::now);
            if since.elapsed() >= self.options.lost_after {
                p.state = FollowState::Lost;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_from_either_name() {
        let (l, f) = paths_of(LocalStorage::shared().as_ref(), Path::new("/x/run.reel"));
        assert_eq!(l, PathBuf::from("/x/run.reel.live"));
        assert_eq!(f, Some(PathBuf::from("/x/run.reel")));
        let (l, f) = paths_of(
            LocalStorage::shared().as_ref(),
            Path::new("/x/run.reel.live"),
        );
        assert_eq!(l, PathBuf::from("/x/run.reel.live"));
        assert_eq!(f, Some(PathBuf::from("/x/run.reel")));
    }
}
