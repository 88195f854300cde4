//! The review desk (the catalog's [`tickreel_catalog::review`]): a reviewer's queue and vote, a
//! moderator's verdicts, calibration cases and reviewers' scores, an admin's rule and retention
//! by verdict. What a reviewer is answered says nothing of whether a report is a calibration
//! case, of other votes or of verdicts.
//!
//! - `GET /api/desk`: who the caller is; their queue (reports are assigned first, to the
//!   reviewers the server knows: its tokens file's and the catalog's); for moderators the
//!   reports with their votes and verdicts, the rule and the scores; for admins the retention
//!   by verdict.
//! - `POST /api/desk/vote` `{id, verdict, note?, ticks?}`: the caller's vote on a report
//!   assigned to them.
//! - `POST /api/desk/verdict` `{id, verdict}` (moderator), `POST /api/desk/known` `{id,
//!   verdict|null}` (moderator: a calibration case's outcome), `POST /api/desk/rule` (admin),
//!   `POST /api/desk/retention` `{policies?, apply}` (admin: the policy by verdict, and a
//!   dry-run listing or, `apply`, the prune: files local or in object storage, then rows).

use serde::Deserialize;
use serde_json::{Value, json};
use tickreel_catalog::{
    PruneOptions, PruneReport, ReviewRule, ReviewerScore, Verdict, VerdictRule, Vote,
};

use super::error::{ApiError, ApiResult};
use super::library::{CATALOG_PREFIX, Library};
use super::staff::{Role, Staff};

/// Who assigns reports in the audit log.
pub const DESK: &str = "desk";

fn verdict_of(s: &str) -> ApiResult<Verdict> {
    Verdict::parse(s).ok_or_else(|| {
        ApiError::bad_request(format!(
            "verdict {}: expected cheating, not_cheating or unsure",
            crate::errors::echo(s)
        ))
    })
}

pub fn needs(staff: &Staff, role: Role) -> ApiResult<()> {
    if staff.role.at_least(role) {
        Ok(())
    } else {
        Err(ApiError::forbidden(format!(
            "this needs a {} (you are a {})",
            role.as_str(),
            staff.role.as_str()
        )))
    }
}

fn vote_json(v: &Vote) -> Value {
    json!({"reviewer": v.reviewer, "verdict": v.verdict.as_str(), "note": v.note,
        "ticks": v.ticks, "counted": v.counted, "voted_ms": v.voted_ms})
}

fn score_json(s: &ReviewerScore) -> Value {
    json!({"reviewer": s.reviewer, "known": s.known, "known_agreed": s.known_agreed,
        "known_agreement": s.known_agreement(), "consensus": s.consensus,
        "consensus_agreed": s.consensus_agreed, "consensus_agreement": s.consensus_agreement(),
        "pending": s.pending, "counts": s.counts})
}

fn rule_json(r: &ReviewRule) -> Value {
    json!({"reviewers": r.reviewers, "rule": r.rule.as_str(), "min_agreement": r.min_agreement,
        "min_known": r.min_known})
}

/// `GET /api/desk` for `staff`, the server's reviewers being `reviewers`. Blocking.
pub fn desk(lib: &Library, staff: &Staff, reviewers: &[String]) -> ApiResult<Value> {
    let names: Vec<&str> = reviewers.iter().map(String::as_str).collect();
    let (queue, reports) = lib.with_catalog(|c| {
        if !names.is_empty() {
            c.assign_reports(&names, DESK)?;
        }
        Ok((c.queue(&staff.name)?, c.reports(None)?))
    })?;
    let queue: Vec<Value> = queue
        .iter()
        .filter_map(|a| reports.iter().find(|r| r.id == a.report_id))
        .map(|r| {
            json!({"id": r.id, "reason": r.reason, "created_ms": r.created_ms,
                "recording": r.recording_id.map(|id| format!("{CATALOG_PREFIX}{id}"))})
        })
        .collect();
    let mut out = json!({"name": staff.name, "role": staff.role.as_str(), "queue": queue});
    if !staff.role.at_least(Role::Moderator) {
        return Ok(out);
    }
    let (rule, verdicts, known, scores) = lib.with_catalog(|c| {
        Ok((
            c.review_rule()?,
            c.verdicts()?,
            c.known_outcomes()?,
            c.reviewer_scores()?,
        ))
    })?;
    let mut rows = Vec::new();
    for r in reports.iter().take(super::reports::MAX_REPORTS) {
        let votes = lib.with_catalog(|c| c.votes(r.id))?;
        let v = verdicts.iter().find(|v| v.report_id == r.id);
        rows.push(json!({
            "id": r.id, "player_name": r.reported_name, "player": r.reported.to_string(),
            "reason": r.reason, "status": r.status.as_str(), "created_ms": r.created_ms,
            "recording": r.recording_id.map(|id| format!("{CATALOG_PREFIX}{id}")),
            "verdict": v.map(|v| v.verdict.as_str()), "verdict_by": v.map(|v| &v.by),
            "verdict_ms": v.map(|v| v.at_ms),
            "known": known.iter().find(|k| k.0 == r.id).map(|k| k.1.as_str()),
            "votes": votes.iter().map(vote_json).collect::<Vec<_>>(),
        }));
    }
    out["rule"] = rule_json(&rule);
    out["reports"] = Value::Array(rows);
    out["scores"] = Value::Array(scores.iter().map(score_json).collect());
    if staff.role.at_least(Role::Admin) {
        let policies = lib.with_catalog(|c| c.verdict_retention())?;
        out["retention"] = policies
            .iter()
            .map(|(v, d)| (v.as_str().to_string(), json!(d)))
            .collect::<serde_json::Map<_, _>>()
            .into();
    }
    Ok(out)
}

