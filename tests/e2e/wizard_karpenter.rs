//! The wizard's Karpenter, Auto Mode, storage and access steps in headless Chromium
//! against the real server: pools and their launchable types and prices, node classes,
//! node overlays, storage add-ons and their policies, access entries, the release.

mod wizard_support;

use wizard_support::*;

use fantoccini::Locator;
use shared::model::spec::ClusterSettings;
use shared::upstream::karpenter::{Ec2NodeClass, NodeOverlay, NodePool};
use studio_e2e::ec2_emulator::{self, Ec2Emulator};
use studio_e2e::{Browser, Studio};

#[tokio::test]
async fn a_spot_nodepool_shows_each_types_latest_spot_price_once_live_checks_ran() {
    let emulator = Ec2Emulator::start();
    let studio = studio_asking(&emulator, &[("EKS_STUDIO_EC2_TIMEOUT_SECONDS", "30")]);
    let browser = Browser::start().await;
    browser.client.set_window_size(1280, 800).await.unwrap();
    browser.open(&studio).await;
    browser.choose_template("karpenter-spot-inference").await;
    browser.go_to_step(2).await;
    browser
        .fill_by_label(ClusterSettings::REGION.label, ec2_emulator::REGION)
        .await;
    browser.go_to_step(6).await;
    let summary = Locator::Css(".pool-types summary");
    browser
        .wait_for_text(summary, |text| text.contains("can launch"))
        .await;
    browser
        .client
        .find(summary)
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    // Before live checks: on-demand prices only, named as such.
    let before = browser
        .wait_for_text(Locator::Css(".pool-types ul"), |text| {
            text.contains("on-demand")
        })
        .await;
    assert!(!before.contains("Spot from"), "{before}");

    browser.go_to_step(8).await;
    browser.click_button("Run live checks").await;
    let answer = browser
        .wait_for_text(Locator::Id("live-checks-result"), |text| {
            text.contains("latest Linux Spot prices")
        })
        .await;
    assert!(answer.contains("cheapest first"), "{answer}");

    browser.go_to_step(6).await;
    browser
        .client
        .find(summary)
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let types = browser
        .wait_for_text(Locator::Css(".pool-types ul"), |text| {
            text.contains("Spot from $")
        })
        .await;
    // Each line that has a Spot price names the zone it is from, beside the on-demand one.
    for line in types.lines().filter(|line| line.contains("Spot from")) {
        assert!(
            line.contains("on-demand") && line.contains("/h in us-east-1"),
            "{line}"
        );
    }
    let show_prices =
        "document.querySelector('.pool-types summary').scrollIntoView({ block: 'start' });";
    browser.eval(show_prices, vec![]).await;
    browser.screenshot("karpenter-pool-spot-prices").await;
    browser.client.set_window_size(390, 844).await.unwrap();
    browser.eval(show_prices, vec![]).await;
    browser.screenshot("karpenter-pool-spot-prices-390").await;
    browser.close().await;
}

#[tokio::test]
async fn each_nodepool_shows_the_instance_types_it_can_launch_as_its_requirements_change() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("karpenter-reserved-training").await;
    browser.go_to_step(6).await;
    let summary = Locator::Css(".pool-types summary");
    browser
        .wait_for_text(summary, |text| text == "1 instance type can launch: p5")
        .await;
    browser
        .client
        .find(summary)
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(Locator::Css(".pool-types li"), |text| {
            // The template's region is still a placeholder: the price is us-east-1's.
            text == "p5.48xlarge: 8 × H100 80 GiB, 192 vCPU, 2048 GiB, 32 EFA, $55.04/h on-demand in us-east-1"
        })
        .await;
    // And the list says so in words.
    browser
        .wait_for_text(Locator::Css(".pool-types .hint"), |text| {
            text == "Prices are us-east-1's until the region is set."
        })
        .await;
    browser.screenshot("karpenter-pool-types").await;
    // What Karpenter needs on AWS is reviewable before download.
    browser
        .by_id("tab-preview-karpenter-stack-yaml")
        .await
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(Locator::Id("preview-karpenter-stack-yaml"), |text| {
            text.contains("RoleName:") && text.contains("KarpenterNodeRole-${ClusterName}")
        })
        .await;
    // With IRSA, the access stack makes the controller's role from the cluster's issuer.
    select(&browser, "f-karpenter-controller-identity", "irsa").await;
    browser
        .by_id("tab-preview-karpenter-access-yaml")
        .await
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(Locator::Id("preview-karpenter-access-yaml"), |text| {
            text.contains("OidcIssuer:") && text.contains("sts:AssumeRoleWithWebIdentity")
        })
        .await;
    // The p5 pool gets the NVIDIA and EFA device plugins, whose values are reviewable too.
    browser
        .by_id("tab-preview-device-plugins-yaml")
        .await
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(Locator::Id("preview-device-plugins-yaml"), |text| {
            text.contains("# plugins/nvidia-device-plugin.yaml")
                && text.contains("# plugins/aws-efa-k8s-device-plugin.yaml")
                && text.contains("karpenter.sh/nodepool")
        })
        .await;
    // The second requirement pins the instance type; widen it to a family, then to a typo.
    let values = "f-karpenter-node-pools-0-spec-template-spec-requirements-1-values";
    browser
        .fill(
            "f-karpenter-node-pools-0-spec-template-spec-requirements-1-key",
            "karpenter.k8s.aws/instance-family",
        )
        .await;
    browser.fill(values, "g5, g66").await;
    browser
        .wait_for_text(summary, |text| text == "8 instance types can launch: g5")
        .await;
    browser.fill(values, "g66").await;
    browser
        .wait_for_text(summary, |text| {
            text == "No instance type in the catalog matches these requirements"
        })
        .await;
    // Which requirement shuts out what is said beside the pool.
    let exclusions = Locator::Id("pool-exclusions-0");
    browser
        .wait_for_text(exclusions, |text| {
            text.starts_with("karpenter.k8s.aws/instance-family In g66 alone shuts out ")
        })
        .await;
    // GPU memory is Karpenter's label in MiB: "24Gi" is offered in MiB, and at least
    // 24 GiB shuts out g5 and g6, whose GPUs report 22,888 MiB.
    browser.fill(values, "g5, g6").await;
    browser.click_button("Add requirement").await;
    let memory = "f-karpenter-node-pools-0-spec-template-spec-requirements-2";
    browser
        .fill(
            &format!("{memory}-key"),
            "karpenter.k8s.aws/instance-gpu-memory",
        )
        .await;
    select(&browser, &format!("{memory}-operator"), "Gte").await;
    browser.fill(&format!("{memory}-values"), "24Gi").await;
    let note = Locator::Css(".unit-note");
    browser
        .wait_for_text(note, |text| {
            text.starts_with(
                "Karpenter reads instance-gpu-memory in MiB and compares whole numbers: 24Gi is 24576",
            )
        })
        .await;
    browser.click_button("Write in MiB").await;
    browser
        .wait_for_text(note, |text| {
            text == "instance-gpu-memory is in MiB: 24,576 is 24 GiB"
        })
        .await;
    let written = browser
        .by_id(&format!("{memory}-values"))
        .await
        .prop("value")
        .await
        .unwrap();
    assert_eq!(written.as_deref(), Some("24576"));
    browser
        .wait_for_text(exclusions, |text| {
            text.contains(
                "karpenter.k8s.aws/instance-gpu-memory Gte 24576 (24 GiB) alone shuts out",
            ) && text.contains("g5.xlarge (22,888 MiB)")
        })
        .await;
    browser
        .eval(
            "document.getElementById('pool-exclusions-0').scrollIntoView({block: 'center'})",
            Vec::new(),
        )
        .await;
    browser.screenshot("karpenter-pool-exclusions").await;
    browser.close().await;
}

