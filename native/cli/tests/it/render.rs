//! `tickreel render` and `tickreel ghost --plot`, run as the real binary: the SVG they write parses
//! as XML, holds one path per entity with the points and stretches the recording gives, teleports
//! split paths, filters and ranges apply, names are escaped, and bad input is a clear error.

use crate::common;
use crate::tool::tickreel;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use tickreel::format::EntityInfo;
use tickreel::record::{ChunkPolicy, ReelOptions, ReelWriter};
use tickreel::{Event, Pose};

use crate::svg::{
    El, assert_no_overlap, count_points, label_boxes, parse, paths, stretches, teleport_ticks,
};

// ---------------------------------------------------------------- running the binary

pub(crate) fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Exit status 1 with a message naming `needle`.
pub(crate) fn fails(out: Output, needle: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert!(err.contains(needle), "{needle:?} not in {err:?}");
    err
}

fn golden() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../core/tests/data/golden.reel")
}

pub(crate) fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn render(file: &Path, out: &Path, extra: &[&str]) -> El {
    let mut args = vec!["render", s(file), "--out", s(out)];
    args.extend_from_slice(extra);
    ok(tickreel(&args));
    parse(&std::fs::read_to_string(out).unwrap())
}

// ---------------------------------------------------------------- render

#[test]
fn the_golden_file_gives_its_paths_teleport_and_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let svg = render(
        &golden(),
        &dir.path().join("all.svg"),
        &["--tolerance", "0"],
    );
    let p = paths(&svg);
    assert_eq!(p.keys().copied().collect::<Vec<_>>(), vec![1, 2, 3]);
    // Steve: a pose on 18 ticks (0..20 without 5 and 13), one stretch
    assert_eq!(count_points(p[&1]), (18, 1));
    // he walks +0.2 x and +0.1 z a tick: x to the right, z downwards, one scale for both
    let steve = &stretches(p[&1].attr("d"))[0];
    for w in steve.windows(2) {
        assert!(w[1][0] > w[0][0] && w[1][1] > w[0][1], "{w:?}");
    }
    let (first, last) = (steve[0], steve[steve.len() - 1]);
    let ratio = (last[0] - first[0]) / (last[1] - first[1]);
    assert!((ratio - 2.0).abs() < 0.02, "{ratio}");
    // Alex: added, moved a quarter block, teleported: two stretches, the jump is not a line
    assert_eq!(count_points(p[&2]), (3, 2));
    let alex = stretches(p[&2].attr("d"));
    assert_eq!(svg.find(|e| e.has_class("teleports")).len(), 1);
    assert_eq!(teleport_ticks(&svg, 2), vec![6]);
    // the ring (drawn from its left edge, 4 px each side) is where the first stretch ends, the
    // triangle (its tip 5 px above) where the second begins
    let group = svg.find(|e| e.has_class("teleports"))[0];
    let start_of = |class: &str, stop: char| -> Vec<f64> {
        let d = group.find(|e| e.has_class(class))[0].attr("d");
        d[1..d.find(stop).unwrap()]
            .split(' ')
            .map(|n| n.parse().unwrap())
            .collect()
    };
    let ring = start_of("teleport-from", 'a');
    let end = alex[0].last().unwrap();
    assert!((ring[0] + 4.0 - end[0]).abs() < 0.11 && (ring[1] - end[1]).abs() < 0.11);
    let tri = start_of("teleport-to", 'l');
    let landed = alex[1][0];
    assert!((tri[0] - landed[0]).abs() < 0.11 && (tri[1] + 5.0 - landed[1]).abs() < 0.11);
    // the zombie never moved: one point
    assert_eq!(count_points(p[&3]), (1, 1));
    let cp = svg.find(|e| e.has_class("checkpoint"));
    assert_eq!(cp.len(), 1);
    assert_eq!(
        (
            cp[0].attr("data-entity"),
            cp[0].attr("data-index"),
            cp[0].attr("data-tick")
        ),
        ("1", "1", "7")
    );
    let legend: Vec<String> = svg
        .find(|e| e.has_class("legend-entry"))
        .iter()
        .map(|e| e.find(|t| t.name == "text")[0].text.clone())
        .collect();
    assert_eq!(legend, vec!["Steve (#1)", "Alex (#2)", "entity 3"]);
    assert_eq!(svg.find(|e| e.attr("id") == "axes").len(), 1);
    assert!(
        svg.find(|e| e.name == "text")
            .iter()
            .any(|t| t.text == "x (blocks)")
    );

    // the default tolerance draws Steve's straight walk as one line
    let svg = render(&golden(), &dir.path().join("simple.svg"), &[]);
    assert_eq!(count_points(paths(&svg)[&1]), (2, 1));
    assert_eq!(count_points(paths(&svg)[&2]), (3, 2));
}

