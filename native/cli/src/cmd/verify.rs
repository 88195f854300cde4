//! `tickreel verify FILE`: reads every chunk of a `.reel` file or a live recording directory and
//! checks every checksum and the index, decoding every chunk with its world section and terrain
//! piece as readers do; fails naming the damage.

use std::io::Write;
use std::path::PathBuf;

use super::Out;

#[derive(clap::Args)]
pub struct Args {
    /// A `.reel` file, a live recording directory (`NAME.reel.live`) or an object URL (`s3://bucket/key`).
    pub file: PathBuf,
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    let r = super::open(&a.file)?;
    let rep = r.verify().map_err(|e| super::in_file(&a.file, e))?;
    writeln!(
        out,
        "ok: {} chunks, {} ticks, {} pose samples, {} events",
        rep.chunks, rep.ticks, rep.pose_samples, rep.events
    )?;
    Ok(())
}
