//! The shadow buffer: the handle a plugin holds, and the observer that feeds it on the writer
//! thread.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::sync::Mutex;

use crate::error::{Error, Result};
use crate::format::event::Event;
use crate::format::header::Header;
use crate::format::metadata::{EntityInfo, EventType};
use crate::format::palette::Palette;
use crate::record::shared::finish::Finishing;
use crate::record::shared::held::{HeldMemory, Holder, weak_holder};
use crate::record::worker::background::Background;
use crate::record::{
    Engine, Frame, MetadataChange, Recorder, RecorderOptions, StreamEnd, StreamObserver,
    StreamStart,
};
use crate::shadow::options::{ReportOptions, ShadowOptions, ticks_of};
use crate::shadow::report::{ReportJob, write_report};
use crate::shadow::ring::{Block, Ring};
use crate::storage::Storage;

/// Wall time a report waits past its capture for ticks that do not come (a world that stopped
/// ticking) before it is written with what there is.
const CAPTURE_SLACK: Duration = Duration::from_secs(5);

/// Counters of a shadow buffer. Bytes are the allocations the buffer holds, measured as they are
/// made (payload capacity and per-block bookkeeping), not estimated from tick counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShadowStats {
    /// Heap bytes of the retained blocks.
    pub bytes: usize,
    pub blocks: usize,
    /// First and last tick retained in blocks (ticks after `last_tick` wait in the open chunk).
    pub first_tick: Option<u32>,
    pub last_tick: Option<u32>,
    /// Entities alive now.
    pub alive_entities: usize,
    /// Players who left within their grace period.
    pub departed_players: usize,
    /// Blocks dropped because the window no longer needed them.
    pub expired_blocks: u64,
    /// Blocks (and their ticks) given up for a memory budget while still inside the window.
    pub budget_dropped_blocks: u64,
    pub budget_dropped_ticks: u64,
    /// Reports waiting for their capture to end.
    pub reports_capturing: usize,
    /// Reports handed to the background worker.
    pub reports_started: u64,
}

/// A report waiting for its capture to end.
struct Pending {
    player: u32,
    path: PathBuf,
    options: ReportOptions,
    first: u32,
    report_tick: u32,
    left_tick: Option<u32>,
    until: u32,
    deadline: Instant,
    created_ms: i64,
    /// Blocks from the report's first tick on, held even if the ring drops them.
    blocks: Vec<Arc<Block>>,
    handle: Finishing,
}

#[derive(Default)]
struct State {
    ring: Ring,
    header: Header,
    entities: HashMap<u32, EntityInfo>,
    event_types: HashMap<u32, EventType>,
    palette: Palette,
    /// The recording's server id, carried into its reports.
    server: Option<String>,
    user: HashMap<String, fastnbt::Value>,
    pending: Vec<Pending>,
    /// The terrain in effect after the last frame (every terrain the stream's frames carried,
    /// merged, over what a resumed recording held when it started), kept outside the ring: a report carries the sections around its player even
    /// when the frame that brought them was dropped long ago.
    terrain: Arc<crate::format::Terrain>,
    /// The terrain piece (its whole skippable frame, as the writer stored it) of the last frame
    /// that carried one, when that piece holds the whole of [`State::terrain`] (a full piece, or
    /// the only one): a report keeping all of the terrain carries it as it is, not compressed
    /// again. `None` once a piece changed only part of it.
    terrain_piece: Option<Arc<Vec<u8>>>,
    started: bool,
    ended: bool,
    reports_started: u64,
}

/// Shared by the handle and the observer.
pub(crate) struct Inner {
    options: ShadowOptions,
    state: Mutex<State>,
    held: Arc<HeldMemory>,
    background: Background,
    storage: Arc<dyn Storage>,
    attached: AtomicBool,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShadowBuffer")
            .field("options", &self.options)
            .finish()
    }
}

/// Every player's last minutes of one stream, kept in memory; see [the module](crate::shadow).
/// Cheap to clone; reports may be made from any thread.
#[derive(Debug, Clone)]
pub struct ShadowBuffer {
    inner: Arc<Inner>,
}

