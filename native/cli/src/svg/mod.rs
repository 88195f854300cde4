//! Pictures without a browser: a small SVG writer ([`writer`], every text and attribute escaped),
//! axes and scales ([`axis`]), polyline simplification ([`simplify`]) and colours ([`colour`]).
//! `tickreel render` and `tickreel ghost --plot` draw with it; [`save`] writes a document to a
//! file the way every command that writes does.

pub mod axis;
pub mod simplify;
pub mod writer;

pub use axis::Frame;
pub use writer::{Svg, num, num1};

use std::io::{self, Write};
use std::path::Path;

/// The `n`th of a set of distinguishable colours: ten hand-picked ones, then hues a golden angle
/// apart.
pub fn colour(n: usize) -> String {
    const FIRST: [&str; 10] = [
        "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
        "#bcbd22", "#7f7f7f",
    ];
    match FIRST.get(n) {
        Some(c) => (*c).to_string(),
        None => format!("hsl({:.0},65%,45%)", (n as f64 * 137.508) % 360.0),
    }
}

/// Writes `doc` to `out` (never over one of `inputs`; an existing file only with `force`), through
/// a temporary file next to it moved into place, so that a failed write leaves nothing half
/// written.
pub fn save(out: &Path, inputs: &[&Path], force: bool, doc: &str) -> tickreel::Result<()> {
    crate::cmd::files::check_output(out, inputs, force)?;
    let at = |e: io::Error| crate::cmd::io_at(out, e);
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(at(io::Error::new(
            io::ErrorKind::NotFound,
            format!("{} is not an existing directory", dir.display()),
        )));
    }
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out.svg".into());
    let mut builder = tempfile::Builder::new();
    let prefix = format!(".{name}.");
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(dir).map_err(at)?;
    tmp.write_all(doc.as_bytes()).map_err(at)?;
    tmp.as_file().sync_all().map_err(at)?;
    let published = if force {
        tmp.persist(out)
    } else {
        tmp.persist_noclobber(out)
    };
    match published {
        Ok(_) => Ok(()),
        Err(e) if !force && e.error.kind() == io::ErrorKind::AlreadyExists => {
            Err(crate::cmd::files::exists(out))
        }
        Err(e) => Err(at(e.error)),
    }
}
