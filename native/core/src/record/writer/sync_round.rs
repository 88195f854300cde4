//! Group commit: the flushes of many recordings made durable together, in one sync round.
//!
//! A writer thread prepares each flush on its own thread without waiting for the disk (the frames
//! appended to the recording's segment, the new metadata file encoded) and hands the round's
//! [`SyncJob`]s to its sync thread ([`SyncThread`]), then goes on encoding ticks. The sync thread
//! makes the whole round durable with two file-system syncs, whatever the number of recordings
//! in it ([`commit_round`]):
//!
//! 1. every recording's new metadata file is written to its temporary file (not synced);
//! 2. `sync_filesystem` (Linux `syncfs`): the segments' new frames, the new segment files and
//!    directories, and the temporary files are durable;
//! 3. each temporary file is renamed over its metadata file (after the writer's fence check);
//! 4. `sync_filesystem` again: the renames are durable.
//!
//! Only then does the writer report the round's ticks flushed (`flushed_tick`, `flush()`
//! returning). A power loss before step 4 leaves each metadata file old or new, never torn, and
//! the old one names only frames that were durable before (FORMAT.md, "Durability protocol").

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use crossbeam_channel::{Receiver, Sender, TryRecvError, bounded, unbounded};

use crate::error::{Error, Result};
use crate::record::shared::panics::guarded;
use crate::storage::Storage;
use crate::storage::live::{Fence, LiveDir};

/// One recording's part of a round: its metadata file's new bytes, to publish once the round's
/// data is durable.
pub(crate) struct SyncJob {
    pub id: u64,
    pub live: LiveDir,
    pub meta: Vec<u8>,
    pub fence: Option<Fence>,
}

/// Each job's outcome, by recording id.
pub(crate) type RoundOutcome = Vec<(u64, Result<()>)>;

/// Makes a round of flushes durable (the steps in the module's documentation) and returns each
/// job's outcome. A failed sync fails every job on its file system.
pub(crate) fn commit_round(storage: &dyn Storage, jobs: Vec<SyncJob>) -> RoundOutcome {
    let mut out: Vec<(u64, Result<()>)> = Vec::with_capacity(jobs.len());
    let mut live = Vec::with_capacity(jobs.len());
    for j in jobs {
        match j.live.stage_meta(&j.meta) {
            Ok(()) => live.push(j),
            Err(e) => out.push((j.id, Err(e))),
        }
    }
    // One sync per file system the round touched (recordings may live on several).
    let groups = file_systems(storage, &live);
    let synced = sync_each(storage, &groups);
    let mut published = Vec::with_capacity(live.len());
    for (j, &group) in live.into_iter().zip(&groups.of) {
        let r = match &synced[group] {
            Err(e) => Err(e.duplicate()),
            Ok(()) => j.live.publish_staged_meta(j.fence.as_ref()),
        };
        match r {
            Ok(()) => published.push((j.id, group)),
            Err(e) => out.push((j.id, Err(e))),
        }
    }
    let synced = sync_each(storage, &groups);
    for (id, group) in published {
        out.push((
            id,
            synced[group].as_ref().map(|_| ()).map_err(Error::duplicate),
        ));
    }
    out
}

/// The file systems of a round's live directories: one path to sync for each, and the group of
/// each job.
struct Groups {
    paths: Vec<PathBuf>,
    of: Vec<usize>,
}

/// Groups the jobs by the device of their live directories' parents (one `stat` per distinct
/// parent directory, not per recording).
fn file_systems(storage: &dyn Storage, jobs: &[SyncJob]) -> Groups {
    let mut by_parent: BTreeMap<PathBuf, usize> = BTreeMap::new();
    let mut by_device: BTreeMap<u64, usize> = BTreeMap::new();
    let mut groups = Groups {
        paths: Vec::new(),
        of: Vec::with_capacity(jobs.len()),
    };
    for j in jobs {
        let parent = crate::storage::parent_dir(j.live.path()).to_path_buf();
        let g = match by_parent.get(&parent) {
            Some(&g) => g,
            None => {
                // A parent that cannot be stat'ed gets a sync of its own (which reports the error).
                let device = storage.stat(&parent).ok().flatten().map(|s| s.identity.0);
                let g = match device.and_then(|d| by_device.get(&d).copied()) {
                    Some(g) => g,
                    None => {
                        groups.paths.push(parent.clone());
                        let g = groups.paths.len() - 1;
                        if let Some(d) = device {
                            by_device.insert(d, g);
                        }
                        g
                    }
                };
                by_parent.insert(parent, g);
                g
            }
        };
        groups.of.push(g);
    }
    groups
}

