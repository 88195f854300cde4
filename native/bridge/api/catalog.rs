//! The catalog of runs ([`tickreel_catalog`]): opened by URL (`sqlite:PATH`, `postgres://...`),
//! every call that touches the database runs on the catalog's own worker thread
//! ([`CatalogWorker`]) and hands back a pending (`crate::api::pending`) that is polled without
//! ever blocking. A finished call's rows are bytes in the encoding `crate::api::catalog::rows`
//! documents (C reads them, Java's `Catalog` decodes them); a ghost lookup's result is the ghost
//! (or the ghost set) it loaded.

use std::path::Path;

use tickreel_sync::sync::Mutex;

use crate::api::ghost::GhostSet;
use crate::api::pending::{Kind, Outcome, Pending};
use crate::api::{New, Released};
use crate::shared::handle::HandleType;
use tickreel::ghost::{self, GhostRange, LoadFrom};
use tickreel_bridge_macros::bridge_fn;
use tickreel_catalog::{CatalogWorker, GhostOf, PruneOptions, RunSpec};

/// An open catalog and its worker thread (C: `TickreelCatalog`, Java: `Catalog`). Freeing it
/// runs the calls already queued, then joins the thread.
pub struct Catalog(pub(crate) CatalogWorker);

impl HandleType for Catalog {
    const TAG: u8 = 15;
    const NAME: &'static str = "catalog";
}

/// Submits `call` to the catalog's worker: a pending whose rows are what it returns.
pub(crate) fn submit(
    catalog: &Catalog,
    call: impl FnOnce(&tickreel_catalog::Catalog) -> tickreel::Result<Vec<u8>> + Send + 'static,
) -> New<Pending> {
    Pending::rows(catalog.0.submit(call))
}

pub(crate) fn required(player: Option<uuid::Uuid>) -> tickreel::Result<uuid::Uuid> {
    player.ok_or_else(|| tickreel::Error::invalid("player must not be NULL"))
}

/// Opens the catalog at `url`: `sqlite:PATH` (created if missing) or `postgres://user@host/db`,
/// migrating its schema to the current version, and starts its worker thread. Stores the
/// handle in `*out_catalog`; free it with `tickreel_catalog_free`. Blocks while the database is
/// opened (the only call that does): open it at startup, not on the server thread.
///
/// Returns `TICKREEL_RESULT_UNSUPPORTED` for a URL of another scheme,
/// `TICKREEL_RESULT_DATABASE` if the database cannot be opened or reached (the message never
/// shows a password). On failure `*out_catalog` is set to NULL (when it can be written).
///
/// Thread safety: any thread. The catalog may then be used from any thread.
#[bridge_fn(
    c = "tickreel_catalog_open",
    c_out = "out_catalog",
    java = "catalogOpen"
)]
pub fn open(url: &str) -> tickreel::Result<New<Catalog>> {
    let catalog = tickreel_catalog::Catalog::open(url)?;
    Ok(New(Catalog(CatalogWorker::new(catalog)?)))
}

/// Frees a catalog: the calls already queued run, then its worker thread is joined (blocks
/// until then). Its pendings stay valid. `tickreel_catalog_free(NULL)` is a no-op.
///
/// Thread safety: any thread.
#[bridge_fn(c = "tickreel_catalog_free")]
pub fn free(_catalog: Released<Catalog>) {}

