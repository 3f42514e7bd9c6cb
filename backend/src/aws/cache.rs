//! A typed cache for one EC2 or EKS call, keyed by (region, arguments); each call's own
//! is declared beside it in `calls.rs` (`Caches`). Answers live for the
//! configured lifetime; failures (a refusal, a timeout, an endpoint that cannot be reached)
//! for a few seconds, so a burst of checks that fail pays for one call, not one each.
//!
//! moka's `try_get_with` runs one fetch per key at a time and hands its result to every
//! caller waiting on that key: concurrent identical checks make one upstream call.

use std::future::Future;
use std::hash::Hash;
use std::time::Duration;

use super::AwsError;

/// Longest time a failed call's answer is reused.
pub(crate) const FAILURE_LIFETIME: Duration = Duration::from_secs(5);

/// How long an entry lives: answers the configured lifetime, failures at most
/// [`FAILURE_LIFETIME`] (and never longer than answers).
struct Lifetimes {
    answer: Duration,
    failure: Duration,
}

impl<K, V> moka::Expiry<K, Result<V, AwsError>> for Lifetimes {
    fn expire_after_create(
        &self,
        _key: &K,
        value: &Result<V, AwsError>,
        _created_at: std::time::Instant,
    ) -> Option<Duration> {
        // moka needs a non-zero lifetime; a nanosecond is "do not reuse".
        let lifetime = if value.is_ok() {
            self.answer
        } else {
            self.failure
        };
        Some(lifetime.max(Duration::from_nanos(1)))
    }
}

/// A cache of one call's answers and failures.
pub(crate) struct AnswerCache<K, V> {
    answers: moka::future::Cache<K, Result<V, AwsError>>,
}

impl<K, V> AnswerCache<K, V>
where
    K: Hash + Eq + Send + Sync + 'static,
    V: Clone + Send + Sync + 'static,
{
    pub(crate) fn new(lifetime: Duration) -> AnswerCache<K, V> {
        AnswerCache {
            answers: moka::future::Cache::builder()
                .max_capacity(10_000)
                .expire_after(Lifetimes {
                    answer: lifetime,
                    failure: lifetime.min(FAILURE_LIFETIME),
                })
                .build(),
        }
    }

    /// The cached answer or failure for `key`, or what `fetch` gets (shared with every
    /// concurrent caller asking for the same key).
    pub(crate) async fn get_or_fetch(
        &self,
        key: K,
        fetch: impl Future<Output = Result<V, AwsError>>,
    ) -> Result<V, AwsError> {
        self.answers.get_with(key, fetch).await
    }
}
