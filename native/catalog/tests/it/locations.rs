//! Rows that point at recordings in object storage: a recording registered by its `s3://`
//! location (read from the bucket, so a missing object registers nothing), an upload registered
//! once it succeeded and never after a failed one, a report filed with an uploaded recording, and
//! every such row opening its recording in one call. On a real S3-protocol server on loopback.

use crate::common;

use crate::common::{Db, Runner, player, record_with, spec};
use tickreel::{ErrorKind, RecorderOptions};
use tickreel_catalog::NewReport;
use tickreel_object::UploadOptions;
use tickreel_object::testing::S3Server;

fn on(server: &str) -> RecorderOptions {
    RecorderOptions {
        server: Some(server.to_owned()),
        ..RecorderOptions::default()
    }
}

fn rows_point_at_uploaded_objects(db: Db) {
    let s3 = S3Server::start();
    let storage = s3.storage();
    let dir = tempfile::tempdir().unwrap();
    let (cat, _) = common::fresh(db, dir.path());
    let file = record_with(
        dir.path(),
        "a.reel",
        &[Runner::new(1, 0, 60, &[]), Runner::new(2, 0, 40, &[])],
        on("eu-1"),
    );
    let size = std::fs::metadata(&file).unwrap().len();

    // Nothing is registered for an object that is not in the bucket.
    let missing = s3.url("eu-1/a.reel");
    let e = cat
        .register_at_with(&missing, &[spec("c", 1, 1, 100)], &s3.options())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io, "{e}");
    assert!(cat.top("c", 10).unwrap().is_empty());
    assert!(cat.recordings().unwrap().is_empty());

    // After the upload (the local copy removed), the row gives the URL and opens the object.
    let pending = tickreel::Pending::ready(Ok(file.clone()), "finish");
    let upload = storage.upload_when_finished(
        pending,
        "eu-1/a.reel",
        UploadOptions {
            overwrite: false,
            remove_local: true,
        },
    );
    let reg = cat
        .register_uploaded(upload, &storage, &[spec("c", 1, 1, 100)])
        .unwrap();
    assert!(!file.exists(), "the local copy is removed after the upload");
    let run = &reg.runs[0];
    assert_eq!(run.location, missing);
    assert_eq!(run.server.as_deref(), Some("eu-1"));
    let rec = cat.recording(reg.recording_id).unwrap().unwrap();
    assert_eq!(rec.location, missing);
    assert_eq!(rec.size_bytes, size);
    let top = cat.top("c", 10).unwrap();
    assert_eq!(top.len(), 1);
    let reader = cat.open_recording_with(&top[0], &s3.options()).unwrap();
    assert_eq!(reader.recording_id(), rec.recording_uuid);
    assert_eq!(reader.last_tick(), Some(rec.last_tick));

    // Registering the same URL again adds runs to the same row.
    let again = cat
        .register_at_with(&missing, &[spec("c", 2, 2, 200)], &s3.options())
        .unwrap();
    assert_eq!(again.recording_id, reg.recording_id);
    assert_eq!(cat.top("c", 10).unwrap().len(), 2);

    // A failed upload (the object exists, no overwrite) registers nothing.
    let other = record_with(
        dir.path(),
        "b.reel",
        &[Runner::new(3, 0, 30, &[])],
        on("eu-1"),
    );
    let upload = storage.upload_when_finished(
        tickreel::Pending::ready(Ok(other.clone()), "finish"),
        "eu-1/a.reel",
        UploadOptions::default(),
    );
    let e = cat
        .register_uploaded(upload, &storage, &[spec("c", 3, 3, 300)])
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io, "{e}");
    assert!(other.exists(), "a failed upload keeps the local file");
    assert_eq!(cat.top("c", 10).unwrap().len(), 2);
    assert_eq!(cat.recordings().unwrap().len(), 1);

    // A report filed with its uploaded recording points at the object and opens it.
    storage
        .upload(&other, "eu-1/report.reel", UploadOptions::default())
        .unwrap();
    let report = NewReport {
        reported: player(3),
        reported_name: "P3".into(),
        reporter: player(9),
        reason: "fly".into(),
        created_ms: Some(1),
        server: None,
    };
    let url = s3.url("eu-1/report.reel");
    let filed = cat
        .add_report_at_with(&report, &url, &s3.options())
        .unwrap();
    assert_eq!(filed.location.as_deref(), Some(url.as_str()));
    assert_eq!(filed.server.as_deref(), Some("eu-1"));
    let listed = cat.reports(None).unwrap();
    assert_eq!(listed[0].location.as_deref(), Some(url.as_str()));
    let r = cat.open_recording_with(&listed[0], &s3.options()).unwrap();
    assert_eq!(r.metadata().library.server.as_deref(), Some("eu-1"));
}

on_both! {
    rows_point_at_uploaded_objects => rows_point_at_uploaded_objects;
}

/// Locations are checked before anything is read: another scheme, an object URL without a key,
/// an empty one.
#[test]
fn a_location_is_a_path_or_an_object_url() {
    let dir = tempfile::tempdir().unwrap();
    let (cat, _) = common::fresh(Db::Sqlite, dir.path());
    for bad in [
        "",
        "gs://b/k.reel",
        "http://h/k.reel",
        "s3://bucket",
        "s3://Bad/k",
    ] {
        let e = cat.register_at(bad, &[]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{bad:?}: {e}");
    }
    let file = record_with(
        dir.path(),
        "p.reel",
        &[Runner::new(1, 0, 20, &[])],
        on("eu-1"),
    );
    let reg = cat
        .register_at(file.to_str().unwrap(), &[spec("c", 1, 1, 1)])
        .unwrap();
    assert_eq!(
        reg.runs[0].location,
        std::fs::canonicalize(&file).unwrap().to_str().unwrap()
    );
}
