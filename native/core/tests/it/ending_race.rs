//! A call that returns `Ok` while another thread ends the recording has what it gave in the file:
//! a tick (or a message) racing `finish` or `close` either lands before the ending or fails.
//! Before the fix, a tick that took the queue could pass the recording's "still open" check, then
//! be sent after the ending message; the writer discarded it, yet `submit_tick` had said `Ok`.

use crate::common;

use std::sync::{Arc, Barrier};
use std::time::Duration;

use tickreel::play::Reader;
use tickreel::record::Submitted;
use tickreel::{Engine, EngineOptions, Event, RecorderOptions};

use crate::common::{batch, recorded_ticks};

/// Ticks of one player, every one after the first a single move (small enough for a queue slot);
/// ticks without a move are left out.
fn small_ticks(n: u32) -> Vec<(u32, Vec<u8>)> {
    let mut ticks = common::sim_ticks(1, n, 23);
    for (_, e) in ticks.iter_mut().skip(1) {
        e.retain(|e| matches!(e, Event::Pose { .. } | Event::Position { .. }));
        e.truncate(1);
    }
    // (an empty tick is not stored: only ticks with an event, so that accepted = recorded)
    ticks
        .into_iter()
        .filter(|(_, e)| !e.is_empty())
        .map(|(t, e)| (t, batch(&e)))
        .collect()
}

/// Ticks of `players` players as they come (large enough for the staging ring, once it is made);
/// ticks without an event are left out.
fn staged_ticks(players: u32, n: u32) -> Vec<(u32, Vec<u8>)> {
    common::sim_ticks(players, n, 29)
        .into_iter()
        .filter(|(_, e)| !e.is_empty())
        .map(|(t, e)| (t, batch(&e)))
        .collect()
}

/// Submits `ticks` in order from another thread until a call fails; the ticks accepted.
fn submitter(
    rec: &Arc<tickreel::Recorder>,
    ticks: &Arc<Vec<(u32, Vec<u8>)>>,
    go: &Arc<Barrier>,
) -> std::thread::JoinHandle<Vec<u32>> {
    let (rec, ticks, go) = (rec.clone(), ticks.clone(), go.clone());
    std::thread::spawn(move || {
        let mut accepted = Vec::new();
        go.wait();
        for (t, b) in ticks.iter() {
            match rec.submit_tick(*t, b) {
                Ok(Submitted::Queued) => accepted.push(*t),
                Ok(Submitted::Dropped) => panic!("the default policy blocks"),
                Err(_) => break,
            }
        }
        accepted
    })
}

/// Starts recording `path` and a thread submitting `ticks` to it, once that thread is running.
fn start_submitting(
    engine: &Engine,
    path: &std::path::Path,
    ticks: &Arc<Vec<(u32, Vec<u8>)>>,
) -> (Arc<tickreel::Recorder>, std::thread::JoinHandle<Vec<u32>>) {
    let rec = Arc::new(engine.start_recording(path, resuming()).unwrap());
    let go = Arc::new(Barrier::new(2));
    let sub = submitter(&rec, ticks, &go);
    go.wait();
    (rec, sub)
}

/// What is wrong with round `round` when `file` does not hold exactly the ticks `accepted`.
fn mismatch(round: &str, accepted: &[u32], file: &std::path::Path) -> Option<String> {
    let recorded = recorded_ticks(&Reader::open_path(file).unwrap());
    (recorded != accepted).then(|| {
        format!(
            "round {round}: {} ticks accepted (last {:?}), {} recorded (last {:?})",
            accepted.len(),
            accepted.last(),
            recorded.len(),
            recorded.last()
        )
    })
}

/// `rounds` recordings, each ended by `end` (which returns the final file) while another thread
/// submits: the rounds whose file does not hold exactly the ticks accepted.
fn race_the_ending(
    rounds: u64,
    ticks: Vec<(u32, Vec<u8>)>,
    end: impl Fn(&Engine, &tickreel::Recorder, &std::path::Path) -> std::path::PathBuf,
) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let ticks = Arc::new(ticks);
    let mut wrong = Vec::new();
    for round in 0..rounds {
        let path = dir.path().join(format!("r{round}.reel"));
        let (rec, sub) = start_submitting(&engine, &path, &ticks);
        // Some ticks first, for a varying while.
        std::thread::sleep(Duration::from_micros(20 + 37 * (round % 13)));
        let file = end(&engine, &rec, &path);
        let accepted = sub.join().unwrap();
        wrong.extend(mismatch(&round.to_string(), &accepted, &file));
    }
    engine.shutdown();
    wrong
}

