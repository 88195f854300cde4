//! How the ghost operations' types cross into Java (the operations are `crate::api::ghost`;
//! their JNI entry points are generated).

use jni::JNIEnv;
use jni::objects::JIntArray;
use jni::sys::{jdouble, jdoubleArray, jintArray};

use super::convert::{JniArg, JniFill, fill_doubles};
use super::{Res, bad_arg};
use tickreel::ghost::{DeltaReading, GhostRange, RunEnd, RunStart};

/// Doubles a delta reading fills: `raw ticks, shown ticks, ahead (0/1), ghost ticks, distance,
/// tick rate`.
const READING_LEN: usize = 6;

/// Range kinds: 0 = first / last, 1 = tick, 2 = checkpoint (C's `TICKREEL_GHOST_BOUND_*`).
fn range(start_kind: i32, start: i32, end_kind: i32, end: i32) -> Res<GhostRange> {
    let value = |v: i32, what: &str| {
        u32::try_from(v).map_err(|_| bad_arg(format!("{what} must not be negative (got {v})")))
    };
    let start = match start_kind {
        0 => RunStart::First,
        1 => RunStart::Tick(value(start, "start tick")?),
        2 => RunStart::Checkpoint(value(start, "start checkpoint")?),
        k => return Err(bad_arg(format!("unknown run start kind {k}"))),
    };
    let end = match end_kind {
        0 => RunEnd::Last,
        1 => RunEnd::Tick(value(end, "end tick")?),
        2 => RunEnd::Checkpoint(value(end, "end checkpoint")?),
        k => return Err(bad_arg(format!("unknown run end kind {k}"))),
    };
    Ok(GhostRange { start, end })
}

/// `int[] {startKind, start, endKind, end}` (`GhostRange`'s fields).
impl JniArg for GhostRange {
    type Jni = jintArray;
    const SIG: &'static str = "[I";
    const JAVA: &'static str = "int[]";
    type Stored = GhostRange;
    fn store(env: &mut JNIEnv<'_>, a: jintArray, name: &'static str) -> Res<GhostRange> {
        // SAFETY: a local reference (or null) passed to the running native method.
        let a = unsafe { JIntArray::from_raw(a) };
        if a.is_null() {
            return Err(bad_arg(format!("{name} is null")));
        }
        let mut v = [0i32; 4];
        if env.get_array_length(&a)? != 4 {
            return Err(bad_arg(format!("{name} must have 4 elements")));
        }
        env.get_int_array_region(&a, 0, &mut v)?;
        range(v[0], v[1], v[2], v[3])
    }
}

/// Into `LiveDelta`'s reading ([`READING_LEN`] doubles); returns the shown seconds.
impl JniFill for DeltaReading {
    type Array = jdoubleArray;
    const ARRAY_SIG: &'static str = "[D";
    const ARRAY_JAVA: &'static str = "double[]";
    type Jni = jdouble;
    fn fill(self, env: &mut JNIEnv<'_>, out: jdoubleArray) -> Res<jdouble> {
        let r = self;
        let values: [f64; READING_LEN] = [
            r.raw_ticks,
            r.shown_ticks,
            if r.ahead { 1.0 } else { 0.0 },
            r.ghost_ticks,
            r.distance,
            r.tick_rate,
        ];
        fill_doubles(env, out, &values)?;
        Ok(r.seconds())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_decode() {
        assert_eq!(range(0, 0, 0, 0).unwrap(), GhostRange::all());
        assert_eq!(range(2, 1, 2, 3).unwrap(), GhostRange::checkpoints(1, 3));
        assert_eq!(range(1, 10, 1, 20).unwrap(), GhostRange::ticks(10, 20));
        assert!(range(3, 0, 0, 0).is_err());
        assert!(range(1, -1, 0, 0).is_err());
        assert!(range(0, 0, 9, 0).is_err());
    }
}
