//! Issue-20 figure: the web viewer's memory in the browser over a long playback (no growth).
//! Not in the default `bench` set (it takes 10 minutes): `tickreel bench --only viewer`.
//!
//! Workload: a recording of the simulated server (100 players, default `SimConfig`), 24,000
//! ticks (20 minutes at 20 ticks/s); `tickreel serve` in this process on a loopback port ([`Tool::serve`]); the
//! viewer in headless Chromium (`crate::browser`, 1280x800) playing it at 16x (320 ticks/s: one
//! pass takes 75 s), bouncing at each end (forward, then reverse, ...), for 10 minutes (`--quick`:
//! 30 s). Every minute (quick: every 10 s) a full GC is forced (`HeapProfiler.collectGarbage`)
//! and the page's memory read (`Runtime.getHeapUsage`, `Performance.getMetrics`, the renderer's
//! RSS from `/proc`).
//!
//! The viewer keeps at most 48 blocks of 128 frames (6,144 ticks: 19 s at 16x), so the heap
//! grows over the first ~20 s and must be flat after: `viewer_heap_growth_mb` is the GC'd heap
//! at the end minus the first sample after the cache is full (1 minute in; quick: 20 s in).
//!
//! Figures: `viewer_heap_mb_start` (opened, before playing), `viewer_heap_mb_warm` (cache
//! full), `viewer_heap_mb_after_10min` (quick: `_after_30s`), `viewer_heap_growth_mb`,
//! `viewer_heap_mb_max` (after warm-up), `viewer_heap_mb_by_sample`, `viewer_dom_nodes_start`/
//! `_end`, `viewer_listeners_start`/`_end`, `viewer_layout_objects_start`/`_end`,
//! `viewer_renderer_rss_mb_warm`/`_end`, `viewer_frames_played` (frames drawn),
//! `viewer_ticks_played`, `viewer_bounces`, `viewer_playback_minutes`, `viewer_speed`.
//! Fails (an error, exit 1) when Chromium cannot start or the page reports an error.

use std::time::{Duration, Instant};

use crate::browser::{Browser, Memory};
use serde_json::{Value, json};
use tickreel::Error;
use tickreel::record::ReelOptions;

use super::shared::simulated_reel;
use super::{Figures, Tool, put};

const PLAYERS: u32 = 100;
const TICKS: u32 = 24_000;
const SPEED: u32 = 16;

