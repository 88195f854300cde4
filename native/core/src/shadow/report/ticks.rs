//! A report's second pass, before the keeping rules filter its events: its chunks decoded with
//! the followed entities' movement only (on a second thread, ahead of the writing; from the
//! payloads the first pass kept where it kept them), and each chunk's ticks with those entities'
//! poses and every event.

use std::sync::{Arc, Mutex};

use crossbeam_channel::Receiver;
use rustc_hash::FxHashSet;

use crate::error::{Error, Result};
use crate::format::chunk::{DecodedChunk, DecodedTick};
use crate::format::event::Event;
use crate::format::frame::FrameHeader;
use crate::format::pose::Pose;
use crate::play::Reader;

/// Chunks decoded ahead of the one being written.
const AHEAD: usize = 2;

/// The second pass's chunks, in order: decoded with the tracks of the `followed` entities only
/// (every track without a set; from the first pass's payload where it is in `kept`, read again
/// otherwise), on a second thread that stays up to [`AHEAD`] chunks ahead, or here, one at a
/// time, if that thread cannot be started.
pub(super) struct Chunks {
    reader: Arc<Reader>,
    followed: Option<Arc<FxHashSet<u32>>>,
    /// The first pass's payloads, by chunk, taken as they are decoded.
    kept: Arc<Mutex<Vec<Option<Payload>>>>,
    /// Chunks handed out.
    next: usize,
    ahead: Option<(Receiver<Result<DecodedChunk>>, crate::threads::Handle)>,
}

impl Chunks {
    pub(super) fn new(
        reader: Arc<Reader>,
        followed: Option<Arc<FxHashSet<u32>>>,
        kept: Vec<Option<Payload>>,
    ) -> Chunks {
        let n = reader.index().len();
        let kept = Arc::new(Mutex::new(kept));
        let (tx, rx) = crossbeam_channel::bounded(AHEAD);
        let (r, f, k) = (reader.clone(), followed.clone(), kept.clone());
        let helper = (n > 1)
            .then(|| {
                crate::threads::spawn("tickreel-report", move || {
                    for i in 0..n {
                        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            decode(&r, i, f.as_deref(), take(&k, i))
                        }))
                        .unwrap_or_else(|p| {
                            let what = p
                                .downcast_ref::<&str>()
                                .map(|s| s.to_string())
                                .or_else(|| p.downcast_ref::<String>().cloned())
                                .unwrap_or_default();
                            Err(Error::InvalidState(format!(
                                "internal error on a report's second thread: {what}"
                            )))
                        });
                        let failed = out.is_err();
                        // Gone: the report stopped taking chunks.
                        if crate::threads::send(&tx, out).is_err() || failed {
                            return;
                        }
                    }
                })
                .ok()
            })
            .flatten();
        Chunks {
            reader,
            followed,
            kept,
            next: 0,
            ahead: helper.map(|h| (rx, h)),
        }
    }
}

/// A chunk's frame header and decompressed payload.
type Payload = (FrameHeader, Vec<u8>);

/// Takes chunk `i`'s payload out of `kept`, if the first pass kept it.
fn take(kept: &Mutex<Vec<Option<Payload>>>, i: usize) -> Option<Payload> {
    kept.lock()
        .unwrap_or_else(|p| p.into_inner())
        .get_mut(i)
        .and_then(Option::take)
}

/// Decodes chunk `i` for the second pass: from its payload if `kept`, else read and decompressed.
fn decode(
    reader: &Reader,
    i: usize,
    followed: Option<&FxHashSet<u32>>,
    kept: Option<Payload>,
) -> Result<DecodedChunk> {
    match followed {
        Some(set) => {
            let (fh, payload) = match kept {
                Some(p) => p,
                None => reader.read_payload(i)?,
            };
            DecodedChunk::decode_tracks_of(&payload, &fh, reader.limits(), &|id| set.contains(&id))
        }
        None => reader.read_chunk(i),
    }
}

impl Iterator for Chunks {
    type Item = Result<DecodedChunk>;

    fn next(&mut self) -> Option<Result<DecodedChunk>> {
        if self.next >= self.reader.index().len() {
            return None;
        }
        self.next += 1;
        Some(match &self.ahead {
            Some((rx, _)) => crate::threads::recv_until(rx, None).unwrap_or_else(|_| {
                Err(Error::InvalidState(
                    "a report's second thread ended before its last chunk".into(),
                ))
            }),
            None => decode(
                &self.reader,
                self.next - 1,
                self.followed.as_deref(),
                take(&self.kept, self.next - 1),
            ),
        })
    }
}

impl Drop for Chunks {
    fn drop(&mut self) {
        // The receiver first: a thread waiting for room then ends.
        if let Some((rx, handle)) = self.ahead.take() {
            drop(rx);
            handle.join();
        }
    }
}

/// The chunk's ticks within `first..=last` as [`DecodedChunk::ticks`] gives them, with the pose
/// samples of the `followed` entities only (with the relative ticks where any entity has a
/// sample; `None`: all entities): the other entities' poses are left out before they are made.
/// A tick with nothing but poses of others is there, empty.
pub(super) fn report_ticks(
    chunk: &DecodedChunk,
    first: u32,
    last: u32,
    followed: Option<(&FxHashSet<u32>, &Vec<bool>)>,
) -> Vec<DecodedTick> {
    let Some((followed, sampled)) = followed else {
        let mut ticks = chunk.ticks();
        ticks.retain(|t| t.tick >= first && t.tick <= last);
        return ticks;
    };
    let n = chunk.tick_count as usize;
    let from = first.saturating_sub(chunk.start_tick) as usize;
    let to = (last.saturating_sub(chunk.start_tick) as usize).min(n.saturating_sub(1));
    if last < chunk.start_tick || from > to {
        return Vec::new();
    }
    // The followed samples by tick.
    let mut by_tick: Vec<Vec<(u32, Pose)>> = vec![Vec::new(); n];
    for t in chunk.tracks.iter().filter(|t| followed.contains(&t.entity)) {
        for (&rel, pose) in t.ticks.iter().zip(&t.poses) {
            by_tick[rel as usize].push((t.entity, *pose));
        }
    }
    let mut out = Vec::new();
    let mut records = chunk.records.iter().peekable();
    for (rel, poses) in by_tick.iter_mut().enumerate().take(to + 1).skip(from) {
        while records.next_if(|r| (r.rel as usize) < rel).is_some() {}
        let rec = records.next_if(|r| r.rel as usize == rel);
        if !sampled.get(rel).is_some_and(|&b| b) && rec.is_none() {
            continue;
        }
        let poses = std::mem::take(poses);
        let mut events = Vec::with_capacity(poses.len() + rec.map_or(0, |r| r.events.len()));
        for (entity, pose) in poses {
            let covered = rec.is_some_and(|r| {
                r.events.iter().any(|e| {
                    matches!(e, Event::EntityAdd { entity: x, .. } | Event::Teleport { entity: x, .. } if *x == entity)
                })
            });
            if !covered {
                events.push(Event::Pose { entity, pose });
            }
        }
        if let Some(r) = rec {
            events.extend(r.events.iter().cloned());
        }
        out.push(DecodedTick {
            tick: chunk.start_tick + rel as u32,
            events,
        });
    }
    out
}
