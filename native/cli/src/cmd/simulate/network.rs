//! `tickreel simulate --network N`: a network of N game servers, each a separate process (this
//! binary's hidden `simulate-server` subcommand), all writing to one catalog (PostgreSQL, or
//! SQLite) and one bucket (the `AWS_*` variables). Every server records its sessions with shadow
//! play, and after each session uploads the recording and a report to
//! `s3://BUCKET/SERVER/...`, then registers them in the catalog with their `s3://` locations:
//! registering reads the uploaded object, so a row never points at an object that is not there.
//!
//! A server prints one line per step (`recorded`, `uploading`, `uploaded`, `acknowledged`); the
//! network forwards them prefixed with the server's id, and `--kill SERVER:STEP:NTH` SIGKILLs a
//! server when it prints its NTH `STEP` line (e.g. `uploading`: its upload is under way). At the
//! end the network checks what it was told: every recording the catalog lists is in the bucket
//! with its size and opens holding its ticks, every run's and report's recording is listed, every
//! acknowledged recording is in the catalog, and every file a killed server left is recoverable
//! (in the bucket, or a finished or live recording on its disk). It prints a summary (servers,
//! recordings, runs, reports, bytes) and fails if any of that does not hold.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use tickreel::ghost::GhostRange;
use tickreel::play::Reader;
use tickreel::{Error, Result};
use tickreel_catalog::{Catalog, NewReport, RunSpec};
use tickreel_object::{ObjectOptions, ObjectStorage, UploadOptions};
use tickreel_sim::SimConfig;

use super::{Session, ShadowSession};
use crate::cmd::Out;

/// The most servers one network runs.
pub const MAX_SERVERS: u32 = 64;
/// The most sessions one server records.
pub const MAX_SESSIONS: u32 = 100;
/// Runs registered per session (its first entities, each over its whole presence).
const RUNS_PER_SESSION: usize = 3;

/// The course every server's runs are registered on.
const COURSE: &str = "network-course";

/// The steps a server prints, each the first word of its line.
const STEPS: &[&str] = &["recorded", "uploading", "uploaded", "acknowledged"];

/// What `--network` needs of `tickreel simulate`'s arguments.
pub struct Network {
    pub servers: u32,
    /// Where each server keeps its local files (`DIR/SERVER/`).
    pub dir: PathBuf,
    pub catalog: String,
    pub bucket: String,
    pub sessions: u32,
    pub ticks: u32,
    pub players: u32,
    pub seed: u64,
    pub kill: Option<Kill>,
}

/// `--kill SERVER:STEP:NTH`: SIGKILL server SERVER (1-based) when it prints its NTH STEP line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kill {
    pub server: u32,
    pub step: String,
    pub nth: u32,
}

