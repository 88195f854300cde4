//! Recordings in object storage ([`tickreel_object`]): the options that reach a store, opening a
//! recording and loading a ghost by URL (`s3://bucket/key`; a local path works too), and a
//! recording's finish followed by its upload. Credentials never appear in messages: the object
//! crate scrubs them from every error.

use std::path::Path;

use tickreel_sync::sync::Mutex;

use crate::api::engine::Recorder;
use crate::api::pending::{Kind, Outcome, Pending};
use crate::api::playhead::Playhead;
use crate::api::reader::Reader;
use crate::api::report_options::ReportOptions;
use crate::api::shadow::{self, ShadowBuffer};
use crate::api::{Id, New, Released, StringPairs};
use crate::shared::handle::HandleType;
use tickreel::ghost::{GhostRange, GhostTrack};
use tickreel::play;
use tickreel_bridge_macros::bridge_fn;
use tickreel_object::{ObjectStorage, ObjectUrl, UploadOptions};

/// How to reach a store (C: `TickreelObjectOptions`, Java: `ObjectOptions`): endpoint, region,
/// credentials, timeouts and retries. Calls are serialised by its lock; an operation copies it.
pub struct ObjectOptions(Mutex<tickreel_object::ObjectOptions>);

impl HandleType for ObjectOptions {
    const TAG: u8 = 13;
    const NAME: &'static str = "object options";
}

impl ObjectOptions {
    pub(crate) fn get(&self) -> tickreel_object::ObjectOptions {
        self.0.lock().clone()
    }
}

/// An uploaded object as a pending's take gives it (C: the URL, and the size in `*out_bytes`;
/// Java: `Uploaded`).
pub struct UploadedObject {
    pub url: String,
    pub bytes: u64,
}

/// Creates object-storage options with the usual variables read now: `AWS_ACCESS_KEY_ID`,
/// `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION` (or `AWS_DEFAULT_REGION`),
/// `AWS_ENDPOINT_URL` (or `AWS_ENDPOINT`), `AWS_ALLOW_HTTP`; an `http://` endpoint allows plain
/// HTTP. Defaults otherwise: connect timeout 5 s, request timeout 30 s, 3 retries backing off
/// from 100 ms to 5 s, a 120 s deadline per call. Stores the handle in `*out_options`; free it
/// with `tickreel_object_options_free` (operations copy what they need).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_object_options_new",
    c_out = "out_options",
    java = "objectOptionsNew"
)]
pub fn options_new() -> New<ObjectOptions> {
    New(ObjectOptions(Mutex::new(
        tickreel_object::ObjectOptions::from_env(),
    )))
}

/// Frees object-storage options. `tickreel_object_options_free(NULL)` is a no-op returning
/// `TICKREEL_RESULT_OK`; a freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
///
/// Thread safety: any thread.
#[bridge_fn(c = "tickreel_object_options_free")]
pub fn options_free(_options: Released<ObjectOptions>) {}

/// Sets the store's endpoint (`http://127.0.0.1:9000`, `https://<account>.r2.cloudflarestorage.com`;
/// NULL: AWS S3 itself). An `http://` endpoint also allows plain HTTP.
///
/// Thread safety: any thread; calls on one options handle are serialised.
#[bridge_fn(
    c = "tickreel_object_options_set_endpoint",
    java = "objectOptionsSetEndpoint"
)]
pub fn options_set_endpoint(options: &ObjectOptions, endpoint: Option<&str>) {
    let mut o = options.0.lock();
    o.allow_http |= endpoint.is_some_and(|e| e.starts_with("http://"));
    o.endpoint = endpoint.map(str::to_owned);
}

/// Sets the region (NULL: `us-east-1`).
///
/// Thread safety: any thread; calls on one options handle are serialised.
#[bridge_fn(
    c = "tickreel_object_options_set_region",
    java = "objectOptionsSetRegion"
)]
pub fn options_set_region(options: &ObjectOptions, region: Option<&str>) {
    options.0.lock().region = region.map(str::to_owned);
}

