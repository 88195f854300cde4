//! What a `Recorder` handle shares with the writer thread ([`RecShared`]): its state, counters,
//! errors and gaps, its metadata budget, resuming, and its staging ring. Made by the engine when
//! a recording starts; below both the handle (`recorder`) and the writer's side of the recording
//! (`open_recording`).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use crate::error::Error;
use crate::format::metadata::{Gap, Metadata};
use crate::format::{Limits, MetadataBudget};
use crate::record::options::recorder_options::{Backpressure, RecorderOptions};
use crate::record::shared::hot_slots::{HotSlot, NONE};
use crate::record::shared::staging::Staging;
use crate::sync::Mutex;

/// Most gaps (runs of ticks dropped by backpressure) a recording keeps apart while it is written.
/// Past it, a drop widens the last gap to reach it: the gaps then also cover ticks that were
/// recorded (the metadata's `dropped_ticks`, their sum, becomes an upper bound), but never leave
/// a dropped tick out, and the metadata stays far within what a reader accepts.
pub(crate) const MAX_GAPS: usize = 4096;

/// State shared between a `Recorder` handle and the writer thread. What `submit_tick` reads and
/// writes sits apart, in the engine's packed slots ([`HotSlot`]); the handle keeps a view of it and
/// copies of the fields that never change.
#[derive(Debug)]
pub(crate) struct RecShared {
    /// State, last submitted tick and submitted count: see [`Hot`](crate::record::shared::hot_slots::Hot).
    pub hot: HotSlot,
    pub id: u64,
    pub max_batch: usize,
    pub backpressure: Backpressure,
    pub path: PathBuf,
    /// Written to a live directory and a compacted file (`false`: a stream only its observers see).
    pub persist: bool,
    /// Messages other than ticks (metadata, snapshots, flushes) accepted onto the queue.
    pub other_sent: AtomicU64,
    pub dropped: AtomicU64,
    pub rejected: AtomicU64,
    pub bytes_written: AtomicU64,
    pub flushes: AtomicU64,
    pub last_flush_us: AtomicU64,
    pub flushed_tick: AtomicU64,
    pub error: Mutex<Option<String>>,
    /// The I/O error behind `error`, when the last error was a flush's (its kind and path).
    pub io_error: Mutex<Option<Error>>,
    pub gaps: Mutex<Vec<Gap>>,
    /// What the metadata may still take (checked at the call, on the server thread).
    pub meta_budget: Mutex<MetadataBudget>,
    /// Resuming: [`RESUME_NONE`] (a fresh recording), pending, done or failed.
    pub resume: AtomicU8,
    /// The last tick of the recovered recording (`NONE` if it had none).
    pub resumed_tick: AtomicU64,
    /// The staging ring, made at the first tick too large for a queue slot (`None` inside: the
    /// budget had no room for one; see [`crate::record::shared::staging`]).
    pub staging: std::sync::OnceLock<Option<Arc<Staging>>>,
}

pub(crate) const RESUME_NONE: u8 = 0;
pub(crate) const RESUME_PENDING: u8 = 1;
pub(crate) const RESUME_DONE: u8 = 2;
pub(crate) const RESUME_FAILED: u8 = 3;

impl RecShared {
    pub(crate) fn new(
        hot: HotSlot,
        id: u64,
        path: PathBuf,
        persist: bool,
        opts: &RecorderOptions,
        last_tick: Option<u32>,
        metadata: Option<&Metadata>,
    ) -> RecShared {
        let limits = Limits::default();
        RecShared {
            id,
            path,
            persist,
            hot: {
                if let Some(t) = last_tick {
                    hot.last_submitted.store(u64::from(t), Ordering::Release);
                }
                hot
            },
            other_sent: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            bytes_written: AtomicU64::new(0),
            flushes: AtomicU64::new(0),
            last_flush_us: AtomicU64::new(0),
            flushed_tick: AtomicU64::new(last_tick.map_or(NONE, u64::from)),
            error: Mutex::new(None),
            io_error: Mutex::new(None),
            gaps: Mutex::new(Vec::new()),
            backpressure: opts.backpressure,
            max_batch: opts.max_batch_bytes,
            meta_budget: Mutex::new(match metadata {
                Some(m) => MetadataBudget::of(m, &limits),
                None => MetadataBudget::new(&limits),
            }),
            resume: AtomicU8::new(RESUME_NONE),
            resumed_tick: AtomicU64::new(NONE),
            staging: std::sync::OnceLock::new(),
        }
    }

