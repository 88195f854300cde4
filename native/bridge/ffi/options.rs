//! The option builders' opaque C types and their choice numbers. Every options type crosses as a
//! handle with one setter per option, declared once in `crate::api` (`engine_options`,
//! `recorder_options`, `reel_options`, `shadow_options`, `report_options`): no C struct holds
//! options, so adding one adds a setter and changes no existing symbol.

/// An engine's options being built. Opaque: create with `tickreel_engine_options_new`, change with
/// the `tickreel_engine_options_set_*` functions, pass to `tickreel_engine_new` (NULL there: the
/// defaults), release with `tickreel_engine_options_free`. The pointer is a handle, not an address.
pub struct TickreelEngineOptions {
    _private: [u8; 0],
}

/// A recording's options being built. Opaque: create with `tickreel_recorder_options_new`, change
/// with the `tickreel_recorder_options_set_*` functions, pass to `tickreel_recorder_start` (NULL
/// there: the defaults), release with `tickreel_recorder_options_free`. The pointer is a handle,
/// not an address.
pub struct TickreelRecorderOptions {
    _private: [u8; 0],
}

/// A finished file's options being built (`tickreel_reel_writer_create`). Opaque: create with
/// `tickreel_reel_options_new`, change with the `tickreel_reel_options_set_*` functions, pass to
/// `tickreel_reel_writer_create` (NULL there: the defaults), release with
/// `tickreel_reel_options_free`. The pointer is a handle, not an address.
pub struct TickreelReelOptions {
    _private: [u8; 0],
}

/// A shadow buffer's options being built (`tickreel_shadow_buffer_start`). Opaque: create with
/// `tickreel_shadow_options_new`, change with the `tickreel_shadow_options_set_*` functions, pass
/// to `tickreel_shadow_buffer_start` (NULL there: the defaults), release with
/// `tickreel_shadow_options_free`. The pointer is a handle, not an address.
pub struct TickreelShadowOptions {
    _private: [u8; 0],
}

/// A report's options being built (`tickreel_shadow_buffer_report`). Opaque: create with
/// `tickreel_report_options_new`, change with the `tickreel_report_options_set_*` functions, pass
/// to `tickreel_shadow_buffer_report` (NULL there: the defaults), release with
/// `tickreel_report_options_free`. The pointer is a handle, not an address.
pub struct TickreelReportOptions {
    _private: [u8; 0],
}

/// `tickreel_recorder_options_set_backpressure`: when the writer falls behind, wait up to the
/// block deadline for room (default 1 ms), then drop the tick (counted, recorded as a gap) and
/// return `TICKREEL_RESULT_BACKPRESSURE`. The default.
pub const TICKREEL_BACKPRESSURE_BLOCK: u32 = 0;
/// `tickreel_recorder_options_set_backpressure`: when the writer falls behind, drop the tick at
/// once (counted, recorded as a gap); `tickreel_recorder_submit_tick` returns `TICKREEL_RESULT_OK`
/// and sets `*out_dropped` to true.
pub const TICKREEL_BACKPRESSURE_DROP: u32 = 1;

/// `tickreel_recorder_options_set_on_existing`: continue a live recording of the path (a stopped
/// or crashed server's) after its last tick; a tick at or before it is refused.
pub const TICKREEL_ON_EXISTING_RESUME: u32 = 0;
/// `tickreel_recorder_options_set_on_existing`: keep a live recording of the path aside (its live
/// directory renamed to that of `STEM.previous-N.EXT`, never deleted; `tickreel recover` finishes
/// it) and start a new one, whose ticks may start again at 0. The default.
pub const TICKREEL_ON_EXISTING_START_FRESH: u32 = 1;
/// `tickreel_recorder_options_set_on_existing`: refuse to start where a live recording of the path
/// exists (`TICKREEL_RESULT_IO`, "already exists", naming the live directory).
pub const TICKREEL_ON_EXISTING_REFUSE: u32 = 2;

/// `tickreel_report_options_set_chat`: the reported player's lines (any channel) and the public
/// lines of players within the radius at the tick they sent them (the default).
pub const TICKREEL_REPORT_CHAT_NEAR: u32 = 0;
/// `tickreel_report_options_set_chat`: also every public and system line of the server, wherever
/// its sender stood; still no private or team line of others.
pub const TICKREEL_REPORT_CHAT_PUBLIC: u32 = 1;
/// `tickreel_report_options_set_chat`: every chat line of the window, private and team chat of
/// others too (for a server whose rules let staff read them).
pub const TICKREEL_REPORT_CHAT_ALL: u32 = 2;
