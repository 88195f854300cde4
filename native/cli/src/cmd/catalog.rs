//! `tickreel catalog [--db URL] COMMAND`: the catalog of runs, recordings and reports for
//! operators. `--db` (or `TICKREEL_CATALOG`) is `sqlite:PATH` (default `sqlite:tickreel-catalog.db`)
//! or `postgres://user:password@host/db`. Queries: `top COURSE`, `pb COURSE PLAYER`,
//! `around COURSE RANK`, `runs PLAYER`, `sob COURSE`, `recordings`, `reports`; changes: `add FILE`
//! (register a finished recording's run: it is checked first, and held off the boards when a
//! check fails), `check RUN`, `clear RUN --by NAME` (a moderator clears a held run), `held`,
//! `limits COURSE`, `report`, `close-report`, `invalidate`, `retain SCOPE` (retention policies)
//! and `prune [--dry-run]`; the review desk: `staff ...`, `desk ...` ([`super::catalog_desk`]).
//! Every query takes `--json`. What is printed is
//! in [`super::catalog_show`].

use std::path::PathBuf;

use clap::Subcommand;
use tickreel::Error;
use tickreel::ghost::{GhostRange, RunEnd, RunStart};
use tickreel_catalog::{
    Board, Catalog, CourseLimits, MapVersion, Movement, NewReport, PruneOptions, ReportStatus,
    RetentionPolicy, RetentionScope, RunSpec,
};
use uuid::Uuid;

use super::Out;
use super::catalog_show as show;

/// The catalog used when neither `--db` nor `TICKREEL_CATALOG` says otherwise.
pub const DEFAULT_URL: &str = "sqlite:tickreel-catalog.db";
/// The environment variable that may hold the catalog's URL (a password in a command line shows
/// in `ps`; in the environment it does not).
pub const CATALOG_ENV: &str = "TICKREEL_CATALOG";

#[derive(clap::Args)]
pub struct Args {
    /// The catalog: `sqlite:PATH` or `postgres://user:password@host/db` (the password is never
    /// printed). Default: `$TICKREEL_CATALOG`, else `sqlite:tickreel-catalog.db`.
    #[arg(long, global = true)]
    pub db: Option<String>,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: CatalogCommand,
}

/// A map version to bind a board to: both or neither.
#[derive(clap::Args)]
pub struct MapArgs {
    /// Only the runs recorded on this world (its UUID; with --world-version).
    #[arg(long, requires = "world_version")]
    world: Option<Uuid>,
    /// Only the runs recorded on this version of the world (its UUID; with --world).
    #[arg(long, requires = "world")]
    world_version: Option<Uuid>,
}

impl MapArgs {
    /// The board of `server` (or the network) on this map version (or any).
    fn board<'a>(&self, server: Option<&'a str>) -> Board<'a> {
        let board = Board::from(server);
        match (self.world, self.world_version) {
            (Some(world), Some(version)) => board.on_version(MapVersion::new(world, version)),
            _ => board,
        }
    }
}

