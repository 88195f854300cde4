//! `GET /api/terrain` against the real binary: a recording with terrain made through the real
//! `Recorder::offer_terrain` (`tickreel simulate --terrain`), every block of the answer equal to
//! the core's `WorldAt::block`, every column's highest block there with its face up, the bounds
//! said, the token checked, bad input answered with clear errors.

use crate::serve_support::*;

/// The blocks of an answer: (x, y, z, faces, state).
fn blocks_of(v: &serde_json::Value) -> Vec<(i32, i32, i32, u8, u32)> {
    let states: Vec<u32> = v["states"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s[0].as_u64().unwrap() as u32)
        .collect();
    let mut out = Vec::new();
    for s in v["sections"].as_array().unwrap() {
        let c: Vec<i32> = (0..3).map(|k| s[k].as_i64().unwrap() as i32).collect();
        let b = unbase64(s[4].as_str().unwrap());
        assert_eq!(b.len(), 5 * s[3].as_u64().unwrap() as usize);
        for r in b.chunks(5) {
            let i = u16::from_le_bytes([r[0], r[1]]) as i32;
            let slot = u16::from_le_bytes([r[3], r[4]]) as usize;
            out.push((
                c[0] * 16 + (i & 15),
                c[1] * 16 + (i >> 8),
                c[2] * 16 + ((i >> 4) & 15),
                r[2],
                states[slot],
            ));
        }
    }
    out
}

fn unbase64(s: &str) -> Vec<u8> {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    for c in s.as_bytes().chunks(4) {
        let (mut v, mut n) = (0u32, 0);
        for &ch in c {
            v <<= 6;
            if ch != b'=' {
                v |= A.iter().position(|&a| a == ch).unwrap() as u32;
                n += 1;
            }
        }
        out.extend_from_slice(&v.to_be_bytes()[1..n]);
    }
    out
}

#[test]
fn the_terrain_seen_equals_the_cores_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("t.reel");
    let plain = dir.path().join("plain.reel");
    ok(&[
        "simulate",
        "--out",
        rec.to_str().unwrap(),
        "--players",
        "2",
        "--ticks",
        "200",
        "--chunk-ticks",
        "100",
        "--terrain",
        "3",
    ]);
    simulate(&plain, 2, 50);
    let token = "terrain-token-terrain-token";
    let s = Server::start_env(
        &[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"],
        &[("TICKREEL_TOKEN", token)],
    );

    let (st, v) = s.get_with("/api/terrain?rec=t.reel&tick=150", Some(token));
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["tick"], 150);
    assert_eq!(v["sections_total"], 3 * 3 * 24);
    assert_eq!(v["truncated"], false);
    let blocks = blocks_of(&v);
    assert_eq!(blocks.len() as u64, v["blocks"].as_u64().unwrap());
    // far fewer than the area's blocks (3×3 chunks, 24 sections high: 884,736)
    assert!(
        blocks.len() > 2304 && blocks.len() < 100_000,
        "{} blocks",
        blocks.len()
    );

    let r = tickreel::play::Reader::open_any(&rec).unwrap();
    let w = r.world_at(150).unwrap();
    let t = r.terrain_at(150).unwrap();
    let air = |s: Option<u32>| s.is_none_or(|s| s == 0);
    let at = |x, y, z| tickreel::format::BlockPos { x, y, z };
    for &(x, y, z, faces, state) in &blocks {
        assert_eq!(
            w.block(at(x, y, z), &t),
            Some(state),
            "block at {x} {y} {z}"
        );
        assert_ne!(state, 0, "air sent at {x} {y} {z}");
        assert_ne!(faces, 0);
    }
    // every column's highest block (the area: chunks -1..=1) is there with its face up
    for x in -16..32 {
        for z in -16..32 {
            let top = (-64..320)
                .rev()
                .find(|&y| !air(w.block(at(x, y, z), &t)))
                .unwrap();
            let b = blocks.iter().find(|b| (b.0, b.1, b.2) == (x, top, z));
            assert!(
                b.is_some_and(|b| b.3 & 4 != 0),
                "column {x} {z}: its top at {top} is {b:?}"
            );
        }
    }

    // the token, like every route
    let (st, _) = s.get_with("/api/terrain?rec=t.reel", None);
    assert_eq!(st, 401);
    // a recording without terrain: nothing to draw
    let (st, v) = s.get_with("/api/terrain?rec=plain.reel", Some(token));
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["blocks"], 0);
    assert_eq!(v["sections_total"], 0);
    // bad input
    let (st, v) = s.get_with("/api/terrain?rec=t.reel&tick=soon", Some(token));
    assert_eq!(st, 400, "{v}");
    let (st, v) = s.get_with("/api/terrain?rec=nope.reel", Some(token));
    assert_eq!(st, 404, "{v}");
    // limits said in the answer: the server's own
    let (_, v) = s.get_with("/api/terrain?rec=t.reel", Some(token));
    assert_eq!(v["limits"]["sections"], 2048);
    assert_eq!(v["limits"]["blocks"], 262_144);
    assert_eq!(v["tick"], 0);
}
