//! A result another thread delivers once, the library's one "result later" type: polled without
//! ever blocking (from a game server's tick thread), waited for (with or without a timeout), or
//! awaited as a [`Future`]. The library's asynchronous calls hand one back (the core names it
//! `tickreel::Pending<T>`, with its `Error`): a recording's finish, a shadow-play report, ghost
//! loads, the catalog's calls and object uploads.
//!
//! The error type is the library's: this crate sits below it, so the error only has to say how
//! it describes a result that will never come ([`PendingError`]).

use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use crate::sync::{Condvar, Mutex};

/// How the library's error describes a result that never comes.
pub trait PendingError: Sized {
    /// The work ended without a result (its sender was dropped: its thread ended, or the engine
    /// that ran it was shut down). `lost` is the owner's own wording of that, when it gave one
    /// ([`Pending::when_lost`]).
    fn lost(what: &'static str, lost: Option<&'static str>) -> Self;
    /// The result was already taken (a second `wait`, or a future polled after it resolved).
    fn taken(what: &'static str) -> Self;
    /// A copy of the error, for a [`SharedPending`] that hands its result to every holder.
    fn duplicate(&self) -> Self;
}

/// Where the result waits: a one-shot slot on `std::sync` (a waiting caller's thread registers
/// no thread-local destructor, see [`crate::threads`]; a blocking channel receive would).
#[derive(Debug)]
struct Slot<T, E> {
    state: Mutex<State<T, E>>,
    cv: Condvar,
    /// The task awaiting the `Pending` as a future, woken after the state changes.
    waker: Mutex<Option<Waker>>,
}

impl<T, E> Slot<T, E> {
    /// Sets the final state and wakes whoever waits (a thread or a task).
    fn settle(&self, state: State<T, E>) {
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
enum State<T, E> {
    Running,
    Done(Result<T, E>),
    /// The sender was dropped without a result.
    Lost,
}

/// The sending side of a [`Pending`]: the work delivers its result through it, once. Dropping
/// it without sending makes the result an error naming the work.
#[derive(Debug)]
pub struct Sender<T, E> {
    slot: Option<Arc<Slot<T, E>>>,
}

/// The [`Pending`] was dropped before the result arrived: nobody takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Abandoned;

impl<T, E> Sender<T, E> {
    /// Delivers the result (and wakes a waiter). `Err(Abandoned)` if the `Pending` is gone.
    pub fn send(mut self, result: Result<T, E>) -> Result<(), Abandoned> {
        let slot = self.slot.take().expect("a sender sends once");
        let abandoned = Arc::strong_count(&slot) == 1;
        slot.settle(State::Done(result));
        if abandoned { Err(Abandoned) } else { Ok(()) }
    }
}

impl<T, E> Drop for Sender<T, E> {
    fn drop(&mut self) {
        if let Some(slot) = self.slot.take() {
            slot.settle(State::Lost);
        }
    }
}

/// The result of work running elsewhere. `poll`, `is_ready` and `try_take` never block; `wait`
/// and `wait_timeout` do; as a [`Future`] it resolves to the result (taking it). If the sending
/// side is dropped without a result (its thread ended), the result is the error
/// [`PendingError::lost`] makes, naming the work.
pub struct Pending<T, E> {
    rx: Option<Arc<Slot<T, E>>>,
    result: Option<Result<T, E>>,
    /// What the work is, for the errors ("ghost load", "catalog call").
    what: &'static str,
    /// The owner's wording of a result that never comes ([`Pending::when_lost`]).
    lost: Option<&'static str>,
    /// Dropped with the `Pending` (after its result): e.g. a loader's cancel-and-join guard.
    kept: Option<Box<dyn Send + Sync>>,
}

impl<T: std::fmt::Debug, E: std::fmt::Debug> std::fmt::Debug for Pending<T, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("what", &self.what)
            .field("result", &self.result)
            .field("running", &self.rx.is_some())
            .finish_non_exhaustive()
    }
}

impl<T, E: PendingError> Pending<T, E> {
    /// A pending result and the sender its work delivers it through (at most once).
    pub fn channel(what: &'static str) -> (Sender<T, E>, Pending<T, E>) {
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
            lost: None,
            kept: None,
        };
        (tx, pending)
    }

