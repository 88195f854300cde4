//! Run checks before the board: when a run is registered its recording is checked against its
//! course's limits ([`CourseLimits`]), and a run that fails is stored as *held*, with the reasons
//! and the ticks ([`Hold`]): it is kept, listed as held, but never placed on a board (top, a
//! player's best, ranks, sum of best) nor served as a ghost, until a moderator clears it
//! ([`Catalog::clear_run`], an audited action: `run_reviews`).
//!
//! The checks ([`check_track`]), on the run as its ghost is loaded (the same track a ghost of it
//! shows), counting only recorded samples (never a pose the loader held across a silence):
//!
//! - speed: horizontal and vertical (up, down) blocks per tick between two recorded samples,
//!   and blocks covered in any one second (a window of the tick rate's ticks);
//! - teleports (a discontinuity: `Teleport`, or the entity reappearing) only into a zone the
//!   course allows ([`TeleportZone`]);
//! - no tick dropped by the recorder's backpressure (the metadata's `gaps`) inside the run;
//! - checkpoints in order: never one lower than one already reached; with the course's count
//!   of checkpoints set, every one reached;
//! - the recording's SHA-256, taken at registration and kept on the run's row, matching the file
//!   at its location when [`Catalog::check_run`] checks it again (a file swapped after
//!   registration).
//!
//! A course without limits of its own is checked with [`Movement::Sprinting`]'s.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};
use tickreel::format::Gap;
use tickreel::ghost::track::{X, Y, Z, mark};
use tickreel::ghost::{GhostRange, GhostTrack};
use tickreel::storage::Source;
use tickreel::{Error, Result};

use crate::backend::{Conn, Row};
use crate::bests::recompute_best;
use crate::location;
use crate::model::Run;
use crate::query::{R_RUN_COLUMNS, run_from};
use crate::{Catalog, now_ms};

/// The longest name [`Catalog::clear_run`] records as the moderator who cleared a run.
pub const MAX_MODERATOR_CHARS: usize = 64;

/// A movement preset: the limits of a course run on foot, sprinting (with jumps) or with an
/// elytra, in blocks at 20 ticks a second (Minecraft's physics, with a margin for lag and
/// knockback: walking tops 4.3 blocks/s, sprint-jumping 7.1, terminal falling 3.92 blocks/tick,
/// an elytra with fireworks about 33 blocks/s and more when diving).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Movement {
    Walking,
    Sprinting,
    Elytra,
}

impl Movement {
    pub const ALL: [Movement; 3] = [Movement::Walking, Movement::Sprinting, Movement::Elytra];

    pub fn as_str(self) -> &'static str {
        match self {
            Movement::Walking => "walking",
            Movement::Sprinting => "sprinting",
            Movement::Elytra => "elytra",
        }
    }

    pub fn parse(s: &str) -> Option<Movement> {
        Movement::ALL.into_iter().find(|m| m.as_str() == s)
    }

    /// The preset's limits, no teleport zone, checkpoints not counted.
    pub fn limits(self) -> CourseLimits {
        let (horizontal_tick, horizontal_second, up_tick, up_second) = match self {
            Movement::Walking => (0.5, 6.5, 0.65, 5.0),
            Movement::Sprinting => (1.0, 12.0, 0.75, 6.0),
            Movement::Elytra => (4.0, 70.0, 2.5, 40.0),
        };
        CourseLimits {
            movement: self,
            horizontal_tick,
            horizontal_second,
            up_tick,
            down_tick: 4.0,
            up_second,
            down_second: 80.0,
            teleports: Vec::new(),
            checkpoints: 0,
        }
    }
}

/// A box a teleport may land in (respawn points, a course's portals): corners inclusive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TeleportZone {
    pub min: [f64; 3],
    pub max: [f64; 3],
}

impl TeleportZone {
    /// The box between two corners, in any order.
    pub fn new(a: [f64; 3], b: [f64; 3]) -> TeleportZone {
        TeleportZone {
            min: std::array::from_fn(|i| a[i].min(b[i])),
            max: std::array::from_fn(|i| a[i].max(b[i])),
        }
    }

    pub fn contains(&self, p: [f64; 3]) -> bool {
        (0..3).all(|i| p[i] >= self.min[i] && p[i] <= self.max[i])
    }
}

/// What a run of a course may do. Speeds in blocks per tick (`*_tick`) and blocks covered in one
/// second (`*_second`, any window of the tick rate's ticks); `up` and `down` are vertical.
#[derive(Debug, Clone, PartialEq)]
pub struct CourseLimits {
    /// The preset the limits started from.
    pub movement: Movement,
    pub horizontal_tick: f64,
    pub horizontal_second: f64,
    pub up_tick: f64,
    pub down_tick: f64,
    pub up_second: f64,
    pub down_second: f64,
    /// Where a teleport may land; none: a run never teleports.
    pub teleports: Vec<TeleportZone>,
    /// How many checkpoints a run reaches (0: not counted, only their order is checked).
    pub checkpoints: u32,
}

