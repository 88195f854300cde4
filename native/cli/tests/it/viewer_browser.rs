//! The web viewer in a real browser: headless Chromium (Debian's `chromium`, installed by
//! `scripts/ensure-chromium.sh`, which `./test.sh` runs) driven over the Chrome DevTools Protocol
//! (`tickreel_bench::browser`, which `tickreel bench --only viewer` uses too). The page opens a
//! recording made by `simulate`, seeks, plays, reverses, steps and is dragged; after each, the
//! positions it shows for a tick must equal the core's `Reader::seek` at that tick. Then a ghost race and a shadow-play report; a recording
//! followed while it is written; and the page's memory (GC'd heap, DOM nodes) over a long enough
//! playback to turn its frame cache over. Screenshots go to `target/tmp/viewer/`. Fails (never
//! skips) when the browser cannot start. A moderator's work (reports, the world, the 3D view) is in
//! `viewer_moderator`; driving the page, in `serve_support::page`.

use std::path::PathBuf;
#[cfg(feature = "bench")]
use std::process::Command;
use std::time::{Duration, Instant};

use crate::serve_support::page::*;
use crate::serve_support::*;
use serde_json::json;

#[test]
fn the_viewer_plays_seeks_and_reverses_in_chromium() {
    let started = Instant::now();
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("viewer");
    std::fs::create_dir_all(&shots).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let sim = dir.path().join("sim.reel");
    simulate(&sim, 12, 1200);
    let s = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let mut b = browser();
    b.open(&format!("{}/?rec=sim.reel", s.base)).unwrap();
    wait_for(&mut b, "!!window.tickreelViewer");
    assert_eq!(b.eval("window.tickreelViewer.ready"), json!(true));
    let st = state(&mut b);
    assert_eq!(st["rec"], "sim.reel");
    assert_eq!(st["last"], 1199);
    assert_shown_is_seek(&mut b, &sim, "opened");

    // seek
    let v = b.eval("window.tickreelViewer.seek(357).then(s => s.tick)");
    assert_eq!(v, 357);
    assert_eq!(assert_shown_is_seek(&mut b, &sim, "seek"), 357);
    // the map drew the markers: pixels other than the background
    let drawn = b.eval(
        "(() => { const c = document.getElementById('map'); const d = c.getContext('2d')\
         .getImageData(0, 0, c.width, c.height).data; let n = 0; for (let i = 0; i < d.length; \
         i += 4) if (d[i] > 120 || d[i+1] > 120 || d[i+2] > 120) n++; return n; })()",
    );
    assert!(drawn.as_u64().unwrap() > 50, "nothing drawn: {drawn}");
    assert!(screenshot(&mut b, &shots.join("seek.png")) > 5000);

    // play forward at 4x for a second
    b.eval("window.tickreelViewer.setSpeed(4)");
    b.eval("window.tickreelViewer.play(1)");
    // (waits for the page to get there rather than sleeping: a busy machine draws fewer frames)
    wait_for(&mut b, "window.tickreelViewer.state().shownTick > 357 + 20");
    b.eval("window.tickreelViewer.pause()");
    let fwd = assert_shown_is_seek(&mut b, &sim, "played forward");
    assert!(fwd > 357 + 20, "played forward only to {fwd}");
    assert!(screenshot(&mut b, &shots.join("played.png")) > 5000);

    // reverse at 8x
    b.eval("window.tickreelViewer.setSpeed(8)");
    b.eval("window.tickreelViewer.play(-1)");
    wait_for(
        &mut b,
        &format!("window.tickreelViewer.state().shownTick < {fwd} - 40"),
    );
    b.eval("window.tickreelViewer.pause()");
    let back = assert_shown_is_seek(&mut b, &sim, "played backward");
    assert!(back < fwd - 40, "played backward only from {fwd} to {back}");
    assert_eq!(state(&mut b)["dir"], -1);

    // step one tick each way
    let t = b.eval("window.tickreelViewer.step(1).then(s => s.tick)");
    assert_eq!(t, back + 1);
    let t = b.eval("window.tickreelViewer.step(-1).then(s => s.tick)");
    assert_eq!(t, back);

    // drag the timeline: the range input's input events, as a mouse drag sends them
    for target in [900, 640, 1100] {
        b.eval(&format!(
            "(() => {{ const tl = document.getElementById('timeline'); tl.value = '{target}'; \
             tl.dispatchEvent(new Event('input', {{bubbles: true}})); }})()"
        ));
    }
    b.eval("document.getElementById('timeline').dispatchEvent(new Event('change'))");
    wait_for(&mut b, "window.tickreelViewer.state().shownTick === 1100");
    assert_eq!(assert_shown_is_seek(&mut b, &sim, "dragged"), 1100);

    // speeds outside 0.25..16 are refused; play to the end stops there
    assert_eq!(
        b.eval("(() => { try { window.tickreelViewer.setSpeed(32); return 'taken'; } catch (e) { return 'refused'; } })()"),
        "refused"
    );
    b.eval("window.tickreelViewer.setSpeed(16)");
    b.eval("window.tickreelViewer.play(1)");
    wait_for(&mut b, "!window.tickreelViewer.state().playing");
    assert_eq!(assert_shown_is_seek(&mut b, &sim, "end"), 1199);
    let st = state(&mut b);
    assert!(st["blocks"].as_u64().unwrap() <= 48, "{st}");
    assert_eq!(st["errors"], json!([]), "{st}");

    // a ghost race: two entities of the same recording
    let race = b
        .eval("window.tickreelViewer.race({entity: 1, ghost_entity: 2}).then(r => r.delta.length)");
    assert!(race.as_u64().unwrap() > 10, "{race}");
    b.eval("window.tickreelViewer.seek(600)");
    assert_eq!(state(&mut b)["follow"], 1);
    assert!(screenshot(&mut b, &shots.join("race.png")) > 5000);

    // a shadow-play report: opens on the reported player at the report's tick
    let world = dir.path().join("world.reel");
    ok(&[
        "simulate",
        "--out",
        world.to_str().unwrap(),
        "--players",
        "8",
        "--ticks",
        "400",
        "--shadow",
    ]);
    let st = b.eval("window.tickreelViewer.open('world.report.reel')");
    let report = &st["report"];
    assert_eq!(st["follow"], report["player"], "{st}");
    assert_eq!(st["shownTick"], report["report_tick"], "{st}");
    let reported = report["player"].as_u64().unwrap() as u32;
    let (_, ents) = shown(&mut b);
    assert!(ents.iter().any(|e| e.0 == reported));
    let table = b.eval("document.getElementById('report-meta').innerText");
    assert!(table.as_str().unwrap().contains("report tick"), "{table}");
    assert!(screenshot(&mut b, &shots.join("report.png")) > 5000);
    // each step above is bounded by its own wait; the whole is reported, not asserted (it
    // depends on the machine)
    eprintln!("the browser test took {:?}", started.elapsed());
}

