//! The edited blocks as of a tick (`/api/blocks?rec=R&tick=T`: the world the core rebuilds at
//! the tick, and the changes of the ticks after it), from the API and in headless Chromium: a
//! block placed at tick T shows after a seek past T and is gone after a seek before it, whether
//! the page asks the server again (a seek out of the window of changes it holds) or follows the
//! changes it holds (playing through T, forward and back). Fails (never skips) when the browser
//! cannot start.

use std::path::Path;

use crate::serve_support::page::*;
use crate::serve_support::*;
use serde_json::{Value, json};
use tickreel_bench::browser::Browser;

/// Where and when the blocks of [`block_recording`] change.
const STONE: [i64; 3] = [3, 65, 4];
const DIRT: [i64; 3] = [5, 65, 5];
const PLACED: u32 = 7_000;
const DUG: u32 = 7_500;
const TICKS: u32 = 8_000;

/// 8,000 ticks of Alice (#1) walking +x; dirt placed at (5, 65, 5) at tick 100 (it stays: a
/// seek far from it finds it in the world the reader rebuilds from a snapshot, not in changes);
/// stone placed at (3, 65, 4) at tick 7,000 and dug out (air) at 7,500.
fn block_recording(path: &Path) {
    use tickreel::format::{BlockPos, EntityInfo, Event, PaletteKind, encode_batch};
    use tickreel::{Engine, EngineOptions, Pose, RecorderOptions};
    let engine = Engine::new(EngineOptions::default()).unwrap();
    let rec = engine
        .start_recording(path, RecorderOptions::default())
        .unwrap();
    rec.register_entity(EntityInfo {
        id: 1,
        kind: 147,
        uuid: None,
        name: Some("Alice".into()),
    })
    .unwrap();
    for (state, name) in [
        (0, "minecraft:air"),
        (1, "minecraft:stone"),
        (2, "minecraft:dirt"),
    ] {
        rec.register_name(PaletteKind::Block, state, name).unwrap();
    }
    let at = |p: [i64; 3]| BlockPos::new(p[0] as i32, p[1] as i32, p[2] as i32);
    let place = |p: [i64; 3], state: u32| Event::BlockChange {
        pos: at(p),
        state,
        cause: Some(1),
        block_entity: None,
    };
    let mut batch = Vec::new();
    for t in 0..TICKS {
        let pose = Pose::from_f64(f64::from(t % 400) * 0.05, 64.0, 0.0, 0.0, 0.0);
        let mut ev = vec![if t == 0 {
            Event::EntityAdd {
                entity: 1,
                kind: 147,
                pose,
            }
        } else {
            Event::Pose { entity: 1, pose }
        }];
        match t {
            100 => ev.push(place(DIRT, 2)),
            PLACED => ev.push(place(STONE, 1)),
            DUG => ev.push(place(STONE, 0)),
            _ => {}
        }
        batch.clear();
        encode_batch(&ev, &mut batch).unwrap();
        rec.submit_tick(t, &batch).unwrap();
    }
    rec.finish().unwrap().wait().unwrap();
    engine.shutdown();
}

fn sorted_blocks(v: &Value) -> Vec<Vec<i64>> {
    let mut b: Vec<Vec<i64>> = v
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_i64().unwrap())
                .collect()
        })
        .collect();
    b.sort();
    b
}

fn block(p: [i64; 3], state: i64) -> Vec<i64> {
    vec![p[0], p[1], p[2], state]
}

#[test]
fn blocks_as_of_a_tick_from_the_api() {
    let dir = tempfile::tempdir().unwrap();
    block_recording(&dir.path().join("blocks.reel"));
    let s = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let dirt = block(DIRT, 2);
    let stone = block(STONE, 1);

    // before the stone: the dirt alone (the world rebuilt from a snapshot, not from tick 0),
    // and the changes after it: the stone placed and dug out
    let v = s.json(&format!("/api/blocks?rec=blocks.reel&tick={}", PLACED - 1));
    assert_eq!(v["tick"], PLACED - 1, "{v}");
    assert_eq!(sorted_blocks(&v["blocks"]), vec![dirt.clone()], "{v}");
    assert_eq!(v["count"], 1);
    assert_eq!(v["complete"], true);
    assert_eq!(
        v["to"],
        TICKS - 1,
        "the rest of the recording is in the window: {v}"
    );
    assert_eq!(
        v["changes"],
        json!([
            [PLACED, STONE[0], STONE[1], STONE[2], 1],
            [DUG, STONE[0], STONE[1], STONE[2], 0]
        ])
    );
    // at the tick it is placed, and while it stands
    for t in [PLACED, DUG - 1] {
        let v = s.json(&format!("/api/blocks?rec=blocks.reel&tick={t}"));
        assert_eq!(
            sorted_blocks(&v["blocks"]),
            vec![stone.clone(), dirt.clone()],
            "tick {t}: {v}"
        );
    }
    // dug out: air is no block
    let v = s.json(&format!("/api/blocks?rec=blocks.reel&tick={DUG}"));
    assert_eq!(sorted_blocks(&v["blocks"]), vec![dirt.clone()], "{v}");
    assert_eq!(v["changes"], json!([]));
    // the changes cover at most 6,000 ticks; a tick past the end is the last one
    let v = s.json("/api/blocks?rec=blocks.reel&tick=50");
    assert_eq!(
        (v["tick"].clone(), v["to"].clone()),
        (json!(50), json!(6050))
    );
    assert_eq!(v["blocks"], json!([]));
    assert_eq!(v["changes"], json!([[100, DIRT[0], DIRT[1], DIRT[2], 2]]));
    let v = s.json("/api/blocks?rec=blocks.reel&tick=4000000000");
    assert_eq!(v["tick"], TICKS - 1);
    // bad arguments are 400, an unknown recording 404
    assert_eq!(s.get("/api/blocks?rec=blocks.reel&tick=-1").0, 400);
    assert_eq!(s.get("/api/blocks?rec=none.reel&tick=5").0, 404);
}

