//! What the catalog holds, as Rust values: recordings, runs and their splits, places on a
//! course's board, shadow-play reports. Times are exact ticks; seconds are derived from the
//! recording's tick rate ([`Run::seconds`]).

use tickreel::ghost::{GhostRange, Split};
use uuid::Uuid;

/// A registered recording, the catalog's row for one: where it lives and a summary of what it
/// holds. (Named for the catalog: `tickreel::play::Recording` is a recording opened for playback.)
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogRecording {
    pub id: i64,
    /// Where the file lives: an absolute path or an object URL (`s3://bucket/key`).
    pub location: String,
    /// The recording's own id (from its header), if it has one.
    pub recording_uuid: Option<Uuid>,
    /// The world's id from the header, if it was set.
    pub world: Option<Uuid>,
    /// The world's version from the header (the map's version), if it was set.
    pub world_version: Option<Uuid>,
    /// The game server that recorded it (its metadata's `server`), if it was set.
    pub server: Option<String>,
    /// Wall-clock start, milliseconds since the Unix epoch (the header's timestamp).
    pub started_ms: i64,
    pub first_tick: u32,
    pub last_tick: u32,
    pub tick_rate: f64,
    pub size_bytes: u64,
    pub entity_count: u32,
    /// One line: ticks, chunks, events, dropped ticks.
    pub summary: String,
    pub registered_ms: i64,
}

impl CatalogRecording {
    /// Ticks from the first to the last, inclusive.
    pub fn duration_ticks(&self) -> u32 {
        self.last_tick.saturating_sub(self.first_tick) + 1
    }
}

/// A run to register: who ran which course, where in the recording.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSpec {
    pub course: String,
    pub player: Uuid,
    pub player_name: String,
    /// The player's entity id in the recording.
    pub entity: u32,
    /// Which part of the entity's recorded life is the run (e.g. from checkpoint 0 to the
    /// finish checkpoint). The default is the entity's whole presence.
    pub range: GhostRange,
    /// Whether the run counts on the board (a run flagged by anticheat may be kept invalid).
    pub valid: bool,
    /// Anticheat or plugin flags, stored as given.
    pub flags: u64,
    /// When the run was achieved (ms since the epoch); by default the recording's start plus the
    /// run's end tick. Orders ties: the earlier run ranks first.
    pub achieved_ms: Option<i64>,
}

impl RunSpec {
    /// A valid run of `entity`'s whole presence, without flags.
    pub fn new(course: &str, player: Uuid, player_name: &str, entity: u32) -> RunSpec {
        RunSpec {
            course: course.to_owned(),
            player,
            player_name: player_name.to_owned(),
            entity,
            range: GhostRange::all(),
            valid: true,
            flags: 0,
            achieved_ms: None,
        }
    }
    /// The same run over `range`.
    pub fn range(mut self, range: GhostRange) -> RunSpec {
        self.range = range;
        self
    }
}

/// A registered run.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub id: i64,
    pub recording_id: i64,
    pub course: String,
    pub player: Uuid,
    pub player_name: String,
    pub entity: u32,
    /// The run's first and last tick in the recording.
    pub start_tick: u32,
    pub end_tick: u32,
    /// The time: `end_tick - start_tick`, exact.
    pub ticks: u32,
    pub tick_rate: f64,
    pub achieved_ms: i64,
    pub valid: bool,
    pub flags: u64,
    /// The game server it was run on (its recording's), if the recording named one.
    pub server: Option<String>,
    /// The world (map) and its version it was run on, from the recording's header, if set.
    pub world: Option<Uuid>,
    pub world_version: Option<Uuid>,
    /// A check failed when it was registered or checked again ([`crate::checks`]): it is on no
    /// board and serves as no ghost until a moderator clears it
    /// ([`Catalog::clear_run`](crate::Catalog::clear_run)).
    pub held: bool,
    /// Where its recording lives: a path or an object URL
    /// ([`Catalog::open_recording`](crate::Catalog::open_recording) opens it).
    pub location: String,
}

