//! Live following: a playhead on a recording still being written (by another process or by an
//! engine in this one), waiting for the first tick, waiting at the live edge, and the switch-over
//! to the compacted file.

use crate::common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tickreel::format::EntityTable;
use tickreel::play::{
    FollowOptions, FollowState, LiveFollower, Motion, PlaybackContext, Playhead, Reader, Update,
};
use tickreel::record::FlushPolicy;
use tickreel::storage::live::live_dir_for;
use tickreel::{Engine, EngineOptions, RecorderOptions};

use crate::common::batch;

fn follow_options(poll_ms: u64) -> FollowOptions {
    FollowOptions {
        poll_interval: Duration::from_millis(poll_ms),
        context: Some(PlaybackContext::new(64 << 20, 2, 64)),
        ..FollowOptions::default()
    }
}

/// Straight decode of a file: the entity table after every tick.
fn straight(path: &Path) -> BTreeMap<u32, EntityTable> {
    let r = Reader::open_path(path).unwrap();
    let mut t = EntityTable::default();
    r.ticks(0, u32::MAX)
        .map(|d| {
            let d = d.unwrap();
            for e in &d.events {
                t.apply(e);
            }
            (d.tick, t.clone())
        })
        .collect()
}

/// What a plugin would hold, built only from the updates: the state after every tick reached.
#[derive(Default)]
struct Shadow {
    table: EntityTable,
    /// `(tick, state)` for every tick the playhead reached, in order.
    seen: Vec<(u32, EntityTable)>,
    faults: usize,
    jumps: usize,
}

impl Shadow {
    fn apply(&mut self, u: &Update) {
        self.faults += u.faults().len();
        assert!(
            !u.waiting || u.entities().is_empty(),
            "a waiting playhead has no entities"
        );
        match u.motion {
            Motion::Still => {}
            Motion::Jump => {
                self.jumps += 1;
                self.table = u.table();
                self.seen.push((u.to, self.table.clone()));
            }
            Motion::Forward => {
                let mut spans = u.ticks().peekable();
                for t in u.from + 1..=u.to {
                    if let Some((_, events)) = spans.next_if(|(st, _)| *st == t) {
                        for e in events {
                            self.table.apply(e);
                        }
                    }
                    self.seen.push((t, self.table.clone()));
                }
                assert!(spans.next().is_none(), "spans outside from..=to");
                assert_eq!(self.table, u.table(), "events and entities disagree");
            }
        }
    }

    fn check_against(&self, expected: &BTreeMap<u32, EntityTable>) {
        assert!(!self.seen.is_empty());
        for (t, state) in &self.seen {
            let want = expected
                .get(t)
                .unwrap_or_else(|| panic!("tick {t} not in the final file"));
            assert_eq!(state, want, "state at tick {t}");
        }
    }
}

