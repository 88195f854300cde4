//! What operators and server plugins change in the catalog ([`tickreel_catalog`]): shadow-play
//! reports (filed, listed, opened or closed), a run's validity, the retention policies `prune`
//! applies, and a run registered straight from a recording's finish. Every call runs on the
//! catalog's worker, as those of `crate::api::catalog`; their rows use the encodings of `rows`
//! here and of `crate::api::catalog::rows`.

use crate::api::New;
use crate::api::catalog::{Catalog, required, rows as run_rows, submit};
use crate::api::pending::Pending;
use tickreel::ghost::GhostRange;
use tickreel_bridge_macros::bridge_fn;
use tickreel_catalog::{
    Movement, NewReport, ReportStatus, RetentionPolicy, RetentionScope, RunSpec,
};

fn status(open: bool) -> ReportStatus {
    if open {
        ReportStatus::Open
    } else {
        ReportStatus::Closed
    }
}

/// Files an open shadow-play report: who was reported (`reported`, a 16-byte UUID, and their
/// name), by whom (`reporter`), why, and the finished recording shadow play wrote for it
/// (`recording`, a local path or an object URL read with the `AWS_*` variables, once its upload
/// succeeded; NULL for none: it is registered, or found if it already is; read from there, as
/// `tickreel_catalog_register_at` does). Stores the pending in `*out_pending`; the call's rows
/// are the filed report (the encoding of `rows::reports`).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `reported` or `reporter`.
///
/// Thread safety: any thread; never blocks (the call runs on the catalog's worker).
#[bridge_fn(
    c = "tickreel_catalog_add_report",
    c_out = "out_pending",
    java = "catalogAddReport"
)]
pub fn add_report(
    catalog: &Catalog,
    reported: Option<uuid::Uuid>,
    reported_name: &str,
    reporter: Option<uuid::Uuid>,
    reason: &str,
    recording: Option<&str>,
) -> tickreel::Result<New<Pending>> {
    let report = NewReport {
        reported: required(reported)?,
        reported_name: reported_name.to_owned(),
        reporter: required(reporter)?,
        reason: reason.to_owned(),
        created_ms: None,
        server: None,
    };
    let recording = recording.map(str::to_owned);
    Ok(submit(catalog, move |c| {
        let filed = c.add_report_at(&report, recording.as_deref())?;
        Ok(rows::reports([filed]))
    }))
}

/// Starts listing the shadow-play reports, newest first: the open ones (`which` 1), the closed
/// ones (2) or all (0). Stores the pending in `*out_pending`; its rows use the encoding of
/// `rows::reports`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for another `which`.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_reports",
    c_out = "out_pending",
    java = "catalogReports"
)]
pub fn reports(catalog: &Catalog, which: u32) -> tickreel::Result<New<Pending>> {
    let filter = match which {
        0 => None,
        1 => Some(ReportStatus::Open),
        2 => Some(ReportStatus::Closed),
        w => {
            return Err(tickreel::Error::invalid(format!(
                "reports: which is 0 (all), 1 (open) or 2 (closed), not {w}"
            )));
        }
    };
    Ok(submit(catalog, move |c| {
        Ok(rows::reports(c.reports(filter)?))
    }))
}

/// Starts opening (`open` true) or closing a report. The call fails with
/// `TICKREEL_RESULT_INVALID_ARGUMENT` when there is no report `report_id`; its rows are empty.
/// Stores the pending in `*out_pending`.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_set_report_open",
    c_out = "out_pending",
    java = "catalogSetReportOpen"
)]
pub fn set_report_open(catalog: &Catalog, report_id: i64, open: bool) -> New<Pending> {
    submit(catalog, move |c| {
        c.set_report_status(report_id, status(open))?;
        Ok(Vec::new())
    })
}

/// Starts marking run `run_id` valid or invalid (anticheat, an operator's decision): an invalid
/// run leaves the boards, and its player's best is recomputed. The call fails with
/// `TICKREEL_RESULT_INVALID_ARGUMENT` when there is no such run; its rows are empty. Stores the
/// call's handle in `*out_pending`.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_set_run_valid",
    c_out = "out_pending",
    java = "catalogSetRunValid"
)]
pub fn set_run_valid(catalog: &Catalog, run_id: i64, valid: bool) -> New<Pending> {
    submit(catalog, move |c| {
        c.set_run_valid(run_id, valid)?;
        Ok(Vec::new())
    })
}

/// Starts checking run `run_id` again (the run checks of registration: its recording's SHA-256
/// against the one taken then, speed, teleports, dropped ticks and checkpoint order against its
/// course's limits). A failing run is held: it leaves every board and serves as no ghost until a
/// moderator clears it (`tickreel_catalog_clear_run`). The call fails with
/// `TICKREEL_RESULT_INVALID_ARGUMENT` when there is no such run; its rows are the run's check
/// state after the check (the encoding of `rows::run_check`). Stores the pending in
/// `*out_pending`.
///
/// Thread safety: any thread; never blocks (the check reads the recording on the catalog's
/// worker).
#[bridge_fn(
    c = "tickreel_catalog_check_run",
    c_out = "out_pending",
    java = "catalogCheckRun"
)]
pub fn check_run(catalog: &Catalog, run_id: i64) -> New<Pending> {
    submit(catalog, move |c| {
        Ok(run_rows::run_check(&c.check_run(run_id)?))
    })
}

