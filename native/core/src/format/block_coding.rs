//! How a chunk's event stream codes single block changes from data version 4 on (FORMAT.md §8,
//! "Block changes in a chunk"): against what the chunk already holds instead of on their own.
//! A player mining a tunnel or building a wall changes blocks next to the one it changed before,
//! and to a handful of states; the batch form ([`crate::format::world`]) pays for three absolute
//! coordinates and the full state id every time.
//!
//! - The position is the difference from the previous block change of the same cause (the
//!   causing entity, or "none") in the chunk; a step of at most 2 blocks on each axis is one
//!   byte, anything else three zigzag varints (from 0, 0, 0 for a cause's first change).
//! - The state is an index into the chunk's table of the states its block changes used so far,
//!   a new one written out once and added to the table.
//!
//! - From data version 6 on, each cause keeps two cursors, the positions of its last change and
//!   of the one it changed elsewhere before (a player mining a tunnel and building a wall
//!   alternates between the two): the small step may start from either, a bit of the state code
//!   saying which (measured on the realistic preset: 48 % of the changes were far steps from one
//!   cursor, 13 % from two).
//!
//! - From data version 7 on, the chunk also keeps the table of the positions its block changes
//!   changed, in order of first change, with each one's state and the state before: a block
//!   changed before in the chunk is named by its place in that table when no small step reaches
//!   it (a machine's next burst, a farm's crop, a door), and a change that sets a block back to
//!   the state it had before its last change (a lamp, a repeater, a door, a piston: most of a
//!   real server's changes) is one state code. Both keep the coding of a repeated change the
//!   same whatever came between, which is what lets zstd find a machine's cycles as the long
//!   repeats they are (measured on the server workload, `tickreel_sim::blocks`, and on real
//!   recordings: BENCHMARKS.md).
//!
//! - From data version 8 on, each kind of field is stored in a column of its own before the
//!   stream's records ([`BlockColumns`]); a far step names the 16×16×16 section of the block (an
//!   index into the chunk's table of sections, or the section's difference from the cursor's)
//!   and the block's place in it; and code 0 is the position's *next* state, the one that
//!   followed its present state the last time (a cycle of more than two states: wire power
//!   stepping down, crops, a comparator). Measured on the server workload: with the 256 KiB
//!   chunks of block changes ([`crate::record::COMPACTED_BLOCK_CHUNK_BYTES`]), 4 %, 12 % and 6 %
//!   fewer stream bytes each.
//!
//! Both sides keep the same context ([`BlockCoding`]), emptied at each chunk's start, so every
//! chunk still decodes on its own. Pure bytes, no I/O.

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::format::bytes::{ByteReader, put_ivarint, put_uvarint};
use crate::format::event::Event;
use crate::format::world::{BlockPos, MAX_BLOCK_ENTITY_BYTES, get_opt_entity, put_opt_entity};

/// The first bytes of an event stream whose records carry their tick as a gap and their count as
/// a varint (data version 7): the record of relative tick 0 with no events, which the first form
/// never holds (a record has at least one event), so a decoder of data version 7 reads both.
pub(crate) const GAPS_MARKER: [u8; 3] = [0, 0, 0];

/// Steps `0..SMALL_STEPS` are one-byte moves of -2..=2 on each axis; [`FAR`] announces three
/// zigzag varints; from data version 7, `TABLE + i` is the chunk's `i`-th changed position.
const SMALL_STEPS: u64 = 125;
const FAR: u64 = SMALL_STEPS;
const TABLE: u64 = FAR + 1;

/// A position the chunk's block changes changed (data version 7): its state now and the one
/// before its last change (none after its first change in the chunk).
#[derive(Debug, Clone, Copy)]
struct Changed {
    pos: BlockPos,
    state: u32,
    before: Option<u32>,
}

/// The context one chunk's block changes are coded against (the writer's and each reader's).
#[derive(Debug, Default)]
pub(crate) struct BlockCoding {
    /// Each cause's cursors (`varint cause + 1`, 0: none): the position of its last change, and
    /// the second cursor (data version 6 on), the other place it changed before.
    last: FxHashMap<u64, (BlockPos, Option<BlockPos>)>,
    /// Data version 6's coding: two cursors per cause, the state code's bit 1 choosing one.
    two_cursors: bool,
    /// Data version 7's coding: the table of changed positions, and state code 0 for a change
    /// back to the state before.
    table: bool,
    /// The positions changed so far, in order of first change (data version 7), and each
    /// one's index there.
    changed: Vec<Changed>,
    changed_index: FxHashMap<BlockPos, u32>,
    /// The states used so far, in order of first use.
    states: Vec<u32>,
    /// Writer side: each state's index in `states`.
    index: FxHashMap<u32, u32>,
    /// Data version 8's layout: the writer puts each field of its block changes in its column
    /// ([`BlockColumns`]) instead of after the kind byte.
    columns: Option<Box<BlockColumns>>,
    /// Data version 8: far steps name a 16×16×16 section of the chunk's table of sections (the
    /// sections its block changes changed, in order of first change) and the block inside it,
    /// and "back" is the state that followed the position's state the last time it had it.
    v8: bool,
    /// The sections changed so far, in order of first change, and each one's index there (data
    /// version 8).
    section_list: Vec<[i32; 3]>,
    sections: FxHashMap<[i32; 3], u32>,
    /// For a changed position (its index in `changed`) and a state it had, the state it was
    /// changed to next the last time (data version 8).
    next: FxHashMap<(u32, u32), u32>,
}

