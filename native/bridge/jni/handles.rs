//! Java's handles: `long` tokens for keys of the bindings' one handle registry
//! ([`crate::shared::registry`], the same code as C's handles, with its own table).
//!
//! A handle is `(generation << 32) | (slot + 1)`, so `0` is never valid, and generations stop
//! at `i32::MAX` (a slot about to pass it is retired, as in C), so handles stay positive and a
//! closed handle fails the generation check for ever instead of reaching another object. A call
//! clones the `Arc` out of the registry and works on its own reference; `close` only removes the
//! registry's reference. So a close racing with calls on other threads is safe: the object is
//! dropped when the last in-flight call returns, never while one uses it.

use std::any::Any;
use std::sync::Arc;

use crate::shared::registry::{Key, Lookup, Registry};
use tickreel::error::Error;

/// Why a handle could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HandleError {
    /// The handle was closed (or never existed in this library instance).
    Closed(&'static str),
    /// The handle names an object of another type.
    WrongType {
        expected: &'static str,
        found: &'static str,
    },
}

impl std::fmt::Display for HandleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HandleError::Closed(what) => write!(f, "the {what} is closed"),
            HandleError::WrongType { expected, found } => {
                write!(f, "the handle names a {found}, not a {expected}")
            }
        }
    }
}

/// Highest generation (keeps handles positive as Java longs).
const MAX_GENERATION: u64 = i32::MAX as u64;

/// The registry of Java handles of this library instance.
static REGISTRY: Registry = Registry::new(u32::MAX as usize, MAX_GENERATION);

fn token(key: Key) -> i64 {
    ((key.generation as i64) << 32) | (key.index as i64 + 1)
}

fn key(handle: i64) -> Option<Key> {
    let low = (handle & 0xFFFF_FFFF) as u32;
    let generation = (handle >> 32) as u64;
    if low == 0 || generation == 0 || handle < 0 {
        return None;
    }
    Some(Key {
        index: (low - 1) as usize,
        generation,
    })
}

fn error(expected: &'static str, why: Lookup) -> HandleError {
    match why {
        Lookup::Unknown | Lookup::Removed => HandleError::Closed(expected),
        Lookup::WrongType(found) => HandleError::WrongType { expected, found },
    }
}

/// Stores `object` and returns its handle. `what` names the type in error messages.
pub(crate) fn insert<T: Any + Send + Sync>(
    what: &'static str,
    object: Arc<T>,
) -> Result<i64, Error> {
    REGISTRY
        .insert(what, object)
        .map(token)
        .map_err(|full| Error::limit(format!("{} tickreel handles are open; close some", full.0)))
}

/// A new reference to the object behind `handle`, if it is open and of type `T`.
pub(crate) fn get<T: Any + Send + Sync>(
    handle: i64,
    expected: &'static str,
) -> Result<Arc<T>, HandleError> {
    let key = key(handle).ok_or(HandleError::Closed(expected))?;
    REGISTRY.get::<T>(key).map_err(|why| error(expected, why))
}

/// Removes the registry's reference; returns it (so the caller drops it outside the lock), or
/// `None` if the handle was already closed. Closing twice is harmless.
pub(crate) fn remove(handle: i64) -> Option<Arc<dyn Any + Send + Sync>> {
    REGISTRY.remove_any(key(handle)?).ok()
}

/// Removes every open handle and returns the objects (for `JNI_OnUnload`: what a plugin never
/// closed, and whose Cleaners died with its class loader).
pub(crate) fn remove_all() -> Vec<Arc<dyn Any + Send + Sync>> {
    REGISTRY.remove_all()
}

/// Number of open handles.
#[cfg(test)]
pub(crate) fn open_count() -> usize {
    REGISTRY.live()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tickreel_sync::sync::Mutex;

    #[test]
    fn handles_are_checked_by_generation_and_type() {
        let before = open_count();
        let a = insert("counter", Arc::new(Mutex::new(1u32))).unwrap();
        assert!(a > 0);
        assert_eq!(*get::<Mutex<u32>>(a, "counter").unwrap().lock(), 1);
        assert_eq!(
            get::<String>(a, "string").unwrap_err(),
            HandleError::WrongType {
                expected: "string",
                found: "counter"
            }
        );
        assert!(remove(a).is_some());
        assert!(remove(a).is_none(), "closing twice is harmless");
        assert_eq!(
            get::<Mutex<u32>>(a, "counter").unwrap_err(),
            HandleError::Closed("counter")
        );
        for bad in [0, -1, i64::MIN, 1, 7 << 32] {
            assert!(get::<Mutex<u32>>(bad, "counter").is_err(), "{bad}");
            assert!(remove(bad).is_none());
        }
        assert_eq!(open_count(), before);
    }

    #[test]
    fn tokens_round_trip_and_stay_positive() {
        for k in [
            Key {
                index: 0,
                generation: 1,
            },
            Key {
                index: u32::MAX as usize - 1,
                generation: MAX_GENERATION,
            },
        ] {
            let t = token(k);
            assert!(t > 0, "{k:?}");
            assert_eq!(key(t), Some(k));
        }
    }
}
