//! `tickreel import` of the JSON lines `tickreel dump` prints: dump → import → dump gives the same
//! lines and the same states at every tick, and bad lines fail naming the file and the line.

use std::path::{Path, PathBuf};

use crate::tool::{assert_ok, p, stderr, stdout, tickreel};
use tickreel::format::flag;
use tickreel::format::{BlockPos, EntityInfo, EventType, Gap, PaletteKind, UseTarget};
use tickreel::play::Reader;
use tickreel::record::{ChunkPolicy, ReelOptions, ReelWriter};
use tickreel::{Event, Pose};

fn golden() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../core/tests/data/golden.reel")
}

/// `tickreel dump [--metadata] FILE` as text.
fn dump(file: &Path, metadata: bool) -> String {
    let mut args = vec!["dump"];
    if metadata {
        args.push("--metadata");
    }
    args.push(p(file));
    let o = tickreel(&args);
    assert_ok(&o);
    stdout(&o)
}

/// Imports `input` to `out` with `extra` arguments; returns the tool's output.
fn import(input: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["import", p(input), p(out)];
    args.extend_from_slice(extra);
    tickreel(&args)
}

/// Asserts that two recordings have the same ticks and the same entity states at every tick of
/// their span, the same header fields and the same metadata (stats included).
#[track_caller]
fn assert_same_recording(a: &Path, b: &Path) {
    let ra = Reader::open_path(a).unwrap();
    let rb = Reader::open_path(b).unwrap();
    assert_eq!(ra.first_tick(), rb.first_tick());
    assert_eq!(ra.last_tick(), rb.last_tick());
    let (ha, hb) = (ra.header(), rb.header());
    assert_eq!(ha.tick_rate_millihz, hb.tick_rate_millihz);
    assert_eq!(ha.timestamp_ms, hb.timestamp_ms);
    assert_eq!(ha.world_id, hb.world_id);
    assert_eq!(ha.world_version, hb.world_version);
    assert_eq!(ha.recording_id, hb.recording_id);
    assert_eq!(ha.game_data_version, hb.game_data_version);
    let (ma, mb) = (ra.metadata(), rb.metadata());
    assert_eq!(ma.user, mb.user);
    assert_eq!(ma.library.entities, mb.library.entities);
    assert_eq!(ma.library.event_types, mb.library.event_types);
    assert_eq!(ma.library.gaps, mb.library.gaps);
    assert_eq!(ma.library.palette, mb.library.palette);
    assert_eq!(
        ma.library.stats.ticks_written,
        mb.library.stats.ticks_written
    );
    assert_eq!(ma.library.stats.events, mb.library.stats.events);
    assert_eq!(ma.library.stats.pose_samples, mb.library.stats.pose_samples);
    assert_eq!(
        ma.library.stats.dropped_ticks,
        mb.library.stats.dropped_ticks
    );
    assert_eq!(ma.library.analysis, mb.library.analysis);
    let (Some(first), Some(last)) = (ra.first_tick(), ra.last_tick()) else {
        return;
    };
    let ta: Vec<_> = ra.ticks(first, last).map(Result::unwrap).collect();
    let tb: Vec<_> = rb.ticks(first, last).map(Result::unwrap).collect();
    assert_eq!(ta.len(), tb.len());
    for (x, y) in ta.iter().zip(&tb) {
        assert_eq!((x.tick, &x.events), (y.tick, &y.events));
    }
    for tick in first..=last {
        let sa = ra.seek(tick).unwrap();
        let sb = rb.seek(tick).unwrap();
        assert_eq!(
            sa.entities, sb.entities,
            "entity states differ at tick {tick}"
        );
        let snap = |r: &Reader, s: Option<usize>| s.map(|c| r.read_chunk(c).unwrap().snapshot);
        assert_eq!(
            snap(&ra, sa.snapshot_chunk),
            snap(&rb, sb.snapshot_chunk),
            "snapshots differ at tick {tick}"
        );
    }
}

/// dump --metadata → import → dump --metadata, checked line for line and state for state;
/// returns the dump.
fn round_trip(src: &Path, dir: &Path) -> String {
    let first = dump(src, true);
    let jsonl = dir.join("dump.jsonl");
    std::fs::write(&jsonl, &first).unwrap();
    let out = dir.join("back.reel");
    let o = import(&jsonl, &out, &[]);
    assert_ok(&o);
    assert!(
        stdout(&o).contains("with the recording's metadata"),
        "{}",
        stdout(&o)
    );
    let second = dump(&out, true);
    assert_eq!(first, second, "dump of the import differs");
    // And the plain dump, as it always was, too.
    assert_eq!(dump(src, false), dump(&out, false));
    assert_same_recording(src, &out);
    first
}