/// The 16×16×16 section holding `pos` (data version 8's far steps).
fn section(pos: BlockPos) -> [i32; 3] {
    [pos.x >> 4, pos.y >> 4, pos.z >> 4]
}

/// The place of `pos` inside its section: x + 16 z + 256 y (Minecraft's order in a section).
fn in_section(pos: BlockPos) -> u16 {
    ((pos.x & 15) | (pos.z & 15) << 4 | (pos.y & 15) << 8) as u16
}

/// The number of columns of a chunk's block changes (data version 8, FORMAT.md §7.3
/// "block-columns"), in the order they are stored: causes, steps, far steps, state codes, values
/// (new states and block-entity data).
pub(crate) const COLUMNS: usize = 5;
const CAUSE: usize = 0;
const STEP: usize = 1;
const FAR_STEP: usize = 2;
const CODE: usize = 3;
const VALUE: usize = 4;

/// The fields of a chunk's block changes, each kind in a column of its own (data version 8):
/// each column holds values of one kind (a machine's steps repeat whatever its states do, an
/// explosion's codes are all "air" whatever its positions), which zstd codes better than the
/// same fields interleaved (measured: BENCHMARKS.md, issue 48).
#[derive(Debug, Default)]
pub(crate) struct BlockColumns {
    pub(crate) columns: [Vec<u8>; COLUMNS],
}

/// Where a field of a block change is written: after its kind byte (`out`, data versions 4 to
/// 7), or to its column (data version 8).
fn sink<'x>(
    out: &'x mut Vec<u8>,
    columns: &'x mut Option<Box<BlockColumns>>,
    column: usize,
) -> &'x mut Vec<u8> {
    match columns {
        Some(c) => &mut c.columns[column],
        None => out,
    }
}

/// Where a field of a block change is read from: the stream itself (data versions 4 to 7), or
/// its column (data version 8).
fn field<'x, 'a>(
    r: &'x mut ByteReader<'a>,
    columns: &'x mut Option<&mut [ByteReader<'a>; COLUMNS]>,
    column: usize,
) -> &'x mut ByteReader<'a> {
    match columns {
        Some(c) => &mut c[column],
        None => r,
    }
}

/// Whether a step of `d` is a one-byte small step.
fn is_small(d: &[i64; 3]) -> bool {
    d.iter().all(|v| (-2..=2).contains(v))
}

fn diff(pos: BlockPos, base: BlockPos) -> [i64; 3] {
    [
        i64::from(pos.x) - i64::from(base.x),
        i64::from(pos.y) - i64::from(base.y),
        i64::from(pos.z) - i64::from(base.z),
    ]
}

impl BlockCoding {
    /// The context of a chunk of `data_version` (4 or later): data version 6 on, two cursors
    /// per cause.
    pub(crate) fn for_version(data_version: u16) -> BlockCoding {
        let mut c = BlockCoding::default();
        c.restart(data_version);
        c
    }

    /// The columns the block changes were written to (data version 8), or `None` when they
    /// were written into the stream.
    pub(crate) fn columns(&self) -> Option<&[Vec<u8>; COLUMNS]> {
        self.columns.as_ref().map(|c| &c.columns)
    }

    /// The bytes in [`BlockCoding::columns`] (0 without columns), with their lengths' varints.
    pub(crate) fn columns_len(&self) -> usize {
        self.columns().map_or(0, |c| {
            c.iter()
                .map(|c| crate::format::bytes::uvarint_len(c.len() as u64) + c.len())
                .sum()
        })
    }

    /// Whether a block change was coded since the chunk began.
    pub(crate) fn is_used(&self) -> bool {
        !self.last.is_empty()
    }

    /// Moves `cause`'s cursors to `pos`, reached from its second cursor (`second`) or from its
    /// last position (a small step: the second cursor stays; a far one: the last position
    /// becomes the second cursor).
    fn moved(
        &mut self,
        key: u64,
        prev: Option<(BlockPos, Option<BlockPos>)>,
        pos: BlockPos,
        second: bool,
        far: bool,
    ) {
        let next = match prev {
            Some((a, _)) if second || far => (pos, Some(a)),
            Some((_, b)) => (pos, b),
            None => (pos, None),
        };
        self.last.insert(key, next);
    }

    /// Forgets everything (a new chunk, written in `data_version`'s coding), keeping the
    /// buffers' capacity.
    pub(crate) fn restart(&mut self, data_version: u16) {
        self.two_cursors = data_version >= 6;
        self.table = data_version >= 7;
        match (&mut self.columns, data_version >= 8) {
            (Some(c), true) => c.columns.iter_mut().for_each(Vec::clear),
            (c, true) => *c = Some(Box::default()),
            (c, false) => *c = None,
        }
        self.v8 = data_version >= 8;
        self.last.clear();
        self.states.clear();
        self.index.clear();
        self.changed.clear();
        self.changed_index.clear();
        self.sections.clear();
        self.section_list.clear();
        self.next.clear();
    }

