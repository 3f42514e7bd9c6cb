//! The server's way to EC2: SDK configuration from the default credential chain, one
//! client per region, per-call timeouts, and a short-lived answer cache in which concurrent
//! identical calls share one upstream request.
//!
//! Without credentials the studio runs offline: [`LiveAws::offline`] answers every call
//! with [`AwsError::Offline`] and the reason, and nothing else changes.

/// Cached, single-flight EC2 answers.
mod cache;
/// One function per EC2 call, each returning plain data through the cache.
pub mod calls;
/// Which live checks a spec needs, running them, and turning answers into results.
pub mod live;
/// Reading a running cluster: EKS's and EC2's answers about it, read-only.
pub mod running;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_config::BehaviorVersion;
use aws_config::retry::RetryConfig;
use aws_config::timeout::TimeoutConfig;
use aws_sdk_ec2::config::{Credentials, ProvideCredentials, Region, SharedCredentialsProvider};
use aws_smithy_http_client::tls::{Provider, rustls_provider::CryptoMode};

use self::calls::Caches;

/// What can go wrong asking EC2. Every variant reads as the reason a check could not run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AwsError {
    /// No credentials: the studio is offline.
    #[error("offline: {0}")]
    Offline(String),
    /// The spec names no known region to ask.
    #[error("the spec's region `{0}` is not a known AWS region")]
    UnknownRegion(String),
    /// The call took longer than the configured timeout.
    #[error("{call} timed out after {seconds} s")]
    Timeout {
        /// EC2 action, e.g. `DescribeSubnets`.
        call: &'static str,
        /// The timeout in seconds.
        seconds: f64,
    },
    /// EC2 or EKS (or the configured endpoint) could not be reached.
    #[error("{call}: cannot reach AWS at {endpoint}: {detail}")]
    Unreachable {
        /// EC2 action.
        call: &'static str,
        /// The endpoint asked.
        endpoint: String,
        /// What the HTTP client said.
        detail: String,
    },
    /// EC2 answered with an error, e.g. `UnauthorizedOperation` for missing IAM permissions.
    #[error("{call} was refused: {code}: {message}")]
    Refused {
        /// EC2 action.
        call: &'static str,
        /// EC2 error code.
        code: String,
        /// EC2's message.
        message: String,
    },
    /// Anything else (an unreadable answer, a request that could not be built).
    #[error("{call} failed: {detail}")]
    Failed {
        /// EC2 action.
        call: &'static str,
        /// The error and its causes.
        detail: String,
    },
}

impl AwsError {
    /// A short stable name for the kind of failure: `offline`, `unknown-region`, `timeout`,
    /// `unreachable`, `refused` or `failed`.
    pub fn kind(&self) -> &'static str {
        match self {
            AwsError::Offline(_) => "offline",
            AwsError::UnknownRegion(_) => "unknown-region",
            AwsError::Timeout { .. } => "timeout",
            AwsError::Unreachable { .. } => "unreachable",
            AwsError::Refused { .. } => "refused",
            AwsError::Failed { .. } => "failed",
        }
    }
}

/// How the studio talks to EC2; every field has a sensible default.
#[derive(Clone, Debug)]
pub struct AwsOptions {
    /// Another EC2 endpoint (an emulator, a VPC endpoint); `AWS_ENDPOINT_URL_EC2` is honoured
    /// by the SDK as well when this is unset.
    pub ec2_endpoint: Option<String>,
    /// Another EKS endpoint for DescribeClusterVersions; `AWS_ENDPOINT_URL_EKS` is honoured
    /// by the SDK as well when this is unset.
    pub eks_endpoint: Option<String>,
    /// How long an answer is reused.
    pub cache_lifetime: Duration,
    /// Upper bound for one EC2 call, retries included.
    pub call_timeout: Duration,
}

/// Default lifetime of a cached EC2 answer.
pub const DEFAULT_CACHE_LIFETIME: Duration = Duration::from_secs(60);
/// Default upper bound for one EC2 call.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(4);

