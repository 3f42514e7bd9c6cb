//! The EC2 API emulator (moto's server plus the fixture actions in
//! `tests/fixtures/ec2_emulator.py`) on a free loopback port, one per test. It is killed by
//! its process id when the handle is dropped.

#![allow(dead_code)] // each test binary uses a different part of the harness

use std::time::Duration;

use backend::aws::{AwsOptions, LiveAws};
use serde_json::Value;

use studio_e2e::ec2_emulator as process;

pub use process::REGION;

/// Call timeout for tests that are not about timeouts.
pub const GENEROUS_TIMEOUT: Duration = Duration::from_secs(30);

/// The SDK's HTTP client, as the studio builds it (rustls with ring).
fn http_client() -> aws_sdk_ec2::config::SharedHttpClient {
    aws_smithy_http_client::Builder::new()
        .tls_provider(aws_smithy_http_client::tls::Provider::Rustls(
            aws_smithy_http_client::tls::rustls_provider::CryptoMode::Ring,
        ))
        .build_https()
}

/// A running emulator (the process itself is shared with the end-to-end tests).
pub struct Emulator {
    process: process::Ec2Emulator,
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
}

impl Emulator {
    /// Starts the emulator and waits until it accepts connections.
    pub fn start() -> Emulator {
        let process = process::Ec2Emulator::start();
        Emulator {
            endpoint: process.endpoint.clone(),
            process,
        }
    }

    /// Kills the emulator (by its process id) and reaps it.
    pub fn stop(&mut self) {
        self.process.stop();
    }

    /// Server EC2 access with static test credentials, pointed at this emulator. The call
    /// timeout is generous: moto reads its data files on first use, slowly on a busy machine.
    pub async fn live_aws(&self) -> LiveAws {
        self.live_aws_with(AwsOptions {
            call_timeout: GENEROUS_TIMEOUT,
            ..AwsOptions::default()
        })
        .await
    }

    /// Like [`Emulator::live_aws`] with other options; the endpoint is this emulator's.
    pub async fn live_aws_with(&self, options: AwsOptions) -> LiveAws {
        let credentials = aws_sdk_ec2::config::Credentials::new(
            "testing",
            "testing",
            None,
            None,
            "ec2-emulator-test",
        );
        LiveAws::with_credentials(
            credentials,
            AwsOptions {
                ec2_endpoint: Some(self.endpoint.clone()),
                eks_endpoint: Some(self.endpoint.clone()),
                ..options
            },
        )
        .await
    }

    /// A plain EC2 client on the emulator, to create VPCs and subnets as fixture data.
    pub fn ec2_client(&self) -> aws_sdk_ec2::Client {
        aws_sdk_ec2::Client::new(&self.sdk_config())
    }

    /// A plain EKS client on the emulator, to time single calls.
    pub fn eks_client(&self) -> aws_sdk_eks::Client {
        aws_sdk_eks::Client::new(&self.sdk_config())
    }

    /// What both plain clients are made from: test credentials, this emulator's endpoint.
    fn sdk_config(&self) -> aws_config::SdkConfig {
        let credentials = aws_sdk_ec2::config::Credentials::new(
            "testing",
            "testing",
            None,
            None,
            "ec2-emulator-test",
        );
        aws_config::SdkConfig::builder()
            .behavior_version(aws_config::BehaviorVersion::latest())
            .http_client(http_client())
            .credentials_provider(aws_sdk_ec2::config::SharedCredentialsProvider::new(
                credentials,
            ))
            .region(aws_config::Region::from_static(REGION))
            .endpoint_url(&self.endpoint)
            .build()
    }

    /// `POST /_fixture/{what}` with a JSON body.
    pub async fn seed(&self, what: &str, body: Value) {
        self.process.seed(what, &body);
    }

    /// Makes these actions answer EC2's error with the given code, e.g.
    /// `{"DescribeCapacityReservations": "UnauthorizedOperation"}`.
    pub async fn refuse(&self, actions: serde_json::Value) {
        self.seed("refuse", serde_json::json!({ "actions": actions }))
            .await;
    }

    /// Makes every EC2 action wait this long before answering.
    pub async fn delay(&self, seconds: f64) {
        self.seed("delay", serde_json::json!({ "seconds": seconds }))
            .await;
    }

    /// Clears moto's state, the fixture data, the counters and the delay.
    pub async fn reset(&self) {
        self.process.reset();
    }

    /// How many times the emulator answered `action` since the last reset.
    pub async fn calls(&self, action: &str) -> u64 {
        self.process.all_calls()[action].as_u64().unwrap_or(0)
    }

    /// Every action's call count since the last reset.
    pub async fn all_calls(&self) -> Value {
        self.process.all_calls()
    }
}
