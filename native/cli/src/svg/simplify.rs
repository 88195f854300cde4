//! Making long polylines short: [`thin`] drops points closer than a distance to the last point kept
//! (cheap, used while a recording is streamed, to bound memory); [`simplify`] is Ramer-Douglas-Peucker
//! (a point is kept when leaving it out would move the line by more than a tolerance), used once
//! the drawing's scale is known, with a tolerance of a fraction of a pixel.

/// A point of a polyline.
pub type Pt = [f64; 2];

fn d2(a: Pt, b: Pt) -> f64 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)
}

/// Squared distance from `p` to the segment `a`-`b`.
fn seg_d2(p: Pt, a: Pt, b: Pt) -> f64 {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let len2 = dx * dx + dy * dy;
    if len2 == 0.0 {
        return d2(p, a);
    }
    let u = (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2).clamp(0.0, 1.0);
    d2(p, [a[0] + u * dx, a[1] + u * dy])
}

/// Keeps the first and the last point, and every point at least `eps` from the point kept before
/// it. In place.
pub fn thin(points: &mut Vec<Pt>, eps: f64) {
    if points.len() <= 2 {
        return;
    }
    let last = points[points.len() - 1];
    let e2 = eps * eps;
    let mut kept = 1;
    for i in 1..points.len() - 1 {
        if d2(points[i], points[kept - 1]) >= e2 {
            points[kept] = points[i];
            kept += 1;
        }
    }
    points[kept] = last;
    points.truncate(kept + 1);
}

/// The points of `points` that Ramer-Douglas-Peucker keeps with `tolerance` (the same units):
/// every point of the input is within `tolerance` of the result. A tolerance of zero or less keeps
/// everything.
pub fn simplify(points: &[Pt], tolerance: f64) -> Vec<Pt> {
    let n = points.len();
    if n <= 2 || tolerance <= 0.0 {
        return points.to_vec();
    }
    let t2 = tolerance * tolerance;
    let mut keep = vec![false; n];
    keep[0] = true;
    keep[n - 1] = true;
    let mut stack = vec![(0usize, n - 1)];
    while let Some((a, b)) = stack.pop() {
        let mut worst = (0.0, 0);
        for i in a + 1..b {
            let d = seg_d2(points[i], points[a], points[b]);
            if d > worst.0 {
                worst = (d, i);
            }
        }
        if worst.0 > t2 {
            keep[worst.1] = true;
            stack.push((a, worst.1));
            stack.push((worst.1, b));
        }
    }
    points
        .iter()
        .zip(keep)
        .filter_map(|(p, k)| k.then_some(*p))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_straight_line_is_two_points_and_corners_stay() {
        let line: Vec<Pt> = (0..100)
            .map(|i| [f64::from(i), 2.0 * f64::from(i)])
            .collect();
        assert_eq!(simplify(&line, 0.01), vec![[0.0, 0.0], [99.0, 198.0]]);
        let corner: Vec<Pt> = (0..=20)
            .map(|i| {
                if i <= 10 {
                    [f64::from(i), 0.0]
                } else {
                    [10.0, f64::from(i - 10)]
                }
            })
            .collect();
        assert_eq!(
            simplify(&corner, 0.5),
            vec![[0.0, 0.0], [10.0, 0.0], [10.0, 10.0]]
        );
        assert_eq!(simplify(&corner, 0.0).len(), 21);
    }

    #[test]
    fn every_dropped_point_is_within_the_tolerance() {
        let mut rng = fastrand::Rng::with_seed(3);
        let mut p = [0.0, 0.0];
        let walk: Vec<Pt> = (0..2000)
            .map(|_| {
                p = [p[0] + rng.f64() - 0.3, p[1] + rng.f64() - 0.5];
                p
            })
            .collect();
        let s = simplify(&walk, 0.7);
        assert!(s.len() < walk.len() / 2);
        for q in &walk {
            let near = s
                .windows(2)
                .map(|w| seg_d2(*q, w[0], w[1]))
                .fold(f64::INFINITY, f64::min);
            assert!(near <= 0.49 + 1e-9);
        }
    }

    #[test]
    fn thinning_keeps_the_ends_and_spacing() {
        let mut pts: Vec<Pt> = (0..=10).map(|i| [f64::from(i) * 0.3, 0.0]).collect();
        thin(&mut pts, 1.0);
        let xs: Vec<f64> = pts.iter().map(|p| (p[0] * 10.0).round() / 10.0).collect();
        assert_eq!(xs, vec![0.0, 1.2, 2.4, 3.0]);
    }
}