/// Sets static credentials (an access key id, its secret and an optional session token, NULL for
/// none), replacing those read from the environment. They are never shown in messages.
///
/// Thread safety: any thread; calls on one options handle are serialised.
#[bridge_fn(
    c = "tickreel_object_options_set_credentials",
    java = "objectOptionsSetCredentials"
)]
pub fn options_set_credentials(
    options: &ObjectOptions,
    access_key_id: &str,
    secret_access_key: &str,
    session_token: Option<&str>,
) {
    let mut c = tickreel_object::Credentials::new(access_key_id, secret_access_key);
    c.session_token = session_token.map(str::to_owned);
    options.0.lock().credentials = Some(c);
}

/// Allows (or forbids) plain `http://` endpoints.
///
/// Thread safety: any thread; calls on one options handle are serialised.
#[bridge_fn(
    c = "tickreel_object_options_set_allow_http",
    java = "objectOptionsSetAllowHttp"
)]
pub fn options_set_allow_http(options: &ObjectOptions, allow: bool) {
    options.0.lock().allow_http = allow;
}

/// Sets the timeouts in milliseconds: to connect, for one request, and the deadline of one call
/// with its retries (past it the call fails with `TICKREEL_RESULT_IO`, a timeout).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a zero timeout.
///
/// Thread safety: any thread; calls on one options handle are serialised.
#[bridge_fn(
    c = "tickreel_object_options_set_timeouts",
    java = "objectOptionsSetTimeouts"
)]
pub fn options_set_timeouts(
    options: &ObjectOptions,
    connect_ms: u32,
    request_ms: u32,
    deadline_ms: u32,
) -> tickreel::Result<()> {
    if connect_ms == 0 || request_ms == 0 || deadline_ms == 0 {
        return Err(tickreel::Error::invalid(
            "object storage timeouts must be at least 1 ms",
        ));
    }
    let ms = |v: u32| std::time::Duration::from_millis(u64::from(v));
    let mut o = options.0.lock();
    o.connect_timeout = ms(connect_ms);
    o.request_timeout = ms(request_ms);
    o.deadline = ms(deadline_ms);
    Ok(())
}

/// Sets the retries of a failed request (connection errors, 5xx, timeouts) and their backoff in
/// milliseconds: the first wait, doubling up to the longest.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if the first wait is longer than the longest.
///
/// Thread safety: any thread; calls on one options handle are serialised.
#[bridge_fn(
    c = "tickreel_object_options_set_retries",
    java = "objectOptionsSetRetries"
)]
pub fn options_set_retries(
    options: &ObjectOptions,
    retries: u32,
    backoff_initial_ms: u32,
    backoff_max_ms: u32,
) -> tickreel::Result<()> {
    if backoff_initial_ms > backoff_max_ms {
        return Err(tickreel::Error::invalid(format!(
            "the first backoff ({backoff_initial_ms} ms) is longer than the longest ({backoff_max_ms} ms)"
        )));
    }
    let ms = |v: u32| std::time::Duration::from_millis(u64::from(v));
    let mut o = options.0.lock();
    o.retries = retries as usize;
    o.backoff_initial = ms(backoff_initial_ms);
    o.backoff_max = ms(backoff_max_ms);
    Ok(())
}

/// Opens the recording at `location`, an object URL (`s3://bucket/key`: one request for the
/// header, metadata and index when they fit in the first 256 KiB, then one per chunk needed) or a
/// local path (as `tickreel_reader_open`), with `options` (used for URLs only), and stores the
/// reader's handle in `*out_reader`.
///
/// Returns `TICKREEL_RESULT_IO` for a missing object ("no such object"), a store that refuses
/// (wrong credentials) or cannot be reached, or a call past its deadline (the message says
/// which, never with a secret), `TICKREEL_RESULT_INVALID_ARGUMENT` for a malformed URL, and the codes of
/// `tickreel_reader_open`. On failure `*out_reader` is set to NULL (when it can be written).
///
/// Thread safety: any thread. A reader may then be used from any number of threads at once.
#[bridge_fn(
    c = "tickreel_reader_open_url",
    c_out = "out_reader",
    java = "readerOpenUrl"
)]
pub fn reader_open_url(location: &str, options: &ObjectOptions) -> tickreel::Result<New<Reader>> {
    Ok(New(Reader(open_location(location, options)?)))
}

