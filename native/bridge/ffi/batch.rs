//! The tick batch builder, for engines that would rather not encode events themselves.
//!
//! A batch is one tick's events in the batch encoding of `format::event` (`u16` big-endian event
//! count, then each event as a kind byte and varint fields). Coordinates are given in blocks and
//! angles in degrees, as doubles, and quantised with the core's checks (`Pose::try_from_f64`: 1/4096
//! block, 1/65536 turn), so a non-finite or out-of-range value is `TICKREEL_RESULT_INVALID_ARGUMENT`.

use std::sync::{Mutex, MutexGuard};

use super::args::{self, OutArray};
use super::handle::{self, HandleType};
use super::result::{FfiError, FfiResult, TickreelResult, guard};
use tickreel::format::event::{Event, MAX_CUSTOM_EVENT_BYTES, MAX_EVENTS_PER_TICK};
use tickreel::format::pose::{Pose, check_angle, check_position, check_velocity};

/// A builder for one tick's event batch. Opaque: create with `tickreel_batch_new`, release with
/// `tickreel_batch_free`. The pointer is a handle, not an address: never dereference it.
pub struct TickreelBatch {
    _private: [u8; 0],
}

/// The object behind a batch handle.
pub(crate) struct BatchObj {
    buf: Mutex<BatchBuf>,
}

impl HandleType for BatchObj {
    type Opaque = TickreelBatch;
    const TAG: u8 = 1;
    const NAME: &'static str = "batch";
}

/// Encoded events with the 2-byte count in front, kept up to date.
pub(crate) struct BatchBuf {
    bytes: Vec<u8>,
    count: usize,
}

impl BatchBuf {
    fn new() -> BatchBuf {
        BatchBuf {
            bytes: vec![0, 0],
            count: 0,
        }
    }

    fn push(&mut self, e: Event) -> FfiResult {
        if self.count >= MAX_EVENTS_PER_TICK {
            return Err(tickreel::Error::limit(format!(
                "a tick holds at most {MAX_EVENTS_PER_TICK} events"
            ))
            .into());
        }
        e.encode(&mut self.bytes);
        self.count += 1;
        self.bytes[..2].copy_from_slice(&(self.count as u16).to_be_bytes());
        Ok(())
    }

    fn clear(&mut self) {
        self.bytes.truncate(2);
        self.bytes[..2].fill(0);
        self.count = 0;
    }

    /// The batch encoding of the events added so far.
    pub(crate) fn encoded(&self) -> &[u8] {
        &self.bytes
    }
}

/// Locks the batch behind a handle.
pub(crate) fn with_batch<R>(
    batch: *mut TickreelBatch,
    f: impl FnOnce(&mut BatchBuf) -> FfiResult<R>,
) -> FfiResult<R> {
    let obj = handle::get::<BatchObj>(batch)?;
    let mut guard: MutexGuard<'_, BatchBuf> =
        obj.buf.lock().map_err(|_| FfiError::Poisoned("batch"))?;
    f(&mut guard)
}

fn push(batch: *mut TickreelBatch, e: impl FnOnce() -> FfiResult<Event>) -> TickreelResult {
    guard(|| with_batch(batch, |b| b.push(e()?)))
}

fn pose(x: f64, y: f64, z: f64, yaw: f64, pitch: f64) -> FfiResult<Pose> {
    Ok(Pose::try_from_f64(x, y, z, yaw, pitch)?)
}

/// Creates an empty batch builder and stores its handle in `*out_batch`.
///
/// Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `out_batch` is NULL. On failure `*out_batch` is set
/// to NULL (when it can be written).
///
/// # Safety
/// `out_batch` must be NULL or point to writable storage for one pointer.
///
/// Thread safety: any thread. A batch may be used from any thread; calls on one batch are
/// serialised by an internal lock, but a batch is meant to be filled by one thread at a time
/// (the order of events is the order of the calls).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_batch_new(out_batch: *mut *mut TickreelBatch) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one pointer.
        let out = unsafe { args::Out::new(out_batch, "out_batch") }?;
        out.set(std::ptr::null_mut());
        out.set(handle::insert(BatchObj {
            buf: Mutex::new(BatchBuf::new()),
        })?);
        Ok(())
    })
}