    /// The state a change of the position at `entry` codes as 0: data version 7, the state
    /// before its last change; 8, the state that followed its present state the last time it
    /// had it, else the one before its last change.
    fn back_state(&self, entry: u32) -> Option<u32> {
        let c = &self.changed[entry as usize];
        if self.v8
            && let Some(&n) = self.next.get(&(entry, c.state))
        {
            return Some(n);
        }
        c.before
    }

    /// Data version 8: adds the section of a changed position to the table of sections.
    fn note_section(&mut self, pos: BlockPos) {
        if self.v8 {
            let n = self.section_list.len() as u32;
            let sec = section(pos);
            self.sections.entry(sec).or_insert_with(|| {
                self.section_list.push(sec);
                n
            });
        }
    }

    /// Records that `pos` (at `entry` of the table, if it is there) is now `state` (data
    /// version 7).
    fn record(&mut self, entry: Option<u32>, pos: BlockPos, state: u32) {
        match entry {
            Some(i) => {
                let c = &mut self.changed[i as usize];
                if self.v8 {
                    self.next.insert((i, c.state), state);
                }
                c.before = Some(c.state);
                c.state = state;
            }
            None => {
                self.changed_index.insert(pos, self.changed.len() as u32);
                self.changed.push(Changed {
                    pos,
                    state,
                    before: None,
                });
            }
        }
    }

    /// Appends the body of a block change (after its kind byte):
    ///
    /// ```text
    /// varint cause + 1                 0: none
    /// varint step                      < 125: (dx, dy, dz) = (step / 25 − 2, step / 5 % 5 − 2,
    ///                                  step % 5 − 2) from the cause's previous change in the chunk
    ///                                  (only when it has one); 125: ivarint dx, dy, dz from it
    ///                                  (from 0, 0, 0 when it has none); data version 7: ≥ 126,
    ///                                  the position at index step − 126 of the chunk's table of
    ///                                  changed positions
    /// varint code                      code >> 1 (data version 6: code >> 2): index in the
    ///                                  chunk's state table; the table's length: a new state
    ///                                  follows (varint), added to the table;
    ///                                  data version 7: code >> 2 = 0: the state the block had
    ///                                  before its last change in the chunk, else index + 1;
    ///                                  code & 1: block-entity data follows;
    ///                                  data version 6: code & 2: the small step is from the
    ///                                  cause's second cursor (never with step 125 or more)
    /// [varint state]
    /// [varint len ≤ 65536, len bytes]  the block entity's NBT
    /// ```
    pub(crate) fn encode(
        &mut self,
        out: &mut Vec<u8>,
        pos: BlockPos,
        state: u32,
        cause: Option<u32>,
        block_entity: Option<&[u8]>,
    ) {
        // data version 8: each field to its column, nothing after the kind byte
        let mut columns = self.columns.take();
        put_opt_entity(sink(out, &mut columns, CAUSE), cause);
        let key = cause.map_or(0, |c| u64::from(c) + 1);
        let prev = self.last.get(&key).copied();
        let d = diff(pos, prev.map_or_else(BlockPos::default, |p| p.0));
        let second = match prev {
            Some((_, Some(b))) if self.two_cursors && !is_small(&d) => {
                Some(diff(pos, b)).filter(is_small)
            }
            _ => None,
        };
        let entry = if self.table {
            self.changed_index.get(&pos).copied()
        } else {
            None
        };
        let (d, far) = match second {
            Some(d2) => (d2, false),
            None => (d, prev.is_none() || !is_small(&d)),
        };
        match entry {
            Some(i) if far => put_uvarint(sink(out, &mut columns, STEP), TABLE + u64::from(i)),
            _ if far && self.v8 => {
                // data version 8: a section of the table (its index + 1), or 0 and the section's
                // difference from the cursor's; then the block inside it
                put_uvarint(sink(out, &mut columns, STEP), FAR);
                let o = sink(out, &mut columns, FAR_STEP);
                match self.sections.get(&section(pos)) {
                    Some(&i) => put_uvarint(o, u64::from(i) + 1),
                    None => {
                        o.push(0);
                        let base = section(prev.map_or_else(BlockPos::default, |p| p.0));
                        for (a, b) in section(pos).into_iter().zip(base) {
                            put_ivarint(o, i64::from(a) - i64::from(b));
                        }
                    }
                }
                o.extend_from_slice(&in_section(pos).to_be_bytes());
            }
            _ if far => {
                put_uvarint(sink(out, &mut columns, STEP), FAR);
                for v in d {
                    put_ivarint(sink(out, &mut columns, FAR_STEP), v);
                }
            }
            _ => {
                let s = d.iter().fold(0i64, |acc, v| acc * 5 + (v + 2));
                put_uvarint(sink(out, &mut columns, STEP), s as u64);
            }
        }
        self.moved(key, prev, pos, second.is_some(), far);
        let bits = u64::from(block_entity.is_some())
            | if self.two_cursors {
                u64::from(second.is_some()) << 1
            } else {
                0
            };
        let shift = if self.two_cursors { 2 } else { 1 };
        let back = entry.is_some_and(|i| self.back_state(i) == Some(state));
        // data version 7: code 0 is "back", the table's indexes come after it
        let first = u64::from(self.table);
        match self.index.get(&state) {
            _ if back => put_uvarint(sink(out, &mut columns, CODE), bits),
            Some(&i) => put_uvarint(
                sink(out, &mut columns, CODE),
                ((u64::from(i) + first) << shift) | bits,
            ),
            None => {
                let i = self.states.len() as u32;
                put_uvarint(
                    sink(out, &mut columns, CODE),
                    ((u64::from(i) + first) << shift) | bits,
                );
                put_uvarint(sink(out, &mut columns, VALUE), u64::from(state));
                self.states.push(state);
                self.index.insert(state, i);
            }
        }
        if self.table {
            self.record(entry, pos, state);
        }
        self.note_section(pos);
        if let Some(b) = block_entity {
            let out = sink(out, &mut columns, VALUE);
            put_uvarint(out, b.len() as u64);
            out.extend_from_slice(b);
        }
        self.columns = columns;
    }

