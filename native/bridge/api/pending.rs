//! Results that come later (C: `TickreelPending`, Java: `Pending<T>`): the one handle type of
//! every call whose work runs on a background thread (a recording's finish, a shadow-play report,
//! a finish followed by its upload, a ghost load, every catalog call). One handle, one way to
//! poll without blocking, to wait with a time limit and to free; the result is taken by its kind
//! (a path, an upload, rows, a ghost, a ghost set), and a take of another kind says which kind
//! the handle holds.
//!
//! Work done in steps (a catalog lookup, then the ghost loads it started) is advanced by the
//! polls and waits themselves: no thread waits for it, and freeing the handle drops what is
//! still running (a ghost load is cancelled, a finish or an upload goes on).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tickreel_sync::sync::Mutex;

use crate::api::{New, Released};
use crate::shared::handle::HandleType;
use tickreel::SharedPending;
use tickreel::ghost::GhostTrack;
use tickreel_bridge_macros::bridge_fn;

/// What a pending's work gives: the take that reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The file a recording's finish or a report wrote.
    Path,
    /// A finish or report followed by its upload: the object's URL and size.
    #[cfg_attr(not(feature = "object"), allow(dead_code))]
    Upload,
    /// A catalog call's rows.
    #[cfg_attr(not(feature = "catalog"), allow(dead_code))]
    Rows,
    /// A loaded ghost.
    Ghost,
    /// The ghosts of several places of a course (a ghost set).
    #[cfg_attr(not(feature = "catalog"), allow(dead_code))]
    GhostSet,
}

impl Kind {
    /// How a message names the kind.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Path => "a path",
            Kind::Upload => "an upload",
            Kind::Rows => "rows",
            Kind::Ghost => "a ghost",
            Kind::GhostSet => "a ghost set",
        }
    }
}

/// A pending's result, once in: copied out by every take.
#[derive(Clone)]
pub(crate) enum Outcome {
    Path(PathBuf),
    #[cfg(feature = "object")]
    Upload(tickreel_object::Uploaded),
    #[cfg_attr(not(feature = "catalog"), allow(dead_code))]
    Rows(Vec<u8>),
    Ghost(Arc<GhostTrack>),
    #[cfg_attr(not(feature = "catalog"), allow(dead_code))]
    Ghosts(Vec<Arc<GhostTrack>>),
}

/// Where the work stands.
enum Stage {
    /// A finish or report: shared with the catalog calls that register its file.
    Path(SharedPending<PathBuf>),
    /// An upload: shared with the catalog calls that register the object, which read it back
    /// with the store's options.
    #[cfg(feature = "object")]
    Upload(
        SharedPending<tickreel_object::Uploaded>,
        #[cfg_attr(not(feature = "catalog"), allow(dead_code))] tickreel_object::ObjectOptions,
    ),
    #[cfg(feature = "catalog")]
    Rows(tickreel::Pending<Vec<u8>>),
    Ghost(tickreel::Pending<GhostTrack>),
    /// A catalog lookup, then the ghost load it started.
    #[cfg(feature = "catalog")]
    GhostLookup(tickreel::Pending<tickreel::Pending<GhostTrack>>),
    /// A catalog lookup, then the ghost loads it started, in order.
    #[cfg(feature = "catalog")]
    GhostsLookup(tickreel::Pending<Vec<tickreel::Pending<GhostTrack>>>),
    /// Loads still running (first to last) and the ghosts loaded before them.
    #[cfg(feature = "catalog")]
    Ghosts(Vec<tickreel::Pending<GhostTrack>>, Vec<Arc<GhostTrack>>),
    Done(tickreel::Result<Outcome>),
}

/// Waits, outside the pending's lock, until the current step's work ends or the time given has
/// passed (`None`: no limit).
type Signal = Box<dyn FnOnce(Option<Duration>) + Send>;

