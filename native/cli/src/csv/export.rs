//! Entity poses as CSV, the inverse of [`import`](super::import) (what
//! `tickreel export FILE OUT.csv` runs).
//!
//! One row per entity per tick on which it has a recorded pose (an `EntityAdd`, `Teleport` or
//! `Pose` event), ordered by tick then entity, with the columns
//! `tick,entity,x,y,z,yaw,pitch,on_ground,teleport,checkpoint`: positions in blocks and angles in
//! degrees, printed exactly (each is a multiple of 1/4096 block or 1/65536 turn, written with the
//! shortest decimal that reads back as the same number); `on_ground` is the entity's `ON_GROUND`
//! flag after the tick (1/0), `teleport` is 1 if the pose came from a teleport, `checkpoint` the
//! index of a checkpoint the entity reached on that tick (empty if none). Checkpoints on ticks
//! where the entity has no pose (and all but the last of several on one tick) have no row to go
//! in; [`ExportSummary::checkpoints_dropped`] counts them.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};

use tickreel::format::flag;
use tickreel::{Error, Event, Pose};

/// The header row written by `export` (and accepted by `import`).
pub const HEADER: &str = "tick,entity,x,y,z,yaw,pitch,on_ground,teleport,checkpoint";

/// What an export wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportSummary {
    pub rows: u64,
    pub ticks: u64,
    /// Checkpoint events that had no row to go in.
    pub checkpoints_dropped: u64,
}

/// Why [`export`] failed: reading the recording, or writing the CSV.
#[derive(Debug)]
pub enum ExportError {
    Read(Error),
    Write(io::Error),
}

/// One entity's row of one tick.
#[derive(Debug, Clone, Copy)]
struct Row {
    pose: Pose,
    flags: u32,
    teleport: bool,
    checkpoint: Option<u32>,
}

/// Writes every recorded pose of `r` as CSV rows (with the header) to `out`.
pub fn export(
    r: &tickreel::play::Reader,
    out: &mut impl Write,
) -> Result<ExportSummary, ExportError> {
    let mut s = ExportSummary::default();
    writeln!(out, "{HEADER}").map_err(ExportError::Write)?;
    let (Some(first), Some(last)) = (r.first_tick(), r.last_tick()) else {
        return Ok(s);
    };
    let mut flags: HashMap<u32, u32> = HashMap::new();
    let mut rows: BTreeMap<u32, Row> = BTreeMap::new();
    let mut checkpoints: Vec<(u32, u32)> = Vec::new();
    for t in r.ticks(first, last) {
        let t = t.map_err(ExportError::Read)?;
        rows.clear();
        checkpoints.clear();
        for e in &t.events {
            match *e {
                Event::EntityAdd { entity, pose, .. } => {
                    flags.insert(entity, 0);
                    rows.insert(
                        entity,
                        Row {
                            pose,
                            flags: 0,
                            teleport: false,
                            checkpoint: None,
                        },
                    );
                }
                Event::Pose { entity, pose } | Event::Teleport { entity, pose } => {
                    let teleport = matches!(e, Event::Teleport { .. });
                    let f = flags.get(&entity).copied().unwrap_or(0);
                    let row = rows.entry(entity).or_insert(Row {
                        pose,
                        flags: f,
                        teleport,
                        checkpoint: None,
                    });
                    row.pose = pose;
                    row.teleport |= teleport;
                }
                Event::Flags { entity, flags: f } => {
                    flags.insert(entity, f);
                    if let Some(row) = rows.get_mut(&entity) {
                        row.flags = f;
                    }
                }
                Event::EntityRemove { entity } | Event::PlayerLeave { entity } => {
                    flags.remove(&entity);
                }
                Event::Checkpoint { entity, index } => checkpoints.push((entity, index)),
                _ => {}
            }
        }
        for &(entity, index) in &checkpoints {
            match rows.get_mut(&entity) {
                Some(row) => {
                    if row.checkpoint.replace(index).is_some() {
                        s.checkpoints_dropped += 1;
                    }
                }
                None => s.checkpoints_dropped += 1,
            }
        }
        for (entity, row) in &rows {
            let p = &row.pose;
            let cp = row.checkpoint.map(|c| c.to_string()).unwrap_or_default();
            writeln!(
                out,
                "{},{entity},{},{},{},{},{},{},{},{cp}",
                t.tick,
                p.x_f64(),
                p.y_f64(),
                p.z_f64(),
                p.yaw_deg(),
                p.pitch_deg(),
                u8::from(row.flags & flag::ON_GROUND != 0),
                u8::from(row.teleport),
            )
            .map_err(ExportError::Write)?;
            s.rows += 1;
        }
        s.ticks += u64::from(!rows.is_empty());
    }
    Ok(s)
}
