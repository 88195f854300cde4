//! The terrain at a tick for the viewer (`GET /api/terrain?rec=R&tick=T`): not every block (a
//! 7×7-chunk, 24-section terrain is 1.15 million, most of them air or buried), but the blocks
//! the page can see, each with the faces it draws, so that the page meshes them in one pass and
//! the answer stays small (`simulate --terrain 7`, `TerrainGen` seed 42: 16,002 blocks, 23,892
//! faces, an answer of 109 KB).
//!
//! What is seen: the *outside* is the air and clear blocks (water, glass, leaves, ice: drawn
//! translucent or thin) reached from above the terrain, a flood through open blocks from the top
//! of every column whose next section up the terrain does not hold; caves closed to the outside
//! are left out. A block's face is drawn when the block is not air and its neighbour on that side
//! is outside and a different state (water against water draws nothing), or when the face looks
//! up into a section the terrain does not hold (the sky). Faces into a missing section sideways
//! or below are not drawn (the edge of the area).
//!
//! Bounds, from the server and never from the file: at most [`MAX_SECTIONS`] sections are read
//! (in the terrain's order, a column's sections together; the rest left out and
//! `"truncated": true`) and at most [`MAX_BLOCKS`] blocks sent (likewise); the terrain itself is
//! bounded by the core's `Limits::max_terrain_sections` / `max_terrain_bytes`.
//!
//! The answer: `{"tick", "states": [[state, name|null]...], "sections": [[cx, cy, cz, blocks,
//! BASE64]...], "blocks", "faces", "sections_total", "truncated", "limits"}`, the sections with a
//! block drawn only; BASE64 holds 5 bytes a block: its index in the section (y-z-x order, `u16`
//! little-endian), its faces drawn (bit k: +x, −x, +y, −y, +z, −z for k = 0..6), its state as
//! an index into `states` (`u16` little-endian).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use axum::http::StatusCode;
use parking_lot::Mutex;
use serde::Deserialize;
use serde_json::{Value, json};
use tickreel::format::{FLAG_TERRAIN, PaletteKind, SECTION_BLOCKS, Section, Terrain};

use super::error::{ApiError, ApiResult};
use super::library::Library;

/// Most sections read for one answer (the area limit): 2,048 is a 9×9-chunk area 24 sections
/// high.
pub const MAX_SECTIONS: usize = 2048;
/// Most blocks in one answer (5 bytes each, 1.3 MiB before base64).
pub const MAX_BLOCKS: usize = 262_144;
/// Most block states in one answer (a block's state is an index into them, `u16`).
pub const MAX_STATES: usize = 1 << 16;

#[derive(Debug, Deserialize)]
pub struct TerrainQuery {
    pub rec: String,
    /// The tick (clamped into the recording; default: its first tick).
    pub tick: Option<u32>,
}

/// What a block is to the flood and the faces.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Air,
    /// Seen through: water, glass, leaves, ice.
    Clear,
    Solid,
}

/// Air by name (`minecraft:air`, `cave_air`, `void_air`, with or without properties); a state
/// without a name is air when it is 0, as the viewer's edits take it.
pub fn is_air(name: Option<&str>, state: u32) -> bool {
    match name {
        None => state == 0,
        Some(n) => {
            let base = n.split('[').next().unwrap_or(n);
            let base = base.rsplit(':').next().unwrap_or(base);
            matches!(base, "air" | "cave_air" | "void_air")
        }
    }
}

fn kind_of(name: Option<&str>, state: u32) -> Kind {
    if is_air(name, state) {
        return Kind::Air;
    }
    let n = name.unwrap_or("");
    let base = n.split('[').next().unwrap_or(n);
    if [
        "water",
        "glass",
        "leaves",
        "ice",
        "seagrass",
        "kelp",
        "bubble_column",
    ]
    .iter()
    .any(|w| base.contains(w))
    {
        Kind::Clear
    } else {
        Kind::Solid
    }
}

/// The six neighbours, in the order of the face bits.
const DIRS: [(i32, i32, i32); 6] = [
    (1, 0, 0),
    (-1, 0, 0),
    (0, 1, 0),
    (0, -1, 0),
    (0, 0, 1),
    (0, 0, -1),
];

/// Block `i`'s local position (y-z-x order).
fn local(i: usize) -> (i32, i32, i32) {
    ((i % 16) as i32, (i / 256) as i32, ((i / 16) % 16) as i32)
}

