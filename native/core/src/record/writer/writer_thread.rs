//! The writer thread: takes messages off its queue (ticks, flushes, endings from the control
//! channel), keeps the recordings open on it ([`OpenRecording`]), checks time-based flushes, and
//! answers every message, also when handling it panicked (that recording is retired).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TryRecvError};

use crate::error::{Error, Result};
use crate::record::shared::engine_shared::EngineShared;
use crate::record::shared::finish::Finishing;
use crate::record::shared::hot_slots::{CLOSED, OPEN, RETIRED};
use crate::record::shared::msg;
use crate::record::shared::panics::guarded;
use crate::record::shared::tick_bytes::TickBytes;
use crate::record::worker::compaction_worker::CompactJob;
use crate::record::writer::open_recording::OpenRecording;
use crate::record::writer::returns::Returns;
use crate::record::writer::sync_round::SyncThread;

mod staged;

/// The messages of a writer's queue (an opening carries the recording itself).
pub(crate) type Msg = msg::Msg<OpenRecording>;
/// An ending message on a writer's control channel.
pub(crate) type Ending = msg::Ending<OpenRecording>;

/// Longest nap of an idle writer thread (its wake-up latency when work arrives after a pause).
const IDLE_NAP: Duration = Duration::from_millis(5);

/// How often the writer checks time-based flushes.
const CHECK_INTERVAL: Duration = Duration::from_millis(20);

/// Longest a due flush waits for the queue to run dry before its round starts anyway (a round
/// starts when the writer has nothing else to do, so that it holds every flush due by then).
const ROUND_WAIT: Duration = Duration::from_millis(100);

/// Least time between the starts of two rounds of flushes due by time or player leave, so that
/// recordings whose flushes fall due a few milliseconds apart share a round (a thousand
/// recordings started over a second would otherwise make a round, two syncs, every check). A
/// flush asked for (`Recorder::flush`) or due by size does not wait for it.
const ROUND_SPACING: Duration = Duration::from_millis(100);

/// Longest the writer spends preparing one round (appending frames, and for a recording's first
/// flush creating its directory, lock and segment): the flushes left over go in the next round,
/// and the writer takes the ticks queued meanwhile. A thousand first flushes at once (recordings
/// started together) took seconds on a loaded disk, long enough for the queue to fill.
const ROUND_PREPARE: Duration = Duration::from_millis(10);

/// One writer thread's recordings and what its loop carries between messages.
struct WriterThread {
    recs: HashMap<u64, OpenRecording>,
    engine: Arc<EngineShared>,
    compact_tx: Sender<CompactJob>,
    /// Ending messages from the control channel that wait for earlier queued messages.
    endings: Vec<Ending>,
    /// Recordings retired by a panic, with its message: their later calls get it as their error
    /// (until their ending message, which their `Recorder` sends when dropped at the latest).
    retired: HashMap<u64, String>,
    /// Budget bytes and buffers of written ticks, given back in batches (see `returns`).
    returns: Returns,
    /// Messages held while a recording resumed are being applied (already counted; their
    /// metadata is checked against the recovered recording's budget).
    replaying: bool,
    /// Commits rounds of flushes (group commit) while this thread goes on.
    sync: SyncThread,
    /// Since when some recording wants a flush that no round has taken yet (a hint: the round
    /// checks every recording).
    wanted: Option<Instant>,
    /// A recording holds its flush size: its round starts as soon as the sync thread is free
    /// (the size bounds what a recording holds in memory).
    urgent: bool,
    /// A `Recorder::flush` call waits for the next round.
    asked: bool,
    /// When the last round started.
    last_round: Instant,
    /// The last round left flushes that were due for the next one (see [`ROUND_PREPARE`]).
    backlog: bool,
    /// Recordings with a staging ring, taken from when the queue runs dry (see `staging`).
    staged: Vec<u64>,
}