/// Frees a batch. `tickreel_batch_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed,
/// foreign or otherwise invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE` (a double free is
/// detected, not undefined behaviour).
///
/// Thread safety: any thread. A call on the same batch still running in another thread finishes
/// normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_batch_free(batch: *mut TickreelBatch) -> TickreelResult {
    guard(|| handle::remove::<BatchObj>(batch).map(drop))
}

/// Removes every event from the batch, keeping its memory for reuse (call once per tick).
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_batch_clear(batch: *mut TickreelBatch) -> TickreelResult {
    guard(|| {
        with_batch(batch, |b| {
            b.clear();
            Ok(())
        })
    })
}

/// Stores the number of events in the batch in `*out_count`.
///
/// # Safety
/// `out_count` must be NULL or point to a writable `size_t`.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_batch_event_count(
    batch: *mut TickreelBatch,
    out_count: *mut usize,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one size_t.
        let out = unsafe { args::Out::new(out_count, "out_count") }?;
        out.set(with_batch(batch, |b| Ok(b.count))?);
        Ok(())
    })
}

/// Copies the batch encoding of the events added so far into `buf` (the bytes that
/// `tickreel_writer_write_tick` accepts), and stores its length in `*out_len`.
///
/// The encoding is: a big-endian `u16` event count, then each event as a kind byte followed by
/// its fields as LEB128 varints (signed fields zigzag-coded); see FORMAT.md. An empty batch is
/// the two bytes `00 00`.
///
/// `*out_len` is always set to the encoded length. If `capacity` is smaller, nothing is copied and
/// `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned: call again with a buffer of `*out_len` bytes.
/// `buf` may be NULL when `capacity` is 0, to query the length.
///
/// # Safety
/// `buf` must point to `capacity` writable bytes (or `capacity` must be 0); `out_len` must be NULL
/// or point to a writable `size_t`.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_batch_bytes(
    batch: *mut TickreelBatch,
    buf: *mut u8,
    capacity: usize,
    out_len: *mut usize,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one size_t.
        let out_len = unsafe { args::Out::new(out_len, "out_len") }?;
        // SAFETY: caller contract: `capacity` writable bytes at `buf`, or capacity 0.
        let out = unsafe { OutArray::new(buf, capacity, "buf") }?;
        with_batch(batch, |b| {
            let bytes = b.encoded();
            out_len.set(bytes.len());
            if bytes.len() > out.capacity() {
                return Err(FfiError::BufferTooSmall(format!(
                    "the batch needs {} bytes, the buffer has {}",
                    bytes.len(),
                    out.capacity()
                )));
            }
            for (i, &byte) in bytes.iter().enumerate() {
                out.set(i, byte);
            }
            Ok(())
        })
    })
}

/// Adds an entity (it appears with a game-defined `kind`, e.g. an entity type id, at the given
/// pose). Position in blocks, yaw and pitch in degrees (yaw unbounded).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range value,
/// `TICKREEL_RESULT_LIMIT_EXCEEDED` if the batch already holds 65535 events.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_batch_add_entity(
    batch: *mut TickreelBatch,
    entity: u32,
    kind: u32,
    x: f64,
    y: f64,
    z: f64,
    yaw: f64,
    pitch: f64,
) -> TickreelResult {
    push(batch, || {
        Ok(Event::EntityAdd {
            entity,
            kind,
            pose: pose(x, y, z, yaw, pitch)?,
        })
    })
}

/// Removes an entity.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_batch_remove_entity(
    batch: *mut TickreelBatch,
    entity: u32,
) -> TickreelResult {
    push(batch, || Ok(Event::EntityRemove { entity }))
}

/// Sets an entity's absolute pose: position in blocks, yaw and pitch in degrees (yaw unbounded:
/// pass what the client sends, without normalising).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range value.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_batch_add_pose(
    batch: *mut TickreelBatch,
    entity: u32,
    x: f64,
    y: f64,
    z: f64,
    yaw: f64,
    pitch: f64,
) -> TickreelResult {
    push(batch, || {
        Ok(Event::Pose {
            entity,
            pose: pose(x, y, z, yaw, pitch)?,
        })
    })
}

/// Sets an entity's position (blocks), leaving its rotation unchanged.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range value.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_batch_add_position(
    batch: *mut TickreelBatch,
    entity: u32,
    x: f64,
    y: f64,
    z: f64,
) -> TickreelResult {
    push(batch, || {
        Ok(Event::Position {
            entity,
            x: check_position("x", x)?,
            y: check_position("y", y)?,
            z: check_position("z", z)?,
        })
    })
}

