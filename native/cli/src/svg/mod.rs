//! Pictures without a browser: a small SVG writer ([`writer`], every text and attribute escaped),
//! axes and scales ([`axis`]), polyline simplification ([`simplify`]), labels placed so that
//! they do not overlap ([`labels`]) and colours ([`colour`]).
//! `tickreel render` and `tickreel ghost --plot` draw with it; [`save`] writes a document to a
//! file the way every command that writes does.

pub mod axis;
pub mod labels;
pub mod simplify;
pub mod writer;

pub use axis::Frame;
pub use writer::{Svg, num, num1};

use std::io::Write;
use std::path::Path;

/// The style rules every picture shares: text, the title, the grid, the frame, axis titles.
const BASE_STYLE: &str = "text{font-family:sans-serif;font-size:11px;fill:#222}\
.title{font-size:14px;font-weight:bold}.grid{stroke:#e4e4e4;stroke-width:1}\
.frame{fill:none;stroke:#888}.axis-title{font-size:12px}";

/// A picture of `width` x `height` pixels begun the way every picture is: `title` as the
/// document's title, the shared style rules then the picture's own (`style`), a white background,
/// and `heading` drawn as its title at the top, `left` pixels in.
pub fn page(width: f64, height: f64, title: &str, heading: &str, left: f64, style: &str) -> Svg {
    let mut svg = Svg::new(width, height);
    svg.text("title", &[], title);
    svg.text("style", &[], &format!("{BASE_STYLE}{style}"));
    svg.leaf(
        "rect",
        &[("width", "100%"), ("height", "100%"), ("fill", "#fff")],
    );
    svg.text(
        "text",
        &[("class", "title"), ("x", &num(left)), ("y", "22")],
        heading,
    );
    svg
}

/// The `n`th of a set of distinguishable colours: ten hand-picked ones, then hues a golden angle
/// apart.
pub fn colour(n: usize) -> String {
    const FIRST: [&str; 10] = [
        "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
        "#bcbd22", "#7f7f7f",
    ];
    match FIRST.get(n) {
        Some(c) => (*c).to_string(),
        None => format!("hsl({:.0},65%,45%)", (n as f64 * 137.508) % 360.0),
    }
}

/// Writes `doc` to `out` (never over one of `inputs`; an existing file only with `force`), through
/// a temporary file next to it moved into place, so that a failed write leaves nothing half
/// written ([`crate::cmd::files::write_new`]).
pub fn save(out: &Path, inputs: &[&Path], force: bool, doc: &str) -> tickreel::Result<()> {
    crate::cmd::files::write_new(out, inputs, force, "out.svg", |f| {
        f.write_all(doc.as_bytes())
            .map_err(|e| crate::cmd::io_at(out, e))
    })
}
