//! `tickreel play FILE`: drives a playhead with one `advance()` per simulated server tick (no
//! sleeping) and prints every entity's pose as a JSON line per server tick. With `--follow`, the
//! recording may still be written: lines are printed as it grows (updates that change nothing are
//! not printed), and the command ends once the recording is finished and played to its end.
//! A gap of more than 1,200 ticks between two chunks (ticks no chunk spans) is crossed in one
//! seek, a `jump` line, not a line per tick: the work follows the chunks the file holds.
//!
//! A damaged chunk does not stop playback (the playhead plays on past it, and the line of the
//! update that met it lists it under `faults`), but the command names it on stderr when it is
//! first met and exits non-zero at the end.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tickreel::Error;
use tickreel::play::{
    Direction, FollowOptions, FollowState, LiveFollower, Motion, PlaybackContext, Playhead,
    Recording, Update,
};
use tickreel::storage::live::live_dir_for;
use tickreel_cli::json::entity_state_to_json;

use super::Out;

#[derive(clap::Args)]
pub struct Args {
    /// A `.reel` file, a live recording directory (with `--follow`, also the `.reel` path of a
    /// recording still being written), or an object URL (`s3://bucket/key`; with `--follow`, a
    /// recording shipped live to the bucket by another machine, then its compacted object).
    pub file: PathBuf,
    /// Start at this tick (default: the first tick, or the last one with --reverse).
    #[arg(long)]
    pub from: Option<u32>,
    /// Recorded ticks per server tick, from 0.25 to 16.
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// Play backward.
    #[arg(long)]
    pub reverse: bool,
    /// Server ticks to simulate (default: until the first or last tick is reached).
    #[arg(long)]
    pub ticks: Option<u64>,
    /// Follow a recording still being written: keep playing as it grows. Ends (exit 0) once the
    /// recording is finished (compacted into FILE) and played to its last tick; fails when it is
    /// removed without a final file, or when --max-ms runs out, and when the writer of a live
    /// recording is gone (it crashed, or closed the recording without finishing it): then, once
    /// what was flushed has been played and the directory has not changed for 5 seconds, it
    /// fails saying so (recover and compact it, or resume it). A live directory that cannot be
    /// read for 5 seconds (a segment or its metadata file missing, with no writer to write it)
    /// fails naming what is missing. FILE must exist (as the file or its live directory) unless
    /// --wait is given.
    #[arg(long, conflicts_with = "reverse")]
    pub follow: bool,
    /// With --follow: if neither FILE nor its live directory exists yet, wait for the recording
    /// to start (until --max-ms, if given) instead of failing at once.
    #[arg(long, requires = "follow")]
    pub wait: bool,
    /// With --follow: how often to look for new ticks (milliseconds).
    #[arg(long, default_value_t = 100, requires = "follow")]
    pub poll_ms: u64,
    /// With --follow: give up (and fail) after this many milliseconds.
    #[arg(long, requires = "follow")]
    pub max_ms: Option<u64>,
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    if a.follow {
        return follow(a, out);
    }
    let rec = Recording::from_reader(super::open(&a.file)?, &PlaybackContext::global());
    let view = rec.view();
    let (first, last) = match (view.reader().first_tick(), view.reader().last_tick()) {
        (Some(f), Some(l)) => (f, l),
        _ => {
            return Err(super::in_file(
                &a.file,
                Error::InvalidState("the recording has no ticks".into()),
            ));
        }
    };
    let from = a.from.unwrap_or(if a.reverse { last } else { first });
    let mut ph = Playhead::new_at(rec.clone(), from).map_err(|e| super::in_file(&a.file, e))?;
    ph.set_speed(a.speed)?;
    if a.reverse {
        ph.set_direction(Direction::Backward);
    }
    ph.play();
    let mut damage = Damage::new(&a.file);
    let mut stall = Stall::default();
    let r = (|| -> tickreel::Result<()> {
        damage.see(ph.update());
        writeln!(out, "{}", line(0, ph.update()))?;
        let mut server_tick = 0u64;
        loop {
            if a.ticks.is_some_and(|n| server_tick >= n) {
                break;
            }
            if a.ticks.is_none() && ph.update().at_edge {
                break;
            }
            server_tick += 1;
            // Ticks between chunks hold nothing: one jump over them, not a line per tick (a file
            // of two chunks 2^32 - 2 ticks apart was walked tick by tick, for days).
            if let Some(t) = across_gap(&rec, ph.position(), a.reverse) {
                let u = ph.seek(t).map_err(|e| super::in_file(&a.file, e))?;
                damage.see(u);
                writeln!(out, "{}", line(server_tick, u))?;
                continue;
            }
            // A tool may wait for data; a server never does (advance alone never blocks).
            ph.prepare();
            let u = ph.advance();
            damage.see(u);
            writeln!(out, "{}", line(server_tick, u))?;
            stall.see(u, &a.file, &rec, a.reverse)?;
        }
        Ok(())
    })();
    damage.finish(r)
}