/// The board of a course shows the runs the run checks held, apart, with their reasons (a run
/// at 20 blocks a second, over the sprinting limit of 12), and races only the honest ones.
#[test]
fn the_viewer_shows_held_runs_with_their_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("tick,entity,x,y,z,yaw,pitch,on_ground,teleport,checkpoint\n");
    for t in 0..=80u32 {
        csv.push_str(&format!("{t},1,{},64,0,-90,0,1,0,\n", f64::from(t)));
        csv.push_str(&format!("{t},2,{},64,2,-90,0,1,0,\n", f64::from(t) * 0.25));
    }
    let path = dir.path().join("course.csv");
    std::fs::write(&path, csv).unwrap();
    let reel = dir.path().join("course.reel");
    ok(&["import", path.to_str().unwrap(), reel.to_str().unwrap()]);
    let db = format!("sqlite:{}", dir.path().join("catalog.db").display());
    for (entity, player, name) in [
        ("1", "00000000-0000-4000-8000-000000000001", "speedy"),
        ("2", "00000000-0000-4000-8000-000000000002", "honest"),
    ] {
        ok(&[
            "catalog",
            "--db",
            &db,
            "add",
            reel.to_str().unwrap(),
            "--course",
            "lava",
            "--player",
            player,
            "--name",
            name,
            "--entity",
            entity,
        ]);
    }
    let s = Server::start(&[
        dir.path().to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
        "--catalog",
        &db,
    ]);
    let mut b = browser();
    b.open(&format!("{}/?rec=course.reel", s.base)).unwrap();
    wait_for(
        &mut b,
        "!!window.tickreelViewer && window.tickreelViewer.ready",
    );
    let placed = b.eval("window.tickreelViewer.board('lava')");
    assert_eq!(placed, 1);
    let rows =
        b.eval("[...document.querySelectorAll('#board tr')].map(r => [r.className, r.innerText])");
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2, "{rows:?}");
    let text = |i: usize| rows[i][1].as_str().unwrap().to_string();
    assert!(
        text(0).contains("honest") && text(0).contains("race"),
        "{rows:?}"
    );
    assert_eq!(rows[1][0], "held", "{rows:?}");
    assert!(text(1).contains("speedy"), "{rows:?}");
    assert!(
        text(1).contains("horizontal_speed at tick") && text(1).contains("in one second"),
        "{rows:?}"
    );
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("viewer");
    std::fs::create_dir_all(&shots).unwrap();
    assert!(screenshot(&mut b, &shots.join("held.png")) > 5000);
}

