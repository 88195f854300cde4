//! A result another thread delivers once, the library's one "result later" type: polled without
//! ever blocking (from a game server's tick thread), waited for (with or without a timeout), or
//! awaited as a [`Future`]. The library's asynchronous calls hand one back: ghost loads
//! ([`crate::ghost::GhostTrack::load_async`]), and above the core the catalog's calls and object
//! uploads.

use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use crate::sync::{Condvar, Mutex};
use crate::{Error, Result};

/// Where the result waits: a one-shot slot on `std::sync` (a waiting caller's thread registers
/// no thread-local destructor, see [`crate::threads`]; a blocking channel receive would).
#[derive(Debug)]
struct Slot<T> {
    state: Mutex<State<T>>,
    cv: Condvar,
    /// The task awaiting the `Pending` as a future, woken after the state changes.
    waker: Mutex<Option<Waker>>,
}

impl<T> Slot<T> {
    /// Sets the final state and wakes whoever waits (a thread or a task).
    fn settle(&self, state: State<T>) {
        *self.state.lock() = state;
        self.cv.notify_all();
        // Taken after the state is set: a task that registered before its last look at the state
        // is woken.
        if let Some(w) = self.waker.lock().take() {
            w.wake();
        }
    }
}

#[derive(Debug)]
enum State<T> {
    Running,
    Done(Result<T>),
    /// The sender was dropped without a result.
    Lost,
}

/// The sending side of a [`Pending`]: the work delivers its result through it, once. Dropping
/// it without sending makes the result an error naming the work.
#[derive(Debug)]
pub struct Sender<T> {
    slot: Option<Arc<Slot<T>>>,
}

/// The [`Pending`] was dropped before the result arrived: nobody takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Abandoned;

impl<T> Sender<T> {
    /// Delivers the result (and wakes a waiter). `Err(Abandoned)` if the `Pending` is gone.
    pub fn send(mut self, result: Result<T>) -> std::result::Result<(), Abandoned> {
        let slot = self.slot.take().expect("a sender sends once");
        let abandoned = Arc::strong_count(&slot) == 1;
        slot.settle(State::Done(result));
        if abandoned { Err(Abandoned) } else { Ok(()) }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        if let Some(slot) = self.slot.take() {
            slot.settle(State::Lost);
        }
    }
}

/// The result of work running elsewhere. `poll`, `is_ready` and `try_take` never block; `wait`
/// and `wait_timeout` do; as a [`Future`] it resolves to the result (taking it). If the sending
/// side is dropped without a result (its thread ended), the result is an `InvalidState` error
/// naming the work.
pub struct Pending<T> {
    rx: Option<Arc<Slot<T>>>,
    result: Option<Result<T>>,
    /// What the work is, for the errors ("ghost load", "catalog call").
    what: &'static str,
    /// Dropped with the `Pending` (after its result): e.g. a loader's cancel-and-join guard.
    kept: Option<Box<dyn Send + Sync>>,
}

impl<T: std::fmt::Debug> std::fmt::Debug for Pending<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("what", &self.what)
            .field("result", &self.result)
            .field("running", &self.rx.is_some())
            .finish_non_exhaustive()
    }
}

impl<T> Pending<T> {
    /// A pending result and the sender its work delivers it through (at most once).
    pub fn channel(what: &'static str) -> (Sender<T>, Pending<T>) {
        let slot = Arc::new(Slot {
            state: Mutex::new(State::Running),
            cv: Condvar::new(),
            waker: Mutex::new(None),
        });
        let tx = Sender {
            slot: Some(slot.clone()),
        };
        let pending = Pending {
            rx: Some(slot),
            result: None,
            what,
            kept: None,
        };
        (tx, pending)
    }

    /// A result known at once (e.g. work that could not start).
    pub fn ready(result: Result<T>, what: &'static str) -> Pending<T> {
        Pending {
            rx: None,
            result: Some(result),
            what,
            kept: None,
        }
    }

    /// Keeps `owned` until this `Pending` is dropped: e.g. a guard whose `Drop` cancels the work
    /// and joins its thread, so that dropping the result cancels the work.
    pub fn keeping(mut self, owned: impl Send + Sync + 'static) -> Pending<T> {
        self.kept = Some(Box::new(owned));
        self
    }

    /// The result once the work has ended; `None` while it runs (or after the result was
    /// taken). Never blocks.
    pub fn poll(&mut self) -> Option<&Result<T>> {
        if self.result.is_none()
            && let Some(rx) = &self.rx
        {
            let mut state = rx.state.lock();
            match std::mem::replace(&mut *state, State::Running) {
                State::Running => return None,
                State::Done(r) => self.result = Some(r),
                State::Lost => self.result = Some(Err(self.lost())),
            }
            drop(state);
            self.rx = None;
        }
        self.result.as_ref()
    }

    /// Whether the result is waiting to be taken. Never blocks.
    pub fn is_ready(&mut self) -> bool {
        self.poll().is_some()
    }

    /// Takes the result if the work has ended. Never blocks; `None` while it runs (and after the
    /// result was taken).
    pub fn try_take(&mut self) -> Option<Result<T>> {
        self.poll();
        self.result.take()
    }

    /// Blocks until the work has ended and returns its result.
    pub fn wait(mut self) -> Result<T> {
        self.wait_in_place()
    }