#[derive(Subcommand)]
pub enum CatalogCommand {
    /// Create or upgrade the schema; print its version.
    Migrate,
    /// The best N players of a course (one row each: their best run), on the whole network or
    /// on one server (--server), of any map version or one (--world and --world-version).
    Top {
        course: String,
        #[arg(short, default_value_t = 10)]
        n: u64,
        /// Only the runs recorded on this server.
        #[arg(long)]
        server: Option<String>,
        #[command(flatten)]
        map: MapArgs,
    },
    /// A player's best run of a course and its rank (on one server with --server, on one map
    /// version with --world and --world-version).
    Pb {
        course: String,
        player: Uuid,
        /// Only the runs recorded on this server.
        #[arg(long)]
        server: Option<String>,
        #[command(flatten)]
        map: MapArgs,
    },
    /// The places around a rank.
    Around {
        course: String,
        rank: u64,
        #[arg(short, default_value_t = 2)]
        k: u64,
    },
    /// A player's most recent runs (of one course with --course).
    Runs {
        player: Uuid,
        #[arg(long)]
        course: Option<String>,
        #[arg(short, default_value_t = 20)]
        n: u64,
    },
    /// A run's splits.
    Splits { run: i64 },
    /// The sum of best segments of a course (of one player with --player).
    Sob {
        course: String,
        #[arg(long)]
        player: Option<Uuid>,
    },
    /// The listed recordings.
    Recordings,
    /// Register a run of a finished recording (the recording too, if new).
    #[command(alias = "register")]
    Add {
        file: PathBuf,
        #[arg(long)]
        course: String,
        #[arg(long)]
        player: Uuid,
        #[arg(long)]
        name: String,
        /// The player's entity in the recording.
        #[arg(long)]
        entity: u32,
        /// The run starts at this checkpoint (default: the entity's first pose).
        #[arg(long)]
        from_checkpoint: Option<u32>,
        /// The run ends at this checkpoint (default: the entity's last pose).
        #[arg(long)]
        to_checkpoint: Option<u32>,
        /// Register the run as invalid (kept, never on the board).
        #[arg(long)]
        invalid: bool,
        /// Anticheat or plugin flags, stored as given.
        #[arg(long, default_value_t = 0)]
        flags: u64,
    },
    /// Check a run again (its recording's hash, then speed, teleports, dropped ticks and
    /// checkpoints against its course's limits): a failing run is held, off every board and
    /// ghost. Prints the run's state and reasons.
    Check { run: i64 },
    /// Clear a held run as moderator NAME (recorded in the audit log): it goes on the board.
    Clear {
        run: i64,
        #[arg(long)]
        by: String,
    },
    /// The held runs, newest first, with their reasons (with --reviews: the moderators' clears).
    Held {
        #[arg(short, default_value_t = 50)]
        n: u64,
        #[arg(long)]
        reviews: bool,
    },
    /// Set the limits a course's runs are checked against (from a preset, with overrides), or
    /// print them.
    Limits {
        course: String,
        /// walking, sprinting (the default of a course without limits) or elytra.
        #[arg(long)]
        movement: Option<String>,
        /// Blocks a tick horizontally.
        #[arg(long)]
        horizontal_tick: Option<f64>,
        /// Blocks horizontally in any one second.
        #[arg(long)]
        horizontal_second: Option<f64>,
        #[arg(long)]
        up_tick: Option<f64>,
        #[arg(long)]
        down_tick: Option<f64>,
        #[arg(long)]
        up_second: Option<f64>,
        #[arg(long)]
        down_second: Option<f64>,
        /// A box a teleport may land in: "X1 Y1 Z1 X2 Y2 Z2" (repeatable).
        #[arg(long)]
        teleport_zone: Vec<String>,
        /// How many checkpoints a run reaches (0: only their order is checked).
        #[arg(long)]
        checkpoints: Option<u32>,
    },
    /// Mark a run invalid (or valid again with --valid); the board is recomputed.
    Invalidate {
        run: i64,
        #[arg(long)]
        valid: bool,
    },
    /// File a shadow-play report, with the recording it wrote.
    Report {
        #[arg(long)]
        reported: Uuid,
        #[arg(long)]
        name: String,
        #[arg(long)]
        reporter: Uuid,
        #[arg(long)]
        reason: String,
        #[arg(long)]
        recording: Option<PathBuf>,
        /// The server the player was reported on (default: the one the recording names).
        #[arg(long)]
        server: Option<String>,
    },
    /// Close a report (or open it again with --open).
    CloseReport {
        id: i64,
        #[arg(long)]
        open: bool,
    },
    /// The reports (only the open ones with --open; only one player's, on any server, with
    /// --player; only those filed on one server with --server).
    Reports {
        #[arg(long)]
        open: bool,
        #[arg(long)]
        player: Option<Uuid>,
        #[arg(long)]
        server: Option<String>,
    },
    /// Set the retention policy of a scope (`course:NAME`, `runs`, `reports`, `other`), or
    /// print every policy without a scope.
    Retain {
        scope: Option<String>,
        /// Keep the runs of the best N players.
        #[arg(long)]
        keep_top: Option<u64>,
        /// Keep everything younger than D days.
        #[arg(long)]
        keep_days: Option<u64>,
        /// Do not keep every player's best run.
        #[arg(long)]
        no_keep_bests: bool,
        /// Do not keep the recordings of open reports.
        #[arg(long)]
        no_keep_open_reports: bool,
        /// Remove the scope's policy (it keeps everything again).
        #[arg(long)]
        clear: bool,
    },
    /// Staff members kept in the catalog (their roles; their tokens' hashes).
    #[command(subcommand)]
    Staff(super::catalog_desk::StaffCommand),
    /// The review desk: the rule, verdicts, calibration cases, scores, retention by verdict.
    #[command(subcommand)]
    Desk(super::catalog_desk::DeskCommand),
    /// Delete the recordings (files, local or in object storage, then rows) that no retention
    /// policy keeps, and the reports whose verdict's policy lets them go.
    Prune {
        /// List what would be deleted; change nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    let url =
        a.db.or_else(|| std::env::var(CATALOG_ENV).ok())
            .unwrap_or_else(|| DEFAULT_URL.to_owned());
    let cat = Catalog::open(&url)?;
    let json = a.json;
    match a.command {
        CatalogCommand::Migrate => show::migrated(&cat, json, out),
        CatalogCommand::Top {
            course,
            n,
            server,
            map,
        } => show::places(
            &cat.top_on(map.board(server.as_deref()), &course, n)?,
            json,
            out,
        ),
        CatalogCommand::Pb {
            course,
            player,
            server,
            map,
        } => {
            let pb = cat.personal_best_on(map.board(server.as_deref()), &course, player)?;
            show::places(pb.as_slice(), json, out)
        }
        CatalogCommand::Around { course, rank, k } => {
            show::places(&cat.around(&course, rank, k)?, json, out)
        }
        CatalogCommand::Runs { player, course, n } => {
            show::runs(&cat.recent(player, course.as_deref(), n)?, json, out)
        }
        CatalogCommand::Splits { run } => {
            let Some(r) = cat.run(run)? else {
                return Err(Error::invalid(format!("no run {run} in the catalog")));
            };
            show::splits(&r, &cat.splits(run)?, json, out)
        }
        CatalogCommand::Sob { course, player } => {
            show::sum_of_best(cat.sum_of_best(&course, player)?.as_ref(), json, out)
        }
        CatalogCommand::Recordings => show::recordings(&cat.recordings()?, json, out),
        CatalogCommand::Add {
            file,
            course,
            player,
            name,
            entity,
            from_checkpoint,
            to_checkpoint,
            invalid,
            flags,
        } => {
            let mut spec = RunSpec::new(&course, player, &name, entity).range(GhostRange {
                start: from_checkpoint.map_or(RunStart::First, RunStart::Checkpoint),
                end: to_checkpoint.map_or(RunEnd::Last, RunEnd::Checkpoint),
            });
            spec.valid = !invalid;
            spec.flags = flags;
            let reg = cat
                .register(&file, &[spec])
                .map_err(|e| super::in_file(&file, e))?;
            let checks = reg
                .runs
                .iter()
                .filter(|r| r.held)
                .filter_map(|r| cat.run_check(r.id).transpose())
                .collect::<tickreel::Result<Vec<_>>>()?;
            show::registered(&reg.runs, &checks, json, out)
        }
        CatalogCommand::Check { run } => show::check(&cat.check_run(run)?, json, out),
        CatalogCommand::Clear { run, by } => show::check(&cat.clear_run(run, &by)?, json, out),
        CatalogCommand::Held { n, reviews } => {
            if reviews {
                show::run_reviews(&cat.run_reviews(n)?, json, out)
            } else {
                show::held(&cat.held_runs(None, n)?, json, out)
            }
        }
        CatalogCommand::Limits {
            course,
            movement,
            horizontal_tick,
            horizontal_second,
            up_tick,
            down_tick,
            up_second,
            down_second,
            teleport_zone,
            checkpoints,
        } => {
            let changes = movement.is_some()
                || [
                    horizontal_tick,
                    horizontal_second,
                    up_tick,
                    down_tick,
                    up_second,
                    down_second,
                ]
                .iter()
                .any(Option::is_some)
                || !teleport_zone.is_empty()
                || checkpoints.is_some();
            if changes {
                let mut l = match movement.as_deref() {
                    Some(m) => Movement::parse(m)
                        .ok_or_else(|| {
                            Error::invalid(format!(
                                "--movement is walking, sprinting or elytra, not {m}"
                            ))
                        })?
                        .limits(),
                    None => cat.course_limits(&course)?,
                };
                let set = |v: &mut f64, o: Option<f64>| {
                    if let Some(o) = o {
                        *v = o;
                    }
                };
                set(&mut l.horizontal_tick, horizontal_tick);
                set(&mut l.horizontal_second, horizontal_second);
                set(&mut l.up_tick, up_tick);
                set(&mut l.down_tick, down_tick);
                set(&mut l.up_second, up_second);
                set(&mut l.down_second, down_second);
                if !teleport_zone.is_empty() {
                    l.teleports = CourseLimits::parse_zones(&teleport_zone.join(";"))?;
                }
                if let Some(n) = checkpoints {
                    l.checkpoints = n;
                }
                cat.set_course_limits(&course, &l)?;
            }
            show::limits(&course, &cat.course_limits(&course)?, json, out)
        }
        CatalogCommand::Invalidate { run, valid } => {
            cat.set_run_valid(run, valid)?;
            show::done(
                &format!(
                    "run {run} is now {}",
                    if valid { "valid" } else { "invalid" }
                ),
                json,
                out,
            )
        }
        CatalogCommand::Report {
            reported,
            name,
            reporter,
            reason,
            recording,
            server,
        } => {
            let r = NewReport {
                reported,
                reported_name: name,
                reporter,
                reason,
                created_ms: None,
                server,
            };
            // a recording in object storage is read there (the `AWS_*` variables)
            let filed = match recording.as_deref().and_then(super::object::url_of) {
                Some(url) => cat.add_report_at(&r, Some(url))?,
                None => cat.add_report(&r, recording.as_deref())?,
            };
            show::reports(&[filed], json, out)
        }
        CatalogCommand::CloseReport { id, open } => {
            let status = if open {
                ReportStatus::Open
            } else {
                ReportStatus::Closed
            };
            cat.set_report_status(id, status)?;
            show::done(
                &format!("report {id} is now {}", status.as_str()),
                json,
                out,
            )
        }
        CatalogCommand::Reports {
            open,
            player,
            server,
        } => {
            let filter = open.then_some(ReportStatus::Open);
            let mut reports = match player {
                Some(p) => cat.reports_of(p, server.as_deref())?,
                None => cat.reports(filter)?,
            };
            // the filters --player does not apply itself
            reports.retain(|r| {
                (!open || r.status == ReportStatus::Open)
                    && (player.is_some() || server.is_none() || r.server == server)
            });
            show::reports(&reports, json, out)
        }
        CatalogCommand::Retain {
            scope,
            keep_top,
            keep_days,
            no_keep_bests,
            no_keep_open_reports,
            clear,
        } => {
            if let Some(scope) = scope {
                let scope = RetentionScope::parse(&scope)?;
                if clear {
                    cat.clear_retention(&scope)?;
                } else {
                    let policy = RetentionPolicy {
                        keep_top,
                        keep_personal_bests: !no_keep_bests,
                        keep_days,
                        keep_open_reports: !no_keep_open_reports,
                    };
                    cat.set_retention(&scope, policy)?;
                }
            }
            show::retention(&cat.retention()?, json, out)
        }
        CatalogCommand::Staff(c) => super::catalog_desk::staff(&cat, c, json, out),
        CatalogCommand::Desk(c) => super::catalog_desk::desk(&cat, c, json, out),
        CatalogCommand::Prune { dry_run } => {
            let report = cat.prune_with(
                PruneOptions {
                    dry_run,
                    ..PruneOptions::default()
                },
                &super::object::remove,
            )?;
            show::pruned(&report, json, out)
        }
    }
}
