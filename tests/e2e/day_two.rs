//! Day two in the page: a cluster eksctl made (the stand-in, in the emulator) is opened
//! from the Start step, and the Review step plans the edited design against it.

use std::process::Command;

use fantoccini::Locator;
use shared::upstream::karpenter::NodePool;
use studio_e2e::ec2_emulator::{self, Ec2Emulator};
use studio_e2e::{Browser, Studio};

const CLUSTER_YAML: &str = r#"apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: train
  region: us-east-1
  version: "1.35"
availabilityZones: [us-east-1a, us-east-1b]
iam:
  withOIDC: true
managedNodeGroups:
- name: gpu
  instanceType: g5.12xlarge
  privateNetworking: true
  minSize: 0
  desiredCapacity: 2
  maxSize: 4
  availabilityZones: [us-east-1b]
  labels: {role: train}
  taints:
  - {key: nvidia.com/gpu, effect: NoSchedule}
- name: sys
  instanceType: m5.large
  desiredCapacity: 1
"#;

/// A NodePool and its EC2NodeClass, applied to the cluster after eksctl made it.
const KARPENTER_YAML: &str = r#"apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: spot-gpu
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
        - {key: node.kubernetes.io/instance-type, operator: In, values: [g5.12xlarge]}
  limits:
    nvidia.com/gpu: 8
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: gpu
spec:
  role: KarpenterNodeRole-train
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: train}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: train}}]
"#;

