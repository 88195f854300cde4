//! The catalog of runs, recordings and shadow-play reports, in SQL: SQLite by default (an
//! embedded file next to the recordings, nothing to install), PostgreSQL for a network of
//! servers. It sits on top of the core (`tickreel`): a run is registered from a finished
//! recording (its time and splits read from the recording itself), and the board's runs load as
//! the core's asynchronous ghosts ([`Catalog::load_ghost`]).
//!
//! - [`Catalog::open`]: `sqlite:PATH` or `postgres://...`; the schema is created or upgraded by
//!   versioned migrations ([`schema`]). The URL's password never appears in an error or log.
//! - [`register`](Catalog::register): one call after `finish`; a recording that did not finish
//!   (a live directory, a failed compaction) is refused, so its runs are never listed.
//!   [`register_at`](Catalog::register_at) takes a [`Location`] (a path or an `s3://` URL) and
//!   reads the recording there; [`register_uploaded`](Catalog::register_uploaded) registers an
//!   upload once it succeeded, never before.
//! - Queries ([`query`]): top N (one row per player), a player's best and rank, the runs around
//!   a rank, recent runs, splits, sum of best, ghosts.
//! - A network of servers: every recording, run and report row names its server (the
//!   recording's metadata `server`); boards of the network or of one server
//!   ([`Catalog::top_on`]) and of one map version ([`Board`]; a ghost recorded on another
//!   version is refused unless allowed: [`GhostLoad`]), a player's reports on any server ([`Catalog::reports_of`]). Every
//!   row that points at a recording gives its location, and [`Catalog::open_recording`] opens it.
//! - Run checks ([`checks`]): a registered run is checked against its course's limits (speed,
//!   teleports, dropped ticks, checkpoint order, the file's hash); a failing run is held, on no
//!   board and no ghost, until a moderator clears it.
//! - Reports ([`reports`]) and retention ([`retain`]): `prune` with a dry run, crash-safe.
//!   Staff views of reports are appended to an audit log ([`audit`]).
//! - The review desk ([`review`]): staff and their roles, reports assigned to several
//!   reviewers, votes, verdicts by a rule, calibration cases and reviewers' scores; retention
//!   by verdict ([`Catalog::set_verdict_retention`]).
//!
//! Calls block the calling thread on the database: run them off a game server's tick thread,
//! on a plugin's own executor or through a [`CatalogWorker`] (one background thread; each call
//! returns a [`Pending`] result polled without blocking, what the bindings' futures wrap). One
//! PostgreSQL `Catalog` runs calls from several threads at once on a pool of up to the URL's
//! `pool_max` connections (default 4, [`url::DEFAULT_POOL_MAX`]); an SQLite catalog serialises
//! its calls on one connection.
//!
//! Every SQL statement of the workspace lives in this crate.

// No call that leaves a thread-exit callback on a caller's thread (see `clippy.toml`): a
// plugin's thread that ends after a reload would call into the unloaded library.
#![cfg_attr(
    not(test),
    deny(
        clippy::disallowed_methods,
        clippy::disallowed_macros,
        clippy::disallowed_types
    )
)]

pub mod audit;
mod backend;
mod bests;
pub mod checks;
pub mod ghost;
pub mod location;
pub mod model;
mod open;
mod pool;
pub mod query;
mod register;
pub mod reports;
pub mod retain;
pub mod review;
pub mod schema;
pub mod url;
pub mod worker;

use std::time::{SystemTime, UNIX_EPOCH};

use tickreel::{Error, Result};

pub use audit::ReportView;
pub use backend::Dialect;
use backend::{Backend, Conn};
pub use checks::{
    CourseLimits, Hold, HoldReason, Movement, RunCheck, RunReview, TeleportZone, check_track,
};
pub use ghost::{GhostLoad, GhostOf, GhostPicks};
pub use location::Location;
pub use model::*;
pub use query::{Board, MapVersion, Servers};
pub use retain::{PruneOptions, PruneReport, Pruned, RetentionPolicy, RetentionScope};
pub use review::{
    Assignment, ReportVerdict, ReviewRule, ReviewerScore, StaffMember, Verdict, VerdictRule, Vote,
};
pub use schema::{Migrated, SCHEMA_VERSION};
pub use url::CatalogUrl;
pub use worker::{CatalogWorker, Pending};

/// How many times a transaction the database aborted to resolve a conflict is tried again.
const RETRIES: usize = 8;

/// An open catalog.
pub struct Catalog {
    db: pool::Pool,
    url: CatalogUrl,
    migrated: Migrated,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog")
            .field("url", &self.url.redacted())
            .finish()
    }
}

