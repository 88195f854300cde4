//! `tickreel serve [DIR|URL] [--storage URL] [--listen 127.0.0.1:PORT] [--catalog URL |
//! --catalog-file F] [--public] [--tokens-file F] [--audit-log F] [--max-wait SECONDS]`:
//! the web viewer (see `serve/`). Prints `listening on http://ADDR/` once it accepts requests,
//! then serves until stopped. Loopback only unless `--public`, which needs a staff token.
//! Tokens come from a file, the catalog (`tickreel catalog staff add`) or TICKREEL_TOKEN, never
//! from the command line (it shows in `ps`: `--token` is refused, saying where to put it). They
//! are never printed: the start lists their names.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

use tickreel::Error;

use super::Out;
use crate::serve::staff::StaffTokens;
use crate::serve::{self, ServeOptions, library::Root};

/// The environment variable that may hold staff tokens: `NAME=TOKEN` entries (or one bare
/// token) separated by spaces, commas or newlines.
pub const TOKEN_ENV: &str = "TICKREEL_TOKEN";
/// The largest tokens file read.
const TOKENS_FILE_MAX: u64 = 1 << 20;

#[derive(clap::Args)]
pub struct Args {
    /// The directory whose recordings (`.reel` files, live recording directories, in
    /// sub-directories too) are served, or an object-storage prefix `s3://bucket/prefix`.
    #[arg(default_value = ".")]
    pub dir: String,
    /// Address and port to listen on (port 0: any free port, printed at start).
    #[arg(long, default_value = "127.0.0.1:8787")]
    pub listen: SocketAddr,
    /// Allow a bind address other than loopback (other machines can connect): needs a staff
    /// token (--tokens-file, the catalog's staff, or TICKREEL_TOKEN).
    #[arg(long)]
    pub public: bool,
    /// Refused: a token on the command line shows in `ps` (use --tokens-file, the catalog's
    /// staff or TICKREEL_TOKEN).
    #[arg(long, hide = true)]
    pub token: Vec<String>,
    /// A file of staff tokens, one `NAME ROLE TOKEN` a line (ROLE: reviewer, moderator or
    /// admin; `NAME TOKEN` is a moderator; `#` comments): every request must carry one
    /// (`Authorization: Bearer TOKEN`, or `?token=TOKEN` in the viewer's address), and what it
    /// does is logged under its name. Tokens of at least 16 characters; the file readable by
    /// the server's user only, say.
    #[arg(long)]
    pub tokens_file: Option<PathBuf>,
    /// A file the audit log of report views is appended to (one JSON object a line), besides
    /// the catalog's `report_views` table when there is a catalog.
    #[arg(long)]
    pub audit_log: Option<PathBuf>,
    /// The recordings' object-storage prefix (`s3://bucket/prefix`), instead of DIR: with
    /// --catalog, every server's recordings and reports of a network.
    #[arg(long)]
    pub storage: Option<String>,
    /// A catalog (`sqlite:PATH`, `postgres://...`): its recordings are listed and its best run of
    /// a course can be the ghost. Default: TICKREEL_CATALOG (a password given here shows in `ps`;
    /// in the environment or --catalog-file it does not).
    #[arg(long, conflicts_with = "catalog_file")]
    pub catalog: Option<String>,
    /// A file whose first line is the catalog's URL (readable by the server's user only, say).
    #[arg(long)]
    pub catalog_file: Option<PathBuf>,
    /// The longest a request that decodes (frames, seeks, markers, blocks, races) waits for one
    /// of the 8 places before it is answered 503 with Retry-After, in seconds; a terrain request
    /// waits three times as long for one of its 2.
    #[arg(long, default_value_t = 10.0)]
    pub max_wait: f64,
}

/// The catalog's URL: `--catalog`, the first line of `--catalog-file`, or TICKREEL_CATALOG.
fn catalog_url(a: &Args) -> tickreel::Result<Option<String>> {
    if let Some(url) = &a.catalog {
        return Ok(Some(url.clone()));
    }
    if let Some(path) = &a.catalog_file {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::InvalidArgument(format!("--catalog-file {}: {e}", path.display()))
        })?;
        let url = text.lines().next().unwrap_or_default().trim();
        if url.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "--catalog-file {}: no URL on its first line",
                path.display()
            )));
        }
        return Ok(Some(url.to_string()));
    }
    Ok(std::env::var(super::catalog::CATALOG_ENV)
        .ok()
        .filter(|u| !u.trim().is_empty()))
}

/// What `--token` is answered: where a token goes instead.
pub const TOKEN_ON_COMMAND_LINE: &str = "--token: a token on the command line shows in `ps` to \
     every user of the machine: put it in a file given with --tokens-file (one `NAME ROLE TOKEN` \
     a line), in the catalog (`tickreel catalog --db URL staff add NAME ROLE --token-file F`) or \
     in TICKREEL_TOKEN (`NAME:ROLE=TOKEN` entries)";

