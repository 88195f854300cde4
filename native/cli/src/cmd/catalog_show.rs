//! What `tickreel catalog` prints: one text line per row (times as seconds, with the exact ticks),
//! or with `--json` one JSON document (an array of rows, or an object).

use std::io::Write;

use serde_json::{Value, json};
use tickreel::Error;
use tickreel::ghost::Split;
use tickreel_catalog::{
    Catalog, CatalogRecording, CourseLimits, Hold, Placed, PruneReport, Report, RetentionPolicy,
    RetentionScope, Run, RunCheck, RunReview, SumOfBest,
};

use super::Out;
use super::output::printable;

fn emit(
    out: &mut Out,
    json: bool,
    doc: Value,
    text: impl FnOnce(&mut Out) -> std::io::Result<()>,
) -> tickreel::Result<()> {
    let r = if json {
        serde_json::to_writer_pretty(&mut *out, &doc)
            .map_err(std::io::Error::other)
            .and_then(|()| writeln!(out))
    } else {
        text(out)
    };
    r.and_then(|()| out.flush()).map_err(Error::Io)
}

fn run_json(r: &Run) -> Value {
    json!({
        "run": r.id,
        "recording": r.recording_id,
        "course": r.course,
        "player": r.player.to_string(),
        "name": r.player_name,
        "entity": r.entity,
        "start_tick": r.start_tick,
        "end_tick": r.end_tick,
        "ticks": r.ticks,
        "seconds": r.seconds(),
        "achieved_ms": r.achieved_ms,
        "valid": r.valid,
        "held": r.held,
        "flags": r.flags,
        "server": r.server,
        "location": r.location,
    })
}

pub fn migrated(cat: &Catalog, json: bool, out: &mut Out) -> tickreel::Result<()> {
    let m = cat.migrated();
    let doc = json!({"catalog": cat.describe(), "from_version": m.from, "version": m.to});
    emit(out, json, doc, |o| {
        writeln!(
            o,
            "{}: schema version {} (was {})",
            cat.describe(),
            m.to,
            m.from
        )
    })
}

pub fn places(rows: &[Placed], json: bool, out: &mut Out) -> tickreel::Result<()> {
    let doc = Value::Array(
        rows.iter()
            .map(|p| {
                let mut v = run_json(&p.run);
                v["rank"] = json!(p.rank);
                v
            })
            .collect(),
    );
    emit(out, json, doc, |o| {
        for p in rows {
            let r = &p.run;
            writeln!(
                o,
                "{:>5}  {:<16}  {:>10}  ({} ticks)  run {}",
                p.rank,
                printable(&r.player_name),
                r.shown(),
                r.ticks,
                r.id
            )?;
        }
        Ok(())
    })
}

pub fn runs(rows: &[Run], json: bool, out: &mut Out) -> tickreel::Result<()> {
    let doc = Value::Array(rows.iter().map(run_json).collect());
    emit(out, json, doc, |o| {
        for r in rows {
            writeln!(
                o,
                "run {:<6} {:<16} {:<16} {:>10}  ({} ticks){}{}",
                r.id,
                printable(&r.course),
                printable(&r.player_name),
                r.shown(),
                r.ticks,
                if r.valid { "" } else { "  invalid" },
                if r.held { "  held" } else { "" }
            )?;
        }
        Ok(())
    })
}

pub fn splits(run: &Run, splits: &[Split], json: bool, out: &mut Out) -> tickreel::Result<()> {
    let secs = |t: u32| f64::from(t) / run.tick_rate;
    let doc = Value::Array(
        splits
            .iter()
            .map(|s| json!({"checkpoint": s.checkpoint, "tick": s.tick, "seconds": secs(s.tick)}))
            .collect(),
    );
    emit(out, json, doc, |o| {
        writeln!(o, "checkpoint,tick,seconds")?;
        for s in splits {
            writeln!(o, "{},{},{:.3}", s.checkpoint, s.tick, secs(s.tick))?;
        }
        Ok(())
    })
}

pub fn sum_of_best(sob: Option<&SumOfBest>, json: bool, out: &mut Out) -> tickreel::Result<()> {
    let doc = sob.map_or(Value::Null, |s| {
        json!({
            "ticks": s.total_ticks,
            "seconds": s.seconds(),
            "runs": s.runs,
            "segments": s.segments.iter().map(|g| json!({
                "from": g.from, "to": g.to, "ticks": g.ticks, "run": g.run_id,
            })).collect::<Vec<_>>(),
        })
    });
    emit(out, json, doc, |o| {
        let Some(s) = sob else {
            return writeln!(o, "no valid runs");
        };
        let name = |c: Option<u32>, end: &str| c.map_or(end.to_owned(), |c| c.to_string());
        for g in &s.segments {
            writeln!(
                o,
                "{:>6} -> {:<6} {:>8.2} s  ({} ticks)  run {}",
                name(g.from, "start"),
                name(g.to, "finish"),
                f64::from(g.ticks) / s.tick_rate,
                g.ticks,
                g.run_id
            )?;
        }
        writeln!(
            o,
            "sum of best: {:.2} s ({} ticks) over {} runs",
            s.seconds(),
            s.total_ticks,
            s.runs
        )
    })
}