#[tokio::test]
async fn a_node_groups_placement_group_is_written_and_judged_beside_its_reservation() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("p5-capacity-block").await;
    browser.go_to_step(5).await;
    // The template has one group, the GPU group; its field is found by its spec path's id.
    browser
        .fill("f-node-groups-0-placement-group", "p5-training")
        .await;
    browser
        .wait_for_text(Locator::Id("preview-cluster-yaml"), |text| {
            text.contains("placement:\n    groupName: p5-training")
        })
        .await;
    let findings = browser
        .wait_for_text(
            Locator::Id("f-node-groups-0-placement-group-findings"),
            |text| !text.is_empty(),
        )
        .await;
    assert!(
        findings.contains("a block is bought without a placement group"),
        "{findings}"
    );
    browser
        .by_id("f-node-groups-0-placement-group")
        .await
        .click()
        .await
        .unwrap();
    browser.screenshot("capacity-placement-group").await;
    // Emptied by backspacing it away, as a person would, the key leaves the file and the
    // warning goes.
    let field = browser.by_id("f-node-groups-0-placement-group").await;
    field
        .send_keys(&format!(
            "\u{E010}{}",
            "\u{E003}".repeat("p5-training".len())
        ))
        .await
        .unwrap();
    browser
        .wait_for_text(
            Locator::Id("f-node-groups-0-placement-group-findings"),
            str::is_empty,
        )
        .await;
    let yaml = browser
        .wait_for_text(Locator::Id("preview-cluster-yaml"), |text| {
            !text.contains("groupName")
        })
        .await;
    assert!(!yaml.contains("placement:"), "{yaml}");
    browser.close().await;
}

#[tokio::test]
async fn node_auto_repair_takes_its_limits_and_overrides_and_says_which_eks_refuses() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("p5-capacity-block").await;
    browser.go_to_step(4).await;
    let base = "f-node-groups-0-node-repair-config";
    browser
        .by_id("f-node-groups-0-node-repair")
        .await
        .click()
        .await
        .unwrap();
    browser
        .fill(&format!("{base}-max-unhealthy-node-threshold-count"), "2")
        .await;
    browser
        .fill(
            &format!("{base}-max-unhealthy-node-threshold-percentage"),
            "20",
        )
        .await;
    let findings = browser
        .wait_for_text(
            Locator::Id(&format!(
                "{base}-max-unhealthy-node-threshold-count-findings"
            )),
            |text| !text.is_empty(),
        )
        .await;
    assert!(
        findings.contains("both as a count and as a percentage"),
        "{findings}"
    );
    browser
        .wait_for_text(Locator::Id("preview-cluster-yaml"), |text| {
            text.contains("maxUnhealthyNodeThresholdCount: 2")
                && text.contains("maxUnhealthyNodeThresholdPercentage: 20")
        })
        .await;
    // An override added says what it still needs; filled in, it is written whole.
    browser.click_button("Add repair override").await;
    let row = format!("{base}-node-repair-config-overrides-0");
    let incomplete = browser
        .wait_for_text(Locator::Id(&format!("{row}-findings")), |text| {
            !text.is_empty()
        })
        .await;
    assert!(
        incomplete.contains("leaves out the condition and the reason"),
        "{incomplete}"
    );
    browser
        .fill(
            &format!("{row}-node-monitoring-condition"),
            "AcceleratedHardwareReady",
        )
        .await;
    browser
        .fill(&format!("{row}-node-unhealthy-reason"), "NvidiaXID13Error")
        .await;
    browser
        .wait_for_text(Locator::Id(&format!("{row}-findings")), str::is_empty)
        .await;
    let yaml = browser
        .wait_for_text(Locator::Id("preview-cluster-yaml"), |text| {
            text.contains("nodeUnhealthyReason: NvidiaXID13Error")
        })
        .await;
    for line in [
        "nodeMonitoringCondition: AcceleratedHardwareReady",
        "minRepairWaitTimeMins: 10",
        "repairAction: Reboot",
        "enabled: true",
    ] {
        assert!(yaml.contains(line), "{line} in {yaml}");
    }
    browser.screenshot("node-repair-settings").await;
    browser.close().await;
}

