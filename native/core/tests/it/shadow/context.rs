//! The context radius: an entity that came close once is in (with its whole track), one that
//! never did is out; custom events stay.

use std::collections::HashSet;
use std::time::Duration;

use tickreel::play::Reader;
use tickreel::record::{ReelOptions, ReelWriter};
use tickreel::shadow::{ReportOptions, ShadowOptions};
use tickreel::{Event, Pose};

use super::support::{assert_matches, report_meta, shadow_only, submit};

const PLAYER: u32 = 1;
const PASSED: u32 = 2;
const FAR: u32 = 3;

fn tick_events(t: u32) -> Vec<Event> {
    let x = f64::from(t) * 0.2; // 4 blocks a second along x
    let mut ev = Vec::new();
    if t == 0 {
        for (id, px, pz) in [
            (PLAYER, 0.0, 0.0),
            (PASSED, 100.0, 30.0),
            (FAR, 0.0, 1000.0),
        ] {
            ev.push(Event::EntityAdd {
                entity: id,
                kind: 1,
                pose: Pose::from_f64(px, 64.0, pz, 0.0, 0.0),
            });
        }
    }
    ev.push(Event::Pose {
        entity: PLAYER,
        pose: Pose::from_f64(x, 64.0, 0.0, 90.0, 0.0),
    });
    if t.is_multiple_of(7) {
        // The other two shuffle a little: tracks of their own.
        let d = f64::from(t % 3);
        ev.push(Event::Pose {
            entity: PASSED,
            pose: Pose::from_f64(100.0 + d, 64.0, 30.0, 0.0, 0.0),
        });
        ev.push(Event::Pose {
            entity: FAR,
            pose: Pose::from_f64(d, 64.0, 1000.0, 0.0, 0.0),
        });
    }
    if t.is_multiple_of(50) {
        ev.push(Event::Custom {
            type_id: 1,
            data: vec![t as u8; 3],
        });
    }
    ev
}

#[test]
fn an_entity_that_came_near_once_is_in_one_that_never_did_is_out() {
    let dir = tempfile::tempdir().unwrap();
    let (_engine, rec, shadow) = shadow_only(ShadowOptions {
        window: Duration::from_secs(60),
        ..ShadowOptions::default()
    });
    let straight_path = dir.path().join("straight.reel");
    let mut straight = ReelWriter::create(&straight_path, ReelOptions::compacted()).unwrap();
    // The player passes x = 100 at tick 500 (within 30 blocks of PASSED from x = 85 to 115),
    // and is 80 blocks past it at tick 1000.
    for t in 0..1000 {
        let ev = tick_events(t);
        straight.write_tick(t, &ev).unwrap();
        submit(&rec, t, &ev);
    }
    straight.finish().unwrap();
    rec.flush().unwrap();
    let out = dir.path().join("near.reel");
    shadow
        .report(
            PLAYER,
            &out,
            ReportOptions {
                after: Duration::ZERO,
                ..ReportOptions::default()
            },
        )
        .unwrap()
        .wait()
        .unwrap();
    let only: HashSet<u32> = [PLAYER, PASSED].into();
    assert_matches(
        &out,
        &Reader::open_path(&straight_path).unwrap(),
        Some(&only),
    );
    let r = Reader::open_path(&out).unwrap();
    let m = report_meta(&r);
    assert_eq!(
        m.get("context_entities"),
        Some(&fastnbt::Value::IntArray(fastnbt::IntArray::new(vec![
            PASSED as i32
        ])))
    );
    // Custom events are not anyone's: all of them stay.
    let customs = r
        .ticks(0, 999)
        .map(|t| t.unwrap())
        .flat_map(|t| t.events)
        .filter(|e| matches!(e, Event::Custom { .. }))
        .count();
    assert_eq!(customs, 20);

    // A radius of 10 blocks: PASSED never came that close.
    let out10 = dir.path().join("near10.reel");
    shadow
        .report(
            PLAYER,
            &out10,
            ReportOptions {
                after: Duration::ZERO,
                radius: Some(10.0),
                ..ReportOptions::default()
            },
        )
        .unwrap()
        .wait()
        .unwrap();
    let only: HashSet<u32> = [PLAYER].into();
    assert_matches(
        &out10,
        &Reader::open_path(&straight_path).unwrap(),
        Some(&only),
    );
}
