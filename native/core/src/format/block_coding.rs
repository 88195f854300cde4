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
//! Both sides keep the same context ([`BlockCoding`]), emptied at each chunk's start, so every
//! chunk still decodes on its own. Pure bytes, no I/O.

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::format::bytes::{ByteReader, put_ivarint, put_uvarint};
use crate::format::event::Event;
use crate::format::world::{BlockPos, MAX_BLOCK_ENTITY_BYTES, get_opt_entity, put_opt_entity};

/// Steps `0..SMALL_STEPS` are one-byte moves of -2..=2 on each axis; [`FAR`] announces three
/// zigzag varints.
const SMALL_STEPS: u64 = 125;
const FAR: u64 = SMALL_STEPS;

/// The context one chunk's block changes are coded against (the writer's and each reader's).
#[derive(Debug, Default)]
pub(crate) struct BlockCoding {
    /// The last position changed by each cause (`varint cause + 1`, 0: none).
    last: FxHashMap<u64, BlockPos>,
    /// The states used so far, in order of first use.
    states: Vec<u32>,
    /// Writer side: each state's index in `states`.
    index: FxHashMap<u32, u32>,
}

impl BlockCoding {
    /// Forgets everything (a new chunk).
    pub(crate) fn clear(&mut self) {
        self.last.clear();
        self.states.clear();
        self.index.clear();
    }

    /// Appends the body of a block change (after its kind byte):
    ///
    /// ```text
    /// varint cause + 1                 0: none
    /// varint step                      < 125: (dx, dy, dz) = (step / 25 − 2, step / 5 % 5 − 2,
    ///                                  step % 5 − 2) from the cause's previous change in the chunk
    ///                                  (only when it has one); 125: ivarint dx, dy, dz from it
    ///                                  (from 0, 0, 0 when it has none)
    /// varint code                      code >> 1: index in the chunk's state table; the table's
    ///                                  length: a new state follows (varint), added to the table;
    ///                                  code & 1: block-entity data follows
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
        put_opt_entity(out, cause);
        let key = cause.map_or(0, |c| u64::from(c) + 1);
        let prev = self.last.insert(key, pos);
        let base = prev.unwrap_or_default();
        let d = [
            i64::from(pos.x) - i64::from(base.x),
            i64::from(pos.y) - i64::from(base.y),
            i64::from(pos.z) - i64::from(base.z),
        ];
        if prev.is_some() && d.iter().all(|v| (-2..=2).contains(v)) {
            let s = d.iter().fold(0i64, |acc, v| acc * 5 + (v + 2));
            put_uvarint(out, s as u64);
        } else {
            put_uvarint(out, FAR);
            for v in d {
                put_ivarint(out, v);
            }
        }
        let nbt = u64::from(block_entity.is_some());
        match self.index.get(&state) {
            Some(&i) => put_uvarint(out, (u64::from(i) << 1) | nbt),
            None => {
                let i = self.states.len() as u32;
                put_uvarint(out, (u64::from(i) << 1) | nbt);
                put_uvarint(out, u64::from(state));
                self.states.push(state);
                self.index.insert(state, i);
            }
        }
        if let Some(b) = block_entity {
            put_uvarint(out, b.len() as u64);
            out.extend_from_slice(b);
        }
    }

    /// Reads the body [`BlockCoding::encode`] writes, refusing a small step with no previous
    /// change, a state index past the table, a position outside 32 bits and block-entity data
    /// over its limit.
    pub(crate) fn decode(&mut self, r: &mut ByteReader<'_>) -> Result<Event> {
        let cause = get_opt_entity(r)?;
        let key = cause.map_or(0, |c| u64::from(c) + 1);
        let prev = self.last.get(&key).copied();
        let step = r.uvarint()?;
        let d = if step < SMALL_STEPS {
            if prev.is_none() {
                return Err(Error::corrupt(
                    "block change: a step from the cause's previous change, which it has not",
                ));
            }
            let s = step as i64;
            [s / 25 - 2, s / 5 % 5 - 2, s % 5 - 2]
        } else if step == FAR {
            [r.ivarint()?, r.ivarint()?, r.ivarint()?]
        } else {
            return Err(Error::corrupt(format!("block change: step code {step}")));
        };
        let base = prev.unwrap_or_default();
        let mut c = [0i32; 3];
        for (k, v) in c.iter_mut().enumerate() {
            let b = [base.x, base.y, base.z][k];
            *v = i64::from(b)
                .checked_add(d[k])
                .and_then(|a| i32::try_from(a).ok())
                .ok_or_else(|| Error::corrupt("block change: position outside 32 bits"))?;
        }
        let pos = BlockPos::new(c[0], c[1], c[2]);
        self.last.insert(key, pos);
        let code = r.uvarint()?;
        let i = code >> 1;
        let state = match usize::try_from(i).ok().filter(|&i| i <= self.states.len()) {
            Some(i) if i < self.states.len() => self.states[i],
            Some(_) => {
                // a new state: the table grows by at most one entry per block change read
                let s = r.uvarint32()?;
                self.states.push(s);
                s
            }
            None => {
                return Err(Error::corrupt(format!(
                    "block change: state index {i} past the chunk's {} states",
                    self.states.len()
                )));
            }
        };
        let block_entity = if code & 1 != 0 {
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

    fn encode_all(events: &[Event]) -> Vec<u8> {
        let mut enc = BlockCoding::default();
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
        out
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
            assert_eq!(&dec.decode(&mut r).unwrap(), e);
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
    fn crafted_block_changes_are_refused() {
        let dec = |bytes: &[u8]| BlockCoding::default().decode(&mut ByteReader::new(bytes));
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
