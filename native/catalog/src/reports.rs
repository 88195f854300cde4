//! Shadow-play reports: who reported whom, why, when, whether the report is still open, and the
//! recording shadow play wrote for it (registered like any recording, without runs).

use std::path::Path;

use tickreel::{Error, Result};

use crate::backend::Row;
use crate::model::{NewReport, Report, ReportStatus};
use crate::{Catalog, now_ms, parse_uuid};

const REPORT_COLUMNS: &str = "id, reported, reported_name, reporter, reason, created_ms, status, recording_id, \
     reviewed_by, reviewed_ms";

/// The longest name [`Catalog::review_report`] records as who decided.
pub const MAX_REVIEWER_CHARS: usize = 64;

fn report_from(row: &Row) -> Result<Report> {
    let status = row.text(6)?;
    Ok(Report {
        id: row.int(0)?,
        reported: parse_uuid(&row.text(1)?)?,
        reported_name: row.text(2)?,
        reporter: parse_uuid(&row.text(3)?)?,
        reason: row.text(4)?,
        created_ms: row.int(5)?,
        status: ReportStatus::parse(&status).ok_or_else(|| {
            Error::corrupt(format!("catalog: unknown report status \"{status}\""))
        })?,
        recording_id: row.opt_int(7)?,
        reviewed_by: row.opt_text(8)?,
        reviewed_ms: row.opt_int(9)?,
    })
}

impl Catalog {
    /// Files an open report; `recording` is the finished file shadow play wrote for it (it is
    /// registered, or found if it already is).
    pub fn add_report(&self, report: &NewReport, recording: Option<&Path>) -> Result<Report> {
        let recording_id = match recording {
            Some(path) => Some(self.register(path, &[])?.recording_id),
            None => None,
        };
        let created = report.created_ms.unwrap_or_else(now_ms);
        let row = self.tx(|c| {
            c.one(
                &format!(
                    "INSERT INTO reports (reported, reported_name, reporter, reason, created_ms,
                         status, recording_id)
                     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING {REPORT_COLUMNS}"
                ),
                &[
                    report.reported.to_string().into(),
                    report.reported_name.as_str().into(),
                    report.reporter.to_string().into(),
                    report.reason.as_str().into(),
                    created.into(),
                    ReportStatus::Open.as_str().into(),
                    recording_id.into(),
                ],
            )
        })?;
        report_from(&row)
    }

    /// Opens or closes a report.
    pub fn set_report_status(&self, id: i64, status: ReportStatus) -> Result<()> {
        let n = self.tx(|c| {
            c.execute(
                "UPDATE reports SET status = $1 WHERE id = $2",
                &[status.as_str().into(), id.into()],
            )
        })?;
        if n == 0 {
            return Err(Error::invalid(format!("no report {id} in the catalog")));
        }
        Ok(())
    }

    /// Sets a report's status as decided by `by` (a moderator's name, 1 to
    /// [`MAX_REVIEWER_CHARS`] characters, no control characters), now.
    pub fn review_report(&self, id: i64, status: ReportStatus, by: &str) -> Result<()> {
        let n = by.chars().count();
        if n == 0 || n > MAX_REVIEWER_CHARS || by.chars().any(char::is_control) {
            return Err(Error::invalid(format!(
                "a reviewer's name is 1 to {MAX_REVIEWER_CHARS} characters without control \
                 characters ({n} given)"
            )));
        }
        let n = self.tx(|c| {
            c.execute(
                "UPDATE reports SET status = $1, reviewed_by = $2, reviewed_ms = $3 WHERE id = $4",
                &[
                    status.as_str().into(),
                    by.into(),
                    now_ms().into(),
                    id.into(),
                ],
            )
        })?;
        if n == 0 {
            return Err(Error::invalid(format!("no report {id} in the catalog")));
        }
        Ok(())
    }

    /// Reports, newest first: those with `status`, or all.
    pub fn reports(&self, status: Option<ReportStatus>) -> Result<Vec<Report>> {
        let rows = self.tx(|c| match status {
            Some(s) => c.query(
                &format!(
                    "SELECT {REPORT_COLUMNS} FROM reports WHERE status = $1
                     ORDER BY created_ms DESC, id DESC"
                ),
                &[s.as_str().into()],
            ),
            None => c.query(
                &format!("SELECT {REPORT_COLUMNS} FROM reports ORDER BY created_ms DESC, id DESC"),
                &[],
            ),
        })?;
        rows.iter().map(report_from).collect()
    }
}