#[test]
fn the_golden_file_marks_its_world_events() {
    let dir = tempfile::tempdir().unwrap();
    let svg = render(&golden(), &dir.path().join("world.svg"), &[]);
    let marks = |class: &str| -> Vec<(String, String)> {
        svg.find(|e| e.name == "g" && e.has_class(class))
            .iter()
            .map(|g| {
                (
                    g.attr("data-entity").to_string(),
                    g.attr("data-ticks").to_string(),
                )
            })
            .collect()
    };
    // tick 9: Steve breaks a block and hits Alex; Alex says "gg"
    assert_eq!(marks("world-block"), vec![("1".into(), "9".into())]);
    assert_eq!(marks("world-hit"), vec![("1".into(), "9".into())]);
    assert_eq!(marks("world-chat"), vec![("2".into(), "9".into())]);
    // the block's square is centred on the block (12.5, -2.5), left of Steve's path
    let block =
        svg.find(|e| e.name == "g" && e.has_class("world-block"))[0].find(|e| e.name == "path")[0];
    let at: Vec<f64> = block.attr("d")[1..block.attr("d").find('m').unwrap()]
        .split(' ')
        .map(|n| n.parse().unwrap())
        .collect();
    let steve = &stretches(paths(&svg)[&1].attr("d"))[0];
    assert!(at[0] < steve[0][0], "{at:?} {steve:?}");
    let legend: Vec<String> = svg
        .find(|e| e.name == "text")
        .iter()
        .map(|t| t.text.clone())
        .collect();
    for entry in ["block changed", "hit", "chat line"] {
        assert!(
            legend.iter().any(|t| t == entry),
            "no {entry} in the legend"
        );
    }
    // a range without tick 9 has none
    let svg = render(&golden(), &dir.path().join("none.svg"), &["--from", "10"]);
    assert!(
        svg.find(|e| e.name == "g" && (e.has_class("world-block") || e.has_class("world-hit")))
            .is_empty()
    );
}

#[test]
fn entity_filters_and_tick_ranges_apply() {
    let dir = tempfile::tempdir().unwrap();
    let svg = render(&golden(), &dir.path().join("alex.svg"), &["--entity", "2"]);
    assert_eq!(paths(&svg).keys().copied().collect::<Vec<_>>(), vec![2]);
    assert!(svg.find(|e| e.has_class("checkpoint")).is_empty());
    assert_eq!(svg.find(|e| e.has_class("legend-entry")).len(), 1);
    let svg = render(
        &golden(),
        &dir.path().join("two.svg"),
        &["--entity", "3", "--entity", "1", "--tolerance", "0"],
    );
    assert_eq!(paths(&svg).keys().copied().collect::<Vec<_>>(), vec![1, 3]);

    // ticks 7..=12: where everyone stood when tick 7 began (after tick 6), then what moved
    let svg = render(
        &golden(),
        &dir.path().join("range.svg"),
        &["--from", "7", "--to", "12", "--tolerance", "0"],
    );
    let p = paths(&svg);
    assert_eq!(count_points(p[&1]), (7, 1));
    // Alex had already teleported: one point, no jump in the range
    assert_eq!(count_points(p[&2]), (1, 1));
    assert!(svg.find(|e| e.has_class("teleports")).is_empty());
    assert_eq!(count_points(p[&3]), (1, 1));
    assert_eq!(svg.find(|e| e.has_class("checkpoint")).len(), 1);
    let title = svg.find(|e| e.name == "title")[0].text.clone();
    assert!(title.ends_with("ticks 7..=12 (0.2 s)"), "{title}");
}

