//! A movement trace to a compacted recording (what `tickreel import TRACE.csv OUT.reel` runs).
//!
//! The CSV has a header row naming its columns: `tick,entity,x,y,z,yaw,pitch` are required, and
//! `on_ground`, `teleport`, `checkpoint` are optional; columns are found by name (any order,
//! case-insensitive), unknown or repeated names are an error. Ticks and entities are unsigned
//! integers, positions are blocks, angles degrees (yaw unbounded). Booleans are `1/0/true/false`
//! (empty: `teleport` false, `on_ground` unchanged); `checkpoint` is empty or an unsigned integer.
//!
//! A line longer than [`MAX_LINE_BYTES`] is refused (`LimitExceeded`, naming the line and the
//! limit) once that many bytes of it came.
//!
//! Rows must be sorted by tick (non-decreasing; a row whose tick goes back is an error naming its
//! line, so that a file is read in one pass with constant memory); rows of one tick may come in
//! any order, one row per entity per tick. Ticks need not be contiguous, and an entity absent on a
//! tick holds its pose. Each row becomes events of its tick: the entity's first row an
//! `EntityAdd` (kind 0), later rows a `Pose`, or a `Teleport` when `teleport` is set (also on a
//! first row, after the `EntityAdd`); a `Flags` event when `on_ground` changes the entity's
//! `ON_GROUND` bit (entities start with no flags); a `Checkpoint` event when `checkpoint` is set.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use tickreel::format::flag;
use tickreel::record::{ReelOptions, ReelWriter};
use tickreel::{Error, Event, Pose};

use crate::errors::{echo, io_in_file};
use crate::lines::BoundedLines;

/// Longest line accepted, in bytes, refused while it is read: 4 MiB. A row is at most ten numbers
/// and the header ten names, but a bad field of a megabyte must still be answered with the field's
/// error, quoting a bounded part of it (`cli_hardening::import_errors_quote_a_bounded_part_of_a_bad_field`).
pub const MAX_LINE_BYTES: usize = 4 << 20;

/// Required columns, in their canonical order.
pub const REQUIRED: [&str; 7] = ["tick", "entity", "x", "y", "z", "yaw", "pitch"];
/// Optional columns.
pub const OPTIONAL: [&str; 3] = ["on_ground", "teleport", "checkpoint"];

/// Largest coordinate accepted, in blocks (far beyond any game world; keeps fixed point exact).
const MAX_COORD: f64 = (1u64 << 40) as f64;

/// What an import wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportSummary {
    pub rows: u64,
    pub entities: usize,
    pub ticks: u64,
    pub first_tick: Option<u32>,
    pub last_tick: Option<u32>,
    pub bytes: u64,
}

/// The options `tickreel import` writes with: a compacted file (zstd level 9) of `tick_rate` ticks
/// per second, which must be positive and at most 4,000,000.
pub fn reel_options(tick_rate: f64) -> tickreel::Result<ReelOptions> {
    if !(tick_rate.is_finite() && tick_rate > 0.0 && tick_rate <= 4_000_000.0) {
        return Err(Error::InvalidArgument(format!(
            "--tick-rate {tick_rate} is not a positive number of ticks per second"
        )));
    }
    let mut options = ReelOptions::compacted();
    options.identity.tick_rate_millihz = (tick_rate * 1000.0).round() as u32;
    Ok(options)
}

/// Column positions found in the header row.
#[derive(Debug, Clone, Copy)]
struct Columns {
    req: [usize; 7],
    on_ground: Option<usize>,
    teleport: Option<usize>,
    checkpoint: Option<usize>,
    count: usize,
}

