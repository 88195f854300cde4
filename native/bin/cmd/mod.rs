//! One module per subcommand. Each exposes `Args` (clap) and `run(Args) -> tickreel::Result<()>`.

pub mod demo;
pub mod dump;
pub mod export;
pub mod import;
pub mod info;
pub mod play;
pub mod verify;

use std::path::Path;

use tickreel::play::Reader;

/// Opens a recording given on the command line.
pub fn open(path: &Path) -> tickreel::Result<Reader> {
    Reader::open_path(path)
}
