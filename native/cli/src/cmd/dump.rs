//! `tickreel dump FILE [--from T] [--to T] [--metadata]`: the recording as JSON lines; what is
//! printed, and how, is in the library, [`tickreel_cli::dump`].

use std::path::PathBuf;

use super::Out;

#[derive(clap::Args)]
pub struct Args {
    /// A `.reel` file, a live recording directory (`NAME.reel.live`) or an object URL (`s3://bucket/key`).
    pub file: PathBuf,
    /// First tick to print (default: the recording's first).
    #[arg(long)]
    pub from: Option<u32>,
    /// Last tick to print, inclusive (default: the recording's last).
    #[arg(long)]
    pub to: Option<u32>,
    /// Also print a first `{"recording": ...}` line (header, registered entities and event types,
    /// gaps, user metadata), a `{"snapshot": ...}` line before each snapshot's tick, a
    /// `{"world": ...}` line where a snapshot's world is not what the events before it made,
    /// and a `{"terrain": ...}` line before the tick of each terrain piece, so that
    /// `tickreel import` rebuilds the recording exactly (ticks, events, world and terrain at
    /// every tick, metadata; its chunks are the importer's own).
    #[arg(long)]
    pub metadata: bool,
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    let r = super::open(&a.file)?;
    tickreel_cli::dump::dump(&r, &a.file, a.from, a.to, a.metadata, out)
}
