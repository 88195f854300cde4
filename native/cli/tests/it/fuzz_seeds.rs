//! Writes the `csv_import` fuzzer's seed corpus (`fuzz/seeds/csv_import/`, committed, a few KB):
//! the import tests' trace, `tickreel export` output of small recordings and of the golden file,
//! and the malformed traces the import tests reject; and the `json_import` fuzzer's
//! (`fuzz/seeds/json_import/`): `tickreel dump` output of the golden file and of a small
//! recording, with and without `--metadata`, and malformed lines. Ignored: run it only to
//! regenerate the seeds, `cargo test -p tickreel-cli --test it -- fuzz_seeds:: --ignored`, and
//! commit what changed. See `fuzz/README.md`.

use crate::common;
use crate::trace;

use std::path::{Path, PathBuf};

use tickreel::play::Reader;
use tickreel::record::ChunkPolicy;
use tickreel_cli::csv::export::export;
use tickreel_cli::csv::import::{import_from, reel_options};

fn put(name: &str, bytes: &[u8]) {
    put_in("csv_import", name, bytes);
}

fn put_in(target: &str, name: &str, bytes: &[u8]) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/seeds")
        .join(target);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), bytes).unwrap();
}

/// `tickreel export` of the recording at `path`.
fn exported(path: &Path) -> Vec<u8> {
    let r = Reader::open_any(path).unwrap();
    let mut text = Vec::new();
    export(&r, &mut text).unwrap();
    text
}

fn policy() -> ChunkPolicy {
    ChunkPolicy {
        chunk_ticks: 10,
        snapshot_interval: 20,
        ..ChunkPolicy::default()
    }
}

#[test]
#[ignore = "writes fuzz/seeds/csv_import/; regenerate with: cargo test -p tickreel-cli --test it -- --ignored fuzz_seeds::write_csv_import_seeds"]
fn write_csv_import_seeds() {
    let dir = tempfile::tempdir().unwrap();

    // The import tests' trace (every optional column, in a non-canonical order).
    let trace = trace::render(&trace::trace());
    put("trace.csv", trace.as_bytes());

    // Exports: of the trace's import (teleports, checkpoints, on-ground changes), of a simulated
    // recording, of the golden file.
    let imported = dir.path().join("trace.reel");
    let options = reel_options(20.0).unwrap();
    import_from(
        trace.as_bytes(),
        Path::new("trace.csv"),
        &imported,
        options,
        false,
    )
    .unwrap();
    put("export-trace.csv", &exported(&imported));
    let sim = dir.path().join("sim.reel");
    common::write_reel(&sim, &common::sim_ticks(3, 16, 5), policy());
    put("export-sim.csv", &exported(&sim));
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../core/tests/data/golden.reel");
    put("export-golden.csv", &exported(&golden));

    // Small valid traces: only the required columns; reordered columns after a byte-order mark
    // and a blank line, with CRLF line ends; ticks far apart, near the largest tick.
    put(
        "minimal.csv",
        b"tick,entity,x,y,z,yaw,pitch\n0,1,0,0,0,0,0\n",
    );
    put(
        "reordered.csv",
        "\u{feff}Entity, TICK ,pitch,yaw,z,y,x\r\n\r\n5,0,0,0,0,64,0\r\n5,1,1,1,1,64,1\r\n"
            .as_bytes(),
    );
    put(
        "far-ticks.csv",
        b"tick,entity,x,y,z,yaw,pitch,teleport,on_ground,checkpoint\n\
          4294967290,7,-1099511627776,1e3,0.000244140625,-1e9,90,true,false,4294967295\n\
          4294967294,7,1099511627776,-64,0,359.99,-90,0,1,\n",
    );

    // What the import tests reject (one error each).
    let h = "tick,entity,x,y,z,yaw,pitch\n";
    let bad: [(&str, String); 8] = [
        (
            "bad-number.csv",
            format!("{h}0,1,0,64,0,0,0\n1,1,0,sixty,0,0,0\n"),
        ),
        (
            "bad-short-row.csv",
            format!("{h}0,1,0,64,0,0,0\n1,1,0,64,0\n"),
        ),
        (
            "bad-unsorted.csv",
            format!("{h}5,1,0,64,0,0,0\n4,1,0,64,0,0,0\n"),
        ),
        (
            "bad-same-entity.csv",
            format!("{h}5,1,0,64,0,0,0\n5,1,1,64,0,0,0\n"),
        ),
        (
            "bad-too-far.csv",
            format!("{h}0,1,0,64,0,0,0\n4294967295,1,0,64,0,0,0\n"),
        ),
        (
            "bad-header.csv",
            "tick,entity,x,y,z,yaw\n0,1,0,0,0,0\n".to_string(),
        ),
        (
            "bad-long-field.csv",
            format!("{h}0,1,0,{}x,0,0,0\n", "9".repeat(200)),
        ),
        (
            "bad-flags.csv",
            "tick,entity,x,y,z,yaw,pitch,on_ground,checkpoint\n0,1,0,0,0,0,0,yes,-1\n".to_string(),
        ),
    ];
    for (name, text) in bad {
        put(name, text.as_bytes());
    }
}