/// Gaps between chunks longer than this many ticks are jumped over by `play` (shorter ones are
/// played tick by tick, as time passing).
const GAP_WALK: u32 = 1200;

/// Where a playback at `pos` should jump to cross the ticks between two chunks, if the next tick
/// it plays lies in a gap between chunks (no chunk spans it) that is more than [`GAP_WALK`] ticks
/// away from its end: the last tick before the next chunk (forward) or the first tick after the
/// previous one (backward), so that the next `advance` plays into that chunk as usual. `None`
/// otherwise, and when no chunk is left that way (the playback ends at the recording's edge). So
/// a playback takes at most [`GAP_WALK`] lines per gap, however many ticks the gap spans: its work
/// follows the chunks the file holds (two chunks 2^32 - 2 ticks apart were walked tick by tick,
/// for days).
fn across_gap(rec: &Recording, pos: u32, reverse: bool) -> Option<u32> {
    let view = rec.view();
    let idx = view.reader().index();
    let k = view.reader().chunk_for_tick(pos)?;
    let e = &idx[k];
    let target = if !reverse {
        // `pos` is in chunk `k` or in the gap after it.
        if u64::from(pos) + 1 < e.end_tick() {
            return None;
        }
        idx.get(k + 1)?.start_tick.checked_sub(1)?
    } else {
        let prev_end = if pos > e.start_tick {
            // `pos - 1` is in chunk `k`, or `pos` is in the gap after it.
            e.end_tick()
        } else {
            idx.get(k.checked_sub(1)?)?.end_tick()
        };
        u32::try_from(prev_end).ok()?
    };
    (target.abs_diff(pos) > GAP_WALK && (target > pos) != reverse).then_some(target)
}

/// How long a playback of a file (not followed: nothing more will come) may stay stalled on
/// failing reads (I/O errors are retried by the playhead) before it fails with the error.
const STALL_LIMIT: Duration = Duration::from_secs(10);

/// A playback stalled by reads that keep failing: after [`STALL_LIMIT`], an error naming the
/// chunk and the failure (a file removed under the playback, say), never an endless stall.
#[derive(Default)]
struct Stall {
    since: Option<Instant>,
    /// The last fault met while stalled: `(chunk, start tick, error)`.
    fault: Option<(usize, u32, String)>,
}

impl Stall {
    fn see(
        &mut self,
        u: &Update,
        file: &Path,
        rec: &Recording,
        reverse: bool,
    ) -> tickreel::Result<()> {
        if !u.stalled {
            *self = Stall::default();
            return Ok(());
        }
        if let Some(f) = u.faults().last() {
            self.fault = Some((f.chunk, f.start_tick, f.error.to_string()));
        }
        let since = *self.since.get_or_insert_with(Instant::now);
        if since.elapsed() < STALL_LIMIT {
            return Ok(());
        }
        if self.fault.is_none() {
            // The playhead retries failed reads without saying why (prepare waits them out):
            // read the chunk it waits for once more, for its error.
            let view = rec.view();
            let r = view.reader();
            let next = if reverse {
                u.to.checked_sub(1)
            } else {
                u.to.checked_add(1)
            };
            if let Some(k) = next.and_then(|t| r.chunk_for_tick(t))
                && let Err(e) = r.read_chunk(k)
            {
                self.fault = Some((k, r.index()[k].start_tick, e.to_string()));
            }
        }
        let why = match &self.fault {
            Some((chunk, start, e)) => {
                format!("chunk {chunk} (from tick {start}) cannot be read: {e}")
            }
            None => "its data never came".into(),
        };
        Err(Error::InvalidState(format!(
            "{}: playback stalled for {} s at tick {}: {why}",
            file.display(),
            STALL_LIMIT.as_secs(),
            u.to
        )))
    }
}