/// The writer thread's loop.
pub(crate) fn writer_loop(
    rx: Receiver<Msg>,
    control: Receiver<Ending>,
    engine: Arc<EngineShared>,
    compact_tx: Sender<CompactJob>,
    sync: SyncThread,
) {
    let mut w = WriterThread {
        recs: HashMap::new(),
        returns: Returns::new(&engine),
        engine,
        compact_tx,
        endings: Vec::new(),
        retired: HashMap::new(),
        replaying: false,
        sync,
        wanted: None,
        urgent: false,
        asked: false,
        last_round: Instant::now(),
        backlog: false,
        staged: Vec::new(),
    };
    let mut next_check = Instant::now() + CHECK_INTERVAL;
    let mut idle = 0u32;
    // Time spent waiting for work, published with the periodic checks.
    let mut idle_ns = 0u64;
    loop {
        #[cfg(feature = "test-hooks")]
        w.engine.stall.wait();
        // Poll, and nap when idle: a blocked receiver would make every producer pay for a wake-up
        // syscall inside submit_tick (measured: ~2.5 us per submit to a one-player recording).
        // With no recording open nobody submits ticks: block until a message comes.
        let next = if w.recs.is_empty() && w.endings.is_empty() {
            w.returns.settle(&w.engine, true);
            let waited = Instant::now();
            // Blocks as an observer, never as a receiver: a caller's `try_send` then wakes this
            // thread without touching its own thread's state (see `crate::threads::recv_until`).
            let mut ready = crossbeam_channel::Select::new();
            ready.recv(&rx);
            ready.recv(&control);
            crate::threads::wait_ready(&mut ready, Some(waited + Duration::from_secs(1)));
            let next = match rx.try_recv() {
                Err(TryRecvError::Empty) => {
                    // An ending of a recording retired earlier, say: applied at the next check.
                    w.endings.extend(control.try_iter());
                    Err(TryRecvError::Empty)
                }
                other => other,
            };
            w.engine
                .counters
                .writer_idle_ns
                .fetch_add(waited.elapsed().as_nanos() as u64, Ordering::Relaxed);
            match next {
                Err(TryRecvError::Empty) => {
                    w.check(&control, Instant::now());
                    continue;
                }
                other => other,
            }
        } else {
            rx.try_recv()
        };
        match next {
            Ok(m) => {
                idle = 0;
                w.before_queued(&m);
                if !w.handle_guarded(m) {
                    w.shut_down(&rx, &control);
                    return;
                }
                w.start_urgent_round();
            }
            // The queue ran dry: the staged ticks (a server's ticks, mostly, at its pace).
            Err(TryRecvError::Empty) if w.take_all_staged() => {
                idle = 0;
                w.start_urgent_round();
            }
            Err(TryRecvError::Empty) => {
                // Held back while ticks keep coming (a server's pace leaves the writer idle for
                // tens of milliseconds between ticks); given back after ~120 ms without any.
                w.returns.settle(&w.engine, idle >= 256);
                // The queue ran dry: the flushes due by now go in one round.
                w.poll_round(false);
                if w.wanted.is_some() && w.round_allowed() {
                    w.start_round(false);
                }
                idle = idle.saturating_add(1);
                let nap = match idle {
                    0..=16 => Duration::from_micros(50),
                    17..=256 => Duration::from_micros(500),
                    _ => IDLE_NAP,
                };
                let now = Instant::now();
                let until_check = next_check.saturating_duration_since(now);
                std::thread::sleep(nap.min(until_check).max(Duration::from_micros(10)));
                idle_ns += now.elapsed().as_nanos() as u64;
            }
            Err(TryRecvError::Disconnected) => {
                w.shut_down(&rx, &control);
                return;
            }
        }
        let now = Instant::now();
        if now >= next_check {
            w.engine
                .counters
                .writer_idle_ns
                .fetch_add(std::mem::take(&mut idle_ns), Ordering::Relaxed);
            w.check(&control, now);
            let waited = w
                .wanted
                .is_some_and(|t| now.duration_since(t) >= ROUND_WAIT);
            if (rx.is_empty() || waited) && w.round_allowed() {
                w.start_round(false);
            }
            next_check = now + CHECK_INTERVAL;
        }
    }
}