/// Registers one run of the finished recording at `file` (after its finish completed): `course`,
/// the player's 16-byte UUID `player` and name, the `entity` in the recording and the `range` of
/// its run (NULL: its whole presence; checkpoint markers give the splits). Stores the call's
/// handle in `*out_pending`; the call's rows are the registered run (rank 0). A file that is not a
/// finished recording, or an entity or range not in it, fails the call and stores nothing.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player`.
///
/// Thread safety: any thread; never blocks (the call runs on the catalog's worker).
#[bridge_fn(
    c = "tickreel_catalog_register",
    c_out = "out_pending",
    java = "catalogRegister"
)]
pub fn register(
    catalog: &Catalog,
    file: &Path,
    course: &str,
    player: Option<uuid::Uuid>,
    player_name: &str,
    entity: u32,
    range: GhostRange,
) -> tickreel::Result<New<Pending>> {
    let spec = RunSpec::new(course, required(player)?, player_name, entity).range(range);
    let file = file.to_path_buf();
    Ok(submit(catalog, move |c| {
        let registered = c.register(&file, &[spec])?;
        let placed = registered.runs.into_iter().map(|run| (0, run));
        Ok(rows::runs(placed))
    }))
}

/// Starts a query of the best `n` players of `course` (each player's best valid run, fastest
/// first, ties to the earlier run). Stores the call's handle in `*out_pending`.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(c = "tickreel_catalog_top", c_out = "out_pending", java = "catalogTop")]
pub fn top(catalog: &Catalog, course: &str, n: u32) -> New<Pending> {
    let course = course.to_owned();
    submit(catalog, move |c| {
        let top = c.top(&course, u64::from(n))?;
        Ok(rows::runs(top.into_iter().map(|p| (p.rank, p.run))))
    })
}

/// Starts a query of `player`'s best run of `course` and its rank: one row, or none if the
/// player has no valid run there. Stores the call's handle in `*out_pending`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player`.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_personal_best",
    c_out = "out_pending",
    java = "catalogPersonalBest"
)]
pub fn personal_best(
    catalog: &Catalog,
    course: &str,
    player: Option<uuid::Uuid>,
) -> tickreel::Result<New<Pending>> {
    let (course, player) = (course.to_owned(), required(player)?);
    Ok(submit(catalog, move |c| {
        let pb = c.personal_best(&course, player)?;
        Ok(rows::runs(pb.into_iter().map(|p| (p.rank, p.run))))
    }))
}

/// Starts a query of the places from `rank - k` to `rank + k` of `course` (clamped to the
/// board). Stores the call's handle in `*out_pending`.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_around",
    c_out = "out_pending",
    java = "catalogAround"
)]
pub fn around(catalog: &Catalog, course: &str, rank: u32, k: u32) -> New<Pending> {
    let course = course.to_owned();
    submit(catalog, move |c| {
        let places = c.around(&course, u64::from(rank), u64::from(k))?;
        Ok(rows::runs(places.into_iter().map(|p| (p.rank, p.run))))
    })
}

/// Starts a query of `player`'s `n` most recent runs (of `course`, or of every course when it is
/// NULL), newest first, valid or not; their rank fields are 0. Stores the call's handle in
/// `*out_pending`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player`.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_recent",
    c_out = "out_pending",
    java = "catalogRecent"
)]
pub fn recent(
    catalog: &Catalog,
    player: Option<uuid::Uuid>,
    course: Option<&str>,
    n: u32,
) -> tickreel::Result<New<Pending>> {
    let (player, course) = (required(player)?, course.map(str::to_owned));
    Ok(submit(catalog, move |c| {
        let runs = c.recent(player, course.as_deref(), u64::from(n))?;
        Ok(rows::runs(runs.into_iter().map(|r| (0, r))))
    }))
}

/// Starts the sum of best segments of `course`: of `player`'s runs, or of the whole board when
/// `player` is NULL (segments between consecutive checkpoints). Stores the call's handle in
/// `*out_pending`; its bytes are empty when there is no run, else the encoding of `rows::sum_of_best`.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_sum_of_best",
    c_out = "out_pending",
    java = "catalogSumOfBest"
)]
pub fn sum_of_best(catalog: &Catalog, course: &str, player: Option<uuid::Uuid>) -> New<Pending> {
    let course = course.to_owned();
    submit(catalog, move |c| {
        let sob = c.sum_of_best(&course, player)?;
        Ok(sob.map(|s| rows::sum_of_best(&s)).unwrap_or_default())
    })
}

