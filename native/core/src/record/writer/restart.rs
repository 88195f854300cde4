//! Starting a recording whose live directory exists (a server stopped or crashed with it open):
//! what [`OnExisting`] chose, done on the calling thread before the recording opens. Setting the
//! old recording aside is one rename of its live directory (no segment is read or copied), so
//! that a restart is as quick as a fresh start and nothing the old one held is lost.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result, option};
use crate::record::options::recorder_options::{MAX_PREVIOUS_RECORDINGS, OnExisting};
use crate::storage::live::{LiveDir, live_dir_for};

/// The side name `n` of the recording at `path`: `STEM.previous-N.EXT` next to it
/// (`STEM.previous-N` if it has no extension).
pub(crate) fn previous_path(path: &Path, n: u32) -> PathBuf {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = match path.extension() {
        Some(ext) => format!("{stem}.previous-{n}.{}", ext.to_string_lossy()),
        None => format!("{stem}.previous-{n}"),
    };
    path.with_file_name(name)
}

/// Applies `choice` to the live directory `live` of the recording at `path`, which exists.
/// Returns whether the recording resumes it; `false` once it was set aside.
pub(crate) fn on_existing(live: &LiveDir, path: &Path, choice: OnExisting) -> Result<bool> {
    match choice {
        OnExisting::Resume => Ok(true),
        OnExisting::Refuse => Err(Error::exists_at(
            live.path(),
            &format!(
                " (a live recording of {} a stopped or crashed server left open); set {} to \
                 Resume to continue it, or to StartFresh (the default) to keep it aside as {} and \
                 start a new one",
                path.display(),
                option("on_existing"),
                previous_path(path, 1).display()
            ),
        )),
        OnExisting::StartFresh => {
            set_aside(live, path)?;
            Ok(false)
        }
    }
}

/// Renames the live directory to that of the first free side name of `path`, under its writer
/// lock (a directory another writer holds is refused with `Error::Locked`, and left alone).
/// Returns the side name.
pub(crate) fn set_aside(live: &LiveDir, path: &Path) -> Result<PathBuf> {
    let lock = live.lock()?;
    let storage = live.storage();
    for n in 1..=MAX_PREVIOUS_RECORDINGS {
        let side = previous_path(path, n);
        let side_live = live_dir_for(&side);
        if storage.stat(&side)?.is_some() || storage.stat(&side_live)?.is_some() {
            continue;
        }
        match storage.rename(live.path(), &side_live, false) {
            Ok(()) => {}
            // Taken at the same moment (another process setting a recording aside): try the next.
            Err(e) if e.io_kind() == Some(std::io::ErrorKind::AlreadyExists) => continue,
            Err(e) => return Err(e),
        }
        drop(lock);
        storage.sync_dir(crate::storage::parent_dir(path))?;
        return Ok(side);
    }
    Err(Error::invalid(format!(
        "{} already has {MAX_PREVIOUS_RECORDINGS} recordings set aside ({} and on); finish or \
         remove some before starting it fresh",
        path.display(),
        previous_path(path, 1).display()
    )))
}
