//! Reading a finished recording: information, seeking to the state at a tick, verification.

use std::ffi::c_char;

use super::args::{self, Out, OutArray};
use super::handle::{self, HandleType};
use super::result::{FfiError, TickreelResult, guard};
use tickreel::play::Reader;

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

/// What `tickreel_reader_verify` checked.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TickreelVerifyReport {
    /// Chunks read, checksummed and decoded.
    pub chunks: u64,
    /// Ticks spanned by those chunks.
    pub ticks: u64,
    /// Pose samples decoded.
    pub pose_samples: u64,
    /// Non-pose events decoded.
    pub events: u64,
}

/// The object behind a reader handle.
pub(crate) struct ReaderObj {
    pub(crate) reader: Reader,
}

impl HandleType for ReaderObj {
    type Opaque = TickreelReader;
    const TAG: u8 = 3;
    const NAME: &'static str = "reader";
}

/// Opens a finished `.reel` file at `path` (a NUL-terminated path in the platform's encoding) and
/// stores the reader's handle in `*out_reader`. Reads and checks the header, metadata and index;
/// chunks are read when needed.
///
/// Returns `TICKREEL_RESULT_IO` if the file cannot be opened, `TICKREEL_RESULT_CORRUPT` for a file
/// that is not a tickreel recording or is damaged, `TICKREEL_RESULT_TRUNCATED` for a file cut
/// short, `TICKREEL_RESULT_UNSUPPORTED` for a newer format. On failure `*out_reader` is set to
/// NULL (when it can be written).
///
/// # Safety
/// `path` must be NULL or a NUL-terminated string; `out_reader` must be NULL or point to writable
/// storage for one pointer.
///
/// Thread safety: any thread. A reader may then be used from any number of threads at once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_reader_open(
    path: *const c_char,
    out_reader: *mut *mut TickreelReader,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one pointer.
        let out = unsafe { Out::new(out_reader, "out_reader") }?;
        out.set(std::ptr::null_mut());
        // SAFETY: caller contract: NULL or NUL-terminated.
        let path = unsafe { args::path(path, "path") }?;
        let reader = Reader::open_path(path)?;
        out.set(handle::insert(ReaderObj { reader })?);
        Ok(())
    })
}

/// Closes a reader. `tickreel_reader_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a
/// freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread. Calls on the same reader still running in other threads finish
/// normally (the file is closed after the last one); calls that start after this one get
/// `TICKREEL_RESULT_INVALID_HANDLE`.
#[unsafe(no_mangle)]
pub extern "C" fn tickreel_reader_free(reader: *mut TickreelReader) -> TickreelResult {
    guard(|| handle::remove::<ReaderObj>(reader).map(drop))
}

/// Runs `f` on the reader behind a handle and stores its result through a required out-pointer.
///
/// # Safety
/// `out` must be NULL or point to a writable `T`.
unsafe fn get<T>(
    reader: *mut TickreelReader,
    out: *mut T,
    name: &'static str,
    f: impl FnOnce(&Reader) -> tickreel::Result<T>,
) -> TickreelResult {
    guard(|| {
        // SAFETY: forwarded caller contract.
        let out = unsafe { Out::new(out, name) }?;
        let obj = handle::get::<ReaderObj>(reader)?;
        out.set(f(&obj.reader)?);
        Ok(())
    })
}

/// Stores the number of ticks the recording spans (last tick - first tick + 1; 0 when it is
/// empty) in `*out_ticks`.
///
/// # Safety
/// `out_ticks` must be NULL or point to a writable `uint32_t`.
///
/// Thread safety: any thread, concurrently with any other reader call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_reader_tick_count(
    reader: *mut TickreelReader,
    out_ticks: *mut u32,
) -> TickreelResult {
    // SAFETY: forwarded caller contract.
    unsafe {
        get(reader, out_ticks, "out_ticks", |r| {
            Ok(r.header().tick_count)
        })
    }
}

