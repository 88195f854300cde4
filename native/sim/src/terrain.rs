//! Generated terrain, as a game hands it to `Recorder::offer_terrain`: chunk sections of a
//! Minecraft-like world from y −64 to 320 (24 sections), deterministic for a seed. A noise
//! heightmap (hills and plains) with grass, dirt and stone layers over deepslate, sand and water
//! below sea level (62), blobs of andesite, granite, diorite, gravel and tuff, caves carved by 3D
//! noise (wide caverns and winding tunnels), ores in veins by depth, a bedrock floor, and a few
//! buildings of planks, logs, glass and stairs on the surface. Not a flat world: what the
//! benchmark `report_terrain_bytes` stores.

use tickreel::Result;
use tickreel::format::{SECTION_BLOCKS, Section};

/// The block states the generator uses: id and Minecraft name (register them in the block
/// palette, `Recorder::register_name`).
pub const BLOCKS: &[(u32, &str)] = &[
    (AIR, "minecraft:air"),
    (STONE, "minecraft:stone"),
    (DIRT, "minecraft:dirt"),
    (GRASS, "minecraft:grass_block[snowy=false]"),
    (WATER, "minecraft:water[level=0]"),
    (BEDROCK, "minecraft:bedrock"),
    (DEEPSLATE, "minecraft:deepslate[axis=y]"),
    (SAND, "minecraft:sand"),
    (GRAVEL, "minecraft:gravel"),
    (ANDESITE, "minecraft:andesite"),
    (GRANITE, "minecraft:granite"),
    (DIORITE, "minecraft:diorite"),
    (TUFF, "minecraft:tuff"),
    (COAL, "minecraft:coal_ore"),
    (IRON, "minecraft:iron_ore"),
    (COPPER, "minecraft:copper_ore"),
    (GOLD, "minecraft:deepslate_gold_ore"),
    (REDSTONE, "minecraft:deepslate_redstone_ore[lit=false]"),
    (DIAMOND, "minecraft:deepslate_diamond_ore"),
    (PLANKS, "minecraft:oak_planks"),
    (LOG, "minecraft:oak_log[axis=y]"),
    (GLASS, "minecraft:glass_pane"),
    (
        STAIRS_N,
        "minecraft:oak_stairs[facing=north,half=bottom,shape=straight]",
    ),
    (
        STAIRS_S,
        "minecraft:oak_stairs[facing=south,half=bottom,shape=straight]",
    ),
    (COBBLE, "minecraft:cobblestone"),
    (LAVA, "minecraft:lava[level=0]"),
];

const AIR: u32 = 0;
const STONE: u32 = 1;
const DIRT: u32 = 2;
const GRASS: u32 = 3;
const WATER: u32 = 4;
const BEDROCK: u32 = 5;
const DEEPSLATE: u32 = 6;
const SAND: u32 = 7;
const GRAVEL: u32 = 8;
const ANDESITE: u32 = 9;
const GRANITE: u32 = 10;
const DIORITE: u32 = 11;
const TUFF: u32 = 12;
const COAL: u32 = 13;
const IRON: u32 = 14;
const COPPER: u32 = 15;
const GOLD: u32 = 16;
const REDSTONE: u32 = 17;
const DIAMOND: u32 = 18;
const PLANKS: u32 = 19;
const LOG: u32 = 20;
const GLASS: u32 = 21;
const STAIRS_N: u32 = 22;
const STAIRS_S: u32 = 23;
const COBBLE: u32 = 24;
const LAVA: u32 = 25;

/// Lowest block y and section count (−64..320).
pub const MIN_Y: i32 = -64;
pub const SECTIONS_HIGH: i32 = 24;
const SEA: i32 = 62;

/// A terrain generator for one seed.
#[derive(Debug, Clone, Copy)]
pub struct TerrainGen {
    pub seed: u64,
}

fn hash(seed: u64, x: i64, y: i64, z: i64) -> u64 {
    let mut h = seed ^ 0x9E37_79B9_7F4A_7C15;
    for v in [x, y, z] {
        h ^= v as u64;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 31;
    }
    h ^= h >> 29;
    h.wrapping_mul(0x94D0_49BB_1331_11EB) ^ (h >> 32)
}

