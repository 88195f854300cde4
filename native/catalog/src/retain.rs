//! Retention: which recordings to keep, by policy, and `prune`, which deletes the rest.
//!
//! A policy applies to a scope: the runs of one course, the runs of every course without a
//! policy of its own, shadow-play reports, and the recordings that have neither runs nor
//! reports. A recording is deleted only when every run and report in it may go under its
//! scope's policy; a scope without a policy keeps everything (nothing is deleted by default).
//! A run is kept when it is on the board within the top N, when it is its player's best
//! (`keep_personal_bests`), or when it is younger than `keep_days`; a report when it is open
//! (`keep_open_reports`) or younger than `keep_days`.
//!
//! Crash-safe order (nothing listed is ever gone, and nothing is left behind for good):
//! 1. one transaction marks the recordings (`deleting_ms`) and takes their runs off the board
//!    (each affected player's best recomputed): from then on no query lists them;
//! 2. the files are removed (a missing file counts as removed);
//! 3. one transaction per recording deletes its rows (splits, runs, reports, the recording).
//!
//! A crash after step 1 or 2 leaves marked recordings, listed nowhere; the next `prune` (dry or
//! not) finds them first and finishes their deletion.

use std::collections::HashMap;
use std::path::Path;

use tickreel::storage::LocalStorage;
use tickreel::{Error, Result};

use crate::backend::{Conn, Value};
use crate::bests::recompute_best;
use crate::{Catalog, now_ms};

const DAY_MS: i64 = 86_400_000;

/// What a policy applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetentionScope {
    /// The runs of one course.
    Course(String),
    /// The runs of every course without a policy of its own.
    Runs,
    /// Shadow-play reports.
    Reports,
    /// Recordings with neither runs nor reports.
    Other,
}

impl RetentionScope {
    fn key(&self) -> String {
        match self {
            RetentionScope::Course(c) => format!("course:{c}"),
            RetentionScope::Runs => "runs".into(),
            RetentionScope::Reports => "reports".into(),
            RetentionScope::Other => "other".into(),
        }
    }
    /// Parses `course:NAME`, `runs`, `reports` or `other`.
    pub fn parse(s: &str) -> Result<RetentionScope> {
        match s {
            "runs" => Ok(RetentionScope::Runs),
            "reports" => Ok(RetentionScope::Reports),
            "other" => Ok(RetentionScope::Other),
            _ => match s.strip_prefix("course:") {
                Some(c) if !c.is_empty() => Ok(RetentionScope::Course(c.into())),
                _ => Err(Error::invalid(format!(
                    "retention scope {s:?}: use course:NAME, runs, reports or other"
                ))),
            },
        }
    }
}

/// What to keep; anything no rule keeps may be pruned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetentionPolicy {
    /// Keep the runs of the best N players of the board (their best runs).
    pub keep_top: Option<u64>,
    /// Keep every player's best run.
    pub keep_personal_bests: bool,
    /// Keep everything younger than this many days.
    pub keep_days: Option<u64>,
    /// Keep the recordings of open reports.
    pub keep_open_reports: bool,
}

impl Default for RetentionPolicy {
    /// Keeps personal bests and open reports, nothing else.
    fn default() -> Self {
        RetentionPolicy {
            keep_top: None,
            keep_personal_bests: true,
            keep_days: None,
            keep_open_reports: true,
        }
    }
}

impl RetentionPolicy {
    fn young(&self, age_of_ms: i64, now: i64) -> bool {
        self.keep_days
            .is_some_and(|d| now - age_of_ms < (d as i64).saturating_mul(DAY_MS))
    }
}

/// How to prune.
#[derive(Debug, Clone, Copy, Default)]
pub struct PruneOptions {
    /// List what would go; change nothing.
    pub dry_run: bool,
    /// The time ages are measured against (ms since the epoch); now by default.
    pub now_ms: Option<i64>,
    /// Stop (as a crash would) after a step: for the crash-ordering tests.
    #[doc(hidden)]
    pub stop_after: Option<PruneStep>,
}

/// The steps of a prune (see the module's documentation).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PruneStep {
    Marked,
    FilesRemoved,
}

/// One recording pruned (or that a dry run would prune).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pruned {
    pub recording_id: i64,
    pub location: String,
    pub size_bytes: u64,
    pub runs: u64,
    pub splits: u64,
    pub reports: u64,
    /// Marked by an earlier prune that did not finish (it is finished now).
    pub resumed: bool,
}

/// What a prune deleted (or a dry run would delete).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PruneReport {
    pub dry_run: bool,
    pub recordings: Vec<Pruned>,
    /// Files that could not be removed (their recordings stay marked, listed nowhere, and are
    /// tried again by the next prune): location and error.
    pub failed: Vec<(String, String)>,
}

impl PruneReport {
    /// Rows deleted: recordings, runs, splits, reports.
    pub fn rows(&self) -> (u64, u64, u64, u64) {
        let sum = |f: fn(&Pruned) -> u64| self.recordings.iter().map(f).sum();
        (
            self.recordings.len() as u64,
            sum(|p| p.runs),
            sum(|p| p.splits),
            sum(|p| p.reports),
        )
    }
    /// Bytes of files deleted.
    pub fn bytes(&self) -> u64 {
        self.recordings.iter().map(|p| p.size_bytes).sum()
    }
}

