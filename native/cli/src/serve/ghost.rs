//! The ghost race view: a run (a recording and an entity) against a ghost (another entity, of
//! the same or another recording, or the catalog's best run of a course). Both runs are loaded
//! as core [`GhostTrack`]s; the run is replayed through a [`GhostCursor`] into the core's
//! [`LiveDelta`] (the delta a racing player would have seen at each tick) and [`LiveSplits`]
//! (its checkpoint splits against the ghost's).
//!
//! Answer: `{"run": TRACK, "ghost": TRACK, "delta": [[t, seconds]...], "splits": [...]}` where
//! a TRACK is `{"name", "entity", "origin_tick", "duration_ticks", "tick_rate", "path": [[t, x,
//! z]...], "splits": [[checkpoint, t]...]}`, `t` in ticks from the run's start, and a delta is
//! positive when the run is behind the ghost.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Deserialize;
use serde_json::{Value, json};
use tickreel::ghost::{GhostCursor, GhostRange, GhostTrack, LiveDelta, LiveSplits};

use super::error::{ApiError, ApiResult};
use super::library::{CATALOG_PREFIX, Library};

/// At most this many points per path and delta series.
pub const MAX_POINTS: u32 = 2000;
/// At most this many positions of the run are fed to the live delta: a run is replayed tick by
/// tick up to this many ticks (about 14 hours at 20 ticks a second), a longer one at an even
/// stride, so that the work follows what the file holds, not the span an entity claims (one
/// spanning 2^32 ticks looped for hours).
pub const MAX_DELTA_UPDATES: u32 = 1 << 20;

#[derive(Debug, Deserialize)]
pub struct GhostQuery {
    pub rec: String,
    pub entity: u32,
    /// The ghost's recording (default: the run's own).
    pub ghost: Option<String>,
    /// The ghost's entity (with `ghost`, or another entity of the run's recording).
    pub ghost_entity: Option<u32>,
    /// The catalog's best run of this course is the ghost (needs `--catalog`).
    pub course: Option<String>,
}

/// Loads one run as a track.
fn load(lib: &Library, name: &str, entity: u32, range: GhostRange) -> ApiResult<GhostTrack> {
    let h = lib.open(name)?;
    let view = h.rec.view();
    GhostTrack::load(view.reader(), entity, range).map_err(|e| {
        ApiError::of(
            &format!("{}: entity {entity}", super::library::label(name)),
            e,
        )
    })
}

fn describe(name: &str, t: &Arc<GhostTrack>, step: f64) -> Value {
    let mut cursor = GhostCursor::new(t.clone());
    let end = f64::from(t.duration_ticks());
    let mut path = Vec::new();
    let mut k = 0u32;
    loop {
        let at = (f64::from(k) * step).min(end);
        let s = cursor.sample(at);
        path.push(json!([at, s.x, s.z]));
        if at >= end {
            break;
        }
        k += 1;
    }
    json!({
        "name": name,
        "entity": t.entity(),
        "origin_tick": t.origin_tick(),
        "duration_ticks": t.duration_ticks(),
        "tick_rate": t.tick_rate(),
        "path": path,
        "splits": t.splits().iter().map(|s| json!([s.checkpoint, s.tick])).collect::<Vec<_>>(),
    })
}

/// The race of `q.rec`'s entity against its ghost. Blocking (loads both runs); gives up when
/// `gone` is set (the client went away).
pub fn race(lib: &Library, q: &GhostQuery, gone: &AtomicBool) -> ApiResult<Value> {
    let run = Arc::new(load(lib, &q.rec, q.entity, GhostRange::all())?);
    let (ghost_name, ghost, catalog) = match (&q.course, &q.ghost, q.ghost_entity) {
        (Some(course), None, None) => {
            let best = lib.with_catalog(|c| c.ghost_run(course, 1u64))?;
            let Some((placed, _)) = best else {
                return Err(ApiError::not_found(format!(
                    "course {}: no run on the board",
                    crate::errors::echo(course)
                )));
            };
            let r = &placed.run;
            let name = format!("{CATALOG_PREFIX}{}", r.recording_id);
            let track = load(
                lib,
                &name,
                r.entity,
                GhostRange::ticks(r.start_tick, r.end_tick),
            )?;
            let about = json!({
                "run_id": r.id,
                "course": r.course,
                "player_name": r.player_name,
                "time": r.shown(),
            });
            (name, track, Some(about))
        }
        (Some(_), _, _) => {
            return Err(ApiError::bad_request(
                "course= picks the catalog's best as the ghost: give it without ghost= or ghost_entity=",
            ));
        }
        (None, g, Some(e)) => {
            let name = g.clone().unwrap_or_else(|| q.rec.clone());
            let track = load(lib, &name, e, GhostRange::all())?;
            (name, track, None)
        }
        (None, Some(g), None) => {
            let track = load(lib, g, q.entity, GhostRange::all())?;
            (g.clone(), track, None)
        }
        (None, None, None) => {
            return Err(ApiError::bad_request(
                "no ghost: give ghost_entity= (and ghost= for another recording) or course=",
            ));
        }
    };
    let ghost = Arc::new(ghost);
    let longest = run.duration_ticks().max(ghost.duration_ticks()).max(1);
    let step = (f64::from(longest) / f64::from(MAX_POINTS)).max(1.0);

    // The run replayed tick by tick into the live delta and the splits.
    let mut cursor = GhostCursor::new(run.clone());
    let mut delta = LiveDelta::new(ghost.clone());
    let mut splits = LiveSplits::new(ghost.clone());
    let run_splits: Vec<(u32, u32)> = run
        .splits()
        .iter()
        .map(|s| (s.tick, s.checkpoint))
        .collect();
    let mut next_split = 0;
    let mut series = Vec::new();
    let mut compared = Vec::new();
    let mut next_point = 0.0;
    let duration = run.duration_ticks();
    let stride = (duration / MAX_DELTA_UPDATES).max(1);
    let ticks = (0..=duration)
        .step_by(stride as usize)
        .chain((duration % stride != 0).then_some(duration));
    for (i, t) in ticks.enumerate() {
        if i % 4096 == 4095 && gone.load(Ordering::Relaxed) {
            return Err(ApiError::new(
                axum::http::StatusCode::REQUEST_TIMEOUT,
                "the client went away",
            ));
        }
        let tf = f64::from(t);
        let pos = cursor.sample(tf).position();
        let reading = delta.update(tf, pos);
        while next_split < run_splits.len() && run_splits[next_split].0 <= t {
            let (tick, cp) = run_splits[next_split];
            if let Some(c) = splits.checkpoint(cp, f64::from(tick)) {
                compared.push(json!({
                    "checkpoint": c.checkpoint,
                    "run_ticks": c.live_ticks,
                    "ghost_ticks": c.ghost_ticks,
                    "delta_seconds": c.delta_seconds,
                }));
            }
            next_split += 1;
        }
        if tf >= next_point || t == duration {
            let secs = if reading.ahead {
                -reading.seconds().abs()
            } else {
                reading.seconds().abs()
            };
            series.push(json!([t, secs]));
            next_point += step;
        }
    }
    let mut ghost_v = describe(&ghost_name, &ghost, step);
    if let Some(c) = catalog {
        ghost_v["catalog"] = c;
    }
    Ok(json!({
        "run": describe(&q.rec, &run, step),
        "ghost": ghost_v,
        "delta": series,
        "splits": compared,
    }))
}