pub fn run(quick: bool, out: &mut Figures, tool: &dyn Tool) -> tickreel::Result<()> {
    let (total, every, warm) = if quick {
        (
            Duration::from_secs(30),
            Duration::from_secs(10),
            Duration::from_secs(20),
        )
    } else {
        (
            Duration::from_secs(600),
            Duration::from_secs(60),
            Duration::from_secs(60),
        )
    };
    let dir = tempfile::Builder::new()
        .prefix("tickreel-bench-viewer")
        .tempdir()?;
    // the browser first: without one there is nothing to measure
    let mut b = Browser::start()?;
    simulated_reel(
        &dir.path().join("bench.reel"),
        PLAYERS,
        20,
        TICKS,
        ReelOptions::default(),
    )?;
    let addr = tool.serve(dir.path())?;
    b.open(&format!("http://{addr}/?rec=bench.reel"))?;
    b.wait_until(
        "!!window.tickreelViewer",
        Duration::from_secs(30),
        "document.readyState",
    )?;
    if b.try_eval("window.tickreelViewer.ready")? != json!(true) {
        return Err(page_error(&mut b, "the viewer did not open the recording"));
    }
    let start = b.memory_after_gc()?;
    b.try_eval(&format!("window.tickreelViewer.setSpeed({SPEED})"))?;
    b.try_eval("window.tickreelViewer.play(1)")?;
    let began = Instant::now();
    let first = state(&mut b)?;
    let mut bounces = 0u32;
    let mut samples: Vec<(Duration, Memory)> = Vec::new();
    let mut next = every;
    while next <= total {
        // bounce at the ends until the next sample is due
        while began.elapsed() < next {
            std::thread::sleep(Duration::from_millis(250));
            let st = state(&mut b)?;
            if !st["errors"].as_array().is_none_or(Vec::is_empty) {
                return Err(page_error(&mut b, "the viewer reported an error"));
            }
            if st["playing"] == json!(false) {
                let dir = if st["dir"] == json!(1) { -1 } else { 1 };
                b.try_eval(&format!("window.tickreelViewer.play({dir})"))?;
                bounces += 1;
            }
        }
        let m = b.memory_after_gc()?;
        eprintln!(
            "bench viewer: {:>4} s: heap {:.2} MB, {} nodes, {} listeners, renderer rss {}",
            began.elapsed().as_secs(),
            mb(m.js_heap_used),
            m.nodes,
            m.listeners,
            m.renderer_rss
                .map_or("?".into(), |r| format!("{:.1} MB", mb(r)))
        );
        samples.push((began.elapsed(), m));
        next += every;
    }
    let last_state = state(&mut b)?;
    let minutes = began.elapsed().as_secs_f64() / 60.0;
    let warm_m = &samples
        .iter()
        .find(|(at, _)| *at >= warm)
        .unwrap_or(&samples[0])
        .1;
    let end = &samples.last().expect("one sample at least").1;
    let after = if quick {
        "viewer_heap_mb_after_30s"
    } else {
        "viewer_heap_mb_after_10min"
    };
    put(out, "viewer_playback_minutes", minutes);
    put(out, "viewer_speed", f64::from(SPEED));
    put(out, "viewer_entities", f64::from(PLAYERS));
    put(out, "viewer_heap_mb_start", mb(start.js_heap_used));
    put(out, "viewer_heap_mb_warm", mb(warm_m.js_heap_used));
    put(out, after, mb(end.js_heap_used));
    put(
        out,
        "viewer_heap_growth_mb",
        mb(end.js_heap_used) - mb(warm_m.js_heap_used),
    );
    let after_warm = samples.iter().filter(|(at, _)| *at >= warm);
    let max = after_warm.map(|(_, m)| m.js_heap_used).max().unwrap_or(0);
    put(out, "viewer_heap_mb_max", mb(max));
    out.insert(
        "viewer_heap_mb_by_sample".into(),
        Value::Array(
            samples
                .iter()
                .map(|(_, m)| json!((mb(m.js_heap_used) * 100.0).round() / 100.0))
                .collect(),
        ),
    );
    put(out, "viewer_sample_every_s", every.as_secs_f64());
    for (key, a, z) in [
        ("viewer_dom_nodes", start.nodes, end.nodes),
        ("viewer_listeners", start.listeners, end.listeners),
        (
            "viewer_layout_objects",
            start.layout_objects,
            end.layout_objects,
        ),
    ] {
        put(out, &format!("{key}_start"), a as f64);
        put(out, &format!("{key}_end"), z as f64);
    }
    if let (Some(w), Some(e)) = (warm_m.renderer_rss, end.renderer_rss) {
        put(out, "viewer_renderer_rss_mb_warm", mb(w));
        put(out, "viewer_renderer_rss_mb_end", mb(e));
    }
    let count = |st: &Value, k: &str| st[k].as_f64().unwrap_or(0.0);
    put(
        out,
        "viewer_frames_played",
        count(&last_state, "drawn") - count(&first, "drawn"),
    );
    put(
        out,
        "viewer_ticks_played",
        count(&last_state, "played") - count(&first, "played"),
    );
    put(out, "viewer_bounces", f64::from(bounces));
    put(out, "viewer_blocks_cached", count(&last_state, "blocks"));
    Ok(())
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn state(b: &mut Browser) -> tickreel::Result<Value> {
    b.try_eval("window.tickreelViewer.state()")
}

fn page_error(b: &mut Browser, what: &str) -> Error {
    let st = b
        .try_eval("JSON.stringify(window.tickreelViewer && window.tickreelViewer.state())")
        .unwrap_or_else(|e| json!(e.to_string()));
    Error::InvalidState(format!("bench viewer: {what}: {st}"))
}
