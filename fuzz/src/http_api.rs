//! What the `http_api` fuzz target does with its input: requests to `tickreel serve`'s HTTP API
//! answered in process by the server's own routes (`tickreel_cli::serve::http::router`, with its
//! token and loopback checks, called through `tower`'s `oneshot`: no socket), over a served folder
//! that holds sound recordings, a symbolic link to a recording outside, a directory linked outside
//! and a live directory whose segment links outside, and serves a recording made of the input's
//! bytes from memory as `crafted.reel` (`Library::put_memory`: nothing is written per input; the
//! folder and the server, its routes and state, are made once per process: see [`Server`]). Shared with the CLI's regression test
//! (`native/cli/tests/it/fuzz_regressions.rs` includes this file by path), so that a kept input
//! replays through exactly the code the fuzzer ran.
//!
//! Input: a little-endian `u16` length `n`, then `n` bytes served as `crafted.reel`, then up to
//! [`MAX_REQUESTS`] request lines separated by `\n`: a request target
//! (`/api/frames?rec=crafted.reel&count=5`; without a leading `/`, `/api/` is put before it),
//! sent without the access token when the line starts with `!`.
//!
//! Properties (a panic otherwise): every answer comes whole within [`ANSWER_TIME`] (an
//! `/api/live` stream is read for a moment only) and is at most [`MAX_BODY`] bytes; no answer is
//! a 500; a request without the token is never answered 200; an API answer is JSON (`{"error":
//! ..., "status": N}` for an error, with `status` the HTTP status); no answer names the folder
//! outside; a name that leads outside is a missing recording (404), never served.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use tower::ServiceExt;

use tickreel_cli::serve::http::{App, router};
use tickreel_cli::serve::info::Markers;
use tickreel_cli::serve::library::{Library, Root};

/// The access token the server is started with.
const TOKEN: &str = "fuzz-token-0123456789";

/// The server's one staff token, [`TOKEN`].
fn tokens() -> tickreel_cli::serve::staff::StaffTokens {
    let mut t = tickreel_cli::serve::staff::StaffTokens::default();
    t.add(
        "fuzz",
        tickreel_cli::serve::staff::Role::Admin,
        TOKEN,
        "fuzz",
    )
    .unwrap();
    t
}
/// The name of the folder outside the served one: no answer may contain it.
const OUTSIDE: &str = "outside-the-served-folder";
/// At most this many requests per input.
pub const MAX_REQUESTS: usize = 8;
/// The most bytes an answer may have (frames: 2,048 frames of the largest crafted world).
pub const MAX_BODY: usize = 256 << 20;
/// The longest an answer (its head and whole body) may take.
pub const ANSWER_TIME: Duration = Duration::from_secs(20);
/// How long an `/api/live` stream is read (its first event comes at once).
const LIVE_READ: Duration = Duration::from_millis(2);

/// The served folder and the server of it, made once per process.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    runtime: tokio::runtime::Runtime,
    server: Server,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let golden = include_bytes!("../../native/core/tests/data/golden.reel");
        let golden_v1 = include_bytes!("../../native/core/tests/data/golden-v1.reel");
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("served");
        let outside = dir.path().join(OUTSIDE);
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(root.join("golden.reel"), golden).unwrap();
        std::fs::write(root.join("sub/golden-v1.reel"), golden_v1).unwrap();
        std::fs::write(outside.join("secret.reel"), golden_v1).unwrap();
        std::os::unix::fs::symlink(outside.join("secret.reel"), root.join("link.reel")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
        let live = root.join("leaving.reel.live");
        std::fs::create_dir(&live).unwrap();
        std::os::unix::fs::symlink(outside.join("secret.reel"), live.join("seg-000000.tks"))
            .unwrap();
        let root = root.canonicalize().unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let server = Server::new(&root);
        Fixture {
            _dir: dir,
            root,
            runtime,
            server,
        }
    })
}