impl Default for AwsOptions {
    fn default() -> AwsOptions {
        AwsOptions {
            ec2_endpoint: None,
            eks_endpoint: None,
            cache_lifetime: DEFAULT_CACHE_LIFETIME,
            call_timeout: DEFAULT_CALL_TIMEOUT,
        }
    }
}

impl AwsOptions {
    /// Defaults, with the cache lifetime and call timeout taken from
    /// `EKS_STUDIO_EC2_CACHE_SECONDS` and `EKS_STUDIO_EC2_TIMEOUT_SECONDS` when set.
    pub fn from_environment(
        ec2_endpoint: Option<String>,
        eks_endpoint: Option<String>,
    ) -> AwsOptions {
        let seconds = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|value| value.trim().parse::<f64>().ok())
                .filter(|value| value.is_finite() && *value >= 0.0)
                .map(Duration::from_secs_f64)
        };
        AwsOptions {
            ec2_endpoint,
            eks_endpoint,
            cache_lifetime: seconds("EKS_STUDIO_EC2_CACHE_SECONDS")
                .unwrap_or(DEFAULT_CACHE_LIFETIME),
            call_timeout: seconds("EKS_STUDIO_EC2_TIMEOUT_SECONDS").unwrap_or(DEFAULT_CALL_TIMEOUT),
        }
    }

    /// The EC2 endpoint as the user configured it, for display (`None`: AWS's own).
    fn endpoint_shown(&self) -> Option<String> {
        shown(&self.ec2_endpoint, "AWS_ENDPOINT_URL_EC2")
    }

    /// The EKS endpoint as the user configured it, for display (`None`: AWS's own).
    fn eks_endpoint_shown(&self) -> Option<String> {
        shown(&self.eks_endpoint, "AWS_ENDPOINT_URL_EKS")
    }
}

/// An endpoint given on the command line, else by the SDK's variable for the service,
/// else by `AWS_ENDPOINT_URL`.
fn shown(given: &Option<String>, service_variable: &str) -> Option<String> {
    given
        .clone()
        .or_else(|| std::env::var(service_variable).ok())
        .or_else(|| std::env::var("AWS_ENDPOINT_URL").ok())
        .filter(|endpoint| !endpoint.trim().is_empty())
}

/// What the AWS side of the server knows about its configuration (`/api/health`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct AwsStatus {
    /// Credentials were found through the SDK's default chain (or given).
    pub credentials: bool,
    /// Why live checks cannot run, when they cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A non-default EC2 endpoint, e.g. an emulator on loopback.
    pub ec2_endpoint: Option<String>,
    /// A non-default EKS endpoint.
    pub eks_endpoint: Option<String>,
}

/// The server's EC2 access: shared by every request, cheap to clone.
#[derive(Clone)]
pub struct LiveAws {
    inner: Arc<Inner>,
}

struct Inner {
    sdk_config: aws_config::SdkConfig,
    /// `Err(reason)` when offline.
    credentials: Result<(), String>,
    options: AwsOptions,
    endpoint_shown: Option<String>,
    eks_endpoint_shown: Option<String>,
    clients: Mutex<HashMap<&'static str, aws_sdk_ec2::Client>>,
    eks_clients: Mutex<HashMap<&'static str, aws_sdk_eks::Client>>,
    stack_clients: Mutex<HashMap<&'static str, aws_sdk_cloudformation::Client>>,
    scaling_clients: Mutex<HashMap<&'static str, aws_sdk_autoscaling::Client>>,
    caches: Caches,
}

impl std::fmt::Debug for LiveAws {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("LiveAws")
            .field("status", &self.status())
            .field("options", &self.inner.options)
            .finish()
    }
}

impl Default for LiveAws {
    /// Offline: nothing configured.
    fn default() -> LiveAws {
        LiveAws::offline("AWS access was not configured", AwsOptions::default())
    }
}

/// The offline reason when the default chain has nothing.
const NO_CREDENTIALS: &str = "no AWS credentials found by the SDK's default chain (environment, \
     shared config and credentials files, SSO, web identity, container and instance metadata)";

