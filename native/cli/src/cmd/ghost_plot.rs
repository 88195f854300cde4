//! `tickreel ghost FILE --entity E ... --plot delta.svg --ghost-entity G [--ghost-file GHOST]`: the
//! live delta of a run against a ghost, as a chart. The run is fed tick by tick, at its recorded
//! positions, to the core's [`LiveDelta`] as a live player would be, and each checkpoint it crosses
//! to [`LiveSplits`]; the chart shows the delta over the run (above zero: behind the ghost, below:
//! ahead) and each split with its difference, its label in the first row near the top where it
//! overlaps no other ([`crate::svg::labels`]). It is the raw delta: the hysteresis that keeps a
//! HUD's number from flickering (`DeltaReading::shown_ticks`) would draw a staircase.

use std::sync::Arc;

use tickreel::ghost::{GhostCursor, GhostTrack, LiveDelta, LiveSplits, SignedSeconds};

use crate::svg::labels::{Anchor, Placer, Rect, Spot};
use crate::svg::simplify::{Pt, simplify};
use crate::svg::{Frame, num, page};

/// What the plot shows.
#[derive(Debug, Clone)]
pub struct DeltaSeries {
    pub tick_rate: f64,
    /// `(run seconds, delta seconds)` for every tick of the run (at most [`MAX_DELTA_UPDATES`]).
    pub delta: Vec<Pt>,
    /// `(checkpoint, run tick, delta seconds)` of each split the ghost also has.
    pub splits: Vec<(u32, u32, f64)>,
    pub run_ticks: u32,
}

/// At most this many positions of the run are fed to the live delta: a run is raced tick by tick
/// up to this many ticks (about 14 hours at 20 ticks a second), a longer one at an even stride, so
/// that the work and memory follow what the file holds, not the span its poses claim (a run of
/// two poses 2^32 - 2 ticks apart asked for 64 GiB). As `tickreel serve`'s ghost race.
pub const MAX_DELTA_UPDATES: u32 = 1 << 20;

/// Races `run` against `ghost`: one [`LiveDelta`] reading per tick of the run (at most
/// [`MAX_DELTA_UPDATES`], at an even stride), one [`LiveSplits`] comparison per checkpoint it
/// crosses.
pub fn race(run: &Arc<GhostTrack>, ghost: &Arc<GhostTrack>) -> DeltaSeries {
    let rate = run.tick_rate();
    let mut delta = LiveDelta::new(ghost.clone());
    let mut splits = LiveSplits::new(ghost.clone());
    let mut cursor = GhostCursor::new(run.clone());
    let duration = run.duration_ticks();
    let stride = (duration / MAX_DELTA_UPDATES).max(1);
    let ticks = (0..=duration)
        .step_by(stride as usize)
        .chain((!duration.is_multiple_of(stride)).then_some(duration));
    let mut delta_out = Vec::with_capacity(ticks.size_hint().0);
    let mut out_splits = Vec::new();
    let mut next_split = run.splits().iter().peekable();
    for t in ticks {
        let pos = cursor.sample(f64::from(t)).position();
        let r = delta.update(f64::from(t), pos);
        delta_out.push([f64::from(t) / rate, r.raw_seconds()]);
        while let Some(s) = next_split.next_if(|s| s.tick <= t) {
            if let Some(c) = splits.checkpoint(s.checkpoint, f64::from(s.tick)) {
                out_splits.push((s.checkpoint, s.tick, c.delta_seconds));
            }
        }
    }
    DeltaSeries {
        tick_rate: rate,
        delta: delta_out,
        splits: out_splits,
        run_ticks: run.duration_ticks(),
    }
}

const LEFT: f64 = 64.0;
const TOP: f64 = 44.0;
const WIDTH: f64 = 800.0;
const HEIGHT: f64 = 360.0;

/// The chart's own style rules (after those every picture shares, [`crate::svg::page`]).
const STYLE: &str = ".zero{stroke:#444;stroke-width:1}\
.delta{fill:none;stroke:#1f77b4;stroke-width:1.6;stroke-linejoin:round}\
.split line{stroke-width:1;stroke-dasharray:4 3}.behind{fill:#c62828;stroke:#c62828}\
.ahead{fill:#2e7d32;stroke:#2e7d32}";

