//! The deploy token: taken from `EKS_STUDIO_DEPLOY_TOKEN` or generated at start, and
//! whether a request presents it (`http::deploys` asks every deploy route for it).

use std::fmt;
use std::sync::Arc;

use axum::http::header::AUTHORIZATION;
use subtle::ConstantTimeEq;

/// The environment variable a deploy token can be given in.
pub const TOKEN_VARIABLE: &str = "EKS_STUDIO_DEPLOY_TOKEN";

/// Shortest token accepted from the environment: long enough not to be guessed.
pub const MIN_TOKEN_LENGTH: usize = 16;

/// The secret a deploy request must present. `Debug` never shows it.
#[derive(Clone)]
pub struct DeployToken(Arc<str>);

/// Where the token came from, so the server knows whether to print it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenSource {
    /// Read from [`TOKEN_VARIABLE`].
    Environment,
    /// Generated at start from the operating system's random source.
    Generated,
}

/// A token that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// Too short or containing whitespace.
    #[error("{TOKEN_VARIABLE} must be at least {MIN_TOKEN_LENGTH} characters without spaces")]
    Weak,
    /// The operating system gave no random bytes.
    #[error("cannot generate a deploy token: {0}")]
    Random(String),
}

impl DeployToken {
    /// Takes a token as given; refuses short ones and ones with whitespace.
    pub fn new(value: &str) -> Result<DeployToken, TokenError> {
        if value.chars().count() < MIN_TOKEN_LENGTH || value.chars().any(char::is_whitespace) {
            return Err(TokenError::Weak);
        }
        Ok(DeployToken(value.into()))
    }

    /// 32 random bytes, hex-encoded.
    pub fn generate() -> Result<DeployToken, TokenError> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|error| TokenError::Random(error.to_string()))?;
        let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
        Ok(DeployToken(hex.into()))
    }

    /// The token from [`TOKEN_VARIABLE`] when set, else a generated one.
    pub fn from_environment() -> Result<(DeployToken, TokenSource), TokenError> {
        match std::env::var(TOKEN_VARIABLE) {
            Ok(value) => Ok((DeployToken::new(&value)?, TokenSource::Environment)),
            Err(_) => Ok((DeployToken::generate()?, TokenSource::Generated)),
        }
    }

    /// Whether `presented` is the token, compared in constant time (only the length leaks).
    pub fn matches(&self, presented: &str) -> bool {
        self.0.as_bytes().ct_eq(presented.as_bytes()).into()
    }

    /// The secret itself, for printing once at start.
    pub fn reveal(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for DeployToken {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("DeployToken(…)")
    }
}

/// The token a request's `Authorization: Bearer …` presents, if it presents one.
pub fn presented(request_headers: &axum::http::HeaderMap) -> Option<&str> {
    request_headers
        .get(AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| {
            let (scheme, presented) = value.split_once(' ')?;
            scheme
                .eq_ignore_ascii_case("bearer")
                .then(|| presented.trim())
        })
}

/// Whether the request's `Authorization: Bearer …` is `token`.
pub fn presents(request_headers: &axum::http::HeaderMap, token: &DeployToken) -> bool {
    presented(request_headers).is_some_and(|presented| token.matches(presented))
}