impl ShadowBuffer {
    /// Starts a shadowed stream: with `path`, a recording of that path that is also shadowed (its
    /// chunks are the blocks); without, a stream written nowhere but in this buffer (blocks of
    /// `options.block_ticks`). Submit ticks to the returned [`Recorder`] as to any recording.
    pub fn start(
        engine: &Engine,
        path: Option<&Path>,
        mut recorder: RecorderOptions,
        options: ShadowOptions,
    ) -> Result<(Recorder, ShadowBuffer)> {
        options.validate()?;
        recorder.identity.validate()?;
        let rate = recorder.identity.tick_rate_millihz;
        let inner = Arc::new(Inner {
            options,
            state: Mutex::new(State {
                ring: Ring::new(
                    ticks_of(options.window, rate),
                    ticks_of(options.grace, rate),
                ),
                ..State::default()
            }),
            held: engine.held_memory().clone(),
            background: engine.background(),
            storage: engine.background().storage(),
            attached: AtomicBool::new(true),
        });
        engine.held_memory().register(weak_holder(&inner));
        recorder.observers.push(inner.clone());
        let rec = match path {
            Some(p) => engine.start_recording(p, recorder)?,
            None => {
                recorder.chunk_policy.chunk_ticks = options.block_ticks;
                engine.start_stream(recorder)?
            }
        };
        Ok((rec, ShadowBuffer { inner }))
    }

    /// Counters (see [`ShadowStats`]).
    pub fn stats(&self) -> ShadowStats {
        let s = self.inner.state.lock();
        let r = &s.ring;
        ShadowStats {
            bytes: r.bytes,
            blocks: r.blocks.len(),
            first_tick: r.first_tick(),
            last_tick: r.covered_until(),
            alive_entities: r.alive.len(),
            departed_players: r.departed.len(),
            expired_blocks: r.dropped.expired_blocks,
            budget_dropped_blocks: r.dropped.budget_blocks,
            budget_dropped_ticks: r.dropped.budget_ticks,
            reports_capturing: s.pending.len(),
            reports_started: s.reports_started,
        }
    }

    /// Whether the stream is still being fed.
    pub fn is_attached(&self) -> bool {
        self.inner.attached.load(Ordering::Acquire)
    }

    /// Reports `player` (an entity id): keeps capturing for `options.after`, then writes the
    /// window around the player to `path` (a `.reel`) on the engine's background worker. Returns
    /// a handle to poll or wait on, as `finish` does; the file appears at `path` only complete.
    /// The report's reference is the newest tick the writer has taken in (call
    /// `Recorder::flush` first to make it the last tick submitted).
    ///
    /// Fails at once (`InvalidArgument`) for a player the buffer holds nothing of (never seen,
    /// or gone longer than the grace period and the window), and (`InvalidState`) before the
    /// stream's first tick and once the engine shuts down.
    pub fn report(
        &self,
        player: u32,
        path: impl AsRef<Path>,
        options: ReportOptions,
    ) -> Result<crate::Pending<PathBuf>> {
        options.validate()?;
        if self.inner.background.is_stopping() {
            return Err(Error::InvalidState(
                "the engine has shut down; its shadow buffers take no more reports".into(),
            ));
        }
        let path = path.as_ref().to_path_buf();
        if path.as_os_str().is_empty() {
            return Err(Error::invalid("a report needs a path"));
        }
        let mut s = self.inner.state.lock();
        let Some(now_tick) = s.ring.last_tick else {
            return Err(Error::InvalidState(
                "the shadowed stream has no ticks yet".into(),
            ));
        };
        if !s.ring.has(player) {
            return Err(Error::invalid(format!(
                "entity {player} has no data in the shadow buffer (never seen, or gone before \
                 the retained window)"
            )));
        }
        let rate = s.header.tick_rate_millihz.max(1);
        let left_tick = s.ring.departed.get(&player).copied();
        let anchor = left_tick
            .or_else(|| s.ring.removed.get(&player).copied())
            .unwrap_or(now_tick);
        let before = ticks_of(options.before.unwrap_or(self.inner.options.window), rate);
        let first = anchor.saturating_sub(before.saturating_sub(1));
        let after = ticks_of(options.after, rate);
        let until = if s.ended {
            now_tick
        } else {
            now_tick.saturating_add(after)
        };
        let blocks = s
            .ring
            .blocks
            .iter()
            .filter(|b| b.last_tick() >= first)
            .cloned()
            .collect();
        let (handle, report) = Finishing::new("shadow-play report");
        let created_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        s.pending.push(Pending {
            player,
            path,
            options,
            first,
            report_tick: now_tick,
            left_tick,
            until,
            deadline: Instant::now() + options_after_wall(after, rate) + CAPTURE_SLACK,
            created_ms,
            blocks,
            handle,
        });
        // Due already (nothing to capture, or the stream is over): started at the writer's next
        // check, or here when no writer will come.
        if s.ended {
            self.inner.settle(&mut s, Instant::now());
        }
        Ok(report)
    }
}

