//! `tickreel bench`: benchmarks that print their figures as one flat JSON object.
//! Each area adds a module with `pub fn run(quick: bool, out: &mut Figures)`.

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

use std::io::Write;

use serde_json::{Map, Value};

use crate::cmd::Out;

/// The flat JSON object being filled.
pub type Figures = Map<String, Value>;

#[derive(clap::Args)]
pub struct Args {
    /// Print one flat JSON object (the default output is also JSON, pretty-printed).
    #[arg(long)]
    pub json: bool,
    /// Smaller workloads: the same keys in under a minute.
    #[arg(long)]
    pub quick: bool,
    /// Run only this area (format, realistic, real, sparse, dictionary, record, backpressure, paced, runs, shadow, world, play, ghost,
    /// jni, s3, s3live, catalog, serve,
    /// world_state, terrain,
    /// viewer, party, world_report, world_blocks, network, curve). `viewer` (the web viewer's memory over 10 minutes
    /// of playback in headless Chromium; 30 s with --quick), `party` (a watch party's follow
    /// latency between two headless Chromium pages), `world_report` (the `world` area's
    /// two report figures alone), `world_blocks` (its block-change figures alone), `network` (a network's catalog of 1,000,000 runs; minutes) and
    /// `curve` (finished-file size and write time at several chunk sizes and zstd levels) run
    /// only when asked for by name.
    #[arg(long)]
    pub only: Option<String>,
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
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
        real::run(a.quick, &mut figures);
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
        world::run(a.quick, &mut figures);
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
        serve::run(a.quick, &mut figures);
    }
    // a million runs registered: only on request
    if a.only.as_deref() == Some("network") {
        network::run(a.quick, &mut figures);
    }
    // 10 minutes of playback: only on request, and an error (exit 1) when Chromium cannot start
    if a.only.as_deref() == Some("viewer") {
        viewer::run(a.quick, &mut figures)?;
    }
    // two browsers in a watch party: only on request, and an error when Chromium cannot start
    if a.only.as_deref() == Some("party") {
        party::run(a.quick, &mut figures)?;
    }
    // the curves the finished files' settings were chosen from: slow, only on request
    if a.only.as_deref() == Some("curve") {
        curve::run(a.quick, &mut figures);
    }
    // the world area's block figures alone (they are in `world` too)
    if a.only.as_deref() == Some("world_blocks") {
        world::run_blocks(a.quick, &mut figures);
    }
    // the world area's two report figures alone (they are in `world` too)
    if a.only.as_deref() == Some("world_report") {
        world::run_reports(a.quick, &mut figures);
    }
    let obj = Value::Object(figures);
    if a.json {
        writeln!(out, "{obj}")?;
    } else {
        writeln!(out, "{}", serde_json::to_string_pretty(&obj).expect("json"))?;
    }
    Ok(())
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