fn until<T>(what: &str, limit: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let end = Instant::now() + limit;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn follows_a_recording_written_by_another_process_then_switches_to_the_final_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("other.reel");
    let live = live_dir_for(&out);
    let mut child = Command::new(env!("CARGO_BIN_EXE_tickreel"))
        .args(["simulate", "--out", out.to_str().unwrap()])
        // 7.5 s: long enough to be seen growing a few times on a busy machine
        .args(["--players", "4", "--ticks", "1500", "--tps", "200"])
        .args(["--flush-ms", "50", "--chunk-ticks", "20"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let lines = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map(Result::unwrap)
            .collect::<Vec<_>>()
    });

    let follower = LiveFollower::open(&out, follow_options(20)).unwrap();
    let rec = follower.recording().clone();
    let mut ph = Playhead::new(rec.clone()).unwrap();
    ph.set_speed(4.0).unwrap();
    ph.play();
    let mut shadow = Shadow::default();
    shadow.apply(ph.update());

    // Views seen while the writer was still running, and ticks played during that time.
    let mut live_versions: Vec<u32> = Vec::new();
    let mut played_while_live = 0u32;
    let mut exit = None;
    // Calls after the switch-over that found the playhead settled at the last tick.
    let mut settled_after_switch = 0;
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < deadline, "timed out following");
        if exit.is_none() {
            exit = child.try_wait().unwrap();
        }
        let writer_running = exit.is_none();
        let u = ph.advance();
        shadow.apply(u);
        if writer_running && follower.state() == FollowState::Live {
            if let Some(l) = rec.view().reader().last_tick()
                && live_versions.last() != Some(&l)
            {
                live_versions.push(l);
            }
            if !ph.is_waiting() {
                played_while_live = played_while_live.max(ph.position());
            }
        }
        let finished = follower.is_finished();
        let last = rec.view().reader().last_tick();
        let u = ph.update();
        if finished && u.at_edge && !u.stalled && Some(u.to) == last {
            // The switch-over happened before this call: the playhead has met it.
            settled_after_switch += 1;
            if settled_after_switch == 3 {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let status = match exit {
        Some(s) => s,
        None => child.wait().unwrap(),
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(status.success(), "simulate failed: {err}");
    let lines = lines.join().unwrap();
    assert!(
        lines
            .iter()
            .any(|l| l == &format!("finished {}", out.display())),
        "{lines:?}"
    );

    // New ticks appeared while the writer ran: several growing versions, and the playhead
    // followed them.
    assert!(
        live_versions.len() >= 3,
        "versions seen while live: {live_versions:?}"
    );
    assert!(live_versions.windows(2).all(|w| w[0] < w[1]));
    assert!(played_while_live > 0, "nothing played while the writer ran");
    assert!(follower.stats().updates >= 3, "{:?}", follower.stats());

    // Switched over to the final file; the live directory is gone.
    assert_eq!(follower.state(), FollowState::Finished);
    assert_eq!(follower.stats().switches, 1);
    assert!(!live.exists());
    let fin = Reader::open_path(&out).unwrap();
    assert_eq!(rec.view().reader().index(), fin.index());
    assert_eq!(ph.position(), 1499);
    assert_eq!(fin.last_tick(), Some(1499));

    // Every state reached equals a straight decode of the final file; never a fault; the
    // switch-over re-applied nothing (the only jump is the first position).
    assert_eq!(shadow.faults, 0);
    assert_eq!(ph.stats().faults, 0);
    shadow.check_against(&straight(&out));
    assert_eq!(shadow.seen.last().unwrap().0, 1499);
    assert_eq!(shadow.jumps, 1, "the switch-over is not a jump");
    assert_eq!(ph.stats().jumps, 1);
}

fn engine_options() -> RecorderOptions {
    let mut o = RecorderOptions {
        flush: FlushPolicy {
            max_pending_bytes: 64 << 20,
            // Only explicit flushes.
            interval: Duration::from_secs(3600),
            on_player_leave: false,
        },
        ..RecorderOptions::default()
    };
    o.chunk_policy.chunk_ticks = 20;
    o
}

/// Plays until `tick` is reached, applying every update to `shadow`.
fn play_to(ph: &mut Playhead, shadow: &mut Shadow, tick: u32) {
    until(&format!("tick {tick}"), Duration::from_secs(10), || {
        let u = ph.advance();
        shadow.apply(u);
        (!ph.is_waiting() && ph.position() == tick).then_some(())
    });
}

#[test]
fn same_process_following_sees_flushed_ticks_and_waits_at_the_edge() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("same.reel");
    let ticks = common::sim_ticks(5, 400, 11);
    let expected: BTreeMap<u32, EntityTable> =
        common::expected_states(&ticks).into_iter().collect();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let recorder = engine.start_recording(&out, engine_options()).unwrap();
    for (t, e) in &ticks[..100] {
        recorder.submit_tick(*t, &batch(e)).unwrap();
    }
    recorder.flush().unwrap();

    let follower = LiveFollower::open(&out, follow_options(10)).unwrap();
    assert_eq!(follower.state(), FollowState::Live);
    let rec = follower.recording().clone();
    assert_eq!(rec.view().reader().last_tick(), Some(99));
    let mut ph = Playhead::new(rec.clone()).unwrap();
    ph.set_speed(2.0).unwrap();
    ph.play();
    let mut shadow = Shadow::default();
    shadow.apply(ph.update());
    play_to(&mut ph, &mut shadow, 99);

    for round in 1..4u32 {
        let edge = round * 100 - 1;
        // At the edge: still, reported, and the same state however often it is asked.
        for _ in 0..5 {
            let u = ph.advance();
            assert!(u.at_edge, "round {round}");
            assert_eq!(u.motion, Motion::Still);
            assert_eq!(u.to, edge);
            shadow.apply(u);
        }
        // Ticks submitted but not flushed are not visible.
        let range = (round * 100) as usize..((round + 1) * 100) as usize;
        for (t, e) in &ticks[range] {
            recorder.submit_tick(*t, &batch(e)).unwrap();
        }
        follower.refresh();
        assert_eq!(rec.view().reader().last_tick(), Some(edge));
        assert!(ph.advance().at_edge);
        // Once flush() returns they appear (the follower polls every 10 ms) and play on.
        recorder.flush().unwrap();
        let next = edge + 100;
        until("the flushed ticks", Duration::from_secs(5), || {
            (rec.view().reader().last_tick() == Some(next)).then_some(())
        });
        play_to(&mut ph, &mut shadow, next);
        assert_eq!(follower.state(), FollowState::Live);
    }
    assert!(follower.stats().updates >= 4, "{:?}", follower.stats());
    // A second viewer in the middle of the recording when it is finished.
    let mut mid = Playhead::new_at(rec.clone(), 150).unwrap();
    let mut mid_shadow = Shadow::default();
    mid_shadow.apply(mid.update());

    // Finish: the follower switches to the compacted file; the playhead stays put, then plays
    // nothing more (the last tick is the edge for good).
    let path = recorder.finish().unwrap().wait().unwrap();
    assert_eq!(path, out);
    until("the switch-over", Duration::from_secs(10), || {
        follower.is_finished().then_some(())
    });
    assert!(!live_dir_for(&out).exists());
    for _ in 0..5 {
        let u = ph.advance();
        // (possibly stalled while the final file's chunk is decoded)
        assert_eq!(
            u.motion,
            Motion::Still,
            "nothing to re-apply after the switch"
        );
        assert_eq!(u.to, 399);
        shadow.apply(u);
    }
    ph.prepare();
    let u = ph.advance();
    assert!(u.at_edge && !u.stalled);
    assert_eq!(u.to, 399);
    assert_eq!(rec.view().reader().describe(), out.display().to_string());
    assert_eq!(shadow.faults, 0);
    assert_eq!(shadow.jumps, 1);
    shadow.check_against(&expected);
    assert_eq!(shadow.seen.last().unwrap().0, 399);
    // The viewer in the middle continues at the same tick with nothing to re-apply, then plays.
    let u = mid.advance();
    assert_eq!((u.motion, u.to), (Motion::Still, 150));
    mid.prepare();
    assert_eq!((mid.advance().motion, mid.position()), (Motion::Still, 150));
    mid.play();
    play_to(&mut mid, &mut mid_shadow, 399);
    assert_eq!(mid_shadow.jumps, 1);
    assert_eq!(mid.stats().jumps, 1);
    mid_shadow.check_against(&expected);
    // And the compacted file says the same.
    assert_eq!(straight(&out), expected);
    engine.shutdown();
}

#[test]
fn a_playhead_on_an_empty_live_recording_waits_then_plays() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("empty.reel");
    let ticks = common::sim_ticks(3, 120, 5);
    let expected: BTreeMap<u32, EntityTable> =
        common::expected_states(&ticks).into_iter().collect();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let recorder = engine.start_recording(&out, engine_options()).unwrap();

    let follower = LiveFollower::open(&out, follow_options(10)).unwrap();
    assert_eq!(follower.state(), FollowState::Waiting);
    let rec: Arc<_> = follower.recording().clone();
    let mut ph = Playhead::new(rec.clone()).unwrap();
    let mut at = Playhead::new_at(rec.clone(), 50).unwrap();
    assert!(ph.is_waiting() && at.is_waiting());
    assert!(ph.update().waiting && ph.entities().is_empty());
    ph.play();
    let mut shadow = Shadow::default();
    shadow.apply(ph.update());
    // Ticks submitted, not yet flushed: still waiting, nothing to show, no error.
    for (t, e) in &ticks[..80] {
        recorder.submit_tick(*t, &batch(e)).unwrap();
    }
    for _ in 0..20 {
        let u = ph.advance();
        assert!(u.waiting && u.motion == Motion::Still && u.entities().is_empty());
        assert!(u.faults().is_empty());
        shadow.apply(u);
        assert!(at.step_forward().waiting);
        assert!(at.seek(50).unwrap().waiting);
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(follower.refresh(), FollowState::Waiting);

    recorder.flush().unwrap();
    // The first update with data is a jump to the first tick that spawns everything.
    let first = until("the first tick", Duration::from_secs(5), || {
        let u = ph.advance();
        shadow.apply(u);
        (!u.waiting && u.motion == Motion::Jump).then(|| (u.to, u.added().len()))
    });
    assert_eq!(first.0, 0);
    assert_eq!(first.1, expected[&0].len());
    assert!(!ph.is_waiting());
    play_to(&mut ph, &mut shadow, 79);
    assert!(ph.advance().at_edge);
    // The other playhead goes where it was asked to.
    until("tick 50", Duration::from_secs(5), || {
        let u = at.advance();
        (!u.waiting && u.motion == Motion::Jump).then_some(())
    });
    assert_eq!(at.position(), 50);
    assert_eq!(at.update().table(), expected[&50]);

    for (t, e) in &ticks[80..] {
        recorder.submit_tick(*t, &batch(e)).unwrap();
    }
    recorder.finish().unwrap().wait().unwrap();
    until("the switch-over", Duration::from_secs(10), || {
        follower.is_finished().then_some(())
    });
    play_to(&mut ph, &mut shadow, 119);
    assert_eq!(shadow.faults, 0);
    assert_eq!(shadow.jumps, 1);
    shadow.check_against(&expected);
    engine.shutdown();
}

#[test]
fn following_a_finished_recording_opens_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("done.reel");
    let ticks = common::sim_ticks(2, 60, 9);
    common::write_reel(&out, &ticks, Default::default());
    let follower = LiveFollower::open(
        &out,
        FollowOptions {
            background: false,
            ..follow_options(10)
        },
    )
    .unwrap();
    assert!(follower.is_finished());
    assert_eq!(follower.recording().view().reader().last_tick(), Some(59));
    let mut ph = Playhead::new(follower.recording().clone()).unwrap();
    assert!(!ph.is_waiting());
    assert_eq!(ph.seek(59).unwrap().to, 59);
}

