//! Shadow-play reports: who reported whom, why, when, whether the report is still open, and the
//! recording shadow play wrote for it (registered like any recording, without runs).

use std::collections::HashMap;
use std::path::Path;

use fastnbt::Value as Nbt;
use tickreel::play::Reader;
use tickreel::{Error, Result};
use uuid::Uuid;

use crate::backend::{Row, Value};
use crate::location::{self, Opened};
use crate::model::{NewReport, Report, ReportFigure, ReportFigures, ReportStatus};
use crate::{Catalog, now_ms, parse_uuid};

/// The longest name [`Catalog::review_report`] records as who decided.
pub const MAX_REVIEWER_CHARS: usize = 64;

/// The columns of `reports` [`report_from`] reads, in order; its recording's location follows.
const REPORT_COLUMNS: &str = "id, reported, reported_name, reporter, reason, created_ms, status, \
     recording_id, reviewed_by, reviewed_ms, blocks_broken, blocks_placed, attacks, attacked, attacks_per_second_max, \
     reach_max, reach_p99, speed_max, rotation_max, server";

/// [`REPORT_COLUMNS`] of the table `p` and the location of its recording: every query of
/// reports reads `FROM` [`REPORTS`].
const P_REPORT_COLUMNS: &str = "p.id, p.reported, p.reported_name, p.reporter, p.reason, \
     p.created_ms, p.status, p.recording_id, p.reviewed_by, p.reviewed_ms, p.blocks_broken, \
     p.blocks_placed, p.attacks, p.attacked, p.attacks_per_second_max, p.reach_max, p.reach_p99, \
     p.speed_max, p.rotation_max, p.server, g.location";

/// Reports and their recordings.
const REPORTS: &str = "reports p LEFT JOIN recordings g ON g.id = p.recording_id";

/// The reported player's figures in a report file: its report compound names the player's
/// entity, its analysis holds that entity's entry.
pub fn report_figures(r: &Reader) -> ReportFigures {
    let meta = r.metadata();
    let player = match meta.user.get(tickreel::shadow::REPORT_KEY) {
        Some(Nbt::Compound(c)) => match c.get("player") {
            Some(Nbt::Int(id)) => *id,
            _ => return ReportFigures::default(),
        },
        _ => return ReportFigures::default(),
    };
    let Some(Nbt::Compound(root)) = &meta.library.analysis else {
        return ReportFigures::default();
    };
    let Some(Nbt::List(list)) = root.get("entities") else {
        return ReportFigures::default();
    };
    let entry: Option<&HashMap<String, Nbt>> = list.iter().find_map(|v| match v {
        Nbt::Compound(c) if c.get("id") == Some(&Nbt::Int(player)) => Some(c),
        _ => None,
    });
    let Some(e) = entry else {
        return ReportFigures::default();
    };
    // counts: Ints holding u32 bit patterns; absent is 0
    let count = |k: &str| match e.get(k) {
        Some(Nbt::Int(v)) => Some(u64::from(*v as u32)),
        _ => Some(0),
    };
    let real = |k: &str, absent: Option<f64>| match e.get(k) {
        Some(Nbt::Float(v)) => Some(f64::from(*v)),
        _ => absent,
    };
    ReportFigures {
        blocks_broken: count("blocks_broken"),
        blocks_placed: count("blocks_placed"),
        attacks: count("attacks"),
        attacked: count("attacked"),
        attacks_per_second_max: count("attacks_per_second_max"),
        reach_max: real("reach_max", None),
        reach_p99: real("reach_p99", None),
        speed_max: real("speed", Some(0.0)),
        rotation_max: real("turn", Some(0.0)),
    }
}

fn figures_from(row: &Row, at: usize) -> Result<ReportFigures> {
    let count =
        |i: usize| -> Result<Option<u64>> { Ok(row.opt_int(at + i)?.map(|v| v.max(0) as u64)) };
    Ok(ReportFigures {
        blocks_broken: count(0)?,
        blocks_placed: count(1)?,
        attacks: count(2)?,
        attacked: count(3)?,
        attacks_per_second_max: count(4)?,
        reach_max: row.opt_real(at + 5)?,
        reach_p99: row.opt_real(at + 6)?,
        speed_max: row.opt_real(at + 7)?,
        rotation_max: row.opt_real(at + 8)?,
    })
}

fn figure_values(f: &ReportFigures) -> [Value; 9] {
    let count = |v: Option<u64>| Value::from(v.map(|v| v.min(i64::MAX as u64) as i64));
    [
        count(f.blocks_broken),
        count(f.blocks_placed),
        count(f.attacks),
        count(f.attacked),
        count(f.attacks_per_second_max),
        f.reach_max.into(),
        f.reach_p99.into(),
        f.speed_max.into(),
        f.rotation_max.into(),
    ]
}

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
        figures: figures_from(row, 10)?,
        server: row.opt_text(19)?,
        location: row.opt_text(20)?,
    })
}

impl Catalog {
    /// Files an open report; `recording` is the finished file shadow play wrote for it (it is
    /// registered, or found if it already is), whose analysis gives the row the reported
    /// player's figures ([`ReportFigures`]).
    pub fn add_report(&self, report: &NewReport, recording: Option<&Path>) -> Result<Report> {
        let opened = recording.map(location::open_path).transpose()?;
        self.add_report_opened(report, opened)
    }

