//! A result another thread delivers once: polled without ever blocking (from a game server's tick
//! thread) or waited for. The library's asynchronous calls hand one back: ghost loads
//! ([`crate::ghost::GhostLoad`]), and above the core the catalog's calls and object uploads.

use crossbeam_channel::{Receiver, Sender, TryRecvError};

use crate::{Error, Result};

/// The result of work running elsewhere. `poll`, `is_ready` and `try_take` never block; `wait`
/// does. If the sending side is dropped without a result (its thread ended), the result is an
/// `InvalidState` error naming the work.
#[derive(Debug)]
pub struct Pending<T> {
    rx: Option<Receiver<Result<T>>>,
    result: Option<Result<T>>,
    /// What the work is, for the errors ("ghost load", "catalog call").
    what: &'static str,
}

impl<T> Pending<T> {
    /// A pending result and the sender its work delivers it through (at most once).
    pub fn channel(what: &'static str) -> (Sender<Result<T>>, Pending<T>) {
        let (tx, rx) = crossbeam_channel::bounded(1);
        let pending = Pending {
            rx: Some(rx),
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
            match rx.try_recv() {
                Ok(r) => self.result = Some(r),
                Err(TryRecvError::Empty) => return None,
                Err(TryRecvError::Disconnected) => self.result = Some(Err(self.lost())),
            }
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
            Some(rx) => rx.recv().unwrap_or_else(|_| Err(self.lost())),
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