    /// A result known at once (e.g. work that could not start).
    pub fn ready(result: Result<T, E>, what: &'static str) -> Pending<T, E> {
        Pending {
            rx: None,
            result: Some(result),
            what,
            lost: None,
            kept: None,
        }
    }

    /// Says in the owner's words what a result that never comes means (e.g. "the engine was shut
    /// down before the recording was finished"), instead of "the <work> ended without a result".
    pub fn when_lost(mut self, lost: &'static str) -> Pending<T, E> {
        self.lost = Some(lost);
        self
    }

    /// Keeps `owned` until this `Pending` is dropped: e.g. a guard whose `Drop` cancels the work
    /// and joins its thread, so that dropping the result cancels the work.
    pub fn keeping(mut self, owned: impl Send + Sync + 'static) -> Pending<T, E> {
        self.kept = Some(Box::new(owned));
        self
    }

    /// The result once the work has ended; `None` while it runs (or after the result was
    /// taken). Never blocks.
    pub fn poll(&mut self) -> Option<&Result<T, E>> {
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
    pub fn try_take(&mut self) -> Option<Result<T, E>> {
        self.poll();
        self.result.take()
    }

    /// Blocks until the work has ended and returns its result.
    pub fn wait(mut self) -> Result<T, E> {
        self.wait_in_place()
    }

    /// Blocks until the work has ended or `timeout` has passed: the result as
    /// [`Pending::poll`] gives it, `None` if the work still runs (or the result was taken).
    pub fn wait_timeout(&mut self, timeout: Duration) -> Option<&Result<T, E>> {
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

    /// A handle that waits, from any thread, until the result is in (without taking it): for an
    /// owner that shares the `Pending` behind a lock and must not hold the lock while waiting.
    /// `None` once the result is in (or taken).
    pub fn ready_signal(&self) -> Option<ReadySignal<T, E>> {
        self.rx.as_ref().map(|rx| ReadySignal(rx.clone()))
    }

    /// [`Pending::wait`] for an owner that cannot give the `Pending` away (one with a `Drop`).
    pub fn wait_in_place(&mut self) -> Result<T, E> {
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
            None => Err(E::taken(self.what)),
        }
    }

    fn lost(&self) -> E {
        E::lost(self.what, self.lost)
    }
}

/// Waits until a [`Pending`]'s result is in, without taking it ([`Pending::ready_signal`]).
pub struct ReadySignal<T, E>(Arc<Slot<T, E>>);

impl<T, E> ReadySignal<T, E> {
    /// Blocks until the result is in, or `timeout` has passed (`None`: no limit). Whether it is
    /// in.
    pub fn wait(&self, timeout: Option<Duration>) -> bool {
        let until = timeout.and_then(|t| Instant::now().checked_add(t));
        let mut state = self.0.state.lock();
        while matches!(*state, State::Running) {
            match until {
                None => self.0.cv.wait(&mut state),
                Some(u) => {
                    let left = u.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return false;
                    }
                    self.0.cv.wait_for(&mut state, left);
                }
            }
        }
        true
    }
}

/// A [`Pending`] several holders share (a C or Java handle several threads poll and wait on, a
/// catalog call or an upload waiting on a recording's finish): each poll or wait hands out a
/// copy of the result, nobody takes it. Waiting never holds the lock a poll needs, so a poll
/// from a server thread never blocks behind a waiter.
pub struct SharedPending<T, E>(Arc<Mutex<Pending<T, E>>>);

impl<T, E> Clone for SharedPending<T, E> {
    fn clone(&self) -> Self {
        SharedPending(self.0.clone())
    }
}