impl Default for CourseLimits {
    fn default() -> CourseLimits {
        Movement::Sprinting.limits()
    }
}

impl CourseLimits {
    fn validate(&self) -> Result<()> {
        let speeds = [
            self.horizontal_tick,
            self.horizontal_second,
            self.up_tick,
            self.down_tick,
            self.up_second,
            self.down_second,
        ];
        if speeds.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
            return Err(Error::invalid(format!(
                "a course's speed limits are positive and finite ({speeds:?})"
            )));
        }
        if self
            .teleports
            .iter()
            .any(|z| z.min.iter().chain(&z.max).any(|v| !v.is_finite()))
        {
            return Err(Error::invalid("a teleport zone's corners are finite"));
        }
        Ok(())
    }

    /// The teleport zones as stored: `x1 y1 z1 x2 y2 z2` each, `;` between zones.
    fn zones_text(&self) -> String {
        let mut s = String::new();
        for (i, z) in self.teleports.iter().enumerate() {
            if i > 0 {
                s.push(';');
            }
            let _ = write!(
                s,
                "{} {} {} {} {} {}",
                z.min[0], z.min[1], z.min[2], z.max[0], z.max[1], z.max[2]
            );
        }
        s
    }

    /// Zones from [`CourseLimits::zones_text`]'s form (the CLI's `--teleport-zone` too).
    pub fn parse_zones(s: &str) -> Result<Vec<TeleportZone>> {
        s.split(';')
            .filter(|z| !z.trim().is_empty())
            .map(|z| {
                let v: Vec<f64> = z
                    .split_whitespace()
                    .map(str::parse)
                    .collect::<std::result::Result<_, _>>()
                    .map_err(|_| Error::invalid(format!("teleport zone \"{z}\": not numbers")))?;
                match v[..] {
                    [a, b, c, d, e, f] => Ok(TeleportZone::new([a, b, c], [d, e, f])),
                    _ => Err(Error::invalid(format!(
                        "teleport zone \"{z}\": six numbers, two corners x y z"
                    ))),
                }
            })
            .collect()
    }
}

/// Why a run is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HoldReason {
    HorizontalSpeed,
    VerticalSpeed,
    Teleport,
    Gap,
    CheckpointOrder,
    Hash,
}

impl HoldReason {
    pub const ALL: [HoldReason; 6] = [
        HoldReason::HorizontalSpeed,
        HoldReason::VerticalSpeed,
        HoldReason::Teleport,
        HoldReason::Gap,
        HoldReason::CheckpointOrder,
        HoldReason::Hash,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            HoldReason::HorizontalSpeed => "horizontal_speed",
            HoldReason::VerticalSpeed => "vertical_speed",
            HoldReason::Teleport => "teleport",
            HoldReason::Gap => "gap",
            HoldReason::CheckpointOrder => "checkpoint_order",
            HoldReason::Hash => "hash",
        }
    }

    pub fn parse(s: &str) -> Option<HoldReason> {
        HoldReason::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// Its number in C and Java (the order of [`HoldReason::ALL`], from 1).
    pub fn code(self) -> u8 {
        HoldReason::ALL.iter().position(|r| *r == self).unwrap_or(0) as u8 + 1
    }
}

/// One reason a run is held: the check, the first tick of the recording where it failed (none
/// for the hash), and what was seen (`5.00 blocks in one tick (at most 1.00), 17 ticks over`).
#[derive(Debug, Clone, PartialEq)]
pub struct Hold {
    pub reason: HoldReason,
    pub tick: Option<u32>,
    pub detail: String,
}

/// A run's check state: whether it is held, every reason found (the first of each kind), and
/// who cleared it if a moderator did.
#[derive(Debug, Clone, PartialEq)]
pub struct RunCheck {
    pub run_id: i64,
    pub held: bool,
    pub holds: Vec<Hold>,
    pub cleared_by: Option<String>,
    pub cleared_ms: Option<i64>,
}

/// One moderator action on a held run, from the audit log (`run_reviews`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReview {
    pub at_ms: i64,
    pub who: String,
    /// `clear`.
    pub action: String,
    pub run_id: i64,
    /// The reasons the run was held for, as they were.
    pub detail: String,
}

/// The first failure of one kind and how many ticks failed it.
struct Worst {
    first: Option<(u32, String)>,
    count: u32,
}

