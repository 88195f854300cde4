//! `tickreel serve`'s places for decoding requests (`serve::places`), in process (the server's
//! own routes and runtime, no socket): with every place held by requests stopped before they
//! decode (the test hook `Places::hold`, feature `test-hooks`), the routes that decode nothing
//! still answer, and a request that finds no place within its route's bound is answered 503 with
//! `Retry-After` and the API's error shape. Nothing here depends on how long anything takes: the
//! places are held until the test lets them go, and the waits only guard against a hang.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use tower::ServiceExt;

use tickreel_cli::serve::http::{App, router};
use tickreel_cli::serve::library::{Library, Root};
use tickreel_cli::serve::places::{
    DECODES_AT_ONCE, Places, RETRY_AFTER_SECS, TERRAIN_AT_ONCE, Waits,
};

/// Longer than any answer here takes: a test that waits this long has failed (hung).
const HANG: Duration = Duration::from_secs(120);

/// A server of a folder holding the golden recording, waiting for places as `waits` says.
fn app(dir: &tempfile::TempDir, waits: Waits) -> Arc<App> {
    let golden = include_bytes!("../../../core/tests/data/golden.reel");
    std::fs::write(dir.path().join("golden.reel"), golden).unwrap();
    Arc::new(App {
        lib: Library::new(Root::Dir(dir.path().canonicalize().unwrap()), None),
        markers: Default::default(),
        terrain: Default::default(),
        tokens: Default::default(),
        catalog_staff: false,
        audit: Default::default(),
        loopback_only: true,
        places: Places::new(waits),
        parties: Default::default(),
    })
}

/// One answer: status, `Retry-After`, body.
async fn get(routes: axum::Router, uri: String) -> (StatusCode, Option<String>, String) {
    let req = Request::get(&uri)
        .header(header::HOST, "127.0.0.1")
        .body(Body::empty())
        .unwrap();
    let resp = tokio::time::timeout(HANG, routes.oneshot(req))
        .await
        .unwrap_or_else(|_| panic!("{uri}: no answer"))
        .unwrap();
    let status = resp.status();
    let retry = resp
        .headers()
        .get(header::RETRY_AFTER)
        .map(|v| v.to_str().unwrap().to_string());
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    (status, retry, String::from_utf8_lossy(&body).into_owned())
}

/// The decoding requests of every kind, `n` of them, in turn.
fn decodes(n: usize) -> Vec<String> {
    let kinds = [
        "/api/seek?rec=golden.reel&tick=3",
        "/api/frames?rec=golden.reel&from=0&count=3",
        "/api/markers?rec=golden.reel",
        "/api/blocks?rec=golden.reel&tick=2",
        "/api/blocks?rec=golden.reel",
    ];
    (0..n).map(|i| kinds[i % kinds.len()].to_string()).collect()
}

fn terrains(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("/api/terrain?rec=golden.reel&tick={i}"))
        .collect()
}

/// Lets the held requests go when dropped (also when the test fails: the runtime's end waits
/// for its blocking threads).
struct Release(Arc<App>);

impl Drop for Release {
    fn drop(&mut self) {
        self.0.places.hold(false);
    }
}

type Pending = tokio::task::JoinHandle<(StatusCode, Option<String>, String)>;

fn spawn_all(
    rt: &tokio::runtime::Runtime,
    routes: &axum::Router,
    uris: Vec<String>,
) -> Vec<Pending> {
    uris.into_iter()
        .map(|u| rt.spawn(get(routes.clone(), u)))
        .collect()
}

