//! A network of servers on one catalog: rows name the server a recording was made on (its
//! metadata's `server`), boards of the network or of one server, a player's reports on any
//! server, and every row that points at a recording gives its location and opens it.

use crate::common;

use crate::common::{Db, Runner, player, record_with, spec};
use tickreel::{ErrorKind, RecorderOptions};
use tickreel_catalog::{NewReport, Servers};
use uuid::Uuid;

const MAP_V2: Uuid = Uuid::from_u128(0x2222);

fn on(server: &str) -> RecorderOptions {
    let mut o = RecorderOptions {
        server: Some(server.to_owned()),
        ..RecorderOptions::default()
    };
    o.identity.world_id = *Uuid::from_u128(0x77).as_bytes();
    o.identity.world_version = *MAP_V2.as_bytes();
    o
}

fn ranks(places: &[tickreel_catalog::Placed]) -> Vec<(u64, Uuid, u32)> {
    places
        .iter()
        .map(|p| (p.rank, p.run.player, p.run.ticks))
        .collect()
}

fn boards_of_the_network_and_of_one_server(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let (cat, _) = common::fresh(db, dir.path());
    // server a: player 1 in 60 ticks, player 2 in 70; server b: player 1 in 50, player 3 in 40
    let a = record_with(
        dir.path(),
        "a.reel",
        &[Runner::new(1, 0, 60, &[]), Runner::new(2, 0, 70, &[])],
        on("eu-1"),
    );
    let b = record_with(
        dir.path(),
        "b.reel",
        &[Runner::new(1, 0, 50, &[]), Runner::new(3, 0, 40, &[])],
        on("us-1"),
    );
    let ra = cat
        .register(&a, &[spec("c", 1, 1, 100), spec("c", 2, 2, 200)])
        .unwrap();
    cat.register(&b, &[spec("c", 1, 1, 300), spec("c", 3, 3, 400)])
        .unwrap();
    let run = &ra.runs[0];
    assert_eq!(run.server.as_deref(), Some("eu-1"));
    assert_eq!(run.world, Some(Uuid::from_u128(0x77)));
    assert_eq!(run.world_version, Some(MAP_V2));
    assert_eq!(
        run.location,
        std::fs::canonicalize(&a).unwrap().to_str().unwrap()
    );
    let rec = cat.recording(ra.recording_id).unwrap().unwrap();
    assert_eq!(
        (rec.server.as_deref(), rec.world_version),
        (Some("eu-1"), Some(MAP_V2))
    );

    let (p1, p2, p3) = (player(1), player(2), player(3));
    assert_eq!(
        ranks(&cat.top_on(Servers::Network, "c", 10).unwrap()),
        [(1, p3, 40), (2, p1, 50), (3, p2, 70)]
    );
    assert_eq!(
        ranks(&cat.top_on("eu-1", "c", 10).unwrap()),
        [(1, p1, 60), (2, p2, 70)]
    );
    assert_eq!(ranks(&cat.top_on("us-1", "c", 1).unwrap()), [(1, p3, 40)]);
    assert!(cat.top_on("nowhere", "c", 10).unwrap().is_empty());
    let pb = cat.personal_best_on("us-1", "c", p1).unwrap().unwrap();
    assert_eq!(
        (pb.rank, pb.run.ticks, pb.run.server.as_deref()),
        (2, 50, Some("us-1"))
    );
    let pb = cat.personal_best_on("eu-1", "c", p1).unwrap().unwrap();
    assert_eq!((pb.rank, pb.run.ticks), (1, 60));
    assert!(cat.personal_best_on("eu-1", "c", p3).unwrap().is_none());
    let pb = cat.personal_best_on(None, "c", p1).unwrap().unwrap();
    assert_eq!((pb.rank, pb.run.ticks), (2, 50));

    // an invalidated run leaves the server's board too
    let best_a = cat.top_on("eu-1", "c", 1).unwrap().remove(0);
    cat.set_run_valid(best_a.run.id, false).unwrap();
    assert_eq!(ranks(&cat.top_on("eu-1", "c", 10).unwrap()), [(1, p2, 70)]);

    // every row gives its location, and opens its recording in one call
    let top = cat.top("c", 1).unwrap().remove(0);
    let reader = cat.open_recording(&top).unwrap();
    assert_eq!(reader.metadata().library.server.as_deref(), Some("us-1"));
    let reader = cat.open_recording(&top.run).unwrap();
    assert_eq!(reader.header().world_version, *MAP_V2.as_bytes());
    for run in cat.recent(p1, None, 10).unwrap() {
        assert!(run.location.ends_with(".reel"), "{}", run.location);
        cat.open_recording(&run).unwrap();
    }
}