#[tokio::test]
async fn a_static_pool_and_a_placement_group_are_edited_with_the_crds_refusals_beside_them() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("karpenter-reserved-training").await;
    browser.go_to_step(6).await;
    browser.fill_by_label(NodePool::REPLICAS.label, "2").await;
    browser
        .by_id("tab-preview-nodepools-yaml")
        .await
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(Locator::Id("preview-nodepools-yaml"), |text| {
            text.contains("\n  replicas: 2\n")
        })
        .await;
    // The template limits GPUs; a static pool may limit only nodes.
    let limits = "f-karpenter-node-pools-0-spec-limits-findings";
    let findings = browser
        .wait_for_text(Locator::Id(limits), |text| !text.is_empty())
        .await;
    assert!(
        findings.contains("only 'limits.nodes' is supported on static NodePools"),
        "{findings}"
    );
    browser
        .fill_by_label(NodePool::LIMITS.label, "nodes=2")
        .await;
    browser
        .wait_for_text(Locator::Id(limits), str::is_empty)
        .await;
    // The controller's values turn the static-capacity gate on by themselves.
    browser
        .by_id("tab-preview-values-yaml")
        .await
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(Locator::Id("preview-values-yaml"), |text| {
            text.contains("staticCapacity: true")
        })
        .await;
    // A placement group by name, beside the class's reservation: a warning.
    browser
        .fill_by_label(Ec2NodeClass::PLACEMENT_GROUP_NAME.label, "training-pg")
        .await;
    let selector = "f-karpenter-node-classes-0-spec-placementgroupselector-findings";
    let findings = browser
        .wait_for_text(Locator::Id(selector), |text| !text.is_empty())
        .await;
    assert!(
        findings.contains("only if it was made in that placement group"),
        "{findings}"
    );
    // Both a name and an id: the CRD refuses it.
    browser
        .fill_by_label(
            Ec2NodeClass::PLACEMENT_GROUP_ID.label,
            "pg-0123456789abcdef0",
        )
        .await;
    browser
        .wait_for_text(Locator::Id(selector), |text| {
            text.contains("'name' and 'id' are mutually exclusive")
        })
        .await;
    browser
        .by_id("tab-preview-nodepools-yaml")
        .await
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(Locator::Id("preview-nodepools-yaml"), |text| {
            text.contains(
                "placementGroupSelector:\n    name: training-pg\n    id: pg-0123456789abcdef0",
            )
        })
        .await;
    browser.screenshot("karpenter-static-pool").await;
    browser.close().await;
}

#[tokio::test]
async fn a_node_class_gets_an_efa_device_per_network_card_that_its_pools_types_must_take() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("karpenter-reserved-training").await;
    browser.go_to_step(6).await;
    let label = "EFA devices, one per network card";
    // The template's p5.48xlarge class has an EFA device on each of its 32 cards.
    let efa = browser.field_by_label(label).await;
    assert_eq!(efa.prop("value").await.unwrap().as_deref(), Some("32"));
    let hint = browser
        .wait_for_text(
            Locator::XPath("//p[contains(., 'EFA device on each of cards')]"),
            |text| text.contains("p5.48xlarge, the fewest of this class's pools' types, has 32"),
        )
        .await;
    assert!(
        hint.starts_with("Blank: Karpenter's one network interface"),
        "{hint}"
    );
    // One more than the type has: the 33rd device is on a 33rd card, which p5 lacks, so
    // Karpenter launches none of the pool's types.
    browser.fill_by_label(label, "33").await;
    let requirements = "f-karpenter-node-pools-0-spec-template-spec-requirements-findings";
    browser
        .wait_for_text(Locator::Id(requirements), |text| {
            text.contains("an interface on network card 32, and p5.48xlarge has 32 cards")
        })
        .await;
    // Blank: no EFA device, so the p5 nodes would talk over TCP.
    browser.empty_by_label(label).await;
    let class_ref = "f-karpenter-node-pools-0-spec-template-spec-nodeclassref-name-findings";
    browser
        .wait_for_text(Locator::Id(class_ref), |text| {
            text.contains("gives its nodes no EFA device")
        })
        .await;
    browser
        .wait_for_text(Locator::Id(requirements), |text| {
            !text.contains("network interfaces")
        })
        .await;
    // Four: the primary interface and an EFA device on card 0, then cards 1 to 3.
    browser.fill_by_label(label, "4").await;
    browser
        .wait_for_text(Locator::Id(class_ref), |text| !text.contains("EFA device"))
        .await;
    browser
        .by_id("tab-preview-nodepools-yaml")
        .await
        .click()
        .await
        .unwrap();
    let preview = browser
        .wait_for_text(Locator::Id("preview-nodepools-yaml"), |text| {
            text.contains("networkInterfaces:")
        })
        .await;
    let layout = "  networkInterfaces:\n  - networkCardIndex: 0\n    deviceIndex: 0\n    interfaceType: interface\n  - networkCardIndex: 0\n    deviceIndex: 1\n    interfaceType: efa-only\n  - networkCardIndex: 1\n    deviceIndex: 0\n    interfaceType: efa-only\n";
    assert!(preview.contains(layout), "{preview}");
    assert!(preview.contains("networkCardIndex: 3"), "{preview}");
    assert!(!preview.contains("networkCardIndex: 4"), "{preview}");
    browser.screenshot("karpenter-efa-devices").await;
    browser.close().await;
}