/// Starts reading run `run_id`'s check state as stored (whether it is held and why, who
/// cleared it), without checking it again. The call fails with `TICKREEL_RESULT_INVALID_ARGUMENT`
/// when there is no such run; its rows use the encoding of `rows::run_check`. Stores the call's
/// handle in `*out_pending`.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_run_check",
    c_out = "out_pending",
    java = "catalogRunCheck"
)]
pub fn run_check(catalog: &Catalog, run_id: i64) -> New<Pending> {
    submit(catalog, move |c| {
        let state = c
            .run_check(run_id)?
            .ok_or_else(|| tickreel::Error::invalid(format!("no run {run_id} in the catalog")))?;
        Ok(run_rows::run_check(&state))
    })
}

/// Starts clearing held run `run_id` as moderator `by` (1 to 64 characters, no control
/// characters, recorded in the catalog's audit log with the reasons it was held for): it goes on
/// the boards and serves as a ghost. The call fails with `TICKREEL_RESULT_INVALID_ARGUMENT` when
/// there is no such run or `by` is not a name, `TICKREEL_RESULT_INVALID_STATE` when the run is
/// not held; its rows are the run's check state after it (the encoding of `rows::run_check`).
/// Stores the pending in `*out_pending`.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_clear_run",
    c_out = "out_pending",
    java = "catalogClearRun"
)]
pub fn clear_run(catalog: &Catalog, run_id: i64, by: &str) -> New<Pending> {
    let by = by.to_owned();
    submit(catalog, move |c| {
        Ok(run_rows::run_check(&c.clear_run(run_id, &by)?))
    })
}

/// Starts setting the limits runs of `course` are checked against when they are registered
/// (replacing its limits; runs registered before keep their check): the preset `movement`
/// (`walking`, `sprinting` or `elytra`) with each speed given above 0 in its place (blocks a
/// tick horizontally, blocks in one second horizontally, up a tick, down a tick, up in one
/// second, down in one second), and the number of checkpoints a run reaches (0: only their
/// order is checked). A course without limits is checked with `sprinting`'s. Stores the call's
/// handle in `*out_pending`; its rows are empty.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for another movement or a speed that is not a
/// finite number at least 0.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_set_course_limits",
    c_out = "out_pending",
    java = "catalogSetCourseLimits"
)]
#[allow(clippy::too_many_arguments)]
pub fn set_course_limits(
    catalog: &Catalog,
    course: &str,
    movement: &str,
    horizontal_tick: f64,
    horizontal_second: f64,
    up_tick: f64,
    down_tick: f64,
    up_second: f64,
    down_second: f64,
    checkpoints: u32,
) -> tickreel::Result<New<Pending>> {
    let mut limits = Movement::parse(movement)
        .ok_or_else(|| {
            tickreel::Error::invalid(format!(
                "a course's movement is walking, sprinting or elytra, not {movement:?}"
            ))
        })?
        .limits();
    for (slot, v) in [
        (&mut limits.horizontal_tick, horizontal_tick),
        (&mut limits.horizontal_second, horizontal_second),
        (&mut limits.up_tick, up_tick),
        (&mut limits.down_tick, down_tick),
        (&mut limits.up_second, up_second),
        (&mut limits.down_second, down_second),
    ] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(tickreel::Error::invalid(format!(
                "a course's speed limit is a finite number at least 0 (0: the preset's), not {v}"
            )));
        }
        if v > 0.0 {
            *slot = v;
        }
    }
    limits.checkpoints = checkpoints;
    let course = course.to_owned();
    Ok(submit(catalog, move |c| {
        c.set_course_limits(&course, &limits)?;
        Ok(Vec::new())
    }))
}

/// Starts setting the retention policy of `scope` (`course:NAME`, `runs`: every course without
/// its own, `reports`: shadow-play reports, `other`: recordings with neither), which
/// `tickreel_catalog_prune` applies: keep the best `keep_top` players' runs (0: none kept for
/// rank), every player's best (`keep_personal_bests`), everything younger than `keep_days` days
/// (0: none kept for age), the recordings of open reports (`keep_open_reports`). Replaces the
/// scope's policy. Stores the pending in `*out_pending`; its rows are empty.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a malformed scope.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_set_retention",
    c_out = "out_pending",
    java = "catalogSetRetention"
)]
pub fn set_retention(
    catalog: &Catalog,
    scope: &str,
    keep_top: u32,
    keep_personal_bests: bool,
    keep_days: u32,
    keep_open_reports: bool,
) -> tickreel::Result<New<Pending>> {
    let scope = RetentionScope::parse(scope)?;
    let policy = RetentionPolicy {
        keep_top: (keep_top > 0).then_some(u64::from(keep_top)),
        keep_personal_bests,
        keep_days: (keep_days > 0).then_some(u64::from(keep_days)),
        keep_open_reports,
    };
    Ok(submit(catalog, move |c| {
        c.set_retention(&scope, policy)?;
        Ok(Vec::new())
    }))
}

