//! `tickreel info FILE [--json]`: header fields, metadata and an index summary, of a `.reel` file
//! or a live recording directory.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tickreel::format::FLAG_CUSTOM_EVENTS;
use tickreel::format::Layout;
use tickreel::play::Reader;
use tickreel::storage::LocalStorage;
use tickreel::storage::live::{META_FILE, list_segments, members_of, segment_name};

use super::Out;
use super::json::{hex, nbt_to_json, utc_timestamp};

#[derive(clap::Args)]
pub struct Args {
    /// A `.reel` file, a live recording directory (`NAME.reel.live`) or an object URL (`s3://bucket/key`).
    pub file: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    let r = super::open(&a.file)?;
    let size = match super::object::url_of(&a.file) {
        Some(url) => OnDisk {
            total: super::object::size(url)?,
            live: None,
        },
        None => on_disk(&a.file).map_err(|e| super::in_file(&a.file, e))?,
    };
    let info = describe(&r, &a.file.display().to_string(), &size)?;
    if a.json {
        writeln!(out, "{info}")?;
    } else {
        print_text(&r, &info, out)?;
    }
    Ok(())
}

/// The bytes a recording takes on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OnDisk {
    /// A `.reel` file's size, or the sum of a live directory's metadata file and segments.
    pub total: u64,
    /// For a live directory: its files.
    pub live: Option<LiveFiles>,
}

/// The files of a live recording directory (its empty lock file is not counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LiveFiles {
    pub meta_bytes: u64,
    pub segments: usize,
    pub segment_bytes: u64,
}

/// What `path` (a `.reel` file or a live directory) takes on disk.
pub fn on_disk(path: &Path) -> tickreel::Result<OnDisk> {
    if !path.is_dir() {
        let total = std::fs::metadata(path)?.len();
        return Ok(OnDisk { total, live: None });
    }
    // The directory's files are looked at as the core opens them: never followed out of it.
    let members = members_of(&LocalStorage::shared());
    let len = |p: std::path::PathBuf| -> tickreel::Result<u64> {
        match members.stat(&p)? {
            Some(s) => Ok(s.len),
            None => Err(tickreel::Error::io_at(
                &p,
                std::io::ErrorKind::NotFound.into(),
            )),
        }
    };
    let meta_bytes = len(path.join(META_FILE))?;
    let segments = list_segments(path)?;
    let mut segment_bytes = 0;
    for &n in &segments {
        segment_bytes += len(path.join(segment_name(n)))?;
    }
    Ok(OnDisk {
        total: meta_bytes + segment_bytes,
        live: Some(LiveFiles {
            meta_bytes,
            segments: segments.len(),
            segment_bytes,
        }),
    })
}

/// A 16-byte id as a UUID string.
fn uuid_str(b: &[u8; 16]) -> String {
    uuid::Uuid::from_bytes(*b).hyphenated().to_string()
}

/// Everything `info` reports, as one JSON object (the `--json` output; the text form prints it).
/// `file_size` is the recording's bytes on disk (for a live directory, its metadata file plus
/// segments, detailed under `live_files`).
pub fn describe(r: &Reader, file: &str, size: &OnDisk) -> tickreel::Result<Value> {
    let file_size = size.total;
    let h = r.header();
    let index = r.index();
    let compressed: u64 = index.iter().map(|e| u64::from(e.compressed_len)).sum();
    let uncompressed: u64 = index.iter().map(|e| u64::from(e.uncompressed_len)).sum();
    let snapshots = index.iter().filter(|e| e.has_snapshot()).count();
    let custom = index
        .iter()
        .filter(|e| e.flags & FLAG_CUSTOM_EVENTS != 0)
        .count();
    // The whole metadata root compound: the user's keys plus the library's under "tickreel".
    let root: fastnbt::Value = fastnbt::from_bytes(&r.metadata().encode()?)
        .map_err(|e| tickreel::Error::Metadata(format!("cannot re-read metadata: {e}")))?;
    let ratio = if compressed > 0 {
        uncompressed as f64 / compressed as f64
    } else {
        0.0
    };
    let duration_s = f64::from(h.tick_count) / r.tick_rate().max(f64::MIN_POSITIVE);
    Ok(json!({
        "file": file,
        "file_size": file_size,
        "live_files": size.live.map(|l| json!({
            "meta_bytes": l.meta_bytes,
            "segments": l.segments,
            "segment_bytes": l.segment_bytes,
        })),
        "version": h.version,
        "data_version": h.data_version,
        "layout": match h.layout {
            Layout::Compacted => "compacted",
            Layout::Segmented => "segmented",
        },
        "recording_id": h.recording_uuid().map(|u| u.to_string()),
        "world_id": uuid_str(&h.world_id),
        "world_id_hex": hex(&h.world_id),
        "world_version": uuid_str(&h.world_version),
        "world_version_hex": hex(&h.world_version),
        "timestamp_ms": h.timestamp_ms,
        "timestamp_utc": utc_timestamp(h.timestamp_ms),
        "dictionary_id": h.dictionary_id,
        "tick_rate": r.tick_rate(),
        "game_data_version": h.game_data_version,
        "first_tick": h.first_tick,
        "last_tick": r.last_tick(),
        "tick_count": h.tick_count,
        "duration_s": duration_s,
        "chunk_count": h.chunk_count,
        "metadata": nbt_to_json(&root),
        "stats": {
            "ticks_written": r.metadata().library.stats.ticks_written,
            "events": r.metadata().library.stats.events,
            "pose_samples": r.metadata().library.stats.pose_samples,
            "uncompressed_bytes": r.metadata().library.stats.uncompressed_bytes,
            "dropped_ticks": r.metadata().library.stats.dropped_ticks,
        },
        "index": {
            "chunks": index.len(),
            "snapshot_chunks": snapshots,
            "custom_event_chunks": custom,
            "compressed_bytes": compressed,
            "uncompressed_bytes": uncompressed,
            "ratio": ratio,
            "file_size": file_size,
        },
    }))
}

