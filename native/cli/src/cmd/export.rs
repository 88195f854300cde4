//! `tickreel export FILE OUT.csv`: entity poses as CSV, the inverse of `import`. The CSV's format
//! and the exporter are in the library, [`tickreel_cli::csv::export`]. Checkpoints the CSV has no
//! row for are counted on stderr. `OUT.csv` may be `-` for stdout.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use tickreel::Error;
use tickreel_cli::csv::export::{ExportError, ExportSummary, export};

use super::Out;

#[derive(clap::Args)]
pub struct Args {
    /// A `.reel` file, a live recording directory (`NAME.reel.live`) or an object URL (`s3://bucket/key`).
    pub file: PathBuf,
    /// The CSV to write (`-` for stdout; not FILE, nor inside it). It must not exist, unless
    /// --force.
    pub out: PathBuf,
    /// Replace OUT if it exists (never FILE or a file inside FILE).
    #[arg(long)]
    pub force: bool,
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    let r = super::open(&a.file)?;
    if a.out.as_os_str() == "-" {
        let s = export(&r, out).map_err(|e| match e {
            ExportError::Read(e) => super::in_file(&a.file, e),
            // A closed stdout (a quiet end) or an error naming standard output.
            ExportError::Write(e) => Error::Io(e),
        })?;
        warn_dropped(&s);
        return Ok(());
    }
    // Written next to the target and moved into place, so that a failed export leaves no partial
    // CSV.
    let s = super::files::write_new(&a.out, &[&a.file], a.force, "export.csv", |f| {
        let at = |e: io::Error| super::io_at(&a.out, e);
        let mut w = BufWriter::new(f);
        let s = export(&r, &mut w).map_err(|e| match e {
            ExportError::Read(e) => super::in_file(&a.file, e),
            ExportError::Write(e) => at(e),
        })?;
        w.into_inner().map_err(|e| at(e.into_error()))?;
        Ok(s)
    })?;
    warn_dropped(&s);
    writeln!(
        out,
        "exported {} rows ({} ticks) to {}",
        s.rows,
        s.ticks,
        a.out.display()
    )?;
    Ok(())
}

fn warn_dropped(s: &ExportSummary) {
    if s.checkpoints_dropped > 0 {
        super::note(&format!(
            "note: {} checkpoint events fell on ticks without a pose of their entity and are not in the CSV",
            s.checkpoints_dropped
        ));
    }
}
