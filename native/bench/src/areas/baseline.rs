//! The reference Java implementation's encoding, for comparison: per tick `varint relative tick`,
//! `u16 event count`, then per event a kind byte and entity varint; movement as zigzag varint
//! deltas of the quantised position from the entity's previous tick (absolute at first sight in a
//! chunk) and absolute 16-bit angles (1/65536 turn); zstd level 3 per 100-tick chunk.

use std::collections::HashMap;

use tickreel::format::Event;
use tickreel::format::wire::{put_ivarint, put_uvarint};

/// Ticks per chunk of the reference recorder.
pub const CHUNK_TICKS: u32 = 100;
/// Zstd level of the reference recorder's chunks.
const RECORD_LEVEL: i32 = 3;

/// One 100-tick chunk of the reference encoding, uncompressed.
pub struct RawChunk {
    /// First tick of the chunk.
    pub start_tick: u32,
    /// Ticks the chunk holds.
    pub tick_count: u32,
    /// The encoded ticks, one after the other.
    pub bytes: Vec<u8>,
    /// Where each tick's bytes end in `bytes`.
    pub tick_ends: Vec<usize>,
}

/// Encodes the workload chunk by chunk, handing each uncompressed chunk to `f`.
pub fn encode_chunks(ticks: &[(u32, Vec<Event>)], mut f: impl FnMut(&RawChunk)) {
    let mut prev: HashMap<u32, [i64; 3]> = HashMap::new();
    let mut chunk: Option<RawChunk> = None;
    for (tick, events) in ticks {
        if chunk
            .as_ref()
            .is_some_and(|c| tick - c.start_tick >= CHUNK_TICKS)
        {
            f(&chunk.take().expect("open"));
            prev.clear();
        }
        let c = chunk.get_or_insert_with(|| RawChunk {
            start_tick: *tick,
            tick_count: 0,
            bytes: Vec::new(),
            tick_ends: Vec::new(),
        });
        let buf = &mut c.bytes;
        put_uvarint(buf, u64::from(tick - c.start_tick));
        buf.extend_from_slice(&(events.len() as u16).to_be_bytes());
        for e in events {
            match e {
                Event::Pose { entity, pose }
                | Event::Teleport { entity, pose }
                | Event::EntityAdd { entity, pose, .. } => {
                    buf.push(e.kind());
                    put_uvarint(buf, u64::from(*entity));
                    let p = [pose.x, pose.y, pose.z];
                    let base = prev.insert(*entity, p).unwrap_or([0; 3]);
                    for k in 0..3 {
                        put_ivarint(buf, p[k] - base[k]);
                    }
                    buf.extend_from_slice(&(pose.yaw as u16).to_be_bytes());
                    buf.extend_from_slice(&(pose.pitch as u16).to_be_bytes());
                }
                other => other.encode(buf),
            }
        }
        c.tick_ends.push(buf.len());
        c.tick_count = tick - c.start_tick + 1;
    }
    if let Some(c) = chunk {
        f(&c);
    }
}

/// Compressed size of the workload under the baseline encoding: its chunks compressed one by one
/// (no header, metadata or index counted).
pub fn baseline_size(ticks: &[(u32, Vec<Event>)]) -> u64 {
    let mut total = 0u64;
    encode_chunks(ticks, |c| total += chunk_size(c));
    total
}

/// Compressed size of one chunk as the reference recorder stores it.
pub fn chunk_size(c: &RawChunk) -> u64 {
    zstd::bulk::compress(&c.bytes, RECORD_LEVEL)
        .expect("zstd")
        .len() as u64
}
