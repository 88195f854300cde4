//! The limits of the format, in one place for writers and readers: a reader refuses anything over
//! [`Limits`] before it allocates, and every writer refuses, at the call, whatever would make a
//! chunk or the metadata exceed them (FORMAT.md, section 12). A new chunk holds at most a snapshot
//! ([`Limits::max_snapshot_bytes`]), a keyframe ([`Limits::max_alive_entities`] entries of
//! [`KEYFRAME_ENTRY_MAX`] bytes) and one tick ([`Limits::max_tick_bytes`]), a quarter of
//! `max_chunk_bytes` each; a chunk is cut before a tick that could take it past
//! [`Limits::chunk_cut_bytes`] (an upper bound, not an estimate). So no chunk a writer accepts can
//! be refused by a reader.
//!
//! A frame's compressed length also bounds its uncompressed length ([`check_expansion`]), so that
//! decompressing costs at most [`MAX_EXPANSION`] bytes of output per byte read (plus
//! [`EXPANSION_SLACK`] per chunk); writers pad payloads that compress better than that.

use crate::format::palette::{MAX_PALETTE_NAMES, Palette, PaletteKind, name_bytes};
use std::collections::HashMap;

use fastnbt::Value;

use crate::error::{Error, Result};
use crate::format::event::Event;
use crate::format::metadata::{EntityInfo, EventType, Metadata};

/// Limits applied to every length read from untrusted bytes before anything is allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest metadata section accepted.
    pub max_metadata_bytes: usize,
    /// Largest index section accepted.
    pub max_index_bytes: usize,
    /// Largest uncompressed chunk payload accepted.
    pub max_chunk_bytes: usize,
    /// Most ticks one chunk may span.
    pub max_chunk_ticks: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_metadata_bytes: 16 << 20,
            max_index_bytes: 256 << 20,
            max_chunk_bytes: 64 << 20,
            max_chunk_ticks: 1 << 20,
        }
    }
}

/// Upper bound of one entity's keyframe entry (id, kind, flags, pose as varints).
pub(crate) const KEYFRAME_ENTRY_MAX: usize = 64;

/// Upper bound of one event's bytes in a chunk besides a custom payload (a pose sample's five
/// residual varints and its run entry included).
pub(crate) const EVENT_BYTES_MAX: usize = 64;

/// Uncompressed bytes a chunk may hold per byte of its compressed payload, beyond
/// [`EXPANSION_SLACK`]: a reader refuses, before decompressing, a frame whose
/// `uncompressed length > EXPANSION_SLACK + MAX_EXPANSION × compressed length`, so that the time and
/// memory decompression takes are bounded by the bytes read (FORMAT.md, section 12). Writers pad a
/// payload that compresses better than this (see [`crate::format::frame::pad_payload`]).
pub(crate) const MAX_EXPANSION: u64 = 256;

/// Uncompressed bytes a chunk may hold whatever its compressed length: small chunks are never
/// padded.
pub(crate) const EXPANSION_SLACK: u64 = 4096;

/// The most uncompressed bytes a reader accepts from a payload of `compressed` bytes.
pub fn max_uncompressed_len(compressed: u64) -> u64 {
    EXPANSION_SLACK.saturating_add(MAX_EXPANSION.saturating_mul(compressed))
}

/// The fewest compressed bytes a payload of `uncompressed` bytes must take for a reader to accept
/// it: what a writer pads to.
pub fn min_compressed_len(uncompressed: u64) -> u64 {
    uncompressed
        .saturating_sub(EXPANSION_SLACK)
        .div_ceil(MAX_EXPANSION)
}

/// Refuses (`LimitExceeded`) a chunk whose uncompressed length exceeds what its compressed length
/// allows ([`max_uncompressed_len`]). `start_tick` names the chunk in the error.
pub(crate) fn check_expansion(compressed: u32, uncompressed: u32, start_tick: u32) -> Result<()> {
    let max = max_uncompressed_len(u64::from(compressed));
    if u64::from(uncompressed) > max {
        return Err(Error::limit(format!(
            "chunk at tick {start_tick}: {uncompressed} bytes uncompressed from {compressed} \
             compressed; at most {max} ({EXPANSION_SLACK} + {MAX_EXPANSION} per compressed byte)"
        )));
    }
    Ok(())
}

