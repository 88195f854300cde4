//! One module per subcommand. Each exposes `Args` (clap) and
//! `run(Args, &mut Out) -> tickreel::Result<()>`: everything it prints goes to the [`Out`] that
//! `main` hands it (see [`output`] for a closed stdout), and errors end up as one line on stderr.

pub mod catalog;
pub mod catalog_desk;
pub mod catalog_show;
pub mod compact;
pub mod demo;
pub mod demo_catalog;
pub mod demo_course;
pub mod demo_world;
pub mod dict;
pub mod dump;
pub mod export;
pub mod ghost;
pub mod ghost_plot;
pub mod import;
pub mod info;
pub mod ls;
pub use tickreel_cli::object;
// The JSON forms live in the library (`dump`'s writer and the JSON lines import use them too).
pub use tickreel_cli::json;
pub mod output;
pub mod play;
pub mod progress;
pub mod recover;
pub mod render;
mod render_marks;
pub mod render_paths;
pub mod serve;
pub mod simulate;
pub mod upload;
pub mod verify;

pub use output::Out;
// The library's parts every command uses: error wording, and where a command may write.
pub use tickreel_cli::errors::{context, in_file, io_at, io_in_file};
pub use tickreel_cli::files;

use std::path::Path;

use tickreel::play::Reader;

/// Opens a recording given on the command line (a `.reel` file, a live recording directory, or
/// an object URL `s3://bucket/key`); errors name the file.
pub fn open(path: &Path) -> tickreel::Result<Reader> {
    match object::url_of(path) {
        Some(url) => object::open(url).map_err(|e| context(e, url)),
        None => Reader::open_any(path).map_err(|e| in_file(path, e)),
    }
}

/// A note on stderr (`tickreel: ...`); a closed stderr is ignored.
pub fn note(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "tickreel: {msg}");
}
