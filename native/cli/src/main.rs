//! The `tickreel` command-line tool: inspect, verify, import/export, demo, bench, ...
//! Each subcommand lives in its own module under `cmd/`.
//!
//! Exit status: 0 on success, and also when stdout is closed before the output ends (`tickreel
//! dump f | head`: a quiet end, see `cmd::output`); 1 on an error or on damage found in a
//! recording (a message on stderr names the file); 2 on a usage error (clap).

// Everything printed goes through `cmd::Out`: `println!` panics when stdout is a closed pipe.
#![deny(clippy::print_stdout)]

#[cfg(feature = "bench")]
mod bench;
#[cfg(not(feature = "bench"))]
mod bench {
    //! Without the feature `bench`: the command says how to get it.
    use crate::cmd::Out;

    #[derive(clap::Args)]
    pub struct Args {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        rest: Vec<String>,
    }

    pub fn run(_: Args, _: &mut Out) -> tickreel::Result<()> {
        Err(tickreel::Error::Unsupported(
            "this tickreel was built without its benchmarks (they hold the writer threads through \
             a test hook): cargo run --release --features tickreel-cli/bench -- bench"
                .into(),
        ))
    }
}
mod cmd;
mod svg;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tickreel_cli::serve;

use cmd::Out;

#[derive(Parser)]
#[command(
    name = "tickreel",
    version,
    about = "Record, inspect and replay tickreel recordings",
    after_help = "Commands that write a file never replace an existing one unless --force is given, \
                  and never write over their own input (not even with --force).\n\n\
                  Exit status: 0 on success, also when stdout is closed before the output ends \
                  (`tickreel dump FILE | head`); 1 on an error or when damage is found in a \
                  recording (stderr names the file and the chunk); 2 on a usage error."
)]
struct Cli {
    /// Register the zstd dictionary of FILE (`tickreel dict train`'s output) before the command
    /// runs: recordings compressed with it then read, and `compact --dictionary-id` can use it.
    /// Repeatable.
    #[arg(long = "dictionary", value_name = "FILE", global = true)]
    dictionaries: Vec<std::path::PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Header, metadata, index summary and size on disk of a recording (a .reel or a live directory).
    Info(cmd::info::Args),
    /// Ticks and events as JSON lines (with --metadata, everything `import` needs to rebuild the recording).
    Dump(cmd::dump::Args),
    /// Check every checksum and the index and decode every chunk (world sections and terrain
    /// pieces included); non-zero exit on damage.
    Verify(cmd::verify::Args),
    /// Import a movement trace CSV (`tick,entity,x,y,z,yaw,pitch[,on_ground,teleport,checkpoint]`) or `dump`'s JSON lines.
    Import(cmd::import::Args),
    /// Export entity poses as CSV (the inverse of import).
    Export(cmd::export::Args),
    /// Record a simulated server (through `simulate`'s loop) with runners on a course, verify,
    /// seek, register the runs in a catalog, race its best ghost and summarise (the README's
    /// first command).
    Demo(cmd::demo::Args),
    /// Recover a live recording directory after a crash (truncate torn tails, rebuild the index).
    Recover(cmd::recover::Args),
    /// Compact a live recording directory (or a .reel) into one .reel file.
    Compact(cmd::compact::Args),
    /// Record a synthetic server through the real pipeline (prints `flushed TICK` lines; compacts
    /// unless --no-finish).
    Simulate(cmd::simulate::Args),
    /// One server of `simulate --network` (started by it).
    #[command(hide = true)]
    SimulateServer(cmd::simulate::network::ServerArgs),
    /// Run the benchmarks and print the headline figures (a build with `--features bench`).
    Bench(bench::Args),
    /// One entity's run as a ghost: sampled poses as CSV, or its splits.
    Ghost(cmd::ghost::Args),
    /// Play a recording: entity poses as JSON lines, one per simulated server tick.
    Play(cmd::play::Args),
    /// Upload a finished .reel to object storage (s3://bucket/key); --force replaces an object.
    Upload(cmd::upload::Args),
    /// List the objects under s3://bucket/prefix.
    Ls(cmd::ls::Args),
    /// The catalog of runs, recordings and reports (SQLite or PostgreSQL): top, pb, runs, add, prune.
    Catalog(cmd::catalog::Args),
    /// The web viewer: serves the recordings of a directory (or s3:// prefix) on loopback.
    Serve(cmd::serve::Args),
    /// A top-down SVG map of a recording: every entity's path, teleports, checkpoints, names.
    Render(cmd::render::Args),
    /// Zstd dictionaries: train one on sample recordings, describe one.
    Dict(cmd::dict::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut out = Out::stdout();
    let result = cmd::dict::register_files(&cli.dictionaries).and_then(|()| match cli.command {
        Command::Info(a) => cmd::info::run(a, &mut out),
        Command::Dump(a) => cmd::dump::run(a, &mut out),
        Command::Verify(a) => cmd::verify::run(a, &mut out),
        Command::Import(a) => cmd::import::run(a, &mut out),
        Command::Export(a) => cmd::export::run(a, &mut out),
        Command::Demo(a) => cmd::demo::run(a, &mut out),
        Command::Recover(a) => cmd::recover::run(a, &mut out),
        Command::Compact(a) => cmd::compact::run(a, &mut out),
        Command::Simulate(a) => cmd::simulate::run(a, &mut out),
        Command::SimulateServer(a) => cmd::simulate::network::server(a, &mut out),
        Command::Bench(a) => bench::run(a, &mut out),
        Command::Ghost(a) => cmd::ghost::run(a, &mut out),
        Command::Play(a) => cmd::play::run(a, &mut out),
        Command::Upload(a) => cmd::upload::run(a, &mut out),
        Command::Ls(a) => cmd::ls::run(a, &mut out),
        Command::Catalog(a) => cmd::catalog::run(a, &mut out),
        Command::Serve(a) => cmd::serve::run(a, &mut out),
        Command::Render(a) => cmd::render::run(a, &mut out),
        Command::Dict(a) => cmd::dict::run(a, &mut out),
    });
    // What was printed before an error comes before its message.
    let flushed = out.flush();
    let result = result.and(flushed.map_err(tickreel::Error::Io));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A closed stdout is a quiet end.
        Err(e) if cmd::output::is_closed(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "tickreel: {e}");
            ExitCode::FAILURE
        }
    }
}