impl WriterThread {
    /// A recording holds its flush size: its round starts as soon as the sync thread is free.
    fn start_urgent_round(&mut self) {
        if self.urgent {
            self.poll_round(false);
            if !self.sync.busy() {
                self.urgent = false;
                self.start_round(false);
            }
        }
    }

    /// One tick of recording `id`, queued or staged.
    fn tick(&mut self, id: u64, tick: u32, bytes: &[u8]) {
        if let Some(r) = self.rec_for(id) {
            r.on_tick(tick, bytes);
            // Past its flush size (and not waiting to retry a failed flush).
            if r.flush_requested() && r.wants_flush(Instant::now()) {
                self.want_round();
                self.urgent = true;
            }
        }
    }

    fn end(&self, rec: &OpenRecording) {
        // What its ring still holds was submitted after the recording ended: nobody takes it.
        if let Some(Some(ring)) = rec.shared.staging.get() {
            ring.end();
        }
        self.engine.open_paths.lock().remove(&rec.shared.path);
        self.engine.counters.active.fetch_sub(1, Ordering::Relaxed);
    }

    /// The periodic work: endings that have become due, and flushes by time, leave and retry.
    fn check(&mut self, control: &Receiver<Ending>, now: Instant) {
        self.look_at_staging();
        self.finish_resumes(false);
        self.take_endings(control, false);
        self.poll_round(false);
        let mut panicked = Vec::new();
        let mut due = false;
        for (id, r) in self.recs.iter_mut() {
            match guarded(|| r.flush_if_due(now)) {
                Ok(d) => due |= d,
                Err(m) => panicked.push((*id, m)),
            }
        }
        for (id, m) in panicked {
            self.retire(id, m);
        }
        if due {
            self.want_round();
        }
    }

    fn want_round(&mut self) {
        self.wanted.get_or_insert_with(Instant::now);
    }

    /// Whether a round may start now (see [`ROUND_SPACING`]).
    fn round_allowed(&self) -> bool {
        self.asked || self.urgent || self.backlog || self.last_round.elapsed() >= ROUND_SPACING
    }

    /// Starts a round of every flush due (`all`: of every recording, persisting its metadata, at
    /// shutdown), unless one is being committed.
    fn start_round(&mut self, all: bool) {
        if self.sync.busy() {
            return;
        }
        self.wanted = None;
        self.asked = false;
        self.backlog = false;
        let now = Instant::now();
        let mut ids: Vec<u64> = self
            .recs
            .iter()
            .filter(|(_, r)| {
                if all {
                    r.shared.persist && !r.flush_in_flight() && !r.is_resuming()
                } else {
                    r.wants_flush(now)
                }
            })
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        let mut jobs = Vec::with_capacity(ids.len());
        for id in ids {
            let Some(r) = self.recs.get_mut(&id) else {
                continue;
            };
            // A flush a caller waits for is never put off.
            if !all && !r.flush_asked() && now.elapsed() >= ROUND_PREPARE {
                self.backlog = true;
                continue;
            }
            match guarded(|| r.begin_flush(all)) {
                Ok(Some(job)) => jobs.push(job),
                Ok(None) => {}
                Err(m) => self.retire(id, m),
            }
        }
        if self.backlog {
            self.want_round();
        }
        if !jobs.is_empty() {
            self.last_round = Instant::now();
            self.sync.start(jobs);
        }
    }

    /// Ends the flushes of the round being committed once it is (`wait`: waits for it).
    fn poll_round(&mut self, wait: bool) {
        let Some(outcome) = self.sync.poll(wait) else {
            return;
        };
        for (id, r) in outcome {
            // A recording retired meanwhile is gone: its outcome has nobody to tell.
            if let Some(rec) = self.recs.get_mut(&id)
                && let Err(m) = guarded(|| {
                    let _ = rec.end_flush(r);
                })
            {
                self.retire(id, m);
            }
        }
        // Flushes asked for while the round was committed go in the next one, at once if a
        // caller waits for one.
        self.want_round();
        self.asked |= self.recs.values().any(|r| r.flush_asked());
    }

