//! `tickreel compact SRC OUT [--force]`: compact a recording (a live directory or a `.reel`) into
//! one file (`--dictionary-id N`: compressed with a registered dictionary). An existing OUT is replaced only with `--force`, and never if it is SRC or inside it.
//! Segments of another recording in a live SRC are left out of OUT and untouched; the command
//! names them and exits non-zero (after writing OUT).

use std::io::Write;
use std::path::PathBuf;

use tickreel::Error;
use tickreel::record::{CompactOptions, compact};

use super::Out;

#[derive(clap::Args)]
pub struct Args {
    /// A live recording directory (`NAME.reel.live`) or a `.reel` file.
    pub source: PathBuf,
    /// The compacted `.reel` to write (not SRC, nor inside it). It must not exist, unless --force.
    pub out: PathBuf,
    /// Replace OUT if it exists (never SRC or a file inside SRC).
    #[arg(long)]
    pub force: bool,
    /// Zstd level of the output.
    #[arg(long, default_value_t = CompactOptions::default().zstd_level)]
    pub level: i32,
    /// Ticks per chunk of the output.
    #[arg(long, default_value_t = CompactOptions::default().chunk_ticks)]
    pub chunk_ticks: u32,
    /// Compress OUT with the dictionary of this id (registered with `--dictionary FILE`); 0: no
    /// dictionary. Default: SRC's.
    #[arg(long)]
    pub dictionary_id: Option<u16>,
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    let reader = super::open(&a.source)?;
    super::files::check_output(&a.out, &[&a.source], a.force)?;
    let bar = super::progress::bar(reader.index().len() as u64, "compacting");
    let options = CompactOptions {
        zstd_level: a.level,
        chunk_ticks: a.chunk_ticks,
        verify: true,
        dictionary_id: a.dictionary_id,
        overwrite: a.force,
    };
    let rep = compact(&reader, &a.out, options, &mut |done, _| {
        bar.set_position(done)
    })
    .map_err(|e| match e {
        // Reading SRC or writing OUT: name both.
        Error::Io(_) => super::context(
            e,
            &format!("compacting {} into {}", a.source.display(), a.out.display()),
        ),
        // The core's refusal (OUT appeared since the check) names OUT; data errors are SRC's.
        Error::InvalidState(_) => e,
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
    if !rep.refused_segments.is_empty() {
        return Err(Error::InvalidState(format!(
            "{}: {} segments are not this recording's and were left out of {}, untouched: {}",
            a.source.display(),
            rep.refused_segments.len(),
            a.out.display(),
            tickreel::storage::live::describe_refused(&rep.refused_segments)
        )));
    }
    Ok(())
}
