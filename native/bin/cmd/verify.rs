use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A `.reel` file.
    pub file: PathBuf,
}

pub fn run(a: Args) -> tickreel::Result<()> {
    let r = super::open(&a.file)?;
    let rep = r.verify()?;
    println!(
        "ok: {} chunks, {} ticks, {} pose samples, {} events",
        rep.chunks, rep.ticks, rep.pose_samples, rep.events
    );
    Ok(())
}
