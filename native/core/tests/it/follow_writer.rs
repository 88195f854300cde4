//! A follower tells a live writer from a gone one: the live directory of a writer that crashed or
//! closed the recording is reported abandoned, and live again once the recording is resumed.

use crate::common;

use std::time::Duration;

use tickreel::play::{FollowOptions, FollowState, LiveFollower};
use tickreel::{Engine, EngineOptions};

#[test]
fn a_follower_reports_a_gone_writer_and_sees_it_come_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.reel");
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(&path, common::flushed_when_asked())
        .unwrap();
    for t in 0..5 {
        rec.submit_tick(t, &common::pose_tick(1, i64::from(t)))
            .unwrap();
    }
    rec.flush().unwrap();
    let lost_after = Duration::from_millis(150);
    let follower = LiveFollower::open(
        &path,
        FollowOptions {
            background: false,
            lost_after,
            ..FollowOptions::default()
        },
    )
    .unwrap();
    assert_eq!(follower.refresh(), FollowState::Live);
    // An idle writer that still holds the directory stays live.
    std::thread::sleep(lost_after * 2);
    assert_eq!(follower.refresh(), FollowState::Live);
    // The writer goes away (as after a crash, the lock is free and the directory stays).
    rec.close().unwrap();
    drop(rec);
    let mut state = follower.refresh();
    let start = std::time::Instant::now();
    while state != FollowState::Abandoned && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
        state = follower.refresh();
    }
    assert_eq!(state, FollowState::Abandoned);
    // Resumed and flushed: live again, with the new ticks.
    let rec = engine
        .start_recording(&path, common::flushed_when_asked())
        .unwrap();
    rec.submit_tick(5, &common::pose_tick(1, 5)).unwrap();
    rec.flush().unwrap();
    assert_eq!(follower.refresh(), FollowState::Live);
    assert_eq!(follower.stats().last_tick, Some(5));
    rec.finish().unwrap().wait().unwrap();
    assert_eq!(follower.refresh(), FollowState::Finished);
}
