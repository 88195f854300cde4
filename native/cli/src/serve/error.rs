//! The server's error answers: a status and a message, sent as `{"error": "...", "status": N}`.
//! Every failure of a request ends here; none ends the server.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tickreel::Error;
#[cfg(feature = "object")]
use tickreel_object::S3_SCHEME;
/// Without object storage (a build with `serve` alone, the fuzz target's) no error names one.
#[cfg(not(feature = "object"))]
const S3_SCHEME: &str = "s3://";

/// An error answer.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    /// Sent as `Retry-After` (seconds): when a request that found the server busy may try again.
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            retry_after: None,
        }
    }
    /// The answer with `Retry-After: secs`.
    pub fn retry_after(self, secs: u64) -> ApiError {
        ApiError {
            retry_after: Some(secs),
            ..self
        }
    }
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, message)
    }

    /// A library error about the recording `what`: missing files are 404, damaged recordings
    /// 422 (the request was fine, the file is not), bad arguments 400, the rest 500. A failed
    /// request to an object store ([`object_failure`]) is 502 (504 when it did not answer in
    /// time; 404 for no such object), and its answer names the recording only: the store's
    /// message names its endpoint, bucket and request, which are the server's, not a browser's
    /// (they are written to the server's stderr).
    pub fn of(what: &str, e: Error) -> ApiError {
        if let Some(io) = object_failure(&e) {
            // the listing's root is the store's URL: the answer names the library instead
            let named = if what.starts_with(S3_SCHEME) {
                "the recording library"
            } else {
                what
            };
            eprintln!("tickreel serve: {what}: {e}");
            let (status, said) = match io.kind() {
                std::io::ErrorKind::NotFound => (StatusCode::NOT_FOUND, "no such recording"),
                std::io::ErrorKind::TimedOut => (
                    StatusCode::GATEWAY_TIMEOUT,
                    "the object store did not answer in time",
                ),
                std::io::ErrorKind::PermissionDenied => (
                    StatusCode::BAD_GATEWAY,
                    "the object store refused the server's access",
                ),
                _ => (
                    StatusCode::BAD_GATEWAY,
                    "the object store could not be read (it is unreachable or failed)",
                ),
            };
            return ApiError::new(status, format!("{named}: {said}"));
        }
        let status = match &e {
            Error::Io(io) if io.kind() == std::io::ErrorKind::NotFound => StatusCode::NOT_FOUND,
            Error::Corrupt(_)
            | Error::Truncated(_)
            | Error::LimitExceeded(_)
            | Error::Unsupported(_)
            | Error::Metadata(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Error::InvalidArgument(_) => StatusCode::BAD_REQUEST,
            Error::InvalidState(_) | Error::NotReady(_) => StatusCode::CONFLICT,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        let msg = e.to_string();
        let message = if msg.contains(what) {
            msg
        } else {
            format!("{what}: {msg}")
        };
        ApiError::new(status, message)
    }
}

/// The I/O error of a failed request to an object store: the object client's errors name the
/// object's URL (`s3://bucket/key: ...`), a local file's never do.
fn object_failure(e: &Error) -> Option<&std::io::Error> {
    match e {
        Error::Io(io) if io.to_string().contains(S3_SCHEME) => Some(io),
        _ => None,
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": self.message, "status": self.status.as_u16()});
        let mut r = (self.status, Json(body)).into_response();
        if let Some(secs) = self.retry_after {
            r.headers_mut()
                .insert(axum::http::header::RETRY_AFTER, secs.into());
        }
        r
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
