//! Every input the `csv_import`, `json_import` and `http_api` fuzzers found a problem with, kept under
//! `fuzz/regressions/<target>/`, replayed through exactly the code the fuzz target runs
//! (`fuzz/src/<target>.rs`, included here by path with the `harness.rs` it uses), and the seed
//! corpora `fuzz/seeds/<target>/` too. See `fuzz/README.md`; the core's targets are replayed by
//! `native/core/tests/it/fuzz_regressions.rs`.

#[path = "../../../../fuzz/src/csv_import.rs"]
mod csv_import;

#[path = "../../../../fuzz/src/json_import.rs"]
mod json_import;

use std::path::PathBuf;

/// The files of `fuzz/<kind>/<target>/`, sorted (none if the directory does not exist).
fn inputs(kind: &str, target: &str) -> (PathBuf, Vec<PathBuf>) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz")
        .join(kind)
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return (dir, Vec::new());
    };
    let mut paths: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    (dir, paths)
}

/// Runs every input of `fuzz/<kind>/<target>/` through `run`; fails naming each one that panics.
fn replay(kind: &str, target: &str, run: fn(&[u8])) -> usize {
    let (dir, paths) = inputs(kind, target);
    let failed: Vec<String> = paths
        .iter()
        .filter(|p| {
            let bytes = std::fs::read(p).unwrap();
            std::panic::catch_unwind(|| run(&bytes)).is_err()
        })
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} inputs in {} panic: {failed:?}",
        failed.len(),
        paths.len(),
        dir.display()
    );
    paths.len()
}

#[test]
fn csv_import_regressions() {
    replay("regressions", "csv_import", csv_import::csv_import);
}

/// The seeds pass too (they are the fuzzer's starting points, and exercise the harness).
#[test]
fn csv_import_seeds() {
    let n = replay("seeds", "csv_import", csv_import::csv_import);
    assert!(n > 0, "no seeds in fuzz/seeds/csv_import");
}

/// A valid trace goes through the whole round trip; invalid ones are errors, which the harness
/// accepts (the seeds may not cover both).
#[test]
fn valid_and_invalid_traces_pass_the_harness() {
    csv_import::csv_import(b"tick,entity,x,y,z,yaw,pitch\n0,1,0,64,0,0,0\n");
    csv_import::csv_import(b"tick,entity\n");
    csv_import::csv_import(b"\xff\xfe\n");
    csv_import::csv_import(b"");
}

#[test]
fn json_import_regressions() {
    replay("regressions", "json_import", json_import::json_import);
}

#[test]
fn json_import_seeds() {
    let n = replay("seeds", "json_import", json_import::json_import);
    assert!(n > 0, "no seeds in fuzz/seeds/json_import");
}

/// A valid dump goes through the whole round trip (with and without its metadata lines); invalid
/// lines are errors, which the harness accepts.
#[test]
fn valid_and_invalid_dumps_pass_the_harness() {
    let tick = br#"{"tick":2,"events":[{"type":"entity_add","entity":1,"kind":3,"x":0.5,"y":64,"z":0,"yaw":720,"pitch":0},{"type":"custom","type_id":9,"name":"n","data":"00ff"}]}"#;
    json_import::json_import(tick);
    let mut with_meta =
        br#"{"recording":{"tick_rate_millihz":50000,"gaps":[[0,1]],"dropped_ticks":2}}"#.to_vec();
    with_meta.push(b'\n');
    with_meta.extend_from_slice(br#"{"snapshot":{"tick":2,"data":"61"}}"#);
    with_meta.push(b'\n');
    with_meta.extend_from_slice(tick);
    json_import::json_import(&with_meta);
    json_import::json_import(b"{\"tick\":1}");
    json_import::json_import(b"{");
    json_import::json_import(b"");
}

#[path = "../../../../fuzz/src/http_api.rs"]
mod http_api;

/// The `http_api` target's seeds and kept regressions, one after another (its fixture's folder
/// and server are made once per process; each input's recording is served from memory).
#[test]
fn http_api_seeds_and_regressions() {
    replay("regressions", "http_api", http_api::http_api);
    let n = replay("seeds", "http_api", http_api::http_api);
    assert!(n > 0, "no seeds in fuzz/seeds/http_api");
}

/// The `http_api` target sends every input to one server: what an input leaves in it does not
/// change the next one's answers. Every seed and kept input, in turn and then in reverse order
/// (so that each follows others), is answered by one server as by a new server of the same
/// folder: the same statuses, the same bodies (an `/api/live` stream's too: a recording that is
/// not live sends its one event and ends).
#[test]
fn http_api_answers_do_not_depend_on_the_inputs_before() {
    let mut all: Vec<Vec<u8>> = Vec::new();
    for kind in ["regressions", "seeds"] {
        for p in inputs(kind, "http_api").1 {
            all.push(std::fs::read(p).unwrap());
        }
    }
    assert!(all.len() > 2, "too few inputs");
    let shared = http_api::new_server();
    let order: Vec<&Vec<u8>> = all.iter().chain(all.iter().rev()).collect();
    let mut compared = 0;
    for (i, input) in order.into_iter().enumerate() {
        let from_shared = http_api::answers(&shared, input);
        let from_new = http_api::answers(&http_api::new_server(), input);
        assert_eq!(from_shared.len(), from_new.len(), "input {i}");
        for (a, b) in from_shared.iter().zip(&from_new) {
            assert_eq!(
                (&a.0, a.1, a.2),
                (&b.0, b.1, b.2),
                "input {i}: another status from the server that answered inputs before"
            );
            assert!(
                a.3 == b.3,
                "input {i}: {}: another answer from the server that answered inputs before:\n{}\n{}",
                a.0,
                String::from_utf8_lossy(&a.3),
                String::from_utf8_lossy(&b.3)
            );
            compared += 1;
        }
    }
    assert!(compared > 100, "{compared} answers compared");
}