/// The staff tokens: `--tokens-file`, and TICKREEL_TOKEN when it is not given.
fn staff_tokens(a: &Args) -> tickreel::Result<StaffTokens> {
    let mut t = StaffTokens::default();
    let bad = |e: String| Error::InvalidArgument(e);
    if !a.token.is_empty() {
        return Err(Error::InvalidArgument(TOKEN_ON_COMMAND_LINE.into()));
    }
    if let Some(path) = &a.tokens_file {
        let what = format!("--tokens-file {}", path.display());
        let len = std::fs::metadata(path)
            .map_err(|e| Error::InvalidArgument(format!("{what}: {e}")))?
            .len();
        if len > TOKENS_FILE_MAX {
            return Err(Error::InvalidArgument(format!(
                "{what}: {len} bytes, more than {TOKENS_FILE_MAX}"
            )));
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::InvalidArgument(format!("{what}: {e}")))?;
        t.add_lines(&text, &what).map_err(bad)?;
    }
    if t.is_empty()
        && let Ok(env) = std::env::var(TOKEN_ENV)
    {
        for (i, v) in env
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|v| !v.is_empty())
            .enumerate()
        {
            t.add_arg(v, &format!("{TOKEN_ENV} entry {}", i + 1))
                .map_err(bad)?;
        }
    }
    Ok(t)
}

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    let tokens = staff_tokens(&a)?;
    // (a catalog with staff asks for tokens too: checked once it is open)
    let loopback = a.listen.ip().is_loopback();
    if !loopback && !a.public {
        return Err(Error::InvalidArgument(format!(
            "--listen {}: not a loopback address; pass --public (with a staff token) to let other \
             machines connect",
            a.listen
        )));
    }

    let dir = a.storage.as_deref().unwrap_or(&a.dir);
    if a.storage.is_some() && a.dir != "." {
        return Err(Error::InvalidArgument(
            "give the recordings once: DIR or --storage URL".into(),
        ));
    }
    let root = match super::object::url_of(std::path::Path::new(dir)) {
        Some(url) => Root::Object(url.trim_end_matches('/').to_string()),
        None if a.storage.is_some() => {
            return Err(Error::InvalidArgument(format!(
                "--storage {dir}: not an object-storage URL (s3://bucket/prefix)"
            )));
        }
        None => {
            let dir = PathBuf::from(dir);
            let real = dir.canonicalize().map_err(|e| super::io_at(&dir, e))?;
            if !real.is_dir() {
                return Err(Error::InvalidArgument(format!(
                    "{}: not a directory (serve a directory of recordings)",
                    dir.display()
                )));
            }
            Root::Dir(real)
        }
    };
    let catalog = match catalog_url(&a)? {
        Some(url) => Some(
            tickreel_catalog::Catalog::open(&url)
                .map_err(|e| Error::InvalidArgument(format!("--catalog: {e}")))?,
        ),
        None => None,
    };
    let catalog_staff = match &catalog {
        Some(c) => c.staff()?.len(),
        None => 0,
    };
    if a.public && tokens.is_empty() && catalog_staff == 0 {
        return Err(Error::InvalidArgument(format!(
            "--public needs an access token: --tokens-file FILE, the catalog's staff \
             (`tickreel catalog staff add`) or {TOKEN_ENV}"
        )));
    }
    // the first names (never a token), to check the right file was read
    let count = tokens.len();
    let mut names: Vec<String> = tokens.names().take(10).map(str::to_string).collect();
    if count > names.len() {
        names.push("…".into());
    }
    if !(a.max_wait.is_finite() && (0.0..=3600.0).contains(&a.max_wait)) {
        return Err(Error::InvalidArgument(format!(
            "--max-wait {}: seconds from 0 to 3600",
            a.max_wait
        )));
    }
    let wait = std::time::Duration::from_secs_f64(a.max_wait);
    let options = ServeOptions {
        root,
        catalog,
        tokens,
        audit_file: a.audit_log.clone(),
        loopback,
        waits: serve::places::Waits {
            decode: wait,
            terrain: wait * 3,
        },
    };
    serve::run(a.listen, options, |addr| {
        writeln!(out, "listening on http://{addr}/")?;
        if count > 0 || catalog_staff > 0 {
            writeln!(
                out,
                "every request needs a staff token ({count}: {}; {catalog_staff} in the catalog): \
                 open http://{addr}/?token=TOKEN",
                names.join(", ")
            )?;
        }
        out.flush()?;
        Ok(())
    })
}
