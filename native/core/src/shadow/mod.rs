//! Shadow play: every player's last minutes always kept in memory, turned into an ordinary `.reel`
//! when a player is reported.
//!
//! A [`ShadowBuffer`] watches one stream of ticks (a world, the unit of a recording): a recording
//! that is also shadowed, or a stream written nowhere else ([`ShadowBuffer::start`]). On the
//! writer thread it keeps the stream's compressed chunks as blocks (each decodes on its own: its
//! keyframe holds every live entity), dropping the oldest block whole once the newer ones still
//! cover the window. [`ShadowBuffer::report`] keeps capturing for a while, then a background worker
//! cuts the window around the reported player (with the entities that came near) into a file,
//! with a second thread of its own while it works (the chunks are shared out, then decoded
//! ahead of the writing).
//!
//! What is retained, exactly: at least the last `window` of ticks (and, for a player who left
//! less than `grace` ago, at least `window` before the leave), at most that plus one block; less
//! only when a memory budget forced the oldest blocks out (counted in [`ShadowStats`]).

mod buffer;
mod keep;
mod options;
mod report;
mod ring;

pub use buffer::{ShadowBuffer, ShadowStats};
pub use options::{REPORT_KEY, ReportChat, ReportKeep, ReportOptions, ShadowOptions};
