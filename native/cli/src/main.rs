//! The `tickreel` command-line tool: inspect, verify, import/export, demo, bench, ...
//! Each subcommand lives in its own module under `cmd/`.

mod alloc_count;
mod bench;
mod cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "tickreel",
    version,
    about = "Record, inspect and replay tickreel recordings"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Header, metadata, index summary and size on disk of a recording (a .reel or a live directory).
    Info(cmd::info::Args),
    /// Ticks and events as JSON lines.
    Dump(cmd::dump::Args),
    /// Check every checksum and the index; non-zero exit on damage.
    Verify(cmd::verify::Args),
    /// Import a movement trace CSV (tick,entity,x,y,z,yaw,pitch[,on_ground,teleport,checkpoint]).
    Import(cmd::import::Args),
    /// Export entity poses as CSV (the inverse of import).
    Export(cmd::export::Args),
    /// Record a simulated server (through `simulate`'s loop), verify, seek, race a ghost and
    /// summarise (the README's first command).
    Demo(cmd::demo::Args),
    /// Recover a live recording directory after a crash (truncate torn tails, rebuild the index).
    Recover(cmd::recover::Args),
    /// Compact a live recording directory (or a .reel) into one .reel file.
    Compact(cmd::compact::Args),
    /// Record a synthetic server through the real pipeline (prints `flushed TICK` lines; compacts
    /// unless --no-finish).
    Simulate(cmd::simulate::Args),
    /// Run the benchmarks and print the headline figures.
    Bench(bench::Args),
    /// One entity's run as a ghost: sampled poses as CSV, or its splits.
    Ghost(cmd::ghost::Args),
    /// Play a recording: entity poses as JSON lines, one per simulated server tick.
    Play(cmd::play::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(a) => cmd::info::run(a),
        Command::Dump(a) => cmd::dump::run(a),
        Command::Verify(a) => cmd::verify::run(a),
        Command::Import(a) => cmd::import::run(a),
        Command::Export(a) => cmd::export::run(a),
        Command::Demo(a) => cmd::demo::run(a),
        Command::Recover(a) => cmd::recover::run(a),
        Command::Compact(a) => cmd::compact::run(a),
        Command::Simulate(a) => cmd::simulate::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Ghost(a) => cmd::ghost::run(a),
        Command::Play(a) => cmd::play::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tickreel: {e}");
            ExitCode::FAILURE
        }
    }
}