/// A reader of an object URL or, for anything else, of a local path.
fn open_location(location: &str, options: &ObjectOptions) -> tickreel::Result<play::Reader> {
    if tickreel_object::is_object_url(location) {
        tickreel_object::open_url(location, &options.get())
    } else {
        play::Reader::open_any(Path::new(location))
    }
}

/// Opens the recording at `location`, an object URL or a local path (as
/// `tickreel_reader_open_url`), with a paused playhead at `start_tick` (clamped into the
/// recording), and stores its handle in `*out_playhead`. Chunks are fetched by range requests on
/// the playback prefetch threads, so `tickreel_playhead_advance` never waits on the network.
///
/// Returns the codes of `tickreel_reader_open_url`. On failure `*out_playhead` is set to NULL
/// (when it can be written).
///
/// Thread safety: any thread, as `tickreel_playhead_open`.
#[bridge_fn(
    c = "tickreel_playhead_open_url",
    c_out = "out_playhead",
    java = "playheadOpenUrl"
)]
pub fn playhead_open_url(
    location: &str,
    options: &ObjectOptions,
    start_tick: u32,
) -> tickreel::Result<New<Playhead>> {
    crate::api::playhead::on_reader(open_location(location, options)?, start_tick)
}

/// Starts loading `entity`'s run in `range` (NULL: its whole presence) from the recording at
/// `location` (an object URL or a local path) on a background thread, and stores the load's
/// pending in `*out_pending`: poll it with `tickreel_pending_poll`, take the ghost with
/// `tickreel_pending_take_ghost` (which reports the load's own errors: a missing object, refused
/// credentials). Never blocks.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a malformed URL or options the store client
/// refuses. On failure `*out_pending` is set to NULL (when it can be written).
///
/// Thread safety: any thread.
#[bridge_fn(
    c = "tickreel_ghost_load_async_url",
    c_out = "out_pending",
    java = "ghostLoadAsyncUrl"
)]
pub fn ghost_load_async_url(
    location: &str,
    options: &ObjectOptions,
    entity: u32,
    range: GhostRange,
) -> tickreel::Result<New<Pending>> {
    let load = if tickreel_object::is_object_url(location) {
        tickreel_object::load_ghost_async(location, &options.get(), entity, range)?
    } else {
        GhostTrack::load_async(Path::new(location).to_path_buf(), entity, range)
    };
    Ok(Pending::ghost(load))
}

/// Finishes the recording (as `tickreel_recorder_finish`) and, once its `.reel` file is
/// compacted, uploads it to the object URL `url` (`s3://bucket/key`) on a background thread:
/// multipart for large files, never over an existing object unless `overwrite`, the uploaded
/// size checked, then the local file removed if `remove_local`. Stores the pending in
/// `*out_pending`: poll it with `tickreel_pending_poll`, read the object with
/// `tickreel_pending_take_upload`. A failed upload keeps the local
/// file (`tickreel upload FILE URL` retries it).
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a malformed URL (checked before the recording
/// is finished: it then goes on), and the codes of `tickreel_recorder_finish`. On failure
/// `*out_pending` is set to NULL (when it can be written).
///
/// Thread safety: any thread, concurrently with other recorder calls; only one finish or abort
/// succeeds.
#[bridge_fn(
    c = "tickreel_recorder_finish_upload",
    c_out = "out_pending",
    java = "recorderFinishUpload"
)]
pub fn recorder_finish_upload(
    recorder: &Recorder,
    url: &str,
    options: &ObjectOptions,
    overwrite: bool,
    remove_local: bool,
) -> tickreel::Result<New<Pending>> {
    let target = ObjectUrl::parse(url)?;
    let storage = ObjectStorage::new(&target.bucket, options.get())?;
    let finish = recorder.0.finish()?;
    Ok(upload_when_finished(
        &storage,
        finish,
        &target.key,
        overwrite,
        remove_local,
    ))
}