/// The sections read, with each block's kind and whether it is outside.
struct Area<'a> {
    sections: Vec<&'a Section>,
    at: HashMap<(i32, i32, i32), usize>,
    /// Per section, the kind of each palette entry.
    kinds: Vec<Vec<Kind>>,
    outside: Vec<Vec<bool>>,
}

impl Area<'_> {
    fn kind(&self, s: usize, i: usize) -> Kind {
        self.kinds[s][self.sections[s].index(i)]
    }
    fn state(&self, s: usize, i: usize) -> u32 {
        self.sections[s].palette[self.sections[s].index(i)]
    }
    /// The neighbour of block `i` of section `s` in direction `d`: its section and index, or
    /// `None` when the terrain read does not hold it.
    fn next(&self, s: usize, i: usize, d: (i32, i32, i32)) -> Option<(usize, usize)> {
        let (lx, ly, lz) = local(i);
        let (x, y, z) = (lx + d.0, ly + d.1, lz + d.2);
        let inside = |v: i32| (0..16).contains(&v);
        let t = if inside(x) && inside(y) && inside(z) {
            s
        } else {
            let c = self.sections[s];
            let k = (
                c.cx + x.div_euclid(16),
                c.cy + y.div_euclid(16),
                c.cz + z.div_euclid(16),
            );
            *self.at.get(&k)?
        };
        let (x, y, z) = (x.rem_euclid(16), y.rem_euclid(16), z.rem_euclid(16));
        Some((t, ((y * 16 + z) * 16 + x) as usize))
    }
}

/// Most terrain answers kept (each at most about 3 MB: [`MAX_BLOCKS`] blocks of 5 bytes in
/// base64, and their states).
pub const ANSWERS_KEPT: usize = 8;
/// What a terrain answer is kept by: the recording's reader (its identity) and the last terrain
/// chunk at the tick asked for.
type AnswerKey = (u64, Option<usize>);

/// A terrain answer being made or made, shared by the requests asking for the same one.
type Answer = Arc<OnceLock<Result<Arc<Vec<u8>>, (StatusCode, String)>>>;

/// The terrain answers made (at most [`ANSWERS_KEPT`], the oldest out first), by recording
/// (its reader's identity) and the last terrain chunk at the tick asked for: requests for the
/// same terrain wait for the one request making it (work they would otherwise each do, each
/// holding the terrain read) instead of making it again.
#[derive(Default)]
pub struct Answers {
    kept: Mutex<Vec<(AnswerKey, Answer)>>,
}

/// The answer for `q` as JSON bytes (blocking: may read the terrain's chunks): the first
/// [`MAX_SECTIONS`] sections of the terrain at the tick, read by
/// [`tickreel::play::Reader::terrain_area_at`] (the rest of the terrain is not built).
pub fn terrain(lib: &Library, answers: &Answers, q: &TerrainQuery) -> ApiResult<Vec<u8>> {
    let h = lib.open(&q.rec)?;
    let view = h.rec.view();
    let r = view.reader();
    let tick = match (r.first_tick(), r.last_tick()) {
        (Some(a), Some(b)) => q.tick.unwrap_or(a).clamp(a, b),
        _ => q.tick.unwrap_or(0),
    };
    let last = r.chunk_for_tick(tick).and_then(|k| {
        (0..=k)
            .rev()
            .find(|&i| r.index()[i].flags & FLAG_TERRAIN != 0)
    });
    let key = (view.id(), last);
    let slot = {
        let mut kept = answers.kept.lock();
        match kept.iter().position(|(k, _)| *k == key) {
            Some(i) => kept[i].1.clone(),
            None => {
                let a = Answer::default();
                if kept.len() >= ANSWERS_KEPT {
                    kept.remove(0);
                }
                kept.push((key, a.clone()));
                a
            }
        }
    };
    let made = slot.get_or_init(|| make(r, &h.name, tick));
    let made = match made {
        Ok(m) => m.clone(),
        Err((status, message)) => {
            // an I/O error may pass: not kept
            if status.is_server_error() {
                answers.kept.lock().retain(|(_, a)| !Arc::ptr_eq(a, &slot));
            }
            return Err(ApiError::new(*status, message.clone()));
        }
    };
    // `{"tick": T,` and the rest of the answer as made (an object of the other fields)
    let mut out = format!("{{\"tick\":{tick}").into_bytes();
    if made.len() > 2 {
        out.push(b',');
    }
    out.extend_from_slice(&made[1..]);
    Ok(out)
}

