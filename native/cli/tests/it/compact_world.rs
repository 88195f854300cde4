//! The world through the tool (issue 47): `compact` and `recover s3://` carry the world of a
//! recording whose world sections are not what its events make (a report-shaped recording), and
//! refuse, with the reader's own error, what `verify`, `dump` and `play` refuse; `dump --metadata`
//! then `import` rebuilds the world and the terrain.

use std::path::Path;
use std::time::Duration;

use tickreel::play::Reader;
use tickreel::storage::live::live_dir_for;
use tickreel_object::live::ShipOptions;
use tickreel_object::open_url;
use tickreel_object::testing::S3Server;

use crate::common::world_shapes::{metadata, refused, report_shaped_with_terrain, write_live};
use crate::tool::{assert_ok, p, stderr, tickreel};

/// The world and the terrain at every tick of `a` equal `b`'s, and whether the world is known.
fn same_world(a: &Reader, b: &Reader, what: &str) {
    assert_eq!(
        (a.first_tick(), a.last_tick()),
        (b.first_tick(), b.last_tick()),
        "{what}: span"
    );
    for t in a.first_tick().unwrap()..=a.last_tick().unwrap() {
        let (x, y) = (a.world_at(t).unwrap(), b.world_at(t).unwrap());
        assert_eq!(x.complete, y.complete, "{what}: complete at tick {t}");
        assert!(x.world == y.world, "{what}: world at tick {t}");
        assert_eq!(
            a.terrain_at(t).unwrap(),
            b.terrain_at(t).unwrap(),
            "{what}: terrain at tick {t}"
        );
    }
}

/// The reader's message in a command's error: from `chunk at tick` on (what names the file and
/// the chunk's index before it differs between commands).
fn message(err: &str) -> String {
    let line = err
        .lines()
        .find(|l| l.contains("chunk at tick"))
        .unwrap_or(err);
    line[line.find("chunk at tick").unwrap_or(0)..]
        .trim()
        .to_string()
}

#[test]
fn compact_verify_and_dump_refuse_a_bad_world_alike() {
    let dir = tempfile::tempdir().unwrap();
    for (i, (what, frames)) in refused().into_iter().enumerate() {
        let reel = dir.path().join(format!("bad{i}.reel"));
        write_live(&reel, &frames, &metadata(true));
        let live = live_dir_for(&reel);
        let verify = tickreel(&["verify", p(&live)]);
        assert!(!verify.status.success(), "{what}: verified");
        let said = message(&stderr(&verify));
        assert!(said.contains("world delta section"), "{what}: {said}");
        let out = dir.path().join(format!("out{i}.reel"));
        let compact = tickreel(&["compact", p(&live), p(&out)]);
        assert!(!compact.status.success(), "{what}: compacted");
        assert_eq!(message(&stderr(&compact)), said, "{what}: compact");
        assert!(!out.exists(), "{what}: nothing written");
        // (`play` and `dump` without the worlds no longer refuse every such file: since data
        // version 9 a delta is checked against its keyframe when the world's blocks are first
        // read, which they do not do; a world read then is said incomplete,
        // `corruption::a_crafted_block_list_makes_the_world_incomplete_not_wrong`)
        let o = tickreel(&["dump", "--metadata", p(&live)]);
        assert!(!o.status.success(), "{what}: dump");
        assert!(stderr(&o).contains(&said), "{what}: dump: {}", stderr(&o));
    }
}

#[test]
fn compact_keeps_the_world_of_a_report_shaped_recording() {
    let dir = tempfile::tempdir().unwrap();
    let reel = dir.path().join("r.reel");
    write_live(&reel, &report_shaped_with_terrain(), &metadata(true));
    let out = dir.path().join("c.reel");
    assert_ok(&tickreel(&["compact", p(&live_dir_for(&reel)), p(&out)]));
    let source = Reader::open_live(live_dir_for(&reel)).unwrap();
    assert_eq!(source.world_at(100).unwrap().world.block_count(), 500);
    same_world(&source, &Reader::open_path(&out).unwrap(), "compacted");
}

#[test]
fn dump_then_import_rebuilds_the_world_and_the_terrain() {
    let dir = tempfile::tempdir().unwrap();
    let reel = dir.path().join("r.reel");
    write_live(&reel, &report_shaped_with_terrain(), &metadata(true));
    let live = live_dir_for(&reel);
    let dump = tickreel(&["dump", "--metadata", p(&live)]);
    assert_ok(&dump);
    let jsonl = dir.path().join("r.jsonl");
    std::fs::write(&jsonl, &dump.stdout).unwrap();
    let text = String::from_utf8_lossy(&dump.stdout);
    assert_eq!(
        text.matches("{\"terrain\":").count(),
        2,
        "two terrain pieces"
    );
    assert!(text.contains("{\"world\":"), "the forged world");
    let copy = dir.path().join("copy.reel");
    assert_ok(&tickreel(&["import", p(&jsonl), p(&copy)]));
    let source = Reader::open_live(&live).unwrap();
    let back = Reader::open_path(&copy).unwrap();
    // The import's chunks are its own: its snapshots start at the first tick with events after
    // the source's, so compare the ticks where both have the same snapshot behind them (every
    // tick here has events).
    same_world(&source, &back, "imported");
    // Dumped again, the same lines.
    let again = tickreel(&["dump", "--metadata", p(&copy)]);
    assert_ok(&again);
    let lines = |b: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(b)
            .lines()
            .filter(|l| !l.starts_with("{\"recording\""))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(lines(&again.stdout), lines(&dump.stdout));
}

/// Ships the live directory of `reel` to `key` and waits until the bucket holds all of it.
fn ship(server: &S3Server, reel: &Path, key: &str) {
    let shipper = server
        .storage()
        .ship_live(
            reel,
            key,
            ShipOptions {
                interval: Duration::from_millis(100),
            },
        )
        .unwrap();
    shipper.ship_now().unwrap();
    let last = Reader::open_live(live_dir_for(reel)).unwrap().last_tick();
    assert_eq!(shipper.stats().last_tick, last, "shipped");
    // the writer goes away without finishing: what is in the bucket stays
    drop(shipper);
}

#[test]
fn recover_s3_uploads_the_world_and_refuses_what_readers_refuse() {
    let server = S3Server::start_lenient();
    let dir = tempfile::tempdir().unwrap();
    let reel = dir.path().join("r.reel");
    write_live(&reel, &report_shaped_with_terrain(), &metadata(true));
    ship(&server, &reel, "live/r.reel");
    let url = server.url("live/r.reel");
    let o = std::process::Command::new(crate::tool::BIN)
        .args(["recover", &url])
        .envs(server.env())
        .output()
        .unwrap();
    assert_ok(&o);
    let up = open_url(&url, &server.options()).unwrap();
    same_world(
        &Reader::open_live(live_dir_for(&reel)).unwrap(),
        &up,
        "recovered from the bucket",
    );

    let (what, frames) = refused().remove(0);
    let bad = dir.path().join("bad.reel");
    write_live(&bad, &frames, &metadata(true));
    let said = message(&stderr(&tickreel(&["verify", p(&live_dir_for(&bad))])));
    ship(&server, &bad, "live/bad.reel");
    let url = server.url("live/bad.reel");
    let o = std::process::Command::new(crate::tool::BIN)
        .args(["recover", &url])
        .envs(server.env())
        .output()
        .unwrap();
    assert!(!o.status.success(), "{what}: recovered");
    assert_eq!(message(&stderr(&o)), said, "{what}");
    assert!(
        open_url(&url, &server.options()).is_err(),
        "{what}: uploaded"
    );
}