#[test]
fn the_golden_file_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let text = round_trip(&golden(), dir.path());
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let rec = &first["recording"];
    assert_eq!(rec["tick_rate_millihz"], 20_000);
    assert_eq!(rec["entities"][0]["name"], "Steve");
    assert_eq!(rec["event_types"][0]["name"], "minecraft:block_change");
    assert_eq!(rec["gaps"], serde_json::json!([[5, 5], [13, 13]]));
    assert_eq!(rec["user"]["map"], "golden_parkour");
    assert_eq!(text.matches("{\"snapshot\":").count(), 2, "{text}");
    assert!(text.contains("\"type\":\"custom\""));
    assert!(text.contains("\"type\":\"velocity\""));
    // The world events of tick 9 and the palette naming their ids.
    assert!(
        !rec["palette"]["blocks"].as_array().unwrap().is_empty(),
        "{rec}"
    );
    for kind in ["block_change", "swing", "attack", "equipment", "chat"] {
        assert!(
            text.contains(&format!("\"type\":\"{kind}\"")),
            "no {kind} in the dump"
        );
    }
    assert!(text.contains("\"state_name\":\"minecraft:"), "{text}");
}

#[test]
fn a_simulated_recording_with_churn_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let sim = dir.path().join("sim.reel");
    let o = tickreel(&[
        "simulate",
        "--out",
        p(&sim),
        "--players",
        "6",
        "--ticks",
        "900",
        "--churn",
        "0.01",
        "--seed",
        "7",
    ]);
    assert_ok(&o);
    let text = round_trip(&sim, dir.path());
    for kind in [
        "entity_add",
        "player_leave",
        "teleport",
        "custom",
        "flags",
        "pose",
    ] {
        assert!(
            text.contains(&format!("\"type\":\"{kind}\"")),
            "the simulation has no {kind} event"
        );
    }
}

/// A recording with every event kind a file keeps, an entity removed and added again, several
/// chunks and snapshots, written directly.
fn every_kind(path: &Path) {
    let mut options = ReelOptions::compacted();
    options.chunk_policy = ChunkPolicy {
        chunk_ticks: 7,
        chunk_bytes: 1 << 20,
        snapshot_interval: 600,
        zstd_level: 3,
    };
    options.identity.tick_rate_millihz = 50_000;
    options.identity.timestamp_ms = -5;
    options.identity.game_data_version = 9;
    options.identity.world_id = [7; 16];
    let mut w = ReelWriter::create(path, options).unwrap();
    w.set_recording_id([3; 16]);
    w.register_entity(EntityInfo {
        id: 1,
        kind: 5,
        uuid: None,
        name: Some("zed \"quoted\" ✓".into()),
    })
    .unwrap();
    w.register_event_type(EventType {
        id: 42,
        name: "game:thing".into(),
        version: 2,
    })
    .unwrap();
    w.set_gaps(vec![Gap { from: 30, to: 31 }], 2);
    w.register_name(PaletteKind::Block, 1, "minecraft:stone")
        .unwrap();
    w.register_name(PaletteKind::Block, 77, "minecraft:oak_sign[rotation=4]")
        .unwrap();
    w.register_name(PaletteKind::Item, 3, "minecraft:iron_sword")
        .unwrap();
    w.register_name(PaletteKind::DamageCause, 4, "minecraft:fall")
        .unwrap();
    w.set_user_metadata(
        "nested",
        fastnbt::Value::List(vec![
            fastnbt::Value::Long(i64::MIN),
            fastnbt::Value::Long(1),
        ]),
    )
    .unwrap();
    w.set_user_metadata("f", fastnbt::Value::Float(0.1))
        .unwrap();
    let pose = |i: i64| Pose {
        x: i * 37 - 100_000,
        y: 64 * 4096 + i,
        z: -(i * i),
        yaw: i * 9001 - 3_000_000,
        pitch: -i * 11,
    };
    for t in 0..60u32 {
        let i = i64::from(t);
        if t % 20 == 0 {
            w.offer_snapshot(format!("snapshot at {t}").into_bytes())
                .unwrap();
        }
        let mut ev = Vec::new();
        match t {
            0 => {
                ev.push(Event::EntityAdd {
                    entity: 1,
                    kind: 5,
                    pose: pose(0),
                });
                ev.push(Event::EntityAdd {
                    entity: 2,
                    kind: 6,
                    pose: pose(1),
                });
            }
            10 => ev.push(Event::EntityRemove { entity: 2 }),
            12 => ev.push(Event::EntityAdd {
                entity: 2,
                kind: 8,
                pose: pose(2),
            }),
            15 => ev.push(Event::Teleport {
                entity: 1,
                pose: pose(1000),
            }),
            40 => ev.push(Event::PlayerLeave { entity: 2 }),
            _ => {}
        }
        if t != 15 {
            ev.push(Event::Pose {
                entity: 1,
                pose: pose(i),
            });
        }
        if t % 3 == 0 {
            ev.push(Event::Flags {
                entity: 1,
                flags: if t % 2 == 0 {
                    flag::ON_GROUND | 1 << 30
                } else {
                    0
                },
            });
            ev.push(Event::Velocity {
                entity: 1,
                x: i * 3,
                y: -i,
                z: 8001,
            });
        }
        if t % 5 == 0 {
            ev.push(Event::Checkpoint {
                entity: 1,
                index: t / 5,
            });
            ev.push(Event::Custom {
                type_id: 42,
                data: vec![t as u8; t as usize],
            });
            ev.push(Event::Extension {
                kind: 0x4a + (t / 5) as u8,
                data: vec![0xff, t as u8],
            });
        }
        if t == 21 {
            world_events(&mut ev);
        }
        if t == 33 {
            continue; // an empty tick
        }
        w.write_tick(t, &ev).unwrap();
    }
    w.finish().unwrap();
}

