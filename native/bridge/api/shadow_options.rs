//! A shadow buffer's options as a builder (C: `TickreelShadowOptions`, Java: what
//! `ShadowOptions` builds through), as [`crate::api::recorder_options`]: a handle holding the
//! core's [`shadow::ShadowOptions`], starting from its defaults, with one setter per option
//! (durations in milliseconds of game time); the core checks the whole when the buffer starts
//! (`ShadowOptions::validate`).

use tickreel_sync::sync::Mutex;

use crate::api::recorder_options::ms;
use crate::api::{New, Released};
use crate::shared::handle::HandleType;
use tickreel::shadow;
use tickreel_bridge_macros::bridge_fn;

/// A shadow buffer's options being built (C: `TickreelShadowOptions`; Java: the handle
/// `ShadowOptions` fills for each start).
pub struct ShadowOptions(Mutex<shadow::ShadowOptions>);

impl HandleType for ShadowOptions {
    const TAG: u8 = 26;
    const NAME: &'static str = "shadow options";
}

impl ShadowOptions {
    /// The options given, or the defaults for none.
    pub(crate) fn or_default(options: Option<&ShadowOptions>) -> shadow::ShadowOptions {
        options.map_or_else(shadow::ShadowOptions::default, |o| *o.0.lock())
    }

    fn set(&self, f: impl FnOnce(&mut shadow::ShadowOptions)) -> tickreel::Result<()> {
        f(&mut self.0.lock());
        Ok(())
    }
}

/// Creates a shadow buffer's options with the defaults (a 5-minute window, a 2-minute grace
/// period after a player leaves, no byte limit of its own, 200-tick blocks), into
/// `*out_options`. Change them with the `tickreel_shadow_options_set_*` functions, pass them to
/// `tickreel_shadow_buffer_start` (which reads them) and free them with
/// `tickreel_shadow_options_free`. Durations are game time, converted to ticks at the
/// recording's tick rate (rounded up).
///
/// Thread safety: any thread; each setter is atomic, and a start on another thread reads them.
#[bridge_fn(
    c = "tickreel_shadow_options_new",
    c_out = "out_options",
    java = "shadowOptionsNew"
)]
pub fn shadow_options_new() -> New<ShadowOptions> {
    New(ShadowOptions(Mutex::new(shadow::ShadowOptions::default())))
}

/// Frees a shadow buffer's options (buffers started with them keep their copy). NULL is a no-op.
///
/// Thread safety: any thread.
#[bridge_fn(c = "tickreel_shadow_options_free")]
pub fn shadow_options_free(_options: Released<ShadowOptions>) {}

/// Game time always retained, in milliseconds (default 300000: 5 minutes). 1 to 86400000 (a
/// day).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_shadow_options_set_window",
    java = "shadowOptionsSetWindow"
)]
pub fn set_window(options: &ShadowOptions, window: u64) -> tickreel::Result<()> {
    options.set(|o| o.window = ms(window))
}

/// How long a player who left (a `PlayerLeave` event or `tickreel_recorder_player_left`) keeps
/// the window before their leave, in milliseconds (default 120000: 2 minutes). At most 86400000
/// (a day).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_shadow_options_set_grace",
    java = "shadowOptionsSetGrace"
)]
pub fn set_grace(options: &ShadowOptions, grace: u64) -> tickreel::Result<()> {
    options.set(|o| o.grace = ms(grace))
}

/// Bytes this buffer may hold (default: no limit of its own, only the engine-wide
/// `tickreel_engine_options_set_shadow_budget_bytes`). Past it, its oldest blocks are given up.
/// Must be > 0.
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_shadow_options_set_max_bytes",
    java = "shadowOptionsSetMaxBytes"
)]
pub fn set_max_bytes(options: &ShadowOptions, max_bytes: usize) -> tickreel::Result<()> {
    options.set(|o| o.max_bytes = Some(max_bytes))
}

/// Ticks per block of a stream without a file (default 200: 10 s at 20 ticks/s). 1 to 1048576.
/// A shadowed recording's blocks are its own chunks
/// (`tickreel_recorder_options_set_chunk_ticks`).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_shadow_options_set_block_ticks",
    java = "shadowOptionsSetBlockTicks"
)]
pub fn set_block_ticks(options: &ShadowOptions, block_ticks: u32) -> tickreel::Result<()> {
    options.set(|o| o.block_ticks = block_ticks)
}
