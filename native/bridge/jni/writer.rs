//! How the writer's options cross into Java (`ReelWriter`'s operations are `crate::api::writer`;
//! their JNI entry points are generated), and the entity registration the recorder natives share.

use jni::JNIEnv;
use jni::objects::JLongArray;
use jni::sys::jlongArray;

use super::convert::JniArg;
use super::recorder::ranged;
use super::{Res, longs_arg};
use crate::options::ReelArray;
use tickreel::record::{ChunkPolicy, RecordingIdentity, ReelOptions};

fn uuid_bytes(msb: i64, lsb: i64) -> [u8; 16] {
    uuid::Uuid::from_u64_pair(msb as u64, lsb as u64).into_bytes()
}

/// Decodes the options array (a translation: `ReelWriter::create` checks the values).
pub(crate) fn options_from(a: &[i64]) -> Res<ReelOptions> {
    let ReelArray {
        world_id_msb,
        world_id_lsb,
        world_version_msb,
        world_version_lsb,
        timestamp_ms,
        tick_rate_millihz,
        game_data_version,
        dictionary_id,
        chunk_ticks,
        chunk_bytes,
        snapshot_interval,
        zstd_level,
    } = ReelArray::read(a);
    let identity = RecordingIdentity {
        world_id: uuid_bytes(world_id_msb, world_id_lsb),
        world_version: uuid_bytes(world_version_msb, world_version_lsb),
        timestamp_ms,
        tick_rate_millihz: ranged(tick_rate_millihz, "ticksPerSecond")?,
        game_data_version: ranged(game_data_version, "gameDataVersion")?,
        dictionary_id: ranged(dictionary_id, "dictionaryId")?,
    };
    let policy = ChunkPolicy {
        chunk_ticks: ranged(chunk_ticks, "chunkTicks")?,
        chunk_bytes: ranged(chunk_bytes, "chunkBytes")?,
        snapshot_interval: ranged(snapshot_interval, "snapshotInterval")?,
        zstd_level: ranged(zstd_level, "compressionLevel")?,
    };
    Ok(ReelOptions { identity, policy })
}

/// `long[]` of [`ReelArray`] (`ReelOptions.toNative()`).
impl JniArg for ReelOptions {
    type Jni = jlongArray;
    const SIG: &'static str = "[J";
    const JAVA: &'static str = "long[]";
    type Stored = ReelOptions;
    fn store(env: &mut JNIEnv<'_>, a: jlongArray, name: &'static str) -> Res<ReelOptions> {
        // SAFETY: a local reference (or null) passed to the running native method.
        let a = unsafe { JLongArray::from_raw(a) };
        options_from(&longs_arg(env, &a, ReelArray::LEN, name)?)
    }
}

#[cfg(test)]
mod tests {
    use tickreel::format::Quantity;

    /// `Pose.java`'s quantity codes are the core's.
    #[test]
    fn java_quantity_codes_are_the_cores() {
        let src =
            include_str!("../../../java-bindings/tickreel/src/main/java/io/tickreel/Pose.java");
        for (name, q) in [
            ("POSITION", Quantity::Position),
            ("ANGLE", Quantity::Angle),
            ("VELOCITY", Quantity::Velocity),
        ] {
            let decl = format!("static final int {name} = {};", q.code());
            assert!(src.contains(&decl), "Pose.java lacks `{decl}`");
        }
    }
}