/// The stand-in eksctl makes the cluster in the emulator, as eksctl makes it in AWS; the
/// kubectl stand-in then applies a NodePool to it, as the cluster's API server keeps it.
fn create_cluster(emulator: &Ec2Emulator) {
    let dir = std::env::temp_dir().join(format!("eks-studio-day-two-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("cluster.yaml");
    std::fs::write(&file, CLUSTER_YAML).unwrap();
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let output = Command::new(ec2_emulator::python())
        .arg(fixtures.join("eksctl"))
        .args(["create", "cluster", "-f"])
        .arg(&file)
        .env("AWS_ENDPOINT_URL", &emulator.endpoint)
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("EKSCTL_STANDIN_DELAY_MS", "0")
        .env("EKSCTL_STANDIN_ARGV_LOG", dir.join("calls.jsonl"))
        .env("KUBECONFIG", dir.join("kubeconfig"))
        .output()
        .expect("the eksctl stand-in runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    // The kubectl stand-in on the cluster eksctl made: its output, which must succeed.
    let kubectl = |args: &[&str]| {
        let output = Command::new(ec2_emulator::python())
            .arg(fixtures.join("kubectl"))
            .args(args)
            .env("AWS_ENDPOINT_URL", &emulator.endpoint)
            .env("EKSCTL_STANDIN_ARGV_LOG", dir.join("calls.jsonl"))
            .env("KUBECONFIG", dir.join("kubeconfig"))
            .output()
            .expect("the kubectl stand-in runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let objects = dir.join("nodepools.yaml");
    std::fs::write(&objects, KARPENTER_YAML).unwrap();
    kubectl(&["apply", "-f", objects.to_str().unwrap()]);

    // A training run of two workers on the GPU group's nodes, as the cluster lists them.
    let nodes: serde_json::Value =
        serde_json::from_str(&kubectl(&["get", "nodes", "-o", "json"])).unwrap();
    let gpu_nodes: Vec<&str> = nodes["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|node| node["metadata"]["labels"]["eks.amazonaws.com/nodegroup"] == "gpu")
        .map(|node| node["metadata"]["name"].as_str().unwrap())
        .collect();
    let pods: Vec<String> = gpu_nodes
        .iter()
        .enumerate()
        .map(|(index, node)| {
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: llama-worker-{index}\n  namespace: training\n  labels: {{training.kubeflow.org/job-name: llama}}\n  ownerReferences: [{{apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: llama, uid: '1', controller: true}}]\nspec:\n  nodeName: {node}\n  containers:\n  - name: worker\n    image: public.ecr.aws/docker/library/busybox:latest\n    resources: {{limits: {{nvidia.com/gpu: 4}}}}\n"
            )
        })
        .collect();
    let pods_file = dir.join("pods.yaml");
    std::fs::write(&pods_file, pods.join("---\n")).unwrap();
    kubectl(&["apply", "-f", pods_file.to_str().unwrap()]);
}

/// `PATH` with the emulator's Python first, so the stand-ins' `python3` is it.
fn path_with_emulator_python() -> String {
    let python = ec2_emulator::python();
    let bin = python.parent().unwrap().display().to_string();
    format!("{bin}:{}", std::env::var("PATH").unwrap_or_default())
}

async fn plan_summary(browser: &Browser, predicate: impl Fn(&str) -> bool) -> String {
    browser
        .wait_for_text(Locator::Id("plan-summary"), predicate)
        .await
}

#[tokio::test]
async fn a_running_cluster_opens_from_the_start_step_and_review_plans_the_edits_against_it() {
    let emulator = Ec2Emulator::start();
    create_cluster(&emulator);
    let studio = Studio::start_with_env(&[
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
        // The SDK's endpoint and the tools' (the aws and kubectl stand-ins).
        ("AWS_ENDPOINT_URL", &emulator.endpoint),
        ("EKS_STUDIO_EC2_TIMEOUT_SECONDS", "30"),
        // The stand-ins run with the emulator's Python (boto3, PyYAML), as the apply's
        // steps change the emulator.
        ("PATH", &path_with_emulator_python()),
        ("EKSCTL_STANDIN_DELAY_MS", "0"),
    ]);
    let browser = Browser::start().await;
    browser.client.set_window_size(1280, 800).await.unwrap();
    browser.open(&studio).await;

    // Start: the region, the account's clusters, one opened.
    browser.go_to_step(1).await;
    browser
        .by_id("open-running-cluster")
        .await
        .click()
        .await
        .unwrap();
    browser.wait_for_element("running-region").await;
    // Reading a running cluster needs the deploy token: without it the server says so.
    browser.fill("running-region", ec2_emulator::REGION).await;
    browser.click_button("List clusters").await;
    let refused = browser
        .wait_for_text(Locator::Css(".running-cluster .error"), |text| {
            text.contains("401")
        })
        .await;
    assert!(refused.contains("deploy token"), "{refused}");
    browser
        .screenshot("running-cluster-token-refused-1280")
        .await;
    browser
        .fill("running-token", studio.deploy_token.as_deref().unwrap())
        .await;
    browser.click_button("List clusters").await;
    let open = Locator::XPath("//button[@aria-label='Open train']");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let button = loop {
        if let Ok(button) = browser.client.find(open).await {
            break button;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the cluster `train` was never listed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    browser.client.set_window_size(390, 844).await.unwrap();
    browser
        .eval(
            "document.getElementById('running-token').scrollIntoView()",
            vec![],
        )
        .await;
    browser.screenshot("running-cluster-listed-390").await;
    browser.client.set_window_size(1280, 800).await.unwrap();
    browser.screenshot("running-cluster-listed-1280").await;
    button.click().await.unwrap();
    browser
        .wait_for_text(Locator::Id("running-status"), |text| {
            text.contains("Read cluster `train`")
        })
        .await;
    // The design is the running cluster's: its GPU group, read back from EKS.
    browser
        .wait_for_text(Locator::Id("preview-cluster-yaml"), |text| {
            text.contains("name: train") && text.contains("instanceType: g5.12xlarge")
        })
        .await;

    // And its NodePool, read from the cluster with kubectl, as applied.
    browser
        .by_id("tab-preview-nodepools-yaml")
        .await
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(Locator::Id("preview-nodepools-yaml"), |text| {
            text.contains("name: spot-gpu") && text.contains("nvidia.com/gpu: 8")
        })
        .await;

    // Review: nothing to change yet.
    browser.go_to_step(8).await;
    let summary = plan_summary(&browser, |text| text.starts_with("No changes")).await;
    assert!(summary.contains("No changes"), "{summary}");

    // The GPU group grows from 2 to 3 nodes: an update in place, no disruption.
    browser.go_to_step(4).await;
    browser.fill("f-node-groups-0-desired-capacity", "3").await;
    browser.go_to_step(8).await;
    let summary = plan_summary(&browser, |text| text.contains("1 to update")).await;
    assert!(summary.contains("0 disrupt running pods"), "{summary}");
    let changes = browser
        .wait_for_text(Locator::Css("ul.changes"), |text| {
            text.contains("nodegroup gpu")
        })
        .await;
    assert!(
        changes.contains("~ nodegroup gpu (desiredCapacity)"),
        "{changes}"
    );
    assert!(
        changes.contains("eksctl scale nodegroup --name gpu"),
        "{changes}"
    );
    browser.screenshot("day-two-changes-1280").await;
    browser.client.set_window_size(390, 844).await.unwrap();
    browser.screenshot("day-two-changes-390").await;
    browser.client.set_window_size(1024, 768).await.unwrap();
    browser.screenshot("day-two-changes-1024").await;

    // A reload keeps the design and the cluster it is planned against.
    browser.open(&studio).await;
    browser.go_to_step(8).await;
    let summary = plan_summary(&browser, |text| text.contains("1 to update")).await;
    assert!(summary.contains("0 disrupt running pods"), "{summary}");
    let heading = browser
        .wait_for_text(Locator::Id("changes-title"), |text| {
            text.contains("running cluster `train`")
        })
        .await;
    assert!(heading.contains("us-east-1"), "{heading}");

    // The NodePool tightened: fewer GPUs, changed in place (its limits drift no node).
    browser.go_to_step(6).await;
    browser
        .fill_by_label(NodePool::LIMITS.label, "nvidia.com/gpu=4")
        .await;
    browser.go_to_step(8).await;
    let summary = plan_summary(&browser, |text| text.contains("2 to update")).await;
    assert!(summary.contains("0 disrupt running pods"), "{summary}");

    // The GPU group on a larger type: EKS cannot change it in place, so the plan
    // replaces it, and says which running job the drain stops.
    browser.go_to_step(4).await;
    browser
        .fill("f-node-groups-0-instance-type", "g5.24xlarge")
        .await;
    browser.click_button("Add GPU group").await;
    browser.go_to_step(8).await;
    let summary = plan_summary(&browser, |text| {
        text.contains("1 to create, 1 to update, 1 to replace")
    })
    .await;
    assert!(summary.contains("1 disrupts running pods"), "{summary}");
    let changes = browser
        .wait_for_text(Locator::Css("ul.changes"), |text| {
            text.contains("PyTorchJob training/llama")
        })
        .await;
    assert!(
        changes.contains("-/+ nodegroup gpu (") && changes.contains("instanceType"),
        "{changes}"
    );
    assert!(
        changes
            .contains("on its 2 nodes now: PyTorchJob training/llama (2 pods, 8 nvidia.com/gpu)"),
        "{changes}"
    );
    assert!(
        changes.contains("~ NodePool spot-gpu (spec.limits)"),
        "{changes}"
    );
    let findings = browser
        .wait_for_text(Locator::Css("ul.plan-findings"), |text| {
            text.contains("change-drains-unguarded-training")
        })
        .await;
    assert!(
        findings.contains("no PodDisruptionBudget guards it"),
        "{findings}"
    );
    browser.client.set_window_size(1280, 800).await.unwrap();
    browser.screenshot("day-two-replacement-1280").await;
    browser.client.set_window_size(390, 844).await.unwrap();
    browser.screenshot("day-two-replacement-390").await;
    browser.client.set_window_size(1280, 800).await.unwrap();

    // Apply it: the drain needs consent, the server waits for approval, runs the steps
    // with its tools (the stand-ins, changing the emulator) and reads the cluster again.
    browser
        .fill("deploy-token", studio.deploy_token.as_deref().unwrap())
        .await;
    browser.by_id("apply-changes").await.click().await.unwrap();
    let said = browser
        .wait_for_text(Locator::Id("apply-status"), |text| {
            text.contains("did not start")
        })
        .await;
    assert!(said.contains("allow_disruption"), "{said}");
    browser
        .by_id("allow-disruption")
        .await
        .click()
        .await
        .unwrap();
    browser.by_id("apply-changes").await.click().await.unwrap();
    browser
        .wait_for_text(Locator::Id("apply-status"), |text| {
            text.contains("accepted")
        })
        .await;
    let approval = browser
        .wait_for_text(Locator::Id("approval-summary"), |text| {
            text.contains("apply to train")
        })
        .await;
    assert!(
        approval.contains("disrupts running pods: -/+ nodegroup gpu"),
        "{approval}"
    );
    browser.screenshot("day-two-apply-approval-1280").await;
    browser.by_id("approve-deploy").await.click().await.unwrap();
    let state = browser
        .wait_for_text(Locator::Id("deploy-state"), |text| {
            text.contains("succeeded") || text.contains("failed")
        })
        .await;
    let log = browser.by_id("deploy-log").await.text().await.unwrap();
    assert!(state.contains("succeeded"), "{state}\n{log}");
    // eksctl cannot make a second `gpu`: the running job's pods wait on an interim group.
    let interim = log
        .find("nodegroup-gpu-interim")
        .expect("the interim group is made");
    let drained = log
        .find("cordon node(s) of nodegroup \"gpu\"")
        .expect("gpu is drained");
    assert!(interim < drained, "{log}");
    // Planned again after the job: the cluster is what the design says.
    let summary = plan_summary(&browser, |text| text.starts_with("No changes")).await;
    assert!(summary.contains("No changes"), "{summary}");
    browser.screenshot("day-two-applied-1280").await;
    browser.client.set_window_size(390, 844).await.unwrap();
    browser.screenshot("day-two-applied-390").await;
    browser.close().await;
}
