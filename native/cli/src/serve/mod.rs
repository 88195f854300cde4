//! `tickreel serve`: an HTTP server (axum on tokio) with a web viewer for recordings, live
//! recordings, ghost races and shadow-play reports. Its writes are the review desk's, in the
//! catalog (a decision, a vote, a verdict, a rule); the one that deletes recordings is an
//! admin's retention by verdict ([`desk`]).
//!
//! - [`library`]: what is served (a directory, an object-storage prefix, a catalog), name checks.
//! - [`frames`]: the viewer's stream (frames of a tick range, a seek) made by core playheads.
//! - [`info`]: a recording's summary, shadow-play report metadata, timeline markers.
//! - [`live`]: server-sent events following a recording while it is written.
//! - [`terrain`]: the terrain at a tick, as the blocks the page can see and their faces.
//! - [`blocks`]: the edited blocks as of a tick (the core's world at it), and the changes after.
//! - [`ghost`]: a run against a ghost: both paths, the live delta, the splits.
//! - [`reports`]: the reports inbox, and a moderator's decision on a report (the catalog).
//! - [`anon`]: anonymous review: a reviewer's answers with pseudonyms for everyone in a report.
//! - [`staff`]: the named staff tokens and their roles, and who a request comes from.
//! - [`desk`]: the review desk: queues, votes, verdicts, calibration, retention by verdict.
//! - [`audit`]: the audit log of staff views of reports (the catalog, a file).
//! - [`party`]: watch parties: one member's playback followed by the others, shared bookmarks.
//! - [`places`]: where the requests that decode run (a few at once, each waiting a bounded time).
//! - [`http`]: the routes, the access token, the loopback host check.
//! - [`assets`]: the page (HTML, JavaScript, CSS) embedded in the binary.

pub mod anon;
pub mod assets;
pub mod audit;
pub mod blocks;
pub mod desk;
pub mod error;
pub mod frames;
pub mod ghost;
pub mod http;
pub mod info;
pub mod library;
pub mod live;
pub mod party;
pub mod places;
pub mod reports;
pub mod staff;
pub mod terrain;

use std::net::SocketAddr;
use std::sync::Arc;

use tickreel::Error;

/// How to serve.
pub struct ServeOptions {
    pub root: library::Root,
    pub catalog: Option<tickreel_catalog::Catalog>,
    /// The staff tokens (none: no token asked for, loopback only).
    pub tokens: staff::StaffTokens,
    /// A file the audit log of report views is appended to (besides the catalog's table).
    pub audit_file: Option<std::path::PathBuf>,
    /// Whether the bind address is loopback (then only loopback `Host` names are answered).
    pub loopback: bool,
    /// How long a decoding request waits for a place before it is answered 503.
    pub waits: places::Waits,
}

/// Binds `addr` and serves until the process ends; `ready` is called with the bound address
/// (the port, when 0 was asked) before the first request is answered.
pub fn run(
    addr: SocketAddr,
    options: ServeOptions,
    ready: impl FnOnce(SocketAddr) -> tickreel::Result<()>,
) -> tickreel::Result<()> {
    let rt = runtime()?;
    let listener = std::net::TcpListener::bind(addr).map_err(|e| {
        Error::Io(std::io::Error::new(
            e.kind(),
            format!("cannot listen on {addr}: {e}"),
        ))
    })?;
    listener.set_nonblocking(true)?;
    let bound = listener.local_addr()?;
    let catalog_staff = match &options.catalog {
        Some(c) => !c.staff()?.is_empty(),
        None => false,
    };
    let app = Arc::new(http::App {
        catalog_staff,
        lib: library::Library::new(options.root, options.catalog),
        markers: info::Markers::default(),
        terrain: Default::default(),
        tokens: options.tokens,
        audit: audit::AuditLog::new(options.audit_file),
        loopback_only: options.loopback,
        places: places::Places::new(options.waits),
        parties: Default::default(),
    });
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        ready(bound)?;
        axum::serve(listener, http::router(app))
            .await
            .map_err(Error::Io)
    })
}

/// How many malloc arenas the server's threads share, where the C library is glibc. glibc gives
/// each thread an arena of its own, up to eight per core, and an arena keeps what was freed in it
/// for its thread: with the decodes moving between the threads of the blocking pool, each arena
/// comes to hold a decode's worth, and the process's resident memory grew to twice what its
/// decodes held at once (`tests/it/serve_memory.rs`: 340 to 520 MB for 200 requests at once,
/// 180 to 240 MB with two arenas). Two arenas make the threads share freed memory; decodes
/// allocate in large blocks, so they seldom wait for an arena's lock.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub const MALLOC_ARENAS: i32 = 2;

/// The server's runtime: two workers for the routes, and a blocking pool of
/// [`places::BLOCKING_THREADS`] threads for the work that blocks (the decodes among it in their
/// [`places::Places`], fewer than its threads), sharing [`MALLOC_ARENAS`] malloc arenas.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` sets one of malloc's parameters under malloc's own lock; it reads and
    // keeps no pointer. `M_ARENA_MAX` bounds the arenas created from now on, before the
    // runtime's threads exist.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, MALLOC_ARENAS);
    }
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(places::BLOCKING_THREADS)
        .enable_all()
        .thread_name("tickreel-serve")
        .build()
}
