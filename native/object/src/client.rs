//! [`ObjectStorage`]: one bucket of an S3-compatible store, reached through `object_store` on a
//! small tokio runtime shared by every client. Every call is synchronous for its caller (a loader, prefetch or
//! CLI thread: never a server thread), bounded by the options' deadline, and counted.

use std::cell::Cell;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path as ObjectPath;
use object_store::{BackoffConfig, ClientOptions, ObjectStore, ObjectStoreExt, RetryConfig};
use tickreel::{Error, Result};

use crate::options::ObjectOptions;
use crate::url::ObjectUrl;

/// What a listing or a `head` tells about one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectInfo {
    pub url: ObjectUrl,
    pub size: u64,
    /// RFC 3339, UTC.
    pub last_modified: String,
}

pub(crate) struct Inner {
    pub(crate) bucket: String,
    pub(crate) store: AmazonS3,
    /// Always `Some` until dropped (see `Drop for Inner`).
    runtime: Option<Arc<tokio::runtime::Runtime>>,
    pub(crate) options: ObjectOptions,
    secrets: Vec<String>,
    requests: AtomicU64,
}

/// One bucket of an S3-compatible store. Cheap to clone; safe to share between threads. Its
/// calls must not be made from inside an async runtime's worker (they block their thread).
#[derive(Clone)]
pub struct ObjectStorage {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for ObjectStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectStorage")
            .field("bucket", &self.inner.bucket)
            .field("endpoint", &self.inner.options.endpoint)
            .field("requests", &self.requests())
            .finish_non_exhaustive()
    }
}

impl ObjectStorage {
    /// A client of `bucket` (no request is made until one is needed).
    pub fn new(bucket: &str, options: ObjectOptions) -> Result<ObjectStorage> {
        let o = &options;
        let retry = RetryConfig {
            backoff: BackoffConfig {
                init_backoff: o.backoff_initial,
                max_backoff: o.backoff_max,
                base: 2.0,
            },
            max_retries: o.retries,
            retry_timeout: o.deadline,
        };
        let client = ClientOptions::new()
            .with_allow_http(o.allow_http)
            .with_connect_timeout(o.connect_timeout)
            .with_timeout(o.request_timeout);
        let mut b = AmazonS3Builder::new()
            .with_bucket_name(bucket)
            .with_region(o.region.clone().unwrap_or_else(|| "us-east-1".into()))
            .with_allow_http(o.allow_http)
            .with_retry(retry)
            .with_client_options(client);
        if let Some(e) = &o.endpoint {
            b = b.with_endpoint(e);
        }
        let mut secrets = Vec::new();
        if let Some(c) = &o.credentials {
            b = b
                .with_access_key_id(&c.access_key_id)
                .with_secret_access_key(&c.secret_access_key);
            if let Some(t) = &c.session_token {
                b = b.with_token(t);
            }
            secrets = c.secrets();
        }
        let store = b.build().map_err(|e| {
            Error::invalid(format!("s3://{bucket}: {}", scrub(&chain(&e), &secrets)))
        })?;
        let runtime = shared_runtime()?;
        Ok(ObjectStorage {
            inner: Arc::new(Inner {
                bucket: bucket.to_string(),
                store,
                runtime: Some(runtime),
                options,
                secrets,
                requests: AtomicU64::new(0),
            }),
        })
    }

    pub fn bucket(&self) -> &str {
        &self.inner.bucket
    }
    pub fn options(&self) -> &ObjectOptions {
        &self.inner.options
    }

    /// Requests sent so far (each call counts once, whatever its retries; a multipart upload
    /// counts its start, each part and its completion).
    pub fn requests(&self) -> u64 {
        self.inner.requests.load(Ordering::Relaxed)
    }

    /// The URL of `key` in this bucket.
    pub fn url(&self, key: &str) -> ObjectUrl {
        ObjectUrl {
            bucket: self.inner.bucket.clone(),
            key: key.to_string(),
        }
    }

