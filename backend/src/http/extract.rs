//! What every JSON handler reads with and runs its heavy work on: bodies read as the
//! handler's type with the field that is wrong named, and CPU work that grows with the
//! input put on blocking threads, a bounded number at a time.

use axum::Json;
use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;

use crate::http::error::ApiError;
pub(crate) use crate::work::off_the_workers;

/// A JSON body whose rejection is an [`ApiError`] saying what is wrong with it (the
/// field, for a body that does not fit the type).
pub struct JsonBody<T>(pub T);

/// A [`JsonBody`] with the size of the body it was read from, for handlers whose work grows
/// with the input's bytes rather than with anything the type counts (a 1 MB key).
pub struct SizedJsonBody<T>(pub T, pub usize);

/// Bodies larger than this are read off the async workers (see [`off_the_workers`]).
const LARGE_BODY_BYTES: usize = 256 * 1024;

impl<S, T> FromRequest<S> for JsonBody<T>
where
    S: Send + Sync,
    T: DeserializeOwned + Send + 'static,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<JsonBody<T>, ApiError> {
        let SizedJsonBody(value, _) = SizedJsonBody::from_request(request, state).await?;
        Ok(JsonBody(value))
    }
}

impl<S, T> FromRequest<S> for SizedJsonBody<T>
where
    S: Send + Sync,
    T: DeserializeOwned + Send + 'static,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<SizedJsonBody<T>, ApiError> {
        let plain_json = request
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split(';').next())
            .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"));
        if !plain_json {
            // axum decides about other content types and says why it refuses them.
            let size = request
                .headers()
                .get(axum::http::header::CONTENT_LENGTH)
                .and_then(|value| value.to_str().ok()?.parse().ok())
                // Not said: counted as large, so its work goes off the async workers.
                .unwrap_or(usize::MAX);
            let Json(value) = Json::<T>::from_request(request, state).await?;
            return Ok(SizedJsonBody(value, size));
        }
        let bytes = axum::body::Bytes::from_request(request, state).await?;
        let size = bytes.len();
        let JsonBody(value) = if size > LARGE_BODY_BYTES {
            off_the_workers(move || read_json(&bytes)).await??
        } else {
            read_json(&bytes)?
        };
        Ok(SizedJsonBody(value, size))
    }
}

/// A JSON body read as `T`, or a JSON 4xx naming the field that is wrong.
fn read_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<JsonBody<T>, ApiError> {
    // Read without tracking the path first; only a body that fails is read again
    // through axum, whose message names the field (`node_groups[0].min_size: …`).
    // The body's UTF-8 is checked once, as a whole: read from bytes, serde_json would
    // check each string on its own, a quarter of the reading time.
    if let Ok(text) = std::str::from_utf8(bytes)
        && let Ok(value) = serde_json::from_str(text)
    {
        return Ok(JsonBody(value));
    }
    let Json(value) = Json::<T>::from_bytes(bytes)?;
    Ok(JsonBody(value))
}