impl Worst {
    fn new() -> Worst {
        Worst {
            first: None,
            count: 0,
        }
    }
    fn note(&mut self, tick: u32, detail: impl FnOnce() -> String) {
        if self.first.is_none() {
            self.first = Some((tick, detail()));
        }
        self.count += 1;
    }
    fn hold(self, reason: HoldReason, out: &mut Vec<Hold>) {
        if let Some((tick, mut detail)) = self.first {
            if self.count > 1 {
                let _ = write!(detail, "; {} times in the run", self.count);
            }
            out.push(Hold {
                reason,
                tick: Some(tick),
                detail,
            });
        }
    }
}

/// A movement between two recorded samples: its end tick (relative), length in ticks, and the
/// horizontal, upward and downward blocks covered.
#[derive(Clone, Copy)]
struct Step {
    end: u32,
    ticks: u32,
    metric: [f64; 3],
}

/// Checks a run's `track` (as loaded for its ghost) against `limits`, with the recording's
/// dropped-tick `gaps`: every reason it is to be held (none: it may go on the board). Ticks in
/// the holds are the recording's.
///
/// A move between two recorded samples is taken to have lasted from the tick its start position
/// was first seen (a client that stops sends its last steps late, and a rotation-only update
/// repeats a stale position) to its end, but at most one second: a silence or a stale position
/// longer than that is not credited, so that standing still and then moving far in one update is
/// held.
pub fn check_track(track: &GhostTrack, gaps: &[Gap], limits: &CourseLimits) -> Vec<Hold> {
    let origin = track.origin_tick();
    let end = origin.saturating_add(track.duration_ticks());
    let mut holds = Vec::new();
    let (mut hs, mut vs, mut tp) = (Worst::new(), Worst::new(), Worst::new());
    let (xs, ys, zs) = (track.column(X), track.column(Y), track.column(Z));
    let mut steps: Vec<Step> = Vec::with_capacity(track.len());
    let mut prev: Option<usize> = None;
    // the tick the previous sample's position was first seen at (a rotation-only update repeats
    // the position: the move to the next one may have started before it)
    let mut fixed = 0u32;
    let credit = track.tick_rate().round().max(1.0) as u32;
    for i in 0..track.len() {
        let m = track.mark(i);
        if m & mark::HELD != 0 {
            continue;
        }
        let Some(a) = prev.replace(i) else {
            // the position the run starts with (held from before its first tick) may have been
            // there since then
            let held_since_start = (xs[i], ys[i], zs[i]) == (xs[0], ys[0], zs[0]);
            fixed = if held_since_start { 0 } else { track.tick(i) };
            continue;
        };
        let tick = origin + track.tick(i);
        let (dx, dy, dz) = (xs[i] - xs[a], ys[i] - ys[a], zs[i] - zs[a]);
        if (dx, dy, dz) == (0.0, 0.0, 0.0) && m & mark::BREAK == 0 {
            continue;
        }
        let since = std::mem::replace(&mut fixed, track.tick(i));
        let h = (dx * dx + dz * dz).sqrt();
        if m & mark::BREAK != 0 {
            let to = [xs[i], ys[i], zs[i]];
            if !limits.teleports.iter().any(|z| z.contains(to)) {
                tp.note(tick, || {
                    format!(
                        "a teleport of {:.1} blocks to ({:.1}, {:.1}, {:.1}), outside the \
                         course's teleport zones ({})",
                        (h * h + dy * dy).sqrt(),
                        to[0],
                        to[1],
                        to[2],
                        limits.teleports.len()
                    )
                });
            }
            continue;
        }
        // the ticks the move may have taken: since the position was first seen, but at most a
        // second (a silence, or a position left stale, longer than that is not credited)
        let ticks = (track.tick(i) - since).clamp(1, credit);
        let dt = f64::from(ticks);
        let (hv, up, down) = (h / dt, dy.max(0.0) / dt, (-dy).max(0.0) / dt);
        if hv > limits.horizontal_tick {
            hs.note(tick, || {
                format!(
                    "{hv:.2} blocks a tick horizontally (at most {:.2})",
                    limits.horizontal_tick
                )
            });
        }
        if up > limits.up_tick || down > limits.down_tick {
            vs.note(tick, || {
                format!(
                    "{:.2} blocks a tick {} (at most {:.2})",
                    up.max(down),
                    if up > limits.up_tick { "up" } else { "down" },
                    if up > limits.up_tick {
                        limits.up_tick
                    } else {
                        limits.down_tick
                    }
                )
            });
        }
        steps.push(Step {
            end: track.tick(i),
            ticks,
            metric: [h, dy.max(0.0), (-dy).max(0.0)],
        });
    }
    // blocks covered in any one second: a window of `w` ticks ending at each step's end, the
    // step straddling its start counted in proportion
    let w = track.tick_rate().round().max(1.0) as u32;
    let per_second = [
        limits.horizontal_second,
        limits.up_second,
        limits.down_second,
    ];
    let (mut hsec, mut vsec) = (Worst::new(), Worst::new());
    let mut sum = [0.0f64; 3];
    let mut first = 0usize;
    for (k, step) in steps.iter().enumerate() {
        for (s, v) in sum.iter_mut().zip(step.metric) {
            *s += v;
        }
        let from = step.end.saturating_sub(w);
        while first < k && steps[first].end <= from {
            for (s, v) in sum.iter_mut().zip(steps[first].metric) {
                *s -= v;
            }
            first += 1;
        }
        let s0 = steps[first];
        let start = s0.end - s0.ticks;
        let cut = if start < from {
            f64::from(from - start) / f64::from(s0.ticks.max(1))
        } else {
            0.0
        };
        let tick = origin + step.end;
        let whats = ["horizontally", "up", "down"];
        for (c, ((total, limit), what)) in sum.iter().zip(per_second).zip(whats).enumerate() {
            let covered = total - s0.metric[c] * cut;
            if covered > limit + 1e-9 {
                let worst = if c == 0 { &mut hsec } else { &mut vsec };
                worst.note(tick, || {
                    format!("{covered:.2} blocks {what} in one second (at most {limit:.2})")
                });
            }
        }
    }
    hs.hold(HoldReason::HorizontalSpeed, &mut holds);
    if holds.is_empty() {
        hsec.hold(HoldReason::HorizontalSpeed, &mut holds);
    }
    let n = holds.len();
    vs.hold(HoldReason::VerticalSpeed, &mut holds);
    if holds.len() == n {
        vsec.hold(HoldReason::VerticalSpeed, &mut holds);
    }
    tp.hold(HoldReason::Teleport, &mut holds);
    // ticks the recorder dropped inside the run
    if let Some(g) = gaps.iter().find(|g| g.from <= end && g.to >= origin) {
        let n: u64 = gaps
            .iter()
            .filter(|g| g.from <= end && g.to >= origin)
            .map(|g| u64::from(g.to.min(end) - g.from.max(origin)) + 1)
            .sum();
        holds.push(Hold {
            reason: HoldReason::Gap,
            tick: Some(g.from.max(origin)),
            detail: format!(
                "{n} ticks dropped by the recorder inside the run (ticks {} to {})",
                g.from, g.to
            ),
        });
    }
    // checkpoints: never back to a lower one; every one when the course counts them
    let mut reached: Option<u32> = None;
    let mut distinct: Vec<u32> = Vec::new();
    let mut order = Worst::new();
    for s in track.splits() {
        if let Some(r) = reached
            && s.checkpoint < r
        {
            order.note(origin + s.tick, || {
                format!("checkpoint {} after checkpoint {r}", s.checkpoint)
            });
        }
        reached = Some(reached.map_or(s.checkpoint, |r| r.max(s.checkpoint)));
        if !distinct.contains(&s.checkpoint) {
            distinct.push(s.checkpoint);
        }
    }
    order.hold(HoldReason::CheckpointOrder, &mut holds);
    if limits.checkpoints > 0
        && (distinct.len() as u64) < u64::from(limits.checkpoints)
        && !holds
            .iter()
            .any(|h| h.reason == HoldReason::CheckpointOrder)
    {
        holds.push(Hold {
            reason: HoldReason::CheckpointOrder,
            tick: Some(end),
            detail: format!(
                "{} of the course's {} checkpoints reached",
                distinct.len(),
                limits.checkpoints
            ),
        });
    }
    holds
}

