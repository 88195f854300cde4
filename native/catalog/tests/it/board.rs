//! Registering runs and every query of the board, on SQLite and on PostgreSQL: top N (one row
//! per player), ties by the earlier run, a player's best and rank, runs around a rank, recent
//! runs, splits, sum of best, ghosts of a rank and of a player; a recording that did not finish
//! is never listed.

use crate::common;

use std::path::Path;

use crate::common::{Db, Runner, player, record, spec};
use tickreel::ghost::Split;
use tickreel::ghost::{GhostSample, GhostSet, GhostState};
use tickreel::{Engine, EngineOptions, RecorderOptions};
use tickreel_catalog::{Catalog, GhostPicks, RunSpec};

const COURSE: &str = "lava-run";

/// Two recordings of `COURSE`: player 1 twice (100 then 70 ticks), players 2 and 3 tied at 80
/// (3 earlier), player 4 an invalid 50.
fn populate(cat: &Catalog, dir: &Path) {
    let cps = |a, b| vec![(1, a), (2, b)];
    let first = record(
        dir,
        "first.reel",
        &[
            Runner::new(1, 5, 100, &cps(30, 60)),
            Runner::new(2, 5, 80, &cps(20, 50)),
            Runner::new(3, 8, 80, &cps(25, 45)),
            Runner::new(4, 5, 120, &cps(40, 90)),
        ],
    );
    let r = cat
        .register(
            &first,
            &[
                spec(COURSE, 1, 1, 3_000),
                spec(COURSE, 2, 2, 2_000),
                spec(COURSE, 3, 3, 1_000),
                spec(COURSE, 1, 4, 4_000),
            ],
        )
        .unwrap();
    assert_eq!(r.runs.len(), 4);
    assert_eq!(
        r.runs.iter().map(|r| r.ticks).collect::<Vec<_>>(),
        [100, 80, 80, 120]
    );
    let second = record(
        dir,
        "second.reel",
        &[
            Runner::new(7, 0, 70, &cps(15, 40)),
            Runner::new(9, 0, 50, &cps(10, 30)),
        ],
    );
    let mut cheat = spec(COURSE, 4, 9, 5_000);
    cheat.valid = false;
    cheat.flags = 0b101;
    cat.register(&second, &[spec(COURSE, 1, 7, 6_000), cheat])
        .unwrap();
}

