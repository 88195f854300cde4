//! `tickreel upload FILE URL [--force] [--remove]`: uploads a finished `.reel` to object storage
//! (in parts when large), checks the uploaded size, and with `--remove` deletes the local file
//! once that is done. Refuses to replace an existing object without `--force`. A failure keeps
//! the local file; running the command again retries.

use std::io::Write;
use std::path::PathBuf;

use tickreel::Error;
use tickreel_object::UploadOptions;

use super::Out;

#[derive(clap::Args)]
pub struct Args {
    /// The `.reel` file to upload (checked first: a damaged file is not uploaded).
    pub file: PathBuf,
    /// Where to: `s3://bucket/key` (a key ending in `/` gets the file's name).
    pub url: String,
    /// Replace an existing object.
    #[arg(long)]
    pub force: bool,
    /// Remove the local file once the upload is complete and its size checked.
    #[arg(long)]
    pub remove: bool,
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    let url = if a.url.ends_with('/') {
        let name = a
            .file
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| Error::invalid(format!("{}: not a file name", a.file.display())))?;
        format!("{}{name}", a.url)
    } else {
        a.url.clone()
    };
    let (storage, u) = super::object::storage(&url)?;
    if u.key.is_empty() {
        return Err(Error::invalid(format!(
            "{url}: the URL names no object key"
        )));
    }
    // A damaged or partial recording is not uploaded.
    tickreel::play::Reader::open_path(&a.file)
        .and_then(|r| r.verify())
        .map_err(|e| super::in_file(&a.file, e))?;
    let report = storage.upload(
        &a.file,
        &u.key,
        UploadOptions {
            overwrite: a.force,
            remove_local: a.remove,
        },
    )?;
    let how = match report.parts {
        0 => "one request".to_string(),
        n => format!("{n} parts"),
    };
    writeln!(
        out,
        "uploaded {} ({} bytes, {how})",
        report.url, report.bytes
    )?;
    if report.removed_local {
        writeln!(out, "removed {}", a.file.display())?;
    }
    Ok(())
}
