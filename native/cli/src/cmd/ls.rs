//! `tickreel ls s3://bucket/prefix [--json]`: the objects under a prefix, with sizes and dates.

use std::io::Write;

use serde_json::json;

use super::Out;

#[derive(clap::Args)]
pub struct Args {
    /// `s3://bucket` or `s3://bucket/prefix` (a folder: `s3://runs/2026` lists `runs/2026/...`).
    pub url: String,
    /// One JSON object per line (`url`, `size`, `last_modified`).
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    let (storage, u) = super::object::storage(&a.url)?;
    for o in storage.list(&u.key)? {
        if a.json {
            let line = json!({
                "url": o.url.to_string(),
                "size": o.size,
                "last_modified": o.last_modified,
            });
            writeln!(out, "{line}")?;
        } else {
            writeln!(out, "{:>12}  {}  {}", o.size, o.last_modified, o.url)?;
        }
    }
    Ok(())
}
