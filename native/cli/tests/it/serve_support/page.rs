//! Driving the viewer's page in headless Chromium (`tickreel_bench::browser`): start the browser
//! (the test fails when it cannot), wait for the page, read what it shows, click, press keys and
//! take screenshots. Shared by `viewer_browser` (playback) and `viewer_moderator` (reports, the
//! world, 3D).
#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use tickreel_bench::browser::Browser;

use super::{frame_positions, reader_positions};

/// Headless Chromium (the shared DevTools client); the test fails when it cannot start.
pub fn browser() -> Browser {
    Browser::start().unwrap_or_else(|e| panic!("the browser does not start: {e}"))
}

/// Waits (up to 20 s) until `expr` is true in the page.
#[track_caller]
pub fn wait_for(b: &mut Browser, expr: &str) {
    b.wait_until(
        expr,
        Duration::from_secs(20),
        "JSON.stringify(window.tickreelViewer.state())",
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

/// Saves a PNG screenshot of the page to `path`; its size in bytes.
pub fn screenshot(b: &mut Browser, path: &Path) -> usize {
    let png = b.screenshot_png().unwrap();
    std::fs::write(path, &png).unwrap();
    png.len()
}

/// The positions the page shows (its current frame): `(tick, [(id, x, y, z)])`.
pub fn shown(b: &mut Browser) -> (u32, Vec<(u32, f64, f64, f64)>) {
    let v = b.eval("window.tickreelViewer.shown()");
    let tick = v["tick"].as_u64().expect("a frame is shown") as u32;
    let frame = json!({"e": v["entities"]});
    (tick, frame_positions(&frame, 1.0))
}

pub fn assert_shown_is_seek(b: &mut Browser, file: &Path, what: &str) -> u32 {
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

pub fn state(b: &mut Browser) -> Value {
    b.eval("window.tickreelViewer.state()")
}

/// A real mouse click (pressed and released) at page coordinates.
pub fn click(b: &mut Browser, x: f64, y: f64) {
    for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
        b.call(
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
        )
        .unwrap();
    }
}

/// A real key press.
pub fn key(b: &mut Browser, key: &str, code: i64, shift: bool) {
    for kind in ["keyDown", "keyUp"] {
        b.call(
            "Input.dispatchKeyEvent",
            json!({"type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code,
                   "modifiers": if shift { 8 } else { 0 }}),
        )
        .unwrap();
    }
}

/// The page coordinates of the marks of `kind` at `tick` on the timeline.
pub fn mark_point(b: &mut Browser, tick: u32, kind: &str) -> (f64, f64) {
    let v = b.eval(&format!(
        "(() => {{ const [x, y] = window.tickreelViewer.timeline.pointOf({tick}, '{kind}'); \
         const r = document.getElementById('marks').getBoundingClientRect(); \
         return [r.left + x, r.top + y]; }})()"
    ));
    (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}