    /// Reads data version 8's far step (after step 125): `varint s`, `s − 1` the index of a
    /// section in the chunk's table of sections, or 0 and `svarint dx, dy, dz`, the section's
    /// difference from the one of `cursor` (the origin's without one); then `u16` the block's
    /// place in the section (x + 16 z + 256 y, below 4096).
    fn far_in_section(&self, r: &mut ByteReader<'_>, cursor: Option<BlockPos>) -> Result<BlockPos> {
        let s = r.uvarint()?;
        let sec = if s == 0 {
            let base = section(cursor.unwrap_or_default());
            let mut c = [0i64; 3];
            for (k, v) in c.iter_mut().enumerate() {
                *v = i64::from(base[k])
                    .checked_add(r.ivarint()?)
                    .ok_or_else(|| Error::corrupt("block change: section outside 32 bits"))?;
            }
            c
        } else {
            let found = usize::try_from(s - 1)
                .ok()
                .and_then(|i| self.section_list.get(i));
            let Some(sec) = found else {
                return Err(Error::corrupt(format!(
                    "block change: section {} past the chunk's {} sections",
                    s - 1,
                    self.section_list.len()
                )));
            };
            sec.map(i64::from)
        };
        let at = r.u16_be()?;
        if at >= 4096 {
            return Err(Error::corrupt(format!(
                "block change: place {at} outside a section"
            )));
        }
        let local = [
            i64::from(at & 15),
            i64::from(at >> 8),
            i64::from((at >> 4) & 15),
        ];
        let mut p = [0i32; 3];
        for k in 0..3 {
            p[k] = sec[k]
                .checked_mul(16)
                .and_then(|v| v.checked_add(local[k]))
                .and_then(|v| i32::try_from(v).ok())
                .ok_or_else(|| Error::corrupt("block change: position outside 32 bits"))?;
        }
        Ok(BlockPos::new(p[0], p[1], p[2]))
    }

