//! Leave and grace, memory budgets, reports racing each other, play and shutdown, bad arguments.

use std::time::Duration;

use tickreel::play::Reader;
use tickreel::shadow::{ReportOptions, ShadowBuffer, ShadowOptions};
use tickreel::{Engine, EngineOptions, Error, Event, Pose, RecorderOptions};

use super::support::{int, report_meta, run, shadow_only, sim, submit};

fn now() -> ReportOptions {
    ReportOptions {
        after: Duration::ZERO,
        ..ReportOptions::default()
    }
}

fn walk(t: u32, ids: &[u32]) -> Vec<Event> {
    ids.iter()
        .map(|&id| {
            let pose = Pose::from_f64(f64::from(t) * 0.1, 64.0, f64::from(id), 0.0, 0.0);
            if t == 0 {
                Event::EntityAdd {
                    entity: id,
                    kind: 1,
                    pose,
                }
            } else {
                Event::Pose { entity: id, pose }
            }
        })
        .collect()
}

/// Window 10 s (200 ticks), grace 5 s (100 ticks): a player reported 50 ticks after leaving gets
/// the 200 ticks before the leave; 250 ticks after, they are gone with a clear error.
#[test]
fn a_player_who_left_is_reportable_for_the_grace_period() {
    let dir = tempfile::tempdir().unwrap();
    let (_engine, rec, shadow) = shadow_only(ShadowOptions {
        window: Duration::from_secs(10),
        grace: Duration::from_secs(5),
        block_ticks: 20,
        ..ShadowOptions::default()
    });
    for t in 0..1000 {
        submit(&rec, t, &walk(t, &[1, 2]));
    }
    submit(&rec, 1000, &[Event::PlayerLeave { entity: 1 }]);
    for t in 1001..=1050 {
        submit(&rec, t, &walk(t, &[2]));
    }
    rec.flush().unwrap();
    let out = dir.path().join("left.reel");
    shadow.report(1, &out, now()).unwrap().wait().unwrap();
    let r = Reader::open_path(&out).unwrap();
    assert_eq!((r.first_tick(), r.last_tick()), (Some(801), Some(1050)));
    let m = report_meta(&r);
    assert_eq!(int(&m, "left_tick"), 1000);
    assert!(r.seek(999).unwrap().entities.get(1).is_some());
    assert!(r.seek(1000).unwrap().entities.get(1).is_none());

    for t in 1051..=1250 {
        submit(&rec, t, &walk(t, &[2]));
    }
    rec.flush().unwrap();
    match shadow.report(1, dir.path().join("late.reel"), now()) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("entity 1"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(!dir.path().join("late.reel").exists());
    // The other player is still there.
    shadow
        .report(2, dir.path().join("two.reel"), now())
        .unwrap()
        .wait()
        .unwrap();
}

/// `Recorder::player_left` starts the grace period as the event does.
#[test]
fn player_left_call_starts_the_grace_period() {
    let dir = tempfile::tempdir().unwrap();
    let (_engine, rec, shadow) = shadow_only(ShadowOptions {
        window: Duration::from_secs(10),
        grace: Duration::from_secs(5),
        block_ticks: 20,
        ..ShadowOptions::default()
    });
    for t in 0..500 {
        submit(&rec, t, &walk(t, &[1, 2]));
    }
    submit(&rec, 500, &[Event::EntityRemove { entity: 1 }]);
    rec.player_left(1).unwrap();
    for t in 501..=560 {
        submit(&rec, t, &walk(t, &[2]));
    }
    rec.flush().unwrap();
    assert_eq!(shadow.stats().departed_players, 1);
    let out = dir.path().join("left.reel");
    shadow.report(1, &out, now()).unwrap().wait().unwrap();
    let r = Reader::open_path(&out).unwrap();
    assert_eq!(r.first_tick(), Some(301));
}

/// A per-buffer budget too small for the window keeps the newest blocks and counts what it
/// dropped; the report says where it really starts.
#[test]
fn a_budget_too_small_keeps_the_newest_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, rec, shadow) = shadow_only(ShadowOptions {
        max_bytes: Some(64 << 10),
        block_ticks: 100,
        ..ShadowOptions::default()
    });
    let mut s = sim(20);
    let players = run(&rec, &mut s, 4000);
    rec.flush().unwrap();
    let st = shadow.stats();
    assert!(st.budget_dropped_blocks > 0, "{st:?}");
    assert!(st.bytes <= 64 << 10, "{st:?}");
    assert_eq!(st.last_tick, Some(3999));
    assert!(st.first_tick.unwrap() > 0);
    assert_eq!(engine.stats().shadow_bytes, st.bytes);
    let out = dir.path().join("b.reel");
    shadow
        .report(players[0], &out, now())
        .unwrap()
        .wait()
        .unwrap();
    let r = Reader::open_path(&out).unwrap();
    assert_eq!(r.first_tick(), st.first_tick);
    assert_eq!(
        int(&report_meta(&r), "first_tick"),
        i64::from(st.first_tick.unwrap())
    );
}

