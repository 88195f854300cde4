//! Boards bound to a map version: two versions of a course's map, the boards of each (of the
//! network and of one server), ranks and players' bests per version, and a ghost recorded on
//! another version than the one it is to play on refused unless allowed.

use std::path::PathBuf;

use crate::common;

use crate::common::{Db, Runner, player, record_with, spec};
use tickreel::ghost::LoadFrom;
use tickreel::{ErrorKind, RecorderOptions};
use tickreel_catalog::{Board, GhostLoad, MapVersion, Servers};
use uuid::Uuid;

const WORLD: Uuid = Uuid::from_u128(0x77);
const V1: MapVersion = MapVersion {
    world: WORLD,
    version: Uuid::from_u128(0x1111),
};
const V2: MapVersion = MapVersion {
    world: WORLD,
    version: Uuid::from_u128(0x2222),
};

fn on(server: &str, map: MapVersion) -> RecorderOptions {
    let mut o = RecorderOptions {
        server: Some(server.to_owned()),
        ..RecorderOptions::default()
    };
    o.identity.world_id = *map.world.as_bytes();
    o.identity.world_version = *map.version.as_bytes();
    o
}

fn ranks(places: &[tickreel_catalog::Placed]) -> Vec<(u64, Uuid, u32)> {
    places
        .iter()
        .map(|p| (p.rank, p.run.player, p.run.ticks))
        .collect()
}

fn from_disk(location: &str) -> tickreel::Result<LoadFrom> {
    Ok(LoadFrom::Path(PathBuf::from(location)))
}

