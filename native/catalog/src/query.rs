//! The catalog's questions: a course's board (top N, one row per player: their best), a
//! player's best and rank, the runs around a rank, a player's recent runs, a run's splits, the
//! sum of best segments, the recordings. Ranks order equal times by the earlier run (then the
//! lower run id). Recordings being pruned are listed nowhere.

use tickreel::ghost::Split;
use tickreel::{Error, Result};
use uuid::Uuid;

use crate::backend::{Conn, Row, Value};
use crate::model::{BestSegment, CatalogRecording, Placed, Run, SumOfBest};
use crate::{Catalog, parse_uuid};

/// The columns of `runs` [`run_from`] reads, in order; its recording's location follows them.
pub(crate) const RUN_COLUMNS: &str = "id, recording_id, course, player, player_name, entity, \
     start_tick, end_tick, ticks, tick_rate, achieved_ms, valid, flags, server, world, \
     world_version, held";

/// [`RUN_COLUMNS`] of the table `r`, and the location of its recording `g` (every query of runs
/// joins `recordings g`).
pub(crate) const R_RUN_COLUMNS: &str = "r.id, r.recording_id, r.course, r.player, r.player_name, r.entity, \
     r.start_tick, r.end_tick, r.ticks, r.tick_rate, r.achieved_ms, r.valid, r.flags, r.server, \
     r.world, r.world_version, r.held, g.location";

/// An optional UUID column.
pub(crate) fn opt_uuid(row: &Row, i: usize) -> Result<Option<Uuid>> {
    row.opt_text(i)?.map(|s| parse_uuid(&s)).transpose()
}

/// A run from [`RUN_COLUMNS`] and its recording's location, starting at column `at`.
pub(crate) fn run_from(row: &Row, at: usize) -> Result<Run> {
    Ok(Run {
        id: row.int(at)?,
        recording_id: row.int(at + 1)?,
        course: row.text(at + 2)?,
        player: parse_uuid(&row.text(at + 3)?)?,
        player_name: row.text(at + 4)?,
        entity: row.u32(at + 5)?,
        start_tick: row.u32(at + 6)?,
        end_tick: row.u32(at + 7)?,
        ticks: row.u32(at + 8)?,
        tick_rate: row.real(at + 9)?,
        achieved_ms: row.int(at + 10)?,
        valid: row.int(at + 11)? != 0,
        flags: row.int(at + 12)? as u64,
        server: row.opt_text(at + 13)?,
        world: opt_uuid(row, at + 14)?,
        world_version: opt_uuid(row, at + 15)?,
        held: row.int(at + 16)? != 0,
        location: row.text(at + 17)?,
    })
}

const RECORDING_COLUMNS: &str = "id, location, recording_uuid, world, started_ms, first_tick, \
     last_tick, tick_rate, size_bytes, entity_count, summary, registered_ms, world_version, server";

fn recording_from(row: &Row) -> Result<CatalogRecording> {
    Ok(CatalogRecording {
        id: row.int(0)?,
        location: row.text(1)?,
        recording_uuid: opt_uuid(row, 2)?,
        world: opt_uuid(row, 3)?,
        world_version: opt_uuid(row, 12)?,
        server: row.opt_text(13)?,
        started_ms: row.int(4)?,
        first_tick: row.u32(5)?,
        last_tick: row.u32(6)?,
        tick_rate: row.real(7)?,
        size_bytes: row.int(8)? as u64,
        entity_count: row.u32(9)?,
        summary: row.text(10)?,
        registered_ms: row.int(11)?,
    })
}

/// The board of `course` from position `offset` (0-based), at most `limit` places.
fn board(c: &mut dyn Conn, course: &str, offset: u64, limit: u64) -> Result<Vec<Placed>> {
    let rows = c.query(
        &format!(
            "SELECT {R_RUN_COLUMNS} FROM bests b JOIN runs r ON r.id = b.run_id
             JOIN recordings g ON g.id = r.recording_id
             WHERE b.course = $1 ORDER BY b.ticks, b.achieved_ms, b.run_id LIMIT $2 OFFSET $3"
        ),
        &[course.into(), clamp(limit).into(), clamp(offset).into()],
    )?;
    rows.iter()
        .zip(offset + 1..)
        .map(|(row, rank)| {
            Ok(Placed {
                rank,
                run: run_from(row, 0)?,
            })
        })
        .collect()
}