/// Stores the first recorded tick in `*out_tick`. Returns `TICKREEL_RESULT_INVALID_STATE` if the
/// recording has no ticks.
///
/// # Safety
/// `out_tick` must be NULL or point to a writable `uint32_t`.
///
/// Thread safety: any thread, concurrently with any other reader call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_reader_first_tick(
    reader: *mut TickreelReader,
    out_tick: *mut u32,
) -> TickreelResult {
    // SAFETY: forwarded caller contract.
    unsafe {
        get(reader, out_tick, "out_tick", |r| {
            r.first_tick().ok_or_else(no_ticks)
        })
    }
}

/// Stores the last recorded tick in `*out_tick`. Returns `TICKREEL_RESULT_INVALID_STATE` if the
/// recording has no ticks.
///
/// # Safety
/// `out_tick` must be NULL or point to a writable `uint32_t`.
///
/// Thread safety: any thread, concurrently with any other reader call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_reader_last_tick(
    reader: *mut TickreelReader,
    out_tick: *mut u32,
) -> TickreelResult {
    // SAFETY: forwarded caller contract.
    unsafe {
        get(reader, out_tick, "out_tick", |r| {
            r.last_tick().ok_or_else(no_ticks)
        })
    }
}

fn no_ticks() -> tickreel::Error {
    tickreel::Error::InvalidState("the recording has no ticks".into())
}

/// Stores the number of chunks (independently decodable pieces of about 10 s) in `*out_chunks`.
///
/// # Safety
/// `out_chunks` must be NULL or point to a writable `uint32_t`.
///
/// Thread safety: any thread, concurrently with any other reader call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_reader_chunk_count(
    reader: *mut TickreelReader,
    out_chunks: *mut u32,
) -> TickreelResult {
    // SAFETY: forwarded caller contract.
    unsafe {
        get(reader, out_chunks, "out_chunks", |r| {
            Ok(u32::try_from(r.index().len()).expect("the header's chunk count is a u32"))
        })
    }
}

/// Stores the recording's tick rate in ticks per second (e.g. 20.0) in `*out_rate`.
///
/// # Safety
/// `out_rate` must be NULL or point to a writable `double`.
///
/// Thread safety: any thread, concurrently with any other reader call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_reader_tick_rate(
    reader: *mut TickreelReader,
    out_rate: *mut f64,
) -> TickreelResult {
    // SAFETY: forwarded caller contract.
    unsafe { get(reader, out_rate, "out_rate", |r| Ok(r.tick_rate())) }
}

/// Computes the state of every live entity at `tick` (clamped into the recording) and copies it
/// into `states`, sorted by entity id. Decodes only the chunk holding the tick.
///
/// `*out_count` is always set to the number of entities at that tick. If it exceeds `capacity`,
/// nothing is copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned: call again with room
/// for `*out_count` states. `states` may be NULL when `capacity` is 0, to query the count.
/// `*out_tick` (if `out_tick` is not NULL) receives the tick actually used after clamping.
///
/// Returns `TICKREEL_RESULT_INVALID_STATE` if the recording has no ticks,
/// `TICKREEL_RESULT_CORRUPT`/`TICKREEL_RESULT_TRUNCATED` if the chunk is damaged.
///
/// # Safety
/// `states` must point to `capacity` writable `TickreelEntityState`s (or `capacity` must be 0);
/// `out_count` must be NULL or point to a writable `size_t`; `out_tick` must be NULL or point to a
/// writable `uint32_t`.
///
/// Thread safety: any thread, concurrently with any other reader call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_reader_seek(
    reader: *mut TickreelReader,
    tick: u32,
    states: *mut TickreelEntityState,
    capacity: usize,
    out_count: *mut usize,
    out_tick: *mut u32,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: `capacity` writable states at `states`, or capacity 0.
        let states = unsafe { OutArray::new(states, capacity, "states") }?;
        // SAFETY: caller contract: NULL or writable for one size_t.
        let out_count = unsafe { Out::new(out_count, "out_count") }?;
        // SAFETY: caller contract: NULL or writable for one u32.
        let out_tick = unsafe { Out::optional(out_tick, "out_tick") }?;
        let obj = handle::get::<ReaderObj>(reader)?;
        let state = obj.reader.seek(tick)?;
        let entities = &state.entities;
        out_count.set(entities.len());
        if let Some(t) = out_tick {
            t.set(state.tick);
        }
        if entities.len() > states.capacity() {
            return Err(FfiError::BufferTooSmall(format!(
                "{} entities at tick {}, room for {}",
                entities.len(),
                state.tick,
                states.capacity()
            )));
        }
        for (i, e) in entities.iter().enumerate() {
            states.set(
                i,
                TickreelEntityState {
                    id: e.id,
                    kind: e.kind,
                    flags: e.flags,
                    x: e.pose.x_f64(),
                    y: e.pose.y_f64(),
                    z: e.pose.z_f64(),
                    yaw: e.pose.yaw_deg(),
                    pitch: e.pose.pitch_deg(),
                },
            );
        }
        Ok(())
    })
}

