//! The library's own threads, and what a call may leave behind on a thread that is not one.
//!
//! A plugin loaded in a class loader unloads the library when the loader is collected
//! (`JNI_OnUnload`, then `dlclose`). glibc does not unmap a shared library while any live thread
//! holds a thread-local destructor the library registered (`__cxa_thread_atexit_impl` counts
//! them on the library's link map): a Rust `thread_local!` whose type has a `Drop` registers one
//! on the first use in a thread, and so does `std::thread::spawn` on the *spawning* thread (std's
//! spawn hooks), parking in `parking_lot` and blocking on a `crossbeam_channel`. One such use on
//! a server's main thread kept one copy of the library mapped per reload.
//!
//! So the core keeps those uses on its own threads:
//! - thread-local caches (zstd contexts, encoder buffers) are used only where
//!   [`is_library_thread`] holds; a call on a caller's thread uses state of its handle instead;
//! - threads are started with [`spawn`], which marks them and which a binding can route around
//!   `std::thread` ([`set_spawner`]: the shared library starts them with `pthread_create`, so the
//!   caller's thread registers nothing);
//! - what a caller's thread waits on (a finish, a flush's acknowledgement, a pending result, a
//!   full queue under `Backpressure::Block`) uses `std::sync` (futexes, no thread-locals) or a
//!   timed poll, never a parking_lot condition variable or a blocking channel operation.
//!
//! `native/bridge/tests` and `ClassLoaderTest` check it: no thread-local destructor is registered
//! for the library on a caller's thread, and 50 reloads leave no copy mapped.

use std::cell::Cell;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

thread_local! {
    /// Set on threads started by [`spawn`]. `const` and without `Drop`: reading it registers
    /// nothing.
    static LIBRARY_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// Whether the calling thread is one the library started (a writer, the compactor, a prefetch
/// worker, a ghost loader...). Thread-local caches with destructors are used only there.
pub fn is_library_thread() -> bool {
    LIBRARY_THREAD.with(Cell::get)
}

/// Work for a new thread.
pub type Job = Box<dyn FnOnce() + Send + 'static>;

/// Waits for a started thread to end.
pub trait Join: Send + Sync {
    /// Blocks until the thread has ended (its thread-local destructors included).
    fn join(self: Box<Self>);
}

/// How threads are started: `name` (for debuggers and `top`), the work. Returns a handle to wait
/// for the end of the thread.
pub type Spawner = fn(name: String, job: Job) -> io::Result<Box<dyn Join>>;

static SPAWNER: OnceLock<Spawner> = OnceLock::new();

/// Makes [`spawn`] start threads with `spawner` instead of `std::thread` (once per process, or per
/// copy of a shared library; later calls are ignored and return `false`). For bindings: the
/// shared library starts its threads without touching the caller thread's thread-locals.
pub fn set_spawner(spawner: Spawner) -> bool {
    SPAWNER.set(spawner).is_ok()
}

/// A thread started by [`spawn`]. Dropping it without [`Handle::join`] detaches the thread.
pub struct Handle {
    join: Box<dyn Join>,
    /// Set when the work has returned (the thread may still be ending).
    done: Arc<AtomicBool>,
}

impl Handle {
    /// Whether the thread's work has returned (it may still be ending: [`Handle::join`] waits
    /// for that).
    pub fn is_finished(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }

    /// Blocks until the thread has ended. A panic in the thread is not propagated (the library's
    /// threads catch their own and report them through their results).
    pub fn join(self) {
        self.join.join();
    }
}

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("threads::Handle")
    }
}

struct StdJoin(std::thread::JoinHandle<()>);

impl Join for StdJoin {
    fn join(self: Box<Self>) {
        let _ = self.0.join();
    }
}

fn std_spawner(name: String, job: Job) -> io::Result<Box<dyn Join>> {
    let h = std::thread::Builder::new().name(name).spawn(job)?;
    Ok(Box::new(StdJoin(h)))
}

/// Starts a library thread named `name` running `f`, marked as one ([`is_library_thread`]).
pub fn spawn(name: impl Into<String>, f: impl FnOnce() + Send + 'static) -> io::Result<Handle> {
    let spawner = SPAWNER.get().copied().unwrap_or(std_spawner);
    let done = Arc::new(AtomicBool::new(false));
    let set = done.clone();
    let job: Job = Box::new(move || {
        LIBRARY_THREAD.with(|l| l.set(true));
        // Set even if `f` panics (the flag is dropped while unwinding).
        struct Done(Arc<AtomicBool>);
        impl Drop for Done {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Release);
            }
        }
        let _done = Done(set);
        f();
    });
    let join = spawner(name.into(), job)?;
    Ok(Handle { join, done })
}

/// Waits between attempts of a non-blocking operation: yields a few times, then sleeps from 20
/// µs, doubling up to 1 ms. What a caller's thread uses instead of a blocking channel operation
/// (crossbeam's park the thread with a thread-local context that has a destructor).
#[derive(Debug, Default)]
pub(crate) struct Nap(u32);

impl Nap {
    pub(crate) fn nap(&mut self) {
        if self.0 < 4 {
            std::thread::yield_now();
        } else {
            let us = 20u64 << (self.0 - 4).min(6);
            std::thread::sleep(std::time::Duration::from_micros(us.min(1000)));
        }
        self.0 = self.0.saturating_add(1);
    }
}

/// The instant `wait` from now; a wait too long for the clock (a caller's `Duration::MAX`, say)
/// ends in about a century instead of overflowing.
pub(crate) fn deadline_in(wait: std::time::Duration) -> std::time::Instant {
    let now = std::time::Instant::now();
    now.checked_add(wait)
        .or_else(|| now.checked_add(std::time::Duration::from_secs(100 * 365 * 86_400)))
        .unwrap_or(now)
}

/// Sends `msg`, waiting until `deadline` for room: `Err(Some(msg))` at the deadline, `Err(None)`
/// if the receiver is gone. Never parks in crossbeam (see [`Nap`]).
pub(crate) fn send_until<T>(
    tx: &crossbeam_channel::Sender<T>,
    mut msg: T,
    deadline: std::time::Instant,
) -> Result<(), Option<T>> {
    let mut nap = Nap::default();
    loop {
        match tx.try_send(msg) {
            Ok(()) => return Ok(()),
            Err(crossbeam_channel::TrySendError::Disconnected(_)) => return Err(None),
            Err(crossbeam_channel::TrySendError::Full(m)) => {
                if std::time::Instant::now() >= deadline {
                    return Err(Some(m));
                }
                msg = m;
                nap.nap();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spawned_threads_are_marked_and_joined() {
        assert!(
            !is_library_thread(),
            "the test's thread is not the library's"
        );
        let (tx, rx) = std::sync::mpsc::channel();
        let h = spawn("tickreel-test", move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            tx.send((
                is_library_thread(),
                std::thread::current().name().map(String::from),
            ))
            .unwrap();
        })
        .unwrap();
        h.join();
        let (marked, name) = rx.try_recv().expect("joined after the job ran");
        assert!(marked);
        assert_eq!(name.as_deref(), Some("tickreel-test"));
    }
}
