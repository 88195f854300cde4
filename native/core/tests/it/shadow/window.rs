//! A report holds exactly the documented window plus the capture after the report, and matches a
//! straight recording of the same ticks.

use std::time::Duration;

use tickreel::play::Reader;
use tickreel::record::{ReelOptions, ReelWriter};
use tickreel::shadow::{ReportOptions, ShadowBuffer, ShadowOptions};
use tickreel::{Engine, EngineOptions, RecorderOptions};

use super::support::{assert_matches, int, report_meta, run, shadow_only, sim, submit};

/// A recording that is also shadowed: after 7 minutes at 20 ticks/s the report of a player holds
/// the 5 minutes before the report and the 30 s after it, tick for tick what the recording holds.
#[test]
fn a_report_after_seven_minutes_holds_five_minutes_and_the_capture() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let path = dir.path().join("world.reel");
    let (rec, shadow) = ShadowBuffer::start(
        &engine,
        Some(&path),
        RecorderOptions::default(),
        ShadowOptions::default(),
    )
    .unwrap();
    let mut s = sim(10);
    let players = run(&rec, &mut s, 7 * 60 * 20);
    rec.flush().unwrap();
    let report_tick = 7 * 60 * 20 - 1;
    let out = dir.path().join("report.reel");
    let mut handle = shadow
        .report(
            players[3],
            &out,
            ReportOptions {
                radius: None,
                metadata: vec![
                    ("reporter".into(), fastnbt::Value::String("Steve".into())),
                    ("reason".into(), fastnbt::Value::String("fly".into())),
                ],
                ..ReportOptions::default()
            },
        )
        .unwrap();
    // The capture goes on for 30 s of game time; the report is not written before.
    run(&rec, &mut s, 500);
    rec.flush().unwrap();
    assert!(handle.poll().is_none(), "written before its capture ended");
    run(&rec, &mut s, 200);
    assert_eq!(
        handle
            .wait_timeout(Duration::from_secs(30))
            .unwrap()
            .as_ref()
            .unwrap(),
        &out
    );
    let straight = rec.finish().unwrap().wait().unwrap();
    let straight = Reader::open_path(straight).unwrap();

    let r = Reader::open_path(&out).unwrap();
    assert_eq!(r.first_tick(), Some(report_tick - 6000 + 1));
    assert_eq!(r.last_tick(), Some(report_tick + 600));
    // A recording of its own: an id, not the shadowed recording's.
    assert!(r.recording_id().is_some());
    assert_ne!(r.recording_id(), straight.recording_id());
    let m = report_meta(&r);
    assert_eq!(int(&m, "player"), i64::from(players[3]));
    assert_eq!(int(&m, "report_tick"), i64::from(report_tick));
    assert_eq!(int(&m, "before_ticks"), 6000);
    assert_eq!(int(&m, "after_ticks"), 600);
    assert_eq!(m.get("reason"), Some(&fastnbt::Value::String("fly".into())));
    assert_matches(&out, &straight, None);

    let st = shadow.stats();
    assert!(st.first_tick.unwrap() <= report_tick + 700 - 6000 + 1);
    assert!(st.expired_blocks > 0);
    assert_eq!(st.budget_dropped_blocks, 0);
}

/// A world shadowed without being recorded: the same window, against a straight file written by
/// the synchronous writer from the same ticks.
#[test]
fn a_shadow_only_stream_reports_what_a_straight_recording_holds() {
    let dir = tempfile::tempdir().unwrap();
    let (_engine, rec, shadow) = shadow_only(ShadowOptions {
        window: Duration::from_secs(60),
        ..ShadowOptions::default()
    });
    assert!(!rec.is_persistent());
    let straight_path = dir.path().join("straight.reel");
    let mut straight = ReelWriter::create(&straight_path, ReelOptions::compacted()).unwrap();
    let mut s = sim(8);
    let mut players = Vec::new();
    for _ in 0..3000 {
        let (t, events) = s.step();
        for e in &events {
            if let tickreel::Event::EntityAdd { entity, .. } = e {
                players.push(*entity);
            }
        }
        straight.write_tick(t, &events).unwrap();
        submit(&rec, t, &events);
    }
    straight.finish().unwrap();
    rec.flush().unwrap();
    let out = dir.path().join("r.reel");
    let mut h = shadow
        .report(
            players[0],
            &out,
            ReportOptions {
                after: Duration::ZERO,
                radius: None,
                ..ReportOptions::default()
            },
        )
        .unwrap();
    assert_eq!(
        h.wait_timeout(Duration::from_secs(30))
            .unwrap()
            .as_ref()
            .unwrap(),
        &out
    );
    let r = Reader::open_path(&out).unwrap();
    assert_eq!(
        (r.first_tick(), r.last_tick()),
        (Some(3000 - 1200), Some(2999))
    );
    assert_matches(&out, &Reader::open_path(&straight_path).unwrap(), None);
    // Nothing of the stream ever touched the disk but the report.
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["r.reel", "straight.reel"]);
    rec.close().unwrap();
    assert!(!shadow.is_attached());
}
