//! The review desk (schema version 9): staff members and their roles, reports assigned to
//! several reviewers, each reviewer's vote, the report's verdict decided by a rule, calibration
//! cases whose outcome is known, and each reviewer's score.
//!
//! - Staff ([`Catalog::add_staff`]): a name, a role (`reviewer`, `moderator`, `admin`) and the
//!   SHA-256 of the member's token (the token itself is never stored); a server reads them
//!   with [`Catalog::staff_by_token`].
//! - The rule ([`ReviewRule`]): a report goes to `reviewers` reviewers; under
//!   [`VerdictRule::Majority`] the verdict is the one more than half of them voted (counting
//!   votes only), under [`VerdictRule::Moderator`] votes advise and a moderator decides. A
//!   moderator may decide a report's verdict under either rule ([`Catalog::decide_verdict`]).
//! - Calibration: a moderator marks a report's known outcome ([`Catalog::mark_known`]); it is
//!   then assigned to every reviewer, in their queue like any other report, and their votes on
//!   it decide nothing: they score the reviewer. A reviewer whose agreement with known
//!   outcomes falls below `min_agreement` (once they voted on `min_known` of them) stops
//!   counting: their votes are recorded but not counted, and no new report is assigned to them
//!   (calibration cases still are, so that they can count again).
//! - Every action (an assignment, a vote, a verdict, a known outcome, a staff change, a rule
//!   change) is appended to the audit log ([`crate::audit`]) in the transaction that does it.

use std::collections::HashMap;

use sha2::{Digest, Sha256};
use tickreel::{Error, Result};

use crate::audit::{MAX_AUDIT_TEXT_CHARS, checked};
use crate::backend::Conn;
use crate::{Catalog, now_ms};

/// The roles a staff member may have, least first.
pub const ROLES: [&str; 3] = ["reviewer", "moderator", "admin"];
/// Most reviewers one report is assigned to.
pub const MAX_REVIEWERS: u32 = 25;
/// Most bookmarked ticks one vote holds.
pub const MAX_VOTE_TICKS: usize = 64;
/// The longest note of a vote, in characters.
pub const MAX_NOTE_CHARS: usize = 1000;
/// The shortest staff token stored.
pub const STAFF_TOKEN_MIN_CHARS: usize = 16;

/// What a reviewer (or a moderator) says of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    Cheating,
    NotCheating,
    Unsure,
}

impl Verdict {
    pub const ALL: [Verdict; 3] = [Verdict::Cheating, Verdict::NotCheating, Verdict::Unsure];

    /// `cheating`, `not_cheating` or `unsure`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Cheating => "cheating",
            Verdict::NotCheating => "not_cheating",
            Verdict::Unsure => "unsure",
        }
    }

    pub fn parse(s: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == s)
    }

    fn of(s: &str) -> Result<Verdict> {
        Verdict::parse(s).ok_or_else(|| Error::corrupt(format!("catalog: unknown verdict \"{s}\"")))
    }
}

/// How a report's verdict is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerdictRule {
    /// More than half of the report's reviewers voted it (counting votes only).
    Majority,
    /// A moderator decides; votes advise.
    Moderator,
}

impl VerdictRule {
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictRule::Majority => "majority",
            VerdictRule::Moderator => "moderator",
        }
    }

    pub fn parse(s: &str) -> Option<VerdictRule> {
        match s {
            "majority" => Some(VerdictRule::Majority),
            "moderator" => Some(VerdictRule::Moderator),
            _ => None,
        }
    }
}

/// The network's review rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReviewRule {
    /// How many reviewers each report is assigned to (1 to [`MAX_REVIEWERS`]).
    pub reviewers: u32,
    pub rule: VerdictRule,
    /// The least agreement with known outcomes (0 to 1) for a reviewer's votes to count.
    pub min_agreement: f64,
    /// How many known outcomes a reviewer votes on before their agreement is judged.
    pub min_known: u32,
}

impl Default for ReviewRule {
    /// Three reviewers, majority, 70 % agreement once three calibration cases were voted on.
    fn default() -> Self {
        ReviewRule {
            reviewers: 3,
            rule: VerdictRule::Majority,
            min_agreement: 0.7,
            min_known: 3,
        }
    }
}

