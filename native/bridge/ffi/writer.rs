//! The compacted-file writer (`ReelWriter`): ticks go straight into a finished `.reel` file,
//! encoded and compressed on the calling thread. For recording a live server with almost no cost
//! on the server thread, use the recorder instead. Here: the writer's C types (the operations are
//! `crate::api::writer`, whose entry points are generated; its options are a builder,
//! `crate::api::reel_options`).

/// The generated entry points of `crate::api::writer`, also reachable here.
pub use super::generated::writer::*;

/// A writer of one compacted `.reel` file. Opaque: create with `tickreel_reel_writer_create`, release
/// with `tickreel_reel_writer_free`. The pointer is a handle, not an address: never dereference it.
pub struct TickreelReelWriter {
    _private: [u8; 0],
}

/// A writer created through the options builder, for the other modules' tests.
#[cfg(test)]
pub(crate) use tests::writer;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::generated::reel_options::*;
    use crate::ffi::options::TickreelReelOptions;
    use crate::ffi::result::{TickreelResult, tickreel_last_error_message};
    use std::ffi::{CStr, CString};

    const OK: TickreelResult = TickreelResult::Ok;

    fn last_message() -> String {
        // SAFETY: the thread's last message: a NUL-terminated string valid until its next call.
        unsafe { CStr::from_ptr(tickreel_last_error_message()) }
            .to_string_lossy()
            .into_owned()
    }

    fn options() -> *mut TickreelReelOptions {
        let mut o = std::ptr::null_mut();
        // SAFETY: `o` is writable.
        assert_eq!(unsafe { tickreel_reel_options_new(&mut o) }, OK);
        o
    }

    /// A writer at `path` with chunks of at most `chunk_ticks` ticks and a snapshot every
    /// `snapshot_interval` ticks, created through the options builder (freed after the create).
    pub(crate) fn writer(
        path: &CStr,
        chunk_ticks: u32,
        snapshot_interval: u32,
    ) -> *mut TickreelReelWriter {
        let o = options();
        assert_eq!(tickreel_reel_options_set_chunk_ticks(o, chunk_ticks), OK);
        assert_eq!(
            tickreel_reel_options_set_snapshot_interval(o, snapshot_interval),
            OK
        );
        let mut w = std::ptr::null_mut();
        // SAFETY: valid string, options and out-pointer.
        let got = unsafe { tickreel_reel_writer_create(path.as_ptr(), o, &mut w) };
        assert_eq!(got, OK, "{}", last_message());
        assert_eq!(tickreel_reel_options_free(o), OK);
        w
    }

    /// Each setter reaches the file; the handle stays usable after a create; what is out of the
    /// setter's type is refused by it, what is out of the core's ranges by the create, each
    /// naming the setter; NULL is the defaults; another type's handle is refused.
    #[test]
    fn reel_options_are_set_one_by_one_and_checked_by_the_core() {
        let dir = tempfile::tempdir().unwrap();
        let o = options();
        let world = [7u8; 16];
        assert_eq!(tickreel_reel_options_set_tick_rate_millihz(o, 30_000), OK);
        assert_eq!(tickreel_reel_options_set_game_data_version(o, 3955), OK);
        assert_eq!(
            tickreel_reel_options_set_timestamp_ms(o, 1_700_000_000_000),
            OK
        );
        // SAFETY: `world` is 16 readable bytes; NULL is all zero.
        unsafe {
            assert_eq!(tickreel_reel_options_set_world_id(o, world.as_ptr()), OK);
            assert_eq!(
                tickreel_reel_options_set_world_version(o, std::ptr::null()),
                OK
            );
        }
        assert_eq!(tickreel_reel_options_set_zstd_level(o, 1), OK);
        assert_eq!(tickreel_reel_options_set_chunk_bytes(o, 4096), OK);
        assert_eq!(
            tickreel_reel_options_set_dictionary_id(o, 70_000),
            TickreelResult::InvalidArgument
        );
        let msg = last_message();
        assert!(
            msg.contains("dictionary_id must be between 0 and 65535"),
            "{msg}"
        );
        for name in ["a.reel", "b.reel"] {
            let path = CString::new(dir.path().join(name).to_str().unwrap()).unwrap();
            let mut w = std::ptr::null_mut();
            // SAFETY: valid string, options and out-pointer.
            let got = unsafe { tickreel_reel_writer_create(path.as_ptr(), o, &mut w) };
            assert_eq!(got, OK);
            let tick = [0u8, 0];
            // SAFETY: `tick` is 2 readable bytes (an empty batch).
            assert_eq!(
                unsafe { tickreel_reel_writer_write_tick(w, 0, tick.as_ptr(), 2) },
                OK
            );
            let mut size = 0;
            // SAFETY: `size` is writable.
            assert_eq!(unsafe { tickreel_reel_writer_finish(w, &mut size) }, OK);
            assert_eq!(tickreel_reel_writer_free(w), OK);
            let r = tickreel::play::Reader::open_path(dir.path().join(name)).unwrap();
            let h = r.header();
            assert_eq!(
                (h.tick_rate_millihz, h.game_data_version, h.timestamp_ms),
                (30_000, 3955, 1_700_000_000_000)
            );
            assert_eq!((h.world_id, h.world_version), (world, [0; 16]));
        }
        // Out of the core's ranges: the create refuses, naming the setter.
        let path = CString::new(dir.path().join("c.reel").to_str().unwrap()).unwrap();
        type Set = fn(*mut TickreelReelOptions) -> TickreelResult;
        let set: [(Set, &str); 3] = [
            (
                |o| tickreel_reel_options_set_chunk_ticks(o, 0),
                "chunk_ticks",
            ),
            (
                |o| tickreel_reel_options_set_snapshot_interval(o, 0),
                "snapshot_interval",
            ),
            (
                |o| tickreel_reel_options_set_tick_rate_millihz(o, 0),
                "tick_rate_millihz",
            ),
        ];
        for (set, name) in set {
            let bad = options();
            assert_eq!(set(bad), OK);
            let mut w = std::ptr::null_mut();
            // SAFETY: valid string, options and out-pointer.
            let got = unsafe { tickreel_reel_writer_create(path.as_ptr(), bad, &mut w) };
            assert_eq!(got, TickreelResult::InvalidArgument, "{name}");
            let msg = last_message();
            assert!(msg.contains(name), "{name}: {msg}");
            assert!(w.is_null());
            assert_eq!(tickreel_reel_options_free(bad), OK);
        }
        assert_eq!(tickreel_reel_options_set_zstd_level(o, 99), OK);
        let mut w = std::ptr::null_mut();
        // SAFETY: valid string, options and out-pointer.
        let got = unsafe { tickreel_reel_writer_create(path.as_ptr(), o, &mut w) };
        assert_eq!(got, TickreelResult::InvalidArgument);
        assert!(last_message().contains("zstd_level must be between"));
        // NULL: the defaults for a finished file.
        // SAFETY: valid string and out-pointer; NULL options.
        let got =
            unsafe { tickreel_reel_writer_create(path.as_ptr(), std::ptr::null_mut(), &mut w) };
        assert_eq!(got, OK);
        assert_eq!(tickreel_reel_writer_free(w), OK);
        // A writer's handle where options are expected.
        let mut w2 = std::ptr::null_mut();
        // SAFETY: valid string and out-pointer; the options handle is a writer's (freed: stale).
        let got = unsafe { tickreel_reel_writer_create(path.as_ptr(), w.cast(), &mut w2) };
        assert_eq!(got, TickreelResult::InvalidHandle);
        assert_eq!(tickreel_reel_options_free(o), OK);
        assert_eq!(tickreel_reel_options_free(std::ptr::null_mut()), OK);
    }
}
