//! The options of a recording: `TickreelRecorderOptions` and its `TICKREEL_BACKPRESSURE_*`
//! policies, their defaults (`tickreel_recorder_options_default`) and their checks and conversion
//! to the core's `RecorderOptions` (for `tickreel_recorder_start`).

use std::time::Duration;

use super::read_options;
use crate::ffi::convert::{CArg, CResult};
/// Generated from `native/bridge/options.rs` (see [`crate::ffi::options`]).
pub use crate::ffi::options::TickreelRecorderOptions;
use crate::ffi::result::{FfiError, FfiResult};
use tickreel::record::{
    Backpressure, ChunkPolicy, CompactOptions, DEFAULT_BLOCK_DEADLINE, FlushPolicy, OnExisting,
    RecorderOptions, RecordingIdentity,
};

/// `TickreelRecorderOptions.backpressure`: when the writer falls behind, wait up to
/// `block_deadline_ms` for room (default 1 ms), then drop the tick (counted, recorded as a gap)
/// and return `TICKREEL_RESULT_BACKPRESSURE`. The default.
pub const TICKREEL_BACKPRESSURE_BLOCK: u32 = 0;
/// `TickreelRecorderOptions.backpressure`: when the writer falls behind, drop the tick at once
/// (counted, recorded as a gap); `tickreel_recorder_submit_tick` returns `TICKREEL_RESULT_OK`
/// and sets `*out_dropped` to true.
pub const TICKREEL_BACKPRESSURE_DROP: u32 = 1;

/// `TickreelRecorderOptions.on_existing`: continue a live recording of the path (a stopped or
/// crashed server's) after its last tick; a tick at or before it is refused.
pub const TICKREEL_ON_EXISTING_RESUME: u32 = 0;
/// `TickreelRecorderOptions.on_existing`: keep a live recording of the path aside (its live
/// directory renamed to that of `STEM.previous-N.EXT`, never deleted; `tickreel recover` finishes
/// it) and start a new one, whose ticks may start again at 0. The default.
pub const TICKREEL_ON_EXISTING_START_FRESH: u32 = 1;
/// `TickreelRecorderOptions.on_existing`: refuse to start where a live recording of the path
/// exists (`TICKREEL_RESULT_IO`, "already exists", naming the live directory).
pub const TICKREEL_ON_EXISTING_REFUSE: u32 = 2;

impl TickreelRecorderOptions {
    fn from_core(o: &RecorderOptions) -> Self {
        let (backpressure, deadline) = match o.backpressure {
            Backpressure::Block { deadline } => (TICKREEL_BACKPRESSURE_BLOCK, deadline),
            Backpressure::Drop => (TICKREEL_BACKPRESSURE_DROP, DEFAULT_BLOCK_DEADLINE),
        };
        let ms = |d: Duration| u32::try_from(d.as_millis()).unwrap_or(u32::MAX);
        TickreelRecorderOptions {
            tick_rate_millihz: o.identity.tick_rate_millihz,
            game_data_version: o.identity.game_data_version,
            timestamp_ms: o.identity.timestamp_ms,
            world_id: o.identity.world_id,
            world_version: o.identity.world_version,
            dictionary_id: o.identity.dictionary_id,
            chunk_ticks: o.chunk.chunk_ticks,
            snapshot_interval: o.chunk.snapshot_interval,
            zstd_level: o.chunk.zstd_level,
            flush_interval_ms: ms(o.flush.interval),
            flush_max_pending_bytes: o.flush.max_pending_bytes,
            flush_on_player_leave: u32::from(o.flush.on_player_leave),
            backpressure,
            block_deadline_ms: ms(deadline),
            compaction_zstd_level: o.compaction.zstd_level,
            compaction_chunk_ticks: o.compaction.chunk_ticks,
            compaction_verify: u32::from(o.compaction.verify),
            max_batch_bytes: o.max_batch_bytes,
            overwrite: u32::from(o.overwrite),
            on_existing: match o.on_existing {
                OnExisting::Resume => TICKREEL_ON_EXISTING_RESUME,
                OnExisting::StartFresh => TICKREEL_ON_EXISTING_START_FRESH,
                OnExisting::Refuse => TICKREEL_ON_EXISTING_REFUSE,
            },
        }
    }