/// The SHA-256 of everything `source` holds, as 64 lower-case hex digits.
pub(crate) fn sha256_of(source: &dyn Source) -> Result<String> {
    const BLOCK: usize = 1 << 20;
    let len = source.len()?;
    let mut h = Sha256::new();
    let mut at = 0u64;
    while at < len {
        let want = (len - at).min(BLOCK as u64) as usize;
        let b = source.read_exact_at(at, want)?;
        h.update(&b);
        at += want as u64;
    }
    let mut hex = String::with_capacity(64);
    for byte in h.finalize().iter() {
        let _ = write!(hex, "{byte:02x}");
    }
    Ok(hex)
}

fn hold_from(row: &Row, at: usize) -> Result<Hold> {
    let reason = row.text(at)?;
    Ok(Hold {
        reason: HoldReason::parse(&reason)
            .ok_or_else(|| Error::corrupt(format!("catalog: unknown hold reason \"{reason}\"")))?,
        tick: row.opt_int(at + 1)?.map(|t| t as u32),
        detail: row.text(at + 2)?,
    })
}

/// Stores `holds` of run `run_id` (replacing earlier holds of the same reasons).
pub(crate) fn store_holds(c: &mut dyn Conn, run_id: i64, holds: &[Hold]) -> Result<()> {
    for h in holds {
        c.execute(
            "DELETE FROM run_holds WHERE run_id = $1 AND reason = $2",
            &[run_id.into(), h.reason.as_str().into()],
        )?;
        c.execute(
            "INSERT INTO run_holds (run_id, reason, tick, detail) VALUES ($1, $2, $3, $4)",
            &[
                run_id.into(),
                h.reason.as_str().into(),
                h.tick.map(i64::from).into(),
                h.detail.as_str().into(),
            ],
        )?;
    }
    Ok(())
}

