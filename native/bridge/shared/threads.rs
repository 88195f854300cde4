//! How the shared library starts the core's threads: `pthread_create`, not `std::thread`.
//!
//! `std::thread::spawn` initialises a thread-local with a destructor (std's spawn hooks) on the
//! *spawning* thread. When that is a plugin's thread (a server's main thread creating an
//! `Engine`), glibc keeps this library mapped until the thread ends, so a reloaded plugin left
//! one copy of the library behind per reload. A thread started here touches nothing on the
//! caller's thread; its own thread-locals are destroyed when it ends, and the core ends and joins
//! every thread it starts before its engine, playhead or load is gone (see `tickreel_sync::threads`).

use std::ffi::{CString, c_void};
use std::io;
use std::panic::{AssertUnwindSafe, catch_unwind};

use tickreel_sync::threads::{Job, Join};

/// Routes the core's threads through [`spawn`]. Called at the top of every entry point (one
/// atomic load after the first call).
pub(crate) fn install() {
    static DONE: std::sync::Once = std::sync::Once::new();
    DONE.call_once(|| {
        tickreel_sync::threads::set_spawner(spawn);
    });
}

/// The stack of each thread: std's default.
const STACK_BYTES: usize = 2 << 20;

/// A started thread: joined by `join`, detached if dropped without (as a std `JoinHandle`), so
/// its stack is freed either way.
struct PthreadJoin(Option<libc::pthread_t>);

impl Join for PthreadJoin {
    fn join(mut self: Box<Self>) {
        if let Some(t) = self.0.take() {
            // SAFETY: `t` was created joinable by `spawn` and is joined or detached exactly once
            // (taken out of the handle here).
            unsafe {
                libc::pthread_join(t, std::ptr::null_mut());
            }
        }
    }
}

impl Drop for PthreadJoin {
    fn drop(&mut self) {
        if let Some(t) = self.0.take() {
            // SAFETY: as in `join`: a joinable thread, detached once, never joined after.
            unsafe {
                libc::pthread_detach(t);
            }
        }
    }
}

extern "C" fn start(arg: *mut c_void) -> *mut c_void {
    // SAFETY: `arg` is the `Box<Job>` that `spawn` leaked for this thread, taken back once.
    let job = unsafe { Box::from_raw(arg.cast::<Job>()) };
    // A panic must not unwind out of an `extern "C"` function; the core's threads report their
    // own failures through their results. Its payload is dropped under a second guard, as
    // `shared::panic::catch` does (which calls `install` here, so it is not used here).
    if let Err(payload) = catch_unwind(AssertUnwindSafe(job))
        && let Err(again) = catch_unwind(AssertUnwindSafe(|| drop(payload)))
    {
        std::mem::forget(again);
    }
    std::ptr::null_mut()
}

fn spawn(name: String, job: Job) -> io::Result<Box<dyn Join>> {
    let arg = Box::into_raw(Box::new(job)).cast::<c_void>();
    // SAFETY: plain pthread calls with valid pointers: `attr` is initialised before use and
    // destroyed after; `start` takes back `arg` exactly once, and only if the thread started
    // (otherwise it is taken back here).
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        libc::pthread_attr_init(&mut attr);
        libc::pthread_attr_setstacksize(&mut attr, STACK_BYTES);
        let mut thread: libc::pthread_t = std::mem::zeroed();
        let rc = libc::pthread_create(&mut thread, &attr, start, arg);
        libc::pthread_attr_destroy(&mut attr);
        if rc != 0 {
            drop(Box::from_raw(arg.cast::<Job>()));
            return Err(io::Error::from_raw_os_error(rc));
        }
        // Linux limits thread names to 15 bytes; a longer name is cut (best effort).
        let short: String = name.chars().take(15).collect();
        if let Ok(c) = CString::new(short) {
            libc::pthread_setname_np(thread, c.as_ptr());
        }
        Ok(Box::new(PthreadJoin(Some(thread))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_runs_its_job_is_named_and_joined_and_survives_a_panic() {
        let (tx, rx) = std::sync::mpsc::channel();
        let h = spawn(
            "tickreel-test-pthread".into(),
            Box::new(move || {
                std::thread::sleep(std::time::Duration::from_millis(20));
                let mut name = [0u8; 16];
                // SAFETY: a 16-byte buffer, the limit of Linux thread names.
                unsafe {
                    libc::pthread_getname_np(
                        libc::pthread_self(),
                        name.as_mut_ptr().cast(),
                        name.len(),
                    );
                }
                let end = name.iter().position(|&b| b == 0).unwrap_or(16);
                tx.send(String::from_utf8_lossy(&name[..end]).into_owned())
                    .unwrap();
            }),
        )
        .unwrap();
        h.join();
        assert_eq!(rx.try_recv().unwrap(), "tickreel-test-p");
        let h = spawn("panics".into(), Box::new(|| panic!("in a pthread"))).unwrap();
        h.join();
        // Dropped without a join: detached, the job still runs.
        let (tx, rx) = std::sync::mpsc::channel();
        drop(spawn("detached".into(), Box::new(move || tx.send(7).unwrap())).unwrap());
        assert_eq!(
            rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap(),
            7
        );
    }
}
