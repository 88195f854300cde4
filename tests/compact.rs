//! Compaction: the analysis metadata, verification before publication, no silent overwrite of
//! another writer's file, dictionaries, and the finish handle.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use fastnbt::Value;
use tickreel::format::Limits;
use tickreel::play::{Reader, ReaderOptions};
use tickreel::record::{CompactOptions, ReelOptions, ReelWriter, compact};
use tickreel::{Error, Event, Pose};

fn at(x: f64, y: f64, z: f64) -> Pose {
    Pose::from_f64(x, y, z, 0.0, 0.0)
}

/// Ticks 1..=20 (1 and 20 empty). Entity 1 walks a known path (5 + 0 + 6 + 5 blocks, then turns);
/// entity 2 walks 3 blocks, is removed, re-added 127 blocks away and walks 5 more, then leaves;
/// entity 3 walks 4, teleports, walks 3 + 4; entity 4 is added and removed in the same tick;
/// entity 6 appears by a bare pose (no add) and walks 3.
fn known_paths() -> Vec<(u32, Vec<Event>)> {
    let u = |v: f64| (v * 4096.0) as i64;
    vec![
        (1, vec![]),
        (
            2,
            vec![Event::EntityAdd {
                entity: 1,
                kind: 147,
                pose: at(0.0, 64.0, 0.0),
            }],
        ),
        (
            3,
            vec![
                Event::Pose {
                    entity: 1,
                    pose: at(3.0, 64.0, 4.0),
                },
                Event::EntityAdd {
                    entity: 2,
                    kind: 147,
                    pose: at(10.0, 70.0, 10.0),
                },
            ],
        ),
        (
            4,
            vec![
                Event::Pose {
                    entity: 1,
                    pose: at(3.0, 64.0, 4.0),
                },
                Event::Pose {
                    entity: 2,
                    pose: at(10.0, 70.0, 13.0),
                },
            ],
        ),
        (
            5,
            vec![
                Event::EntityRemove { entity: 2 },
                Event::EntityAdd {
                    entity: 3,
                    kind: 54,
                    pose: at(-5.0, 64.0, -5.0),
                },
            ],
        ),
        (
            6,
            vec![
                Event::Pose {
                    entity: 1,
                    pose: at(3.0, 64.0, 10.0),
                },
                Event::Pose {
                    entity: 3,
                    pose: at(-5.0, 64.0, -1.0),
                },
            ],
        ),
        (
            7,
            vec![Event::Teleport {
                entity: 3,
                pose: at(50.0, 80.0, 50.0),
            }],
        ),
        (
            8,
            vec![
                Event::EntityAdd {
                    entity: 2,
                    kind: 147,
                    pose: at(100.0, 70.0, 100.0),
                },
                Event::Pose {
                    entity: 3,
                    pose: at(50.0, 80.0, 53.0),
                },
            ],
        ),
        (
            9,
            vec![
                Event::Position {
                    entity: 1,
                    x: u(6.0),
                    y: u(60.0),
                    z: u(10.0),
                },
                Event::Pose {
                    entity: 2,
                    pose: at(103.0, 70.0, 104.0),
                },
            ],
        ),
        (
            10,
            vec![Event::Flags {
                entity: 1,
                flags: 1,
            }],
        ),
        (
            11,
            vec![Event::Rotation {
                entity: 1,
                yaw: 16384,
                pitch: 0,
            }],
        ),
        (
            12,
            vec![
                Event::PlayerLeave { entity: 2 },
                Event::Pose {
                    entity: 3,
                    pose: at(50.0, 84.0, 53.0),
                },
            ],
        ),
        (
            13,
            vec![
                Event::EntityAdd {
                    entity: 4,
                    kind: 1,
                    pose: at(1.0, 1.0, 1.0),
                },
                Event::EntityRemove { entity: 4 },
            ],
        ),
        (
            14,
            vec![Event::Pose {
                entity: 6,
                pose: at(2.0, 2.0, 2.0),
            }],
        ),
        (
            15,
            vec![Event::Pose {
                entity: 6,
                pose: at(2.0, 2.0, 5.0),
            }],
        ),
        (
            17,
            vec![Event::Checkpoint {
                entity: 1,
                index: 1,
            }],
        ),
        (20, vec![]),
    ]
}

fn names(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_failed_reel_writer_finish_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("taken.reel");
    // the final path is a directory: publication fails after the file was written
    std::fs::create_dir(&out).unwrap();
    let mut w = ReelWriter::create(&out, ReelOptions::compacted()).unwrap();
    for (t, e) in known_paths() {
        w.write_tick(t, &e).unwrap();
    }
    assert!(w.finish().is_err());
    assert_eq!(names(dir.path()), set(&["taken.reel"]));
    assert!(out.is_dir());
}

#[test]
fn a_compacted_file_that_fails_verification_is_never_published() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("big-meta.reel");
    // 17 MiB of user metadata: readable with raised limits, but not with the default ones the
    // compacted file is read back with
    let mut w = ReelWriter::create(&src, ReelOptions::default()).unwrap();
    w.user_metadata_mut().insert(
        "blob".into(),
        Value::ByteArray(fastnbt::ByteArray::new(vec![7; 17 << 20])),
    );
    for (t, e) in known_paths() {
        w.write_tick(t, &e).unwrap();
    }
    w.finish().unwrap();
    let source = Reader::open_with(
        std::sync::Arc::new(tickreel::storage::FileSource::open(&src).unwrap()),
        ReaderOptions {
            limits: Limits {
                max_metadata_bytes: 64 << 20,
                ..Limits::default()
            },
        },
    )
    .unwrap();
    let out = dir.path().join("out.reel");
    let r = compact(&source, &out, CompactOptions::default(), &mut |_, _| {});
    assert!(matches!(r, Err(Error::LimitExceeded(_))), "{r:?}");
    assert!(
        !out.exists(),
        "a file that failed verification was published"
    );
    assert_eq!(names(dir.path()), set(&["big-meta.reel"]));
}
