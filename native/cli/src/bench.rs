//! `tickreel bench`: runs the benchmarks of `tickreel-bench` (native/bench) and prints their
//! figures as one flat JSON object. The tool lends them what they measure of it ([`TheTool`]):
//! its own executable, its web server and its JSON lines importer.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use tickreel::Error;
use tickreel::record::ReelOptions;
use tickreel_bench::{Options, Tool};
use tickreel_cli::serve::{self, ServeOptions, library::Root};

use crate::cmd::Out;

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
    let options = Options {
        quick: a.quick,
        only: a.only,
    };
    let obj = Value::Object(tickreel_bench::run(&options, &TheTool)?);
    if a.json {
        writeln!(out, "{obj}")?;
    } else {
        writeln!(out, "{}", serde_json::to_string_pretty(&obj).expect("json"))?;
    }
    Ok(())
}

/// This `tickreel`, as the benchmarks measure it.
struct TheTool;

impl Tool for TheTool {
    fn executable(&self) -> tickreel::Result<PathBuf> {
        Ok(std::env::current_exe()?)
    }

    /// On a thread of its own that serves until the process ends.
    fn serve(&self, dir: &Path) -> tickreel::Result<SocketAddr> {
        let root = Root::Dir(dir.canonicalize()?);
        let (tx, rx) = std::sync::mpsc::channel();
        let failed = tx.clone();
        std::thread::Builder::new()
            .name("bench-viewer-serve".into())
            .spawn(move || {
                let options = ServeOptions {
                    root,
                    catalog: None,
                    tokens: Default::default(),
                    audit_file: None,
                    loopback: true,
                    waits: Default::default(),
                };
                let r = serve::run(([127, 0, 0, 1], 0).into(), options, |a| {
                    let _ = tx.send(Ok(a));
                    Ok(())
                });
                if let Err(e) = r {
                    let _ = failed.send(Err(e));
                }
            })?;
        rx.recv_timeout(Duration::from_secs(30))
            .map_err(|_| Error::InvalidState("bench viewer: the server did not start".into()))?
    }

    fn import_json_lines(
        &self,
        input: &mut dyn Read,
        name: &Path,
        out: &Path,
    ) -> tickreel::Result<()> {
        tickreel_cli::json_import::import_from(input, name, out, ReelOptions::compacted(), false)?;
        Ok(())
    }
}
