//! The server's error answers: a status and a message, sent as `{"error": "...", "status": N}`.
//! Every failure of a request ends here; none ends the server.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tickreel::Error;

/// An error answer.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
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
    /// 422 (the request was fine, the file is not), bad arguments 400, the rest 500.
    pub fn of(what: &str, e: Error) -> ApiError {
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
        ApiError { status, message }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": self.message, "status": self.status.as_u16()});
        (self.status, Json(body)).into_response()
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
