//! The options of shadow play: `TickreelShadowOptions` (what a shadow buffer keeps, for
//! `tickreel_shadow_buffer_start`) and `TickreelReportOptions` (what a report holds, for
//! `tickreel_shadow_buffer_report`), their defaults and their conversion to the core's `ShadowOptions`
//! and `ReportOptions`. The core checks the values (`ShadowOptions::validate`,
//! `ReportOptions::validate`): the C layer only translates.

use std::time::Duration;

use super::read_options;
use crate::api::shadow::{report_chat, report_chat_code};
use crate::ffi::convert::{CArg, CResult};
/// Generated from `native/bridge/options.rs` (see [`crate::ffi::options`]).
pub use crate::ffi::options::{TickreelReportOptions, TickreelShadowOptions};
use crate::ffi::result::FfiResult;
use tickreel::shadow::{ReportKeep, ReportOptions, ShadowOptions};

/// `TickreelReportOptions::chat`: the reported player's lines (any channel) and the public lines
/// of players within the radius at the tick they sent them (the default).
pub const TICKREEL_REPORT_CHAT_NEAR: u32 = 0;
/// `TickreelReportOptions::chat`: also every public and system line of the server, wherever its
/// sender stood; still no private or team line of others.
pub const TICKREEL_REPORT_CHAT_PUBLIC: u32 = 1;
/// `TickreelReportOptions::chat`: every chat line of the window, private and team chat of others
/// too (for a server whose rules let staff read them).
pub const TICKREEL_REPORT_CHAT_ALL: u32 = 2;

impl TickreelShadowOptions {
    fn from_core(o: &ShadowOptions) -> Self {
        TickreelShadowOptions {
            window_ms: ms(o.window),
            grace_ms: ms(o.grace),
            max_bytes: o.max_bytes.unwrap_or(0),
            block_ticks: o.block_ticks,
        }
    }

    /// The core's options (checked by `ShadowBuffer::start`).
    fn to_core(self) -> ShadowOptions {
        ShadowOptions {
            window: Duration::from_millis(u64::from(self.window_ms)),
            grace: Duration::from_millis(u64::from(self.grace_ms)),
            max_bytes: (self.max_bytes != 0).then_some(self.max_bytes),
            block_ticks: self.block_ticks,
        }
    }
}

impl TickreelReportOptions {
    fn from_core(o: &ReportOptions) -> Self {
        TickreelReportOptions {
            has_before: u32::from(o.before.is_some()),
            before_ms: o.before.map_or(0, ms),
            after_ms: ms(o.after),
            has_radius: u32::from(o.radius.is_some()),
            radius: o.radius.unwrap_or(0.0),
            overwrite: u32::from(o.overwrite),
            zstd_level: o.zstd_level,
            keep_all_blocks: u32::from(o.keep.all_blocks),
            chat: report_chat_code(o.keep.chat),
        }
    }

    /// The core's options with `metadata` (checked by `ShadowBuffer::report`; an unknown `chat`
    /// code is refused here).
    fn to_core(self, metadata: Vec<(String, fastnbt::Value)>) -> tickreel::Result<ReportOptions> {
        Ok(ReportOptions {
            before: (self.has_before != 0)
                .then(|| Duration::from_millis(u64::from(self.before_ms))),
            after: Duration::from_millis(u64::from(self.after_ms)),
            radius: (self.has_radius != 0).then_some(self.radius),
            metadata,
            overwrite: self.overwrite != 0,
            zstd_level: self.zstd_level,
            keep: ReportKeep {
                all_blocks: self.keep_all_blocks != 0,
                chat: report_chat(self.chat)?,
            },
        })
    }
}

fn ms(d: Duration) -> u32 {
    u32::try_from(d.as_millis()).unwrap_or(u32::MAX)
}

/// The caller's options (NULL: `tickreel_shadow_options_default`'s).
impl CArg for ShadowOptions {
    type C = *const TickreelShadowOptions;
    type Stored = ShadowOptions;
    unsafe fn store(o: *const TickreelShadowOptions, _: &'static str) -> FfiResult<ShadowOptions> {
        // SAFETY: forwarded contract: NULL or a readable options struct.
        Ok(unsafe { read_options(o) }?.map_or_else(ShadowOptions::default, |o| o.to_core()))
    }
}

