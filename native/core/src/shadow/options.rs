//! Options of a shadow buffer and of a report.

use crate::error::{between, option};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::format::Limits;
use crate::record::encode::chunker::check_zstd_level;

/// The user-metadata key under which a report file describes the report (see FORMAT.md).
pub const REPORT_KEY: &str = "report";

/// Keys of the report compound the library writes; a caller's metadata may not use them.
pub(crate) const RESERVED_REPORT_KEYS: &[&str] = &[
    "player",
    "player_uuid",
    "player_name",
    "report_tick",
    "first_tick",
    "last_tick",
    "left_tick",
    "before_ticks",
    "after_ticks",
    "context_radius",
    "context_entities",
    "created_ms",
];

/// How much a shadow buffer keeps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShadowOptions {
    /// Game time always retained (default 5 minutes).
    pub window: Duration,
    /// How long a player who left keeps the `window` before their leave (default 2 minutes).
    pub grace: Duration,
    /// Bytes this buffer may hold (`None`: only the engine-wide budget,
    /// `EngineOptions::shadow_budget_bytes`).
    pub max_bytes: Option<usize>,
    /// Ticks per block for a stream written nowhere else (default 200: 10 s at 20 ticks/s). A
    /// shadowed recording's blocks are its own chunks.
    pub block_ticks: u32,
}

impl Default for ShadowOptions {
    fn default() -> Self {
        ShadowOptions {
            window: Duration::from_secs(300),
            grace: Duration::from_secs(120),
            max_bytes: None,
            block_ticks: 200,
        }
    }
}

impl ShadowOptions {
    pub fn validate(&self) -> Result<()> {
        if self.window.is_zero() {
            return Err(Error::invalid(format!(
                "the shadow {} must be positive",
                option("window")
            )));
        }
        // A day of ticks at 1000 ticks/s stays far inside u32.
        let day = Duration::from_secs(86_400);
        if self.window > day || self.grace > day {
            return Err(Error::invalid(format!(
                "the shadow {} and {} are at most a day",
                option("window"),
                option("grace")
            )));
        }
        if self.max_bytes == Some(0) {
            return Err(Error::invalid(format!(
                "{} must be positive when set",
                option("max_bytes")
            )));
        }
        let max = Limits::default().max_chunk_ticks as u32;
        if self.block_ticks == 0 || self.block_ticks > max {
            return Err(Error::invalid(format!(
                "{} must be {} (got {})",
                option("block_ticks"),
                between(1, max),
                self.block_ticks
            )));
        }
        Ok(())
    }
}

/// Which chat lines a report keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReportChat {
    /// Every line the reported player sent (any channel), and the public lines
    /// ([`channel::PUBLIC`](crate::format::world::channel::PUBLIC)) of players within the
    /// radius at the tick they sent them. Never another player's private, team or game-defined
    /// channel, and no line without a sender (the default: staff get what concerns the player,
    /// and nobody else's private conversation).
    #[default]
    Near,
    /// Also every public and system line of the server, wherever its sender stood (or without
    /// a sender). Still no private, team or game-defined channel of others.
    Public,
    /// Every chat line of the window, private and team chat of others too (for a server whose
    /// rules let staff read them).
    All,
}

/// What a report keeps beside the entities within its radius. By default a report keeps what
/// concerns the reported player and nothing else:
///
/// - every event of a kept entity (its moves, swings, equipment, health, uses, damage taken);
/// - interactions that involve a kept entity: an attack made or received, damage with a kept
///   source, a use on a kept entity;
/// - block changes within the radius of the reported player (of a multi-block change: the
///   blocks within the radius), a use on a block within the radius, a placed custom event whose
///   position is within the radius or whose entity is kept, and changes the player caused;
/// - chat as [`ReportChat`] says;
/// - custom events without an entity or a position, and extension kinds this build does not
///   know (nothing places them).
///
/// The radius is measured from the reported player's position at the event's tick (their last
/// known position once they left; before their first, nothing is near) to the block's centre.
/// With no radius ([`ReportOptions::radius`] `None`), every entity, block and placed event is
/// kept; chat still follows [`ReportChat`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReportKeep {
    /// Keep every block change and placed event of the window, wherever it happened (default
    /// `false`).
    pub all_blocks: bool,
    /// Which chat lines (default [`ReportChat::Near`]).
    pub chat: ReportChat,
}

/// What a report contains.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportOptions {
    /// Game time before the report (for a player who left: before the leave) to include
    /// (default `None`: all that is retained, up to the buffer's window).
    pub before: Option<Duration>,
    /// Game time to keep capturing after the report (default 30 s; zero allowed).
    pub after: Duration,
    /// Entities that came within this many blocks of the reported player at any tick of the
    /// report are included with their whole track (default 48); `None` includes every entity.
    /// The same radius, around the reported player at each tick, keeps block changes and placed
    /// events (see [`ReportKeep`] for what a report keeps and how to keep more).
    pub radius: Option<f64>,
    /// What a report keeps beside the entities within the radius (default: only what concerns
    /// the reported player; [`ReportKeep`]).
    pub keep: ReportKeep,
    /// The caller's keys (reporter, reason, time, anticheat flags...), stored in the report
    /// compound of the file's user metadata beside the library's (FORMAT.md).
    pub metadata: Vec<(String, fastnbt::Value)>,
    /// Replace a file at the report's path instead of failing.
    pub overwrite: bool,
    /// Zstd level of the report file (default 3: measured, level 9 makes these files under 1 %
    /// smaller and the report several times slower).
    pub zstd_level: i32,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            before: None,
            after: Duration::from_secs(30),
            radius: Some(48.0),
            keep: ReportKeep::default(),
            metadata: Vec::new(),
            overwrite: false,
            zstd_level: 3,
        }
    }
}

impl ReportOptions {
    pub fn validate(&self) -> Result<()> {
        let day = Duration::from_secs(86_400);
        if self.after > day || self.before.is_some_and(|b| b > day) {
            return Err(Error::invalid(format!(
                "a report's {} and {} are at most a day",
                option("before"),
                option("after")
            )));
        }
        if let Some(r) = self.radius
            && !(r.is_finite() && r >= 0.0)
        {
            return Err(Error::invalid(format!(
                "the context {} must be a finite number of blocks, at least 0 (got {r})",
                option("radius")
            )));
        }
        for (k, _) in &self.metadata {
            if RESERVED_REPORT_KEYS.contains(&k.as_str()) {
                return Err(Error::invalid(format!(
                    "the report key \"{k}\" is written by the library"
                )));
            }
        }
        check_zstd_level("zstd_level", self.zstd_level)
    }
}

/// Game time in ticks at `tick_rate_millihz`, rounded up.
pub(crate) fn ticks_of(d: Duration, tick_rate_millihz: u32) -> u32 {
    let t = (d.as_micros() * u128::from(tick_rate_millihz)).div_ceil(1_000_000_000);
    t.min(u128::from(u32::MAX)) as u32
}