/// The damaged chunks a playback met: each named on stderr when first met; at the end they make
/// the command fail. Transient faults (I/O errors, data not ready) are retried by the playhead
/// and are not damage.
struct Damage<'a> {
    file: &'a Path,
    chunks: BTreeSet<usize>,
}

impl<'a> Damage<'a> {
    fn new(file: &'a Path) -> Self {
        Damage {
            file,
            chunks: BTreeSet::new(),
        }
    }

    fn see(&mut self, u: &Update) {
        for f in u.faults() {
            if matches!(*f.error, Error::Io(_) | Error::NotReady(_)) {
                continue;
            }
            if self.chunks.insert(f.chunk) {
                let end = u64::from(f.start_tick) + u64::from(f.tick_count.max(1)) - 1;
                super::note(&format!(
                    "{}: chunk {} (ticks {}..={end}) is damaged, played past it: {}",
                    self.file.display(),
                    f.chunk,
                    f.start_tick,
                    f.error
                ));
            }
        }
    }

    /// The playback's result: an error if it met damage (also when stdout was closed after
    /// that), otherwise `r`.
    fn finish(self, r: tickreel::Result<()>) -> tickreel::Result<()> {
        match r {
            Err(e) if !super::output::is_closed(&e) => Err(e),
            _ if !self.chunks.is_empty() => {
                let list: Vec<String> = self.chunks.iter().map(usize::to_string).collect();
                Err(Error::Corrupt(format!(
                    "{}: {} damaged chunk{} (chunk {}), {} ticks were not played",
                    self.file.display(),
                    self.chunks.len(),
                    if self.chunks.len() == 1 { "" } else { "s" },
                    list.join(", "),
                    if self.chunks.len() == 1 {
                        "its"
                    } else {
                        "their"
                    }
                )))
            }
            r => r,
        }
    }
}

fn line(server_tick: u64, u: &Update) -> Value {
    let motion = match u.motion {
        Motion::Still => "still",
        Motion::Forward => "forward",
        Motion::Jump => "jump",
    };
    let mut v = json!({
        "server_tick": server_tick,
        "tick": u.to,
        "motion": motion,
        "entities": u.entities().iter().map(entity_state_to_json).collect::<Vec<_>>(),
    });
    let o = v.as_object_mut().expect("object");
    match u.motion {
        Motion::Forward => {
            o.insert("ticks".into(), json!(u.ticks().len()));
            o.insert("events".into(), json!(u.events().len()));
        }
        Motion::Jump => {
            o.insert(
                "added".into(),
                json!(u.added().iter().map(|e| e.id).collect::<Vec<_>>()),
            );
            o.insert("removed".into(), json!(u.removed()));
            if let Some(rb) = u.rebuild() {
                o.insert(
                    "rebuild".into(),
                    json!({
                        "snapshot_tick": rb.snapshot_tick(),
                        "snapshot_bytes": rb.snapshot().map(<[u8]>::len),
                        "events": rb.events().count(),
                        "complete": rb.complete(),
                    }),
                );
            }
        }
        Motion::Still => {}
    }
    if u.stalled {
        o.insert("stalled".into(), json!(true));
    }
    if u.at_edge {
        o.insert("at_edge".into(), json!(true));
    }
    if u.waiting {
        o.insert("waiting".into(), json!(true));
    }
    if !u.faults().is_empty() {
        let f: Vec<Value> = u
            .faults()
            .iter()
            .map(|f| json!({"chunk": f.chunk, "start_tick": f.start_tick, "error": f.error.to_string()}))
            .collect();
        o.insert("faults".into(), json!(f));
    }
    v
}

/// Whether the recording at `path` (its final file, or its live directory, given either way)
/// has started: one of the two exists.
fn started(path: &Path) -> bool {
    let s = path.as_os_str().to_string_lossy();
    let other = match s.strip_suffix(".live") {
        Some(stem) => PathBuf::from(stem),
        None => live_dir_for(path),
    };
    path.symlink_metadata().is_ok() || other.symlink_metadata().is_ok()
}

