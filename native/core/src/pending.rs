//! A result another thread delivers once: polled without ever blocking (from a game server's tick
//! thread) or waited for. The library's asynchronous calls hand one back: ghost loads
//! ([`crate::ghost::GhostLoad`]), and above the core the catalog's calls and object uploads.

use std::sync::Arc;

use crate::sync::{Condvar, Mutex};
use crate::{Error, Result};

/// Where the result waits: a one-shot slot on `std::sync` (a waiting caller's thread registers
/// no thread-local destructor, see [`crate::threads`]; a blocking channel receive would).
#[derive(Debug)]
struct Slot<T> {
    state: Mutex<State<T>>,
    cv: Condvar,
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
        *slot.state.lock() = State::Done(result);
        slot.cv.notify_all();
        if abandoned { Err(Abandoned) } else { Ok(()) }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        if let Some(slot) = self.slot.take() {
            *slot.state.lock() = State::Lost;
            slot.cv.notify_all();
        }
    }
}

/// The result of work running elsewhere. `poll`, `is_ready` and `try_take` never block; `wait`
/// does. If the sending side is dropped without a result (its thread ended), the result is an
/// `InvalidState` error naming the work.
#[derive(Debug)]
pub struct Pending<T> {
    rx: Option<Arc<Slot<T>>>,
    result: Option<Result<T>>,
    /// What the work is, for the errors ("ghost load", "catalog call").
    what: &'static str,
}

impl<T> Pending<T> {
    /// A pending result and the sender its work delivers it through (at most once).
    pub fn channel(what: &'static str) -> (Sender<T>, Pending<T>) {
        let slot = Arc::new(Slot {
            state: Mutex::new(State::Running),
            cv: Condvar::new(),
        });
        let tx = Sender {
            slot: Some(slot.clone()),
        };
        let pending = Pending {
            rx: Some(slot),
            result: None,
            what,
        };
        (tx, pending)
    }

    /// A result known at once (e.g. work that could not start).
    pub fn ready(result: Result<T>, what: &'static str) -> Pending<T> {
        Pending {
            rx: None,
            result: Some(result),
            what,
        }
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
