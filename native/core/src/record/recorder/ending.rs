//! Ending a recording: `finish` (compacted and published), `close` (left live, resumable),
//! `abort` (thrown away) and dropping the handle (as `close`, without waiting). An ending never
//! waits for room in the writer's queue and takes effect after every message queued before it.

use std::sync::atomic::Ordering;

use crossbeam_channel::TrySendError;

use super::Recorder;
use crate::error::{Error, Result};
use crate::record::shared::finish::Finishing;
use crate::record::shared::hot_slots::{ABORTED, CLOSED, FINISHING, Hot, OPEN, RETIRED, Sending};
use crate::record::writer::writer_thread::{Ending, Msg};

impl Recorder {
    /// Sends an ending message without waiting for queue room: onto the queue when it has room,
    /// else onto the writer's control channel, marked to take effect after every message this
    /// recording has queued so far.
    fn send_ending(&self, msg: Msg) -> Result<()> {
        let gone = Self::engine_gone;
        if self.engine.stopping.load(Ordering::Acquire) {
            return Err(gone());
        }
        // Counted as sending until it is counted on the queue (see `staging::Claim::commit`).
        let sending = Sending::raise(&self.hot);
        match self.tx.try_send(msg) {
            Ok(()) => {
                sending.queued();
                Ok(())
            }
            Err(TrySendError::Disconnected(_)) => Err(gone()),
            // The control channel is unbounded: never full.
            Err(TrySendError::Full(msg)) => crate::threads::send(
                &self.control,
                Ending {
                    id: self.shared.id,
                    after: self.shared.queued(),
                    msg,
                },
            )
            .map_err(|_| gone()),
        }
    }

    /// final `.reel` file. Returns its path later: poll the [`Pending`](crate::Pending) from the
    /// server thread (never blocks), or wait on it elsewhere. A stream without a file
    /// ([`crate::Engine::start_stream`]) has nothing to finish: end it with `close`.
    ///
    /// The final file is written under a temporary name, verified, and only then published at the
    /// recording's path. Unless the recording was started with `RecorderOptions::overwrite`, it
    /// never replaces a file there: if another writer of the same path (another process, or
    /// another `Engine`) finished first, or, for a recording that never flushed, if another writer
    /// is recording the path live (its live directory is locked; `overwrite` does not matter
    /// then), the result is `Error::Locked` naming the path and where the recording was kept: a
    /// recording that flushed stays in its live directory `<path>.live` (resume it, or compact it
    /// to another path), one that never flushed is published as `<stem>.conflict-<n>.<ext>` next
    /// to the path (the first free `n`, from 1).
    ///
    /// A recording whose live directory holds a segment of another recording (one a writer of the
    /// same path put there after the directory was removed and created again: FORMAT.md, sections
    /// 2 and 14) is not published: the result is `Error::InvalidState` naming the segment, and the
    /// recording stays in its live directory, the segment untouched. If the engine is shut down
    /// before the file is published, the result says so.
    pub fn finish(&self) -> Result<crate::Pending<std::path::PathBuf>> {
        if !self.shared.persist {
            return Err(Error::InvalidState(
                "a stream without a file has nothing to finish; end it with close".into(),
            ));
        }
        self.transition(FINISHING)?;
        let (handle, finished) = Finishing::new("recording's finish");
        if self
            .send_ending(Msg::Finish {
                id: self.shared.id,
                handle,
            })
            .is_err()
        {
            // Only a stopped engine refuses an ending: nothing can be recorded any more.
            self.hot.state.store(CLOSED, Ordering::Release);
            return Err(Self::engine_gone());
        }
        Ok(finished)
    }

    /// Stops recording without finishing: what was submitted is flushed and the lock released, so
    /// the recording can be resumed later (by `start_recording` on the same path). Returns once
    /// that is done; dropping a `Recorder` does the same without waiting.
    pub fn close(&self) -> Result<()> {
        self.transition(CLOSED)?;
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.send_ending(Msg::Close {
            id: self.shared.id,
            ack: Some(tx),
        })?;
        self.wait_ack(&rx)
    }

    /// Throws the recording away: queued ticks are discarded and its live directory is removed.
    pub fn abort(&self) -> Result<()> {
        self.transition(ABORTED)?;
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.send_ending(Msg::Abort {
            id: self.shared.id,
            ack: tx,
        })?;
        self.wait_ack(&rx)
    }

    /// Ends the recording's open state (`OPEN` to `to`), then waits until no call that found it
    /// open is still sending (a tick taking the queue, another thread's message, counted in
    /// `sending`) or staging (a tick between its claim of the ring and its publication), so that
    /// the ending message the caller sends next comes after all of them: a call that returned
    /// `Ok` has its tick or message before the ending. The wait lasts as long as those sends (a
    /// `Block` policy's deadline at most, when the queue is full): an ending must not be called
    /// from the writer's own callbacks (a snapshot provider) while the queue may be full.
    fn transition(&self, to: u8) -> Result<()> {
        self.hot
            .state
            .compare_exchange(OPEN, to, Ordering::SeqCst, Ordering::Acquire)
            .map_err(|state| match state {
                _ if self.engine.stopping.load(Ordering::Acquire) => Self::engine_gone(),
                RETIRED => self.not_open(),
                _ => Error::InvalidState("the recording was already finished or aborted".into()),
            })?;
        let mut nap = crate::threads::Nap::default();
        while Hot::sending(self.hot.sends.load(Ordering::SeqCst))
            || self.stage.busy.load(Ordering::SeqCst)
        {
            nap.nap();
        }
        Ok(())
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        // Dropped while open: flush what was written and release the lock; the recording stays
        // resumable (start_recording on the same path continues it).
        // A retired recording's writer keeps why it was retired until the recorder goes.
        if self.transition(CLOSED).is_ok() || self.hot.state.load(Ordering::Acquire) == RETIRED {
            let _ = self.send_ending(Msg::Close {
                id: self.shared.id,
                ack: None,
            });
        }
    }
}
