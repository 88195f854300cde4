//! `tickreel serve`'s HTTP API against the real binary on a free loopback port: the listing, a
//! tick-range stream and seeks (equal to the core `Reader::seek`), bad input (unknown names, path
//! traversal, huge ranges, damaged files) answered with clear JSON errors while the server keeps
//! serving, and the access token. Live recordings, ghost races, reports, object storage and the
//! catalog: `serve_live_races.rs`.

use crate::serve_support::*;

#[test]
fn lists_streams_ranges_and_seeks_like_the_reader() {
    let dir = tempfile::tempdir().unwrap();
    let sim = dir.path().join("sim.reel");
    simulate(&sim, 6, 600);
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    simulate(&dir.path().join("sub/other.reel"), 2, 100);
    std::fs::write(dir.path().join("notes.txt"), "not a recording").unwrap();
    let s = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);

    let list = s.json("/api/recordings");
    assert_eq!(
        names(&list),
        vec![
            ("sim.reel".to_string(), "reel".to_string()),
            ("sub/other.reel".to_string(), "reel".to_string())
        ]
    );

    let info = s.json("/api/info?rec=sim.reel");
    assert_eq!(info["edge"]["first_tick"], 0);
    assert_eq!(info["edge"]["last_tick"], 599);
    assert_eq!(info["tick_rate"], 20.0);
    assert!(info["report"].is_null());

    // a forward range: consecutive ticks, each frame equal to the reader's seek
    let v = s.json("/api/frames?rec=sim.reel&from=150&count=60");
    assert_eq!(v["pos_scale"], 4096.0);
    assert_eq!(v["angle_units"], 65536.0);
    let frames = v["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 60);
    for (i, f) in frames.iter().enumerate() {
        assert_eq!(f["t"], 150 + i as u64);
    }
    for i in [0usize, 1, 49, 50, 59] {
        let t = 150 + i as u32;
        assert_close(
            &api_positions(&frames[i]),
            &reader_positions(&sim, t),
            &format!("frame at {t}"),
        );
    }
    // backward with a step, across a chunk boundary
    let v = s.json("/api/frames?rec=sim.reel&from=320&count=10&step=7&dir=back");
    let frames = v["frames"].as_array().unwrap();
    let ticks: Vec<u64> = frames.iter().map(|f| f["t"].as_u64().unwrap()).collect();
    assert_eq!(ticks, (0..10).map(|k| 320 - 7 * k).collect::<Vec<_>>());
    for f in frames {
        let t = f["t"].as_u64().unwrap() as u32;
        assert_close(
            &api_positions(f),
            &reader_positions(&sim, t),
            &format!("back at {t}"),
        );
    }
    // the range stops at the last tick
    let v = s.json("/api/frames?rec=sim.reel&from=590&count=100");
    assert_eq!(v["frames"].as_array().unwrap().len(), 10);

    // seeks at random ticks: the same entities and positions as Reader::seek
    let mut rng = fastrand::Rng::with_seed(7);
    for _ in 0..20 {
        let t = rng.u32(0..600);
        let v = s.json(&format!("/api/seek?rec=sim.reel&tick={t}"));
        assert_eq!(v["tick"], t);
        let mut got: Vec<(u32, f64, f64, f64)> = v["entities"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["id"].as_u64().unwrap() as u32,
                    e["x"].as_f64().unwrap(),
                    e["y"].as_f64().unwrap(),
                    e["z"].as_f64().unwrap(),
                )
            })
            .collect();
        got.sort_by_key(|e| e.0);
        assert_close(&got, &reader_positions(&sim, t), &format!("seek {t}"));
    }
    // a tick past the end is clamped, as the reader does
    assert_eq!(s.json("/api/seek?rec=sim.reel&tick=99999")["tick"], 599);

    // the viewer's page and its assets come from the binary
    let (st, page) = s.text("/");
    assert_eq!(st, 200);
    assert!(page.contains("viewer.js") && page.contains("<canvas id=\"map\""));
    let (st, js) = s.text("/viewer.js");
    assert_eq!(st, 200);
    assert!(js.contains("window.tickreelViewer"));
}

