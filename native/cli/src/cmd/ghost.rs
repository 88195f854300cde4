//! `tickreel ghost FILE --entity E [--from-checkpoint A] [--to-checkpoint B] [--hz 60] [--splits]`:
//! one entity's run as the ghost cursor samples it, as CSV (`t,x,y,z,yaw,pitch`, t in ticks from
//! the run's start), or its splits (`checkpoint,tick,seconds`). With `--plot delta.svg
//! --ghost-entity G [--ghost-file GHOST]`: a chart of the run's live delta against that ghost over
//! the run, with the splits ([`super::ghost_plot`]).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tickreel::Error;
use tickreel::ghost::{GhostCursor, GhostRange, GhostTrack, RunEnd, RunStart, SignedSeconds};

use super::Out;

#[derive(clap::Args)]
pub struct Args {
    /// A `.reel` file, a live recording directory (`NAME.reel.live`) or an object URL (`s3://bucket/key`).
    pub file: PathBuf,
    /// The entity whose run is the ghost.
    #[arg(long)]
    pub entity: u32,
    /// Start the run at this checkpoint (its last crossing before the end); default: the
    /// entity's first pose.
    #[arg(long)]
    pub from_checkpoint: Option<u32>,
    /// End the run at this checkpoint (its first crossing after the start); default: the
    /// entity's last pose.
    #[arg(long)]
    pub to_checkpoint: Option<u32>,
    /// Samples per second of game time (the recording's tick rate converts it to ticks). The CSV
    /// has at most 4096 + 16 rows per recorded pose: past that the step is widened (said on
    /// stderr).
    #[arg(long, default_value_t = 60.0)]
    pub hz: f64,
    /// Print the splits (checkpoint, tick from the start, seconds) instead of poses.
    #[arg(long, conflicts_with = "plot")]
    pub splits: bool,
    /// Write an SVG chart of this run's live delta against a ghost (--ghost-entity and/or
    /// --ghost-file, over the same checkpoints) instead of printing CSV.
    #[arg(long, value_name = "SVG")]
    pub plot: Option<PathBuf>,
    /// The ghost's entity (default: --entity, in --ghost-file).
    #[arg(long, requires = "plot", value_name = "ID")]
    pub ghost_entity: Option<u32>,
    /// The ghost's recording (default: FILE).
    #[arg(long, requires = "plot", value_name = "FILE")]
    pub ghost_file: Option<PathBuf>,
    /// Replace the --plot file if it exists.
    #[arg(long, requires = "plot")]
    pub force: bool,
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    if !(a.hz.is_finite() && a.hz > 0.0) {
        return Err(Error::InvalidArgument(format!(
            "--hz {} is not a positive rate",
            a.hz
        )));
    }
    let reader = super::open(&a.file)?;
    let range = GhostRange {
        start: a
            .from_checkpoint
            .map_or(RunStart::First, RunStart::Checkpoint),
        end: a.to_checkpoint.map_or(RunEnd::Last, RunEnd::Checkpoint),
    };
    let track = Arc::new(
        GhostTrack::load(&reader, a.entity, range).map_err(|e| super::in_file(&a.file, e))?,
    );
    if let Some(plot) = &a.plot {
        return write_plot(&a, plot, &track, range, out);
    }
    write(&track, &a, out).map_err(Error::Io)
}

