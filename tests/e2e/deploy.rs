//! The deploy panel in headless Chromium against the real server running the stand-in
//! eksctl: a deploy's log, stages and state as they stream in, the history, a wrong token,
//! and cancelling a run that hangs.

use fantoccini::Locator;
use shared::model::spec::{ClusterSettings, Network, NodeGroup};
use studio_e2e::{Browser, Studio};

/// AWS credentials for the tools the server runs (the stand-ins call no AWS): without
/// them the server refuses a deploy up front.
const CREDENTIALS: &[(&str, &str)] = &[
    ("AWS_ACCESS_KEY_ID", "testing"),
    ("AWS_SECRET_ACCESS_KEY", "testing"),
];

const FINDINGS: Locator<'static> = Locator::Id("findings-list");
const LOG: Locator<'static> = Locator::Id("deploy-log");
const STATE: Locator<'static> = Locator::Id("deploy-state");
const RESULT: Locator<'static> = Locator::Id("deploy-result");

/// Opens the page and fills the p5-capacity-block template until it has no errors, the way
/// `wizard.rs` does; ends on the Review step. Returns the cluster name.
async fn open_a_deployable_design(browser: &Browser, studio: &Studio) -> String {
    browser.open(studio).await;
    browser.choose_template("p5-capacity-block").await;
    browser.go_to_step(2).await;
    let cluster_name = browser
        .field_by_label(ClusterSettings::NAME.label)
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default();
    browser
        .fill_by_label(ClusterSettings::REGION.label, "us-east-1")
        .await;
    browser.go_to_step(3).await;
    browser
        .fill_by_label(Network::VPC_ID.label, "vpc-0123456789abcdef0")
        .await;
    for (idx, id) in [
        "f-network-private-subnets-0-id",
        "f-network-private-subnets-1-id",
        "f-network-public-subnets-0-id",
        "f-network-public-subnets-1-id",
    ]
    .iter()
    .enumerate()
    {
        browser
            .fill(id, &format!("subnet-0123456789abcdef{idx}"))
            .await;
    }
    browser.go_to_step(5).await;
    browser
        .fill_by_label(NodeGroup::RESERVATION_ID.label, "cr-0123456789abcdef0")
        .await;
    browser
        .by_id("f-node-groups-0-placement")
        .await
        .select_by_value("availability-zones")
        .await
        .unwrap();
    browser
        .fill_by_label(NodeGroup::PLACEMENT_ZONES.label, "us-east-1a")
        .await;
    browser.go_to_step(8).await;
    browser
        .wait_for_text(FINDINGS, |text| !text.contains("Errors ("))
        .await;
    cluster_name
}

