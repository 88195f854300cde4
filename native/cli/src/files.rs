//! Where a command may write. No command writes over an existing file unless `--force` is given,
//! and none writes over its own input, even with `--force`: not the same file (compared by
//! canonical path, and on Unix by device and inode, so that a symbolic or hard link to the input
//! is caught too) and not anything inside an input live directory. A file a command writes
//! ([`write_new`]) appears whole or not at all.

use std::io;
use std::path::{Path, PathBuf};

use tickreel::Error;

/// Fails unless a command may write `out`: `out` is none of `inputs` nor inside one of them (an
/// input that is a directory), and it does not exist unless `force`. Errors name the paths.
pub fn check_output(out: &Path, inputs: &[&Path], force: bool) -> tickreel::Result<()> {
    for input in inputs {
        if let Some(why) = overlap(out, input) {
            return Err(Error::InvalidArgument(format!(
                "{}: refusing to write {why} {} (not even with --force)",
                out.display(),
                input.display()
            )));
        }
    }
    if !force && out.symlink_metadata().is_ok() {
        return Err(exists(out));
    }
    Ok(())
}

/// The error for an output that exists and may not be replaced.
pub fn exists(out: &Path) -> Error {
    Error::InvalidArgument(format!(
        "{} already exists; pass --force to replace it",
        out.display()
    ))
}

/// Writes a new file at `out`: checked first as [`check_output`] does against `inputs`, then
/// filled by `fill` in a temporary file next to it (with the permissions of a file created the
/// usual way, 0666 less the umask, not 0600), synced and moved into place, so that a failed write
/// leaves nothing half written (the temporary file is removed when dropped). An existing file is
/// replaced only if `force`, and a file created at `out` since the check never is. `fallback`
/// names the temporary file when `out` has no file name. Errors name `out`, except those `fill`
/// returns, which are passed on as they are.
pub fn write_new<T>(
    out: &Path,
    inputs: &[&Path],
    force: bool,
    fallback: &str,
    fill: impl FnOnce(&mut std::fs::File) -> tickreel::Result<T>,
) -> tickreel::Result<T> {
    check_output(out, inputs, force)?;
    let at = |e: io::Error| crate::errors::io_at(out, e);
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
        .unwrap_or_else(|| fallback.into());
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(dir).map_err(at)?;
    let filled = fill(tmp.as_file_mut())?;
    tmp.as_file().sync_all().map_err(at)?;
    let published = if force {
        tmp.persist(out)
    } else {
        tmp.persist_noclobber(out)
    };
    match published {
        Ok(_) => Ok(filled),
        // Created since the check.
        Err(e) if !force && e.error.kind() == io::ErrorKind::AlreadyExists => Err(exists(out)),
        Err(e) => Err(at(e.error)),
    }
}

/// How `out` would overlap `input`, if it does.
fn overlap(out: &Path, input: &Path) -> Option<&'static str> {
    // An input that does not exist is not overwritten (and the command fails opening it).
    let input_c = std::fs::canonicalize(input).ok()?;
    let out_c = resolve(out)?;
    if out_c == input_c || same_file(out, input) {
        return Some("over the input");
    }
    if input_c.is_dir() && out_c.starts_with(&input_c) {
        return Some("inside the input directory");
    }
    None
}

/// `p`'s canonical path, or, if `p` does not exist, its parent's canonical path joined with its
/// name (`None` if neither resolves: then it is not inside anything that exists).
fn resolve(p: &Path) -> Option<PathBuf> {
    if let Ok(c) = std::fs::canonicalize(p) {
        return Some(c);
    }
    let name = p.file_name()?;
    let parent = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::canonicalize(parent).ok().map(|d| d.join(name))
}

#[cfg(unix)]
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &Path, _: &Path) -> bool {
    false
}

/// Writes an imported recording and publishes it at `out`, replacing a file there only if
/// `replace`; its size. A file created at `out` since the command's check is not replaced.
pub fn publish_import(
    writer: tickreel::record::ReelWriter,
    out: &Path,
    replace: bool,
) -> tickreel::Result<u64> {
    let at_out = |e: Error| crate::errors::io_in_file(out, e);
    let file = writer.finish_unpublished().map_err(at_out)?;
    match file.publish(replace) {
        Ok(bytes) => Ok(bytes),
        Err(Error::Io(e)) if !replace && e.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(exists(out))
        }
        Err(e) => Err(at_out(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_over_inputs_are_refused_even_with_force() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let input = d.join("a.reel");
        std::fs::write(&input, b"x").unwrap();
        let live = d.join("l.reel.live");
        std::fs::create_dir(&live).unwrap();
        std::fs::write(live.join("meta.tkrl"), b"m").unwrap();
        let dotted = d.join(".").join("a.reel");
        let link = d.join("link.reel");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        let hard = d.join("hard.reel");
        std::fs::hard_link(&input, &hard).unwrap();
        for (out, inp) in [
            (&input, &input),
            (&dotted, &input),
            (&link, &input),
            (&hard, &input),
            (&live.join("meta.tkrl"), &live),
            (&live.join("new.reel"), &live),
            (&live, &live),
        ] {
            for force in [false, true] {
                let e = check_output(out, &[inp], force).unwrap_err().to_string();
                assert!(e.contains("refusing to write"), "{e}");
                assert!(e.contains(&out.display().to_string()), "{e}");
            }
        }
    }

    #[test]
    fn existing_outputs_need_force() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let input = d.join("a.reel");
        std::fs::write(&input, b"x").unwrap();
        let other = d.join("b.csv");
        std::fs::write(&other, b"y").unwrap();
        let e = check_output(&other, &[&input], false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("already exists") && e.contains("--force"), "{e}");
        assert!(e.contains(&other.display().to_string()), "{e}");
        check_output(&other, &[&input], true).unwrap();
        check_output(&d.join("new.csv"), &[&input], false).unwrap();
        // An output next to a live directory, not in it.
        let live = d.join("l.reel.live");
        std::fs::create_dir(&live).unwrap();
        check_output(&d.join("l.reel"), &[&live], false).unwrap();
        // A missing input, or a missing output directory: nothing to compare.
        check_output(&d.join("no/x.csv"), &[&d.join("nope")], false).unwrap();
    }
}
