//! `tickreel recover DIR`: recover a live recording directory after a crash.

use std::path::PathBuf;

use tickreel::record::recover_with_progress;

#[derive(clap::Args)]
pub struct Args {
    /// A live recording directory (`NAME.reel.live`).
    pub dir: PathBuf,
}

pub fn run(a: Args) -> tickreel::Result<()> {
    let bar = super::progress::bar(0, "scanning segments");
    let report = recover_with_progress(&a.dir, &mut |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    })?;
    bar.finish_and_clear();
    println!("recovered {}: {report}", a.dir.display());
    Ok(())
}