/// Where the runs a [`Board`] counts (valid, of listed recordings) of `course` are, as `runs r`;
/// `$1` is the course, the board's own parameters follow from `$2` (see [`Board::filter`]). The
/// recordings being pruned (few) are left out by a list rather than a join, so that the runs are
/// read in the board's index order whatever the planner thinks of `recordings`.
fn counted_where(filter: &str) -> String {
    format!(
        "FROM runs r WHERE r.course = $1 AND r.valid = 1 AND r.held = 0{filter}
            AND r.recording_id NOT IN (SELECT id FROM recordings WHERE deleting_ms IS NOT NULL)"
    )
}

/// The runs of [`counted_where`] as [`RUN_COLUMNS`].
fn counted_runs(filter: &str) -> String {
    format!(
        "SELECT r.id, r.recording_id, r.course, r.player, r.player_name, r.entity, r.start_tick,
            r.end_tick, r.ticks, r.tick_rate, r.achieved_ms, r.valid, r.flags, r.server, r.world,
            r.world_version, r.held {}",
        counted_where(filter)
    )
}

/// Each player's best valid run of `course` among the runs a [`Board`] counts, as a common table
/// `b` of [`RUN_COLUMNS`] and `location` (see [`counted_runs`]). With `first` (a parameter's
/// number), only among the first that many runs in board order: the board's index range
/// (`runs_by_server` for a server, `runs_by_version` for a map version), read from its start
/// and stopped there. The network's board of any version is kept by registration (`bests`).
fn filtered_board(filter: &str, first: Option<usize>) -> String {
    let runs = counted_runs(filter);
    let candidates = match first {
        Some(k) => format!("c AS ({runs} ORDER BY r.ticks, r.achieved_ms, r.id LIMIT ${k}),"),
        None => format!("c AS ({runs}),"),
    };
    format!(
        "WITH {candidates} b AS (
    SELECT ranked.*, g.location FROM (
        SELECT c.*, ROW_NUMBER() OVER (PARTITION BY player ORDER BY ticks, achieved_ms, id) AS n
        FROM c
    ) ranked JOIN recordings g ON g.id = ranked.recording_id WHERE n = 1
)"
    )
}

/// Runs a filtered board reads first, for `want` places: reading a board's runs in its order,
/// each player's first run is their best, so the first `want` players seen are its top `want`.
/// Four runs a place (players with several runs near the top) and a margin; a board that has
/// fewer players among them is read whole.
fn first_runs(want: u64) -> u64 {
    want.saturating_mul(4).saturating_add(64)
}

/// The filtered board of `course` from position `offset` (0-based), at most `limit` places: from
/// the board's first runs (see [`first_runs`]) when they hold enough players, else from all.
fn filtered(
    c: &mut dyn Conn,
    board: &Board<'_>,
    course: &str,
    offset: u64,
    limit: u64,
) -> Result<Vec<Placed>> {
    let first = first_runs(offset.saturating_add(limit));
    let (filter, mut params) = board.filter(course);
    let n = params.len();
    params.push(clamp(first).into());
    params.push(clamp(limit).into());
    params.push(clamp(offset).into());
    let rows = c.query(
        &format!(
            "{} SELECT {RUN_COLUMNS}, location, (SELECT COUNT(*) FROM c) FROM b
             ORDER BY ticks, achieved_ms, id LIMIT ${} OFFSET ${}",
            filtered_board(&filter, Some(n + 1)),
            n + 2,
            n + 3
        ),
        &params,
    )?;
    // complete when it filled the page, or when the first runs were all the board's runs
    let complete = rows.len() as u64 == limit
        || rows
            .first()
            .map(|r| r.int(18))
            .transpose()?
            .is_some_and(|read| (read as u64) < first);
    let rows = if complete {
        rows
    } else {
        params.truncate(n);
        params.push(clamp(limit).into());
        params.push(clamp(offset).into());
        c.query(
            &format!(
                "{} SELECT {RUN_COLUMNS}, location FROM b
                 ORDER BY ticks, achieved_ms, id LIMIT ${} OFFSET ${}",
                filtered_board(&filter, None),
                n + 1,
                n + 2
            ),
            &params,
        )?
    };
    rows.iter()
        .zip(offset + 1..)
        .map(|(row, rank)| {
            Ok(Placed {
                rank,
                run: run_from(row, 0)?,
            })
        })
        .collect()
}

