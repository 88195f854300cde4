//! The tick batch builder, for engines that would rather not encode events themselves: its C
//! type and flags (the operations are `crate::api::batch`, whose entry points are generated).
//!
//! A batch is one tick's events in the batch encoding of `format::event` (`u16` big-endian event
//! count, then each event as a kind byte and varint fields). Coordinates are given in blocks and
//! angles in degrees, as doubles, and quantised with the core's checks (`Pose::try_from_f64`: 1/4096
//! block, 1/65536 turn), so a non-finite or out-of-range value is `TICKREEL_RESULT_INVALID_ARGUMENT`.

/// The generated entry points of `crate::api::batch`, also reachable here.
pub use super::generated::batch::*;

/// A builder for one tick's event batch. Opaque: create with `tickreel_batch_new`, release with
/// `tickreel_batch_free`. The pointer is a handle, not an address: never dereference it.
pub struct TickreelBatch {
    _private: [u8; 0],
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
    use crate::ffi::result::TickreelResult;
    use tickreel::format::Pose;
    use tickreel::format::quantise_angle;
    use tickreel::format::{
        Event, MAX_CUSTOM_EVENT_BYTES, MAX_EVENTS_PER_TICK, decode_batch, flag,
    };

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
            tickreel_batch_entity_add(b, 7, 122, 1.5, 64.0, -3.25, 90.0, -10.0),
            TickreelResult::Ok
        );
        assert_eq!(
            tickreel_batch_pose(b, 7, 1.0, 2.0, 3.0, 720.5, 45.0),
            TickreelResult::Ok
        );
        assert_eq!(
            tickreel_batch_position(b, 7, 0.5, 0.25, -0.125),
            TickreelResult::Ok
        );
        assert_eq!(
            tickreel_batch_rotation(b, 7, -90.0, 12.5),
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
        assert_eq!(tickreel_batch_entity_remove(b, 9), TickreelResult::Ok);
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
        tickreel::format::encode_batch(&expected, &mut encoded).unwrap();
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
                tickreel_batch_pose(b, 1, v, 0.0, 0.0, 0.0, 0.0),
                TickreelResult::InvalidArgument
            );
            assert_eq!(
                tickreel_batch_rotation(b, 1, 0.0, v),
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