/// Starts looking up the ghost of `course`'s run at `rank` (1: the best) or, with `rank` 0, of
/// `player`'s best, and loading it (from a local path or an object URL, with the `AWS_*`
/// variables): the pending's result is the ghost (`tickreel_pending_take_ghost`).
/// The lookup fails with `TICKREEL_RESULT_INVALID_ARGUMENT` when the board has no such rank or
/// player. Stores the call's handle in `*out_pending`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for rank 0 with a NULL `player`.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_load_ghost",
    c_out = "out_pending",
    java = "catalogLoadGhost"
)]
pub fn load_ghost(
    catalog: &Catalog,
    course: &str,
    rank: u32,
    player: Option<uuid::Uuid>,
) -> tickreel::Result<New<Pending>> {
    let who = match rank {
        0 => GhostOf::Player(required(player)?),
        r => GhostOf::Rank(u64::from(r)),
    };
    let course = course.to_owned();
    Ok(Pending::ghost_lookup(catalog.0.submit(move |c| {
        Ok(c.load_ghost_from(&course, who, open_location)?.load)
    })))
}

/// Where a ghost's recording is read from, given the location its row names: an object URL
/// (read with the `AWS_*` variables) or a local path.
pub(crate) fn open_location(location: &str) -> tickreel::Result<LoadFrom> {
    #[cfg(feature = "object")]
    if tickreel_object::is_object_url(location) {
        let options = tickreel_object::ObjectOptions::from_env();
        let source = tickreel_object::source_for_url(location, &options)?;
        return Ok(LoadFrom::Source(source));
    }
    #[cfg(not(feature = "object"))]
    if location.contains("://") {
        return Err(tickreel::Error::Unsupported(format!(
            "{location}: this library was built without object storage (feature \"object\")"
        )));
    }
    Ok(LoadFrom::Path(location.into()))
}

/// Starts applying the retention policies (`tickreel catalog` sets them): recordings no policy
/// keeps are deleted (the file, then the rows), or with `dry_run` only listed. The call's rows
/// are the recordings pruned (or that would be), in the encoding of `rows::pruned`. Stores the
/// call's handle in `*out_pending`.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_prune",
    c_out = "out_pending",
    java = "catalogPrune"
)]
pub fn prune(catalog: &Catalog, dry_run: bool) -> New<Pending> {
    submit(catalog, move |c| {
        let report = c.prune(PruneOptions {
            dry_run,
            ..PruneOptions::default()
        })?;
        Ok(rows::pruned(&report))
    })
}

/// Copies a finished catalog call's bytes into `buf` (the encodings of `rows`), storing their
/// number in `*out_count`; calls without rows (a change) have none. Never blocks; may be asked
/// again (a `capacity` too small returns `TICKREEL_RESULT_BUFFER_TOO_SMALL` with the count).
///
/// Returns `TICKREEL_RESULT_NOT_READY` while the call runs, the call's own failure code (every
/// time it is asked), `TICKREEL_RESULT_INVALID_STATE` (naming the kind it holds) for a pending of
/// another kind (a ghost lookup's is a ghost).
///
/// Thread safety: any thread, concurrently with any other call on the handle.
#[bridge_fn(
    c = "tickreel_pending_take_rows",
    c_out_array = "buf",
    c_out_type = "u8",
    java = "pendingTakeRows"
)]
pub fn take_rows(pending: &Pending) -> tickreel::Result<Vec<u8>> {
    match pending.take(Kind::Rows)? {
        Outcome::Rows(bytes) => Ok(bytes),
        _ => unreachable!("a pending's result is of its kind"),
    }
}

