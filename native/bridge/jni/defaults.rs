//! The core's defaults, given to Java in the layouts of its options arrays, so that Java's option
//! builders can be checked against them (`DefaultsTest`): one set of defaults in every language.
//! Each encoder is the inverse of the decoder that reads Java's array.

use jni::JNIEnv;
use jni::sys::{jint, jobject};

use super::convert::{JniResult, LONG_ARRAY_JAVA, LONG_ARRAY_SIG};
use super::{Res, bad_arg, long_array};
use crate::api::library::OptionDefaults;
use tickreel::record::{Backpressure, EngineOptions, RecorderOptions, RecordingInfo};
use tickreel::shadow::{ReportOptions, ShadowOptions};

/// `NativeBridge.defaultOptions` families.
const RECORDING: jint = 0;
const RECORDER: jint = 1;
const ENGINE: jint = 2;
const SHADOW: jint = 3;
const REPORT: jint = 4;

fn uuid_longs(bytes: [u8; 16]) -> [i64; 2] {
    let (msb, lsb) = uuid::Uuid::from_bytes(bytes).as_u64_pair();
    [msb as i64, lsb as i64]
}

fn nanos(d: std::time::Duration) -> i64 {
    i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)
}

/// The layout of [`super::writer::options_from`].
pub(super) fn recording_array(info: &RecordingInfo, o: &RecorderOptions) -> Vec<i64> {
    let mut a = Vec::with_capacity(super::writer::OPTIONS_LEN);
    a.extend(uuid_longs(info.world_id));
    a.extend(uuid_longs(info.world_version));
    a.push(info.timestamp_ms);
    a.push(i64::from(info.tick_rate_millihz));
    a.push(i64::from(info.game_data_version));
    a.push(i64::from(info.dictionary_id));
    a.push(i64::from(o.chunk.chunk_ticks));
    a.push(o.chunk.chunk_bytes as i64);
    a.push(i64::from(o.chunk.snapshot_interval));
    a.push(i64::from(o.chunk.zstd_level));
    a
}

/// The layout of [`super::recorder::recorder_options`].
pub(super) fn recorder_array(o: &RecorderOptions) -> Vec<i64> {
    let mut a = recording_array(&o.info, o);
    let (policy, deadline) = match o.backpressure {
        Backpressure::Block { deadline } => (0, nanos(deadline)),
        Backpressure::Drop => (1, 0),
    };
    a.extend([
        o.flush.max_pending_bytes as i64,
        i64::try_from(o.flush.interval.as_millis()).unwrap_or(i64::MAX),
        i64::from(o.flush.on_player_leave),
        policy,
        deadline,
        i64::from(o.compaction.zstd_level),
        i64::from(o.compaction.chunk_ticks),
        i64::from(o.compaction.verify),
        o.max_batch_bytes as i64,
        i64::from(o.overwrite),
    ]);
    a
}

/// The layout of [`super::recorder::engine_options`].
pub(super) fn engine_array(o: &EngineOptions) -> Vec<i64> {
    vec![
        o.writer_threads as i64,
        o.queue_capacity as i64,
        o.max_inflight_bytes as i64,
        o.pool_buffers as i64,
        o.shadow_budget_bytes as i64,
    ]
}

/// The layout of [`super::shadow::shadow_options`].
pub(super) fn shadow_array(o: &ShadowOptions) -> Vec<i64> {
    vec![
        nanos(o.window),
        nanos(o.grace),
        o.max_bytes.map_or(-1, |b| b as i64),
        i64::from(o.block_ticks),
    ]
}

/// The layout of [`super::shadow::report_options`], then the radius's `double` bits (the radius
/// is a separate argument of the native call).
pub(super) fn report_array(o: &ReportOptions) -> Vec<i64> {
    vec![
        o.before.map_or(-1, nanos),
        nanos(o.after),
        i64::from(o.radius.is_some()),
        i64::from(o.overwrite),
        i64::from(o.zstd_level),
        o.radius.unwrap_or(0.0).to_bits() as i64,
    ]
}

fn defaults(family: jint) -> Res<Vec<i64>> {
    Ok(match family {
        RECORDING => {
            let o = RecorderOptions::default();
            recording_array(&o.info, &o)
        }
        RECORDER => recorder_array(&RecorderOptions::default()),
        ENGINE => engine_array(&EngineOptions::default()),
        SHADOW => shadow_array(&ShadowOptions::default()),
        REPORT => report_array(&ReportOptions::default()),
        other => return Err(bad_arg(format!("no option family {other}"))),
    })
}

/// The family's defaults as Java's array of it (an unknown family: `IllegalArgumentException`).
impl JniResult for OptionDefaults {
    type Jni = jobject;
    const SIG: &'static str = LONG_ARRAY_SIG;
    const JAVA: &'static str = LONG_ARRAY_JAVA;
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        let family =
            jint::try_from(self.0).map_err(|_| bad_arg(format!("no option family {}", self.0)))?;
        long_array(env, &defaults(family)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each encoding decodes back to the core's defaults: the layouts match the decoders.
    #[test]
    fn default_arrays_decode_to_the_core_defaults() {
        let r = super::super::recorder::recorder_options(&defaults(RECORDER).unwrap()).unwrap();
        assert_eq!(
            format!("{r:?}"),
            format!("{:?}", RecorderOptions::default())
        );
        let e = super::super::recorder::engine_options(&defaults(ENGINE).unwrap()).unwrap();
        assert_eq!(e, EngineOptions::default());
        let s = super::super::shadow::shadow_options(&defaults(SHADOW).unwrap()).unwrap();
        assert_eq!(format!("{s:?}"), format!("{:?}", ShadowOptions::default()));
        let a = defaults(REPORT).unwrap();
        let radius = f64::from_bits(a[5] as u64);
        let rep = super::super::shadow::report_options(&a[..5], radius, Vec::new()).unwrap();
        assert_eq!(
            format!("{rep:?}"),
            format!("{:?}", ReportOptions::default())
        );
        assert_eq!(
            defaults(RECORDING).unwrap(),
            defaults(RECORDER).unwrap()[..12]
        );
        assert!(defaults(99).is_err());
    }
}
