//! `tickreel import TRACE.csv OUT.reel`: a movement trace to a compacted recording. The CSV's
//! format and the importer are in the library, [`tickreel_cli::csv::import`].

use std::io::Write;
use std::path::PathBuf;

use tickreel_cli::csv::import::{import, reel_options};

use super::Out;

#[derive(clap::Args)]
pub struct Args {
    /// The trace: header row `tick,entity,x,y,z,yaw,pitch[,on_ground][,teleport][,checkpoint]`.
    pub csv: PathBuf,
    /// The `.reel` file to write (not the CSV). It must not exist, unless --force.
    pub out: PathBuf,
    /// Replace OUT if it exists (never the CSV itself).
    #[arg(long)]
    pub force: bool,
    /// Ticks per second of the trace.
    #[arg(long, default_value_t = 20.0)]
    pub tick_rate: f64,
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    let options = reel_options(a.tick_rate)?;
    super::files::check_output(&a.out, &[&a.csv], a.force)?;
    let s = import(&a.csv, &a.out, options, a.force)?;
    let span = match (s.first_tick, s.last_tick) {
        (Some(f), Some(l)) => format!("ticks {f}..={l}"),
        _ => "no ticks".to_string(),
    };
    writeln!(
        out,
        "imported {} rows ({} entities, {} ticks with data, {span}) into {} ({} bytes)",
        s.rows,
        s.entities,
        s.ticks,
        a.out.display(),
        s.bytes
    )?;
    Ok(())
}
