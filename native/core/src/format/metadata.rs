//! NBT metadata: an arbitrary compound the user owns, plus the library's own keys under the single
//! key `"tickreel"` (entity table, event-type registry, gaps, analysis, palette). Encoding is
//! deterministic (compound keys sorted) so that identical metadata gives identical bytes. The
//! writer's counters ([`Stats`]) are not written here: they live in the header
//! ([`crate::format::HeaderStats`]) and the index ([`Metadata::decode_file`]); files of earlier
//! builds hold them in a `stats` LongArray, which is still read.

use crate::format::palette::Palette;
use std::collections::HashMap;

use fastnbt::Value;

use crate::error::{Error, Result};
use crate::format::header::{Header, HeaderStats};
use crate::format::index::IndexEntry;

mod nbt;

pub(crate) use nbt::MAX_NBT_VALUES;
pub use nbt::check_nbt_shape;
use nbt::{Sorted, compounds, get_int, get_long, get_string};

/// Key under which the library keeps its own metadata in the root compound.
pub const LIBRARY_KEY: &str = "tickreel";

/// The longest server id (`LibraryMeta::server`), in bytes of UTF-8.
pub const MAX_SERVER_ID_BYTES: usize = 64;

/// Checks a server id: 1 to [`MAX_SERVER_ID_BYTES`] bytes of UTF-8 without control characters.
pub fn check_server_id(id: &str) -> Result<()> {
    if id.is_empty() || id.len() > MAX_SERVER_ID_BYTES || id.chars().any(char::is_control) {
        return Err(Error::invalid(format!(
            "a server id is 1 to {MAX_SERVER_ID_BYTES} bytes of UTF-8 without control characters \
             ({} bytes given)",
            id.len()
        )));
    }
    Ok(())
}
/// An entity known to the recording (who is who).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EntityInfo {
    pub id: u32,
    /// Game-defined kind (e.g. a Minecraft entity type id).
    pub kind: u32,
    pub uuid: Option<uuid::Uuid>,
    pub name: Option<String>,
}

/// A registered custom event type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventType {
    pub id: u32,
    pub name: String,
    /// Schema version of the event's payload, owned by the game.
    pub version: u32,
}

/// Ticks that were dropped by the backpressure policy (inclusive range).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gap {
    pub from: u32,
    pub to: u32,
}

/// Counters kept by the writer. Written in the header ([`HeaderStats`]) but for
/// `uncompressed_bytes`, which a reader sums from the index ([`Metadata::decode_file`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// Non-empty ticks written.
    pub ticks_written: u64,
    /// Events written, pose updates excluded.
    pub events: u64,
    /// Pose samples written.
    pub pose_samples: u64,
    /// Uncompressed payload bytes of all chunks.
    pub uncompressed_bytes: u64,
    /// Ticks dropped by backpressure.
    pub dropped_ticks: u64,
}

// The header's counters are a subset of the writer's: the header (below the metadata) knows
// nothing of `Stats`.
impl HeaderStats {
    /// The counters of `stats` the header keeps.
    pub fn of(stats: &Stats) -> HeaderStats {
        HeaderStats {
            ticks_written: stats.ticks_written,
            events: stats.events,
            pose_samples: stats.pose_samples,
            dropped_ticks: stats.dropped_ticks,
        }
    }
}

/// The library's own metadata.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LibraryMeta {
    pub entities: Vec<EntityInfo>,
    pub event_types: Vec<EventType>,
    pub gaps: Vec<Gap>,
    pub stats: Stats,
    /// Analysis appended by compaction (per-entity figures), kept as NBT.
    pub analysis: Option<Value>,
    /// The recording starts in the middle of a world (a shadow-play report cut from a longer
    /// stream) without a snapshot at its first tick: the world before its first snapshot is
    /// unknown, and a rebuild that reaches back past it says so (`Rebuild::cut_short`). NBT
    /// `starts_mid_world: 1b`, absent when false.
    pub starts_mid_world: bool,
    /// The names of the block states, items and damage causes world events use by id
    /// (`palette`, absent when empty).
    pub palette: Palette,
    /// The game server that recorded it, in a network of servers (`server` String, absent
    /// when not set; [`check_server_id`]).
    pub server: Option<String>,
    /// Library keys this build does not know, preserved as they are.
    pub extra: HashMap<String, Value>,
}

