//! The one error type of the HTTP API. Every handler, extractor and middleware refuses
//! with an [`ApiError`]: 4xx bodies say what is wrong in JSON (`{"error": …}` plus what the
//! client needs to act on it), 5xx bodies stay generic and the detail goes to the log.

use axum::Json;
use axum::extract::rejection::{BytesRejection, JsonRejection, QueryRejection};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::deploy::DeployError;

/// Everything a request can be refused with.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The request itself is malformed: 400, 413, 415 or 422, as the body's or query's
    /// rejection says.
    #[error("{message}")]
    BadRequest {
        /// The status the rejection carries.
        status: StatusCode,
        /// What is wrong.
        message: String,
    },
    /// No deploy token, or the wrong one (401).
    #[error("{0}")]
    Unauthorized(String),
    /// The named thing does not exist (404).
    #[error("{0}")]
    NotFound(String),
    /// The request is well formed but cannot be done (422); `detail` is more JSON for the
    /// client (the findings, the files).
    #[error("{message}")]
    Unprocessable {
        /// What is wrong.
        message: String,
        /// Extra fields of the body.
        detail: Map<String, Value>,
    },
    /// It conflicts with what is going on (409); `detail` names what.
    #[error("{message}")]
    Conflict {
        /// What conflicts.
        message: String,
        /// Extra fields of the body.
        detail: Map<String, Value>,
    },
    /// Too much is running already (429).
    #[error("{0}")]
    TooManyRequests(String),
    /// The server cannot do it now: not configured, or stopping (503).
    #[error("{0}")]
    Unavailable(String),
    /// Something went wrong on our side (500).
    #[error(transparent)]
    Internal(#[from] Box<dyn std::error::Error + Send + Sync>),
}

impl ApiError {
    /// A 422 with nothing but the message.
    pub fn unprocessable(message: impl Into<String>) -> ApiError {
        ApiError::Unprocessable {
            message: message.into(),
            detail: Map::new(),
        }
    }

    /// The answer's status.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest { status, .. } => *status,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Unprocessable { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::TooManyRequests(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// `{key: value}` as the extra fields of a body.
fn detail(key: &str, value: Value) -> Map<String, Value> {
    Map::from_iter([(key.to_owned(), value)])
}

impl From<DeployError> for ApiError {
    fn from(error: DeployError) -> ApiError {
        let message = error.to_string();
        match error {
            DeployError::Refused(findings) => ApiError::Unprocessable {
                message,
                detail: detail("findings", json!(findings)),
            },
            DeployError::ServerFiles(files) => ApiError::Unprocessable {
                message,
                detail: detail("server_files", json!(files)),
            },
            DeployError::RefusedKeys(keys) => ApiError::Unprocessable {
                message,
                detail: detail(
                    "refused_keys",
                    json!(
                        keys.iter()
                            .map(|key| json!({"path": key.path, "reason": key.reason}))
                            .collect::<Vec<_>>()
                    ),
                ),
            },
            DeployError::Unprocessable(_) => ApiError::unprocessable(message),
            DeployError::NotFound(_) => ApiError::NotFound(message),
            DeployError::Active { job, .. } => ApiError::Conflict {
                message,
                detail: detail("job", json!(job)),
            },
            DeployError::NotActive { state, .. } | DeployError::NotWaiting { state, .. } => {
                ApiError::Conflict {
                    message,
                    detail: detail("state", json!(state)),
                }
            }
            DeployError::Busy(_) => ApiError::TooManyRequests(message),
            DeployError::Locked(crate::deploy::lock::LockError::Held(held)) => ApiError::Conflict {
                message,
                detail: detail("lock", json!(held)),
            },
            DeployError::Locked(crate::deploy::lock::LockError::Failed(_)) => {
                ApiError::Unavailable(message)
            }
            DeployError::Unavailable(_) | DeployError::DataDirInUse(_) => {
                ApiError::Unavailable(message)
            }
            DeployError::Internal(detail) => ApiError::Internal(detail),
        }
    }
}

impl From<crate::work::WorkError> for ApiError {
    fn from(error: crate::work::WorkError) -> ApiError {
        match error {
            crate::work::WorkError::Busy => ApiError::Unavailable(error.to_string()),
            crate::work::WorkError::Failed(detail) => ApiError::Internal(detail),
        }
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> ApiError {
        ApiError::BadRequest {
            status: rejection.status(),
            message: rejection.body_text(),
        }
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> ApiError {
        ApiError::BadRequest {
            status: StatusCode::BAD_REQUEST,
            message: rejection.body_text(),
        }
    }
}

impl From<BytesRejection> for ApiError {
    fn from(rejection: BytesRejection) -> ApiError {
        ApiError::BadRequest {
            status: rejection.status(),
            message: rejection.body_text(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let body = match self {
            ApiError::Internal(detail) => {
                tracing::error!(%detail, "request failed");
                json!({ "error": "internal error" })
            }
            ApiError::Unprocessable { message, detail }
            | ApiError::Conflict { message, detail } => {
                let mut body = detail;
                body.insert("error".into(), Value::String(message));
                Value::Object(body)
            }
            other => json!({ "error": other.to_string() }),
        };
        (status, Json(body)).into_response()
    }
}
