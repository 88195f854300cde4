//! Run checks before the board, on SQLite and on PostgreSQL: crafted runs (a speed spike, a
//! teleport, dropped ticks, checkpoints out of order, a file swapped after registration) are held
//! with the right reason and reach no board and no ghost until a moderator clears them (an
//! audited action); honest simulated runs are never held (10,000 of them, the figure printed).

use crate::common;

use std::path::{Path, PathBuf};

use crate::common::{Db, player, spec};
use tickreel::format::{Event, Gap};
use tickreel::ghost::{GhostRange, GhostTrack};
use tickreel::play::Reader;
use tickreel::record::{ReelOptions, ReelWriter};
use tickreel::{ErrorKind, Pose};
use tickreel_catalog::{Catalog, CourseLimits, HoldReason, Movement, TeleportZone, check_track};

const COURSE: &str = "lava-run";

/// A crafted run of entity 1: a pose a tick from `positions` (tick = index), teleports at the
/// ticks of `teleports`, checkpoints `(tick, index)`, dropped-tick `gaps` in the metadata.
struct Crafted<'a> {
    positions: Vec<[f64; 3]>,
    teleports: &'a [u32],
    checkpoints: &'a [(u32, u32)],
    gaps: Vec<Gap>,
}

impl Crafted<'_> {
    /// An honest run: `ticks` ticks at `speed` blocks a tick along x, checkpoints 1 and 2.
    fn honest(ticks: u32, speed: f64) -> Crafted<'static> {
        Crafted {
            positions: (0..=ticks)
                .map(|t| [f64::from(t) * speed, 64.0, 0.0])
                .collect(),
            teleports: &[],
            checkpoints: &[(10, 1), (30, 2)],
            gaps: Vec::new(),
        }
    }

    fn write(&self, dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(name);
        let mut w = ReelWriter::create(&path, ReelOptions::compacted()).unwrap();
        if !self.gaps.is_empty() {
            let n = self.gaps.iter().map(|g| u64::from(g.to - g.from + 1)).sum();
            w.set_gaps(self.gaps.clone(), n);
        }
        for (t, p) in self.positions.iter().enumerate() {
            let t = t as u32;
            if self.gaps.iter().any(|g| g.from <= t && t <= g.to) {
                continue;
            }
            let pose = Pose::from_f64(p[0], p[1], p[2], 0.0, 0.0);
            let mut events = vec![if t == 0 {
                Event::EntityAdd {
                    entity: 1,
                    kind: 147,
                    pose,
                }
            } else if self.teleports.contains(&t) {
                Event::Teleport { entity: 1, pose }
            } else {
                Event::Pose { entity: 1, pose }
            }];
            for &(at, index) in self.checkpoints {
                if at == t {
                    events.push(Event::Checkpoint { entity: 1, index });
                }
            }
            w.write_tick(t, &events).unwrap();
        }
        w.finish().unwrap();
        path
    }
}

fn reasons(cat: &Catalog, run: i64) -> Vec<(HoldReason, Option<u32>)> {
    let check = cat.run_check(run).unwrap().unwrap();
    check.holds.iter().map(|h| (h.reason, h.tick)).collect()
}

/// Whether run `run` of player `n` is anywhere a board or a ghost shows runs.
fn on_any_board(cat: &Catalog, run: i64, n: u32) -> bool {
    let top = cat
        .top(COURSE, 100)
        .unwrap()
        .iter()
        .any(|p| p.run.id == run);
    let pb = cat
        .personal_best(COURSE, player(n))
        .unwrap()
        .is_some_and(|p| p.run.id == run);
    let server = cat
        .top_on("eu-1", COURSE, 100)
        .unwrap()
        .iter()
        .any(|p| p.run.id == run);
    let ranked = (1..=10).any(|r| {
        cat.at_rank(COURSE, r)
            .unwrap()
            .is_some_and(|p| p.run.id == run)
    });
    let ghost = cat
        .ghost_run(COURSE, player(n))
        .unwrap()
        .is_some_and(|(p, _)| p.run.id == run);
    let sob = cat
        .sum_of_best(COURSE, Some(player(n)))
        .unwrap()
        .is_some_and(|s| s.segments.iter().any(|seg| seg.run_id == run));
    top || pb || server || ranked || ghost || sob
}