/// `tickreel dump [--metadata]` of the recording at `path`.
fn dumped(path: &Path, metadata: bool) -> Vec<u8> {
    let r = Reader::open_any(path).unwrap();
    let mut text = Vec::new();
    tickreel_cli::dump::dump(&r, path, None, None, metadata, &mut text).unwrap();
    text
}

#[test]
#[ignore = "writes fuzz/seeds/json_import/; regenerate with: cargo test -p tickreel-cli --test it -- --ignored fuzz_seeds::write_json_import_seeds"]
fn write_json_import_seeds() {
    let dir = tempfile::tempdir().unwrap();
    let put = |name: &str, bytes: &[u8]| put_in("json_import", name, bytes);
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../core/tests/data/golden.reel");
    put("golden-metadata.jsonl", &dumped(&golden, true));
    put("golden.jsonl", &dumped(&golden, false));
    let sim = dir.path().join("sim.reel");
    common::write_reel(&sim, &common::sim_ticks(3, 16, 5), policy());
    put("sim-metadata.jsonl", &dumped(&sim, true));
    put(
        "every-kind.jsonl",
        br#"{"recording":{"tick_rate_millihz":50000,"timestamp_ms":-5,"world_id":"07070707070707070707070707070707","recording_id":"03030303030303030303030303030303","entities":[{"id":1,"kind":5,"name":"zed"}],"event_types":[{"id":42,"name":"g:t","version":2}],"gaps":[[30,31]],"dropped_ticks":2}}
{"snapshot":{"tick":0,"data":"736e6170"}}
{"tick":0,"events":[{"type":"entity_add","entity":1,"kind":5,"x":-24.4,"y":64,"z":0,"yaw":-16479.6,"pitch":0},{"type":"entity_add","entity":2,"kind":6,"x":1,"y":64,"z":0,"yaw":0,"pitch":0},{"type":"flags","entity":1,"flags":1073741825},{"type":"velocity","entity":1,"x":0,"y":-0.1,"z":1.000125},{"type":"checkpoint","entity":1,"index":0},{"type":"custom","type_id":42,"data":""},{"type":"extension","kind":65,"data":"ff00"}]}
{"tick":1,"events":[{"type":"position","entity":1,"x":2,"y":65,"z":3},{"type":"rotation","entity":2,"yaw":90,"pitch":-45}]}
{"tick":5,"events":[{"type":"teleport","entity":1,"x":100,"y":70,"z":-100,"yaw":0,"pitch":0},{"type":"entity_remove","entity":2}]}
{"tick":6,"events":[]}
{"tick":9,"events":[{"type":"entity_add","entity":2,"kind":8,"x":1,"y":64,"z":0,"yaw":0,"pitch":0},{"type":"player_leave","entity":1}]}
"#,
    );
    // Every world event kind, their palette names given beside the ids (no `recording` line),
    // and that import's `dump --metadata` (the palette in the `recording` line).
    let world = br#"{"tick":0,"events":[{"type":"entity_add","entity":1,"kind":0,"x":0.5,"y":64,"z":0.5,"yaw":0,"pitch":0},{"type":"entity_add","entity":2,"kind":7,"x":3,"y":64,"z":1,"yaw":90,"pitch":0},{"type":"block_change","x":1,"y":63,"z":0,"state":9,"state_name":"minecraft:stone","entity":1},{"type":"block_change","x":2,"y":64,"z":-3,"state":54,"state_name":"minecraft:chest[facing=north]","block_entity":"0a000000"},{"type":"health","entity":1,"health":20},{"type":"equipment","entity":1,"slot":0,"item":5,"item_name":"minecraft:diamond_sword","count":1}]}
{"tick":1,"events":[{"type":"block_changes","entity":1,"blocks":[[0,63,0,1],[0,63,1,1],[-1,62,5,0],[16,70,-16,9]]},{"type":"swing","entity":1,"hand":0},{"type":"attack","entity":1,"target":2}]}
{"tick":2,"events":[{"type":"damage","entity":2,"amount":4.5,"cause":3,"cause_name":"minecraft:player_attack","source":1},{"type":"health","entity":2,"health":15.5},{"type":"use","entity":1,"hand":1,"item":7,"item_name":"minecraft:torch","x":0,"y":64,"z":1},{"type":"use","entity":1,"hand":0,"item":5,"target":2},{"type":"use","entity":1,"hand":0,"item":0}]}
{"tick":3,"events":[{"type":"chat","entity":1,"channel":0,"text":"gg \u00e9\u4e16"},{"type":"chat","channel":1,"text":"server restart"},{"type":"custom_at","type_id":9,"name":"game:marker","entity":1,"x":1.5,"y":65,"z":-2,"data":"0102"},{"type":"custom_at","type_id":9,"data":""}]}
{"tick":40,"events":[{"type":"block_change","x":1,"y":63,"z":0,"state":0,"state_name":"minecraft:air"},{"type":"equipment","entity":1,"slot":0,"item":0,"count":0},{"type":"entity_remove","entity":2}]}
{"tick":41,"events":[{"type":"block_changes","blocks":[[2,64,-3,0],[0,63,1,12]]},{"type":"player_leave","entity":1}]}
"#;
    put("world-events.jsonl", world);
    let imported = dir.path().join("world.reel");
    tickreel_cli::json_import::import_from(
        &world[..],
        Path::new("world-events.jsonl"),
        &imported,
        tickreel_cli::csv::import::reel_options(20.0).unwrap(),
        false,
    )
    .unwrap();
    put("world-metadata.jsonl", &dumped(&imported, true));
    let good = r#"{"tick":3,"events":[{"type":"entity_add","entity":1,"kind":0,"x":0,"y":0,"z":0,"yaw":0,"pitch":0}]}"#;
    let bad: [(&str, String); 7] = [
        (
            "bad-json.jsonl",
            format!("{good}\n{{\"tick\":4,\"events\":[}}\n"),
        ),
        (
            "bad-type.jsonl",
            format!("{good}\n{{\"tick\":4,\"events\":[{{\"type\":\"warp\",\"entity\":1}}]}}\n"),
        ),
        (
            "bad-order.jsonl",
            format!("{good}\n{{\"tick\":2,\"events\":[]}}\n"),
        ),
        (
            "bad-huge.jsonl",
            format!("{good}\n{{\"tick\":4294967296,\"events\":[]}}\n"),
        ),
        (
            "bad-range.jsonl",
            format!(
                "{good}\n{{\"tick\":5,\"events\":[{{\"type\":\"pose\",\"entity\":1,\"x\":1e30,\"y\":0,\"z\":0,\"yaw\":0,\"pitch\":0}}]}}\n"
            ),
        ),
        (
            "bad-late-recording.jsonl",
            format!("{good}\n{{\"recording\":{{}}}}\n"),
        ),
        (
            "bad-long-field.jsonl",
            format!(
                "{good}\n{{\"tick\":5,\"events\":[{{\"type\":\"{}\"}}]}}\n",
                "w".repeat(200)
            ),
        ),
    ];
    for (name, text) in bad {
        put(name, text.as_bytes());
    }
}
