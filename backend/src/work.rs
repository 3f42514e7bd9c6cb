//! CPU work that grows with its input (rendering and zipping a bundle, checking a large
//! spec, comparing two designs for a plan), run on tokio's blocking threads a bounded
//! number at a time, for the server's requests and the command line alike.

/// Why heavy work did not run.
#[derive(Debug, thiserror::Error)]
pub enum WorkError {
    /// Every turn stayed taken for as long as a request waits.
    #[error("the server is busy with other large requests; try again in a few seconds")]
    Busy,
    /// The turn or the thread failed.
    #[error(transparent)]
    Failed(Box<dyn std::error::Error + Send + Sync>),
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
pub async fn off_the_workers<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, WorkError> {
    let turn = match tokio::time::timeout(HEAVY_WORK_WAIT, HEAVY_WORK.acquire()).await {
        Ok(turn) => turn.map_err(|error| WorkError::Failed(Box::new(error)))?,
        Err(_) => return Err(WorkError::Busy),
    };
    tokio::task::spawn_blocking(move || {
        let answer = work();
        drop(turn);
        answer
    })
    .await
    .map_err(|error| WorkError::Failed(Box::new(error)))
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