/// Bytes the metadata budget keeps for the library's own keys (stats, gaps, analysis totals).
const LIBRARY_RESERVE: usize = 256 << 10;
/// NBT values the metadata budget keeps for the library's own keys, of the
/// [`crate::format::metadata::MAX_NBT_VALUES`] a reader accepts.
const LIBRARY_RESERVE_VALUES: usize = 1 << 16;

impl Limits {
    /// The largest snapshot a writer accepts (16 MiB by default).
    pub fn max_snapshot_bytes(&self) -> usize {
        self.max_chunk_bytes / 4
    }
    /// The largest tick a writer accepts, its events as stored in a chunk (16 MiB by default).
    pub fn max_tick_bytes(&self) -> usize {
        self.max_chunk_bytes / 4
    }
    /// A writer cuts a chunk before a tick that could take it past this many bytes (60 MiB by
    /// default: the rest leaves room for zstd's worst case on incompressible bytes).
    pub(crate) fn chunk_cut_bytes(&self) -> usize {
        self.max_chunk_bytes - self.max_chunk_bytes / 16
    }
    /// Most entities alive at once in a recording (262,144 by default).
    pub fn max_alive_entities(&self) -> usize {
        self.max_chunk_bytes / 4 / KEYFRAME_ENTRY_MAX
    }

    /// Most edited blocks (and most block entities) in the world a recording keeps, and in one
    /// snapshot's world section (1,048,576 by default): bounds the memory of a decoded world
    /// whatever a file claims. Writers refuse a tick that would take the world past it.
    pub fn max_world_blocks(&self) -> usize {
        self.max_chunk_bytes / 64
    }

    /// Most sections in one terrain offer, and in the terrain in effect at a tick (16,384 by
    /// default: a 26×26-chunk area of 24 sections each).
    pub fn max_terrain_sections(&self) -> usize {
        self.max_chunk_bytes / 4096
    }
    /// Most bytes of a terrain offer's coded body, uncompressed (16 MiB by default): bounds the
    /// memory a decoded terrain takes (at most 4 times its body) whatever a file claims.
    pub fn max_terrain_bytes(&self) -> usize {
        self.max_chunk_bytes / 4
    }

    /// Most pose samples in one chunk (262,144 by default): with [`Limits::max_chunk_events`] and
    /// [`Limits::max_alive_entities`], what bounds the memory a decoded chunk takes whatever its
    /// bytes claim (FORMAT.md, section 12). Writers cut chunks before they reach it.
    pub fn max_chunk_samples(&self) -> usize {
        self.max_chunk_bytes / 256
    }
    /// Most stored events (everything but pose samples) in one chunk (262,144 by default).
    pub fn max_chunk_events(&self) -> usize {
        self.max_chunk_bytes / 256
    }

    /// Refuses a snapshot over [`Limits::max_snapshot_bytes`].
    pub(crate) fn check_snapshot(&self, len: usize) -> Result<()> {
        if len > self.max_snapshot_bytes() {
            return Err(Error::limit(format!(
                "a snapshot of {len} bytes; a chunk carries at most {} (a quarter of the {} bytes \
                 a reader accepts per chunk)",
                self.max_snapshot_bytes(),
                self.max_chunk_bytes
            )));
        }
        Ok(())
    }

    /// Refuses a tick whose events could take more than [`Limits::max_tick_bytes`] in a chunk;
    /// otherwise returns that upper bound.
    pub(crate) fn check_tick(&self, events: &[Event]) -> Result<usize> {
        let mut bytes = 0usize;
        for e in events {
            bytes += EVENT_BYTES_MAX;
            bytes += e.heap_bytes();
        }
        if bytes > self.max_tick_bytes() {
            return Err(Error::limit(format!(
                "a tick of {} events taking up to {bytes} bytes; a chunk takes at most {} per tick \
                 (a quarter of the {} bytes a reader accepts per chunk)",
                events.len(),
                self.max_tick_bytes(),
                self.max_chunk_bytes
            )));
        }
        Ok(bytes)
    }

    /// Refuses a tick that would bring the entities alive at once past
    /// [`Limits::max_alive_entities`]: `alive` now, `new` named by the tick and not alive.
    pub(crate) fn check_alive(&self, alive: usize, new: usize) -> Result<()> {
        if alive + new > self.max_alive_entities() {
            return Err(Error::limit(format!(
                "{alive} entities alive and {new} more in this tick; at most {} at once (their \
                 keyframe entries fill at most a quarter of a chunk)",
                self.max_alive_entities()
            )));
        }
        Ok(())
    }
}

