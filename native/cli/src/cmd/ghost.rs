//! `tickreel ghost FILE --entity E [--from-checkpoint A] [--to-checkpoint B] [--hz 60] [--splits]`:
//! one entity's run as the ghost cursor samples it, as CSV (`t,x,y,z,yaw,pitch`, t in ticks from
//! the run's start), or its splits (`checkpoint,tick,seconds`).

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;

use tickreel::Error;
use tickreel::ghost::{GhostCursor, GhostRange, GhostTrack, RunEnd, RunStart};

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
    /// Samples per second of game time (the recording's tick rate converts it to ticks).
    #[arg(long, default_value_t = 60.0)]
    pub hz: f64,
    /// Print the splits (checkpoint, tick from the start, seconds) instead of poses.
    #[arg(long)]
    pub splits: bool,
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
    write(&track, &a, out).map_err(Error::Io)
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
    let step = rate / a.hz;
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