impl Stage {
    /// Moves on as far as the work allows, without blocking: a copy of the result once it is in.
    fn poll(&mut self) -> Option<tickreel::Result<Outcome>> {
        loop {
            let next = match self {
                Stage::Path(p) => return p.poll().map(|r| r.map(Outcome::Path)),
                #[cfg(feature = "object")]
                Stage::Upload(p, _) => return p.poll().map(|r| r.map(Outcome::Upload)),
                #[cfg(feature = "catalog")]
                Stage::Rows(p) => Stage::Done(p.try_take()?.map(Outcome::Rows)),
                Stage::Ghost(p) => Stage::Done(p.try_take()?.map(|g| Outcome::Ghost(Arc::new(g)))),
                #[cfg(feature = "catalog")]
                Stage::GhostLookup(p) => match p.try_take()? {
                    Ok(load) => Stage::Ghost(load),
                    Err(e) => Stage::Done(Err(e)),
                },
                #[cfg(feature = "catalog")]
                Stage::GhostsLookup(p) => match p.try_take()? {
                    Ok(mut loads) => {
                        loads.reverse();
                        Stage::Ghosts(loads, Vec::new())
                    }
                    Err(e) => Stage::Done(Err(e)),
                },
                #[cfg(feature = "catalog")]
                Stage::Ghosts(loading, loaded) => match loading.last_mut() {
                    None => Stage::Done(Ok(Outcome::Ghosts(std::mem::take(loaded)))),
                    Some(first) => match first.try_take()? {
                        Ok(g) => {
                            loading.pop();
                            loaded.push(Arc::new(g));
                            continue;
                        }
                        Err(e) => Stage::Done(Err(e)),
                    },
                },
                Stage::Done(r) => {
                    return Some(match r {
                        Ok(o) => Ok(o.clone()),
                        Err(e) => Err(e.duplicate()),
                    });
                }
            };
            *self = next;
        }
    }

    /// What to wait on for the current step (`None` once the result is in).
    fn signal(&self) -> Option<Signal> {
        fn ready<T: Send + 'static>(p: &tickreel::Pending<T>) -> Option<Signal> {
            let s = p.ready_signal()?;
            Some(Box::new(move |t| {
                s.wait(t);
            }))
        }
        fn shared<T: Clone + Send + 'static>(p: &SharedPending<T>) -> Option<Signal> {
            let p = p.clone();
            Some(Box::new(move |t| {
                p.wait(t);
            }))
        }
        match self {
            Stage::Path(p) => shared(p),
            #[cfg(feature = "object")]
            Stage::Upload(p, _) => shared(p),
            #[cfg(feature = "catalog")]
            Stage::Rows(p) => ready(p),
            Stage::Ghost(p) => ready(p),
            #[cfg(feature = "catalog")]
            Stage::GhostLookup(p) => ready(p),
            #[cfg(feature = "catalog")]
            Stage::GhostsLookup(p) => ready(p),
            #[cfg(feature = "catalog")]
            Stage::Ghosts(loading, _) => loading.last().and_then(ready),
            Stage::Done(_) => None,
        }
    }
}

/// Work running on a background thread and its result, later (C: `TickreelPending`, Java:
/// `Pending<T>`). Calls on it are serialised by its lock, which is never held while waiting: a
/// poll never blocks behind a wait in another thread.
pub struct Pending {
    kind: Kind,
    stage: Mutex<Stage>,
}

impl HandleType for Pending {
    const TAG: u8 = 6;
    const NAME: &'static str = "pending";
}

impl Pending {
    fn new(kind: Kind, stage: Stage) -> New<Pending> {
        New(Pending {
            kind,
            stage: Mutex::new(stage),
        })
    }

    /// A recording's finish or a report: the file it wrote.
    pub(crate) fn path(work: tickreel::Pending<PathBuf>) -> New<Pending> {
        Pending::new(Kind::Path, Stage::Path(work.into()))
    }

