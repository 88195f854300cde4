//! `tickreel serve`'s resource bounds, with crafted and large recordings: what one request may
//! hold in memory follows the server's limits, not the size of its answer, and what it does
//! follows the bytes a file holds, not the ticks it claims to span.

use std::time::{Duration, Instant};

use crate::serve_support::{Server, simulate, span_file};

/// 2,048 frames of 1,000 entities (about 75 MB of JSON) are streamed: the server's peak memory
/// grows by at most its chunk cache and a little (it held the whole answer as JSON values before,
/// ~440 bytes per entity per frame: about a gigabyte here), and the frames are all there.
#[test]
fn a_large_frames_answer_is_streamed_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    simulate(&dir.path().join("big.reel"), 1000, 2100);
    let d = dir.path().to_str().unwrap();
    let s = Server::start(&[d, "--listen", "127.0.0.1:0"]);
    // Warm: the recording opened and its chunks decoded into the shared chunk cache (bounded by
    // its own budget), by answers of 2 frames 512 ticks apart.
    for from in [0, 1000, 2000] {
        let (st, _) = s.text(&format!(
            "/api/frames?rec=big.reel&from={from}&count=2&step=1000"
        ));
        assert_eq!(st, 200);
    }
    for from in (0..2048).step_by(100) {
        let (st, _) = s.text(&format!("/api/frames?rec=big.reel&from={from}&count=1"));
        assert_eq!(st, 200);
    }
    let before = s.peak_rss();
    let t = Instant::now();
    let mut resp = s
        .agent()
        .get(format!(
            "{}/api/frames?rec=big.reel&from=0&count=2048",
            s.base
        ))
        .call()
        .unwrap();
    let st = resp.status().as_u16();
    let body = resp
        .body_mut()
        .with_config()
        .limit(1 << 30)
        .read_to_string()
        .unwrap();
    assert_eq!(st, 200, "{}", &body[..body.len().min(300)]);
    let after = s.peak_rss();
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let frames = v["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 2048);
    assert_eq!(frames[0]["t"], 0);
    assert_eq!(frames[2047]["t"], 2047);
    assert_eq!(frames[1000]["e"].as_array().unwrap().len(), 1000);
    assert!(v["pos_scale"].as_f64().unwrap() > 0.0, "{}", v["pos_scale"]);
    assert_eq!(v["edge"]["last_tick"], 2099);
    let grew = after.saturating_sub(before);
    eprintln!(
        "frames: {} bytes of answer in {:?}; server peak memory {} MiB -> {} MiB",
        body.len(),
        t.elapsed(),
        before >> 20,
        after >> 20
    );
    assert!(
        body.len() > 40 << 20,
        "the answer is large: {} bytes",
        body.len()
    );
    // The answer is streamed: what the request holds is the chunks it decodes, which go into the
    // server's chunk cache (64 MiB: 2,100 ticks of 1,000 entities do not all fit, so the request
    // decodes some again), never the answer (a gigabyte of JSON values when it was held whole).
    let bound = tickreel_cli::serve::library::CHUNK_CACHE_BYTES as u64 + (16 << 20);
    assert!(
        grew < bound,
        "the server's peak memory grew by {} MiB for a {} MiB answer (bound {} MiB: its chunk \
         cache and 16 MiB)",
        grew >> 20,
        body.len() >> 20,
        bound >> 20
    );
}

/// An 800-byte file whose entity spans 2^32 - 2 ticks (a pose at tick 0 and one at the last
/// tick): the ghost race answers in time that follows what the file holds (it walked every
/// tick of the span, for hours, and went on after the client left).
#[test]
fn a_ghost_race_over_a_claimed_span_of_four_billion_ticks_answers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("span.reel");
    span_file(&path);
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size < 4096, "a small file: {size} bytes");
    let d = dir.path().to_str().unwrap();
    let s = Server::start(&[d, "--listen", "127.0.0.1:0"]);
    let t = Instant::now();
    let (st, body) = s.text("/api/ghost?rec=span.reel&entity=1&ghost_entity=1");
    let took = t.elapsed();
    assert_eq!(st, 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["run"]["duration_ticks"], u64::from(u32::MAX - 1));
    assert!(
        v["delta"].as_array().unwrap().len() <= 2001,
        "{}",
        v["delta"]
    );
    eprintln!("ghost race over 2^32 - 2 ticks: {took:?}");
    assert!(took < Duration::from_secs(60), "took {took:?}");
}
