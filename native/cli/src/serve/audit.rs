//! The audit log of staff views of reports: every time a report is opened in the viewer (its
//! recording's summary asked for: a shadow-play report's recording, or one a catalog report
//! points at) and every decision on one, a row says who (the staff token's name, or
//! [`LOCAL`] on a loopback server without tokens), what (the catalog report's id where there is
//! one, and the recording), the action and when. Rows go to the catalog's `report_views` table
//! when the server has a catalog, and to `--audit-log FILE` (one JSON object a line, appended)
//! when given; a row that cannot be written fails the request (a view that is not logged is not
//! shown).

use std::io::Write;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::http::StatusCode;
use parking_lot::Mutex;
use serde_json::{Value, json};

use super::error::{ApiError, ApiResult};
use super::library::{CATALOG_PREFIX, Library};

/// Who a request comes from on a server without tokens (loopback only).
pub const LOCAL: &str = "local";

/// Where views are logged besides the catalog.
#[derive(Default)]
pub struct AuditLog {
    file: Option<(PathBuf, Mutex<()>)>,
}

impl AuditLog {
    pub fn new(file: Option<PathBuf>) -> AuditLog {
        AuditLog {
            file: file.map(|p| (p, Mutex::new(()))),
        }
    }

    pub fn has_file(&self) -> bool {
        self.file.is_some()
    }

    /// Logs that `who` did `action` to the report `report` (a catalog id) of `recording`.
    /// Blocking.
    pub fn log(
        &self,
        lib: &Library,
        who: &str,
        action: &str,
        report: Option<i64>,
        recording: &str,
    ) -> ApiResult<()> {
        if lib.has_catalog() {
            lib.with_catalog(|c| c.log_report_view(who, action, report, recording))?;
        }
        if let Some((path, lock)) = &self.file {
            let at = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64);
            let line = json!({"at_ms": at, "who": who, "action": action, "report_id": report,
                "recording": recording});
            let _one_writer = lock.lock();
            let written = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| writeln!(f, "{line}").and_then(|()| f.sync_data()));
            if let Err(e) = written {
                eprintln!("tickreel serve: the audit log {}: {e}", path.display());
                return Err(ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "the audit log cannot be written: nothing is shown",
                ));
            }
        }
        Ok(())
    }

    /// Logs the opening of `info` (a recording's summary, `/api/info`) when it is a report's:
    /// its metadata holds a shadow-play report, or a catalog report points at it. Blocking.
    pub fn opened(&self, lib: &Library, who: &str, name: &str, info: &Value) -> ApiResult<()> {
        let mut reports: Vec<i64> = Vec::new();
        if lib.has_catalog() {
            let id = name
                .strip_prefix(CATALOG_PREFIX)
                .and_then(|id| id.parse::<i64>().ok());
            let location = lib.location(name).unwrap_or_default();
            reports = lib.with_catalog(|c| c.reports_on_recording(id, &location))?;
        }
        if reports.is_empty() {
            if !info["report"].is_null() {
                self.log(lib, who, "open", None, name)?;
            }
            return Ok(());
        }
        for id in reports {
            self.log(lib, who, "open", Some(id), name)?;
        }
        Ok(())
    }
}