    /// Before ending recording `id`: waits for the round holding its flush, if one does.
    fn settle(&mut self, id: u64) {
        if self.sync.holds(id) {
            self.poll_round(true);
        }
    }

    /// Retires a recording after a panic in its work: what it flushed stays on disk (resumable),
    /// its calls get the panic as their error.
    fn retire(&mut self, id: u64, msg: String) {
        if let Some(r) = self.recs.remove(&id) {
            r.shared.set_error(msg.clone());
            r.shared.hot.state.store(RETIRED, Ordering::Release);
            self.end(&r);
            self.retired.insert(id, msg);
        }
    }

    /// The recording a queued message is for, counting the message (see [`Ending`]).
    fn rec_for(&mut self, id: u64) -> Option<&mut OpenRecording> {
        let r = self.recs.get_mut(&id)?;
        if !self.replaying {
            r.received += 1;
        }
        Some(r)
    }

    /// Takes what waits on the control channel and applies every ending whose recording's earlier
    /// messages have all been taken off the queue (`all`: every ending, at shutdown, when the
    /// queue has been emptied). An ending of a retired recording is due at once.
    fn take_endings(&mut self, control: &Receiver<Ending>, all: bool) {
        self.endings.extend(control.try_iter());
        let mut i = 0;
        while i < self.endings.len() {
            let e = &self.endings[i];
            let due = all
                || self.retired.contains_key(&e.id)
                || self.recs.get(&e.id).is_some_and(|r| r.received >= e.after);
            if due {
                let e = self.endings.swap_remove(i);
                self.handle_guarded(e.msg);
            } else {
                i += 1;
            }
        }
    }

    /// Every message before the shutdown has been handled: apply the waiting endings, close what
    /// is still open (flushed, resumable), then answer whatever was sent after the shutdown (an
    /// error) and release what it held, so that no caller waits for an answer that never comes.
    fn shut_down(&mut self, rx: &Receiver<Msg>, control: &Receiver<Ending>) {
        // A tick submitted from now on is refused, not staged for a writer that is about to go (a
        // recording being finished, closed or aborted is refused already); what was staged before
        // is taken now.
        for r in self.recs.values() {
            let _ = r.shared.hot.state.compare_exchange(
                OPEN,
                CLOSED,
                Ordering::AcqRel,
                Ordering::Acquire,
            );
        }
        self.look_at_staging();
        self.take_endings(control, true);
        // A recording still being recovered: wait for it, then apply what it holds.
        self.finish_resumes(true);
        // Once more: a tick whose thread found its recording open just before the state changed
        // has published it by now (unless that thread was held off the CPU for all of the above).
        self.look_at_staging();
        // One last round for every recording, so that closing each has nothing left to sync.
        self.poll_round(true);
        self.start_round(true);
        self.poll_round(true);
        for (_, r) in std::mem::take(&mut self.recs) {
            self.end(&r);
            let shared = r.shared.clone();
            if let Err(m) = guarded(|| r.close()) {
                shared.set_error(m);
            }
        }
        let late = rx
            .try_iter()
            .chain(control.try_iter().map(|e| e.msg))
            .chain(std::mem::take(&mut self.endings).into_iter().map(|e| e.msg));
        for msg in late {
            self.returns.bytes(&self.engine, msg.budget_bytes());
            Reply::of(&msg).fail("the engine has shut down");
            match msg {
                Msg::Open { rec, .. } => self.end(&rec),
                Msg::Tick {
                    bytes: TickBytes::Pooled(buf),
                    ..
                } => self.engine.pool.give(buf),
                _ => {}
            }
        }
        self.returns.settle(&self.engine, true);
    }

