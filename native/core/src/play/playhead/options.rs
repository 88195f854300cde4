//! How a playhead is told to behave ([`PlayheadOptions`]) and what it counts ([`PlayheadStats`]).

/// Options of a playhead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayheadOptions {
    /// After a stall, at most this many owed recorded ticks are caught up on later calls (the
    /// rest is dropped: the playhead falls behind instead of jumping far). 0: never catch up.
    pub max_catch_up_ticks: u32,
    /// Ask the prefetch pool for the next chunks ahead of time.
    pub prefetch: bool,
    /// Keep the world (true, the default): rebuild it on jumps from the nearest snapshot's world
    /// section and the world events after it, carry it through forward play
    /// ([`super::Playhead::world_state`], [`super::Update::rebuild`], [`super::Update::world_changes`]).
    ///
    /// False: entities only, for a reader of entities that shows no world (the viewer's frames
    /// and seeks). Chunks are read without their world section (stepped over, neither decoded
    /// nor put on a keyframe: [`crate::Reader::read_chunk_entities`]) and without their
    /// snapshot bytes, and no chunk is read for a world rebuild: a damaged or large world
    /// section costs nothing. Entities, events, ticks and faults are as with the world; but
    /// [`super::Update::rebuild`] is always `None`, no update has
    /// [`super::Update::world_changes`], [`super::Playhead::world_state`] stays empty,
    /// [`super::Playhead::world_complete`] is false and [`super::Playhead::block`] fails.
    pub world: bool,
}

impl Default for PlayheadOptions {
    fn default() -> Self {
        PlayheadOptions {
            max_catch_up_ticks: 200,
            prefetch: true,
            world: true,
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