/// A server of a folder (`tickreel serve`'s state and routes, as `serve` makes them), answering
/// in process. The `http_api` target makes one per process and sends it every input: building
/// the routes took half of the target's time when each input had its own. What one input leaves
/// in it cannot change the next one's answers: each input's recording replaces the last one's
/// under the same name ([`Library::put_memory`], which drops the recording opened from it), and
/// every cache of the server is keyed by the opened recording's identity, which is new for each
/// (the chunk cache, the markers' scans, the terrain answers); the rest of what it keeps is the
/// fixture's recordings, which no input changes. The CLI's regression test checks that the
/// seeds' and kept inputs' answers are the same from this server as from a new one each.
pub struct Server {
    app: Arc<App>,
    routes: axum::Router,
}

impl Server {
    /// A new server of `root` (a canonical path), with no recording open.
    pub fn new(root: &Path) -> Server {
        let app = Arc::new(App {
            lib: Library::new(Root::Dir(root.to_path_buf()), None),
            markers: Markers::default(),
            terrain: Default::default(),
            tokens: tokens(),
            catalog_staff: false,
            audit: Default::default(),
            loopback_only: true,
            places: Default::default(),
            parties: Default::default(),
        });
        let routes = router(app.clone());
        Server { app, routes }
    }
}

/// One request's answer: the request target, whether it carried the token, the status and the
/// body (`/api/live`'s as much as came within [`LIVE_READ`]).
pub type Answer = (String, bool, StatusCode, Vec<u8>);

/// The crafted file and the request lines of `data`.
fn split(data: &[u8]) -> (&[u8], &[u8]) {
    if data.len() < 2 {
        return (&[], data);
    }
    let n = usize::from(u16::from_le_bytes([data[0], data[1]])).min(data.len() - 2);
    (&data[2..2 + n], &data[2 + n..])
}

/// One answer of `routes`: its status and body.
async fn answer(routes: axum::Router, uri: &str, token: bool) -> Option<(StatusCode, Vec<u8>)> {
    let mut req = Request::get(uri).header(header::HOST, "127.0.0.1");
    if token {
        req = req.header(header::AUTHORIZATION, format!("Bearer {TOKEN}"));
    }
    // A target the HTTP layer would not parse never reaches the routes.
    let req = req.body(Body::empty()).ok()?;
    let resp = routes.oneshot(req).await.unwrap();
    let status = resp.status();
    let live = uri.starts_with("/api/live");
    let mut body = resp.into_body();
    let mut bytes = Vec::new();
    loop {
        let next = if live {
            match tokio::time::timeout(LIVE_READ, body.frame()).await {
                Ok(next) => next,
                Err(_) => break,
            }
        } else {
            body.frame().await
        };
        match next {
            None => break,
            // A stream cut short by the server (a damaged chunk met while streaming).
            Some(Err(_)) => break,
            Some(Ok(frame)) => {
                if let Some(data) = frame.data_ref() {
                    bytes.extend_from_slice(data);
                    assert!(
                        bytes.len() <= MAX_BODY,
                        "{uri}: answer past {MAX_BODY} bytes"
                    );
                }
            }
        }
    }
    Some((status, bytes))
}

/// Sends the input's requests to the process's server of the fixture's folder, serving the
/// input's recording from memory, and checks every answer (the properties above).
pub fn http_api(data: &[u8]) {
    let f = fixture();
    for (uri, token, status, body) in answers(&f.server, data) {
        check(&uri, token, status, &body);
    }
}

