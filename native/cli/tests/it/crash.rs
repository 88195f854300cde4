//! Crash safety: a child process records through the real pipeline (`tickreel simulate`), the
//! parent kills it with SIGKILL at random moments, recovers, and checks that every tick the child
//! reported flushed is present and decodes to exactly what was recorded, and that `verify` passes.
//! Each round resumes the same recording, so this also covers resume after a crash.
//!
//! 20 kills in the normal suite;
//! `TICKREEL_CRASH_KILLS=100 cargo test --release -p tickreel-cli --test it -- crash::` runs the
//! longer soak.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use tickreel::format::EntityTable;
use tickreel::play::Reader;
use tickreel::record::recover;
use tickreel::storage::live::live_dir_for;
use tickreel_sim::{SimConfig, Simulator};

/// The same simulation `tickreel simulate --players 4 --seed 42` runs.
fn expected_states(upto: u32) -> Vec<EntityTable> {
    let mut sim = Simulator::new(SimConfig {
        players: 4,
        seed: 42,
        teleport_chance: 0.001,
        churn_chance: 0.0005,
        custom_event_chance: 0.005,
    });
    let mut table = EntityTable::default();
    (0..=upto)
        .map(|_| {
            let (_, events) = sim.step();
            for e in &events {
                table.apply(e);
            }
            table.clone()
        })
        .collect()
}

#[test]
fn killed_writers_lose_nothing_that_was_reported_flushed() {
    let kills: u32 = std::env::var("TICKREEL_CRASH_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("crash.reel");
    let live = live_dir_for(&out);
    let mut rng = fastrand::Rng::with_seed(7);
    let mut max_flushed: Option<u32> = None;
    let mut total_kills = 0;
    for round in 0..kills {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tickreel"))
            .args([
                "simulate",
                "--players",
                "4",
                "--seed",
                "42",
                "--ticks",
                "100000000",
            ])
            .args([
                "--tps",
                "3000",
                "--flush-ms",
                "5",
                "--chunk-ticks",
                "30",
                "--no-finish",
            ])
            .arg("--out")
            .arg(&out)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut flushed = None;
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(t) = line.strip_prefix("flushed ") {
                    flushed = Some(t.parse::<u32>().unwrap());
                }
            }
            flushed
        });
        std::thread::sleep(Duration::from_millis(rng.u64(40..250)));
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        assert!(
            !status.success(),
            "round {round}: child must have been killed"
        );
        total_kills += 1;
        if let Some(f) = reader.join().unwrap() {
            max_flushed = Some(max_flushed.map_or(f, |m: u32| m.max(f)));
        }
        if !live.exists() {
            continue; // killed before its first flush
        }
        let report = recover(&live).unwrap();
        eprintln!("round {round}: {report}");
        let r = Reader::open_live(&live).unwrap();
        r.verify().unwrap();
        if let Some(f) = max_flushed {
            let last = r.last_tick().expect("flushed ticks exist");
            assert!(
                last >= f,
                "round {round}: reported flushed {f}, recovered only to {last} ({report})"
            );
        }
    }
    assert_eq!(total_kills, kills);
    let max_flushed = max_flushed.expect("the child flushed at least once");
    // Every tick present decodes to exactly what was recorded.
    let r = Reader::open_live(&live).unwrap();
    let last = r.last_tick().unwrap();
    assert!(last >= max_flushed);
    let expected = expected_states(last);
    let mut table = EntityTable::default();
    let mut n = 0u32;
    for t in r.ticks(0, u32::MAX) {
        let t = t.unwrap();
        assert_eq!(t.tick, n, "no tick is missing");
        for e in &t.events {
            table.apply(e);
        }
        assert_eq!(table, expected[t.tick as usize], "tick {}", t.tick);
        n += 1;
    }
    assert_eq!(n, last + 1);
    // and the recording can still be finished
    let status = Command::new(env!("CARGO_BIN_EXE_tickreel"))
        .args(["simulate", "--players", "4", "--seed", "42", "--ticks"])
        .arg((last + 50).to_string())
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let done = Reader::open_path(&out).unwrap();
    done.verify().unwrap();
    assert_eq!(done.last_tick(), Some(last + 49));
}
