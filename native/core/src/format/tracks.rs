//! Decoding the movement section of a chunk payload (FORMAT.md section 7.4): every entity's pose
//! samples, or only one entity's. Residuals are grouped by column, all tracks of a column together,
//! so a decode for one entity reads every track header (for the sample counts) and then, in each
//! column, steps over the other tracks' residual varints without decoding them.

use crate::error::{Error, Result};
use crate::format::bytes::ByteReader;
use crate::format::gap_prediction::{self, PRED_TIME_LINEAR};
use crate::format::movement::{self, PREDICTOR_COUNT};
use crate::format::pose::Pose;
use crate::format::state::EntityState;

/// One entity's pose samples within a decoded chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Track {
    pub entity: u32,
    /// Relative ticks of the samples, strictly increasing.
    pub ticks: Vec<u32>,
    pub poses: Vec<Pose>,
    /// Sample indices that follow a teleport.
    pub resets: Vec<u32>,
}

impl Track {
    /// Index of the last sample at or before relative tick `rel`.
    pub fn sample_at_or_before(&self, rel: u32) -> Option<usize> {
        self.ticks.partition_point(|&t| t <= rel).checked_sub(1)
    }
    /// Index of the sample exactly at `rel`.
    pub fn sample_at(&self, rel: u32) -> Option<usize> {
        self.ticks.binary_search(&rel).ok()
    }
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
    /// The entity's index in the keyframe (its columns' base values).
    base: Option<usize>,
}

/// What a positions-only decode must get exactly right: the positions of the tracks that may
/// come within a radius of one entity, the centre. A track none of whose samples comes within
/// the radius of any position the centre takes in the chunk on x alone (or on x and z) keeps
/// its x (and z) and leaves the rest at zero: however they are read, each of its samples stays
/// farther than the radius from each of the centre's positions (the squared distance of two
/// poses, in f64 as a radius test computes it, is at least the squared gap of the columns
/// compared here).
#[derive(Debug, Clone)]
pub(crate) struct Around {
    pub centre: u32,
    /// The squared radius, in fixed point squared (as a radius test compares it).
    pub r2: f64,
    /// Where the centre stands in the chunk besides its keyframe entry and its track: the
    /// positions its events give it (an event for an entity not yet there puts it at the origin).
    pub also: Vec<[i64; 3]>,
}

/// Coordinates beyond this size (in fixed point) are never left out: the gap tests subtract and
/// square them exactly only below it.
const AROUND_MAX_COORD: i64 = 1 << 50;

/// The range `[lo, hi]` of some values, or `None` when there is none or one is too large for
/// the gap test ([`AROUND_MAX_COORD`]).
fn range_of(values: impl Iterator<Item = i64>) -> Option<(i64, i64)> {
    let mut r: Option<(i64, i64)> = None;
    for v in values {
        if !(-AROUND_MAX_COORD..=AROUND_MAX_COORD).contains(&v) {
            return None;
        }
        r = Some(r.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))));
    }
    r
}

/// The gap between two ranges (0 when they overlap), as an f64.
fn gap(a: (i64, i64), b: (i64, i64)) -> f64 {
    if b.0 > a.1 {
        (b.0 - a.1) as f64
    } else if a.0 > b.1 {
        (a.0 - b.1) as f64
    } else {
        0.0
    }
}

/// Decodes the movement section at `r`'s position: the tracks of the entities `wanted` says (every
/// track, or one entity's, or a report's kept entities). The other tracks' headers are checked as in
/// a full decode; their residuals are stepped over (`ByteReader::skip_varints`), so a corrupt
/// residual of another entity goes unnoticed there (the payload checksum covers it). With
/// `around` (positions only), the yaw and pitch columns are stepped over the same way for every
/// track (the poses keep a zero yaw and pitch), and so are the y and z of the tracks out of reach
/// ([`Around`]).
pub(crate) fn decode_movement(
    r: &mut ByteReader<'_>,
    keyframe: &[EntityState],
    tick_count: u32,
    max_samples: usize,
    wanted: &dyn Fn(u32) -> bool,
    around: Option<&Around>,
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
            base: if wanted {
                keyframe.binary_search_by_key(&id, |e| e.id).ok()
            } else {
                None
            },
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
    let mut columns = Columns {
        keyframe,
        codings: &codings,
        n,
        res: Vec::new(),
        vals: Vec::new(),
    };
    match around {
        Some(around) => {
            // x of every track; y stepped over for now; z of the tracks near on x; y of the
            // tracks near on x and z; yaw and pitch stepped over.
            let all = vec![true; n];
            columns.decode(r, 0, &mut headers, &all)?;
            let mut y = r.clone();
            r.skip_varints(total_samples)?;
            let near_x = near_on(&headers, keyframe, around, &[0]);
            columns.decode(r, 2, &mut headers, &near_x)?;
            let mut near = near_on(&headers, keyframe, around, &[0, 2]);
            for (k, x) in near.iter_mut().zip(&near_x) {
                *k &= *x;
            }
            columns.decode(&mut y, 1, &mut headers, &near)?;
            r.skip_varints(2 * total_samples)?;
        }
        None => {
            let all = vec![true; n];
            for col in 0..5 {
                columns.decode(r, col, &mut headers, &all)?;
            }
        }
    }
    Ok(headers.into_iter().filter_map(|h| h.track).collect())
}

