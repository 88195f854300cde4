//! tickreel's benchmarks: the figures of BENCHMARKS.md, printed by `tickreel bench` as one flat
//! JSON object ([`run`]: the areas in `areas/`, one module each).
//!
//! The areas need the feature `run`: they link the core's test hooks, so the CLI's feature
//! `bench` turns it on and no product build does. Without it, this crate is [`browser`] alone,
//! the headless Chromium that the viewer's benchmarks and the CLI's viewer tests drive.
//!
//! The `tickreel` tool is above this crate: it runs the benchmarks (`tickreel bench`), and lends
//! them the parts of itself they measure through [`Tool`].

// The figures go back to the tool, which prints them: nothing here prints to stdout.
#![deny(clippy::print_stdout)]

#[cfg(feature = "run")]
pub mod alloc_count;
#[cfg(feature = "run")]
mod areas;
pub mod browser;

#[cfg(feature = "run")]
pub use areas::{Figures, Options, Tool, run};
