//! The routes: the viewer's page and the JSON API, all `GET` but one `POST`: a moderator's
//! decision on a report, stored in the catalog ([`reports`]; no recording is ever written). Every
//! request passes [`guard`] first: one of the staff tokens when any is set (the request then
//! comes from that token's name, [`Staff`]: the audit log of report views and a decision name
//! it), and on a loopback server a `Host` that names the loopback (a web page elsewhere cannot
//! reach it by DNS rebinding).
//! Reading recordings blocks, so each API call runs on tokio's blocking pool; those that decode
//! in a place of [`Places`] (bounded in number and in how long a request waits for one).

use std::sync::Arc;

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Extension, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use super::audit::{AuditLog, LOCAL};
use super::blocks::{self, BlocksQuery};
use super::error::{ApiError, ApiResult};
use super::frames::{self, FrameQuery, SeekQuery};
use super::ghost::{self, GhostQuery};
use super::info::{self, Markers};
use super::library::Library;
use super::party::{Act, Parties};
use super::places::{Kind, Places};
use super::reports::{self, Decision};
use super::staff::{Role, Staff, StaffTokens};
use super::terrain::{self, TerrainQuery};
use super::{anon, assets, desk, live};

/// What every handler shares.
pub struct App {
    pub lib: Library,
    pub markers: Markers,
    /// The terrain answers made, shared by the requests asking for the same
    /// ([`terrain::terrain`]).
    pub terrain: terrain::Answers,
    /// One of them is required on every request when any is set.
    pub tokens: StaffTokens,
    /// Whether the catalog keeps staff members (then a token is required, and one not in
    /// `tokens` is looked up there by its hash).
    pub catalog_staff: bool,
    /// Where views of reports are logged besides the catalog.
    pub audit: AuditLog,
    /// Only loopback `Host` names are accepted (the default, loopback bind).
    pub loopback_only: bool,
    /// Where the requests that decode run, and how long they wait for it.
    pub places: Places,
    /// The watch parties ([`super::party`]).
    pub parties: Arc<Parties>,
}

pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(assets::page))
        .route("/viewer.js", get(assets::script))
        .route("/viewer.css", get(assets::style))
        .route("/race.js", get(assets::race))
        .route("/timeline.js", get(assets::timeline))
        .route("/inspector.js", get(assets::inspector))
        .route("/inbox.js", get(assets::inbox))
        .route("/list.js", get(assets::list))
        .route("/view3d.js", get(assets::view3d))
        .route("/terrain.js", get(assets::terrain))
        .route("/blocks.js", get(assets::blocks))
        .route("/party.js", get(assets::party))
        .route("/vendor/three.module.js", get(assets::three_module))
        .route("/vendor/three.core.js", get(assets::three_core))
        .route("/api/recordings", get(recordings))
        .route("/api/info", get(info_of))
        .route("/api/markers", get(markers_of))
        .route("/api/blocks", get(blocks_of))
        .route("/api/terrain", get(terrain_of))
        .route("/api/frames", get(frames_of))
        .route("/api/seek", get(seek_of))
        .route("/api/live", get(live_of))
        .route("/api/ghost", get(ghost_of))
        .route("/api/catalog/top", get(catalog_top))
        .route("/api/reports", get(reports_of))
        .route("/api/reports/decide", post(decide))
        .route("/api/audit", get(audit_of))
        .route("/api/party", post(party_new))
        .route("/api/party/events", get(party_events))
        .route("/api/party/act", post(party_act))
        .route("/desk", get(assets::desk_page))
        .route("/desk.js", get(assets::desk_script))
        .route("/api/desk", get(desk_of))
        .route("/api/desk/vote", post(desk_vote))
        .route("/api/desk/verdict", post(desk_verdict))
        .route("/api/desk/known", post(desk_known))
        .route("/api/desk/rule", post(desk_rule))
        .route("/api/desk/retention", post(desk_retention))
        .fallback(|| async { ApiError::not_found("no such page or API call") })
        .layer(middleware::from_fn_with_state(app.clone(), guard))
        .with_state(app)
}