/// The answers of `server` (over the fixture's folder) to the input's requests, its recording
/// served from memory as `crafted.reel` (replacing the one served before). Panics when an answer
/// does not come whole within [`ANSWER_TIME`] or is larger than [`MAX_BODY`].
pub fn answers(server: &Server, data: &[u8]) -> Vec<Answer> {
    let f = fixture();
    let (file, lines) = split(data);
    server
        .app
        .lib
        .put_memory("crafted.reel", file)
        .expect("a plain name");
    let mut out = Vec::new();
    for line in lines.split(|b| *b == b'\n').take(MAX_REQUESTS) {
        let line = String::from_utf8_lossy(line);
        let (token, target) = match line.strip_prefix('!') {
            Some(t) => (false, t),
            None => (true, &*line),
        };
        let uri = if target.starts_with('/') {
            target.to_string()
        } else {
            format!("/api/{target}")
        };
        let answered = f.runtime.block_on(async {
            tokio::time::timeout(ANSWER_TIME, answer(server.routes.clone(), &uri, token)).await
        });
        let Some((status, body)) =
            answered.unwrap_or_else(|_| panic!("{uri}: no whole answer within {ANSWER_TIME:?}"))
        else {
            continue;
        };
        out.push((uri, token, status, body));
    }
    // What the input's recording holds goes with it (the recording opened from it, its decoded
    // chunks), so that an input leaves the server holding what it held before: libFuzzer looks
    // for a leak (runs the input again, then scans the heap) after an input that allocated more
    // than it freed.
    server
        .app
        .lib
        .put_memory("crafted.reel", &[][..])
        .expect("a plain name");
    out
}

/// A new server of the fixture's folder, with nothing open (for the check that the process's
/// server answers as a new one would).
pub fn new_server() -> Server {
    Server::new(&fixture().root)
}

fn check(uri: &str, token: bool, status: StatusCode, body: &[u8]) {
    let text = String::from_utf8_lossy(body);
    assert_ne!(status, StatusCode::INTERNAL_SERVER_ERROR, "{uri}: {text}");
    assert!(
        token || status != StatusCode::OK,
        "{uri}: answered without the token"
    );
    assert!(
        !text.contains(OUTSIDE),
        "{uri}: names the folder outside: {text}"
    );
    let path = uri.split('?').next().unwrap_or_default();
    if !path.starts_with("/api/") || path == "/api/live" {
        return;
    }
    if status == StatusCode::OK {
        // JSON, as a `serde_json::Value` parse checks it (UTF-8, the syntax of every value, nothing
        // after it), without building the values (a tenth of the target's time for the frames).
        let json = std::str::from_utf8(body)
            .map_err(|e| e.to_string())
            .and_then(|s| {
                serde_json::from_str::<serde::de::IgnoredAny>(s).map_err(|e| e.to_string())
            });
        if let Err(e) = json {
            panic!("{uri}: {status}, not JSON ({e}): {text}");
        }
    } else {
        let v: serde_json::Value = match serde_json::from_slice(body) {
            Ok(v) => v,
            Err(e) => panic!("{uri}: {status}, not JSON ({e}): {text}"),
        };
        assert_eq!(v["status"], status.as_u16(), "{uri}: {text}");
        assert!(v["error"].is_string(), "{uri}: {text}");
    }
    // The names that lead outside are never served.
    if let Some(name) = rec_of(uri)
        && leads_outside(&name)
    {
        assert_ne!(
            status,
            StatusCode::OK,
            "{uri}: served {name:?}, which leads outside"
        );
    }
}

/// The `rec` the server reads from `uri`'s query: its one `rec` parameter, decoded as a form
/// (`None` without one, or with several, which the server refuses).
fn rec_of(uri: &str) -> Option<String> {
    let query = uri.split_once('?')?.1;
    let mut recs = query
        .split('&')
        .map(|kv| kv.split_once('=').unwrap_or((kv, "")))
        .filter(|(k, _)| form_decode(k) == "rec")
        .map(|(_, v)| form_decode(v));
    let first = recs.next()?;
    recs.next().is_none().then_some(first)
}

/// `%XX` and `+` decoding, as a form is decoded (bytes that are not UTF-8 replaced).
fn form_decode(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether the served name `name` leads out of the folder: the link to a file outside, the
/// directory linked outside (and anything under it), the live directory whose segment links out.
fn leads_outside(name: &str) -> bool {
    let parts: Vec<&str> = name
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    matches!(
        parts.as_slice(),
        ["link.reel"] | ["link.reel.live"] | ["out", ..] | ["leaving.reel.live"] | ["leaving.reel"]
    )
}
