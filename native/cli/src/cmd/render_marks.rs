//! What `tickreel render` draws over the paths: a shadow-play report's marks (where the reported
//! player started, ended and stood at the report tick), each entity's world events (blocks
//! changed, hits, chat) and its teleports (a ring where it left, a triangle where it landed).

use std::fmt::Write as _;

use super::render_paths::{EntityPath, Paths, WorldKind};
use crate::svg::labels::{Placer, Rect, around};
use crate::svg::simplify::Pt;
use crate::svg::{Frame, Svg, num, num1};

/// Teleports listed in an entity's tooltip at most.
const TITLED: usize = 5;

/// What a shadow-play report's map marks: the reported player and where it stood at the report
/// tick (when that tick is drawn).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReportMarks {
    pub player: u32,
    pub tick: u32,
    pub at: Option<Pt>,
}

/// A report's marks, over the paths: where the reported player's path starts (a green dot) and
/// ends (a black square) and where it stood at the report tick (a red ring), each labelled.
pub(super) fn report_marks(
    svg: &mut Svg,
    frame: &Frame,
    paths: &Paths,
    r: &ReportMarks,
    placer: &mut Placer,
) {
    let path = paths.entities.get(&r.player);
    let start = path.and_then(|p| p.segments.first()?.first().copied());
    let end = path.and_then(|p| p.segments.last()?.last().copied());
    svg.open(
        "g",
        &[
            ("id", "report-marks"),
            ("data-entity", &r.player.to_string()),
            ("data-tick", &r.tick.to_string()),
        ],
    );
    // the marks first, so that no label covers one
    let marks: Vec<(&str, Pt, String)> = [
        (
            "report-start",
            start,
            format!("start (tick {})", paths.from),
        ),
        ("report-end", end, format!("end (tick {})", paths.to)),
        ("report-tick", r.at, format!("report (tick {})", r.tick)),
    ]
    .into_iter()
    .filter_map(|(c, p, t)| Some((c, p?, t)))
    .collect();
    for (_, p, _) in &marks {
        let (x, y) = (frame.px(p[0]), frame.py(p[1]));
        placer.reserve(Rect {
            x0: x - 8.0,
            y0: y - 8.0,
            x1: x + 8.0,
            y1: y + 8.0,
        });
    }
    let spots = around(11.0, 11.0, 8, 12.0);
    for (class, p, text) in &marks {
        let (x, y) = (frame.px(p[0]), frame.py(p[1]));
        svg.open(
            "g",
            &[
                ("class", &format!("report-mark {class}")),
                ("data-x", &num(p[0])),
                ("data-z", &num(p[1])),
            ],
        );
        svg.text("title", &[], text);
        match *class {
            "report-start" => svg.leaf("circle", &[("cx", &num(x)), ("cy", &num(y)), ("r", "5.5")]),
            "report-end" => svg.leaf(
                "rect",
                &[
                    ("x", &num(x - 5.0)),
                    ("y", &num(y - 5.0)),
                    ("width", "10"),
                    ("height", "10"),
                ],
            ),
            _ => svg.leaf("circle", &[("cx", &num(x)), ("cy", &num(y)), ("r", "8")]),
        }
        let l = placer.place(text, 11.0, x, y, &spots);
        svg.text(
            "text",
            &[
                ("class", "label"),
                ("x", &num(l.x)),
                ("y", &num(l.y)),
                ("text-anchor", l.anchor.svg()),
            ],
            text,
        );
        svg.close();
    }
    svg.close();
}

/// An entity's world events in one group per kind (`data-ticks` lists their ticks): a square
/// around each block it changed, a cross where it hit, a speech dot where it chatted; each kind
/// one `<path>`, so that thousands of marks stay small.
pub(super) fn world(svg: &mut Svg, frame: &Frame, path: &EntityPath, name: &str, c: &str) {
    for (kind, class, what) in [
        (WorldKind::Block, "world-block", "blocks changed"),
        (WorldKind::Hit, "world-hit", "hits"),
        (WorldKind::Chat, "world-chat", "chat lines"),
    ] {
        let marks: Vec<_> = path.world.iter().filter(|m| m.kind == kind).collect();
        if marks.is_empty() {
            continue;
        }
        let ticks: Vec<String> = marks.iter().map(|m| m.tick.to_string()).collect();
        let mut d = String::new();
        for m in &marks {
            let (x, y) = (num1(frame.px(m.at[0])), num1(frame.py(m.at[1])));
            let _ = match kind {
                WorldKind::Block => write!(d, "M{x} {y}m-3 -3h6v6h-6Z"),
                WorldKind::Hit => write!(d, "M{x} {y}m-4 -4l8 8m0 -8l-8 8"),
                WorldKind::Chat => write!(d, "M{x} {y}m-3 -9h6v5h-4l-2 2Z"),
            };
        }
        let id = path.id.to_string();
        svg.open(
            "g",
            &[
                ("class", class),
                ("data-entity", &id),
                ("data-ticks", &ticks.join(" ")),
            ],
        );
        let omitted = if path.world_omitted > 0 {
            format!(" ({} more world marks left out)", path.world_omitted)
        } else {
            String::new()
        };
        svg.text(
            "title",
            &[],
            &format!("{name}: {} {what}{omitted}", marks.len()),
        );
        let (stroke, fill) = match kind {
            WorldKind::Chat => ("#222", c),
            _ => (c, "none"),
        };
        svg.leaf("path", &[("stroke", stroke), ("fill", fill), ("d", &d)]);
        svg.close();
    }
}

/// An entity's teleports in one group (`data-ticks` lists their ticks): a ring where each left,
/// a triangle where it landed, each kind one `<path>` so that thousands of jumps stay small.
pub(super) fn teleports(svg: &mut Svg, frame: &Frame, path: &EntityPath, name: &str, c: &str) {
    let ticks: Vec<String> = path.teleports.iter().map(|j| j.tick.to_string()).collect();
    svg.open(
        "g",
        &[
            ("class", "teleports"),
            ("data-entity", &path.id.to_string()),
            ("data-ticks", &ticks.join(" ")),
        ],
    );
    let mut title = format!("{name}: {} teleports", path.teleports.len());
    for j in path.teleports.iter().take(TITLED) {
        let _ = write!(
            title,
            "\ntick {}: {}, {} to {}, {}",
            j.tick,
            num(j.from[0]),
            num(j.from[1]),
            num(j.to[0]),
            num(j.to[1])
        );
    }
    if path.teleports.len() > TITLED {
        title.push_str("\n...");
    }
    svg.text("title", &[], &title);
    let (mut rings, mut marks) = (String::new(), String::new());
    for j in &path.teleports {
        let (fx, fy) = (frame.px(j.from[0]), frame.py(j.from[1]));
        let _ = write!(
            rings,
            "M{} {}a4 4 0 1 0 8 0a4 4 0 1 0-8 0",
            num1(fx - 4.0),
            num1(fy)
        );
        let (tx, ty) = (frame.px(j.to[0]), frame.py(j.to[1]));
        let _ = write!(marks, "M{} {}l4.5 8.5h-9z", num1(tx), num1(ty - 5.0));
    }
    svg.leaf(
        "path",
        &[("class", "teleport-from"), ("stroke", c), ("d", &rings)],
    );
    svg.leaf(
        "path",
        &[("class", "teleport-to"), ("fill", c), ("d", &marks)],
    );
    svg.close();
}
