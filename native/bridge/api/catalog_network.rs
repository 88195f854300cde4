//! The catalog of a network of servers ([`tickreel_catalog`]): boards of one server and of one
//! map version (top, a player's best, a rank, a ghost refused when recorded on another map
//! version than the one played), a player's reports on any server, and opening the recording a row points at from its location (every
//! run and report row carries it: `crate::api::catalog::rows`). The queries run on the
//! catalog's worker, as those of `crate::api::catalog`.

use crate::api::New;
use crate::api::catalog::{Catalog, open_location, required, rows, submit};
use crate::api::catalog_admin::rows as report_rows;
use crate::api::pending::Pending;
use crate::api::reader::Reader;
use tickreel_bridge_macros::bridge_fn;
use tickreel_catalog::{Board, GhostLoad, GhostOf, MapVersion, Servers};

/// The map version named by `world` and `version` (C: two 16-byte UUIDs; Java: `MapVersion`):
/// both, or neither for any version.
fn map_version(
    world: Option<uuid::Uuid>,
    version: Option<uuid::Uuid>,
    what: &str,
) -> tickreel::Result<Option<MapVersion>> {
    match (world, version) {
        (Some(w), Some(v)) => Ok(Some(MapVersion::new(w, v))),
        (None, None) => Ok(None),
        _ => Err(tickreel::Error::invalid(format!(
            "{what}: a map version needs both the world id and the world version (or neither)"
        ))),
    }
}

/// The board of `server` (the network when none) on `version` (any when none).
fn board(server: Option<&str>, version: Option<MapVersion>) -> Board<'_> {
    Board {
        servers: Servers::from(server),
        version,
    }
}

/// Starts a query of the best `n` players of `course` on a board: the server `server` (each
/// player's best valid run recorded there), or the whole network when `server` is NULL; of the
/// map version `world` + `world_version` (16-byte UUIDs, the recording's `world_id` and
/// `world_version`), or of any version when both are NULL (as `tickreel_catalog_top`). Stores the
/// call's handle in `*out_pending`; its rows use the encoding of `tickreel_catalog_top`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` when only one of `world` and `world_version` is
/// given.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_top_on",
    c_out = "out_pending",
    java = "catalogTopOn"
)]
pub fn top_on(
    catalog: &Catalog,
    server: Option<&str>,
    world: Option<uuid::Uuid>,
    world_version: Option<uuid::Uuid>,
    course: &str,
    n: u32,
) -> tickreel::Result<New<Pending>> {
    let version = map_version(world, world_version, "the board")?;
    let (server, course) = (server.map(str::to_owned), course.to_owned());
    Ok(submit(catalog, move |c| {
        let top = c.top_on(board(server.as_deref(), version), &course, u64::from(n))?;
        Ok(rows::runs(top.into_iter().map(|p| (p.rank, p.run))))
    }))
}

/// Starts a query of `player`'s best run of `course` on a board (the server `server`, the
/// network's when NULL; the map version `world` + `world_version`, any when both are NULL; see
/// `tickreel_catalog_top_on`) and its rank there: one row, or none. Stores the pending in
/// `*out_pending`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player`, or when only one of `world`
/// and `world_version` is given.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_personal_best_on",
    c_out = "out_pending",
    java = "catalogPersonalBestOn"
)]
pub fn personal_best_on(
    catalog: &Catalog,
    server: Option<&str>,
    world: Option<uuid::Uuid>,
    world_version: Option<uuid::Uuid>,
    course: &str,
    player: Option<uuid::Uuid>,
) -> tickreel::Result<New<Pending>> {
    let version = map_version(world, world_version, "the board")?;
    let (server, course, player) = (
        server.map(str::to_owned),
        course.to_owned(),
        required(player)?,
    );
    Ok(submit(catalog, move |c| {
        let pb = c.personal_best_on(board(server.as_deref(), version), &course, player)?;
        Ok(rows::runs(pb.into_iter().map(|p| (p.rank, p.run))))
    }))
}

/// Starts a query of the place at `rank` (1: the best) of `course` on a board (the server
/// `server`, the network's when NULL; the map version `world` + `world_version`, any when both
/// are NULL; see `tickreel_catalog_top_on`): one row, or none when the board has fewer players.
/// Stores the pending in `*out_pending`; its rows use the encoding of `tickreel_catalog_top`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for rank 0, or when only one of `world` and
/// `world_version` is given.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_at_rank_on",
    c_out = "out_pending",
    java = "catalogAtRankOn"
)]
pub fn at_rank_on(
    catalog: &Catalog,
    server: Option<&str>,
    world: Option<uuid::Uuid>,
    world_version: Option<uuid::Uuid>,
    course: &str,
    rank: u32,
) -> tickreel::Result<New<Pending>> {
    let version = map_version(world, world_version, "the board")?;
    if rank == 0 {
        return Err(tickreel::Error::invalid("ranks start at 1"));
    }
    let (server, course) = (server.map(str::to_owned), course.to_owned());
    Ok(submit(catalog, move |c| {
        let placed = c.at_rank_on(board(server.as_deref(), version), &course, u64::from(rank))?;
        Ok(rows::runs(placed.into_iter().map(|p| (p.rank, p.run))))
    }))
}

