//! Which part of an entity's recorded life is the run: from a tick or checkpoint to a tick or
//! checkpoint. Resolved against the entity's checkpoint markers once they are known.

use crate::error::{Error, Result};

/// Where the run starts (`t = 0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunStart {
    /// The entity's first pose in the data read.
    #[default]
    First,
    /// An absolute tick of the recording (the entity's pose held at that tick).
    Tick(u32),
    /// A checkpoint marker of the entity. If it was crossed several times (restarts), the last
    /// crossing before the run's end counts.
    Checkpoint(u32),
}

/// Where the run ends (the ghost's finish).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunEnd {
    /// The entity's last pose in the recording.
    #[default]
    Last,
    /// An absolute tick of the recording (clamped to the data).
    Tick(u32),
    /// The first crossing of this checkpoint after the start (strictly after it when the start
    /// is the same checkpoint: a lap).
    Checkpoint(u32),
}

/// The part of a recording that forms one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GhostRange {
    pub start: RunStart,
    pub end: RunEnd,
}

impl GhostRange {
    /// The entity's whole presence in the recording.
    pub fn all() -> GhostRange {
        GhostRange::default()
    }
    /// From checkpoint `a` to checkpoint `b` (see [`RunStart::Checkpoint`], [`RunEnd::Checkpoint`]).
    pub fn checkpoints(a: u32, b: u32) -> GhostRange {
        GhostRange {
            start: RunStart::Checkpoint(a),
            end: RunEnd::Checkpoint(b),
        }
    }
    /// Absolute ticks `from..=to` of the recording.
    pub fn ticks(from: u32, to: u32) -> GhostRange {
        GhostRange {
            start: RunStart::Tick(from),
            end: RunEnd::Tick(to),
        }
    }

    /// Resolves the start and end ticks. `checkpoints` are `(tick, index)` in recorded order;
    /// `first`/`last` are the entity's first and last pose ticks; `data_end` the last tick of data
    /// read. `None` while the end is not determined by the data seen so far and `complete` is
    /// false (the loader then reads more chunks).
    pub(crate) fn resolve(
        &self,
        checkpoints: &[(u32, u32)],
        first: u32,
        last: u32,
        data_end: u32,
        complete: bool,
    ) -> Result<Option<(u32, u32)>> {
        let not_found = |what: &str, cp: u32| {
            Error::invalid(format!(
                "checkpoint {cp} ({what} of the run) not found for this entity"
            ))
        };
        let pending = |e: Error| if complete { Err(e) } else { Ok(None) };
        // The end first, given the earliest position the start may take.
        let (start_pos, start_tick) = match self.start {
            RunStart::First => (0, Some(first)),
            RunStart::Tick(a) => (0, Some(a)),
            RunStart::Checkpoint(a) => match checkpoints.iter().position(|&(_, i)| i == a) {
                Some(p) => (p, None),
                None => return pending(not_found("start", a)),
            },
        };
        let end = match self.end {
            RunEnd::Last => {
                if !complete {
                    return Ok(None);
                }
                last
            }
            RunEnd::Tick(b) => {
                if b > data_end && !complete {
                    return Ok(None);
                }
                b.min(data_end)
            }
            RunEnd::Checkpoint(b) => {
                let after_start = |&(&(t, i), p): &(&(u32, u32), usize)| {
                    i == b
                        && match self.start {
                            RunStart::Checkpoint(_) => p > start_pos,
                            _ => t >= start_tick.unwrap_or(0),
                        }
                };
                match checkpoints
                    .iter()
                    .zip(0..)
                    .find(after_start)
                    .map(|(&(t, _), _)| t)
                {
                    Some(t) => t,
                    None => return pending(not_found("end", b)),
                }
            }
        };
        let start = match self.start {
            RunStart::First => first,
            RunStart::Tick(a) => a,
            RunStart::Checkpoint(a) => {
                // The last crossing of `a` at or before the end (and before the end's marker).
                let end_pos = match self.end {
                    RunEnd::Checkpoint(b) => checkpoints
                        .iter()
                        .zip(0..)
                        .position(|(&(_, i), p)| i == b && p > start_pos)
                        .unwrap_or(checkpoints.len()),
                    _ => checkpoints.len(),
                };
                checkpoints[..end_pos]
                    .iter()
                    .rev()
                    .find(|&&(t, i)| i == a && t <= end)
                    .map(|&(t, _)| t)
                    .ok_or_else(|| not_found("start", a))?
            }
        };
        if start > end {
            return Err(Error::invalid(format!(
                "the run would start at tick {start}, after its end at tick {end}"
            )));
        }
        Ok(Some((start, end)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoint_ranges_take_the_last_start_before_the_first_end() {
        // crosses 0, restarts (0 again), 1, 2, finishes at 3, then walks back over 0 and 3 again
        let cps = [
            (10, 0),
            (50, 0),
            (70, 1),
            (90, 2),
            (120, 3),
            (150, 0),
            (170, 3),
        ];
        let r = GhostRange::checkpoints(0, 3);
        assert_eq!(r.resolve(&cps, 0, 200, 200, true).unwrap(), Some((50, 120)));
        // a lap: from 0 to the next 0
        let lap = GhostRange::checkpoints(0, 0);
        assert_eq!(
            lap.resolve(&cps, 0, 200, 200, true).unwrap(),
            Some((10, 50))
        );
        // start checkpoint to the last pose
        let to_end = GhostRange {
            start: RunStart::Checkpoint(1),
            end: RunEnd::Last,
        };
        assert_eq!(to_end.resolve(&cps, 0, 200, 200, false).unwrap(), None);
        assert_eq!(
            to_end.resolve(&cps, 0, 200, 200, true).unwrap(),
            Some((70, 200))
        );
        // missing end: pending until complete, then an error
        let missing = GhostRange::checkpoints(0, 9);
        assert_eq!(missing.resolve(&cps, 0, 200, 200, false).unwrap(), None);
        assert!(missing.resolve(&cps, 0, 200, 200, true).is_err());
        // tick range clamped to the data
        let ticks = GhostRange::ticks(5, 1000);
        assert_eq!(ticks.resolve(&cps, 0, 200, 200, false).unwrap(), None);
        assert_eq!(
            ticks.resolve(&cps, 0, 200, 200, true).unwrap(),
            Some((5, 200))
        );
        assert!(
            GhostRange::ticks(300, 400)
                .resolve(&cps, 0, 200, 200, true)
                .is_err()
        );
    }
}