#[test]
fn a_block_shows_in_the_viewer_from_the_tick_it_was_placed() {
    let dir = tempfile::tempdir().unwrap();
    block_recording(&dir.path().join("blocks.reel"));
    let s = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let mut b = browser();
    b.open(&format!("{}/?rec=blocks.reel", s.base)).unwrap();
    wait_for(&mut b, "!!window.tickreelViewer");
    assert_eq!(b.eval("window.tickreelViewer.ready"), json!(true));
    let blocks_shown = |b: &mut Browser| {
        let st = state(b);
        (sorted_blocks(&st["mapBlocks"]), st)
    };
    let dirt = block(DIRT, 2);
    let stone = block(STONE, 1);
    let asked = |t: u32| {
        format!(
            "(() => {{ const s = window.tickreelViewer.state(); return s.world.blocksAsked === {t} \
             && s.world.blocks.base === {t} && s.shownTick === {t}; }})()"
        )
    };

    // seeks out of the window held (it opened at tick 0: changes up to 6,000): the page asks
    // for the blocks at the tick, and shows them
    b.eval(&format!("window.tickreelViewer.seek({})", PLACED + 100));
    wait_for(&mut b, &asked(PLACED + 100));
    let (shown, st) = blocks_shown(&mut b);
    assert_eq!(shown, vec![stone.clone(), dirt.clone()], "{st}");
    b.eval(&format!("window.tickreelViewer.seek({})", PLACED - 100));
    wait_for(&mut b, &asked(PLACED - 100));
    let (shown, st) = blocks_shown(&mut b);
    assert_eq!(shown, vec![dirt.clone()], "{st}");
    assert_eq!(st["errors"], json!([]), "{st}");

    // a seek inside the window: the changes held, no request
    let requests = st["world"]["blockRequests"].clone();
    b.eval(&format!("window.tickreelViewer.seek({})", PLACED + 10));
    wait_for(
        &mut b,
        &format!(
            "window.tickreelViewer.state().shownTick === {}",
            PLACED + 10
        ),
    );
    let (shown, st) = blocks_shown(&mut b);
    assert_eq!(shown, vec![stone.clone(), dirt.clone()], "{st}");

    assert_eq!(st["world"]["blockRequests"], requests, "{st}");

    // played through the tick, backward then forward: the changes followed (going back, the
    // page may ask ahead for the window before; going forward through it, nothing)
    b.eval(&format!("window.tickreelViewer.seek({})", PLACED + 60));
    b.eval("window.tickreelViewer.setSpeed(2)");
    b.eval("window.tickreelViewer.play(-1)");
    wait_for(
        &mut b,
        &format!("window.tickreelViewer.state().shownTick < {}", PLACED - 5),
    );
    b.eval("window.tickreelViewer.pause()");
    let (shown, st) = blocks_shown(&mut b);
    assert_eq!(shown, vec![dirt.clone()], "played back before it: {st}");
    let requests = st["world"]["blockRequests"].clone();
    b.eval("window.tickreelViewer.play(1)");
    wait_for(
        &mut b,
        &format!("window.tickreelViewer.state().shownTick > {}", PLACED + 5),
    );
    b.eval("window.tickreelViewer.pause()");
    let (shown, st) = blocks_shown(&mut b);
    assert_eq!(
        shown,
        vec![stone.clone(), dirt.clone()],
        "played past it: {st}"
    );
    assert_eq!(st["world"]["blockRequests"], requests, "{st}");

    // the 3D view draws the same blocks
    assert_eq!(b.eval("window.tickreelViewer.set3d(true)"), json!(true));
    wait_for(
        &mut b,
        "(() => { const v = window.tickreelViewer.view3d(); return v.ready && v.blocks === 2; })()",
    );
    let v = b.eval("window.tickreelViewer.view3d()");
    assert_eq!(
        sorted_blocks(&v["blockAt"]),
        vec![stone, dirt.clone()],
        "{v}"
    );
    // dug out
    b.eval(&format!("window.tickreelViewer.seek({})", DUG + 1));
    wait_for(&mut b, "window.tickreelViewer.view3d().blocks === 1");
    let v = b.eval("window.tickreelViewer.view3d()");
    assert_eq!(sorted_blocks(&v["blockAt"]), vec![dirt], "{v}");
    assert_eq!(state(&mut b)["errors"], json!([]));
}