fn holds_of(c: &mut dyn Conn, run_id: i64) -> Result<Vec<Hold>> {
    let rows = c.query(
        "SELECT reason, tick, detail FROM run_holds WHERE run_id = $1 ORDER BY tick, reason",
        &[run_id.into()],
    )?;
    let mut holds: Vec<Hold> = rows
        .iter()
        .map(|r| hold_from(r, 0))
        .collect::<Result<_>>()?;
    holds.sort_by_key(|h| (h.tick.is_none(), h.tick, h.reason));
    Ok(holds)
}

fn check_state(c: &mut dyn Conn, run_id: i64) -> Result<Option<RunCheck>> {
    let rows = c.query(
        "SELECT held, cleared_by, cleared_ms FROM runs WHERE id = $1",
        &[run_id.into()],
    )?;
    let Some(row) = rows.first() else {
        return Ok(None);
    };
    Ok(Some(RunCheck {
        run_id,
        held: row.int(0)? != 0,
        cleared_by: row.opt_text(1)?,
        cleared_ms: row.opt_int(2)?,
        holds: holds_of(c, run_id)?,
    }))
}

/// The limits of `course` as stored, if it has its own.
pub(crate) fn stored_limits(c: &mut dyn Conn, course: &str) -> Result<Option<CourseLimits>> {
    let rows = c.query(
        "SELECT movement, horizontal_tick, horizontal_second, up_tick, down_tick, up_second,
             down_second, teleports, checkpoints FROM course_limits WHERE course = $1",
        &[course.into()],
    )?;
    let Some(r) = rows.first() else {
        return Ok(None);
    };
    let movement = r.text(0)?;
    Ok(Some(CourseLimits {
        movement: Movement::parse(&movement)
            .ok_or_else(|| Error::corrupt(format!("catalog: unknown movement \"{movement}\"")))?,
        horizontal_tick: r.real(1)?,
        horizontal_second: r.real(2)?,
        up_tick: r.real(3)?,
        down_tick: r.real(4)?,
        up_second: r.real(5)?,
        down_second: r.real(6)?,
        teleports: CourseLimits::parse_zones(&r.text(7)?)?,
        checkpoints: r.u32(8)?,
    }))
}

