//! The options of one recording: what `Engine::start_recording` takes.

use std::sync::Arc;
use std::time::Duration;

use crate::error::{Error, Result, between, option};
use crate::format::Limits;
use crate::record::encode::chunker::ChunkPolicy;
use crate::record::file::compact::CompactOptions;
use crate::record::file::identity::RecordingIdentity;
use crate::record::options::observer::StreamObserver;

/// What to do when the writer falls behind and the queue or the in-flight byte budget is full.
///
/// The default, `Block` with [`DEFAULT_BLOCK_DEADLINE`] (1 ms), holds the server thread about
/// 1–2 ms past the moment it found no room (measured: `submit_backpressure_median_us` 1.6 ms,
/// `submit_backpressure_max_us` 4.5 ms on a loaded machine, under a tenth of a 50 ms tick), and
/// then drops the tick: counted in [`RecorderStats::dropped_ticks`](crate::record::RecorderStats) and
/// [`EngineStats::dropped_ticks`](crate::record::EngineStats), recorded as a gap in the recording's
/// metadata (`inspect` and `info` list the gaps; the finished file's `stats.dropped_ticks` counts
/// them), and reported to the caller as `Error::Backpressure`, so a recording with dropped ticks
/// never looks complete. Longer waits rarely help: the queue (65,536 ticks) and the budget (64
/// MiB) fill only when the writer is seconds to minutes behind (a stalled disk), and every
/// millisecond waited is taken from the server's tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backpressure {
    /// Wait up to `deadline` for room (the server thread sleeps in steps of at most 1 ms, so a
    /// call returns within about `deadline` + 1 ms); then drop the tick (counted, recorded as a
    /// gap) and return `Error::Backpressure`. Other calls (snapshots, terrain, metadata, flush)
    /// wait as long at most, then fail and queue nothing. A deadline of a whole tick (50 ms) or
    /// more makes a stalled writer stall the server.
    Block { deadline: Duration },
    /// Drop the tick at once, count it and record the gap; `submit_tick` returns
    /// `Submitted::Dropped`. Other calls fail at once and queue nothing.
    Drop,
}

/// The default [`Backpressure::Block`] deadline: 1 ms.
pub const DEFAULT_BLOCK_DEADLINE: Duration = Duration::from_millis(1);

/// What `Engine::start_recording` does when the recording's live directory (`PATH.live`) exists:
/// a recording a stopped or crashed server left open.
///
/// The default, `StartFresh`, is what a server owner expects of a restart: the old recording is
/// never lost (a crash's recording is kept aside whole, to be finished with `tickreel recover`),
/// and a server whose tick count starts again at 0 records at once, where `Resume` would refuse
/// every tick up to the old last one ("tick 0 is not after the last submitted tick 99"). Choose
/// `Resume` for a server that carries its tick count on across restarts and wants one recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnExisting {
    /// Continue the old recording: its live directory is recovered and ticks carry on after its
    /// last tick (a tick at or before it is refused). For a server that restarts its tick count
    /// from where it stopped ([`crate::Recorder::wait_resumed`] tells where).
    Resume,
    /// Keep the old recording aside and start a new one (the default): its live directory is
    /// renamed (never deleted, nothing lost after a crash) to that of the first free side name
    /// `STEM.previous-N.EXT` (N from 1), where `tickreel recover STEM.previous-N.EXT` (or a
    /// `Resume` start of that path) finishes it. For a server whose ticks start again at 0 after
    /// a restart. Costs one rename on the calling thread.
    #[default]
    StartFresh,
    /// Refuse to start: an I/O error of kind `AlreadyExists` naming the live directory and the
    /// choices.
    Refuse,
}

/// How many side names `OnExisting::StartFresh` tries (`STEM.previous-1.EXT` up to this).
pub const MAX_PREVIOUS_RECORDINGS: u32 = 10_000;

/// When buffered chunks are written to the live directory and made durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlushPolicy {
    /// Flush once this many compressed bytes are waiting (default 256 KiB).
    pub max_pending_bytes: usize,
    /// Flush at least this often while ticks arrive (default 5 s).
    pub interval: Duration,
    /// Flush when a `PlayerLeave` event is recorded or `player_left` is called (default true).
    pub on_player_leave: bool,
}

impl Default for FlushPolicy {
    fn default() -> Self {
        FlushPolicy {
            max_pending_bytes: 256 << 10,
            interval: Duration::from_secs(5),
            on_player_leave: true,
        }
    }
}