/// An upper bound of the encoded metadata, kept as entries are set, so that writers refuse at the
/// call what would make the metadata exceed [`Limits::max_metadata_bytes`]. Replacing an entry
/// frees what it took.
#[derive(Debug, Clone)]
pub struct MetadataBudget {
    limit: usize,
    /// Per entry: `(bytes, values)` it takes at most.
    entities: HashMap<u32, (usize, usize)>,
    event_types: HashMap<u32, (usize, usize)>,
    user: HashMap<String, (usize, usize)>,
    /// Palette names by kind and id, with the name (a second name for an id is refused).
    names: HashMap<(PaletteKind, u32), String>,
    name_counts: [usize; 3],
    total: usize,
    /// NBT values, which a reader also bounds ([`crate::format::metadata::MAX_NBT_VALUES`]).
    values: usize,
}

impl MetadataBudget {
    /// An empty budget under `limits`.
    pub fn new(limits: &Limits) -> MetadataBudget {
        MetadataBudget {
            limit: limits.max_metadata_bytes,
            entities: HashMap::new(),
            event_types: HashMap::new(),
            user: HashMap::new(),
            names: HashMap::new(),
            name_counts: [0; 3],
            total: LIBRARY_RESERVE,
            values: LIBRARY_RESERVE_VALUES,
        }
    }

    /// A budget holding what `metadata` already has (a resumed recording). Never fails: metadata
    /// that was read back fits by definition.
    pub fn of(metadata: &Metadata, limits: &Limits) -> MetadataBudget {
        let mut b = MetadataBudget::new(limits);
        for e in &metadata.library.entities {
            let n = entity_bytes(e);
            b.add(n);
            b.entities.insert(e.id, n);
        }
        for t in &metadata.library.event_types {
            let n = event_type_bytes(t);
            b.add(n);
            b.event_types.insert(t.id, n);
        }
        for (k, v) in &metadata.user {
            let n = user_bytes(k, v);
            b.add(n);
            b.user.insert(k.clone(), n);
        }
        for kind in PaletteKind::ALL {
            for (&id, name) in metadata.library.palette.names(kind) {
                b.add(name_bytes(name));
                b.names.insert((kind, id), name.clone());
                b.name_counts[kind as usize] += 1;
            }
        }
        b
    }

    fn add(&mut self, (bytes, values): (usize, usize)) {
        self.total += bytes;
        self.values += values;
    }

    fn take(
        &mut self,
        old: Option<(usize, usize)>,
        new: (usize, usize),
        what: impl FnOnce() -> String,
    ) -> Result<()> {
        let (old_bytes, old_values) = old.unwrap_or((0, 0));
        let total = self.total - old_bytes + new.0;
        if total > self.limit {
            return Err(Error::limit(format!(
                "{}: the metadata would take up to {total} bytes; a reader accepts at most {}",
                what(),
                self.limit
            )));
        }
        let values = self.values - old_values + new.1;
        if values > crate::format::metadata::MAX_NBT_VALUES {
            return Err(Error::limit(format!(
                "{}: the metadata would hold up to {values} NBT values; a reader accepts at most {}",
                what(),
                crate::format::metadata::MAX_NBT_VALUES
            )));
        }
        self.total = total;
        self.values = values;
        Ok(())
    }

    /// Accounts for registering `info` (replacing an entity with the same id).
    pub fn entity(&mut self, info: &EntityInfo) -> Result<()> {
        let n = entity_bytes(info);
        let old = self.entities.get(&info.id).copied();
        self.take(old, n, || format!("registering entity {}", info.id))?;
        self.entities.insert(info.id, n);
        Ok(())
    }

    /// Accounts for registering event type `t` (replacing one with the same id).
    pub(crate) fn event_type(&mut self, t: &EventType) -> Result<()> {
        let n = event_type_bytes(t);
        let old = self.event_types.get(&t.id).copied();
        self.take(old, n, || format!("registering event type {}", t.id))?;
        self.event_types.insert(t.id, n);
        Ok(())
    }

