//! How terrain crosses into and out of Java (`TerrainSection`): one `long[]` both ways, laid out
//! here and read and written by `TerrainSection.toNative` / `WorldState`:
//!
//! ```text
//! n, then per section (HEADER longs): cx, cy, cz, bits, palette length, packed length, offset,
//! then the data: per section at its offset, its palette (block states as unsigned 32-bit
//! values), then its packed longs, sections one after another
//! ```
//!
//! The operations are `crate::api::engine::recorder_offer_terrain`,
//! `crate::api::writer::offer_terrain` and `crate::api::world_state::terrain_sections`; their
//! JNI entry points are generated. What Java hands over is checked here (its sizes by
//! [`OfferBounds`], as C's, before any section is copied) and then validated by the library.

use jni::JNIEnv;
use jni::objects::JLongArray;
use jni::sys::{jlongArray, jobject};

use super::convert::{JniArg, JniResult, LONG_ARRAY_JAVA, LONG_ARRAY_SIG};
use super::{Res, bad_arg, long_array};
use crate::api::TerrainSections;
use crate::api::world_state::TerrainSectionsOf;
use crate::shared::terrain::OfferBounds;
use tickreel::format::Section;

/// Longs of a section's header (`TerrainSection.HEADER_LONGS`).
const HEADER: usize = 7;

/// A `long[]` of the layout above, not null.
impl JniArg for TerrainSections {
    type Jni = jlongArray;
    const SIG: &'static str = LONG_ARRAY_SIG;
    const JAVA: &'static str = LONG_ARRAY_JAVA;
    type Stored = TerrainSections;
    fn store(env: &mut JNIEnv<'_>, a: jlongArray, name: &'static str) -> Res<TerrainSections> {
        // SAFETY: a local reference (or null) passed to the running native method.
        let a = unsafe { JLongArray::from_raw(a) };
        if a.is_null() {
            return Err(bad_arg(format!("{name} is null")));
        }
        let len = env.get_array_length(&a)? as usize;
        let mut n = [0i64];
        if len == 0 {
            return Err(bad_arg(format!("{name} is empty (no section count)")));
        }
        env.get_long_array_region(&a, 0, &mut n)?;
        let n = usize::try_from(n[0])
            .map_err(|_| bad_arg(format!("{name}: a negative section count {}", n[0])))?;
        let mut bounds = OfferBounds::new(n, name).map_err(bad_arg)?;
        let data = 1 + HEADER * n;
        if len < data {
            return Err(bad_arg(format!(
                "{name}: {len} longs, too few for {n} section headers"
            )));
        }
        let mut heads = vec![0i64; HEADER * n];
        env.get_long_array_region(&a, 1, &mut heads)?;
        let coord = |v: i64, what: &str| {
            i32::try_from(v)
                .map_err(|_| bad_arg(format!("{name}: section {what} {v} is not an int")))
        };
        let size = |v: i64| usize::try_from(v).unwrap_or(usize::MAX);
        let mut at = data;
        for (i, h) in heads.chunks_exact(HEADER).enumerate() {
            let (palette_len, packed_len) = (size(h[4]), size(h[5]));
            bounds
                .section(
                    name,
                    i,
                    palette_len,
                    u64::try_from(h[3]).unwrap_or(u64::MAX),
                    packed_len,
                )
                .map_err(bad_arg)?;
            if size(h[6]) != at {
                return Err(bad_arg(format!(
                    "{name}[{i}]: data at offset {}, expected {at}",
                    h[6]
                )));
            }
            at += palette_len + packed_len;
        }
        if at != len {
            return Err(bad_arg(format!(
                "{name}: {len} longs, its sections take {at}"
            )));
        }
        let mut sections = Vec::with_capacity(n);
        for (i, h) in heads.chunks_exact(HEADER).enumerate() {
            let (palette_len, packed_len, offset) = (size(h[4]), size(h[5]), size(h[6]));
            let mut palette = vec![0i64; palette_len];
            env.get_long_array_region(&a, offset as i32, &mut palette)?;
            let palette = palette
                .into_iter()
                .map(|s| {
                    u32::try_from(s).map_err(|_| {
                        bad_arg(format!(
                            "{name}[{i}]: block state {s} is not an unsigned int"
                        ))
                    })
                })
                .collect::<Res<Vec<u32>>>()?;
            let mut packed = vec![0i64; packed_len];
            if packed_len > 0 {
                env.get_long_array_region(&a, (offset + palette_len) as i32, &mut packed)?;
            }
            sections.push(Section {
                cx: coord(h[0], "x")?,
                cy: coord(h[1], "y")?,
                cz: coord(h[2], "z")?,
                palette,
                bits: h[3] as u8,
                packed: packed.into_iter().map(|l| l as u64).collect(),
            });
        }
        Ok(TerrainSections(sections))
    }
}

/// A new `long[]` of the layout above: the terrain's sections, sorted by x, then z, then y.
impl JniResult for TerrainSectionsOf<'_> {
    type Jni = jobject;
    const SIG: &'static str = LONG_ARRAY_SIG;
    const JAVA: &'static str = LONG_ARRAY_JAVA;
    fn into_jni(self, env: &mut JNIEnv<'_>) -> Res<jobject> {
        let terrain = &self.0.terrain;
        let n = terrain.len();
        let data: usize = terrain
            .sections()
            .map(|s| s.palette.len() + s.packed.len())
            .sum();
        let mut out = Vec::with_capacity(1 + HEADER * n + data);
        out.push(n as i64);
        let mut at = 1 + HEADER * n;
        for s in terrain.sections() {
            out.extend_from_slice(&[
                i64::from(s.cx),
                i64::from(s.cy),
                i64::from(s.cz),
                i64::from(s.bits),
                s.palette.len() as i64,
                s.packed.len() as i64,
                at as i64,
            ]);
            at += s.palette.len() + s.packed.len();
        }
        for s in terrain.sections() {
            out.extend(s.palette.iter().map(|&p| i64::from(p)));
            out.extend(s.packed.iter().map(|&l| l as i64));
        }
        long_array(env, &out)
    }
}