/// Starts looking up, on a board (the server `server`, the network's when NULL; the map version
/// `world` + `world_version`, any when both are NULL; see `tickreel_catalog_top_on`), the ghost of
/// `course`'s run at `rank` (1: the best) or, with `rank` 0, of `player`'s best, and loading it
/// as `tickreel_catalog_load_ghost` does. With `playing_world` + `playing_version` (the map
/// version the ghost is to play on), a run recorded on another version (or on none) fails the
/// lookup with `TICKREEL_RESULT_INVALID_ARGUMENT` and a message naming both versions, unless
/// `allow_other_version`; with both NULL nothing is checked. Stores the pending in
/// `*out_pending`; its result is the ghost (`tickreel_pending_take_ghost`), or that failure.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for rank 0 with a NULL `player`, or when only one
/// UUID of a map version is given.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_load_ghost_on",
    c_out = "out_pending",
    java = "catalogLoadGhostOn"
)]
#[allow(clippy::too_many_arguments)]
pub fn load_ghost_on(
    catalog: &Catalog,
    server: Option<&str>,
    world: Option<uuid::Uuid>,
    world_version: Option<uuid::Uuid>,
    course: &str,
    rank: u32,
    player: Option<uuid::Uuid>,
    playing_world: Option<uuid::Uuid>,
    playing_version: Option<uuid::Uuid>,
    allow_other_version: bool,
) -> tickreel::Result<New<Pending>> {
    let version = map_version(world, world_version, "the board")?;
    let load = GhostLoad {
        playing_on: map_version(playing_world, playing_version, "the version played")?,
        allow_other_version,
    };
    let who = match rank {
        0 => GhostOf::Player(required(player)?),
        r => GhostOf::Rank(u64::from(r)),
    };
    let (server, course) = (server.map(str::to_owned), course.to_owned());
    Ok(Pending::ghost_lookup(catalog.0.submit(move |c| {
        let found = c.load_ghost_on(
            board(server.as_deref(), version),
            &course,
            who,
            load,
            open_location,
        )?;
        Ok(found.load)
    })))
}

/// Starts listing the reports of `player` (the reported player's UUID), newest first: filed on
/// the server `server`, or on any server of the network when `server` is NULL. Stores the
/// call's handle in `*out_pending`; its rows use the encoding of `tickreel_catalog_reports`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player`.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_reports_of",
    c_out = "out_pending",
    java = "catalogReportsOf"
)]
pub fn reports_of(
    catalog: &Catalog,
    player: Option<uuid::Uuid>,
    server: Option<&str>,
) -> tickreel::Result<New<Pending>> {
    let (player, server) = (required(player)?, server.map(str::to_owned));
    Ok(submit(catalog, move |c| {
        Ok(report_rows::reports(
            c.reports_of(player, server.as_deref())?,
        ))
    }))
}

/// Opens the recording at `location`, the location a run's or report's row gives (a path on
/// this machine, or an `s3://` URL read with the `AWS_*` variables), and stores the reader's
/// handle in `*out_reader` (free it with `tickreel_reader_free`). Blocks while the recording's
/// header, metadata and index are read: call it off the server thread.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for an empty location (a report without a
/// recording), `TICKREEL_RESULT_UNSUPPORTED` for an object URL in a library built without
/// object storage, and the reader's codes (`TICKREEL_RESULT_IO`, `TICKREEL_RESULT_CORRUPT`, ...)
/// for a recording that is gone or damaged. On failure `*out_reader` is set to NULL (when it can
/// be written).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_catalog_open_recording",
    c_out = "out_reader",
    java = "catalogOpenRecording"
)]
pub fn open_recording(catalog: &Catalog, location: &str) -> tickreel::Result<New<Reader>> {
    let reader = catalog.0.catalog().open_recording(location)?;
    Ok(New(Reader(reader)))
}

/// Registers one run of the finished recording at `location`: a path on this machine or an
/// object URL (`s3://bucket/key`, read with the `AWS_*` variables), as `tickreel_catalog_register`
/// does for a file; the run's row then gives that location. The recording is read from the
/// location itself, so nothing is stored for an object that is not in the bucket: register an
/// upload once it succeeded (`tickreel_catalog_register_upload` waits for it). Stores the call's
/// handle in `*out_pending`; the call's rows are the registered run (rank 0).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player`. The call fails with
/// `TICKREEL_RESULT_INVALID_ARGUMENT` for a location that is neither a path nor an `s3://` URL
/// with a bucket and a key (or longer than 4,096 bytes), `TICKREEL_RESULT_UNSUPPORTED` for an
/// object URL in a library built without object storage, and `TICKREEL_RESULT_IO` for a
/// recording that is not there.
///
/// Thread safety: any thread; never blocks (the call runs on the catalog's worker).
#[bridge_fn(
    c = "tickreel_catalog_register_at",
    c_out = "out_pending",
    java = "catalogRegisterAt"
)]
pub fn register_at(
    catalog: &Catalog,
    location: &str,
    course: &str,
    player: Option<uuid::Uuid>,
    player_name: &str,
    entity: u32,
    range: tickreel::ghost::GhostRange,
) -> tickreel::Result<New<Pending>> {
    let spec =
        tickreel_catalog::RunSpec::new(course, required(player)?, player_name, entity).range(range);
    let location = location.to_owned();
    Ok(submit(catalog, move |c| {
        let registered = c.register_at(&location, &[spec])?;
        let placed = registered.runs.into_iter().map(|run| (0, run));
        Ok(rows::runs(placed))
    }))
}
