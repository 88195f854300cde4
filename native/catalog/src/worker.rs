//! Catalog calls off the caller's thread: a [`CatalogWorker`] owns a catalog and one background
//! thread that runs submitted calls in order; each call hands back a [`Pending`] result that the
//! caller polls without ever waiting (a game server's tick thread), or waits for. This is what
//! the bindings' futures wrap (Java's `CompletableFuture`s, C's handles), so that no language
//! needs a thread pool of its own for the database.
//!
//! The queue is bounded ([`QUEUE`] calls): a call submitted to a full queue is not queued, and
//! its `Pending` is at once ready with `Error::Backpressure`.

use std::sync::Arc;

use crossbeam_channel::{Sender, TrySendError};
/// The result of a submitted call (the core's one-shot result): `poll`, `is_ready` and
/// `try_take` never block; `wait` does.
pub use tickreel::Pending;
use tickreel::{Error, Result};

use crate::Catalog;

/// How many calls may wait for the worker.
pub const QUEUE: usize = 1024;

type Job = Box<dyn FnOnce(&Catalog) + Send>;

/// A catalog and the thread that runs its calls.
pub struct CatalogWorker {
    catalog: Arc<Catalog>,
    jobs: Option<Sender<Job>>,
    thread: Option<tickreel_sync::threads::Handle>,
}

impl std::fmt::Debug for CatalogWorker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatalogWorker")
            .field("catalog", &self.catalog)
            .finish()
    }
}

impl CatalogWorker {
    /// Starts the worker thread of `catalog`.
    pub fn new(catalog: Catalog) -> Result<CatalogWorker> {
        let catalog = Arc::new(catalog);
        let (tx, rx) = crossbeam_channel::bounded::<Job>(QUEUE);
        let cat = catalog.clone();
        // Started through the core, so that the shared library starts it without leaving a
        // thread-local destructor on the caller's thread (see `tickreel_sync::threads`).
        let thread = tickreel_sync::threads::spawn("tickreel-catalog", move || {
            // Waits as an observer (see `tickreel_sync::threads::recv_until`): a caller's `try_send`
            // then never asks for its own thread's id.
            while let Ok(job) = tickreel_sync::threads::recv_until(&rx, None) {
                job(&cat);
            }
        })?;
        Ok(CatalogWorker {
            catalog,
            jobs: Some(tx),
            thread: Some(thread),
        })
    }

    /// The catalog, for calls made on the caller's own thread.
    pub fn catalog(&self) -> &Arc<Catalog> {
        &self.catalog
    }

    /// Runs `call` on the worker thread, after the calls submitted before it. Never blocks.
    pub fn submit<T: Send + 'static>(
        &self,
        call: impl FnOnce(&Catalog) -> Result<T> + Send + 'static,
    ) -> Pending<T> {
        let (tx, pending) = Pending::channel("catalog call");
        let job: Job = Box::new(move |cat| {
            // the caller may have dropped its Pending: nobody to tell
            let _ = tx.send(call(cat));
        });
        let refused = match self.jobs.as_ref().map(|j| j.try_send(job)) {
            Some(Ok(())) => None,
            Some(Err(TrySendError::Full(_))) => Some(Error::Backpressure(format!(
                "the catalog's queue holds {QUEUE} calls already"
            ))),
            Some(Err(TrySendError::Disconnected(_))) | None => Some(Error::InvalidState(
                "the catalog's worker has stopped".into(),
            )),
        };
        match refused {
            Some(e) => Pending::ready(Err(e), "catalog call"),
            None => pending,
        }
    }
}

impl Drop for CatalogWorker {
    /// Runs the calls already queued, then joins the thread.
    fn drop(&mut self) {
        self.jobs.take();
        if let Some(t) = self.thread.take() {
            t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worker(dir: &std::path::Path) -> CatalogWorker {
        let url = format!("sqlite:{}", dir.join("c.db").display());
        CatalogWorker::new(Catalog::open(&url).unwrap()).unwrap()
    }

    #[test]
    fn calls_run_on_the_worker_in_order_and_never_block_the_caller() {
        let dir = tempfile::tempdir().unwrap();
        let w = worker(dir.path());
        let (gate_tx, gate_rx) = crossbeam_channel::bounded::<()>(0);
        // the first call holds the worker until the test lets it go
        let mut first = w.submit(move |_| {
            gate_rx.recv().unwrap();
            Ok(std::thread::current().name().map(str::to_owned))
        });
        let mut second = w.submit(|cat| cat.top("c", 10));
        assert!(first.poll().is_none() && !second.is_ready());
        assert!(second.try_take().is_none());
        gate_tx.send(()).unwrap();
        assert_eq!(first.wait().unwrap().as_deref(), Some("tickreel-catalog"));
        assert!(second.wait().unwrap().is_empty());
        let err = w.submit(|cat| cat.at_rank("c", 0)).wait().unwrap_err();
        assert_eq!(err.kind(), tickreel::ErrorKind::InvalidArgument);
    }

    #[test]
    fn a_full_queue_refuses_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let w = worker(dir.path());
        let (gate_tx, gate_rx) = crossbeam_channel::bounded::<()>(0);
        let held = w.submit(move |_| {
            gate_rx.recv().unwrap();
            Ok(())
        });
        // wait until the worker has taken the held call off the queue
        while !w.jobs.as_ref().unwrap().is_empty() {
            std::thread::yield_now();
        }
        let queued: Vec<_> = (0..QUEUE).map(|_| w.submit(|_| Ok(()))).collect();
        let mut refused = w.submit(|_| Ok(()));
        let e = refused.try_take().unwrap().unwrap_err();
        assert_eq!(e.kind(), tickreel::ErrorKind::Backpressure);
        gate_tx.send(()).unwrap();
        held.wait().unwrap();
        for q in queued {
            q.wait().unwrap();
        }
        // dropping the worker runs what is queued and joins its thread
        let last = w.submit(|cat| cat.players("c"));
        drop(w);
        assert_eq!(last.wait().unwrap(), 0);
    }
}
