//! [`ObjectStorage`]: one bucket of an S3-compatible store, reached through `object_store` on a
//! small tokio runtime shared by every client. Every call is synchronous for its caller (a loader, prefetch or
//! CLI thread: never a server thread), bounded by the options' deadline, and counted.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
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
        let store = &self.inner.store;
        match self.run(&self.url(key), store.head(&path)) {
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
        let store = &self.inner.store;
        let mut all: Vec<ObjectInfo> = self
            .run(&url, store.list(path.as_ref()).try_collect::<Vec<_>>())?
            .into_iter()
            .map(|m| self.info(m))
            .collect();
        all.sort_by(|a, b| a.url.key.cmp(&b.url.key));
        Ok(all)
    }

    /// Removes an object (no error if it does not exist).
    pub fn delete(&self, key: &str) -> Result<()> {
        let url = self.url(key);
        let path = object_path(&url)?;
        self.run(&url, self.inner.store.delete(&path))
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
    pub(crate) fn run<T: Send>(
        &self,
        url: &ObjectUrl,
        fut: impl Future<Output = object_store::Result<T>> + Send,
    ) -> Result<T> {
        self.inner.requests.fetch_add(1, Ordering::Relaxed);
        let deadline = self.inner.options.deadline;
        let timed = async move { tokio::time::timeout(deadline, fut).await };
        let r = if tokio::runtime::Handle::try_current().is_ok() {
            // Called from inside some async runtime: block a helper thread, not that runtime.
            std::thread::scope(|s| {
                s.spawn(|| self.inner.runtime().block_on(timed))
                    .join()
                    .map_err(|_| Error::InvalidState(format!("{url}: request thread panicked")))
            })?
        } else {
            self.inner.runtime().block_on(timed)
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
    /// The last client ends the runtime without waiting for its threads: dropping it the usual
    /// way panics inside an async context (a client dropped by async code).
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take()
            && let Ok(rt) = Arc::try_unwrap(rt)
        {
            rt.shutdown_background();
        }
    }
}

/// The runtime every client shares: started with the first client, ended when the last one is
/// dropped, so that a process holding no client keeps no thread.
fn shared_runtime() -> Result<Arc<tokio::runtime::Runtime>> {
    static SHARED: std::sync::Mutex<std::sync::Weak<tokio::runtime::Runtime>> =
        std::sync::Mutex::new(std::sync::Weak::new());
    let mut shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(rt) = shared.upgrade() {
        return Ok(rt);
    }
    let rt = Arc::new(
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("tickreel-object")
            .enable_all()
            .build()?,
    );
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
