//! `tickreel serve`'s memory under load on crafted recordings of a few hundred kilobytes that
//! decode to large worlds and terrains: 200 requests at once of every route that reads a
//! recording, and the server's peak resident memory stays under 512 MB (it went past a gigabyte
//! when every world rebuild merged the whole terrain and every terrain request built its own).
//! The answers are right, and a request that only reads what is open (a summary) is answered
//! whatever the decodes in flight.

use std::path::Path;

use tickreel::Pose;
use tickreel::format::{BlockPos, Event, Section};
use tickreel::record::{ChunkPolicy, ReelOptions, ReelWriter};

use crate::serve_support::Server;

/// A section whose 4,096 blocks each have a state of their own (a palette of 4,096: about 22 KB
/// decoded, and a body that compresses to almost nothing).
fn wide(cx: i32, cy: i32, cz: i32) -> Section {
    let base = 1 + ((cx + cy + cz).rem_euclid(4) as u32) * 4096;
    let states: Vec<u32> = (0..4096u32).map(|i| base + i).collect();
    Section::from_states(cx, cy, cz, &states).unwrap()
}

/// 600 ticks, a snapshot chunk every 20 (keyframe and delta world sections), a world of
/// `blocks` edited blocks from tick 0 and a few changes a tick, an entity walking; terrain:
/// `offers` offers of 540 wide sections each at new positions (ticks 0, 100, ...; an offer's
/// coded body is bounded by 16 MiB at 5 bytes a palette entry).
fn crafted(path: &Path, blocks: i32, offers: i32) {
    let mut w = ReelWriter::create(
        path,
        ReelOptions {
            chunk_policy: ChunkPolicy {
                chunk_ticks: 20,
                snapshot_interval: 20,
                ..ChunkPolicy::default()
            },
            ..ReelOptions::default()
        },
    )
    .unwrap();
    let pos = |i: i32| BlockPos::new(i % 512, 100 + i / (512 * 512), (i / 512) % 512);
    for t in 0..600u32 {
        let o = t as i32 / 100;
        if t % 100 == 0 && o < offers {
            w.offer_terrain(
                (0..540)
                    .map(|k| wide(o * 30 + k % 30, k / 30 % 6, k / 180))
                    .collect(),
            )
            .unwrap();
        }
        let p = Pose::from_f64(f64::from(t) * 0.2, 70.0, 3.0, 0.0, 0.0);
        let mut ev = vec![if t == 0 {
            Event::EntityAdd {
                entity: 1,
                kind: 1,
                pose: p,
            }
        } else {
            Event::Pose { entity: 1, pose: p }
        }];
        if t == 0 {
            // at most 32,768 blocks a change
            for from in (0..blocks).step_by(30_000) {
                ev.push(Event::BlockChanges {
                    cause: None,
                    blocks: (from..(from + 30_000).min(blocks))
                        .map(|i| (pos(i), 1 + (i as u32 % 30)))
                        .collect(),
                });
            }
        } else {
            ev.push(Event::BlockChange {
                pos: pos((t as i32 * 7919) % blocks),
                state: 40 + t % 9,
                cause: Some(1),
                block_entity: None,
            });
        }
        w.write_tick(t, &ev).unwrap();
    }
    w.finish().unwrap();
}

#[test]
fn two_hundred_requests_at_once_stay_under_512_mb() {
    let dir = tempfile::tempdir().unwrap();
    // a big keyframe world and 1,620 wide sections; a small world and 2,700 sections
    crafted(&dir.path().join("world.reel"), 250_000, 3);
    crafted(&dir.path().join("land.reel"), 1_000, 5);
    for f in ["world.reel", "land.reel"] {
        let size = std::fs::metadata(dir.path().join(f)).unwrap().len();
        eprintln!("{f}: {size} bytes");
        assert!(size < 2 << 20, "{f}: {size} bytes");
    }
    let d = dir.path().to_str().unwrap();
    // 200 requests at once on a loaded machine may wait longer than the default 10 s for a
    // place: this test is about memory, every one of them is to be answered
    let s = Server::start(&[d, "--listen", "127.0.0.1:0", "--max-wait", "600"]);
    let routes = |rec: &str, k: usize| -> Vec<String> {
        let tick = [10, 130, 250, 370, 490, 599][k % 6];
        vec![
            format!("/api/blocks?rec={rec}&tick={tick}"),
            format!("/api/terrain?rec={rec}&tick={tick}"),
            format!("/api/markers?rec={rec}"),
            format!("/api/blocks?rec={rec}"),
            format!("/api/info?rec={rec}"),
            format!("/api/frames?rec={rec}&from={tick}&count=20"),
            format!("/api/seek?rec={rec}&tick={tick}"),
            format!("/api/ghost?rec={rec}&entity=1&ghost_entity=1"),
            "/api/recordings".to_string(),
        ]
    };
    let mut paths = Vec::new();
    for k in 0.. {
        for rec in ["world.reel", "land.reel"] {
            paths.extend(routes(rec, k));
        }
        if paths.len() >= 200 {
            break;
        }
    }
    paths.truncate(200);
    let answers: Vec<(String, u16, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = paths
            .iter()
            .map(|p| {
                let s = &s;
                scope.spawn(move || {
                    let (status, body) = s.text(p);
                    (p.clone(), status, body)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let peak = s.peak_rss();
    eprintln!(
        "serve: peak resident memory {} MiB after {} requests at once",
        peak >> 20,
        answers.len()
    );
    for (p, status, body) in &answers {
        let ok = *status == 200 || (p.starts_with("/api/ghost") && *status < 500);
        assert!(ok, "{p}: {status} {}", &body[..body.len().min(300)]);
    }
    // the answers are the core's
    let world = tickreel::play::Reader::open_path(dir.path().join("world.reel")).unwrap();
    for (p, _, body) in &answers {
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        if p.starts_with("/api/blocks?rec=world.reel&tick=") {
            let tick = v["tick"].as_u64().unwrap() as u32;
            let w = world.world_at(tick).unwrap();
            assert_eq!(v["count"].as_u64().unwrap() as usize, w.world.block_count());
            assert_eq!(v["complete"], true);
        }
        if p.starts_with("/api/terrain?rec=land.reel") {
            let tick = v["tick"].as_u64().unwrap() as u32;
            let total = world_sections(dir.path(), "land.reel", tick);
            assert_eq!(v["sections_total"].as_u64().unwrap() as usize, total, "{p}");
            assert_eq!(v["truncated"], total > 2048, "{p}");
        }
    }
    assert!(
        peak < 512 << 20,
        "serve's peak resident memory: {} MiB",
        peak >> 20
    );
}

/// The number of terrain sections in effect at `tick` in `dir/name`, by the core.
fn world_sections(dir: &Path, name: &str, tick: u32) -> usize {
    tickreel::play::Reader::open_path(dir.join(name))
        .unwrap()
        .terrain_at(tick)
        .unwrap()
        .len()
}
