//! Issue-51 figures: watching together, the follow latency of a watch party
//! (`tickreel bench --only party`; not in the default set: it needs Chromium, and fails when it
//! cannot start).
//!
//! Workload: a recording of the simulated server (100 players, default `SimConfig`), 6,000 ticks
//! (quick: 20 players, 2,400 ticks); `tickreel serve` in this process on a loopback port; two
//! headless Chromium browsers (`crate::browser`, two profiles): the first starts a party on the
//! recording, the second opens its link. The controller then makes 300 actions (quick: 60),
//! cycling through a seek to a random tick (seeded), play forward, a speed change, a pause, a
//! seek backward and play backward; after each the bench waits until the follower applied it.
//!
//! Latency of one action: from the controller's page noting the change (its `changed()`, before
//! the action is sent) to the follower's page having applied the state (tick, playing,
//! direction and speed set: what it plays and draws from then on; the frames of a far seek
//! load after), both read in the pages as `performance.timeOrigin + performance.now()` (the
//! same wall clock: one machine).
//!
//! Figures: `party_follow_ms_p50`, `party_follow_ms_p99`, `party_follow_ms_max`,
//! `party_follow_actions` (actions measured), `party_players`, `party_ticks`.

use std::time::{Duration, Instant};

use crate::browser::Browser;
use serde_json::{Value, json};
use tickreel::Error;
use tickreel::record::ReelOptions;

use super::shared::{percentile, simulated_reel};
use super::{Figures, Tool, put};

fn fail(what: impl Into<String>) -> Error {
    Error::InvalidState(format!("bench party: {}", what.into()))
}

fn wait(b: &mut Browser, expr: &str, what: &str) -> tickreel::Result<()> {
    b.wait_until(
        expr,
        Duration::from_secs(30),
        "JSON.stringify(window.tickreelViewer && window.tickreelViewer.state())",
    )
    .map_err(|e| fail(format!("{what}: {e}")))
}

/// The newest state sequence number the page sent (the controller's).
fn newest_sent(b: &mut Browser) -> tickreel::Result<i64> {
    let v = b.try_eval(
        "Math.max(-1, ...Object.keys(window.tickreelViewer.party.times().sent).map(Number))",
    )?;
    Ok(v.as_i64().unwrap_or(-1))
}

pub fn run(quick: bool, out: &mut Figures, tool: &dyn Tool) -> tickreel::Result<()> {
    let (players, ticks, actions) = if quick {
        (20, 2_400, 60)
    } else {
        (100, 6_000, 300)
    };
    let dir = tempfile::Builder::new()
        .prefix("tickreel-bench-party")
        .tempdir()?;
    let mut a = Browser::start()?;
    let mut b = Browser::start()?;
    simulated_reel(
        &dir.path().join("bench.reel"),
        players,
        20,
        ticks,
        ReelOptions::default(),
    )?;
    let addr = tool.serve(dir.path())?;
    a.open(&format!("http://{addr}/?rec=bench.reel"))?;
    wait(
        &mut a,
        "!!window.tickreelViewer && window.tickreelViewer.ready",
        "the controller's page",
    )?;
    wait(
        &mut a,
        "window.tickreelViewer.state().shownTick !== null",
        "the first frame",
    )?;
    let link = a.try_eval("window.tickreelViewer.party.start()")?;
    let link = link
        .as_str()
        .ok_or_else(|| fail(format!("no party link: {link}")))?
        .to_string();
    b.open(&link)?;
    wait(
        &mut b,
        "!!window.tickreelViewer && window.tickreelViewer.state().party.member !== null && window.tickreelViewer.state().rec === 'bench.reel'",
        "the follower's page",
    )?;
    wait(
        &mut a,
        "window.tickreelViewer.party.state().members.length === 2",
        "the follower joining",
    )?;
    let mut rng = fastrand::Rng::with_seed(51);
    let last = ticks - 1;
    let speeds = [0.5, 1.0, 2.0, 4.0, 8.0];
    let mut measured: Vec<i64> = Vec::with_capacity(actions);
    let began = Instant::now();
    for i in 0..actions {
        let before = newest_sent(&mut a)?;
        let js = match i % 6 {
            0 => format!("window.tickreelViewer.seek({})", rng.u32(0..=last)),
            1 => "window.tickreelViewer.play(1)".to_string(),
            2 => format!(
                "window.tickreelViewer.setSpeed({})",
                speeds[rng.usize(..speeds.len())]
            ),
            3 => "window.tickreelViewer.pause()".to_string(),
            4 => format!("window.tickreelViewer.seek({})", rng.u32(0..=last)),
            _ => "window.tickreelViewer.play(-1)".to_string(),
        };
        // (a seek's promise resolves once its frame is shown: not awaited here)
        a.try_eval(&format!("void {js}"))?;
        let started = Instant::now();
        let seq = loop {
            let s = newest_sent(&mut a)?;
            if s > before {
                break s;
            }
            if started.elapsed() > Duration::from_secs(30) {
                return Err(fail(format!("action {i} ({js}) was not sent")));
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        wait(
            &mut b,
            &format!("window.tickreelViewer.party.times().applied[{seq}] !== undefined"),
            &format!("action {i} ({js}) followed"),
        )?;
        measured.push(seq);
    }
    let elapsed = began.elapsed();
    let sent = a.try_eval("window.tickreelViewer.party.times().sent")?;
    let applied = b.try_eval("window.tickreelViewer.party.times().applied")?;
    let mut ms: Vec<f64> = Vec::with_capacity(measured.len());
    for seq in &measured {
        let k = seq.to_string();
        let (Some(s), Some(f)) = (sent[&k].as_f64(), applied[&k].as_f64()) else {
            return Err(fail(format!(
                "state {seq}: sent {}, applied {}",
                sent[&k], applied[&k]
            )));
        };
        ms.push(f - s);
    }
    let errors: Value = b.try_eval("window.tickreelViewer.state().errors")?;
    if errors != json!([]) {
        return Err(fail(format!(
            "the follower's page reported errors: {errors}"
        )));
    }
    let max = ms.iter().copied().fold(f64::MIN, f64::max);
    put(out, "party_follow_ms_p50", percentile(&mut ms, 0.5));
    put(out, "party_follow_ms_p99", percentile(&mut ms, 0.99));
    put(out, "party_follow_ms_max", max);
    put(out, "party_follow_actions", ms.len() as f64);
    put(out, "party_players", f64::from(players));
    put(out, "party_ticks", f64::from(ticks));
    put(out, "party_seconds", elapsed.as_secs_f64());
    Ok(())
}
