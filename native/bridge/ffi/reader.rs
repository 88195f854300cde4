//! Reading a finished recording: the C types of the reader operations (`crate::api::reader`,
//! whose entry points are generated) and how their results cross into C.

use super::args::OutArray;
use super::convert::{CArrayExtra, CArrayResult, CResult};
use super::result::FfiResult;
use crate::api::playhead::EntityStates;
use tickreel::format::EntityState;
use tickreel::play::SeekState;

/// An open recording. Opaque: open with `tickreel_reader_open`, release with
/// `tickreel_reader_free`. The pointer is a handle, not an address: never dereference it.
pub struct TickreelReader {
    _private: [u8; 0],
}

/// One entity's state at a tick, as filled in by `tickreel_reader_seek`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TickreelEntityState {
    /// The entity id the game gave it.
    pub id: u32,
    /// Game-defined kind (e.g. an entity type id), as given when it was added.
    pub kind: u32,
    /// State flags (`TICKREEL_FLAG_*` bits and the game's own).
    pub flags: u32,
    /// Position in blocks (exact multiples of 1/4096).
    pub x: f64,
    /// Height in blocks.
    pub y: f64,
    /// Position in blocks.
    pub z: f64,
    /// Yaw in degrees, unbounded (as recorded).
    pub yaw: f64,
    /// Pitch in degrees.
    pub pitch: f64,
}

/// The C form of an entity's state.
pub(crate) fn entity_state(e: &EntityState) -> TickreelEntityState {
    TickreelEntityState {
        id: e.id,
        kind: e.kind,
        flags: e.flags,
        x: e.pose.x_f64(),
        y: e.pose.y_f64(),
        z: e.pose.z_f64(),
        yaw: e.pose.yaw_deg(),
        pitch: e.pose.pitch_deg(),
    }
}

/// Entity states (a seek, the playhead's live entities, those a jump added), as C reads them.
impl<T: EntityStates> CArrayResult for T {
    type Item = TickreelEntityState;
    fn len(&self) -> usize {
        self.states().len()
    }
    fn write(self, out: &OutArray<TickreelEntityState>) {
        for (i, e) in self.states().iter().enumerate() {
            out.set(i, entity_state(e));
        }
    }
    fn describe(&self) -> String {
        EntityStates::describe(self)
    }
}

/// The tick actually used, after clamping.
impl CArrayExtra for SeekState {
    type C = u32;
    fn extra(&self) -> u32 {
        self.tick
    }
}

