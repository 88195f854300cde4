//! Decoding the movement section of a chunk payload (FORMAT.md section 7.4): every entity's pose
//! samples, or only one entity's. Residuals are grouped by column, all tracks of a column together,
//! so a decode for one entity reads every track header (for the sample counts) and then, in each
//! column, steps over the other tracks' residual varints without decoding them.

use crate::error::{Error, Result};
use crate::format::bytes::ByteReader;
use crate::format::chunk::Track;
use crate::format::gap_prediction::{self, PRED_TIME_LINEAR};
use crate::format::movement::{self, PREDICTOR_COUNT};
use crate::format::pose::Pose;
use crate::format::state::EntityState;

fn keyframe_value(keyframe: &[EntityState], id: u32, col: usize) -> Option<i64> {
    keyframe
        .binary_search_by_key(&id, |e| e.id)
        .ok()
        .map(|i| keyframe[i].pose.to_array()[col])
}

/// Reads the `i`-th of a list of strictly increasing entity ids stored as deltas (the first absolute).
pub(crate) fn next_id(r: &mut ByteReader<'_>, i: usize, prev: u32, what: &str) -> Result<u32> {
    let d = r.uvarint32()?;
    if i == 0 {
        return Ok(d);
    }
    prev.checked_add(d)
        .filter(|_| d > 0)
        .ok_or_else(|| Error::corrupt(format!("{what} entity ids not increasing")))
}

/// One track header as read: the entity, its sample count and, for a track being decoded, its
/// sample ticks and resets.
struct Header {
    samples: usize,
    track: Option<Track>,
}

/// Decodes the movement section at `r`'s position: the tracks of the entities `wanted` says (every
/// track, or one entity's, or a report's kept entities). The other tracks' headers are checked as in
/// a full decode; their residuals are stepped over (`ByteReader::skip_varints`), so a corrupt
/// residual of another entity goes unnoticed there (the payload checksum covers it). With
/// `positions_only`, the yaw and pitch columns are stepped over the same way for every track (the
/// poses keep a zero yaw and pitch).
pub(crate) fn decode_movement(
    r: &mut ByteReader<'_>,
    keyframe: &[EntityState],
    tick_count: u32,
    max_samples: usize,
    wanted: &dyn Fn(u32) -> bool,
    positions_only: bool,
    data_version: u16,
) -> Result<Vec<Track>> {
    // Predictor 4 (linear in time) exists from data version 2 on.
    let predictors = if data_version >= 2 {
        PREDICTOR_COUNT + 1
    } else {
        PREDICTOR_COUNT
    };
    // Each track needs at least 3 header bytes plus 2 bytes per column.
    let n = r.len_varint(r.remaining() / 13, "moving entity count")?;
    if n > max_samples {
        return Err(Error::limit(format!(
            "{n} moving entities in one chunk; limit {max_samples}"
        )));
    }
    let mut headers: Vec<Header> = Vec::with_capacity(n);
    let mut id = 0u32;
    let mut total_samples = 0usize;
    for i in 0..n {
        id = next_id(r, i, id, "movement")?;
        let wanted = wanted(id);
        // Runs (count ≥ 1), or from data version 2 on, a 0 then the sample count and deltas.
        let mut count = r.uvarint()?;
        let deltas = data_version >= 2 && count == 0;
        if deltas {
            count = r.uvarint()?;
        }
        if count > u64::from(tick_count) {
            return Err(Error::limit(format!(
                "{} count {count} exceeds limit {tick_count}",
                if deltas { "sample" } else { "run" }
            )));
        }
        let mut ticks = Vec::new();
        let mut samples = 0usize;
        let mut end = 0u64;
        for _ in 0..count {
            // A run starts `gap` ticks after the previous run's end (the first after tick 0); a
            // tick delta is a run of one sample whose length is not stored.
            let gap = r.uvarint()?;
            let len = if deltas { 1 } else { r.uvarint()? };
            let start = end.checked_add(gap);
            end = match start.and_then(|s| s.checked_add(len)) {
                Some(e) if len > 0 && e <= u64::from(tick_count) => e,
                _ => return Err(Error::corrupt("pose sample run outside the chunk")),
            };
            let start = end - len;
            // Every sample needs at least one residual byte in each of five columns.
            total_samples += len as usize;
            samples += len as usize;
            if total_samples * 5 > r.remaining() {
                return Err(Error::corrupt("more pose samples than residual bytes"));
            }
            if total_samples > max_samples {
                return Err(Error::limit(format!(
                    "more than {max_samples} pose samples in one chunk"
                )));
            }
            if wanted {
                ticks.extend(start as u32..end as u32);
            }
        }
        let nres = r.len_varint(samples, "reset count")?;
        let mut resets = Vec::with_capacity(if wanted { nres } else { 0 });
        let mut p = 0u64;
        for j in 0..nres {
            let d = r.uvarint()?;
            p = p.saturating_add(d);
            if (j > 0 && d == 0) || p >= samples as u64 {
                return Err(Error::corrupt("teleport reset index out of range"));
            }
            if wanted {
                resets.push(p as u32);
            }
        }
        headers.push(Header {
            samples,
            track: wanted.then(|| Track {
                entity: id,
                poses: vec![Pose::default(); ticks.len()],
                ticks,
                resets,
            }),
        });
    }
    let mut codings = vec![(0u8, 0u64); n * 5];
    for col in 0..5 {
        for i in 0..n {
            let pred = r.u8()?;
            if pred >= predictors {
                return Err(Error::corrupt(format!(
                    "unknown predictor {pred} in a chunk of data version {data_version}"
                )));
            }
            let div = r.uvarint()?;
            if div == 0 {
                return Err(Error::corrupt("zero divisor"));
            }
            codings[col * n + i] = (pred, div);
        }
    }
    let mut res = Vec::new();
    let mut vals = Vec::new();
    for col in 0..5 {
        if positions_only && col >= 3 {
            r.skip_varints(total_samples)?;
            continue;
        }
        // samples of the tracks not decoded since the last decoded one
        let mut skip = 0usize;
        for (i, h) in headers.iter_mut().enumerate() {
            let Some(t) = &mut h.track else {
                skip += h.samples;
                continue;
            };
            r.skip_varints(skip)?;
            skip = 0;
            let (pred, div) = codings[col * n + i];
            res.clear();
            r.ivarints_into(t.ticks.len(), div as i64, &mut res)?;
            let base = keyframe_value(keyframe, t.entity, col);
            if pred == PRED_TIME_LINEAR {
                gap_prediction::reconstruct(&res, &t.ticks, base, &t.resets, &mut vals);
            } else {
                movement::reconstruct(&res, base, &t.resets, pred, &mut vals);
            }
            for (p, &v) in t.poses.iter_mut().zip(&vals) {
                match col {
                    0 => p.x = v,
                    1 => p.y = v,
                    2 => p.z = v,
                    3 => p.yaw = v,
                    _ => p.pitch = v,
                }
            }
        }
        r.skip_varints(skip)?;
    }
    Ok(headers.into_iter().filter_map(|h| h.track).collect())
}

