//! The viewer's frames and seeks answer entities only (issue 47: routes decode nothing they do
//! not answer): a recording whose world sections are malformed (each frame's checksum right, the
//! fault in what a world section says: a delta on a delta, a delta on a chunk without a world
//! section, a delta not written against its keyframe) is still answered by `/api/frames` and
//! `/api/seek`, exactly as the well-formed recording is where their chunks agree, without a
//! fault; `/api/blocks`, which answers the world, fails naming the chunk.

use serde_json::Value;

use crate::common::world_shapes::{metadata, refused, report_shaped, write_live};
use crate::serve_support::Server;

/// Ticks from which the malformed recordings hold the well-formed one's chunks (only their
/// first chunk, ticks 100 to 109, differs).
const SAME_FROM: u32 = 110;

fn frames(v: &Value) -> &[Value] {
    v["frames"].as_array().expect("frames")
}

#[test]
fn frames_and_seeks_are_answered_over_malformed_world_sections() {
    let dir = tempfile::tempdir().unwrap();
    write_live(
        &dir.path().join("good.reel"),
        &report_shaped(),
        &metadata(true),
    );
    let bad = refused();
    for (i, (_, f)) in bad.iter().enumerate() {
        write_live(&dir.path().join(format!("bad{i}.reel")), f, &metadata(true));
    }
    let s = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let good = "good.reel.live";
    assert_eq!(s.get(&format!("/api/blocks?rec={good}&tick=250")).0, 200);
    for (i, (what, _)) in bad.iter().enumerate() {
        let rec = format!("bad{i}.reel.live");
        for t in [100, 105, 109, 110, 129, 130, 160, 250, 399] {
            let (status, v) = s.get(&format!("/api/seek?rec={rec}&tick={t}"));
            assert_eq!(status, 200, "{what}: seek {t}: {v}");
            assert_eq!(v["tick"], t, "{what}");
            let ids: Vec<u64> = v["entities"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["id"].as_u64().unwrap())
                .collect();
            // (the keyframe of another world's chunk has no entity 3)
            assert!(ids.starts_with(&[1, 2]), "{what}: seek {t}: {ids:?}");
            if t >= SAME_FROM {
                assert_eq!(ids, [1, 2, 3], "{what}: seek {t}");
                let g = s.json(&format!("/api/seek?rec={good}&tick={t}"));
                assert_eq!(v["entities"], g["entities"], "{what}: seek {t}");
            }
        }
        // From the first chunk (which may not hold what the others' keyframes hold: forward
        // play carries its entities on), then over the chunks the two recordings share.
        for (from, dir, count, compared) in [
            (100, "fwd", 300, false),
            (SAME_FROM, "fwd", 290, true),
            (399, "back", 300, true),
        ] {
            let q = format!("from={from}&count={count}&dir={dir}");
            let (status, v) = s.get(&format!("/api/frames?rec={rec}&{q}"));
            assert_eq!(status, 200, "{what}: frames {q}: {v}");
            assert!(
                v.get("faults").is_none(),
                "{what}: frames {q}: {}",
                v["faults"]
            );
            assert_eq!(frames(&v).len(), count, "{what}: frames {q}");
            if !compared {
                continue;
            }
            let g = s.json(&format!("/api/frames?rec={good}&{q}"));
            assert!(g.get("faults").is_none(), "{what}: {}", g["faults"]);
            let same = |f: &&Value| f["t"].as_u64().unwrap() >= u64::from(SAME_FROM);
            let (a, b): (Vec<_>, Vec<_>) = (
                frames(&v).iter().filter(same).collect(),
                frames(&g).iter().filter(same).collect(),
            );
            assert_eq!(a.len(), 290, "{what}: frames {q}");
            if let Some(k) = (0..a.len()).find(|&k| a[k] != b[k]) {
                panic!("{what}: frames {q}: {} where {}", a[k], b[k]);
            }
        }
        // The world is answered from the world sections: a delta checked against its keyframe
        // when its lists are read (data version 9) and refused then: the world said incomplete.
        // A delta that stands on no keyframe is refused when the chunk is read, naming it.
        let (status, v) = s.get(&format!("/api/blocks?rec={rec}&tick=250"));
        if status == 200 {
            assert_eq!(v["complete"], false, "{what}: blocks");
        } else {
            let said = v["error"].as_str().unwrap();
            assert!(
                said.contains("chunk at tick") && said.contains("world delta section"),
                "{what}: blocks: {said}"
            );
        }
    }
}