/// Called on the writer thread when a snapshot is due, with the tick it will start at.
pub type SnapshotProvider = Arc<dyn Fn(u32) -> Option<Vec<u8>> + Send + Sync>;

/// Options of one recording.
#[derive(Clone)]
pub struct RecorderOptions {
    pub identity: RecordingIdentity,
    /// Chunking of the live segments (zstd level 3 by default: fast).
    pub chunk_policy: ChunkPolicy,
    pub flush: FlushPolicy,
    /// When the writer falls behind (default: wait up to 1 ms, then drop the tick and count it;
    /// see [`Backpressure`]).
    pub backpressure: Backpressure,
    /// How `finish` compacts.
    pub compaction: CompactOptions,
    pub snapshot_provider: Option<SnapshotProvider>,
    /// Largest accepted tick batch (default 1 MiB).
    pub max_batch_bytes: usize,
    /// Replace an existing finished file at the path instead of refusing (at the start and at
    /// `finish`). A live recording of the path is `on_existing`'s: with the default, kept aside
    /// and a fresh recording started; with [`OnExisting::Resume`], resumed, and its finish
    /// replaces the file.
    pub overwrite: bool,
    /// What to do with a live recording of the path that exists (default
    /// [`OnExisting::StartFresh`]: kept aside, a new recording started).
    pub on_existing: OnExisting,
    /// Who else sees the stream on its writer thread (e.g. a shadow buffer; see
    /// [`crate::shadow::ShadowBuffer`]).
    pub observers: Vec<Arc<dyn StreamObserver>>,
    /// The game server recording it, in a network of servers (e.g. `"eu-lobby-1"`): kept in the
    /// recording's metadata (FORMAT.md section 4, `server`), where the catalog reads it. 1 to
    /// [`MAX_SERVER_ID_BYTES`](crate::format::metadata::MAX_SERVER_ID_BYTES) bytes without
    /// control characters; `None` (the default) for none.
    pub server: Option<String>,
}

impl RecorderOptions {
    /// Checks what the chunk policy and the recording info do not: the largest tick batch must
    /// hold an empty tick and fit the format's limit for one tick, the flush interval and
    /// threshold must be positive, and the compaction options valid
    /// ([`CompactOptions::validate`]). The bindings check none of it themselves.
    pub fn validate(&self) -> Result<()> {
        if let Some(server) = &self.server {
            crate::format::metadata::check_server_id(server)?;
        }
        if self.flush.interval.is_zero() {
            return Err(Error::invalid(format!(
                "{} must be positive",
                option("flush_interval")
            )));
        }
        if self.flush.max_pending_bytes == 0 {
            return Err(Error::invalid(format!(
                "the flush threshold {} must be positive",
                option("flush_max_pending_bytes")
            )));
        }
        self.compaction.validate()?;
        let max = Limits::default().max_tick_bytes();
        if self.max_batch_bytes < 2 || self.max_batch_bytes > max {
            return Err(Error::invalid(format!(
                "{} must be {} (got {})",
                option("max_batch_bytes"),
                between(2, max),
                self.max_batch_bytes
            )));
        }
        Ok(())
    }
}

impl Default for RecorderOptions {
    fn default() -> Self {
        RecorderOptions {
            identity: RecordingIdentity::default(),
            chunk_policy: ChunkPolicy::default(),
            flush: FlushPolicy::default(),
            backpressure: Backpressure::Block {
                deadline: DEFAULT_BLOCK_DEADLINE,
            },
            compaction: CompactOptions::default(),
            snapshot_provider: None,
            max_batch_bytes: 1 << 20,
            overwrite: false,
            on_existing: OnExisting::StartFresh,
            observers: Vec::new(),
            server: None,
        }
    }
}

impl std::fmt::Debug for RecorderOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecorderOptions")
            .field("identity", &self.identity)
            .field("chunk_policy", &self.chunk_policy)
            .field("flush", &self.flush)
            .field("backpressure", &self.backpressure)
            .field("compaction", &self.compaction)
            .field("snapshot_provider", &self.snapshot_provider.is_some())
            .field("max_batch_bytes", &self.max_batch_bytes)
            .field("overwrite", &self.overwrite)
            .field("on_existing", &self.on_existing)
            .field("observers", &self.observers.len())
            .field("server", &self.server)
            .finish()
    }
}
