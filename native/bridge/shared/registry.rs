//! The one handle registry: C and Java hold tokens, Rust holds `Arc`s in a slot table.
//!
//! A [`Key`] is a slot index and the slot's generation. Each binding encodes keys as its own
//! tokens (C: generation, type tag and index packed into a pointer-sized value; Java: a positive
//! `long`), and gets the same guarantees from here:
//! - A removed key is rejected for ever, double removes included: removing bumps the slot's
//!   generation, and a slot whose generation would pass the encoding's maximum is retired rather
//!   than reused, so a stale token can never match a later occupant.
//! - A key of another type is rejected (the slot remembers its object's type and name).
//! - Removing while another thread uses the object is memory-safe: a call clones the `Arc` out
//!   and works on its own reference; the object is dropped when the last such call returns.

use std::any::{Any, TypeId};
use std::sync::Arc;

use tickreel_sync::sync::RwLock;

type Object = Arc<dyn Any + Send + Sync>;

/// A slot index and the generation of its occupant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key {
    pub(crate) index: usize,
    pub(crate) generation: u64,
}

/// Why a key does not name a live object of the expected type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// Never handed out by this registry (garbage, or a token of another library instance).
    Unknown,
    /// Handed out, then removed.
    Removed,
    /// A live object of another type, named.
    WrongType(&'static str),
}

/// Every live handle slot is in use (the encoding's limit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Full(pub(crate) usize);

struct Entry {
    object: Object,
    type_id: TypeId,
    name: &'static str,
}

struct Slot {
    /// Generation of the current or next occupant (starts at 1, so no key has generation 0).
    generation: u64,
    entry: Option<Entry>,
}

struct Table {
    slots: Vec<Slot>,
    free: Vec<usize>,
    live: usize,
}

/// A handle registry, bounded by what its tokens can encode.
pub(crate) struct Registry {
    table: RwLock<Table>,
    max_slots: usize,
    max_generation: u64,
}

impl Registry {
    /// A registry of at most `max_slots` live handles whose generations never pass
    /// `max_generation` (both set by the token encoding).
    pub(crate) const fn new(max_slots: usize, max_generation: u64) -> Registry {
        Registry {
            table: RwLock::new(Table {
                slots: Vec::new(),
                free: Vec::new(),
                live: 0,
            }),
            max_slots,
            max_generation,
        }
    }

    /// Stores `object` and returns its key. `name` names the type in error messages.
    pub(crate) fn insert<T: Any + Send + Sync>(
        &self,
        name: &'static str,
        object: Arc<T>,
    ) -> Result<Key, Full> {
        let mut t = self.table.write();
        let index = match t.free.pop() {
            Some(i) => i,
            None if t.slots.len() < self.max_slots => {
                t.slots.push(Slot {
                    generation: 1,
                    entry: None,
                });
                t.slots.len() - 1
            }
            None => return Err(Full(self.max_slots)),
        };
        let slot = &mut t.slots[index];
        slot.entry = Some(Entry {
            object,
            type_id: TypeId::of::<T>(),
            name,
        });
        let key = Key {
            index,
            generation: slot.generation,
        };
        t.live += 1;
        Ok(key)
    }

    /// The live entry at `key`, if its type is `T`.
    fn locate<T: Any>(t: &Table, key: Key) -> Result<&Entry, Lookup> {
        let slot = t.slots.get(key.index).ok_or(Lookup::Unknown)?;
        if key.generation == 0 || key.generation > slot.generation {
            return Err(Lookup::Unknown);
        }
        let entry = slot
            .entry
            .as_ref()
            .filter(|_| key.generation == slot.generation)
            .ok_or(Lookup::Removed)?;
        if entry.type_id != TypeId::of::<T>() {
            return Err(Lookup::WrongType(entry.name));
        }
        Ok(entry)
    }

    /// A new reference to the object at `key`, if it is live and of type `T`.
    pub(crate) fn get<T: Any + Send + Sync>(&self, key: Key) -> Result<Arc<T>, Lookup> {
        let object = Arc::clone(&Self::locate::<T>(&self.table.read(), key)?.object);
        Ok(object.downcast::<T>().expect("the slot's type was checked"))
    }

    /// Removes the object at `key` if it is live and of type `T`, and returns the registry's
    /// reference for the caller to drop outside the lock.
    pub(crate) fn remove<T: Any + Send + Sync>(&self, key: Key) -> Result<Arc<T>, Lookup> {
        let mut t = self.table.write();
        Self::locate::<T>(&t, key)?;
        let object = self.take(&mut t, key.index);
        Ok(object.downcast::<T>().expect("the slot's type was checked"))
    }

    /// Removes the object at `key`, whatever its type.
    pub(crate) fn remove_any(&self, key: Key) -> Result<Object, Lookup> {
        let mut t = self.table.write();
        let slot = t.slots.get(key.index).ok_or(Lookup::Unknown)?;
        if key.generation == 0 || key.generation > slot.generation {
            return Err(Lookup::Unknown);
        }
        if key.generation < slot.generation || slot.entry.is_none() {
            return Err(Lookup::Removed);
        }
        Ok(self.take(&mut t, key.index))
    }

    fn take(&self, t: &mut Table, index: usize) -> Object {
        let slot = &mut t.slots[index];
        let entry = slot.entry.take().expect("located slot is occupied");
        slot.generation += 1;
        if slot.generation <= self.max_generation {
            t.free.push(index);
        } // else: retired for ever, so that no stale token can match a later occupant
        t.live -= 1;
        entry.object
    }

