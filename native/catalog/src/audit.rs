//! The audit log of staff views of reports (schema version 6, table `report_views`): every time
//! a member of staff opens a shadow-play report or decides on one, a row says who (the name of
//! the staff token they used), what (the report's id where known, and the recording), the
//! action and when. Rows are only ever appended; [`Catalog::report_views`] reads the newest.
//! Since version 9 the review desk's actions ([`crate::review`]: assignments, votes, verdicts,
//! known outcomes, staff and rule changes) are rows too, with a detail.

use tickreel::{Error, Result};

use crate::{Catalog, now_ms};

/// Longest `who`, `action` and `recording` accepted, in characters (longer ones are refused,
/// never cut: an audit row says exactly what happened or nothing).
pub const MAX_AUDIT_TEXT_CHARS: usize = 1024;
/// Most rows [`Catalog::report_views`] returns at once.
pub const MAX_AUDIT_ROWS: u64 = 10_000;

/// One staff view of a report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportView {
    /// Milliseconds since the Unix epoch (set by the catalog when logged).
    pub at_ms: i64,
    /// Who: the staff token's name (or what the server calls an anonymous local viewer).
    pub who: String,
    /// What was done: `open`, or a decision (`reviewed`, `actioned`, `open`).
    pub action: String,
    /// The report's id in the catalog, when the view is of a catalog report.
    pub report_id: Option<i64>,
    /// The recording viewed, as the viewer names it (`catalog:ID`, a file's name), or `report
    /// ID` for an action of the review desk ([`crate::review`]).
    pub recording: String,
    /// What the action said (schema version 9): a vote's verdict and note, the reviewer
    /// assigned, a verdict decided.
    pub detail: Option<String>,
}

pub(crate) fn checked<'a>(what: &str, s: &'a str) -> Result<&'a str> {
    let n = s.chars().count();
    if n == 0 || n > MAX_AUDIT_TEXT_CHARS || s.chars().any(char::is_control) {
        return Err(Error::invalid(format!(
            "an audit row's {what} is 1 to {MAX_AUDIT_TEXT_CHARS} characters without control \
             characters ({n} given)"
        )));
    }
    Ok(s)
}

impl Catalog {
    /// Appends a view of a report to the audit log, now; returns the row as stored.
    pub fn log_report_view(
        &self,
        who: &str,
        action: &str,
        report_id: Option<i64>,
        recording: &str,
    ) -> Result<ReportView> {
        let (who, action, recording) = (
            checked("who", who)?,
            checked("action", action)?,
            checked("recording", recording)?,
        );
        let at = now_ms();
        self.tx(|c| {
            c.execute(
                "INSERT INTO report_views (at_ms, who, action, report_id, recording)
                 VALUES ($1, $2, $3, $4, $5)",
                &[
                    at.into(),
                    who.into(),
                    action.into(),
                    report_id.into(),
                    recording.into(),
                ],
            )
        })?;
        Ok(ReportView {
            at_ms: at,
            who: who.to_string(),
            action: action.to_string(),
            report_id,
            recording: recording.to_string(),
            detail: None,
        })
    }

    /// The ids of the reports that point at a recording, given by its catalog id or its
    /// location (at most [`MAX_AUDIT_ROWS`]): what a view of that recording is a view of.
    pub fn reports_on_recording(&self, id: Option<i64>, location: &str) -> Result<Vec<i64>> {
        let rows = self.tx(|c| {
            c.query(
                "SELECT p.id FROM reports p JOIN recordings g ON g.id = p.recording_id
                 WHERE g.id = $1 OR g.location = $2 ORDER BY p.id LIMIT $3",
                &[
                    id.unwrap_or(-1).into(),
                    location.into(),
                    (MAX_AUDIT_ROWS as i64).into(),
                ],
            )
        })?;
        rows.iter().map(|r| r.int(0)).collect()
    }

    /// The newest `n` views of reports (at most [`MAX_AUDIT_ROWS`]), newest first.
    pub fn report_views(&self, n: u64) -> Result<Vec<ReportView>> {
        let n = n.min(MAX_AUDIT_ROWS) as i64;
        let rows = self.tx(|c| {
            c.query(
                "SELECT at_ms, who, action, report_id, recording, detail FROM report_views
                 ORDER BY at_ms DESC, id DESC LIMIT $1",
                &[n.into()],
            )
        })?;
        rows.iter()
            .map(|r| {
                Ok(ReportView {
                    at_ms: r.int(0)?,
                    who: r.text(1)?,
                    action: r.text(2)?,
                    report_id: r.opt_int(3)?,
                    recording: r.text(4)?,
                    detail: r.opt_text(5)?,
                })
            })
            .collect()
    }
}
