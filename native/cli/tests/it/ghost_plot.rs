//! `tickreel ghost --plot`, run as the real binary: the chart of a run against a ghost shows the
//! live delta and one labelled line per split (labels that do not overlap), and bad input is a
//! clear error. (`render`'s pictures: `render.rs`, whose helpers this shares.)

use std::path::Path;

use tickreel::record::{ReelOptions, ReelWriter};
use tickreel::{Event, Pose};

use crate::render::{fails, ok, s};
use crate::svg::{El, assert_no_overlap, label_boxes, parse, stretches};
use crate::tool::tickreel;

/// Entity 1 runs +x at 0.25 blocks a tick, entity 2 the same line at 0.2; both cross checkpoints
/// 0..=3 every 25 blocks (entity 1 at ticks 0, 100, 200, 300; entity 2 at 0, 125, 250, 375).
fn two_runners(path: &Path) {
    let mut w = ReelWriter::create(path, ReelOptions::default()).unwrap();
    for t in 0..=500u32 {
        let mut ev = Vec::new();
        for (id, speed, every) in [(1u32, 0.25, 100u32), (2, 0.2, 125)] {
            let pose = Pose::from_f64(speed * f64::from(t), 64.0, 0.0, 0.0, 0.0);
            ev.push(if t == 0 {
                Event::EntityAdd {
                    entity: id,
                    kind: 1,
                    pose,
                }
            } else {
                Event::Pose { entity: id, pose }
            });
            if t % every == 0 && t / every <= 3 {
                ev.push(Event::Checkpoint {
                    entity: id,
                    index: t / every,
                });
            }
        }
        w.write_tick(t, &ev).unwrap();
    }
    w.finish().unwrap();
}

fn plot(reel: &Path, out: &Path, extra: &[&str]) -> (El, String) {
    let mut args = vec![
        "ghost",
        s(reel),
        "--entity",
        "2",
        "--from-checkpoint",
        "0",
        "--to-checkpoint",
        "3",
        "--plot",
        s(out),
    ];
    args.extend_from_slice(extra);
    let stdout = ok(tickreel(&args));
    (parse(&std::fs::read_to_string(out).unwrap()), stdout)
}

#[test]
fn the_plot_shows_the_live_delta_and_the_splits() {
    let dir = tempfile::tempdir().unwrap();
    let reel = dir.path().join("race.reel");
    two_runners(&reel);
    // entity 2 against entity 1: at run tick t it is where the ghost was at 0.8 t, 0.2 t behind
    let (svg, stdout) = plot(&reel, &dir.path().join("d.svg"), &["--ghost-entity", "1"]);
    assert!(
        stdout.contains("376 ticks raced, final delta +3.75 s, 4 splits"),
        "{stdout}"
    );
    let line = svg.find(|e| e.attr("id") == "delta")[0];
    assert_eq!(line.attr("data-samples"), "376");
    let last: f64 = line.attr("data-final").parse().unwrap();
    assert!((last - 3.75).abs() <= 0.02, "{last}");
    // the chart rises all the way: behind, more and more (y grows downwards)
    let pts = &stretches(line.attr("d"))[0];
    assert!(
        pts.windows(2)
            .all(|w| w[1][0] > w[0][0] && w[1][1] <= w[0][1] + 1e-9)
    );
    assert!(
        pts.len() < 20,
        "a straight rise is a few points: {}",
        pts.len()
    );
    let splits: Vec<(String, String, String)> = svg
        .find(|e| e.has_class("split"))
        .iter()
        .map(|e| {
            assert!(e.has_class("behind"));
            (
                e.attr("data-checkpoint").to_string(),
                e.attr("data-tick").to_string(),
                e.attr("data-delta").to_string(),
            )
        })
        .collect();
    let want = |c: &str, t: &str, d: &str| (c.to_string(), t.to_string(), d.to_string());
    assert_eq!(
        splits,
        vec![
            want("0", "0", "0.000"),
            want("1", "125", "1.250"),
            want("2", "250", "2.500"),
            want("3", "375", "3.750")
        ]
    );
    let labels: Vec<String> = svg
        .find(|e| e.has_class("split"))
        .iter()
        .map(|e| e.find(|t| t.name == "text")[0].text.clone())
        .collect();
    assert_eq!(labels[3], "#3 +3.75 s");

    // the other way round: ahead, splits negative; and against a ghost in another file
    let other = dir.path().join("ghost.reel");
    std::fs::copy(&reel, &other).unwrap();
    let mut args = vec!["ghost", s(&other), "--entity", "1"];
    args.extend(["--from-checkpoint", "0", "--to-checkpoint", "3"]);
    let out = dir.path().join("ahead.svg");
    args.extend([
        "--plot",
        s(&out),
        "--ghost-entity",
        "2",
        "--ghost-file",
        s(&reel),
    ]);
    let stdout = ok(tickreel(&args));
    assert!(stdout.contains("final delta -3.75 s"), "{stdout}");
    let svg = parse(&std::fs::read_to_string(&out).unwrap());
    let deltas: Vec<String> = svg
        .find(|e| e.has_class("split"))
        .iter()
        .map(|e| e.attr("data-delta").to_string())
        .collect();
    assert_eq!(deltas, vec!["0.000", "-1.250", "-2.500", "-3.750"]);
    assert!(
        svg.find(|e| e.has_class("split"))
            .iter()
            .skip(1)
            .all(|e| e.has_class("ahead"))
    );

    // a run against itself: zero all the way
    let (svg, _) = plot(
        &reel,
        &dir.path().join("self.svg"),
        &["--ghost-entity", "2"],
    );
    assert_eq!(
        svg.find(|e| e.attr("id") == "delta")[0].attr("data-final"),
        "0.000"
    );
}

