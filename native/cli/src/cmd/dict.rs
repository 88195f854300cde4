//! `tickreel dict train --out F.dict [--id N] [--size BYTES] RECORDINGS...` and `tickreel dict
//! info F.dict [--json]`: zstd dictionaries trained on the chunk payloads of sample recordings,
//! for recordings that name them in their header (FORMAT.md, section 6); and the tool's global
//! `--dictionary FILE`, which registers dictionaries before any command reads or writes.
//!
//! Training reads the chunks of the given recordings (decompressed: the bytes a writer will
//! compress), at most `--max-samples` of them and `--max-bytes` in all (the core's training
//! limits bound both), and writes the dictionary whole or not at all.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde_json::json;
use tickreel::Error;
use tickreel::dictionary::{
    DEFAULT_DICTIONARY_BYTES, Dictionary, MAX_DICTIONARY_BYTES, MAX_TRAINING_BYTES,
    MAX_TRAINING_SAMPLES,
};

use super::Out;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(clap::Subcommand)]
pub enum Command {
    /// Train a dictionary on the chunks of sample recordings (not the ones it will compress).
    Train(TrainArgs),
    /// A dictionary's id, size and fingerprint, checked as the library checks it when registered.
    Info(InfoArgs),
}

#[derive(clap::Args)]
pub struct TrainArgs {
    /// The dictionary to write. It must not exist, unless --force.
    #[arg(long)]
    pub out: PathBuf,
    /// Its id, 1..=65535, which recordings compressed with it name in their header (default:
    /// derived from its content, in 32768..=65535).
    #[arg(long)]
    pub id: Option<u16>,
    /// Its largest size in bytes.
    #[arg(long, default_value_t = DEFAULT_DICTIONARY_BYTES)]
    pub size: usize,
    /// The most chunks read as samples.
    #[arg(long, default_value_t = 100_000)]
    pub max_samples: usize,
    /// The most sample bytes read (decompressed).
    #[arg(long, default_value_t = 64 << 20)]
    pub max_bytes: usize,
    /// Replace OUT if it exists.
    #[arg(long)]
    pub force: bool,
    /// Sample recordings: `.reel` files, live directories or `s3://` URLs.
    #[arg(required = true)]
    pub samples: Vec<PathBuf>,
}

#[derive(clap::Args)]
pub struct InfoArgs {
    /// A dictionary file (`tickreel dict train`'s output).
    pub file: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    match a.command {
        Command::Train(t) => train(t, out),
        Command::Info(i) => info(i, out),
    }
}

/// Reads a dictionary file, refusing one larger than the library accepts before reading it all.
pub fn load(path: &Path) -> tickreel::Result<Vec<u8>> {
    let f = std::fs::File::open(path).map_err(|e| super::io_at(path, e))?;
    let mut bytes = Vec::new();
    f.take(MAX_DICTIONARY_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| super::io_at(path, e))?;
    if bytes.len() > MAX_DICTIONARY_BYTES {
        return Err(super::in_file(
            path,
            Error::limit(format!(
                "a dictionary of more than {MAX_DICTIONARY_BYTES} bytes"
            )),
        ));
    }
    Ok(bytes)
}

/// Registers the dictionary of each file (the tool's `--dictionary FILE`); errors name the file.
pub fn register_files(paths: &[PathBuf]) -> tickreel::Result<()> {
    for p in paths {
        let bytes = load(p)?;
        tickreel::dictionary::register(&bytes).map_err(|e| super::in_file(p, e))?;
    }
    Ok(())
}

fn train(a: TrainArgs, out: &mut Out) -> tickreel::Result<()> {
    let max_samples = a.max_samples.min(MAX_TRAINING_SAMPLES);
    let max_bytes = a.max_bytes.min(MAX_TRAINING_BYTES);
    let inputs: Vec<&Path> = a.samples.iter().map(PathBuf::as_path).collect();
    super::files::check_output(&a.out, &inputs, a.force)?;
    let mut samples: Vec<Vec<u8>> = Vec::new();
    let (mut total, mut full) = (0usize, false);
    'files: for path in &a.samples {
        let r = super::open(path)?;
        for i in 0..r.index().len() {
            let payload = r
                .read_compressed(i)
                .and_then(|(fh, c)| r.decompress(&fh, &c))
                .map_err(|e| super::in_file(path, e))?;
            if samples.len() == max_samples || total + payload.len() > max_bytes {
                full = true;
                break 'files;
            }
            total += payload.len();
            samples.push(payload);
        }
    }
    if full {
        super::note(&format!(
            "sampling stopped at {} chunks of {total} bytes (--max-samples {max_samples}, \
             --max-bytes {max_bytes})",
            samples.len()
        ));
    }
    // Trained once with a placeholder id when none is chosen, then given the id its content
    // derives (the id is not part of what the trainer computes).
    let id = a.id.unwrap_or(1);
    let mut dict = tickreel::dictionary::train(&samples, a.size, id)?;
    if a.id.is_none() {
        let derived = tickreel::dictionary::derived_id(&dict[8..]);
        dict[4..8].copy_from_slice(&u32::from(derived).to_le_bytes());
    }
    let d = Dictionary::parse(&dict)?;
    super::files::write_new(&a.out, &inputs, a.force, "dictionary", |f| {
        f.write_all(&dict).map_err(|e| super::io_at(&a.out, e))
    })?;
    writeln!(
        out,
        "dictionary {} ({} bytes) trained on {} chunks ({total} bytes) of {} recordings: {}",
        d.id(),
        dict.len(),
        samples.len(),
        a.samples.len(),
        a.out.display()
    )?;
    Ok(())
}

fn info(a: InfoArgs, out: &mut Out) -> tickreel::Result<()> {
    let bytes = load(&a.file)?;
    let d = Dictionary::parse(&bytes).map_err(|e| super::in_file(&a.file, e))?;
    let fingerprint = format!("{:016x}", xxhash_rust::xxh64::xxh64(&bytes, 0));
    if a.json {
        let v = json!({
            "file": a.file.display().to_string(),
            "id": d.id(),
            "bytes": bytes.len(),
            "xxh64": fingerprint,
        });
        writeln!(out, "{v}")?;
    } else {
        writeln!(out, "file         {}", a.file.display())?;
        writeln!(out, "id           {}", d.id())?;
        writeln!(out, "bytes        {}", bytes.len())?;
        writeln!(out, "xxh64        {fingerprint}")?;
    }
    Ok(())
}
