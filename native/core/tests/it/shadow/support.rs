//! What the shadow tests share: feeding a recorder, and comparing a report with a recording.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use fastnbt::Value;
use tickreel::format::encode_batch;
use tickreel::play::{PlaybackContext, Playhead, Reader, Recording};
use tickreel::shadow::{ShadowBuffer, ShadowOptions};
use tickreel::{Engine, EngineOptions, Event, Recorder, RecorderOptions};
use tickreel_sim::{SimConfig, Simulator};

/// An engine and a stream shadowed with `options`, written nowhere else.
pub fn shadow_only(options: ShadowOptions) -> (Engine, Recorder, ShadowBuffer) {
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let (rec, shadow) =
        ShadowBuffer::start(&engine, None, RecorderOptions::default(), options).unwrap();
    (engine, rec, shadow)
}

/// Submits one tick's events.
pub fn submit(rec: &Recorder, tick: u32, events: &[Event]) {
    let mut buf = Vec::new();
    encode_batch(events, &mut buf).unwrap();
    rec.submit_tick(tick, &buf).unwrap();
}

/// A simulator of `players` players (no churn, no teleports: a deterministic crowd).
pub fn sim(players: u32) -> Simulator {
    Simulator::new(SimConfig {
        players,
        seed: 7,
        teleport_chance: 0.001,
        churn_chance: 0.0,
        custom_event_chance: 0.01,
    })
}

/// Runs `n` simulated ticks into `rec`; the entities added on the way.
pub fn run(rec: &Recorder, sim: &mut Simulator, n: u32) -> Vec<u32> {
    let mut added = Vec::new();
    for _ in 0..n {
        let (t, events) = sim.step();
        added.extend(events.iter().filter_map(|e| match e {
            Event::EntityAdd { entity, .. } => Some(*entity),
            _ => None,
        }));
        submit(rec, t, &events);
    }
    added
}

/// The report compound of a report file.
pub fn report_meta(r: &Reader) -> std::collections::HashMap<String, Value> {
    match r.metadata().user.get("report") {
        Some(Value::Compound(c)) => c.clone(),
        other => panic!("no report compound: {other:?}"),
    }
}

pub fn int(c: &std::collections::HashMap<String, Value>, k: &str) -> i64 {
    match c.get(k) {
        Some(Value::Int(v)) => i64::from(*v),
        Some(Value::Long(v)) => *v,
        other => panic!("{k}: {other:?}"),
    }
}

/// Every tick of the report equals the recording at that tick (entities restricted to `only`
/// when given), seeking to each and playing the report backward from its end.
pub fn assert_matches(report: &Path, straight: &Reader, only: Option<&HashSet<u32>>) {
    let r = Reader::open_path(report).unwrap();
    r.verify().unwrap();
    let (first, last) = (r.first_tick().unwrap(), r.last_tick().unwrap());
    let want = |t: u32| -> Vec<_> {
        straight
            .seek(t)
            .unwrap()
            .entities
            .iter()
            .copied()
            .filter(|e| only.is_none_or(|s| s.contains(&e.id)))
            .collect()
    };
    for t in first..=last {
        let got: Vec<_> = r.seek(t).unwrap().entities.iter().copied().collect();
        assert_eq!(got, want(t), "tick {t}");
    }
    // Events, tick by tick.
    let keep = |e: &Event| {
        e.entity()
            .is_none_or(|id| only.is_none_or(|s| s.contains(&id)))
    };
    let got: Vec<_> = r
        .ticks(first, last)
        .map(|t| t.unwrap())
        .filter(|t| !t.events.is_empty())
        .collect();
    let want_ticks: Vec<_> = straight
        .ticks(first, last)
        .map(|t| t.unwrap())
        .map(|mut t| {
            t.events.retain(keep);
            t
        })
        .filter(|t| !t.events.is_empty())
        .collect();
    assert_eq!(got.len(), want_ticks.len());
    for (a, b) in got.iter().zip(&want_ticks) {
        assert_eq!(a, b, "tick {}", a.tick);
    }
    // Backward, one step at a time, from the end to the start.
    let rec: Arc<Recording> = Recording::from_reader(
        Reader::open_path(report).unwrap(),
        &PlaybackContext::global(),
    );
    let mut p = Playhead::new_at(rec, last).unwrap();
    let mut t = last;
    while t > first {
        p.step_back();
        t -= 1;
        assert_eq!(p.position(), t);
        assert_eq!(p.entities(), &want(t)[..], "backward at tick {t}");
    }
}