impl Catalog {
    /// Opens the catalog at `url` (`sqlite:PATH`, `postgres://user:pw@host/db`), creating or
    /// upgrading its schema to [`SCHEMA_VERSION`].
    pub fn open(url: &str) -> Result<Catalog> {
        Catalog::open_at_version(url, SCHEMA_VERSION)
    }

    /// [`Catalog::open`], migrating no further than `version`: for tests of upgrades from an
    /// older schema. Queries assume the current schema.
    #[doc(hidden)]
    pub fn open_at_version(url: &str, version: i64) -> Result<Catalog> {
        let url = CatalogUrl::parse(url)?;
        let db = match &url {
            CatalogUrl::Sqlite(path) => {
                let first: Box<dyn Backend> = Box::new(backend::sqlite::Sqlite::open(path)?);
                let path = path.clone();
                pool::Pool::new(
                    first,
                    1,
                    Box::new(move || Ok(Box::new(backend::sqlite::Sqlite::open(&path)?))),
                )
            }
            #[cfg(not(feature = "postgres"))]
            CatalogUrl::Postgres { .. } => {
                return Err(Error::Unsupported(format!(
                    "catalog {}: this build of tickreel has no PostgreSQL (Cargo feature \"postgres\"; \
                     in Java, the io.tickreel:tickreel-network artifact)",
                    url.redacted()
                )));
            }
            #[cfg(feature = "postgres")]
            CatalogUrl::Postgres {
                secrets, options, ..
            } => {
                let (driver, redacted) = (url.driver_url().unwrap_or_default(), url.redacted());
                let (options, secrets) = (options.clone(), secrets.clone());
                let connect = move || -> Result<Box<dyn Backend>> {
                    Ok(Box::new(backend::postgres::Postgres::connect(
                        &driver,
                        &options,
                        &redacted,
                        secrets.clone(),
                    )?))
                };
                let first = connect()?;
                let max = match &url {
                    CatalogUrl::Postgres { options, .. } => options.pool_max,
                    CatalogUrl::Sqlite(_) => 1,
                };
                pool::Pool::new(first, max, Box::new(connect))
            }
        };
        let mut cat = Catalog {
            db,
            url,
            migrated: Migrated { from: 0, to: 0 },
        };
        let now = now_ms();
        let target = version.min(SCHEMA_VERSION);
        cat.migrated = cat.tx(|c| schema::migrate(c, target, now))?;
        Ok(cat)
    }

    /// The URL, its password shown as `***`.
    pub fn describe(&self) -> String {
        self.url.redacted()
    }

    /// Which database this is.
    pub fn dialect(&self) -> Dialect {
        self.db.dialect()
    }

    /// The schema version found when the catalog was opened, and the version now.
    pub fn migrated(&self) -> Migrated {
        self.migrated
    }

    /// The schema version recorded in the database now.
    pub fn schema_version(&self) -> Result<i64> {
        self.tx(schema::current_version)
    }

    /// Runs statements without parameters: for tests that build an old schema's contents.
    #[doc(hidden)]
    pub fn execute_raw(&self, sql: &str) -> Result<()> {
        self.tx(|c| c.batch(sql))
    }

    /// How many database connections are open now (at most the URL's `pool_max`).
    pub fn connections(&self) -> usize {
        self.db.open()
    }

    /// Runs `f` in a transaction, trying again when the database aborted it to resolve a
    /// conflict with another writer.
    pub(crate) fn tx<T>(&self, mut f: impl FnMut(&mut dyn Conn) -> Result<T>) -> Result<T> {
        let mut db = self.db.take()?;
        let mut attempt = 0;
        loop {
            let mut out = None;
            let r = db.transaction(&mut |c| {
                out = Some(f(c)?);
                Ok(())
            });
            match r {
                Ok(()) => {
                    return out.ok_or_else(|| {
                        Error::InvalidState("catalog: the transaction gave no result".into())
                    });
                }
                Err(e) if e.retry && attempt < RETRIES => {
                    attempt += 1;
                    std::thread::sleep(std::time::Duration::from_millis(5 * (1 << attempt.min(6))));
                }
                Err(e) => return Err(e.error),
            }
        }
    }
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// A player id as stored (lower-case hyphenated) and back.
pub(crate) fn parse_uuid(s: &str) -> Result<uuid::Uuid> {
    uuid::Uuid::parse_str(s)
        .map_err(|_| Error::corrupt(format!("catalog: \"{s}\" is not a player UUID")))
}