    pub(crate) fn resume_pending(&self) {
        self.resume.store(RESUME_PENDING, Ordering::Release);
    }

    /// The live directory was recovered: it ends at `last_tick` with `metadata`. Ticks submitted
    /// from now on must come after it; the metadata budget is what the recovered metadata leaves
    /// (what was registered meanwhile is checked again as the writer applies it).
    pub(crate) fn resumed(&self, last_tick: Option<u32>, metadata: &Metadata) {
        if let Some(t) = last_tick {
            let t = u64::from(t);
            let _ =
                self.hot
                    .last_submitted
                    .fetch_update(Ordering::AcqRel, Ordering::Acquire, |cur| {
                        (cur == NONE || cur < t).then_some(t)
                    });
            self.flushed_tick.store(t, Ordering::Release);
            self.resumed_tick.store(t, Ordering::Release);
        }
        *self.meta_budget.lock() = MetadataBudget::of(metadata, &Limits::default());
        self.resume.store(RESUME_DONE, Ordering::Release);
    }

    pub(crate) fn resume_failed(&self, e: &Error) {
        self.set_error(format!("resuming the recording failed: {e}"));
        self.resume.store(RESUME_FAILED, Ordering::Release);
    }

    /// Messages of this recording accepted onto the writer's queue so far (an ending message that
    /// takes the control channel waits for this many; see `msg::Ending`).
    pub(crate) fn queued(&self) -> u64 {
        self.hot.submitted.load(Ordering::Relaxed) + self.other_sent.load(Ordering::Relaxed)
    }

    pub(crate) fn set_error(&self, msg: String) {
        *self.error.lock() = Some(msg);
        *self.io_error.lock() = None;
    }

    /// [`RecShared::set_error`] for an I/O failure, kept typed for [`Recorder::status`].
    pub(crate) fn set_io_error(&self, msg: String, e: &Error) {
        self.set_error(msg);
        if let Error::Io(_) = e {
            *self.io_error.lock() = Some(e.duplicate());
        }
    }

    pub(crate) fn record_drop(&self, tick: u32) {
        self.dropped.fetch_add(1, Ordering::Relaxed);
        let mut g = self.gaps.lock();
        let full = g.len() >= MAX_GAPS;
        match g.last_mut() {
            Some(gap) if gap.to.checked_add(1) == Some(tick) || full => gap.to = tick,
            _ => g.push(Gap {
                from: tick,
                to: tick,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::shared::hot_slots::{HotSlots, OPEN};

    /// Drops far apart make a gap each up to `MAX_GAPS`; past it they widen the last one, so no
    /// dropped tick is left out and the list stays bounded.
    #[test]
    fn gaps_are_bounded_and_never_leave_a_drop_out() {
        let slots = HotSlots::default();
        let sh = RecShared::new(
            slots.take(OPEN, NONE),
            1,
            PathBuf::from("g.reel"),
            false,
            &RecorderOptions::default(),
            None,
            None,
        );
        let drops = MAX_GAPS as u32 + 100;
        for i in 0..drops {
            sh.record_drop(2 * i);
        }
        sh.record_drop(2 * drops + 1);
        let g = sh.gaps.lock();
        assert_eq!(g.len(), MAX_GAPS);
        assert_eq!(
            g[MAX_GAPS - 2],
            Gap {
                from: 2 * (MAX_GAPS as u32 - 2),
                to: 2 * (MAX_GAPS as u32 - 2)
            }
        );
        assert_eq!(
            g[MAX_GAPS - 1],
            Gap {
                from: 2 * (MAX_GAPS as u32 - 1),
                to: 2 * drops + 1
            }
        );
        assert_eq!(sh.dropped.load(Ordering::Relaxed), u64::from(drops) + 1);
    }
}