    /// Removes every live object (as [`Registry::remove_any`] would, one by one) and returns the
    /// registry's references for the caller to drop outside the lock.
    pub(crate) fn remove_all(&self) -> Vec<Object> {
        let mut t = self.table.write();
        let occupied: Vec<usize> = (0..t.slots.len())
            .filter(|&i| t.slots[i].entry.is_some())
            .collect();
        occupied.into_iter().map(|i| self.take(&mut t, i)).collect()
    }

    /// Number of live handles.
    pub(crate) fn live(&self) -> usize {
        self.table.read().live
    }

    /// Test support: sets the generation of the slot at `index` (to test retirement).
    #[cfg(test)]
    pub(crate) fn set_generation(&self, index: usize, generation: u64) {
        self.table.write().slots[index].generation = generation;
    }

    /// Test support: whether the slot at `index` is waiting to be reused.
    #[cfg(test)]
    pub(crate) fn is_free(&self, index: usize) -> bool {
        self.table.read().free.contains(&index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remove_all_takes_every_live_object_and_invalidates_its_keys() {
        let r = Registry::new(8, 100);
        let a = r.insert("counter", Arc::new(1u32)).unwrap();
        let b = r.insert("name", Arc::new(String::from("b"))).unwrap();
        let c = r.insert("counter", Arc::new(3u32)).unwrap();
        r.remove::<String>(b).unwrap();
        let all = r.remove_all();
        assert_eq!(all.len(), 2);
        assert_eq!(r.live(), 0);
        assert_eq!(r.get::<u32>(a).unwrap_err(), Lookup::Removed);
        assert_eq!(r.get::<u32>(c).unwrap_err(), Lookup::Removed);
        assert!(r.remove_all().is_empty());
        let d = r.insert("counter", Arc::new(4u32)).unwrap();
        assert_ne!(d, a);
        assert_eq!(*r.get::<u32>(d).unwrap(), 4);
    }

    #[test]
    fn keys_are_checked_by_generation_and_type() {
        let r = Registry::new(8, 100);
        let a = r.insert("counter", Arc::new(1u32)).unwrap();
        assert_eq!(a.generation, 1);
        assert_eq!(*r.get::<u32>(a).unwrap(), 1);
        assert_eq!(
            r.get::<String>(a).unwrap_err(),
            Lookup::WrongType("counter")
        );
        assert_eq!(
            r.remove::<String>(a).unwrap_err(),
            Lookup::WrongType("counter")
        );
        assert_eq!(*r.remove::<u32>(a).unwrap(), 1);
        assert_eq!(r.remove::<u32>(a).unwrap_err(), Lookup::Removed);
        assert_eq!(r.remove_any(a).unwrap_err(), Lookup::Removed);
        assert_eq!(r.get::<u32>(a).unwrap_err(), Lookup::Removed);
        // Reused with the next generation: the stale key stays removed.
        let b = r.insert("counter", Arc::new(2u32)).unwrap();
        assert_eq!((b.index, b.generation), (a.index, 2));
        assert_eq!(r.get::<u32>(a).unwrap_err(), Lookup::Removed);
        assert_eq!(*r.get::<u32>(b).unwrap(), 2);
        for bad in [
            Key {
                index: 5,
                generation: 1,
            },
            Key {
                index: b.index,
                generation: 0,
            },
            Key {
                index: b.index,
                generation: 3,
            },
        ] {
            assert_eq!(r.get::<u32>(bad).unwrap_err(), Lookup::Unknown, "{bad:?}");
            assert_eq!(r.remove_any(bad).unwrap_err(), Lookup::Unknown, "{bad:?}");
        }
        assert_eq!(r.live(), 1);
        assert!(r.remove_any(b).is_ok());
        assert_eq!(r.live(), 0);
    }

    #[test]
    fn removing_while_in_use_keeps_the_object_for_the_user() {
        let r = Registry::new(8, 100);
        let k = r
            .insert("text", Arc::new(String::from("still here")))
            .unwrap();
        let in_flight = r.get::<String>(k).unwrap();
        drop(r.remove_any(k));
        assert_eq!(in_flight.as_str(), "still here");
        assert!(r.get::<String>(k).is_err());
    }

    #[test]
    fn slots_at_the_last_generation_are_retired_and_the_table_is_bounded() {
        let r = Registry::new(2, 5);
        let k = r.insert("n", Arc::new(1u8)).unwrap();
        r.set_generation(k.index, 5);
        let k = Key { generation: 5, ..k };
        assert!(r.remove::<u8>(k).is_ok());
        assert!(
            !r.is_free(k.index),
            "a slot past the last generation must not be reused"
        );
        let a = r.insert("n", Arc::new(2u8)).unwrap();
        assert_ne!(a.index, k.index);
        assert_eq!(r.insert("n", Arc::new(3u8)).unwrap_err(), Full(2));
        assert_eq!(r.get::<u8>(k).unwrap_err(), Lookup::Removed);
    }

    #[test]
    fn concurrent_insert_get_remove() {
        let r = Arc::new(Registry::new(1 << 20, u64::from(u32::MAX)));
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let r = Arc::clone(&r);
                std::thread::spawn(move || {
                    for i in 0..2000u32 {
                        let k = r.insert("n", Arc::new(t * 100_000 + i)).unwrap();
                        assert_eq!(*r.get::<u32>(k).unwrap(), t * 100_000 + i);
                        assert!(r.remove::<u32>(k).is_ok());
                        assert!(r.get::<u32>(k).is_err());
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(r.live(), 0);
    }
}