/// Per entity, the stretches and distinct positions a simulated recording gives, computed from
/// the simulator's own events: a stretch starts at an add or a teleport; a position counts when
/// it differs from the one before.
fn expected_from_events(ticks: &[(u32, Vec<Event>)]) -> BTreeMap<u32, (usize, usize, usize)> {
    let mut last: BTreeMap<u32, Option<[i64; 2]>> = BTreeMap::new();
    let mut out: BTreeMap<u32, (usize, usize, usize)> = BTreeMap::new();
    for (_, events) in ticks {
        for e in events {
            match *e {
                Event::EntityAdd { entity, pose, .. } => {
                    let o = out.entry(entity).or_default();
                    o.0 += 1;
                    o.1 += 1;
                    last.insert(entity, Some([pose.x, pose.z]));
                }
                Event::Teleport { entity, pose } => {
                    let o = out.entry(entity).or_default();
                    if last.get(&entity).copied().flatten().is_some() {
                        o.2 += 1;
                    }
                    o.0 += 1;
                    o.1 += 1;
                    last.insert(entity, Some([pose.x, pose.z]));
                }
                Event::Pose { entity, pose } => {
                    let o = out.entry(entity).or_default();
                    let p = Some([pose.x, pose.z]);
                    match last.get(&entity).copied().flatten() {
                        None => {
                            o.0 += 1;
                            o.1 += 1;
                        }
                        Some(q) if Some(q) != p => o.1 += 1,
                        Some(_) => {}
                    }
                    last.insert(entity, p);
                }
                Event::EntityRemove { entity } | Event::PlayerLeave { entity } => {
                    last.insert(entity, None);
                }
                _ => {}
            }
        }
    }
    out
}

#[test]
fn a_simulated_server_gives_one_path_per_entity_split_at_teleports() {
    let dir = tempfile::tempdir().unwrap();
    let reel = dir.path().join("sim.reel");
    let ticks = common::sim_ticks(6, 1500, 11);
    common::write_reel(&reel, &ticks, ChunkPolicy::default());
    let want = expected_from_events(&ticks);
    assert!(
        want.values().map(|w| w.2).sum::<usize>() >= 5,
        "the simulator teleports"
    );
    let svg = render(&reel, &dir.path().join("all.svg"), &["--tolerance", "0"]);
    let p = paths(&svg);
    assert_eq!(
        p.keys().copied().collect::<Vec<_>>(),
        want.keys().copied().collect::<Vec<_>>()
    );
    for (id, &(segments, points, teleports)) in &want {
        assert_eq!(count_points(p[id]), (points, segments), "entity {id}");
        assert_eq!(teleport_ticks(&svg, *id).len(), teleports, "entity {id}");
    }
    // simplified: fewer points, never fewer stretches
    let svg = render(&reel, &dir.path().join("simple.svg"), &[]);
    let q = paths(&svg);
    let (mut before, mut after) = (0, 0);
    for (id, &(segments, points, _)) in &want {
        let (n, segs) = count_points(q[id]);
        assert_eq!(segs, segments, "entity {id}");
        assert!(n <= points);
        (before, after) = (before + points, after + n);
    }
    assert!(after * 2 < before, "{after} of {before} points drawn");
}

#[test]
fn an_hour_of_play_stays_a_small_svg() {
    let dir = tempfile::tempdir().unwrap();
    let reel = dir.path().join("hour.reel");
    // 4 players for an hour at 20 ticks/s: 288,000 positions
    let ticks = common::sim_ticks(4, 72_000, 5);
    common::write_reel(&reel, &ticks, ChunkPolicy::default());
    let out = dir.path().join("hour.svg");
    let started = std::time::Instant::now();
    let svg = render(&reel, &out, &[]);
    let took = started.elapsed();
    let size = std::fs::metadata(&out).unwrap().len();
    let drawn: usize = paths(&svg).values().map(|p| count_points(p).0).sum();
    eprintln!("1 hour, 4 players: {size} bytes, {drawn} points, {took:?}");
    assert!(size < 600_000, "{size} bytes");
    assert!(drawn <= 50_000, "{drawn} points");
}

#[test]
fn names_from_the_recording_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let reel = dir.path().join("names.reel");
    let mut w = ReelWriter::create(&reel, ReelOptions::default()).unwrap();
    let name = "<b>\"Tom\" & 'Jerry'</b>";
    w.register_entity(EntityInfo {
        id: 4,
        kind: 1,
        uuid: None,
        name: Some(name.into()),
    })
    .unwrap();
    w.write_tick(
        0,
        &[Event::EntityAdd {
            entity: 4,
            kind: 1,
            pose: Pose::from_f64(0.0, 64.0, 0.0, 0.0, 0.0),
        }],
    )
    .unwrap();
    w.write_tick(
        1,
        &[Event::Pose {
            entity: 4,
            pose: Pose::from_f64(3.0, 64.0, 4.0, 0.0, 0.0),
        }],
    )
    .unwrap();
    w.finish().unwrap();
    let svg = render(&reel, &dir.path().join("n.svg"), &[]);
    let entry = svg.find(|e| e.has_class("legend-entry"))[0];
    assert_eq!(
        entry.find(|t| t.name == "text")[0].text,
        format!("{name} (#4)")
    );
}