/// `--plot`: races the run against the ghost and writes the chart.
fn write_plot(
    a: &Args,
    plot: &Path,
    run: &Arc<GhostTrack>,
    range: GhostRange,
    out: &mut Out,
) -> tickreel::Result<()> {
    if a.ghost_entity.is_none() && a.ghost_file.is_none() {
        return Err(Error::InvalidArgument(
            "--plot needs a ghost to race: --ghost-entity ID and/or --ghost-file FILE".into(),
        ));
    }
    if super::object::url_of(plot).is_some() {
        return Err(Error::InvalidArgument(
            "--plot must be a local file, not an object URL".into(),
        ));
    }
    let ghost_file = a.ghost_file.as_deref().unwrap_or(&a.file);
    let ghost_entity = a.ghost_entity.unwrap_or(a.entity);
    let ghost_reader = super::open(ghost_file)?;
    let ghost = Arc::new(
        GhostTrack::load(&ghost_reader, ghost_entity, range)
            .map_err(|e| super::in_file(ghost_file, e))?,
    );
    let series = super::ghost_plot::race(run, &ghost);
    let name = |p: &Path| {
        p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    let title = format!(
        "{} entity {} ({:.2} s) against the ghost {} entity {} ({:.2} s)",
        name(&a.file),
        a.entity,
        run.duration_seconds(),
        name(ghost_file),
        ghost_entity,
        ghost.duration_seconds()
    );
    let doc = super::ghost_plot::draw(&series, &title);
    let mut inputs = vec![a.file.as_path()];
    inputs.push(ghost_file);
    crate::svg::save(plot, &inputs, a.force, &doc)?;
    let last = series.delta.last().map_or(0.0, |p| p[1]);
    writeln!(
        out,
        "wrote {}: {} ticks raced, final delta {}, {} splits, {} bytes",
        plot.display(),
        series.delta.len(),
        SignedSeconds::new(last),
        series.splits.len(),
        doc.len()
    )?;
    Ok(())
}

fn write(track: &Arc<GhostTrack>, a: &Args, mut out: impl Write) -> io::Result<()> {
    let rate = track.tick_rate();
    if a.splits {
        writeln!(out, "checkpoint,tick,seconds")?;
        for s in track.splits() {
            let secs = f64::from(s.tick) / rate;
            writeln!(out, "{},{},{secs:.3}", s.checkpoint, s.tick)?;
        }
        return out.flush();
    }
    writeln!(out, "t,x,y,z,yaw,pitch")?;
    let end = f64::from(track.duration_ticks());
    let (step, widened) = csv_step(rate / a.hz, end, track.len());
    if widened {
        super::note(&format!(
            "{}: entity {}: {} Hz would take more than {} rows for its {} recorded poses over              {} ticks (at {} ticks/s): one row every {step:.4} ticks instead",
            a.file.display(),
            a.entity,
            a.hz,
            max_rows(track.len()),
            track.len(),
            track.duration_ticks(),
            rate
        ));
    }
    let mut cursor = GhostCursor::new(track.clone());
    let mut row = |t: f64, out: &mut dyn Write| {
        let s = cursor.sample(t);
        writeln!(
            out,
            "{t:.4},{:.6},{:.6},{:.6},{:.4},{:.4}",
            s.x, s.y, s.z, s.yaw, s.pitch
        )
    };
    let mut k = 0u64;
    loop {
        let t = k as f64 * step;
        if t > end + 1e-9 {
            break;
        }
        row(t, &mut out)?;
        k += 1;
    }
    // the finish, if the rate does not land on it
    if (k as f64 - 1.0) * step < end - 1e-9 {
        row(end, &mut out)?;
    }
    out.flush()
}

/// Most CSV rows per recorded pose sample of the run (beyond [`ROWS_FLOOR`]).
const ROWS_PER_SAMPLE: u64 = 16;
/// Rows any run may have, however few its samples.
const ROWS_FLOOR: u64 = 4096;

/// The most rows the CSV of a run of `samples` recorded poses has: the output follows what the
/// file holds, not the span its poses claim nor its tick rate (a header tick rate of 1 mHz at
/// 60 Hz made 60,000 rows a tick: 374 MB from a small file).
fn max_rows(samples: usize) -> u64 {
    ROWS_FLOOR.saturating_add((samples as u64).saturating_mul(ROWS_PER_SAMPLE))
}

/// The step (in ticks) between CSV rows over `end` ticks: `step`, or a wider one when `step`
/// would take more than [`max_rows`] rows (then `true`).
fn csv_step(step: f64, end: f64, samples: usize) -> (f64, bool) {
    let max = max_rows(samples) as f64;
    // rows: every step from 0 to `end`, and the finish
    if step > 0.0 && end / step + 2.0 <= max {
        (step, false)
    } else if end > 0.0 {
        (end / (max - 2.0), true)
    } else {
        // a run of one tick: one row, whatever the step (a tick rate of 0 made it 0)
        (1.0, false)
    }
}
