//! Axes: [`Frame`] maps data coordinates to pixels; [`nice_step`] picks round grid steps (1, 2 or 5
//! times a power of ten); [`Frame::draw_axes`] draws the grid, the tick labels and the axis titles.

use super::writer::{Svg, num};

/// A rectangle of pixels showing a rectangle of data: `x` from `x_range.0` (left) to `x_range.1`
/// (right), `y` from `y_range.0` to `y_range.1`, top to bottom, or bottom to top with `y_up`.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    pub left: f64,
    pub top: f64,
    pub width: f64,
    pub height: f64,
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
    pub y_up: bool,
}

/// A round step (1, 2 or 5 times a power of ten) that cuts `span` into about `target` parts.
pub fn nice_step(span: f64, target: f64) -> f64 {
    if !(span.is_finite() && span > 0.0 && target >= 1.0) {
        return 1.0;
    }
    let raw = span / target;
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let m = if f < 1.5 {
        1.0
    } else if f < 3.5 {
        2.0
    } else if f < 7.5 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// The multiples of `step` in `[lo, hi]`.
pub fn ticks(lo: f64, hi: f64, step: f64) -> Vec<f64> {
    let mut out = Vec::new();
    let mut k = (lo / step).ceil();
    while k * step <= hi + step * 1e-9 && out.len() < 1000 {
        out.push(k * step);
        k += 1.0;
    }
    out
}

impl Frame {
    fn span(r: (f64, f64)) -> f64 {
        let s = r.1 - r.0;
        if s > 0.0 { s } else { 1.0 }
    }

    /// The pixel column of data `x`.
    pub fn px(&self, x: f64) -> f64 {
        self.left + (x - self.x_range.0) / Self::span(self.x_range) * self.width
    }

    /// The pixel row of data `y`.
    pub fn py(&self, y: f64) -> f64 {
        let f = (y - self.y_range.0) / Self::span(self.y_range);
        if self.y_up {
            self.top + (1.0 - f) * self.height
        } else {
            self.top + f * self.height
        }
    }

    /// Pixels per data unit along x.
    pub fn x_scale(&self) -> f64 {
        self.width / Self::span(self.x_range)
    }

    /// The grid (a line at every multiple of the steps), tick labels below and left of the frame,
    /// a border and the axis titles, in `<g id="axes">`. Returns the steps used.
    pub fn draw_axes(&self, svg: &mut Svg, x_title: &str, y_title: &str) -> (f64, f64) {
        let xs = nice_step(Self::span(self.x_range), (self.width / 80.0).max(2.0));
        let ys = nice_step(Self::span(self.y_range), (self.height / 60.0).max(2.0));
        let (l, t, r, b) = (
            self.left,
            self.top,
            self.left + self.width,
            self.top + self.height,
        );
        svg.open("g", &[("id", "axes"), ("class", "axes")]);
        for x in ticks(self.x_range.0, self.x_range.1, xs) {
            let p = num(self.px(x));
            let (top, bottom) = (num(t), num(b));
            svg.leaf(
                "line",
                &[
                    ("class", "grid"),
                    ("x1", &p),
                    ("y1", &top),
                    ("x2", &p),
                    ("y2", &bottom),
                ],
            );
            svg.text(
                "text",
                &[
                    ("class", "tick"),
                    ("x", &p),
                    ("y", &num(b + 14.0)),
                    ("text-anchor", "middle"),
                ],
                &num(x),
            );
        }
        for y in ticks(self.y_range.0, self.y_range.1, ys) {
            let p = num(self.py(y));
            svg.leaf(
                "line",
                &[
                    ("class", "grid"),
                    ("x1", &num(l)),
                    ("y1", &p),
                    ("x2", &num(r)),
                    ("y2", &p),
                ],
            );
            svg.text(
                "text",
                &[
                    ("class", "tick"),
                    ("x", &num(l - 4.0)),
                    ("y", &num(self.py(y) + 4.0)),
                    ("text-anchor", "end"),
                ],
                &num(y),
            );
        }
        svg.leaf(
            "rect",
            &[
                ("class", "frame"),
                ("x", &num(l)),
                ("y", &num(t)),
                ("width", &num(self.width)),
                ("height", &num(self.height)),
            ],
        );
        svg.text(
            "text",
            &[
                ("class", "axis-title"),
                ("x", &num(l + self.width / 2.0)),
                ("y", &num(b + 32.0)),
                ("text-anchor", "middle"),
            ],
            x_title,
        );
        let (yx, yy) = (num(l - 44.0), num(t + self.height / 2.0));
        svg.text(
            "text",
            &[
                ("class", "axis-title"),
                ("x", &yx),
                ("y", &yy),
                ("text-anchor", "middle"),
                ("transform", &format!("rotate(-90 {yx} {yy})")),
            ],
            y_title,
        );
        svg.close();
        (xs, ys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_round() {
        assert_eq!(nice_step(100.0, 10.0), 10.0);
        assert_eq!(nice_step(37.0, 5.0), 5.0);
        assert_eq!(nice_step(0.9, 4.0), 0.2);
        assert_eq!(nice_step(0.0, 4.0), 1.0);
        assert_eq!(ticks(-3.0, 11.0, 5.0), vec![0.0, 5.0, 10.0]);
    }

    #[test]
    fn frames_map_both_ways_up() {
        let mut f = Frame {
            left: 10.0,
            top: 20.0,
            width: 100.0,
            height: 50.0,
            x_range: (0.0, 10.0),
            y_range: (-5.0, 5.0),
            y_up: false,
        };
        assert_eq!(
            (f.px(0.0), f.px(10.0), f.py(-5.0), f.py(5.0)),
            (10.0, 110.0, 20.0, 70.0)
        );
        f.y_up = true;
        assert_eq!((f.py(-5.0), f.py(5.0), f.py(0.0)), (70.0, 20.0, 45.0));
    }
}
