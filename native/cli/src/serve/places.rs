//! Where the requests that decode recordings run, and how long they wait for it. At most
//! [`DECODES_AT_ONCE`] requests decode at once (frames, seeks, worlds, markers, races) and at most
//! [`TERRAIN_AT_ONCE`] build terrain, each on a thread of tokio's blocking pool
//! ([`BLOCKING_THREADS`]): together fewer than its threads, so that a request that decodes nothing
//! (a summary, the list, the reports, a page) always finds one, whatever decodes are asked for
//! or waiting. A request waits for its place off the pool, in the order the requests came, at
//! most its route's bound ([`Waits`]: [`DECODE_WAIT`], [`TERRAIN_WAIT`]); past it, it is
//! answered `503 Service Unavailable` with `Retry-After` ([`RETRY_AFTER_SECS`]) and the API's
//! error shape, instead of waiting behind the others for as long as they take.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::http::StatusCode;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::error::{ApiError, ApiResult};

/// How many requests that decode recordings run at once.
pub const DECODES_AT_ONCE: usize = 8;
/// How many terrain requests run at once (each may read the first 2,048 sections of a terrain
/// and one terrain piece's body, [`super::terrain`]; a request whose answer is made or being
/// made shares it).
pub const TERRAIN_AT_ONCE: usize = 2;
/// The threads of the server's blocking pool ([`super::runtime`]).
pub const BLOCKING_THREADS: usize = 16;
// Every decode on a thread of the pool leaves threads for the requests that decode nothing.
const _: () = assert!(DECODES_AT_ONCE + TERRAIN_AT_ONCE < BLOCKING_THREADS);
/// The longest a decoding request (`/api/frames`, `/api/seek`, `/api/markers`, `/api/blocks`,
/// `/api/ghost`) waits for a place before it is answered 503, unless `serve --max-wait` says.
pub const DECODE_WAIT: Duration = Duration::from_secs(10);
/// The longest an `/api/terrain` request waits for a place before it is answered 503 (three
/// times `serve --max-wait` when given).
pub const TERRAIN_WAIT: Duration = Duration::from_secs(30);
/// The `Retry-After` of a 503 answered to a request that found no place, in seconds.
pub const RETRY_AFTER_SECS: u64 = 2;

/// Which places a request takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// One of the [`DECODES_AT_ONCE`].
    Decode,
    /// One of the [`TERRAIN_AT_ONCE`].
    Terrain,
}

/// How long a request waits for a place, by [`Kind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Waits {
    pub decode: Duration,
    pub terrain: Duration,
}

impl Default for Waits {
    fn default() -> Waits {
        Waits {
            decode: DECODE_WAIT,
            terrain: TERRAIN_WAIT,
        }
    }
}

/// The places of one server.
pub struct Places {
    decodes: Arc<Semaphore>,
    terrain: Arc<Semaphore>,
    waits: Waits,
    /// Requests waiting for a place now.
    waiting: AtomicUsize,
    #[cfg(feature = "test-hooks")]
    hold: Hold,
}

impl Default for Places {
    fn default() -> Places {
        Places::new(Waits::default())
    }
}

/// A place taken: given back when dropped (when the work ends, even if the client went away).
pub struct Place {
    _permit: OwnedSemaphorePermit,
}

impl Places {
    pub fn new(waits: Waits) -> Places {
        Places {
            decodes: Arc::new(Semaphore::new(DECODES_AT_ONCE)),
            terrain: Arc::new(Semaphore::new(TERRAIN_AT_ONCE)),
            waits,
            waiting: AtomicUsize::new(0),
            #[cfg(feature = "test-hooks")]
            hold: Hold::default(),
        }
    }

    pub fn waits(&self) -> Waits {
        self.waits
    }

    /// How many requests wait for a place now.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }

    /// Waits for a place of `kind`, at most its bound ([`Waits`]); past it, a 503 with
    /// `Retry-After` naming what was waited for.
    pub async fn enter(&self, kind: Kind) -> ApiResult<Place> {
        let (places, wait, at_once, what) = match kind {
            Kind::Decode => (
                &self.decodes,
                self.waits.decode,
                DECODES_AT_ONCE,
                "requests that decode recordings",
            ),
            Kind::Terrain => (
                &self.terrain,
                self.waits.terrain,
                TERRAIN_AT_ONCE,
                "terrain requests",
            ),
        };
        struct Waiting<'a>(&'a AtomicUsize);
        impl Drop for Waiting<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::Relaxed);
            }
        }
        self.waiting.fetch_add(1, Ordering::Relaxed);
        let _waiting = Waiting(&self.waiting);
        match tokio::time::timeout(wait, places.clone().acquire_owned()).await {
            Ok(Ok(permit)) => Ok(Place { _permit: permit }),
            Ok(Err(e)) => Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("internal error: {e}"),
            )),
            Err(_) => Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "the server is busy: {at_once} {what} run at once and this one waited {} ms \
                     for a place; try again later",
                    wait.as_millis()
                ),
            )
            .retry_after(RETRY_AFTER_SECS)),
        }
    }

    /// Called on the blocking thread of a request that got its place, before it decodes: with
    /// the feature `test-hooks`, waits there while [`Places::hold`] is on.
    pub fn started(&self) {
        #[cfg(feature = "test-hooks")]
        self.hold.here();
    }
}

/// Test hook (feature `test-hooks`): requests held in their place, before they decode.
#[cfg(feature = "test-hooks")]
#[derive(Default)]
struct Hold {
    /// (holding, requests held now)
    state: std::sync::Mutex<(bool, usize)>,
    changed: std::sync::Condvar,
}

#[cfg(feature = "test-hooks")]
impl Hold {
    fn lock(&self) -> std::sync::MutexGuard<'_, (bool, usize)> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn here(&self) {
        let mut g = self.lock();
        if !g.0 {
            return;
        }
        g.1 += 1;
        self.changed.notify_all();
        while g.0 {
            g = self.changed.wait(g).unwrap_or_else(|p| p.into_inner());
        }
        g.1 -= 1;
        self.changed.notify_all();
    }
}

#[cfg(feature = "test-hooks")]
impl Places {
    /// Test hook: while `on`, every request that gets a place waits in it (on its thread of the
    /// blocking pool, its place taken) before it decodes, until this is called with `false`.
    pub fn hold(&self, on: bool) {
        self.hold.lock().0 = on;
        self.hold.changed.notify_all();
    }

    /// Test hook: blocks until `n` requests are held ([`Places::hold`]), at most `timeout`;
    /// whether they are.
    pub fn wait_until_held(&self, n: usize, timeout: Duration) -> bool {
        let g = self.hold.lock();
        let (g, _) = self
            .hold
            .changed
            .wait_timeout_while(g, timeout, |g| g.1 < n)
            .unwrap_or_else(|p| p.into_inner());
        g.1 >= n
    }
}