fn sync_each(storage: &dyn Storage, groups: &Groups) -> Vec<Result<()>> {
    groups
        .paths
        .iter()
        .map(|p| storage.sync_filesystem(p))
        .collect()
}

/// A writer thread's sync thread: commits one round at a time while the writer goes on.
pub(crate) struct SyncThread {
    tx: Option<Sender<Vec<SyncJob>>>,
    done: Receiver<RoundOutcome>,
    thread: Option<crate::threads::Handle>,
    storage: Arc<dyn Storage>,
    /// The recordings of the round being committed (sorted).
    in_flight: Option<Vec<u64>>,
    /// Without a thread (it could not be started), a round is committed at once, here.
    inline_done: Option<RoundOutcome>,
}

impl SyncThread {
    /// Starts the sync thread `name`; if the system refuses a thread, rounds are committed on
    /// the writer thread itself.
    pub(crate) fn spawn(name: String, storage: Arc<dyn Storage>) -> SyncThread {
        let (tx, rx) = bounded::<Vec<SyncJob>>(1);
        let (done_tx, done) = unbounded();
        let st = storage.clone();
        let thread = crate::threads::spawn(name, move || {
            while let Ok(jobs) = crate::threads::recv_until(&rx, None) {
                let ids: Vec<u64> = jobs.iter().map(|j| j.id).collect();
                let outcome = guarded(|| commit_round(st.as_ref(), jobs)).unwrap_or_else(|m| {
                    ids.iter()
                        .map(|&id| (id, Err(Error::InvalidState(m.clone()))))
                        .collect()
                });
                if crate::threads::send(&done_tx, outcome).is_err() {
                    return;
                }
            }
        })
        .ok();
        SyncThread {
            tx: thread.as_ref().map(|_| tx),
            done,
            thread,
            storage,
            in_flight: None,
            inline_done: None,
        }
    }

    /// Whether a round is being committed.
    pub(crate) fn busy(&self) -> bool {
        self.in_flight.is_some()
    }

    /// Whether recording `id` is in the round being committed.
    pub(crate) fn holds(&self, id: u64) -> bool {
        self.in_flight
            .as_ref()
            .is_some_and(|ids| ids.binary_search(&id).is_ok())
    }

    /// Starts committing a round (none may be in flight).
    pub(crate) fn start(&mut self, jobs: Vec<SyncJob>) {
        debug_assert!(!self.busy());
        let mut ids: Vec<u64> = jobs.iter().map(|j| j.id).collect();
        ids.sort_unstable();
        self.in_flight = Some(ids);
        match &self.tx {
            Some(tx) => {
                if let Err(jobs) = crate::threads::send(tx, jobs) {
                    // The thread is gone (it cannot be, short of an abort): commit here.
                    self.inline_done = Some(commit_round(self.storage.as_ref(), jobs));
                }
            }
            None => self.inline_done = Some(commit_round(self.storage.as_ref(), jobs)),
        }
    }

    /// The outcome of the round in flight once it is committed (`wait`: waits for it).
    pub(crate) fn poll(&mut self, wait: bool) -> Option<RoundOutcome> {
        let ids = self.in_flight.as_ref()?;
        let outcome = match self.inline_done.take() {
            Some(o) => Ok(o),
            None if wait => crate::threads::recv_until(&self.done, None).map_err(|_| ()),
            None => match self.done.try_recv() {
                Ok(o) => Ok(o),
                Err(TryRecvError::Empty) => return None,
                Err(TryRecvError::Disconnected) => Err(()),
            },
        };
        let outcome = outcome.unwrap_or_else(|()| {
            let e = || Error::InvalidState("the sync thread stopped".into());
            ids.iter().map(|&id| (id, Err(e()))).collect()
        });
        self.in_flight = None;
        Some(outcome)
    }
}

impl Drop for SyncThread {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            t.join();
        }
    }
}
