//! Playback speed: recorded ticks per server tick, in fixed point, and the fraction of a recorded
//! tick carried from one server tick to the next (at 0.25, one recorded tick every fourth call).

use crate::error::{Error, Result};

/// Slowest playback speed.
pub const MIN_SPEED: f64 = 0.25;

/// Fastest playback speed.
pub const MAX_SPEED: f64 = 16.0;

/// Speeds are kept in 1/65536 recorded tick per server tick.
const SPEED_ONE: u32 = 1 << 16;

/// A playback speed and the fraction of a recorded tick not played yet.
#[derive(Debug, Clone, Copy)]
pub(super) struct SpeedAccumulator {
    /// Recorded ticks per server tick, in 1/65536.
    speed_fp: u32,
    /// The fraction of a recorded tick owed from earlier server ticks, in 1/65536.
    acc: u32,
}

impl Default for SpeedAccumulator {
    /// Speed 1, nothing owed.
    fn default() -> Self {
        SpeedAccumulator {
            speed_fp: SPEED_ONE,
            acc: 0,
        }
    }
}

impl SpeedAccumulator {
    pub(super) fn speed(&self) -> f64 {
        f64::from(self.speed_fp) / f64::from(SPEED_ONE)
    }

    /// Sets the speed, from [`MIN_SPEED`] to [`MAX_SPEED`]; the owed fraction is kept.
    pub(super) fn set_speed(&mut self, speed: f64) -> Result<()> {
        if !(MIN_SPEED..=MAX_SPEED).contains(&speed) {
            return Err(Error::invalid(format!(
                "the {} must be {} (got {speed})",
                crate::error::option("speed"),
                crate::error::between(MIN_SPEED, MAX_SPEED)
            )));
        }
        self.speed_fp = (speed * f64::from(SPEED_ONE)).round() as u32;
        Ok(())
    }

    /// One server tick: the whole recorded ticks due now (the fraction left is carried).
    pub(super) fn take_ticks(&mut self) -> u32 {
        self.acc += self.speed_fp;
        let due = self.acc >> 16;
        self.acc &= SPEED_ONE - 1;
        due
    }

    /// What the next [`SpeedAccumulator::take_ticks`] will return.
    pub(super) fn next_ticks(&self) -> u32 {
        (self.acc + self.speed_fp) >> 16
    }

    /// Whether the speed is at least `n` recorded ticks per server tick.
    pub(super) fn at_least(&self, n: u32) -> bool {
        self.speed_fp >= n * SPEED_ONE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_outside_the_range_are_rejected() {
        // Exercised through the public API in native/core/tests/it/play.rs; here only the fixed
        // point.
        assert_eq!((0.25 * f64::from(SPEED_ONE)).round() as u32, SPEED_ONE / 4);
        assert!(!(MIN_SPEED..=MAX_SPEED).contains(&f64::NAN));
    }

    #[test]
    fn fractions_accumulate_across_server_ticks() {
        let mut s = SpeedAccumulator::default();
        s.set_speed(0.25).unwrap();
        let due: Vec<u32> = (0..8).map(|_| s.take_ticks()).collect();
        assert_eq!(due, [0, 0, 0, 1, 0, 0, 0, 1]);
        s.set_speed(1.5).unwrap();
        assert_eq!(s.next_ticks(), 1);
        let due: Vec<u32> = (0..4).map(|_| s.take_ticks()).collect();
        assert_eq!(due, [1, 2, 1, 2]);
        assert!(s.set_speed(16.5).is_err() && s.speed() == 1.5);
        assert!(!s.at_least(4));
        s.set_speed(4.0).unwrap();
        assert!(s.at_least(4));
    }
}
