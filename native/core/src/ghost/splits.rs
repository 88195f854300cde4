//! Splits: the checkpoint markers recorded in a run are the ghost's split times (tick offsets from
//! its start). A live run's split is compared to the ghost's as `live - ghost`: positive means the
//! live player is behind (`+0.35 s`), negative ahead.

use std::fmt;
use std::sync::Arc;

use crate::ghost::track::GhostTrack;

/// Seconds with an explicit sign, displayed as `+0.35 s` or `-1.20 s` (two decimals).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignedSeconds {
    pub negative: bool,
    pub magnitude: f64,
}

impl SignedSeconds {
    /// The sign of `seconds` as displayed: values that round to zero show `+0.00 s`.
    pub fn new(seconds: f64) -> SignedSeconds {
        let rounded = (seconds * 100.0).round() / 100.0;
        SignedSeconds {
            negative: rounded < 0.0,
            magnitude: seconds.abs(),
        }
    }
}

impl fmt::Display for SignedSeconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.negative { '-' } else { '+' };
        write!(f, "{sign}{:.2} s", self.magnitude)
    }
}

/// A live split compared with the ghost's split at the same checkpoint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SplitComparison {
    pub checkpoint: u32,
    /// Ticks from the live run's start to the checkpoint.
    pub live_ticks: f64,
    /// Ticks from the ghost's start to the checkpoint (its time shift included).
    pub ghost_ticks: f64,
    /// `(live - ghost) / tick rate`: positive when the live player is behind.
    pub delta_seconds: f64,
}

impl SplitComparison {
    /// Compares a live split with `ghost`'s first crossing of `checkpoint`, the ghost delayed by
    /// `time_shift` ticks. `None` if the ghost never reached that checkpoint.
    pub fn new(
        ghost: &GhostTrack,
        checkpoint: u32,
        live_ticks: f64,
        time_shift: f64,
    ) -> Option<SplitComparison> {
        let ghost_ticks = f64::from(ghost.split(checkpoint)?) + time_shift;
        Some(SplitComparison {
            checkpoint,
            live_ticks,
            ghost_ticks,
            delta_seconds: (live_ticks - ghost_ticks) / ghost.tick_rate(),
        })
    }

    /// `live - ghost` in ticks.
    pub fn delta_ticks(&self) -> f64 {
        self.live_ticks - self.ghost_ticks
    }

    /// The delta for display.
    pub fn signed(&self) -> SignedSeconds {
        SignedSeconds::new(self.delta_seconds)
    }
}

impl fmt::Display for SplitComparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.signed().fmt(f)
    }
}

/// The splits of one live attempt against a ghost: each checkpoint's first crossing is compared.
#[derive(Debug, Clone)]
pub struct LiveSplits {
    ghost: Arc<GhostTrack>,
    time_shift: f64,
    done: Vec<SplitComparison>,
    crossed: Vec<u32>,
}

impl LiveSplits {
    pub fn new(ghost: Arc<GhostTrack>) -> LiveSplits {
        let n = ghost.splits().len();
        LiveSplits {
            ghost,
            time_shift: 0.0,
            done: Vec::with_capacity(n),
            crossed: Vec::with_capacity(n),
        }
    }

    /// The ghost's time shift in ticks.
    pub fn set_time_shift(&mut self, ticks: f64) {
        self.time_shift = ticks;
    }

    /// The live player crossed `checkpoint` `live_ticks` after their start. Returns the
    /// comparison on the first crossing of a checkpoint the ghost also crossed, else `None`.
    pub fn checkpoint(&mut self, checkpoint: u32, live_ticks: f64) -> Option<SplitComparison> {
        if self.crossed.contains(&checkpoint) {
            return None;
        }
        self.crossed.push(checkpoint);
        let c = SplitComparison::new(&self.ghost, checkpoint, live_ticks, self.time_shift)?;
        self.done.push(c);
        Some(c)
    }

    /// Comparisons so far, in crossing order.
    pub fn comparisons(&self) -> &[SplitComparison] {
        &self.done
    }

    /// Forgets the attempt (a restart).
    pub fn reset(&mut self) {
        self.done.clear();
        self.crossed.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_seconds_display() {
        assert_eq!(SignedSeconds::new(0.35).to_string(), "+0.35 s");
        assert_eq!(SignedSeconds::new(-1.2).to_string(), "-1.20 s");
        assert_eq!(SignedSeconds::new(-0.001).to_string(), "+0.00 s");
        assert_eq!(SignedSeconds::new(12.346).to_string(), "+12.35 s");
    }
}
