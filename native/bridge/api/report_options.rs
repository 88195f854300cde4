//! A report's options as a builder (C: `TickreelReportOptions`, Java: what `ReportOptions` builds
//! through), as [`crate::api::recorder_options`]: a handle holding the core's
//! [`shadow::ReportOptions`], starting from its defaults, with one setter per option (durations
//! in milliseconds of game time, flags as `bool`, the chat choice as a `TICKREEL_REPORT_CHAT_*`
//! number); the core checks the whole when the report is made (`ReportOptions::validate`). The
//! caller's metadata is an argument of the report itself.

use tickreel_sync::sync::Mutex;

use crate::api::recorder_options::{invalid, ms};
use crate::api::{New, Released};
use crate::shared::handle::HandleType;
use tickreel::shadow::{self, ReportChat};
use tickreel_bridge_macros::bridge_fn;

/// A report's options being built (C: `TickreelReportOptions`; Java: the handle `ReportOptions`
/// fills for each report).
pub struct ReportOptions(Mutex<Building>);

/// The options, and the radius kept while every entity is chosen.
struct Building {
    options: shadow::ReportOptions,
    radius: f64,
    every_entity: bool,
}

impl HandleType for ReportOptions {
    const TAG: u8 = 27;
    const NAME: &'static str = "report options";
}

/// The default context radius, in blocks.
const DEFAULT_RADIUS: f64 = 48.0;

impl ReportOptions {
    /// The options as they are now (the builder stays usable).
    fn get(&self) -> shadow::ReportOptions {
        let b = self.0.lock();
        shadow::ReportOptions {
            radius: (!b.every_entity).then_some(b.radius),
            ..b.options.clone()
        }
    }

    /// The options given, or the defaults for none.
    pub(crate) fn or_default(options: Option<&ReportOptions>) -> shadow::ReportOptions {
        options.map_or_else(shadow::ReportOptions::default, ReportOptions::get)
    }

    fn set(&self, f: impl FnOnce(&mut shadow::ReportOptions)) -> tickreel::Result<()> {
        f(&mut self.0.lock().options);
        Ok(())
    }
}

/// Creates a report's options with the defaults (all that is retained before the report, 30 s
/// captured after it, the entities within 48 blocks of the player, the chat lines near them, no
/// overwrite, zstd level 3), into `*out_options`. Change them with the
/// `tickreel_report_options_set_*` functions, pass them to `tickreel_shadow_buffer_report` (which
/// reads them: one options handle may serve many reports) and free them with
/// `tickreel_report_options_free`.
///
/// Thread safety: any thread; each setter is atomic, and a report on another thread reads them.
#[bridge_fn(
    c = "tickreel_report_options_new",
    c_out = "out_options",
    java = "reportOptionsNew"
)]
pub fn report_options_new() -> New<ReportOptions> {
    let options = shadow::ReportOptions::default();
    New(ReportOptions(Mutex::new(Building {
        radius: options.radius.unwrap_or(DEFAULT_RADIUS),
        every_entity: options.radius.is_none(),
        options,
    })))
}

/// Frees a report's options (reports made with them keep their copy). NULL is a no-op.
///
/// Thread safety: any thread.
#[bridge_fn(c = "tickreel_report_options_free")]
pub fn report_options_free(_options: Released<ReportOptions>) {}

/// Game time before the report (for a player who left: before the leave) to include, in
/// milliseconds (default: all that is retained, up to the buffer's window). At most 86400000 (a
/// day).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_report_options_set_before",
    java = "reportOptionsSetBefore"
)]
pub fn set_before(options: &ReportOptions, before: u64) -> tickreel::Result<()> {
    options.set(|o| o.before = Some(ms(before)))
}

/// Game time to keep capturing after the report, in milliseconds (default 30000; 0 writes the
/// report from what is there now). At most 86400000 (a day).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_report_options_set_after",
    java = "reportOptionsSetAfter"
)]
pub fn set_after(options: &ReportOptions, after: u64) -> tickreel::Result<()> {
    options.set(|o| o.after = ms(after))
}

/// Entities that came within this many blocks of the reported player at any tick of the report
/// are included with their whole track (default 48); the same radius keeps block changes and
/// placed events. Must be finite and >= 0. Undoes `tickreel_report_options_set_every_entity`.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_report_options_set_radius",
    java = "reportOptionsSetRadius"
)]
pub fn set_radius(options: &ReportOptions, radius: f64) -> tickreel::Result<()> {
    let mut b = options.0.lock();
    b.radius = radius;
    b.every_entity = false;
    Ok(())
}

/// With `every_entity` true: no context radius, every entity, block change and placed event of
/// the stream is included (default false: the radius applies).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_report_options_set_every_entity",
    java = "reportOptionsSetEveryEntity"
)]
pub fn set_every_entity(options: &ReportOptions, every_entity: bool) -> tickreel::Result<()> {
    options.0.lock().every_entity = every_entity;
    Ok(())
}

/// Replace a file at the report's path instead of failing (default false).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_report_options_set_overwrite",
    java = "reportOptionsSetOverwrite"
)]
pub fn set_overwrite(options: &ReportOptions, overwrite: bool) -> tickreel::Result<()> {
    options.set(|o| o.overwrite = overwrite)
}

/// Zstd level of the report file, -7 to 22 (default 3).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_report_options_set_zstd_level",
    java = "reportOptionsSetZstdLevel"
)]
pub fn set_zstd_level(options: &ReportOptions, zstd_level: i32) -> tickreel::Result<()> {
    options.set(|o| o.zstd_level = zstd_level)
}

/// Keep every block change and placed event of the window, wherever it happened (default false:
/// those within the radius of the reported player, and those of kept entities).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_report_options_set_keep_all_blocks",
    java = "reportOptionsSetKeepAllBlocks"
)]
pub fn set_keep_all_blocks(options: &ReportOptions, keep_all_blocks: bool) -> tickreel::Result<()> {
    options.set(|o| o.keep.all_blocks = keep_all_blocks)
}

/// Which chat lines the report keeps: `TICKREEL_REPORT_CHAT_NEAR` (the default: the reported
/// player's lines and the public lines of players within the radius),
/// `TICKREEL_REPORT_CHAT_PUBLIC` (also every public and system line of the server) or
/// `TICKREEL_REPORT_CHAT_ALL` (private and team chat of others too). Java: `ReportChat`'s
/// ordinal.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for another value.
///
/// Thread safety: any thread.
#[bridge_fn(c = "tickreel_report_options_set_chat", java = "reportOptionsSetChat")]
pub fn set_chat(options: &ReportOptions, chat: u32) -> tickreel::Result<()> {
    let chat = match chat {
        0 => ReportChat::Near,
        1 => ReportChat::Public,
        2 => ReportChat::All,
        other => {
            return Err(invalid(
                "chat",
                format!(
                    "{other} is none of TICKREEL_REPORT_CHAT_NEAR (0), \
                     TICKREEL_REPORT_CHAT_PUBLIC (1) and TICKREEL_REPORT_CHAT_ALL (2)"
                ),
            ));
        }
    };
    options.set(|o| o.keep.chat = chat)
}