#[test]
fn an_aborted_live_recording_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("aborted.reel");
    let ticks = common::sim_ticks(2, 100, 2);
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let recorder = engine.start_recording(&out, engine_options()).unwrap();
    for (t, e) in &ticks {
        recorder.submit_tick(*t, &batch(e)).unwrap();
    }
    recorder.flush().unwrap();
    let follower = LiveFollower::open(
        &out,
        FollowOptions {
            background: false,
            lost_after: Duration::ZERO,
            ..follow_options(10)
        },
    )
    .unwrap();
    assert_eq!(follower.state(), FollowState::Live);
    recorder.abort().unwrap();
    assert!(!live_dir_for(&out).exists());
    // The last view stays readable: its segment files were opened before they were deleted
    // (no chunk had been read from them yet).
    let mut ph = Playhead::new(follower.recording().clone()).unwrap();
    assert_eq!(follower.refresh(), FollowState::Lost);
    assert_eq!(ph.seek(99).unwrap().to, 99);
    assert!(ph.update().faults().is_empty());
    engine.shutdown();
}

#[test]
fn the_play_command_follows_a_recording_until_it_is_finished() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cli.reel");
    let bin = env!("CARGO_BIN_EXE_tickreel");
    let o = out.to_str().unwrap();
    // The player starts first and waits for the recording to appear (its first line says so
    // before the writer is even started): --wait, since the path does not exist yet.
    let mut player = Command::new(bin)
        .args([
            "play",
            o,
            "--follow",
            "--wait",
            "--poll-ms",
            "20",
            "--max-ms",
            "60000",
        ])
        .args(["--speed", "2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(player.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let writer = Command::new(bin)
        .args(["simulate", "--out", o, "--players", "3", "--ticks", "300"])
        .args(["--tps", "200", "--flush-ms", "50", "--chunk-ticks", "20"])
        .output()
        .unwrap();
    assert!(writer.status.success());
    let rest: Vec<String> = stdout.lines().map(Result::unwrap).collect();
    let played = player.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&played.stderr);
    assert!(played.status.success(), "{err}");
    let lines: Vec<serde_json::Value> = std::iter::once(first.trim_end().to_string())
        .chain(rest)
        .map(|l| serde_json::from_str(&l).unwrap())
        .collect();
    assert_eq!(lines[0]["waiting"], true, "{}", lines[0]);
    let expected = straight(&out);
    let mut ticks = Vec::new();
    for l in &lines[1..] {
        assert!(l.get("faults").is_none(), "{l}");
        let tick = l["tick"].as_u64().unwrap() as u32;
        let entities = l["entities"].as_array().unwrap();
        let want = &expected[&tick];
        assert_eq!(entities.len(), want.len(), "entities at tick {tick}");
        for e in entities {
            let w = want.get(e["id"].as_u64().unwrap() as u32).expect("alive");
            assert_eq!(e["x"].as_f64().unwrap(), w.pose.x_f64(), "tick {tick}");
            assert_eq!(e["yaw"].as_f64().unwrap(), w.pose.yaw_deg(), "tick {tick}");
        }
        ticks.push(tick);
    }
    assert!(ticks.windows(2).all(|w| w[0] <= w[1]), "always forward");
    assert_eq!(ticks.last(), Some(&299));
    assert_eq!(lines.last().unwrap()["at_edge"], true);
    // Without the live directory or a file, --max-ms ends the wait with an error.
    let none = Command::new(bin)
        .args(["play", dir.path().join("none.reel").to_str().unwrap()])
        .args(["--follow", "--wait", "--max-ms", "200"])
        .output()
        .unwrap();
    assert!(!none.status.success());
    assert!(String::from_utf8_lossy(&none.stderr).contains("gave up"));
}