/// What decoding a column needs besides the reader and the tracks.
struct Columns<'a> {
    keyframe: &'a [EntityState],
    codings: &'a [(u8, u64)],
    n: usize,
    res: Vec<i64>,
    vals: Vec<i64>,
}

impl Columns<'_> {
    /// Decodes column `col` of the tracks being decoded that `which` says (by index), stepping
    /// over the residuals of the others.
    fn decode(
        &mut self,
        r: &mut ByteReader<'_>,
        col: usize,
        headers: &mut [Header],
        which: &[bool],
    ) -> Result<()> {
        // samples of the tracks not decoded since the last decoded one
        let mut skip = 0usize;
        for (i, h) in headers.iter_mut().enumerate() {
            let Some(t) = h.track.as_mut().filter(|_| which[i]) else {
                skip += h.samples;
                continue;
            };
            r.skip_varints(skip)?;
            skip = 0;
            let (pred, div) = self.codings[col * self.n + i];
            self.res.clear();
            r.ivarints_into(t.ticks.len(), div as i64, &mut self.res)?;
            let base = h.base.map(|k| self.keyframe[k].pose.to_array()[col]);
            if pred == PRED_TIME_LINEAR {
                gap_prediction::reconstruct(&self.res, &t.ticks, base, &t.resets, &mut self.vals);
            } else {
                movement::reconstruct(&self.res, base, &t.resets, pred, &mut self.vals);
            }
            for (p, &v) in t.poses.iter_mut().zip(&self.vals) {
                match col {
                    0 => p.x = v,
                    1 => p.y = v,
                    2 => p.z = v,
                    3 => p.yaw = v,
                    _ => p.pitch = v,
                }
            }
        }
        r.skip_varints(skip)
    }
}

