//! Size on a realistic world (issue 17): `tickreel_sim::realistic`, measured on real server-side
//! recordings: 2 players with every entity around them (mobs, idle entities, items, churn), 10
//! minutes; its players-only view; a 3-second and a 15-second one-player run. Each against the
//! reference encoding of the same ticks compressed per chunk (`baseline.rs`), and against the
//! anchor's compacted file of them (`hollowcube.rs`), both files counted whole.

use std::collections::HashSet;

use tickreel::Event;
use tickreel::record::{ReelOptions, ReelWriter};
use tickreel_sim::realistic::{RealisticConfig, RealisticSim, WorkloadStats, kind};

use super::{Figures, baseline, hollowcube, put};

/// Compacted size of `ticks` written by the synchronous writer's compacted preset.
pub(super) fn ours(ticks: &[(u32, Vec<Event>)]) -> u64 {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("r.reel");
    let mut w = ReelWriter::create(&path, ReelOptions::compacted()).expect("writer");
    for (t, ev) in ticks {
        w.write_tick(*t, ev).expect("tick");
    }
    w.finish().expect("finish")
}

/// Where a short run's bytes go, as figures named `{name}_*`: the whole file, its container
/// (`_container_bytes`: the 256-byte header, metadata, index and frame headers) and each part,
/// and the compressed and decompressed payloads; returns the file's size and its container's.
fn short_run_breakdown(name: &str, ticks: &[(u32, Vec<Event>)], out: &mut Figures) -> (u64, u64) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("r.reel");
    let mut w = ReelWriter::create(&path, ReelOptions::compacted()).expect("writer");
    for (t, ev) in ticks {
        w.write_tick(*t, ev).expect("tick");
    }
    let size = w.finish().expect("finish");
    let r = tickreel::play::Reader::open_path(&path).expect("open");
    let h = r.header();
    let payload: u64 = r.index().iter().map(|e| u64::from(e.compressed_len)).sum();
    let uncompressed: u64 = r
        .index()
        .iter()
        .map(|e| u64::from(e.uncompressed_len))
        .sum();
    let frame_headers = (tickreel::format::FRAME_HEADER_LEN * r.index().len()) as u64;
    let mut part = |key: &str, v: u64| put(out, &format!("{name}_{key}"), v as f64);
    part("bytes", size);
    part("container_bytes", size - payload);
    part("header_bytes", tickreel::format::HEADER_LEN as u64);
    part("metadata_bytes", u64::from(h.metadata_len));
    part("index_bytes", u64::from(h.index_len));
    part("frame_header_bytes", frame_headers);
    part("payload_bytes", payload);
    part("uncompressed_payload_bytes", uncompressed);
    (size, size - payload)
}

/// Entity-ticks alive over the run.
fn entity_ticks(ticks: &[(u32, Vec<Event>)]) -> u64 {
    let mut alive = HashSet::new();
    let mut total = 0u64;
    for (_, ev) in ticks {
        for e in ev {
            match *e {
                Event::EntityAdd { entity, .. } => {
                    alive.insert(entity);
                }
                Event::EntityRemove { entity } | Event::PlayerLeave { entity } => {
                    alive.remove(&entity);
                }
                _ => {}
            }
        }
        total += alive.len() as u64;
    }
    total
}

/// Only the players' events.
pub(super) fn players_only(ticks: &[(u32, Vec<Event>)]) -> Vec<(u32, Vec<Event>)> {
    let players: HashSet<u32> = ticks
        .iter()
        .flat_map(|(_, ev)| ev)
        .filter_map(|e| match *e {
            Event::EntityAdd {
                entity, kind: k, ..
            } if k == kind::PLAYER => Some(entity),
            _ => None,
        })
        .collect();
    ticks
        .iter()
        .map(|(t, ev)| {
            let keep = ev
                .iter()
                .filter(|e| e.entity().is_some_and(|id| players.contains(&id)))
                .cloned()
                .collect();
            (*t, keep)
        })
        .collect()
}

