//! The library's own threads, and what a call may leave behind on a thread that is not one.
//!
//! A plugin loaded in a class loader unloads the library when the loader is collected
//! (`JNI_OnUnload`, then `dlclose`). Two kinds of thread-exit callback the library could leave on
//! a caller's thread (a server's main thread, a plugin's worker) outlive that:
//! - a **pthread-key destructor**: `std::thread::current()` registers one (std's thread handle is
//!   dropped by a key destructor in the library). glibc does not count it as a reference, so the
//!   library is unmapped and, when the thread ends, the thread jumps into unmapped code: the JVM
//!   died with SIGSEGV after one reload. Reached through crossbeam (a sender waking a *blocked
//!   receiver* asks for its own thread's id; any blocking operation builds a context holding the
//!   thread), fastrand's thread-local generator (seeded from the thread id; `tempfile`'s names),
//!   `std::sync::mpsc` and parking;
//! - a **thread-local destructor** (`__cxa_thread_atexit_impl`): a `thread_local!` whose type
//!   has a `Drop`, `std::thread::spawn` on the *spawning* thread (std's spawn hooks), parking in
//!   `parking_lot`, entering a tokio runtime. glibc keeps the library mapped while a live thread
//!   holds one: one copy left mapped per reload.
//!
//! So the core keeps those uses on its own threads:
//! - thread-local caches (zstd contexts, encoder buffers) are used only where
//!   [`is_library_thread`] holds; a call on a caller's thread uses state of its handle instead;
//! - threads are started with [`spawn`], which marks them and which a binding can route around
//!   `std::thread` ([`set_spawner`]: the shared library starts them with `pthread_create`, so the
//!   caller's thread registers nothing);
//! - channels are waited on only through [`recv_until`], [`send`], [`send_until`] and
//!   [`wait_ready`]: a library thread blocks as a crossbeam *observer* (a sender's wake-up of an
//!   observer never asks for the sender's thread), a caller's thread polls ([`Nap`]);
//! - what a caller's thread waits on (a finish, a flush's acknowledgement, a pending result, a
//!   full queue under `Backpressure::Block`) uses `std::sync` (futexes, no thread-locals) or a
//!   timed poll, never a parking_lot condition variable or a blocking channel operation;
//! - temporary files are named by the library itself, not by `tempfile`.
//!
//! `clippy.toml` lists the calls that reach these, denied in the library's crates. `examples/c/
//! reload.c` (dlopen, every area on the main thread and two workers, dlclose, then the threads
//! end) and `java-bindings/tickreel/src/test/reload/ReloadMain.java` (the same in a JVM whose `main`
//! returns) check it, and `ClassLoaderTest` that 50 reloads leave no copy mapped.

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
/// (crossbeam's build a context holding `std::thread::current()`: see the module's notes).
#[derive(Debug, Default)]
pub struct Nap(u32);

impl Nap {
    /// One wait, longer each time.
    pub fn nap(&mut self) {
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
pub fn deadline_in(wait: std::time::Duration) -> std::time::Instant {
    let now = std::time::Instant::now();
    now.checked_add(wait)
        .or_else(|| now.checked_add(std::time::Duration::from_secs(100 * 365 * 86_400)))
        .unwrap_or(now)
}

/// Sends `msg`, waiting until `deadline` for room: `Err(Some(msg))` at the deadline, `Err(None)`
/// if the receiver is gone. Waits as [`wait_for_room`] does.
pub fn send_until<T>(
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
                wait_for_room(tx, Some(deadline), &mut nap);
            }
        }
    }
}

/// Sends `msg`, waiting for room as long as it takes; `Err(msg)` if the receiver is gone. For
/// unbounded channels, and bounded ones whose receiver keeps taking.
pub fn send<T>(tx: &crossbeam_channel::Sender<T>, mut msg: T) -> Result<(), T> {
    let mut nap = Nap::default();
    loop {
        match tx.try_send(msg) {
            Ok(()) => return Ok(()),
            Err(crossbeam_channel::TrySendError::Disconnected(m)) => return Err(m),
            Err(crossbeam_channel::TrySendError::Full(m)) => {
                msg = m;
                wait_for_room(tx, None, &mut nap);
            }
        }
    }
}

/// Receives from `rx`, waiting until `deadline` (`None`: as long as it takes).
///
/// How each thread waits, so that no caller's thread is left with a thread-exit callback (see
/// `clippy.toml`): a library thread blocks as a crossbeam *observer* (`Select::ready`), whose
/// wake-up by a sender never asks for the sender's thread id (crossbeam wakes a blocked
/// *receiver*, `recv` or `select!`, through `std::thread::current()` on the sending thread: a
/// pthread-key destructor on a server's thread that crashed the JVM after a plugin reload); a
/// caller's thread polls with [`Nap`] (a blocking operation would give it crossbeam's context,
/// which holds `std::thread::current()`).
pub fn recv_until<T>(
    rx: &crossbeam_channel::Receiver<T>,
    deadline: Option<std::time::Instant>,
) -> Result<T, crossbeam_channel::RecvTimeoutError> {
    use crossbeam_channel::{RecvTimeoutError, TryRecvError};
    let mut nap = Nap::default();
    loop {
        match rx.try_recv() {
            Ok(m) => return Ok(m),
            Err(TryRecvError::Disconnected) => return Err(RecvTimeoutError::Disconnected),
            Err(TryRecvError::Empty) => {}
        }
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            return Err(RecvTimeoutError::Timeout);
        }
        if is_library_thread() {
            let mut sel = crossbeam_channel::Select::new();
            sel.recv(rx);
            wait_ready(&mut sel, deadline);
        } else {
            nap.nap();
        }
    }
}

/// Waits until one of `sel`'s operations can go on (or its channel is disconnected) or until
/// `deadline`; the caller then tries them (`try_recv`, `try_send`). Only on a library thread: it
/// blocks as an observer (see [`recv_until`]); a caller's thread must poll instead.
#[allow(clippy::disallowed_methods)] // the one place that blocks in crossbeam, as an observer
pub fn wait_ready(sel: &mut crossbeam_channel::Select<'_>, deadline: Option<std::time::Instant>) {
    debug_assert!(
        is_library_thread(),
        "a caller's thread never blocks in crossbeam"
    );
    match deadline {
        Some(d) => {
            let _ = sel.ready_deadline(d);
        }
        None => {
            sel.ready();
        }
    }
}

/// Waits a little for room in `tx`: as an observer on a library thread, one [`Nap`] elsewhere.
fn wait_for_room<T>(
    tx: &crossbeam_channel::Sender<T>,
    deadline: Option<std::time::Instant>,
    nap: &mut Nap,
) {
    if is_library_thread() {
        let mut sel = crossbeam_channel::Select::new();
        sel.send(tx);
        wait_ready(&mut sel, deadline);
    } else {
        nap.nap();
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
