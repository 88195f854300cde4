//! `tickreel recover DIR`: recover a live recording directory after a crash, in place.
//!
//! Torn tails (the last frames a crash cut short) are the expected result of a crash: cutting them
//! off is a successful recovery. Damaged bytes between valid frames are not: the directory is
//! still recovered (made readable again), but the ticks in them are lost, and the command says so
//! on stderr and exits non-zero, like every command that finds damage. So does a directory holding
//! segments of another recording (a writer that raced the removal and re-creation of the
//! directory): they are left out of the recovered index, left untouched, and named.

use std::io::Write;
use std::path::PathBuf;

use tickreel::Error;
use tickreel::record::recover_with_progress;

use super::Out;

#[derive(clap::Args)]
pub struct Args {
    /// A live recording directory (`NAME.reel.live`), repaired in place. Exits non-zero (after
    /// repairing it) if damaged bytes had to be skipped between valid frames, or if segments of
    /// another recording were left out.
    pub dir: PathBuf,
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
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