/// Reads and decodes every chunk, checking checksums and the consistency of header and index.
/// Stores what was checked in `*out_report` (`out_report` may be NULL).
///
/// Returns `TICKREEL_RESULT_OK` if the file is sound, `TICKREEL_RESULT_CORRUPT` or
/// `TICKREEL_RESULT_TRUNCATED` (with the damaged chunk in the message) otherwise. Reads the
/// whole file: blocks for the I/O.
///
/// # Safety
/// `out_report` must be NULL or point to a writable `TickreelVerifyReport`.
///
/// Thread safety: any thread, concurrently with any other reader call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tickreel_reader_verify(
    reader: *mut TickreelReader,
    out_report: *mut TickreelVerifyReport,
) -> TickreelResult {
    guard(|| {
        // SAFETY: caller contract: NULL or writable for one report.
        let out = unsafe { Out::optional(out_report, "out_report") }?;
        let obj = handle::get::<ReaderObj>(reader)?;
        let r = obj.reader.verify()?;
        if let Some(out) = out {
            out.set(TickreelVerifyReport {
                chunks: r.chunks as u64,
                ticks: r.ticks,
                pose_samples: r.pose_samples,
                events: r.events,
            });
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::batch::*;
    use crate::ffi::writer::*;
    use std::ffi::CString;

    const OK: TickreelResult = TickreelResult::Ok;

    /// Records `ticks` ticks of two entities through the C functions and returns the path.
    fn record(dir: &std::path::Path, ticks: u32) -> CString {
        let path = CString::new(dir.join("t.reel").to_str().unwrap()).unwrap();
        let mut opts = std::mem::MaybeUninit::<TickreelWriterOptions>::uninit();
        // SAFETY: `opts` is writable storage for one options struct.
        let got = unsafe { tickreel_writer_options_default(opts.as_mut_ptr()) };
        assert_eq!(got, OK);
        // SAFETY: initialised by the call above.
        let mut opts = unsafe { opts.assume_init() };
        opts.chunk_ticks = 10;
        let mut w = std::ptr::null_mut();
        // SAFETY: valid string, options and out-pointer.
        let got = unsafe { tickreel_writer_create(path.as_ptr(), &opts, &mut w) };
        assert_eq!(got, OK);
        let mut b = std::ptr::null_mut();
        // SAFETY: `b` is writable.
        assert_eq!(unsafe { tickreel_batch_new(&mut b) }, OK);
        for t in 0..ticks {
            assert_eq!(tickreel_batch_clear(b), OK);
            for e in 1..=2u32 {
                let (x, yaw) = (f64::from(e) + f64::from(t) * 0.25, f64::from(t) * 22.5);
                let r = if t == 0 {
                    tickreel_batch_add_entity(b, e, 7, x, 64.0, 0.0, yaw, 0.0)
                } else {
                    tickreel_batch_add_pose(b, e, x, 64.0, 0.0, yaw, 0.0)
                };
                assert_eq!(r, OK);
            }
            assert_eq!(tickreel_batch_flags(b, 2, TICKREEL_FLAG_SNEAKING), OK);
            assert_eq!(tickreel_writer_write_batch(w, 100 + t, b), OK);
        }
        assert_eq!(tickreel_batch_free(b), OK);
        let mut size = 0;
        // SAFETY: `size` is writable.
        assert_eq!(unsafe { tickreel_writer_finish(w, &mut size) }, OK);
        assert!(size > 256);
        assert_eq!(tickreel_writer_free(w), OK);
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
