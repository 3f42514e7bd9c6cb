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

async fn post(uri: &str, body: String) -> axum::response::Response {
    app(AppState::default())
        .oneshot(
            Request::post(uri)
                .header("content-type", "application/json")
                .body(Body::from(body))
                .unwrap(),
        )
        .await
        .unwrap()
}

#[tokio::test]
async fn validate_runs_the_shared_rules_on_the_server() {
    let spec = shared::template("p5-capacity-block").unwrap().spec();
    let response = post("/api/validate", spec.to_json()).await;
    assert_eq!(response.status(), StatusCode::OK);
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(
        body["findings"].as_array().unwrap().len(),
        shared::rules::validate(&spec).len()
    );
    assert!(body["errors"].as_u64().unwrap() >= 1);
    assert_eq!(body["findings"][0]["severity"], "error");
}

#[tokio::test]
async fn bad_json_gets_a_4xx_that_says_where() {
    let response = post(
        "/api/validate",
        "{\n  \"cluster\": {\n    \"name\": 7\n".into(),
    )
    .await;
    assert!(response.status().is_client_error(), "{}", response.status());
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let message = body["error"].as_str().unwrap();
    assert!(message.contains("line 3"), "{message}");
}

#[tokio::test]
async fn render_answers_the_bundle_as_a_zip() {
    let spec = shared::template("karpenter-spot-inference").unwrap().spec();
    let response = post("/api/render", spec.to_json()).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "application/zip");
    assert_eq!(
        response.headers()["content-disposition"],
        "attachment; filename=\"eks-gpu-inference.zip\""
    );
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let archive = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
    let names: Vec<String> = archive
        .file_names()
        .map(|name| name.unwrap().into_owned())
        .collect();
    assert!(names.iter().any(|name| name == "cluster.yaml"), "{names:?}");
    assert!(
        names.iter().any(|name| name == "karpenter/nodepools.yaml"),
        "{names:?}"
    );
}

#[tokio::test]
async fn resolve_lists_each_nodepools_instance_types() {
    let spec = shared::template("karpenter-reserved-training")
        .unwrap()
        .spec();
    let response = post("/api/resolve", spec.to_json()).await;
    assert_eq!(response.status(), StatusCode::OK);
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let pool = &body["node_pools"][0];
    assert_eq!(pool["name"], "gpu-training-reserved");
    assert_eq!(pool["count"], 1);
    assert_eq!(pool["instance_types"][0]["name"], "p5.48xlarge");
    assert_eq!(pool["instance_types"][0]["gpu_count"], 8);
    assert_eq!(pool["instance_types"][0]["efa_interfaces"], 32);
    let refused = post("/api/resolve", "{\"cluster\": 5}".into()).await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
}

/// The page's "Download bundle": the zip's README lists the live checks the page ran and
/// the findings what EC2 told them lead to.
#[tokio::test]
async fn the_pages_bundle_lists_its_live_checks_and_the_findings_they_lead_to() {
    let mut spec = shared::template("p5-odcr-vpc").unwrap().spec();
    let id = "cr-0123456789abcdef0";
    let group = spec
        .node_groups
        .iter_mut()
        .find_map(|group| match &mut group.capacity {
            shared::model::spec::Capacity::Reservation { reservation_id } => Some(reservation_id),
            _ => None,
        })
        .expect("the template reserves capacity");
    *group = id.to_owned();
    let readme = |body: String| async move {
        let response = post("/api/bundle", body).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["content-type"], "application/zip");
        let count: usize = response.headers()["x-bundle-files"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
        assert_eq!(archive.len(), count);
        let mut text = String::new();
        std::io::Read::read_to_string(&mut archive.by_name("README.md").unwrap(), &mut text)
            .unwrap();
        text
    };
    let spec_json = spec.to_json();
    let bare = readme(format!("{{\"spec\": {spec_json}}}")).await;
    assert!(
        !bare.contains(&format!("capacity reservation {id} was not found")),
        "{bare}"
    );
    let told = readme(format!(
        r#"{{"spec": {spec_json},
            "checks": [{{"id": "capacity-reservations", "status": "failed",
                         "message": "EC2 knows no reservation {id}"}}],
            "facts": {{"missing_reservations": ["{id}"]}}}}"#
    ))
    .await;
    assert!(
        told.contains(&format!("EC2 knows no reservation {id}")),
        "{told}"
    );
    assert!(
        told.contains(&format!("capacity reservation {id} was not found")),
        "{told}"
    );
}

/// `POST /api/bundle/files`: the same bundle as text, each file with its path.
#[tokio::test]
async fn the_bundles_files_come_as_text_with_their_paths() {
    let spec = shared::template("karpenter-reserved-training")
        .unwrap()
        .spec();
    let response = post(
        "/api/bundle/files",
        format!("{{\"spec\": {}}}", spec.to_json()),
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let files = body["files"].as_array().unwrap();
    let file = |path: &str| {
        files
            .iter()
            .find(|file| file["path"] == path)
            .unwrap_or_else(|| panic!("no {path} in {files:?}"))
    };
    let stack = file("karpenter/cloudformation.yaml")["contents"]
        .as_str()
        .unwrap();
    assert!(stack.contains("AWSTemplateFormatVersion"), "{stack}");
    assert_eq!(file("deploy.sh")["executable"], true);
    assert_eq!(
        file("cluster.yaml")["contents"].as_str().unwrap(),
        shared::render_cluster_yaml(&spec).unwrap()
    );
    // A body that is not a design is refused with the field named.
    let refused = post("/api/bundle/files", "{\"spec\": {\"cluster\": 5}}".into()).await;
    assert!(refused.status().is_client_error(), "{}", refused.status());
}