/// A palette name as C receives it (`c_out_string`): empty when the id has none.
impl CResult for crate::api::reader::PaletteName {
    type C = Vec<u8>;
    fn into_c(self) -> FfiResult<Vec<u8>> {
        Ok(self.0.map(String::into_bytes).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::batch::*;
    use crate::ffi::generated::reader::*;
    use crate::ffi::generated::records::TickreelVerifyReport;
    use crate::ffi::result::TickreelResult;
    use crate::ffi::writer::*;
    use std::ffi::CString;

    const OK: TickreelResult = TickreelResult::Ok;

    /// Records `ticks` ticks of two entities through the C functions and returns the path.
    fn record(dir: &std::path::Path, ticks: u32) -> CString {
        let path = CString::new(dir.join("t.reel").to_str().unwrap()).unwrap();
        let w = crate::ffi::writer::writer(&path, 10, 600);
        // User metadata from C: an NBT root compound.
        let nbt = fastnbt::to_bytes(&std::collections::HashMap::from([(
            "map",
            fastnbt::Value::String("spawn-island".into()),
        )]))
        .unwrap();
        // SAFETY: `nbt` is readable for its length.
        let got = unsafe { tickreel_reel_writer_set_user_metadata(w, nbt.as_ptr(), nbt.len()) };
        assert_eq!(got, OK);
        let reserved = fastnbt::to_bytes(&std::collections::HashMap::from([(
            "tickreel",
            fastnbt::Value::Int(1),
        )]))
        .unwrap();
        // SAFETY: `reserved` is readable for its length.
        let got =
            unsafe { tickreel_reel_writer_set_user_metadata(w, reserved.as_ptr(), reserved.len()) };
        assert_eq!(got, TickreelResult::InvalidArgument);
        let mut b = std::ptr::null_mut();
        // SAFETY: `b` is writable.
        assert_eq!(unsafe { tickreel_batch_new(&mut b) }, OK);
        for t in 0..ticks {
            assert_eq!(tickreel_batch_clear(b), OK);
            for e in 1..=2u32 {
                let (x, yaw) = (f64::from(e) + f64::from(t) * 0.25, f64::from(t) * 22.5);
                let r = if t == 0 {
                    tickreel_batch_entity_add(b, e, 7, x, 64.0, 0.0, yaw, 0.0)
                } else {
                    tickreel_batch_pose(b, e, x, 64.0, 0.0, yaw, 0.0)
                };
                assert_eq!(r, OK);
            }
            assert_eq!(tickreel_batch_flags(b, 2, TICKREEL_FLAG_SNEAKING), OK);
            assert_eq!(tickreel_reel_writer_write_batch(w, 100 + t, b), OK);
        }
        assert_eq!(tickreel_batch_free(b), OK);
        let mut size = 0;
        // SAFETY: `size` is writable.
        assert_eq!(unsafe { tickreel_reel_writer_finish(w, &mut size) }, OK);
        assert!(size > 256);
        assert_eq!(tickreel_reel_writer_free(w), OK);
        path
    }

    fn open(path: &CString) -> *mut TickreelReader {
        let mut r = std::ptr::null_mut();
        // SAFETY: valid string and out-pointer.
        assert_eq!(unsafe { tickreel_reader_open(path.as_ptr(), &mut r) }, OK);
        r
    }

    #[test]
    fn what_the_writer_wrote_the_reader_seeks() {
        let dir = tempfile::tempdir().unwrap();
        let path = record(dir.path(), 35);
        let r = open(&path);
        let (mut first, mut last, mut ticks, mut chunks, mut rate) = (0, 0, 0, 0, 0.0);
        // SAFETY: every out-pointer is a writable local.
        unsafe {
            assert_eq!(tickreel_reader_first_tick(r, &mut first), OK);
            assert_eq!(tickreel_reader_last_tick(r, &mut last), OK);
            assert_eq!(tickreel_reader_tick_count(r, &mut ticks), OK);
            assert_eq!(tickreel_reader_chunk_count(r, &mut chunks), OK);
            assert_eq!(tickreel_reader_tick_rate(r, &mut rate), OK);
        }
        assert_eq!((first, last, ticks, chunks, rate), (100, 134, 35, 4, 20.0));

        let mut states = [TickreelEntityState {
            id: 0,
            kind: 0,
            flags: 0,
            x: 0.0,
            y: 0.0,
            z: 0.0,
            yaw: 0.0,
            pitch: 0.0,
        }; 2];
        let (mut count, mut at) = (0, 0);
        // SAFETY: `states` has room for 1 (capacity 1 < 2 entities: nothing is written).
        let res =
            unsafe { tickreel_reader_seek(r, 120, states.as_mut_ptr(), 1, &mut count, &mut at) };
        assert_eq!((res, count, at), (TickreelResult::BufferTooSmall, 2, 120));
        // SAFETY: `states` has room for 2.
        let res =
            unsafe { tickreel_reader_seek(r, 120, states.as_mut_ptr(), 2, &mut count, &mut at) };
        assert_eq!(res, OK);
        assert_eq!((states[0].id, states[0].kind, states[0].flags), (1, 7, 0));
        assert_eq!((states[1].id, states[1].flags), (2, TICKREEL_FLAG_SNEAKING));
        assert_eq!(
            (states[1].x, states[1].y, states[1].yaw),
            (7.0, 64.0, 450.0)
        );

        // The ticks with their events: 35 ticks of two poses (and a flags event), in order.
        let mut len = 0;
        // SAFETY: capacity 0 with NULL is a length query.
        let res = unsafe { tickreel_reader_ticks(r, 100, 134, std::ptr::null_mut(), 0, &mut len) };
        assert_eq!(res, TickreelResult::BufferTooSmall);
        let mut buf = vec![0u8; len];
        // SAFETY: `buf` has room for `len` bytes.
        let res = unsafe { tickreel_reader_ticks(r, 100, 134, buf.as_mut_ptr(), len, &mut len) };
        assert_eq!(res, OK);
        let (mut at, mut seen) = (0, Vec::new());
        while at < buf.len() {
            let tick = u32::from_be_bytes(buf[at..at + 4].try_into().unwrap());
            let n = u32::from_be_bytes(buf[at + 4..at + 8].try_into().unwrap()) as usize;
            let events = tickreel::format::decode_batch(&buf[at + 8..at + 8 + n]).unwrap();
            seen.push((tick, events.len()));
            at += 8 + n;
        }
        assert_eq!(seen.len(), 35);
        assert_eq!((seen[0].0, seen[34].0), (100, 134));
        assert!(seen.iter().all(|&(_, n)| n >= 2), "{seen:?}");
        // SAFETY: `len` is writable; no buffer needed for the refusal.
        let res = unsafe { tickreel_reader_ticks(r, 5, 4, std::ptr::null_mut(), 0, &mut len) };
        assert_eq!(res, TickreelResult::InvalidArgument);

        // The metadata, as an NBT root compound with the library's own "tickreel" compound.
        let mut len = 0;
        // SAFETY: capacity 0 with NULL is a length query; `len` is writable.
        let res = unsafe { tickreel_reader_metadata(r, std::ptr::null_mut(), 0, &mut len) };
        assert_eq!(res, TickreelResult::BufferTooSmall);
        let mut nbt = vec![0u8; len];
        // SAFETY: `nbt` has room for `len` bytes.
        let res = unsafe { tickreel_reader_metadata(r, nbt.as_mut_ptr(), len, &mut len) };
        assert_eq!((res, len), (OK, nbt.len()));
        assert_eq!(nbt[0], 10, "an NBT compound");
        let root = tickreel::format::Metadata::decode(&nbt).unwrap();
        assert!(root.encode().unwrap() == nbt);
        assert!(
            nbt.windows(12).any(|w| w == b"spawn-island"),
            "the metadata tickreel_reel_writer_set_user_metadata added is read back"
        );

        let mut report = TickreelVerifyReport::default();
        // SAFETY: `report` is writable.
        assert_eq!(unsafe { tickreel_reader_verify(r, &mut report) }, OK);
        assert_eq!((report.chunks, report.ticks), (4, 35));
        assert_eq!(tickreel_reader_free(r), OK);
        assert_eq!(tickreel_reader_free(r), TickreelResult::InvalidHandle);
    }

    #[test]
    fn a_reader_serves_many_threads_and_survives_a_free_during_use() {
        let dir = tempfile::tempdir().unwrap();
        let path = record(dir.path(), 60);
        let r = open(&path);
        let token = r.addr();
        let workers: Vec<_> = (0..4)
            .map(|i| {
                std::thread::spawn(move || {
                    let r = std::ptr::without_provenance_mut::<TickreelReader>(token);
                    for t in 0..200u32 {
                        let mut count = 0;
                        // SAFETY: capacity 0 with NULL is a size query; `count` is writable.
                        let res = unsafe {
                            tickreel_reader_seek(
                                r,
                                100 + (t * 7 + i) % 60,
                                std::ptr::null_mut(),
                                0,
                                &mut count,
                                std::ptr::null_mut(),
                            )
                        };
                        match res {
                            TickreelResult::BufferTooSmall => {
                                assert_eq!(count, 2)
                            }
                            // Freed by the main thread meanwhile: every later call says so.
                            TickreelResult::InvalidHandle => break,
                            other => panic!("unexpected {other:?}"),
                        }
                    }
                })
            })
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(tickreel_reader_free(r), OK);
        for w in workers {
            w.join().expect("a worker saw an unexpected result");
        }
        let mut ticks = 0;
        // SAFETY: `ticks` is writable; the handle is stale and must be refused.
        let res = unsafe { tickreel_reader_tick_count(r, &mut ticks) };
        assert_eq!(res, TickreelResult::InvalidHandle);
    }
}
