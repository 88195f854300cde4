//! The catalog and object storage together (Cargo features `catalog` and `object`): a run of an
//! uploaded recording registered once its upload succeeded, its row giving the object's URL.

use crate::api::New;
use crate::api::catalog::{Catalog, CatalogCall, Outcome, required, rows, submit};
use crate::api::object::PendingUpload;
use tickreel::ghost::GhostRange;
use tickreel_bridge_macros::bridge_fn;
use tickreel_catalog::RunSpec;

/// Registers one run of a recording once its upload succeeded (`upload`, from
/// `tickreel_recorder_finish_upload`; the handle stays the caller's to free): as
/// `tickreel_catalog_register_at` with the uploaded object's URL, read back with the upload's
/// object-storage options. A failed finish or upload fails the call and registers nothing (the
/// catalog never points at an object that is not in the bucket). The catalog's worker waits for
/// the upload: calls submitted after this one run after it. Stores the call's handle in
/// `*out_call`; its rows are the registered run.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player`.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_register_upload",
    c_out = "out_call",
    java = "catalogRegisterUpload"
)]
pub fn register_upload(
    catalog: &Catalog,
    upload: &PendingUpload,
    course: &str,
    player: Option<uuid::Uuid>,
    player_name: &str,
    entity: u32,
    range: GhostRange,
) -> tickreel::Result<New<CatalogCall>> {
    let spec = RunSpec::new(course, required(player)?, player_name, entity).range(range);
    let (pending, options) = (upload.pending.clone(), upload.options.clone());
    Ok(submit(catalog, move |c| {
        let uploaded = pending
            .wait(None)
            .expect("a wait without a limit ends with the result")?;
        let url = uploaded.report.url.to_string();
        let registered = c.register_at_with(&url, &[spec], &options)?;
        let placed = registered.runs.into_iter().map(|run| (0, run));
        Ok(Outcome::Rows(rows::runs(placed)))
    }))
}
