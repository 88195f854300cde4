//! Quantised poses. Positions are fixed point at 1/4096 block (the Minecraft protocol's delta
//! precision); angles at 1/65536 turn. Yaw is unbounded (clients never normalise it), so it is an
//! `i64` count of 1/65536 turns and round-trips exactly, wrap-arounds included.

use crate::error::{Error, Result, check_finite};

/// Position units per block.
pub const POS_SCALE: f64 = 4096.0;
/// Angle units per full turn.
pub const ANGLE_UNITS_PER_TURN: f64 = 65536.0;
/// Velocity units per block per tick (the Minecraft entity-velocity packet's 1/8000).
pub const VEL_SCALE: f64 = 8000.0;

/// The format's range of a quantised value: every stored coordinate, angle and velocity has
/// `|units| <= MAX_UNITS`.
pub(crate) const MAX_UNITS: i64 = 1 << 62;

/// What a caller-given number measures: its scale, unit and range. The one NaN/range policy of
/// every language's positions, angles and velocities is [`Quantity::check`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Quantity {
    /// A coordinate in blocks.
    Position,
    /// An angle in degrees (yaw unbounded).
    Angle,
    /// A velocity in blocks per tick.
    Velocity,
}

impl Quantity {
    /// Every quantity, in the order of [`Quantity::code`].
    pub const ALL: [Quantity; 3] = [Quantity::Position, Quantity::Angle, Quantity::Velocity];

    /// The number bindings pass for this quantity (0, 1, 2).
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The quantity with this number, if it is one.
    pub fn from_code(code: u32) -> Option<Quantity> {
        Quantity::ALL.into_iter().find(|q| q.code() == code)
    }

    /// `v` in this quantity's units, before rounding (the expression every quantiser uses).
    #[inline]
    pub fn scaled(self, v: f64) -> f64 {
        match self {
            Quantity::Position => v * POS_SCALE,
            Quantity::Angle => v * ANGLE_UNITS_PER_TURN / 360.0,
            Quantity::Velocity => v * VEL_SCALE,
        }
    }

    fn unit(self) -> &'static str {
        match self {
            Quantity::Position => "blocks",
            Quantity::Angle => "degrees",
            Quantity::Velocity => "blocks per tick",
        }
    }

    /// The largest magnitude the format holds, in blocks, degrees or blocks per tick.
    pub fn max(self) -> f64 {
        match self {
            Quantity::Position => MAX_UNITS as f64 / POS_SCALE,
            Quantity::Angle => MAX_UNITS as f64 * 360.0 / ANGLE_UNITS_PER_TURN,
            Quantity::Velocity => MAX_UNITS as f64 / VEL_SCALE,
        }
    }

    /// `v` quantised (round to nearest), if it is finite and its quantised value is within the
    /// format's range (`|units| <= MAX_UNITS`); else an [`Error::InvalidArgument`] naming `what`,
    /// with the value in scientific notation ("x is 1e300 blocks; the format holds at most
    /// 1.125899906842624e15").
    pub fn check(self, what: &str, v: f64) -> Result<i64> {
        check_finite(what, v)?;
        let units = self.scaled(v);
        // Near 2^62 every double is an integer, so rounding cannot cross the limit.
        if units.abs() <= MAX_UNITS as f64 {
            Ok(units.round() as i64)
        } else {
            Err(Error::invalid(format!(
                "{what} is {v:e} {}; the format holds at most {:e} in magnitude",
                self.unit(),
                self.max()
            )))
        }
    }
}

/// A coordinate in blocks, checked and quantised: see [`Quantity::check`].
pub fn check_position(what: &str, blocks: f64) -> Result<i64> {
    Quantity::Position.check(what, blocks)
}

/// An angle in degrees, checked and quantised: see [`Quantity::check`].
pub fn check_angle(what: &str, degrees: f64) -> Result<i64> {
    Quantity::Angle.check(what, degrees)
}

/// A velocity in blocks per tick, checked and quantised: see [`Quantity::check`].
pub fn check_velocity(what: &str, blocks_per_tick: f64) -> Result<i64> {
    Quantity::Velocity.check(what, blocks_per_tick)
}

/// One entity's pose, quantised. Equality is exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Pose {
    /// X in 1/4096 block.
    pub x: i64,
    /// Y in 1/4096 block.
    pub y: i64,
    /// Z in 1/4096 block.
    pub z: i64,
    /// Yaw in 1/65536 turn, unbounded.
    pub yaw: i64,
    /// Pitch in 1/65536 turn.
    pub pitch: i64,
}

impl Pose {
    /// Quantises a pose given by a caller in blocks and degrees, refusing non-finite values and
    /// ones outside the format's range ([`Quantity::check`]): the entry of every language's poses.
    pub fn try_from_f64(x: f64, y: f64, z: f64, yaw_deg: f64, pitch_deg: f64) -> Result<Pose> {
        Ok(Pose {
            x: check_position("x", x)?,
            y: check_position("y", y)?,
            z: check_position("z", z)?,
            yaw: check_angle("yaw", yaw_deg)?,
            pitch: check_angle("pitch", pitch_deg)?,
        })
    }

