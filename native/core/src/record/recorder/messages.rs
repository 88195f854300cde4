//! What a server sends a recording besides its ticks: a player leaving, snapshots, terrain,
//! metadata (entities, event types, palette names, user keys) and flushes. Each waits for room
//! (in the in-flight budget, then in the writer's queue) no longer than the recording's
//! backpressure policy allows, one deadline for both, and queues nothing when it fails
//! (`Error::Backpressure`).

use std::sync::atomic::Ordering;
use std::time::Instant;

use crossbeam_channel::TrySendError;

use super::Recorder;
use crate::error::{Error, Result};
use crate::format::Limits;
use crate::format::metadata::{EntityInfo, EventType};
use crate::format::palette::PaletteKind;
use crate::record::options::recorder_options::Backpressure;
use crate::record::shared::hot_slots::{OPEN, Sending};
use crate::record::writer::writer_thread::Msg;

impl Recorder {
    fn send(&self, msg: Msg) -> Result<()> {
        self.send_within(msg, None)
    }

    /// Sends `msg`, waiting for queue room no longer than the backpressure policy allows: until
    /// `deadline` if an earlier wait of the same call (for the in-flight budget) fixed one, else
    /// until the policy's deadline from when the queue is found full.
    fn send_within(&self, msg: Msg, at: Option<Instant>) -> Result<()> {
        // Counted as sending until it is counted on the queue (see `staging::Claim::commit`),
        // from before the recording is checked open: an ending waits for it (see `transition`).
        let sending = Sending::raise(&self.hot);
        if self.hot.state.load(Ordering::SeqCst) != OPEN {
            return Err(self.not_open());
        }
        if self.engine.stopping.load(Ordering::SeqCst) {
            return Err(Self::engine_gone());
        }
        // Never blocks past the recorder's backpressure policy: with the queue full, `Block` waits
        // up to its deadline and `Drop` not at all; then the call fails and nothing was queued.
        let full = |_| Error::Backpressure("the writer's queue is full; nothing was queued".into());
        let gone = || Error::InvalidState("the engine has shut down".into());
        let sent = match self.tx.try_send(msg) {
            Ok(()) => Ok(()),
            Err(TrySendError::Disconnected(_)) => Err(gone()),
            Err(TrySendError::Full(msg)) => match self.shared.backpressure {
                Backpressure::Drop => Err(full(msg)),
                Backpressure::Block { deadline } => {
                    let at = at.unwrap_or_else(|| crate::threads::deadline_in(deadline));
                    match crate::threads::send_until(&self.tx, msg, at) {
                        Ok(()) => Ok(()),
                        Err(Some(m)) => Err(full(m)),
                        Err(None) => Err(gone()),
                    }
                }
            },
        };
        if sent.is_ok() {
            self.shared.other_sent.fetch_add(1, Ordering::Relaxed);
            // Last: an ending that finds nothing sending any more counts this message in what it
            // comes after (`RecShared::queued`, read when it takes the control channel).
            sending.queued();
        }
        sent
    }

    /// Reserves `n` bytes of the in-flight budget, waiting for room no longer than the
    /// backpressure policy allows: `Ok` with the deadline it waited until (`None` if there was
    /// room at once), `Err` if there was none by then.
    fn reserve_within(&self, n: usize) -> std::result::Result<Option<Instant>, ()> {
        if self.engine.budget.reserve_bytes(n) {
            return Ok(None);
        }
        match self.shared.backpressure {
            Backpressure::Block { deadline } => {
                let at = crate::threads::deadline_in(deadline);
                if self.engine.budget.wait_reserve(n, at) {
                    Ok(Some(at))
                } else {
                    Err(())
                }
            }
            Backpressure::Drop => Err(()),
        }
    }

    /// A player left: triggers a flush (per the flush policy) so that their part is durable, and
    /// starts the player's grace period in a shadow buffer. Record the `PlayerLeave` event itself
    /// in the tick batch; this call adds no event.
    pub fn player_left(&self, entity: u32) -> Result<()> {
        self.send(Msg::PlayerLeft {
            id: self.shared.id,
            entity,
        })
    }

    /// Supplies snapshot bytes (blocks, entities, whatever the game needs to rebuild its world);
    /// the next tick starts a chunk carrying them.
    pub fn offer_snapshot(&self, bytes: Vec<u8>) -> Result<()> {
        Limits::default().check_snapshot(bytes.len())?;
        // Counted against the in-flight budget like ticks, under the same policy.
        let cap = bytes.capacity();
        let Ok(at) = self.reserve_within(cap) else {
            return Err(Error::Backpressure(format!(
                "a snapshot of {} bytes does not fit in the in-flight budget; nothing was queued",
                bytes.len()
            )));
        };
        let r = self.send_within(
            Msg::Snapshot {
                id: self.shared.id,
                bytes,
            },
            at,
        );
        if r.is_err() {
            self.engine.budget.release_bytes(cap);
        }
        r
    }

