//! NBT as the metadata section uses it: a shape check that walks untrusted bytes before any
//! decode ([`check_nbt_shape`], with its depth and value bounds), deterministic encoding (compound
//! keys sorted, [`Sorted`]) and typed lookups in decoded compounds. Bytes only: no I/O.

use std::collections::{BTreeMap, HashMap};

use fastnbt::Value;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use crate::error::{Error, Result};

/// Deepest nesting of compounds/lists accepted on read (Minecraft's own limit).
pub(crate) const MAX_NBT_DEPTH: usize = 512;
/// Most NBT values (compounds, lists, their entries and elements; the elements of byte, int and
/// long arrays are not values) accepted in one metadata section. What metadata costs in memory
/// once decoded follows the values, not the bytes: an empty compound is one byte on disk and
/// about a hundred in memory, so 16 MiB of them took 2.9 GB. 2^21 values fit the library's own
/// metadata for over 300,000 registered entities (six values each) and bound a decode to a few
/// hundred MB.
pub(crate) const MAX_NBT_VALUES: usize = 1 << 21;

pub(super) fn compounds(v: Value, what: &str) -> Result<Vec<HashMap<String, Value>>> {
    match v {
        Value::List(items) => items
            .into_iter()
            .map(|i| match i {
                Value::Compound(c) => Ok(c),
                _ => Err(Error::corrupt(format!("{what}: entry is not a compound"))),
            })
            .collect(),
        _ => Err(Error::corrupt(format!("{what} is not a list"))),
    }
}

pub(super) fn get_int(c: &HashMap<String, Value>, k: &str) -> Option<i32> {
    match c.get(k)? {
        Value::Int(v) => Some(*v),
        _ => None,
    }
}

pub(super) fn get_long(c: &HashMap<String, Value>, k: &str) -> Option<i64> {
    match c.get(k)? {
        Value::Long(v) => Some(*v),
        Value::Int(v) => Some(i64::from(*v)),
        _ => None,
    }
}

pub(super) fn get_string(c: &HashMap<String, Value>, k: &str) -> Option<String> {
    match c.get(k)? {
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// Serialises a `Value` with compound keys in sorted order (fastnbt's own order follows a HashMap).
pub(super) struct Sorted<'a>(pub(super) &'a Value);

impl Serialize for Sorted<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self.0 {
            Value::Compound(map) => {
                let sorted: BTreeMap<&String, &Value> = map.iter().collect();
                let mut m = s.serialize_map(Some(sorted.len()))?;
                for (k, v) in sorted {
                    m.serialize_entry(k, &Sorted(v))?;
                }
                m.end()
            }
            Value::List(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for i in items {
                    seq.serialize_element(&Sorted(i))?;
                }
                seq.end()
            }
            other => other.serialize(s),
        }
    }
}

/// Walks NBT bytes without recursion, in time proportional to their length, and rejects nesting
/// deeper than `MAX_NBT_DEPTH` (512; a hostile file cannot overflow the parser's stack) and more
/// than `MAX_NBT_VALUES` (2^21) values (nor make a decode take gigabytes). Lengths are bounds-checked
/// against the input.
pub fn check_nbt_shape(bytes: &[u8]) -> Result<()> {
    use crate::format::bytes::ByteReader;
    enum Frame {
        Compound,
        List { tag: u8, left: u32 },
    }
    fn skip_scalar(r: &mut ByteReader<'_>, tag: u8) -> Result<bool> {
        let n = match tag {
            1 => 1,
            2 => 2,
            3 | 5 => 4,
            4 | 6 => 8,
            7 => (r.u32_be()? as usize).saturating_mul(1),
            8 => r.u16_be()? as usize,
            11 => (r.u32_be()? as usize).saturating_mul(4),
            12 => (r.u32_be()? as usize).saturating_mul(8),
            9 | 10 => return Ok(false),
            t => return Err(Error::corrupt(format!("metadata: unknown NBT tag {t}"))),
        };
        r.bytes(n)?;
        Ok(true)
    }
    let mut r = ByteReader::new(bytes);
    let root = r.u8()?;
    if root != 10 {
        return Err(Error::corrupt("metadata root is not an NBT compound"));
    }
    let name_len = r.u16_be()? as usize;
    r.bytes(name_len)?;
    let mut stack = vec![Frame::Compound];
    let mut values = 1usize;
    while let Some(top) = stack.last_mut() {
        let tag = match top {
            Frame::Compound => {
                let tag = r.u8()?;
                if tag == 0 {
                    stack.pop();
                    continue;
                }
                let n = r.u16_be()? as usize;
                r.bytes(n)?;
                tag
            }
            Frame::List { tag, left } => {
                if *left == 0 {
                    stack.pop();
                    continue;
                }
                *left -= 1;
                *tag
            }
        };
        values += 1;
        if values > MAX_NBT_VALUES {
            return Err(Error::limit(format!(
                "metadata holds more than {MAX_NBT_VALUES} NBT values"
            )));
        }
        if !skip_scalar(&mut r, tag)? {
            if stack.len() >= MAX_NBT_DEPTH {
                return Err(Error::limit(format!(
                    "metadata nests deeper than {MAX_NBT_DEPTH} levels"
                )));
            }
            if tag == 10 {
                stack.push(Frame::Compound);
            } else {
                let elem = r.u8()?;
                let len = r.u32_be()?;
                if len > 0 && elem == 0 {
                    return Err(Error::corrupt("metadata: non-empty list of End tags"));
                }
                stack.push(Frame::List {
                    tag: elem,
                    left: len,
                });
            }
        }
    }
    Ok(())
}
