//! Labels that do not overlap: each label is placed at the first of a list of candidate spots
//! around its anchor whose box overlaps no label placed before it (nor a box set aside), or, when
//! every candidate is taken, at the one that overlaps least. Text boxes are estimated from the
//! number of characters (an average glyph of [`GLYPH_EM`] of the font size), which is what a
//! picture written without a font engine can know.

/// An average glyph's width, in ems (sans-serif text is narrower on average; an estimate on the
/// wide side keeps labels apart).
pub const GLYPH_EM: f64 = 0.62;

/// A box in pixels: left, top, right, bottom.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    /// Area shared with `o` (0 when they only touch).
    pub fn overlap(&self, o: &Rect) -> f64 {
        let w = self.x1.min(o.x1) - self.x0.max(o.x0);
        let h = self.y1.min(o.y1) - self.y0.max(o.y0);
        if w > 0.0 && h > 0.0 { w * h } else { 0.0 }
    }
}

/// How a label's text is anchored at its x (as SVG's `text-anchor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    pub fn svg(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// The box of `text` in a font of `size` pixels drawn at (x, baseline y) with `anchor`.
pub fn text_box(text: &str, size: f64, x: f64, y: f64, anchor: Anchor) -> Rect {
    let w = text.chars().count() as f64 * size * GLYPH_EM;
    let x0 = match anchor {
        Anchor::Start => x,
        Anchor::Middle => x - w / 2.0,
        Anchor::End => x - w,
    };
    // ascent about 0.8 em above the baseline, descent 0.2 em below
    Rect {
        x0,
        y0: y - size * 0.8,
        x1: x0 + w,
        y1: y + size * 0.2,
    }
}

/// A spot to try: an offset from the anchor point and how the text hangs from it.
#[derive(Debug, Clone, Copy)]
pub struct Spot {
    pub dx: f64,
    pub dy: f64,
    pub anchor: Anchor,
}

/// Where a label went.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    pub x: f64,
    pub y: f64,
    pub anchor: Anchor,
    /// Whether it overlaps a label placed before it (every spot was taken).
    pub overlaps: bool,
}

/// Labels placed so far, and boxes no label may cover.
#[derive(Debug, Default)]
pub struct Placer {
    taken: Vec<Rect>,
    /// Labels may not leave this box (when set).
    bounds: Option<Rect>,
}

/// Labels a placer checks against at most: past it, a label goes to its first spot (the picture
/// of a file with a million checkpoints stays quick to draw).
pub const MAX_PLACED: usize = 4096;

impl Placer {
    pub fn new(bounds: Option<Rect>) -> Placer {
        Placer {
            taken: Vec::new(),
            bounds,
        }
    }

    /// Sets `r` aside: no label is placed over it.
    pub fn reserve(&mut self, r: Rect) {
        if self.taken.len() < MAX_PLACED {
            self.taken.push(r);
        }
    }

    /// Places `text` (font `size` px) near (x, y) at the first free spot of `spots`.
    pub fn place(&mut self, text: &str, size: f64, x: f64, y: f64, spots: &[Spot]) -> Placed {
        let full = self.taken.len() >= MAX_PLACED;
        let mut best: Option<(f64, Placed, Rect)> = None;
        for s in spots {
            let (px, py) = (x + s.dx, y + s.dy);
            let r = text_box(text, size, px, py, s.anchor);
            if let Some(b) = self.bounds
                && (r.x0 < b.x0 || r.x1 > b.x1 || r.y0 < b.y0 || r.y1 > b.y1)
            {
                continue;
            }
            let cost: f64 = if full {
                0.0
            } else {
                self.taken.iter().map(|t| t.overlap(&r)).sum()
            };
            let placed = Placed {
                x: px,
                y: py,
                anchor: s.anchor,
                overlaps: cost > 0.0,
            };
            if best.as_ref().is_none_or(|(c, _, _)| cost < *c) {
                best = Some((cost, placed, r));
            }
            if cost == 0.0 {
                break;
            }
        }
        let (placed, r) = match best {
            Some((_, p, r)) => (p, r),
            // no spot inside the bounds: the first one
            None => {
                let s = spots.first().copied().unwrap_or(Spot {
                    dx: 0.0,
                    dy: 0.0,
                    anchor: Anchor::Start,
                });
                let (px, py) = (x + s.dx, y + s.dy);
                let r = text_box(text, size, px, py, s.anchor);
                let overlaps = self.taken.iter().any(|t| t.overlap(&r) > 0.0);
                (
                    Placed {
                        x: px,
                        y: py,
                        anchor: s.anchor,
                        overlaps,
                    },
                    r,
                )
            }
        };
        self.reserve(r);
        placed
    }
}

/// Spots around a point mark: above, below, right, left, the corners, then the same farther out
/// (`rings` times, `step` pixels apart); `gap`: pixels between the mark and the nearest spot.
pub fn around(gap: f64, size: f64, rings: usize, step: f64) -> Vec<Spot> {
    let mut out = Vec::with_capacity(rings * 8);
    for k in 0..rings {
        let g = gap + k as f64 * step;
        let up = -g;
        let down = g + size * 0.8;
        let mid = size * 0.35;
        for (dx, dy, anchor) in [
            (0.0, up, Anchor::Middle),
            (0.0, down, Anchor::Middle),
            (g, mid, Anchor::Start),
            (-g, mid, Anchor::End),
            (g, up, Anchor::Start),
            (-g, up, Anchor::End),
            (g, down, Anchor::Start),
            (-g, down, Anchor::End),
        ] {
            out.push(Spot { dx, dy, anchor });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_at_one_point_are_spread_without_overlap() {
        let mut p = Placer::new(None);
        let spots = around(6.0, 9.0, 6, 11.0);
        let placed: Vec<_> = (0..20)
            .map(|i| p.place(&format!("{i}"), 9.0, 100.0, 100.0, &spots))
            .collect();
        assert!(placed.iter().all(|l| !l.overlaps), "{placed:?}");
        let boxes: Vec<_> = placed
            .iter()
            .enumerate()
            .map(|(i, l)| text_box(&i.to_string(), 9.0, l.x, l.y, l.anchor))
            .collect();
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                assert_eq!(a.overlap(b), 0.0, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn past_its_free_spots_a_label_is_flagged() {
        let mut p = Placer::new(None);
        let spots = around(4.0, 10.0, 1, 0.0);
        let flags: Vec<bool> = (0..9)
            .map(|_| p.place("wide label", 10.0, 0.0, 0.0, &spots).overlaps)
            .collect();
        // above and below are free; nine labels cannot share eight spots
        assert_eq!(&flags[..2], &[false, false]);
        assert!(flags[8], "{flags:?}");
    }

    #[test]
    fn labels_stay_inside_the_bounds() {
        let b = Rect {
            x0: 0.0,
            y0: 0.0,
            x1: 100.0,
            y1: 100.0,
        };
        let mut p = Placer::new(Some(b));
        let l = p.place("edge", 10.0, 98.0, 50.0, &around(4.0, 10.0, 2, 8.0));
        let r = text_box("edge", 10.0, l.x, l.y, l.anchor);
        assert!(r.x1 <= 100.0 && r.x0 >= 0.0, "{r:?}");
    }
}
