//! Requests must be meant for the studio. A web page the user visits can make the browser
//! send requests to `127.0.0.1` (DNS rebinding: a name the attacker controls that resolves
//! to loopback), but the browser then names the attacker's host in `Host` and its page in
//! `Origin`. So every request's `Host` must be the address the server listens on (any IP
//! literal, `localhost`, or a name given with `--allowed-host`, at the listening port),
//! and a request that changes something or calls AWS must not come from another origin.

use std::net::{IpAddr, SocketAddr};

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// Which `Host` names the server answers to.
#[derive(Clone, Debug)]
pub struct HostGuard {
    port: u16,
    /// Lowercase names from `--allowed-host`, with or without a port.
    names: Vec<String>,
}

impl HostGuard {
    /// The guard for a server listening on `addr` that also answers to `names`.
    pub fn new(addr: SocketAddr, names: &[String]) -> HostGuard {
        HostGuard {
            port: addr.port(),
            names: names
                .iter()
                .map(|name| name.trim().to_ascii_lowercase())
                .collect(),
        }
    }

    /// Whether `authority` (`host[:port]`, as in `Host` or an `Origin` after its scheme)
    /// names this server.
    pub fn allows(&self, authority: &str) -> bool {
        let authority = authority.trim().to_ascii_lowercase();
        if self.names.contains(&authority) {
            return true;
        }
        let Some((host, port)) = split_authority(&authority) else {
            return false;
        };
        if port.unwrap_or(80) != self.port {
            return false;
        }
        host == "localhost"
            || host.parse::<IpAddr>().is_ok()
            || self.names.iter().any(|name| name == host)
    }
}

/// `host` and the port of `host[:port]`, with IPv6 literals in brackets (`[::1]:8080`).
fn split_authority(authority: &str) -> Option<(&str, Option<u16>)> {
    if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(port) => Some(port.parse().ok()?),
            None if after.is_empty() => None,
            None => return None,
        };
        return Some((host, port));
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => Some((host, Some(port.parse().ok()?))),
        None => Some((authority, None)),
    }
}

fn refuse(message: String) -> Response {
    (StatusCode::FORBIDDEN, Json(json!({ "error": message }))).into_response()
}

/// Whether a request may change something or spend the server's AWS calls.
fn is_sensitive(request: &Request) -> bool {
    let safe = matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    !safe || request.uri().path().starts_with("/api/checks")
}

/// The middleware: a `Host` the server does not answer to gets 403, as does a
/// state-changing or AWS-calling request whose `Origin` is another site. Requests with
/// no `Origin` (curl, the CLI, scripts) are not a browser's cross-site requests.
pub async fn check(State(guard): State<HostGuard>, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
        .or_else(|| {
            request
                .uri()
                .authority()
                .map(|authority| authority.to_string())
        });
    let Some(host) = host else {
        return refuse("the request names no host; send `Host: <the studio's address>`".into());
    };
    if !guard.allows(&host) {
        return refuse(format!(
            "this server does not answer to the host `{}`; open the studio at its own address, or start it with --allowed-host {}",
            host.escape_default(),
            host.escape_default()
        ));
    }
    if is_sensitive(&request)
        && let Some(origin) = request.headers().get(header::ORIGIN)
    {
        let origin = origin.to_str().unwrap_or("");
        let same = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"))
            .is_some_and(|authority| authority.eq_ignore_ascii_case(&host));
        if !same {
            return refuse(format!(
                "requests from another site (`Origin: {}`) may not change anything or call AWS here",
                origin.escape_default()
            ));
        }
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::HostGuard;

    #[test]
    fn hosts_are_the_listening_address_by_any_literal_or_an_allowed_name() {
        let guard = HostGuard::new(
            "127.0.0.1:8080".parse().unwrap(),
            &["Studio.Internal".into()],
        );
        for allowed in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LOCALHOST:8080",
            "[::1]:8080",
            "10.1.2.3:8080",
            "studio.internal:8080",
            "studio.internal",
        ] {
            assert!(guard.allows(allowed), "{allowed}");
        }
        for refused in [
            "evil.example:8080",
            "evil.example",
            "127.0.0.1:9090",
            "127.0.0.1",
            "localhost",
            "127.0.0.1.evil.example:8080",
            "[::1]x:8080",
            "",
            "studio.internal:9090",
        ] {
            assert!(!guard.allows(refused), "{refused}");
        }
        let default_port = HostGuard::new("0.0.0.0:80".parse().unwrap(), &[]);
        assert!(default_port.allows("192.168.1.5"));
        assert!(default_port.allows("localhost"));
    }
}
