//! The palette: the names of the small ids world events use (block states, items, damage
//! causes), kept in the metadata (`tickreel.palette`) so that a recording explains itself across
//! game versions: block state 7 is `"minecraft:oak_stairs[facing=north]"` in this recording,
//! whatever the numbering of the game that plays it back.
//!
//! NBT: `palette: { blocks: { ids: IntArray, names: List<String> }, items: …, damage: … }`, each
//! kind absent when it has no name, the whole compound absent when the palette is empty; `ids`
//! ascending and `names` in the same order.

use std::collections::{BTreeMap, HashMap};

use fastnbt::Value;

use crate::error::{Error, Result};

/// Longest name (bytes of UTF-8).
pub const MAX_PALETTE_NAME_BYTES: usize = 256;
/// Most names of one kind (Minecraft has about 27,000 block states).
pub const MAX_PALETTE_NAMES: usize = 1 << 17;

/// What a palette id names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PaletteKind {
    /// A block state (`BlockChange::state`): `"minecraft:stone"`, `"minecraft:oak_stairs[facing=north]"`.
    Block = 0,
    /// An item (`Use::item`, `Equipment::item`): `"minecraft:diamond_sword"`.
    Item = 1,
    /// A damage cause (`Damage::cause`): `"minecraft:fall"`.
    DamageCause = 2,
}

impl PaletteKind {
    pub const ALL: [PaletteKind; 3] = [
        PaletteKind::Block,
        PaletteKind::Item,
        PaletteKind::DamageCause,
    ];

    /// The kind's code in C and Java (0 block, 1 item, 2 damage cause).
    pub fn from_code(code: u32) -> Result<PaletteKind> {
        match code {
            0 => Ok(PaletteKind::Block),
            1 => Ok(PaletteKind::Item),
            2 => Ok(PaletteKind::DamageCause),
            c => Err(Error::invalid(format!(
                "palette kind {c}; 0 (block), 1 (item) or 2 (damage cause)"
            ))),
        }
    }

    /// The kind's key in the metadata.
    pub fn key(self) -> &'static str {
        match self {
            PaletteKind::Block => "blocks",
            PaletteKind::Item => "items",
            PaletteKind::DamageCause => "damage",
        }
    }

    fn what(self) -> &'static str {
        match self {
            PaletteKind::Block => "block state",
            PaletteKind::Item => "item",
            PaletteKind::DamageCause => "damage cause",
        }
    }
}

/// Names of palette ids, by kind.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Palette {
    names: [BTreeMap<u32, String>; 3],
}

impl Palette {
    /// The name of `id` of `kind`, if the recording names it.
    pub fn name(&self, kind: PaletteKind, id: u32) -> Option<&str> {
        self.names[kind as usize].get(&id).map(String::as_str)
    }

    /// Every name of `kind`, by id.
    pub fn names(&self, kind: PaletteKind) -> &BTreeMap<u32, String> {
        &self.names[kind as usize]
    }

    /// The id named `name` of `kind` (a linear search: for tools, not per event).
    pub fn id_of(&self, kind: PaletteKind, name: &str) -> Option<u32> {
        self.names[kind as usize]
            .iter()
            .find(|(_, n)| n.as_str() == name)
            .map(|(&id, _)| id)
    }

    pub fn is_empty(&self) -> bool {
        self.names.iter().all(BTreeMap::is_empty)
    }

    /// Names `id`; `Ok(false)` if it already has this name. Refuses (`InvalidArgument`) a name
    /// for an id that has another (events already recorded would change meaning), an empty or too
    /// long name, and more than [`MAX_PALETTE_NAMES`] names of a kind.
    pub fn insert(&mut self, kind: PaletteKind, id: u32, name: &str) -> Result<bool> {
        check_name(kind, id, name)?;
        let map = &mut self.names[kind as usize];
        match map.get(&id) {
            Some(n) if n == name => Ok(false),
            Some(n) => Err(Error::invalid(format!(
                "{} {id} is named {n:?} already; it cannot become {name:?}",
                kind.what()
            ))),
            None if map.len() >= MAX_PALETTE_NAMES => Err(Error::limit(format!(
                "more than {MAX_PALETTE_NAMES} {} names",
                kind.what()
            ))),
            None => {
                map.insert(id, name.to_owned());
                Ok(true)
            }
        }
    }

    /// Adds every name of `other` that `self` does not have (a report gathering its sources').
    /// Conflicting names keep `self`'s.
    pub fn extend_from(&mut self, other: &Palette) {
        for (mine, theirs) in self.names.iter_mut().zip(&other.names) {
            for (id, n) in theirs {
                mine.entry(*id).or_insert_with(|| n.clone());
            }
        }
    }

