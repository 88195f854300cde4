//! How the shadow operations' types cross into Java's `ShadowBuffer` (the operations are
//! `crate::api::shadow`; their JNI entry points are generated): option arrays, stats, starts. A
//! shadow buffer starts with its own recorder (a handle like any `Recorder`'s); its reports
//! complete through the same finish handle (Java: `Pending<Path>`) as a recording's finish.

use std::sync::Arc;
use std::time::Duration;

use jni::JNIEnv;
use jni::objects::JLongArray;
use jni::sys::{jlongArray, jobject};

use super::convert::{JniArg, JniResult, LONG_ARRAY_JAVA, LONG_ARRAY_SIG};
use super::recorder::ranged;
use super::{Res, bad_arg, handles, insert, long_array, longs_arg};
use crate::api::engine::Recorder;
use crate::api::shadow::{ShadowBuffer, Started, report_chat};
use crate::options::{ReportArray, ShadowArray};
use crate::shared::handle::HandleType;
use tickreel::shadow::{ReportKeep, ReportOptions, ShadowOptions, ShadowStats};

fn duration(v: i64, what: &str) -> Res<Duration> {
    u64::try_from(v)
        .map(Duration::from_nanos)
        .map_err(|_| bad_arg(format!("{what} must not be negative (got {v} ns)")))
}

pub(super) fn shadow_options(a: &[i64]) -> Res<ShadowOptions> {
    let ShadowArray {
        window_ns,
        grace_ns,
        max_bytes,
        block_ticks,
    } = ShadowArray::read(a);
    Ok(ShadowOptions {
        window: duration(window_ns, "window")?,
        grace: duration(grace_ns, "grace")?,
        max_bytes: match max_bytes {
            -1 => None,
            v => Some(ranged(v, "maxBytes")?),
        },
        block_ticks: ranged(block_ticks, "blockTicks")?,
    })
}

pub(super) fn report_options(
    a: &[i64],
    radius: f64,
    metadata: Vec<(String, fastnbt::Value)>,
) -> Res<ReportOptions> {
    let ReportArray {
        before_ns,
        after_ns,
        radius_applies,
        overwrite,
        zstd_level,
        keep_all_blocks,
        chat,
    } = ReportArray::read(a);
    Ok(ReportOptions {
        before: match before_ns {
            -1 => None,
            v => Some(duration(v, "before")?),
        },
        after: duration(after_ns, "after")?,
        radius: (radius_applies != 0).then_some(radius),
        metadata,
        overwrite: overwrite != 0,
        zstd_level: ranged(zstd_level, "compressionLevel")?,
        keep: ReportKeep {
            all_blocks: keep_all_blocks != 0,
            chat: report_chat(ranged(chat, "chat")?)?,
        },
    })
}

/// `long[] {shadow window ns, grace ns, max bytes or -1, block ticks}` (`ShadowOptions.toNative()`).
impl JniArg for ShadowOptions {
    type Jni = jlongArray;
    const SIG: &'static str = "[J";
    const JAVA: &'static str = "long[]";
    type Stored = ShadowOptions;
    fn store(env: &mut JNIEnv<'_>, a: jlongArray, _: &'static str) -> Res<ShadowOptions> {
        // SAFETY: a local reference (or null) passed to the running native method.
        let a = unsafe { JLongArray::from_raw(a) };
        shadow_options(&longs_arg(env, &a, ShadowArray::LEN, "shadow options")?)
    }
}

/// `long[]` of [`ReportArray::LEN`] then the radius's `double` bits
/// (`ReportOptions.toNative()` and `Double.doubleToRawLongBits(nativeRadius())`).
impl JniArg for ReportOptions {
    type Jni = jlongArray;
    const SIG: &'static str = "[J";
    const JAVA: &'static str = "long[]";
    type Stored = ReportOptions;
    fn store(env: &mut JNIEnv<'_>, a: jlongArray, _: &'static str) -> Res<ReportOptions> {
        // SAFETY: a local reference (or null) passed to the running native method.
        let a = unsafe { JLongArray::from_raw(a) };
        let a = longs_arg(env, &a, ReportArray::LEN + 1, "report options")?;
        let radius = f64::from_bits(a[ReportArray::LEN] as u64);
        report_options(&a[..ReportArray::LEN], radius, Vec::new())
    }
}

/// `long[] {recorder, shadow}`, both handles or neither.
impl JniResult for Started {
    type Jni = jobject;
    const SIG: &'static str = LONG_ARRAY_SIG;
    const JAVA: &'static str = LONG_ARRAY_JAVA;
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        let r = insert(Recorder::NAME, Arc::new(self.recorder))?;
        let s = insert(ShadowBuffer::NAME, Arc::new(self.shadow))
            .inspect_err(|_| drop(handles::remove(r)))?;
        long_array(env, &[r, s]).inspect_err(|_| {
            // Java never sees these handles: close them (the stream ends).
            drop(handles::remove(r));
            drop(handles::remove(s));
        })
    }
}

/// `long[] {bytes, blocks, first tick or -1, last tick or -1, alive entities, departed players,
/// expired blocks, budget-dropped blocks, budget-dropped ticks, reports capturing, reports
/// started}`.
impl JniResult for ShadowStats {
    type Jni = jobject;
    const SIG: &'static str = LONG_ARRAY_SIG;
    const JAVA: &'static str = LONG_ARRAY_JAVA;
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        let s = self;
        long_array(
            env,
            &[
                s.bytes as i64,
                s.blocks as i64,
                s.first_tick.map_or(-1, i64::from),
                s.last_tick.map_or(-1, i64::from),
                s.alive_entities as i64,
                s.departed_players as i64,
                s.expired_blocks as i64,
                s.budget_dropped_blocks as i64,
                s.budget_dropped_ticks as i64,
                s.reports_capturing as i64,
                s.reports_started as i64,
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_decode() {
        let o = shadow_options(&[10_000_000_000, 0, -1, 20]).unwrap();
        assert_eq!(o.window, Duration::from_secs(10));
        assert_eq!((o.max_bytes, o.block_ticks), (None, 20));
        assert_eq!(
            shadow_options(&[1, 1, 4096, 1]).unwrap().max_bytes,
            Some(4096)
        );
        assert!(shadow_options(&[-5, 0, -1, 20]).is_err());
        assert!(shadow_options(&[1, 0, -2, 20]).is_err());
        assert!(shadow_options(&[1, 0, -1, -20]).is_err());
        let r = report_options(&[-1, 0, 1, 0, 3, 0, 0], 48.0, Vec::new()).unwrap();
        assert_eq!(
            r,
            ReportOptions {
                after: Duration::ZERO,
                ..ReportOptions::default()
            }
        );
        let r = report_options(&[5, 7, 0, 1, 3, 1, 2], f64::NAN, Vec::new()).unwrap();
        assert_eq!(r.before, Some(Duration::from_nanos(5)));
        assert_eq!((r.radius, r.overwrite, r.zstd_level), (None, true, 3));
        assert!(r.keep.all_blocks);
        assert_eq!(r.keep.chat, tickreel::shadow::ReportChat::All);
        assert!(report_options(&[-2, 0, 1, 0, 9, 0, 0], 48.0, Vec::new()).is_err());
        assert!(report_options(&[-1, -1, 1, 0, 9, 0, 0], 48.0, Vec::new()).is_err());
        assert!(report_options(&[-1, 0, 1, 0, 3, 0, 3], 48.0, Vec::new()).is_err());
        assert!(report_options(&[-1, 0, 1, 0, 3, 0, -1], 48.0, Vec::new()).is_err());
    }
}