impl ShadowBuffer {
    /// Reports the player registered with `uuid` ([`EntityInfo::uuid`]): an entity id changes
    /// when a player relogs, the UUID does not. Reports the newest entity id of that UUID the
    /// buffer holds data of (the one after the last relog), as [`ShadowBuffer::report`] does.
    ///
    /// Fails (`InvalidArgument`) when no entity registered with that UUID has data in the
    /// buffer.
    pub fn report_uuid(
        &self,
        uuid: uuid::Uuid,
        path: impl AsRef<Path>,
        options: ReportOptions,
    ) -> Result<crate::Pending<PathBuf>> {
        let player = {
            let s = self.inner.state.lock();
            // The newest entity of that UUID still held: one alive before one gone, then the one
            // an event named last (a relogged player's new id is named after the old one).
            s.entities
                .values()
                .filter(|e| e.uuid == Some(uuid) && s.ring.has(e.id))
                .map(|e| {
                    let alive = s.ring.alive.contains(&e.id);
                    (alive, s.ring.seen.get(&e.id).copied(), e.id)
                })
                .max()
                .map(|(_, _, id)| id)
        };
        let Some(player) = player else {
            return Err(Error::invalid(format!(
                "no entity of player {uuid} has data in the shadow buffer (never registered \
                 with that UUID, or gone before the retained window)"
            )));
        };
        self.report(player, path, options)
    }
}

/// Wall time of `ticks` at the tick rate.
fn options_after_wall(ticks: u32, rate_millihz: u32) -> Duration {
    Duration::from_micros(u64::from(ticks) * 1_000_000_000 / u64::from(rate_millihz.max(1)))
}

impl Inner {
    /// Starts the reports whose capture is over and whose ticks are all in blocks; `true` if one
    /// waits for the ticks of the writer's open chunk (the writer then cuts it).
    fn settle(&self, s: &mut State, now: Instant) -> bool {
        let covered = s.ring.covered_until();
        let last = s.ring.last_tick;
        let open_ticks = match (last, covered) {
            (Some(l), Some(c)) => l > c,
            (Some(_), None) => true,
            _ => false,
        };
        let mut wants_cut = false;
        let mut i = 0;
        while i < s.pending.len() {
            let p = &s.pending[i];
            let due = s.ended || last.is_some_and(|l| l >= p.until) || now >= p.deadline;
            if !due {
                i += 1;
                continue;
            }
            // The ticks it needs that are still in the open chunk.
            if open_ticks && !s.ended && covered.is_none_or(|c| c < p.until) {
                wants_cut = true;
                i += 1;
                continue;
            }
            let p = s.pending.swap_remove(i);
            self.start_report(s, p);
        }
        wants_cut
    }

    /// Hands a report whose ticks are all in blocks to the background worker.
    fn start_report(&self, s: &mut State, p: Pending) {
        s.reports_started += 1;
        let last = s
            .ring
            .covered_until()
            .map_or(p.report_tick, |c| c.min(p.until));
        let mut ids: Vec<u32> = s.event_types.keys().copied().collect();
        ids.sort_unstable();
        let job = ReportJob {
            storage: self.storage.clone(),
            terrain: s.terrain.clone(),
            terrain_piece: s.terrain_piece.clone(),
            header: s.header.clone(),
            entities: s.entities.clone(),
            event_types: ids.iter().map(|id| s.event_types[id].clone()).collect(),
            palette: s.palette.clone(),
            server: s.server.clone(),
            user: s.user.clone(),
            blocks: p.blocks,
            origin: s.ring.origin,
            player: p.player,
            first: p.first,
            last,
            report_tick: p.report_tick,
            left_tick: p.left_tick,
            created_ms: p.created_ms,
            path: p.path,
            options: p.options,
        };
        self.background
            .run(Box::new(move || write_report(job)), p.handle);
    }
}