#[tokio::test]
async fn a_storage_add_on_gets_its_iam_policy_and_needs_the_oidc_provider() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("p5-placement-group").await;
    browser.go_to_step(7).await;
    browser
        .by_id("f-addons-aws-fsx-csi-driver")
        .await
        .click()
        .await
        .unwrap();
    let policies = browser
        .field_by_label("IAM policy ARNs for aws-fsx-csi-driver")
        .await;
    assert_eq!(
        policies.prop("value").await.unwrap().as_deref(),
        Some("arn:aws:iam::aws:policy/AmazonFSxFullAccess")
    );
    browser
        .wait_for_text(Locator::Id("preview-cluster-yaml"), |text| {
            text.contains(
                "- name: aws-fsx-csi-driver\n  resolveConflicts: overwrite\n  attachPolicyARNs:\n  - arn:aws:iam::aws:policy/AmazonFSxFullAccess",
            )
        })
        .await;
    // Mountpoint's policy is one on the user's bucket: a placeholder to fill in.
    browser
        .by_id("f-addons-aws-mountpoint-s3-csi-driver")
        .await
        .click()
        .await
        .unwrap();
    let findings = browser
        .wait_for_text(
            Locator::Id("f-addons-1-attach-policy-arns-findings"),
            |text| !text.is_empty(),
        )
        .await;
    assert!(findings.contains("PLACEHOLDER_S3_POLICY_ARN"), "{findings}");
    browser
        .fill_by_label(
            "IAM policy ARNs for aws-mountpoint-s3-csi-driver",
            "arn:aws:iam::123456789012:policy/training-bucket",
        )
        .await;
    browser
        .wait_for_text(
            Locator::Id("f-addons-1-attach-policy-arns-findings"),
            str::is_empty,
        )
        .await;
    browser
        .wait_for_text(Locator::Id("preview-cluster-yaml"), |text| {
            text.contains("  - arn:aws:iam::123456789012:policy/training-bucket")
        })
        .await;
    let typed = browser
        .field_by_label("IAM policy ARNs for aws-mountpoint-s3-csi-driver")
        .await;
    assert_eq!(
        typed.prop("value").await.unwrap().as_deref(),
        Some("arn:aws:iam::123456789012:policy/training-bucket"),
        "the field keeps what was typed"
    );
    // Without the cluster's OIDC provider eksctl makes no role for them.
    browser.go_to_step(2).await;
    browser
        .field_by_label(ClusterSettings::WITH_OIDC.label)
        .await
        .click()
        .await
        .unwrap();
    browser.go_to_step(7).await;
    let findings = browser
        .wait_for_text(
            Locator::Id("f-addons-0-attach-policy-arns-findings"),
            |text| !text.is_empty(),
        )
        .await;
    assert!(findings.contains("OIDC provider is off"), "{findings}");
    // Said beside the field, not again in the step's own list.
    let step_list = browser
        .by_id("f-addons-findings")
        .await
        .text()
        .await
        .unwrap();
    assert!(!step_list.contains("OIDC provider is off"), "{step_list}");
    browser.screenshot("addons-storage-iam").await;

    // Through EKS Pod Identity instead: no OIDC provider needed. The FSx driver's
    // association goes on its add-on, Mountpoint's under iam, and the agent is installed.
    let how = browser
        .field_by_label("How aws-fsx-csi-driver gets its AWS role")
        .await;
    how.select_by_value("pod-identity").await.unwrap();
    browser
        .field_by_label("How aws-mountpoint-s3-csi-driver gets its AWS role")
        .await
        .select_by_value("pod-identity")
        .await
        .unwrap();
    let preview = browser
        .wait_for_text(Locator::Id("preview-cluster-yaml"), |text| {
            text.contains("- name: eks-pod-identity-agent")
                && text.contains("serviceAccountName: s3-csi-driver-sa")
        })
        .await;
    assert!(
        preview.contains(
            "- name: aws-fsx-csi-driver\n  resolveConflicts: overwrite\n  podIdentityAssociations:\n  - namespace: kube-system\n    serviceAccountName: fsx-csi-controller-sa\n    permissionPolicyARNs:\n    - arn:aws:iam::aws:policy/AmazonFSxFullAccess"
        ),
        "{preview}"
    );
    assert!(
        preview.contains(
            "iam:\n  podIdentityAssociations:\n  - namespace: kube-system\n    serviceAccountName: s3-csi-driver-sa\n    permissionPolicyARNs:\n    - arn:aws:iam::123456789012:policy/training-bucket"
        ),
        "{preview}"
    );
    let all = browser
        .wait_for_text(FINDINGS, |text| !text.contains("OIDC provider is off"))
        .await;
    assert!(!all.contains("pod identity associations need"), "{all}");
    // The policies moved with the driver, and stay editable where they now are.
    let fsx_policies = browser
        .field_by_label("IAM policy ARNs for aws-fsx-csi-driver")
        .await;
    assert_eq!(
        fsx_policies.prop("value").await.unwrap().as_deref(),
        Some("arn:aws:iam::aws:policy/AmazonFSxFullAccess")
    );
    browser.screenshot("addons-storage-pod-identity").await;
    browser.close().await;
}

