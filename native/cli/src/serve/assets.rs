//! The viewer's page: hand-written HTML, JavaScript and CSS in `assets/`, carried inside the
//! binary (no CDN, no build step). The page draws on a canvas and asks the API for frames; its
//! parts are scripts of their own: `viewer.js` (playback and the map), `race.js` (ghost races),
//! `timeline.js` (the markers), `inspector.js` (the followed entity and its height strip),
//! `inbox.js` (reports), `list.js` (the recordings), `blocks.js` (the edited blocks at the play
//! position, for the map and the 3D view), `terrain.js` (the terrain's blocks and
//! colours, for the map and the 3D view), `party.js` (watching together), `view3d.js` (the 3D view, on three.js in
//! `assets/vendor/three/`, vendored by `scripts/vendor-three.sh`, loaded when the view opens).

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

const PAGE: &str = include_str!("assets/viewer.html");
const SCRIPT: &str = include_str!("assets/viewer.js");
const STYLE: &str = include_str!("assets/viewer.css");
const RACE: &str = include_str!("assets/race.js");
const TIMELINE: &str = include_str!("assets/timeline.js");
const INSPECTOR: &str = include_str!("assets/inspector.js");
const INBOX: &str = include_str!("assets/inbox.js");
const LIST: &str = include_str!("assets/list.js");
const VIEW3D: &str = include_str!("assets/view3d.js");
const TERRAIN: &str = include_str!("assets/terrain.js");
const BLOCKS: &str = include_str!("assets/blocks.js");
const PARTY: &str = include_str!("assets/party.js");
const DESK_PAGE: &str = include_str!("assets/desk.html");
const DESK: &str = include_str!("assets/desk.js");
/// three.js, vendored by `scripts/vendor-three.sh` (the files of its npm package as published,
/// MIT licence beside them), loaded by the page only when the 3D view is opened.
const THREE_MODULE: &str = include_str!("assets/vendor/three/three.module.js");
const THREE_CORE: &str = include_str!("assets/vendor/three/three.core.js");

fn asset(body: &'static str, kind: &'static str) -> Response {
    let mut r = body.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Everything the page loads comes from this server.
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'self'; img-src 'self' data:"),
    );
    r
}

pub async fn page() -> Response {
    asset(PAGE, "text/html; charset=utf-8")
}

pub async fn script() -> Response {
    asset(SCRIPT, "text/javascript; charset=utf-8")
}

pub async fn race() -> Response {
    asset(RACE, "text/javascript; charset=utf-8")
}

pub async fn timeline() -> Response {
    asset(TIMELINE, "text/javascript; charset=utf-8")
}

pub async fn inspector() -> Response {
    asset(INSPECTOR, "text/javascript; charset=utf-8")
}

pub async fn inbox() -> Response {
    asset(INBOX, "text/javascript; charset=utf-8")
}

pub async fn list() -> Response {
    asset(LIST, "text/javascript; charset=utf-8")
}

pub async fn view3d() -> Response {
    asset(VIEW3D, "text/javascript; charset=utf-8")
}

pub async fn terrain() -> Response {
    asset(TERRAIN, "text/javascript; charset=utf-8")
}

pub async fn blocks() -> Response {
    asset(BLOCKS, "text/javascript; charset=utf-8")
}

pub async fn party() -> Response {
    asset(PARTY, "text/javascript; charset=utf-8")
}

pub async fn three_module() -> Response {
    asset(THREE_MODULE, "text/javascript; charset=utf-8")
}

pub async fn three_core() -> Response {
    asset(THREE_CORE, "text/javascript; charset=utf-8")
}

pub async fn style() -> Response {
    asset(STYLE, "text/css; charset=utf-8")
}

/// The review desk's page (`/desk`).
pub async fn desk_page() -> Response {
    asset(DESK_PAGE, "text/html; charset=utf-8")
}

pub async fn desk_script() -> Response {
    asset(DESK, "text/javascript; charset=utf-8")
}