    /// Reads the body [`BlockCoding::encode`] writes, refusing a small step with no previous
    /// change, a table index or state index past its table, a change back with no state before,
    /// a position outside 32 bits and block-entity data over its limit.
    /// Data version 8: the fields are read from `columns` (the stream's [`BlockColumns`]), the
    /// stream `r` holding nothing after the kind byte.
    pub(crate) fn decode<'a>(
        &mut self,
        r: &mut ByteReader<'a>,
        mut columns: Option<&mut [ByteReader<'a>; COLUMNS]>,
    ) -> Result<Event> {
        let cause = get_opt_entity(field(r, &mut columns, CAUSE))?;
        let key = cause.map_or(0, |c| u64::from(c) + 1);
        let prev = self.last.get(&key).copied();
        let step = field(r, &mut columns, STEP).uvarint()?;
        // the step: a small one, a far one, or (data version 7) a changed position
        let (d, entry) = if step < SMALL_STEPS {
            let s = step as i64;
            (Some([s / 25 - 2, s / 5 % 5 - 2, s % 5 - 2]), None)
        } else if step == FAR {
            (None, None)
        } else if self.table {
            let i = usize::try_from(step - TABLE)
                .ok()
                .filter(|&i| i < self.changed.len())
                .ok_or_else(|| {
                    Error::corrupt(format!(
                        "block change: position {} past the chunk's {} changed positions",
                        step - TABLE,
                        self.changed.len()
                    ))
                })?;
            (None, Some(i as u32))
        } else {
            return Err(Error::corrupt(format!("block change: step code {step}")));
        };
        let mut in_table = None;
        let far = match (d, entry) {
            (Some(d), _) => d,
            (None, Some(_)) => [0; 3],
            (None, None) if self.v8 => {
                // data version 8: a section of the table, or one given from the cursor's
                let r = field(r, &mut columns, FAR_STEP);
                in_table = Some(self.far_in_section(r, prev.map(|p| p.0))?);
                [0; 3]
            }
            (None, None) => {
                let r = field(r, &mut columns, FAR_STEP);
                [r.ivarint()?, r.ivarint()?, r.ivarint()?]
            }
        };
        let code = field(r, &mut columns, CODE).uvarint()?;
        let second = self.two_cursors && code & 2 != 0;
        let base = match (prev, d.is_some(), second) {
            (None, true, _) => {
                return Err(Error::corrupt(
                    "block change: a step from the cause's previous change, which it has not",
                ));
            }
            (_, false, true) => {
                return Err(Error::corrupt(
                    "block change: a far step from the cause's second cursor",
                ));
            }
            (Some((_, b)), true, true) => b.ok_or_else(|| {
                Error::corrupt(
                    "block change: a step from the cause's second cursor, which it has not",
                )
            })?,
            (p, _, false) => p.map_or_else(BlockPos::default, |p| p.0),
        };
        let pos = match (entry, in_table) {
            (Some(i), _) => self.changed[i as usize].pos,
            (None, Some(p)) => p,
            (None, None) => {
                let mut c = [0i32; 3];
                for (k, v) in c.iter_mut().enumerate() {
                    let b = [base.x, base.y, base.z][k];
                    *v = i64::from(b)
                        .checked_add(far[k])
                        .and_then(|a| i32::try_from(a).ok())
                        .ok_or_else(|| Error::corrupt("block change: position outside 32 bits"))?;
                }
                BlockPos::new(c[0], c[1], c[2])
            }
        };
        self.moved(key, prev, pos, second, d.is_none());
        let entry = match entry {
            Some(i) => Some(i),
            None if self.table => self.changed_index.get(&pos).copied(),
            None => None,
        };
        let i = code >> if self.two_cursors { 2 } else { 1 };
        let state = if self.table && i == 0 {
            entry.and_then(|e| self.back_state(e)).ok_or_else(|| {
                Error::corrupt(
                    "block change: back to the state before, of a block without one in the chunk",
                )
            })?
        } else {
            let i = i - u64::from(self.table);
            match usize::try_from(i).ok().filter(|&i| i <= self.states.len()) {
                Some(i) if i < self.states.len() => self.states[i],
                Some(_) => {
                    // a new state: the table grows by at most one entry per block change read
                    let s = field(r, &mut columns, VALUE).uvarint32()?;
                    self.states.push(s);
                    s
                }
                None => {
                    return Err(Error::corrupt(format!(
                        "block change: state index {i} past the chunk's {} states",
                        self.states.len()
                    )));
                }
            }
        };
        if self.table {
            // the table grows by at most one entry per block change read
            self.record(entry, pos, state);
        }
        self.note_section(pos);
        let block_entity = if code & 1 != 0 {
            let r = field(r, &mut columns, VALUE);
            let len = r.len_varint(MAX_BLOCK_ENTITY_BYTES, "block-entity data")?;
            Some(r.bytes(len)?.to_vec())
        } else {
            None
        };
        Ok(Event::BlockChange {
            pos,
            state,
            cause,
            block_entity,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(x: i32, y: i32, z: i32, state: u32, cause: Option<u32>) -> Event {
        Event::BlockChange {
            pos: BlockPos::new(x, y, z),
            state,
            cause,
            block_entity: None,
        }
    }

    /// Encodes `events` in the default coding (data versions 4-5's: one cursor, no table).
    fn encode_all(events: &[Event]) -> Vec<u8> {
        encode_version(5, events).0
    }

    #[test]
    fn block_changes_round_trip_and_neighbours_cost_four_bytes_or_less() {
        let mut events = vec![
            change(100, 64, -200, 0, Some(7)),
            change(100, 65, -200, 0, Some(7)),
            change(-5_000_000, 3, 9, 12, None),
            change(101, 64, -200, 0, Some(7)),
            change(i32::MAX, i32::MIN, 0, u32::MAX, Some(u32::MAX - 1)),
            change(-4_999_998, 1, 11, 12, None),
            change(104, 64, -200, 5, Some(7)),
        ];
        events.push(Event::BlockChange {
            pos: BlockPos::new(104, 65, -200),
            state: 5,
            cause: Some(7),
            block_entity: Some(vec![10, 0, 0, 0]),
        });
        let out = encode_all(&events);
        let mut dec = BlockCoding::default();
        let mut r = ByteReader::new(&out);
        for e in &events {
            assert_eq!(&dec.decode(&mut r, None).unwrap(), e);
        }
        assert!(r.is_empty());
        // a neighbour of the same cause with a state already used: cause, step, code
        let mut again = BlockCoding::default();
        let mut b = Vec::new();
        again.encode(&mut b, BlockPos::new(1, 2, 3), 4, Some(1), None);
        let at = b.len();
        again.encode(&mut b, BlockPos::new(2, 2, 1), 4, Some(1), None);
        assert_eq!(b.len() - at, 3);
    }

    #[test]
    fn a_cause_alternating_between_two_places_steps_from_its_second_cursor() {
        // mining at y 40 and building at y 64, alternating: from the second tunnel block on,
        // every change is a small step (data version 6), never a far one
        let mut events = Vec::new();
        for i in 0..8 {
            events.push(change(i, 40, 0, 0, Some(3)));
            events.push(change(i, 64, 2, 5, Some(3)));
        }
        let mut enc = BlockCoding::for_version(6);
        let mut out = Vec::new();
        let mut sizes = Vec::new();
        for e in &events {
            let Event::BlockChange { pos, state, .. } = e else {
                unreachable!()
            };
            let at = out.len();
            enc.encode(&mut out, *pos, *state, Some(3), None);
            sizes.push(out.len() - at);
        }
        assert!(sizes[2..].iter().all(|&n| n == 3), "{sizes:?}");
        let mut dec = BlockCoding::for_version(6);
        let mut r = ByteReader::new(&out);
        for e in &events {
            assert_eq!(&dec.decode(&mut r, None).unwrap(), e);
        }
        assert!(r.is_empty());
        // data version 4's coding of the same: far steps each time
        let v4 = encode_all(&events);
        assert!(v4.len() > out.len() + 2 * 14, "{} {}", v4.len(), out.len());
    }

    #[test]
    fn crafted_second_cursor_steps_are_refused() {
        let dec =
            |bytes: &[u8]| BlockCoding::for_version(6).decode(&mut ByteReader::new(bytes), None);
        // a far step with the second cursor's bit
        let err = dec(&[0, 125, 0, 0, 0, 2, 3]).unwrap_err();
        assert!(err.to_string().contains("far step"), "{err}");
        // a small step from a second cursor the cause has not (one change before)
        let second = |code: u8| {
            let mut c = BlockCoding::for_version(6);
            let bytes = [0, 125, 2, 2, 2, 0, 3, 0, 62, code];
            let mut r = ByteReader::new(&bytes);
            c.decode(&mut r, None).unwrap();
            c.decode(&mut r, None)
        };
        let err = second(2).unwrap_err();
        assert!(err.to_string().contains("second cursor"), "{err}");
        assert_eq!(
            second(0).unwrap(),
            change(1, 1, 1, 3, None),
            "the same step from the last change"
        );
        // the same with data version 4's coding: bit 1 is the state index's
        assert!(
            BlockCoding::for_version(4)
                .decode(&mut ByteReader::new(&[0, 125, 0, 0, 0, 2, 3]), None)
                .is_err()
        );
    }

    /// Encodes `events` in `version`'s coding: the bytes and each change's size.
    fn encode_version(version: u16, events: &[Event]) -> (Vec<u8>, Vec<usize>) {
        let mut enc = BlockCoding::for_version(version);
        let mut out = Vec::new();
        let mut sizes = Vec::new();
        for e in events {
            let Event::BlockChange {
                pos,
                state,
                cause,
                block_entity,
            } = e
            else {
                unreachable!()
            };
            let at = out.len();
            enc.encode(&mut out, *pos, *state, *cause, block_entity.as_deref());
            sizes.push(out.len() - at);
        }
        (out, sizes)
    }

    fn decode_version(version: u16, bytes: &[u8], n: usize) -> Vec<Event> {
        let mut dec = BlockCoding::for_version(version);
        let mut r = ByteReader::new(bytes);
        let out = (0..n).map(|_| dec.decode(&mut r, None).unwrap()).collect();
        assert!(r.is_empty());
        out
    }

    #[test]
    fn a_machine_toggling_far_apart_blocks_codes_each_change_alike_every_cycle() {
        // two lamps 40 blocks apart and a lever far from both, toggled in turn: from the second
        // cycle on, each change is a table position (one byte for the first two, two after) and
        // "back to the state before", the same bytes every cycle (data version 7); data version
        // 6 takes a far step each time
        let at = [(0, 64, 0), (40, 64, 0), (-30, 70, 900)];
        let mut events = Vec::new();
        for cycle in 0..6 {
            for (k, &(x, y, z)) in at.iter().enumerate() {
                events.push(change(x, y, z, 10 + k as u32 * 2 + cycle % 2, None));
            }
        }
        let (v7, sizes) = encode_version(7, &events);
        assert_eq!(decode_version(7, &v7, events.len()), events);
        assert!(sizes[6..].iter().all(|&n| n <= 4), "{sizes:?}");
        let cycle = |c: usize| {
            let from: usize = sizes[..3 * c].iter().sum();
            &v7[from..from + sizes[3 * c..3 * c + 3].iter().sum::<usize>()]
        };
        assert_eq!(cycle(2), cycle(4));
        assert_eq!(cycle(3), cycle(5));
        let (v6, _) = encode_version(6, &events);
        assert_eq!(decode_version(6, &v6, events.len()), events);
        assert!(v6.len() > v7.len() + 3 * 18, "{} {}", v6.len(), v7.len());
    }

    #[test]
    fn version_7_round_trips_every_kind_of_step_and_state() {
        let mut events = vec![
            change(100, 64, -200, 0, Some(7)),
            change(101, 64, -200, 3, Some(7)),
            change(100, 64, -200, 5, Some(7)),
            // back to the state before its last change (0), then again (5)
            change(100, 64, -200, 0, Some(7)),
            change(100, 64, -200, 5, Some(7)),
            change(i32::MAX, i32::MIN, 0, u32::MAX, None),
            change(i32::MAX, i32::MIN, 0, 4, None),
            change(101, 64, -200, 3, None),
            change(i32::MAX, i32::MIN, 0, u32::MAX, None),
            change(101, 64, -200, 9, Some(u32::MAX - 1)),
        ];
        events.push(Event::BlockChange {
            pos: BlockPos::new(100, 64, -200),
            state: 0,
            cause: Some(7),
            block_entity: Some(vec![10, 0, 0, 0]),
        });
        let (bytes, sizes) = encode_version(7, &events);
        assert_eq!(decode_version(7, &bytes, events.len()), events);
        // a change back: cause, step, code 0
        assert_eq!(sizes[3], 3, "{sizes:?}");
        // truncated anywhere
        for cut in 0..bytes.len() {
            let mut dec = BlockCoding::for_version(7);
            let mut r = ByteReader::new(&bytes[..cut]);
            assert!(
                (0..events.len()).any(|_| dec.decode(&mut r, None).is_err()),
                "cut {cut}"
            );
        }
    }

    /// Encodes `events` in data version 8's coding: the stream's bytes (nothing after the kind
    /// bytes) and the columns.
    fn encode_columns(events: &[Event]) -> (Vec<u8>, [Vec<u8>; COLUMNS]) {
        let mut enc = BlockCoding::for_version(8);
        let mut out = Vec::new();
        for e in events {
            let Event::BlockChange {
                pos,
                state,
                cause,
                block_entity,
            } = e
            else {
                unreachable!()
            };
            enc.encode(&mut out, *pos, *state, *cause, block_entity.as_deref());
        }
        (out, enc.columns().expect("data version 8").clone())
    }

    fn decode_columns(columns: &[Vec<u8>; COLUMNS], n: usize) -> Result<Vec<Event>> {
        let mut dec = BlockCoding::for_version(8);
        let mut r = ByteReader::new(&[]);
        let mut c: [ByteReader<'_>; COLUMNS] =
            std::array::from_fn(|i| ByteReader::new(&columns[i]));
        let out = (0..n)
            .map(|_| dec.decode(&mut r, Some(&mut c)))
            .collect::<Result<Vec<_>>>()?;
        assert!(c.iter().all(ByteReader::is_empty));
        Ok(out)
    }

    #[test]
    fn version_8_puts_each_field_in_its_column() {
        // an explosion: a shuffled sphere to air, then a lever with a sign's data, and a
        // player's far change
        let mut events = Vec::new();
        let mut rng = 7u32;
        for _ in 0..40 {
            rng = rng.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let v = (rng >> 8) as i32;
            events.push(change(v % 7, 60 + (v >> 3) % 7, (v >> 6) % 7, 0, None));
        }
        events.push(Event::BlockChange {
            pos: BlockPos::new(3, 61, 3),
            state: 5800,
            cause: Some(4),
            block_entity: Some(vec![10, 0, 0, 0]),
        });
        events.push(change(-90_000, 12, 44, 5801, Some(4)));
        let (stream, columns) = encode_columns(&events);
        // nothing after the kind bytes: every field is in a column
        assert!(stream.is_empty());
        assert_eq!(decode_columns(&columns, events.len()).unwrap(), events);
        // the causes: none 40 times, then 4 + 1 twice
        assert_eq!(&columns[CAUSE][..40], &[0; 40]);
        assert_eq!(&columns[CAUSE][40..], &[5, 5]);
        // the codes: air, new, then "back" to it 39 times or fewer (a repeated position), then
        // the lever's code with the block-entity bit and the far change's
        assert_eq!(columns[CODE][0], 4);
        assert!(
            columns[CODE][1..40]
                .iter()
                .all(|&c| c == 4 || c == 0 || c == 6)
        );
        // the values: air (0), the lever's state and its data, then the far change's state
        let mut values = vec![0];
        put_uvarint(&mut values, 5800);
        values.extend_from_slice(&[4, 10, 0, 0, 0]);
        put_uvarint(&mut values, 5801);
        assert_eq!(columns[VALUE], values);
        // a far step's coordinates are in their own column
        assert!(columns[FAR_STEP].len() >= 3);
        // a column cut short anywhere is refused
        for k in 0..COLUMNS {
            for cut in 0..columns[k].len() {
                let mut short = columns.clone();
                short[k].truncate(cut);
                let mut dec = BlockCoding::for_version(8);
                let mut r = ByteReader::new(&[]);
                let mut c: [ByteReader<'_>; COLUMNS] =
                    std::array::from_fn(|i| ByteReader::new(&short[i]));
                assert!(
                    (0..events.len()).any(|_| dec.decode(&mut r, Some(&mut c)).is_err()),
                    "column {k} cut at {cut}"
                );
            }
        }
    }

    #[test]
    fn version_8_names_far_blocks_by_section_and_codes_cycles_as_next() {
        // bases far apart, served in turn by the server (no cause): a wire stepping down
        // through three powers at each base, and a new block near each base every round
        let bases = [
            (0, 64, 0),
            (5_000_000, 70, -3_000_000),
            (-2_000_000, 12, 900),
        ];
        let mut events = Vec::new();
        for round in 0..9i32 {
            for &(x, y, z) in &bases {
                events.push(change(x, y, z, 4403 + 9 * (round % 3) as u32, None));
            }
            for &(x, y, z) in &bases {
                events.push(change(x + 3 + round % 5, y + 1, z + 7, 1, None));
            }
        }
        let (_, columns) = encode_columns(&events);
        assert_eq!(decode_columns(&columns, events.len()).unwrap(), events);
        let (v7, _) = encode_version(7, &events);
        let v8: usize = columns.iter().map(Vec::len).sum();
        // each new block near a base (15 of them): a section index and its place (3 bytes)
        // instead of three svarints from the block changed before at another base (9 or more)
        assert!(v8 + 15 * 5 < v7.len(), "{v8} {}", v7.len());
        // from the second round of a wire's three-state cycle on (round 4), its changes are
        // code 0 (the state that followed the present one last time); data version 7's "back"
        // never applies to a cycle of three
        let codes = &columns[CODE];
        assert_eq!(codes.len(), events.len());
        for (k, &c) in codes.iter().enumerate().skip(6 * 4) {
            if k % 6 < 3 {
                assert_eq!(c, 0, "change {k}: {codes:?}");
            }
        }
    }

    #[test]
    fn crafted_version_8_far_steps_are_refused() {
        let dec = |far: &[u8]| {
            // one far change (cause none, step 125, a new state 3)
            let columns = [vec![0], vec![125], far.to_vec(), vec![4], vec![3]];
            decode_columns(&columns, 1)
        };
        // a new section from the origin's, place 0x0123: x 3, z 2, y 1
        assert_eq!(
            dec(&[0, 2, 4, 6, 0x01, 0x23]).unwrap(),
            vec![change(16 + 3, 32 + 1, 48 + 2, 3, None)]
        );
        // a section past the (empty) table
        let err = dec(&[1, 0, 0]).unwrap_err();
        assert!(err.to_string().contains("sections"), "{err}");
        // a place outside the section
        let err = dec(&[0, 0, 0, 0, 0x10, 0x00]).unwrap_err();
        assert!(err.to_string().contains("outside a section"), "{err}");
        // a position outside 32 bits
        let mut far = vec![0];
        put_ivarint(&mut far, i64::from(i32::MAX >> 4) + 1);
        far.extend_from_slice(&[0, 0, 0, 0]);
        assert!(dec(&far).is_err());
        // cut short
        assert!(dec(&[0, 2, 4, 6, 0x01]).is_err());
        // after one change, its section is index 0: a second one there
        let columns = [
            vec![0, 0],
            vec![125, 125],
            vec![0, 2, 4, 6, 0x01, 0x23, 1, 0x0F, 0xFF],
            vec![4, 4],
            vec![3],
        ];
        assert_eq!(
            decode_columns(&columns, 2).unwrap()[1],
            change(16 + 15, 32 + 15, 48 + 15, 3, None)
        );
    }

    #[test]
    fn crafted_version_7_changes_are_refused() {
        let dec = |bytes: &[u8]| {
            let mut c = BlockCoding::for_version(7);
            let mut r = ByteReader::new(bytes);
            let mut last = None;
            while !r.is_empty() {
                last = Some(c.decode(&mut r, None));
                if last.as_ref().is_some_and(Result::is_err) {
                    break;
                }
            }
            last.expect("bytes")
        };
        // a table position past the table (empty)
        let err = dec(&[0, 126, 4]).unwrap_err();
        assert!(err.to_string().contains("changed positions"), "{err}");
        // after one change (index 0 known): position 0 is fine, 1 is not
        assert_eq!(
            dec(&[0, 125, 2, 2, 2, 4, 3, 0, 126, 4]).unwrap(),
            change(1, 1, 1, 3, None)
        );
        assert!(dec(&[0, 125, 2, 2, 2, 4, 3, 0, 127, 4]).is_err());
        // back to the state before, of a block changed once (no state before)
        let err = dec(&[0, 125, 2, 2, 2, 4, 3, 0, 126, 0]).unwrap_err();
        assert!(err.to_string().contains("state before"), "{err}");
        // ... and of a block never changed in the chunk
        assert!(dec(&[0, 125, 2, 2, 2, 0]).is_err());
        // a table position with the second cursor's bit
        let err = dec(&[0, 125, 2, 2, 2, 4, 3, 0, 126, 6]).unwrap_err();
        assert!(err.to_string().contains("second cursor"), "{err}");
        // data version 6 has no table: step 126 is refused
        assert!(
            BlockCoding::for_version(6)
                .decode(&mut ByteReader::new(&[0, 126, 4, 3]), None)
                .is_err()
        );
    }

    #[test]
    fn crafted_block_changes_are_refused() {
        let dec = |bytes: &[u8]| BlockCoding::default().decode(&mut ByteReader::new(bytes), None);
        // a small step without a previous change of that cause
        let err = dec(&[0, 62, 1, 3]).unwrap_err();
        assert!(err.to_string().contains("previous change"), "{err}");
        // an unknown step code
        assert!(dec(&[0, 126, 0, 0, 0, 0, 0]).is_err());
        // a state index past the table (empty: only index 0, a new state, is allowed)
        let err = dec(&[0, 125, 0, 0, 0, 4]).unwrap_err();
        assert!(err.to_string().contains("state index"), "{err}");
        assert!(dec(&[0, 125, 0, 0, 0, 0, 3]).is_ok());
        // a position outside 32 bits
        let mut far = vec![0, 125];
        put_ivarint(&mut far, i64::from(i32::MAX) + 1);
        far.extend_from_slice(&[0, 0, 0, 3]);
        assert!(dec(&far).is_err());
        // block-entity data over its limit, refused before reading it
        let mut nbt = vec![0, 125, 0, 0, 0, 1, 3];
        put_uvarint(&mut nbt, (MAX_BLOCK_ENTITY_BYTES + 1) as u64);
        assert!(dec(&nbt).is_err());
        // truncated anywhere
        let ok = encode_all(&[change(1, 2, 3, 300, Some(9))]);
        for cut in 0..ok.len() {
            assert!(dec(&ok[..cut]).is_err(), "cut {cut}");
        }
    }
}