/// HTTPS through rustls on ring (no C toolchain beyond ring's, no aws-lc build).
fn https_client() -> aws_sdk_ec2::config::SharedHttpClient {
    aws_smithy_http_client::Builder::new()
        .tls_provider(Provider::Rustls(CryptoMode::Ring))
        .build_https()
}

fn loader(options: &AwsOptions) -> aws_config::ConfigLoader {
    aws_config::defaults(BehaviorVersion::latest())
        .http_client(https_client())
        .timeout_config(
            TimeoutConfig::builder()
                .connect_timeout(options.call_timeout.min(Duration::from_secs(2)))
                .operation_timeout(options.call_timeout)
                .build(),
        )
        // One retry: an answer that is late is worth less than a prompt "could not run".
        .retry_config(RetryConfig::standard().with_max_attempts(2))
}

impl LiveAws {
    /// Configuration from the SDK's default chain (environment, profiles, SSO, web identity,
    /// container and instance metadata). Asks the chain for credentials once, bounded by the
    /// call timeout; without any the studio is offline and says why.
    pub async fn from_default_chain(options: AwsOptions) -> LiveAws {
        let sdk_config = loader(&options).load().await;
        let credentials = match sdk_config.credentials_provider() {
            None => Err("no credential provider is configured".to_owned()),
            Some(provider) => {
                match tokio::time::timeout(options.call_timeout, provider.provide_credentials())
                    .await
                {
                    Ok(Ok(_)) => Ok(()),
                    Ok(Err(error)) => {
                        tracing::debug!(
                            error = %aws_sdk_ec2::error::DisplayErrorContext(&error),
                            "the default credential chain found nothing"
                        );
                        Err(NO_CREDENTIALS.to_owned())
                    }
                    Err(_) => Err(format!(
                        "{NO_CREDENTIALS}, within {} s",
                        options.call_timeout.as_secs_f64()
                    )),
                }
            }
        };
        LiveAws::new(sdk_config, credentials, options)
    }

    /// Configuration with these credentials (e.g. static test credentials for an emulator);
    /// everything else as the default chain would have it.
    pub async fn with_credentials(credentials: Credentials, options: AwsOptions) -> LiveAws {
        let sdk_config = loader(&options)
            .credentials_provider(SharedCredentialsProvider::new(credentials))
            .region(Region::from_static("us-east-1"))
            .load()
            .await;
        LiveAws::new(sdk_config, Ok(()), options)
    }

    /// No AWS access: every call answers [`AwsError::Offline`] with `reason`.
    pub fn offline(reason: impl Into<String>, options: AwsOptions) -> LiveAws {
        let sdk_config = aws_config::SdkConfig::builder()
            .behavior_version(BehaviorVersion::latest())
            .build();
        LiveAws::new(sdk_config, Err(reason.into()), options)
    }