fn boards_and_ghosts_per_map_version(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let (cat, _) = common::fresh(db, dir.path());
    // version 1 on eu-1: player 1 in 40 ticks, player 2 in 60
    // version 2 on eu-1: player 2 in 50, player 1 in 70; version 2 on us-1: player 3 in 55
    let v1 = record_with(
        dir.path(),
        "v1.reel",
        &[Runner::new(1, 0, 40, &[]), Runner::new(2, 0, 60, &[])],
        on("eu-1", V1),
    );
    let v2 = record_with(
        dir.path(),
        "v2.reel",
        &[Runner::new(1, 0, 70, &[]), Runner::new(2, 0, 50, &[])],
        on("eu-1", V2),
    );
    let v2us = record_with(
        dir.path(),
        "v2us.reel",
        &[Runner::new(3, 0, 55, &[])],
        on("us-1", V2),
    );
    cat.register(&v1, &[spec("c", 1, 1, 100), spec("c", 2, 2, 200)])
        .unwrap();
    cat.register(&v2, &[spec("c", 1, 1, 300), spec("c", 2, 2, 400)])
        .unwrap();
    cat.register(&v2us, &[spec("c", 3, 3, 500)]).unwrap();
    let (p1, p2, p3) = (player(1), player(2), player(3));

    // any version: the network's board as before, through every spelling
    let any = [(1, p1, 40), (2, p2, 50), (3, p3, 55)];
    assert_eq!(ranks(&cat.top("c", 10).unwrap()), any);
    assert_eq!(ranks(&cat.top_on(Board::network(), "c", 10).unwrap()), any);
    assert_eq!(ranks(&cat.top_on(Servers::Network, "c", 10).unwrap()), any);
    assert_eq!(ranks(&cat.top_on(None, "c", 10).unwrap()), any);

    // one board per version
    assert_eq!(
        ranks(&cat.top_on(V1, "c", 10).unwrap()),
        [(1, p1, 40), (2, p2, 60)]
    );
    assert_eq!(
        ranks(&cat.top_on(V2, "c", 10).unwrap()),
        [(1, p2, 50), (2, p3, 55), (3, p1, 70)]
    );
    let other_world = MapVersion::new(Uuid::from_u128(0x78), V2.version);
    assert!(cat.top_on(other_world, "c", 10).unwrap().is_empty());
    // ... and per server and version
    let eu_v2 = Board::server("eu-1").on_version(V2);
    assert_eq!(
        ranks(&cat.top_on(eu_v2, "c", 10).unwrap()),
        [(1, p2, 50), (2, p1, 70)]
    );
    assert!(
        cat.top_on(Board::server("us-1").on_version(V1), "c", 10)
            .unwrap()
            .is_empty()
    );

    // a player's best and the ranks per version
    let pb = cat.personal_best_on(V2, "c", p1).unwrap().unwrap();
    assert_eq!(
        (pb.rank, pb.run.ticks, pb.run.world_version),
        (3, 70, Some(V2.version))
    );
    let pb = cat.personal_best_on(V1, "c", p1).unwrap().unwrap();
    assert_eq!((pb.rank, pb.run.ticks), (1, 40));
    assert!(cat.personal_best_on(V1, "c", p3).unwrap().is_none());
    let pb = cat.personal_best_on(eu_v2, "c", p1).unwrap().unwrap();
    assert_eq!((pb.rank, pb.run.ticks), (2, 70));
    let first = cat.at_rank_on(V2, "c", 1).unwrap().unwrap();
    assert_eq!((first.run.player, first.run.ticks), (p2, 50));
    let second = cat.at_rank_on(V2, "c", 2).unwrap().unwrap();
    assert_eq!((second.rank, second.run.player), (2, p3));
    assert!(cat.at_rank_on(V2, "c", 4).unwrap().is_none());
    assert_eq!(
        cat.at_rank_on(V2, "c", 0).unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
    assert_eq!(cat.at_rank_on(None, "c", 1).unwrap().unwrap().run.ticks, 40);

    // the ghost of rank 1 on the map version played
    let g = cat
        .load_ghost_on(V2, "c", 1u64, GhostLoad::playing_on(V2), from_disk)
        .unwrap();
    assert_eq!((g.placed.run.player, g.placed.run.ticks), (p2, 50));
    assert!(g.location.ends_with("v2.reel"), "{}", g.location);
    assert_eq!(g.load.wait().unwrap().duration_ticks(), 50);
    let g = cat
        .load_ghost_on(V2, "c", p1, GhostLoad::playing_on(V2), from_disk)
        .unwrap();
    assert_eq!((g.placed.rank, g.placed.run.ticks), (3, 70));
    g.load.wait().unwrap();

    // the network's rank 1 was set on version 1: refused on version 2, naming both versions
    let e = cat
        .load_ghost_on(None, "c", 1u64, GhostLoad::playing_on(V2), from_disk)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    let msg = e.to_string();
    assert!(msg.contains(&V1.version.to_string()), "{msg}");
    assert!(msg.contains(&V2.version.to_string()), "{msg}");
    // ... unless asked for
    let g = cat
        .load_ghost_on(
            None,
            "c",
            1u64,
            GhostLoad::playing_on(V2).allow_other_version(),
            from_disk,
        )
        .unwrap();
    assert_eq!(g.placed.run.world_version, Some(V1.version));
    assert_eq!(g.load.wait().unwrap().duration_ticks(), 40);
    // a player's best of any version is checked the same way
    let e = cat
        .load_ghost_on(None, "c", p1, GhostLoad::playing_on(V2), from_disk)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    // without a version played, nothing is checked (the existing calls)
    cat.load_ghost("c", 1u64).unwrap().load.wait().unwrap();
    // an empty place is still "no such rank"
    let e = cat
        .load_ghost_on(V1, "c", 3u64, GhostLoad::playing_on(V1), from_disk)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    assert!(e.to_string().contains("no rank 3"), "{e}");

    // invalidating the version's best promotes the next on that version only
    cat.set_run_valid(first.run.id, false).unwrap();
    assert_eq!(
        ranks(&cat.top_on(V2, "c", 10).unwrap()),
        [(1, p3, 55), (2, p1, 70)]
    );
    assert_eq!(
        ranks(&cat.top_on(V1, "c", 10).unwrap()),
        [(1, p1, 40), (2, p2, 60)]
    );
}

/// A run whose recording named no map version is on no version's board, and its ghost is
/// refused where a version is played unless allowed.
fn a_run_without_a_map_version(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let (cat, _) = common::fresh(db, dir.path());
    let plain = record_with(
        dir.path(),
        "plain.reel",
        &[Runner::new(1, 0, 30, &[])],
        RecorderOptions::default(),
    );
    cat.register(&plain, &[spec("c", 1, 1, 100)]).unwrap();
    assert!(cat.top_on(V1, "c", 10).unwrap().is_empty());
    assert_eq!(cat.top("c", 10).unwrap().len(), 1);
    let e = cat
        .load_ghost_on(None, "c", 1u64, GhostLoad::playing_on(V1), from_disk)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    assert!(e.to_string().contains("no map version"), "{e}");
    cat.load_ghost_on(
        None,
        "c",
        1u64,
        GhostLoad::playing_on(V1).allow_other_version(),
        from_disk,
    )
    .unwrap();
}

/// A board read from its first runs (a map version's, a server's) when one player holds all of
/// them: the board is read whole, and still lists each player once, in order.
fn a_board_whose_first_runs_are_one_players(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let (cat, _) = common::fresh(db, dir.path());
    // runner 1 in 40 ticks, runners 2..=12 in 50..=60
    let runners: Vec<Runner> = std::iter::once(Runner::new(1, 0, 40, &[]))
        .chain((2..=12).map(|e| Runner::new(e, 0, 48 + e, &[])))
        .collect();
    let file = record_with(dir.path(), "v1.reel", &runners, on("eu-1", V1));
    // player 1 runs it 300 times (more than a board of 10 reads first), the others once
    let mut specs: Vec<_> = (0..300).map(|i| spec("c", 1, 1, 1000 + i)).collect();
    specs.extend((2..=12).map(|n| spec("c", n, n, 5000 + i64::from(n))));
    cat.register(&file, &specs).unwrap();
    let expected: Vec<(u64, Uuid, u32)> = std::iter::once((1, player(1), 40))
        .chain((2..=10).map(|n| (u64::from(n), player(n), 48 + n)))
        .collect();
    for board in [Board::from(V1), Board::server("eu-1")] {
        assert_eq!(ranks(&cat.top_on(board, "c", 10).unwrap()), expected);
        let pb = cat
            .personal_best_on(board, "c", player(12))
            .unwrap()
            .unwrap();
        assert_eq!((pb.rank, pb.run.ticks), (12, 60));
        let pb = cat
            .personal_best_on(board, "c", player(1))
            .unwrap()
            .unwrap();
        assert_eq!((pb.rank, pb.run.ticks, pb.run.achieved_ms), (1, 40, 1000));
        let at = cat.at_rank_on(board, "c", 11).unwrap().unwrap();
        assert_eq!((at.rank, at.run.player), (11, player(11)));
        assert!(cat.at_rank_on(board, "c", 13).unwrap().is_none());
    }
    assert_eq!(ranks(&cat.top("c", 10).unwrap()), expected);
}

on_both! {
    boards_and_ghosts_per_map_version => boards_and_ghosts_per_map_version;
    a_run_without_a_map_version => a_run_without_a_map_version;
    a_board_whose_first_runs_are_one_players => a_board_whose_first_runs_are_one_players;
}
