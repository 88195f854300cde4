//! Ghost racing: a previous run (own best, top time, or a sum of best segments) moving beside the
//! live player, with splits and a live time delta.
//!
//! - [`GhostTrack`] ([`track`]): one entity's run, decoded once into compact column arrays
//!   (positions, angles, velocities, marks, flag changes, splits). Built by [`RunBuilder`]
//!   ([`builder`]) from raw samples, or loaded from a recording ([`load`]), synchronously or in the
//!   background (a [`crate::Pending`] ghost).
//! - [`GhostCursor`] ([`cursor`]): the ghost's pose at a fractional tick: cubic Hermite between
//!   samples, exact at recorded ticks, never across a teleport, shortest-arc angles, O(1) when
//!   sampled forward, O(log n) at random, no allocation.
//! - [`splits`]: split times and their comparison with a live run (`+0.35 s`).
//! - [`LiveDelta`] ([`delta`]): how far behind or ahead the live player is, by matching their
//!   position to the nearest point of the ghost's path, with hysteresis.
//! - [`GhostSet`] ([`set`]): several ghosts sampled together; [`sum_of_best`]: a synthetic ghost
//!   spliced from the best segment between each pair of checkpoints across several runs.
//!
//! Time is measured in ticks from the run's start (`t = 0`), as `f64` so that a client can render
//! between server ticks; seconds are ticks divided by the recording's tick rate.

mod builder;
mod cursor;
mod delta;
mod gold;
mod load;
mod range;
mod set;
mod splits;
mod sum_of_best;
pub mod track;

pub use builder::{GhostOptions, RunBuilder};
pub use cursor::{GhostCursor, GhostSample, GhostState};
pub use delta::{DeltaOptions, DeltaReading, LiveDelta};
pub use gold::{GoldSplit, GoldSplits};
pub use load::LoadFrom;
pub use range::{GhostRange, RunEnd, RunStart};
pub use set::GhostSet;
pub use splits::{LiveSplits, SignedSeconds, SplitComparison};
pub use sum_of_best::{Mark, SumOfBest, SumOfBestSegment, sum_of_best};
pub use track::{GhostTrack, Split};