fn parse_header(line: &str, lineno: u64, path: &Path) -> tickreel::Result<Columns> {
    let bad = |m: String| Error::InvalidArgument(format!("{}: line {lineno}: {m}", path.display()));
    let mut found: HashMap<String, usize> = HashMap::new();
    let names: Vec<String> = line
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .collect();
    for (i, name) in names.iter().enumerate() {
        if !REQUIRED.contains(&name.as_str()) && !OPTIONAL.contains(&name.as_str()) {
            return Err(bad(format!(
                "unknown column {}; expected {} and optionally {}",
                echo(name),
                REQUIRED.join(","),
                OPTIONAL.join(",")
            )));
        }
        if found.insert(name.clone(), i).is_some() {
            return Err(bad(format!("column {} appears twice", echo(name))));
        }
    }
    let mut req = [0; 7];
    for (slot, name) in req.iter_mut().zip(REQUIRED) {
        *slot = *found.get(name).ok_or_else(|| {
            bad(format!(
                "missing column {name:?}; the header must name {}",
                REQUIRED.join(",")
            ))
        })?;
    }
    Ok(Columns {
        req,
        on_ground: found.get("on_ground").copied(),
        teleport: found.get("teleport").copied(),
        checkpoint: found.get("checkpoint").copied(),
        count: names.len(),
    })
}

/// One parsed data row.
#[derive(Debug, Clone, Copy)]
struct Row {
    tick: u32,
    entity: u32,
    pose: Pose,
    on_ground: Option<bool>,
    teleport: bool,
    checkpoint: Option<u32>,
}

fn parse_bool(s: &str) -> Option<bool> {
    match s.to_ascii_lowercase().as_str() {
        "1" | "true" => Some(true),
        "0" | "false" => Some(false),
        _ => None,
    }
}

fn parse_row(fields: &[&str], c: &Columns) -> Result<Row, String> {
    let int = |i: usize, name: &str| -> Result<u32, String> {
        fields[i].parse::<u32>().map_err(|_| {
            format!(
                "{name} {} is not an unsigned 32-bit integer",
                echo(fields[i])
            )
        })
    };
    let num = |i: usize, name: &str| -> Result<f64, String> {
        let v: f64 = fields[i]
            .parse()
            .map_err(|_| format!("{name} {} is not a number", echo(fields[i])))?;
        if !v.is_finite() || v.abs() > MAX_COORD {
            return Err(format!("{name} {} is out of range", echo(fields[i])));
        }
        Ok(v)
    };
    let [t, e, x, y, z, yaw, pitch] = c.req;
    let pose = Pose::from_f64(
        num(x, "x")?,
        num(y, "y")?,
        num(z, "z")?,
        num(yaw, "yaw")?,
        num(pitch, "pitch")?,
    );
    let boolean = |col: Option<usize>, name: &str| -> Result<Option<bool>, String> {
        match col.map(|i| fields[i]).filter(|s| !s.is_empty()) {
            None => Ok(None),
            Some(s) => parse_bool(s)
                .map(Some)
                .ok_or_else(|| format!("{name} {} is not 1, 0, true or false", echo(s))),
        }
    };
    let checkpoint = match c.checkpoint.map(|i| fields[i]).filter(|s| !s.is_empty()) {
        None => None,
        Some(s) => Some(
            s.parse::<u32>()
                .map_err(|_| format!("checkpoint {} is not an unsigned 32-bit integer", echo(s)))?,
        ),
    };
    Ok(Row {
        tick: int(t, "tick")?,
        entity: int(e, "entity")?,
        pose,
        on_ground: boolean(c.on_ground, "on_ground")?,
        teleport: boolean(c.teleport, "teleport")?.unwrap_or(false),
        checkpoint,
    })
}

/// The tick being assembled.
struct Pending {
    tick: u32,
    /// Line of the tick's first row (for messages).
    line: u64,
    events: Vec<Event>,
    /// Entities that already have a row in this tick, with the row's line.
    seen: HashMap<u32, u64>,
}

/// Imports the CSV file `csv` into a new recording at `out` (replacing a file there only if
/// `replace`). I/O errors name the file they concern; nothing is left at `out` on failure.
pub fn import(
    csv: &Path,
    out: &Path,
    options: ReelOptions,
    replace: bool,
) -> tickreel::Result<ImportSummary> {
    let file = File::open(csv).map_err(|e| {
        Error::Io(std::io::Error::new(
            e.kind(),
            format!("{}: {e}", csv.display()),
        ))
    })?;
    import_from(file, csv, out, options, replace)
}

