//! `tickreel render FILE|URL --out map.svg [--entity ID]... [--from T] [--to T] [--size PX]`: a
//! top-down picture of a recording for issue trackers and chat. Every entity's path on the x/z
//! plane (x to the right, z downwards: north is up), one `<path>` per entity whose stretches are
//! separate subpaths, so a teleport is a jump (a ring where it left, a triangle where it landed),
//! never a line; checkpoints as numbered flags; world events where they happened (a square on each
//! block an entity changed, a cross where it hit, a speech mark where it chatted); on a
//! shadow-play report, where the reported player started, ended and stood at the report tick; a
//! legend with every registered name first, then unnamed entities up to [`LEGEND_ENTRIES`] and a
//! line counting the rest; labels placed so that they do not overlap ([`crate::svg::labels`]);
//! axes in blocks and a scale bar. Paths are read by [`super::render_paths`] and simplified to a fraction of a
//! pixel (`--tolerance`), so an hour of a full server stays a small file.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

use tickreel::Error;

use super::Out;
use super::render_marks::{ReportMarks, report_marks, teleports, world};
use super::render_paths::{Paths, collect};
use crate::svg::axis::nice_step;
use crate::svg::labels::{Placer, Rect, around};
use crate::svg::simplify::{Pt, simplify};
use crate::svg::{Frame, Svg, colour, num, num1, page};

#[derive(clap::Args)]
pub struct Args {
    /// A `.reel` file, a live recording directory (`NAME.reel.live`) or an object URL (`s3://bucket/key`).
    pub file: PathBuf,
    /// The SVG to write (not FILE); it must not exist, unless --force.
    #[arg(long)]
    pub out: PathBuf,
    /// Draw only this entity (repeat for several); default: every entity.
    #[arg(long = "entity", value_name = "ID")]
    pub entities: Vec<u32>,
    /// First tick drawn (default: the recording's first).
    #[arg(long, value_name = "T")]
    pub from: Option<u32>,
    /// Last tick drawn (default: the recording's last).
    #[arg(long, value_name = "T")]
    pub to: Option<u32>,
    /// Width and height of the map in pixels (the legend is beside it).
    #[arg(long, default_value_t = 800, value_name = "PX")]
    pub size: u32,
    /// Pixels a simplified path may stray from the recorded positions (0 keeps every distinct
    /// position).
    #[arg(long, default_value_t = 0.5, value_name = "PX")]
    pub tolerance: f64,
    /// Replace OUT if it exists.
    #[arg(long)]
    pub force: bool,
}

/// Points drawn over all paths at most: past it the tolerance doubles until the drawing fits.
pub const MAX_DRAWN_POINTS: usize = 50_000;
/// Legend entries at most for entities without a name (every named entity is listed first, up to
/// [`LEGEND_NAMED`]; the rest are counted in one line).
pub const LEGEND_ENTRIES: usize = 40;
/// Named entities listed in the legend at most (a file may name millions).
pub const LEGEND_NAMED: usize = 2000;
const LEFT: f64 = 64.0;
const TOP: f64 = 44.0;
const BOTTOM: f64 = 48.0;
const LEGEND: f64 = 240.0;
const ROW: f64 = 18.0;