    /// A translation only: `Engine::start_recording` checks the values (`RecordingIdentity`,
    /// `ChunkPolicy`, `RecorderOptions` and `CompactOptions::validate`).
    pub(super) fn to_core(self) -> FfiResult<RecorderOptions> {
        let bad = |m: String| Err(FfiError::Invalid(m));
        let d = RecorderOptions::default();
        let backpressure = match self.backpressure {
            TICKREEL_BACKPRESSURE_BLOCK => Backpressure::Block {
                deadline: Duration::from_millis(u64::from(self.block_deadline_ms)),
            },
            TICKREEL_BACKPRESSURE_DROP => Backpressure::Drop,
            other => {
                return bad(format!(
                    "options.backpressure {other} is neither TICKREEL_BACKPRESSURE_BLOCK nor \
                     TICKREEL_BACKPRESSURE_DROP"
                ));
            }
        };
        let on_existing = match self.on_existing {
            TICKREEL_ON_EXISTING_RESUME => OnExisting::Resume,
            TICKREEL_ON_EXISTING_START_FRESH => OnExisting::StartFresh,
            TICKREEL_ON_EXISTING_REFUSE => OnExisting::Refuse,
            other => {
                return bad(format!(
                    "options.on_existing {other} is none of TICKREEL_ON_EXISTING_RESUME, \
                     TICKREEL_ON_EXISTING_START_FRESH and TICKREEL_ON_EXISTING_REFUSE"
                ));
            }
        };
        Ok(RecorderOptions {
            identity: RecordingIdentity {
                world_id: self.world_id,
                world_version: self.world_version,
                timestamp_ms: self.timestamp_ms,
                tick_rate_millihz: self.tick_rate_millihz,
                game_data_version: self.game_data_version,
                dictionary_id: self.dictionary_id,
            },
            chunk: ChunkPolicy {
                chunk_ticks: self.chunk_ticks,
                snapshot_interval: self.snapshot_interval,
                zstd_level: self.zstd_level,
                // Not in the C struct: the core's default (every field named, so that one added
                // to the core is a decision here too).
                chunk_bytes: d.chunk.chunk_bytes,
            },
            flush: FlushPolicy {
                max_pending_bytes: self.flush_max_pending_bytes,
                interval: Duration::from_millis(u64::from(self.flush_interval_ms)),
                on_player_leave: self.flush_on_player_leave != 0,
            },
            backpressure,
            compaction: CompactOptions {
                zstd_level: self.compaction_zstd_level,
                chunk_ticks: self.compaction_chunk_ticks,
                verify: self.compaction_verify != 0,
                dictionary_id: d.compaction.dictionary_id,
                overwrite: d.compaction.overwrite,
            },
            snapshot_provider: None,
            max_batch_bytes: self.max_batch_bytes,
            overwrite: self.overwrite != 0,
            on_existing,
            observers: Vec::new(),
            // not in C's options yet (issue 35): Rust's RecorderOptions::server
            server: None,
        })
    }
}

/// The caller's options (NULL: `tickreel_recorder_options_default`'s).
impl CArg for RecorderOptions {
    type C = *const TickreelRecorderOptions;
    type Stored = RecorderOptions;
    unsafe fn store(
        options: *const TickreelRecorderOptions,
        _: &'static str,
    ) -> FfiResult<RecorderOptions> {
        // SAFETY: forwarded contract: NULL or a readable options struct.
        match unsafe { read_options(options) }? {
            Some(o) => o.to_core(),
            None => Ok(RecorderOptions::default()),
        }
    }
}