/// Sets an entity's rotation (degrees; yaw unbounded), leaving its position unchanged.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range value.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_batch_add_rotation(
    batch: *mut TickreelBatch,
    entity: u32,
    yaw: f64,
    pitch: f64,
) -> TickreelResult {
    push(batch, || {
        Ok(Event::Rotation {
            entity,
            yaw: check_angle("yaw", yaw)?,
            pitch: check_angle("pitch", pitch)?,
        })
    })
}

/// Teleports an entity: a discontinuity that playback and ghosts never interpolate across.
/// Position in blocks, yaw and pitch in degrees.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range value.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_batch_teleport(
    batch: *mut TickreelBatch,
    entity: u32,
    x: f64,
    y: f64,
    z: f64,
    yaw: f64,
    pitch: f64,
) -> TickreelResult {
    push(batch, || {
        Ok(Event::Teleport {
            entity,
            pose: pose(x, y, z, yaw, pitch)?,
        })
    })
}

/// Sets an entity's state flags: the full new value (`TICKREEL_FLAG_*` bits, the rest are the
/// game's own), not a change mask.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_batch_flags(
    batch: *mut TickreelBatch,
    entity: u32,
    flags: u32,
) -> TickreelResult {
    push(batch, || Ok(Event::Flags { entity, flags }))
}

/// Marks that an entity reached checkpoint `index` (a split for ghosts).
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_batch_checkpoint(
    batch: *mut TickreelBatch,
    entity: u32,
    index: u32,
) -> TickreelResult {
    push(batch, || Ok(Event::Checkpoint { entity, index }))
}

/// Sets an entity's velocity in blocks per tick (e.g. knockback); stored at 1/8000 block per tick.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range value.
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_batch_velocity(
    batch: *mut TickreelBatch,
    entity: u32,
    vx: f64,
    vy: f64,
    vz: f64,
) -> TickreelResult {
    push(batch, || {
        Ok(Event::Velocity {
            entity,
            x: check_velocity("vx", vx)?,
            y: check_velocity("vy", vy)?,
            z: check_velocity("vz", vz)?,
        })
    })
}

/// A player left: removes the entity (and, in a live recording, triggers a flush).
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_batch_player_leave(
    batch: *mut TickreelBatch,
    entity: u32,
) -> TickreelResult {
    push(batch, || Ok(Event::PlayerLeave { entity }))
}

/// Adds a game-specific event: a registered `type_id` and `len` opaque bytes (copied).
/// `data` may be NULL when `len` is 0.
///
/// Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `data` is NULL with `len > 0`,
/// `TICKREEL_RESULT_LIMIT_EXCEEDED` if `len` is over 1 MiB (1048576 bytes).
///
/// # Safety
/// `data` must point to `len` readable bytes (or `len` must be 0).
///
/// Thread safety: as every batch function, see `tickreel_batch_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_batch_custom(
    batch: *mut TickreelBatch,
    type_id: u32,
    data: *const u8,
    len: usize,
) -> TickreelResult {
    push(batch, || {
        // SAFETY: caller contract: `len` readable bytes at `data`, or len 0.
        let data = unsafe { args::bytes(data, len, "data") }?;
        if data.len() > MAX_CUSTOM_EVENT_BYTES {
            return Err(tickreel::Error::limit(format!(
                "custom event of {} bytes; at most {MAX_CUSTOM_EVENT_BYTES}",
                data.len()
            ))
            .into());
        }
        Ok(Event::Custom {
            type_id,
            data: data.to_vec(),
        })
    })
}

/// Flag bit (of `tickreel_batch_flags` and `TickreelEntityState.flags`): the entity stands on
/// the ground. The `TICKREEL_FLAG_*` bits are those tickreel understands; the rest are the game's.
pub const TICKREEL_FLAG_ON_GROUND: u32 = 1;
/// The entity is sneaking.
pub const TICKREEL_FLAG_SNEAKING: u32 = 1 << 1;
/// The entity is sprinting.
pub const TICKREEL_FLAG_SPRINTING: u32 = 1 << 2;
/// The entity is swimming.
pub const TICKREEL_FLAG_SWIMMING: u32 = 1 << 3;
/// The entity is gliding (elytra).
pub const TICKREEL_FLAG_GLIDING: u32 = 1 << 4;