#[cfg(test)]
mod tests {
    use crate::format::Limits;
    use crate::format::chunk::{ChunkEncoder, DecodedChunk};
    use crate::format::event::Event;
    use crate::format::pose::Pose;

    fn pose(e: u32, t: u32) -> Pose {
        let (e, t) = (i64::from(e), i64::from(t));
        Pose {
            x: e * 4096 + t * t * 37,
            y: 64 * 4096 - t * e,
            z: (t * 91) ^ e,
            yaw: t * 256 * e,
            pitch: (t % 9) * 256,
        }
    }

    /// Two chunks of 12 entities (some in the keyframe, some added, teleported, sampled on
    /// sparse ticks, removed, flagged): for each entity, the entity decode equals the full
    /// decode filtered to that entity, and an entity absent from the chunk gets nothing.
    #[test]
    fn entity_decode_equals_the_filtered_full_decode() {
        let mut enc = ChunkEncoder::new();
        let limits = Limits::default();
        for part in 0..2u32 {
            let start = part * 50;
            enc.begin(start, (part == 1).then(|| vec![1, 2, 3]));
            for t in start..start + 50 {
                let mut ev = Vec::new();
                for e in 1..=12u32 {
                    if t == 0 && e % 2 == 0 {
                        ev.push(Event::EntityAdd {
                            entity: e,
                            kind: e,
                            pose: pose(e, t),
                        });
                    } else if t % e == 0 {
                        ev.push(Event::Pose {
                            entity: e,
                            pose: pose(e, t),
                        });
                    }
                }
                if t % 17 == 3 {
                    ev.push(Event::Teleport {
                        entity: 4,
                        pose: pose(99, t),
                    });
                    ev.push(Event::Flags {
                        entity: 6,
                        flags: t,
                    });
                }
                if t == 60 {
                    ev.push(Event::EntityRemove { entity: 8 });
                }
                enc.push_tick(t, &ev).unwrap();
            }
            let mut payload = Vec::new();
            enc.encode_payload(&mut payload);
            let flags = enc.flags();
            let full = DecodedChunk::decode(&payload, flags, start, 50, &limits).unwrap();
            assert!(full.tracks.len() > 6 && (part == 0 || full.keyframe.len() > 6));
            for id in 0..=13u32 {
                let one =
                    DecodedChunk::decode_entity(&payload, flags, start, 50, &limits, id).unwrap();
                let mut want = full.clone();
                want.snapshot = None;
                want.world = None;
                want.keyframe.retain(|e| e.id == id);
                want.tracks.retain(|t| t.entity == id);
                for r in &mut want.records {
                    r.events.retain(|e| e.involves(id));
                }
                want.records.retain(|r| !r.events.is_empty());
                assert_eq!(one, want, "entity {id} in chunk {part}");
            }
            // the sparse tracks use predictor 4 and tick deltas (data version 2): read as data
            // version 1, the payload is refused
            assert_eq!(enc.payload_version(), 2);
            let mut header = crate::format::frame::FrameHeader::for_payload(
                flags,
                2,
                start,
                50,
                payload.len() as u32,
                &[],
            );
            assert!(DecodedChunk::decode_version(&payload, &header, &limits, None).is_ok());
            header.data_version = 1;
            assert!(DecodedChunk::decode_version(&payload, &header, &limits, None).is_err());
            // a cut payload fails instead of reading past its end
            for cut in [1, 7, payload.len() / 2] {
                let short = &payload[..payload.len() - cut];
                assert!(DecodedChunk::decode_entity(short, flags, start, 50, &limits, 5).is_err());
            }
        }
    }
}