/// Most entities [`print_players`] lists.
const PLAYERS_SHOWN: usize = 20;

/// The per-player figures of the analysis (blocks, attacks, reach, speed, rotation), one line
/// per entity that has any, by id.
fn print_players(
    a: &Value,
    lib: &tickreel::format::LibraryMeta,
    out: &mut impl Write,
) -> io::Result<()> {
    let Some(list) = a["entities"].as_array() else {
        return Ok(());
    };
    let keys = [
        "blocks_broken",
        "blocks_placed",
        "attacks",
        "attacked",
        "speed",
        "turn",
    ];
    let with: Vec<&Value> = list
        .iter()
        .filter(|e| keys.iter().any(|k| !e[*k].is_null()))
        .collect();
    if with.is_empty() {
        return Ok(());
    }
    writeln!(out, "  players           {}", with.len())?;
    let top = |e: &Value, k: &str| -> String {
        e[k].as_array()
            .map(|l| {
                l.iter()
                    .map(|s| {
                        let name = s["name"]
                            .as_str()
                            .map(str::to_string)
                            .or_else(|| s["state"].as_i64().map(|v| format!("#{v}")))
                            .unwrap_or_else(|| "unknown".into());
                        format!("{name} {}", s["count"])
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default()
    };
    let n = |e: &Value, k: &str| e[k].as_u64().unwrap_or(0);
    let f = |e: &Value, k: &str| e[k].as_f64().unwrap_or(0.0);
    for e in with.iter().take(PLAYERS_SHOWN) {
        let id = e["id"].as_i64().unwrap_or(-1);
        let who = lib
            .entities
            .iter()
            .find(|i| i64::from(i.id) == id)
            .and_then(|i| i.name.clone().or(i.uuid.map(|u| u.to_string())))
            .unwrap_or_else(|| "-".into());
        let mut parts = vec![format!(
            "speed ≤ {:.2} blocks/s, rotation ≤ {:.1}°/tick",
            f(e, "speed"),
            f(e, "turn")
        )];
        if !e["blocks_broken"].is_null() {
            parts.push(format!(
                "broke {} ({})",
                n(e, "blocks_broken"),
                top(e, "broken")
            ));
        }
        if !e["blocks_placed"].is_null() {
            parts.push(format!(
                "placed {} ({})",
                n(e, "blocks_placed"),
                top(e, "placed")
            ));
        }
        if !e["attacks"].is_null() {
            parts.push(format!(
                "{} attacks (at most {} in a second)",
                n(e, "attacks"),
                n(e, "attacks_per_second_max")
            ));
        }
        if !e["reach_max"].is_null() {
            parts.push(format!(
                "reach max {:.2}, p99 {:.2}",
                f(e, "reach_max"),
                f(e, "reach_p99")
            ));
        }
        if !e["attacked"].is_null() {
            parts.push(format!("attacked {} times", n(e, "attacked")));
        }
        writeln!(out, "    {id:>8}  {who}: {}", parts.join("; "))?;
    }
    if with.len() > PLAYERS_SHOWN {
        writeln!(out, "    ... and {} more", with.len() - PLAYERS_SHOWN)?;
    }
    Ok(())
}

fn print_text(r: &Reader, j: &Value, out: &mut impl Write) -> io::Result<()> {
    let h = r.header();
    let m = r.metadata();
    let lib = &m.library;
    let file = j["file"].as_str().unwrap_or("");
    let l = &j["live_files"];
    if l.is_null() {
        writeln!(out, "file              {file} ({} bytes)", j["file_size"])?;
    } else {
        let segments = l["segments"].as_u64().unwrap_or(0);
        writeln!(
            out,
            "live directory    {file} ({} bytes in its files: {} of {META_FILE}, {} in {segments} segment{})",
            j["file_size"],
            l["meta_bytes"],
            l["segment_bytes"],
            if segments == 1 { "" } else { "s" }
        )?;
    }
    writeln!(
        out,
        "format            version {}, data version {}, layout {}",
        h.version,
        h.data_version,
        j["layout"].as_str().unwrap_or("")
    )?;
    writeln!(
        out,
        "recording id      {}",
        j["recording_id"].as_str().unwrap_or("(none)")
    )?;
    writeln!(
        out,
        "world id          {}",
        j["world_id"].as_str().unwrap_or("")
    )?;
    writeln!(
        out,
        "world version     {}",
        j["world_version"].as_str().unwrap_or("")
    )?;
    writeln!(
        out,
        "timestamp         {} ({} ms)",
        utc_timestamp(h.timestamp_ms),
        h.timestamp_ms
    )?;
    writeln!(
        out,
        "dictionary id     {}{}",
        h.dictionary_id,
        if h.dictionary_id == 0 { " (none)" } else { "" }
    )?;
    writeln!(out, "tick rate         {} ticks/s", r.tick_rate())?;
    writeln!(out, "game data version {}", h.game_data_version)?;
    match r.last_tick() {
        Some(last) => writeln!(
            out,
            "ticks             {} ticks, {}..={last} ({:.1} s)",
            h.tick_count,
            h.first_tick,
            j["duration_s"].as_f64().unwrap_or(0.0)
        )?,
        None => writeln!(out, "ticks             none")?,
    }
    let ix = &j["index"];
    writeln!(
        out,
        "chunks            {} ({} with a snapshot, {} with custom events)",
        h.chunk_count, ix["snapshot_chunks"], ix["custom_event_chunks"]
    )?;
    writeln!(
        out,
        "chunk bytes       {} compressed, {} uncompressed, ratio {:.2}x",
        ix["compressed_bytes"],
        ix["uncompressed_bytes"],
        ix["ratio"].as_f64().unwrap_or(0.0)
    )?;
    writeln!(out, "metadata")?;
    if m.user.is_empty() {
        writeln!(out, "  user              (empty)")?;
    } else {
        let mut user = j["metadata"].clone();
        if let Some(o) = user.as_object_mut() {
            o.remove(tickreel::format::LIBRARY_KEY);
        }
        writeln!(out, "  user              {user}")?;
    }
    writeln!(out, "  entities          {}", lib.entities.len())?;
    for e in lib.entities.iter().take(10) {
        writeln!(
            out,
            "    {:>8}  kind {:<5} {} {}",
            e.id,
            e.kind,
            e.name.as_deref().unwrap_or("-"),
            e.uuid.map(|u| u.to_string()).unwrap_or_default()
        )?;
    }
    if lib.entities.len() > 10 {
        writeln!(out, "    ... and {} more", lib.entities.len() - 10)?;
    }
    writeln!(out, "  event types       {}", lib.event_types.len())?;
    for t in &lib.event_types {
        writeln!(out, "    {:>8}  {} (schema {})", t.id, t.name, t.version)?;
    }
    if lib.gaps.is_empty() {
        writeln!(out, "  gaps              none")?;
    } else {
        let gaps: Vec<String> = lib
            .gaps
            .iter()
            .map(|g| format!("{}..={}", g.from, g.to))
            .collect();
        writeln!(out, "  gaps              {}", gaps.join(", "))?;
    }
    let s = &lib.stats;
    writeln!(
        out,
        "  stats             {} ticks written, {} events, {} pose samples, {} uncompressed bytes, {} dropped ticks",
        s.ticks_written, s.events, s.pose_samples, s.uncompressed_bytes, s.dropped_ticks
    )?;
    if lib.analysis.is_some() {
        let a = &j["metadata"][tickreel::format::LIBRARY_KEY]["analysis"];
        writeln!(out, "  analysis          {a}")?;
        print_players(a, lib, out)?;
    }
    if !lib.extra.is_empty() {
        let mut keys: Vec<&String> = lib.extra.keys().collect();
        keys.sort();
        let keys: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
        writeln!(out, "  other keys        {}", keys.join(", "))?;
    }
    Ok(())
}