/// A vote.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoteBody {
    pub id: i64,
    pub verdict: String,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub ticks: Vec<u64>,
}

/// Records `staff`'s vote. Blocking.
pub fn vote(lib: &Library, staff: &Staff, b: &VoteBody) -> ApiResult<Value> {
    let verdict = verdict_of(&b.verdict)?;
    let decided = lib
        .with_catalog(|c| Ok(c.vote(b.id, &staff.name, verdict, b.note.as_deref(), &b.ticks)))?
        .map_err(|e| ApiError::of("vote", e))?;
    // a reviewer learns that the vote is in, not what it decided
    Ok(json!({"id": b.id, "voted": verdict.as_str(),
        "decided": staff.role.at_least(Role::Moderator).then(|| decided.map(|d| d.verdict.as_str()))}))
}

/// A moderator's verdict, or a calibration case's known outcome (`verdict` null: none).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerdictBody {
    pub id: i64,
    pub verdict: Option<String>,
}

/// `POST /api/desk/verdict`. Blocking.
pub fn decide(lib: &Library, staff: &Staff, b: &VerdictBody) -> ApiResult<Value> {
    needs(staff, Role::Moderator)?;
    let verdict = verdict_of(b.verdict.as_deref().unwrap_or_default())?;
    let v = lib
        .with_catalog(|c| Ok(c.decide_verdict(b.id, verdict, &staff.name)))?
        .map_err(|e| ApiError::of("verdict", e))?;
    Ok(json!({"id": v.report_id, "verdict": v.verdict.as_str(), "by": v.by, "at_ms": v.at_ms}))
}

/// `POST /api/desk/known`. Blocking.
pub fn known(lib: &Library, staff: &Staff, b: &VerdictBody) -> ApiResult<Value> {
    needs(staff, Role::Moderator)?;
    let verdict = b.verdict.as_deref().map(verdict_of).transpose()?;
    lib.with_catalog(|c| Ok(c.mark_known(b.id, verdict, &staff.name)))?
        .map_err(|e| ApiError::of("known", e))?;
    Ok(json!({"id": b.id, "known": verdict.map(Verdict::as_str)}))
}

/// The review rule.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleBody {
    pub reviewers: u32,
    pub rule: String,
    pub min_agreement: f64,
    pub min_known: u32,
}

/// `POST /api/desk/rule`. Blocking.
pub fn set_rule(lib: &Library, staff: &Staff, b: &RuleBody) -> ApiResult<Value> {
    needs(staff, Role::Admin)?;
    let rule = ReviewRule {
        reviewers: b.reviewers,
        rule: VerdictRule::parse(&b.rule).ok_or_else(|| {
            ApiError::bad_request("rule: expected majority or moderator".to_string())
        })?,
        min_agreement: b.min_agreement,
        min_known: b.min_known,
    };
    lib.with_catalog(|c| Ok(c.set_review_rule(rule, &staff.name)))?
        .map_err(|e| ApiError::of("rule", e))?;
    Ok(rule_json(&rule))
}

/// Retention by verdict: the policies to set (a verdict's days, null: kept for good; a
/// verdict absent: unchanged), and whether to prune (else a dry run).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetentionBody {
    #[serde(default)]
    pub policies: Option<serde_json::Map<String, Value>>,
    #[serde(default)]
    pub apply: bool,
}

pub fn pruned_json(r: &PruneReport) -> Value {
    json!({
        "dry_run": r.dry_run,
        "recordings": r.recordings.iter().map(|p| json!({"recording": p.recording_id,
            "location": p.location, "size_bytes": p.size_bytes, "reports": p.reports,
            "runs": p.runs})).collect::<Vec<_>>(),
        "reports_alone": r.reports_alone,
        "failed": r.failed.iter().map(|(l, e)| json!({"location": l, "error": e}))
            .collect::<Vec<_>>(),
    })
}

/// `POST /api/desk/retention`. Blocking.
pub fn retention(lib: &Library, staff: &Staff, b: &RetentionBody) -> ApiResult<Value> {
    needs(staff, Role::Admin)?;
    let mut set = Vec::new();
    for (k, v) in b.policies.iter().flatten() {
        let verdict = verdict_of(k)?;
        let days = match v {
            Value::Null => None,
            v => Some(v.as_u64().ok_or_else(|| {
                ApiError::bad_request(format!("{k}: a number of days, or null (kept for good)"))
            })?),
        };
        set.push((verdict, days));
    }
    let report = lib.with_catalog(|c| {
        for (v, d) in &set {
            c.set_verdict_retention(*v, *d)?;
            c.log_report_view(
                &staff.name,
                "retention",
                None,
                &format!(
                    "{} {}",
                    v.as_str(),
                    d.map_or("kept".into(), |d| format!("{d} days"))
                ),
            )?;
        }
        let options = PruneOptions {
            dry_run: !b.apply,
            ..PruneOptions::default()
        };
        let report = c.prune_with(options, &remove)?;
        if b.apply {
            c.log_report_view(
                &staff.name,
                "prune",
                None,
                &format!(
                    "{} recordings, {} reports alone",
                    report.recordings.len(),
                    report.reports_alone.len()
                ),
            )?;
        }
        Ok(report)
    })?;
    Ok(pruned_json(&report))
}

/// Removes a recording's file: in object storage (with the feature `object`) or local; one
/// already gone counts as removed.
fn remove(location: &str) -> tickreel::Result<()> {
    #[cfg(feature = "object")]
    if tickreel_object::is_object_url(location) {
        return crate::object::remove(location);
    }
    match std::fs::remove_file(location) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        r => r.map_err(tickreel::Error::Io),
    }
}