/// The cookie a page opened with `?token=T` gets, so that the requests the page itself makes (its
/// script and style, API calls, `EventSource`) carry the token without it in every address.
const TOKEN_COOKIE: &str = "tickreel_token";

/// Where a request's token came from.
#[derive(Debug, PartialEq, Eq)]
enum TokenFrom {
    Header,
    Query,
    Cookie,
}

/// The token a request carries: `Authorization: Bearer T` (the scheme in any case, as RFC 9110
/// says schemes are), `token=T` in the query (a link to the viewer, and `EventSource`, which
/// cannot set headers), or the [`TOKEN_COOKIE`] the server set when the page was opened so.
fn token_of(req: &Request) -> Option<(String, TokenFrom)> {
    if let Some(v) = req.headers().get(header::AUTHORIZATION)
        && let Ok(s) = v.to_str()
        && let Some((scheme, t)) = s.trim_start().split_once(' ')
        && scheme.eq_ignore_ascii_case("bearer")
    {
        return Some((t.trim().to_string(), TokenFrom::Header));
    }
    if let Some(q) = req.uri().query()
        && let Some(t) = q.split('&').find_map(|kv| kv.strip_prefix("token="))
    {
        return Some((percent_decode(t), TokenFrom::Query));
    }
    req.headers()
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| c.trim().strip_prefix(TOKEN_COOKIE)?.strip_prefix('='))
        .map(|t| (percent_decode(t), TokenFrom::Cookie))
}

/// `s` with every byte but unreserved URL characters as `%XX` (a cookie value, decoded by
/// [`percent_decode`]).
fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// `%XX` and `+` decoding of a query value.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len()
                && b[i + 1].is_ascii_hexdigit()
                && b[i + 2].is_ascii_hexdigit() =>
            {
                let hex = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
                out.push(hex(b[i + 1]) * 16 + hex(b[i + 2]));
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn loopback_host(headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        // HTTP/1.0 without Host: nothing a browser sends.
        return true;
    };
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(h, _)| h)
    };
    name == "localhost"
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

async fn guard(State(app): State<Arc<App>>, mut req: Request, next: Next) -> Response {
    if app.loopback_only && !loopback_host(req.headers()) {
        return ApiError::forbidden("this server answers only to a loopback host name")
            .into_response();
    }
    let mut set_cookie = None;
    if app.tokens.is_empty() && !app.catalog_staff {
        // the operator's own machine (a server without tokens answers loopback only)
        req.extensions_mut().insert(Staff::new(LOCAL, Role::Admin));
    } else {
        let given = token_of(&req);
        let mut staff = given.as_ref().and_then(|(t, _)| app.tokens.who(t));
        if staff.is_none()
            && app.catalog_staff
            && let Some((t, _)) = &given
        {
            let (a, t) = (app.clone(), t.clone());
            staff = blocking(move || a.lib.with_catalog(|c| c.staff_by_token(&t)))
                .await
                .ok()
                .flatten()
                .and_then(|m| Role::parse(&m.role).map(|r| Staff::new(m.name, r)));
        }
        if let (Some(_), Some((t, TokenFrom::Query))) = (&staff, &given) {
            // The page's own requests carry it from now on (HttpOnly: no script reads it;
            // Strict: no other site's page sends it).
            set_cookie = HeaderValue::from_str(&format!(
                "{TOKEN_COOKIE}={}; Path=/; HttpOnly; SameSite=Strict",
                percent_encode(t)
            ))
            .ok();
        }
        if let Some(staff) = staff {
            req.extensions_mut().insert(staff);
        } else {
            let mut r = ApiError::new(
                StatusCode::UNAUTHORIZED,
                "an access token is required (Authorization: Bearer TOKEN, or ?token=TOKEN)",
            )
            .into_response();
            r.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return r;
        }
    }
    // a reviewer's answers name nobody of a report (anon)
    let anonymous = req
        .extensions()
        .get::<Staff>()
        .is_some_and(|s| s.role == Role::Reviewer);
    let recs = if anonymous {
        named_recordings(&req)
    } else {
        Vec::new()
    };
    let frames = req.uri().path() == "/api/frames";
    let mut r = next.run(req).await;
    if anonymous && !frames {
        r = anonymized(&app, r, recs).await;
    }
    let h = r.headers_mut();
    if let Some(c) = set_cookie {
        h.insert(header::SET_COOKIE, c);
    }
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    r
}

