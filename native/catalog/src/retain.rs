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
//! Reports with a verdict ([`crate::review`]) follow the policy of their verdict when one is set
//! ([`Catalog::set_verdict_retention`]: "not cheating after 7 days, unsure after 30, cheating
//! a year"), measured from when the verdict was decided; a report whose verdict has none
//! follows the `reports` scope. A calibration case (a known outcome) is always kept. A report
//! whose verdict's policy lets it go while its recording stays (a run or another report still
//! points at it) has its row deleted alone (with its votes and assignments); the recording and
//! its file stay.
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
use crate::review::Verdict;
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
    /// Reports whose verdict's policy let them go while their recording stays (another row
    /// still points at it) or that have none: their rows alone were deleted (or, dry, would be).
    pub reports_alone: Vec<i64>,
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
            (report.recordings, report.reports_alone) = self.tx(|c| {
                let ids = doomed(c, now)?;
                let alone = lone_reports(c, now, &ids)?;
                let recs = ids
                    .iter()
                    .map(|&(id, resumed)| describe(c, id, resumed))
                    .collect::<Result<_>>()?;
                Ok((recs, alone))
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
        // the reports that go without their recording (no file: one transaction)
        report.reports_alone = self.tx(|c| {
            let ids = doomed(c, now)?;
            let alone = lone_reports(c, now, &ids)?;
            for &id in &alone {
                delete_report_rows(c, "id = $1", id)?;
            }
            Ok(alone)
        })?;
        Ok(report)
    }

    /// Sets how long reports with `verdict` are kept after it was decided: `keep_days` days, or
    /// (`None`) for good. Replaces the verdict's policy before.
    pub fn set_verdict_retention(&self, verdict: Verdict, keep_days: Option<u64>) -> Result<()> {
        self.tx(|c| {
            c.execute(
                "DELETE FROM verdict_retention WHERE verdict = $1",
                &[verdict.as_str().into()],
            )?;
            c.execute(
                "INSERT INTO verdict_retention (verdict, keep_days) VALUES ($1, $2)",
                &[
                    verdict.as_str().into(),
                    keep_days.map(|d| d.min(i64::MAX as u64) as i64).into(),
                ],
            )?;
            Ok(())
        })
    }

    /// Removes the policy of `verdict` (its reports follow the `reports` scope again).
    pub fn clear_verdict_retention(&self, verdict: Verdict) -> Result<()> {
        self.tx(|c| {
            c.execute(
                "DELETE FROM verdict_retention WHERE verdict = $1",
                &[verdict.as_str().into()],
            )
        })?;
        Ok(())
    }

    /// The policies by verdict: each verdict with one and its days (`None`: kept for good).
    pub fn verdict_retention(&self) -> Result<Vec<(Verdict, Option<u64>)>> {
        let mut out: Vec<_> = self
            .tx(verdict_policies)?
            .into_iter()
            .filter_map(|(v, d)| Verdict::parse(&v).map(|v| (v, d)))
            .collect();
        out.sort();
        Ok(out)
    }
}

fn verdict_policies(c: &mut dyn Conn) -> Result<HashMap<String, Option<u64>>> {
    c.query("SELECT verdict, keep_days FROM verdict_retention", &[])?
        .iter()
        .map(|r| Ok((r.text(0)?, r.opt_int(1)?.map(|d| d.max(0) as u64))))
        .collect()
}

/// What a report row says for retention.
struct ReportAge {
    open: bool,
    created_ms: i64,
    verdict: Option<String>,
    verdict_ms: Option<i64>,
    known: bool,
}

/// Whether a report may go: `Some(true)` by its verdict's policy, `Some(false)` kept by it, `None`
/// when its verdict has no policy (the `reports` scope decides).
fn by_verdict(r: &ReportAge, vpol: &HashMap<String, Option<u64>>, now: i64) -> Option<bool> {
    if r.known {
        return Some(false);
    }
    let keep = vpol.get(r.verdict.as_deref()?)?;
    let at = r.verdict_ms.unwrap_or(r.created_ms);
    Some(keep.is_some_and(|d| now - at >= (d as i64).saturating_mul(DAY_MS)))
}

const REPORT_AGE: &str =
    "SELECT id, recording_id, status, created_ms, verdict, verdict_ms, known_verdict FROM reports";

fn report_ages(c: &mut dyn Conn) -> Result<Vec<(i64, Option<i64>, ReportAge)>> {
    c.query(REPORT_AGE, &[])?
        .iter()
        .map(|r| {
            Ok((
                r.int(0)?,
                r.opt_int(1)?,
                ReportAge {
                    open: r.text(2)? == "open",
                    created_ms: r.int(3)?,
                    verdict: r.opt_text(4)?,
                    verdict_ms: r.opt_int(5)?,
                    known: r.opt_text(6)?.is_some(),
                },
            ))
        })
        .collect()
}

/// The reports whose verdict's policy lets them go while their recording is not deleted
/// (`doomed` does not hold it) or that have none, ascending.
fn lone_reports(c: &mut dyn Conn, now: i64, doomed: &[(i64, bool)]) -> Result<Vec<i64>> {
    let vpol = verdict_policies(c)?;
    let mut out = Vec::new();
    for (id, rec, age) in report_ages(c)? {
        let going_with_file = rec.is_some_and(|r| doomed.iter().any(|&(d, _)| d == r));
        if by_verdict(&age, &vpol, now) == Some(true) && !going_with_file {
            out.push(id);
        }
    }
    Ok(out)
}

/// Deletes the reports matching `filter` (on `reports`, one parameter) with their votes and
/// assignments.
fn delete_report_rows(c: &mut dyn Conn, filter: &str, key: i64) -> Result<()> {
    let key = [Value::from(key)];
    for table in ["report_votes", "report_assignments"] {
        c.execute(
            &format!(
                "DELETE FROM {table} WHERE report_id IN (SELECT id FROM reports WHERE {filter})"
            ),
            &key,
        )?;
    }
    c.execute(&format!("DELETE FROM reports WHERE {filter}"), &key)?;
    Ok(())
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
    let vpol = verdict_policies(c)?;
    for (_, rec, age) in report_ages(c)? {
        let Some(rec) = rec else { continue };
        let go = by_verdict(&age, &vpol, now).unwrap_or_else(|| {
            !age.known
                && pol.get("reports").is_some_and(|p| {
                    !((age.open && p.keep_open_reports) || p.young(age.created_ms, now))
                })
        });
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
    delete_report_rows(c, "recording_id = $1", id)?;
    c.execute("DELETE FROM recordings WHERE id = $1", &key)?;
    Ok(())
}