/// [`import`] of a trace read from `input` (a file, bytes in memory), in one pass. `csv` names
/// the trace in error messages and in the recording's `import_source` metadata key; it is not
/// opened.
pub fn import_from(
    input: impl Read,
    csv: &Path,
    out: &Path,
    options: ReelOptions,
    replace: bool,
) -> tickreel::Result<ImportSummary> {
    let mut lines = BoundedLines::new(BufReader::new(input), MAX_LINE_BYTES);
    let (lineno, header) = loop {
        match lines.next_line(csv)? {
            None => {
                return Err(Error::InvalidArgument(format!(
                    "{}: empty file; expected a header row {}",
                    csv.display(),
                    REQUIRED.join(",")
                )));
            }
            Some((n, l)) => {
                if !l.trim().is_empty() {
                    break (n, l.to_string());
                }
            }
        }
    };
    let cols = parse_header(header.trim_start_matches('\u{feff}'), lineno, csv)?;

    let at_out = |e: Error| io_in_file(out, e);
    let mut writer = ReelWriter::create(out, options).map_err(at_out)?;
    writer.user_metadata_mut().insert(
        "import_source".into(),
        fastnbt::Value::String(csv.display().to_string()),
    );
    // Per entity: its flags as written so far.
    let mut flags: HashMap<u32, u32> = HashMap::new();
    let mut pending: Option<Pending> = None;
    let mut summary = ImportSummary {
        rows: 0,
        entities: 0,
        ticks: 0,
        first_tick: None,
        last_tick: None,
        bytes: 0,
    };
    while let Some((lineno, line)) = lines.next_line(csv)? {
        if line.trim().is_empty() {
            continue;
        }
        let at =
            |m: String| Error::InvalidArgument(format!("{}: line {lineno}: {m}", csv.display()));
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != cols.count {
            return Err(at(format!(
                "{} fields, but the header has {} columns",
                fields.len(),
                cols.count
            )));
        }
        let row = parse_row(&fields, &cols).map_err(at)?;
        // The header counts the ticks spanned in a u32.
        if let Some(first) = summary.first_tick
            && u64::from(row.tick) - u64::from(first.min(row.tick)) >= u64::from(u32::MAX)
        {
            return Err(at(format!(
                "tick {} is too far from the first tick {first}: a recording spans at most {} ticks",
                row.tick,
                u32::MAX
            )));
        }
        // Close the pending tick when this row starts a later one.
        if let Some(p) = &pending {
            if row.tick < p.tick {
                return Err(at(format!(
                    "tick {} comes after tick {} (line {}); rows must be sorted by tick",
                    row.tick, p.tick, p.line
                )));
            }
            if row.tick > p.tick {
                let p = pending.take().expect("pending tick");
                writer.write_tick(p.tick, &p.events).map_err(at_out)?;
                summary.ticks += 1;
            }
        }
        let p = pending.get_or_insert_with(|| Pending {
            tick: row.tick,
            line: lineno,
            events: Vec::new(),
            seen: HashMap::new(),
        });
        if let Some(prev) = p.seen.insert(row.entity, lineno) {
            return Err(at(format!(
                "entity {} already has a row for tick {} (line {prev})",
                row.entity, row.tick
            )));
        }
        if p.events.len() + 4 > tickreel::format::MAX_EVENTS_PER_TICK {
            return Err(at(format!("too many rows for tick {}", row.tick)));
        }
        let entity = row.entity;
        let current = match flags.entry(entity) {
            Entry::Vacant(v) => {
                p.events.push(Event::EntityAdd {
                    entity,
                    kind: 0,
                    pose: row.pose,
                });
                if row.teleport {
                    p.events.push(Event::Teleport {
                        entity,
                        pose: row.pose,
                    });
                }
                v.insert(0)
            }
            Entry::Occupied(o) => {
                p.events.push(if row.teleport {
                    Event::Teleport {
                        entity,
                        pose: row.pose,
                    }
                } else {
                    Event::Pose {
                        entity,
                        pose: row.pose,
                    }
                });
                o.into_mut()
            }
        };
        if let Some(g) = row.on_ground {
            let new = if g {
                *current | flag::ON_GROUND
            } else {
                *current & !flag::ON_GROUND
            };
            if new != *current {
                *current = new;
                p.events.push(Event::Flags { entity, flags: new });
            }
        }
        if let Some(index) = row.checkpoint {
            p.events.push(Event::Checkpoint { entity, index });
        }
        summary.rows += 1;
        summary.first_tick.get_or_insert(row.tick);
        summary.last_tick = Some(row.tick);
    }
    if let Some(p) = pending.take() {
        writer.write_tick(p.tick, &p.events).map_err(at_out)?;
        summary.ticks += 1;
    }
    summary.entities = flags.len();
    summary.bytes = crate::files::publish_import(writer, out, replace)?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_columns_are_found_by_name() {
        let c = parse_header("entity, TICK,x,y,z,yaw,pitch,checkpoint", 1, Path::new("t")).unwrap();
        assert_eq!(c.req[0], 1);
        assert_eq!(c.req[1], 0);
        assert_eq!(c.checkpoint, Some(7));
        assert_eq!(c.on_ground, None);
        let e = parse_header("tick,entity,x,y,z,yaw", 1, Path::new("t")).unwrap_err();
        assert!(e.to_string().contains("missing column \"pitch\""), "{e}");
        let e = parse_header("tick,entity,x,y,z,yaw,pitch,speed", 1, Path::new("t")).unwrap_err();
        assert!(e.to_string().contains("unknown column \"speed\""), "{e}");
        let e = parse_header("tick,entity,x,x,y,z,yaw,pitch", 1, Path::new("t")).unwrap_err();
        assert!(e.to_string().contains("appears twice"), "{e}");
    }

    #[test]
    fn the_tick_rate_must_be_positive_and_bounded() {
        assert_eq!(
            reel_options(20.0).unwrap().identity.tick_rate_millihz,
            20_000
        );
        assert_eq!(reel_options(0.5).unwrap().identity.tick_rate_millihz, 500);
        assert_eq!(reel_options(4e6).unwrap().chunk_policy.zstd_level, 9);
        for bad in [0.0, -20.0, 4_000_000.5, f64::NAN, f64::INFINITY] {
            let e = reel_options(bad).unwrap_err().to_string();
            assert!(e.contains("--tick-rate"), "{e}");
        }
    }

    #[test]
    fn rows_parse_and_reject_bad_values() {
        let c = parse_header(
            "tick,entity,x,y,z,yaw,pitch,on_ground,teleport,checkpoint",
            1,
            Path::new("t"),
        )
        .unwrap();
        let r = parse_row(
            &["5", "2", "1.5", "64", "-3", "720.5", "-10", "true", "", "3"],
            &c,
        )
        .unwrap();
        assert_eq!((r.tick, r.entity), (5, 2));
        assert_eq!(r.pose, Pose::from_f64(1.5, 64.0, -3.0, 720.5, -10.0));
        assert_eq!(r.on_ground, Some(true));
        assert!(!r.teleport);
        assert_eq!(r.checkpoint, Some(3));
        for bad in [
            ["-1", "2", "0", "0", "0", "0", "0", "", "", ""],
            ["1", "x", "0", "0", "0", "0", "0", "", "", ""],
            ["1", "2", "nan", "0", "0", "0", "0", "", "", ""],
            ["1", "2", "0", "1e300", "0", "0", "0", "", "", ""],
            ["1", "2", "0", "0", "0", "0", "0", "yes", "", ""],
            ["1", "2", "0", "0", "0", "0", "0", "", "2", ""],
            ["1", "2", "0", "0", "0", "0", "0", "", "", "-4"],
        ] {
            assert!(parse_row(&bad, &c).is_err(), "{bad:?}");
        }
    }
}