/// Waits (polling) until `n` requests wait for a place.
fn wait_until_waiting(app: &App, n: usize) {
    let t = std::time::Instant::now();
    while app.places.waiting() < n {
        assert!(
            t.elapsed() < HANG,
            "{} requests wait, not {n}",
            app.places.waiting()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn answered(rt: &tokio::runtime::Runtime, pending: Vec<Pending>) -> Vec<(StatusCode, String)> {
    rt.block_on(async {
        let mut out = Vec::new();
        for p in pending {
            let (st, _, body) = tokio::time::timeout(HANG, p)
                .await
                .expect("answered")
                .unwrap();
            out.push((st, body));
        }
        out
    })
}

/// Every place held, and more decoding requests waiting for one than the blocking pool has
/// threads: the summary, the list and the pages are answered all the same (many at once), and
/// the waiting requests are answered once the places are let go.
#[test]
fn routes_that_decode_nothing_answer_while_every_place_is_held() {
    let dir = tempfile::tempdir().unwrap();
    let long = Duration::from_secs(3600);
    let app = app(
        &dir,
        Waits {
            decode: long,
            terrain: long,
        },
    );
    let routes = router(app.clone());
    let rt = tickreel_cli::serve::runtime().unwrap();
    let _release = Release(app.clone());
    app.places.hold(true);
    let mut held = spawn_all(&rt, &routes, decodes(DECODES_AT_ONCE));
    held.extend(spawn_all(&rt, &routes, terrains(TERRAIN_AT_ONCE)));
    assert!(
        app.places
            .wait_until_held(DECODES_AT_ONCE + TERRAIN_AT_ONCE, HANG)
    );
    let queued_n = tickreel_cli::serve::places::BLOCKING_THREADS + 4;
    let mut queued = spawn_all(&rt, &routes, decodes(queued_n - 4));
    queued.extend(spawn_all(&rt, &routes, terrains(4)));
    wait_until_waiting(&app, queued_n);

    let cheap: Vec<String> = (0..4)
        .flat_map(|_| {
            [
                "/api/info?rec=golden.reel",
                "/api/recordings",
                "/api/reports",
                "/",
                "/viewer.js",
            ]
        })
        .map(str::to_string)
        .collect();
    let n_cheap = cheap.len();
    let got = answered(&rt, spawn_all(&rt, &routes, cheap));
    assert_eq!(got.len(), n_cheap);
    for (st, body) in &got {
        // `/api/reports` without a catalog is a 400 of its own, not a wait
        assert!(
            *st == StatusCode::OK || body.contains("no catalog"),
            "{st}: {}",
            &body[..body.len().min(200)]
        );
    }
    let info = got[0].1.clone();
    assert!(info.contains("\"name\":\"golden.reel\""), "{info}");
    // nothing waited for a place meanwhile was let in or turned away
    assert_eq!(app.places.waiting(), queued_n);

    app.places.hold(false);
    for (st, body) in answered(&rt, held).into_iter().chain(answered(&rt, queued)) {
        assert_eq!(st, StatusCode::OK, "{}", &body[..body.len().min(200)]);
    }
    assert_eq!(app.places.waiting(), 0);
}

/// Every place held: a decoding request of each route, and a terrain request, are answered 503
/// after their bound (small here), with `Retry-After` and `{"error", "status": 503}`; once the
/// places are let go, the held requests are answered and new ones get a place.
#[test]
fn a_request_without_a_place_in_its_bound_is_answered_503() {
    let dir = tempfile::tempdir().unwrap();
    let short = Duration::from_millis(50);
    let app = app(
        &dir,
        Waits {
            decode: short,
            terrain: short,
        },
    );
    let routes = router(app.clone());
    let rt = tickreel_cli::serve::runtime().unwrap();
    let _release = Release(app.clone());
    app.places.hold(true);
    let mut held = spawn_all(&rt, &routes, decodes(DECODES_AT_ONCE));
    held.extend(spawn_all(&rt, &routes, terrains(TERRAIN_AT_ONCE)));
    assert!(
        app.places
            .wait_until_held(DECODES_AT_ONCE + TERRAIN_AT_ONCE, HANG)
    );

    let mut turned_away = decodes(5);
    turned_away.extend(terrains(1));
    for uri in turned_away {
        let (st, retry, body) = rt.block_on(get(routes.clone(), uri.clone()));
        assert_eq!(st, StatusCode::SERVICE_UNAVAILABLE, "{uri}: {body}");
        assert_eq!(
            retry.as_deref(),
            Some(&*RETRY_AFTER_SECS.to_string()),
            "{uri}"
        );
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["status"], 503, "{uri}: {v}");
        let e = v["error"].as_str().unwrap();
        assert!(e.contains("busy") && e.contains("50 ms"), "{uri}: {e}");
    }
    assert_eq!(app.places.waiting(), 0);
    // a summary is no decode: answered meanwhile
    let (st, _, body) = rt.block_on(get(routes.clone(), "/api/info?rec=golden.reel".into()));
    assert_eq!(st, StatusCode::OK, "{body}");

    app.places.hold(false);
    for (st, body) in answered(&rt, held) {
        assert_eq!(st, StatusCode::OK, "{}", &body[..body.len().min(200)]);
    }
    for uri in decodes(5).into_iter().chain(terrains(1)) {
        let (st, _, body) = rt.block_on(get(routes.clone(), uri.clone()));
        assert_eq!(
            st,
            StatusCode::OK,
            "{uri}: {}",
            &body[..body.len().min(200)]
        );
    }
}