/// The positions of registered entities and event types in [`LibraryMeta`] by id, so that a
/// writer registering many replaces an entry in place without searching the list.
#[derive(Debug, Clone, Default)]
pub(crate) struct Registry {
    entities: HashMap<u32, usize>,
    event_types: HashMap<u32, usize>,
}

impl Registry {
    /// The positions of what `meta` holds.
    pub(crate) fn of(meta: &LibraryMeta) -> Registry {
        Registry {
            entities: meta
                .entities
                .iter()
                .enumerate()
                .map(|(i, e)| (e.id, i))
                .collect(),
            event_types: meta
                .event_types
                .iter()
                .enumerate()
                .map(|(i, t)| (t.id, i))
                .collect(),
        }
    }
    /// Adds `info`, or replaces the entity with its id where it is.
    pub(crate) fn entity(&mut self, meta: &mut LibraryMeta, info: EntityInfo) {
        upsert(&mut meta.entities, &mut self.entities, info.id, info);
    }
    /// Adds `t`, or replaces the event type with its id where it is.
    pub(crate) fn event_type(&mut self, meta: &mut LibraryMeta, t: EventType) {
        upsert(&mut meta.event_types, &mut self.event_types, t.id, t);
    }
}

fn upsert<T>(list: &mut Vec<T>, pos: &mut HashMap<u32, usize>, id: u32, item: T) {
    match pos.get(&id) {
        Some(&i) if i < list.len() => list[i] = item,
        _ => {
            pos.insert(id, list.len());
            list.push(item);
        }
    }
}

/// The whole metadata section.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Metadata {
    /// The user's own keys (the root compound minus `"tickreel"`).
    pub user: HashMap<String, Value>,
    pub library: LibraryMeta,
}

/// Roughly what `v` holds on the heap once decoded (for caches that count bytes): a fixed cost
/// per value and per map entry, plus strings and arrays. Walks without recursion.
fn value_heap_bytes(v: &Value) -> usize {
    const VALUE: usize = std::mem::size_of::<Value>();
    // A hash map entry: key String, value, and the table's control bytes and slack.
    const ENTRY: usize = std::mem::size_of::<String>() + VALUE + 16;
    let mut total = 0;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        total += match v {
            Value::String(s) => s.len(),
            Value::ByteArray(a) => a.len(),
            Value::IntArray(a) => a.len() * 4,
            Value::LongArray(a) => a.len() * 8,
            Value::List(l) => {
                stack.extend(l.iter());
                l.len() * VALUE
            }
            Value::Compound(m) => {
                stack.extend(m.values());
                m.keys().map(|k| ENTRY + k.len()).sum()
            }
            _ => 0,
        };
    }
    total
}

impl Metadata {
    /// Roughly what this metadata holds on the heap (entities, event types, user values).
    pub fn heap_bytes(&self) -> usize {
        let l = &self.library;
        let entities: usize = l
            .entities
            .iter()
            .map(|e| std::mem::size_of::<EntityInfo>() + e.name.as_ref().map_or(0, String::len))
            .sum();
        let types: usize = l
            .event_types
            .iter()
            .map(|t| std::mem::size_of::<EventType>() + t.name.len())
            .sum();
        let user: usize = self
            .user
            .iter()
            .map(|(k, v)| k.len() + std::mem::size_of::<Value>() + value_heap_bytes(v))
            .sum();
        let analysis = l.analysis.as_ref().map_or(0, value_heap_bytes);
        let extra: usize = l.extra.values().map(value_heap_bytes).sum();
        entities + types + user + analysis + extra + l.gaps.len() * std::mem::size_of::<Gap>()
    }