impl Run {
    /// The time in seconds (ticks divided by the tick rate).
    pub fn seconds(&self) -> f64 {
        f64::from(self.ticks) / self.tick_rate
    }
    /// The time as shown: `83.45 s`.
    pub fn shown(&self) -> String {
        format!("{:.2} s", self.seconds())
    }
}

/// A place on a course's board: a player's best run and its rank (1 is the best; equal times
/// are ranked by the earlier run).
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    pub rank: u64,
    pub run: Run,
}

/// Registered runs' splits: the checkpoint markers of the run, ticks from its start.
pub type Splits = Vec<Split>;

/// What [`crate::Catalog::register`] stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Registered {
    pub recording_id: i64,
    /// The runs, in the order given.
    pub runs: Vec<Run>,
}

/// One segment of a sum of best: from a checkpoint (`None`: the start) to the next (`None`: the
/// finish), its best time and the run that set it.
#[derive(Debug, Clone, PartialEq)]
pub struct BestSegment {
    pub from: Option<u32>,
    pub to: Option<u32>,
    pub ticks: u32,
    pub run_id: i64,
}

/// The sum of best segments of a course (of one player or of the whole board), along the
/// route (sequence of checkpoints) of the fastest run; runs of another route are not counted.
#[derive(Debug, Clone, PartialEq)]
pub struct SumOfBest {
    pub segments: Vec<BestSegment>,
    pub total_ticks: u64,
    pub tick_rate: f64,
    /// How many runs took that route.
    pub runs: usize,
}

impl SumOfBest {
    pub fn seconds(&self) -> f64 {
        self.total_ticks as f64 / self.tick_rate
    }

    /// A live attempt's splits against these segments as gold (the player's own sum of best:
    /// [`Catalog::sum_of_best`](crate::Catalog::sum_of_best) with the player), along their route.
    pub fn gold_splits(&self) -> tickreel::Result<tickreel::ghost::GoldSplits> {
        let route: Vec<u32> = self.segments.iter().filter_map(|s| s.to).collect();
        let gold: Vec<u32> = self.segments.iter().map(|s| s.ticks).collect();
        tickreel::ghost::GoldSplits::new(&route, &gold, self.tick_rate)
    }
}

/// A shadow-play report's state: open until someone closes it, or decides on it from the viewer
/// (reviewed: watched, nothing to do; actioned: watched, and something was done).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportStatus {
    Open,
    Closed,
    Reviewed,
    Actioned,
}

impl ReportStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ReportStatus::Open => "open",
            ReportStatus::Closed => "closed",
            ReportStatus::Reviewed => "reviewed",
            ReportStatus::Actioned => "actioned",
        }
    }
    pub fn parse(s: &str) -> Option<ReportStatus> {
        match s {
            "open" => Some(ReportStatus::Open),
            "closed" => Some(ReportStatus::Closed),
            "reviewed" => Some(ReportStatus::Reviewed),
            "actioned" => Some(ReportStatus::Actioned),
            _ => None,
        }
    }
}

/// A report to file.
#[derive(Debug, Clone, PartialEq)]
pub struct NewReport {
    pub reported: Uuid,
    pub reported_name: String,
    pub reporter: Uuid,
    pub reason: String,
    /// When it was made (ms since the epoch); now by default.
    pub created_ms: Option<i64>,
    /// The server the player was reported on; by default the one its recording names.
    pub server: Option<String>,
}