    /// Quantises a pose computed by the library itself (round to nearest; non-finite values map
    /// to 0 and out-of-range ones clamp). Callers' input goes through [`Pose::try_from_f64`].
    pub fn from_f64(x: f64, y: f64, z: f64, yaw_deg: f64, pitch_deg: f64) -> Pose {
        Pose {
            x: quantise_pos(x),
            y: quantise_pos(y),
            z: quantise_pos(z),
            yaw: quantise_angle(yaw_deg),
            pitch: quantise_angle(pitch_deg),
        }
    }
    pub fn x_f64(&self) -> f64 {
        self.x as f64 / POS_SCALE
    }
    pub fn y_f64(&self) -> f64 {
        self.y as f64 / POS_SCALE
    }
    pub fn z_f64(&self) -> f64 {
        self.z as f64 / POS_SCALE
    }
    /// Yaw in degrees, unbounded.
    pub fn yaw_deg(&self) -> f64 {
        self.yaw as f64 * 360.0 / ANGLE_UNITS_PER_TURN
    }
    pub fn pitch_deg(&self) -> f64 {
        self.pitch as f64 * 360.0 / ANGLE_UNITS_PER_TURN
    }
    /// The five components in column order (x, y, z, yaw, pitch).
    #[inline]
    pub fn to_array(&self) -> [i64; 5] {
        [self.x, self.y, self.z, self.yaw, self.pitch]
    }
    #[inline]
    pub fn from_array(a: [i64; 5]) -> Pose {
        Pose {
            x: a[0],
            y: a[1],
            z: a[2],
            yaw: a[3],
            pitch: a[4],
        }
    }
}

/// Blocks to 1/4096-block fixed point, lenient (for values the library computes; callers' input
/// goes through [`check_position`]). Non-finite input maps to 0; values beyond ±2^50 blocks clamp.
#[inline]
pub fn quantise_pos(v: f64) -> i64 {
    quantise(v * POS_SCALE)
}

/// Degrees to 1/65536-turn units, unbounded.
#[inline]
pub fn quantise_angle(deg: f64) -> i64 {
    quantise(deg * ANGLE_UNITS_PER_TURN / 360.0)
}

/// Blocks per tick to 1/8000 block per tick.
#[inline]
pub fn quantise_vel(v: f64) -> i64 {
    quantise(v * VEL_SCALE)
}

#[inline]
fn quantise(v: f64) -> i64 {
    const LIMIT: f64 = MAX_UNITS as f64;
    if !v.is_finite() {
        return 0;
    }
    v.round().clamp(-LIMIT, LIMIT) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantisation_is_within_half_a_unit() {
        let p = Pose::from_f64(123.456789, 64.0, -9876.54321, 7200.5, -45.25);
        assert!((p.x_f64() - 123.456789).abs() <= 0.5 / POS_SCALE);
        assert!((p.z_f64() + 9876.54321).abs() <= 0.5 / POS_SCALE);
        assert!((p.yaw_deg() - 7200.5).abs() <= 0.5 * 360.0 / ANGLE_UNITS_PER_TURN);
        assert_eq!(p.y, 64 * 4096);
        assert_eq!(quantise_pos(f64::NAN), 0);
    }

    #[test]
    fn checked_quantisation_refuses_non_finite_and_out_of_range_values_briefly() {
        let p = Pose::try_from_f64(123.456789, 64.0, -9876.54321, 7200.5, -45.25).unwrap();
        assert_eq!(
            p,
            Pose::from_f64(123.456789, 64.0, -9876.54321, 7200.5, -45.25)
        );
        for q in Quantity::ALL {
            assert_eq!(Quantity::from_code(q.code()), Some(q));
            let max = q.max();
            assert!(
                q.check("v", max * (1.0 - 1e-12)).unwrap() < MAX_UNITS,
                "{q:?}"
            );
            assert!(q.check("v", -max * (1.0 - 1e-12)).unwrap() > -MAX_UNITS);
            assert!(q.check("v", max * (1.0 + 1e-12)).is_err(), "{q:?}");
            assert!(q.check("v", -max * (1.0 + 1e-12)).is_err(), "{q:?}");
            assert!(q.check("v", f64::MAX).is_err());
        }
        // Positions and angles: the limit itself is in range, the next double beyond it is not.
        for q in [Quantity::Position, Quantity::Angle] {
            assert_eq!(q.check("v", q.max()).unwrap(), MAX_UNITS);
            assert_eq!(q.check("v", -q.max()).unwrap(), -MAX_UNITS);
            let beyond = f64::from_bits(q.max().to_bits() + 1);
            assert!(q.check("v", beyond).is_err(), "{q:?}");
        }
        assert_eq!(Quantity::from_code(3), None);
        let e = Pose::try_from_f64(1e300, 0.0, 0.0, 0.0, 0.0).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::InvalidArgument);
        let msg = e.to_string();
        assert!(msg.contains("x is 1e300 blocks"), "{msg}");
        assert!(msg.len() < 120, "{msg}");
        let e = Pose::try_from_f64(0.0, 0.0, 0.0, 0.0, f64::NAN).unwrap_err();
        assert!(
            e.to_string()
                .contains("pitch must be a finite number (got NaN)"),
            "{e}"
        );
        let e = check_velocity("vz", f64::NEG_INFINITY).unwrap_err();
        assert!(e.to_string().contains("vz"), "{e}");
    }
}