/// A player's place on a filtered board: their best counted run, and the players with a
/// counted run before it (each has their best before it), read from the board's index range
/// up to it.
fn filtered_placed(
    c: &mut dyn Conn,
    board: &Board<'_>,
    course: &str,
    player: &Uuid,
) -> Result<Option<Placed>> {
    let (filter, mut params) = board.filter(course);
    let n = params.len();
    params.push(player.to_string().into());
    let rows = c.query(
        &format!(
            "SELECT p.*, g.location FROM ({} AND r.player = ${}
                 ORDER BY r.ticks, r.achieved_ms, r.id LIMIT 1) p
             JOIN recordings g ON g.id = p.recording_id",
            counted_runs(&filter),
            n + 1
        ),
        &params,
    )?;
    let Some(row) = rows.first() else {
        return Ok(None);
    };
    let run = run_from(row, 0)?;
    params.truncate(n);
    params.push(run.ticks.into());
    params.push(run.achieved_ms.into());
    params.push(run.id.into());
    let ahead = c
        .one(
            &format!(
                "SELECT COUNT(DISTINCT r.player) {}
                 AND (r.ticks, r.achieved_ms, r.id) < (${}, ${}, ${})",
                counted_where(&filter),
                n + 1,
                n + 2,
                n + 3
            ),
            &params,
        )?
        .int(0)?;
    Ok(Some(Placed {
        rank: ahead as u64 + 1,
        run,
    }))
}

/// Which runs a board counts by server: every server's (the network's board), or one server's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Servers<'a> {
    #[default]
    Network,
    One(&'a str),
}

impl<'a> From<&'a str> for Servers<'a> {
    fn from(server: &'a str) -> Servers<'a> {
        Servers::One(server)
    }
}

impl<'a> From<Option<&'a str>> for Servers<'a> {
    fn from(server: Option<&'a str>) -> Servers<'a> {
        server.map_or(Servers::Network, Servers::One)
    }
}

/// A version of a map: the world's id and its version, as a recording's identity names them
/// (`world_id`, `world_version`) and its runs carry them (`Run::world`, `Run::world_version`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MapVersion {
    pub world: Uuid,
    pub version: Uuid,
}

impl MapVersion {
    pub fn new(world: Uuid, version: Uuid) -> MapVersion {
        MapVersion { world, version }
    }

    /// The map version a run was recorded on; `None` when its recording named none.
    pub fn of(run: &Run) -> Option<MapVersion> {
        Some(MapVersion::new(run.world?, run.world_version?))
    }
}

impl std::fmt::Display for MapVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "world {} version {}", self.world, self.version)
    }
}

/// Which runs a board counts: those of [`Servers`] (the network or one server) on one map
/// version, or on any (`version: None`). Top, a player's best, ranks and the ghosts of a board's
/// places all take it; a server (`"eu-1"`, `None`) or [`Servers`] converts into the board of any
/// version, so `top_on("eu-1", ..)` keeps its meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Board<'a> {
    pub servers: Servers<'a>,
    pub version: Option<MapVersion>,
}

impl<'a> Board<'a> {
    /// The network's board of any version (the board of [`Catalog::top`]).
    pub fn network() -> Board<'a> {
        Board::default()
    }

    /// The board of one server, of any version.
    pub fn server(server: &'a str) -> Board<'a> {
        Board {
            servers: Servers::One(server),
            version: None,
        }
    }

    /// This board, counting only the runs recorded on `version`.
    pub fn on_version(self, version: MapVersion) -> Board<'a> {
        Board {
            version: Some(version),
            ..self
        }
    }

    /// Whether this is the board registration keeps (`bests`): the network's, any version.
    fn is_kept(&self) -> bool {
        *self == Board::network()
    }

    /// The conditions on `runs r` after the course (`$1`), and all the parameters.
    fn filter(&self, course: &str) -> (String, Vec<Value>) {
        let mut sql = String::new();
        let mut params: Vec<Value> = vec![course.into()];
        if let Servers::One(server) = self.servers {
            params.push(server.into());
            sql.push_str(&format!(" AND r.server = ${}", params.len()));
        }
        if let Some(v) = self.version {
            params.push(v.world.to_string().into());
            sql.push_str(&format!(" AND r.world = ${}", params.len()));
            params.push(v.version.to_string().into());
            sql.push_str(&format!(" AND r.world_version = ${}", params.len()));
        }
        (sql, params)
    }
}