/// Waits for the plan to be ready for approval and approves it from the keyboard: the
/// approve button has the focus, Enter presses it. Returns the summary it showed.
async fn approve_by_keyboard(browser: &Browser) -> String {
    let summary = browser
        .wait_for_text(Locator::Id("approval-summary"), |text| !text.is_empty())
        .await;
    let mut focused = String::new();
    for _ in 0..100 {
        focused = browser
            .eval(
                "return document.activeElement && document.activeElement.id;",
                vec![],
            )
            .await
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if focused == "approve-deploy" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(
        focused, "approve-deploy",
        "the approve button has the focus"
    );
    browser
        .client
        .active_element()
        .await
        .unwrap()
        .send_keys("\u{E007}")
        .await
        .unwrap();
    summary
}

async fn screenshot_of(browser: &Browser, id: &str, name: &str) {
    browser
        .eval(
            "document.getElementById(arguments[0]).scrollIntoView({block: 'center'});",
            vec![id.into()],
        )
        .await;
    browser.screenshot(name).await;
}

#[tokio::test]
async fn a_deploy_streams_eksctl_stages_and_log_and_lands_in_the_history() {
    let studio = Studio::start_with_env(&[
        ("EKSCTL_STANDIN_DELAY_MS", "60"),
        CREDENTIALS[0],
        CREDENTIALS[1],
    ]);
    let token = studio
        .deploy_token
        .clone()
        .expect("the server printed a token");
    let browser = Browser::start().await;
    let cluster = open_a_deployable_design(&browser, &studio).await;
    assert!(!cluster.is_empty());
    browser.fill_by_label("Deploy token", &token).await;
    browser.click_button("Deploy").await;

    // The plan runs, then the job waits: nothing is created before the user approves.
    let summary = browser
        .wait_for_text(Locator::Id("approval-summary"), |text| !text.is_empty())
        .await;
    for said in [
        "Region us-east-1".to_owned(),
        format!("eksctl-{cluster}-cluster"),
        "× p5.48xlarge".to_owned(),
    ] {
        assert!(summary.contains(&said), "{said}: {summary}");
    }
    let waiting = browser.by_id("deploy-log").await.text().await.unwrap();
    assert!(!waiting.contains("deploying stack"), "{waiting}");
    screenshot_of(&browser, "approval-summary", "deploy-approval").await;
    approve_by_keyboard(&browser).await;

    // Lines arrive while eksctl runs: the cluster stack shows before the cluster is ready.
    let early = browser
        .wait_for_text(LOG, |text| text.contains("deploying stack"))
        .await;
    assert!(
        early.contains(&format!(
            "building cluster stack \"eksctl-{cluster}-cluster\""
        )),
        "{early}"
    );
    let log = browser
        .wait_for_text(LOG, |text| {
            text.contains(&format!(
                "EKS cluster \"{cluster}\" in \"us-east-1\" region is ready"
            ))
        })
        .await;
    assert!(log.contains("eksctl version"), "{log}");
    browser
        .wait_for_text(STATE, |text| text == "succeeded")
        .await;
    let stages = browser.by_id("deploy-stages").await.text().await.unwrap();
    assert!(
        stages.contains(&format!("Cluster stack eksctl-{cluster}-cluster — created")),
        "{stages}"
    );
    assert!(stages.contains("Node group"), "{stages}");
    assert!(stages.contains("— ready"), "{stages}");
    let steps = browser.by_id("deploy-steps").await.text().await.unwrap();
    assert!(!steps.contains("running"), "{steps}");
    let plan = browser
        .eval(
            "return document.querySelector('#deploy-plan pre').textContent;",
            vec![],
        )
        .await;
    assert!(
        plan.as_str()
            .unwrap_or_default()
            .contains("kind: ClusterConfig"),
        "the plan is eksctl's dry-run output: {plan}"
    );
    assert!(
        browser
            .client
            .find(Locator::Id("cancel-deploy"))
            .await
            .is_err(),
        "no cancel once the deploy ended"
    );
    let history = browser
        .wait_for_text(Locator::Id("deploy-history"), |text| {
            text.contains("succeeded")
        })
        .await;
    assert!(
        history.contains(&format!("{cluster} in us-east-1")),
        "{history}"
    );
    screenshot_of(&browser, "deploy-log", "deploy-succeeded").await;

    // Picking the job in the history replays its log from the server.
    browser
        .client
        .find(Locator::Css("#deploy-history button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(LOG, |text| text.contains("region is ready"))
        .await;
    browser
        .wait_for_text(STATE, |text| text == "succeeded")
        .await;
    browser.close().await;
}

#[tokio::test]
async fn deploy_waits_for_a_clean_design_and_a_wrong_token_gets_the_401_message() {
    let studio = Studio::start_with_env(CREDENTIALS);
    let browser = Browser::start().await;
    browser.client.goto(&studio.base_url).await.unwrap();
    browser.go_to_step(8).await;
    // The first template has placeholders: Deploy is off and the page says why.
    let deploy = browser.by_id("deploy-button").await;
    assert_eq!(
        deploy.attr("disabled").await.unwrap().as_deref(),
        Some("true")
    );
    let reason = browser
        .wait_for_text(RESULT, |text| text.contains("error"))
        .await;
    assert!(reason.starts_with("Deploy is off"), "{reason}");

    open_a_deployable_design(&browser, &studio).await;
    browser
        .fill_by_label("Deploy token", "not-the-token-0123456789")
        .await;
    browser.click_button("Deploy").await;
    let answer = browser
        .wait_for_text(RESULT, |text| text.contains("401"))
        .await;
    assert!(answer.contains("Deploy did not start"), "{answer}");
    assert!(answer.contains("Deploy token: "), "{answer}");
    screenshot_of(&browser, "deploy-result", "deploy-wrong-token").await;
    browser.close().await;
}

#[tokio::test]
async fn cancelling_a_hanging_deploy_records_it_cancelled() {
    let studio = Studio::start_with_env(&[
        ("EKSCTL_STANDIN_MODE", "hang"),
        CREDENTIALS[0],
        CREDENTIALS[1],
    ]);
    let token = studio
        .deploy_token
        .clone()
        .expect("the server printed a token");
    let browser = Browser::start().await;
    open_a_deployable_design(&browser, &studio).await;
    browser.fill_by_label("Deploy token", &token).await;
    browser.click_button("Deploy").await;
    approve_by_keyboard(&browser).await;
    browser
        .wait_for_text(LOG, |text| {
            text.contains("waiting for CloudFormation stack")
        })
        .await;
    browser.wait_for_text(STATE, |text| text == "running").await;
    browser.click_button("Cancel deploy").await;
    browser
        .wait_for_text(STATE, |text| text == "cancelled")
        .await;
    browser
        .wait_for_text(Locator::Id("deploy-history"), |text| {
            text.contains("cancelled")
        })
        .await;
    screenshot_of(&browser, "deploy-log", "deploy-cancelled").await;
    browser.close().await;
}

/// A design that makes eksctl read a file of the server's (an imported `ssh.publicKeyPath`)
/// is not deployed until the user has seen the file named and confirmed it.
#[tokio::test]
async fn a_design_naming_a_server_file_deploys_only_once_the_user_confirms_it() {
    const DESIGN: &str = "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: ssh-path
  region: us-east-1
  version: \"1.35\"
availabilityZones: [us-east-1a, us-east-1b]
managedNodeGroups:
  - name: sys
    instanceType: m5.large
    minSize: 1
    desiredCapacity: 1
    maxSize: 2
    ssh:
      allow: true
      publicKeyPath: /etc/eks-studio-test/id.pub
";
    let studio = Studio::start_with_env(CREDENTIALS);
    let token = studio
        .deploy_token
        .clone()
        .expect("the server printed a token");
    let browser = Browser::start().await;
    browser.open(&studio).await;
    let text = browser.field_by_label("YAML to import").await;
    text.send_keys(DESIGN).await.unwrap();
    browser.by_id("import-button").await.click().await.unwrap();
    browser
        .wait_for_text(Locator::Id("import-result"), |text| {
            text.starts_with("Imported cluster")
        })
        .await;
    browser.go_to_step(8).await;
    browser
        .wait_for_text(FINDINGS, |text| !text.contains("Errors ("))
        .await;
    browser.fill_by_label("Deploy token", &token).await;
    browser.click_button("Deploy").await;

    let files = browser
        .wait_for_text(Locator::Id("server-files"), |text| !text.is_empty())
        .await;
    assert!(
        files.contains("publicKeyPath: `/etc/eks-studio-test/id.pub`"),
        "{files}"
    );
    let said = browser
        .wait_for_text(RESULT, |text| text.contains("did not start"))
        .await;
    assert!(said.contains("ssh.publicKey"), "{said}");
    screenshot_of(&browser, "server-files", "deploy-server-files").await;

    browser
        .click_button("Deploy and let eksctl read them")
        .await;
    let accepted = browser
        .wait_for_text(RESULT, |text| text.contains("accepted"))
        .await;
    assert!(accepted.contains("ssh-path"), "{accepted}");
    approve_by_keyboard(&browser).await;
    browser
        .wait_for_text(STATE, |text| text == "succeeded")
        .await;
    browser.close().await;
}