    /// The object's size and date, or `None` if there is no such object.
    pub fn head(&self, key: &str) -> Result<Option<ObjectInfo>> {
        let path = object_path(&self.url(key))?;
        let store = self.inner.store.clone();
        match self.run(&self.url(key), async move { store.head(&path).await }) {
            Ok(meta) => Ok(Some(self.info(meta))),
            Err(Error::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Every object whose key is under `prefix` (a folder: `runs/2026` lists `runs/2026/...`),
    /// in key order.
    pub fn list(&self, prefix: &str) -> Result<Vec<ObjectInfo>> {
        use futures::TryStreamExt;
        let url = self.url(prefix);
        let path = (!prefix.is_empty())
            .then(|| object_path(&url))
            .transpose()?;
        let store = self.inner.store.clone();
        let mut all: Vec<ObjectInfo> = self
            .run(&url, async move {
                store.list(path.as_ref()).try_collect::<Vec<_>>().await
            })?
            .into_iter()
            .map(|m| self.info(m))
            .collect();
        all.sort_by(|a, b| a.url.key.cmp(&b.url.key));
        Ok(all)
    }

    /// Writes `bytes` to `key` in one request (replacing an existing object only if
    /// `overwrite`).
    pub fn put_bytes(&self, key: &str, bytes: Vec<u8>, overwrite: bool) -> Result<()> {
        use object_store::{PutMode, PutOptions, PutPayload};
        let url = self.url(key);
        let path = object_path(&url)?;
        let store = self.inner.store.clone();
        let opts = PutOptions {
            mode: if overwrite {
                PutMode::Overwrite
            } else {
                PutMode::Create
            },
            ..PutOptions::default()
        };
        self.run(&url, async move {
            store.put_opts(&path, PutPayload::from(bytes), opts).await
        })
        .map(|_| ())
    }

    /// The whole object at `key` (one request), or `None` if there is none; an object larger
    /// than `limit` bytes is refused (its body is not read).
    pub fn get_bytes(&self, key: &str, limit: u64) -> Result<Option<Vec<u8>>> {
        let url = self.url(key);
        let path = object_path(&url)?;
        let store = self.inner.store.clone();
        let r = self.run(&url, async move {
            let r = store
                .get_opts(&path, object_store::GetOptions::default())
                .await?;
            let size = r.meta.size;
            if size > limit {
                return Ok((size, None));
            }
            Ok((size, Some(r.bytes().await?)))
        });
        match r {
            Ok((_, Some(b))) => Ok(Some(b.to_vec())),
            Ok((size, None)) => Err(Error::limit(format!("{url}: {size} bytes; limit {limit}"))),
            Err(Error::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Removes an object (no error if it does not exist).
    pub fn delete(&self, key: &str) -> Result<()> {
        let url = self.url(key);
        let path = object_path(&url)?;
        let store = self.inner.store.clone();
        self.run(&url, async move { store.delete(&path).await })
    }

    /// Removes every object under `prefix` (a folder, not empty: `runs/a.reel.live` removes
    /// `runs/a.reel.live/...`), listing it and deleting what the listing names in bulk
    /// (`DeleteObjects`, 1,000 keys a request), streamed: memory stays bounded whatever the
    /// count. Returns how many objects were removed. Counts as the listing's pages (1,000 keys
    /// each) plus the bulk deletes.
    pub fn delete_prefix(&self, prefix: &str) -> Result<u64> {
        use futures::{StreamExt, TryStreamExt};
        if prefix.trim_matches('/').is_empty() {
            return Err(Error::invalid(
                "deleting under a prefix: the prefix must not be empty",
            ));
        }
        let url = self.url(prefix);
        let path = object_path(&url)?;
        let store = self.inner.store.clone();
        let n = self.run(&url, async move {
            let listed = store.list(Some(&path)).map_ok(|m| m.location).boxed();
            store
                .delete_stream(listed)
                .try_fold(0u64, |n, _| async move { Ok(n + 1) })
                .await
        })?;
        let bulk = n.div_ceil(1000);
        self.inner
            .requests
            .fetch_add(bulk.max(1) + bulk - 1, Ordering::Relaxed);
        Ok(n)
    }

    fn info(&self, meta: object_store::ObjectMeta) -> ObjectInfo {
        ObjectInfo {
            url: self.url(meta.location.as_ref()),
            size: meta.size,
            last_modified: meta.last_modified.to_rfc3339(),
        }
    }

    /// Runs one request to completion on the shared runtime, within the deadline; counts it
    /// and turns its error into the core's, naming `url` and scrubbed of credentials.
    ///
    /// Only the library's own threads enter the runtime (`block_on`): a caller's thread (a
    /// plugin's, a server's main thread, one inside some other async runtime) hands the request to
    /// a short-lived library thread and waits for it. Entering a tokio runtime registers
    /// thread-local destructors on the entering thread, and glibc keeps a shared library mapped
    /// while a live thread holds one (see `tickreel_sync::threads`): a plugin reload would leak a copy.
    #[allow(clippy::disallowed_methods)] // block_on only on a library thread
    pub(crate) fn run<T: Send + 'static>(
        &self,
        url: &ObjectUrl,
        fut: impl Future<Output = object_store::Result<T>> + Send + 'static,
    ) -> Result<T> {
        self.inner.requests.fetch_add(1, Ordering::Relaxed);
        let deadline = self.inner.options.deadline;
        let timed = async move { tokio::time::timeout(deadline, fut).await };
        let r = if tickreel_sync::threads::is_library_thread() {
            self.inner.runtime().block_on(timed)
        } else {
            let rt = self.inner.runtime.clone().expect("kept until dropped");
            on_library_thread("tickreel-object-call", move || rt.block_on(timed))
                .map_err(|e| e.with_context(&format!(" ({url})")))?
        };
        match r {
            Err(_) => Err(Error::Io(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("{url}: no answer within {}", show(deadline)),
            ))),
            Ok(Err(e)) => Err(self.error(url, &e)),
            Ok(Ok(v)) => Ok(v),
        }
    }

    /// The core's error for a failed request.
    pub(crate) fn error(&self, url: &ObjectUrl, e: &object_store::Error) -> Error {
        use object_store::Error as E;
        use std::io::ErrorKind as K;
        let (kind, what) = match e {
            E::NotFound { .. } => (K::NotFound, "no such object"),
            E::AlreadyExists { .. } | E::Precondition { .. } | E::NotModified { .. } => {
                (K::AlreadyExists, "the object already exists")
            }
            E::PermissionDenied { .. } | E::Unauthenticated { .. } => {
                (K::PermissionDenied, "access denied (check the credentials)")
            }
            _ => (K::Other, "request failed"),
        };
        let mut detail = scrub(&chain(e), &self.inner.secrets);
        if detail.len() > 600 {
            let mut cut = 600;
            while !detail.is_char_boundary(cut) {
                cut -= 1;
            }
            detail.truncate(cut);
            detail.push_str("...");
        }
        let hint = if self.inner.options.credentials.is_none() && kind != K::NotFound {
            " (no credentials were given: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and \
             AWS_ENDPOINT_URL for a store other than AWS S3)"
        } else {
            ""
        };
        Error::Io(std::io::Error::new(
            kind,
            format!("{url}: {what}: {detail}{hint}"),
        ))
    }
}

impl Inner {
    fn runtime(&self) -> &tokio::runtime::Runtime {
        self.runtime
            .as_ref()
            .expect("the runtime is kept until the client is dropped")
    }
}

impl Drop for Inner {
    /// The last client ends the runtime and waits (up to ten seconds) for its threads to end, on
    /// a library thread (see [`ObjectStorage::run`]): a plugin's reload must not leave a thread
    /// running the library's code, nor a thread-local destructor pinning it. A client dropped on
    /// one of the runtime's own workers cannot wait for them: it ends the runtime in the
    /// background.
    fn drop(&mut self) {
        let Some(rt) = self.runtime.take() else {
            return;
        };
        let Ok(rt) = Arc::try_unwrap(rt) else {
            return;
        };
        if RUNTIME_WORKER.with(Cell::get) {
            rt.shutdown_background();
        } else if tickreel_sync::threads::is_library_thread() {
            rt.shutdown_timeout(SHUTDOWN_WAIT);
        } else if let Err(rt) = shutdown_on_library_thread(rt) {
            rt.shutdown_background();
        }
    }
}

/// How long the last client waits for the runtime's threads to end.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(10);

thread_local! {
    /// Set on the shared runtime's own threads. `const` and without `Drop`: registers nothing.
    static RUNTIME_WORKER: Cell<bool> = const { Cell::new(false) };
}

/// Ends `rt` on a library thread and waits for it; gives it back if no thread could be started.
fn shutdown_on_library_thread(
    rt: tokio::runtime::Runtime,
) -> std::result::Result<(), tokio::runtime::Runtime> {
    let slot = Arc::new(Mutex::new(Some(rt)));
    let taken = slot.clone();
    let started = tickreel_sync::threads::spawn("tickreel-object-stop", move || {
        let rt = taken.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(rt) = rt {
            rt.shutdown_timeout(SHUTDOWN_WAIT);
        }
    });
    match started {
        Ok(h) => {
            h.join();
            Ok(())
        }
        Err(_) => match slot.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(rt) => Err(rt),
            None => Ok(()),
        },
    }
}

/// Runs `f` on a new library thread and returns what it returned (see [`ObjectStorage::run`]).
fn on_library_thread<R: Send + 'static>(
    name: &str,
    f: impl FnOnce() -> R + Send + 'static,
) -> Result<R> {
    let slot = Arc::new(Mutex::new(None));
    let out = slot.clone();
    let h = tickreel_sync::threads::spawn(name, move || {
        let r = f();
        *out.lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
    })?;
    h.join();
    let r = slot.lock().unwrap_or_else(|p| p.into_inner()).take();
    r.ok_or_else(|| Error::InvalidState(format!("the {name} thread panicked")))
}

/// The runtime every client shares: started with the first client, ended when the last one is
/// dropped, so that a process holding no client keeps no thread. Built on a library thread, so
/// that starting its workers registers nothing on the caller's.
fn shared_runtime() -> Result<Arc<tokio::runtime::Runtime>> {
    static SHARED: std::sync::Mutex<std::sync::Weak<tokio::runtime::Runtime>> =
        std::sync::Mutex::new(std::sync::Weak::new());
    let mut shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(rt) = shared.upgrade() {
        return Ok(rt);
    }
    let build = || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("tickreel-object")
            .on_thread_start(|| RUNTIME_WORKER.with(|w| w.set(true)))
            .enable_all()
            .build()
    };
    let rt = if tickreel_sync::threads::is_library_thread() {
        build()?
    } else {
        on_library_thread("tickreel-object-start", build)??
    };
    let rt = Arc::new(rt);
    *shared = Arc::downgrade(&rt);
    Ok(rt)
}

/// The object_store path of a URL's key.
pub(crate) fn object_path(url: &ObjectUrl) -> Result<ObjectPath> {
    ObjectPath::parse(&url.key).map_err(|e| Error::invalid(format!("{url}: {e}")))
}

/// An error and its sources, each once.
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(s) = cur {
        let m = s.to_string();
        if !out.contains(&m) {
            out.push_str(": ");
            out.push_str(&m);
        }
        cur = s.source();
    }
    out
}

