//! `tickreel serve [DIR|URL] [--listen 127.0.0.1:PORT] [--catalog URL | --catalog-file F]
//! [--public --token T]`:
//! the web viewer (see `serve/`). Prints `listening on http://ADDR/` once it accepts requests,
//! then serves until stopped. Loopback only unless `--public`, which needs an access token.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

use tickreel::Error;

use super::Out;
use crate::serve::{self, ServeOptions, library::Root};

/// The environment variable that may hold the access token.
pub const TOKEN_ENV: &str = "TICKREEL_TOKEN";
/// The shortest token accepted.
pub const TOKEN_MIN_CHARS: usize = 16;

#[derive(clap::Args)]
pub struct Args {
    /// The directory whose recordings (`.reel` files, live recording directories, in
    /// sub-directories too) are served, or an object-storage prefix `s3://bucket/prefix`.
    #[arg(default_value = ".")]
    pub dir: String,
    /// Address and port to listen on (port 0: any free port, printed at start).
    #[arg(long, default_value = "127.0.0.1:8787")]
    pub listen: SocketAddr,
    /// Allow a bind address other than loopback (other machines can connect): needs --token
    /// (or TICKREEL_TOKEN).
    #[arg(long)]
    pub public: bool,
    /// The access token every request must carry (`Authorization: Bearer TOKEN`, or
    /// `?token=TOKEN` in the viewer's address); at least 16 characters. Default: TICKREEL_TOKEN.
    #[arg(long)]
    pub token: Option<String>,
    /// A catalog (`sqlite:PATH`, `postgres://...`): its recordings are listed and its best run of
    /// a course can be the ghost. Default: TICKREEL_CATALOG (a password given here shows in `ps`;
    /// in the environment or --catalog-file it does not).
    #[arg(long, conflicts_with = "catalog_file")]
    pub catalog: Option<String>,
    /// A file whose first line is the catalog's URL (readable by the server's user only, say).
    #[arg(long)]
    pub catalog_file: Option<PathBuf>,
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

pub fn run(a: Args, out: &mut Out) -> tickreel::Result<()> {
    let token = a
        .token
        .clone()
        .or_else(|| std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty()));
    let loopback = a.listen.ip().is_loopback();
    if !loopback && !a.public {
        return Err(Error::InvalidArgument(format!(
            "--listen {}: not a loopback address; pass --public (with --token) to let other \
             machines connect",
            a.listen
        )));
    }
    if a.public && token.is_none() {
        return Err(Error::InvalidArgument(format!(
            "--public needs an access token: --token TOKEN or {TOKEN_ENV}"
        )));
    }
    if let Some(t) = &token {
        if t.chars().count() < TOKEN_MIN_CHARS {
            return Err(Error::InvalidArgument(format!(
                "the access token is too short: at least {TOKEN_MIN_CHARS} characters"
            )));
        }
        // A header value is trimmed, so a token of spaces would be matched by an empty one.
        if t.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(Error::InvalidArgument(
                "the access token must not contain spaces or control characters".into(),
            ));
        }
    }
    let root = match super::object::url_of(std::path::Path::new(&a.dir)) {
        Some(url) => Root::Object(url.trim_end_matches('/').to_string()),
        None => {
            let dir = PathBuf::from(&a.dir);
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
    let has_token = token.is_some();
    let options = ServeOptions {
        root,
        catalog,
        token,
        loopback,
    };
    serve::run(a.listen, options, |addr| {
        writeln!(out, "listening on http://{addr}/")?;
        if has_token {
            writeln!(
                out,
                "every request needs the token: open http://{addr}/?token=TOKEN"
            )?;
        }
        out.flush()?;
        Ok(())
    })
}