#[tokio::test]
async fn imported_node_overlays_are_listed_and_written_back_with_their_feature_gate() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    let manifest = include_str!("../../shared/tests/data/manifests/karpenter-node-overlays.yaml");
    let result = browser.import_yaml(manifest).await;
    assert!(
        result.contains("1 NodePool(s), 1 EC2NodeClass(es) and 2 NodeOverlay(s)"),
        "{result}"
    );
    browser.go_to_step(6).await;
    let listed = browser
        .wait_for_text(Locator::Css("ul.overlays"), |text| !text.is_empty())
        .await;
    assert_eq!(
        listed,
        "g6e-savings-plan: price -15%; weight 10 (2 requirements)\nfuse-devices: capacity smarter-devices/fuse=1 (1 requirement)"
    );
    browser
        .by_id("tab-preview-nodepools-yaml")
        .await
        .click()
        .await
        .unwrap();
    let nodepools = browser
        .wait_for_text(Locator::Id("preview-nodepools-yaml"), |text| {
            text.contains("kind: NodeOverlay")
        })
        .await;
    assert_eq!(
        nodepools.matches("kind: NodeOverlay").count(),
        2,
        "{nodepools}"
    );
    assert!(nodepools.contains("priceAdjustment: -15%"), "{nodepools}");
    browser
        .by_id("tab-preview-values-yaml")
        .await
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(Locator::Id("preview-values-yaml"), |text| {
            text.contains("nodeOverlay: true")
        })
        .await;
    browser.screenshot("karpenter-node-overlays").await;
    browser.close().await;
}

#[tokio::test]
async fn an_ultraserver_group_names_its_arm_image_because_eksctl_does_not_know_the_type() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("p6e-gb200-ultraserver").await;
    browser.go_to_step(4).await;
    // The GPU group's (the system group, first, has none).
    let ami = browser.by_id("f-node-groups-1-extra-ami").await;
    assert_eq!(
        ami.prop("value").await.unwrap().as_deref(),
        Some("PLACEHOLDER_AMI_ID")
    );
    let beside = browser
        .wait_for_text(Locator::Id("f-node-groups-1-extra-ami-findings"), |text| {
            !text.is_empty()
        })
        .await;
    assert!(beside.contains("placeholder"), "{beside}");
    // Without its own image eksctl would pick an x86-64 AMI type for the arm64 type.
    ami.send_keys("\u{E009}a").await.unwrap();
    ami.send_keys("\u{E003}").await.unwrap();
    let refused = browser
        .wait_for_text(
            Locator::Id("f-node-groups-1-instance-type-findings"),
            |text| text.contains("x86-64 AMI type"),
        )
        .await;
    assert!(refused.contains("p6e-gb200.36xlarge"), "{refused}");
    browser
        .wait_for_text(PREVIEW, |text| !text.contains("ami: PLACEHOLDER_AMI_ID"))
        .await;
    browser
        .fill("f-node-groups-1-extra-ami", "ami-0123456789abcdef0")
        .await;
    browser
        .wait_for_text(
            Locator::Id("f-node-groups-1-instance-type-findings"),
            |text| !text.contains("x86-64 AMI type"),
        )
        .await;
    browser
        .wait_for_text(PREVIEW, |text| {
            text.contains("  ami: ami-0123456789abcdef0")
        })
        .await;
    browser.screenshot("ultraserver-group").await;
    browser.close().await;
}

#[tokio::test]
async fn a_node_overlay_is_added_edited_beside_its_findings_and_written_with_its_feature_gate() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("karpenter-spot-inference").await;
    browser.go_to_step(6).await;
    browser.click_button("Add NodeOverlay").await;
    let listed = browser
        .wait_for_text(Locator::Css("ul.overlays"), |text| !text.is_empty())
        .await;
    assert_eq!(listed, "overlay-1: price -10%; weight 10 (1 requirement)");
    browser
        .by_id("tab-preview-nodepools-yaml")
        .await
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(Locator::Id("preview-nodepools-yaml"), |text| {
            text.contains("kind: NodeOverlay") && text.contains("priceAdjustment: -10%")
        })
        .await;
    // A price as well as a price change: the CRD refuses both; said beside the overlay.
    browser
        .fill_by_label(NodeOverlay::PRICE.label, "1.50")
        .await;
    let beside = browser
        .wait_for_text(
            Locator::Id("f-karpenter-node-overlays-0-spec-findings"),
            |text| text.contains("cannot set both"),
        )
        .await;
    assert!(beside.contains("overlay-1"), "{beside}");
    browser
        .empty_by_label(NodeOverlay::PRICE_ADJUSTMENT.label)
        .await;
    browser
        .wait_for_text(
            Locator::Id("f-karpenter-node-overlays-0-spec-findings"),
            str::is_empty,
        )
        .await;
    browser
        .wait_for_text(Locator::Id("preview-nodepools-yaml"), |text| {
            text.contains("1.50") && !text.contains("priceAdjustment")
        })
        .await;
    browser.screenshot("node-overlay-editor").await;
    browser.click_button("Remove NodeOverlay 1").await;
    browser
        .wait_for_text(Locator::Id("preview-nodepools-yaml"), |text| {
            !text.contains("kind: NodeOverlay")
        })
        .await;
    browser.close().await;
}