impl std::str::FromStr for Kill {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Kill, String> {
        let bad = || {
            format!(
                "--kill {s:?}: SERVER:STEP:NTH, STEP one of {}",
                STEPS.join(", ")
            )
        };
        let mut parts = s.split(':');
        let (Some(server), Some(step), Some(nth), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let server = server.parse::<u32>().map_err(|_| bad())?;
        let nth = nth.parse::<u32>().map_err(|_| bad())?;
        if server == 0 || nth == 0 || !STEPS.contains(&step) {
            return Err(bad());
        }
        Ok(Kill {
            server,
            step: step.to_owned(),
            nth,
        })
    }
}

/// The server id of server `i` (1-based).
fn server_id(i: u32) -> String {
    format!("net-{i}")
}

/// Runs the network (see the module's description).
pub fn run(n: Network, out: &mut Out) -> Result<()> {
    if !(1..=MAX_SERVERS).contains(&n.servers) {
        return Err(Error::invalid(format!(
            "--network {}: from 1 to {MAX_SERVERS} servers",
            n.servers
        )));
    }
    if !(1..=MAX_SESSIONS).contains(&n.sessions) {
        return Err(Error::invalid(format!(
            "--sessions {}: from 1 to {MAX_SESSIONS}",
            n.sessions
        )));
    }
    if let Some(k) = &n.kill
        && k.server > n.servers
    {
        return Err(Error::invalid(format!(
            "--kill {}: there are {} servers",
            k.server, n.servers
        )));
    }
    let options = ObjectOptions::from_env();
    let storage = ObjectStorage::new(&n.bucket, options.clone())?;
    // The schema is created (or upgraded) once, before the servers open the catalog.
    let catalog = Catalog::open(&n.catalog)?;
    std::fs::create_dir_all(&n.dir).map_err(|e| crate::cmd::io_at(&n.dir, e))?;
    out.set_line_buffered(true);
    let exe = std::env::current_exe().map_err(Error::Io)?;
    let (tx, rx) = crossbeam_channel::unbounded::<(u32, Option<String>)>();
    let mut children: Vec<(Child, std::thread::JoinHandle<String>)> = Vec::new();
    for i in 1..=n.servers {
        let mut c = Command::new(&exe);
        c.arg("simulate-server")
            .args(["--server-id", &server_id(i)])
            .args(["--catalog", &n.catalog])
            .args(["--bucket", &n.bucket])
            .arg("--dir")
            .arg(n.dir.join(server_id(i)))
            .args(["--sessions", &n.sessions.to_string()])
            .args(["--ticks", &n.ticks.to_string()])
            .args(["--players", &n.players.to_string()])
            .args(["--seed", &(n.seed ^ u64::from(i) << 32).to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().map_err(Error::Io)?;
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send((i, Some(line))).is_err() {
                    return;
                }
            }
            let _ = tx.send((i, None));
        });
        // What a server says when it fails, kept for the network's error.
        let errors = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut BufReader::new(stderr), &mut s);
            s
        });
        children.push((child, errors));
    }
    drop(tx);
    let mut open = n.servers;
    let mut seen: Vec<u32> = vec![0; n.servers as usize];
    let mut killed = Vec::new();
    let mut acknowledged: Vec<String> = Vec::new();
    while open > 0 {
        let Ok((i, line)) = rx.recv() else { break };
        let Some(line) = line else {
            open -= 1;
            continue;
        };
        writeln!(out, "[{}] {line}", server_id(i))?;
        let mut words = line.split_whitespace();
        let step = words.next().unwrap_or("");
        if step == "acknowledged" {
            // acknowledged recording|report URL
            if let Some(url) = words.nth(1) {
                acknowledged.push(url.to_owned());
            }
        }
        if let Some(k) = &n.kill
            && k.server == i
            && k.step == step
            && !killed.contains(&i)
        {
            seen[(i - 1) as usize] += 1;
            if seen[(i - 1) as usize] == k.nth {
                // Child::kill is SIGKILL on Unix: no destructor, no flush, no cleanup runs.
                children[(i - 1) as usize].0.kill().map_err(Error::Io)?;
                killed.push(i);
                writeln!(out, "killed {} at its {step} line {}", server_id(i), k.nth)?;
            }
        }
    }
    let mut failed = Vec::new();
    for (i, (mut child, errors)) in children.into_iter().enumerate() {
        let status = child.wait().map_err(Error::Io)?;
        let i = i as u32 + 1;
        let errors = errors.join().unwrap_or_default();
        if !status.success() && !killed.contains(&i) {
            failed.push(format!("{}: {status}: {}", server_id(i), errors.trim()));
        }
    }
    if !failed.is_empty() {
        return Err(Error::InvalidState(format!(
            "servers failed: {}",
            failed.join("; ")
        )));
    }
    if let Some(k) = &n.kill
        && killed.is_empty()
    {
        return Err(Error::InvalidState(format!(
            "--kill {}:{}:{}: the server never printed that line",
            k.server, k.step, k.nth
        )));
    }
    let checked = check(&catalog, &storage, &options, &acknowledged)?;
    let mut recoverable = 0;
    for &i in &killed {
        recoverable += left_behind(&n.dir.join(server_id(i)), &storage, &server_id(i))?;
    }
    writeln!(
        out,
        "network servers {} killed {} recordings {} runs {} reports {} bytes {} acknowledged {} \
         recoverable {recoverable}",
        n.servers,
        killed.len(),
        checked.recordings,
        checked.runs,
        checked.reports,
        checked.bytes,
        acknowledged.len(),
    )?;
    Ok(())
}

/// What the catalog holds, every row checked against the bucket.
struct Checked {
    recordings: usize,
    runs: usize,
    reports: usize,
    bytes: u64,
}