    /// Accounts for naming palette id `id` of `kind`; `Ok(false)` (nothing to record) if it has
    /// this name already. Refuses another name for a named id (`InvalidArgument`: recorded events
    /// would change meaning), a name [`Palette::insert`] refuses, and what would make the metadata
    /// exceed the limit.
    pub fn name(&mut self, kind: PaletteKind, id: u32, name: &str) -> Result<bool> {
        if let Some(n) = self.names.get(&(kind, id)) {
            if n == name {
                return Ok(false);
            }
            return Err(Error::invalid(format!(
                "palette {} id {id} is named {n:?} already; it cannot become {name:?}",
                kind.key()
            )));
        }
        // the name's own checks (length)
        Palette::default().insert(kind, id, name)?;
        if self.name_counts[kind as usize] >= MAX_PALETTE_NAMES {
            return Err(Error::limit(format!(
                "more than {MAX_PALETTE_NAMES} names in palette {}",
                kind.key()
            )));
        }
        self.take(None, name_bytes(name), || {
            format!("naming palette {} id {id}", kind.key())
        })?;
        self.names.insert((kind, id), name.to_owned());
        self.name_counts[kind as usize] += 1;
        Ok(true)
    }

    /// Accounts for setting the user key `key` to `value`.
    pub fn user(&mut self, key: &str, value: &Value) -> Result<()> {
        let n = user_bytes(key, value);
        let old = self.user.get(key).copied();
        self.take(old, n, || format!("setting the metadata key {key:?}"))?;
        self.user.insert(key.to_owned(), n);
        Ok(())
    }
}

/// A string's NBT bytes with its length prefix: Java's modified UTF-8 is UTF-8 except that NUL
/// takes 2 bytes (not 1) and a character beyond the BMP 6 (a surrogate pair, not 4). Counted
/// exactly, not at twice the UTF-8 length: that bound refused metadata a reader accepts.
fn string_bytes(s: &str) -> usize {
    2 + s.len()
        + s.chars()
            .map(|c| match c {
                '\0' => 1,
                c if u32::from(c) > 0xFFFF => 2,
                _ => 0,
            })
            .sum::<usize>()
}

/// An entity's `(bytes, values)` at most, as the metadata writes it (`LibraryMeta::to_value`): a
/// compound (an element of the entities list: no tag, no key) of `id` and `kind` (Int), with a
/// UUID `uuid_most` and `uuid_least` (Long), with a name `name` (String), and its end tag. Each
/// entry is its tag, its key and its value. Counted field by field, not at a flat 96 bytes: that
/// refused (in compaction too) 180,000 entities that a reader accepts.
fn entity_bytes(e: &EntityInfo) -> (usize, usize) {
    let entry = |key: &str, value: usize| 1 + 2 + key.len() + value;
    let mut bytes = 1 + entry("id", 4) + entry("kind", 4);
    let mut values = 3;
    if e.uuid.is_some() {
        bytes += entry("uuid_most", 8) + entry("uuid_least", 8);
        values += 2;
    }
    if let Some(n) = &e.name {
        bytes += entry("name", string_bytes(n));
        values += 1;
    }
    (bytes, values)
}

fn event_type_bytes(t: &EventType) -> (usize, usize) {
    (64 + string_bytes(&t.name), 4)
}

fn user_bytes(key: &str, v: &Value) -> (usize, usize) {
    (3 + string_bytes(key) + nbt_bytes(v), 1 + nbt_values(v))
}

/// An upper bound of the NBT values in a value, as a reader counts them
/// ([`crate::format::metadata::check_nbt_shape`]: array elements are not values).
pub(crate) fn nbt_values(v: &Value) -> usize {
    match v {
        Value::List(l) => 1 + l.iter().map(nbt_values).sum::<usize>(),
        Value::Compound(c) => 1 + c.values().map(nbt_values).sum::<usize>(),
        _ => 1,
    }
}