/// The recordings a request names (`rec`, and `ghost` for a race), percent-decoded.
fn named_recordings(req: &Request) -> Vec<String> {
    req.uri()
        .query()
        .unwrap_or("")
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .filter(|(k, _)| *k == "rec" || *k == "ghost")
        .map(|(_, v)| percent_decode(v))
        .take(4)
        .collect()
}

/// The largest JSON answer a reviewer is given (it is anonymized whole; a larger one is
/// refused).
const ANON_MAX_BYTES: usize = 64 << 20;

/// `r` as a reviewer gets it: a JSON answer with every identity of the report replaced by its
/// pseudonym ([`anon`]), and a CSV, SVG or plain-text one (an export, a picture) the same in its
/// text. Answers of other types pass: the page and its scripts (the same for
/// everyone), server-sent events (`/api/live`'s edges are ticks; a party's name staff, not
/// players). `/api/frames` passes too (entity ids and numbers only; streamed).
async fn anonymized(app: &Arc<App>, r: Response, recs: Vec<String>) -> Response {
    let kind = r
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.as_bytes().to_vec())
        .unwrap_or_default();
    let json = kind.starts_with(b"application/json");
    // an export or a picture (CSV, SVG, plain text): its text
    let text = [&b"text/csv"[..], b"image/svg+xml", b"text/plain"]
        .iter()
        .any(|k| kind.starts_with(k));
    if !json && !text {
        return r;
    }
    let (mut parts, body) = r.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, ANON_MAX_BYTES).await else {
        return ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("an answer larger than {ANON_MAX_BYTES} bytes is not anonymized for a reviewer: ask for less"),
        )
        .into_response();
    };
    let a = app.clone();
    let done = blocking(move || {
        let names: Vec<&str> = recs.iter().map(String::as_str).collect();
        let p = anon::for_request(&a.lib, &names)?;
        if !json {
            return Ok(p.apply_text(&String::from_utf8_lossy(&bytes)).into_bytes());
        }
        let mut v: Value = serde_json::from_slice(&bytes).map_err(|e| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("internal error: an answer is not JSON: {e}"),
            )
        })?;
        p.apply(&mut v);
        Ok(serde_json::to_vec(&v).expect("JSON"))
    })
    .await;
    match done {
        Ok(b) => {
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, axum::body::Body::from(b))
        }
        Err(e) => e.into_response(),
    }
}

/// Runs blocking work on the blocking pool; a panic there is a 500, not the server's end.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|e| {
        Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("internal error: {e}"),
        ))
    })
}

/// [`blocking`] work that decodes a recording: run in a place of `kind` ([`Places::enter`]:
/// waited for at most the route's bound, else a 503), held until the work ends (even when the
/// client goes away first), then what the open recordings keep is brought back within the
/// server's budget ([`Library::settle`]).
async fn decoding<T: Send + 'static>(
    app: &Arc<App>,
    kind: Kind,
    f: impl FnOnce() -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    let place = app.places.enter(kind).await?;
    let app = app.clone();
    blocking(move || {
        app.places.started();
        let r = f();
        app.lib.settle();
        drop(place);
        r
    })
    .await
}

/// A JSON answer already written as bytes.
fn json_bytes(bytes: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], bytes).into_response()
}

fn query<T>(q: Result<Query<T>, QueryRejection>) -> ApiResult<T> {
    q.map(|Query(v)| v)
        .map_err(|e| ApiError::bad_request(format!("bad query: {}", e.body_text())))
}

#[derive(Debug, Deserialize)]
struct RecQuery {
    rec: String,
}

