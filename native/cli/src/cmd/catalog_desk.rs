//! `tickreel catalog staff ...` and `tickreel catalog desk ...`: the review desk for operators
//! (the catalog's [`tickreel_catalog::review`]). Staff members are kept by their token's SHA-256;
//! a token is read from a file (`--token-file F`, its first line; `-`: standard input), never
//! from the command line. `desk rule` sets how many reviewers a report goes to and how its
//! verdict is decided, `desk verdict` and `desk known` are a moderator's decision and a
//! calibration case's outcome, `desk votes` and `desk scores` print what reviewers said and
//! how well they agree, `desk retain` sets the retention by verdict (`catalog prune` applies
//! it, `--dry-run` lists it).

use std::io::{Read, Write};
use std::path::PathBuf;

use clap::Subcommand;
use serde_json::{Value, json};
use tickreel::Error;
use tickreel_catalog::{Catalog, ReviewRule, Verdict, VerdictRule};

use super::Out;

/// Who an operator's change is logged as in the audit log.
pub const OPERATOR: &str = "operator";

#[derive(Subcommand)]
pub enum StaffCommand {
    /// Keep a staff member: NAME with ROLE (reviewer, moderator, admin), their token read from
    /// --token-file (its first line; `-`: standard input). Replaces the member of that name.
    Add {
        name: String,
        role: String,
        #[arg(long)]
        token_file: PathBuf,
    },
    /// Remove a staff member: their token opens nothing from the server's next request on.
    Remove { name: String },
    /// The staff members and their roles (never a token).
    List,
}

#[derive(Subcommand)]
pub enum DeskCommand {
    /// Set the review rule (what is not given keeps its value), or print it.
    Rule {
        /// How many reviewers each report is assigned to.
        #[arg(long)]
        reviewers: Option<u32>,
        /// `majority` (more than half of them) or `moderator` (votes advise).
        #[arg(long)]
        rule: Option<String>,
        /// The least agreement with known outcomes (0 to 1) for a reviewer's votes to count.
        #[arg(long)]
        min_agreement: Option<f64>,
        /// How many calibration cases a reviewer votes on before that agreement is judged.
        #[arg(long)]
        min_known: Option<u32>,
    },
    /// A moderator's verdict on a report: cheating, not_cheating or unsure.
    Verdict {
        id: i64,
        verdict: String,
        #[arg(long)]
        by: String,
    },
    /// Mark a report a calibration case with a known outcome (`none`: no longer one).
    Known {
        id: i64,
        verdict: String,
        #[arg(long)]
        by: String,
    },
    /// A report's votes and verdict.
    Votes { id: i64 },
    /// Every reviewer's agreement with known outcomes and with the consensus.
    Scores,
    /// Keep reports with VERDICT for DAYS days after it was decided (`keep`: for good;
    /// --clear: the `reports` scope decides again), or print the policies.
    Retain {
        verdict: Option<String>,
        days: Option<String>,
        #[arg(long)]
        clear: bool,
    },
}

fn verdict(s: &str) -> tickreel::Result<Verdict> {
    Verdict::parse(s).ok_or_else(|| {
        Error::InvalidArgument(format!("verdict {s:?}: cheating, not_cheating or unsure"))
    })
}

fn emit(out: &mut Out, json: bool, doc: Value, text: String) -> tickreel::Result<()> {
    if json {
        serde_json::to_writer_pretty(&mut *out, &doc).map_err(std::io::Error::other)?;
        writeln!(out)?;
    } else {
        write!(out, "{text}")?;
    }
    Ok(())
}

fn read_token(path: &PathBuf) -> tickreel::Result<String> {
    let mut text = String::new();
    if path.as_os_str() == "-" {
        std::io::stdin().take(4096).read_to_string(&mut text)?;
    } else {
        std::fs::File::open(path)
            .and_then(|f| f.take(4096).read_to_string(&mut text))
            .map_err(|e| Error::InvalidArgument(format!("--token-file {}: {e}", path.display())))?;
    }
    Ok(text.lines().next().unwrap_or_default().trim().to_string())
}

pub fn staff(cat: &Catalog, c: StaffCommand, json: bool, out: &mut Out) -> tickreel::Result<()> {
    match c {
        StaffCommand::Add {
            name,
            role,
            token_file,
        } => {
            let token = read_token(&token_file)?;
            let m = cat.add_staff(&name, &role, &token, OPERATOR)?;
            emit(
                out,
                json,
                json!({"name": m.name, "role": m.role, "added_ms": m.added_ms}),
                format!("{} is a {} (their token's hash is kept)\n", m.name, m.role),
            )
        }
        StaffCommand::Remove { name } => {
            let gone = cat.remove_staff(&name, OPERATOR)?;
            if !gone {
                return Err(Error::InvalidArgument(format!("no staff member {name}")));
            }
            emit(
                out,
                json,
                json!({"removed": name}),
                format!("removed {name}\n"),
            )
        }
        StaffCommand::List => {
            let all = cat.staff()?;
            let doc = json!(
                all.iter()
                    .map(|m| json!({"name": m.name, "role": m.role,
                "added_ms": m.added_ms}))
                    .collect::<Vec<_>>()
            );
            let text: String = all
                .iter()
                .map(|m| format!("{} {}\n", m.name, m.role))
                .collect();
            emit(out, json, doc, text)
        }
    }
}