#[tokio::test]
async fn auto_mode_pools_are_edited_previewed_and_refused_without_auto_mode() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("auto-mode-reserved-training").await;
    browser.go_to_step(2).await;
    let pool = "f-auto-mode-pools-node-pools-0";
    let class = "f-auto-mode-pools-node-classes-0";
    let reservations = format!("{class}-spec-capacityreservationselectorterms");
    let typed = browser
        .wait_for_element(&reservations)
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default();
    assert_eq!(typed, "PLACEHOLDER_CAPACITY_RESERVATION_ID");
    let class_name = browser
        .by_id(&format!("{pool}-spec-template-spec-nodeclassref-name"))
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default();
    assert_eq!(class_name, "reserved");
    // The pool says what it can launch, read with Auto Mode's labels.
    let types = browser
        .wait_for_text(Locator::Css("p.pool-types"), |text| !text.is_empty())
        .await;
    assert_eq!(types, "1 instance type can launch: p5.48xlarge");
    // The findings list sends the class's placeholders to this step, where they are edited.
    let listed = browser
        .wait_for_text(Locator::Css(".findings-panel"), |text| {
            text.contains("Auto Mode NodeClass reserved")
        })
        .await;
    assert!(
        listed.contains("Cluster · Auto Mode NodeClass reserved"),
        "{listed}"
    );

    // The reservation typed into the NodeClass reaches its file.
    browser.fill(&reservations, "cr-0123456789abcdef0").await;
    browser
        .by_id("tab-preview-auto-mode-yaml")
        .await
        .click()
        .await
        .unwrap();
    let file = browser
        .wait_for_text(Locator::Id("preview-auto-mode-yaml"), |text| {
            text.contains("cr-0123456789abcdef0")
        })
        .await;
    assert!(file.contains("group: eks.amazonaws.com"), "{file}");
    assert!(
        !file.contains("PLACEHOLDER_CAPACITY_RESERVATION_ID"),
        "{file}"
    );

    // A requirement on Karpenter's label is said beside its key: Auto Mode has its own.
    browser.click_button("Add requirement").await;
    let key = format!("{pool}-spec-template-spec-requirements-2-key");
    browser
        .fill(&key, "karpenter.k8s.aws/instance-family")
        .await;
    let said = browser
        .wait_for_text(Locator::Id(&format!("{key}-findings")), |text| {
            text.contains("eks.amazonaws.com/instance-family")
        })
        .await;
    assert!(said.contains("NodePool p5-reserved"), "{said}");
    browser
        .fill(&key, "eks.amazonaws.com/instance-family")
        .await;
    browser
        .wait_for_text(Locator::Id(&format!("{key}-findings")), |text| {
            text.is_empty()
        })
        .await;

    // A pool and a class are added, and the new pool names the design's first class.
    browser.click_button("Add Auto Mode NodeClass").await;
    browser.click_button("Add Auto Mode NodePool").await;
    let file = browser
        .wait_for_text(Locator::Id("preview-auto-mode-yaml"), |text| {
            text.contains("name: auto-gpu-2") && text.contains("name: class-2")
        })
        .await;
    assert!(
        file.contains("eks.amazonaws.com/instance-category"),
        "{file}"
    );
    browser.screenshot("auto-mode-pools").await;
    browser.click_button("Remove NodePool 2").await;
    browser.click_button("Remove NodeClass 2").await;
    browser
        .wait_for_text(Locator::Id("preview-auto-mode-yaml"), |text| {
            !text.contains("auto-gpu-2") && !text.contains("class-2")
        })
        .await;

    // Without Auto Mode the cluster has no NodeClass kind to apply them to.
    browser
        .field_by_label("EKS Auto Mode (AWS launches and runs the nodes)")
        .await
        .click()
        .await
        .unwrap();
    let refused = browser
        .wait_for_text(Locator::Id("f-auto-mode-pools-findings"), |text| {
            text.contains("Auto Mode is off")
        })
        .await;
    assert!(refused.contains("1 Auto Mode NodePool(s)"), "{refused}");

    // The file is edited in place: the reservation typed into the NodeClass's text reaches
    // the form.
    browser.click_button("Edit auto-mode/nodepools.yaml").await;
    let token = "cr-0123456789abcdef0";
    browser
        .eval(
            "const area = document.getElementById('preview-editor');
             const end = area.value.indexOf(arguments[0]) + arguments[0].length;
             area.setSelectionRange(end, end);",
            vec![token.into()],
        )
        .await;
    let editor = browser.by_id("preview-editor").await;
    editor
        .send_keys(&format!(
            "{}cr-0fedcba9876543210",
            "\u{E003}".repeat(token.len())
        ))
        .await
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    loop {
        let value = browser
            .by_id(&reservations)
            .await
            .prop("value")
            .await
            .unwrap()
            .unwrap_or_default();
        if value == "cr-0fedcba9876543210" {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the form shows {value:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    browser.close().await;
}

#[tokio::test]
async fn access_entries_are_edited_in_the_cluster_step_and_auto_mode_roles_find_theirs() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("auto-mode-reserved-training").await;
    browser.go_to_step(2).await;
    // A NodeClass with a node role of its own needs an EC2 access entry for it.
    let role = "f-auto-mode-pools-node-classes-0-spec-role";
    browser.fill(role, "GpuNodeRole").await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let all = browser
        .by_id("findings-list")
        .await
        .text()
        .await
        .unwrap_or_default();
    let value = browser.by_id(role).await.prop("value").await.unwrap();
    eprintln!("DEBUG value={value:?} findings={all}");
    browser
        .wait_for_text(Locator::Id(&format!("{role}-findings")), |text| {
            text.contains("has no access entry here")
        })
        .await;

    browser.click_button("Add access entry").await;
    let entry = "f-cluster-access-access-entries-0";
    browser
        .fill(
            &format!("{entry}-principal-arn"),
            "arn:aws:iam::111122223333:role/GpuNodeRole",
        )
        .await;
    // The entry the page adds is an admin's; as a STANDARD entry it lets no node in.
    browser
        .wait_for_text(Locator::Id(&format!("{role}-findings")), |text| {
            text.contains("of type STANDARD, not EC2")
        })
        .await;
    select(&browser, &format!("{entry}-entry-type"), "EC2").await;
    browser
        .fill(
            &format!("{entry}-access-policies-0-policy-arn"),
            "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy",
        )
        .await;
    browser
        .wait_for_text(Locator::Id(&format!("{role}-findings")), |text| {
            text.is_empty()
        })
        .await;
    let preview = browser
        .wait_for_text(PREVIEW, |text| text.contains("AmazonEKSAutoNodePolicy"))
        .await;
    assert!(
        preview.contains("principalARN: arn:aws:iam::111122223333:role/GpuNodeRole"),
        "{preview}"
    );
    assert!(preview.contains("type: EC2"), "{preview}");

    // eksctl's checks, beside their fields: CONFIG_MAP takes no access entries, and a node
    // entry type takes no access policies.
    select(
        &browser,
        "f-cluster-access-authentication-mode",
        "CONFIG_MAP",
    )
    .await;
    browser
        .wait_for_text(
            Locator::Id("f-cluster-access-authentication-mode-findings"),
            |text| text.contains("access entries need authenticationMode"),
        )
        .await;
    select(&browser, &format!("{entry}-entry-type"), "EC2_LINUX").await;
    browser
        .wait_for_text(
            Locator::Id(&format!("{entry}-access-policies-findings")),
            |text| {
                text.contains(
                    "accessPolicies cannot be given for an access entry of type EC2_LINUX",
                )
            },
        )
        .await;
    browser.screenshot("access-entries").await;
    browser.close().await;
}

/// Names and keys the rules quote with backticks read as code, not as literal backticks.
#[tokio::test]
async fn backticked_names_in_findings_are_code() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("g4dn-vpc").await;
    browser.go_to_step(1).await;
    let findings = browser
        .wait_for_text(FINDINGS, |text| text.contains("PLACEHOLDER_"))
        .await;
    assert!(!findings.contains('`'), "{findings}");
    let code = browser
        .client
        .find(Locator::XPath(
            "//div[@id='findings-list']//span[@class='message']/code[starts-with(., 'PLACEHOLDER_')]",
        ))
        .await
        .expect("a placeholder's name is code")
        .text()
        .await
        .unwrap();
    assert!(code.starts_with("PLACEHOLDER_"), "{code}");
    browser.screenshot("findings-code-1280").await;
    browser.close().await;
}

