//! The reports inbox: the catalog's shadow-play reports (open ones first, then newest first),
//! each with the recording it wrote, and the one write the server makes — a moderator's decision
//! on a report (reviewed or actioned, with their name), stored in the catalog. Recordings are
//! never written.

use axum::http::{HeaderMap, header};
use serde::Deserialize;
use serde_json::{Value, json};
use tickreel_catalog::reports::MAX_REVIEWER_CHARS;
use tickreel_catalog::{Report, ReportStatus};

use super::error::{ApiError, ApiResult};
use super::library::{CATALOG_PREFIX, Library};

/// At most this many reports are listed (open ones first).
pub const MAX_REPORTS: usize = 1_000;

/// A report row as the page shows it. The recording is named as the viewer opens it
/// (`catalog:ID`); its report tick and figures come with the recording (`/api/info`). Any other
/// number added to this object (an analysis column of the catalog's report rows) is shown by
/// the inbox as a figure, under its key, without a change to the page.
fn report_json(r: &Report, server: Option<String>) -> Value {
    let f = &r.figures;
    json!({
        "id": r.id,
        "player": r.reported.to_string(),
        "player_name": r.reported_name,
        "reporter": r.reporter.to_string(),
        "reason": r.reason,
        "created_ms": r.created_ms,
        "status": r.status.as_str(),
        "recording": r.recording_id.map(|id| format!("{CATALOG_PREFIX}{id}")),
        "server": server,
        "reviewed_by": r.reviewed_by,
        "reviewed_ms": r.reviewed_ms,
        // the reported player's figures (unknown ones absent): the inbox shows every number
        "blocks_broken": f.blocks_broken,
        "blocks_placed": f.blocks_placed,
        "attacks": f.attacks,
        "attacked": f.attacked,
        "attacks_per_second_max": f.attacks_per_second_max,
        "reach_max": f.reach_max,
        "reach_p99": f.reach_p99,
        "speed_max": f.speed_max,
        "rotation_max": f.rotation_max,
    })
}

/// `{"reports": [...], "open": N, "truncated": bool}`: open reports first, each group newest
/// first. Blocking.
pub fn list(lib: &Library) -> ApiResult<Value> {
    let (mut reports, recs) = lib.with_catalog(|c| Ok((c.reports(None)?, c.recordings()?)))?;
    // stable: the catalog's newest-first order holds within each group
    reports.sort_by_key(|r| r.status != ReportStatus::Open);
    let open = reports
        .iter()
        .filter(|r| r.status == ReportStatus::Open)
        .count();
    let truncated = reports.len() > MAX_REPORTS;
    reports.truncate(MAX_REPORTS);
    let rows: Vec<Value> = reports
        .iter()
        .map(|r| {
            let rec = r
                .recording_id
                .and_then(|id| recs.iter().find(|c| c.id == id));
            // the world id of the recording's header: the server it was recorded on
            report_json(r, rec.and_then(|c| c.world).map(|w| w.to_string()))
        })
        .collect();
    Ok(json!({"reports": rows, "open": open, "truncated": truncated}))
}

/// A decision: `{"id": N, "status": "reviewed"|"actioned"|"open", "by": NAME}` (`by` only on
/// a server without staff tokens: with them, the token's name is who decided).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Decision {
    pub id: i64,
    pub status: String,
    #[serde(default)]
    pub by: Option<String>,
}

/// Checks that a write comes from the viewer's own page: a browser sends `Origin` with a
/// `POST`, and it must name the host the request was sent to (a page of another site cannot
/// decide on reports, even on a loopback server it can reach); `Sec-Fetch-Site`, when sent, must
/// be `same-origin`. (The JSON body already needs a request no plain form can make.)
pub fn same_origin(headers: &HeaderMap) -> ApiResult<()> {
    let refuse = || ApiError::forbidden("a decision is taken from the viewer's own page only");
    if let Some(site) = headers.get("sec-fetch-site")
        && site.as_bytes() != b"same-origin"
    {
        return Err(refuse());
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let host = headers.get(header::HOST).ok_or_else(refuse)?;
        let origin = origin.to_str().map_err(|_| refuse())?;
        let named = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"))
            .ok_or_else(refuse)?;
        if named.as_bytes() != host.as_bytes() {
            return Err(refuse());
        }
    }
    Ok(())
}

/// Stores a decision taken by `by`. Blocking.
pub fn decide(lib: &Library, d: &Decision, by: &str) -> ApiResult<Value> {
    let status = match d.status.as_str() {
        "reviewed" => ReportStatus::Reviewed,
        "actioned" => ReportStatus::Actioned,
        "open" => ReportStatus::Open,
        other => {
            return Err(ApiError::bad_request(format!(
                "status {}: expected reviewed, actioned or open",
                crate::errors::echo(other)
            )));
        }
    };
    let by = by.trim();
    let n = by.chars().count();
    if n == 0 || n > MAX_REVIEWER_CHARS || by.chars().any(char::is_control) {
        return Err(ApiError::bad_request(format!(
            "by: a moderator's name of 1 to {MAX_REVIEWER_CHARS} characters is required"
        )));
    }
    lib.with_catalog(|c| Ok(c.review_report(d.id, status, by)))?
        .map_err(|e| ApiError::of("report", e))?;
    let row = lib
        .with_catalog(|c| c.reports(None))?
        .into_iter()
        .find(|r| r.id == d.id)
        .ok_or_else(|| ApiError::not_found(format!("no report {}", d.id)))?;
    Ok(report_json(&row, None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn only_the_pages_own_origin_decides() {
        let of = |pairs: &[(&'static str, &'static str)]| {
            let mut h = HeaderMap::new();
            for (k, v) in pairs {
                h.insert(*k, HeaderValue::from_static(v));
            }
            same_origin(&h).is_ok()
        };
        assert!(of(&[("host", "127.0.0.1:8080")]));
        assert!(of(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "http://127.0.0.1:8080"),
            ("sec-fetch-site", "same-origin")
        ]));
        assert!(!of(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "http://evil.example")
        ]));
        assert!(!of(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "http://127.0.0.1:8080"),
            ("sec-fetch-site", "cross-site")
        ]));
        assert!(!of(&[("host", "127.0.0.1:8080"), ("origin", "null")]));
    }
}