/// Per track: whether it may come within the radius of the centre on the columns `cols` (all of
/// them decoded for every track asked about): false when the squared gaps between its samples'
/// range and the centre's add up to more than the squared radius. Every track may when the
/// centre stands nowhere in the chunk or a coordinate is too large for the test.
fn near_on(
    headers: &[Header],
    keyframe: &[EntityState],
    around: &Around,
    cols: &[usize],
) -> Vec<bool> {
    let value = |p: &Pose, col: usize| p.to_array()[col];
    let centre_track = headers
        .iter()
        .filter_map(|h| h.track.as_ref())
        .find(|t| t.entity == around.centre);
    let kf = keyframe
        .binary_search_by_key(&around.centre, |e| e.id)
        .ok()
        .map(|k| keyframe[k].pose);
    let centre: Option<Vec<(i64, i64)>> = cols
        .iter()
        .map(|&col| {
            range_of(
                kf.iter()
                    .map(|p| value(p, col))
                    .chain(
                        centre_track
                            .into_iter()
                            .flat_map(|t| t.poses.iter().map(|p| value(p, col))),
                    )
                    .chain(around.also.iter().map(|p| p[col])),
            )
        })
        .collect();
    let Some(centre) = centre else {
        return vec![true; headers.len()];
    };
    headers
        .iter()
        .map(|h| {
            let Some(t) = &h.track else {
                return true;
            };
            let mut d2 = 0.0;
            for (&col, &c) in cols.iter().zip(&centre) {
                let Some(own) = range_of(t.poses.iter().map(|p| value(p, col))) else {
                    return true;
                };
                let g = gap(c, own);
                d2 += g * g;
            }
            d2 <= around.r2
        })
        .collect()
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

    /// A report's first-pass decode around entity 1 (radius 24 blocks) of 60 entities: along x
    /// (2..=30, 8 blocks apart, some sampled on sparse ticks), along z beside the centre
    /// (31..=59, near it on x), one at the origin (60). Every track keeps its ticks and x; a
    /// track that comes within the radius of any position of the centre is exactly the full
    /// decode's; the others are left out (on x, or on x and z: there are both) and each of
    /// their samples is truly out of reach. The origin joins the centre's positions when a
    /// flags event may put it there.
    #[test]
    fn positions_around_are_exact_within_reach() {
        use crate::format::DATA_VERSION;
        use crate::format::frame::FrameHeader;
        const B: i64 = 4096;
        let r = 24.0 * B as f64;
        let place = |e: u32, t: u32| {
            let (e64, t64) = (i64::from(e), i64::from(t));
            let wobble = (t64 * 37 + e64 * 11) % 300;
            match e {
                1 => Pose {
                    x: 1000 * B + t64 * 200,
                    y: 70 * B + wobble,
                    z: 500 * B - t64 * 50,
                    ..Pose::default()
                },
                2..=30 => Pose {
                    x: 1000 * B + (e64 - 16) * 8 * B + wobble,
                    y: 64 * B + e64 * 999,
                    z: 500 * B + wobble * 3,
                    ..Pose::default()
                },
                31..=59 => Pose {
                    x: 1005 * B + wobble,
                    y: 60 * B + e64 * 77,
                    z: 500 * B + (e64 - 45) * 8 * B - wobble,
                    ..Pose::default()
                },
                _ => Pose {
                    x: 3 * B + wobble,
                    y: 5 * B,
                    z: -2 * B,
                    ..Pose::default()
                },
            }
        };
        let limits = Limits::default();
        for flags_event in [false, true] {
            let mut enc = ChunkEncoder::new();
            enc.begin(0, None);
            for t in 0..60u32 {
                let mut ev = Vec::new();
                for e in 1..=60u32 {
                    if t == 0 {
                        ev.push(Event::EntityAdd {
                            entity: e,
                            kind: 1,
                            pose: place(e, t),
                        });
                    } else if e % 3 != 0 || t % 4 == 0 {
                        ev.push(Event::Pose {
                            entity: e,
                            pose: place(e, t),
                        });
                    }
                }
                if flags_event && t == 30 {
                    ev.push(Event::Flags {
                        entity: 1,
                        flags: 2,
                    });
                }
                enc.push_tick(t, &ev).unwrap();
            }
            let mut payload = Vec::new();
            enc.encode_payload(&mut payload);
            let header = FrameHeader {
                flags: enc.flags(),
                data_version: DATA_VERSION,
                start_tick: 0,
                tick_count: 60,
                compressed_len: 0,
                uncompressed_len: payload.len() as u32,
                payload_checksum: 0,
            };
            let full = DecodedChunk::decode(&payload, header.flags, 0, 60, &limits).unwrap();
            let around =
                DecodedChunk::decode_positions_around(&payload, &header, &limits, 1, r * r)
                    .unwrap();
            assert_eq!(around.records.len(), full.records.len());
            assert_eq!(around.tracks.len(), 60);
            let mut centre: Vec<Pose> = full.tracks[0].poses.clone();
            if flags_event {
                centre.push(Pose::default());
            }
            let reach = |p: &Pose| {
                centre.iter().any(|c| {
                    let d = |a: i64, b: i64| (a - b) as f64;
                    let (dx, dy, dz) = (d(p.x, c.x), d(p.y, c.y), d(p.z, c.z));
                    dx * dx + dy * dy + dz * dz <= r * r
                })
            };
            let (mut out_on_x, mut out_on_xz) = (0, 0);
            for (a, f) in around.tracks.iter().zip(&full.tracks) {
                assert_eq!((a.entity, &a.ticks), (f.entity, &f.ticks));
                let id = f.entity;
                let pos = |p: &Pose| (p.x, p.y, p.z);
                if f.poses.iter().any(reach) {
                    let (a, f): (Vec<_>, Vec<_>) = (
                        a.poses.iter().map(pos).collect(),
                        f.poses.iter().map(pos).collect(),
                    );
                    assert_eq!(a, f, "entity {id}");
                    continue;
                }
                assert!(a.poses.iter().zip(&f.poses).all(|(a, f)| a.x == f.x));
                if a.poses.iter().all(|p| p.z == 0 && p.y == 0) {
                    out_on_x += 1;
                } else if a
                    .poses
                    .iter()
                    .zip(&f.poses)
                    .all(|(a, f)| a.z == f.z && a.y == 0)
                {
                    out_on_xz += 1;
                } else {
                    assert_eq!(
                        a.poses.iter().map(pos).collect::<Vec<_>>(),
                        f.poses.iter().map(pos).collect::<Vec<_>>()
                    );
                }
            }
            if !flags_event {
                assert!(out_on_x > 10 && out_on_xz > 10, "{out_on_x} {out_on_xz}");
            }
            // the entity at the origin: left out unless the centre may stand there
            let origin = &around.tracks[59];
            assert_eq!(origin.poses[0].y != 0, flags_event, "{flags_event}");
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