pub fn recordings(rows: &[CatalogRecording], json: bool, out: &mut Out) -> tickreel::Result<()> {
    let doc = Value::Array(
        rows.iter()
            .map(|r| {
                json!({
                    "recording": r.id,
                    "location": r.location,
                    "uuid": r.recording_uuid.map(|u| u.to_string()),
                    "world": r.world.map(|u| u.to_string()),
                    "started_ms": r.started_ms,
                    "duration_ticks": r.duration_ticks(),
                    "tick_rate": r.tick_rate,
                    "size_bytes": r.size_bytes,
                    "entities": r.entity_count,
                    "summary": r.summary,
                })
            })
            .collect(),
    );
    emit(out, json, doc, |o| {
        for r in rows {
            writeln!(
                o,
                "{:<6} {}  {} bytes, {} entities, {}",
                r.id, r.location, r.size_bytes, r.entity_count, r.summary
            )?;
        }
        Ok(())
    })
}

pub fn reports(rows: &[Report], json: bool, out: &mut Out) -> tickreel::Result<()> {
    let doc = Value::Array(
        rows.iter()
            .map(|r| {
                json!({
                    "report": r.id,
                    "reported": r.reported.to_string(),
                    "name": r.reported_name,
                    "reporter": r.reporter.to_string(),
                    "reason": r.reason,
                    "created_ms": r.created_ms,
                    "status": r.status.as_str(),
                    "recording": r.recording_id,
                    "server": r.server,
                    "location": r.location,
                })
            })
            .collect(),
    );
    emit(out, json, doc, |o| {
        for r in rows {
            writeln!(
                o,
                "report {:<6} {:<6} {:<16} {}",
                r.id,
                r.status.as_str(),
                printable(&r.reported_name),
                printable(&r.reason)
            )?;
        }
        Ok(())
    })
}

fn hold_json(h: &Hold) -> Value {
    json!({"reason": h.reason.as_str(), "tick": h.tick, "detail": h.detail})
}

fn check_json(c: &RunCheck) -> Value {
    json!({
        "run": c.run_id,
        "held": c.held,
        "holds": c.holds.iter().map(hold_json).collect::<Vec<_>>(),
        "cleared_by": c.cleared_by,
        "cleared_ms": c.cleared_ms,
    })
}

fn write_holds(o: &mut Out, holds: &[Hold]) -> std::io::Result<()> {
    for h in holds {
        let at = h.tick.map_or(String::new(), |t| format!(" at tick {t}"));
        writeln!(o, "  {}{at}: {}", h.reason.as_str(), printable(&h.detail))?;
    }
    Ok(())
}

/// Runs just registered, and the reasons of those held.
pub fn registered(
    rows: &[Run],
    checks: &[RunCheck],
    json: bool,
    out: &mut Out,
) -> tickreel::Result<()> {
    if json {
        let doc = Value::Array(
            rows.iter()
                .map(|r| {
                    let mut v = run_json(r);
                    if let Some(c) = checks.iter().find(|c| c.run_id == r.id) {
                        v["holds"] = check_json(c)["holds"].clone();
                    }
                    v
                })
                .collect(),
        );
        return emit(out, true, doc, |_| Ok(()));
    }
    runs(rows, false, out)?;
    emit(out, false, Value::Null, |o| {
        for c in checks {
            writeln!(
                o,
                "run {} is held, off the boards until a moderator clears it:",
                c.run_id
            )?;
            write_holds(o, &c.holds)?;
        }
        Ok(())
    })
}

/// A run's check state.
pub fn check(c: &RunCheck, json: bool, out: &mut Out) -> tickreel::Result<()> {
    emit(out, json, check_json(c), |o| {
        let state = if c.held {
            "held"
        } else if c.cleared_by.is_some() {
            "cleared"
        } else {
            "passed"
        };
        writeln!(o, "run {}: {state}", c.run_id)?;
        if let Some(by) = &c.cleared_by {
            writeln!(o, "  cleared by {}", printable(by))?;
        }
        write_holds(o, &c.holds)
    })
}

/// Held runs with their reasons.
pub fn held(rows: &[(Run, Vec<Hold>)], json: bool, out: &mut Out) -> tickreel::Result<()> {
    let doc = Value::Array(
        rows.iter()
            .map(|(r, h)| {
                let mut v = run_json(r);
                v["holds"] = Value::Array(h.iter().map(hold_json).collect());
                v
            })
            .collect(),
    );
    emit(out, json, doc, |o| {
        for (r, h) in rows {
            writeln!(
                o,
                "run {:<6} {:<16} {:<16} {:>10}",
                r.id,
                printable(&r.course),
                printable(&r.player_name),
                r.shown()
            )?;
            write_holds(o, h)?;
        }
        Ok(())
    })
}