#[test]
fn bad_input_gets_clear_errors_and_the_server_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("served");
    std::fs::create_dir(&root).unwrap();
    let good = root.join("good.reel");
    simulate(&good, 20, 3000);
    // outside the served directory, and a symbolic link to it from inside
    let secret = dir.path().join("secret.reel");
    simulate(&secret, 1, 20);
    std::os::unix::fs::symlink(&secret, root.join("link.reel")).unwrap();
    // damaged: garbage, a truncated copy, and a good file with one chunk's bytes flipped
    std::fs::write(root.join("garbage.reel"), b"this is not a recording at all").unwrap();
    let bytes = std::fs::read(&good).unwrap();
    std::fs::write(root.join("truncated.reel"), &bytes[..bytes.len() / 3]).unwrap();
    let mut flipped = bytes.clone();
    let r = tickreel::play::Reader::open_path(&good).unwrap();
    assert!(r.index().len() >= 3, "{} chunks", r.index().len());
    let e = r.index()[r.index().len() / 2];
    let mid = (e.offset + u64::from(e.compressed_len) / 2) as usize;
    for b in &mut flipped[mid..mid + 16] {
        *b ^= 0x5a;
    }
    std::fs::write(root.join("flipped.reel"), &flipped).unwrap();
    let mut s = Server::start(&[root.to_str().unwrap(), "--listen", "127.0.0.1:0"]);

    let expect = |path: &str, status: u16, needle: &str| {
        let (st, v) = s.get(path);
        assert_eq!(st, status, "GET {path}: {v}");
        let msg = v["error"]
            .as_str()
            .unwrap_or_else(|| panic!("GET {path}: no error: {v}"));
        assert!(msg.contains(needle), "GET {path}: {msg:?} lacks {needle:?}");
        assert_eq!(v["status"], status);
    };
    expect(
        "/api/info?rec=nope.reel",
        404,
        "nope.reel: no such recording",
    );
    expect(
        "/api/info?rec=../secret.reel",
        403,
        "outside the served directory",
    );
    expect(
        "/api/info?rec=%2E%2E%2Fsecret.reel",
        403,
        "outside the served directory",
    );
    expect(
        "/api/frames?rec=sub/../../secret.reel",
        403,
        "outside the served directory",
    );
    expect(
        &format!("/api/info?rec={}", enc(secret.to_str().unwrap())),
        403,
        "outside the served directory",
    );
    // a link out is answered as a missing name: nothing about the outside shows
    expect(
        "/api/seek?rec=link.reel&tick=0",
        404,
        "link.reel: no such recording",
    );
    expect("/api/info?rec=", 400, "no recording named");
    expect(
        "/api/frames?rec=good.reel&count=100000",
        400,
        "between 1 and 2048",
    );
    expect(
        "/api/frames?rec=good.reel&count=2000&step=1000",
        400,
        "range too large",
    );
    expect(
        "/api/frames?rec=good.reel&dir=sideways",
        400,
        "expected fwd or back",
    );
    expect("/api/frames?rec=good.reel&from=-3", 400, "bad query");
    expect("/api/seek?rec=good.reel", 400, "bad query");
    expect("/api/info?rec=garbage.reel", 422, "garbage.reel");
    expect("/api/frames?rec=truncated.reel", 422, "truncated.reel");
    expect("/api/nothing", 404, "no such page");
    // a long name is quoted in part
    let long = format!("{}/x.reel", "n".repeat(200));
    let (st, v) = s.get(&format!("/api/info?rec={long}"));
    assert_eq!(st, 404, "{v}");
    let msg = v["error"].as_str().unwrap();
    assert!(msg.len() < 200 && msg.contains("(207 bytes)"), "{msg}");
    let (st, v) = s.get(&format!("/api/info?rec={}.reel", "n".repeat(1000)));
    assert!(st == 404 || st == 500, "{v}");
    assert!(v["error"].as_str().unwrap().len() < 300, "{v}");
    expect(
        &format!("/api/info?rec={}", "n".repeat(5000)),
        400,
        "not valid",
    );
    // a damaged chunk: the frames around it are answered, the damage is named
    let first_bad = e.start_tick;
    let (st, v) = s.get(&format!("/api/seek?rec=flipped.reel&tick={first_bad}"));
    assert_eq!(st, 422, "{v}");
    assert!(v["error"].as_str().unwrap().contains("flipped.reel"), "{v}");
    let v = s.json("/api/frames?rec=flipped.reel&from=0&count=10");
    assert_eq!(v["frames"].as_array().unwrap().len(), 10);
    // read-only: nothing but GET
    let resp = s
        .agent()
        .post(format!("{}/api/info?rec=good.reel", s.base))
        .send("")
        .unwrap();
    assert_eq!(resp.status().as_u16(), 405);
    let resp = s
        .agent()
        .delete(format!("{}/api/info?rec=good.reel", s.base))
        .call()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 405);
    assert!(good.exists() && secret.exists());

    // still serving, and the listing names every file (damaged ones too), not the secret nor
    // the link to it
    assert!(s.alive());
    let list = names(&s.json("/api/recordings"));
    let listed: Vec<&str> = list.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        listed,
        [
            "flipped.reel",
            "garbage.reel",
            "good.reel",
            "truncated.reel"
        ]
    );
    let v = s.json("/api/frames?rec=good.reel&from=10&count=3");
    assert_close(
        &api_positions(&v["frames"][2]),
        &reader_positions(&good, 12),
        "after errors",
    );
}