#[cfg(test)]
mod tests {
    use super::*;
    use tickreel::format::event::{decode_batch, flag};
    use tickreel::format::pose::quantise_angle;

    fn new_batch() -> *mut TickreelBatch {
        let mut b = std::ptr::null_mut();
        // SAFETY: `b` is a writable pointer.
        assert_eq!(unsafe { tickreel_batch_new(&mut b) }, TickreelResult::Ok);
        b
    }

    fn bytes_of(b: *mut TickreelBatch) -> Vec<u8> {
        let mut len = 0;
        // SAFETY: capacity 0 with NULL is a size query; `len` is writable.
        let r = unsafe { tickreel_batch_bytes(b, std::ptr::null_mut(), 0, &mut len) };
        assert!(matches!(
            r,
            TickreelResult::BufferTooSmall | TickreelResult::Ok
        ));
        let mut buf = vec![0u8; len];
        // SAFETY: `buf` has `len` writable bytes.
        let r = unsafe { tickreel_batch_bytes(b, buf.as_mut_ptr(), buf.len(), &mut len) };
        assert_eq!(r, TickreelResult::Ok);
        buf
    }

    #[test]
    fn flag_constants_match_the_core() {
        assert_eq!(TICKREEL_FLAG_ON_GROUND, flag::ON_GROUND);
        assert_eq!(TICKREEL_FLAG_SNEAKING, flag::SNEAKING);
        assert_eq!(TICKREEL_FLAG_SPRINTING, flag::SPRINTING);
        assert_eq!(TICKREEL_FLAG_SWIMMING, flag::SWIMMING);
        assert_eq!(TICKREEL_FLAG_GLIDING, flag::GLIDING);
    }

    #[test]
    fn every_builder_call_produces_the_documented_encoding() {
        let b = new_batch();
        assert_eq!(bytes_of(b), vec![0, 0]);
        let data = [1u8, 2, 3];
        assert_eq!(
            tickreel_batch_add_entity(b, 7, 122, 1.5, 64.0, -3.25, 90.0, -10.0),
            TickreelResult::Ok
        );
        assert_eq!(
            tickreel_batch_add_pose(b, 7, 1.0, 2.0, 3.0, 720.5, 45.0),
            TickreelResult::Ok
        );
        assert_eq!(
            tickreel_batch_add_position(b, 7, 0.5, 0.25, -0.125),
            TickreelResult::Ok
        );
        assert_eq!(
            tickreel_batch_add_rotation(b, 7, -90.0, 12.5),
            TickreelResult::Ok
        );
        assert_eq!(
            tickreel_batch_teleport(b, 7, 100.0, 70.0, 100.0, 0.0, 0.0),
            TickreelResult::Ok
        );
        assert_eq!(
            tickreel_batch_flags(b, 7, TICKREEL_FLAG_ON_GROUND | 1 << 20),
            TickreelResult::Ok
        );
        assert_eq!(tickreel_batch_checkpoint(b, 7, 3), TickreelResult::Ok);
        assert_eq!(
            tickreel_batch_velocity(b, 7, 0.5, -0.25, 0.0),
            TickreelResult::Ok
        );
        // SAFETY: `data` has 3 readable bytes.
        let got = unsafe { tickreel_batch_custom(b, 1000, data.as_ptr(), 3) };
        assert_eq!(got, TickreelResult::Ok);
        // SAFETY: len 0 with NULL is allowed.
        let got = unsafe { tickreel_batch_custom(b, 1001, std::ptr::null(), 0) };
        assert_eq!(got, TickreelResult::Ok);
        assert_eq!(tickreel_batch_remove_entity(b, 9), TickreelResult::Ok);
        assert_eq!(tickreel_batch_player_leave(b, 7), TickreelResult::Ok);
        let mut n = 0;
        // SAFETY: `n` is writable.
        let got = unsafe { tickreel_batch_event_count(b, &mut n) };
        assert_eq!(got, TickreelResult::Ok);
        assert_eq!(n, 12);
        let expected = vec![
            Event::EntityAdd {
                entity: 7,
                kind: 122,
                pose: Pose::from_f64(1.5, 64.0, -3.25, 90.0, -10.0),
            },
            Event::Pose {
                entity: 7,
                pose: Pose::from_f64(1.0, 2.0, 3.0, 720.5, 45.0),
            },
            Event::Position {
                entity: 7,
                x: 2048,
                y: 1024,
                z: -512,
            },
            Event::Rotation {
                entity: 7,
                yaw: -16384,
                pitch: quantise_angle(12.5),
            },
            Event::Teleport {
                entity: 7,
                pose: Pose::from_f64(100.0, 70.0, 100.0, 0.0, 0.0),
            },
            Event::Flags {
                entity: 7,
                flags: 1 | 1 << 20,
            },
            Event::Checkpoint {
                entity: 7,
                index: 3,
            },
            Event::Velocity {
                entity: 7,
                x: 4000,
                y: -2000,
                z: 0,
            },
            Event::Custom {
                type_id: 1000,
                data: vec![1, 2, 3],
            },
            Event::Custom {
                type_id: 1001,
                data: vec![],
            },
            Event::EntityRemove { entity: 9 },
            Event::PlayerLeave { entity: 7 },
        ];
        let mut encoded = Vec::new();
        tickreel::format::event::encode_batch(&expected, &mut encoded).unwrap();
        let got = bytes_of(b);
        assert_eq!(got, encoded);
        assert_eq!(decode_batch(&got).unwrap(), expected);

        let mut small = [0u8; 4];
        let mut len = 0;
        // SAFETY: `small` has 4 writable bytes.
        let r = unsafe { tickreel_batch_bytes(b, small.as_mut_ptr(), 4, &mut len) };
        assert_eq!((r, len), (TickreelResult::BufferTooSmall, encoded.len()));

        assert_eq!(tickreel_batch_clear(b), TickreelResult::Ok);
        assert_eq!(bytes_of(b), vec![0, 0]);
        assert_eq!(tickreel_batch_free(b), TickreelResult::Ok);
        assert_eq!(tickreel_batch_clear(b), TickreelResult::InvalidHandle);
        assert_eq!(tickreel_batch_free(b), TickreelResult::InvalidHandle);
        assert_eq!(
            tickreel_batch_free(std::ptr::null_mut()),
            TickreelResult::Ok
        );
    }