impl Catalog {
    /// Sets the policy of `scope` (replacing its previous one).
    pub fn set_retention(&self, scope: &RetentionScope, policy: RetentionPolicy) -> Result<()> {
        let opt = |v: Option<u64>| Value::from(v.map(|v| v as i64));
        self.tx(|c| {
            c.execute(
                "DELETE FROM retention WHERE scope = $1",
                &[scope.key().into()],
            )?;
            c.execute(
                "INSERT INTO retention (scope, keep_top, keep_bests, keep_days, keep_open_reports)
                 VALUES ($1, $2, $3, $4, $5)",
                &[
                    scope.key().into(),
                    opt(policy.keep_top),
                    i64::from(policy.keep_personal_bests).into(),
                    opt(policy.keep_days),
                    i64::from(policy.keep_open_reports).into(),
                ],
            )?;
            Ok(())
        })
    }

    /// Removes the policy of `scope` (it keeps everything again).
    pub fn clear_retention(&self, scope: &RetentionScope) -> Result<()> {
        self.tx(|c| {
            c.execute(
                "DELETE FROM retention WHERE scope = $1",
                &[scope.key().into()],
            )
        })?;
        Ok(())
    }

    /// Every policy set, by scope.
    pub fn retention(&self) -> Result<Vec<(RetentionScope, RetentionPolicy)>> {
        let all = self.tx(policies)?;
        let mut out: Vec<_> = all
            .into_iter()
            .map(|(k, p)| RetentionScope::parse(&k).map(|s| (s, p)))
            .collect::<Result<_>>()?;
        out.sort_by_key(|(s, _)| s.key());
        Ok(out)
    }

    /// Applies the retention policies: deletes (or, dry, lists) every recording no policy keeps,
    /// its file, then its rows, in the crash-safe order of the module's documentation. Files are
    /// local paths; [`Catalog::prune_with`] takes another way to delete a location.
    pub fn prune(&self, options: PruneOptions) -> Result<PruneReport> {
        let storage = LocalStorage::shared();
        self.prune_with(
            options,
            &|location| match storage.remove_file(Path::new(location)) {
                Err(e) if e.io_kind() == Some(std::io::ErrorKind::NotFound) => Ok(()),
                r => r,
            },
        )
    }

    /// [`Catalog::prune`], deleting each location with `remove` (which treats an already missing
    /// file or object as removed).
    pub fn prune_with(
        &self,
        options: PruneOptions,
        remove: &dyn Fn(&str) -> Result<()>,
    ) -> Result<PruneReport> {
        let now = options.now_ms.unwrap_or_else(now_ms);
        let mut report = PruneReport {
            dry_run: options.dry_run,
            ..PruneReport::default()
        };
        if options.dry_run {
            report.recordings = self.tx(|c| {
                let ids = doomed(c, now)?;
                ids.iter()
                    .map(|&(id, resumed)| describe(c, id, resumed))
                    .collect()
            })?;
            return Ok(report);
        }
        // 1. mark: listed nowhere from here on
        let marked = self.tx(|c| {
            let ids = doomed(c, now)?;
            let mut out = Vec::with_capacity(ids.len());
            for &(id, resumed) in &ids {
                if !resumed {
                    mark(c, id, now)?;
                }
                out.push(describe(c, id, resumed)?);
            }
            Ok(out)
        })?;
        if options.stop_after == Some(PruneStep::Marked) {
            return Err(stopped("marking"));
        }
        // 2. the files
        let mut removed = Vec::with_capacity(marked.len());
        for p in marked {
            match remove(&p.location) {
                Ok(()) => removed.push(p),
                Err(e) => report.failed.push((p.location.clone(), e.to_string())),
            }
        }
        if options.stop_after == Some(PruneStep::FilesRemoved) {
            return Err(stopped("removing the files"));
        }
        // 3. the rows
        for p in removed {
            self.tx(|c| delete_rows(c, p.recording_id))?;
            report.recordings.push(p);
        }
        Ok(report)
    }
}

fn stopped(after: &str) -> Error {
    Error::InvalidState(format!("prune stopped after {after} (test hook)"))
}

fn policies(c: &mut dyn Conn) -> Result<HashMap<String, RetentionPolicy>> {
    let rows = c.query(
        "SELECT scope, keep_top, keep_bests, keep_days, keep_open_reports FROM retention",
        &[],
    )?;
    rows.iter()
        .map(|r| {
            Ok((
                r.text(0)?,
                RetentionPolicy {
                    keep_top: r.opt_int(1)?.map(|v| v as u64),
                    keep_personal_bests: r.int(2)? != 0,
                    keep_days: r.opt_int(3)?.map(|v| v as u64),
                    keep_open_reports: r.int(4)? != 0,
                },
            ))
        })
        .collect()
}

