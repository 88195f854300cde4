//! The web viewer in a real browser: headless Chromium (Debian's `chromium`, installed by
//! `scripts/ensure-chromium.sh`, which `./test.sh` runs) driven over the Chrome DevTools Protocol
//! (a WebSocket, `tungstenite`). The page opens a recording made by `simulate`, seeks, plays,
//! reverses, steps and is dragged; after each, the positions it shows for a tick must equal the
//! core's `Reader::seek` at that tick. Then a ghost race and a shadow-play report. Screenshots
//! go to `target/tmp/viewer/`. Fails (never skips) when the browser cannot start.

mod serve_support;

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};
use serve_support::*;
use tungstenite::{Message, WebSocket};

/// Headless Chromium with its DevTools endpoint; killed when dropped.
struct Browser {
    child: Child,
    ws: WebSocket<TcpStream>,
    next_id: u64,
    session: Option<String>,
    _profile: tempfile::TempDir,
}

fn chromium_binary() -> String {
    if let Ok(b) = std::env::var("TICKREEL_CHROMIUM") {
        return b;
    }
    for b in ["chromium", "chromium-browser", "google-chrome"] {
        if Command::new(b)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
        {
            return b.to_string();
        }
    }
    panic!(
        "no Chromium found (chromium, chromium-browser, google-chrome, or TICKREEL_CHROMIUM): \
         run scripts/ensure-chromium.sh"
    );
}

