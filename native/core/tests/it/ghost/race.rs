//! Racing ghosts: the live delta, the sum of best, several ghosts sampled together.

use super::*;

#[test]
fn the_live_delta_reads_the_shift_on_a_known_path() {
    let g = ghost_for_delta();
    let dur = g.duration_ticks();
    let rate = g.tick_rate();
    for k in [-15i32, -4, 0, 1, 3, 10, 40] {
        let mut d = LiveDelta::new(g.clone());
        let mut c = GhostCursor::new(g.clone());
        let mut readings = 0;
        for live in 0..dur as i32 + k.max(0) {
            let gt = live - k;
            if gt < 0 || gt > dur as i32 {
                continue;
            }
            let s = c.sample(f64::from(gt));
            let r = d.update(f64::from(live), s.position());
            assert!(
                (r.raw_ticks - f64::from(k)).abs() < 1e-6,
                "k {k}, live {live}: {r:?}"
            );
            assert!((r.shown_ticks - f64::from(k)).abs() <= 0.02 * rate + 1e-9);
            assert_eq!(r.ahead, k < 0);
            readings += 1;
        }
        assert!(readings > 600);
    }
    // Between ticks (a client's frame), the match stays close to the shift.
    let mut d = LiveDelta::new(g.clone());
    let mut c = GhostCursor::new(g.clone());
    let mut worst = 0.0f64;
    let mut t = 5.0;
    while t < f64::from(dur) {
        let s = c.sample(t - 5.0);
        let r = d.update(t, s.position());
        worst = worst.max((r.raw_ticks - 5.0).abs());
        t += 1.0 / 3.0;
    }
    assert!(worst < 0.5, "worst fractional error {worst} ticks");
}

#[test]
fn the_live_delta_sign_does_not_flicker_within_the_band() {
    let g = ghost_for_delta();
    let dur = g.duration_ticks() as i32;
    // The live player runs level with the ghost, drifting one tick ahead and one behind.
    let run = |options: DeltaOptions| {
        let mut d = LiveDelta::with_options(g.clone(), options);
        let mut c = GhostCursor::new(g.clone());
        let (mut raw_signs, mut shown_signs) = (Vec::new(), Vec::new());
        for live in 2..dur - 2 {
            let wobble = if (live / 4) % 2 == 0 { 1 } else { -1 };
            let s = c.sample(f64::from(live - wobble));
            let r = d.update(f64::from(live), s.position());
            raw_signs.push(r.raw_ticks < 0.0);
            shown_signs.push(r.ahead);
            assert_eq!(r.ahead, r.to_string().starts_with('-'));
        }
        let flips = |v: &[bool]| v.windows(2).filter(|w| w[0] != w[1]).count();
        (flips(&raw_signs), flips(&shown_signs))
    };
    // band 0.1 s = 2 ticks > the 1-tick wobble: the raw delta flips sign, the shown one never
    let (raw_flips, shown_flips) = run(DeltaOptions::default());
    assert!(raw_flips > 50, "{raw_flips}");
    assert_eq!(shown_flips, 0);
    // a band narrower than the wobble lets the sign follow it
    let narrow = DeltaOptions {
        sign_band_seconds: 0.02,
        ..DeltaOptions::default()
    };
    let (_, shown_flips) = run(narrow);
    assert!(shown_flips > 50, "{shown_flips}");

    // A real lead larger than the band does flip the sign, once.
    let mut d = LiveDelta::new(g.clone());
    let mut c = GhostCursor::new(g.clone());
    let mut signs = Vec::new();
    for live in 10..dur - 10 {
        let lag = if live < dur / 2 { 5 } else { -5 };
        let s = c.sample(f64::from(live - lag));
        signs.push(d.update(f64::from(live), s.position()).ahead);
    }
    assert_eq!(signs.windows(2).filter(|w| w[0] != w[1]).count(), 1);
}

