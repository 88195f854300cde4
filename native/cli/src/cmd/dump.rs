//! `tickreel dump FILE [--from T] [--to T]`: every non-empty tick of a `.reel` file or a live
//! recording directory as one JSON line, `{"tick": T, "events": [...]}` (event forms in
//! [`super::json::event_to_json`]).
//!
//! Each tick lists a `pose` event for every entity that moved (unless an `entity_add` or `teleport`
//! of the same tick carries the pose), then the tick's other events in recorded order. If a chunk
//! cannot be read, the ticks decoded so far are printed and the command fails naming the damage.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

use super::Out;
use super::json::event_to_json;

#[derive(clap::Args)]
pub struct Args {
    /// A `.reel` file or a live recording directory (`NAME.reel.live`).
    pub file: PathBuf,
    /// First tick to print (default: the recording's first).
    #[arg(long)]
    pub from: Option<u32>,
    /// Last tick to print, inclusive (default: the recording's last).
    #[arg(long)]
    pub to: Option<u32>,
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    let r = super::open(&a.file)?;
    let (Some(first), Some(last)) = (r.first_tick(), r.last_tick()) else {
        return Ok(()); // no ticks, nothing to print
    };
    let from = a.from.unwrap_or(first);
    let to = a.to.unwrap_or(last);
    if from > to {
        return Err(tickreel::Error::InvalidArgument(format!(
            "--from {from} is after --to {to}"
        )));
    }
    let names: HashMap<u32, String> = r
        .metadata()
        .library
        .event_types
        .iter()
        .map(|t| (t.id, t.name.clone()))
        .collect();
    let mut printed: Option<u32> = None;
    for t in r.ticks(from, to) {
        let t = match t {
            Ok(t) => t,
            Err(e) => {
                let after = match printed {
                    Some(p) => format!("dump stopped after tick {p}"),
                    None => "dump stopped before the first tick".to_string(),
                };
                return Err(super::in_file(&a.file, super::context(e, &after)));
            }
        };
        let mut line = format!("{{\"tick\":{},\"events\":[", t.tick);
        for (i, e) in t.events.iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            let j = event_to_json(e, |id| names.get(&id).cloned());
            line.push_str(&serde_json::to_string(&j).map_err(std::io::Error::other)?);
        }
        line.push_str("]}");
        writeln!(out, "{line}")?;
        printed = Some(t.tick);
    }
    Ok(())
}
