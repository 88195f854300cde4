//! `tickreel export FILE OUT.csv`: entity poses as CSV, the inverse of `import`. The CSV's format
//! and the exporter are in the library, [`tickreel_cli::csv::export`]. Checkpoints the CSV has no
//! row for are counted on stderr. `OUT.csv` may be `-` for stdout.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

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
    super::files::check_output(&a.out, &[&a.file], a.force)?;
    // Written next to the target and moved into place, so that a failed export leaves no partial
    // CSV (the temporary file is removed when dropped).
    let at = |e: io::Error| super::io_at(&a.out, e);
    let name = a
        .out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "export.csv".into());
    let dir = match a.out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(at(io::Error::new(
            io::ErrorKind::NotFound,
            format!("{} is not an existing directory", dir.display()),
        )));
    }
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // The permissions of a file created the usual way (0666 less the umask), not 0600.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(dir).map_err(at)?;
    let mut w = BufWriter::new(tmp.as_file_mut());
    let s = export(&r, &mut w).map_err(|e| match e {
        ExportError::Read(e) => super::in_file(&a.file, e),
        ExportError::Write(e) => at(e),
    })?;
    w.into_inner()
        .map_err(|e| at(e.into_error()))?
        .sync_all()
        .map_err(at)?;
    let published = if a.force {
        tmp.persist(&a.out)
    } else {
        tmp.persist_noclobber(&a.out)
    };
    match published {
        Ok(_) => {}
        // Created since the check.
        Err(e) if !a.force && e.error.kind() == io::ErrorKind::AlreadyExists => {
            return Err(super::files::exists(&a.out));
        }
        Err(e) => return Err(at(e.error)),
    }
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
