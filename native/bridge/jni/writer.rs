//! `ReplayWriter` natives: a finished `.reel` written through [`ReelWriter`].

use std::ffi::c_void;
use std::sync::Arc;

use jni::JNIEnv;
use jni::objects::{JByteArray, JByteBuffer, JClass, JLongArray, JString};
use jni::sys::{jboolean, jdouble, jint, jlong};
use parking_lot::Mutex;

use super::recorder::ranged;
use super::{
    Res, bad_arg, bytes_arg, entry, get, insert, longs_arg, method, opt_string_arg, string_arg,
    u32_arg, with_direct_bytes,
};
use tickreel::error::Error;
use tickreel::format::metadata::{EntityInfo, EventType, LIBRARY_KEY};
use tickreel::format::pose::Quantity;
use tickreel::record::{ChunkPolicy, RecordingInfo, ReelOptions, ReelWriter};

const WHAT: &str = "ReplayWriter";

/// A writer until `finish` takes it.
type Slot = Mutex<Option<ReelWriter>>;

/// Number of `long`s in the options array (`ReplayWriter.Options#toArray` on the Java side):
/// world id (msb, lsb), world version (msb, lsb), timestamp ms, tick rate (millihertz), game data
/// version, dictionary id, chunk ticks, chunk bytes, snapshot interval, zstd level.
pub(crate) const OPTIONS_LEN: usize = 12;

fn uuid_bytes(msb: i64, lsb: i64) -> [u8; 16] {
    uuid::Uuid::from_u64_pair(msb as u64, lsb as u64).into_bytes()
}

/// Decodes the options array (a translation: `ReelWriter::create` checks the values).
pub(crate) fn options_from(a: &[i64]) -> Res<ReelOptions> {
    let info = RecordingInfo {
        world_id: uuid_bytes(a[0], a[1]),
        world_version: uuid_bytes(a[2], a[3]),
        timestamp_ms: a[4],
        tick_rate_millihz: ranged(a[5], "tick rate")?,
        game_data_version: ranged(a[6], "game data version")?,
        dictionary_id: ranged(a[7], "dictionary id")?,
    };
    let policy = ChunkPolicy {
        chunk_ticks: ranged(a[8], "chunk ticks")?,
        chunk_bytes: ranged(a[9], "chunk bytes")?,
        snapshot_interval: ranged(a[10], "snapshot interval")?,
        zstd_level: ranged(a[11], "zstd level")?,
    };
    Ok(ReelOptions { info, policy })
}

fn with_writer<R>(handle: jlong, f: impl FnOnce(&mut ReelWriter) -> Res<R>) -> Res<R> {
    let slot = get::<Slot>(handle, WHAT)?;
    let mut guard = slot.lock();
    let w = guard
        .as_mut()
        .ok_or_else(|| Error::InvalidState("the ReplayWriter is finished".into()))?;
    f(w)
}

extern "system" fn create<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    path: JString<'l>,
    options: JLongArray<'l>,
) -> jlong {
    entry(&mut env, |env| {
        let path = string_arg(env, &path, "path")?;
        let options = options_from(&longs_arg(env, &options, OPTIONS_LEN, "options")?)?;
        let w = ReelWriter::create(path, options)?;
        insert(WHAT, Arc::new(Mutex::new(Some(w))))
    })
}

extern "system" fn write_tick<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    tick: jint,
    buf: JByteBuffer<'l>,
    offset: jint,
    len: jint,
) {
    entry(&mut env, |env| {
        let tick = u32_arg(tick, "tick")?;
        let slot = get::<Slot>(handle, WHAT)?;
        with_direct_bytes(env, &buf, offset, len, |bytes| {
            let mut guard = slot.lock();
            let w = guard
                .as_mut()
                .ok_or_else(|| Error::InvalidState("the ReplayWriter is finished".into()))?;
            Ok(w.write_batch(tick, bytes)?)
        })
    })
}

extern "system" fn offer_snapshot<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    bytes: JByteArray<'l>,
) {
    entry(&mut env, |env| {
        let bytes = bytes_arg(env, &bytes, "snapshot")?;
        with_writer(handle, |w| Ok(w.offer_snapshot(bytes)?))
    })
}

/// The entity identity from the Java arguments.
pub(crate) fn entity_info(
    env: &mut JNIEnv<'_>,
    id: jint,
    kind: jint,
    has_uuid: jboolean,
    msb: jlong,
    lsb: jlong,
    name: &JString<'_>,
) -> Res<EntityInfo> {
    Ok(EntityInfo {
        id: id as u32,
        kind: kind as u32,
        uuid: (has_uuid != 0).then(|| uuid::Uuid::from_u64_pair(msb as u64, lsb as u64)),
        name: opt_string_arg(env, name)?,
    })
}

