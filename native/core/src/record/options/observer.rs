//! What a stream of ticks shows to those who watch it on its writer thread: the decoded ticks, the
//! compressed chunks, metadata changes and the end. The shadow buffer is such a watcher; the write
//! path knows nothing of it beyond this trait.

use std::time::Instant;

use crate::format::event::Event;
use crate::format::header::Header;
use crate::format::metadata::{EntityInfo, EventType, Metadata};
use crate::format::palette::PaletteKind;
use crate::format::state::EntityTable;
use crate::record::encode::chunker::Frame;

/// Where a stream starts.
#[derive(Debug)]
pub struct StreamStart<'a> {
    /// The recording's header fields (world, tick rate, dictionary).
    pub header: &'a Header,
    /// Metadata so far (a resumed recording's; empty for a fresh one).
    pub metadata: &'a Metadata,
    /// Entities alive before the first tick the observer will see (resumed recordings).
    pub table: &'a EntityTable,
    /// The last tick recorded before (resumed recordings).
    pub last_tick: Option<u32>,
    /// The terrain in effect after that tick (resumed recordings; empty for a fresh one): the
    /// frames that carried it are not shown again.
    pub terrain: &'a std::sync::Arc<crate::format::Terrain>,
}

/// A metadata change.
#[derive(Debug, Clone, Copy)]
pub enum MetadataChange<'a> {
    Entity(&'a EntityInfo),
    EventType(&'a EventType),
    /// A palette name: kind, id, name.
    Name(PaletteKind, u32, &'a str),
    User(&'a str, &'a fastnbt::Value),
}

/// How a stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamEnd {
    /// `finish`: the recording goes to its compacted file.
    Finished,
    /// `close` or an engine shutdown: the recording stays resumable (or, without a file, is gone).
    Closed,
    /// `abort`: the recording was discarded.
    Aborted,
    /// The recording was retired after an internal error.
    Failed,
}

/// Watches one stream on its writer thread. Every call comes from that thread, in stream order;
/// none may block on I/O or wait for another thread (the writer serves other recordings too).
pub trait StreamObserver: Send + Sync + std::fmt::Debug {
    /// Once, before anything else.
    fn started(&self, start: StreamStart<'_>);
    /// A tick the chunker accepted, with its decoded events.
    fn tick(&self, tick: u32, events: &[Event]);
    /// A chunk was cut (it holds ticks passed to [`StreamObserver::tick`] before).
    fn frame(&self, frame: &Frame);
    /// An entity, event type or user key was registered.
    fn metadata(&self, change: MetadataChange<'_>);
    /// `Recorder::player_left` was called for `entity` (a `PlayerLeave` event comes through
    /// [`StreamObserver::tick`] instead).
    fn player_left(&self, entity: u32);
    /// Whether the open chunk should be cut now, so that its ticks reach
    /// [`StreamObserver::frame`] (asked after every tick and at the writer's periodic checks).
    fn wants_cut(&self, now: Instant) -> bool;
    /// The stream ended; the open chunk was cut before, as far as possible.
    fn ended(&self, how: StreamEnd);
}