fn reports_of_a_player_on_any_server(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let (cat, _) = common::fresh(db, dir.path());
    let cut = record_with(
        dir.path(),
        "cut.reel",
        &[Runner::new(1, 0, 20, &[])],
        on("eu-1"),
    );
    let report = |n: u32, server: Option<&str>| NewReport {
        reported: player(n),
        reported_name: format!("player{n}"),
        reporter: player(9),
        reason: "fly".into(),
        created_ms: Some(1_000),
        server: server.map(str::to_owned),
    };
    // the recording names its server; a report without a recording names one itself
    let with = cat.add_report(&report(1, None), Some(&cut)).unwrap();
    assert_eq!(with.server.as_deref(), Some("eu-1"));
    let loc = with.location.clone().unwrap();
    assert!(loc.ends_with("cut.reel"), "{loc}");
    let without = cat.add_report(&report(1, Some("us-1")), None).unwrap();
    assert_eq!(
        (without.server.as_deref(), without.location.as_deref()),
        (Some("us-1"), None)
    );
    cat.add_report(&report(2, Some("us-1")), None).unwrap();

    let ids = |v: Vec<tickreel_catalog::Report>| v.iter().map(|r| r.id).collect::<Vec<_>>();
    let mut all = ids(cat.reports_of(player(1), None).unwrap());
    all.sort();
    assert_eq!(all, [with.id, without.id]);
    assert_eq!(
        ids(cat.reports_of(player(1), Some("eu-1")).unwrap()),
        [with.id]
    );
    assert_eq!(
        ids(cat.reports_of(player(1), Some("us-1")).unwrap()),
        [without.id]
    );
    assert!(cat.reports_of(player(3), None).unwrap().is_empty());
    // listed reports give the location too
    let listed = cat.reports(None).unwrap();
    let listed_with = listed.iter().find(|r| r.id == with.id).unwrap();
    assert_eq!(listed_with.location.as_deref(), Some(loc.as_str()));
    assert_eq!(listed_with.server.as_deref(), Some("eu-1"));

    let reader = cat.open_recording(listed_with).unwrap();
    assert_eq!(reader.metadata().library.server.as_deref(), Some("eu-1"));
    let e = cat.open_recording(&without).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
    // a server id out of bounds is refused
    let e = cat
        .add_report(&report(1, Some(&"x".repeat(65))), None)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
}

on_both! {
    boards_of_the_network_and_of_one_server => boards_of_the_network_and_of_one_server;
    reports_of_a_player_on_any_server => reports_of_a_player_on_any_server;
}

/// A location that is gone fails as the reader does; an object URL in a build without object
/// storage is `Unsupported`.
#[test]
fn a_location_that_cannot_be_opened_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let (cat, _) = common::fresh(Db::Sqlite, dir.path());
    let file = record_with(
        dir.path(),
        "gone.reel",
        &[Runner::new(1, 0, 20, &[])],
        on("eu-1"),
    );
    cat.register(&file, &[spec("c", 1, 1, 100)]).unwrap();
    std::fs::remove_file(&file).unwrap();
    let top = cat.top("c", 1).unwrap().remove(0);
    let e = cat.open_recording(&top).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io, "{e}");
    let mut rec = cat.recording(top.run.recording_id).unwrap().unwrap();
    rec.location = "gs://bucket/key.reel".into();
    let e = cat.open_recording(&rec).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
}
