//! The catalog of a network of servers ([`tickreel_catalog`]): one server's board, a player's
//! reports on any server, and opening the recording a row points at from its location (every
//! run and report row carries it: `crate::api::catalog::rows`). The queries run on the
//! catalog's worker, as those of `crate::api::catalog`.

use crate::api::New;
use crate::api::catalog::{Catalog, CatalogCall, Outcome, required, rows, submit};
use crate::api::catalog_admin::rows as report_rows;
use crate::api::reader::Reader;
use tickreel_bridge_macros::bridge_fn;

/// Starts a query of the best `n` players of `course` on the server `server` (each player's best
/// valid run recorded there, fastest first, ties to the earlier run), or of the whole network
/// when `server` is NULL (as `tickreel_catalog_top`). Stores the call's handle in `*out_call`;
/// its rows use the encoding of `tickreel_catalog_top`.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_top_on",
    c_out = "out_call",
    java = "catalogTopOn"
)]
pub fn top_on(catalog: &Catalog, server: Option<&str>, course: &str, n: u32) -> New<CatalogCall> {
    let (server, course) = (server.map(str::to_owned), course.to_owned());
    submit(catalog, move |c| {
        let top = c.top_on(server.as_deref(), &course, u64::from(n))?;
        Ok(Outcome::Rows(rows::runs(
            top.into_iter().map(|p| (p.rank, p.run)),
        )))
    })
}

/// Starts a query of `player`'s best run of `course` on the server `server` and its rank there
/// (the network's board when `server` is NULL): one row, or none. Stores the call's handle in
/// `*out_call`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player`.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_personal_best_on",
    c_out = "out_call",
    java = "catalogPersonalBestOn"
)]
pub fn personal_best_on(
    catalog: &Catalog,
    server: Option<&str>,
    course: &str,
    player: Option<uuid::Uuid>,
) -> tickreel::Result<New<CatalogCall>> {
    let (server, course, player) = (
        server.map(str::to_owned),
        course.to_owned(),
        required(player)?,
    );
    Ok(submit(catalog, move |c| {
        let pb = c.personal_best_on(server.as_deref(), &course, player)?;
        Ok(Outcome::Rows(rows::runs(
            pb.into_iter().map(|p| (p.rank, p.run)),
        )))
    }))
}

/// Starts listing the reports of `player` (the reported player's UUID), newest first: filed on
/// the server `server`, or on any server of the network when `server` is NULL. Stores the
/// call's handle in `*out_call`; its rows use the encoding of `tickreel_catalog_reports`.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player`.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_reports_of",
    c_out = "out_call",
    java = "catalogReportsOf"
)]
pub fn reports_of(
    catalog: &Catalog,
    player: Option<uuid::Uuid>,
    server: Option<&str>,
) -> tickreel::Result<New<CatalogCall>> {
    let (player, server) = (required(player)?, server.map(str::to_owned));
    Ok(submit(catalog, move |c| {
        Ok(Outcome::Rows(report_rows::reports(
            c.reports_of(player, server.as_deref())?,
        )))
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