/// One of each world event, every optional part present and absent.
fn world_events(ev: &mut Vec<Event>) {
    let p = BlockPos::new;
    ev.extend([
        Event::BlockChange {
            pos: p(-30_000_000, -64, 30_000_000),
            state: 1,
            cause: Some(1),
            block_entity: None,
        },
        Event::BlockChange {
            pos: p(5, 70, 5),
            state: 77,
            cause: None,
            block_entity: Some(vec![10, 0, 0, 0]),
        },
        Event::BlockChanges {
            cause: None,
            blocks: vec![(p(0, 60, 0), 1), (p(1, 60, 0), 1), (p(-9, 3, 2), 0)],
        },
        Event::BlockChanges {
            cause: Some(u32::MAX),
            blocks: vec![(p(7, 7, 7), 2)],
        },
        Event::Swing { entity: 1, hand: 1 },
        Event::Attack {
            attacker: 1,
            target: 2,
        },
        Event::Use {
            entity: 1,
            hand: 0,
            item: 3,
            target: UseTarget::Nothing,
        },
        Event::Use {
            entity: 1,
            hand: 1,
            item: 0,
            target: UseTarget::Entity(2),
        },
        Event::Use {
            entity: 1,
            hand: 0,
            item: 3,
            target: UseTarget::Block(p(5, 70, 5)),
        },
        Event::Damage {
            entity: 2,
            amount: 350,
            cause: 4,
            source: Some(1),
        },
        Event::Damage {
            entity: 2,
            amount: 1,
            cause: 0,
            source: None,
        },
        Event::Health {
            entity: 2,
            health: 1999,
        },
        Event::Equipment {
            entity: 1,
            slot: 200,
            item: 3,
            count: 64,
        },
        Event::Chat {
            sender: Some(1),
            channel: 1,
            text: "hi \"there\" ✓".into(),
        },
        Event::Chat {
            sender: None,
            channel: 99,
            text: String::new(),
        },
        Event::CustomAt {
            type_id: 42,
            entity: Some(2),
            position: Some(Box::new([4096, -1, 1 << 30])),
            data: vec![1, 2],
        },
        Event::CustomAt {
            type_id: 43,
            entity: None,
            position: None,
            data: vec![],
        },
    ]);
}

#[test]
fn every_event_kind_and_metadata_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("kinds.reel");
    every_kind(&src);
    let text = round_trip(&src, dir.path());
    for kind in [
        "entity_add",
        "entity_remove",
        "pose",
        "teleport",
        "flags",
        "checkpoint",
        "velocity",
        "player_leave",
        "custom",
        "extension",
        "block_change",
        "block_changes",
        "swing",
        "attack",
        "use",
        "damage",
        "health",
        "equipment",
        "chat",
        "custom_at",
    ] {
        assert!(
            text.contains(&format!("\"type\":\"{kind}\"")),
            "no {kind} in the dump"
        );
    }
    assert!(text.matches("{\"snapshot\":").count() >= 3, "{text}");
}