    /// [`Catalog::add_report`] with the report's recording at `location`: a path or an object
    /// URL (`s3://bucket/key`, with the feature `object`, read with the `AWS_*` variables), read
    /// from there as [`Catalog::register_at`] does (an upload is filed after it succeeded).
    pub fn add_report_at(&self, report: &NewReport, location: Option<&str>) -> Result<Report> {
        #[cfg(feature = "object")]
        let opened = location.map(|l| location::open(l, None)).transpose()?;
        #[cfg(not(feature = "object"))]
        let opened = location.map(location::open).transpose()?;
        self.add_report_opened(report, opened)
    }

    /// [`Catalog::add_report_at`], reading an object URL with the object storage's `options`.
    #[cfg(feature = "object")]
    pub fn add_report_at_with(
        &self,
        report: &NewReport,
        location: &str,
        options: &tickreel_object::ObjectOptions,
    ) -> Result<Report> {
        let opened = location::open(location, Some(options))?;
        self.add_report_opened(report, Some(opened))
    }

    fn add_report_opened(&self, report: &NewReport, recording: Option<Opened>) -> Result<Report> {
        if let Some(server) = &report.server {
            tickreel::format::check_server_id(server)?;
        }
        let (recording_id, figures, location, recorded_on) = match recording {
            Some(opened) => {
                let id = self.register_opened(&opened, &[])?.recording_id;
                let rec = self.recording(id)?.ok_or_else(|| {
                    Error::InvalidState(format!("recording {id} is being pruned"))
                })?;
                let figures = report_figures(&opened.reader);
                (Some(id), figures, Some(rec.location), rec.server)
            }
            None => (None, ReportFigures::default(), None, None),
        };
        let server = report.server.clone().or(recorded_on);
        let created = report.created_ms.unwrap_or_else(now_ms);
        let row = self.tx(|c| {
            c.one(
                &format!(
                    "INSERT INTO reports (reported, reported_name, reporter, reason, created_ms,
                         status, recording_id, blocks_broken, blocks_placed, attacks, attacked,
                         attacks_per_second_max, reach_max, reach_p99, speed_max, rotation_max,
                         server)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,
                         $16, $17) RETURNING {REPORT_COLUMNS}"
                ),
                &[
                    &[
                        report.reported.to_string().into(),
                        report.reported_name.as_str().into(),
                        report.reporter.to_string().into(),
                        report.reason.as_str().into(),
                        created.into(),
                        ReportStatus::Open.as_str().into(),
                        recording_id.into(),
                    ][..],
                    &figure_values(&figures)[..],
                    &[server.clone().into()][..],
                ]
                .concat(),
            )
        })?;
        let mut row = row;
        row.0.push(location.clone().into());
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

    /// Reports with `status` (or all), largest `figure` first (reports without it last, then
    /// newest first): the reports staff look at first.
    pub fn reports_by(
        &self,
        status: Option<ReportStatus>,
        figure: ReportFigure,
    ) -> Result<Vec<Report>> {
        // a fixed column name from the enum, never the caller's text
        let col = figure.column();
        let order = format!("ORDER BY p.{col} IS NULL, p.{col} DESC, p.created_ms DESC, p.id DESC");
        let rows = self.tx(|c| match status {
            Some(s) => c.query(
                &format!("SELECT {P_REPORT_COLUMNS} FROM {REPORTS} WHERE p.status = $1 {order}"),
                &[s.as_str().into()],
            ),
            None => c.query(
                &format!("SELECT {P_REPORT_COLUMNS} FROM {REPORTS} {order}"),
                &[],
            ),
        })?;
        rows.iter().map(report_from).collect()
    }

    /// Reports, newest first: those with `status`, or all.
    pub fn reports(&self, status: Option<ReportStatus>) -> Result<Vec<Report>> {
        let rows = self.tx(|c| match status {
            Some(s) => c.query(
                &format!(
                    "SELECT {P_REPORT_COLUMNS} FROM {REPORTS} WHERE p.status = $1
                     ORDER BY p.created_ms DESC, p.id DESC"
                ),
                &[s.as_str().into()],
            ),
            None => c.query(
                &format!(
                    "SELECT {P_REPORT_COLUMNS} FROM {REPORTS}
                     ORDER BY p.created_ms DESC, p.id DESC"
                ),
                &[],
            ),
        })?;
        rows.iter().map(report_from).collect()
    }

    /// The reports of `player` (the reported player, by UUID), newest first: filed on any
    /// server of the network (`None`), or on one.
    pub fn reports_of(&self, player: Uuid, server: Option<&str>) -> Result<Vec<Report>> {
        let p = player.to_string();
        let rows = self.tx(|c| match server {
            Some(server) => c.query(
                &format!(
                    "SELECT {P_REPORT_COLUMNS} FROM {REPORTS} WHERE p.reported = $1
                     AND p.server = $2 ORDER BY p.created_ms DESC, p.id DESC"
                ),
                &[p.as_str().into(), server.into()],
            ),
            None => c.query(
                &format!(
                    "SELECT {P_REPORT_COLUMNS} FROM {REPORTS} WHERE p.reported = $1
                     ORDER BY p.created_ms DESC, p.id DESC"
                ),
                &[p.as_str().into()],
            ),
        })?;
        rows.iter().map(report_from).collect()
    }
}