impl CResult for ShadowOptions {
    type C = TickreelShadowOptions;
    fn into_c(self) -> FfiResult<TickreelShadowOptions> {
        Ok(TickreelShadowOptions::from_core(&self))
    }
}

/// The caller's options (NULL: `tickreel_report_options_default`'s); the metadata is a
/// separate argument of `tickreel_shadow_buffer_report`.
impl CArg for ReportOptions {
    type C = *const TickreelReportOptions;
    type Stored = ReportOptions;
    unsafe fn store(o: *const TickreelReportOptions, _: &'static str) -> FfiResult<ReportOptions> {
        // SAFETY: forwarded contract: NULL or a readable options struct.
        match unsafe { read_options(o) }? {
            Some(o) => Ok(o.to_core(Vec::new())?),
            None => Ok(ReportOptions::default()),
        }
    }
}

impl CResult for ReportOptions {
    type C = TickreelReportOptions;
    fn into_c(self) -> FfiResult<TickreelReportOptions> {
        Ok(TickreelReportOptions::from_core(&self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::generated::shadow::*;
    use crate::ffi::result::TickreelResult;

    #[test]
    fn defaults_round_trip_to_the_core() {
        let mut s = std::mem::MaybeUninit::uninit();
        // SAFETY: writable storage for one options struct.
        assert_eq!(
            unsafe { tickreel_shadow_options_default(s.as_mut_ptr()) },
            TickreelResult::Ok
        );
        // SAFETY: initialised by the call above.
        let s = unsafe { s.assume_init() };
        assert_eq!(
            (s.window_ms, s.grace_ms, s.max_bytes),
            (300_000, 120_000, 0)
        );
        assert_eq!(s.to_core(), ShadowOptions::default());
        let mut r = std::mem::MaybeUninit::uninit();
        // SAFETY: writable storage for one options struct.
        assert_eq!(
            unsafe { tickreel_report_options_default(r.as_mut_ptr()) },
            TickreelResult::Ok
        );
        // SAFETY: initialised by the call above.
        let r = unsafe { r.assume_init() };
        assert_eq!((r.has_before, r.after_ms, r.has_radius), (0, 30_000, 1));
        assert_eq!(r.to_core(Vec::new()).unwrap(), ReportOptions::default());
        assert_eq!((r.keep_all_blocks, r.chat), (0, TICKREEL_REPORT_CHAT_NEAR));
        // SAFETY: NULL is refused before anything is written.
        let null = unsafe { tickreel_report_options_default(std::ptr::null_mut()) };
        assert_eq!(null, TickreelResult::NullArgument);
    }

    #[test]
    fn optional_fields_map_to_none() {
        let s = TickreelShadowOptions {
            window_ms: 10_000,
            grace_ms: 0,
            max_bytes: 4096,
            block_ticks: 20,
        };
        let c = s.to_core();
        assert_eq!(c.window, Duration::from_secs(10));
        assert_eq!(c.max_bytes, Some(4096));
        let r = TickreelReportOptions {
            has_before: 1,
            before_ms: 2500,
            after_ms: 0,
            has_radius: 0,
            radius: f64::NAN, // ignored without has_radius
            overwrite: 7,
            zstd_level: 3,
            keep_all_blocks: 1,
            chat: TICKREEL_REPORT_CHAT_ALL,
        };
        let c = r.to_core(Vec::new()).unwrap();
        assert!(c.keep.all_blocks);
        assert_eq!(c.keep.chat, tickreel::shadow::ReportChat::All);
        let bad = TickreelReportOptions { chat: 3, ..r };
        assert!(
            bad.to_core(Vec::new()).is_err(),
            "an unknown chat code is refused"
        );
        assert_eq!(c.before, Some(Duration::from_millis(2500)));
        assert_eq!(
            (c.after, c.radius, c.overwrite),
            (Duration::ZERO, None, true)
        );
        c.validate().unwrap();
    }
}
