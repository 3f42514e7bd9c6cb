//! The JSON API through `app(state).oneshot(...)`: no port, the whole router.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use backend::aws::{AwsOptions, LiveAws};
use backend::{AppState, app};
use http_body_util::BodyExt;
use tower::ServiceExt;

async fn get_json(state: AppState, uri: &str) -> (StatusCode, serde_json::Value) {
    let response = app(state)
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap())
}

#[tokio::test]
async fn health_reports_version_and_aws_configuration() {
    let state = AppState {
        aws: LiveAws::offline(
            "no credentials in this test",
            AwsOptions {
                ec2_endpoint: Some("http://127.0.0.1:5000".into()),
                ..AwsOptions::default()
            },
        ),
        ..AppState::default()
    };
    let (status, body) = get_json(state, "/api/health").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "ok");
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(body["aws"]["credentials"], false);
    assert_eq!(body["aws"]["ec2_endpoint"], "http://127.0.0.1:5000");
}

#[tokio::test]
async fn templates_list_every_template_with_its_spec() {
    let (status, body) = get_json(AppState::default(), "/api/templates").await;
    assert_eq!(status, StatusCode::OK);
    let entries = body.as_array().unwrap();
    assert_eq!(entries.len(), shared::TEMPLATES.len());
    assert_eq!(entries[0]["id"], "g4dn-vpc");
    assert_eq!(entries[0]["spec"]["cluster"]["name"], "eks-g4dn-vpc");
}

#[tokio::test]
async fn one_template_by_id_and_a_clear_404_for_an_unknown_one() {
    let (status, body) = get_json(AppState::default(), "/api/templates/p5-capacity-block").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["node_groups"][0]["capacity"]["kind"], "capacity-block");

    let (status, body) = get_json(AppState::default(), "/api/templates/p9-imaginary").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["error"], "no template with id `p9-imaginary`");
}
