//! What a report holds of the world (the game's snapshots and custom events): a report cut from
//! the middle of a stream without a snapshot at its first tick says that the world before it is
//! unknown; one that starts with the stream, or at a snapshot, rebuilds it completely.

use std::time::Duration;

use tickreel::play::{Playhead, Recording};
use tickreel::shadow::{ReportOptions, ShadowOptions};
use tickreel::{Event, Pose};

use super::support::{shadow_only, submit};

/// Window 10 s (200 ticks), blocks of 20 ticks; entity 1 walks, a custom event (a block the game
/// changed) every 10 ticks, a game snapshot offered before tick 0 and every 100 ticks.
fn stream(
    until: u32,
) -> (
    tickreel::Engine,
    tickreel::Recorder,
    tickreel::shadow::ShadowBuffer,
) {
    let (engine, rec, shadow) = shadow_only(ShadowOptions {
        window: Duration::from_secs(10),
        block_ticks: 20,
        ..ShadowOptions::default()
    });
    for t in 0..=until {
        if t % 100 == 0 {
            rec.offer_snapshot(format!("world at {t}").into_bytes())
                .unwrap();
        }
        let pose = Pose::from_f64(f64::from(t) * 0.1, 64.0, 0.0, 0.0, 0.0);
        let mut events = vec![if t == 0 {
            Event::EntityAdd {
                entity: 1,
                kind: 1,
                pose,
            }
        } else {
            Event::Pose { entity: 1, pose }
        }];
        if t % 10 == 5 {
            events.push(Event::Custom {
                type_id: 1,
                data: t.to_le_bytes().to_vec(),
            });
        }
        submit(&rec, t, &events);
    }
    rec.flush().unwrap();
    (engine, rec, shadow)
}

/// The world rebuild of a playhead opened at `tick` of `path`: (snapshot, complete, cut short,
/// custom events).
fn rebuild_at(path: &std::path::Path, tick: u32) -> (Option<Vec<u8>>, bool, bool, usize) {
    let rec = Recording::open_path(path).unwrap();
    let p = Playhead::new_at(rec, tick).unwrap();
    let u = p.update();
    match u.rebuild() {
        Some(rb) => (
            rb.snapshot().map(<[u8]>::to_vec),
            rb.complete(),
            rb.cut_short(),
            rb.events().count(),
        ),
        None => panic!("a new playhead rebuilds the world"),
    }
}

fn now() -> ReportOptions {
    ReportOptions {
        after: Duration::ZERO,
        ..ReportOptions::default()
    }
}

#[test]
fn a_report_cut_mid_world_says_the_world_before_it_is_unknown() {
    let dir = tempfile::tempdir().unwrap();
    // Reported at tick 609: the window starts at 410, inside the block 400..=419 whose snapshot
    // (offered before 400) the report cannot carry.
    let (_engine, _rec, shadow) = stream(609);
    let out = dir.path().join("mid.reel");
    shadow.report(1, &out, now()).unwrap().wait().unwrap();
    let r = tickreel::play::Reader::open_path(&out).unwrap();
    assert_eq!(r.first_tick(), Some(410));
    assert!(r.metadata().library.starts_mid_world);
    // Opened at its first tick: not an empty world claimed complete.
    let (snapshot, complete, cut_short, _) = rebuild_at(&out, 410);
    assert_eq!(snapshot, None);
    assert!(
        cut_short && !complete,
        "the world before tick 410 is unknown"
    );
    // From its first snapshot on (the one offered before 500), the rebuild is complete.
    let (snapshot, complete, cut_short, events) = rebuild_at(&out, 530);
    assert_eq!(snapshot.as_deref(), Some(&b"world at 500"[..]));
    assert!(complete && !cut_short);
    assert_eq!(events, 3); // 505, 515, 525
}

#[test]
fn a_report_from_the_streams_start_or_a_snapshot_is_complete() {
    let dir = tempfile::tempdir().unwrap();
    // Reported at tick 150: the window (200 ticks) reaches the stream's start.
    let (_engine, _rec, shadow) = stream(150);
    let out = dir.path().join("start.reel");
    shadow.report(1, &out, now()).unwrap().wait().unwrap();
    let r = tickreel::play::Reader::open_path(&out).unwrap();
    assert_eq!(r.first_tick(), Some(0));
    assert!(!r.metadata().library.starts_mid_world);
    let (_, complete, cut_short, events) = rebuild_at(&out, 30);
    assert!(complete && !cut_short);
    assert_eq!(events, 3);

    // Reported at tick 599: the window starts at 400, the block that carries the snapshot
    // offered before 400.
    let (_engine, _rec, shadow) = stream(599);
    let out = dir.path().join("snap.reel");
    shadow.report(1, &out, now()).unwrap().wait().unwrap();
    let r = tickreel::play::Reader::open_path(&out).unwrap();
    assert_eq!(r.first_tick(), Some(400));
    assert!(!r.metadata().library.starts_mid_world);
    let (snapshot, complete, cut_short, _) = rebuild_at(&out, 400);
    assert_eq!(snapshot.as_deref(), Some(&b"world at 400"[..]));
    assert!(complete && !cut_short);
}