/// Takes the ghost set a `tickreel_catalog_load_ghosts` lookup loaded: stores a new set's handle
/// in `*out_set` (free it with `tickreel_ghost_set_free`), its ghosts in the order they were
/// picked, each with its own cursor. Never blocks; may be asked again (each call gives a new set
/// of the same ghosts).
///
/// Returns `TICKREEL_RESULT_NOT_READY` while the lookup or a load runs, the failure's code if one
/// failed, `TICKREEL_RESULT_INVALID_STATE` (naming the kind it holds) for a pending of another
/// kind. `*out_set` is NULL unless the call succeeded (when it can be written).
///
/// Thread safety: any thread, concurrently with any other call on the handle.
#[bridge_fn(
    c = "tickreel_pending_take_ghost_set",
    c_out = "out_set",
    java = "pendingTakeGhostSet"
)]
pub fn take_ghost_set(pending: &Pending) -> tickreel::Result<New<GhostSet>> {
    match pending.take(Kind::GhostSet)? {
        Outcome::Ghosts(tracks) => {
            let mut set = ghost::GhostSet::new();
            for t in tracks {
                set.push(t);
            }
            Ok(New(GhostSet(Mutex::new(set))))
        }
        _ => unreachable!("a pending's result is of its kind"),
    }
}

/// The byte encodings of a call's results (big-endian, as the tick encoding of `tickreel.h`).
pub mod rows {
    use tickreel_catalog::{PruneReport, Run, SumOfBest};

    fn string(out: &mut Vec<u8>, s: &str) {
        let b = &s.as_bytes()[..s.len().min(u16::MAX as usize)];
        out.extend_from_slice(&(b.len() as u16).to_be_bytes());
        out.extend_from_slice(b);
    }

    /// Runs, one after another: `u64` rank (0 where the query has none), `i64` run id, `i64`
    /// recording id, 16 bytes player UUID, `u32` entity, `u32` start tick, `u32` end tick, `u32`
    /// time in ticks, `f64` tick rate, `i64` achieved (Unix ms), `u8` valid, `u64` flags, then
    /// the course, the player's name, the server it was run on (empty: none named) and the
    /// location of its recording (a path or an `s3://` URL), each a `u16` length and UTF-8 bytes,
    /// then the map version it was run on: 16 bytes world id and 16 bytes world version (all
    /// zero: its recording named none), then `u8` held (1: a run check failed, see
    /// `tickreel_catalog_check_run`; a held run is on no board, so only rows of a player's
    /// recent runs or of a registration show 1).
    pub fn runs(runs: impl IntoIterator<Item = (u64, Run)>) -> Vec<u8> {
        let mut out = Vec::new();
        for (rank, r) in runs {
            out.extend_from_slice(&rank.to_be_bytes());
            out.extend_from_slice(&r.id.to_be_bytes());
            out.extend_from_slice(&r.recording_id.to_be_bytes());
            out.extend_from_slice(r.player.as_bytes());
            for v in [r.entity, r.start_tick, r.end_tick, r.ticks] {
                out.extend_from_slice(&v.to_be_bytes());
            }
            out.extend_from_slice(&r.tick_rate.to_be_bytes());
            out.extend_from_slice(&r.achieved_ms.to_be_bytes());
            out.push(u8::from(r.valid));
            out.extend_from_slice(&r.flags.to_be_bytes());
            string(&mut out, &r.course);
            string(&mut out, &r.player_name);
            string(&mut out, r.server.as_deref().unwrap_or(""));
            string(&mut out, &r.location);
            for id in [r.world, r.world_version] {
                out.extend_from_slice(id.unwrap_or_default().as_bytes());
            }
            out.push(u8::from(r.held));
        }
        out
    }