fn scrub(msg: &str, secrets: &[String]) -> String {
    let mut out = msg.to_string();
    for s in secrets {
        out = out.replace(s.as_str(), "***");
    }
    out
}

fn show(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrubs_every_secret() {
        let secrets = vec!["AKIAEXAMPLE".to_string(), "s3cr3t/value".to_string()];
        let m = scrub(
            "key AKIAEXAMPLE signed with s3cr3t/value then AKIAEXAMPLE",
            &secrets,
        );
        assert_eq!(m, "key *** signed with *** then ***");
    }

    #[test]
    fn errors_without_credentials_say_how_to_give_them() {
        let e = |o: ObjectOptions| {
            let s = ObjectStorage::new("runs", o).unwrap();
            let err = object_store::Error::Generic {
                store: "S3",
                source: "connection refused".into(),
            };
            s.error(&s.url("a.reel"), &err).to_string()
        };
        let none = e(ObjectOptions::default());
        assert!(
            none.contains("s3://runs/a.reel") && none.contains("AWS_ACCESS_KEY_ID"),
            "{none}"
        );
        let given = e(ObjectOptions {
            credentials: Some(crate::Credentials::new("AKIAGIVENKEY", "givensecret")),
            ..ObjectOptions::default()
        });
        assert!(!given.contains("AWS_ACCESS_KEY_ID"), "{given}");
    }

    #[test]
    fn clients_share_one_runtime_while_any_is_alive() {
        let a = ObjectStorage::new("runs", ObjectOptions::default()).unwrap();
        let b = ObjectStorage::new("other", ObjectOptions::default()).unwrap();
        let (ra, rb) = (a.inner.runtime.as_ref(), b.inner.runtime.as_ref());
        assert!(Arc::ptr_eq(ra.unwrap(), rb.unwrap()));
        let weak = Arc::downgrade(ra.unwrap());
        drop((a, b));
        // another test's client may hold it a moment longer
        let start = std::time::Instant::now();
        while weak.upgrade().is_some() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "runtime kept alive"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn a_client_can_be_dropped_and_used_inside_async_code() {
        let user = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        user.block_on(async {
            let o = ObjectOptions {
                endpoint: Some("http://127.0.0.1:1".into()),
                allow_http: true,
                retries: 0,
                credentials: Some(crate::Credentials::new("AKIAASYNCKEY", "asyncsecret")),
                ..ObjectOptions::default()
            };
            let s = ObjectStorage::new("private-runtime-test", o).unwrap();
            // nothing listens on port 1: an error, not a panic about nested runtimes
            assert!(s.head("a.reel").is_err());
            drop(s);
        });
    }

    #[test]
    fn debug_shows_no_credentials() {
        let o = ObjectOptions {
            credentials: Some(crate::Credentials::new("AKIADEBUGKEY", "debugsecretvalue")),
            endpoint: Some("http://127.0.0.1:1".into()),
            allow_http: true,
            ..ObjectOptions::default()
        };
        let s = ObjectStorage::new("runs", o).unwrap();
        let d = format!("{s:?}");
        assert!(
            !d.contains("AKIADEBUGKEY") && !d.contains("debugsecretvalue"),
            "{d}"
        );
    }
}
