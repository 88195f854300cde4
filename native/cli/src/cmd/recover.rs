//! `tickreel recover DIR`: recover a live recording directory after a crash, in place.
//!
//! Torn tails (the last frames a crash cut short) are the expected result of a crash: cutting them
//! off is a successful recovery. Damaged bytes between valid frames are not: the directory is
//! still recovered (made readable again), but the ticks in them are lost, and the command says so
//! on stderr and exits non-zero, like every command that finds damage. So does a directory holding
//! segments of another recording (a writer that raced the removal and re-creation of the
//! directory): they are left out of the recovered index, left untouched, and named.
//!
//! `tickreel recover s3://bucket/key.reel`: a live recording shipped to a bucket whose writer
//! died: its live objects are downloaded into a temporary directory, recovered, compacted, and
//! the `.reel` uploaded to the URL; then the live objects are removed.

use std::io::Write;
use std::path::PathBuf;

use tickreel::Error;
use tickreel::record::recover_with_progress;

use super::Out;

#[derive(clap::Args)]
pub struct Args {
    /// A live recording directory (`NAME.reel.live`), repaired in place. Exits non-zero (after
    /// repairing it) if damaged bytes had to be skipped between valid frames, or if segments of
    /// another recording were left out. Or the URL of a live recording shipped to a bucket
    /// (`s3://bucket/key.reel`), finished from the bucket.
    pub dir: PathBuf,
}

/// `recover s3://...`: see the module's documentation.
fn recover_url(url: &str, out: &mut Out) -> tickreel::Result<()> {
    let scratch = tempfile::tempdir()?;
    let r = tickreel_object::live::recover_url(url, &super::object::options(), scratch.path())?;
    writeln!(
        out,
        "recovered {url}: {}; uploaded {} bytes; removed {} live objects",
        r.recovered, r.uploaded.bytes, r.removed
    )?;
    if r.recovered.bytes_skipped > 0 {
        return Err(Error::Corrupt(format!(
            "{url}: {} damaged bytes between valid frames were skipped; the ticks they held are lost",
            r.recovered.bytes_skipped
        )));
    }
    Ok(())
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    if let Some(url) = super::object::url_of(&a.dir) {
        return recover_url(url, out);
    }
    let bar = super::progress::bar(0, "scanning segments");
    let report = recover_with_progress(&a.dir, &mut |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    })
    .map_err(|e| super::in_file(&a.dir, e))?;
    bar.finish_and_clear();
    writeln!(out, "recovered {}: {report}", a.dir.display())?;
    if !report.segments_refused.is_empty() {
        return Err(Error::InvalidState(format!(
            "{}: {} segments are not this recording's and were left out, untouched: {}",
            a.dir.display(),
            report.segments_refused.len(),
            tickreel::storage::live::describe_refused(&report.segments_refused)
        )));
    }
    if report.bytes_skipped > 0 {
        return Err(Error::Corrupt(format!(
            "{}: {} damaged bytes between valid frames were skipped; the ticks they held are lost",
            a.dir.display(),
            report.bytes_skipped
        )));
    }
    Ok(())
}