/// The answer for the terrain of `r` at `tick` as JSON bytes (an object without the tick), or
/// the error answer's status and message.
fn make(
    r: &tickreel::play::Reader,
    name: &str,
    tick: u32,
) -> Result<Arc<Vec<u8>>, (StatusCode, String)> {
    let area = r
        .terrain_area_at(tick, MAX_SECTIONS)
        .map_err(|e| ApiError::of(&super::library::label(name), e))
        .map_err(|e| (e.status, e.message))?;
    let palette = &r.metadata().library.palette;
    let v = answer(
        &area.terrain,
        area.total,
        &|state| palette.name(PaletteKind::Block, state),
        MAX_SECTIONS,
        MAX_BLOCKS,
    );
    serde_json::to_vec(&v)
        .map(Arc::new)
        .map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

/// The answer for terrain `t` (the first sections of a terrain of `total`), block states named
/// by `name`, with at most `max_sections` sections read and `max_blocks` blocks sent, without
/// its tick. At most 65,536 states are named in one answer (a block's state is sent as an index
/// into them, in 16 bits): the blocks of a state past that are left out, said as a cut answer
/// (`"truncated": true`) like the other bounds.
fn answer<'n>(
    t: &Terrain,
    total: usize,
    name: &dyn Fn(u32) -> Option<&'n str>,
    max_sections: usize,
    max_blocks: usize,
) -> Value {
    let total = total.max(t.len());
    let sections: Vec<&Section> = t.sections().take(max_sections).collect();
    let mut truncated = total > sections.len();
    let at: HashMap<(i32, i32, i32), usize> = sections
        .iter()
        .enumerate()
        .map(|(k, s)| ((s.cx, s.cy, s.cz), k))
        .collect();
    let kinds: Vec<Vec<Kind>> = sections
        .iter()
        .map(|s| s.palette.iter().map(|&p| kind_of(name(p), p)).collect())
        .collect();
    let n = sections.len();
    let mut area = Area {
        sections,
        at,
        kinds,
        outside: vec![vec![false; SECTION_BLOCKS]; n],
    };

    // The flood from the sky: the top layer of every section with none above it.
    // blocks to look from, as section × 4096 + index (4 bytes each: at most 32 MiB however
    // open the area)
    let mut stack: Vec<u32> = Vec::new();
    let at = |s: usize, i: usize| (s * SECTION_BLOCKS + i) as u32;
    for s in 0..n {
        let c = area.sections[s];
        if area.at.contains_key(&(c.cx, c.cy + 1, c.cz)) {
            continue;
        }
        for i in 15 * 256..SECTION_BLOCKS {
            if area.kind(s, i) != Kind::Solid && !area.outside[s][i] {
                area.outside[s][i] = true;
                stack.push(at(s, i));
            }
        }
    }
    while let Some(b) = stack.pop() {
        let (s, i) = (b as usize / SECTION_BLOCKS, b as usize % SECTION_BLOCKS);
        for d in DIRS {
            if let Some((ns, ni)) = area.next(s, i, d)
                && !area.outside[ns][ni]
                && area.kind(ns, ni) != Kind::Solid
            {
                area.outside[ns][ni] = true;
                stack.push(at(ns, ni));
            }
        }
    }

    // The blocks with a face drawn.
    let mut slots: HashMap<u32, u16> = HashMap::new();
    let mut states: Vec<Value> = Vec::new();
    let mut out_sections: Vec<Value> = Vec::new();
    let (mut blocks, mut faces) = (0usize, 0u64);
    'sections: for s in 0..n {
        let mut bytes: Vec<u8> = Vec::new();
        let mut here = 0usize;
        for i in 0..SECTION_BLOCKS {
            if area.kind(s, i) == Kind::Air {
                continue;
            }
            let state = area.state(s, i);
            let mut mask = 0u8;
            for (k, d) in DIRS.iter().enumerate() {
                let drawn = match area.next(s, i, *d) {
                    Some((ns, ni)) => area.outside[ns][ni] && area.state(ns, ni) != state,
                    None => *d == (0, 1, 0),
                };
                if drawn {
                    mask |= 1 << k;
                }
            }
            if mask == 0 {
                continue;
            }
            let named = slots.get(&state).copied();
            if blocks == max_blocks || (named.is_none() && states.len() == MAX_STATES) {
                truncated = true;
                if here > 0 {
                    push_section(&mut out_sections, area.sections[s], here, &bytes);
                }
                break 'sections;
            }
            let slot = named.unwrap_or_else(|| {
                states.push(json!([state, name(state)]));
                let slot = u16::try_from(states.len() - 1).expect("at most MAX_STATES");
                slots.insert(state, slot);
                slot
            });
            bytes.extend_from_slice(&(i as u16).to_le_bytes());
            bytes.push(mask);
            bytes.extend_from_slice(&slot.to_le_bytes());
            here += 1;
            blocks += 1;
            faces += u64::from(mask.count_ones());
        }
        if here > 0 {
            push_section(&mut out_sections, area.sections[s], here, &bytes);
        }
    }
    json!({
        "states": states,
        "sections": out_sections,
        "blocks": blocks,
        "faces": faces,
        "sections_total": total,
        "truncated": truncated,
        "limits": {"sections": max_sections, "blocks": max_blocks},
    })
}