#[test]
fn bad_plot_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let reel = dir.path().join("race.reel");
    two_runners(&reel);
    let out = dir.path().join("d.svg");
    let base = ["ghost", s(&reel), "--entity", "2", "--plot", s(&out)];
    let with = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        tickreel(&a)
    };
    fails(with(&[]), "--plot needs a ghost to race");
    // the run's own file missing or damaged
    let missing_run = dir.path().join("gone.reel");
    let gone = tickreel(&[
        "ghost",
        s(&missing_run),
        "--entity",
        "2",
        "--plot",
        s(&out),
        "--ghost-entity",
        "1",
    ]);
    fails(gone, "gone.reel");
    let damaged = dir.path().join("damaged.reel");
    let mut bytes = std::fs::read(&reel).unwrap();
    let n = bytes.len();
    for b in &mut bytes[n / 3..n / 3 + 64] {
        *b ^= 0x5a;
    }
    std::fs::write(&damaged, &bytes).unwrap();
    let bad = tickreel(&[
        "ghost",
        s(&damaged),
        "--entity",
        "2",
        "--plot",
        s(&out),
        "--ghost-entity",
        "1",
    ]);
    fails(bad, "damaged.reel");
    fails(with(&["--ghost-entity", "9"]), "entity 9");
    let missing = dir.path().join("missing.reel");
    fails(with(&["--ghost-file", s(&missing)]), "missing.reel");
    assert!(!out.exists());
    ok(with(&["--ghost-entity", "1"]));
    fails(with(&["--ghost-entity", "1"]), "already exists");
    ok(with(&["--ghost-entity", "1", "--force"]));
    // --splits prints CSV, --plot draws: not both; --ghost-entity only with --plot
    assert_eq!(
        with(&["--ghost-entity", "1", "--splits"]).status.code(),
        Some(2)
    );
    let no_plot = tickreel(&["ghost", s(&reel), "--entity", "2", "--ghost-entity", "1"]);
    assert_eq!(no_plot.status.code(), Some(2));
}

/// Entities 1 and 2 run +x (0.25 and 0.2 blocks a tick) and cross checkpoints 0..=30 every 5
/// blocks: 31 splits close together.
fn close_splits(path: &Path) {
    let mut w = ReelWriter::create(path, ReelOptions::default()).unwrap();
    let mut next = [0u32; 2];
    for t in 0..=800u32 {
        let mut ev = Vec::new();
        for (k, (id, speed)) in [(1u32, 0.25), (2, 0.2)].into_iter().enumerate() {
            let x = speed * f64::from(t);
            let pose = Pose::from_f64(x, 64.0, 0.0, 0.0, 0.0);
            ev.push(if t == 0 {
                Event::EntityAdd {
                    entity: id,
                    kind: 1,
                    pose,
                }
            } else {
                Event::Pose { entity: id, pose }
            });
            if next[k] <= 30 && x >= f64::from(next[k]) * 5.0 {
                ev.push(Event::Checkpoint {
                    entity: id,
                    index: next[k],
                });
                next[k] += 1;
            }
        }
        w.write_tick(t, &ev).unwrap();
    }
    w.finish().unwrap();
}

#[test]
fn split_labels_do_not_overlap() {
    let dir = tempfile::tempdir().unwrap();
    let reel = dir.path().join("close.reel");
    close_splits(&reel);
    let out = dir.path().join("d.svg");
    ok(tickreel(&[
        "ghost",
        s(&reel),
        "--entity",
        "2",
        "--from-checkpoint",
        "0",
        "--to-checkpoint",
        "30",
        "--ghost-entity",
        "1",
        "--plot",
        s(&out),
    ]));
    let svg = parse(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(svg.find(|e| e.has_class("split")).len(), 31);
    let boxes = label_boxes(&svg, |_| 11.0);
    assert_eq!(boxes.len(), 31);
    assert_no_overlap(&boxes);
}