#[test]
fn a_token_is_required_when_set_and_public_binds_need_one() {
    let dir = tempfile::tempdir().unwrap();
    simulate(&dir.path().join("a.reel"), 2, 50);
    let d = dir.path().to_str().unwrap();
    let token = "correct-horse-battery-staple";

    // refused configurations (a token on the command line, even a good one, says where it goes)
    let tokens = dir.path().join("tokens.txt");
    let f = |text: &str| {
        std::fs::write(&tokens, text).unwrap();
        tokens.to_str().unwrap().to_string()
    };
    let (short, spaced) = (f("staff short\n"), dir.path().join("spaced.txt"));
    std::fs::write(&spaced, "staff correct horse battery\n").unwrap();
    let spaced = spaced.to_str().unwrap().to_string();
    for (args, needle) in [
        (
            vec![d, "--listen", "127.0.0.1:0", "--token", token],
            "--tokens-file",
        ),
        (
            vec![d, "--listen", "127.0.0.1:0", "--tokens-file", &short],
            "too short",
        ),
        (
            vec![d, "--listen", "127.0.0.1:0", "--tokens-file", &spaced],
            "expected NAME ROLE TOKEN",
        ),
        (vec![d, "--listen", "0.0.0.0:0"], "not a loopback address"),
        (
            vec![d, "--listen", "0.0.0.0:0", "--public"],
            "needs an access token",
        ),
        (
            vec!["/no/such/dir", "--listen", "127.0.0.1:0"],
            "/no/such/dir",
        ),
        (
            vec![d, "--listen", "127.0.0.1:0", "--max-wait=-1"],
            "--max-wait -1: seconds from 0 to 3600",
        ),
        (
            vec![d, "--listen", "127.0.0.1:0", "--max-wait", "4000"],
            "--max-wait 4000: seconds from 0 to 3600",
        ),
    ] {
        let mut full = vec!["serve"];
        full.extend(&args);
        let o = tickreel(&full);
        assert!(!o.status.success(), "{args:?} was accepted");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains(token), "{args:?} shows the token: {err}");
    }

    // public, with the token from the environment: every request needs it
    let s = Server::start_env(
        &[d, "--listen", "0.0.0.0:0", "--public"],
        &[("TICKREEL_TOKEN", token)],
    );
    let port = s.base.rsplit(':').next().unwrap().to_string();
    let local = Client::at(&format!("http://127.0.0.1:{port}"));
    for path in ["/", "/viewer.js", "/api/recordings", "/api/info?rec=a.reel"] {
        let (st, _) = local.raw(path, None);
        assert_eq!(st, 401, "{path} without a token");
        let (st, _) = local.raw(path, Some("wrong-token-wrong-token"));
        assert_eq!(st, 401, "{path} with a wrong token");
        let (st, _) = local.raw(path, Some(token));
        assert_eq!(st, 200, "{path} with the token");
    }
    let (st, body) = local.raw(&format!("/api/recordings?token={token}"), None);
    assert_eq!(st, 200, "{body}");
    // the scheme in any case (RFC 9110), and nothing but the token counts
    for (auth, want) in [
        (format!("bearer {token}"), 200),
        (format!("BEARER {token}"), 200),
        (format!("Basic {token}"), 401),
        ("Bearer ".to_string(), 401),
        (format!("Bearer{token}"), 401),
    ] {
        let (st, _) = local.raw_auth("/api/recordings", Some(&auth));
        assert_eq!(st, want, "Authorization: {auth}");
    }
    // it names its directory without the server's path
    let list: serde_json::Value = serde_json::from_str(&body).unwrap();
    let real = dir.path().canonicalize().unwrap();
    let name = real.file_name().unwrap().to_str().unwrap();
    assert_eq!(list["root"], name, "{body}");
    let parent = real.parent().unwrap().to_str().unwrap();
    for path in [
        "/api/recordings",
        "/api/info?rec=a.reel",
        "/api/info?rec=nope.reel",
    ] {
        let (_, body) = local.raw(path, Some(token));
        assert!(
            !body.contains(parent),
            "{path} shows the server's path: {body}"
        );
    }
    // a public server answers any host name
    let (st, _) = local.raw_host("/api/recordings", Some(token), "viewer.example:80");
    assert_eq!(st, 200);

    // loopback (the default): a token may still be set; other host names are refused
    let s2 = Server::start_env(
        &[d, "--listen", "127.0.0.1:0"],
        &[("TICKREEL_TOKEN", token)],
    );
    assert_eq!(s2.get("/api/recordings").0, 401);
    let (st, list) = s2.get_with("/api/recordings", Some(token));
    assert_eq!(st, 200);
    // on loopback, the directory is shown in full
    assert_eq!(list["root"], real.to_str().unwrap());
    let s3 = Server::start(&[d, "--listen", "127.0.0.1:0"]);
    let l3 = Client::at(&s3.base);
    let (st, body) = l3.raw_host("/api/recordings", None, "attacker.example:80");
    assert_eq!(st, 403, "{body}");
    assert_eq!(l3.raw("/api/recordings", None).0, 200);
}