/// A filed shadow-play report.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub id: i64,
    pub reported: Uuid,
    pub reported_name: String,
    pub reporter: Uuid,
    pub reason: String,
    pub created_ms: i64,
    pub status: ReportStatus,
    /// The recording the report wrote (shadow play's cut around the reported player).
    pub recording_id: Option<i64>,
    /// Who last set the status with [`Catalog::review_report`](crate::Catalog::review_report),
    /// and when (ms since the epoch).
    pub reviewed_by: Option<String>,
    pub reviewed_ms: Option<i64>,
    /// The reported player's figures, from that recording's analysis.
    pub figures: ReportFigures,
    /// The server the player was reported on, if known.
    pub server: Option<String>,
    /// Where its recording lives (a path or an object URL), if it has one
    /// ([`Catalog::open_recording`](crate::Catalog::open_recording) opens it).
    pub location: Option<String>,
}

/// A row that points at a recording: [`Catalog::open_recording`](crate::Catalog::open_recording)
/// opens the recording from it.
pub trait Located {
    /// Where the recording lives (a path or an object URL); `None` for a row without one.
    fn location(&self) -> Option<&str>;
}

/// A bare location (what C and Java hand over from a row); empty is none.
impl Located for str {
    fn location(&self) -> Option<&str> {
        (!self.is_empty()).then_some(self)
    }
}

impl Located for CatalogRecording {
    fn location(&self) -> Option<&str> {
        Some(&self.location)
    }
}
impl Located for Run {
    fn location(&self) -> Option<&str> {
        Some(&self.location)
    }
}
impl Located for Placed {
    fn location(&self) -> Option<&str> {
        Some(&self.run.location)
    }
}
impl Located for Report {
    fn location(&self) -> Option<&str> {
        self.location.as_deref()
    }
}

/// The reported player's figures on a report row, from the analysis of the report's recording
/// (the definitions are the analysis's, FORMAT.md `analysis`). `None`: not known (a row filed
/// before schema version 4, a report without a recording, or a recording whose analysis does
/// not describe the player); counts the analysis leaves out are 0, reach without an attack is
/// `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ReportFigures {
    pub blocks_broken: Option<u64>,
    pub blocks_placed: Option<u64>,
    /// Attacks the player made.
    pub attacks: Option<u64>,
    /// Attacks the player received.
    pub attacked: Option<u64>,
    pub attacks_per_second_max: Option<u64>,
    /// Blocks, attacker to target.
    pub reach_max: Option<f64>,
    pub reach_p99: Option<f64>,
    /// Horizontal blocks per second.
    pub speed_max: Option<f64>,
    /// Degrees in one tick.
    pub rotation_max: Option<f64>,
}

/// A figure staff sort reports by (largest first; reports without it last).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFigure {
    BlocksBroken,
    BlocksPlaced,
    Attacks,
    Attacked,
    AttacksPerSecondMax,
    ReachMax,
    ReachP99,
    SpeedMax,
    RotationMax,
}

impl ReportFigure {
    pub const ALL: [ReportFigure; 9] = [
        ReportFigure::BlocksBroken,
        ReportFigure::BlocksPlaced,
        ReportFigure::Attacks,
        ReportFigure::Attacked,
        ReportFigure::AttacksPerSecondMax,
        ReportFigure::ReachMax,
        ReportFigure::ReachP99,
        ReportFigure::SpeedMax,
        ReportFigure::RotationMax,
    ];

    /// Its column in `reports` (the analysis's key of the same figure, except `speed` and
    /// `turn` for `speed_max` and `rotation_max`).
    pub fn column(self) -> &'static str {
        match self {
            ReportFigure::BlocksBroken => "blocks_broken",
            ReportFigure::BlocksPlaced => "blocks_placed",
            ReportFigure::Attacks => "attacks",
            ReportFigure::Attacked => "attacked",
            ReportFigure::AttacksPerSecondMax => "attacks_per_second_max",
            ReportFigure::ReachMax => "reach_max",
            ReportFigure::ReachP99 => "reach_p99",
            ReportFigure::SpeedMax => "speed_max",
            ReportFigure::RotationMax => "rotation_max",
        }
    }

    pub fn parse(s: &str) -> Option<ReportFigure> {
        ReportFigure::ALL.into_iter().find(|f| f.column() == s)
    }
}