impl<T, E> From<Pending<T, E>> for SharedPending<T, E> {
    fn from(pending: Pending<T, E>) -> Self {
        SharedPending(Arc::new(Mutex::new(pending)))
    }
}

impl<T: Clone, E: PendingError> SharedPending<T, E> {
    /// A copy of the result once the work has ended; `None` while it runs. Never blocks.
    pub fn poll(&self) -> Option<Result<T, E>> {
        self.0.lock().poll().map(|r| match r {
            Ok(v) => Ok(v.clone()),
            Err(e) => Err(e.duplicate()),
        })
    }

    /// Whether the work has ended. Never blocks.
    pub fn is_ready(&self) -> bool {
        self.0.lock().is_ready()
    }

    /// Blocks until the work has ended, or `timeout` has passed (`None`: no limit): a copy of
    /// the result, `None` on timeout.
    pub fn wait(&self, timeout: Option<Duration>) -> Option<Result<T, E>> {
        let signal = self.0.lock().ready_signal();
        if let Some(signal) = signal
            && !signal.wait(timeout)
        {
            return None;
        }
        self.poll()
    }
}

/// Resolves to the result (taking it: a `Pending` polled again after that resolves to an
/// `InvalidState` error, as [`Pending::wait`] would).
impl<T: Unpin, E: PendingError + Unpin> Future for Pending<T, E> {
    type Output = Result<T, E>;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T, E>> {
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

    /// The tests' error: what the library's `Error` says, as text.
    #[derive(Debug, PartialEq)]
    struct TestError(String);

    impl std::fmt::Display for TestError {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(&self.0)
        }
    }

    impl PendingError for TestError {
        fn lost(what: &'static str, lost: Option<&'static str>) -> Self {
            TestError(lost.map_or_else(
                || format!("the {what} ended without a result"),
                str::to_string,
            ))
        }
        fn taken(what: &'static str) -> Self {
            TestError(format!("the {what}'s result was already taken"))
        }
        fn duplicate(&self) -> Self {
            TestError(self.0.clone())
        }
    }

    type Pending<T> = super::Pending<T, TestError>;

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
        assert!(matches!(p.poll(), Some(Err(_))));
        let (tx, p) = Pending::<u32>::channel("test job");
        let p = p.when_lost("the engine went down first");
        drop(tx);
        assert_eq!(p.wait().unwrap_err().0, "the engine went down first");
    }

    #[test]
    fn a_ready_signal_waits_without_taking_the_result() {
        let (tx, mut p) = Pending::<u32>::channel("test job");
        let signal = p.ready_signal().unwrap();
        assert!(!signal.wait(Some(Duration::from_millis(10))));
        let t = std::thread::spawn(move || signal.wait(None));
        std::thread::sleep(Duration::from_millis(20));
        tx.send(Ok(4)).unwrap();
        assert!(t.join().unwrap());
        assert_eq!(p.try_take().unwrap().unwrap(), 4);
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
    fn a_shared_pending_gives_every_holder_a_copy_and_polls_while_another_waits() {
        let (tx, p) = Pending::<u32>::channel("test job");
        let shared = SharedPending::from(p);
        let waiter = shared.clone();
        assert_eq!(shared.wait(Some(Duration::from_millis(10))), None);
        let t = std::thread::spawn(move || waiter.wait(None));
        std::thread::sleep(Duration::from_millis(20));
        // The waiter holds no lock: a poll answers at once.
        assert_eq!(shared.poll(), None);
        assert!(!shared.is_ready());
        tx.send(Err(TestError("failed".into()))).unwrap();
        assert_eq!(t.join().unwrap(), Some(Err(TestError("failed".into()))));
        assert_eq!(shared.poll(), Some(Err(TestError("failed".into()))));
        assert_eq!(
            shared.wait(None),
            Some(Err(TestError("failed".into()))),
            "repeats"
        );
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
