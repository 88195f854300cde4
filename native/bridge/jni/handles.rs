//! The handle registry: Java holds a `long`, Rust holds an `Arc` in a slot table.
//!
//! A handle is `(generation << 32) | (slot + 1)`, so `0` is never valid and a handle that was closed
//! (its slot freed and perhaps reused) fails the generation check instead of reaching another object.
//! A call clones the `Arc` out of the registry and works on its own reference; `close` only removes
//! the registry's reference. So a close racing with calls on other threads is safe: the object is
//! dropped when the last in-flight call returns, never while one uses it.

use std::any::Any;
use std::sync::Arc;

use parking_lot::RwLock;

type Object = Arc<dyn Any + Send + Sync>;

struct Slot {
    generation: u32,
    object: Option<(Object, &'static str)>,
}

#[derive(Default)]
struct Slots {
    slots: Vec<Slot>,
    free: Vec<u32>,
}

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

/// Highest generation before wrapping back to 1 (keeps handles positive as Java longs).
const MAX_GENERATION: u32 = i32::MAX as u32;

/// The registry of one library instance.
#[derive(Default)]
pub(crate) struct Registry {
    inner: RwLock<Slots>,
}

impl Registry {
    pub(crate) const fn new() -> Registry {
        Registry {
            inner: RwLock::new(Slots {
                slots: Vec::new(),
                free: Vec::new(),
            }),
        }
    }

    /// Stores `object` and returns its handle. `what` names the type in error messages.
    pub(crate) fn insert<T: Any + Send + Sync>(&self, what: &'static str, object: Arc<T>) -> i64 {
        let mut s = self.inner.write();
        let index = match s.free.pop() {
            Some(i) => i,
            None => {
                s.slots.push(Slot {
                    generation: 0,
                    object: None,
                });
                u32::try_from(s.slots.len() - 1).expect("fewer than 2^32 live handles")
            }
        };
        let slot = &mut s.slots[index as usize];
        slot.generation = if slot.generation >= MAX_GENERATION {
            1
        } else {
            slot.generation + 1
        };
        slot.object = Some((object, what));
        (i64::from(slot.generation) << 32) | (i64::from(index) + 1)
    }

    /// A new reference to the object behind `handle`, if it is open and of type `T`.
    pub(crate) fn get<T: Any + Send + Sync>(
        &self,
        handle: i64,
        expected: &'static str,
    ) -> Result<Arc<T>, HandleError> {
        let (object, found) = {
            let s = self.inner.read();
            let (index, generation) = split(handle).ok_or(HandleError::Closed(expected))?;
            let slot = s
                .slots
                .get(index)
                .filter(|slot| slot.generation == generation)
                .ok_or(HandleError::Closed(expected))?;
            let (object, found) = slot.object.as_ref().ok_or(HandleError::Closed(expected))?;
            (Arc::clone(object), *found)
        };
        object
            .downcast::<T>()
            .map_err(|_| HandleError::WrongType { expected, found })
    }

    /// Removes the registry's reference; returns it (so the caller drops it outside the lock), or
    /// `None` if the handle was already closed. Closing twice is harmless.
    pub(crate) fn remove(&self, handle: i64) -> Option<Object> {
        let (index, generation) = split(handle)?;
        let mut s = self.inner.write();
        let slot = s.slots.get_mut(index)?;
        if slot.generation != generation {
            return None;
        }
        let (object, _) = slot.object.take()?;
        s.free.push(index as u32);
        Some(object)
    }

    /// Number of open handles.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        let s = self.inner.read();
        s.slots.iter().filter(|s| s.object.is_some()).count()
    }
}

fn split(handle: i64) -> Option<(usize, u32)> {
    let low = (handle & 0xFFFF_FFFF) as u32;
    let generation = (handle >> 32) as u32;
    if low == 0 || generation == 0 || handle < 0 {
        return None;
    }
    Some(((low - 1) as usize, generation))
}

#[cfg(test)]
mod tests {
    use super::*;
    use parking_lot::Mutex;

    #[test]
    fn handles_are_checked_by_generation_and_type() {
        let r = Registry::new();
        let a = r.insert("counter", Arc::new(Mutex::new(1u32)));
        assert!(a > 0);
        assert_eq!(*r.get::<Mutex<u32>>(a, "counter").unwrap().lock(), 1);
        assert_eq!(
            r.get::<String>(a, "string").unwrap_err(),
            HandleError::WrongType {
                expected: "string",
                found: "counter"
            }
        );
        assert!(r.remove(a).is_some());
        assert!(r.remove(a).is_none(), "closing twice is harmless");
        assert_eq!(
            r.get::<Mutex<u32>>(a, "counter").unwrap_err(),
            HandleError::Closed("counter")
        );
        // The slot is reused with a new generation: the stale handle stays closed.
        let b = r.insert("counter", Arc::new(Mutex::new(2u32)));
        assert_ne!(a, b);
        assert_eq!(a & 0xFFFF_FFFF, b & 0xFFFF_FFFF);
        assert!(r.get::<Mutex<u32>>(a, "counter").is_err());
        assert_eq!(*r.get::<Mutex<u32>>(b, "counter").unwrap().lock(), 2);
        for bad in [0, -1, i64::MIN, 1, 7 << 32] {
            assert!(r.get::<Mutex<u32>>(bad, "counter").is_err(), "{bad}");
            assert!(r.remove(bad).is_none());
        }
        assert_eq!(r.len(), 1);
    }

    #[test]
    fn close_while_in_use_keeps_the_object_alive_for_the_user() {
        let r = Registry::new();
        let h = r.insert("text", Arc::new(String::from("still here")));
        let in_flight = r.get::<String>(h, "text").unwrap();
        drop(r.remove(h));
        assert_eq!(in_flight.as_str(), "still here");
        assert!(r.get::<String>(h, "text").is_err());
    }

    #[test]
    fn concurrent_insert_get_remove() {
        let r = Arc::new(Registry::new());
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let r = Arc::clone(&r);
                std::thread::spawn(move || {
                    for i in 0..2000u32 {
                        let h = r.insert("n", Arc::new(t * 100_000 + i));
                        assert_eq!(*r.get::<u32>(h, "n").unwrap(), t * 100_000 + i);
                        assert!(r.remove(h).is_some());
                        assert!(r.get::<u32>(h, "n").is_err());
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(r.len(), 0);
    }
}
