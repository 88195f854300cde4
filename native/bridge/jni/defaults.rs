//! The core's defaults, given to Java in the layouts of its options arrays, so that Java's option
//! builders can be checked against them (`DefaultsTest`): one set of defaults in every language.
//! Each encoder is the inverse of the decoder that reads Java's array.

use jni::JNIEnv;
use jni::sys::{jint, jobject};

use super::convert::{JniResult, LONG_ARRAY_JAVA, LONG_ARRAY_SIG};
use super::{Res, bad_arg, long_array};
use crate::api::library::OptionDefaults;
use crate::api::shadow::report_chat_code;
use crate::options::{ReelArray, ReportArray, ShadowArray};
use tickreel::record::{ChunkPolicy, RecorderOptions, RecordingIdentity};
use tickreel::shadow::{ReportOptions, ShadowOptions};

/// `NativeBridge.defaultOptions` families.
const RECORDING: jint = 0;
const SHADOW: jint = 3;
const REPORT: jint = 4;

fn uuid_longs(bytes: [u8; 16]) -> [i64; 2] {
    let (msb, lsb) = uuid::Uuid::from_bytes(bytes).as_u64_pair();
    [msb as i64, lsb as i64]
}

fn nanos(d: std::time::Duration) -> i64 {
    i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)
}

/// [`ReelArray`] of a recording's identity and chunk policy.
pub(super) fn recording_array(identity: &RecordingIdentity, chunk: &ChunkPolicy) -> ReelArray {
    let RecordingIdentity {
        world_id,
        world_version,
        timestamp_ms,
        tick_rate_millihz,
        game_data_version,
        dictionary_id,
    } = *identity;
    let ChunkPolicy {
        chunk_ticks,
        chunk_bytes,
        snapshot_interval,
        zstd_level,
    } = *chunk;
    let [world_id_msb, world_id_lsb] = uuid_longs(world_id);
    let [world_version_msb, world_version_lsb] = uuid_longs(world_version);
    ReelArray {
        world_id_msb,
        world_id_lsb,
        world_version_msb,
        world_version_lsb,
        timestamp_ms,
        tick_rate_millihz: i64::from(tick_rate_millihz),
        game_data_version: i64::from(game_data_version),
        dictionary_id: i64::from(dictionary_id),
        chunk_ticks: i64::from(chunk_ticks),
        chunk_bytes: chunk_bytes as i64,
        snapshot_interval: i64::from(snapshot_interval),
        zstd_level: i64::from(zstd_level),
    }
}

/// [`ShadowArray`] of `o`.
pub(super) fn shadow_array(o: &ShadowOptions) -> ShadowArray {
    let ShadowOptions {
        window,
        grace,
        max_bytes,
        block_ticks,
    } = *o;
    ShadowArray {
        window_ns: nanos(window),
        grace_ns: nanos(grace),
        max_bytes: max_bytes.map_or(-1, |b| b as i64),
        block_ticks: i64::from(block_ticks),
    }
}

/// [`ReportArray`] of `o`, then the radius's `double` bits (the radius is a separate argument of
/// the native call).
pub(super) fn report_array(o: &ReportOptions) -> Vec<i64> {
    let ReportOptions {
        before,
        after,
        radius,
        // Given as its own argument (NBT bytes), not in the array.
        metadata: _,
        overwrite,
        zstd_level,
        keep,
    } = o;
    let mut a = ReportArray {
        before_ns: before.map_or(-1, nanos),
        after_ns: nanos(*after),
        radius_applies: i64::from(radius.is_some()),
        overwrite: i64::from(*overwrite),
        zstd_level: i64::from(*zstd_level),
        keep_all_blocks: i64::from(keep.all_blocks),
        chat: i64::from(report_chat_code(keep.chat)),
    }
    .to_vec();
    a.push(radius.unwrap_or(0.0).to_bits() as i64);
    a
}

fn defaults(family: jint) -> Res<Vec<i64>> {
    Ok(match family {
        RECORDING => {
            // The live chunk policy: Java's `ReelOptions` defaults are a recorder's.
            let o = RecorderOptions::default();
            recording_array(&o.identity, &o.chunk).to_vec()
        }
        SHADOW => shadow_array(&ShadowOptions::default()).to_vec(),
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
        let s = super::super::shadow::shadow_options(&defaults(SHADOW).unwrap()).unwrap();
        assert_eq!(format!("{s:?}"), format!("{:?}", ShadowOptions::default()));
        let a = defaults(REPORT).unwrap();
        let radius = f64::from_bits(a[ReportArray::LEN] as u64);
        let rep = super::super::shadow::report_options(&a[..ReportArray::LEN], radius, Vec::new())
            .unwrap();
        assert_eq!(
            format!("{rep:?}"),
            format!("{:?}", ReportOptions::default())
        );
        assert!(defaults(99).is_err());
    }
}