#[test]
fn the_sum_of_best_ghost_is_continuous_and_sums_the_best_segments() {
    let runs = [
        course_run(&[0.50, 0.30, 0.45, 0.48], 0.0, 0.0),
        course_run(&[0.35, 0.55, 0.30, 0.42], 1.5, 2.0),
        course_run(&[0.40, 0.35, 0.52, 0.35], -1.2, -1.0),
    ];
    // The best time of each segment, from the runs' own split times.
    let mut best_total = 0;
    for (from, to) in [
        (None, Some(1)),
        (Some(1), Some(2)),
        (Some(2), Some(3)),
        (Some(3), None),
    ] {
        let seg = |g: &GhostTrack| {
            let a = from.map_or(0, |c| g.split(c).unwrap());
            let b = to.map_or(g.duration_ticks(), |c| g.split(c).unwrap());
            b - a
        };
        best_total += runs.iter().map(seg).min().unwrap();
    }
    let sob = sum_of_best(&runs).unwrap();
    let picked: Vec<usize> = sob.segments.iter().map(|s| s.run).collect();
    assert_eq!(picked, vec![0, 1, 2, 0]);
    assert_eq!(sob.total_ticks(), best_total);
    assert_eq!(sob.track.duration_ticks(), best_total);
    assert!(best_total < runs.iter().map(GhostTrack::duration_ticks).min().unwrap());
    assert!(sob.track.is_synthetic());
    let track = Arc::new(sob.track.clone());
    let mut c = GhostCursor::new(track.clone());
    for w in sob.segments.windows(2) {
        let (prev, next) = (w[0], w[1]);
        let splice = next.start;
        assert_eq!(prev.start + prev.ticks, splice);
        assert_eq!(
            track.split(match next.from {
                tickreel::ghost::Mark::Checkpoint(i) => i,
                _ => unreachable!(),
            }),
            Some(splice)
        );
        // The splice is exactly where the previous segment's run was at its end...
        let end_of_prev = runs[prev.run].pose_at(f64::from(prev.source_start + prev.ticks));
        let at = track.pose_at(f64::from(splice));
        for col in [X, Y, Z, PITCH] {
            assert!((at[col] - end_of_prev[col]).abs() < 1e-9, "col {col}");
        }
        assert!((tickreel::ghost::track::shortest_arc(at[YAW], end_of_prev[YAW])).abs() < 1e-9);
        // ... and the ghost is continuous through it, in position and heading.
        let t = f64::from(splice);
        let (l, m, r) = (c.sample(t - 1e-6), c.sample(t), c.sample(t + 1e-6));
        for (a, b) in [(pose_of(&l), pose_of(&m)), (pose_of(&m), pose_of(&r))] {
            for col in 0..5 {
                assert!(
                    (a[col] - b[col]).abs() < 1e-3,
                    "col {col} at splice {splice}"
                );
            }
        }
    }
    // No jump anywhere: the largest step per tick is the runs' own (plus the faded offset),
    // where a plain concatenation would jump sideways by more than a block.
    let runs_step = runs.iter().map(max_step).fold(0.0, f64::max);
    let sob_step = max_step(&track);
    assert!(sob_step < runs_step + 0.12, "{sob_step} vs {runs_step}");
    // and the heading never spins (the runs differ by whole turns)
    let yaw = track.column(YAW);
    let max_turn = yaw
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(0.0, f64::max);
    assert!(max_turn < 5.0, "{max_turn}");
    // flags are carried over
    assert!(track.flag_changes().count() > 10);
}

#[test]
fn several_ghosts_are_sampled_together_without_allocating_a_result() {
    let runs: Vec<Arc<GhostTrack>> = [
        [0.50, 0.30, 0.45, 0.40],
        [0.35, 0.55, 0.30, 0.42],
        [0.40, 0.35, 0.52, 0.35],
    ]
    .iter()
    .map(|s| Arc::new(course_run(s, 0.0, 0.0)))
    .collect();
    let sob = Arc::new(sum_of_best(&runs).unwrap().track);
    let mut set = GhostSet::top_n(runs.iter().cloned(), 2);
    set.push(sob.clone());
    assert_eq!(set.len(), 3);
    assert!(set.track(0).unwrap().duration_ticks() <= set.track(1).unwrap().duration_ticks());
    assert!(set.track(2).unwrap().is_synthetic());
    set.set_time_shift(1, -20.0);
    let mut out = [GhostSample::default(); 3];
    for t in [0.0, 33.3, 150.25, 10_000.0] {
        assert_eq!(set.sample_into(t, &mut out), 3);
        for (i, s) in out.iter().enumerate() {
            let shift = if i == 1 { -20.0 } else { 0.0 };
            let mut alone = GhostCursor::new(set.track(i).unwrap().clone());
            alone.set_time_shift(shift);
            assert_eq!(*s, alone.sample(t));
        }
    }
    assert_eq!(out[0].state, GhostState::Finished);
}
