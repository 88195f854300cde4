//! Opening the recording a row points at: a run's, a place's, a report's or a recording's own
//! row gives its location (a path, or with the feature `object` an `s3://` URL), and
//! [`Catalog::open_recording`] opens it in one call.

use tickreel::play::Reader;
use tickreel::{Error, Result};

use crate::Catalog;
use crate::model::Located;

/// The location of `row`'s recording, or why it has none.
fn location_of(row: &(impl Located + ?Sized)) -> Result<&str> {
    row.location()
        .ok_or_else(|| Error::invalid("this row points at no recording (a report without one)"))
}

impl Catalog {
    /// Opens the recording `row` points at (a [`Run`](crate::Run), a [`Placed`](crate::Placed),
    /// a [`Report`](crate::Report) with a recording, a [`CatalogRecording`](crate::CatalogRecording)):
    /// a path on this machine, or an object URL (`s3://bucket/key`, with the feature `object`:
    /// the object storage configured by the `AWS_*` variables). Fails with `InvalidArgument`
    /// for a report without a recording, `Unsupported` for an object URL in a build without
    /// object storage, and as [`Reader`] does for a file that is gone or damaged.
    pub fn open_recording(&self, row: &(impl Located + ?Sized)) -> Result<Reader> {
        let location = location_of(row)?;
        #[cfg(feature = "object")]
        if tickreel_object::is_object_url(location) {
            let options = tickreel_object::ObjectOptions::from_env();
            return tickreel_object::open_url(location, &options);
        }
        if location.contains("://") {
            return Err(Error::Unsupported(format!(
                "{location}: this build opens no object URL (feature \"object\")"
            )));
        }
        Reader::open_any(location)
    }

    /// [`Catalog::open_recording`] with the object storage's `options` (endpoint, credentials)
    /// for an object URL.
    #[cfg(feature = "object")]
    pub fn open_recording_with(
        &self,
        row: &(impl Located + ?Sized),
        options: &tickreel_object::ObjectOptions,
    ) -> Result<Reader> {
        let location = location_of(row)?;
        if tickreel_object::is_object_url(location) {
            return tickreel_object::open_url(location, options);
        }
        self.open_recording(row)
    }
}