#[test]
fn a_recording_without_ticks_keeps_its_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("meta.jsonl");
    std::fs::write(
        &jsonl,
        "{\"recording\":{\"game_data_version\":7,\"entities\":[{\"id\":4,\"kind\":2}]}}\n\
         {\"tick\":3,\"events\":[]}\n",
    )
    .unwrap();
    let src = dir.path().join("meta.reel");
    assert_ok(&import(&jsonl, &src, &[]));
    let text = dump(&src, true);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("\"game_data_version\":7"), "{text}");
    assert_eq!(dump(&src, false), "");
    let sub = dir.path().join("again");
    std::fs::create_dir(&sub).unwrap();
    assert_eq!(round_trip(&src, &sub), text);
}

#[test]
fn a_plain_dump_imports_with_the_given_tick_rate() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("plain.jsonl");
    std::fs::write(&jsonl, dump(&golden(), false)).unwrap();
    let out = dir.path().join("plain.reel");
    let o = import(&jsonl, &out, &["--tick-rate", "50"]);
    assert_ok(&o);
    assert_eq!(dump(&out, false), dump(&golden(), false));
    let r = Reader::open_path(&out).unwrap();
    assert_eq!(r.header().tick_rate_millihz, 50_000);
    assert!(r.metadata().user.contains_key("import_source"));
    assert!(r.metadata().library.entities.is_empty());
    let types = &r.metadata().library.event_types;
    assert_eq!(types.len(), 1);
    assert_eq!(
        (types[0].id, types[0].name.as_str()),
        (100, "minecraft:block_change")
    );
    // One name per custom type.
    let twice = dir.path().join("twice.jsonl");
    std::fs::write(
        &twice,
        "{\"tick\":1,\"events\":[{\"type\":\"custom\",\"type_id\":4,\"name\":\"a\",\"data\":\"\"}]}\n\
         {\"tick\":2,\"events\":[{\"type\":\"custom\",\"type_id\":4,\"name\":\"b\",\"data\":\"\"}]}\n",
    )
    .unwrap();
    let o = import(&twice, &dir.path().join("twice.reel"), &[]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains(
            "line 2: event 1 of tick 2: custom type 4 is named \"b\" here and otherwise before"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_format_is_detected_or_given() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("t.csv");
    std::fs::write(&csv, "tick,entity,x,y,z,yaw,pitch\n0,1,0,0,0,0,0\n").unwrap();
    let out = dir.path().join("csv.reel");
    assert_ok(&import(&csv, &out, &[]));
    // Forced formats read the file as told.
    let o = import(&csv, &dir.path().join("x.reel"), &["--format", "json"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("line 1: not valid JSON"),
        "{}",
        stderr(&o)
    );
    let jsonl = dir.path().join("d.jsonl");
    std::fs::write(&jsonl, dump(&golden(), true)).unwrap();
    let o = import(&jsonl, &dir.path().join("y.reel"), &["--format", "csv"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("unknown column"), "{}", stderr(&o));
    assert_ok(&import(
        &jsonl,
        &dir.path().join("z.reel"),
        &["--format", "json"],
    ));
}

#[test]
fn outputs_are_checked_as_for_csv() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("d.jsonl");
    let text = dump(&golden(), true);
    std::fs::write(&jsonl, &text).unwrap();
    let out = dir.path().join("o.reel");
    std::fs::write(&out, b"keep").unwrap();
    let o = import(&jsonl, &out, &[]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap(), b"keep");
    let o = import(&jsonl, &jsonl, &["--force"]);
    assert!(stderr(&o).contains("refusing to write"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&jsonl).unwrap(), text);
    assert_ok(&import(&jsonl, &out, &["--force"]));
    assert_eq!(dump(&out, true), text);
}

#[test]
fn bad_lines_fail_naming_the_file_and_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = r#"{"tick":3,"events":[{"type":"entity_add","entity":1,"kind":0,"x":0,"y":0,"z":0,"yaw":0,"pitch":0}]}"#;
    let huge = "9".repeat(100_000);
    let long_type = "w".repeat(100_000);
    let cases: Vec<(String, &str)> = vec![
        (
            format!("{good}\n{{\"tick\":4,\"events\":[}}"),
            "line 2: not valid JSON",
        ),
        (format!("{good}\n\n[1,2]"), "line 3: "),
        (
            format!("{good}\n{{\"tick\":4,\"events\":[{{\"type\":\"warp\",\"entity\":1}}]}}"),
            "line 2: event 1 of tick 4: unknown event type \"warp\"",
        ),
        (
            format!("{good}\n{{\"tick\":3,\"events\":[]}}"),
            "line 2: tick 3 comes after tick 3 (line 1)",
        ),
        (
            format!("{good}\n{{\"tick\":2,\"events\":[]}}"),
            "line 2: tick 2 comes after tick 3",
        ),
        (
            format!("{good}\n{{\"tick\":{huge},\"events\":[]}}"),
            "line 2: not valid JSON (number out of range",
        ),
        (
            format!("{good}\n{{\"tick\":4294967296,\"events\":[]}}"),
            "tick 4294967296 is not an unsigned 32-bit integer",
        ),
        (
            format!(
                "{good}\n{{\"tick\":5,\"events\":[{{\"type\":\"pose\",\"entity\":1,\"x\":1e30,\"y\":0,\"z\":0,\"yaw\":0,\"pitch\":0}}]}}"
            ),
            "line 2: event 1 of tick 5: x 1e+30 is out of range",
        ),
        (
            format!(
                "{good}\n{{\"tick\":5,\"events\":[{{\"type\":\"pose\",\"entity\":1,\"x\":{huge}.5,\"y\":0,\"z\":0,\"yaw\":0,\"pitch\":0}}]}}"
            ),
            "line 2: ",
        ),
        (
            format!("{good}\n{{\"tick\":5,\"events\":[{{\"type\":\"{long_type}\"}}]}}"),
            "unknown event type \"www",
        ),
        (
            format!("{good}\n{{\"recording\":{{}}}}"),
            "line 2: a \"recording\" line must be the first line",
        ),
        (
            format!("{good}\n{{\"snapshot\":{{\"tick\":9,\"data\":\"00\"}}}}"),
            "line 2: a snapshot with no tick after it",
        ),
        (
            format!("{good}\n{{\"frame\":1}}"),
            "line 2: expected a line",
        ),
        (
            format!(
                "{good}\n{{\"tick\":4,\"events\":[{{\"type\":\"entity_remove\",\"entity\":1,\"entity\":2}}]}}"
            ),
            "line 2: not valid JSON (the key \"entity\" appears twice in one object",
        ),
        ("\n\n".to_string(), "empty file"),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let input = dir.path().join(format!("bad{i}.jsonl"));
        std::fs::write(&input, text).unwrap();
        let out = dir.path().join(format!("bad{i}.reel"));
        let o = import(&input, &out, &["--format", "json"]);
        let err = stderr(&o);
        assert!(!o.status.success(), "case {i} imported");
        assert!(err.contains(want), "case {i}: stderr lacks {want:?}: {err}");
        assert!(err.contains(p(&input)), "case {i}: no path: {err}");
        assert!(
            err.len() < 600,
            "case {i}: {} bytes of error: {err}",
            err.len()
        );
        assert!(!out.exists(), "case {i} left {}", out.display());
    }
}

/// Yields `head`, then `fill` bytes of one unterminated JSON string, counting what was read.
struct HugeLine {
    head: Vec<u8>,
    fill: u64,
    read: std::rc::Rc<std::cell::Cell<u64>>,
}

impl std::io::Read for HugeLine {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = if !self.head.is_empty() {
            let n = self.head.len().min(buf.len());
            buf[..n].copy_from_slice(&self.head[..n]);
            self.head.drain(..n);
            n
        } else {
            let n = (self.fill.min(buf.len() as u64)) as usize;
            buf[..n].fill(b'0');
            self.fill -= n as u64;
            n
        };
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

#[test]
fn a_huge_line_is_refused_while_it_is_read() {
    use tickreel_cli::json_import::{MAX_LINE_BYTES, import_from};
    let dir = tempfile::tempdir().unwrap();
    let good = r#"{"tick":3,"events":[{"type":"entity_add","entity":1,"kind":0,"x":0,"y":0,"z":0,"yaw":0,"pitch":0}]}"#;
    let read = std::rc::Rc::new(std::cell::Cell::new(0));
    let fill = MAX_LINE_BYTES as u64 + (32 << 20);
    let input = HugeLine {
        head: format!("{good}\n{{\"snapshot\":{{\"tick\":9,\"data\":\"").into_bytes(),
        fill,
        read: read.clone(),
    };
    let out = dir.path().join("huge.reel");
    let e = import_from(
        input,
        Path::new("huge.jsonl"),
        &out,
        ReelOptions::default(),
        false,
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        matches!(e, tickreel::Error::LimitExceeded(_)),
        "not a limit: {msg}"
    );
    assert!(
        msg.contains(&format!(
            "huge.jsonl: line 2: longer than {MAX_LINE_BYTES} bytes"
        )),
        "{msg}"
    );
    // Refused once the limit was passed, not after the whole line: what was read is the first
    // line, the limit and at most a buffer more.
    assert!(
        read.get() <= (good.len() + MAX_LINE_BYTES + (64 << 10)) as u64,
        "read {} of {} bytes",
        read.get(),
        fill
    );
    assert!(!out.exists());
}

/// The CSV import bounds its lines the same way (far lower: a row is a few numbers).
#[test]
fn a_huge_csv_line_is_refused_while_it_is_read() {
    use tickreel_cli::csv::import::{MAX_LINE_BYTES, import_from};
    let dir = tempfile::tempdir().unwrap();
    let read = std::rc::Rc::new(std::cell::Cell::new(0));
    let fill = 64 << 20;
    let input = HugeLine {
        head: b"tick,entity,x,y,z,yaw,pitch\n0,1,0,0,0,0,0\n1,1,".to_vec(),
        fill,
        read: read.clone(),
    };
    let out = dir.path().join("huge.reel");
    let e = import_from(
        input,
        Path::new("huge.csv"),
        &out,
        ReelOptions::default(),
        false,
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, tickreel::Error::LimitExceeded(_)), "{msg}");
    assert!(
        msg.contains(&format!(
            "huge.csv: line 3: longer than {MAX_LINE_BYTES} bytes"
        )),
        "{msg}"
    );
    assert!(
        read.get() <= MAX_LINE_BYTES as u64 + (1 << 20),
        "read {} of {fill} bytes",
        read.get()
    );
    assert!(!out.exists());
}

/// A recording that starts in the middle of a world without a snapshot at its first tick (what
/// `dump --metadata` prints of one: `starts_mid_world` in its `recording` line's NBT, no
/// `snapshot` line): imported without a snapshot there either. An empty one would say the world
/// at the first tick is known and empty, and every world rebuilt from it complete, where the
/// blocks edited before the recording are unknown; compaction keeps it so.
#[test]
fn a_recording_starting_mid_world_is_imported_without_an_empty_first_snapshot() {
    use tickreel::format::{LibraryMeta, Metadata};
    let dir = tempfile::tempdir().unwrap();
    let nbt = Metadata {
        library: LibraryMeta {
            starts_mid_world: true,
            ..LibraryMeta::default()
        },
        ..Metadata::default()
    }
    .encode()
    .unwrap();
    let hex: String = nbt.iter().map(|b| format!("{b:02x}")).collect();
    let add = r#"{"type": "entity_add", "entity": 1, "kind": 1, "x": 0, "y": 64, "z": 0, "yaw": 0, "pitch": 0}"#;
    let block = r#"{"type": "block_change", "x": 1, "y": 64, "z": 1, "state": 5}"#;
    let text = format!(
        "{{\"recording\": {{\"tick_rate_millihz\": 20000, \"nbt\": \"{hex}\"}}}}\n\
         {{\"tick\": 40, \"events\": [{add}]}}\n\
         {{\"tick\": 41, \"events\": [{block}]}}\n"
    );
    let jsonl = dir.path().join("mid.jsonl");
    std::fs::write(&jsonl, text).unwrap();
    let out = dir.path().join("mid.reel");
    assert_ok(&import(&jsonl, &out, &[]));
    let r = Reader::open_path(&out).unwrap();
    assert!(r.metadata().library.starts_mid_world);
    assert!(
        !r.index()[0].has_snapshot(),
        "no snapshot at the first tick: {:?}",
        r.index()[0]
    );
    let w = r.world_at(41).unwrap();
    assert!(!w.complete, "the world before tick 40 is unknown");
    assert_eq!(w.world.block_count(), 1);
    // dumped again: still no snapshot line
    assert!(!dump(&out, true).contains("\"snapshot\""));
    let c = dir.path().join("c.reel");
    assert_ok(&tickreel(&["compact", p(&out), p(&c)]));
    let back = Reader::open_path(&c).unwrap();
    assert!(!back.index()[0].has_snapshot());
    assert!(!back.world_at(41).unwrap().complete);
}
