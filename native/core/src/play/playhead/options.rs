//! How a playhead is told to behave ([`PlayheadOptions`]) and what it counts ([`PlayheadStats`]).

/// Options of a playhead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayheadOptions {
    /// After a stall, at most this many owed recorded ticks are caught up on later calls (the
    /// rest is dropped: the playhead falls behind instead of jumping far). 0: never catch up.
    pub max_catch_up_ticks: u32,
    /// Ask the prefetch pool for the next chunks ahead of time.
    pub prefetch: bool,
}

impl Default for PlayheadOptions {
    fn default() -> Self {
        PlayheadOptions {
            max_catch_up_ticks: 200,
            prefetch: true,
        }
    }
}

/// Counters of one playhead.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlayheadStats {
    /// Calls that reported a stall.
    pub stalls: u64,
    /// Chunk faults reported.
    pub faults: u64,
    /// Recorded ticks played forward.
    pub ticks_forward: u64,
    /// Recorded ticks played backward.
    pub ticks_backward: u64,
    /// Jump updates (seeks, steps back, reverse play, skips).
    pub jumps: u64,
}