    /// Encodes as an NBT root compound with sorted keys.
    pub fn encode(&self) -> Result<Vec<u8>> {
        if self.user.contains_key(LIBRARY_KEY) {
            return Err(Error::Metadata(format!(
                "the key \"{LIBRARY_KEY}\" is reserved for the library"
            )));
        }
        let mut root = self.user.clone();
        let library = self.library.to_value();
        // An empty library compound says nothing a reader would not assume: left out.
        if !matches!(&library, Value::Compound(m) if m.is_empty()) {
            root.insert(LIBRARY_KEY.to_string(), library);
        }
        fastnbt::to_bytes(&Sorted(&Value::Compound(root)))
            .map_err(|e| Error::Metadata(format!("cannot encode metadata: {e}")))
    }

    /// Decodes untrusted bytes (depth and values counted before parsing: see
    /// [`check_nbt_shape`]).
    ///
    /// The writer's counters come from the bytes only when they hold them (files of earlier
    /// builds); otherwise they are zero: [`Metadata::decode_file`] reads them from the header and
    /// the index.
    pub fn decode(bytes: &[u8]) -> Result<Metadata> {
        Ok(Metadata::decode_stats(bytes)?.0)
    }

    /// Decodes the metadata of a file whose header and index are `header` and `index`: the
    /// writer's counters from the metadata's `stats` where it has one (files of earlier builds),
    /// else from the header, and `uncompressed_bytes` as the sum of the index's uncompressed
    /// lengths (FORMAT.md §3, §4).
    pub fn decode_file(bytes: &[u8], header: &Header, index: &[IndexEntry]) -> Result<Metadata> {
        let (mut m, stored) = Metadata::decode_stats(bytes)?;
        if !stored {
            let HeaderStats {
                ticks_written,
                events,
                pose_samples,
                dropped_ticks,
            } = header.stats;
            m.library.stats = Stats {
                ticks_written,
                events,
                pose_samples,
                uncompressed_bytes: index.iter().map(|e| u64::from(e.uncompressed_len)).sum(),
                dropped_ticks,
            };
        }
        Ok(m)
    }

    /// Decodes, and says whether the bytes hold the library's `stats` key.
    fn decode_stats(bytes: &[u8]) -> Result<(Metadata, bool)> {
        check_nbt_shape(bytes)?;
        let opts = fastnbt::DeOpts::new().max_seq_len(bytes.len());
        let root: Value = fastnbt::from_bytes_with_opts(bytes, opts)
            .map_err(|e| Error::corrupt(format!("metadata is not valid NBT: {e}")))?;
        let Value::Compound(mut root) = root else {
            return Err(Error::corrupt("metadata root is not a compound"));
        };
        let (library, stored) = match root.remove(LIBRARY_KEY) {
            Some(v) => LibraryMeta::from_value(v)?,
            None => (LibraryMeta::default(), false),
        };
        Ok((
            Metadata {
                user: root,
                library,
            },
            stored,
        ))
    }
}

impl LibraryMeta {
    fn to_value(&self) -> Value {
        let mut m = self.extra.clone();
        let entities: Vec<Value> = self
            .entities
            .iter()
            .map(|e| {
                let mut c = HashMap::new();
                c.insert("id".into(), Value::Int(e.id as i32));
                c.insert("kind".into(), Value::Int(e.kind as i32));
                if let Some(u) = e.uuid {
                    let (a, b) = u.as_u64_pair();
                    c.insert("uuid_most".into(), Value::Long(a as i64));
                    c.insert("uuid_least".into(), Value::Long(b as i64));
                }
                if let Some(n) = &e.name {
                    c.insert("name".into(), Value::String(n.clone()));
                }
                Value::Compound(c)
            })
            .collect();
        if !self.entities.is_empty() {
            m.insert("entities".into(), Value::List(entities));
        }
        let types: Vec<Value> = self
            .event_types
            .iter()
            .map(|t| {
                let mut c = HashMap::new();
                c.insert("id".into(), Value::Int(t.id as i32));
                c.insert("name".into(), Value::String(t.name.clone()));
                c.insert("version".into(), Value::Int(t.version as i32));
                Value::Compound(c)
            })
            .collect();
        if !types.is_empty() {
            m.insert("event_types".into(), Value::List(types));
        }
        let gaps: Vec<Value> = self
            .gaps
            .iter()
            .map(|g| Value::IntArray(fastnbt::IntArray::new(vec![g.from as i32, g.to as i32])))
            .collect();
        if !gaps.is_empty() {
            m.insert("gaps".into(), Value::List(gaps));
        }
        if let Some(a) = &self.analysis {
            m.insert("analysis".into(), a.clone());
        }
        if self.starts_mid_world {
            m.insert("starts_mid_world".into(), Value::Byte(1));
        }
        if let Some(p) = self.palette.to_value() {
            m.insert("palette".into(), p);
        }
        if let Some(server) = &self.server {
            m.insert("server".into(), Value::String(server.clone()));
        }
        Value::Compound(m)
    }