/// Checks the catalog against the bucket and what the servers acknowledged.
fn check(
    catalog: &Catalog,
    storage: &ObjectStorage,
    options: &ObjectOptions,
    acknowledged: &[String],
) -> Result<Checked> {
    let recordings = catalog.recordings()?;
    let mut bytes = 0;
    let mut listed = std::collections::HashSet::new();
    for rec in &recordings {
        let url = tickreel_object::ObjectUrl::parse(&rec.location)?;
        let info = storage.head(&url.key)?.ok_or_else(|| {
            Error::InvalidState(format!(
                "the catalog points at {}, which is not in the bucket",
                rec.location
            ))
        })?;
        if info.size != rec.size_bytes {
            return Err(Error::InvalidState(format!(
                "{}: {} bytes in the bucket, {} in the catalog",
                rec.location, info.size, rec.size_bytes
            )));
        }
        let reader = catalog.open_recording_with(rec, options)?;
        if reader.first_tick() != Some(rec.first_tick) || reader.last_tick() != Some(rec.last_tick)
        {
            return Err(Error::InvalidState(format!(
                "{}: ticks {:?}..={:?}, the catalog says {}..={}",
                rec.location,
                reader.first_tick(),
                reader.last_tick(),
                rec.first_tick,
                rec.last_tick
            )));
        }
        let ticks = reader
            .ticks(rec.first_tick, rec.last_tick)
            .try_fold(0u64, |n, t| t.map(|_| n + 1))?;
        if ticks != u64::from(reader.header().tick_count) {
            return Err(Error::InvalidState(format!(
                "{}: {ticks} ticks read, the header says {}",
                rec.location,
                reader.header().tick_count
            )));
        }
        bytes += rec.size_bytes;
        listed.insert(rec.location.clone());
    }
    // Every run belongs to a listed recording, and the board's runs point at listed ones.
    let ids: std::collections::HashSet<i64> = recordings.iter().map(|r| r.id).collect();
    let runs = catalog.recording_runs(u64::MAX)?;
    if let Some((id, course, player)) = runs.iter().find(|(id, ..)| !ids.contains(id)) {
        return Err(Error::InvalidState(format!(
            "a run of {player} on {course} belongs to recording {id}, which the catalog does not list"
        )));
    }
    for placed in catalog.top(COURSE, u64::from(u32::MAX))? {
        if !listed.contains(&placed.run.location) {
            return Err(Error::InvalidState(format!(
                "run {} points at {}, which the catalog does not list",
                placed.run.id, placed.run.location
            )));
        }
    }
    let reports = catalog.reports(None)?;
    for report in &reports {
        match &report.location {
            Some(l) if listed.contains(l) => {}
            l => {
                return Err(Error::InvalidState(format!(
                    "report {} points at {l:?}, which the catalog does not list",
                    report.id
                )));
            }
        }
    }
    for url in acknowledged {
        if !listed.contains(url) {
            return Err(Error::InvalidState(format!(
                "{url} was acknowledged, but the catalog does not list it"
            )));
        }
    }
    Ok(Checked {
        recordings: recordings.len(),
        runs: runs.len(),
        reports: reports.len(),
        bytes,
    })
}

/// Counts what a killed server left on its disk, each checked to be recoverable: a finished
/// `.reel` (its upload did not complete, or its local copy was not removed yet) that opens, or a
/// live directory (a session it was recording) that `tickreel recover` finishes. Fails for a
/// file that is neither.
fn left_behind(dir: &Path, storage: &ObjectStorage, server: &str) -> Result<usize> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(0);
    };
    let mut n = 0;
    for e in entries {
        let path = e.map_err(Error::Io)?.path();
        let name = path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.ends_with(".reel") {
            if Reader::open_path(&path).is_err()
                && storage.head(&format!("{server}/{name}"))?.is_none()
            {
                return Err(Error::InvalidState(format!(
                    "{} is neither a finished recording nor in the bucket",
                    path.display()
                )));
            }
            n += 1;
        } else if name.ends_with(".live") {
            n += 1;
        }
    }
    Ok(n)
}

/// `tickreel simulate-server` (hidden): one server of a network.
#[derive(clap::Args, Debug)]
pub struct ServerArgs {
    #[arg(long)]
    pub server_id: String,
    #[arg(long)]
    pub catalog: String,
    #[arg(long)]
    pub bucket: String,
    #[arg(long)]
    pub dir: PathBuf,
    #[arg(long, default_value_t = 2)]
    pub sessions: u32,
    #[arg(long, default_value_t = 400)]
    pub ticks: u32,
    #[arg(long, default_value_t = 6)]
    pub players: u32,
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
}