/// 60 entities standing in a row: 1..=50 without a name, 51..=60 named; entity 51 crosses
/// checkpoints 0..=15 on one tick each while it barely moves.
fn crowd_with_names(path: &Path) {
    let mut w = ReelWriter::create(path, ReelOptions::default()).unwrap();
    for id in 51..=60u32 {
        w.register_entity(EntityInfo {
            id,
            kind: 1,
            uuid: None,
            name: Some(format!("Player{id}")),
        })
        .unwrap();
    }
    for t in 0..=20u32 {
        let mut ev = Vec::new();
        for id in 1..=60u32 {
            let pose = Pose::from_f64(
                f64::from(id) * 2.0 + f64::from(t) * 0.01,
                64.0,
                f64::from(t) * 0.5,
                0.0,
                0.0,
            );
            ev.push(if t == 0 {
                Event::EntityAdd {
                    entity: id,
                    kind: 1,
                    pose,
                }
            } else {
                Event::Pose { entity: id, pose }
            });
        }
        if t <= 15 {
            ev.push(Event::Checkpoint {
                entity: 51,
                index: t,
            });
        }
        w.write_tick(t, &ev).unwrap();
    }
    w.finish().unwrap();
}

#[test]
fn the_legend_lists_every_named_player_first_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let reel = dir.path().join("crowd.reel");
    crowd_with_names(&reel);
    let svg = render(&reel, &dir.path().join("c.svg"), &[]);
    let legend: Vec<String> = svg
        .find(|e| e.has_class("legend-entry"))
        .iter()
        .map(|e| e.attr("data-entity").to_string())
        .collect();
    // the ten named (ids above the first 40) first, then 40 unnamed, then a line for the rest
    let want: Vec<String> = (51..=60).chain(1..=40).map(|i| i.to_string()).collect();
    assert_eq!(legend, want);
    let more = svg.find(|e| e.has_class("legend-more"));
    assert_eq!(more.len(), 1);
    assert_eq!(more[0].text, "+10 more");
    // a legend entry keeps its path's colour
    let p = paths(&svg);
    for e in svg.find(|e| e.has_class("legend-entry")) {
        let id: u32 = e.attr("data-entity").parse().unwrap();
        let swatch = e.find(|r| r.name == "rect")[0].attr("fill");
        assert_eq!(swatch, p[&id].attr("stroke"), "entity {id}");
    }
    // the legend fits in the picture
    let height: f64 = svg.find(|e| e.name == "svg")[0]
        .attr("height")
        .parse()
        .unwrap();
    let last_y: f64 = more[0].attr("y").parse().unwrap();
    assert!(last_y < height, "{last_y} in {height}");
}

#[test]
fn checkpoint_labels_at_one_spot_do_not_overlap() {
    let dir = tempfile::tempdir().unwrap();
    let reel = dir.path().join("crowd.reel");
    crowd_with_names(&reel);
    let svg = render(&reel, &dir.path().join("c.svg"), &["--entity", "51"]);
    let cps = svg.find(|e| e.has_class("checkpoint"));
    assert_eq!(cps.len(), 16);
    let boxes = label_boxes(&svg, |_| 9.0);
    assert_eq!(boxes.len(), 16);
    assert_no_overlap(&boxes);
    // each label stays near its flag
    for cp in cps {
        let flag = cp.find(|e| e.name == "rect")[0];
        let fx: f64 = flag.attr("x").parse::<f64>().unwrap() + 5.0;
        let t = cp.find(|e| e.name == "text")[0];
        let tx: f64 = t.attr("x").parse().unwrap();
        assert!((tx - fx).abs() < 120.0, "{tx} far from {fx}");
    }
}