    /// [`Self::handle`], surviving a panic (a bug) in one recording's work: that recording is
    /// retired with the panic as its error (what it flushed stays on disk, resumable), a caller
    /// waiting on the message gets the error, and the thread goes on serving the other recordings.
    fn handle_guarded(&mut self, msg: Msg) -> bool {
        let id = msg.recording();
        let reply = Reply::of(&msg);
        let budget = msg.budget_bytes();
        match guarded(|| self.handle(msg)) {
            Ok(go_on) => go_on,
            Err(msg) => {
                if let Some(id) = id {
                    self.retire(id, msg.clone());
                }
                reply.fail(&msg);
                // The message's buffer was lost in the unwinding (every arm releases its bytes
                // last, after any work that could panic); its bytes leave the budget anyway.
                self.returns.bytes(&self.engine, budget);
                true
            }
        }
    }

    /// The error of a call on a recording this thread no longer has.
    fn gone(&mut self, id: u64, ending: bool) -> Error {
        let why = if ending {
            self.retired.remove(&id)
        } else {
            self.retired.get(&id).cloned()
        };
        Error::InvalidState(why.unwrap_or_else(|| "the recording is no longer open".into()))
    }

    /// Applies the recoveries that are done (`wait`: waits for each): the recording continues
    /// from its live directory and the messages it held are handled in order; one whose recovery
    /// failed is retired with the error, and its held messages answered with it.
    fn finish_resumes(&mut self, wait: bool) {
        let ids: Vec<u64> = self
            .recs
            .iter()
            .filter(|(_, r)| r.is_resuming())
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            let Some(r) = self.recs.get_mut(&id) else {
                continue;
            };
            let Some((outcome, held)) = r.poll_resume(wait) else {
                continue;
            };
            if let Err(e) = outcome {
                self.retire(id, format!("resuming the recording failed: {e}"));
            }
            self.replaying = true;
            for msg in held {
                if !self.handle_guarded(msg) {
                    break;
                }
            }
            self.replaying = false;
        }
    }

    /// Handles one message; `false` for `Shutdown`.
    fn handle(&mut self, msg: Msg) -> bool {
        if let Some(id) = msg.recording()
            && !matches!(msg, Msg::Open { .. })
            && let Some(r) = self.recs.get_mut(&id)
            && r.is_resuming()
        {
            // Held in order until the recovery is done (counted now, as `rec_for` would).
            if !matches!(
                msg,
                Msg::Finish { .. } | Msg::Abort { .. } | Msg::Close { .. }
            ) {
                r.received += 1;
            }
            r.defer(msg);
            return true;
        }
        if let Msg::Finish { id, .. } | Msg::Abort { id, .. } | Msg::Close { id, .. } = &msg {
            self.settle(*id);
        }
        match msg {
            Msg::Open { id, rec } => {
                self.recs.insert(id, *rec);
            }
            Msg::Tick { id, tick, bytes } => {
                self.tick(id, tick, bytes.as_slice());
                if let TickBytes::Pooled(buf) = bytes {
                    self.returns.buffer(&self.engine, buf);
                }
            }
            Msg::PlayerLeft { id, entity } => {
                if let Some(r) = self.rec_for(id) {
                    r.player_left_call(entity);
                }
            }
            Msg::Snapshot { id, bytes } => {
                let cap = bytes.capacity();
                if let Some(r) = self.rec_for(id) {
                    r.offer_snapshot(bytes);
                }
                self.returns.bytes(&self.engine, cap);
            }
            Msg::Terrain {
                id,
                terrain,
                budget,
            } => {
                if let Some(r) = self.rec_for(id) {
                    r.offer_terrain(*terrain);
                }
                self.returns.bytes(&self.engine, budget);
            }
            Msg::Entity { id, info } => {
                let replaying = self.replaying;
                if let Some(r) = self.rec_for(id)
                    && (!replaying || r.fits_budget(|b| b.entity(&info)))
                {
                    r.register_entity(*info);
                }
            }
            Msg::EventType { id, t } => {
                let replaying = self.replaying;
                if let Some(r) = self.rec_for(id)
                    && (!replaying || r.fits_budget(|b| b.event_type(&t)))
                {
                    r.register_event_type(*t);
                }
            }
            Msg::Name { id, name } => {
                let replaying = self.replaying;
                let (kind, pid, name) = *name;
                if let Some(r) = self.rec_for(id)
                    && (!replaying || r.fits_budget(|b| b.name(kind, pid, &name).map(|_| ())))
                {
                    r.register_name(kind, pid, &name);
                }
            }
            Msg::UserMeta { id, meta } => {
                let replaying = self.replaying;
                if let Some(r) = self.rec_for(id)
                    && (!replaying || r.fits_budget(|b| b.user(&meta.0, &meta.1)))
                {
                    let (key, value) = *meta;
                    r.set_user_metadata(key, value);
                }
            }
            Msg::FlushInterval { id, at_most } => {
                if let Some(r) = self.rec_for(id) {
                    r.opts.flush.interval = r.opts.flush.interval.min(at_most);
                }
            }
            Msg::Flush { id, ack } => match self.rec_for(id) {
                Some(r) => {
                    r.request_flush(ack);
                    self.want_round();
                    self.asked = true;
                }
                None => {
                    let _ = crate::threads::send(&ack, Err(self.gone(id, false)));
                }
            },
            Msg::Finish { id, handle } => match self.recs.remove(&id) {
                Some(r) => {
                    self.end(&r);
                    r.finish(handle, &self.compact_tx);
                }
                None => handle.complete(Err(self.gone(id, true))),
            },
            Msg::Abort { id, ack } => {
                let res = match self.recs.remove(&id) {
                    Some(r) => {
                        self.end(&r);
                        r.abort()
                    }
                    None => match self.retired.contains_key(&id) {
                        true => Err(self.gone(id, true)),
                        false => Ok(()),
                    },
                };
                let _ = crate::threads::send(&ack, res);
            }
            Msg::Close { id, ack } => {
                let res = match self.recs.remove(&id) {
                    Some(r) => {
                        let path = r.shared.path.clone();
                        let shared = r.shared.clone();
                        // The lock is released (the OpenRecording is gone) before the path is free,
                        // also when closing panics.
                        let res = guarded(|| r.close()).unwrap_or_else(|m| {
                            shared.set_error(m.clone());
                            Err(Error::InvalidState(m))
                        });
                        self.engine.open_paths.lock().remove(&path);
                        self.engine.counters.active.fetch_sub(1, Ordering::Relaxed);
                        if let Some(Some(ring)) = shared.staging.get() {
                            ring.end();
                        }
                        res
                    }
                    None => match self.retired.contains_key(&id) {
                        true => Err(self.gone(id, true)),
                        false => Ok(()),
                    },
                };
                if let Some(ack) = ack {
                    let _ = crate::threads::send(&ack, res);
                }
            }
            Msg::Shutdown => return false,
        }
        true
    }
}

/// Where the answer to a message goes, kept aside so that a panic while handling it still answers.
enum Reply {
    None,
    Ack(Sender<Result<()>>),
    Finish(Finishing),
}

impl Reply {
    fn of(msg: &Msg) -> Reply {
        match msg {
            Msg::Flush { ack, .. } | Msg::Abort { ack, .. } => Reply::Ack(ack.clone()),
            Msg::Close { ack: Some(ack), .. } => Reply::Ack(ack.clone()),
            Msg::Finish { handle, .. } => Reply::Finish(handle.clone()),
            _ => Reply::None,
        }
    }

    fn fail(self, msg: &str) {
        match self {
            Reply::None => {}
            Reply::Ack(ack) => {
                let _ = crate::threads::send(&ack, Err(Error::InvalidState(msg.into())));
            }
            Reply::Finish(handle) => {
                if !handle.is_answered() {
                    handle.complete(Err(Error::InvalidState(msg.into())));
                }
            }
        }
    }
}