    /// Supplies terrain, the blocks of an area as chunk sections in Minecraft's layout
    /// ([`crate::format::Section`]: palette of block-state ids named through the block palette,
    /// packed indices), at a recording's start or whenever the game loads or changes an area.
    /// The next tick starts a chunk carrying it; the writer thread compresses it (zstd at
    /// [`crate::format::TERRAIN_ZSTD_LEVEL`]) and stores it once, and readers return it with the
    /// world from that tick on ([`crate::Reader::world_at`]), a later offer's section replacing
    /// an earlier one at the same position. A shadow buffer watching the recording keeps the
    /// latest terrain and puts the sections around a reported player into the report.
    ///
    /// Server thread: checks every section ([`crate::format::Section::validate`]; 1.7 ms for
    /// the 1,176 sections of a 7×7-chunk area, release build) and moves them onto the writer's queue, counted against the in-flight budget
    /// like a snapshot. Refuses (nothing queued) invalid sections (`InvalidArgument`), a position
    /// twice, and an offer over `Limits::max_terrain_sections` / `max_terrain_bytes`
    /// (`LimitExceeded`); the writer refuses terrain that would take the positions ever offered
    /// past `max_terrain_sections` (the recording's error, [`Recorder::status`]). Terrain is as
    /// safe as a tick once acknowledged: it is in the chunk the next tick starts, flushed with it.
    pub fn offer_terrain(&self, sections: Vec<crate::format::Section>) -> Result<()> {
        let terrain = crate::format::terrain::check_offer(sections, &Limits::default())?;
        let budget = terrain
            .sections()
            .map(|s| 64 + 4 * s.palette.len() + 8 * s.packed.len())
            .sum::<usize>();
        let Ok(at) = self.reserve_within(budget) else {
            return Err(Error::Backpressure(format!(
                "terrain of {budget} bytes does not fit in the in-flight budget; nothing was queued"
            )));
        };
        let r = self.send_within(
            Msg::Terrain {
                id: self.shared.id,
                terrain: Box::new(terrain),
                budget,
            },
            at,
        );
        if r.is_err() {
            self.engine.budget.release_bytes(budget);
        }
        r
    }

    /// Records who an entity is (uuid, name) in the metadata. Refuses (`LimitExceeded`) what
    /// would make the metadata exceed what a reader accepts.
    pub fn register_entity(&self, info: EntityInfo) -> Result<()> {
        self.shared.meta_budget.lock().entity(&info)?;
        self.send(Msg::Entity {
            id: self.shared.id,
            info: Box::new(info),
        })
    }

    /// Registers a custom event type (id, name, schema version) in the metadata. Refuses
    /// (`LimitExceeded`) what would make the metadata exceed what a reader accepts.
    pub fn register_event_type(&self, t: EventType) -> Result<()> {
        self.shared.meta_budget.lock().event_type(&t)?;
        self.send(Msg::EventType {
            id: self.shared.id,
            t: Box::new(t),
        })
    }

    /// Names palette id `id` of `kind` (a block state, an item, a damage cause that world events
    /// name by id) in the metadata: `register_name(PaletteKind::Block, 1, "minecraft:stone")`.
    /// Naming an id again with the same name does nothing; another name for it is refused
    /// (`InvalidArgument`: the events recorded with it would change meaning), as is what would
    /// make the metadata exceed what a reader accepts (`LimitExceeded`).
    pub fn register_name(&self, kind: PaletteKind, id: u32, name: &str) -> Result<()> {
        if !self.shared.meta_budget.lock().name(kind, id, name)? {
            return Ok(());
        }
        self.send(Msg::Name {
            id: self.shared.id,
            name: Box::new((kind, id, name.to_owned())),
        })
    }

    /// Sets one key of the user's metadata compound.
    pub fn set_user_metadata(&self, key: impl Into<String>, value: fastnbt::Value) -> Result<()> {
        let key = key.into();
        if key == crate::format::metadata::LIBRARY_KEY {
            return Err(Error::invalid("the metadata key \"tickreel\" is reserved"));
        }
        self.shared.meta_budget.lock().user(&key, &value)?;
        self.send(Msg::UserMeta {
            id: self.shared.id,
            meta: Box::new((key, value)),
        })
    }

    /// Makes the recording durable at least every `interval` from now on (its flush interval
    /// becomes the smaller of the two; what a recording shipped to a bucket needs, so that a
    /// follower elsewhere sees a tick within the ship interval plus this one). Returns at once.
    pub fn flush_at_least_every(&self, interval: std::time::Duration) -> Result<()> {
        if interval.is_zero() {
            return Err(Error::invalid("flush interval: must be more than 0"));
        }
        self.send(Msg::FlushInterval {
            id: self.shared.id,
            at_most: interval,
        })
    }

    /// Asks the writer to flush now; returns once the flush is durable.
    pub fn flush(&self) -> Result<()> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.send(Msg::Flush {
            id: self.shared.id,
            ack: tx,
        })?;
        self.wait_ack(&rx)
    }
}
