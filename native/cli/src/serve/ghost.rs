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
//!
//! A run is raced over a part of its recording, never the whole of it against a course's run:
//! `from_checkpoint` and `to_checkpoint` choose the part (of the run, and of a ghost from a
//! recording); against a catalog run (`course=` for the best, `run_id=` for any) without them,
//! the run is cut to the checkpoints the catalog run starts and ends at.

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
    /// This catalog run is the ghost (needs `--catalog`).
    pub run_id: Option<i64>,
    /// The part raced: from the crossing of this checkpoint to that of `to_checkpoint` (both
    /// or neither).
    pub from_checkpoint: Option<u32>,
    pub to_checkpoint: Option<u32>,
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
    let range = match (q.from_checkpoint, q.to_checkpoint) {
        (Some(a), Some(b)) => Some(GhostRange::checkpoints(a, b)),
        (None, None) => None,
        _ => {
            return Err(ApiError::bad_request(
                "from_checkpoint= and to_checkpoint= go together",
            ));
        }
    };
    let catalog_run = match (&q.course, q.run_id) {
        (Some(_), Some(_)) => {
            return Err(ApiError::bad_request(
                "course= (the best run) or run_id= (a chosen run): one ghost",
            ));
        }
        (Some(course), None) => {
            let best = lib.with_catalog(|c| c.ghost_run(course, 1u64))?;
            let Some((placed, _)) = best else {
                return Err(ApiError::not_found(format!(
                    "course {}: no run on the board",
                    crate::errors::echo(course)
                )));
            };
            Some(placed.run)
        }
        (None, Some(id)) => {
            let run = lib
                .with_catalog(|c| c.run(id))?
                .ok_or_else(|| ApiError::not_found(format!("no run {id} in the catalog")))?;
            // a held run serves as no ghost until a moderator clears it
            if run.held {
                return Err(ApiError::forbidden(format!(
                    "run {id} is held by the run checks (tickreel catalog check {id}): it \
                     serves as no ghost until a moderator clears it"
                )));
            }
            Some(run)
        }
        (None, None) => None,
    };
    let (ghost_name, ghost, catalog) = match (catalog_run, &q.ghost, q.ghost_entity) {
        (Some(r), None, None) => {
            let r = &r;
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
                "course= and run_id= pick a catalog run as the ghost: give them without ghost= or ghost_entity=",
            ));
        }
        (None, g, Some(e)) => {
            let name = g.clone().unwrap_or_else(|| q.rec.clone());
            let track = load(lib, &name, e, range.unwrap_or_else(GhostRange::all))?;
            (name, track, None)
        }
        (None, Some(g), None) => {
            let track = load(lib, g, q.entity, range.unwrap_or_else(GhostRange::all))?;
            (g.clone(), track, None)
        }
        (None, None, None) => {
            return Err(ApiError::bad_request(
                "no ghost: give ghost_entity= (and ghost= for another recording), course= or run_id=",
            ));
        }
    };
    // The run's part: the one asked for; against a catalog run that starts and ends at
    // checkpoints (its first split at its start, its last at its end), the same checkpoints, so
    // that a whole recording is never raced against one course's run.
    // (A run that never crossed them is raced whole, as before.)
    let run = match range {
        Some(r) => load(lib, &q.rec, q.entity, r)?,
        None => match (
            catalog.is_some(),
            ghost.splits().first(),
            ghost.splits().last(),
        ) {
            (true, Some(a), Some(b))
                if a.tick == 0
                    && b.tick == ghost.duration_ticks()
                    && a.checkpoint != b.checkpoint =>
            {
                let part = GhostRange::checkpoints(a.checkpoint, b.checkpoint);
                match load(lib, &q.rec, q.entity, part) {
                    Ok(t) => t,
                    Err(_) => load(lib, &q.rec, q.entity, GhostRange::all())?,
                }
            }
            _ => load(lib, &q.rec, q.entity, GhostRange::all())?,
        },
    };
    let run = Arc::new(run);
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