    /// A finish or report followed by its upload with `options`.
    #[cfg(feature = "object")]
    pub(crate) fn upload(
        work: tickreel::Pending<tickreel_object::Uploaded>,
        options: tickreel_object::ObjectOptions,
    ) -> New<Pending> {
        Pending::new(Kind::Upload, Stage::Upload(work.into(), options))
    }

    /// A catalog call's rows.
    #[cfg(feature = "catalog")]
    pub(crate) fn rows(work: tickreel::Pending<Vec<u8>>) -> New<Pending> {
        Pending::new(Kind::Rows, Stage::Rows(work))
    }

    /// A ghost load (freeing the handle first cancels it).
    pub(crate) fn ghost(work: tickreel::Pending<GhostTrack>) -> New<Pending> {
        Pending::new(Kind::Ghost, Stage::Ghost(work))
    }

    /// A catalog lookup that starts a ghost load.
    #[cfg(feature = "catalog")]
    pub(crate) fn ghost_lookup(
        work: tickreel::Pending<tickreel::Pending<GhostTrack>>,
    ) -> New<Pending> {
        Pending::new(Kind::Ghost, Stage::GhostLookup(work))
    }

    /// A catalog lookup that starts several ghost loads, for a ghost set.
    #[cfg(feature = "catalog")]
    pub(crate) fn ghosts_lookup(
        work: tickreel::Pending<Vec<tickreel::Pending<GhostTrack>>>,
    ) -> New<Pending> {
        Pending::new(Kind::GhostSet, Stage::GhostsLookup(work))
    }

    /// The finish or report's result, shared, for a catalog call that registers its file once
    /// written; `what` names the parameter.
    #[cfg(feature = "catalog")]
    pub(crate) fn shared_path(&self, what: &str) -> tickreel::Result<SharedPending<PathBuf>> {
        match &*self.stage.lock() {
            Stage::Path(p) => Ok(p.clone()),
            _ => Err(self.not(Kind::Path, what, tickreel::Error::invalid)),
        }
    }

    /// The upload's result, shared, and the store's options, for a catalog call that registers
    /// the object once uploaded; `what` names the parameter.
    #[cfg(all(feature = "catalog", feature = "object"))]
    pub(crate) fn shared_upload(
        &self,
        what: &str,
    ) -> tickreel::Result<(
        SharedPending<tickreel_object::Uploaded>,
        tickreel_object::ObjectOptions,
    )> {
        match &*self.stage.lock() {
            Stage::Upload(p, options) => Ok((p.clone(), options.clone())),
            _ => Err(self.not(Kind::Upload, what, tickreel::Error::invalid)),
        }
    }

    /// The error for a pending of another kind than `asked`.
    fn not(
        &self,
        asked: Kind,
        what: &str,
        error: impl FnOnce(String) -> tickreel::Error,
    ) -> tickreel::Error {
        error(format!(
            "{what} holds {}, not {}",
            self.kind.name(),
            asked.name()
        ))
    }

    /// A copy of the result of kind `asked`: `NOT_READY` while the work runs, its failure if it
    /// failed, `INVALID_STATE` naming both kinds for another kind.
    pub(crate) fn take(&self, asked: Kind) -> tickreel::Result<Outcome> {
        if self.kind != asked {
            return Err(self.not(asked, "this pending", tickreel::Error::InvalidState));
        }
        match self.stage.lock().poll() {
            None => Err(tickreel::Error::NotReady(format!(
                "the pending's work ({}) is still running",
                self.kind.name()
            ))),
            Some(r) => r,
        }
    }

    /// Waits until the work has ended or `timeout` has passed (`None`: no limit): its result,
    /// `None` on timeout.
    pub(crate) fn wait(&self, timeout: Option<Duration>) -> Option<tickreel::Result<Outcome>> {
        let until = timeout.and_then(|t| Instant::now().checked_add(t));
        loop {
            let signal = {
                let mut stage = self.stage.lock();
                if let Some(r) = stage.poll() {
                    return Some(r);
                }
                stage.signal()
            };
            // A limit too far to represent is no limit.
            let left = until.map(|u| u.saturating_duration_since(Instant::now()));
            if left.is_some_and(|l| l.is_zero()) {
                return None;
            }
            match signal {
                Some(wait) => wait(left),
                // The step ended between the poll and the signal: poll again.
                None => std::thread::yield_now(),
            }
        }
    }
}

