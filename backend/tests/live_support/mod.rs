//! What the live-check tests share: requests through `app(state).oneshot`, the checks'
//! report read by check and finding, and the designs and capacities they start from.

#![allow(dead_code)]

use crate::emulator::REGION;
use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use backend::aws::LiveAws;
use backend::{AppState, app};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

pub async fn call(router: &Router, method: &str, uri: &str, body: Body) -> (StatusCode, Value) {
    let response = router
        .clone()
        .oneshot(
            Request::builder()
                .method(method)
                .uri(uri)
                .header("content-type", "application/json")
                .body(body)
                .unwrap(),
        )
        .await
        .unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|error| panic!("{uri} answered {bytes:?}: {error}"));
    (status, value)
}

pub async fn post(router: &Router, uri: &str, body: &Value) -> (StatusCode, Value) {
    call(router, "POST", uri, Body::from(body.to_string())).await
}

pub async fn checks(router: &Router, spec: &Value) -> Value {
    let (status, body) = post(router, "/api/checks", spec).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

pub fn router(aws: LiveAws) -> Router {
    app(AppState {
        aws,
        ..AppState::default()
    })
}

/// The one check with this id and path.
pub fn check<'a>(report: &'a Value, id: &str, path: &str) -> &'a Value {
    let found: Vec<&Value> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|check| check["id"] == id && check["path"] == path)
        .collect();
    assert_eq!(found.len(), 1, "one {id} check at {path} in {report:#}");
    found[0]
}

pub fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

pub fn fired(check: &Value) -> Vec<String> {
    check["detail"]["findings"]
        .as_array()
        .map(|rules| {
            rules
                .iter()
                .map(|rule| rule.as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

pub fn has_finding(report: &Value, rule: &str, path: &str) -> bool {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|finding| finding["rule"] == rule && finding["path"] == path)
}

pub fn spec(network: Value, node_groups: Value) -> Value {
    json!({
        "cluster": {
            "name": "live-checks",
            "region": REGION,
            "kubernetes_version": "1.32",
            "with_oidc": true,
        },
        "network": network,
        "node_groups": node_groups,
    })
}

pub fn new_vpc() -> Value {
    json!({ "mode": "new-vpc", "availability_zones": ["us-east-1a", "us-east-1b", "us-east-1c"] })
}

pub fn group(
    name: &str,
    instance_type: &str,
    zones: &[&str],
    capacity: Value,
    desired: u32,
) -> Value {
    json!({
        "name": name,
        "instance_type": instance_type,
        "private_networking": true,
        "min_size": desired,
        "desired_capacity": desired,
        "max_size": desired,
        "placement": { "kind": "availability-zones", "availability_zones": zones },
        "capacity": capacity,
    })
}

pub fn reservation(id: &str) -> Value {
    json!({ "kind": "reservation", "reservation_id": id })
}

pub fn capacity_block(id: &str) -> Value {
    json!({ "kind": "capacity-block", "reservation_id": id })
}

pub const ON_DEMAND: &str = r#"{"kind":"on-demand"}"#;

pub fn on_demand() -> Value {
    serde_json::from_str(ON_DEMAND).unwrap()
}