/// The moderators' clears of held runs.
pub fn run_reviews(rows: &[RunReview], json: bool, out: &mut Out) -> tickreel::Result<()> {
    let doc = Value::Array(
        rows.iter()
            .map(|r| {
                json!({"at_ms": r.at_ms, "who": r.who, "action": r.action, "run": r.run_id,
                    "detail": r.detail})
            })
            .collect(),
    );
    emit(out, json, doc, |o| {
        for r in rows {
            writeln!(
                o,
                "{}  {} {} run {}: {}",
                r.at_ms,
                printable(&r.who),
                r.action,
                r.run_id,
                printable(&r.detail)
            )?;
        }
        Ok(())
    })
}

/// A course's limits.
pub fn limits(course: &str, l: &CourseLimits, json: bool, out: &mut Out) -> tickreel::Result<()> {
    let zones: Vec<Value> = l
        .teleports
        .iter()
        .map(|z| json!({"min": z.min, "max": z.max}))
        .collect();
    let doc = json!({
        "course": course,
        "movement": l.movement.as_str(),
        "horizontal_tick": l.horizontal_tick,
        "horizontal_second": l.horizontal_second,
        "up_tick": l.up_tick,
        "down_tick": l.down_tick,
        "up_second": l.up_second,
        "down_second": l.down_second,
        "teleport_zones": zones,
        "checkpoints": l.checkpoints,
    });
    emit(out, json, doc, |o| {
        writeln!(
            o,
            "{} ({}): horizontal {} a tick, {} a second; up {} a tick, {} a second; down {} a \
             tick, {} a second; {} teleport zones; {} checkpoints",
            printable(course),
            l.movement.as_str(),
            l.horizontal_tick,
            l.horizontal_second,
            l.up_tick,
            l.up_second,
            l.down_tick,
            l.down_second,
            l.teleports.len(),
            l.checkpoints
        )
    })
}

pub fn done(msg: &str, json: bool, out: &mut Out) -> tickreel::Result<()> {
    emit(out, json, json!({"done": msg}), |o| writeln!(o, "{msg}"))
}

fn scope_name(s: &RetentionScope) -> String {
    match s {
        RetentionScope::Course(c) => format!("course:{c}"),
        RetentionScope::Runs => "runs".into(),
        RetentionScope::Reports => "reports".into(),
        RetentionScope::Other => "other".into(),
    }
}

pub fn retention(
    rows: &[(RetentionScope, RetentionPolicy)],
    json: bool,
    out: &mut Out,
) -> tickreel::Result<()> {
    let doc = Value::Array(
        rows.iter()
            .map(|(s, p)| {
                json!({
                    "scope": scope_name(s),
                    "keep_top": p.keep_top,
                    "keep_personal_bests": p.keep_personal_bests,
                    "keep_days": p.keep_days,
                    "keep_open_reports": p.keep_open_reports,
                })
            })
            .collect(),
    );
    emit(out, json, doc, |o| {
        if rows.is_empty() {
            writeln!(o, "no retention policy: prune deletes nothing")?;
        }
        for (s, p) in rows {
            let opt = |v: Option<u64>| v.map_or("-".to_owned(), |v| v.to_string());
            writeln!(
                o,
                "{:<24} keep top {}, days {}, personal bests {}, open reports {}",
                printable(&scope_name(s)),
                opt(p.keep_top),
                opt(p.keep_days),
                p.keep_personal_bests,
                p.keep_open_reports
            )?;
        }
        Ok(())
    })
}

pub fn pruned(r: &PruneReport, json: bool, out: &mut Out) -> tickreel::Result<()> {
    let (recs, runs, splits, reports) = r.rows();
    let doc = json!({
        "dry_run": r.dry_run,
        "recordings": r.recordings.iter().map(|p| json!({
            "recording": p.recording_id,
            "location": p.location,
            "size_bytes": p.size_bytes,
            "runs": p.runs,
            "splits": p.splits,
            "reports": p.reports,
            "resumed": p.resumed,
        })).collect::<Vec<_>>(),
        "rows": {"recordings": recs, "runs": runs, "splits": splits, "reports": reports},
        "bytes": r.bytes(),
        "failed": r.failed.iter().map(|(l, e)| json!({"location": l, "error": e})).collect::<Vec<_>>(),
        "reports_alone": r.reports_alone,
    });
    emit(out, json, doc, |o| {
        let verb = if r.dry_run { "would delete" } else { "deleted" };
        for p in &r.recordings {
            writeln!(
                o,
                "{verb} {} ({} bytes, {} runs, {} reports){}",
                p.location,
                p.size_bytes,
                p.runs,
                p.reports,
                if p.resumed { ", resumed" } else { "" }
            )?;
        }
        for (l, e) in &r.failed {
            writeln!(
                o,
                "could not delete {l}: {e} (it stays unlisted; the next prune retries)"
            )?;
        }
        for id in &r.reports_alone {
            writeln!(
                o,
                "{verb} report {id} (by its verdict; its recording is still pointed at, or it has none)"
            )?;
        }
        writeln!(
            o,
            "{verb}: {recs} recordings, {runs} runs, {splits} splits, {reports} reports, {} bytes",
            r.bytes()
        )
    })
}
