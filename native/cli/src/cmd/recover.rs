//! `tickreel recover DIR`: recover a live recording directory after a crash.

use std::io::Write;
use std::path::PathBuf;

use tickreel::record::recover::recover_with_progress;

use super::Out;

#[derive(clap::Args)]
pub struct Args {
    /// A live recording directory (`NAME.reel.live`).
    pub dir: PathBuf,
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    let bar = super::progress::bar(0, "scanning segments");
    let report = recover_with_progress(&a.dir, &mut |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    })?;
    bar.finish_and_clear();
    writeln!(out, "recovered {}: {report}", a.dir.display())?;
    Ok(())
}