/// The map's own style rules (after those every picture shares, [`crate::svg::page`]).
const STYLE: &str = ".path{fill:none;stroke-width:1.6;\
stroke-linejoin:round;stroke-linecap:round}.dots{fill:none;stroke-width:5;stroke-linecap:round}.teleport-from{fill:#fff;stroke-width:1.5}\
.checkpoint rect{stroke:#222;stroke-width:.8}.checkpoint text{font-size:9px;font-weight:bold}\
.scale line{stroke:#222;stroke-width:2}.world-block{fill:none;stroke-width:1.2}.world-hit{fill:none;stroke-width:1.8}\
.world-chat{stroke:#222;stroke-width:.6}.report-start{fill:#2e7d32;stroke:#fff;stroke-width:1.5}\
.report-end{fill:#222;stroke:#fff;stroke-width:1.5}.report-tick{fill:none;stroke:#d50000;stroke-width:2.5}\
.report-mark text{font-weight:bold}";

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    if !(64..=8192).contains(&a.size) {
        return Err(Error::InvalidArgument(format!(
            "--size {} is not between 64 and 8192 pixels",
            a.size
        )));
    }
    if !(a.tolerance.is_finite() && a.tolerance >= 0.0) {
        return Err(Error::InvalidArgument(format!(
            "--tolerance {} is not a distance in pixels",
            a.tolerance
        )));
    }
    if super::object::url_of(&a.out).is_some() {
        return Err(Error::InvalidArgument(
            "--out must be a local file, not an object URL".into(),
        ));
    }
    let reader = super::open(&a.file)?;
    let only: BTreeSet<u32> = a.entities.iter().copied().collect();
    let paths = collect(&reader, &only, a.from, a.to).map_err(|e| super::in_file(&a.file, e))?;
    let names: HashMap<u32, String> = reader
        .metadata()
        .library
        .entities
        .iter()
        .filter_map(|e| e.name.clone().map(|n| (e.id, n)))
        .collect();
    let title = format!(
        "{}: ticks {}..={} ({:.1} s)",
        a.file.display(),
        paths.from,
        paths.to,
        f64::from(paths.to - paths.from) / reader.tick_rate()
    );
    let report = report_of(&reader, &paths);
    let drawing = draw(
        &paths,
        &names,
        &title,
        f64::from(a.size),
        a.tolerance,
        report.as_ref(),
    );
    crate::svg::save(&a.out, &[&a.file], a.force, &drawing.svg)?;
    writeln!(
        out,
        "wrote {}: {} entities, {} points, {} teleports, {} checkpoints, {} world marks, {} bytes",
        a.out.display(),
        paths.entities.len(),
        drawing.points,
        drawing.teleports,
        drawing.checkpoints,
        drawing.world_marks,
        drawing.svg.len()
    )?;
    Ok(())
}

/// A rendered map.
pub struct Drawing {
    pub svg: String,
    pub points: usize,
    pub teleports: usize,
    pub checkpoints: usize,
    /// Blocks changed, hits and chat lines marked.
    pub world_marks: usize,
}

/// The report a file holds (its user metadata's report compound, FORMAT.md), if any: the
/// reported player, the report tick and the player's position then (from a seek to it).
fn report_of(reader: &tickreel::play::Reader, paths: &Paths) -> Option<ReportMarks> {
    let meta = reader.metadata();
    let Some(fastnbt::Value::Compound(c)) = meta.user.get(tickreel::shadow::REPORT_KEY) else {
        return None;
    };
    let int = |k: &str| match c.get(k) {
        Some(fastnbt::Value::Int(v)) => u32::try_from(*v).ok(),
        _ => None,
    };
    let (player, tick) = (int("player")?, int("report_tick")?);
    let at = (paths.from..=paths.to)
        .contains(&tick)
        .then(|| reader.seek(tick).ok())
        .flatten()
        .and_then(|s| {
            s.entities
                .iter()
                .find(|e| e.id == player)
                .map(|e| [e.pose.x_f64(), e.pose.z_f64()])
        });
    Some(ReportMarks { player, tick, at })
}

/// The name shown for an entity.
fn label(id: u32, names: &HashMap<u32, String>) -> String {
    match names.get(&id) {
        Some(n) => format!("{n} (#{id})"),
        None => format!("entity {id}"),
    }
}

