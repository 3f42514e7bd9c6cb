//! What every JSON handler reads with and runs its heavy work on: bodies read as the
//! handler's type with the field that is wrong named, and CPU work that grows with the
//! input put on blocking threads, a bounded number at a time.

use axum::Json;
use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;

use crate::http::error::ApiError;

/// A JSON body whose rejection is an [`ApiError`] saying what is wrong with it (the
/// field, for a body that does not fit the type).
pub struct JsonBody<T>(pub T);

/// A [`JsonBody`] with the size of the body it was read from, for handlers whose work grows
/// with the input's bytes rather than with anything the type counts (a 1 MB key).
pub struct SizedJsonBody<T>(pub T, pub usize);

/// Bodies larger than this are read off the async workers (see `api::off_the_workers`).
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

/// How many CPU-heavy requests (rendering and zipping a bundle, reading and checking a
/// large spec) run at once, on tokio's blocking threads: the async workers stay free to
/// answer everything else (the health check, the page's files, event streams).
static HEAVY_WORK: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);

/// How long a request waits for one of [`HEAVY_WORK`]'s turns before it is answered 503.
const HEAVY_WORK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Runs `work` on a blocking thread once one of [`HEAVY_WORK`]'s turns is free. The turn
/// goes with the work, not with the request: a request that times out or is dropped
/// leaves its work to finish, and the turn is free only once the work has ended, so no
/// more than two such works ever run. A request that finds every turn taken for
/// [`HEAVY_WORK_WAIT`] is answered 503.
pub(crate) async fn off_the_workers<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    let turn = match tokio::time::timeout(HEAVY_WORK_WAIT, HEAVY_WORK.acquire()).await {
        Ok(turn) => turn.map_err(|error| ApiError::Internal(Box::new(error)))?,
        Err(_) => {
            return Err(ApiError::Unavailable(
                "the server is busy with other large requests; try again in a few seconds".into(),
            ));
        }
    };
    tokio::task::spawn_blocking(move || {
        let answer = work();
        drop(turn);
        answer
    })
    .await
    .map_err(|error| ApiError::Internal(Box::new(error)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request that gives up (a 408, a closed connection) leaves its work running, and
    /// the work keeps its turn until it ends: the limit bounds the work, not the requests.
    #[tokio::test]
    async fn a_turn_is_held_until_the_work_ends_not_until_the_request_gives_up() {
        let (finish, finished) = std::sync::mpsc::channel::<()>();
        let (started, has_started) = std::sync::mpsc::channel::<()>();
        let waiting = tokio::time::timeout(
            std::time::Duration::from_millis(200),
            off_the_workers(move || {
                started.send(()).unwrap();
                finished.recv().unwrap();
            }),
        );
        assert!(waiting.await.is_err(), "the request gave up first");
        has_started.recv().unwrap();
        assert_eq!(
            HEAVY_WORK.available_permits(),
            1,
            "the abandoned work still holds its turn"
        );
        finish.send(()).unwrap();
        for _ in 0..200 {
            if HEAVY_WORK.available_permits() == 2 {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        panic!("the turn never came back once the work had ended");
    }
}