/// The engine-wide budget over two worlds: the oldest blocks go first, whichever world has them.
#[test]
fn the_engine_budget_takes_the_oldest_blocks_of_any_world() {
    let engine = Engine::new(EngineOptions {
        shadow_budget_bytes: 96 << 10,
        ..EngineOptions::default()
    })
    .unwrap();
    let opts = ShadowOptions {
        block_ticks: 50,
        ..ShadowOptions::default()
    };
    let (a, sa) = ShadowBuffer::start(&engine, None, RecorderOptions::default(), opts).unwrap();
    let (b, sb) = ShadowBuffer::start(&engine, None, RecorderOptions::default(), opts).unwrap();
    let (mut s1, mut s2) = (sim(10), sim(10));
    run(&a, &mut s1, 2000);
    a.flush().unwrap();
    run(&b, &mut s2, 2000);
    b.flush().unwrap();
    let (x, y) = (sa.stats(), sb.stats());
    let e = engine.stats();
    assert!(e.shadow_bytes <= 96 << 10, "{e:?}");
    assert_eq!(e.shadow_bytes, x.bytes + y.bytes);
    assert!(e.shadow_budget_dropped_blocks > 0);
    // World a, written first, gave up more than world b.
    assert!(
        x.budget_dropped_blocks > y.budget_dropped_blocks,
        "{x:?} {y:?}"
    );
    drop((a, b));
    drop((sa, sb));
    engine.shutdown();
    assert_eq!(engine.stats().shadow_bytes, 0);
}

/// Two reports of the same player and one of another, at once, while play goes on: all written.
#[test]
fn reports_race_each_other_and_play() {
    let dir = tempfile::tempdir().unwrap();
    let (_engine, rec, shadow) = shadow_only(ShadowOptions::default());
    let mut s = sim(12);
    let players = run(&rec, &mut s, 2000);
    // The writer hands ticks to the shadow buffer on its own thread: on a busy machine it may not
    // have reached any yet ("the shadowed stream has no ticks yet"). The race here is between
    // the reports and play, so start once the stream has its ticks.
    rec.flush().unwrap();
    let mut handles = Vec::new();
    std::thread::scope(|sc| {
        let mut joins = Vec::new();
        for (i, p) in [players[0], players[0], players[5]].into_iter().enumerate() {
            let shadow = shadow.clone();
            let path = dir.path().join(format!("r{i}.reel"));
            joins.push(sc.spawn(move || {
                shadow
                    .report(
                        p,
                        &path,
                        ReportOptions {
                            after: Duration::from_secs(2),
                            ..ReportOptions::default()
                        },
                    )
                    .unwrap()
            }));
        }
        run(&rec, &mut s, 200);
        handles.extend(joins.into_iter().map(|j| j.join().unwrap()));
    });
    // Every capture ends within these ticks (a report made at the last tick above included).
    run(&rec, &mut s, 100);
    for mut h in handles {
        let p = h
            .wait_timeout(Duration::from_secs(30))
            .unwrap()
            .as_ref()
            .unwrap()
            .clone();
        let r = Reader::open_path(&p).unwrap();
        r.verify().unwrap();
        let m = report_meta(&r);
        assert_eq!(int(&m, "after_ticks"), 40);
    }
    assert_eq!(shadow.stats().reports_started, 3);
}