#[test]
fn a_tick_accepted_while_another_thread_finishes_is_in_the_file() {
    let wrong = race_the_ending(150, small_ticks(20_000), |_, rec, _| {
        rec.finish().unwrap().wait().unwrap()
    });
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn a_staged_tick_accepted_while_another_thread_finishes_is_in_the_file() {
    // Twelve players: every tick after the first is staged in the recording's ring.
    let wrong = race_the_ending(400, staged_ticks(12, 3_000), |_, rec, _| {
        rec.finish().unwrap().wait().unwrap()
    });
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn a_tick_accepted_while_the_engine_shuts_down_is_kept_for_the_resume() {
    // Queued and staged ticks, each recording in an engine of its own that is shut down while
    // another thread submits; resumed in another engine and finished: what was accepted is there.
    let dir = tempfile::tempdir().unwrap();
    let after = Engine::new(EngineOptions::default()).unwrap();
    let mut wrong = Vec::new();
    for (kind, ticks) in [
        ("queued", small_ticks(20_000)),
        ("staged", staged_ticks(12, 20_000)),
    ] {
        let ticks = Arc::new(ticks);
        for round in 0..30u64 {
            let path = dir.path().join(format!("{kind}{round}.reel"));
            let engine = Engine::new(EngineOptions::default()).unwrap();
            let (rec, sub) = start_submitting(&engine, &path, &ticks);
            std::thread::sleep(Duration::from_micros(20 + 137 * (round % 13)));
            engine.shutdown();
            let accepted = sub.join().unwrap();
            drop(rec);
            let again = after.start_recording(&path, resuming()).unwrap();
            let file = again.finish().unwrap().wait().unwrap();
            wrong.extend(mismatch(&format!("{kind} {round}"), &accepted, &file));
        }
    }
    after.shutdown();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn a_tick_accepted_while_another_thread_closes_is_kept_for_the_resume() {
    // Closed, then resumed and finished straight away: what was accepted before the close is there.
    let wrong = race_the_ending(60, small_ticks(20_000), |engine, rec, path| {
        rec.close().unwrap();
        let again = engine.start_recording(path, resuming()).unwrap();
        again.finish().unwrap().wait().unwrap()
    });
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Calls `finish` on another thread while `hold` holds the recording as if a call were between
/// its check and its send; the ending must wait for it, then complete.
fn an_ending_waits_while(hold: impl Fn(&tickreel::Recorder, bool)) {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let path = dir.path().join("held.reel");
    let rec = Arc::new(engine.start_recording(&path, resuming()).unwrap());
    // A few ticks large enough to make the ring.
    let ticks = staged_ticks(12, 5);
    for (t, b) in &ticks {
        rec.submit_tick(*t, b).unwrap();
    }
    hold(&rec, true);
    let (tx, rx) = std::sync::mpsc::channel();
    let finishing = rec.clone();
    std::thread::spawn(move || {
        let _ = tx.send(finishing.finish());
    });
    // (Without the wait, finish returns at once; with it, never while held.)
    assert!(
        rx.recv_timeout(Duration::from_millis(300)).is_err(),
        "finish went on while a call was between its check and its send"
    );
    hold(&rec, false);
    let handle = rx.recv_timeout(Duration::from_secs(20)).unwrap().unwrap();
    let recorded = recorded_ticks(&Reader::open_path(handle.wait().unwrap()).unwrap());
    assert_eq!(recorded, ticks.iter().map(|(t, _)| *t).collect::<Vec<_>>());
    engine.shutdown();
}

#[test]
fn an_ending_waits_for_a_tick_being_staged() {
    an_ending_waits_while(|rec, on| rec.hold_the_ring(on));
}

#[test]
fn an_ending_waits_for_a_message_being_sent() {
    an_ending_waits_while(|rec, on| rec.hold_a_send(on));
}

/// The defaults, resuming a live recording of the path (these tests carry one on).
fn resuming() -> RecorderOptions {
    RecorderOptions {
        on_existing: tickreel::record::OnExisting::Resume,
        ..RecorderOptions::default()
    }
}
