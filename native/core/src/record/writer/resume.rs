//! Resuming a recording whose live directory exists: recovering the directory (which reads every
//! segment and fsyncs what it repairs) runs on a thread of its own, so that `start_recording`
//! returns at once; the writer holds the recording's messages until it is done.

use crossbeam_channel::{Receiver, TryRecvError};

use crate::error::{Error, Result};
use crate::format::header::Header;
use crate::format::index::{IndexEntry, snapshot_at_or_before};
use crate::format::metadata::Metadata;
use crate::format::state::EntityTable;
use crate::reader::{Reader, ReaderOptions};
use crate::record::file::recover::recover_locked;
use crate::storage::live::{LiveDir, WriterLock};

/// What a resumed recording starts from.
#[derive(Debug)]
pub(crate) struct Resumed {
    pub(crate) lock: WriterLock,
    pub(crate) header: Header,
    pub(crate) metadata: Metadata,
    pub(crate) index: Vec<IndexEntry>,
    pub(crate) next_segment: u32,
    pub(crate) table: EntityTable,
    /// The world after the last tick (what the next snapshots carry on from).
    pub(crate) world: crate::format::WorldState,
    /// The terrain in effect after the last tick (every section offered before the resume).
    pub(crate) terrain: std::sync::Arc<crate::format::Terrain>,
    pub(crate) last_tick: Option<u32>,
    pub(crate) last_snapshot: Option<u32>,
    pub(crate) chunks_since_snapshot: usize,
}

/// Recovers the live directory whose lock is held, and reads where it ends.
pub(crate) fn resume_locked(live: &LiveDir, lock: WriterLock) -> Result<Resumed> {
    let rec = recover_locked(live, &crate::format::Limits::default(), &mut |_, _| {})?;
    let reader = Reader::open_live_in(live.storage(), live.path(), ReaderOptions::default())?;
    let (table, last_tick) = match reader.index().len() {
        0 => (EntityTable::default(), None),
        n => {
            let last = reader.read_chunk(n - 1)?;
            let t = (last.end_tick() - 1) as u32;
            (last.state_at(t), Some(t))
        }
    };
    let (world, terrain) = match last_tick {
        Some(t) => {
            let at = reader.world_at(t)?;
            (at.world, reader.terrain_at(t)?)
        }
        None => Default::default(),
    };
    let snapshot_chunk = reader
        .index()
        .len()
        .checked_sub(1)
        .and_then(|n| snapshot_at_or_before(reader.index(), n));
    let last_snapshot = snapshot_chunk.map(|i| reader.index()[i].start_tick);
    // Chunks since (and including) the last snapshot chunk: the writer starts the next snapshot
    // within `MAX_CHUNKS_PER_SNAPSHOT` of it.
    let chunks_since_snapshot =
        snapshot_chunk.map_or(reader.index().len(), |i| reader.index().len() - i);
    Ok(Resumed {
        lock,
        header: rec.header,
        metadata: rec.metadata,
        index: rec.index,
        next_segment: rec.segments.last().map_or(0, |n| n + 1),
        table,
        world,
        terrain,
        last_tick,
        last_snapshot,
        chunks_since_snapshot,
    })
}

/// A recovery running on its own thread, and the messages of its recording held meanwhile
/// (their tick buffers stay counted in the engine's in-flight budget: a long recovery makes
/// `submit_tick` apply its backpressure policy, never grow memory).
pub(crate) struct PendingResume<M> {
    rx: Receiver<Result<Resumed>>,
    thread: Option<crate::threads::Handle>,
    held: Vec<M>,
}

impl<M> std::fmt::Debug for PendingResume<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingResume")
            .field("held", &self.held.len())
            .finish()
    }
}

impl<M> PendingResume<M> {
    /// Starts recovering `live`, whose lock the caller took.
    pub(crate) fn start(live: LiveDir, lock: WriterLock) -> Result<PendingResume<M>> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        let thread = crate::threads::spawn("tickreel-resume", move || {
            let r = crate::record::shared::panics::guarded(|| resume_locked(&live, lock))
                .unwrap_or_else(|m| Err(Error::InvalidState(m)));
            let _ = crate::threads::send(&tx, r);
        })?;
        Ok(PendingResume {
            rx,
            thread: Some(thread),
            held: Vec::new(),
        })
    }

    pub(crate) fn defer(&mut self, msg: M) {
        self.held.push(msg);
    }

    /// The recovery's outcome once it is done (`wait`: waits for it).
    pub(crate) fn poll(&mut self, wait: bool) -> Option<Result<Resumed>> {
        let r = if wait {
            crate::threads::recv_until(&self.rx, None)
                .map_err(|_| Error::InvalidState("the recovery thread stopped".into()))
        } else {
            match self.rx.try_recv() {
                Ok(r) => Ok(r),
                Err(TryRecvError::Empty) => return None,
                Err(TryRecvError::Disconnected) => {
                    Err(Error::InvalidState("the recovery thread stopped".into()))
                }
            }
        };
        if let Some(t) = self.thread.take() {
            t.join();
        }
        Some(r.and_then(|r| r))
    }

    pub(crate) fn into_held(self) -> Vec<M> {
        self.held
    }
}
