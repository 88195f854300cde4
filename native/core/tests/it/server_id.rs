//! The server id of a recording (FORMAT.md section 4, `server`): set by the recorder's options,
//! kept through compaction, carried into shadow-play reports of the stream, refused when it is
//! not 1 to 64 bytes without control characters.

use std::time::Duration;

use tickreel::format::{Event, Pose, encode_batch};
use tickreel::play::Reader;
use tickreel::shadow::{ReportOptions, ShadowBuffer, ShadowOptions};
use tickreel::{Engine, EngineOptions, ErrorKind, RecorderOptions};

fn tick(t: u32) -> Vec<u8> {
    let mut ev = Vec::new();
    if t == 0 {
        ev.push(Event::EntityAdd {
            entity: 1,
            kind: 0,
            pose: Pose::default(),
        });
    }
    ev.push(Event::Pose {
        entity: 1,
        pose: Pose::from_f64(f64::from(t) * 0.1, 64.0, 0.0, 0.0, 0.0),
    });
    let mut buf = Vec::new();
    encode_batch(&ev, &mut buf).unwrap();
    buf
}

fn on(server: Option<&str>) -> RecorderOptions {
    RecorderOptions {
        server: server.map(str::to_owned),
        ..RecorderOptions::default()
    }
}

#[test]
fn the_server_id_reaches_the_finished_file_and_the_reports() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let path = dir.path().join("run.reel");
    let (rec, shadow) = ShadowBuffer::start(
        &engine,
        Some(&path),
        on(Some("eu-lobby-1")),
        ShadowOptions {
            window: Duration::from_secs(60),
            ..ShadowOptions::default()
        },
    )
    .unwrap();
    for t in 0..100 {
        rec.submit_tick(t, &tick(t)).unwrap();
    }
    rec.flush().unwrap();
    let report = dir.path().join("report.reel");
    shadow
        .report(
            1,
            &report,
            ReportOptions {
                after: Duration::ZERO,
                ..ReportOptions::default()
            },
        )
        .unwrap()
        .wait()
        .unwrap();
    let file = rec.finish().unwrap().wait().unwrap();
    for p in [&file, &report] {
        let r = Reader::open_path(p).unwrap();
        assert_eq!(
            r.metadata().library.server.as_deref(),
            Some("eu-lobby-1"),
            "{}",
            p.display()
        );
    }
    // without the option, no server
    let plain = dir.path().join("plain.reel");
    let rec = engine.start_recording(&plain, on(None)).unwrap();
    rec.submit_tick(0, &tick(0)).unwrap();
    let plain = rec.finish().unwrap().wait().unwrap();
    assert_eq!(
        Reader::open_path(&plain).unwrap().metadata().library.server,
        None
    );
    engine.shutdown();
}

#[test]
fn a_server_id_out_of_bounds_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions::default()).unwrap();
    for bad in ["", "a\nb", &"x".repeat(65)] {
        let e = engine
            .start_recording(dir.path().join("x.reel"), on(Some(bad)))
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{bad:?}: {e}");
    }
    engine.shutdown();
}
