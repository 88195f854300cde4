//! The benchmark areas, one module each with `pub fn run(quick: bool, out: &mut Figures)` (those
//! that measure the tool itself, its web server or its importer, take a [`Tool`] too), and [`run`],
//! which runs those [`Options`] asks for.

mod backpressure;
mod baseline;
mod catalog;
mod curve;
mod dictionary;
mod format;
mod ghost;
mod hollowcube;
mod jni;
mod network;
mod paced;
mod party;
mod play;
mod real;
mod realistic;
mod record;
mod runs;
mod s3;
mod s3live;
mod serve;
mod shadow;
mod shared;
mod sparse;
mod terrain;
mod viewer;
mod world;
mod world_state;

use std::io::Read;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// The flat JSON object being filled.
pub type Figures = Map<String, Value>;

/// What the benchmarks need of the `tickreel` tool, which sits above this crate and runs them.
pub trait Tool {
    /// The tool's executable: `--only serve` starts `tickreel serve DIR` as a process of its own.
    fn executable(&self) -> tickreel::Result<PathBuf>;
    /// Starts the web viewer's server on `dir` in this process, on a free loopback port, as
    /// `tickreel serve DIR --listen 127.0.0.1:0` does (no catalog, no tokens): its address.
    fn serve(&self, dir: &Path) -> tickreel::Result<SocketAddr>;
    /// Imports the JSON lines `tickreel dump` prints (`input`, named `name` in errors) into a
    /// compacted `.reel` at `out`, as `tickreel import` does.
    fn import_json_lines(
        &self,
        input: &mut dyn Read,
        name: &Path,
        out: &Path,
    ) -> tickreel::Result<()>;
}

/// Which benchmarks to run.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Smaller workloads: the same keys in under a minute.
    pub quick: bool,
    /// The one area to run (its module's name, or `world_blocks` or `world_report`: parts of
    /// `world`), or every area but those that run only when named (below); `tickreel bench --help`
    /// lists them.
    pub only: Option<String>,
}

/// Runs the areas `a` asks for: their figures, with `quick` among them.
pub fn run(a: &Options, tool: &dyn Tool) -> tickreel::Result<Figures> {
    let mut figures = Figures::new();
    figures.insert("quick".into(), Value::Bool(a.quick));
    let on = |area: &str| a.only.as_deref().is_none_or(|o| o == area);
    if on("world_state") {
        world_state::run(a.quick, &mut figures);
    }
    if on("terrain") {
        terrain::run(a.quick, &mut figures);
    }
    if on("format") {
        format::run(a.quick, &mut figures);
    }
    if on("realistic") {
        realistic::run(a.quick, &mut figures);
    }
    if on("real") {
        real::run(a.quick, &mut figures, tool);
    }
    if on("sparse") {
        sparse::run(a.quick, &mut figures);
    }
    if on("dictionary") {
        dictionary::run(a.quick, &mut figures);
    }
    if on("record") {
        record::run(a.quick, &mut figures);
    }
    if on("backpressure") {
        backpressure::run(a.quick, &mut figures);
    }
    if on("paced") {
        paced::run(a.quick, &mut figures);
    }
    if on("runs") {
        runs::run(a.quick, &mut figures);
    }
    if on("shadow") {
        shadow::run(a.quick, &mut figures);
    }
    if on("world") {
        world::run(a.quick, &mut figures, tool);
    }
    if on("jni") {
        jni::run(a.quick, &mut figures);
    }
    if on("ghost") {
        ghost::run(a.quick, &mut figures);
    }
    if on("play") {
        play::run(a.quick, &mut figures);
    }
    if on("s3") {
        s3::run(a.quick, &mut figures);
    }
    if on("s3live") {
        s3live::run(a.quick, &mut figures);
    }
    if on("catalog") {
        catalog::run(a.quick, &mut figures);
    }
    if on("serve") {
        serve::run(a.quick, &mut figures, tool);
    }
    // a million runs registered: only on request
    if a.only.as_deref() == Some("network") {
        network::run(a.quick, &mut figures);
    }
    // 10 minutes of playback: only on request, and an error (exit 1) when Chromium cannot start
    if a.only.as_deref() == Some("viewer") {
        viewer::run(a.quick, &mut figures, tool)?;
    }
    // two browsers in a watch party: only on request, and an error when Chromium cannot start
    if a.only.as_deref() == Some("party") {
        party::run(a.quick, &mut figures, tool)?;
    }
    // the curves the finished files' settings were chosen from: slow, only on request
    if a.only.as_deref() == Some("curve") {
        curve::run(a.quick, &mut figures);
    }
    // the world area's block figures alone (they are in `world` too)
    if a.only.as_deref() == Some("world_blocks") {
        world::run_blocks(a.quick, &mut figures, tool);
    }
    // the world area's two report figures alone (they are in `world` too)
    if a.only.as_deref() == Some("world_report") {
        world::run_reports(a.quick, &mut figures);
    }
    Ok(figures)
}

/// Inserts a number rounded to 3 significant decimals.
pub fn put(out: &mut Figures, key: &str, v: f64) {
    let rounded = if v.abs() >= 100.0 {
        v.round()
    } else {
        (v * 1000.0).round() / 1000.0
    };
    out.insert(key.into(), serde_json::json!(rounded));
}
