//! The messages a writer thread takes off its queue (and its control channel).
//!
//! Generic over `R`, the recording an `Open` message hands to the writer (`OpenRecording`, whose
//! resume holds its recording's messages: the writer's alias `writer_thread::Msg` names it), so
//! that this file stands below both.

use crossbeam_channel::Sender;

use crate::error::Result;
use crate::format::metadata::{EntityInfo, EventType};
use crate::format::palette::PaletteKind;
use crate::record::shared::finish::Finishing;
use crate::record::shared::tick_bytes::TickBytes;

/// Messages to a writer thread. One recording always goes to the same writer, so its messages
/// keep their order.
pub(crate) enum Msg<R> {
    Open {
        id: u64,
        rec: Box<R>,
    },
    Tick {
        id: u64,
        tick: u32,
        bytes: TickBytes,
    },
    PlayerLeft {
        id: u64,
        entity: u32,
    },
    Snapshot {
        id: u64,
        bytes: Vec<u8>,
    },
    /// Terrain checked at the call; `budget` is what it holds of the in-flight budget.
    Terrain {
        id: u64,
        terrain: Box<crate::format::Terrain>,
        budget: usize,
    },
    // Rare messages with large payloads are boxed, keeping `Msg` (and every queue slot) small.
    Entity {
        id: u64,
        info: Box<EntityInfo>,
    },
    EventType {
        id: u64,
        t: Box<EventType>,
    },
    Name {
        id: u64,
        name: Box<(PaletteKind, u32, String)>,
    },
    UserMeta {
        id: u64,
        meta: Box<(String, fastnbt::Value)>,
    },
    Flush {
        id: u64,
        ack: Sender<Result<()>>,
    },
    /// Lowers the recording's flush interval to at most `at_most`.
    FlushInterval {
        id: u64,
        at_most: std::time::Duration,
    },
    Finish {
        id: u64,
        handle: Finishing,
    },
    Abort {
        id: u64,
        ack: Sender<Result<()>>,
    },
    Close {
        id: u64,
        ack: Option<Sender<Result<()>>>,
    },
    Shutdown,
}

impl<R> Msg<R> {
    /// Bytes this message holds of the engine's in-flight budget (released by the writer).
    pub(crate) fn budget_bytes(&self) -> usize {
        match self {
            Msg::Tick { bytes, .. } => bytes.budget_bytes(),
            Msg::Snapshot { bytes, .. } => bytes.capacity(),
            Msg::Terrain { budget, .. } => *budget,
            _ => 0,
        }
    }

    /// The recording a message is for (`None` for `Shutdown`).
    pub(crate) fn recording(&self) -> Option<u64> {
        match self {
            Msg::Open { id, .. }
            | Msg::Tick { id, .. }
            | Msg::PlayerLeft { id, .. }
            | Msg::Snapshot { id, .. }
            | Msg::Terrain { id, .. }
            | Msg::Entity { id, .. }
            | Msg::EventType { id, .. }
            | Msg::Name { id, .. }
            | Msg::UserMeta { id, .. }
            | Msg::Flush { id, .. }
            | Msg::FlushInterval { id, .. }
            | Msg::Finish { id, .. }
            | Msg::Abort { id, .. }
            | Msg::Close { id, .. } => Some(*id),
            Msg::Shutdown => None,
        }
    }
}

/// An ending message (`Finish`, `Close` or `Abort`) that found its writer's queue full. It travels
/// on the writer's control channel instead, so that ending a recording never waits for queue room
/// (on a server thread, that room may be behind a slow fsync). The channel is unbounded, but each
/// recording sends at most one ending message. The writer applies it once it has taken `after`
/// messages of the recording off the queue: everything the recording queued before it.
pub(crate) struct Ending<R> {
    pub id: u64,
    pub after: u64,
    pub msg: Msg<R>,
}
