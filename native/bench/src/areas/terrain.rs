//! Issue-33 figures of terrain (chunk sections the game hands over): `report_terrain_bytes`, the
//! bytes a shadow-play report spends on the terrain around its player (goal ≤ 256 KiB), and
//! `terrain_encode_ms`, the writer thread's time to code and compress it.
//!
//! Workload: `tickreel_sim::terrain::TerrainGen` (seed 33), the 7×7 chunk columns around the
//! player, 24 sections each (y −64..320: 1,176 sections; hills, caves, ores, water, houses),
//! offered once before tick 0 of a shadowed stream (window 5 minutes, one player walking inside
//! the area for 60 s); the report is taken at the end, with and without the offer: the
//! difference in file bytes is `report_terrain_bytes`. Beside it, for the record: the terrain
//! piece alone at other zstd levels and Minecraft's own layout (palettes and packed longs as
//! handed over) compressed at the same level, and the times to check an offer (on the server
//! thread), code it and decode it (medians of 5).

use std::time::{Duration, Instant};

use tickreel::format::wire::{check_offer, decode_piece, encode_body, encode_piece, piece_of};
use tickreel::format::{Event, Limits, PaletteKind, Pose, Section, TERRAIN_ZSTD_LEVEL, Terrain};
use tickreel::shadow::{ReportOptions, ShadowBuffer, ShadowOptions};
use tickreel::{Engine, EngineOptions, RecorderOptions, Result};
use tickreel_sim::terrain::{BLOCKS, TerrainGen};

use super::shared::median;
use super::{Figures, put};

pub fn run(quick: bool, out: &mut Figures) {
    if let Err(e) = figures(quick, out) {
        eprintln!("bench terrain: {e}");
    }
}

fn timed<T>(n: usize, mut f: impl FnMut() -> Result<T>) -> Result<(f64, T)> {
    let mut ms = Vec::with_capacity(n);
    let mut last = None;
    for _ in 0..n {
        let t0 = Instant::now();
        last = Some(f()?);
        ms.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    Ok((median(ms), last.expect("n > 0")))
}

fn figures(quick: bool, out: &mut Figures) -> Result<()> {
    let n = if quick { 1 } else { 5 };
    let generator = TerrainGen::new(33);
    let t0 = Instant::now();
    let sections = generator.area(0, 0, 7)?;
    put(
        out,
        "terrain_generate_ms",
        t0.elapsed().as_secs_f64() * 1000.0,
    );
    put(out, "terrain_sections", sections.len() as f64);
    let distinct: std::collections::HashSet<u32> = sections
        .iter()
        .flat_map(|s| s.palette.iter().copied())
        .collect();
    put(out, "terrain_block_states", distinct.len() as f64);
    let limits = Limits::default();
    let (check_ms, terrain) = timed(n, || check_offer(sections.clone(), &limits))?;
    put(out, "terrain_offer_check_ms", check_ms);
    let body = encode_body(&terrain);
    put(out, "terrain_body_bytes", body.len() as f64);
    let (encode_ms, piece) = timed(n, || encode_piece(&terrain, TERRAIN_ZSTD_LEVEL, &limits))?;
    put(out, "terrain_encode_ms", encode_ms);
    put(out, "terrain_piece_bytes", piece.len() as f64);
    let (decode_ms, back) = timed(n, || decode_piece(piece_of(&piece)?, &limits))?;
    put(out, "terrain_decode_ms", decode_ms);
    if back != terrain {
        return Err(tickreel::Error::corrupt("terrain decoded differently"));
    }
    for level in [3, 9] {
        let p = encode_piece(&terrain, level, &limits)?;
        put(
            out,
            &format!("terrain_piece_level{level}_bytes"),
            p.len() as f64,
        );
    }
    // Minecraft's layout as handed over (palette varints and packed longs), compressed alike.
    let mc = minecraft_layout(&terrain);
    let z = zstd::bulk::compress(&mc, TERRAIN_ZSTD_LEVEL)?;
    put(out, "terrain_mc_layout_bytes", mc.len() as f64);
    put(out, "terrain_mc_layout_zstd_bytes", z.len() as f64);

    let with = report_bytes(Some(sections))?;
    let without = report_bytes(None)?;
    put(out, "report_terrain_bytes", (with - without) as f64);
    put(out, "report_terrain_file_bytes", with as f64);
    Ok(())
}

/// The sections as Minecraft's chunk packet sends them: per section a varint palette length,
/// the palette varints, a varint long count and the longs (big-endian).
fn minecraft_layout(t: &Terrain) -> Vec<u8> {
    let mut out = Vec::new();
    let varint = |out: &mut Vec<u8>, mut v: u64| loop {
        if v < 0x80 {
            out.push(v as u8);
            break;
        }
        out.push((v as u8 & 0x7F) | 0x80);
        v >>= 7;
    };
    for s in t.sections() {
        out.push(s.bits);
        varint(&mut out, s.palette.len() as u64);
        for &p in &s.palette {
            varint(&mut out, u64::from(p));
        }
        varint(&mut out, s.packed.len() as u64);
        for l in &s.packed {
            out.extend_from_slice(&l.to_be_bytes());
        }
    }
    out
}

/// Bytes of the report file of a shadowed stream in which one player walks for 60 s inside the
/// area, with `terrain` offered before its first tick.
fn report_bytes(terrain: Option<Vec<Section>>) -> Result<u64> {
    let engine = Engine::new(EngineOptions::default())?;
    let (rec, shadow) = ShadowBuffer::start(
        &engine,
        None,
        RecorderOptions::default(),
        ShadowOptions::default(),
    )?;
    for &(id, name) in BLOCKS {
        rec.register_name(PaletteKind::Block, id, name)?;
    }
    if let Some(t) = terrain {
        rec.offer_terrain(t)?;
    }
    let mut buf = Vec::new();
    for t in 0..1200u32 {
        let a = f64::from(t) / 1200.0 * std::f64::consts::TAU;
        let pose = Pose::from_f64(
            8.0 + 20.0 * a.cos(),
            80.0,
            8.0 + 20.0 * a.sin(),
            f64::from(t),
            0.0,
        );
        let ev = if t == 0 {
            Event::EntityAdd {
                entity: 1,
                kind: 147,
                pose,
            }
        } else {
            Event::Pose { entity: 1, pose }
        };
        buf.clear();
        tickreel::format::encode_batch(&[ev], &mut buf)?;
        rec.submit_tick(t, &buf)?;
    }
    rec.flush()?;
    let dir = std::env::temp_dir().join(format!("tickreel-bench-terrain-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("report.reel");
    let _ = std::fs::remove_file(&path);
    shadow
        .report(
            1,
            &path,
            ReportOptions {
                after: Duration::ZERO,
                radius: Some(64.0),
                ..ReportOptions::default()
            },
        )?
        .wait()?;
    let bytes = std::fs::metadata(&path)?.len();
    let _ = std::fs::remove_dir_all(&dir);
    Ok(bytes)
}