    fn new(
        sdk_config: aws_config::SdkConfig,
        credentials: Result<(), String>,
        options: AwsOptions,
    ) -> LiveAws {
        LiveAws {
            inner: Arc::new(Inner {
                sdk_config,
                credentials,
                endpoint_shown: options.endpoint_shown(),
                eks_endpoint_shown: options.eks_endpoint_shown(),
                caches: Caches::new(options.cache_lifetime),
                options,
                clients: Mutex::new(HashMap::new()),
                eks_clients: Mutex::new(HashMap::new()),
                stack_clients: Mutex::new(HashMap::new()),
                scaling_clients: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// What `/api/health` reports.
    pub fn status(&self) -> AwsStatus {
        AwsStatus {
            credentials: self.inner.credentials.is_ok(),
            reason: self.inner.credentials.clone().err(),
            ec2_endpoint: self.inner.endpoint_shown.clone(),
            eks_endpoint: self.inner.eks_endpoint_shown.clone(),
        }
    }

    /// The options this was built with.
    pub fn options(&self) -> &AwsOptions {
        &self.inner.options
    }

    /// The region's client from `clients`, made by `build` the first time, or why there is
    /// none.
    fn client_in<C: Clone>(
        &self,
        clients: &Mutex<HashMap<&'static str, C>>,
        region: &shared::model::ids::Region,
        build: impl FnOnce(Region) -> C,
    ) -> Result<C, AwsError> {
        if let Err(reason) = &self.inner.credentials {
            return Err(AwsError::Offline(reason.clone()));
        }
        let mut clients = clients
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let client = clients
            .entry(region.as_str())
            .or_insert_with(|| build(Region::from_static(region.as_str())));
        Ok(client.clone())
    }

    /// The EC2 client for a region, or why there is none.
    fn client(&self, region: &shared::model::ids::Region) -> Result<aws_sdk_ec2::Client, AwsError> {
        self.client_in(&self.inner.clients, region, |region| {
            let mut config =
                aws_sdk_ec2::config::Builder::from(&self.inner.sdk_config).region(region);
            if let Some(endpoint) = &self.inner.options.ec2_endpoint {
                config = config.endpoint_url(endpoint);
            }
            aws_sdk_ec2::Client::from_conf(config.build())
        })
    }

    /// The EKS client for a region, or why there is none.
    fn eks_client(
        &self,
        region: &shared::model::ids::Region,
    ) -> Result<aws_sdk_eks::Client, AwsError> {
        self.client_in(&self.inner.eks_clients, region, |region| {
            let mut config =
                aws_sdk_eks::config::Builder::from(&self.inner.sdk_config).region(region);
            if let Some(endpoint) = &self.inner.options.eks_endpoint {
                config = config.endpoint_url(endpoint);
            }
            aws_sdk_eks::Client::from_conf(config.build())
        })
    }

    /// The CloudFormation client for a region (eksctl's self-managed node group stacks).
    /// Its endpoint is the SDK's: `AWS_ENDPOINT_URL_CLOUDFORMATION`, else `AWS_ENDPOINT_URL`.
    fn stack_client(
        &self,
        region: &shared::model::ids::Region,
    ) -> Result<aws_sdk_cloudformation::Client, AwsError> {
        self.client_in(&self.inner.stack_clients, region, |region| {
            let config = aws_sdk_cloudformation::config::Builder::from(&self.inner.sdk_config)
                .region(region);
            aws_sdk_cloudformation::Client::from_conf(config.build())
        })
    }

    /// The Auto Scaling client for a region (a self-managed group's sizes now). Its endpoint
    /// is the SDK's: `AWS_ENDPOINT_URL_AUTO_SCALING`, else `AWS_ENDPOINT_URL`.
    fn scaling_client(
        &self,
        region: &shared::model::ids::Region,
    ) -> Result<aws_sdk_autoscaling::Client, AwsError> {
        self.client_in(&self.inner.scaling_clients, region, |region| {
            let config =
                aws_sdk_autoscaling::config::Builder::from(&self.inner.sdk_config).region(region);
            aws_sdk_autoscaling::Client::from_conf(config.build())
        })
    }

    /// Where calls of a service (`ec2`, `eks`, `cloudformation`, `autoscaling`) go, for
    /// error messages.
    fn endpoint_for_errors(&self, service: &str, region: &shared::model::ids::Region) -> String {
        let configured = match service {
            "eks" => self.inner.eks_endpoint_shown.clone(),
            "cloudformation" => shown(&None, "AWS_ENDPOINT_URL_CLOUDFORMATION"),
            "autoscaling" => shown(&None, "AWS_ENDPOINT_URL_AUTO_SCALING"),
            _ => self.inner.endpoint_shown.clone(),
        };
        configured.unwrap_or_else(|| format!("https://{service}.{}.amazonaws.com", region.as_str()))
    }
}
/// Builds the server's EC2 access for `serve`: the default chain, `--ec2-endpoint`, and
/// the cache and timeout settings from the environment.
pub async fn server_aws(ec2_endpoint: Option<String>, eks_endpoint: Option<String>) -> LiveAws {
    LiveAws::from_default_chain(AwsOptions::from_environment(ec2_endpoint, eks_endpoint)).await
}
