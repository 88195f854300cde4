//! Never leaving a live directory through its files (issue 31): `tickreel recover` refuses a
//! directory whose segment or lock file is a symbolic link and leaves the target as it was, and
//! `tickreel serve` answers a live directory whose files lead outside, a symbolic link to a
//! file outside and a missing name alike (404, the same message), while serving a genuine live
//! directory.

use std::path::{Path, PathBuf};

use crate::serve_support::*;

/// A live recording left unfinished at `out`'s live directory (`out.live`).
fn unfinished(out: &Path) -> PathBuf {
    ok(&[
        "simulate",
        "--out",
        out.to_str().unwrap(),
        "--players",
        "3",
        "--ticks",
        "300",
        "--flush-ms",
        "1",
        "--chunk-ticks",
        "50",
        "--no-finish",
    ]);
    let live = PathBuf::from(format!("{}.live", out.display()));
    assert!(live.join("meta.tkrl").is_file() && live.join("seg-000000.tks").is_file());
    live
}

#[test]
fn recover_refuses_a_member_that_links_outside_and_leaves_the_target_be() {
    // The report's reproduction: a directory holding only a linked segment.
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("file");
    std::fs::write(&target, b"somebody else's file").unwrap();
    let live = dir.path().join("x.reel.live");
    std::fs::create_dir(&live).unwrap();
    std::os::unix::fs::symlink(&target, live.join("seg-000000.tks")).unwrap();
    let o = tickreel(&["recover", live.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "recovered: {err}");
    assert!(
        err.contains("seg-000000.tks") && err.contains("symbolic link"),
        "{err}"
    );
    assert_eq!(std::fs::read(&target).unwrap(), b"somebody else's file");

    // A real recording's lock file and segment, each linked outside in turn.
    for name in ["lock", "seg-000000.tks"] {
        let live = unfinished(&dir.path().join(format!("{name}.reel")));
        let member = live.join(name);
        let mut bytes = std::fs::read(&member).unwrap();
        bytes.extend_from_slice(&[0xAB; 64]); // a tail recovery would cut off a segment
        let target = outside.path().join(name);
        std::fs::write(&target, &bytes).unwrap();
        std::fs::remove_file(&member).unwrap();
        std::os::unix::fs::symlink(&target, &member).unwrap();
        let o = tickreel(&["recover", live.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{name}: recovered: {err}");
        assert!(err.contains(member.to_str().unwrap()), "{name}: {err}");
        assert_eq!(
            std::fs::read(&target).unwrap(),
            bytes,
            "{name}: target changed"
        );
    }
}

#[test]
fn serve_answers_leaving_names_as_missing_ones_and_serves_a_genuine_live_directory() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    let root = dir.path().join("served");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(&root).unwrap();
    let elsewhere = unfinished(&outside.join("run.reel"));
    simulate(&outside.join("secret.reel"), 1, 40);
    unfinished(&root.join("genuine.reel"));

    // every file of a live directory linked to the recording outside
    let all = root.join("all.reel.live");
    std::fs::create_dir(&all).unwrap();
    for name in ["meta.tkrl", "seg-000000.tks", "lock"] {
        std::os::unix::fs::symlink(elsewhere.join(name), all.join(name)).unwrap();
    }
    // a genuine metadata file, the segment linked outside
    let segs = root.join("segs.reel.live");
    std::fs::create_dir(&segs).unwrap();
    std::fs::copy(elsewhere.join("meta.tkrl"), segs.join("meta.tkrl")).unwrap();
    std::os::unix::fs::symlink(
        elsewhere.join("seg-000000.tks"),
        segs.join("seg-000000.tks"),
    )
    .unwrap();
    // a directory not named as a live one, its metadata file linked outside
    let plain = root.join("plain");
    std::fs::create_dir(&plain).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("meta.tkrl"), plain.join("meta.tkrl")).unwrap();
    // links out: to a live directory, to a file, to nothing
    std::os::unix::fs::symlink(&elsewhere, root.join("dirlink.reel.live")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.reel"), root.join("link.reel")).unwrap();
    std::os::unix::fs::symlink(outside.join("absent.reel"), root.join("dangling.reel")).unwrap();

    let s = Server::start(&[root.to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let pages = |name: &str| {
        [
            format!("/api/info?rec={}", enc(name)),
            format!("/api/frames?rec={}&from=0&count=5", enc(name)),
            format!("/api/seek?rec={}&tick=10", enc(name)),
        ]
    };
    for page in pages("genuine.reel.live") {
        let (st, v) = s.get(&page);
        assert_eq!(st, 200, "GET {page}: {v}");
    }
    for name in [
        "all.reel.live",
        "segs.reel.live",
        "plain",
        "dirlink.reel.live",
        "link.reel",
        "dangling.reel",
        "missing.reel",
    ] {
        for page in pages(name) {
            let (st, v) = s.get(&page);
            let expected = serde_json::json!({
                "error": format!("{name}: no such recording"),
                "status": 404,
            });
            assert_eq!((st, &v), (404, &expected), "GET {page}");
        }
    }
    // the recording outside is as it was: nothing recovered, locked or cut through the links
    let o = tickreel(&["verify", elsewhere.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn serve_never_reads_outside_through_a_directory_swapped_after_its_check() {
    // `served/sub` is a directory holding `in.reel` (1 player), `served/alt` a symbolic link to
    // a directory outside holding a file of the same name (5 players). A thread exchanges the
    // two names (renameat2 with RENAME_EXCHANGE, one atomic step) as fast as it can while
    // requests ask for `sub/in.reel`: the server checks where a name leads and then opens it,
    // so between the two `sub` may have become the link. Every answer must be the inside
    // recording or a missing one, never the outside's.
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    let root = dir.path().join("served");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(root.join("sub")).unwrap();
    simulate(&root.join("sub").join("in.reel"), 1, 40);
    simulate(&outside.join("in.reel"), 5, 41);
    std::os::unix::fs::symlink(&outside, root.join("alt")).unwrap();

    let s = Server::start(&[root.to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (stop, root) = (stop.clone(), root.clone());
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    root.join("sub"),
                    rustix::fs::CWD,
                    root.join("alt"),
                    rustix::fs::RenameFlags::EXCHANGE,
                )
                .unwrap();
                swaps += 1;
            }
            swaps
        })
    };
    let (mut inside, mut missing) = (0, 0);
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_secs(4) {
        for page in [
            "/api/info?rec=sub%2Fin.reel",
            "/api/frames?rec=sub%2Fin.reel&from=0&count=2",
        ] {
            let (st, v) = s.get(page);
            match st {
                200 => {
                    // inside: ticks 0..=39, one entity a frame; outside: 0..=40, five
                    assert_eq!(v["edge"]["last_tick"], 39, "GET {page} read outside: {v}");
                    for f in v["frames"].as_array().into_iter().flatten() {
                        assert_eq!(f["e"].as_array().map(Vec::len), Some(1), "GET {page}: {v}");
                    }
                    inside += 1;
                }
                404 => {
                    assert_eq!(v["error"], "sub/in.reel: no such recording", "GET {page}");
                    missing += 1;
                }
                _ => panic!("GET {page}: {st} {v}"),
            }
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    println!("{swaps} swaps; answers: {inside} inside, {missing} missing");
    assert!(
        inside > 0 && swaps > 100,
        "{swaps} swaps, {inside} answers inside"
    );
}