/// 1,000 entities that never move, for `minutes`: the bytes each costs per second.
fn idle_entity_bytes_per_second(minutes: u32) -> f64 {
    use tickreel::Pose;
    const IDLE: u32 = 1000;
    let ticks: Vec<(u32, Vec<Event>)> = (0..minutes * 60 * 20)
        .map(|t| {
            let ev = if t == 0 {
                (1..=IDLE)
                    .map(|id| Event::EntityAdd {
                        entity: id,
                        kind: kind::ARMOR_STAND,
                        pose: Pose::from_f64(
                            f64::from(id % 40),
                            64.0,
                            f64::from(id / 40),
                            0.0,
                            0.0,
                        ),
                    })
                    .collect()
            } else {
                Vec::new()
            };
            (t, ev)
        })
        .collect();
    ours(&ticks) as f64 / (f64::from(IDLE) * f64::from(minutes) * 60.0)
}

pub fn run(quick: bool, out: &mut Figures) {
    let minutes = if quick { 2 } else { 10 };
    let mut sim = RealisticSim::new(RealisticConfig::default());
    let ticks: Vec<_> = (0..minutes * 60 * 20).map(|_| sim.step()).collect();
    let stats = WorkloadStats::of(&ticks);
    let size = ours(&ticks);
    let base = baseline::baseline_size(&ticks);
    put(
        out,
        "realistic_bytes_per_entity_second",
        size as f64 / (entity_ticks(&ticks) as f64 / 20.0),
    );
    put(out, "realistic_baseline_ratio", base as f64 / size as f64);
    let anchor = hollowcube::compacted_size(&ticks);
    put(out, "realistic_bytes", size as f64);
    put(out, "realistic_hollowcube_compacted_bytes", anchor as f64);
    put(
        out,
        "realistic_vs_hollowcube_compacted_ratio",
        anchor as f64 / size as f64,
    );
    let players = players_only(&ticks);
    let players_size = ours(&players);
    put(
        out,
        "realistic_players_only_baseline_ratio",
        baseline::baseline_size(&players) as f64 / players_size as f64,
    );
    let players_anchor = hollowcube::compacted_size(&players);
    put(out, "realistic_players_only_bytes", players_size as f64);
    put(
        out,
        "realistic_players_only_hollowcube_compacted_bytes",
        players_anchor as f64,
    );
    put(
        out,
        "realistic_players_only_vs_hollowcube_compacted_ratio",
        players_anchor as f64 / players_size as f64,
    );
    let mut one = RealisticSim::new(RealisticConfig {
        players: 1,
        ..RealisticConfig::default()
    });
    let run: Vec<_> = (0..300).map(|_| one.step()).collect();
    let run = players_only(&run);
    // 15 seconds, both sides whole (header, metadata, index, frames), and where the bytes go.
    let (run_ours, run_container) = short_run_breakdown("short_run_15s", &run, out);
    let (anchor_container, anchor_frames) = hollowcube::compacted_parts(&run);
    let run_anchor = anchor_container + anchor_frames;
    put(out, "short_run_container_bytes", run_container as f64);
    put(
        out,
        "short_run_15s_hollowcube_compacted_bytes",
        run_anchor as f64,
    );
    put(
        out,
        "short_run_15s_hollowcube_container_bytes",
        anchor_container as f64,
    );
    put(
        out,
        "short_run_15s_hollowcube_frame_bytes",
        anchor_frames as f64,
    );
    put(
        out,
        "short_run_vs_hollowcube_compacted_ratio",
        run_anchor as f64 / run_ours as f64,
    );
    let short = run[..60].to_vec();
    put(
        out,
        "realistic_short_run_baseline_ratio",
        baseline::baseline_size(&short) as f64 / ours(&short) as f64,
    );
    short_run_breakdown("realistic_short_run", &short, out);
    put(
        out,
        "idle_entity_bytes_per_second",
        idle_entity_bytes_per_second(minutes),
    );
    put(out, "realistic_alive_median", stats.alive_median as f64);
    put(
        out,
        "realistic_distinct_entities",
        stats.distinct_entities as f64,
    );
    put(
        out,
        "realistic_poses_per_tick_median",
        stats.poses_per_tick_median as f64,
    );
    put(out, "realistic_pose_fraction", stats.pose_fraction);
}