/// Hash to [-1, 1].
fn unit(seed: u64, x: i64, y: i64, z: i64) -> f64 {
    (hash(seed, x, y, z) >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

fn smooth(t: f64) -> f64 {
    t * t * (3.0 - 2.0 * t)
}

/// Value noise in 3D, [-1, 1], one lattice point per unit.
fn noise3(seed: u64, x: f64, y: f64, z: f64) -> f64 {
    let (x0, y0, z0) = (x.floor(), y.floor(), z.floor());
    let (fx, fy, fz) = (smooth(x - x0), smooth(y - y0), smooth(z - z0));
    let (ix, iy, iz) = (x0 as i64, y0 as i64, z0 as i64);
    let lerp = |a: f64, b: f64, t: f64| a + (b - a) * t;
    let c = |dx, dy, dz| unit(seed, ix + dx, iy + dy, iz + dz);
    let x00 = lerp(c(0, 0, 0), c(1, 0, 0), fx);
    let x10 = lerp(c(0, 1, 0), c(1, 1, 0), fx);
    let x01 = lerp(c(0, 0, 1), c(1, 0, 1), fx);
    let x11 = lerp(c(0, 1, 1), c(1, 1, 1), fx);
    lerp(lerp(x00, x10, fy), lerp(x01, x11, fy), fz)
}

fn fbm2(seed: u64, x: f64, z: f64) -> f64 {
    let mut sum = 0.0;
    let (mut amp, mut f) = (0.5, 1.0);
    for o in 0..4 {
        sum += amp * noise3(seed + o, x * f, 0.5, z * f);
        amp *= 0.5;
        f *= 2.0;
    }
    sum
}

impl TerrainGen {
    pub fn new(seed: u64) -> TerrainGen {
        TerrainGen { seed }
    }

    /// Surface height at block column (x, z).
    pub fn height(&self, x: i32, z: i32) -> i32 {
        let (x, z) = (f64::from(x), f64::from(z));
        let hills = fbm2(self.seed, x / 96.0, z / 96.0) * 40.0;
        let bumps = fbm2(self.seed + 10, x / 20.0, z / 20.0) * 6.0;
        (66.0 + hills + bumps).round() as i32
    }

    /// The natural block at (x, y, z) of a column of surface height `h`.
    fn natural(&self, x: i32, y: i32, z: i32, h: i32) -> u32 {
        let s = self.seed;
        if y == MIN_Y
            || (y < MIN_Y + 4 && hash(s + 1, x.into(), y.into(), z.into()).is_multiple_of(4))
        {
            return BEDROCK;
        }
        if y > h {
            return if y <= SEA { WATER } else { AIR };
        }
        let (fx, fy, fz) = (f64::from(x), f64::from(y), f64::from(z));
        // caves: wide caverns below 40, winding tunnels (two thin noise surfaces crossing)
        if y < h - 4 || (y <= h && h > SEA + 2) {
            let cavern = y < 40 && noise3(s + 2, fx / 40.0, fy / 20.0, fz / 40.0) > 0.55;
            let a = noise3(s + 3, fx / 48.0, fy / 24.0, fz / 48.0);
            let b = noise3(s + 4, fx / 48.0, fy / 24.0, fz / 48.0);
            let tunnel = a.abs() < 0.06 && b.abs() < 0.06;
            if cavern || tunnel {
                return if y < MIN_Y + 10 { LAVA } else { AIR };
            }
        }
        if y == h {
            return if h <= SEA + 1 { SAND } else { GRASS };
        }
        if y > h - 4 {
            return if h <= SEA + 1 { SAND } else { DIRT };
        }
        let deep = f64::from(y) + 4.0 * unit(s + 5, x.into(), y.into(), z.into()) < 0.0;
        // ore veins by depth
        let vein = noise3(s + 6, fx / 3.0, fy / 3.0, fz / 3.0);
        if vein > 0.62 {
            let kind = hash(s + 7, (x >> 3).into(), (y >> 3).into(), (z >> 3).into()) % 8;
            let ore = match (y, kind) {
                (y, _) if y < -48 && kind < 2 => DIAMOND,
                (y, _) if y < -16 && kind < 4 => REDSTONE,
                (y, _) if y < 16 && kind < 5 => GOLD,
                (y, _) if y < 64 && kind < 3 => IRON,
                (y, _) if (0..96).contains(&y) && kind < 6 => COPPER,
                (y, _) if y >= 0 => COAL,
                _ => IRON,
            };
            return ore;
        }
        // blobs of other stones
        let blob = noise3(s + 8, fx / 12.0, fy / 10.0, fz / 12.0);
        if blob > 0.5 {
            let kind = hash(s + 9, (x >> 4).into(), (y >> 4).into(), (z >> 4).into()) % 5;
            return match kind {
                0 => ANDESITE,
                1 => GRANITE,
                2 => DIORITE,
                3 => GRAVEL,
                _ if deep => TUFF,
                _ => ANDESITE,
            };
        }
        if deep { DEEPSLATE } else { STONE }
    }

    /// A building at block column (x, z) if one stands there: houses of planks with log corners,
    /// glass windows and a stairs roof, on a cobblestone floor. Returns the block at y, given
    /// the surface height `base` under the house's corner.
    fn building(&self, x: i32, y: i32, z: i32) -> Option<u32> {
        // one house in some 32×32 cells, 9×7 blocks, at a place fixed by the cell
        let (cx, cz) = (x.div_euclid(32), z.div_euclid(32));
        let h = hash(self.seed + 11, cx.into(), 0, cz.into());
        if !h.is_multiple_of(3) {
            return None;
        }
        let (ox, oz) = (
            cx * 32 + 4 + (h >> 8) as i32 % 16,
            cz * 32 + 4 + (h >> 16) as i32 % 16,
        );
        let (lx, lz) = (x - ox, z - oz);
        if !(0..9).contains(&lx) || !(0..7).contains(&lz) {
            return None;
        }
        let base = self.height(ox, oz).max(SEA + 1);
        let ly = y - base;
        let wall = lx == 0 || lx == 8 || lz == 0 || lz == 6;
        let corner = (lx == 0 || lx == 8) && (lz == 0 || lz == 6);
        Some(match ly {
            i32::MIN..=-1 => return None,
            0 => COBBLE,
            1..=4 if corner => LOG,
            1..=4 if wall => {
                if ly == 2 && (lx == 4 || lz == 3) && !(lz == 0 && lx == 4) {
                    GLASS
                } else if lz == 0 && lx == 4 && ly <= 2 {
                    AIR // the door
                } else {
                    PLANKS
                }
            }
            1..=4 => AIR,
            5..=8 => {
                // a gabled roof of stairs, rising from both long sides
                let step = ly - 5;
                if lz == step {
                    STAIRS_N
                } else if lz == 6 - step {
                    STAIRS_S
                } else if lz > step && lz < 6 - step && (lx == 0 || lx == 8) {
                    PLANKS
                } else if lz > step && lz < 6 - step {
                    AIR
                } else {
                    return None;
                }
            }
            _ => return None,
        })
    }

    /// The 24 sections (−64..320) of chunk column (`cx`, `cz`), from bottom to top.
    pub fn column(&self, cx: i32, cz: i32) -> Result<Vec<Section>> {
        let mut heights = [0i32; 256];
        for lz in 0..16 {
            for lx in 0..16 {
                heights[lz * 16 + lx] = self.height(cx * 16 + lx as i32, cz * 16 + lz as i32);
            }
        }
        let mut out = Vec::with_capacity(SECTIONS_HIGH as usize);
        let mut states = vec![0u32; SECTION_BLOCKS];
        for sy in 0..SECTIONS_HIGH {
            let cy = MIN_Y / 16 + sy;
            for ly in 0..16 {
                for lz in 0..16 {
                    for lx in 0..16 {
                        let (x, y, z) = (
                            cx * 16 + lx as i32,
                            cy * 16 + ly as i32,
                            cz * 16 + lz as i32,
                        );
                        let h = heights[lz * 16 + lx];
                        let b = self
                            .building(x, y, z)
                            .unwrap_or_else(|| self.natural(x, y, z, h));
                        states[(ly * 16 + lz) * 16 + lx] = b;
                    }
                }
            }
            out.push(Section::from_states(cx, cy, cz, &states)?);
        }
        Ok(out)
    }

    /// The sections of the `side`×`side` chunk columns centred on chunk (`cx`, `cz`)
    /// (`side` odd), 24 each.
    pub fn area(&self, cx: i32, cz: i32, side: i32) -> Result<Vec<Section>> {
        let r = side / 2;
        let mut out = Vec::new();
        for x in cx - r..=cx + r {
            for z in cz - r..=cz + r {
                out.extend(self.column(x, z)?);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terrain_is_deterministic_varied_and_valid() {
        let g = TerrainGen::new(7);
        let a = g.column(1, -2).unwrap();
        assert_eq!(a, TerrainGen::new(7).column(1, -2).unwrap());
        assert_ne!(a, TerrainGen::new(8).column(1, -2).unwrap());
        assert_eq!(a.len(), 24);
        for s in &a {
            s.validate().unwrap();
        }
        // Underground sections hold many states; the sky is one.
        assert!(a[4].palette.len() >= 4, "{:?}", a[4].palette);
        assert_eq!(a[23].palette, [AIR]);
        // Hills: heights vary over an area.
        let hs: Vec<i32> = (0..64).map(|i| g.height(i * 7, i * 3)).collect();
        assert!(
            hs.iter().max().unwrap() - hs.iter().min().unwrap() > 8,
            "{hs:?}"
        );
        // Caves, ores and buildings in the benchmark's area (seed 33, 7×7 chunks).
        let area = TerrainGen::new(33).area(0, 0, 7).unwrap();
        let has = |b: u32| area.iter().any(|s| s.palette.contains(&b));
        assert!(has(PLANKS) && has(GLASS) && has(STAIRS_N), "a building");
        assert!(has(DIAMOND) || has(REDSTONE) || has(GOLD), "deep ores");
        let underground_air = area
            .iter()
            .filter(|s| s.cy < 2 && s.cy > -4)
            .filter(|s| s.palette.contains(&AIR))
            .count();
        assert!(underground_air > 10, "caves: {underground_air}");
    }
}