    /// Blocks until the work has ended or `timeout` has passed: the result as
    /// [`Pending::poll`] gives it, `None` if the work still runs (or the result was taken).
    pub fn wait_timeout(&mut self, timeout: Duration) -> Option<&Result<T>> {
        let until = Instant::now().checked_add(timeout);
        if self.result.is_none()
            && let Some(rx) = &self.rx
        {
            let mut state = rx.state.lock();
            while matches!(*state, State::Running) {
                let left = until.map_or(Duration::MAX, |u| {
                    u.saturating_duration_since(Instant::now())
                });
                if left.is_zero() {
                    break;
                }
                rx.cv.wait_for(&mut state, left);
            }
        }
        self.poll()
    }

    /// [`Pending::wait`] for an owner that cannot give the `Pending` away (one with a `Drop`).
    pub(crate) fn wait_in_place(&mut self) -> Result<T> {
        if let Some(r) = self.result.take() {
            return r;
        }
        match self.rx.take() {
            Some(rx) => {
                let mut state = rx.state.lock();
                loop {
                    match std::mem::replace(&mut *state, State::Running) {
                        State::Running => rx.cv.wait(&mut state),
                        State::Done(r) => return r,
                        State::Lost => return Err(self.lost()),
                    }
                }
            }
            None => Err(Error::InvalidState(format!(
                "the {}'s result was already taken",
                self.what
            ))),
        }
    }

    fn lost(&self) -> Error {
        Error::InvalidState(format!("the {} ended without a result", self.what))
    }
}

/// Resolves to the result (taking it: a `Pending` polled again after that resolves to an
/// `InvalidState` error, as [`Pending::wait`] would).
impl<T: Unpin> Future for Pending<T> {
    type Output = Result<T>;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T>> {
        let this = self.get_mut();
        if let Some(rx) = &this.rx {
            // Registered before looking at the state: a result sent after the look wakes it.
            *rx.waker.lock() = Some(cx.waker().clone());
        }
        if let Some(r) = this.try_take() {
            return Poll::Ready(r);
        }
        if this.rx.is_none() {
            return Poll::Ready(this.wait_in_place());
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_is_polled_once_it_arrives_and_taken_once() {
        let (tx, mut p) = Pending::<u32>::channel("test job");
        assert!(p.poll().is_none());
        assert!(!p.is_ready());
        tx.send(Ok(7)).unwrap();
        assert!(matches!(p.poll(), Some(Ok(7))));
        assert_eq!(p.try_take().unwrap().unwrap(), 7);
        assert!(p.try_take().is_none());
        let e = p.wait_in_place().unwrap_err().to_string();
        assert!(e.contains("test job's result was already taken"), "{e}");
    }

    #[test]
    fn a_sender_dropped_without_a_result_is_an_error_naming_the_work() {
        let (tx, p) = Pending::<u32>::channel("test job");
        drop(tx);
        let e = p.wait().unwrap_err().to_string();
        assert!(e.contains("test job ended without a result"), "{e}");
        let (tx, mut p) = Pending::<u32>::channel("test job");
        drop(tx);
        assert!(matches!(p.poll(), Some(Err(Error::InvalidState(_)))));
    }

    #[test]
    fn wait_timeout_gives_up_while_the_work_runs_and_returns_a_result() {
        let (tx, mut p) = Pending::<u32>::channel("test job");
        let t0 = Instant::now();
        assert!(p.wait_timeout(Duration::from_millis(30)).is_none());
        assert!(t0.elapsed() >= Duration::from_millis(30));
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            tx.send(Ok(5)).unwrap();
        });
        assert!(matches!(
            p.wait_timeout(Duration::from_secs(60)),
            Some(Ok(5))
        ));
        t.join().unwrap();
        assert_eq!(p.try_take().unwrap().unwrap(), 5);
    }

    #[test]
    fn as_a_future_it_is_woken_by_the_result_and_resolves_to_it() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::task::Wake;
        struct Count(AtomicUsize);
        impl Wake for Count {
            fn wake(self: Arc<Self>) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        let (tx, mut p) = Pending::<u32>::channel("test job");
        assert!(std::pin::Pin::new(&mut p).poll(&mut cx).is_pending());
        assert_eq!(count.0.load(Ordering::SeqCst), 0);
        tx.send(Ok(9)).unwrap();
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        let Poll::Ready(r) = std::pin::Pin::new(&mut p).poll(&mut cx) else {
            panic!("ready after the send")
        };
        assert_eq!(r.unwrap(), 9);
        let Poll::Ready(again) = std::pin::Pin::new(&mut p).poll(&mut cx) else {
            panic!("a taken result resolves at once")
        };
        assert!(again.unwrap_err().to_string().contains("already taken"));
    }

    #[test]
    fn what_it_keeps_is_dropped_with_it() {
        struct Flag(Arc<std::sync::atomic::AtomicBool>);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
        let dropped = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (_tx, p) = Pending::<u32>::channel("test job");
        let p = p.keeping(Flag(dropped.clone()));
        assert!(!dropped.load(std::sync::atomic::Ordering::SeqCst));
        drop(p);
        assert!(dropped.load(std::sync::atomic::Ordering::SeqCst));
    }

    #[test]
    fn wait_blocks_until_the_work_delivers() {
        let (tx, p) = Pending::<u32>::channel("test job");
        let t = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            tx.send(Ok(3)).unwrap();
        });
        assert_eq!(p.wait().unwrap(), 3);
        t.join().unwrap();
        assert!(Pending::ready(Ok(1), "x").is_ready());
    }
}