impl ReviewRule {
    fn check(&self) -> Result<()> {
        if !(1..=MAX_REVIEWERS).contains(&self.reviewers) {
            return Err(Error::invalid(format!(
                "a report goes to 1 to {MAX_REVIEWERS} reviewers ({} given)",
                self.reviewers
            )));
        }
        if !(0.0..=1.0).contains(&self.min_agreement) {
            return Err(Error::invalid(format!(
                "the least agreement is from 0 to 1 ({} given)",
                self.min_agreement
            )));
        }
        Ok(())
    }

    /// The votes a verdict needs under [`VerdictRule::Majority`]: more than half.
    pub fn majority(&self) -> u32 {
        self.reviewers / 2 + 1
    }
}

/// One reviewer's vote on a report.
#[derive(Debug, Clone, PartialEq)]
pub struct Vote {
    pub report_id: i64,
    pub reviewer: String,
    pub verdict: Verdict,
    pub note: Option<String>,
    /// Ticks of the recording the reviewer bookmarked, ascending.
    pub ticks: Vec<u64>,
    /// Whether it counted toward the verdict (the reviewer's score was good enough then, and
    /// the report is not a calibration case).
    pub counted: bool,
    pub voted_ms: i64,
}

/// A report's verdict, with who decided it and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportVerdict {
    pub report_id: i64,
    pub verdict: Verdict,
    /// A moderator's name, or `majority` (the rule decided on the votes).
    pub by: String,
    pub at_ms: i64,
}

/// What [`ReportVerdict::by`] says when the majority decided.
pub const BY_MAJORITY: &str = "majority";

/// A reviewer's agreement: with known outcomes, and with the verdicts of the reports they
/// voted on.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewerScore {
    pub reviewer: String,
    /// Votes on calibration cases, and how many matched the known outcome.
    pub known: u64,
    pub known_agreed: u64,
    /// Votes on decided reports (not calibration cases), and how many matched the verdict.
    pub consensus: u64,
    pub consensus_agreed: u64,
    /// Reports assigned and not voted on yet.
    pub pending: u64,
    /// Whether their votes count toward verdicts now.
    pub counts: bool,
}

impl ReviewerScore {
    /// Agreement with known outcomes (`None` before any).
    pub fn known_agreement(&self) -> Option<f64> {
        (self.known > 0).then(|| self.known_agreed as f64 / self.known as f64)
    }
    /// Agreement with the consensus (`None` before any).
    pub fn consensus_agreement(&self) -> Option<f64> {
        (self.consensus > 0).then(|| self.consensus_agreed as f64 / self.consensus as f64)
    }
}

/// A staff member kept in the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaffMember {
    pub name: String,
    /// One of [`ROLES`].
    pub role: String,
    pub added_ms: i64,
}

/// One report in a reviewer's queue. Whether it is a calibration case is not said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    pub report_id: i64,
    pub reviewer: String,
    pub assigned_ms: i64,
}

/// The SHA-256 of a token, lower-case hex: what the catalog keeps of it.
pub fn token_sha256(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn name_checked(name: &str) -> Result<&str> {
    let n = name.chars().count();
    if n == 0
        || n > crate::reports::MAX_REVIEWER_CHARS
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || "-_.@".contains(c))
    {
        return Err(Error::invalid(format!(
            "a staff name is 1 to {} letters, digits or -_.@",
            crate::reports::MAX_REVIEWER_CHARS
        )));
    }
    Ok(name)
}

/// Appends an action to the audit log, in the caller's transaction.
fn audit(
    c: &mut dyn Conn,
    who: &str,
    action: &str,
    report_id: Option<i64>,
    detail: Option<&str>,
) -> Result<()> {
    let who = checked("who", who)?;
    let detail = detail.map(|d| {
        // a note may be long: the detail keeps its start (the vote row keeps it whole)
        d.chars().take(MAX_AUDIT_TEXT_CHARS).collect::<String>()
    });
    let recording = match report_id {
        Some(id) => format!("report {id}"),
        None => "review desk".to_string(),
    };
    c.execute(
        "INSERT INTO report_views (at_ms, who, action, report_id, recording, detail)
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            now_ms().into(),
            who.into(),
            action.into(),
            report_id.into(),
            recording.into(),
            detail.into(),
        ],
    )?;
    Ok(())
}