/// Whether a pending's work has ended. C: `*out_ready`, with the work's failure as the call's
/// result once it ended; Java: a `boolean` (the take throws the failure).
pub struct Ended(pub Option<tickreel::Result<()>>);

impl Ended {
    fn of(result: Option<tickreel::Result<Outcome>>) -> Ended {
        Ended(result.map(|r| r.map(|_| ())))
    }
}

/// Stores in `*out_ready` whether the work has ended. Never blocks: for the server thread, every
/// tick if need be.
///
/// Returns `TICKREEL_RESULT_OK` while the work runs (`*out_ready` false) and once it succeeded
/// (`*out_ready` true); if it failed, `*out_ready` is true and the call returns the failure's code
/// (e.g. `TICKREEL_RESULT_IO`) with its message, every time it is asked.
///
/// Thread safety: any thread, concurrently with any other call on the handle (a poll never waits
/// for a `tickreel_pending_wait` in another thread).
///
/// (Java: whether the work has ended; the take throws its failure.)
#[bridge_fn(
    c = "tickreel_pending_poll",
    c_out = "out_ready",
    c_out_type = "bool",
    java = "pendingPoll"
)]
pub fn poll(pending: &Pending) -> Ended {
    Ended::of(pending.stage.lock().poll())
}

/// Waits until the work has ended or `timeout_ms` milliseconds have passed (negative: no limit),
/// then stores in `*out_ready` whether it ended, as `tickreel_pending_poll` does (the failure of
/// work that failed is the call's result). `out_ready` may be NULL: without a limit, the call's
/// result alone says how the work went. Blocks: not for the server thread.
///
/// Thread safety: any thread, concurrently with any other call on the handle; several threads
/// may wait.
#[bridge_fn(
    c = "tickreel_pending_wait",
    c_out = "out_ready",
    c_out_type = "bool",
    c_out_optional,
    java = "pendingWait"
)]
pub fn wait(pending: &Pending, timeout_ms: i64) -> Ended {
    let timeout = u64::try_from(timeout_ms).ok().map(Duration::from_millis);
    Ended::of(pending.wait(timeout))
}

/// Copies the path of the file a finish or report wrote into `path_buf` as a NUL-terminated
/// string (in the platform's encoding), storing its length in bytes, without the NUL, in
/// `*out_len`. With `capacity` 0 nothing is copied (`path_buf` may then be NULL): a length query.
/// `out_len` may be NULL. Never blocks; may be asked again.
///
/// Returns `TICKREEL_RESULT_NOT_READY` while the work runs, its failure's code if it failed,
/// `TICKREEL_RESULT_INVALID_STATE` (naming the kind it holds) for a pending of another kind,
/// `TICKREEL_RESULT_BUFFER_TOO_SMALL` if `capacity` is less than `*out_len + 1` (nothing is
/// copied).
///
/// Thread safety: any thread, concurrently with any other call on the handle.
#[bridge_fn(
    c = "tickreel_pending_take_path",
    c_out_string = "path_buf",
    java = "pendingTakePath"
)]
pub fn take_path(pending: &Pending) -> tickreel::Result<PathBuf> {
    match pending.take(Kind::Path)? {
        Outcome::Path(p) => Ok(p),
        _ => unreachable!("a pending's result is of its kind"),
    }
}

/// Frees a pending's handle. Work still running is not waited for: a ghost load is cancelled (its
/// thread ends on its own), a finish, report, upload or catalog call goes on and its result is
/// dropped. `tickreel_pending_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed or
/// invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread. A call on the same handle still running in another thread (a wait)
/// finishes normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[bridge_fn(c = "tickreel_pending_free")]
pub fn free(_pending: Released<Pending>) {}
