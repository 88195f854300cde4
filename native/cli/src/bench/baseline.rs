//! The reference Java implementation's encoding, for comparison: per tick `varint relative tick`,
//! `u16 event count`, then per event a kind byte and entity varint; movement as zigzag varint
//! deltas of the quantised position from the entity's previous tick (absolute at first sight in a
//! chunk) and absolute 16-bit angles (1/65536 turn); zstd level 3 per 100-tick chunk.

use std::collections::HashMap;

use tickreel::format::Event;
use tickreel::format::wire::{put_ivarint, put_uvarint};

/// Compressed size of the workload under the baseline encoding.
pub fn baseline_size(ticks: &[(u32, Vec<Event>)]) -> u64 {
    let mut total = 0u64;
    let mut prev: HashMap<u32, [i64; 3]> = HashMap::new();
    let mut buf = Vec::new();
    let mut chunk_start = None;
    let flush = |buf: &mut Vec<u8>, total: &mut u64| {
        if !buf.is_empty() {
            *total += zstd::bulk::compress(buf, 3).expect("zstd").len() as u64;
            buf.clear();
        }
    };
    for (tick, events) in ticks {
        let start = *chunk_start.get_or_insert(*tick);
        if tick - start >= 100 {
            flush(&mut buf, &mut total);
            prev.clear();
            chunk_start = Some(*tick);
        }
        let start = chunk_start.expect("set");
        put_uvarint(&mut buf, u64::from(tick - start));
        buf.extend_from_slice(&(events.len() as u16).to_be_bytes());
        for e in events {
            match e {
                Event::Pose { entity, pose }
                | Event::Teleport { entity, pose }
                | Event::EntityAdd { entity, pose, .. } => {
                    buf.push(e.kind());
                    put_uvarint(&mut buf, u64::from(*entity));
                    let p = [pose.x, pose.y, pose.z];
                    let base = prev.insert(*entity, p).unwrap_or([0; 3]);
                    for k in 0..3 {
                        put_ivarint(&mut buf, p[k] - base[k]);
                    }
                    buf.extend_from_slice(&(pose.yaw as u16).to_be_bytes());
                    buf.extend_from_slice(&(pose.pitch as u16).to_be_bytes());
                }
                other => other.encode(&mut buf),
            }
        }
    }
    flush(&mut buf, &mut total);
    total
}
