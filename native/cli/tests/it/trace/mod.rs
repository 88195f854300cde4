//! The movement trace the CLI's import tests use (and the `csv_import` fuzz seeds, see
//! `fuzz_seeds.rs`).

/// One input row of the trace.
#[derive(Debug, Clone)]
pub struct In {
    pub tick: u32,
    pub entity: u32,
    pub pose: [f64; 5],
    pub on_ground: Option<bool>,
    pub teleport: bool,
    pub checkpoint: Option<u32>,
}

/// A trace with several entities, gaps between ticks, teleports (one on an entity's first row),
/// on-ground changes, checkpoints, entities absent on some ticks, and rows out of entity order.
pub fn trace() -> Vec<In> {
    let ticks = [0u32, 1, 2, 5, 6, 9, 30, 31, 100, 1000];
    let mut rows = Vec::new();
    for (i, &tick) in ticks.iter().enumerate() {
        // Entity 9 first, entity 1 last: rows of a tick need not be sorted.
        for &entity in &[9u32, 4, 1] {
            let absent = (entity == 4 && (i == 0 || i == 3 || i == 4))
                || (entity == 9 && i == 6)
                || (entity == 1 && i == 8);
            if absent {
                continue;
            }
            let f = f64::from(tick) + f64::from(entity) * 0.37;
            let pose = [
                -1234.567 + f * 0.3191,
                64.0 + (f * 0.77).sin() * 1.25,
                98765.4321 - f * 0.0173,
                f * 17.3 - 900.0 * f64::from(entity), // unbounded yaw, past several turns
                ((f * 0.9).cos() * 89.9).clamp(-90.0, 90.0),
            ];
            rows.push(In {
                tick,
                entity,
                pose,
                on_ground: match (tick + entity + 3) % 4 {
                    0 => Some(true), // also on each entity's first row
                    1 => Some(false),
                    2 => None, // unchanged
                    _ => Some(tick % 2 == 0),
                },
                teleport: (entity == 4 && i == 1) || (entity == 9 && i == 7),
                checkpoint: (entity == 1 && (i == 2 || i == 9))
                    .then_some(i as u32)
                    .or((entity == 4 && i == 5).then_some(0)),
            });
        }
    }
    rows
}

pub fn render(rows: &[In]) -> String {
    // Optional columns in a non-canonical order.
    let mut s = String::from("tick,entity,x,y,z,yaw,pitch,checkpoint,teleport,on_ground\n");
    for r in rows {
        let [x, y, z, yaw, pitch] = r.pose;
        s += &format!(
            "{},{},{x},{y},{z},{yaw},{pitch},{},{},{}\n",
            r.tick,
            r.entity,
            r.checkpoint.map(|c| c.to_string()).unwrap_or_default(),
            if r.teleport { "true" } else { "" },
            r.on_ground.map(|g| if g { "1" } else { "0" }).unwrap_or(""),
        );
    }
    s
}
