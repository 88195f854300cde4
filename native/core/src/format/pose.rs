//! Quantised poses. Positions are fixed point at 1/4096 block (the Minecraft protocol's delta
//! precision); angles at 1/65536 turn. Yaw is unbounded (clients never normalise it), so it is an
//! `i64` count of 1/65536 turns and round-trips exactly, wrap-arounds included.

/// Position units per block.
pub const POS_SCALE: f64 = 4096.0;
/// Angle units per full turn.
pub const ANGLE_UNITS_PER_TURN: f64 = 65536.0;
/// Velocity units per block per tick (the Minecraft entity-velocity packet's 1/8000).
pub const VEL_SCALE: f64 = 8000.0;

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
    /// Quantises a pose given in blocks and degrees (round to nearest).
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

/// Blocks to 1/4096-block fixed point. Non-finite input maps to 0; values beyond ±2^50 blocks clamp.
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
    const LIMIT: f64 = (1u64 << 62) as f64;
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
}
