//! `tickreel serve` against requests an attacker or a broken page would send: random paths and
//! query parameters (ticks at the edges of u32, huge counts, names that climb out, encoded NULs,
//! long and non-UTF-8 strings) over a folder of crafted recordings (truncated, damaged, a span of
//! 2^32 ticks, a live directory whose files link outside). A generator seeded per run makes the
//! requests (the seed is printed, and `TICKREEL_SERVE_SEED` replays one).
//!
//! Properties: every answer is a well-formed answer with a status the API documents (never a
//! 500: a 500 is a bug), the server stays up, and no answer takes more than 30 s.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::serve_support::{Server, simulate, span_file};

/// The recordings served: good ones and crafted ones.
fn folder(dir: &Path) {
    simulate(&dir.join("good.reel"), 3, 300);
    let good = std::fs::read(dir.join("good.reel")).unwrap();
    std::fs::write(dir.join("truncated.reel"), &good[..good.len() / 2]).unwrap();
    let mut flipped = good.clone();
    let n = flipped.len();
    flipped[n - 100] ^= 0x55;
    flipped[300] ^= 0x01;
    std::fs::write(dir.join("flipped.reel"), &flipped).unwrap();
    std::fs::write(dir.join("empty.reel"), b"").unwrap();
    std::fs::write(dir.join("zeros.reel"), vec![0u8; 4096]).unwrap();
    span_file(&dir.join("span.reel"));
    // A live directory whose files link to the good recording's outside copy.
    let outside = dir.parent().unwrap().join("outside.reel");
    std::fs::write(&outside, &good).unwrap();
    let live = dir.join("linked.reel.live");
    std::fs::create_dir(&live).unwrap();
    std::os::unix::fs::symlink(&outside, live.join("meta.tkrl")).unwrap();
    std::os::unix::fs::symlink(&outside, live.join("seg-000000.tks")).unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("link.reel")).unwrap();
}

const NAMES: &[&str] = &[
    "good.reel",
    "truncated.reel",
    "flipped.reel",
    "empty.reel",
    "zeros.reel",
    "span.reel",
    "linked.reel.live",
    "link.reel",
    "missing.reel",
    "../outside.reel",
    "/etc/passwd",
    "..%2Foutside.reel",
    "good.reel%00.txt",
    "catalog:1",
    "catalog:-9223372036854775808",
    "%ff%fe",
    "",
    ".",
    "sub/../../outside.reel",
];

const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "299",
    "300",
    "2047",
    "2048",
    "2049",
    "20000",
    "4294967294",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "99999999999999999999999",
    "1e9",
    "abc",
    "",
    "%00",
];

const ENDPOINTS: &[&str] = &[
    "/api/info",
    "/api/markers",
    "/api/frames",
    "/api/seek",
    "/api/ghost",
    "/api/catalog/top",
    "/api/recordings",
    "/api/nope",
    "/",
    "/viewer.js",
];

const KEYS: &[&str] = &[
    "rec",
    "from",
    "count",
    "step",
    "dir",
    "tick",
    "entity",
    "ghost",
    "ghost_entity",
    "course",
    "n",
    "token",
];

fn pick<'a>(rng: &mut fastrand::Rng, xs: &[&'a str]) -> &'a str {
    xs[rng.usize(..xs.len())]
}

/// One random request path with its query.
fn request(rng: &mut fastrand::Rng) -> String {
    let mut q = Vec::new();
    let endpoint = pick(rng, ENDPOINTS);
    if rng.u8(..10) < 8 {
        q.push(format!("rec={}", pick(rng, NAMES)));
    }
    for _ in 0..rng.usize(0..5) {
        let key = pick(rng, KEYS);
        let value = match key {
            "rec" | "ghost" => pick(rng, NAMES).to_string(),
            "dir" => pick(rng, &["fwd", "back", "sideways", ""]).to_string(),
            "course" => pick(rng, &["c1", "%1b%5b2J", "x".repeat(5000).as_str()]).to_string(),
            _ if rng.u8(..10) == 0 => "9".repeat(rng.usize(1..400)),
            _ => pick(rng, NUMBERS).to_string(),
        };
        q.push(format!("{key}={value}"));
    }
    if rng.u8(..20) == 0 {
        q.push("rec=good.reel&rec=span.reel".into());
    }
    if q.is_empty() {
        endpoint.to_string()
    } else {
        format!("{endpoint}?{}", q.join("&"))
    }
}

#[test]
fn random_requests_over_crafted_recordings_get_documented_answers() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("served");
    std::fs::create_dir(&dir).unwrap();
    folder(&dir);
    let outside = root.path().join("outside.reel");
    let mut s = Server::start(&[dir.to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let seed = std::env::var("TICKREEL_SERVE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    eprintln!("serve_requests: seed {seed} (TICKREEL_SERVE_SEED={seed} replays it)");
    let mut rng = fastrand::Rng::with_seed(seed);
    let allowed = [200, 400, 401, 403, 404, 405, 408, 409, 422, 502];
    let mut statuses = std::collections::BTreeMap::new();
    let mut slowest = Duration::ZERO;
    for i in 0..400 {
        let path = request(&mut rng);
        let t = Instant::now();
        let (status, body) = s.text(&path);
        let took = t.elapsed();
        slowest = slowest.max(took);
        *statuses.entry(status).or_insert(0u32) += 1;
        assert!(
            allowed.contains(&status),
            "request {i} (seed {seed}): GET {path} answered {status}: {}",
            &body[..body.len().min(500)]
        );
        if path.starts_with("/api/") && status != 200 {
            let v: serde_json::Value = serde_json::from_str(&body)
                .unwrap_or_else(|e| panic!("GET {path}: not JSON ({e}): {body}"));
            assert_eq!(v["status"], status, "GET {path}: {body}");
            assert!(
                !body.contains(outside.to_str().unwrap()),
                "GET {path} shows the file outside the served folder: {body}"
            );
        }
        assert!(took < Duration::from_secs(30), "GET {path} took {took:?}");
        assert!(s.alive(), "the server died after GET {path} (seed {seed})");
    }
    eprintln!("serve_requests: statuses {statuses:?}, slowest answer {slowest:?}");
    assert!(
        statuses.get(&200).copied().unwrap_or(0) > 20,
        "{statuses:?}"
    );
}