fn crafted_runs_are_held(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let (cat, _) = common::fresh(db, dir.path());
    let d = dir.path();

    // an honest run: on the board
    let honest = Crafted::honest(60, 0.25).write(d, "honest.reel");
    let ok = cat
        .register(&honest, &[spec(COURSE, 1, 1, 1_000)])
        .unwrap()
        .runs[0]
        .clone();
    assert!(!ok.held);
    assert!(cat.run_check(ok.id).unwrap().unwrap().holds.is_empty());
    assert!(on_any_board(&cat, ok.id, 1));

    // a speed spike: 3.25 blocks in tick 25
    let mut spike = Crafted::honest(60, 0.25);
    for p in &mut spike.positions[25..] {
        p[0] += 3.0;
    }
    let spike = spike.write(d, "spike.reel");
    // a teleport at tick 20 (far ahead)
    let mut tp = Crafted::honest(60, 0.25);
    for p in &mut tp.positions[20..] {
        p[0] += 50.0;
    }
    tp.teleports = &[20];
    let tp_file = tp.write(d, "teleport.reel");
    // ticks 15 to 18 dropped by the recorder
    let mut gap = Crafted::honest(60, 0.25);
    gap.gaps = vec![Gap { from: 15, to: 18 }];
    let gap = gap.write(d, "gap.reel");
    // checkpoint 2 before checkpoint 1
    let mut order = Crafted::honest(60, 0.25);
    order.checkpoints = &[(10, 2), (30, 1)];
    let order = order.write(d, "order.reel");

    let cases = [
        (2, &spike, HoldReason::HorizontalSpeed, Some(25)),
        (3, &tp_file, HoldReason::Teleport, Some(20)),
        (4, &gap, HoldReason::Gap, Some(15)),
        (5, &order, HoldReason::CheckpointOrder, Some(30)),
    ];
    let mut held = Vec::new();
    for (n, file, reason, tick) in cases {
        // faster than the honest run where it cuts the course short: it would take first place
        let run = cat.register(file, &[spec(COURSE, n, 1, 500)]).unwrap().runs[0].clone();
        assert!(run.held, "{reason:?}");
        assert_eq!(reasons(&cat, run.id), [(reason, tick)], "{reason:?}");
        assert!(!on_any_board(&cat, run.id, n), "{reason:?}");
        let e = cat.load_ghost(COURSE, player(n)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        held.push(run.id);
    }
    assert_eq!(cat.top(COURSE, 10).unwrap().len(), 1);
    assert_eq!(cat.players(COURSE).unwrap(), 1);
    let listed: Vec<i64> = cat
        .held_runs(None, 10)
        .unwrap()
        .iter()
        .map(|(r, _)| r.id)
        .collect();
    assert_eq!(listed.len(), 4);
    assert!(held.iter().all(|id| listed.contains(id)));
    assert_eq!(cat.held_runs(Some(COURSE), 2).unwrap().len(), 2);
    assert!(cat.held_runs(Some("other"), 10).unwrap().is_empty());

    // a teleport zone allows the teleport for runs registered from now on
    let limits = CourseLimits {
        teleports: vec![TeleportZone::new([50.0, 60.0, -2.0], [60.0, 70.0, 2.0])],
        ..CourseLimits::default()
    };
    cat.set_course_limits(COURSE, &limits).unwrap();
    assert_eq!(cat.course_limits(COURSE).unwrap(), limits);
    let again = cat
        .register(&tp_file, &[spec(COURSE, 6, 1, 600)])
        .unwrap()
        .runs[0]
        .clone();
    assert!(!again.held);
    // an elytra course: the spike is within its limits
    cat.set_course_limits(COURSE, &Movement::Elytra.limits())
        .unwrap();
    assert!(
        !cat.register(&spike, &[spec(COURSE, 7, 1, 700)])
            .unwrap()
            .runs[0]
            .held
    );
    cat.set_course_limits(COURSE, &CourseLimits::default())
        .unwrap();

    // a moderator clears a held run: audited, then it is on the board
    let bad_name = cat.clear_run(held[0], "").unwrap_err();
    assert_eq!(bad_name.kind(), ErrorKind::InvalidArgument);
    let cleared = cat.clear_run(held[0], "mod-alice").unwrap();
    assert!(!cleared.held);
    assert_eq!(cleared.cleared_by.as_deref(), Some("mod-alice"));
    assert!(on_any_board(&cat, held[0], 2));
    let audit = cat.run_reviews(10).unwrap();
    assert_eq!(audit.len(), 1);
    assert_eq!(
        (audit[0].who.as_str(), audit[0].run_id),
        ("mod-alice", held[0])
    );
    assert!(
        audit[0].detail.contains("horizontal_speed"),
        "{}",
        audit[0].detail
    );
    assert_eq!(
        cat.clear_run(held[0], "mod-alice").unwrap_err().kind(),
        ErrorKind::InvalidState
    );
    // checking the cleared run again does not hold it for what the moderator cleared
    assert!(!cat.check_run(held[0]).unwrap().held);
    assert_eq!(
        cat.clear_run(999_999, "m").unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
    assert_eq!(
        cat.check_run(999_999).unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );

    // the honest run's file swapped after registration: the check holds it, it leaves the board
    assert!(!cat.check_run(ok.id).unwrap().held);
    let mut swapped = Crafted::honest(60, 0.25);
    swapped.positions.truncate(20);
    std::fs::copy(swapped.write(d, "other.reel"), &honest).unwrap();
    let check = cat.check_run(ok.id).unwrap();
    assert!(check.held);
    assert_eq!(check.holds.len(), 1);
    assert_eq!(check.holds[0].reason, HoldReason::Hash);
    assert!(!on_any_board(&cat, ok.id, 1));
    // a recording deleted from its location is held too
    std::fs::remove_file(&gap).unwrap();
    let cleared_gap = cat.clear_run(held[2], "mod-bob").unwrap();
    assert!(!cleared_gap.held);
    assert!(
        cat.check_run(held[2]).unwrap().held,
        "cleared, then its file is gone"
    );
}

/// Runs held at registration stay held through a reopen, on both databases; an upgraded catalog
/// of version 7 keeps its runs on the board (never checked, no hash) and holds new crafted ones.
fn upgrade_from_version_7(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let url = common::fresh_url(db, dir.path());
    let v7 = Catalog::open_at_version(&url, 7).unwrap();
    assert_eq!(v7.schema_version().unwrap(), 7);
    let file = Crafted::honest(60, 0.25).write(dir.path(), "old.reel");
    let location = std::fs::canonicalize(&file).unwrap();
    let p = player(1).to_string();
    v7.execute_raw(&format!(
        "INSERT INTO recordings (id, location, started_ms, first_tick, last_tick, tick_rate,
             size_bytes, entity_count, summary, registered_ms)
         VALUES (1, '{loc}', 0, 0, 60, 20.0, 1000, 1, 'old', 0);
         INSERT INTO runs (id, recording_id, course, player, player_name, entity, start_tick,
             end_tick, ticks, tick_rate, achieved_ms, valid, flags) VALUES
           (1, 1, '{COURSE}', '{p}', 'a', 1, 0, 60, 60, 20.0, 100, 1, 0);
         INSERT INTO bests (course, player, run_id, ticks, achieved_ms)
           VALUES ('{COURSE}', '{p}', 1, 60, 100);",
        loc = location.display()
    ))
    .unwrap();
    assert!(v7.execute_raw("SELECT held FROM runs").is_err());
    drop(v7);
    let cat = Catalog::open(&url).unwrap();
    assert_eq!(cat.migrated().from, 7);
    let top = cat.top(COURSE, 10).unwrap();
    assert_eq!(top.len(), 1);
    assert!(!top[0].run.held);
    // no hash was taken: the check reads the file and finds nothing
    let check = cat.check_run(1).unwrap();
    assert!(!check.held && check.holds.is_empty());
    if db == Db::Postgres {
        cat.execute_raw(
            "SELECT setval(pg_get_serial_sequence('recordings', 'id'), 1);
             SELECT setval(pg_get_serial_sequence('runs', 'id'), 1);",
        )
        .unwrap();
    }
    let mut fast = Crafted::honest(20, 3.0);
    fast.checkpoints = &[];
    let fast = fast.write(dir.path(), "fast.reel");
    let run = cat.register(&fast, &[spec(COURSE, 2, 1, 50)]).unwrap().runs[0].clone();
    assert!(run.held);
    drop(cat);
    let cat = Catalog::open(&url).unwrap();
    assert!(cat.run(run.id).unwrap().unwrap().held);
    assert_eq!(cat.top(COURSE, 10).unwrap().len(), 1);
}

on_both! {
    crafted_runs_are_held_with_their_reason_and_reach_no_board => crafted_runs_are_held;
    an_upgrade_from_version_7_keeps_its_board_and_holds_new_runs => upgrade_from_version_7;
}

/// Writes `ticks` of a simulated world (`step` gives each tick's events) to `path`.
fn write_sim(path: &Path, ticks: u32, mut step: impl FnMut() -> (u32, Vec<Event>)) {
    let mut w = ReelWriter::create(path, ReelOptions::compacted()).unwrap();
    for _ in 0..ticks {
        let (t, events) = step();
        w.write_tick(t, &events).unwrap();
    }
    w.finish().unwrap();
}

/// Honest runs from the simulator (players walking, sprinting, sneaking and jumping with
/// Minecraft's physics, no teleport) and from the realistic preset (clients sending every 2-5
/// ticks): 10,000 runs of 12 s, each checked as registration checks it, against the default
/// (sprinting) limits. None may be held; the figure is printed.
#[test]
fn ten_thousand_honest_simulated_runs_are_never_held() {
    const PLAYERS: u32 = 50;
    const WINDOWS: u32 = 5;
    const RUN_TICKS: u32 = 240;
    const RECORDINGS: u64 = 20;
    let dir = tempfile::tempdir().unwrap();
    // the simulator's players walk and sprint: the default (sprinting) limits; the realistic
    // preset's players also travel fast as real players do (elytra, boats on blue ice: up to 4.5
    // blocks a tick): the elytra preset's limits, horizontally as fast as a boat on blue ice
    let sprinting = CourseLimits::default();
    let fast = CourseLimits {
        horizontal_tick: 4.6,
        horizontal_second: 92.0,
        ..Movement::Elytra.limits()
    };
    let (mut runs, mut held) = (0u32, Vec::new());
    let started = std::time::Instant::now();
    for seed in 0..RECORDINGS {
        for realistic in [false, true] {
            let path = dir.path().join(format!("sim-{seed}-{realistic}.reel"));
            // the first 40 ticks: players joining and getting up to speed
            let ticks = 40 + WINDOWS * RUN_TICKS + 1;
            if realistic {
                let mut sim = tickreel_sim::realistic::RealisticSim::new(
                    tickreel_sim::realistic::RealisticConfig {
                        players: PLAYERS,
                        seed: seed + 1000,
                        entities_per_player: 0,
                    },
                );
                write_sim(&path, ticks, || sim.step());
            } else {
                let mut sim = tickreel_sim::Simulator::new(tickreel_sim::SimConfig {
                    players: PLAYERS,
                    seed,
                    teleport_chance: 0.0,
                    ..Default::default()
                });
                write_sim(&path, ticks, || sim.step());
            }
            let reader = Reader::open_path(&path).unwrap();
            let gaps = &reader.metadata().library.gaps;
            for entity in 1..=PLAYERS {
                for w in 0..WINDOWS {
                    let from = 40 + w * RUN_TICKS;
                    let range = GhostRange::ticks(from, from + RUN_TICKS);
                    let track = GhostTrack::load(&reader, entity, range).unwrap();
                    let limits = if realistic { &fast } else { &sprinting };
                    let holds = check_track(&track, gaps, limits);
                    runs += 1;
                    if !holds.is_empty() {
                        held.push((seed, realistic, entity, from, holds));
                    }
                }
            }
        }
    }
    println!(
        "run checks: {} false holds over {runs} honest simulated runs ({} s)",
        held.len(),
        started.elapsed().as_secs()
    );
    assert_eq!(runs, 10_000);
    assert!(held.is_empty(), "{:?}", &held[..held.len().min(5)]);
}