/// Reports `player` as `tickreel_shadow_buffer_report` does (the report written to the local
/// `path`, with `options` and the `metadata_count` string pairs) and, once the report's file is
/// complete, uploads it to the object URL `url` (`s3://bucket/key`) on a background thread, as
/// `tickreel_recorder_finish_upload` does: never over an existing object unless
/// `upload_overwrite`, the uploaded size checked, then the local file removed if `remove_local`.
/// Stores the pending in `*out_pending`: poll it with `tickreel_pending_poll`. A failed upload
/// keeps the local file.
///
/// Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a malformed URL (checked before the report is
/// made: nothing is reported then), and the codes of `tickreel_shadow_buffer_report`. On failure
/// `*out_pending` is set to NULL (when it can be written).
///
/// Thread safety: any thread, concurrently with any other call on the shadow and its recorder.
#[bridge_fn(
    c = "tickreel_shadow_buffer_report_upload",
    c_out = "out_pending",
    java = "shadowBufferReportUpload"
)]
#[allow(clippy::too_many_arguments)]
pub fn shadow_report_upload(
    shadow: &ShadowBuffer,
    player: Id,
    path: &Path,
    options: Option<&ReportOptions>,
    metadata: StringPairs,
    url: &str,
    object_options: &ObjectOptions,
    upload_overwrite: bool,
    remove_local: bool,
) -> tickreel::Result<New<Pending>> {
    let target = ObjectUrl::parse(url)?;
    let storage = ObjectStorage::new(&target.bucket, object_options.get())?;
    let finish = shadow
        .0
        .report(player.0, path, shadow::with_metadata(options, metadata))?;
    Ok(upload_when_finished(
        &storage,
        finish,
        &target.key,
        upload_overwrite,
        remove_local,
    ))
}

fn upload_when_finished(
    storage: &ObjectStorage,
    finish: tickreel::Pending<std::path::PathBuf>,
    key: &str,
    overwrite: bool,
    remove_local: bool,
) -> New<Pending> {
    let upload = UploadOptions {
        overwrite,
        remove_local,
    };
    Pending::upload(
        storage.upload_when_finished(finish, key, upload),
        storage.options().clone(),
    )
}

/// Copies the URL of the object an upload wrote into `url_buf` as a NUL-terminated string,
/// storing its length in bytes, without the NUL, in `*out_len`, and the object's size in bytes in
/// `*out_bytes` (both written even when the URL does not fit). With `capacity` 0 nothing is copied
/// (`url_buf` may then be NULL). `out_len` and `out_bytes` may be NULL. Never blocks; may be asked
/// again.
///
/// Returns `TICKREEL_RESULT_NOT_READY` while the finish or upload runs, the failure's code if
/// either failed (e.g. `TICKREEL_RESULT_IO` for an existing object or a refused request),
/// `TICKREEL_RESULT_INVALID_STATE` (naming the kind it holds) for a pending of another kind,
/// `TICKREEL_RESULT_BUFFER_TOO_SMALL` if `capacity` is less than `*out_len + 1` (nothing is
/// copied).
///
/// Thread safety: any thread, concurrently with any other call on the handle.
#[bridge_fn(
    c = "tickreel_pending_take_upload",
    c_out_string = "url_buf",
    c_out = "out_bytes",
    c_out_type = "u64",
    c_out_optional,
    java = "pendingTakeUpload"
)]
pub fn take_upload(pending: &Pending) -> tickreel::Result<UploadedObject> {
    match pending.take(Kind::Upload)? {
        Outcome::Upload(u) => Ok(UploadedObject {
            url: u.report.url.to_string(),
            bytes: u.report.bytes,
        }),
        _ => unreachable!("a pending's result is of its kind"),
    }
}