    pub(crate) fn to_value(&self) -> Option<Value> {
        if self.is_empty() {
            return None;
        }
        let mut m = HashMap::new();
        for kind in PaletteKind::ALL {
            let names = self.names(kind);
            if names.is_empty() {
                continue;
            }
            let mut c = HashMap::new();
            c.insert(
                "ids".to_owned(),
                Value::IntArray(fastnbt::IntArray::new(
                    names.keys().map(|&id| id as i32).collect(),
                )),
            );
            c.insert(
                "names".to_owned(),
                Value::List(names.values().map(|n| Value::String(n.clone())).collect()),
            );
            m.insert(kind.key().to_owned(), Value::Compound(c));
        }
        Some(Value::Compound(m))
    }

    pub(crate) fn from_value(v: Value) -> Result<Palette> {
        let Value::Compound(mut m) = v else {
            return Err(Error::corrupt("palette is not a compound"));
        };
        let mut out = Palette::default();
        for kind in PaletteKind::ALL {
            let Some(c) = m.remove(kind.key()) else {
                continue;
            };
            let bad = |why: &str| Error::corrupt(format!("palette {}: {why}", kind.key()));
            let Value::Compound(mut c) = c else {
                return Err(bad("not a compound"));
            };
            let Some(Value::IntArray(ids)) = c.remove("ids") else {
                return Err(bad("no ids"));
            };
            let Some(Value::List(names)) = c.remove("names") else {
                return Err(bad("no names"));
            };
            if ids.len() != names.len() {
                return Err(bad("as many ids as names"));
            }
            if ids.len() > MAX_PALETTE_NAMES {
                return Err(bad("too many names"));
            }
            for (&id, name) in ids.iter().zip(names) {
                let Value::String(name) = name else {
                    return Err(bad("a name is not a string"));
                };
                let fresh = out
                    .insert(kind, id as u32, &name)
                    .map_err(|e| bad(&e.to_string()))?;
                if !fresh {
                    return Err(bad("an id twice"));
                }
            }
        }
        Ok(out)
    }
}

fn check_name(kind: PaletteKind, id: u32, name: &str) -> Result<()> {
    if name.is_empty() || name.len() > MAX_PALETTE_NAME_BYTES {
        return Err(Error::invalid(format!(
            "the name of {} {id} has {} bytes; 1 to {MAX_PALETTE_NAME_BYTES}",
            kind.what(),
            name.len()
        )));
    }
    Ok(())
}

/// A name's `(bytes, values)` at most in the metadata: its id in the kind's `ids` array and its
/// string in `names` (a list element: no tag, no key), plus each kind's compound, array and
/// list headers counted once per name (an upper bound).
pub(crate) fn name_bytes(name: &str) -> (usize, usize) {
    (4 + 2 + name.len() * 3 + 16, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_nbt_and_refuse_a_rename() {
        let mut p = Palette::default();
        assert!(p.to_value().is_none());
        assert!(p.insert(PaletteKind::Block, 1, "minecraft:stone").unwrap());
        assert!(!p.insert(PaletteKind::Block, 1, "minecraft:stone").unwrap());
        assert!(
            p.insert(PaletteKind::Block, 1, "minecraft:dirt")
                .unwrap_err()
                .to_string()
                .contains("named \"minecraft:stone\" already")
        );
        p.insert(PaletteKind::Block, 7, "minecraft:oak_stairs[facing=north]")
            .unwrap();
        p.insert(PaletteKind::Item, 7, "minecraft:diamond_sword")
            .unwrap();
        p.insert(PaletteKind::DamageCause, 0, "minecraft:fall")
            .unwrap();
        assert!(p.insert(PaletteKind::Item, 2, "").is_err());
        assert!(p.insert(PaletteKind::Item, 2, &"x".repeat(257)).is_err());
        let back = Palette::from_value(p.to_value().unwrap()).unwrap();
        assert_eq!(back, p);
        assert_eq!(
            back.name(PaletteKind::Item, 7),
            Some("minecraft:diamond_sword")
        );
        assert_eq!(back.id_of(PaletteKind::Block, "minecraft:stone"), Some(1));
        assert_eq!(back.name(PaletteKind::Item, 1), None);
    }

    #[test]
    fn crafted_palettes_are_refused() {
        let arr = |v: Vec<i32>| Value::IntArray(fastnbt::IntArray::new(v));
        let s = |x: &str| Value::String(x.into());
        let kind = |ids: Value, names: Value| {
            let mut c = HashMap::new();
            c.insert("ids".to_owned(), ids);
            c.insert("names".to_owned(), names);
            let mut m = HashMap::new();
            m.insert("blocks".to_owned(), Value::Compound(c));
            Value::Compound(m)
        };
        for (v, why) in [
            (kind(arr(vec![1, 2]), Value::List(vec![s("a")])), "as many"),
            (
                kind(arr(vec![1, 1]), Value::List(vec![s("a"), s("a")])),
                "twice",
            ),
            (
                kind(arr(vec![1]), Value::List(vec![Value::Int(3)])),
                "not a string",
            ),
            (kind(arr(vec![1]), Value::List(vec![s("")])), "bytes"),
            (kind(s("x"), Value::List(vec![])), "no ids"),
        ] {
            let e = Palette::from_value(v).unwrap_err().to_string();
            assert!(e.contains(why), "{e}");
        }
    }
}