pub fn desk(cat: &Catalog, c: DeskCommand, json: bool, out: &mut Out) -> tickreel::Result<()> {
    match c {
        DeskCommand::Rule {
            reviewers,
            rule,
            min_agreement,
            min_known,
        } => {
            let mut r = cat.review_rule()?;
            let given = reviewers.is_some()
                || rule.is_some()
                || min_agreement.is_some()
                || min_known.is_some();
            if let Some(n) = reviewers {
                r.reviewers = n;
            }
            if let Some(s) = rule {
                r.rule = VerdictRule::parse(&s).ok_or_else(|| {
                    Error::InvalidArgument(format!("--rule {s:?}: majority or moderator"))
                })?;
            }
            if let Some(a) = min_agreement {
                r.min_agreement = a;
            }
            if let Some(k) = min_known {
                r.min_known = k;
            }
            if given {
                cat.set_review_rule(r, OPERATOR)?;
            }
            rule_out(&r, json, out)
        }
        DeskCommand::Verdict { id, verdict: v, by } => {
            let d = cat.decide_verdict(id, verdict(&v)?, &by)?;
            emit(
                out,
                json,
                json!({"id": id, "verdict": d.verdict.as_str(), "by": d.by, "at_ms": d.at_ms}),
                format!("report {id}: {} by {}\n", d.verdict.as_str(), d.by),
            )
        }
        DeskCommand::Known { id, verdict: v, by } => {
            let known = if v == "none" {
                None
            } else {
                Some(verdict(&v)?)
            };
            cat.mark_known(id, known, &by)?;
            let k = known.map_or("none", Verdict::as_str);
            emit(
                out,
                json,
                json!({"id": id, "known": known.map(Verdict::as_str)}),
                format!("report {id}: known outcome {k}\n"),
            )
        }
        DeskCommand::Votes { id } => {
            let votes = cat.votes(id)?;
            let v = cat.verdict(id)?;
            let doc = json!({
                "id": id,
                "verdict": v.as_ref().map(|v| json!({"verdict": v.verdict.as_str(), "by": v.by,
                    "at_ms": v.at_ms})),
                "votes": votes.iter().map(|v| json!({"reviewer": v.reviewer,
                    "verdict": v.verdict.as_str(), "note": v.note, "ticks": v.ticks,
                    "counted": v.counted, "voted_ms": v.voted_ms})).collect::<Vec<_>>(),
            });
            let mut text = String::new();
            for v in &votes {
                text += &format!(
                    "{} {}{}{}\n",
                    v.reviewer,
                    v.verdict.as_str(),
                    if v.counted { "" } else { " (not counted)" },
                    v.note.as_ref().map_or(String::new(), |n| format!(": {n}"))
                );
            }
            text += &match &v {
                Some(v) => format!("verdict {} by {}\n", v.verdict.as_str(), v.by),
                None => "no verdict yet\n".to_string(),
            };
            emit(out, json, doc, text)
        }
        DeskCommand::Scores => {
            let scores = cat.reviewer_scores()?;
            let doc = json!(
                scores
                    .iter()
                    .map(|s| json!({"reviewer": s.reviewer,
                "known": s.known, "known_agreed": s.known_agreed,
                "consensus": s.consensus, "consensus_agreed": s.consensus_agreed,
                "pending": s.pending, "counts": s.counts}))
                    .collect::<Vec<_>>()
            );
            let text = scores
                .iter()
                .map(|s| {
                    format!(
                        "{}: known {}/{}, consensus {}/{}, {} pending{}\n",
                        s.reviewer,
                        s.known_agreed,
                        s.known,
                        s.consensus_agreed,
                        s.consensus,
                        s.pending,
                        if s.counts { "" } else { ", not counted" }
                    )
                })
                .collect();
            emit(out, json, doc, text)
        }
        DeskCommand::Retain {
            verdict: v,
            days,
            clear,
        } => {
            if let Some(v) = v {
                let v = verdict(&v)?;
                if clear {
                    cat.clear_verdict_retention(v)?;
                } else {
                    let days = match days.as_deref() {
                        Some("keep") => None,
                        Some(d) => Some(d.parse::<u64>().map_err(|_| {
                            Error::InvalidArgument(format!("days {d:?}: a number, or keep"))
                        })?),
                        None => {
                            return Err(Error::InvalidArgument(
                                "give DAYS (or keep, or --clear)".into(),
                            ));
                        }
                    };
                    cat.set_verdict_retention(v, days)?;
                }
            }
            let all = cat.verdict_retention()?;
            let doc = json!(
                all.iter()
                    .map(|(v, d)| json!({"verdict": v.as_str(),
                "keep_days": d}))
                    .collect::<Vec<_>>()
            );
            let text = all
                .iter()
                .map(|(v, d)| match d {
                    Some(d) => format!("{}: {d} days\n", v.as_str()),
                    None => format!("{}: kept\n", v.as_str()),
                })
                .collect();
            emit(out, json, doc, text)
        }
    }
}

fn rule_out(r: &ReviewRule, json: bool, out: &mut Out) -> tickreel::Result<()> {
    emit(
        out,
        json,
        json!({"reviewers": r.reviewers, "rule": r.rule.as_str(),
            "min_agreement": r.min_agreement, "min_known": r.min_known}),
        format!(
            "{} of {} reviewers; a reviewer counts at {} agreement after {} known outcomes\n",
            r.rule.as_str(),
            r.reviewers,
            r.min_agreement,
            r.min_known
        ),
    )
}
