//! How to reach a store: endpoint, region, credentials (from `AWS_*` variables or given), timeouts,
//! retries and the read and upload sizes. Credentials never show in `Debug` output, errors or
//! logs: [`Credentials`] prints `***`, and every error message is scrubbed of them.

use std::time::Duration;

/// An access key, its secret and an optional session token. `Debug` shows none of them.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

impl Credentials {
    pub fn new(access_key_id: impl Into<String>, secret_access_key: impl Into<String>) -> Self {
        Credentials {
            access_key_id: access_key_id.into(),
            secret_access_key: secret_access_key.into(),
            session_token: None,
        }
    }

    /// Every secret string, for scrubbing messages (the key id too: it names the account).
    pub(crate) fn secrets(&self) -> Vec<String> {
        [
            Some(&self.access_key_id),
            Some(&self.secret_access_key),
            self.session_token.as_ref(),
        ]
        .into_iter()
        .flatten()
        .filter(|s| s.len() >= 4)
        .cloned()
        .collect()
    }
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Credentials(***)")
    }
}

/// Options of an [`crate::ObjectStorage`]. `Default` is what [`ObjectOptions::from_env`] starts from.
#[derive(Debug, Clone)]
pub struct ObjectOptions {
    /// The store's endpoint (`http://127.0.0.1:9000`, `https://<account>.r2.cloudflarestorage.com`);
    /// `None` for AWS S3 itself. Requests use path-style URLs on a custom endpoint.
    pub endpoint: Option<String>,
    /// The region (`us-east-1` when unset).
    pub region: Option<String>,
    /// Static credentials; `None` lets the store find them (instance metadata, web identity).
    pub credentials: Option<Credentials>,
    /// Allows plain `http://` endpoints (a local test server); off by default.
    pub allow_http: bool,
    /// Time to connect to the store.
    pub connect_timeout: Duration,
    /// Time for one request, from sending to the last byte of the answer.
    pub request_timeout: Duration,
    /// Retries of a failed request (connection errors, 5xx, timeouts), with exponential backoff.
    pub retries: usize,
    /// First backoff between retries; doubles each retry up to `backoff_max`.
    pub backoff_initial: Duration,
    pub backoff_max: Duration,
    /// Deadline of one call, retries included: past it the call fails (`TimedOut`), whatever
    /// the store does.
    pub deadline: Duration,
    /// Bytes fetched from a chunk's start when a chunk is read: the chunks after it come in the
    /// same request (0: only the chunk).
    pub readahead: usize,
    /// Ranges kept in memory per opened object (least recently used dropped first).
    pub cached_ranges: usize,
    /// Files larger than this are uploaded in parts.
    pub multipart_threshold: u64,
    /// Size of one part of a multipart upload (S3's minimum is 5 MiB, except the last part).
    pub part_size: usize,
}

impl Default for ObjectOptions {
    fn default() -> Self {
        ObjectOptions {
            endpoint: None,
            region: None,
            credentials: None,
            allow_http: false,
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            retries: 3,
            backoff_initial: Duration::from_millis(100),
            backoff_max: Duration::from_secs(5),
            deadline: Duration::from_secs(120),
            readahead: 512 << 10,
            cached_ranges: 8,
            multipart_threshold: 16 << 20,
            part_size: 8 << 20,
        }
    }
}

impl ObjectOptions {
    /// Defaults, with the usual variables: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
    /// `AWS_SESSION_TOKEN`, `AWS_REGION` (or `AWS_DEFAULT_REGION`), `AWS_ENDPOINT_URL` (or
    /// `AWS_ENDPOINT`), `AWS_ALLOW_HTTP` (`true`/`1`). An `http://` endpoint allows plain HTTP.
    pub fn from_env() -> ObjectOptions {
        ObjectOptions::from_vars(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
    }

    /// [`ObjectOptions::from_env`] over any lookup (tests).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> ObjectOptions {
        let mut o = ObjectOptions {
            endpoint: var("AWS_ENDPOINT_URL").or_else(|| var("AWS_ENDPOINT")),
            region: var("AWS_REGION").or_else(|| var("AWS_DEFAULT_REGION")),
            ..ObjectOptions::default()
        };
        if let (Some(id), Some(secret)) = (var("AWS_ACCESS_KEY_ID"), var("AWS_SECRET_ACCESS_KEY")) {
            o.credentials = Some(Credentials {
                access_key_id: id,
                secret_access_key: secret,
                session_token: var("AWS_SESSION_TOKEN"),
            });
        }
        o.allow_http = var("AWS_ALLOW_HTTP").is_some_and(|v| v == "true" || v == "1")
            || o.endpoint
                .as_deref()
                .is_some_and(|e| e.starts_with("http://"));
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_usual_variables_and_never_prints_secrets() {
        let vars = [
            ("AWS_ACCESS_KEY_ID", "AKIAEXAMPLEKEY"),
            ("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMIsecret"),
            ("AWS_SESSION_TOKEN", "tokentokentoken"),
            ("AWS_DEFAULT_REGION", "eu-west-1"),
            ("AWS_ENDPOINT", "http://127.0.0.1:9000"),
        ];
        let o = ObjectOptions::from_vars(|k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        });
        assert_eq!(o.region.as_deref(), Some("eu-west-1"));
        assert_eq!(o.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        assert!(o.allow_http, "an http:// endpoint allows http");
        let c = o.credentials.as_ref().unwrap();
        assert_eq!(c.session_token.as_deref(), Some("tokentokentoken"));
        let debug = format!("{o:?}");
        for (_, secret) in &vars[..3] {
            assert!(!debug.contains(secret), "{debug}");
        }
        assert_eq!(c.secrets().len(), 3);
    }

    #[test]
    fn no_credentials_without_both_key_and_secret() {
        let o = ObjectOptions::from_vars(|k| (k == "AWS_ACCESS_KEY_ID").then(|| "AKIA".into()));
        assert!(o.credentials.is_none());
        assert!(!o.allow_http);
    }
}