/// Starts removing the retention policy of `scope` (the defaults apply again: personal bests
/// and open reports kept). Stores the pending in `*out_pending`; its rows are empty.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a malformed scope.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_clear_retention",
    c_out = "out_pending",
    java = "catalogClearRetention"
)]
pub fn clear_retention(catalog: &Catalog, scope: &str) -> tickreel::Result<New<Pending>> {
    let scope = RetentionScope::parse(scope)?;
    Ok(submit(catalog, move |c| {
        c.clear_retention(&scope)?;
        Ok(Vec::new())
    }))
}

/// Starts listing the retention policies set. Stores the pending in `*out_pending`; its rows
/// use the encoding of `rows::retention`.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_retention",
    c_out = "out_pending",
    java = "catalogRetention"
)]
pub fn retention(catalog: &Catalog) -> New<Pending> {
    submit(catalog, move |c| Ok(rows::retention(&c.retention()?)))
}

/// Registers one run of a recording once its finish completes (`finish`, the pending of
/// `tickreel_recorder_finish` or a report; it stays the caller's to free): as
/// `tickreel_catalog_register`, with the file the finish wrote. A failed finish fails the call
/// and registers nothing. The catalog's worker waits for the finish: calls submitted after this
/// one run after it. Stores the pending in `*out_pending`; its rows are the registered run.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player` or a `finish` whose result is
/// not a path.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_register_finished",
    c_out = "out_pending",
    java = "catalogRegisterFinished"
)]
pub fn register_finished(
    catalog: &Catalog,
    finish: &Pending,
    course: &str,
    player: Option<uuid::Uuid>,
    player_name: &str,
    entity: u32,
    range: GhostRange,
) -> tickreel::Result<New<Pending>> {
    let spec = RunSpec::new(course, required(player)?, player_name, entity).range(range);
    let finish = finish.shared_path("finish")?;
    Ok(submit(catalog, move |c| {
        let path = finish
            .wait(None)
            .expect("a wait without a limit ends with the result")?;
        let registered = c.register(path, &[spec])?;
        let placed = registered.runs.into_iter().map(|run| (0, run));
        Ok(run_rows::runs(placed))
    }))
}

/// The byte encodings of reports and policies (big-endian, strings as in
/// `crate::api::catalog::rows`).
pub mod rows {
    use tickreel_catalog::{Report, ReportStatus, RetentionPolicy, RetentionScope};

    fn string(out: &mut Vec<u8>, s: &str) {
        let b = &s.as_bytes()[..s.len().min(u16::MAX as usize)];
        out.extend_from_slice(&(b.len() as u16).to_be_bytes());
        out.extend_from_slice(b);
    }

    /// Reports, one after another: `i64` id, 16 bytes the reported player's UUID, 16 bytes the
    /// reporter's, `i64` created (Unix ms), `u8` open, `i64` the recording's id (0: none), then
    /// the reported player's name, the reason, the server it was filed on (empty: not known) and
    /// the location of its recording (empty: none), each a `u16` length and UTF-8 bytes.
    pub fn reports(reports: impl IntoIterator<Item = Report>) -> Vec<u8> {
        let mut out = Vec::new();
        for r in reports {
            out.extend_from_slice(&r.id.to_be_bytes());
            out.extend_from_slice(r.reported.as_bytes());
            out.extend_from_slice(r.reporter.as_bytes());
            out.extend_from_slice(&r.created_ms.to_be_bytes());
            out.push(u8::from(r.status == ReportStatus::Open));
            out.extend_from_slice(&r.recording_id.unwrap_or(0).to_be_bytes());
            string(&mut out, &r.reported_name);
            string(&mut out, &r.reason);
            string(&mut out, r.server.as_deref().unwrap_or(""));
            string(&mut out, r.location.as_deref().unwrap_or(""));
        }
        out
    }

    /// Policies, one after another: the scope (`course:NAME`, `runs`, `reports`, `other`) as a
    /// `u16` length and UTF-8 bytes, `u64` keep top (0: none), `u8` keep personal bests, `u64`
    /// keep days (0: none), `u8` keep open reports.
    pub fn retention(policies: &[(RetentionScope, RetentionPolicy)]) -> Vec<u8> {
        let mut out = Vec::new();
        for (scope, p) in policies {
            let name = match scope {
                RetentionScope::Course(c) => format!("course:{c}"),
                RetentionScope::Runs => "runs".into(),
                RetentionScope::Reports => "reports".into(),
                RetentionScope::Other => "other".into(),
            };
            string(&mut out, &name);
            out.extend_from_slice(&p.keep_top.unwrap_or(0).to_be_bytes());
            out.push(u8::from(p.keep_personal_bests));
            out.extend_from_slice(&p.keep_days.unwrap_or(0).to_be_bytes());
            out.push(u8::from(p.keep_open_reports));
        }
        out
    }
}