/// The recordings to delete, ascending, with whether an earlier prune had marked them already.
fn doomed(c: &mut dyn Conn, now: i64) -> Result<Vec<(i64, bool)>> {
    let pol = policies(c)?;
    let mut out = Vec::new();
    // (id, started_ms, marked)
    let recs = c.query(
        "SELECT id, started_ms, deleting_ms FROM recordings ORDER BY id",
        &[],
    )?;
    // a recording is kept unless every owner lets it go: false = kept
    let mut may_go: HashMap<i64, Option<bool>> = HashMap::new();
    let mut owned = |id: i64, go: bool| {
        let e = may_go.entry(id).or_insert(Some(true));
        *e = Some(e.unwrap_or(true) && go);
    };
    let ranks: HashMap<i64, i64> = c
        .query(
            "SELECT run_id, ROW_NUMBER() OVER (
                 PARTITION BY course ORDER BY ticks, achieved_ms, run_id) FROM bests",
            &[],
        )?
        .iter()
        .map(|r| Ok((r.int(0)?, r.int(1)?)))
        .collect::<Result<_>>()?;
    for r in &c.query(
        "SELECT id, recording_id, course, achieved_ms FROM runs",
        &[],
    )? {
        let (run, rec, course, at) = (r.int(0)?, r.int(1)?, r.text(2)?, r.int(3)?);
        let p = pol
            .get(&format!("course:{course}"))
            .or_else(|| pol.get("runs"));
        let go = p.is_some_and(|p| {
            let rank = ranks.get(&run).copied();
            let top = matches!((rank, p.keep_top), (Some(r), Some(n)) if r as u64 <= n);
            let best = p.keep_personal_bests && rank.is_some();
            !(top || best || p.young(at, now))
        });
        owned(rec, go);
    }
    for r in &c.query(
        "SELECT recording_id, status, created_ms FROM reports WHERE recording_id IS NOT NULL",
        &[],
    )? {
        let (rec, open, at) = (r.int(0)?, r.text(1)? == "open", r.int(2)?);
        let go = pol
            .get("reports")
            .is_some_and(|p| !((open && p.keep_open_reports) || p.young(at, now)));
        owned(rec, go);
    }
    let other = pol.get("other");
    for r in &recs {
        let (id, started, marked) = (r.int(0)?, r.int(1)?, r.opt_int(2)?.is_some());
        let go = match may_go.get(&id) {
            _ if marked => true,
            Some(go) => go.unwrap_or(false),
            None => other.is_some_and(|p| !p.young(started, now)),
        };
        if go {
            out.push((id, marked));
        }
    }
    Ok(out)
}

/// Step 1 for one recording: the mark, and its runs off the board.
fn mark(c: &mut dyn Conn, id: i64, now: i64) -> Result<()> {
    c.execute(
        "UPDATE recordings SET deleting_ms = $1 WHERE id = $2",
        &[now.into(), id.into()],
    )?;
    let affected = c.query(
        "SELECT b.course, b.player FROM bests b JOIN runs r ON r.id = b.run_id
         WHERE r.recording_id = $1",
        &[id.into()],
    )?;
    for row in &affected {
        recompute_best(c, &row.text(0)?, &row.text(1)?)?;
    }
    Ok(())
}

fn count(c: &mut dyn Conn, sql: &str, id: i64) -> Result<u64> {
    Ok(c.one(sql, &[id.into()])?.int(0)? as u64)
}

fn describe(c: &mut dyn Conn, id: i64, resumed: bool) -> Result<Pruned> {
    let row = c.one(
        "SELECT location, size_bytes FROM recordings WHERE id = $1",
        &[id.into()],
    )?;
    Ok(Pruned {
        recording_id: id,
        location: row.text(0)?,
        size_bytes: row.int(1)? as u64,
        runs: count(c, "SELECT COUNT(*) FROM runs WHERE recording_id = $1", id)?,
        splits: count(
            c,
            "SELECT COUNT(*) FROM splits s JOIN runs r ON r.id = s.run_id WHERE r.recording_id = $1",
            id,
        )?,
        reports: count(
            c,
            "SELECT COUNT(*) FROM reports WHERE recording_id = $1",
            id,
        )?,
        resumed,
    })
}

/// Step 3 for one recording.
fn delete_rows(c: &mut dyn Conn, id: i64) -> Result<()> {
    let key = [Value::from(id)];
    c.execute(
        "DELETE FROM splits WHERE run_id IN (SELECT id FROM runs WHERE recording_id = $1)",
        &key,
    )?;
    c.execute(
        "DELETE FROM run_holds WHERE run_id IN (SELECT id FROM runs WHERE recording_id = $1)",
        &key,
    )?;
    c.execute(
        "DELETE FROM bests WHERE run_id IN (SELECT id FROM runs WHERE recording_id = $1)",
        &key,
    )?;
    c.execute("DELETE FROM runs WHERE recording_id = $1", &key)?;
    c.execute("DELETE FROM reports WHERE recording_id = $1", &key)?;
    c.execute("DELETE FROM recordings WHERE id = $1", &key)?;
    Ok(())
}