/// One server: records its sessions with shadow play, uploads each recording and report, and
/// registers them once uploaded, printing a line per step.
pub fn server(a: ServerArgs, out: &mut Out) -> Result<()> {
    tickreel::format::check_server_id(&a.server_id)?;
    if !(1..=MAX_SESSIONS).contains(&a.sessions) {
        return Err(Error::invalid(format!("--sessions {}", a.sessions)));
    }
    out.set_line_buffered(true);
    std::fs::create_dir_all(&a.dir).map_err(|e| crate::cmd::io_at(&a.dir, e))?;
    let storage = ObjectStorage::new(&a.bucket, ObjectOptions::from_env())?;
    let catalog = Catalog::open(&a.catalog)?;
    let upload = UploadOptions {
        overwrite: false,
        remove_local: true,
    };
    for s in 0..a.sessions {
        let name = format!("session-{s}");
        let local = a.dir.join(format!("{name}.reel"));
        let mut options = tickreel::RecorderOptions {
            server: Some(a.server_id.clone()),
            ..tickreel::RecorderOptions::default()
        };
        options.chunk_policy.chunk_ticks = 100;
        let session = Session {
            out: local.clone(),
            options,
            sim: SimConfig {
                players: a.players,
                seed: a.seed ^ u64::from(s),
                // the players' runs are registered on a course: no teleport inside a run (the
                // run checks hold one that lands outside the course's teleport zones)
                teleport_chance: 0.0,
                ..SimConfig::default()
            },
            ticks: a.ticks,
            tps: 0.0,
            finish: true,
            shadow: Some(ShadowSession {
                options: tickreel::shadow::ShadowOptions::default(),
                out: a.dir.join(format!("{name}.report.reel")),
                report: tickreel::shadow::ReportOptions {
                    after: Duration::ZERO,
                    ..tickreel::shadow::ReportOptions::default()
                },
            }),
        };
        let done = super::record(&session, &mut NoHooks)?;
        let finished = done
            .finished
            .ok_or_else(|| Error::InvalidState("the session did not finish".into()))?;
        writeln!(out, "recorded {}", finished.display())?;
        // The runs: the entities online at the first tick, each over its whole presence.
        let reader = Reader::open_path(&finished)?;
        let mut entities: Vec<(u32, Option<uuid::Uuid>)> = reader
            .seek(reader.first_tick().unwrap_or(0))?
            .entities
            .iter()
            .map(|e| (e.id, None))
            .collect();
        entities.sort_unstable();
        entities.truncate(RUNS_PER_SESSION);
        let player = |entity: u32, uuid: Option<uuid::Uuid>| {
            uuid.unwrap_or_else(|| {
                // FNV-1a of the server's id: players of different servers differ
                let server = a.server_id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                    (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
                });
                uuid::Uuid::from_u128(u128::from(server) << 64 | u128::from(entity))
            })
        };
        let specs: Vec<RunSpec> = entities
            .iter()
            .map(|&(e, u)| {
                RunSpec::new(COURSE, player(e, u), &format!("P{e}"), e).range(GhostRange::all())
            })
            .collect();
        let url = storage.url(&format!("{}/{name}.reel", a.server_id));
        writeln!(out, "uploading recording {url}")?;
        storage.upload(&finished, &url.key, upload)?;
        writeln!(out, "uploaded recording {url}")?;
        let reg = catalog.register_at_with(&url.to_string(), &specs, storage.options())?;
        writeln!(out, "acknowledged recording {url} runs {}", reg.runs.len())?;
        if let Some(r) = done.report {
            let report_url = storage.url(&format!("{}/{name}.report.reel", a.server_id));
            writeln!(out, "uploading report {report_url}")?;
            storage.upload(&r.path, &report_url.key, upload)?;
            writeln!(out, "uploaded report {report_url}")?;
            let new = NewReport {
                reported: player(r.player, None),
                reported_name: format!("P{}", r.player),
                reporter: player(u32::MAX, None),
                reason: "simulated report".into(),
                created_ms: None,
                server: Some(a.server_id.clone()),
            };
            catalog.add_report_at_with(&new, &report_url.to_string(), storage.options())?;
            writeln!(out, "acknowledged report {report_url}")?;
        }
    }
    Ok(())
}

struct NoHooks;
impl super::Hooks for NoHooks {}
