//! `tickreel compact SRC OUT`: compact a recording (a live directory or a `.reel`) into one file.

use std::io::Write;
use std::path::PathBuf;

use tickreel::Error;
use tickreel::record::{CompactOptions, compact};

use super::Out;

#[derive(clap::Args)]
pub struct Args {
    /// A live recording directory (`NAME.reel.live`) or a `.reel` file.
    pub source: PathBuf,
    /// The compacted `.reel` to write.
    pub out: PathBuf,
    /// Zstd level of the output.
    #[arg(long, default_value_t = CompactOptions::default().zstd_level)]
    pub level: i32,
    /// Ticks per chunk of the output.
    #[arg(long, default_value_t = CompactOptions::default().chunk_ticks)]
    pub chunk_ticks: u32,
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    let reader = super::open(&a.source)?;
    let bar = super::progress::bar(reader.index().len() as u64, "compacting");
    let options = CompactOptions {
        zstd_level: a.level,
        chunk_ticks: a.chunk_ticks,
        verify: true,
        dictionary_id: None,
        // As before: the command replaces an existing OUT.
        overwrite: true,
    };
    let rep = compact(&reader, &a.out, options, &mut |done, _| {
        bar.set_position(done)
    })
    .map_err(|e| match e {
        // The core's refusal names OUT.
        Error::Io(_) | Error::InvalidState(_) => e,
        // Data errors (a damaged chunk) are SRC's.
        e => super::in_file(&a.source, e),
    })?;
    bar.finish_and_clear();
    writeln!(
        out,
        "compacted {} chunks ({} bytes) into {} chunks ({} bytes), {} ticks: {}",
        rep.chunks_in,
        rep.bytes_in,
        rep.chunks_out,
        rep.bytes_out,
        rep.ticks,
        a.out.display()
    )?;
    Ok(())
}