#[test]
fn the_catalog_url_comes_from_the_environment_or_a_file_never_the_command_line_only() {
    // A PostgreSQL URL holds a password, and a command line shows in `ps`: serve takes the URL
    // from TICKREEL_CATALOG or from the first line of --catalog-file too.
    let dir = tempfile::tempdir().unwrap();
    simulate(&dir.path().join("a.reel"), 1, 20);
    let db = format!("sqlite:{}", dir.path().join("catalog.db").display());
    let root = dir.path().to_str().unwrap();
    let has_catalog = |s: &Server| s.get("/api/recordings").1["has_catalog"].clone();

    let s = Server::start_env(
        &[root, "--listen", "127.0.0.1:0"],
        &[("TICKREEL_CATALOG", "")],
    );
    assert_eq!(has_catalog(&s), false);
    drop(s);
    let s = Server::start_env(
        &[root, "--listen", "127.0.0.1:0"],
        &[("TICKREEL_CATALOG", db.as_str())],
    );
    assert_eq!(has_catalog(&s), true);
    drop(s);
    let file = dir.path().join("catalog-url");
    std::fs::write(&file, format!("{db}\n# the first line is the URL\n")).unwrap();
    let s = Server::start_env(
        &[
            root,
            "--listen",
            "127.0.0.1:0",
            "--catalog-file",
            file.to_str().unwrap(),
        ],
        &[("TICKREEL_CATALOG", "")],
    );
    assert_eq!(has_catalog(&s), true);
    drop(s);
    std::fs::write(&file, "\n").unwrap();
    let o = tickreel(&[
        "serve",
        root,
        "--listen",
        "127.0.0.1:0",
        "--catalog-file",
        file.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("no URL on its first line"),
        "{err}"
    );
}