/// An upper bound of a value's NBT payload.
pub(crate) fn nbt_bytes(v: &Value) -> usize {
    match v {
        Value::Byte(_) => 1,
        Value::Short(_) => 2,
        Value::Int(_) | Value::Float(_) => 4,
        Value::Long(_) | Value::Double(_) => 8,
        Value::String(s) => string_bytes(s),
        Value::ByteArray(a) => 4 + a.len(),
        Value::IntArray(a) => 4 + 4 * a.len(),
        Value::LongArray(a) => 4 + 8 * a.len(),
        Value::List(l) => 5 + l.iter().map(nbt_bytes).sum::<usize>(),
        Value::Compound(c) => {
            1 + c
                .iter()
                .map(|(k, v)| 3 + string_bytes(k) + nbt_bytes(v))
                .sum::<usize>()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_bounds_the_encoded_metadata() {
        let mut m = Metadata::default();
        let mut b = MetadataBudget::new(&Limits::default());
        for id in 0..500u32 {
            let info = EntityInfo {
                id,
                kind: u32::MAX,
                uuid: Some(uuid::Uuid::from_u128(u128::MAX - u128::from(id))),
                name: Some(format!("Ünïcödé 𝄞 player {id}")),
            };
            b.entity(&info).unwrap();
            m.library.entities.push(info);
            let t = EventType {
                id,
                name: format!("event 𝄞 {id}"),
                version: u32::MAX,
            };
            b.event_type(&t).unwrap();
            m.library.event_types.push(t);
            let v = Value::Compound(
                [
                    ("list".to_owned(), Value::List(vec![Value::Long(-1); 7])),
                    ("s".to_owned(), Value::String("𝄞".repeat(9))),
                    (
                        "a".to_owned(),
                        Value::IntArray(fastnbt::IntArray::new(vec![1, 2])),
                    ),
                ]
                .into_iter()
                .collect(),
            );
            b.user(&format!("k{id}"), &v).unwrap();
            m.user.insert(format!("k{id}"), v);
        }
        let encoded = m.encode().unwrap().len();
        assert!(
            encoded + LIBRARY_RESERVE <= b.total,
            "{encoded} vs {}",
            b.total
        );
        assert_eq!(MetadataBudget::of(&m, &Limits::default()).total, b.total);
    }

    #[test]
    fn the_budget_refuses_what_would_exceed_the_limit_and_replacing_frees() {
        let limits = Limits {
            max_metadata_bytes: LIBRARY_RESERVE + 1000,
            ..Limits::default()
        };
        let mut b = MetadataBudget::new(&limits);
        let big = Value::ByteArray(fastnbt::ByteArray::new(vec![0; 900]));
        b.user("a", &big).unwrap();
        let e = b.user("b", &big).unwrap_err();
        assert!(matches!(e, Error::LimitExceeded(_)), "{e}");
        assert!(e.to_string().contains("\"b\""), "{e}");
        // Replacing the same key does not count it twice.
        b.user("a", &big).unwrap();
        b.user("a", &Value::Int(1)).unwrap();
        b.user("b", &big).unwrap();
    }

    #[test]
    fn one_rule_for_snapshots_and_ticks() {
        let l = Limits::default();
        assert!(l.check_snapshot(16 << 20).is_ok());
        assert!(l.check_snapshot((16 << 20) + 1).is_err());
        let custom = |n| Event::Custom {
            type_id: 1,
            data: vec![0; n],
        };
        assert!(l.check_tick(&[custom(1 << 20)]).is_ok());
        let many: Vec<Event> = (0..17).map(|_| custom(1 << 20)).collect();
        assert!(matches!(l.check_tick(&many), Err(Error::LimitExceeded(_))));
        // What a writer may put into one chunk fits what a reader accepts.
        assert!(
            l.max_tick_bytes()
                + l.max_snapshot_bytes()
                + l.max_alive_entities() * KEYFRAME_ENTRY_MAX
                < l.chunk_cut_bytes()
        );
        assert!(zstd::zstd_safe::compress_bound(l.chunk_cut_bytes()) <= l.max_chunk_bytes);
    }

    #[test]
    fn the_expansion_rule_and_the_padding_target_agree() {
        for u in [
            0u64,
            1,
            4095,
            4096,
            4097,
            4096 + 255,
            4096 + 256,
            4096 + 257,
            1 << 20,
            (16 << 20) + 5,
            64 << 20,
            u64::from(u32::MAX),
        ] {
            let c = min_compressed_len(u);
            assert!(u <= max_uncompressed_len(c), "{u} from {c}");
            if c > 0 {
                assert!(u > max_uncompressed_len(c - 1), "{u}: {c} is not the least");
            }
            let (c32, u32_) = (u32::try_from(c).unwrap(), u32::try_from(u).unwrap());
            check_expansion(c32, u32_, 0).unwrap();
            if c > 0 {
                let e = check_expansion(c32 - 1, u32_, 7).unwrap_err();
                assert!(
                    matches!(&e, Error::LimitExceeded(m) if m.contains("tick 7")),
                    "{e}"
                );
            }
        }
        assert_eq!(min_compressed_len(4096), 0);
        assert_eq!(min_compressed_len(64 << 20), ((64 << 20) - 4096) / 256);
        // The largest chunk a reader accepts needs at most a quarter of a MiB compressed.
        assert!(min_compressed_len(Limits::default().max_chunk_bytes as u64) <= 256 << 10);
    }
}