impl Catalog {
    /// Sets (replaces) the limits runs of `course` are checked against from now on (runs
    /// registered before keep their check).
    pub fn set_course_limits(&self, course: &str, limits: &CourseLimits) -> Result<()> {
        if course.is_empty() {
            return Err(Error::invalid("course limits need a course"));
        }
        limits.validate()?;
        let zones = limits.zones_text();
        self.tx(|c| {
            c.execute(
                "DELETE FROM course_limits WHERE course = $1",
                &[course.into()],
            )?;
            c.execute(
                "INSERT INTO course_limits (course, movement, horizontal_tick, horizontal_second,
                     up_tick, down_tick, up_second, down_second, teleports, checkpoints)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                &[
                    course.into(),
                    limits.movement.as_str().into(),
                    limits.horizontal_tick.into(),
                    limits.horizontal_second.into(),
                    limits.up_tick.into(),
                    limits.down_tick.into(),
                    limits.up_second.into(),
                    limits.down_second.into(),
                    zones.as_str().into(),
                    limits.checkpoints.into(),
                ],
            )?;
            Ok(())
        })
    }

    /// The limits runs of `course` are checked against: its own, else
    /// [`Movement::Sprinting`]'s.
    pub fn course_limits(&self, course: &str) -> Result<CourseLimits> {
        Ok(self.tx(|c| stored_limits(c, course))?.unwrap_or_default())
    }

    /// A run's check state as stored (`None`: no such run).
    pub fn run_check(&self, run_id: i64) -> Result<Option<RunCheck>> {
        self.tx(|c| check_state(c, run_id))
    }

    /// Checks run `run_id` again: reads its recording at its location, compares the file's
    /// SHA-256 with the one taken at registration, and runs the checks against the course's
    /// limits now. A failing run is held (it leaves the boards; a run a moderator cleared is
    /// held again only when its file changed); a passing run keeps its state. Returns the state
    /// after the check. `InvalidArgument` when there is no such run.
    pub fn check_run(&self, run_id: i64) -> Result<RunCheck> {
        let (run, sha) = self
            .tx(|c| {
                let rows = c.query(
                    &format!(
                        "SELECT {R_RUN_COLUMNS}, r.recording_sha256 FROM runs r
                         JOIN recordings g ON g.id = r.recording_id WHERE r.id = $1"
                    ),
                    &[run_id.into()],
                )?;
                rows.first()
                    .map(|r| Ok::<_, Error>((run_from(r, 0)?, r.opt_text(18)?)))
                    .transpose()
            })?
            .ok_or_else(|| Error::invalid(format!("no run {run_id} in the catalog")))?;
        let limits = self.course_limits(&run.course)?;
        let mut holds = Vec::new();
        match check_file(&run, sha.as_deref(), &limits) {
            Ok(mut found) => holds.append(&mut found),
            // the recording is gone or no longer a recording: its hash cannot match
            Err(e) => holds.push(Hold {
                reason: HoldReason::Hash,
                tick: None,
                detail: format!("the recording at {} cannot be read: {e}", run.location),
            }),
        }
        self.tx(|c| {
            let state = check_state(c, run_id)?
                .ok_or_else(|| Error::invalid(format!("no run {run_id} in the catalog")))?;
            let holding: Vec<Hold> = if state.cleared_by.is_some() {
                holds
                    .iter()
                    .filter(|h| h.reason == HoldReason::Hash)
                    .cloned()
                    .collect()
            } else {
                holds.clone()
            };
            if !holding.is_empty() {
                store_holds(c, run_id, &holding)?;
                c.execute("UPDATE runs SET held = 1 WHERE id = $1", &[run_id.into()])?;
                recompute_best(c, &run.course, &run.player.to_string())?;
            }
            Ok(check_state(c, run_id)?.expect("the run was read above"))
        })
    }

    /// Clears held run `run_id` as moderator `by` (1 to [`MAX_MODERATOR_CHARS`] characters, no
    /// control characters): it goes on the boards (if valid) and serves as a ghost. The action is
    /// appended to the audit log ([`Catalog::run_reviews`]) with the reasons it was held for.
    /// `InvalidArgument` when there is no such run, `InvalidState` when it is not held.
    pub fn clear_run(&self, run_id: i64, by: &str) -> Result<RunCheck> {
        let n = by.chars().count();
        if n == 0 || n > MAX_MODERATOR_CHARS || by.chars().any(char::is_control) {
            return Err(Error::invalid(format!(
                "a moderator's name is 1 to {MAX_MODERATOR_CHARS} characters without control \
                 characters ({n} given)"
            )));
        }
        let now = now_ms();
        self.tx(|c| {
            let state = check_state(c, run_id)?
                .ok_or_else(|| Error::invalid(format!("no run {run_id} in the catalog")))?;
            if !state.held {
                return Err(Error::InvalidState(format!("run {run_id} is not held")));
            }
            let detail = state
                .holds
                .iter()
                .map(|h| format!("{}: {}", h.reason.as_str(), h.detail))
                .collect::<Vec<_>>()
                .join(" | ");
            c.execute(
                "UPDATE runs SET held = 0, cleared_by = $1, cleared_ms = $2 WHERE id = $3",
                &[by.into(), now.into(), run_id.into()],
            )?;
            c.execute(
                "INSERT INTO run_reviews (at_ms, who, action, run_id, detail)
                 VALUES ($1, $2, $3, $4, $5)",
                &[
                    now.into(),
                    by.into(),
                    "clear".into(),
                    run_id.into(),
                    detail.into(),
                ],
            )?;
            let row = c.one(
                "SELECT course, player FROM runs WHERE id = $1",
                &[run_id.into()],
            )?;
            recompute_best(c, &row.text(0)?, &row.text(1)?)?;
            Ok(check_state(c, run_id)?.expect("the run was read above"))
        })
    }

    /// The held runs (listed recordings) of `course` (or of every course), newest first, at
    /// most `n`, each with its reasons.
    pub fn held_runs(&self, course: Option<&str>, n: u64) -> Result<Vec<(Run, Vec<Hold>)>> {
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        self.tx(|c| {
            let base = format!(
                "SELECT {R_RUN_COLUMNS} FROM runs r JOIN recordings g ON g.id = r.recording_id
                 WHERE r.held = 1 AND g.deleting_ms IS NULL"
            );
            let order = "ORDER BY r.achieved_ms DESC, r.id DESC";
            let rows = match course {
                Some(course) => c.query(
                    &format!("{base} AND r.course = $1 {order} LIMIT $2"),
                    &[course.into(), n.into()],
                )?,
                None => c.query(&format!("{base} {order} LIMIT $1"), &[n.into()])?,
            };
            rows.iter()
                .map(|r| {
                    let run = run_from(r, 0)?;
                    let holds = holds_of(c, run.id)?;
                    Ok((run, holds))
                })
                .collect()
        })
    }

    /// The newest `n` moderator actions on held runs (at most
    /// [`crate::audit::MAX_AUDIT_ROWS`]), newest first.
    pub fn run_reviews(&self, n: u64) -> Result<Vec<RunReview>> {
        let n = n.min(crate::audit::MAX_AUDIT_ROWS) as i64;
        let rows = self.tx(|c| {
            c.query(
                "SELECT at_ms, who, action, run_id, detail FROM run_reviews
                 ORDER BY at_ms DESC, id DESC LIMIT $1",
                &[n.into()],
            )
        })?;
        rows.iter()
            .map(|r| {
                Ok(RunReview {
                    at_ms: r.int(0)?,
                    who: r.text(1)?,
                    action: r.text(2)?,
                    run_id: r.int(3)?,
                    detail: r.text(4)?,
                })
            })
            .collect()
    }
}