impl<'a> From<Servers<'a>> for Board<'a> {
    fn from(servers: Servers<'a>) -> Board<'a> {
        Board {
            servers,
            version: None,
        }
    }
}

impl<'a> From<&'a str> for Board<'a> {
    fn from(server: &'a str) -> Board<'a> {
        Servers::from(server).into()
    }
}

impl<'a> From<Option<&'a str>> for Board<'a> {
    fn from(server: Option<&'a str>) -> Board<'a> {
        Servers::from(server).into()
    }
}

impl From<MapVersion> for Board<'_> {
    fn from(version: MapVersion) -> Self {
        Board::network().on_version(version)
    }
}

fn clamp(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// The player's place on the board, if they have a valid run of the course.
pub(crate) fn placed(c: &mut dyn Conn, course: &str, player: &Uuid) -> Result<Option<Placed>> {
    let rows = c.query(
        &format!(
            "SELECT {R_RUN_COLUMNS} FROM bests b JOIN runs r ON r.id = b.run_id
             JOIN recordings g ON g.id = r.recording_id
             WHERE b.course = $1 AND b.player = $2"
        ),
        &[course.into(), player.to_string().into()],
    )?;
    let Some(row) = rows.first() else {
        return Ok(None);
    };
    let run = run_from(row, 0)?;
    let ahead = c
        .one(
            // a row-value range: both databases walk the board's index up to the player
            "SELECT COUNT(*) FROM bests
             WHERE course = $1 AND (ticks, achieved_ms, run_id) < ($2, $3, $4)",
            &[
                course.into(),
                run.ticks.into(),
                run.achieved_ms.into(),
                run.id.into(),
            ],
        )?
        .int(0)?;
    Ok(Some(Placed {
        rank: ahead as u64 + 1,
        run,
    }))
}

impl Catalog {
    /// The best `n` players of `course`: each player's best valid run, fastest first.
    pub fn top(&self, course: &str, n: u64) -> Result<Vec<Placed>> {
        self.tx(|c| board(c, course, 0, n))
    }

    /// The best `n` players of `course` on a [`Board`]: of the network or one server, of one
    /// map version or any (each player's best valid run among the runs the board counts).
    /// `top_on(None, ..)` is [`Catalog::top`].
    pub fn top_on<'a>(
        &self,
        board: impl Into<Board<'a>>,
        course: &str,
        n: u64,
    ) -> Result<Vec<Placed>> {
        let board = board.into();
        if board.is_kept() {
            return self.top(course, n);
        }
        self.tx(|c| filtered(c, &board, course, 0, n))
    }

    /// A player's best run of `course` on a [`Board`] and its rank there.
    pub fn personal_best_on<'a>(
        &self,
        board: impl Into<Board<'a>>,
        course: &str,
        player: Uuid,
    ) -> Result<Option<Placed>> {
        let board = board.into();
        if board.is_kept() {
            return self.personal_best(course, player);
        }
        self.tx(|c| filtered_placed(c, &board, course, &player))
    }

    /// The place at `rank` (1 is the best) of a [`Board`], if it has that many players.
    pub fn at_rank_on<'a>(
        &self,
        board: impl Into<Board<'a>>,
        course: &str,
        rank: u64,
    ) -> Result<Option<Placed>> {
        if rank == 0 {
            return Err(Error::invalid("ranks start at 1"));
        }
        let board = board.into();
        if board.is_kept() {
            return self.at_rank(course, rank);
        }
        Ok(self.tx(|c| filtered(c, &board, course, rank - 1, 1))?.pop())
    }

    /// The place at `rank` (1 is the best), if the board has that many players.
    pub fn at_rank(&self, course: &str, rank: u64) -> Result<Option<Placed>> {
        if rank == 0 {
            return Err(Error::invalid("ranks start at 1"));
        }
        Ok(self.tx(|c| board(c, course, rank - 1, 1))?.pop())
    }

    /// A player's best run of `course` and its rank.
    pub fn personal_best(&self, course: &str, player: Uuid) -> Result<Option<Placed>> {
        self.tx(|c| placed(c, course, &player))
    }

    /// The places from `rank - k` to `rank + k` (clamped to the board).
    pub fn around(&self, course: &str, rank: u64, k: u64) -> Result<Vec<Placed>> {
        let first = rank.saturating_sub(k).max(1);
        let last = rank.saturating_add(k);
        self.tx(|c| board(c, course, first - 1, last - first + 1))
    }

    /// How many players the board of `course` has.
    pub fn players(&self, course: &str) -> Result<u64> {
        let n = self.tx(|c| {
            c.one(
                "SELECT COUNT(*) FROM bests WHERE course = $1",
                &[course.into()],
            )?
            .int(0)
        })?;
        Ok(n as u64)
    }

    /// A player's `n` most recent runs (valid or not), of one course or of all.
    pub fn recent(&self, player: Uuid, course: Option<&str>, n: u64) -> Result<Vec<Run>> {
        let base = format!(
            "SELECT {R_RUN_COLUMNS} FROM runs r JOIN recordings g ON g.id = r.recording_id
             WHERE g.deleting_ms IS NULL AND r.player = $1"
        );
        let p = player.to_string();
        let rows = self.tx(|c| match course {
            Some(course) => c.query(
                &format!(
                    "{base} AND r.course = $2 ORDER BY r.achieved_ms DESC, r.id DESC LIMIT $3"
                ),
                &[p.as_str().into(), course.into(), clamp(n).into()],
            ),
            None => c.query(
                &format!("{base} ORDER BY r.achieved_ms DESC, r.id DESC LIMIT $2"),
                &[p.as_str().into(), clamp(n).into()],
            ),
        })?;
        rows.iter().map(|r| run_from(r, 0)).collect()
    }

    /// A run by id (listed: its recording is not being pruned).
    pub fn run(&self, run_id: i64) -> Result<Option<Run>> {
        let rows = self.tx(|c| {
            c.query(
                &format!(
                    "SELECT {R_RUN_COLUMNS} FROM runs r JOIN recordings g ON g.id = r.recording_id
                     WHERE g.deleting_ms IS NULL AND r.id = $1"
                ),
                &[run_id.into()],
            )
        })?;
        rows.first().map(|r| run_from(r, 0)).transpose()
    }

    /// A run's splits: checkpoint markers in recorded order, ticks from the run's start.
    pub fn splits(&self, run_id: i64) -> Result<Vec<Split>> {
        let rows = self.tx(|c| {
            c.query(
                "SELECT checkpoint, tick FROM splits WHERE run_id = $1 ORDER BY seq",
                &[run_id.into()],
            )
        })?;
        rows.iter()
            .map(|r| {
                Ok(Split {
                    checkpoint: r.u32(0)?,
                    tick: r.u32(1)?,
                })
            })
            .collect()
    }

    /// The listed recordings, oldest registration first.
    pub fn recordings(&self) -> Result<Vec<CatalogRecording>> {
        let rows = self.tx(|c| {
            c.query(
                &format!(
                    "SELECT {RECORDING_COLUMNS} FROM recordings
                     WHERE deleting_ms IS NULL ORDER BY id"
                ),
                &[],
            )
        })?;
        rows.iter().map(recording_from).collect()
    }

    /// The courses run and the players who ran them, by recording: distinct `(recording id,
    /// course, player name)` rows of the runs, at most `max` (a viewer's filters by course and
    /// player over its list).
    pub fn recording_runs(&self, max: u64) -> Result<Vec<(i64, String, String)>> {
        let max = i64::try_from(max).unwrap_or(i64::MAX);
        let rows = self.tx(|c| {
            c.query(
                "SELECT DISTINCT recording_id, course, player_name FROM runs
                 ORDER BY recording_id, course, player_name LIMIT $1",
                &[max.into()],
            )
        })?;
        rows.iter()
            .map(|r| Ok((r.int(0)?, r.text(1)?, r.text(2)?)))
            .collect()
    }

    /// A listed recording by id.
    pub fn recording(&self, id: i64) -> Result<Option<CatalogRecording>> {
        let rows = self.tx(|c| {
            c.query(
                &format!(
                    "SELECT {RECORDING_COLUMNS} FROM recordings
                     WHERE deleting_ms IS NULL AND id = $1"
                ),
                &[id.into()],
            )
        })?;
        rows.first().map(recording_from).transpose()
    }

    /// The sum of best segments of `course`: of one player's valid runs, or (`None`) of every
    /// valid run. Segments follow the route of the fastest run (start, its checkpoints in
    /// order, finish); a run that took another route does not count. `None` without runs.
    pub fn sum_of_best(&self, course: &str, player: Option<Uuid>) -> Result<Option<SumOfBest>> {
        let base = "SELECT r.id, r.ticks, r.tick_rate, s.checkpoint, s.tick
             FROM runs r JOIN recordings g ON g.id = r.recording_id
             LEFT JOIN splits s ON s.run_id = r.id
             WHERE g.deleting_ms IS NULL AND r.valid = 1 AND r.held = 0 AND r.course = $1";
        let rows = self.tx(|c| match player {
            Some(p) => c.query(
                &format!("{base} AND r.player = $2 ORDER BY r.ticks, r.achieved_ms, r.id, s.seq"),
                &[course.into(), Value::Text(p.to_string())],
            ),
            None => c.query(
                &format!("{base} ORDER BY r.ticks, r.achieved_ms, r.id, s.seq"),
                &[course.into()],
            ),
        })?;
        // runs in board order, each with its splits
        let mut runs: Vec<RunSplits> = Vec::new();
        for row in &rows {
            let id = row.int(0)?;
            if runs.last().is_none_or(|r| r.0 != id) {
                runs.push(RunSplits(id, row.u32(1)?, row.real(2)?, Vec::new()));
            }
            if let (Some(cp), Some(t)) = (row.opt_int(3)?, row.opt_int(4)?) {
                let run = runs.last_mut().expect("pushed above");
                run.3.push((cp as u32, t as u32));
            }
        }
        Ok(sum_of_best(&runs))
    }
}