async fn recordings(
    State(app): State<Arc<App>>,
    Extension(staff): Extension<Staff>,
) -> ApiResult<Json<Value>> {
    // A public server names its directory only by its last component: the server's paths are
    // none of a remote reader's business.
    let root = match &app.lib.root {
        super::library::Root::Dir(d) if !app.loopback_only => d
            .file_name()
            .map_or_else(|| "/".to_string(), |n| n.to_string_lossy().into_owned()),
        super::library::Root::Dir(d) => d.display().to_string(),
        super::library::Root::Object(u) => u.clone(),
    };
    let a = app.clone();
    let (list, catalog) = blocking(move || Ok((a.lib.list()?, a.lib.catalog_entries()?))).await?;
    Ok(Json(json!({
        "root": root,
        "recordings": list,
        "truncated": list.len() >= super::library::LIST_MAX,
        "catalog": catalog,
        "has_catalog": app.lib.has_catalog(),
        // who the page is, by its staff token's name (null without tokens): decisions are theirs
        "staff": (!app.tokens.is_empty()).then_some(&staff.name),
        "role": staff.role.as_str(),
    })))
}

/// A recording's summary; opening a report's is logged ([`AuditLog::opened`]) before it is
/// answered.
async fn info_of(
    State(app): State<Arc<App>>,
    Extension(staff): Extension<Staff>,
    q: Result<Query<RecQuery>, QueryRejection>,
) -> ApiResult<Json<Value>> {
    let q = query(q)?;
    blocking(move || {
        let info = info::info(&app.lib.open(&q.rec)?)?;
        app.audit.opened(&app.lib, &staff.name, &q.rec, &info)?;
        Ok(info)
    })
    .await
    .map(Json)
}

async fn markers_of(
    State(app): State<Arc<App>>,
    q: Result<Query<RecQuery>, QueryRejection>,
) -> ApiResult<Response> {
    let q = query(q)?;
    let a = app.clone();
    decoding(&app, Kind::Decode, move || {
        a.markers.of(&a.lib.open(&q.rec)?)
    })
    .await
    .map(json_bytes)
}

/// The edited blocks as of `tick` ([`blocks::at`]), or without it every block change of the
/// recording ([`Markers::blocks`]).
async fn blocks_of(
    State(app): State<Arc<App>>,
    q: Result<Query<BlocksQuery>, QueryRejection>,
) -> ApiResult<Response> {
    let q = query(q)?;
    let a = app.clone();
    decoding(&app, Kind::Decode, move || {
        let h = a.lib.open(&q.rec)?;
        match q.tick {
            Some(t) => blocks::at(&h, t),
            None => a.markers.blocks(&h),
        }
    })
    .await
    .map(json_bytes)
}

async fn terrain_of(
    State(app): State<Arc<App>>,
    q: Result<Query<TerrainQuery>, QueryRejection>,
) -> ApiResult<Response> {
    let q = query(q)?;
    let a = app.clone();
    decoding(&app, Kind::Terrain, move || {
        terrain::terrain(&a.lib, &a.terrain, &q)
    })
    .await
    .map(json_bytes)
}

/// Pieces of a streamed answer on their way to the client at once (each about
/// [`frames::PIECE_BYTES`]).
const PIECES_IN_FLIGHT: usize = 4;

/// Frames, streamed: the request is checked and its playhead placed first (an error is a plain
/// error answer), then the answer is written piece by piece while the playhead steps, so that
/// what a request holds is a few pieces, not its whole answer (2,048 frames of 1,000 entities
/// were a gigabyte), and the work stops when the client goes away (a send finds no receiver).
async fn frames_of(
    State(app): State<Arc<App>>,
    q: Result<Query<FrameQuery>, QueryRejection>,
) -> ApiResult<Response> {
    let q = query(q)?;
    let (tx, mut rx) =
        tokio::sync::mpsc::channel::<Result<axum::body::Bytes, std::io::Error>>(PIECES_IN_FLIGHT);
    let (started_tx, started) = tokio::sync::oneshot::channel::<ApiResult<()>>();
    let place = app.places.enter(Kind::Decode).await?;
    tokio::task::spawn_blocking(move || {
        app.places.started();
        let answer = app.lib.open(&q.rec).and_then(|h| frames::start(&h, &q));
        match answer {
            Err(e) => {
                let _ = started_tx.send(Err(e));
            }
            Ok(f) => {
                let _ = started_tx.send(Ok(()));
                f.write(&mut |piece| tx.blocking_send(Ok(piece.into())).is_ok());
            }
        }
        app.lib.settle();
        drop(place);
    });
    match started.await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(e),
        Err(_) => {
            return Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal error: the frames were not made",
            ));
        }
    }
    let pieces = futures::stream::poll_fn(move |cx| rx.poll_recv(cx));
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        axum::body::Body::from_stream(pieces),
    )
        .into_response())
}