/// The square of the world shown: every point, jump and checkpoint, with a margin.
fn bounds(paths: &Paths) -> ((f64, f64), (f64, f64)) {
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    let mut see = |p: Pt| {
        for c in 0..2 {
            lo[c] = lo[c].min(p[c]);
            hi[c] = hi[c].max(p[c]);
        }
    };
    for path in paths.entities.values() {
        path.segments.iter().flatten().for_each(|p| see(*p));
        path.world.iter().for_each(|m| see(m.at));
    }
    let span = (hi[0] - lo[0]).max(hi[1] - lo[1]);
    let half = (span * 1.05 / 2.0).max(2.0);
    let c = [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0];
    ((c[0] - half, c[0] + half), (c[1] - half, c[1] + half))
}

/// Simplifies every stretch with `tolerance` blocks; doubles it until at most
/// [`MAX_DRAWN_POINTS`] remain.
fn simplified(paths: &Paths, mut tolerance: f64) -> Vec<Vec<Vec<Pt>>> {
    loop {
        let out: Vec<Vec<Vec<Pt>>> = paths
            .entities
            .values()
            .map(|p| p.segments.iter().map(|s| simplify(s, tolerance)).collect())
            .collect();
        let n: usize = out.iter().flatten().map(Vec::len).sum();
        if n <= MAX_DRAWN_POINTS || tolerance > 1e6 {
            return out;
        }
        tolerance = (tolerance * 2.0).max(1e-3);
    }
}

/// Draws `paths` on a map `size` pixels square.
pub fn draw(
    paths: &Paths,
    names: &HashMap<u32, String>,
    title: &str,
    size: f64,
    tolerance_px: f64,
    report: Option<&ReportMarks>,
) -> Drawing {
    let (xr, zr) = bounds(paths);
    let frame = Frame {
        left: LEFT,
        top: TOP,
        width: size,
        height: size,
        x_range: xr,
        y_range: zr,
        y_up: false,
    };
    let listed = legend_entries(paths, names);
    let entries = listed.len() as f64 + 9.0 + if report.is_some() { 3.0 } else { 0.0 };
    let width = LEFT + size + 16.0 + LEGEND;
    let height = (TOP + size + BOTTOM).max(TOP + entries * ROW + 60.0);
    let mut svg = page(width, height, title, title, LEFT, STYLE);
    let (step, _) = frame.draw_axes(&mut svg, "x (blocks)", "z (blocks)");
    let stretches = simplified(paths, tolerance_px / frame.x_scale());
    // a tenth of a pixel is precise enough for a path, and keeps a long one short
    let at = |p: Pt| (num1(frame.px(p[0])), num1(frame.py(p[1])));
    let mut drawn = Drawing {
        svg: String::new(),
        points: 0,
        teleports: 0,
        checkpoints: 0,
        world_marks: 0,
    };
    // labels may not cover each other nor leave the map
    let mut placer = Placer::new(Some(Rect {
        x0: frame.left,
        y0: frame.top,
        x1: frame.left + frame.width,
        y1: frame.top + frame.height,
    }));
    let cp_spots = around(6.0, 9.0, 6, 10.0);
    svg.open("g", &[("id", "paths")]);
    for (n, (path, segs)) in paths.entities.values().zip(&stretches).enumerate() {
        let c = colour(n);
        let mut d = String::new();
        for seg in segs {
            for (i, p) in seg.iter().enumerate() {
                let (x, y) = at(*p);
                // after a moveto, further pairs are linetos
                let _ = write!(d, "{}{x} {y}", if i == 0 { "M" } else { " " });
            }
        }
        let points: usize = segs.iter().map(Vec::len).sum();
        drawn.points += points;
        let id = path.id.to_string();
        svg.open("g", &[("class", "entity"), ("data-entity", &id)]);
        svg.text("title", &[], &label(path.id, names));
        svg.leaf(
            "path",
            &[
                ("class", "path"),
                ("data-entity", &id),
                ("data-points", &points.to_string()),
                ("data-segments", &segs.len().to_string()),
                ("stroke", &c),
                ("d", &d),
            ],
        );
        // where it starts, and the stretches of a single position (nothing to stroke): dots, as
        // zero-length lines with round caps, all in one path
        let first = segs.first().filter(|s| s.len() > 1).map(|s| s[0]);
        let mut dots = String::new();
        for p in segs
            .iter()
            .filter(|s| s.len() == 1)
            .map(|s| s[0])
            .chain(first)
        {
            let (x, y) = at(p);
            let _ = write!(dots, "M{x} {y}h0");
        }
        svg.leaf("path", &[("class", "dots"), ("stroke", &c), ("d", &dots)]);
        if !path.teleports.is_empty() {
            teleports(&mut svg, &frame, path, &label(path.id, names), &c);
            drawn.teleports += path.teleports.len();
        }
        for m in &path.checkpoints {
            drawn.checkpoints += 1;
            let (x, y) = (frame.px(m.at[0]), frame.py(m.at[1]));
            svg.open(
                "g",
                &[
                    ("class", "checkpoint"),
                    ("data-entity", &id),
                    ("data-index", &m.index.to_string()),
                    ("data-tick", &m.tick.to_string()),
                ],
            );
            svg.text(
                "title",
                &[],
                &format!(
                    "{}: checkpoint {} at tick {}",
                    label(path.id, names),
                    m.index,
                    m.tick
                ),
            );
            svg.leaf(
                "rect",
                &[
                    ("x", &num(x - 5.0)),
                    ("y", &num(y - 5.0)),
                    ("width", "10"),
                    ("height", "10"),
                    ("fill", "#ffd700"),
                ],
            );
            let text = m.index.to_string();
            let l = placer.place(&text, 9.0, x, y, &cp_spots);
            svg.text(
                "text",
                &[
                    ("class", "label"),
                    ("x", &num(l.x)),
                    ("y", &num(l.y)),
                    ("text-anchor", l.anchor.svg()),
                ],
                &text,
            );
            svg.close();
        }
        if !path.world.is_empty() {
            world(&mut svg, &frame, path, &label(path.id, names), &c);
            drawn.world_marks += path.world.len();
        }
        svg.close();
    }
    svg.close();
    if let Some(r) = report {
        report_marks(&mut svg, &frame, paths, r, &mut placer);
    }
    legend(
        &mut svg,
        paths,
        &listed,
        names,
        &frame,
        step,
        report.is_some(),
    );
    drawn.svg = svg.finish();
    drawn
}

