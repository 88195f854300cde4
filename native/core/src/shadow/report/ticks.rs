//! A report's second pass, before the keeping rules filter its events: its chunks decoded with
//! the followed entities' movement only (on a second thread, ahead of the writing; from the
//! payloads the first pass kept where it kept them), and each chunk's ticks with those entities'
//! poses (a chat sender that is not kept: only the poses the keeping rules read, [`Followed`])
//! and every event.

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

/// The entities whose poses the second pass makes: the kept ones, every pose (they go into the
/// file), and the senders of chat lines, which are not kept (their poses are left out) but whose
/// positions the keeping rules read where they send a line ([`crate::shadow::keep::Keeper`]).
/// Such a sender is followed in the chunks where it sends a line, and there only the samples
/// the rules read are made: its last sample at or before each of its lines, and its chunk's last
/// sample. Where a line's sender has no position in its chunk before the line (no sample and no
/// event giving one since the report's first tick), the rules read one from an earlier chunk:
/// that sender is followed in every chunk.
#[derive(Debug, Default)]
pub(crate) struct Followed {
    /// The kept entities (`kept`) and the senders followed in every chunk.
    pub everywhere: FxHashSet<u32>,
    /// Per chunk, the senders followed in it (sorted).
    pub in_chunk: Vec<Vec<u32>>,
    /// The kept entities: every pose of theirs is made.
    pub kept: FxHashSet<u32>,
}

impl Followed {
    /// Whether chunk `i` decodes `id`'s track.
    pub(crate) fn follows(&self, i: usize, id: u32) -> bool {
        self.everywhere.contains(&id)
            || self
                .in_chunk
                .get(i)
                .is_some_and(|s| s.binary_search(&id).is_ok())
    }
}

/// The second pass's chunks, in order: decoded with the tracks of the `followed` entities only
/// (every track without a set; from the first pass's payload where it is in `kept`, read again
/// otherwise), on a second thread that stays up to [`AHEAD`] chunks ahead, or here, one at a
/// time, if that thread cannot be started.
pub(super) struct Chunks {
    reader: Arc<Reader>,
    followed: Option<Arc<Followed>>,
    /// The first pass's payloads, by chunk, taken as they are decoded.
    kept: Arc<Mutex<Vec<Option<Payload>>>>,
    /// Chunks handed out.
    next: usize,
    ahead: Option<(Receiver<Result<DecodedChunk>>, crate::threads::Handle)>,
}