fn queries(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let (cat, _) = common::fresh(db, dir.path());
    populate(&cat, dir.path());

    // top: one row per player, their best, ties by the earlier run; the invalid run is off
    let top = cat.top(COURSE, 10).unwrap();
    let rows: Vec<(u64, u32, u32)> = top
        .iter()
        .map(|p| (p.rank, p.run.player.as_u128() as u32, p.run.ticks))
        .collect();
    assert_eq!(rows, [(1, 1, 70), (2, 3, 80), (3, 2, 80)]);
    assert_eq!(top[0].run.shown(), "3.50 s");
    assert_eq!(top[0].run.seconds(), 3.5);
    assert_eq!(cat.top(COURSE, 2).unwrap().len(), 2);
    assert!(cat.top("other-course", 10).unwrap().is_empty());
    assert_eq!(cat.players(COURSE).unwrap(), 3);

    // a player's best and rank
    let pb = cat.personal_best(COURSE, player(2)).unwrap().unwrap();
    assert_eq!((pb.rank, pb.run.ticks, pb.run.entity), (3, 80, 2));
    assert!(cat.personal_best(COURSE, player(4)).unwrap().is_none());
    assert_eq!(
        cat.at_rank(COURSE, 2).unwrap().unwrap().run.player,
        player(3)
    );
    assert!(cat.at_rank(COURSE, 4).unwrap().is_none());

    // around a rank
    let around: Vec<u64> = cat
        .around(COURSE, 2, 1)
        .unwrap()
        .iter()
        .map(|p| p.rank)
        .collect();
    assert_eq!(around, [1, 2, 3]);
    assert_eq!(cat.around(COURSE, 1, 5).unwrap().len(), 3);

    // recent runs of a player, newest first, invalid ones included
    let recent = cat.recent(player(1), Some(COURSE), 10).unwrap();
    let times: Vec<u32> = recent.iter().map(|r| r.ticks).collect();
    assert_eq!(times, [70, 120, 100]);
    assert_eq!(cat.recent(player(1), None, 2).unwrap().len(), 2);
    let cheat = cat.recent(player(4), None, 10).unwrap();
    assert_eq!(cheat.len(), 1);
    assert!(!cheat[0].valid);
    assert_eq!(cheat[0].flags, 0b101);

    // splits come from the recording's checkpoint events
    let best = &top[0].run;
    assert_eq!(
        cat.splits(best.id).unwrap(),
        [
            Split {
                checkpoint: 1,
                tick: 15
            },
            Split {
                checkpoint: 2,
                tick: 40
            }
        ]
    );

    // sum of best: whole board (valid runs) and one player
    let sob = cat.sum_of_best(COURSE, None).unwrap().unwrap();
    let segs: Vec<u32> = sob.segments.iter().map(|s| s.ticks).collect();
    // start-1: 15 (p1's 70), 1-2: 20 (p3: 25->45), 2-finish: 30 (p1's 70: 40->70, p2: 50->80)
    assert_eq!(segs, [15, 20, 30]);
    assert_eq!(sob.total_ticks, 65);
    assert_eq!(sob.runs, 5);
    let mine = cat.sum_of_best(COURSE, Some(player(1))).unwrap().unwrap();
    assert_eq!(mine.total_ticks, 15 + 25 + 30);
    // player 1's gold along the route 1, 2: a live attempt's splits against it
    let mut gold = mine.gold_splits().unwrap();
    assert_eq!(
        (gold.gold(), gold.best_possible_ticks(0.0)),
        (&[15, 25, 30][..], 70.0)
    );
    let s = gold.checkpoint(1, 14.0).unwrap();
    assert!(
        s.new_gold && s.delta_ticks == -1.0 && s.best_possible_ticks == 69.0,
        "{s:?}"
    );
    let s = gold.checkpoint(2, 44.0).unwrap();
    assert!(
        !s.new_gold && s.delta_ticks == 5.0 && s.best_possible_ticks == 74.0,
        "{s:?}"
    );
    assert_eq!(gold.finish(74.0).unwrap().best_possible_ticks, 74.0);
    assert!(cat.sum_of_best("nowhere", None).unwrap().is_none());

    // ghosts: the board's best and a player's best, loaded in the background
    let g = cat.load_ghost(COURSE, 1u64).unwrap();
    assert_eq!(g.placed.run.player, player(1));
    let track = g.load.wait().unwrap();
    assert_eq!(track.duration_ticks(), 70);
    assert_eq!(track.entity(), 7);
    assert_eq!(
        track.splits(),
        cat.splits(g.placed.run.id).unwrap().as_slice()
    );
    let g3 = cat.load_ghost(COURSE, player(3)).unwrap();
    assert_eq!(g3.placed.rank, 2);
    let t3 = g3.load.wait().unwrap();
    assert_eq!((t3.entity(), t3.duration_ticks()), (3, 80));
    assert!(cat.load_ghost(COURSE, 9u64).is_err());
    assert!(cat.load_ghost(COURSE, player(4)).is_err());

    // several ghosts raced together: the top 2, player 3's best (among them: loaded once) and
    // rank 3, each with its own cursor, sampled in one call
    let picks = GhostPicks {
        top: 2,
        player: Some(player(3)),
        rank: Some(3),
    };
    let ghosts = cat.load_ghosts(COURSE, picks).unwrap();
    let ranks: Vec<u64> = ghosts.iter().map(|g| g.placed.rank).collect();
    assert_eq!(ranks, [1, 2, 3]);
    let mut set = GhostSet::new();
    for g in ghosts {
        set.push(std::sync::Arc::new(g.load.wait().unwrap()));
    }
    let mut out = [GhostSample::default(); 4];
    assert_eq!(set.sample_into(75.0, &mut out), 3);
    let states: Vec<GhostState> = out[..3].iter().map(|s| s.state).collect();
    assert_eq!(
        states,
        [
            GhostState::Finished,
            GhostState::Running,
            GhostState::Running
        ]
    );
    let missing = GhostPicks {
        rank: Some(9),
        ..GhostPicks::default()
    };
    assert!(cat.load_ghosts(COURSE, missing).is_err());

    // invalidating a best promotes the player's next run; validating it back restores it
    cat.set_run_valid(best.id, false).unwrap();
    let pb1 = cat.personal_best(COURSE, player(1)).unwrap().unwrap();
    assert_eq!((pb1.rank, pb1.run.ticks), (3, 100));
    cat.set_run_valid(best.id, true).unwrap();
    assert_eq!(cat.top(COURSE, 1).unwrap()[0].run.id, best.id);

    // the recordings, with their summaries
    let recs = cat.recordings().unwrap();
    assert_eq!(recs.len(), 2);
    assert!(recs[0].location.ends_with("first.reel"));
    assert_eq!(recs[0].entity_count, 4);
    assert!(recs[0].size_bytes > 0 && recs[0].tick_rate == 20.0);
    assert!(recs[0].recording_uuid.is_some());
}

fn unfinished_recordings_are_never_listed(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let (cat, _) = common::fresh(db, dir.path());
    let run = |e| vec![RunSpec::new(COURSE, player(1), "p1", e)];

    // a recording whose finish failed: another file took its path first
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let path = dir.path().join("taken.reel");
    let rec = engine
        .start_recording(&path, RecorderOptions::default())
        .unwrap();
    let mut batch = Vec::new();
    let add = tickreel::Event::EntityAdd {
        entity: 1,
        kind: 0,
        pose: tickreel::Pose::from_f64(0.0, 0.0, 0.0, 0.0, 0.0),
    };
    tickreel::format::encode_batch(&[add], &mut batch).unwrap();
    rec.submit_tick(0, &batch).unwrap();
    std::fs::write(&path, b"another writer's file").unwrap();
    let handle = rec.finish().unwrap();
    assert!(cat.register_finished(handle, &run(1)).is_err());
    engine.shutdown();

    // a live directory, a missing file, a run whose entity is not in the recording
    let live = dir.path().join("open.reel.live");
    std::fs::create_dir(&live).unwrap();
    assert!(cat.register(&live, &run(1)).is_err());
    assert!(
        cat.register(dir.path().join("missing.reel"), &run(1))
            .is_err()
    );
    let ok = record(dir.path(), "ok.reel", &[Runner::new(1, 0, 40, &[])]);
    assert!(cat.register(&ok, &run(99)).is_err());

    assert!(cat.recordings().unwrap().is_empty());
    assert!(cat.top(COURSE, 10).unwrap().is_empty());
    assert!(cat.recent(player(1), None, 10).unwrap().is_empty());

    // the finished one registers
    let r = cat.register(&ok, &run(1)).unwrap();
    assert_eq!(r.runs[0].ticks, 40);
    assert_eq!(cat.top(COURSE, 10).unwrap().len(), 1);
}

on_both! {
    every_query_of_the_board => queries;
    unfinished_recordings_are_never_listed => unfinished_recordings_are_never_listed;
}