    #[test]
    fn bad_values_are_refused_and_leave_the_batch_unchanged() {
        let b = new_batch();
        for v in [f64::NAN, f64::INFINITY, -f64::INFINITY, 1e300] {
            assert_eq!(
                tickreel_batch_add_pose(b, 1, v, 0.0, 0.0, 0.0, 0.0),
                TickreelResult::InvalidArgument
            );
            assert_eq!(
                tickreel_batch_add_rotation(b, 1, 0.0, v),
                TickreelResult::InvalidArgument
            );
            assert_eq!(
                tickreel_batch_velocity(b, 1, 0.0, v, 0.0),
                TickreelResult::InvalidArgument
            );
        }
        // SAFETY: NULL with a nonzero length must be refused before any read.
        let got = unsafe { tickreel_batch_custom(b, 1, std::ptr::null(), 5) };
        assert_eq!(got, TickreelResult::NullArgument);
        let big = vec![0u8; MAX_CUSTOM_EVENT_BYTES + 1];
        // SAFETY: `big` has that many readable bytes.
        let got = unsafe { tickreel_batch_custom(b, 1, big.as_ptr(), big.len()) };
        assert_eq!(got, TickreelResult::LimitExceeded);
        assert_eq!(bytes_of(b), vec![0, 0]);
        // SAFETY: a NULL out-pointer must be refused.
        let got = unsafe { tickreel_batch_new(std::ptr::null_mut()) };
        assert_eq!(got, TickreelResult::NullArgument);
        assert_eq!(
            tickreel_batch_flags(std::ptr::null_mut(), 1, 0),
            TickreelResult::NullArgument
        );
        tickreel_batch_free(b);
    }

    #[test]
    fn a_batch_holds_at_most_65535_events() {
        let b = new_batch();
        for _ in 0..MAX_EVENTS_PER_TICK {
            assert_eq!(tickreel_batch_flags(b, 1, 0), TickreelResult::Ok);
        }
        assert_eq!(tickreel_batch_flags(b, 1, 0), TickreelResult::LimitExceeded);
        assert_eq!(
            decode_batch(&bytes_of(b)).unwrap().len(),
            MAX_EVENTS_PER_TICK
        );
        tickreel_batch_free(b);
    }
}
