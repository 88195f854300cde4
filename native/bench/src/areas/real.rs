//! Size on real server recordings (issue 49): the shared recordings of a real survival server
//! (`shared/traces/real-minecraft/`: `*_players.jsonl.gz`, `*_all_entities.jsonl.gz`, the JSON
//! lines `tickreel import` reads, gzipped), each imported as `tickreel import` does, its ticks
//! read back and written by the compacted preset (as `realistic.rs` counts the preset), against
//! the anchor's compacted file of the same ticks (`hollowcube.rs`), both files counted whole.
//! Printed only where the folder is: `TICKREEL_REAL_TRACES`, else `../shared/traces/real-minecraft`
//! beside the checkout (a machine without it prints `real_traces_found: false`).

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tickreel::Event;
use tickreel::play::Reader;

use tickreel_sim::realistic::movement_stats::{MovementStats, STATISTICS};
use tickreel_sim::realistic::{RealisticConfig, RealisticSim};

use super::{Figures, Tool, hollowcube, put, realistic};

/// The shared recordings' folder, when this machine has it.
pub(super) fn traces_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("TICKREEL_REAL_TRACES") {
        return Some(PathBuf::from(dir)).filter(|d| d.is_dir());
    }
    // native/bench -> the checkout -> beside it
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2)?;
    Some(checkout.join("../shared/traces/real-minecraft")).filter(|d| d.is_dir())
}

/// The recordings of `dir` whose name ends in `suffix` (`_players.jsonl.gz`), by name: the
/// name's part before the suffix and the path.
pub(super) fn recordings(dir: &Path, suffix: &str) -> Vec<(String, PathBuf)> {
    let mut found: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let stem = name.strip_suffix(suffix)?.to_string();
                    Some((stem, e.path()))
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// The ticks of a gzipped JSON lines recording, imported as `tickreel import` does and read
/// back.
pub(super) fn ticks_of(
    tool: &dyn Tool,
    jsonl_gz: &Path,
) -> tickreel::Result<Vec<(u32, Vec<Event>)>> {
    let file = File::open(jsonl_gz)?;
    let mut input = flate2::read::GzDecoder::new(BufReader::new(file));
    let dir = tempfile::tempdir()?;
    let out = dir.path().join("imported.reel");
    tool.import_json_lines(&mut input, jsonl_gz, &out)?;
    let reader = Reader::open_path(&out)?;
    let (Some(first), Some(last)) = (reader.first_tick(), reader.last_tick()) else {
        return Ok(Vec::new());
    };
    reader
        .ticks(first, last)
        .map(|t| t.map(|t| (t.tick, t.events)))
        .collect()
}

pub fn run(_quick: bool, out: &mut Figures, tool: &dyn Tool) {
    let Some(dir) = traces_dir() else {
        out.insert("real_traces_found".into(), Value::Bool(false));
        return;
    };
    out.insert("real_traces_found".into(), Value::Bool(true));
    // the realistic preset, as `realistic.rs` writes it (10 minutes), for the comparison
    let mut sim = RealisticSim::new(RealisticConfig::default());
    let preset: Vec<_> = (0..12_000).map(|_| sim.step()).collect();
    for (class, suffix) in [
        ("players", "_players.jsonl.gz"),
        ("all_entities", "_all_entities.jsonl.gz"),
    ] {
        let (mut ours_total, mut anchor_total) = (0u64, 0u64);
        let mut class_ticks = Vec::new();
        for (name, path) in recordings(&dir, suffix) {
            let ticks = match ticks_of(tool, &path) {
                Ok(t) => t,
                Err(e) => panic!("{}: {e}", path.display()),
            };
            append_recording(&mut class_ticks, &ticks);
            let ours = realistic::ours(&ticks);
            let anchor = hollowcube::compacted_size(&ticks);
            put(out, &format!("real_{name}_{class}_bytes"), ours as f64);
            put(
                out,
                &format!("real_{name}_{class}_hollowcube_compacted_bytes"),
                anchor as f64,
            );
            put(
                out,
                &format!("real_{name}_{class}_vs_hollowcube_compacted_ratio"),
                anchor as f64 / ours as f64,
            );
            ours_total += ours;
            anchor_total += anchor;
        }
        if ours_total > 0 {
            // the class's figure: every recording of the class together
            put(
                out,
                &format!("real_{class}_vs_hollowcube_compacted_ratio"),
                anchor_total as f64 / ours_total as f64,
            );
        }
        let preset_class = match class {
            "players" => realistic::players_only(&preset),
            _ => preset.clone(),
        };
        compare(class, &class_ticks, &preset_class, out);
    }
}

/// Appends a recording's movement events after `all`'s (ticks shifted past its last, entity ids
/// past its largest), so that a class's recordings are measured together.
fn append_recording(all: &mut Vec<(u32, Vec<Event>)>, ticks: &[(u32, Vec<Event>)]) {
    let tick_base = all.last().map_or(0, |(t, _)| t + 1000);
    let id_base = all
        .iter()
        .flat_map(|(_, ev)| ev.iter().filter_map(|e| e.entity()))
        .max()
        .map_or(0, |m| m + 1);
    for (t, ev) in ticks {
        // the events the statistics read, their entity renamed
        let ev = ev
            .iter()
            .filter_map(|e| {
                let mut e = e.clone();
                match &mut e {
                    Event::EntityAdd { entity, .. }
                    | Event::EntityRemove { entity }
                    | Event::PlayerLeave { entity }
                    | Event::Pose { entity, .. }
                    | Event::Position { entity, .. }
                    | Event::Rotation { entity, .. }
                    | Event::Teleport { entity, .. } => *entity += id_base,
                    _ => return None,
                }
                Some(e)
            })
            .collect();
        all.push((t + tick_base, ev));
    }
}

/// The movement statistics of a class's real recordings against the preset's
/// (`tickreel_sim::realistic::movement_stats`): `realism_{class}_{statistic}_real` and `_preset` per
/// statistic, and how many are within their tolerance (`realism_{class}_within_tolerance`, of
/// `realism_statistics`).
fn compare(
    class: &str,
    real: &[(u32, Vec<Event>)],
    preset: &[(u32, Vec<Event>)],
    out: &mut Figures,
) {
    let (real, preset) = (MovementStats::of(real), MovementStats::of(preset));
    let mut within = 0;
    for (name, r, p, ok) in preset.against(&real) {
        put(out, &format!("realism_{class}_{name}_real"), r);
        put(out, &format!("realism_{class}_{name}_preset"), p);
        within += usize::from(ok);
    }
    put(
        out,
        &format!("realism_{class}_within_tolerance"),
        within as f64,
    );
    put(out, "realism_statistics", STATISTICS.len() as f64);
}