#[test]
fn the_viewer_opens_through_an_access_token() {
    // A server started as for remote viewing (`--public`, TICKREEL_TOKEN), its viewer opened as an
    // operator would share it: `/?rec=NAME&token=T`. The page's script and style are requested
    // by the page itself, without the token in their addresses: the cookie the server set with
    // the page carries it. Without it the page stays blank (both answer 401).
    let dir = tempfile::tempdir().unwrap();
    let sim = dir.path().join("sim.reel");
    simulate(&sim, 3, 200);
    let token = "a-token-of-sufficient-length";
    let s = Server::start_env(
        &[
            dir.path().to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
            "--public",
        ],
        &[("TICKREEL_TOKEN", token)],
    );
    assert_eq!(s.get("/viewer.js").0, 401, "the script without a token");
    let mut b = browser();
    b.open(&format!("{}/?rec=sim.reel&token={token}", s.base))
        .unwrap();
    wait_for(
        &mut b,
        "!!window.tickreelViewer && window.tickreelViewer.ready",
    );
    assert_eq!(state(&mut b)["last"], 199);
    assert_shown_is_seek(&mut b, &sim, "opened through a token");
    // the style sheet applied (a 401 answer is no style sheet)
    let rules = b.eval(
        "Array.from(document.styleSheets).reduce((n, s) => { try { return n + \
         s.cssRules.length } catch (e) { return n } }, 0)",
    );
    assert!(rules.as_u64().unwrap() > 10, "no style rules: {rules}");
    // the cookie is not readable by scripts
    assert_eq!(
        b.eval("document.cookie.includes('tickreel_token')"),
        json!(false)
    );
}

#[test]
fn the_viewer_follows_a_recording_while_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let out = dir.path().join("live.reel");
    // The browser starts before the writer, and the writer runs 1,000 ticks at 50 ticks/s (20 s,
    // flushed every 100 ms): the checks made while it is live need it to outlast the page's first
    // seconds. A 300-tick run started before the browser once ended first in CI (four browsers
    // starting at once on a fresh machine), and the sidebar then had nothing left to grow to.
    let mut b = browser();
    const LAST: u64 = 999;
    let mut writer = live_writer(&out, 5, LAST as u32 + 1, 50);
    b.open(&format!("{}/?rec=live.reel.live", s.base)).unwrap();
    wait_for(&mut b, "!!window.tickreelViewer");
    assert_eq!(b.eval("window.tickreelViewer.ready"), json!(true));
    let st = state(&mut b);
    assert_eq!(st["live"], true, "{st}");
    assert_eq!(
        st["playing"], true,
        "a live recording opens playing at its edge: {st}"
    );
    wait_for(&mut b, "window.tickreelViewer.state().shownTick !== null");
    let a = state(&mut b)["shownTick"].as_u64().unwrap();
    std::thread::sleep(Duration::from_millis(1200));
    let st = state(&mut b);
    let later = st["shownTick"].as_u64().unwrap();
    assert!(
        later > a + 10,
        "the page follows the recording as it grows: {a} -> {later}; {st}"
    );
    assert!(later < LAST, "still being written: {st}");
    // the sidebar's tick range follows the recording as it grows
    let opened_last = st["last"].as_u64().unwrap();
    assert!(
        opened_last < LAST && writer.try_wait().unwrap().is_none(),
        "the recording was written to its end before the page was checked while live: {st}"
    );
    wait_for(
        &mut b,
        &format!(
            "(() => {{ const s = window.tickreelViewer.state(); return s.last > {opened_last} && \
             document.getElementById('summary').textContent.includes('..' + s.last + ' '); }})()"
        ),
    );
    // what it shows while live is what was written at that tick
    b.eval("window.tickreelViewer.pause()");
    let shown_tick = state(&mut b)["shownTick"].as_u64().unwrap();
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("viewer");
    std::fs::create_dir_all(&shots).unwrap();
    assert!(screenshot(&mut b, &shots.join("live.png")) > 5000);
    assert!(writer.wait().unwrap().success());
    assert_eq!(
        assert_shown_is_seek(&mut b, &out, "live") as u64,
        shown_tick
    );
    // finished: playing on reaches the final tick and stops there
    b.eval("window.tickreelViewer.setSpeed(16)");
    b.eval("window.tickreelViewer.play(1)");
    wait_for(
        &mut b,
        "window.tickreelViewer.state().liveState === 'finished' && !window.tickreelViewer.state().playing",
    );
    assert_eq!(assert_shown_is_seek(&mut b, &out, "finished") as u64, LAST);
    assert_eq!(state(&mut b)["errors"], json!([]));
}