impl CResult for RecorderOptions {
    type C = TickreelRecorderOptions;
    fn into_c(self) -> FfiResult<TickreelRecorderOptions> {
        Ok(TickreelRecorderOptions::from_core(&self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::engine::Engine;
    use crate::ffi::engine::tests::{engine, recorder_options, start, stats};
    use crate::ffi::engine::*;
    use crate::ffi::handle;
    use crate::ffi::result::TickreelResult;
    use std::ffi::CString;

    const OK: TickreelResult = TickreelResult::Ok;

    #[test]
    fn backpressure_drops_or_fails_by_policy() {
        let dir = tempfile::tempdir().unwrap();
        let mut eo = std::mem::MaybeUninit::uninit();
        // SAFETY: writable storage for one options struct.
        assert_eq!(
            unsafe { tickreel_engine_options_default(eo.as_mut_ptr()) },
            OK
        );
        // SAFETY: initialised above.
        let mut eo = unsafe { eo.assume_init() };
        eo.queue_capacity = 2;
        let tick = [0u8, 0];
        for (name, policy) in [
            ("drop.reel", TICKREEL_BACKPRESSURE_DROP),
            ("block.reel", TICKREEL_BACKPRESSURE_BLOCK),
        ] {
            // One engine each: starting a recording queues its opening, which waits while the
            // queue is full.
            let e = engine(Some(eo));
            let obj = handle::get::<Engine>(e).unwrap();
            obj.with(|e| {
                e.set_writers_stalled(true);
                Ok(())
            })
            .unwrap();
            let path = CString::new(dir.path().join(name).to_str().unwrap()).unwrap();
            let mut o = recorder_options();
            o.backpressure = policy;
            o.block_deadline_ms = 1;
            let r = start(e, &path, &o);
            let mut outcomes = Vec::new();
            for t in 0..6 {
                let mut dropped = false;
                // SAFETY: `tick` has 2 readable bytes; `dropped` is writable.
                let res =
                    unsafe { tickreel_recorder_submit_tick(r, t, tick.as_ptr(), 2, &mut dropped) };
                outcomes.push((res, dropped));
            }
            let want = if policy == TICKREEL_BACKPRESSURE_DROP {
                (OK, true)
            } else {
                (TickreelResult::Backpressure, true)
            };
            assert!(outcomes.contains(&want), "{name}: {outcomes:?}");
            assert!(outcomes.contains(&(OK, false)), "{name}: {outcomes:?}");
            let s = stats(r);
            assert_eq!(s.dropped_ticks + s.submitted_ticks, 6, "{s:?}");
            assert!(s.dropped_ticks > 0);
            // Unstall so that the writer takes the queued ticks and the close.
            obj.with(|e| {
                e.set_writers_stalled(false);
                Ok(())
            })
            .unwrap();
            assert_eq!(tickreel_recorder_free(r), OK);
            drop(obj);
            assert_eq!(tickreel_engine_free(e), OK);
        }
    }

    #[test]
    fn bad_options_are_refused() {
        let e = engine(None);
        let path = c"x.reel";
        let mut r = std::ptr::null_mut();
        for change in [
            |o: &mut TickreelRecorderOptions| o.backpressure = 7,
            |o: &mut TickreelRecorderOptions| o.on_existing = 3,
            |o: &mut TickreelRecorderOptions| o.zstd_level = 99,
            |o: &mut TickreelRecorderOptions| o.flush_interval_ms = 0,
            |o: &mut TickreelRecorderOptions| o.compaction_chunk_ticks = 0,
        ] {
            let mut o = recorder_options();
            change(&mut o);
            // SAFETY: valid string, options and out-pointer.
            let res = unsafe { tickreel_recorder_start(e, path.as_ptr(), &o, &mut r) };
            assert_eq!(res, TickreelResult::InvalidArgument);
            assert!(r.is_null());
        }
        assert_eq!(tickreel_engine_free(e), OK);
    }
}
