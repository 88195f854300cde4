//! `tickreel import INPUT OUT.reel`: a movement trace (CSV) or the JSON lines of `tickreel dump`
//! to a compacted recording. The formats and the importers are in the library,
//! [`tickreel_cli::csv::import`] and [`tickreel_cli::json_import`].

use std::io::Write;
use std::path::PathBuf;

use tickreel_cli::csv::import::{import, reel_options};
use tickreel_cli::json_import;

use super::Out;

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// JSON lines if the first character (after white space) is `{`, else CSV.
    Auto,
    /// The JSON lines of `tickreel dump` (lossless with `dump --metadata`).
    Json,
    /// A movement trace CSV.
    Csv,
}

#[derive(clap::Args)]
pub struct Args {
    /// The input: a CSV trace (header row `tick,entity,x,y,z,yaw,pitch[,on_ground][,teleport]
    /// [,checkpoint]`) or the JSON lines of `tickreel dump` (every event kind; with
    /// `dump --metadata`, the header, registered entities and event types, gaps, user metadata,
    /// snapshots, worlds and terrain too, so that the recording round-trips exactly).
    #[arg(value_name = "INPUT")]
    pub csv: PathBuf,
    /// The `.reel` file to write (not the input). It must not exist, unless --force.
    pub out: PathBuf,
    /// Replace OUT if it exists (never the input itself).
    #[arg(long)]
    pub force: bool,
    /// Ticks per second (ignored for JSON lines with a `recording` line, which gives the rate).
    #[arg(long, default_value_t = 20.0)]
    pub tick_rate: f64,
    /// The input's format.
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    pub format: Format,
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    let options = reel_options(a.tick_rate)?;
    super::files::check_output(&a.out, &[&a.csv], a.force)?;
    let json = match a.format {
        Format::Json => true,
        Format::Csv => false,
        Format::Auto => {
            let f = std::fs::File::open(&a.csv).map_err(|e| super::io_at(&a.csv, e))?;
            json_import::looks_like_json(f).map_err(|e| super::io_at(&a.csv, e))?
        }
    };
    if json {
        let s = json_import::import(&a.csv, &a.out, options, a.force)?;
        let span = match (s.first_tick, s.last_tick) {
            (Some(f), Some(l)) => format!("ticks {f}..={l}"),
            _ => "no ticks".to_string(),
        };
        writeln!(
            out,
            "imported {} events ({} ticks with data, {span}, {} snapshots{}) into {} ({} bytes)",
            s.events,
            s.ticks,
            s.snapshots,
            if s.with_metadata {
                ", with the recording's metadata"
            } else {
                ""
            },
            a.out.display(),
            s.bytes
        )?;
        return Ok(());
    }
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
