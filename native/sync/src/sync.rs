//! Locks and condition variables with `parking_lot`'s interface (no poisoning, `wait(&mut
//! guard)`), over `std::sync` (futexes on Linux).
//!
//! Why not `parking_lot` itself: a thread that parks in it (a contended lock, any condition
//! variable wait) gets a thread-local with a destructor, and glibc keeps a shared library mapped
//! while a live thread holds such a destructor from it. A plugin's thread waiting once for a
//! finish kept one copy of the library mapped per reload (see [`crate::threads`]). `std::sync`
//! registers nothing. A panic while a lock is held does not poison it (as in `parking_lot`): the
//! library's state stays consistent across the panics its guards catch.

use std::ops::{Deref, DerefMut};
use std::sync::PoisonError;
use std::time::{Duration, Instant};

/// A mutual-exclusion lock.
#[derive(Debug, Default)]
pub struct Mutex<T: ?Sized>(std::sync::Mutex<T>);

/// The guard of a [`Mutex`]; [`Condvar`] waits take it by `&mut`.
#[derive(Debug)]
pub struct MutexGuard<'a, T: ?Sized>(Option<std::sync::MutexGuard<'a, T>>);

impl<T> Mutex<T> {
    pub const fn new(value: T) -> Self {
        Mutex(std::sync::Mutex::new(value))
    }

    pub fn into_inner(self) -> T {
        self.0.into_inner().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T: ?Sized> Mutex<T> {
    pub fn lock(&self) -> MutexGuard<'_, T> {
        MutexGuard(Some(self.0.lock().unwrap_or_else(PoisonError::into_inner)))
    }

    /// The guard, if the lock is free now.
    pub fn try_lock(&self) -> Option<MutexGuard<'_, T>> {
        match self.0.try_lock() {
            Ok(g) => Some(MutexGuard(Some(g))),
            Err(std::sync::TryLockError::Poisoned(p)) => Some(MutexGuard(Some(p.into_inner()))),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    pub fn get_mut(&mut self) -> &mut T {
        self.0.get_mut().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0.as_deref().expect("guard held outside a wait")
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.0.as_deref_mut().expect("guard held outside a wait")
    }
}

/// Whether a timed wait ended by its timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitTimeoutResult(bool);

impl WaitTimeoutResult {
    pub fn timed_out(self) -> bool {
        self.0
    }
}

/// A condition variable, used with one [`Mutex`].
#[derive(Debug, Default)]
pub struct Condvar(std::sync::Condvar);

impl Condvar {
    pub const fn new() -> Self {
        Condvar(std::sync::Condvar::new())
    }

    pub fn notify_one(&self) {
        self.0.notify_one();
    }

    pub fn notify_all(&self) {
        self.0.notify_all();
    }

    /// Unlocks, waits for a notification (or a spurious wake-up), locks again.
    pub fn wait<T>(&self, guard: &mut MutexGuard<'_, T>) {
        let g = guard.0.take().expect("guard held");
        guard.0 = Some(self.0.wait(g).unwrap_or_else(PoisonError::into_inner));
    }

    /// [`Condvar::wait`] for at most `timeout`.
    pub fn wait_for<T>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        timeout: Duration,
    ) -> WaitTimeoutResult {
        let g = guard.0.take().expect("guard held");
        let (g, r) = self
            .0
            .wait_timeout(g, timeout)
            .unwrap_or_else(PoisonError::into_inner);
        guard.0 = Some(g);
        WaitTimeoutResult(r.timed_out())
    }

    /// [`Condvar::wait`] until `deadline`.
    pub fn wait_until<T>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        deadline: Instant,
    ) -> WaitTimeoutResult {
        match deadline.checked_duration_since(Instant::now()) {
            Some(left) if !left.is_zero() => self.wait_for(guard, left),
            _ => WaitTimeoutResult(true),
        }
    }
}

/// A reader-writer lock.
#[derive(Debug, Default)]
pub struct RwLock<T: ?Sized>(std::sync::RwLock<T>);

impl<T> RwLock<T> {
    pub const fn new(value: T) -> Self {
        RwLock(std::sync::RwLock::new(value))
    }
}

impl<T: ?Sized> RwLock<T> {
    pub fn read(&self) -> std::sync::RwLockReadGuard<'_, T> {
        self.0.read().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn write(&self) -> std::sync::RwLockWriteGuard<'_, T> {
        self.0.write().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_wait_is_woken_and_a_panic_does_not_poison() {
        let pair = Arc::new((Mutex::new(0u32), Condvar::new()));
        let p = pair.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            *p.0.lock() = 7;
            p.1.notify_all();
        });
        let mut g = pair.0.lock();
        while *g != 7 {
            pair.1.wait(&mut g);
        }
        drop(g);
        t.join().unwrap();
        let mut g = pair.0.lock();
        assert!(
            pair.1
                .wait_for(&mut g, Duration::from_millis(5))
                .timed_out()
        );
        drop(g);
        let p = pair.clone();
        let _ = std::thread::spawn(move || {
            let _g = p.0.lock();
            panic!("while locked");
        })
        .join();
        assert_eq!(*pair.0.lock(), 7, "usable after a panic while locked");
        assert!(pair.0.try_lock().is_some());
    }
}