#[test]
fn a_report_map_marks_start_end_and_the_report_tick() {
    let dir = tempfile::tempdir().unwrap();
    let sim = dir.path().join("world.reel");
    ok(tickreel(&[
        "simulate",
        "--out",
        s(&sim),
        "--ticks",
        "400",
        "--players",
        "6",
        "--shadow",
    ]));
    let report = dir.path().join("world.report.reel");
    let r = tickreel::play::Reader::open_any(&report).unwrap();
    let Some(fastnbt::Value::Compound(c)) = r.metadata().user.get("report") else {
        panic!("no report compound");
    };
    let int = |k: &str| match c.get(k) {
        Some(fastnbt::Value::Int(v)) => *v as u32,
        other => panic!("{k}: {other:?}"),
    };
    let (player, tick) = (int("player"), int("report_tick"));
    let seek = r.seek(tick).unwrap();
    let at = seek.entities.iter().find(|e| e.id == player).unwrap();

    let svg = render(&report, &dir.path().join("r.svg"), &[]);
    let g = svg.find(|e| e.attr("id") == "report-marks");
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].attr("data-entity"), player.to_string());
    assert_eq!(g[0].attr("data-tick"), tick.to_string());
    let mark = |class: &str| -> &El {
        let m = g[0].find(|e| e.has_class(class));
        assert_eq!(m.len(), 1, "{class}");
        m[0]
    };
    let xz = |m: &El| -> (f64, f64) {
        (
            m.attr("data-x").parse().unwrap(),
            m.attr("data-z").parse().unwrap(),
        )
    };
    // the report mark is where Reader::seek puts the player at the report tick
    let (x, z) = xz(mark("report-tick"));
    assert!(
        (x - at.pose.x_f64()).abs() < 0.01 && (z - at.pose.z_f64()).abs() < 0.01,
        "{x} {z} vs {:?}",
        at.pose
    );
    assert!(
        mark("report-tick").find(|e| e.name == "text")[0]
            .text
            .contains(&format!("tick {tick}"))
    );
    // start and end are the ends of the player's path
    let p = paths(&svg);
    let st = stretches(p[&player].attr("d"));
    let (first, last) = (st[0][0], *st.last().unwrap().last().unwrap());
    let circle = mark("report-start").find(|e| e.name == "circle")[0];
    let c: (f64, f64) = (
        circle.attr("cx").parse().unwrap(),
        circle.attr("cy").parse().unwrap(),
    );
    assert!(
        (c.0 - first[0]).abs() < 0.2 && (c.1 - first[1]).abs() < 0.2,
        "{c:?} {first:?}"
    );
    let rect = mark("report-end").find(|e| e.name == "rect")[0];
    let e: (f64, f64) = (
        rect.attr("x").parse::<f64>().unwrap() + 5.0,
        rect.attr("y").parse::<f64>().unwrap() + 5.0,
    );
    assert!(
        (e.0 - last[0]).abs() < 0.2 && (e.1 - last[1]).abs() < 0.2,
        "{e:?} {last:?}"
    );
    // the legend explains them; the labels do not overlap
    let legend = svg.find(|e| e.attr("id") == "legend")[0];
    assert!(
        legend
            .find(|t| t.name == "text")
            .iter()
            .any(|t| t.text == "reported player at the report")
    );
    let boxes = label_boxes(&svg, |t| {
        if t.text.starts_with(char::is_numeric) {
            9.0
        } else {
            11.0
        }
    });
    assert_no_overlap(&boxes);

    // a recording that is not a report has no report marks
    let svg = render(&sim, &dir.path().join("s.svg"), &[]);
    assert!(svg.find(|e| e.attr("id") == "report-marks").is_empty());
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.svg");
    let o = s(&out);
    // a missing file
    let missing = dir.path().join("nope.reel");
    fails(tickreel(&["render", s(&missing), "--out", o]), "nope.reel");
    // a damaged file: the middle of its chunks overwritten
    let damaged = dir.path().join("damaged.reel");
    let mut bytes = std::fs::read(golden()).unwrap();
    let n = bytes.len();
    for b in &mut bytes[n / 3..n / 3 + 64] {
        *b ^= 0x5a;
    }
    std::fs::write(&damaged, &bytes).unwrap();
    fails(
        tickreel(&["render", s(&damaged), "--out", o]),
        "damaged.reel",
    );
    assert!(!out.exists(), "nothing written on an error");
    // an entity the recording does not have
    let g = golden();
    let err = fails(
        tickreel(&["render", s(&g), "--out", o, "--entity", "77"]),
        "entity 77 has no position in ticks 0..=19",
    );
    assert!(err.contains("entities there: 1, 2, 3"), "{err}");
    // a range with nothing in it, and one backwards
    fails(
        tickreel(&["render", s(&g), "--out", o, "--from", "15", "--to", "3"]),
        "--from 15 is after --to 3",
    );
    fails(
        tickreel(&["render", s(&g), "--out", o, "--size", "10"]),
        "--size 10",
    );
    assert!(!out.exists());
    // an existing output is kept unless --force, and the input is never the output
    ok(tickreel(&["render", s(&g), "--out", o]));
    fails(tickreel(&["render", s(&g), "--out", o]), "already exists");
    ok(tickreel(&["render", s(&g), "--out", o, "--force"]));
    fails(
        tickreel(&["render", s(&g), "--out", s(&g), "--force"]),
        "refusing to write over the input",
    );
    // usage errors exit 2
    assert_eq!(tickreel(&["render", s(&g)]).status.code(), Some(2));
}