fn rule_in(c: &mut dyn Conn) -> Result<ReviewRule> {
    let rows = c.query(
        "SELECT reviewers, rule, min_agreement, min_known FROM review_rules WHERE scope = 'network'",
        &[],
    )?;
    let Some(r) = rows.first() else {
        return Ok(ReviewRule::default());
    };
    let rule = r.text(1)?;
    Ok(ReviewRule {
        reviewers: r.int(0)?.clamp(1, i64::from(MAX_REVIEWERS)) as u32,
        rule: VerdictRule::parse(&rule)
            .ok_or_else(|| Error::corrupt(format!("catalog: unknown review rule \"{rule}\"")))?,
        min_agreement: r.real(2)?,
        min_known: r.int(3)?.max(0) as u32,
    })
}

/// Every reviewer's score (those with a vote or an assignment), by name.
fn scores_in(c: &mut dyn Conn, rule: &ReviewRule) -> Result<Vec<ReviewerScore>> {
    let mut by: HashMap<String, ReviewerScore> = HashMap::new();
    for r in &c.query(
        "SELECT v.reviewer, v.verdict, p.known_verdict, p.verdict FROM report_votes v
         JOIN reports p ON p.id = v.report_id",
        &[],
    )? {
        let name = r.text(0)?;
        let vote = r.text(1)?;
        let s = by.entry(name.clone()).or_insert_with(|| blank(name));
        if let Some(known) = r.opt_text(2)? {
            s.known += 1;
            s.known_agreed += u64::from(known == vote);
        } else if let Some(verdict) = r.opt_text(3)? {
            s.consensus += 1;
            s.consensus_agreed += u64::from(verdict == vote);
        }
    }
    for r in &c.query(
        "SELECT a.reviewer, COUNT(*) FROM report_assignments a
         LEFT JOIN report_votes v ON v.report_id = a.report_id AND v.reviewer = a.reviewer
         WHERE v.report_id IS NULL GROUP BY a.reviewer",
        &[],
    )? {
        let name = r.text(0)?;
        by.entry(name.clone())
            .or_insert_with(|| blank(name))
            .pending = r.int(1)?.max(0) as u64;
    }
    let mut out: Vec<ReviewerScore> = by.into_values().collect();
    for s in &mut out {
        s.counts = s.known < u64::from(rule.min_known)
            || s.known_agreement().unwrap_or(1.0) >= rule.min_agreement;
    }
    out.sort_by(|a, b| a.reviewer.cmp(&b.reviewer));
    Ok(out)
}

fn blank(reviewer: String) -> ReviewerScore {
    ReviewerScore {
        reviewer,
        known: 0,
        known_agreed: 0,
        consensus: 0,
        consensus_agreed: 0,
        pending: 0,
        counts: true,
    }
}

fn counts_in(c: &mut dyn Conn, rule: &ReviewRule, reviewer: &str) -> Result<bool> {
    Ok(scores_in(c, rule)?
        .iter()
        .find(|s| s.reviewer == reviewer)
        .is_none_or(|s| s.counts))
}

/// Sets a report's verdict (and its status: `actioned` for cheating, else `reviewed`).
fn set_verdict(c: &mut dyn Conn, id: i64, v: Verdict, by: &str, now: i64) -> Result<()> {
    let status = if v == Verdict::Cheating {
        "actioned"
    } else {
        "reviewed"
    };
    c.execute(
        "UPDATE reports SET verdict = $1, verdict_by = $2, verdict_ms = $3, status = $4,
             reviewed_by = $2, reviewed_ms = $3 WHERE id = $5",
        &[
            v.as_str().into(),
            by.into(),
            now.into(),
            status.into(),
            id.into(),
        ],
    )?;
    Ok(())
}

/// `(known_verdict, verdict)` of a report, or an error when there is none.
fn report_state(c: &mut dyn Conn, id: i64) -> Result<(Option<String>, Option<String>)> {
    let rows = c.query(
        "SELECT known_verdict, verdict FROM reports WHERE id = $1",
        &[id.into()],
    )?;
    let r = rows
        .first()
        .ok_or_else(|| Error::invalid(format!("no report {id} in the catalog")))?;
    Ok((r.opt_text(0)?, r.opt_text(1)?))
}