async fn seek_of(
    State(app): State<Arc<App>>,
    q: Result<Query<SeekQuery>, QueryRejection>,
) -> ApiResult<Json<Value>> {
    let q = query(q)?;
    let a = app.clone();
    decoding(&app, Kind::Decode, move || {
        frames::seek(&a.lib.open(&q.rec)?, &q)
    })
    .await
    .map(Json)
}

async fn live_of(
    State(app): State<Arc<App>>,
    q: Result<Query<RecQuery>, QueryRejection>,
) -> ApiResult<Response> {
    let q = query(q)?;
    let h = blocking(move || app.lib.open(&q.rec)).await?;
    Ok(live::stream(h).into_response())
}

async fn ghost_of(
    State(app): State<Arc<App>>,
    q: Result<Query<GhostQuery>, QueryRejection>,
) -> ApiResult<Json<Value>> {
    let q = query(q)?;
    // Set when this request is dropped (the client went away): the race stops at its next look.
    let gone = Arc::new(std::sync::atomic::AtomicBool::new(false));
    struct Dropped(Arc<std::sync::atomic::AtomicBool>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
    let _dropped = Dropped(gone.clone());
    let a = app.clone();
    decoding(&app, Kind::Decode, move || ghost::race(&a.lib, &q, &gone))
        .await
        .map(Json)
}

async fn reports_of(
    State(app): State<Arc<App>>,
    Extension(staff): Extension<Staff>,
) -> ApiResult<Json<Value>> {
    desk::needs(&staff, Role::Moderator)?;
    blocking(move || reports::list(&app.lib)).await.map(Json)
}

/// A decision on a report: by the staff token's name when the server has tokens (what the
/// page sends as `by` is then ignored), else by the `by` the page sends; logged.
async fn decide(
    State(app): State<Arc<App>>,
    Extension(staff): Extension<Staff>,
    headers: HeaderMap,
    body: Result<Json<Decision>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    reports::same_origin(&headers)?;
    if !staff.role.at_least(Role::Moderator) {
        return Err(ApiError::forbidden(
            "a decision on a report is a moderator's: a reviewer records a vote",
        ));
    }
    let Json(d) =
        body.map_err(|e| ApiError::new(e.status(), format!("bad decision: {}", e.body_text())))?;
    let named = !app.tokens.is_empty();
    blocking(move || {
        let by = if named {
            staff.name.clone()
        } else {
            d.by.clone().unwrap_or_default()
        };
        let row = reports::decide(&app.lib, &d, &by)?;
        app.audit.log(
            &app.lib,
            &by,
            &d.status,
            Some(d.id),
            &row["recording"]
                .as_str()
                .map_or_else(|| format!("report {}", d.id), str::to_string),
        )?;
        Ok(row)
    })
    .await
    .map(Json)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NewParty {
    rec: String,
    #[serde(default)]
    tick: f64,
}

/// A new watch party on a recording (which must open): `{"party": ID, "rec": NAME}`.
async fn party_new(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Result<Json<NewParty>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    reports::same_origin(&headers)?;
    let Json(n) =
        body.map_err(|e| ApiError::new(e.status(), format!("bad party: {}", e.body_text())))?;
    let a = app.clone();
    let rec = n.rec.clone();
    blocking(move || a.lib.open(&rec).map(drop)).await?;
    let id = app.parties.create(&n.rec, n.tick)?;
    Ok(Json(json!({"party": id, "rec": n.rec})))
}

#[derive(Debug, Deserialize)]
struct PartyQuery {
    party: String,
}

/// Joins a watch party: its event stream ([`Parties::join`]); named by the staff token.
async fn party_events(
    State(app): State<Arc<App>>,
    Extension(staff): Extension<Staff>,
    q: Result<Query<PartyQuery>, QueryRejection>,
) -> ApiResult<Response> {
    let q = query(q)?;
    let name = (!app.tokens.is_empty()).then_some(staff.name.as_str());
    Ok(app.parties.join(&q.party, name)?.into_response())
}

/// A member's action on their watch party ([`Parties::act`]).
async fn party_act(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Result<Json<Act>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    reports::same_origin(&headers)?;
    let Json(act) =
        body.map_err(|e| ApiError::new(e.status(), format!("bad action: {}", e.body_text())))?;
    app.parties.act(&act).map(Json)
}

#[derive(Debug, Deserialize)]
struct AuditQuery {
    n: Option<u64>,
}

/// The audit log's newest rows (from the catalog): `{"views": [{at_ms, who, action,
/// report_id, recording}...]}`, at most 1,000.
async fn audit_of(
    State(app): State<Arc<App>>,
    Extension(staff): Extension<Staff>,
    q: Result<Query<AuditQuery>, QueryRejection>,
) -> ApiResult<Json<Value>> {
    desk::needs(&staff, Role::Moderator)?;
    let q = query(q)?;
    blocking(move || {
        let n = q.n.unwrap_or(100).min(1_000);
        let rows = app.lib.with_catalog(|c| c.report_views(n))?;
        let views: Vec<Value> = rows
            .iter()
            .map(|v| {
                json!({"at_ms": v.at_ms, "who": v.who, "action": v.action,
                    "report_id": v.report_id, "recording": v.recording, "detail": v.detail})
            })
            .collect();
        Ok(json!({ "views": views }))
    })
    .await
    .map(Json)
}

#[derive(Debug, Deserialize)]
struct TopQuery {
    course: String,
    n: Option<u64>,
}

async fn catalog_top(
    State(app): State<Arc<App>>,
    q: Result<Query<TopQuery>, QueryRejection>,
) -> ApiResult<Json<Value>> {
    let q = query(q)?;
    blocking(move || {
        let n = q.n.unwrap_or(20).min(100);
        let top = app.lib.with_catalog(|c| c.top(&q.course, n))?;
        let runs: Vec<Value> = top
            .iter()
            .map(|p| {
                json!({
                    "rank": p.rank,
                    "run_id": p.run.id,
                    "recording": format!("{}{}", super::library::CATALOG_PREFIX, p.run.recording_id),
                    "entity": p.run.entity,
                    "player_name": p.run.player_name,
                    "time": p.run.shown(),
                    "start_tick": p.run.start_tick,
                    "end_tick": p.run.end_tick,
                })
            })
            .collect();
        // the course's held runs, with why: on no board, shown apart for moderators
        let held = app.lib.with_catalog(|c| c.held_runs(Some(&q.course), n))?;
        let held: Vec<Value> = held
            .iter()
            .map(|(r, holds)| {
                json!({
                    "run_id": r.id,
                    "player_name": r.player_name,
                    "time": r.shown(),
                    "holds": holds.iter().map(|h| json!({
                        "reason": h.reason.as_str(),
                        "tick": h.tick,
                        "detail": h.detail,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        Ok(json!({"course": q.course, "runs": runs, "held": held}))
    })
    .await
    .map(Json)
}

/// The reviewers the server knows: its tokens' and the catalog's. Blocking.
fn reviewers(app: &App) -> ApiResult<Vec<String>> {
    let mut names: Vec<String> = app
        .tokens
        .roles()
        .filter(|(_, r)| *r == Role::Reviewer)
        .map(|(n, _)| n.to_string())
        .collect();
    if app.catalog_staff {
        for m in app.lib.with_catalog(|c| c.staff())? {
            if m.role == Role::Reviewer.as_str() && !names.contains(&m.name) {
                names.push(m.name);
            }
        }
    }
    Ok(names)
}

/// The desk of the caller ([`desk::desk`]).
async fn desk_of(
    State(app): State<Arc<App>>,
    Extension(staff): Extension<Staff>,
) -> ApiResult<Json<Value>> {
    blocking(move || {
        let reviewers = reviewers(&app)?;
        desk::desk(&app.lib, &staff, &reviewers)
    })
    .await
    .map(Json)
}

/// A desk write: from the page's own origin, with a JSON body of `T`, done by `f`.
async fn desk_write<T: Send + 'static>(
    app: Arc<App>,
    staff: Staff,
    headers: &HeaderMap,
    body: Result<Json<T>, JsonRejection>,
    f: fn(&super::library::Library, &Staff, &T) -> ApiResult<Value>,
) -> ApiResult<Json<Value>> {
    reports::same_origin(headers)?;
    let Json(b) =
        body.map_err(|e| ApiError::new(e.status(), format!("bad request: {}", e.body_text())))?;
    blocking(move || f(&app.lib, &staff, &b)).await.map(Json)
}

async fn desk_vote(
    State(app): State<Arc<App>>,
    Extension(staff): Extension<Staff>,
    headers: HeaderMap,
    body: Result<Json<desk::VoteBody>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    desk_write(app, staff, &headers, body, desk::vote).await
}

async fn desk_verdict(
    State(app): State<Arc<App>>,
    Extension(staff): Extension<Staff>,
    headers: HeaderMap,
    body: Result<Json<desk::VerdictBody>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    desk_write(app, staff, &headers, body, desk::decide).await
}

async fn desk_known(
    State(app): State<Arc<App>>,
    Extension(staff): Extension<Staff>,
    headers: HeaderMap,
    body: Result<Json<desk::VerdictBody>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    desk_write(app, staff, &headers, body, desk::known).await
}

async fn desk_rule(
    State(app): State<Arc<App>>,
    Extension(staff): Extension<Staff>,
    headers: HeaderMap,
    body: Result<Json<desk::RuleBody>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    desk_write(app, staff, &headers, body, desk::set_rule).await
}

async fn desk_retention(
    State(app): State<Arc<App>>,
    Extension(staff): Extension<Staff>,
    headers: HeaderMap,
    body: Result<Json<desk::RetentionBody>, JsonRejection>,
) -> ApiResult<Json<Value>> {
    desk_write(app, staff, &headers, body, desk::retention).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_tokens_are_decoded() {
        assert_eq!(percent_decode("a%2Bb+c"), "a+b c");
        assert_eq!(percent_decode("50%"), "50%");
        assert_eq!(percent_decode("%zz"), "%zz");
    }

    #[test]
    fn tokens_come_from_the_header_the_query_or_the_cookie() {
        let of = |req: axum::http::request::Builder| {
            token_of(&req.body(axum::body::Body::empty()).unwrap())
        };
        let t = "p@ss; w=rd +%";
        let cookie = format!("a=b; {TOKEN_COOKIE}={}; c=d", percent_encode(t));
        assert_eq!(
            of(Request::get("/").header(header::COOKIE, cookie)),
            Some((t.to_string(), TokenFrom::Cookie))
        );
        assert_eq!(
            of(Request::get("/x?a=1&token=ab%20c")),
            Some(("ab c".to_string(), TokenFrom::Query))
        );
        assert_eq!(
            of(Request::get("/?token=q").header(header::AUTHORIZATION, "bearer h")),
            Some(("h".to_string(), TokenFrom::Header))
        );
        assert_eq!(
            of(Request::get("/").header(header::COOKIE, "tickreel_tokenx=1")),
            None
        );
    }

    #[test]
    fn only_loopback_hosts_pass() {
        let mut h = HeaderMap::new();
        for (host, ok) in [
            ("127.0.0.1:8080", true),
            ("localhost:1", true),
            ("[::1]:80", true),
            ("evil.example:8080", false),
            ("10.0.0.1", false),
        ] {
            h.insert(header::HOST, HeaderValue::from_str(host).unwrap());
            assert_eq!(loopback_host(&h), ok, "{host}");
        }
    }
}