/// Shutting the engine down while a report captures: the report is written with what there is,
/// or fails cleanly; nothing partial is left. A report after the shutdown fails cleanly.
#[test]
fn shutdown_while_a_report_captures() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, rec, shadow) = shadow_only(ShadowOptions::default());
    let mut s = sim(5);
    let players = run(&rec, &mut s, 600);
    rec.flush().unwrap();
    let out = dir.path().join("s.reel");
    let mut h = shadow
        .report(players[1], &out, ReportOptions::default())
        .unwrap();
    engine.shutdown();
    match h.wait_timeout(Duration::from_secs(30)).expect("answered") {
        Ok(p) => {
            let r = Reader::open_path(p).unwrap();
            r.verify().unwrap();
            assert_eq!(r.last_tick(), Some(599));
        }
        Err(e) => {
            assert!(!out.exists(), "{e}");
        }
    }
    let late = dir.path().join("late.reel");
    let r = shadow
        .report(players[1], &late, now())
        .and_then(|h| h.wait());
    assert!(r.is_err());
    assert!(!late.exists());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn bad_reports_are_refused_at_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, rec, shadow) = shadow_only(ShadowOptions::default());
    let p = dir.path().join("x.reel");
    assert!(matches!(
        shadow.report(1, &p, now()),
        Err(Error::InvalidState(_))
    ));
    for t in 0..10 {
        submit(&rec, t, &walk(t, &[1]));
    }
    rec.flush().unwrap();
    assert!(matches!(
        shadow.report(99, &p, now()),
        Err(Error::InvalidArgument(_))
    ));
    let nan = ReportOptions {
        radius: Some(f64::NAN),
        ..now()
    };
    assert!(matches!(
        shadow.report(1, &p, nan),
        Err(Error::InvalidArgument(_))
    ));
    let reserved = ReportOptions {
        metadata: vec![("player".into(), fastnbt::Value::Int(3))],
        ..now()
    };
    assert!(matches!(
        shadow.report(1, &p, reserved),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        shadow.report(1, "", now()),
        Err(Error::InvalidArgument(_))
    ));
    assert!(
        ShadowBuffer::start(
            &engine,
            None,
            RecorderOptions::default(),
            ShadowOptions {
                window: Duration::ZERO,
                ..ShadowOptions::default()
            }
        )
        .is_err()
    );
    // A stream without a file has nothing to finish.
    assert!(matches!(rec.finish(), Err(Error::InvalidState(_))));
    // A report onto an existing file is refused unless asked to overwrite.
    std::fs::write(&p, b"x").unwrap();
    let e = shadow.report(1, &p, now()).unwrap().wait().unwrap_err();
    assert!(e.to_string().contains("already exists"), "{e}");
    assert_eq!(e.io_kind(), Some(std::io::ErrorKind::AlreadyExists), "{e}");
    assert_eq!(e.path(), Some(p.as_path()));
    assert_eq!(std::fs::read(&p).unwrap(), b"x");
}

/// A game that never sends `EntityAdd` (only poses, as the README's quick start does) can report
/// its players: the buffer knows a player from any event that names it. Gone once the window no
/// longer holds it.
#[test]
fn a_player_recorded_only_with_poses_can_be_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (_engine, rec, shadow) = shadow_only(ShadowOptions {
        window: Duration::from_secs(10),
        block_ticks: 20,
        ..ShadowOptions::default()
    });
    let poses = |t: u32, ids: &[u32]| -> Vec<Event> {
        ids.iter()
            .map(|&id| Event::Pose {
                entity: id,
                pose: Pose::from_f64(f64::from(t) * 0.1, 64.0, f64::from(id), 0.0, 0.0),
            })
            .collect()
    };
    for t in 0..300 {
        submit(&rec, t, &poses(t, &[7, 8]));
    }
    rec.flush().unwrap();
    let out = dir.path().join("poses.reel");
    shadow.report(7, &out, now()).unwrap().wait().unwrap();
    let r = Reader::open_path(&out).unwrap();
    assert_eq!((r.first_tick(), r.last_tick()), (Some(100), Some(299)));
    assert!(r.seek(299).unwrap().entities.get(7).is_some());

    // 8 stops being named (it stood still and the game sent nothing); 7 goes on. Once the
    // window no longer holds 8, it is gone with the error a player never seen gets.
    for t in 300..=560 {
        submit(&rec, t, &poses(t, &[7]));
    }
    rec.flush().unwrap();
    match shadow.report(8, dir.path().join("eight.reel"), now()) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("entity 8"), "{m}"),
        other => panic!("{other:?}"),
    }
}