fn ticks_text(ticks: &[u64]) -> String {
    ticks
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

fn ticks_of(s: &str) -> Result<Vec<u64>> {
    s.split(',')
        .filter(|t| !t.is_empty())
        .map(|t| {
            t.parse()
                .map_err(|_| Error::corrupt(format!("catalog: a vote's tick \"{t}\"")))
        })
        .collect()
}

impl Catalog {
    /// Keeps a staff member: `name` with `role` (one of [`ROLES`]) and the SHA-256 of `token`
    /// (at least [`STAFF_TOKEN_MIN_CHARS`] characters, no spaces); replaces the member of that
    /// name. `by` is logged.
    pub fn add_staff(&self, name: &str, role: &str, token: &str, by: &str) -> Result<StaffMember> {
        let name = name_checked(name)?;
        if !ROLES.contains(&role) {
            return Err(Error::invalid(format!(
                "role {role:?}: one of reviewer, moderator, admin"
            )));
        }
        let n = token.chars().count();
        if !(STAFF_TOKEN_MIN_CHARS..=256).contains(&n)
            || token.chars().any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(Error::invalid(format!(
                "the token of {name}: {STAFF_TOKEN_MIN_CHARS} to 256 characters without spaces"
            )));
        }
        let hash = token_sha256(token);
        let now = now_ms();
        self.tx(|c| {
            let taken = c.query(
                "SELECT name FROM staff WHERE token_sha256 = $1 AND name <> $2",
                &[hash.as_str().into(), name.into()],
            )?;
            if !taken.is_empty() {
                return Err(Error::invalid(format!(
                    "the token of {name} is also another member's: each needs their own"
                )));
            }
            c.execute("DELETE FROM staff WHERE name = $1", &[name.into()])?;
            c.execute(
                "INSERT INTO staff (name, role, token_sha256, added_ms) VALUES ($1, $2, $3, $4)",
                &[name.into(), role.into(), hash.as_str().into(), now.into()],
            )?;
            audit(c, by, "staff-add", None, Some(&format!("{name} {role}")))
        })?;
        Ok(StaffMember {
            name: name.to_string(),
            role: role.to_string(),
            added_ms: now,
        })
    }

    /// Removes a staff member (their token no longer opens anything); whether there was one.
    pub fn remove_staff(&self, name: &str, by: &str) -> Result<bool> {
        self.tx(|c| {
            let n = c.execute("DELETE FROM staff WHERE name = $1", &[name.into()])?;
            if n > 0 {
                audit(c, by, "staff-remove", None, Some(name))?;
            }
            Ok(n > 0)
        })
    }

    /// The staff members, by name.
    pub fn staff(&self) -> Result<Vec<StaffMember>> {
        let rows =
            self.tx(|c| c.query("SELECT name, role, added_ms FROM staff ORDER BY name", &[]))?;
        rows.iter()
            .map(|r| {
                Ok(StaffMember {
                    name: r.text(0)?,
                    role: r.text(1)?,
                    added_ms: r.int(2)?,
                })
            })
            .collect()
    }

    /// The staff member whose token `token` is (by its SHA-256).
    pub fn staff_by_token(&self, token: &str) -> Result<Option<StaffMember>> {
        let hash = token_sha256(token);
        let rows = self.tx(|c| {
            c.query(
                "SELECT name, role, added_ms FROM staff WHERE token_sha256 = $1",
                &[hash.as_str().into()],
            )
        })?;
        rows.first()
            .map(|r| {
                Ok(StaffMember {
                    name: r.text(0)?,
                    role: r.text(1)?,
                    added_ms: r.int(2)?,
                })
            })
            .transpose()
    }

    /// The review rule ([`ReviewRule::default`] until one is set).
    pub fn review_rule(&self) -> Result<ReviewRule> {
        self.tx(rule_in)
    }

    /// Sets the review rule; `by` is logged.
    pub fn set_review_rule(&self, rule: ReviewRule, by: &str) -> Result<()> {
        rule.check()?;
        self.tx(|c| {
            c.execute("DELETE FROM review_rules WHERE scope = 'network'", &[])?;
            c.execute(
                "INSERT INTO review_rules (scope, reviewers, rule, min_agreement, min_known)
                 VALUES ('network', $1, $2, $3, $4)",
                &[
                    i64::from(rule.reviewers).into(),
                    rule.rule.as_str().into(),
                    rule.min_agreement.into(),
                    i64::from(rule.min_known).into(),
                ],
            )?;
            audit(
                c,
                by,
                "rule",
                None,
                Some(&format!(
                    "{} of {}, agreement {} after {}",
                    rule.rule.as_str(),
                    rule.reviewers,
                    rule.min_agreement,
                    rule.min_known
                )),
            )
        })
    }

    /// Assigns reports to `reviewers` (the names of the reviewers there are): each open report
    /// without a verdict, oldest first, to as many counting reviewers as the rule asks (those
    /// with the fewest reports pending first, then by name); each calibration case to every
    /// reviewer. Returns the assignments made; `by` is logged with each.
    pub fn assign_reports(&self, reviewers: &[&str], by: &str) -> Result<Vec<Assignment>> {
        for r in reviewers {
            name_checked(r)?;
        }
        let now = now_ms();
        self.tx(|c| {
            let rule = rule_in(c)?;
            let scores = scores_in(c, &rule)?;
            let mut pending: HashMap<&str, u64> = reviewers.iter().map(|r| (*r, 0)).collect();
            let mut counting: Vec<&str> = Vec::new();
            for r in reviewers {
                let s = scores.iter().find(|s| s.reviewer == *r);
                pending.insert(r, s.map_or(0, |s| s.pending));
                if s.is_none_or(|s| s.counts) {
                    counting.push(r);
                }
            }
            let mut made = Vec::new();
            let rows = c.query(
                "SELECT id, known_verdict FROM reports
                 WHERE (status = 'open' AND verdict IS NULL) OR known_verdict IS NOT NULL
                 ORDER BY created_ms, id",
                &[],
            )?;
            for row in &rows {
                let (id, known) = (row.int(0)?, row.opt_text(1)?.is_some());
                let have: Vec<String> = c
                    .query(
                        "SELECT reviewer FROM report_assignments WHERE report_id = $1",
                        &[id.into()],
                    )?
                    .iter()
                    .map(|r| r.text(0))
                    .collect::<Result<_>>()?;
                let mut picks: Vec<&str> = if known {
                    reviewers.to_vec()
                } else {
                    counting.clone()
                };
                picks.retain(|r| !have.iter().any(|h| h == r));
                picks.sort_by_key(|r| (pending[r], *r));
                if !known {
                    let wanted = (rule.reviewers as usize).saturating_sub(have.len());
                    picks.truncate(wanted);
                }
                for r in picks {
                    c.execute(
                        "INSERT INTO report_assignments (report_id, reviewer, assigned_ms)
                         VALUES ($1, $2, $3)",
                        &[id.into(), r.into(), now.into()],
                    )?;
                    audit(c, by, "assign", Some(id), Some(r))?;
                    *pending.get_mut(r).expect("a reviewer given") += 1;
                    made.push(Assignment {
                        report_id: id,
                        reviewer: r.to_string(),
                        assigned_ms: now,
                    });
                }
            }
            Ok(made)
        })
    }

    /// Assigns report `id` to `reviewer` (a moderator's choice, whatever the rule's count).
    pub fn assign_report(&self, id: i64, reviewer: &str, by: &str) -> Result<()> {
        name_checked(reviewer)?;
        self.tx(|c| {
            report_state(c, id)?;
            let have = c.query(
                "SELECT 1 FROM report_assignments WHERE report_id = $1 AND reviewer = $2",
                &[id.into(), reviewer.into()],
            )?;
            if have.is_empty() {
                c.execute(
                    "INSERT INTO report_assignments (report_id, reviewer, assigned_ms)
                     VALUES ($1, $2, $3)",
                    &[id.into(), reviewer.into(), now_ms().into()],
                )?;
                audit(c, by, "assign", Some(id), Some(reviewer))?;
            }
            Ok(())
        })
    }

    /// The reports assigned to `reviewer` and not voted on yet, oldest assignment first.
    pub fn queue(&self, reviewer: &str) -> Result<Vec<Assignment>> {
        let rows = self.tx(|c| {
            c.query(
                "SELECT a.report_id, a.assigned_ms FROM report_assignments a
                 LEFT JOIN report_votes v ON v.report_id = a.report_id AND v.reviewer = a.reviewer
                 WHERE a.reviewer = $1 AND v.report_id IS NULL
                 ORDER BY a.assigned_ms, a.report_id",
                &[reviewer.into()],
            )
        })?;
        rows.iter()
            .map(|r| {
                Ok(Assignment {
                    report_id: r.int(0)?,
                    reviewer: reviewer.to_string(),
                    assigned_ms: r.int(1)?,
                })
            })
            .collect()
    }

    /// Whether report `id` is assigned to `reviewer`.
    pub fn is_assigned(&self, id: i64, reviewer: &str) -> Result<bool> {
        let rows = self.tx(|c| {
            c.query(
                "SELECT 1 FROM report_assignments WHERE report_id = $1 AND reviewer = $2",
                &[id.into(), reviewer.into()],
            )
        })?;
        Ok(!rows.is_empty())
    }

    /// Records `reviewer`'s vote on report `id` (assigned to them, once): `verdict`, an
    /// optional note, the ticks they bookmarked. Under the majority rule, the vote that makes
    /// a majority of counting votes decides the report's verdict, returned.
    pub fn vote(
        &self,
        id: i64,
        reviewer: &str,
        verdict: Verdict,
        note: Option<&str>,
        ticks: &[u64],
    ) -> Result<Option<ReportVerdict>> {
        name_checked(reviewer)?;
        if let Some(n) = note
            && (n.chars().count() > MAX_NOTE_CHARS
                || n.chars().any(|c| c.is_control() && c != '\n'))
        {
            return Err(Error::invalid(format!(
                "a note is at most {MAX_NOTE_CHARS} characters without control characters"
            )));
        }
        if ticks.len() > MAX_VOTE_TICKS {
            return Err(Error::invalid(format!(
                "at most {MAX_VOTE_TICKS} bookmarked ticks ({} given)",
                ticks.len()
            )));
        }
        let mut ticks = ticks.to_vec();
        ticks.sort_unstable();
        ticks.dedup();
        let note = note.map(str::trim).filter(|n| !n.is_empty());
        let now = now_ms();
        self.tx(|c| {
            let (known, decided) = report_state(c, id)?;
            let assigned = c.query(
                "SELECT 1 FROM report_assignments WHERE report_id = $1 AND reviewer = $2",
                &[id.into(), reviewer.into()],
            )?;
            if assigned.is_empty() {
                return Err(Error::invalid(format!(
                    "report {id} is not assigned to {reviewer}"
                )));
            }
            let voted = c.query(
                "SELECT 1 FROM report_votes WHERE report_id = $1 AND reviewer = $2",
                &[id.into(), reviewer.into()],
            )?;
            if !voted.is_empty() {
                return Err(Error::invalid(format!(
                    "{reviewer} already voted on report {id}"
                )));
            }
            let rule = rule_in(c)?;
            let counted = known.is_none() && counts_in(c, &rule, reviewer)?;
            c.execute(
                "INSERT INTO report_votes (report_id, reviewer, verdict, note, ticks, counted,
                     voted_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                &[
                    id.into(),
                    reviewer.into(),
                    verdict.as_str().into(),
                    note.map(str::to_string).into(),
                    ticks_text(&ticks).into(),
                    i64::from(counted).into(),
                    now.into(),
                ],
            )?;
            let detail = match note {
                Some(n) => format!("{} ({n})", verdict.as_str()),
                None => verdict.as_str().to_string(),
            };
            audit(c, reviewer, "vote", Some(id), Some(&detail))?;
            if known.is_some() || decided.is_some() || rule.rule != VerdictRule::Majority {
                return Ok(None);
            }
            let n = c
                .one(
                    "SELECT COUNT(*) FROM report_votes
                     WHERE report_id = $1 AND verdict = $2 AND counted = 1",
                    &[id.into(), verdict.as_str().into()],
                )?
                .int(0)?;
            if n < i64::from(rule.majority()) {
                return Ok(None);
            }
            set_verdict(c, id, verdict, BY_MAJORITY, now)?;
            audit(
                c,
                BY_MAJORITY,
                "verdict",
                Some(id),
                Some(&format!(
                    "{} ({n} of {} votes)",
                    verdict.as_str(),
                    rule.reviewers
                )),
            )?;
            Ok(Some(ReportVerdict {
                report_id: id,
                verdict,
                by: BY_MAJORITY.to_string(),
                at_ms: now,
            }))
        })
    }

    /// The votes on report `id`, in the order cast.
    pub fn votes(&self, id: i64) -> Result<Vec<Vote>> {
        let rows = self.tx(|c| {
            c.query(
                "SELECT reviewer, verdict, note, ticks, counted, voted_ms FROM report_votes
                 WHERE report_id = $1 ORDER BY voted_ms, reviewer",
                &[id.into()],
            )
        })?;
        rows.iter()
            .map(|r| {
                Ok(Vote {
                    report_id: id,
                    reviewer: r.text(0)?,
                    verdict: Verdict::of(&r.text(1)?)?,
                    note: r.opt_text(2)?,
                    ticks: ticks_of(&r.text(3)?)?,
                    counted: r.int(4)? != 0,
                    voted_ms: r.int(5)?,
                })
            })
            .collect()
    }

    /// A moderator's decision: report `id`'s verdict is `verdict`, by `moderator`, now
    /// (replacing one decided before).
    pub fn decide_verdict(
        &self,
        id: i64,
        verdict: Verdict,
        moderator: &str,
    ) -> Result<ReportVerdict> {
        name_checked(moderator)?;
        let now = now_ms();
        self.tx(|c| {
            report_state(c, id)?;
            set_verdict(c, id, verdict, moderator, now)?;
            audit(c, moderator, "verdict", Some(id), Some(verdict.as_str()))
        })?;
        Ok(ReportVerdict {
            report_id: id,
            verdict,
            by: moderator.to_string(),
            at_ms: now,
        })
    }

    /// Report `id`'s verdict, if decided.
    pub fn verdict(&self, id: i64) -> Result<Option<ReportVerdict>> {
        Ok(self.verdicts()?.into_iter().find(|v| v.report_id == id))
    }

    /// Every decided verdict, by report id.
    pub fn verdicts(&self) -> Result<Vec<ReportVerdict>> {
        let rows = self.tx(|c| {
            c.query(
                "SELECT id, verdict, verdict_by, verdict_ms FROM reports
                 WHERE verdict IS NOT NULL ORDER BY id",
                &[],
            )
        })?;
        rows.iter()
            .map(|r| {
                Ok(ReportVerdict {
                    report_id: r.int(0)?,
                    verdict: Verdict::of(&r.text(1)?)?,
                    by: r.opt_text(2)?.unwrap_or_default(),
                    at_ms: r.opt_int(3)?.unwrap_or(0),
                })
            })
            .collect()
    }

    /// Marks report `id` a calibration case whose outcome is `known` (or, `None`, no longer
    /// one), by `moderator`.
    pub fn mark_known(&self, id: i64, known: Option<Verdict>, moderator: &str) -> Result<()> {
        name_checked(moderator)?;
        self.tx(|c| {
            report_state(c, id)?;
            let known_s = known.map(|v| v.as_str().to_string());
            c.execute(
                "UPDATE reports SET known_verdict = $1, known_by = $2 WHERE id = $3",
                &[
                    known_s.clone().into(),
                    known.map(|_| moderator.to_string()).into(),
                    id.into(),
                ],
            )?;
            audit(
                c,
                moderator,
                "known",
                Some(id),
                Some(known_s.as_deref().unwrap_or("none")),
            )
        })
    }

    /// The known outcome of every calibration case, by report id.
    pub fn known_outcomes(&self) -> Result<Vec<(i64, Verdict)>> {
        let rows = self.tx(|c| {
            c.query(
                "SELECT id, known_verdict FROM reports WHERE known_verdict IS NOT NULL
                 ORDER BY id",
                &[],
            )
        })?;
        rows.iter()
            .map(|r| Ok((r.int(0)?, Verdict::of(&r.text(1)?)?)))
            .collect()
    }

    /// Every reviewer's score (those with a vote or an assignment), by name.
    pub fn reviewer_scores(&self) -> Result<Vec<ReviewerScore>> {
        self.tx(|c| {
            let rule = rule_in(c)?;
            scores_in(c, &rule)
        })
    }
}