#[tokio::test]
async fn turning_karpenter_on_offers_pool_presets_instead_of_a_catch_all_pool() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("p5-odcr-vpc").await;
    browser.go_to_step(6).await;
    browser.by_id("f-karpenter").await.click().await.unwrap();
    // On, with no pool yet: said so, and the presets are offered.
    browser
        .wait_for_text(Locator::Id("f-karpenter-node-pools-findings"), |text| {
            text.contains("Karpenter is on but has no NodePool, so it launches no node")
        })
        .await;
    browser.screenshot("karpenter-presets-offered").await;
    browser.click_button("Add reserved GPU training pool").await;
    let summary = Locator::Css(".pool-types summary");
    browser
        .wait_for_text(summary, |text| text == "1 instance type can launch: p5")
        .await;
    let name = browser
        .by_id("f-karpenter-node-pools-0-metadata-name")
        .await
        .prop("value")
        .await
        .unwrap();
    assert_eq!(name.as_deref(), Some("gpu-training-reserved"));
    browser.click_button("Add Spot GPU inference pool").await;
    browser
        .click_button("Add on-demand general-purpose pool")
        .await;
    let summaries = browser.client.find_all(summary).await.unwrap();
    assert_eq!(summaries.len(), 3);
    // The general-purpose pool launches recent c, m and r types on amd64 only.
    let general = summaries[2].text().await.unwrap();
    assert!(
        general.contains("instance types can launch: c6a, c6i"),
        "{general}"
    );
    for old_or_arm in ["c5", "m5", "m4", "c6g", "m7g", "g3", "p3"] {
        assert!(
            !general.split([' ', ',']).any(|family| family == old_or_arm),
            "{general}"
        );
    }
    browser.screenshot("karpenter-presets-added").await;
    browser.client.set_window_size(390, 844).await.unwrap();
    browser
        .eval(
            "document.querySelector('.pool-presets').scrollIntoView({block: 'start'})",
            Vec::new(),
        )
        .await;
    browser.screenshot("karpenter-presets-390").await;
    browser.close().await;
}

