//! One typed cache per EC2 or EKS call, keyed by (region, arguments). Answers live for the
//! configured lifetime; failures (a refusal, a timeout, an endpoint that cannot be reached)
//! for a few seconds, so a burst of checks that fail pays for one call, not one each.
//!
//! moka's `try_get_with` runs one fetch per key at a time and hands its result to every
//! caller waiting on that key: concurrent identical checks make one upstream call.

use std::future::Future;
use std::hash::Hash;
use std::sync::Arc;
use std::time::Duration;

use shared::rules::ClusterVersionFact;

use super::AwsError;
use super::calls::{
    CapacityBlockOffering, CapacityBlockQuery, InstanceTypeFacts, Reservation, SpotPrice,
    SpotScore, Subnet, Vpc, Zone,
};

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
    fn new(lifetime: Duration) -> AnswerCache<K, V> {
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

/// (region, argument) keys.
type Keyed<A> = (&'static str, A);
/// Spot scores are asked for a set of types and a target capacity.
type SpotScoreKey = Keyed<(Vec<String>, u32)>;

/// Every call's cache.
pub(crate) struct Caches {
    pub(crate) zones: AnswerCache<&'static str, Arc<Vec<Zone>>>,
    pub(crate) cluster_versions: AnswerCache<&'static str, Arc<Vec<ClusterVersionFact>>>,
    pub(crate) offerings: AnswerCache<Keyed<String>, Arc<Vec<String>>>,
    pub(crate) instance_types: AnswerCache<Keyed<String>, Option<InstanceTypeFacts>>,
    pub(crate) reservations: AnswerCache<Keyed<String>, Option<Reservation>>,
    pub(crate) vpcs: AnswerCache<Keyed<String>, Option<Vpc>>,
    pub(crate) subnets: AnswerCache<Keyed<String>, Option<Subnet>>,
    pub(crate) spot_scores: AnswerCache<SpotScoreKey, Arc<Vec<SpotScore>>>,
    pub(crate) spot_prices: AnswerCache<Keyed<Vec<String>>, Arc<Vec<SpotPrice>>>,
    pub(crate) block_offerings:
        AnswerCache<Keyed<CapacityBlockQuery>, Arc<Vec<CapacityBlockOffering>>>,
}

impl Caches {
    pub(crate) fn new(lifetime: Duration) -> Caches {
        Caches {
            zones: AnswerCache::new(lifetime),
            cluster_versions: AnswerCache::new(lifetime),
            offerings: AnswerCache::new(lifetime),
            instance_types: AnswerCache::new(lifetime),
            reservations: AnswerCache::new(lifetime),
            vpcs: AnswerCache::new(lifetime),
            subnets: AnswerCache::new(lifetime),
            spot_scores: AnswerCache::new(lifetime),
            spot_prices: AnswerCache::new(lifetime),
            block_offerings: AnswerCache::new(lifetime),
        }
    }
}