/// `--follow`: plays as the recording grows; ends when it is finished and played to the end.
fn follow(a: Args, out: &mut Out) -> tickreel::Result<()> {
    let started_at = Instant::now();
    let url = super::object::url_of(&a.file).map(str::to_string);
    // A recording in a bucket is followed through its live objects: it has started once they
    // (or its compacted object) are there, which the first poll tells.
    if url.is_none() && !a.wait && !started(&a.file) {
        return Err(Error::Io(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!(
                "{}: no such recording (neither the file nor its live directory {} exists); \
                 pass --wait to wait for it to start",
                a.file.display(),
                live_dir_for(&a.file).display()
            ),
        )));
    }
    let poll_interval = Duration::from_millis(a.poll_ms.max(1));
    let (follower, lost_after) = match &url {
        Some(url) => {
            let o = tickreel_object::live::RemoteFollowOptions {
                poll_interval,
                ..Default::default()
            };
            let f = tickreel_object::live::follow_url(url, &super::object::options(), &o)?;
            // Live objects that could not be read (a batch the manifest names is missing): said
            // as they are, not as a recording that is not there.
            if let (false, FollowState::Waiting, Some(e)) =
                (a.wait, f.state(), f.stats().last_error)
            {
                return Err(Error::Io(std::io::Error::other(format!(
                    "{url}: its live objects cannot be read: {e}"
                ))));
            }
            if !a.wait && f.state() == FollowState::Waiting {
                return Err(Error::Io(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!(
                        "{url}: no such recording (neither the object nor its live objects \
                         exist); pass --wait to wait for it to start"
                    ),
                )));
            }
            (f, o.stale_after)
        }
        None => (
            LiveFollower::open(
                &a.file,
                FollowOptions {
                    poll_interval,
                    ..FollowOptions::default()
                },
            )
            .map_err(|e| super::in_file(&a.file, e))?,
            FollowOptions::default().lost_after,
        ),
    };
    let rec = follower.recording().clone();
    let mut ph = match a.from {
        Some(t) => Playhead::new_at(rec.clone(), t),
        None => Playhead::new(rec.clone()),
    }
    .map_err(|e| super::in_file(&a.file, e))?;
    ph.set_speed(a.speed)?;
    ph.play();
    let mut damage = Damage::new(&a.file);
    let mut server_tick = 0u64;
    let r = (|| -> tickreel::Result<()> {
        damage.see(ph.update());
        writeln!(out, "{}", line(0, ph.update()))?;
        out.flush()?;
        loop {
            if a.ticks.is_some_and(|n| server_tick >= n) {
                break;
            }
            if let Some(ms) = a.max_ms
                && started_at.elapsed() >= Duration::from_millis(ms)
            {
                return Err(Error::NotReady(format!(
                    "{}: gave up after {ms} ms at tick {} ({:?})",
                    a.file.display(),
                    ph.position(),
                    follower.state()
                )));
            }
            // Read before playing: if finished then, the view played is the final one.
            let state = follower.state();
            if state == FollowState::Damaged {
                return Err(Error::Corrupt(format!(
                    "{}: the live recording cannot be read (it has not been for {} s): {}; \
                     recover it (tickreel recover), or restore what is missing",
                    a.file.display(),
                    lost_after.as_secs(),
                    follower
                        .stats()
                        .damage
                        .unwrap_or_else(|| "unknown damage".into())
                )));
            }
            if state == FollowState::Lost {
                return Err(Error::InvalidState(format!(
                    "{}: the recording was removed without a final file",
                    a.file.display()
                )));
            }
            server_tick += 1;
            ph.prepare();
            let u = ph.advance();
            damage.see(u);
            let idle = u.motion == Motion::Still && u.faults().is_empty();
            if !idle {
                writeln!(out, "{}", line(server_tick, u))?;
            }
            if state == FollowState::Abandoned && u.at_edge && !u.stalled {
                return Err(Error::InvalidState(format!(
                    "{}: the writer is gone (it crashed, or closed the recording without \
                     finishing it{}) after tick {}: recover and compact it (tickreel recover), \
                     or resume it",
                    a.file.display(),
                    if url.is_some() {
                        format!(": nothing shipped for {} s", lost_after.as_secs())
                    } else {
                        String::new()
                    },
                    ph.position()
                )));
            }
            if state == FollowState::Finished && u.at_edge && !u.stalled && !u.waiting {
                break;
            }
            if idle {
                // At the live edge (or waiting for the first tick): let the writer get ahead.
                out.flush()?;
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        Ok(())
    })();
    damage.finish(r)
}