/// The Karpenter release is a choice: the older long-term-support line is written into the
/// design, and what came after it (Balanced consolidation, 1.14) is an error at its field
/// naming the release that brought it, gone again on the newer release.
#[tokio::test]
async fn the_karpenter_release_is_a_choice_and_what_came_after_it_is_an_error_at_its_field() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("karpenter-spot-inference").await;
    browser.go_to_step(6).await;
    let release = "f-karpenter-release";
    let chosen = browser.by_id(release).await.prop("value").await.unwrap();
    assert_eq!(chosen.as_deref(), Some("1.14"));
    select(&browser, release, "1.9").await;
    browser
        .by_id("tab-preview-studio-json")
        .await
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(Locator::Id("preview-studio-json"), |text| {
            text.contains("\"release\": \"1.9\"")
        })
        .await;
    let policy = "f-karpenter-node-pools-0-spec-disruption-consolidationpolicy";
    browser.wait_for_element(policy).await;
    select(&browser, policy, "Balanced").await;
    browser
        .wait_for_text(Locator::Id(&format!("{policy}-findings")), |text| {
            text.contains("Balanced came with Karpenter 1.14")
                && text.contains("CRD of 1.9.2 does not allow it")
        })
        .await;
    browser
        .eval(
            &format!("document.getElementById('{release}').scrollIntoView({{block: 'center'}})"),
            Vec::new(),
        )
        .await;
    browser.screenshot("karpenter-release-1-9").await;
    browser.client.set_window_size(390, 844).await.unwrap();
    browser
        .eval(
            &format!("document.getElementById('{policy}').scrollIntoView({{block: 'center'}})"),
            Vec::new(),
        )
        .await;
    browser.screenshot("karpenter-release-1-9-390").await;
    browser.client.set_window_size(1280, 900).await.unwrap();
    select(&browser, release, "1.14").await;
    browser
        .wait_for_text(Locator::Id(&format!("{policy}-findings")), |text| {
            !text.contains("came with Karpenter")
        })
        .await;
    browser.close().await;
}

#[tokio::test]
async fn a_new_vpcs_cidr_block_is_a_field_judged_as_eksctl_reads_it() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("g4dn").await;
    browser.go_to_step(3).await;
    let cidr = "f-eksctl-extra-vpc-cidr";
    browser.fill(cidr, "10.0.0.0/12").await;
    browser
        .wait_for_text(Locator::Id(&format!("{cidr}-findings")), |text| {
            text.contains("VPC CIDR prefix must be between /16 and /24")
        })
        .await;
    browser.fill(cidr, "10.10.0.0/16").await;
    browser
        .wait_for_text(Locator::Id("preview-cluster-yaml"), |text| {
            text.contains("vpc:") && text.contains("cidr: 10.10.0.0/16")
        })
        .await;
    let findings = text_of(&browser, &format!("{cidr}-findings")).await;
    assert_eq!(findings, "");
    browser.screenshot("network-vpc-cidr").await;
    browser.close().await;
}

#[tokio::test]
async fn a_design_too_large_is_refused_at_import_and_one_the_browser_cannot_keep_says_so() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("p5-odcr-vpc").await;
    browser.go_to_step(1).await;
    // 301 node groups: far beyond EKS's 30; refused before it replaces the design.
    let mut huge = String::from(
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: huge\n  region: us-east-1\n  version: \"1.35\"\nmanagedNodeGroups:\n",
    );
    for index in 0..301 {
        huge.push_str(&format!(
            "  - name: group-{index}\n    instanceType: m5.large\n"
        ));
    }
    browser
        .eval(
            "const area = document.getElementById('import-text'); area.value = arguments[0]; area.dispatchEvent(new Event('input', {bubbles: true}));",
            vec![serde_json::Value::String(huge)],
        )
        .await;
    browser.by_id("import-button").await.click().await.unwrap();
    let result = browser
        .wait_for_text(Locator::Id("import-result"), |text| !text.is_empty())
        .await;
    assert!(
        result.contains("Not imported: the design has 301 node groups; EKS allows 30 managed node groups per cluster")
            && result.contains("The current design was kept."),
        "{result}"
    );
    browser.go_to_step(2).await;
    let name = browser
        .field_by_label("Cluster name")
        .await
        .prop("value")
        .await
        .unwrap();
    assert_eq!(name.as_deref(), Some("eks-p5-odcr-vpc"));
    // The browser's storage filled by something else: the next edit cannot be kept, and
    // the page says so instead of promising it comes back.
    browser
        .eval(
            "let index = 0; for (const size of [262144, 16384, 1024, 64, 1]) { const chunk = 'x'.repeat(size); try { while (index < 100000) { localStorage.setItem('filler-' + index, chunk); index++; } } catch (e) {} } return index;",
            Vec::new(),
        )
        .await;
    // A new group makes the design larger than what is left.
    browser.go_to_step(4).await;
    browser.click_button("Add GPU group").await;
    browser.go_to_step(1).await;
    browser
        .wait_for_text(Locator::Id("autosave-status"), |text| {
            text.starts_with("Not saved: the browser refused to keep the design (")
        })
        .await;
    // Said where the user is, too, whatever the step.
    browser
        .wait_for_text(Locator::Id("save-failed"), |text| {
            text == "Not saved in this browser"
        })
        .await;
    browser.eval("window.scrollTo(0, 0)", Vec::new()).await;
    browser.screenshot("autosave-refused").await;
    // Room again: the next edit is kept and the promise comes back.
    browser
        .eval(
            "Object.keys(localStorage).filter(key => key.startsWith('filler-')).forEach(key => localStorage.removeItem(key));",
            Vec::new(),
        )
        .await;
    browser.go_to_step(2).await;
    browser
        .fill_by_label("Cluster name", "eks-room-again")
        .await;
    browser.go_to_step(1).await;
    browser
        .wait_for_text(Locator::Id("autosave-status"), |text| {
            text.starts_with("Your work is saved in this browser as you type")
        })
        .await;
    assert!(
        browser
            .client
            .find(Locator::Id("save-failed"))
            .await
            .is_err()
    );
    browser.close().await;
}