impl Chunks {
    pub(super) fn new(
        reader: Arc<Reader>,
        followed: Option<Arc<Followed>>,
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
    followed: Option<&Followed>,
    kept: Option<Payload>,
) -> Result<DecodedChunk> {
    match followed {
        Some(f) => {
            let (fh, payload) = match kept {
                Some(p) => p,
                None => reader.read_payload(i)?,
            };
            DecodedChunk::decode_tracks_of(&payload, &fh, reader.limits(), &|id| f.follows(i, id))
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
/// samples of the entities [`Followed`] says for chunk `i` only (with the relative ticks where
/// any entity has a sample; `None`: all entities): the other entities' poses, and the poses of a
/// sender that is not kept but those [`Followed`] says, are left out before they are made. A
/// tick with nothing but poses of others is there, empty.
pub(super) fn report_ticks(
    chunk: &DecodedChunk,
    first: u32,
    last: u32,
    followed: Option<(&Followed, usize, &Vec<bool>)>,
) -> Vec<DecodedTick> {
    let Some((followed, i, sampled)) = followed else {
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
    // The lines of the followed senders that are not kept: (sender, relative tick), sorted.
    let mut lines: Vec<(u32, u32)> = Vec::new();
    for r in &chunk.records {
        for e in &r.events {
            if let Event::Chat {
                sender: Some(s), ..
            } = *e
                && !followed.kept.contains(&s)
            {
                lines.push((s, r.rel));
            }
        }
    }
    lines.sort_unstable();
    // The followed samples by tick.
    let mut by_tick: Vec<Vec<(u32, Pose)>> = vec![Vec::new(); n];
    for t in chunk
        .tracks
        .iter()
        .filter(|t| followed.follows(i, t.entity))
    {
        let samples = t.ticks.iter().zip(&t.poses);
        if followed.kept.contains(&t.entity) {
            for (&rel, pose) in samples {
                by_tick[rel as usize].push((t.entity, *pose));
            }
            continue;
        }
        // A sender's: the last sample at or before each of its lines, and the last one.
        let at = lines.partition_point(|&(s, _)| s < t.entity);
        let mut mine = lines[at..]
            .iter()
            .take_while(|&&(s, _)| s == t.entity)
            .map(|&(_, rel)| rel)
            .peekable();
        for (k, (&rel, pose)) in samples.enumerate() {
            let next = t.ticks.get(k + 1).copied();
            while mine.next_if(|&l| l < rel).is_some() {}
            if next.is_none() || mine.peek().is_some_and(|&l| Some(l) < next) {
                by_tick[rel as usize].push((t.entity, *pose));
            }
        }
    }
    let mut out = Vec::new();
    let mut records = chunk.records.iter().peekable();
    // (the entities added or teleported at a tick: their events carry their poses)
    let mut covered: Vec<u32> = Vec::new();
    for (rel, poses) in by_tick.iter_mut().enumerate().take(to + 1).skip(from) {
        while records.next_if(|r| (r.rel as usize) < rel).is_some() {}
        let rec = records.next_if(|r| r.rel as usize == rel);
        if !sampled.get(rel).is_some_and(|&b| b) && rec.is_none() {
            continue;
        }
        let poses = std::mem::take(poses);
        covered.clear();
        if !poses.is_empty()
            && let Some(r) = rec
        {
            covered.extend(r.events.iter().filter_map(|e| match *e {
                Event::EntityAdd { entity, .. } | Event::Teleport { entity, .. } => Some(entity),
                _ => None,
            }));
        }
        let mut events = Vec::with_capacity(poses.len() + rec.map_or(0, |r| r.events.len()));
        for (entity, pose) in poses {
            if !covered.contains(&entity) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shadow::report::tests::{B, added, ground, one_chunk};

    /// A sender that is not kept gets only the poses the keeper reads: its last sample at or
    /// before each of its lines (a line at a tick without a sample reads the one before) and its
    /// chunk's last sample; a kept entity gets every pose. An entity added at a tick keeps its
    /// add (no pose beside it).
    #[test]
    fn a_sender_not_kept_gets_only_the_poses_its_lines_read() {
        let chunk = one_chunk(20, |t| {
            let x = i64::from(t);
            let mut ev = Vec::new();
            if t == 0 {
                ev = added(&[(1, x), (2, x)]);
            } else {
                ev.push(Event::Pose {
                    entity: 1,
                    pose: ground(x),
                });
                // no samples of 2 from tick 10 to 13
                if !(10..=13).contains(&t) {
                    ev.push(Event::Pose {
                        entity: 2,
                        pose: ground(100 + x),
                    });
                }
            }
            if t == 7 || t == 12 {
                ev.push(Event::Chat {
                    sender: Some(2),
                    channel: 0,
                    text: format!("line {t}"),
                });
            }
            ev
        });
        let followed = Followed {
            everywhere: [1].into_iter().collect(),
            in_chunk: vec![vec![2]],
            kept: [1].into_iter().collect(),
        };
        let sampled = vec![true; 20];
        let ticks = report_ticks(&chunk, 0, 19, Some((&followed, 0, &sampled)));
        let poses_of = |id: u32| -> Vec<u32> {
            ticks
                .iter()
                .filter(|t| {
                    t.events
                        .iter()
                        .any(|e| matches!(*e, Event::Pose { entity, .. } if entity == id))
                })
                .map(|t| t.tick)
                .collect()
        };
        assert_eq!(poses_of(1), (1..20).collect::<Vec<_>>());
        assert_eq!(poses_of(2), vec![7, 9, 19]);
        // the poses made are the samples'
        let pose_9 = ticks[9].events.iter().find_map(|e| match *e {
            Event::Pose { entity: 2, pose } => Some(pose),
            _ => None,
        });
        assert_eq!(pose_9.map(|p| p.x), Some(109 * B));
        // every tick is there (all have samples), with every event
        assert_eq!(ticks.len(), 20);
        assert_eq!(
            ticks
                .iter()
                .flat_map(|t| &t.events)
                .filter(|e| matches!(e, Event::Chat { .. }))
                .count(),
            2
        );
        // followed in another chunk only: none of its poses
        let elsewhere = Followed {
            in_chunk: vec![Vec::new(), vec![2]],
            ..followed
        };
        let ticks = report_ticks(&chunk, 0, 19, Some((&elsewhere, 0, &sampled)));
        assert!(
            ticks
                .iter()
                .flat_map(|t| &t.events)
                .all(|e| !matches!(*e, Event::Pose { entity: 2, .. }))
        );
    }
}