    /// The library's keys, and whether they hold `stats` (files of earlier builds).
    fn from_value(v: Value) -> Result<(LibraryMeta, bool)> {
        let Value::Compound(mut m) = v else {
            return Err(Error::corrupt("library metadata is not a compound"));
        };
        let mut out = LibraryMeta::default();
        if let Some(list) = m.remove("entities") {
            for c in compounds(list, "entities")? {
                let uuid = match (get_long(&c, "uuid_most"), get_long(&c, "uuid_least")) {
                    (Some(a), Some(b)) => Some(uuid::Uuid::from_u64_pair(a as u64, b as u64)),
                    _ => None,
                };
                out.entities.push(EntityInfo {
                    id: get_int(&c, "id").unwrap_or(0) as u32,
                    kind: get_int(&c, "kind").unwrap_or(0) as u32,
                    uuid,
                    name: get_string(&c, "name"),
                });
            }
        }
        if let Some(list) = m.remove("event_types") {
            for c in compounds(list, "event_types")? {
                out.event_types.push(EventType {
                    id: get_int(&c, "id").unwrap_or(0) as u32,
                    name: get_string(&c, "name").unwrap_or_default(),
                    version: get_int(&c, "version").unwrap_or(0) as u32,
                });
            }
        }
        if let Some(Value::List(list)) = m.remove("gaps") {
            for g in list {
                match g {
                    Value::IntArray(a) if a.len() == 2 => out.gaps.push(Gap {
                        from: a[0] as u32,
                        to: a[1] as u32,
                    }),
                    _ => return Err(Error::corrupt("gaps: entry is not a pair of ints")),
                }
            }
        }
        // Earlier builds wrote the counters here; a value of another type reads as zero.
        let stats = m.remove("stats");
        let stored = stats.is_some();
        if let Some(Value::LongArray(a)) = stats {
            let g = |i: usize| a.get(i).copied().unwrap_or(0) as u64;
            out.stats = Stats {
                ticks_written: g(0),
                events: g(1),
                pose_samples: g(2),
                uncompressed_bytes: g(3),
                dropped_ticks: g(4),
            };
        }
        out.analysis = m.remove("analysis");
        out.starts_mid_world = match m.remove("starts_mid_world") {
            None => false,
            Some(Value::Byte(b)) => b != 0,
            Some(_) => return Err(Error::corrupt("starts_mid_world is not a byte")),
        };
        if let Some(p) = m.remove("palette") {
            out.palette = Palette::from_value(p)?;
        }
        out.server = match m.remove("server") {
            None => None,
            Some(Value::String(s)) => {
                check_server_id(&s).map_err(|e| Error::corrupt(format!("server: {e}")))?;
                Some(s)
            }
            Some(_) => return Err(Error::corrupt("server is not a string")),
        };
        out.extra = m;
        Ok((out, stored))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Metadata {
        let mut user = HashMap::new();
        user.insert("map".into(), Value::String("parkour_1".into()));
        user.insert("anticheat_flags".into(), Value::List(vec![Value::Int(3)]));
        user.insert(
            "nested".into(),
            Value::Compound(HashMap::from([("a".to_string(), Value::Double(1.5))])),
        );
        Metadata {
            user,
            library: LibraryMeta {
                entities: vec![EntityInfo {
                    id: 1,
                    kind: 147,
                    uuid: Some(uuid::Uuid::from_u128(0x1234)),
                    name: Some("Steve".into()),
                }],
                event_types: vec![EventType {
                    id: 1000,
                    name: "minecraft:block_change".into(),
                    version: 2,
                }],
                gaps: vec![Gap { from: 5, to: 9 }],
                // The counters are the header's and the index's (`decode_file`).
                stats: Stats::default(),
                analysis: None,
                starts_mid_world: true,
                palette: {
                    let mut p = Palette::default();
                    p.insert(crate::format::PaletteKind::Block, 3, "minecraft:stone")
                        .unwrap();
                    p.insert(crate::format::PaletteKind::Item, 3, "minecraft:stick")
                        .unwrap();
                    p
                },
                server: Some("lobby-1".into()),
                extra: HashMap::new(),
            },
        }
    }

    #[test]
    fn a_server_id_is_checked_when_read() {
        let mut m = sample();
        m.library.server = Some("x".repeat(MAX_SERVER_ID_BYTES + 1));
        let e = Metadata::decode(&m.encode().unwrap()).unwrap_err();
        assert!(matches!(e, Error::Corrupt(_)), "{e}");
        m.library.server = Some("eu\n1".into());
        assert!(Metadata::decode(&m.encode().unwrap()).is_err());
        m.library.server = Some("x".repeat(MAX_SERVER_ID_BYTES));
        assert_eq!(Metadata::decode(&m.encode().unwrap()).unwrap(), m);
        // another tag is corrupt, never ignored
        let mut lib = m.library.to_value();
        if let Value::Compound(c) = &mut lib {
            c.insert("server".into(), Value::Int(1));
        }
        assert!(LibraryMeta::from_value(lib).is_err());
    }

    #[test]
    fn metadata_round_trip_and_determinism() {
        let m = sample();
        let a = m.encode().unwrap();
        let b = m.clone().encode().unwrap();
        assert_eq!(a, b);
        assert_eq!(Metadata::decode(&a).unwrap(), m);
    }

    fn stats() -> Stats {
        Stats {
            ticks_written: 10,
            events: 3,
            pose_samples: 20,
            uncompressed_bytes: 99,
            dropped_ticks: 5,
        }
    }

    fn entry(uncompressed_len: u32) -> IndexEntry {
        IndexEntry {
            start_tick: 0,
            tick_count: 1,
            flags: 0,
            offset: 0,
            compressed_len: 1,
            uncompressed_len,
        }
    }

    #[test]
    fn counters_come_from_the_header_and_the_index() {
        let mut m = sample();
        m.library.stats = stats();
        let bytes = m.encode().unwrap();
        // Not in the metadata: the bytes equal those of the same metadata without counters.
        assert_eq!(bytes, sample().encode().unwrap());
        assert_eq!(
            Metadata::decode(&bytes).unwrap().library.stats,
            Stats::default()
        );
        let header = Header {
            stats: HeaderStats::of(&m.library.stats),
            ..Header::default()
        };
        let read = Metadata::decode_file(&bytes, &header, &[entry(90), entry(9)]).unwrap();
        assert_eq!(read, m);
    }

    #[test]
    fn counters_of_earlier_builds_are_read_from_the_metadata() {
        // How earlier builds wrote them: a LongArray of five under the library key, which
        // wins over the header (zero in their files) and the index.
        let s = stats();
        let mut lib = HashMap::new();
        lib.insert(
            "stats".to_string(),
            Value::LongArray(fastnbt::LongArray::new(vec![
                s.ticks_written as i64,
                s.events as i64,
                s.pose_samples as i64,
                s.uncompressed_bytes as i64,
                s.dropped_ticks as i64,
            ])),
        );
        let root = HashMap::from([(LIBRARY_KEY.to_string(), Value::Compound(lib))]);
        let bytes = fastnbt::to_bytes(&Sorted(&Value::Compound(root))).unwrap();
        let header = Header {
            stats: HeaderStats {
                ticks_written: 1,
                ..HeaderStats::default()
            },
            ..Header::default()
        };
        let read = Metadata::decode_file(&bytes, &header, &[entry(1)]).unwrap();
        assert_eq!(read.library.stats, s);
        assert_eq!(Metadata::decode(&bytes).unwrap().library.stats, s);
    }

    #[test]
    fn empty_library_keys_are_left_out() {
        let mut m = Metadata::default();
        m.library.stats = stats();
        // Root compound, empty name, end: nothing else.
        assert_eq!(m.encode().unwrap(), vec![0x0a, 0, 0, 0]);
        m.library.starts_mid_world = true;
        let bytes = m.encode().unwrap();
        assert!(bytes.windows(8).any(|w| w == LIBRARY_KEY.as_bytes()));
        assert!(Metadata::decode(&bytes).unwrap().library.starts_mid_world);
    }

    #[test]
    fn reserved_key_and_deep_nesting_rejected() {
        let mut m = sample();
        m.user.insert(LIBRARY_KEY.into(), Value::Int(1));
        assert!(m.encode().is_err());
        // root compound holding a list of lists of lists ... 10,000 deep
        let mut bytes = vec![10, 0, 0, 9, 0, 1, b'x', 9, 0, 0, 0, 1];
        for _ in 0..10_000 {
            bytes.extend_from_slice(&[9, 0, 0, 0, 1]);
        }
        assert!(matches!(
            Metadata::decode(&bytes),
            Err(Error::LimitExceeded(_))
        ));
    }

    #[test]
    fn millions_of_empty_compounds_are_refused_before_decoding() {
        // A root holding a list of 4 Mi empty compounds: 4 MiB, within the size limit.
        let n = 4 << 20;
        let mut bytes = vec![10, 0, 0, 9, 0, 1, b'x', 10];
        bytes.extend_from_slice(&(n as u32).to_be_bytes());
        bytes.resize(bytes.len() + n, 0);
        bytes.push(0);
        let t = std::time::Instant::now();
        let e = Metadata::decode(&bytes).unwrap_err();
        assert!(matches!(e, Error::LimitExceeded(_)), "{e}");
        assert!(e.to_string().contains("NBT values"), "{e}");
        // Within the bound, the same shape decodes.
        let n = MAX_NBT_VALUES - 2;
        let mut ok = vec![10, 0, 0, 9, 0, 1, b'x', 10];
        ok.extend_from_slice(&(n as u32).to_be_bytes());
        ok.resize(ok.len() + n, 0);
        ok.push(0);
        assert!(Metadata::decode(&ok).is_ok());
        let mut over = vec![10, 0, 0, 9, 0, 1, b'x', 10];
        over.extend_from_slice(&((n + 1) as u32).to_be_bytes());
        over.resize(over.len() + n + 1, 0);
        over.push(0);
        assert!(Metadata::decode(&over).is_err());
        eprintln!("refused and decoded in {:?}", t.elapsed());
    }

    #[test]
    fn heap_bytes_follow_the_values_not_the_bytes() {
        // 1 Mi empty compounds: about 1 MiB on disk, tens of MiB decoded.
        let n = 1 << 20;
        let mut bytes = vec![10, 0, 0, 9, 0, 1, b'x', 10];
        bytes.extend_from_slice(&(n as u32).to_be_bytes());
        bytes.resize(bytes.len() + n, 0);
        bytes.push(0);
        let m = Metadata::decode(&bytes).unwrap();
        let heap = m.heap_bytes();
        assert!(heap >= n * std::mem::size_of::<Value>(), "{heap}");
        assert!(heap > 16 * bytes.len(), "{heap} for {} bytes", bytes.len());
        let small = sample();
        assert!(small.heap_bytes() < 4096, "{}", small.heap_bytes());
        assert!(small.heap_bytes() >= "parkour_1".len() + "Steve".len());
    }

    #[test]
    fn truncated_metadata_is_an_error() {
        let a = sample().encode().unwrap();
        for cut in 0..a.len() {
            assert!(Metadata::decode(&a[..cut]).is_err());
        }
    }
}