fn push_section(out: &mut Vec<Value>, s: &Section, blocks: usize, bytes: &[u8]) {
    out.push(json!([s.cx, s.cy, s.cz, blocks, base64(bytes)]));
}

/// Standard base64 with padding (what the page's `atob` reads).
fn base64(b: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_as_the_standard() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foob"), "Zm9vYg==");
        assert_eq!(base64(&[0xff, 0xfe, 0x00]), "//4A");
    }

    const AIR: u32 = 0;
    const STONE: u32 = 1;
    const WATER: u32 = 2;
    fn named(state: u32) -> Option<&'static str> {
        ["minecraft:air", "minecraft:stone", "minecraft:water"]
            .get(state as usize)
            .copied()
    }

    /// The blocks of an answer: (x, y, z, faces, state).
    fn blocks_of(v: &Value) -> Vec<(i32, i32, i32, u8, u32)> {
        let states: Vec<u32> = v["states"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s[0].as_u64().unwrap() as u32)
            .collect();
        let mut out = Vec::new();
        for s in v["sections"].as_array().unwrap() {
            let (cx, cy, cz) = (
                s[0].as_i64().unwrap(),
                s[1].as_i64().unwrap(),
                s[2].as_i64().unwrap(),
            );
            let b = unbase64(s[4].as_str().unwrap());
            assert_eq!(b.len(), 5 * s[3].as_u64().unwrap() as usize);
            for r in b.chunks(5) {
                let i = u16::from_le_bytes([r[0], r[1]]) as usize;
                let (lx, ly, lz) = local(i);
                let slot = u16::from_le_bytes([r[3], r[4]]) as usize;
                out.push((
                    cx as i32 * 16 + lx,
                    cy as i32 * 16 + ly,
                    cz as i32 * 16 + lz,
                    r[2],
                    states[slot],
                ));
            }
        }
        out
    }

    fn unbase64(s: &str) -> Vec<u8> {
        const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = Vec::new();
        for c in s.as_bytes().chunks(4) {
            let mut v = 0u32;
            let mut n = 0;
            for &ch in c {
                v <<= 6;
                if ch != b'=' {
                    v |= A.iter().position(|&a| a == ch).unwrap() as u32;
                    n += 1;
                }
            }
            v <<= 6 * (4 - c.len()) as u32;
            out.extend_from_slice(&v.to_be_bytes()[1..n]);
        }
        out
    }

    /// Two sections stacked: stone up to y 7 with a pond (water at y 7, x 4..8, z 4..8), a
    /// closed cave (air at y 2, x 8, z 8) and air above.
    fn pond() -> Terrain {
        let mut states = vec![AIR; SECTION_BLOCKS];
        for (i, s) in states.iter_mut().enumerate() {
            let (x, y, z) = local(i);
            if y < 7 || (y == 7 && !((4..8).contains(&x) && (4..8).contains(&z))) {
                *s = STONE;
            } else if y == 7 {
                *s = WATER;
            }
            if (x, y, z) == (8, 2, 8) {
                *s = AIR;
            }
        }
        Terrain::from_sections([
            Section::from_states(0, 0, 0, &states).unwrap(),
            Section::single(0, 1, 0, AIR),
        ])
    }

    #[test]
    fn only_the_blocks_seen_with_their_faces() {
        let v = answer(&pond(), 2, &named, 10, 1000);
        let b = blocks_of(&v);
        // the surface: every column's top block, with its face up (water over the pond)
        assert_eq!(b.len(), 256 + 16, "{v}");
        for x in 0..16 {
            for z in 0..16 {
                let pond = (4..8).contains(&x) && (4..8).contains(&z);
                let top = b
                    .iter()
                    .filter(|e| (e.0, e.2) == (x, z) && e.3 & 4 != 0)
                    .max_by_key(|e| e.1)
                    .unwrap();
                assert_eq!(top.1, 7);
                assert_eq!(top.4, if pond { WATER } else { STONE });
            }
        }
        // the pond's floor: seen through the water, its face up only
        let floor: Vec<_> = b.iter().filter(|e| e.1 == 6).collect();
        assert_eq!(floor.len(), 16);
        assert!(floor.iter().all(|e| e.3 == 4 && e.4 == STONE));
        // water against water draws nothing sideways; the stone around the pond faces it
        let w = b.iter().find(|e| (e.0, e.1, e.2) == (4, 7, 4)).unwrap();
        assert_eq!(w.3, 4, "water at the pond's corner: up only");
        let rim = b.iter().find(|e| (e.0, e.1, e.2) == (3, 7, 4)).unwrap();
        assert_eq!(
            rim.3,
            4 | 1,
            "the stone beside the pond: up and toward it (+x)"
        );
        // the closed cave and the edges of the area draw nothing
        assert!(!b.iter().any(|e| e.1 < 6), "{b:?}");
        assert_eq!(v["truncated"], false);
        assert_eq!(v["sections_total"], 2);
    }

    #[test]
    fn bounded_by_the_servers_limits() {
        // the area: one section read of two (the lower one; the air above is not read), so its
        // top layer meets the sky
        let v = answer(&pond(), 2, &named, 1, 1000);
        assert_eq!(v["truncated"], true);
        assert_eq!(v["sections_total"], 2);
        assert_eq!(blocks_of(&v).len(), 256 + 16);
        // the blocks sent
        let v = answer(&pond(), 2, &named, 10, 100);
        assert_eq!(v["truncated"], true);
        assert_eq!(v["blocks"], 100);
        assert_eq!(blocks_of(&v).len(), 100);
        assert_eq!(v["limits"]["blocks"], 100);
    }

    /// More distinct states seen than a block's 16-bit state index can name: every block sent
    /// has its own state (a cast to `u16` named the 65,537th state as the first), and the answer
    /// says it is cut.
    #[test]
    fn more_states_than_an_answer_names_are_cut_not_misnamed() {
        // 260 sections in a row, solid, each with a top layer of 256 states of its own: 66,560
        // distinct states seen from the sky
        let sections = (0..260u32).map(|k| {
            let states: Vec<u32> = (0..SECTION_BLOCKS as u32)
                .map(|i| {
                    if i >= 15 * 256 {
                        1_000 + k * 256 + (i - 15 * 256)
                    } else {
                        STONE
                    }
                })
                .collect();
            Section::from_states(k as i32, 0, 0, &states).unwrap()
        });
        let t = Terrain::from_sections(sections);
        let v = answer(&t, t.len(), &|_| None, 2048, 1 << 20);
        let b = blocks_of(&v);
        assert!(b.len() >= 65_536, "{} blocks", b.len());
        for &(x, y, z, faces, state) in &b {
            assert_eq!(y, 15);
            assert_eq!(faces, 4);
            assert_eq!(Some(state), t.block(x, y, z), "block at {x} {y} {z}");
        }
        assert!(v["states"].as_array().unwrap().len() <= MAX_STATES);
        assert_eq!(v["truncated"], true);
    }

    #[test]
    fn air_and_clear_by_name() {
        assert!(is_air(Some("minecraft:air"), 5));
        assert!(is_air(Some("minecraft:cave_air"), 5));
        assert!(!is_air(Some("minecraft:stone"), 0));
        assert!(is_air(None, 0));
        assert!(!is_air(None, 1));
        assert!(kind_of(Some("minecraft:water[level=0]"), 4) == Kind::Clear);
        assert!(kind_of(Some("minecraft:glass_pane"), 4) == Kind::Clear);
        assert!(kind_of(Some("minecraft:stone"), 1) == Kind::Solid);
    }
}