#[allow(clippy::too_many_arguments)]
extern "system" fn register_entity<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    id: jint,
    kind: jint,
    has_uuid: jboolean,
    msb: jlong,
    lsb: jlong,
    name: JString<'l>,
) {
    entry(&mut env, |env| {
        let info = entity_info(env, id, kind, has_uuid, msb, lsb, &name)?;
        with_writer(handle, |w| Ok(w.register_entity(info)?))
    })
}

extern "system" fn register_event_type<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    id: jint,
    name: JString<'l>,
    version: jint,
) {
    entry(&mut env, |env| {
        let t = EventType {
            id: id as u32,
            name: string_arg(env, &name, "event type name")?,
            version: version as u32,
        };
        with_writer(handle, |w| Ok(w.register_event_type(t)?))
    })
}

/// Decodes an NBT root compound (written by the Java `Nbt` codec) into its entries.
pub(crate) fn nbt_entries(bytes: &[u8]) -> Res<Vec<(String, fastnbt::Value)>> {
    tickreel::format::metadata::check_nbt_depth(bytes)
        .map_err(|e| bad_arg(format!("metadata: {e}")))?;
    let value: fastnbt::Value =
        fastnbt::from_bytes(bytes).map_err(|e| bad_arg(format!("metadata is not NBT: {e}")))?;
    let fastnbt::Value::Compound(map) = value else {
        return Err(bad_arg("metadata root is not a compound"));
    };
    if map.contains_key(LIBRARY_KEY) {
        return Err(bad_arg(format!(
            "the metadata key \"{LIBRARY_KEY}\" is reserved for the library"
        )));
    }
    Ok(map.into_iter().collect())
}

extern "system" fn put_metadata<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    nbt: JByteArray<'l>,
) {
    entry(&mut env, |env| {
        let entries = nbt_entries(&bytes_arg(env, &nbt, "metadata")?)?;
        with_writer(handle, |w| {
            for (key, value) in entries {
                w.set_user_metadata(key, value)?;
            }
            Ok(())
        })
    })
}

extern "system" fn finish<'l>(mut env: JNIEnv<'l>, _class: JClass<'l>, handle: jlong) -> jlong {
    entry(&mut env, |_| {
        let slot = get::<Slot>(handle, WHAT)?;
        let w = slot
            .lock()
            .take()
            .ok_or_else(|| Error::InvalidState("the ReplayWriter is finished".into()))?;
        let size = w.finish()?;
        i64::try_from(size).map_err(|_| bad_arg("file size over 2^63"))
    })
}

/// `Pose.quantise*`'s slow path: a value Java found beyond the format's range (or NaN) goes
/// through the core's one check, which refuses it with its message (or quantises it, should the
/// two ever disagree).
extern "system" fn quantity_check<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    quantity: jint,
    what: JString<'l>,
    value: jdouble,
) -> jlong {
    entry(&mut env, |env| {
        let what = string_arg(env, &what, "what")?;
        let quantity = u32::try_from(quantity)
            .ok()
            .and_then(Quantity::from_code)
            .ok_or_else(|| bad_arg(format!("no quantity {quantity}")))?;
        Ok(quantity.check(&what, value)?)
    })
}

pub(super) fn methods() -> Vec<jni::NativeMethod> {
    vec![
        method(
            "quantityCheck",
            "(ILjava/lang/String;D)J",
            quantity_check as *mut c_void,
        ),
        method(
            "writerCreate",
            "(Ljava/lang/String;[J)J",
            create as *mut c_void,
        ),
        method(
            "writerTick",
            "(JILjava/nio/ByteBuffer;II)V",
            write_tick as *mut c_void,
        ),
        method("writerSnapshot", "(J[B)V", offer_snapshot as *mut c_void),
        method(
            "writerRegisterEntity",
            "(JIIZJJLjava/lang/String;)V",
            register_entity as *mut c_void,
        ),
        method(
            "writerRegisterEventType",
            "(JILjava/lang/String;I)V",
            register_event_type as *mut c_void,
        ),
        method("writerPutMetadata", "(J[B)V", put_metadata as *mut c_void),
        method("writerFinish", "(J)J", finish as *mut c_void),
    ]
}

#[cfg(test)]
mod tests {
    use tickreel::format::pose::Quantity;

    /// `Pose.java`'s quantity codes are the core's.
    #[test]
    fn java_quantity_codes_are_the_cores() {
        let src = include_str!("../../../java-bindings/src/main/java/io/tickreel/Pose.java");
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