/// The checks of a registered run against the file now at its location.
fn check_file(run: &Run, sha: Option<&str>, limits: &CourseLimits) -> Result<Vec<Hold>> {
    #[cfg(feature = "object")]
    let opened = location::open(&run.location, None)?;
    #[cfg(not(feature = "object"))]
    let opened = location::open(&run.location)?;
    let mut holds = Vec::new();
    if let Some(expected) = sha {
        let now = sha256_of(opened.source.as_ref())?;
        if now != expected {
            holds.push(Hold {
                reason: HoldReason::Hash,
                tick: None,
                detail: format!(
                    "the recording's SHA-256 is {now}, not {expected} as registered: the file \
                     changed after registration"
                ),
            });
            // what the new file holds is not the run that was registered
            return Ok(holds);
        }
    }
    let track = GhostTrack::load(
        &opened.reader,
        run.entity,
        GhostRange::ticks(run.start_tick, run.end_tick),
    )?;
    holds.extend(check_track(
        &track,
        &opened.reader.metadata().library.gaps,
        limits,
    ));
    Ok(holds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tickreel::Pose;
    use tickreel::ghost::RunBuilder;

    fn track(poses: &[(u32, [f64; 3])], teleports: &[u32], cps: &[(u32, u32)]) -> GhostTrack {
        let mut b = RunBuilder::new(1, 20.0);
        for &(t, p) in poses {
            let pose = Pose::from_f64(p[0], p[1], p[2], 0.0, 0.0);
            if teleports.contains(&t) {
                b.teleport(t, pose).unwrap();
            } else {
                b.pose(t, pose).unwrap();
            }
        }
        for &(t, i) in cps {
            b.checkpoint(t, i);
        }
        b.build(&GhostRange::all(), &Default::default()).unwrap()
    }

    fn walk(ticks: u32, speed: f64) -> Vec<(u32, [f64; 3])> {
        (0..=ticks)
            .map(|t| (t, [f64::from(t) * speed, 64.0, 0.0]))
            .collect()
    }

    fn reasons(h: &[Hold]) -> Vec<HoldReason> {
        h.iter().map(|h| h.reason).collect()
    }

    #[test]
    fn an_honest_sprint_passes_and_a_speed_spike_is_held_at_its_tick() {
        let limits = CourseLimits::default();
        assert!(check_track(&track(&walk(100, 0.28), &[], &[]), &[], &limits).is_empty());
        let mut spike = walk(100, 0.28);
        for p in &mut spike[41..] {
            p.1[0] += 3.0;
        }
        let h = check_track(&track(&spike, &[], &[]), &[], &limits);
        assert_eq!(reasons(&h), [HoldReason::HorizontalSpeed]);
        assert_eq!(h[0].tick, Some(41));
        assert!(
            h[0].detail.contains("3.28 blocks a tick"),
            "{}",
            h[0].detail
        );
    }

    #[test]
    fn a_steady_speed_under_the_tick_limit_is_held_over_a_second() {
        // 0.9 blocks a tick passes the sprinting tick limit (1.0) but covers 18 blocks a second
        let h = check_track(
            &track(&walk(60, 0.9), &[], &[]),
            &[],
            &CourseLimits::default(),
        );
        assert_eq!(reasons(&h), [HoldReason::HorizontalSpeed]);
        assert!(h[0].detail.contains("in one second"), "{}", h[0].detail);
        assert_eq!(h[0].tick, Some(14));
        // an elytra course allows it
        assert!(
            check_track(
                &track(&walk(60, 0.9), &[], &[]),
                &[],
                &Movement::Elytra.limits()
            )
            .is_empty()
        );
        // samples every 4 ticks: the same speed measured between them
        let sparse: Vec<_> = walk(60, 0.9).into_iter().step_by(4).collect();
        let h = check_track(&track(&sparse, &[], &[]), &[], &CourseLimits::default());
        assert_eq!(reasons(&h), [HoldReason::HorizontalSpeed]);
    }

    #[test]
    fn a_stale_position_is_credited_up_to_a_second() {
        // walks 0.25 a tick to tick 10 (sent at 6, not at 10), stands, turns its head at 29
        // (repeating the position of tick 6), and sends its next position at 30: 1.25 blocks
        // since tick 6, not in one tick
        let mut poses = vec![
            (0, [0.0, 64.0, 0.0]),
            (3, [0.75, 64.0, 0.0]),
            (6, [1.5, 64.0, 0.0]),
        ];
        poses.push((29, [1.5, 64.0, 0.0]));
        poses.push((30, [2.75, 64.0, 0.0]));
        assert!(check_track(&track(&poses, &[], &[]), &[], &CourseLimits::default()).is_empty());
        // standing from tick 6 and then 25 blocks in one update: a second is credited, no more
        poses[4].1[0] = 26.5;
        let h = check_track(&track(&poses, &[], &[]), &[], &CourseLimits::default());
        assert_eq!(reasons(&h), [HoldReason::HorizontalSpeed]);
        assert_eq!(h[0].tick, Some(30));
        assert!(
            h[0].detail.starts_with("1.25 blocks a tick"),
            "{}",
            h[0].detail
        );
    }

    #[test]
    fn flying_up_is_held_and_falling_is_not() {
        let up: Vec<_> = (0..=40)
            .map(|t| (t, [0.0, 64.0 + f64::from(t) * 0.5, 0.0]))
            .collect();
        let h = check_track(&track(&up, &[], &[]), &[], &CourseLimits::default());
        assert_eq!(reasons(&h), [HoldReason::VerticalSpeed]);
        assert!(h[0].detail.contains("up in one second"), "{}", h[0].detail);
        let fall: Vec<_> = (0..=40)
            .map(|t| (t, [0.0, 200.0 - f64::from(t) * 3.5, 0.0]))
            .collect();
        assert!(check_track(&track(&fall, &[], &[]), &[], &CourseLimits::default()).is_empty());
    }

    #[test]
    fn teleports_only_into_the_courses_zones() {
        let mut poses = walk(40, 0.2);
        for p in &mut poses[20..] {
            p.1[0] += 500.0;
        }
        let t = track(&poses, &[20], &[]);
        let h = check_track(&t, &[], &CourseLimits::default());
        assert_eq!(reasons(&h), [HoldReason::Teleport]);
        assert_eq!(h[0].tick, Some(20));
        let limits = CourseLimits {
            teleports: vec![TeleportZone::new([490.0, 60.0, -5.0], [510.0, 70.0, 5.0])],
            ..CourseLimits::default()
        };
        assert!(check_track(&t, &[], &limits).is_empty());
        let text = limits.zones_text();
        assert_eq!(CourseLimits::parse_zones(&text).unwrap(), limits.teleports);
    }

    #[test]
    fn dropped_ticks_inside_the_run_and_checkpoints_out_of_order() {
        let t = track(&walk(40, 0.2), &[], &[(10, 1), (20, 3), (30, 2)]);
        let gaps = [Gap { from: 15, to: 17 }, Gap { from: 60, to: 70 }];
        let h = check_track(&t, &gaps, &CourseLimits::default());
        assert_eq!(reasons(&h), [HoldReason::Gap, HoldReason::CheckpointOrder]);
        assert_eq!(h[0].tick, Some(15));
        assert!(
            h[0].detail.starts_with("3 ticks dropped"),
            "{}",
            h[0].detail
        );
        assert_eq!(h[1].tick, Some(30));
        // in order but fewer than the course's count
        let t = track(&walk(40, 0.2), &[], &[(10, 1), (20, 2)]);
        let mut limits = CourseLimits::default();
        assert!(check_track(&t, &[Gap { from: 41, to: 45 }], &limits).is_empty());
        limits.checkpoints = 3;
        assert_eq!(
            reasons(&check_track(&t, &[], &limits)),
            [HoldReason::CheckpointOrder]
        );
    }
}
