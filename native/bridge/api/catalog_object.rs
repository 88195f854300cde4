//! The catalog and object storage together (Cargo features `catalog` and `object`): a run of an
//! uploaded recording registered once its upload succeeded, its row giving the object's URL.

use crate::api::New;
use crate::api::catalog::{Catalog, required, rows, submit};
use crate::api::pending::Pending;
use tickreel::ghost::GhostRange;
use tickreel_bridge_macros::bridge_fn;
use tickreel_catalog::RunSpec;

/// Registers one run of a recording once its upload succeeded (`upload`, the pending of
/// `tickreel_recorder_finish_upload` or another upload; it stays the caller's to free): as
/// `tickreel_catalog_register_at` with the uploaded object's URL, read back with the upload's
/// object-storage options. A failed finish or upload fails the call and registers nothing (the
/// catalog never points at an object that is not in the bucket). The catalog's worker waits for
/// the upload: calls submitted after this one run after it. Stores the pending in
/// `*out_pending`; its rows are the registered run.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player` or an `upload` whose result is
/// not an upload.
///
/// Thread safety: any thread; never blocks.
#[bridge_fn(
    c = "tickreel_catalog_register_upload",
    c_out = "out_pending",
    java = "catalogRegisterUpload"
)]
pub fn register_upload(
    catalog: &Catalog,
    upload: &Pending,
    course: &str,
    player: Option<uuid::Uuid>,
    player_name: &str,
    entity: u32,
    range: GhostRange,
) -> tickreel::Result<New<Pending>> {
    let spec = RunSpec::new(course, required(player)?, player_name, entity).range(range);
    let (pending, options) = upload.shared_upload("upload")?;
    Ok(submit(catalog, move |c| {
        let uploaded = pending
            .wait(None)
            .expect("a wait without a limit ends with the result")?;
        let url = uploaded.report.url.to_string();
        let registered = c.register_at_with(&url, &[spec], &options)?;
        let placed = registered.runs.into_iter().map(|run| (0, run));
        Ok(rows::runs(placed))
    }))
}