/// The entities the legend lists, in order: every named one (up to [`LEGEND_NAMED`]), then
/// unnamed ones up to [`LEGEND_ENTRIES`]; with each its colour's index (its place among the
/// paths).
fn legend_entries(paths: &Paths, names: &HashMap<u32, String>) -> Vec<(usize, u32)> {
    let all = paths.entities.values().enumerate().map(|(n, p)| (n, p.id));
    let named = all
        .clone()
        .filter(|(_, id)| names.contains_key(id))
        .take(LEGEND_NAMED);
    let unnamed = all
        .filter(|(_, id)| !names.contains_key(id))
        .take(LEGEND_ENTRIES);
    named.chain(unnamed).collect()
}

/// The legend beside the map: one entry per entity, the symbols, and a scale bar of one grid step.
fn legend(
    svg: &mut Svg,
    paths: &Paths,
    listed: &[(usize, u32)],
    names: &HashMap<u32, String>,
    frame: &Frame,
    step: f64,
    report: bool,
) {
    let x = frame.left + frame.width + 16.0;
    let mut y = frame.top + 10.0;
    svg.open("g", &[("id", "legend")]);
    let bar = nice_step(step, 1.0) * frame.x_scale();
    svg.open("g", &[("class", "scale")]);
    svg.leaf(
        "line",
        &[
            ("x1", &num(x)),
            ("y1", &num(y)),
            ("x2", &num(x + bar)),
            ("y2", &num(y)),
        ],
    );
    svg.text(
        "text",
        &[("x", &num(x + bar + 6.0)), ("y", &num(y + 4.0))],
        &format!("{} blocks", num(step)),
    );
    svg.close();
    y += ROW * 1.5;
    let report_symbols = [
        ("start", "reported player: start"),
        ("end", "reported player: end"),
        ("report", "reported player at the report"),
    ];
    for (sym, text) in [
        ("ring", "teleport: left here"),
        ("triangle", "teleport: landed here"),
        ("flag", "checkpoint (its index)"),
        ("block", "block changed"),
        ("hit", "hit"),
        ("chat", "chat line"),
    ]
    .into_iter()
    .chain(report_symbols.into_iter().filter(|_| report))
    {
        let (cx, cy) = (num(x + 6.0), num(y - 4.0));
        match sym {
            "ring" => svg.leaf(
                "circle",
                &[
                    ("class", "teleport-from"),
                    ("cx", &cx),
                    ("cy", &cy),
                    ("r", "4"),
                    ("stroke", "#222"),
                ],
            ),
            "triangle" => svg.leaf(
                "path",
                &[
                    ("fill", "#222"),
                    ("d", &format!("M{cx} {} l4.5 8.5 l-9 0 Z", num(y - 9.0))),
                ],
            ),
            "block" => svg.leaf(
                "path",
                &[
                    ("class", "world-block"),
                    ("stroke", "#222"),
                    ("d", &format!("M{cx} {cy}m-3 -3h6v6h-6Z")),
                ],
            ),
            "hit" => svg.leaf(
                "path",
                &[
                    ("class", "world-hit"),
                    ("stroke", "#222"),
                    ("d", &format!("M{cx} {cy}m-4 -4l8 8m0 -8l-8 8")),
                ],
            ),
            "chat" => svg.leaf(
                "path",
                &[
                    ("class", "world-chat"),
                    ("fill", "#fff"),
                    ("d", &format!("M{cx} {cy}m-3 -4h6v5h-4l-2 2Z")),
                ],
            ),
            "start" => svg.leaf(
                "circle",
                &[
                    ("class", "report-start"),
                    ("cx", &cx),
                    ("cy", &cy),
                    ("r", "5"),
                ],
            ),
            "end" => svg.leaf(
                "rect",
                &[
                    ("class", "report-end"),
                    ("x", &num(x + 1.0)),
                    ("y", &num(y - 9.0)),
                    ("width", "10"),
                    ("height", "10"),
                ],
            ),
            "report" => svg.leaf(
                "circle",
                &[
                    ("class", "report-tick"),
                    ("cx", &cx),
                    ("cy", &cy),
                    ("r", "5"),
                ],
            ),
            _ => svg.leaf(
                "rect",
                &[
                    ("x", &num(x + 1.0)),
                    ("y", &num(y - 9.0)),
                    ("width", "10"),
                    ("height", "10"),
                    ("fill", "#ffd700"),
                    ("stroke", "#222"),
                ],
            ),
        }
        svg.text("text", &[("x", &num(x + 18.0)), ("y", &num(y))], text);
        y += ROW;
    }
    y += ROW / 2.0;
    for &(n, id) in listed {
        svg.open(
            "g",
            &[("class", "legend-entry"), ("data-entity", &id.to_string())],
        );
        svg.leaf(
            "rect",
            &[
                ("x", &num(x)),
                ("y", &num(y - 9.0)),
                ("width", "12"),
                ("height", "10"),
                ("fill", &colour(n)),
            ],
        );
        svg.text(
            "text",
            &[("x", &num(x + 18.0)), ("y", &num(y))],
            &label(id, names),
        );
        svg.close();
        y += ROW;
    }
    let more = paths.entities.len().saturating_sub(listed.len());
    if more > 0 {
        svg.text(
            "text",
            &[("class", "legend-more"), ("x", &num(x)), ("y", &num(y))],
            &format!("+{more} more"),
        );
    }
    svg.close();
}