/// A run for the sum of best: id, ticks, tick rate, splits (checkpoint, tick) in order.
struct RunSplits(i64, u32, f64, Vec<(u32, u32)>);

/// Best segments along the fastest run's route (see [`Catalog::sum_of_best`]).
fn sum_of_best(runs: &[RunSplits]) -> Option<SumOfBest> {
    let RunSplits(_, _, tick_rate, route_splits) = runs.first()?;
    let route: Vec<u32> = route_splits.iter().map(|&(cp, _)| cp).collect();
    let mut segments: Vec<BestSegment> = Vec::with_capacity(route.len() + 1);
    for i in 0..=route.len() {
        segments.push(BestSegment {
            from: i.checked_sub(1).map(|j| route[j]),
            to: route.get(i).copied(),
            ticks: u32::MAX,
            run_id: 0,
        });
    }
    let mut counted = 0;
    for RunSplits(id, ticks, _, splits) in runs {
        if splits.len() != route.len() || splits.iter().zip(&route).any(|(s, r)| s.0 != *r) {
            continue;
        }
        counted += 1;
        let mut prev = 0u32;
        let ends = splits.iter().map(|&(_, t)| t).chain([*ticks]);
        for (seg, end) in segments.iter_mut().zip(ends) {
            let d = end.saturating_sub(prev);
            // the earlier run (board order) keeps a tied segment
            if d < seg.ticks {
                seg.ticks = d;
                seg.run_id = *id;
            }
            prev = end;
        }
    }
    Some(SumOfBest {
        total_ticks: segments.iter().map(|s| u64::from(s.ticks)).sum(),
        segments,
        tick_rate: *tick_rate,
        runs: counted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sum_of_best_takes_each_segment_from_the_run_that_was_fastest_there() {
        let runs = vec![
            RunSplits(1, 100, 20.0, vec![(1, 30), (2, 70)]),
            RunSplits(2, 110, 20.0, vec![(1, 20), (2, 75)]),
            RunSplits(3, 90, 20.0, vec![(2, 40)]), // another route: not counted
            RunSplits(4, 120, 20.0, vec![(1, 40), (2, 70)]),
        ];
        // route of the first (fastest listed) run: start-1, 1-2, 2-finish
        let s = sum_of_best(&runs).unwrap();
        assert_eq!(s.runs, 3);
        let seg: Vec<(u32, i64)> = s.segments.iter().map(|s| (s.ticks, s.run_id)).collect();
        assert_eq!(seg, vec![(20, 2), (30, 4), (30, 1)]);
        assert_eq!(s.total_ticks, 80);
        assert!(sum_of_best(&[]).is_none());
    }
}