/// The GC'd JS heap may grow by this much between the end of warm-up and the end of playback.
/// The viewer keeps at most 48 blocks of 128 frames; with 100 entities a block is ~1.1 MB of
/// heap (51-52 MB for the full cache in `tickreel bench --only viewer`), and over its 10 minutes
/// the samples of the full cache stay within a 1.6 MB band (a block in flight beside the 48
/// kept). 4 MB is 2.5 times that band and under four blocks: keeping the frames of every block
/// fetched in the 20 s measured (~50 blocks at 16x) adds ~50 MB, keeping a copy of every frame
/// drawn ~7 MB (tried: 58.4 -> 65.3 MB, the test failed).
const HEAP_GROWTH_BOUND: u64 = 4 << 20;

/// Ticks played between the two memory readings: 20 s at 16x.
const PLAYED_AFTER_WARM_UP: u64 = 6_400;

#[test]
fn the_viewer_does_not_grow_while_it_plays() {
    let dir = tempfile::tempdir().unwrap();
    // 14,000 ticks: more than twice the viewer's cache (6,144 ticks), 44 s at 16x
    simulate(&dir.path().join("big.reel"), 100, 14_000);
    let s = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let mut b = browser();
    b.open(&format!("{}/?rec=big.reel", s.base)).unwrap();
    wait_for(&mut b, "!!window.tickreelViewer");
    assert_eq!(b.eval("window.tickreelViewer.ready"), json!(true));
    b.eval("window.tickreelViewer.setSpeed(16)");
    b.eval("window.tickreelViewer.play(1)");
    // warm-up: until the block cache is full (~19 s at 16x), and a little more
    b.wait_until(
        "window.tickreelViewer.state().blocks >= 48",
        Duration::from_secs(90),
        "JSON.stringify(window.tickreelViewer.state())",
    )
    .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    let warm = b.memory_after_gc().unwrap();
    let played_warm = state(&mut b)["played"].as_u64().unwrap();
    // 6,400 ticks more (20 s at 16x, more than the whole cache turned over), bouncing at the
    // ends; counted in ticks played, not in seconds, as a busy machine plays fewer per second
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(250));
        let st = state(&mut b);
        assert_eq!(st["errors"], json!([]), "{st}");
        if st["played"].as_u64().unwrap() - played_warm >= PLAYED_AFTER_WARM_UP {
            break;
        }
        if st["playing"] == json!(false) {
            let dir = if st["dir"] == json!(1) { -1 } else { 1 };
            b.eval(&format!("window.tickreelViewer.play({dir})"));
        }
    }
    let end = b.memory_after_gc().unwrap();
    let st = state(&mut b);
    let played = st["played"].as_u64().unwrap() - played_warm;
    eprintln!("warm {warm:?}\nend {end:?}\nplayed {played} ticks after warm-up; {st}");
    assert!(
        played >= PLAYED_AFTER_WARM_UP,
        "only {played} ticks played in {:?}: {st}",
        started.elapsed()
    );
    assert!(
        end.js_heap_used <= warm.js_heap_used + HEAP_GROWTH_BOUND,
        "the viewer's heap grew from {:.1} MB to {:.1} MB in {played} ticks of playback",
        warm.js_heap_used as f64 / 1048576.0,
        end.js_heap_used as f64 / 1048576.0
    );
    assert!(
        end.nodes <= warm.nodes + 10,
        "DOM nodes {} -> {}",
        warm.nodes,
        end.nodes
    );
    assert!(
        end.listeners <= warm.listeners + 2,
        "event listeners {} -> {}",
        warm.listeners,
        end.listeners
    );
    assert!(st["blocks"].as_u64().unwrap() <= 48, "{st}");
}

// `tickreel bench` exists in a build with the feature `bench` (./test.sh turns it on).
#[cfg(feature = "bench")]
#[test]
fn the_memory_bench_fails_when_chromium_cannot_start() {
    for chromium in ["/bin/false", "/no/such/chromium"] {
        let o = Command::new(env!("CARGO_BIN_EXE_tickreel"))
            .args(["bench", "--only", "viewer", "--quick"])
            .env("TICKREEL_CHROMIUM", chromium)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{chromium}: {err}");
        assert!(err.contains(chromium), "{chromium}: {err}");
        assert!(o.stdout.is_empty(), "no figures without a browser");
    }
}