impl Holder for Inner {
    fn oldest(&self) -> Option<Instant> {
        self.state.lock().ring.blocks.front().map(|b| b.made)
    }
    fn evict_oldest(&self) -> usize {
        let mut s = self.state.lock();
        let freed = s.ring.pop(true);
        s.ring.forget_removed();
        drop(s);
        self.held.sub(freed);
        freed
    }
}

impl StreamObserver for Inner {
    fn started(&self, start: StreamStart<'_>) {
        let mut s = self.state.lock();
        s.started = true;
        s.header = start.header.clone();
        for e in &start.metadata.library.entities {
            s.entities.insert(e.id, e.clone());
        }
        for t in &start.metadata.library.event_types {
            s.event_types.insert(t.id, t.clone());
        }
        s.palette = start.metadata.library.palette.clone();
        s.server = start.metadata.library.server.clone();
        s.user = start.metadata.user.clone();
        s.ring.alive = start.table.iter().map(|e| e.id).collect();
        s.ring.last_tick = start.last_tick;
        s.terrain = start.terrain.clone();
        s.terrain_piece = None;
    }

    fn tick(&self, tick: u32, events: &[Event]) {
        self.state.lock().ring.tick(tick, events);
    }

    fn frame(&self, frame: &Frame) {
        // Terrain is rare (offers) and decoded here once, on the writer thread, outside the lock.
        let terrain = (frame.header.flags & crate::format::FLAG_TERRAIN != 0).then(|| {
            let limits = crate::format::Limits::default();
            crate::format::terrain::piece_of(&frame.payload).and_then(|p| {
                let t = crate::format::terrain::decode_piece(p, &limits)?;
                // the skippable frame's 8 bytes of magic and length, and its content
                Ok((t, &frame.payload[..8 + p.len()]))
            })
        });
        let block = Arc::new(Block::new(frame));
        let added = block.bytes;
        let freed = {
            let mut s = self.state.lock();
            // The writer encoded it from terrain it accepted: it decodes and fits the limits.
            if let Some(Ok((t, piece))) = terrain {
                let limit = crate::format::Limits::default().max_terrain_sections();
                let n = t.len();
                let _ = Arc::make_mut(&mut s.terrain).merge(t, limit);
                // every section in effect is the piece's (the merge keeps earlier positions)
                s.terrain_piece = (n == s.terrain.len()).then(|| Arc::new(piece.to_vec()));
            }
            for p in &mut s.pending {
                p.blocks.push(block.clone());
            }
            let mut freed = s.ring.push(block);
            if let Some(max) = self.options.max_bytes {
                while s.ring.bytes > max && s.ring.blocks.len() > 1 {
                    freed += s.ring.pop(true);
                }
                s.ring.forget_removed();
            }
            self.settle(&mut s, Instant::now());
            freed
        };
        self.held.add(added);
        self.held.sub(freed);
        self.held.make_room();
    }

    fn metadata(&self, change: MetadataChange<'_>) {
        let mut s = self.state.lock();
        match change {
            MetadataChange::Entity(e) => {
                s.entities.insert(e.id, e.clone());
            }
            MetadataChange::EventType(t) => {
                s.event_types.insert(t.id, t.clone());
            }
            MetadataChange::Name(kind, id, name) => {
                // the recorder refused a conflicting name before sending it
                let _ = s.palette.insert(kind, id, name);
            }
            MetadataChange::User(k, v) => {
                s.user.insert(k.to_string(), v.clone());
            }
        }
    }

    fn player_left(&self, entity: u32) {
        self.state.lock().ring.player_left(entity);
    }

    fn wants_cut(&self, now: Instant) -> bool {
        let mut s = self.state.lock();
        if s.pending.is_empty() {
            return false;
        }
        self.settle(&mut s, now)
    }

    fn ended(&self, _how: StreamEnd) {
        self.attached.store(false, Ordering::Release);
        let mut s = self.state.lock();
        s.ended = true;
        self.settle(&mut s, Instant::now());
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let bytes = self.state.get_mut().ring.bytes;
        self.held.sub(bytes);
    }
}