impl Browser {
    fn start() -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let mut child = Command::new(chromium_binary())
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--window-size=1280,800",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("Chromium does not start");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("DevTools listening on ") {
                    let _ = tx.send(url.trim().to_string());
                }
            }
        });
        let url = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("Chromium printed no DevTools address within 30 s");
        let hostport = url
            .strip_prefix("ws://")
            .and_then(|r| r.split('/').next())
            .unwrap()
            .to_string();
        let stream = TcpStream::connect(&hostport).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let (ws, _) = tungstenite::client(url.as_str(), stream).expect("DevTools WebSocket");
        Browser {
            child,
            ws,
            next_id: 1,
            session: None,
            _profile: profile,
        }
    }

    /// Sends a DevTools command (to the attached page, if any) and waits for its answer.
    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = &self.session {
            msg["sessionId"] = json!(s);
        }
        self.ws.send(Message::Text(msg.to_string().into())).unwrap();
        loop {
            let m = self.ws.read().expect("DevTools connection");
            let Message::Text(t) = m else { continue };
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            if v["id"] == id {
                if let Some(e) = v.get("error") {
                    panic!("{method}: {e}");
                }
                return v["result"].clone();
            }
        }
    }

    /// Opens `url` in a new page and attaches to it.
    fn open(&mut self, url: &str) {
        let t = self.call("Target.createTarget", json!({"url": url}));
        let target = t["targetId"].as_str().unwrap().to_string();
        let a = self.call(
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
        );
        self.session = Some(a["sessionId"].as_str().unwrap().to_string());
        self.call("Runtime.enable", json!({}));
    }

    /// Evaluates `expr` in the page (awaiting a promise) and returns its value.
    fn eval(&mut self, expr: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expr, "awaitPromise": true, "returnByValue": true}),
        );
        if let Some(e) = r.get("exceptionDetails") {
            panic!("{expr}: {e}");
        }
        r["result"]["value"].clone()
    }

    /// Waits (up to 20 s) until `expr` is true in the page.
    fn wait_for(&mut self, expr: &str) {
        let start = Instant::now();
        while self.eval(expr) != json!(true) {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "timed out waiting for {expr}; state: {}",
                self.eval("JSON.stringify(window.tickreelViewer.state())")
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Saves a PNG screenshot of the page to `path`; its size in bytes.
    fn screenshot(&mut self, path: &Path) -> usize {
        let r = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let png = base64::engine::general_purpose::STANDARD
            .decode(r["data"].as_str().unwrap())
            .unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        std::fs::write(path, &png).unwrap();
        png.len()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The positions the page shows (its current frame): `(tick, [(id, x, y, z)])`.
fn shown(b: &mut Browser) -> (u32, Vec<(u32, f64, f64, f64)>) {
    let v = b.eval("window.tickreelViewer.shown()");
    let tick = v["tick"].as_u64().expect("a frame is shown") as u32;
    let frame = json!({"e": v["entities"]});
    (tick, frame_positions(&frame, 1.0))
}

fn assert_shown_is_seek(b: &mut Browser, file: &Path, what: &str) -> u32 {
    let (tick, got) = shown(b);
    let want = reader_positions(file, tick);
    assert_eq!(got.len(), want.len(), "{what}: entities at {tick}");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.0, w.0, "{what}: ids at {tick}");
        assert!(
            (g.1 - w.1).abs() < 1e-9 && (g.2 - w.2).abs() < 1e-9 && (g.3 - w.3).abs() < 1e-9,
            "{what}: entity {} at tick {tick}: page {g:?}, Reader::seek {w:?}",
            g.0
        );
    }
    tick
}

fn state(b: &mut Browser) -> Value {
    b.eval("window.tickreelViewer.state()")
}

#[test]
fn the_viewer_plays_seeks_and_reverses_in_chromium() {
    let started = Instant::now();
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("viewer");
    std::fs::create_dir_all(&shots).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let sim = dir.path().join("sim.reel");
    simulate(&sim, 12, 1200);
    let s = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let mut b = Browser::start();
    b.open(&format!("{}/?rec=sim.reel", s.base));
    b.wait_for("!!window.tickreelViewer");
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
    assert!(b.screenshot(&shots.join("seek.png")) > 5000);

    // play forward at 4x for a second
    b.eval("window.tickreelViewer.setSpeed(4)");
    b.eval("window.tickreelViewer.play(1)");
    std::thread::sleep(Duration::from_millis(1200));
    b.eval("window.tickreelViewer.pause()");
    let fwd = assert_shown_is_seek(&mut b, &sim, "played forward");
    assert!(fwd > 357 + 20, "4x for 1.2 s moved only to {fwd}");
    assert!(b.screenshot(&shots.join("played.png")) > 5000);

    // reverse at 8x
    b.eval("window.tickreelViewer.setSpeed(8)");
    b.eval("window.tickreelViewer.play(-1)");
    std::thread::sleep(Duration::from_millis(1000));
    b.eval("window.tickreelViewer.pause()");
    let back = assert_shown_is_seek(&mut b, &sim, "played backward");
    assert!(back < fwd - 40, "8x backward for 1 s: {fwd} -> {back}");
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
    b.wait_for("window.tickreelViewer.state().shownTick === 1100");
    assert_eq!(assert_shown_is_seek(&mut b, &sim, "dragged"), 1100);

    // speeds outside 0.25..16 are refused; play to the end stops there
    assert_eq!(
        b.eval("(() => { try { window.tickreelViewer.setSpeed(32); return 'taken'; } catch (e) { return 'refused'; } })()"),
        "refused"
    );
    b.eval("window.tickreelViewer.setSpeed(16)");
    b.eval("window.tickreelViewer.play(1)");
    b.wait_for("!window.tickreelViewer.state().playing");
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
    assert!(b.screenshot(&shots.join("race.png")) > 5000);

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
    assert!(table.as_str().unwrap().contains("report_tick"), "{table}");
    assert!(b.screenshot(&shots.join("report.png")) > 5000);
    assert!(
        started.elapsed() < Duration::from_secs(90),
        "the browser test took {:?}",
        started.elapsed()
    );
}

#[test]
fn the_viewer_follows_a_recording_while_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let out = dir.path().join("live.reel");
    // 300 ticks at 50 ticks/s (6 s), flushed every 100 ms
    let mut writer = Command::new(env!("CARGO_BIN_EXE_tickreel"))
        .args(["simulate", "--out", out.to_str().unwrap(), "--players", "5"])
        .args([
            "--ticks",
            "300",
            "--tps",
            "50",
            "--flush-ms",
            "100",
            "--chunk-ticks",
            "20",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(writer.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(first.starts_with("flushed "), "{first}");
    std::thread::spawn(move || for _ in lines {});

    let mut b = Browser::start();
    b.open(&format!("{}/?rec=live.reel.live", s.base));
    b.wait_for("!!window.tickreelViewer");
    assert_eq!(b.eval("window.tickreelViewer.ready"), json!(true));
    let st = state(&mut b);
    assert_eq!(st["live"], true, "{st}");
    assert_eq!(
        st["playing"], true,
        "a live recording opens playing at its edge: {st}"
    );
    b.wait_for("window.tickreelViewer.state().shownTick !== null");
    let a = state(&mut b)["shownTick"].as_u64().unwrap();
    std::thread::sleep(Duration::from_millis(1200));
    let st = state(&mut b);
    let later = st["shownTick"].as_u64().unwrap();
    assert!(
        later > a + 10,
        "the page follows the recording as it grows: {a} -> {later}; {st}"
    );
    assert!(later < 299, "still being written: {st}");
    // what it shows while live is what was written at that tick
    b.eval("window.tickreelViewer.pause()");
    let shown_tick = state(&mut b)["shownTick"].as_u64().unwrap();
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("viewer");
    std::fs::create_dir_all(&shots).unwrap();
    assert!(b.screenshot(&shots.join("live.png")) > 5000);
    assert!(writer.wait().unwrap().success());
    assert_eq!(
        assert_shown_is_seek(&mut b, &out, "live") as u64,
        shown_tick
    );
    // finished: playing on reaches the final tick and stops there
    b.eval("window.tickreelViewer.setSpeed(16)");
    b.eval("window.tickreelViewer.play(1)");
    b.wait_for(
        "window.tickreelViewer.state().liveState === 'finished' && !window.tickreelViewer.state().playing",
    );
    assert_eq!(assert_shown_is_seek(&mut b, &out, "finished"), 299);
    assert_eq!(state(&mut b)["errors"], json!([]));
}