    /// A run's check state: `i64` run id, `u8` held, `u8` cleared by a moderator, `i64` when
    /// (Unix ms, 0: never), who cleared it (a `u16` length and UTF-8 bytes, empty: nobody), `u32`
    /// the number of reasons, then per reason `u8` its code (1 horizontal speed, 2 vertical
    /// speed, 3 teleport, 4 gap, 5 checkpoint order, 6 hash), `u8` whether it has a tick, `u32`
    /// the recording's tick where it was first seen, then its name (`horizontal_speed`, ...) and
    /// what was seen, each a `u16` length and UTF-8 bytes.
    pub fn run_check(c: &tickreel_catalog::RunCheck) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&c.run_id.to_be_bytes());
        out.push(u8::from(c.held));
        out.push(u8::from(c.cleared_by.is_some()));
        out.extend_from_slice(&c.cleared_ms.unwrap_or(0).to_be_bytes());
        string(&mut out, c.cleared_by.as_deref().unwrap_or(""));
        out.extend_from_slice(&(c.holds.len() as u32).to_be_bytes());
        for h in &c.holds {
            out.push(h.reason.code());
            out.push(u8::from(h.tick.is_some()));
            out.extend_from_slice(&h.tick.unwrap_or(0).to_be_bytes());
            string(&mut out, h.reason.as_str());
            string(&mut out, &h.detail);
        }
        out
    }

    /// `u64` total ticks, `f64` tick rate, `u32` runs considered, `u32` segment count, then per
    /// segment `u32` from checkpoint and `u32` to checkpoint (`0xFFFFFFFF`: the run's start or
    /// end), `u32` ticks, `i64` the run it comes from.
    pub fn sum_of_best(s: &SumOfBest) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&s.total_ticks.to_be_bytes());
        out.extend_from_slice(&s.tick_rate.to_be_bytes());
        out.extend_from_slice(&(s.runs as u32).to_be_bytes());
        out.extend_from_slice(&(s.segments.len() as u32).to_be_bytes());
        for seg in &s.segments {
            for v in [seg.from, seg.to] {
                out.extend_from_slice(&v.unwrap_or(u32::MAX).to_be_bytes());
            }
            out.extend_from_slice(&seg.ticks.to_be_bytes());
            out.extend_from_slice(&seg.run_id.to_be_bytes());
        }
        out
    }

    /// Per recording pruned (or that a dry run would prune): `i64` recording id, `u64` size in
    /// bytes, `u64` runs, then its location as a `u16` length and UTF-8 bytes.
    pub fn pruned(report: &PruneReport) -> Vec<u8> {
        let mut out = Vec::new();
        for p in &report.recordings {
            out.extend_from_slice(&p.recording_id.to_be_bytes());
            out.extend_from_slice(&p.size_bytes.to_be_bytes());
            out.extend_from_slice(&p.runs.to_be_bytes());
            string(&mut out, &p.location);
        }
        out
    }
}

/// Starts loading the ghosts of several places of `course` to race them together: the board's
/// first `top` places, then `player`'s best (NULL: none), then the run at `rank` (0: none), in that
/// order; a run picked twice (a player's best among the top) is loaded once. Held runs are on no
/// board, so never among them. The board is read on the catalog's worker (after the calls queued
/// before), the recordings load on background threads; the pending's result is a ghost set
/// (`tickreel_pending_take_ghost_set`). Stores the pending in `*out_pending`.
///
/// The pending fails with `TICKREEL_RESULT_INVALID_ARGUMENT` when the board has no such player or
/// rank, and with the recordings' errors (`TICKREEL_RESULT_IO`, ...) if one cannot be loaded.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_load_ghosts",
    c_out = "out_pending",
    java = "catalogLoadGhosts"
)]
pub fn load_ghosts(
    catalog: &Catalog,
    course: &str,
    top: u32,
    player: Option<uuid::Uuid>,
    rank: u32,
) -> New<Pending> {
    let course = course.to_owned();
    let picks = tickreel_catalog::GhostPicks {
        top: u64::from(top),
        player,
        rank: (rank > 0).then_some(u64::from(rank)),
    };
    Pending::ghosts_lookup(catalog.0.submit(move |c| {
        let found = c.load_ghosts(&course, picks)?;
        Ok(found.into_iter().map(|g| g.load).collect())
    }))
}
