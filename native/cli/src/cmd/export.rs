//! `tickreel export FILE OUT.csv`: entity poses as CSV, the inverse of `import`.
//!
//! One row per entity per tick on which it has a recorded pose (an `EntityAdd`, `Teleport` or
//! `Pose` event), ordered by tick then entity, with the columns
//! `tick,entity,x,y,z,yaw,pitch,on_ground,teleport,checkpoint`: positions in blocks and angles in
//! degrees, printed exactly (each is a multiple of 1/4096 block or 1/65536 turn, written with the
//! shortest decimal that reads back as the same number); `on_ground` is the entity's `ON_GROUND`
//! flag after the tick (1/0), `teleport` is 1 if the pose came from a teleport, `checkpoint` the
//! index of a checkpoint the entity reached on that tick (empty if none). Checkpoints on ticks
//! where the entity has no pose (and all but the last of several on one tick) have no row to go
//! in; their number is reported on stderr. `OUT.csv` may be `-` for stdout.

use std::collections::{BTreeMap, HashMap};
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use tickreel::format::event::flag;
use tickreel::{Error, Event, Pose};

use super::Out;

#[derive(clap::Args)]
pub struct Args {
    /// A `.reel` file or a live recording directory (`NAME.reel.live`).
    pub file: PathBuf,
    /// The CSV to write (`-` for stdout).
    pub out: PathBuf,
}

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

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    let r = super::open(&a.file)?;
    if a.out.as_os_str() == "-" {
        // A closed stdout stays marked as such through the context (a quiet end).
        let s = export(&r, out).map_err(|e| super::in_file(&a.file, e))?;
        warn_dropped(&s);
        return Ok(());
    }
    // Write next to the target and rename, so that a failed export leaves no partial CSV.
    let tmp = tmp_path(&a.out);
    let result = (|| {
        let mut out = BufWriter::new(File::create(&tmp).map_err(|e| {
            Error::Io(std::io::Error::new(
                e.kind(),
                format!("{}: {e}", tmp.display()),
            ))
        })?);
        let s = export(&r, &mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        fs::rename(&tmp, &a.out)?;
        Ok(s)
    })();
    let s = match result {
        Ok(s) => s,
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            return Err(super::in_file(&a.file, e));
        }
    };
    warn_dropped(&s);
    writeln!(
        out,
        "exported {} rows ({} ticks) to {}",
        s.rows,
        s.ticks,
        a.out.display()
    )?;
    Ok(())
}

fn warn_dropped(s: &ExportSummary) {
    if s.checkpoints_dropped > 0 {
        super::note(&format!(
            "note: {} checkpoint events fell on ticks without a pose of their entity and are not in the CSV",
            s.checkpoints_dropped
        ));
    }
}

fn tmp_path(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "export.csv".into());
    out.with_file_name(format!(".{name}.tmp"))
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
pub fn export(r: &tickreel::play::Reader, out: &mut impl Write) -> tickreel::Result<ExportSummary> {
    let mut s = ExportSummary::default();
    writeln!(out, "{HEADER}")?;
    let (Some(first), Some(last)) = (r.first_tick(), r.last_tick()) else {
        return Ok(s);
    };
    let mut flags: HashMap<u32, u32> = HashMap::new();
    let mut rows: BTreeMap<u32, Row> = BTreeMap::new();
    let mut checkpoints: Vec<(u32, u32)> = Vec::new();
    for t in r.ticks(first, last) {
        let t = t?;
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
            )?;
            s.rows += 1;
        }
        s.ticks += u64::from(!rows.is_empty());
    }
    Ok(s)
}