/// The chart of `series` titled `title`.
pub fn draw(series: &DeltaSeries, title: &str) -> String {
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for p in &series.delta {
        lo = lo.min(p[1]);
        hi = hi.max(p[1]);
    }
    for s in &series.splits {
        lo = lo.min(s.2);
        hi = hi.max(s.2);
    }
    let pad = ((hi - lo) * 0.08).max(0.05);
    let end = (f64::from(series.run_ticks) / series.tick_rate).max(1.0 / series.tick_rate);
    let frame = Frame {
        left: LEFT,
        top: TOP,
        width: WIDTH,
        height: HEIGHT,
        x_range: (0.0, end),
        y_range: (lo - pad, hi + pad),
        y_up: true,
    };
    // the whole title is the document's; the picture's is a line that fits
    let shown_title = if title.chars().count() > 110 {
        format!("{}...", title.chars().take(107).collect::<String>())
    } else {
        title.to_string()
    };
    let mut svg = page(
        LEFT + WIDTH + 24.0,
        TOP + HEIGHT + 52.0,
        title,
        &shown_title,
        LEFT,
        STYLE,
    );
    frame.draw_axes(
        &mut svg,
        "run time (s)",
        "delta (s): + behind the ghost, - ahead",
    );
    let zero = num(frame.py(0.0));
    svg.leaf(
        "line",
        &[
            ("class", "zero"),
            ("x1", &num(LEFT)),
            ("y1", &zero),
            ("x2", &num(LEFT + WIDTH)),
            ("y2", &zero),
        ],
    );
    // simplified in pixels: a long run stays a small file
    let px: Vec<Pt> = series
        .delta
        .iter()
        .map(|p| [frame.px(p[0]), frame.py(p[1])])
        .collect();
    let line = simplify(&px, 0.25);
    let mut d = String::new();
    for (i, p) in line.iter().enumerate() {
        d.push_str(if i == 0 { "M" } else { " L" });
        d.push_str(&format!("{} {}", num(p[0]), num(p[1])));
    }
    let final_delta = series.delta.last().map_or(0.0, |p| p[1]);
    svg.leaf(
        "path",
        &[
            ("class", "delta"),
            ("id", "delta"),
            ("data-samples", &series.delta.len().to_string()),
            ("data-points", &line.len().to_string()),
            ("data-final", &format!("{final_delta:.3}")),
            ("d", &d),
        ],
    );
    let mut placer = Placer::new(Some(Rect {
        x0: LEFT,
        y0: TOP,
        x1: LEFT + WIDTH,
        y1: TOP + HEIGHT,
    }));
    svg.open("g", &[("id", "splits")]);
    for &(cp, tick, secs) in &series.splits {
        let x = frame.px(f64::from(tick) / series.tick_rate);
        let y = frame.py(secs);
        let class = if SignedSeconds::new(secs).negative {
            "split ahead"
        } else {
            "split behind"
        };
        let shown = SignedSeconds::new(secs).to_string();
        svg.open(
            "g",
            &[
                ("class", class),
                ("data-checkpoint", &cp.to_string()),
                ("data-tick", &tick.to_string()),
                ("data-delta", &format!("{secs:.3}")),
            ],
        );
        svg.text(
            "title",
            &[],
            &format!(
                "checkpoint {cp} at {:.2} s: {shown}",
                f64::from(tick) / series.tick_rate
            ),
        );
        svg.leaf(
            "line",
            &[
                ("x1", &num(x)),
                ("y1", &num(TOP)),
                ("x2", &num(x)),
                ("y2", &num(TOP + HEIGHT)),
            ],
        );
        svg.leaf("circle", &[("cx", &num(x)), ("cy", &num(y)), ("r", "3.5")]);
        // the first free row from the top, right of its line or left of it
        let text = format!("#{cp} {shown}");
        let l = placer.place(&text, 11.0, x, TOP, &split_spots());
        svg.text(
            "text",
            &[
                ("class", "label"),
                ("x", &num(l.x)),
                ("y", &num(l.y)),
                ("text-anchor", l.anchor.svg()),
                ("stroke", "none"),
            ],
            &text,
        );
        svg.close();
    }
    svg.close();
    svg.finish()
}

/// Rows a split's label may take, from the top of the chart down.
const SPLIT_ROWS: usize = 24;

/// The spots a split's label is tried at: each row from the top, right of its line then left.
fn split_spots() -> Vec<Spot> {
    (0..SPLIT_ROWS)
        .flat_map(|row| {
            let dy = 12.0 + 13.0 * row as f64;
            [(3.0, Anchor::Start), (-3.0, Anchor::End)].map(|(dx, anchor)| Spot { dx, dy, anchor })
        })
        .collect()
}
