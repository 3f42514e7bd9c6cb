//! The whole wizard in headless Chromium against the real server: findings that come and
//! go as fields are filled, import, drafts, share links and the bundle download.

mod wizard_support;

use wizard_support::*;

use std::time::{Duration, Instant};

use fantoccini::Locator;
use serde_json::json;
use shared::model::spec::{ClusterSettings, FsxVolume, Network, NodeGroup, S3Volume, Spec};
use shared::upstream::karpenter::Ec2NodeClass;
use studio_e2e::ec2_emulator::{self, Ec2Emulator};
use studio_e2e::{Browser, Studio};

#[tokio::test]
async fn filling_the_p5_capacity_block_placeholders_clears_its_errors() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("p5-capacity-block").await;
    browser.screenshot("step-1-start").await;
    assert!(
        step_errors(&browser, 2).await >= 1,
        "the region is a placeholder"
    );
    assert!(
        step_errors(&browser, 3).await >= 5,
        "VPC and subnets are placeholders"
    );
    assert!(
        step_errors(&browser, 5).await >= 1,
        "the reservation id is a placeholder"
    );

    browser.go_to_step(2).await;
    let region_findings = text_of(&browser, "f-cluster-region-findings").await;
    assert!(
        region_findings.contains("PLACEHOLDER_AWS_REGION"),
        "{region_findings}"
    );
    browser
        .fill_by_label(ClusterSettings::REGION.label, "us-east-1")
        .await;
    browser
        .wait_for_text(Locator::Id("f-cluster-region-findings"), str::is_empty)
        .await;
    // The seed's 1.32 has left EKS standard support (by the browser's clock); the newest
    // version in standard support clears it.
    let version_findings = text_of(&browser, "f-cluster-kubernetes-version-findings").await;
    assert!(
        version_findings.contains("Kubernetes 1.32"),
        "{version_findings}"
    );
    browser
        .fill_by_label(ClusterSettings::KUBERNETES_VERSION.label, "1.35")
        .await;
    browser
        .wait_for_text(
            Locator::Id("f-cluster-kubernetes-version-findings"),
            str::is_empty,
        )
        .await;
    browser.screenshot("step-2-cluster").await;

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
    browser.screenshot("step-3-network").await;
    assert_eq!(step_errors(&browser, 3).await, 0);

    browser.go_to_step(4).await;
    browser.screenshot("step-4-node-groups").await;

    browser.go_to_step(5).await;
    browser
        .fill_by_label(NodeGroup::RESERVATION_ID.label, "cr-0123456789abcdef0")
        .await;
    // The EFA group should be pinned to the zone its reservation lives in: eksctl would
    // spread it over every subnet whose zone offers the type.
    let placement_findings = text_of(&browser, "f-node-groups-0-placement-findings").await;
    assert!(
        placement_findings.contains("names no subnet or zone"),
        "{placement_findings}"
    );
    select(&browser, "f-node-groups-0-placement", "availability-zones").await;
    browser
        .fill_by_label(NodeGroup::PLACEMENT_ZONES.label, "us-east-1a")
        .await;
    browser
        .wait_for_text(
            Locator::Id("f-node-groups-0-placement-findings"),
            str::is_empty,
        )
        .await;
    browser.screenshot("step-5-capacity").await;

    browser.go_to_step(6).await;
    browser.screenshot("step-6-karpenter").await;
    browser.go_to_step(7).await;
    browser.screenshot("step-7-addons").await;
    browser.go_to_step(8).await;
    let findings = browser
        .wait_for_text(FINDINGS, |text| !text.contains("Errors ("))
        .await;
    assert!(findings.contains("Warnings (1)"), "{findings}");
    for step in 1..=8 {
        assert_eq!(step_errors(&browser, step).await, 0, "step {step}");
    }
    let preview = browser
        .wait_for_text(PREVIEW, |text| {
            text.contains("capacityReservationID: cr-0123456789abcdef0")
        })
        .await;
    assert!(preview.contains("- us-east-1a"), "{preview}");
    browser.screenshot("step-8-review").await;
    browser.close().await;
}

#[tokio::test]
async fn an_instance_type_without_efa_is_flagged_next_to_the_field() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("p5-capacity-block").await;
    browser.go_to_step(4).await;
    assert_eq!(
        text_of(&browser, "f-node-groups-0-instance-type-findings").await,
        ""
    );
    browser
        .fill_by_label(NodeGroup::INSTANCE_TYPE.label, "g5.xlarge")
        .await;
    let findings = browser
        .wait_for_text(
            Locator::Id("f-node-groups-0-instance-type-findings"),
            |text| text.contains("EFA"),
        )
        .await;
    assert!(findings.contains("g5.xlarge"), "{findings}");
    let invalid = browser
        .field_by_label(NodeGroup::INSTANCE_TYPE.label)
        .await
        .attr("aria-invalid")
        .await
        .unwrap();
    assert_eq!(invalid.as_deref(), Some("true"));

    // The catalog picker finds an EFA type and puts it into the field.
    browser.click_button("Choose from the catalog").await;
    browser.fill_by_label("Search instance types", "p4de").await;
    browser.by_id("picker-0-efa").await.click().await.unwrap();
    browser.screenshot("step-4-instance-picker").await;
    browser
        .client
        .find(Locator::Css("button[aria-label='Use p4de.24xlarge']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(
            Locator::Id("f-node-groups-0-instance-type-findings"),
            |text| !text.contains("EFA"),
        )
        .await;
    let value = browser
        .field_by_label(NodeGroup::INSTANCE_TYPE.label)
        .await
        .prop("value")
        .await
        .unwrap();
    assert_eq!(value.as_deref(), Some("p4de.24xlarge"));
    browser.close().await;
}

/// Types EC2 no longer offers everywhere, sizes no table describes yet and the Mac types
/// are known to the page: each gets what is true of it, not "not in the catalog".
#[tokio::test]
async fn older_newer_and_mac_types_are_known_beside_the_field() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("p5-capacity-block").await;
    browser.go_to_step(4).await;
    let summary = |wanted: &'static str| {
        let browser = &browser;
        async move {
            browser
                .wait_for_text(Locator::Css(".instance-type .instance-summary"), |text| {
                    text.contains(wanted)
                })
                .await
        }
    };

    browser
        .fill_by_label(NodeGroup::INSTANCE_TYPE.label, "p3.8xlarge")
        .await;
    let line = summary("V100").await;
    assert!(
        line.contains("32 vCPU") && line.contains("4 × V100"),
        "{line}"
    );
    let findings = browser
        .wait_for_text(
            Locator::Id("f-node-groups-0-instance-type-findings"),
            |text| text.contains("eksctl does not list p3.8xlarge"),
        )
        .await;
    assert!(!findings.contains("not in the catalog"), "{findings}");

    browser
        .fill_by_label(NodeGroup::INSTANCE_TYPE.label, "c8g-flex.large")
        .await;
    let line = summary("not known").await;
    assert!(
        line.contains("vCPUs not known") && line.contains("memory not known"),
        "{line}"
    );
    browser.screenshot("instance-type-sizes-not-known").await;

    browser
        .fill_by_label(NodeGroup::INSTANCE_TYPE.label, "mac2.metal")
        .await;
    let findings = browser
        .wait_for_text(
            Locator::Id("f-node-groups-0-instance-type-findings"),
            |text| text.contains("EC2 Mac instance"),
        )
        .await;
    assert!(findings.contains("mac2.metal"), "{findings}");
    browser.close().await;
}

/// A Capacity Block's window, typed as bought: a block that starts later tells the group
/// to start at 0 and what to run at its start, a checkpoint interval longer than the block
/// is a warning at its field, and the bundle's README says when to run what.
#[tokio::test]
async fn a_capacity_blocks_window_says_when_to_scale_and_what_the_run_risks() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("p5-capacity-block").await;
    browser.go_to_step(5).await;
    browser
        .fill("f-node-groups-0-block-window-starts", "2027-06-01 11:30")
        .await;
    browser
        .fill("f-node-groups-0-block-window-ends", "2027-06-02 11:30")
        .await;
    browser
        .fill("f-node-groups-0-block-window-checkpoint-minutes", "1440")
        .await;
    browser
        .wait_for_text(
            Locator::Id("f-node-groups-0-block-window-checkpoint-minutes-findings"),
            |text| text.contains("1410 usable minutes"),
        )
        .await;
    browser
        .fill("f-node-groups-0-block-window-needed-until", "2027-06-03")
        .await;
    browser
        .wait_for_text(
            Locator::Id("f-node-groups-0-block-window-needed-until-findings"),
            |text| text.contains("EC2 begins ending its instances at 2027-06-02 11:00 UTC"),
        )
        .await;
    browser
        .eval(
            "document.getElementById('f-node-groups-0-block-window-starts').scrollIntoView({block: 'start'})",
            Vec::new(),
        )
        .await;
    browser.screenshot("capacity-block-window").await;
    browser.client.set_window_size(390, 844).await.unwrap();
    browser
        .eval(
            "document.getElementById('f-node-groups-0-block-window-starts').scrollIntoView({block: 'start'})",
            Vec::new(),
        )
        .await;
    browser.screenshot("capacity-block-window-390").await;
    browser.client.set_window_size(1280, 900).await.unwrap();
    browser.go_to_step(4).await;
    let waiting = browser
        .wait_for_text(
            Locator::Id("f-node-groups-0-desired-capacity-findings"),
            |text| text.contains("starts 2027-06-01 11:30 UTC (as the design says)"),
        )
        .await;
    assert!(waiting.contains("eksctl scale nodegroup"), "{waiting}");
    browser.close().await;
}

#[tokio::test]
async fn a_capacity_block_without_a_reservation_id_is_an_error() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("g4dn").await;
    browser.go_to_step(5).await;
    select(&browser, "f-node-groups-0-capacity", "capacity-block").await;
    let reservation = browser
        .field_by_label(NodeGroup::RESERVATION_ID.label)
        .await;
    assert_eq!(
        reservation.prop("value").await.unwrap().as_deref(),
        Some("")
    );
    let findings = browser
        .wait_for_text(
            Locator::Id("f-node-groups-0-capacity-reservation-id-findings"),
            |text| !text.is_empty(),
        )
        .await;
    assert!(
        findings.to_lowercase().contains("reservation"),
        "{findings}"
    );
    // Clicking the finding in the panel focuses the field.
    browser.go_to_step(1).await;
    browser
        .client
        .find(Locator::XPath(
            "//div[@id='findings-list']//button[.//span[contains(., 'Capacity reservation ID')]][@data-path='node_groups[0].capacity.reservation_id']",
        ))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let focused = browser
            .eval(
                "return document.activeElement && document.activeElement.id;",
                vec![],
            )
            .await;
        if focused == "f-node-groups-0-capacity-reservation-id" {
            break;
        }
        assert!(Instant::now() < deadline, "focus went to {focused}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    browser.close().await;
}

#[tokio::test]
async fn pasting_a_seed_manifest_fills_the_wizard() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    let seed = include_str!("../../shared/tests/data/seeds/eks-g4dn-vpc.yaml");
    let result = browser.import_yaml(seed).await;
    assert!(result.starts_with("Imported cluster"), "{result}");
    browser.go_to_step(2).await;
    let name = browser.field_by_label(ClusterSettings::NAME.label).await;
    assert_eq!(
        name.prop("value").await.unwrap().as_deref(),
        Some("eks-g4dn-vpc")
    );
    browser.go_to_step(4).await;
    // The seed's first group is the CPU system group; the second is the g4dn group.
    let instance_type = browser.by_id("f-node-groups-1-instance-type").await;
    assert_eq!(
        instance_type.prop("value").await.unwrap().as_deref(),
        Some("g4dn.8xlarge")
    );
    browser.go_to_step(3).await;
    let vpc = browser.field_by_label(Network::VPC_ID.label).await;
    assert_eq!(
        vpc.prop("value").await.unwrap().as_deref(),
        Some("PLACEHOLDER_VPC_ID")
    );

    // A broken file says where it is broken.
    browser.go_to_step(1).await;
    let text = browser.field_by_label("YAML to import").await;
    text.clear().await.unwrap();
    text.send_keys(
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: a: b\n",
    )
    .await
    .unwrap();
    browser.by_id("import-button").await.click().await.unwrap();
    let result = browser
        .wait_for_text(Locator::Id("import-result"), |text| {
            text.starts_with("YAML error")
        })
        .await;
    assert!(
        result.starts_with("YAML error at line 4, column "),
        "{result}"
    );
    // The import box numbers its lines and marks the one in error; the result goes there.
    let marked = browser
        .client
        .find(Locator::Css(".import .gutter .flag-error"))
        .await
        .expect("the error's line is marked");
    assert_eq!(marked.text().await.unwrap(), "4");
    browser.click_button("Go to line 4").await;
    let caret = browser
        .eval(
            "const area = document.activeElement;
             return [area.id, area.value.slice(0, area.selectionStart).split('\\n').length];",
            vec![],
        )
        .await;
    assert_eq!(caret, serde_json::json!(["import-text", 4]));
    browser.close().await;
}

#[tokio::test]
async fn download_bundle_saves_a_zip_with_every_file() {
    let studio = Studio::start();
    let download_dir =
        std::env::temp_dir().join(format!("eks-studio-e2e-downloads-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&download_dir);
    std::fs::create_dir_all(&download_dir).unwrap();
    let browser = Browser::start_with_downloads(&download_dir).await;
    browser.open(&studio).await;
    browser.choose_template("karpenter-reserved-training").await;
    browser.go_to_step(8).await;
    browser.click_button("Download bundle").await;
    // The server builds the bundle; the status says so until it has arrived.
    let status = browser
        .wait_for_text(Locator::Id("download-status"), |text| {
            !text.is_empty() && !text.starts_with("Building")
        })
        .await;
    assert!(
        status.starts_with("Downloaded eks-p5-training.zip (11 files)"),
        "{status}"
    );
    let zip_path = download_dir.join("eks-p5-training.zip");
    let deadline = Instant::now() + Duration::from_secs(15);
    while !zip_path.exists() {
        assert!(
            Instant::now() < deadline,
            "no download in {}",
            download_dir.display()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Chromium writes a .crdownload first and renames it when done.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let bytes = std::fs::read(&zip_path).unwrap();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut names: Vec<String> = archive
        .file_names()
        .map(|name| name.unwrap().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "README.md",
            "cluster.yaml",
            "deploy.sh",
            "karpenter/cloudformation.yaml",
            "karpenter/cluster-access.yaml",
            "karpenter/nodepools.yaml",
            "karpenter/values.yaml",
            "plugins/aws-efa-k8s-device-plugin.yaml",
            "plugins/nvidia-device-plugin.yaml",
            "studio.json",
            "teardown.sh"
        ]
    );
    let mut cluster_yaml = String::new();
    std::io::Read::read_to_string(
        &mut archive.by_name("cluster.yaml").unwrap(),
        &mut cluster_yaml,
    )
    .unwrap();
    assert!(
        cluster_yaml.contains("name: eks-p5-training"),
        "{cluster_yaml}"
    );
    browser.close().await;
    let _ = std::fs::remove_dir_all(&download_dir);
}

#[tokio::test]
async fn the_work_survives_a_reload_and_named_drafts_are_kept() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.go_to_step(2).await;
    browser
        .fill_by_label(ClusterSettings::NAME.label, "reloaded-cluster")
        .await;
    browser
        .wait_for_text(PREVIEW, |text| text.contains("name: reloaded-cluster"))
        .await;
    browser.go_to_step(1).await;
    // A first visit has no drafts: their panel is shut, and opening it loads its code.
    let summary = browser.by_id("open-drafts").await;
    let before = browser
        .client
        .find_all(Locator::Id("draft-name"))
        .await
        .unwrap();
    assert!(
        before.is_empty(),
        "the drafts' form is drawn only once opened"
    );
    summary.click().await.unwrap();
    browser.wait_for_element("draft-name").await;
    browser.client.set_window_size(1280, 900).await.unwrap();
    browser.screenshot("drafts-opened-1280").await;
    browser.client.set_window_size(390, 844).await.unwrap();
    browser
        .eval(
            "document.getElementById('open-drafts').scrollIntoView()",
            vec![],
        )
        .await;
    browser.screenshot("drafts-opened-390").await;
    browser.client.set_window_size(1280, 900).await.unwrap();
    browser.fill_by_label("Draft name", "my first draft").await;
    browser.click_button("Save as draft").await;
    browser.go_to_step(3).await;
    // Autosave waits for a pause in typing.
    tokio::time::sleep(Duration::from_millis(600)).await;

    browser.client.refresh().await.unwrap();
    browser
        .wait_for_text(PREVIEW, |text| text.contains("name: reloaded-cluster"))
        .await;
    // The work comes back on the step it was on.
    browser.wait_for_element("step-title-3").await;
    browser.go_to_step(1).await;
    let drafts = browser
        .wait_for_text(Locator::Id("draft-list"), |text| {
            text.contains("my first draft")
        })
        .await;
    assert!(
        drafts.contains("cluster `reloaded-cluster` in PLACEHOLDER_AWS_REGION, saved 20"),
        "a draft says what it is: {drafts}"
    );

    // Replacing edited work asks first, and Undo brings it back.
    browser.choose_template("g4dn").await;
    let question = browser
        .wait_for_text(Locator::Id("replace-text"), |text| !text.is_empty())
        .await;
    assert!(
        question.starts_with("Replace your design (cluster `reloaded-cluster`")
            && question.contains("with the template"),
        "{question}"
    );
    browser.by_id("replace-yes").await.click().await.unwrap();
    browser
        .wait_for_text(PREVIEW, |text| text.contains("name: eks-g4dn"))
        .await;
    browser.by_id("undo").await.click().await.unwrap();
    browser
        .wait_for_text(PREVIEW, |text| text.contains("name: reloaded-cluster"))
        .await;
    browser.by_id("redo").await.click().await.unwrap();
    browser
        .wait_for_text(PREVIEW, |text| text.contains("name: eks-g4dn"))
        .await;
    browser
        .client
        .find(Locator::Css(
            "button[aria-label='Open draft my first draft']",
        ))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(PREVIEW, |text| text.contains("name: reloaded-cluster"))
        .await;
    browser.close().await;
}

#[tokio::test]
async fn a_share_link_opens_the_same_spec_in_a_fresh_profile() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("karpenter-spot-inference").await;
    browser.go_to_step(2).await;
    browser
        .fill_by_label(ClusterSettings::NAME.label, "shared-by-link")
        .await;
    browser
        .by_id("tab-preview-studio-json")
        .await
        .click()
        .await
        .unwrap();
    let original = browser
        .wait_for_text(Locator::Id("preview-studio-json"), |text| {
            text.contains("shared-by-link")
        })
        .await;
    browser.click_button("Copy share link").await;
    let link = browser
        .wait_for_element("share-link")
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(link.contains("#spec="), "{link}");
    browser.close().await;

    let fresh = Browser::start().await;
    fresh.client.goto(&link).await.unwrap();
    fresh
        .wait_for_text(PREVIEW, |text| text.contains("name: shared-by-link"))
        .await;
    fresh
        .by_id("tab-preview-studio-json")
        .await
        .click()
        .await
        .unwrap();
    let opened = fresh
        .wait_for_text(Locator::Id("preview-studio-json"), |text| {
            text.contains("shared-by-link")
        })
        .await;
    assert_eq!(opened, original);
    fresh
        .wait_for_text(Locator::Id("share-status"), |text| {
            text == "Opened the design from the share link."
        })
        .await;
    let url = fresh.client.current_url().await.unwrap();
    assert_eq!(
        url.fragment(),
        None,
        "the spec leaves the address bar once loaded"
    );
    fresh.close().await;

    // A link cut short says so, and the page keeps the design it opened with.
    let cut = &link[..link.len() - 40];
    let damaged = Browser::start().await;
    damaged.client.goto(cut).await.unwrap();
    let status = damaged
        .wait_for_text(Locator::Id("share-status"), |text| !text.is_empty())
        .await;
    assert!(
        status.starts_with("The share link cannot be read: the link's spec does not inflate"),
        "{status}"
    );
    damaged
        .wait_for_text(PREVIEW, |text| text.contains("kind: ClusterConfig"))
        .await;
    let shown = damaged
        .client
        .find(PREVIEW)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!shown.contains("shared-by-link"), "{shown}");
    damaged.close().await;
}

#[tokio::test]
async fn without_aws_the_page_says_which_checks_could_not_run() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.go_to_step(8).await;
    let status = browser
        .wait_for_text(Locator::Id("aws-status"), |text| !text.is_empty())
        .await;
    assert!(status.contains("cannot run"), "{status}");
    browser.click_button("Run live checks").await;
    let answer = browser
        .wait_for_text(Locator::Id("live-checks-result"), |text| !text.is_empty())
        .await;
    // Without credentials (and with the template's placeholders) nothing can be asked
    // of EC2: every check comes back could-not-run, with the reason.
    assert!(answer.contains("could-not-run"), "{answer}");
    assert!(!answer.contains("failed"), "{answer}");
    // The design changes after they ran: the results say they are about the old one.
    assert!(
        browser
            .client
            .find(Locator::Id("live-checks-stale"))
            .await
            .is_err()
    );
    browser.go_to_step(2).await;
    browser
        .fill_by_label(ClusterSettings::NAME.label, "changed-after-checks")
        .await;
    browser.go_to_step(8).await;
    let stale = browser
        .wait_for_text(Locator::Id("live-checks-stale"), |text| !text.is_empty())
        .await;
    assert!(
        stale.contains("The design changed after these checks ran"),
        "{stale}"
    );
    browser.screenshot("live-checks-stale-1280").await;
    browser.click_button("Deploy").await;
    let deploy = browser
        .wait_for_text(Locator::Id("deploy-result"), |text| !text.is_empty())
        .await;
    assert!(!deploy.is_empty());
    browser.close().await;
}

#[tokio::test]
async fn live_check_results_show_next_to_their_fields_and_feed_the_rules() {
    const BLOCK: &str = "cr-0a1b2c3d4e5f60006";
    let emulator = Ec2Emulator::start();
    // Fixture data: a Capacity Block for two p5.48xlarge in us-east-1c.
    emulator.seed(
        "capacity-reservations",
        &json!({
            "region": ec2_emulator::REGION,
            "capacity_reservations": [{
                "CapacityReservationId": BLOCK,
                "InstanceType": "p5.48xlarge",
                "AvailabilityZone": "us-east-1c",
                "TotalInstanceCount": 2,
                "AvailableInstanceCount": 2,
                "ReservationType": "capacity-block",
                "State": "scheduled",
                "StartDate": "2030-01-01T11:30:00Z",
                "EndDate": "2030-01-15T11:30:00Z",
            }],
        }),
    );
    let studio = studio_asking(&emulator, &[]);
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("p5-capacity-block").await;
    browser.go_to_step(2).await;
    browser
        .fill_by_label(ClusterSettings::REGION.label, ec2_emulator::REGION)
        .await;
    browser.go_to_step(5).await;
    browser
        .fill_by_label(NodeGroup::RESERVATION_ID.label, BLOCK)
        .await;
    select(&browser, "f-node-groups-0-placement", "availability-zones").await;
    browser
        .fill_by_label(NodeGroup::PLACEMENT_ZONES.label, "us-east-1a")
        .await;

    let answer = run_live_checks(&browser).await;
    assert!(answer.contains("failed"), "{answer}");

    // Beside the reservation id: the check's own result, which names the block's zone.
    browser.go_to_step(5).await;
    let reservation = browser
        .wait_for_text(
            Locator::Id("f-node-groups-0-capacity-reservation-id-findings"),
            // The status is shown in capitals (CSS), which is how WebDriver reads it.
            |text| text.to_lowercase().contains("live check failed"),
        )
        .await;
    assert!(reservation.contains("us-east-1c"), "{reservation}");
    // Beside the placement: the shared rule fed with EC2's answer, computed in the page.
    let placement = browser
        .wait_for_text(Locator::Id("f-node-groups-0-placement-findings"), |text| {
            text.contains("us-east-1c")
        })
        .await;
    assert!(placement.contains("is in us-east-1c"), "{placement}");
    browser.screenshot("live-checks-beside-fields").await;

    // Moving the group to the block's zone clears that finding without another check.
    browser
        .fill_by_label(NodeGroup::PLACEMENT_ZONES.label, "us-east-1c")
        .await;
    browser
        .wait_for_text(Locator::Id("f-node-groups-0-placement-findings"), |text| {
            !text.contains("us-east-1c")
        })
        .await;
    browser.close().await;
}

#[tokio::test]
async fn the_picker_says_where_ec2_offers_each_type_and_the_cluster_step_where_it_is_sold() {
    let emulator = Ec2Emulator::start();
    // Fixture data: a day-long Capacity Block for one p5 on sale in us-east-1. Where types
    // are offered is the emulator's copy of EC2's own offering data.
    emulator.seed(
        "capacity-block-offerings",
        &json!({
            "region": ec2_emulator::REGION,
            "offerings": [{
                "InstanceType": "p5.48xlarge",
                "AvailabilityZone": "us-east-1a",
                "InstanceCount": 1,
                "StartDate": "2030-02-01T11:30:00Z",
                "CapacityBlockDurationHours": 24,
            }],
        }),
    );
    // The emulator loads each region's offering data on its first call, slowly while
    // the other end-to-end tests run beside it.
    let studio = studio_asking(&emulator, &[("EKS_STUDIO_EC2_TIMEOUT_SECONDS", "30")]);
    let browser = Browser::start().await;
    browser.client.set_window_size(1280, 800).await.unwrap();
    browser.open(&studio).await;
    browser.choose_template("p5-capacity-block").await;
    browser.go_to_step(2).await;
    browser
        .fill_by_label(ClusterSettings::REGION.label, ec2_emulator::REGION)
        .await;
    browser.go_to_step(5).await;
    select(&browser, "f-node-groups-0-placement", "availability-zones").await;
    browser
        .fill_by_label(NodeGroup::PLACEMENT_ZONES.label, "us-east-1a")
        .await;

    browser.go_to_step(4).await;
    browser.click_button("Choose from the catalog").await;
    browser
        .fill_by_label("Search instance types", "p5.48")
        .await;
    let hint = browser
        .wait_for_text(Locator::Css(".picker .hint"), |text| {
            text.contains("EC2's offerings checked against us-east-1a")
        })
        .await;
    assert!(hint.starts_with("1 type matches"), "{hint}");
    let offered = browser
        .wait_for_text(Locator::Css(".picker tbody .offered"), |text| {
            !text.is_empty()
        })
        .await;
    assert_eq!(offered, "in 1/1 zones");
    // p4de is offered in two other zones of us-east-1, not in the group's.
    browser.fill_by_label("Search instance types", "p4de").await;
    let missing = browser
        .wait_for_text(Locator::Css(".picker tbody .offered.missing"), |text| {
            !text.is_empty()
        })
        .await;
    assert_eq!(missing, "not in these zones");
    let title = browser
        .client
        .find(Locator::Css(".picker tbody .offered.missing"))
        .await
        .unwrap()
        .attr("title")
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(title.contains("not in us-east-1a"), "{title}");
    // Only the group's zones: p4de goes, p5 stays.
    browser
        .field_by_label("Offered in every zone of this group")
        .await
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(Locator::Css(".picker .hint"), |text| {
            text.starts_with("0 types match")
        })
        .await;
    browser.fill_by_label("Search instance types", "H100").await;
    browser
        .wait_for_text(Locator::Css(".picker .hint"), |text| {
            text.starts_with("2 types match")
        })
        .await;
    browser.screenshot("picker-zone-offerings").await;
    browser.client.set_window_size(390, 844).await.unwrap();
    browser
        .eval(
            "document.querySelector('.picker .hint').scrollIntoView();",
            vec![],
        )
        .await;
    browser.screenshot("picker-zone-offerings-390").await;
    browser.client.set_window_size(1280, 800).await.unwrap();

    // The Cluster step asks every region where the group's p5 is sold.
    browser.go_to_step(2).await;
    browser.click_button("Where are the GPU types sold?").await;
    let sold = browser
        .wait_for_text(Locator::Css(".where-sold ul.sold"), |text| {
            text.contains("p5.48xlarge")
        })
        .await;
    assert!(sold.contains("p5.48xlarge: offered in"), "{sold}");
    assert!(sold.contains("us-east-1, us-east-2"), "{sold}");
    assert!(
        sold.contains("Capacity Blocks on sale in us-east-1 (from 2030-02-01 11:30 UTC)"),
        "{sold}"
    );
    browser.screenshot("where-gpu-types-are-sold").await;
    browser.client.set_window_size(1024, 768).await.unwrap();
    browser.screenshot("where-gpu-types-are-sold-1024").await;
    browser.close().await;
}

#[tokio::test]
async fn auto_mode_is_turned_on_in_the_cluster_step_and_eksctl_s_refusals_are_said_at_once() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.client.set_window_size(1280, 800).await.unwrap();
    browser.open(&studio).await;
    browser.choose_template("g5-node-autorepair").await;
    browser.go_to_step(2).await;
    browser
        .field_by_label("EKS Auto Mode (AWS launches and runs the nodes)")
        .await
        .click()
        .await
        .unwrap();
    let preview = browser
        .wait_for_text(PREVIEW, |text| text.contains("autoModeConfig"))
        .await;
    let after = &preview[preview.find("autoModeConfig:").unwrap()..];
    assert!(after.contains("enabled: true"), "{preview}");
    // The template's node groups are what eksctl would refuse with Auto Mode on.
    let findings = browser
        .wait_for_text(FINDINGS, |text| text.contains("Auto Mode is on"))
        .await;
    assert!(
        findings.contains("eksctl does not create managed node groups with the cluster"),
        "{findings}"
    );
    assert!(step_errors(&browser, 4).await >= 1);

    select(&browser, "f-cluster-auto-mode-node-pools", "system").await;
    let preview = browser
        .wait_for_text(PREVIEW, |text| text.contains("nodePools"))
        .await;
    let after = &preview[preview.find("nodePools:").unwrap()..];
    assert!(after.contains("- system"), "{preview}");
    assert!(!after.contains("general-purpose"), "{preview}");
    browser
        .fill_by_label(
            "Auto Mode node role ARN",
            "arn:aws:iam::111122223333:role/auto-nodes",
        )
        .await;
    browser
        .fill_by_label(
            "Auto Mode node role permissions boundary",
            "arn:aws:iam::111122223333:policy/boundary",
        )
        .await;
    let beside = browser
        .wait_for_text(
            Locator::Id("f-cluster-auto-mode-permissions-boundary-arn-findings"),
            |text| text.contains("permissions boundary cannot be given"),
        )
        .await;
    assert!(beside.contains("node role is"), "{beside}");
    browser.screenshot("auto-mode-cluster-step").await;

    // Turned off with settings left is eksctl's refusal too; cleared, the key goes.
    browser
        .field_by_label("EKS Auto Mode (AWS launches and runs the nodes)")
        .await
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(FINDINGS, |text| text.contains("need Auto Mode enabled"))
        .await;
    browser.close().await;
}

#[tokio::test]
async fn fsx_in_a_new_vpc_asks_for_no_ids_and_says_where_the_deploy_puts_it() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.client.set_window_size(1280, 800).await.unwrap();
    browser.open(&studio).await;
    browser.choose_template("g4dn").await;
    browser.go_to_step(7).await;
    browser
        .by_id("f-addons-aws-fsx-csi-driver")
        .await
        .click()
        .await
        .unwrap();
    browser
        .field_by_label(Spec::FSX_VOLUME.label)
        .await
        .click()
        .await
        .unwrap();
    // The ids do not exist before eksctl makes the VPC: none is asked for, and the page says
    // which subnet and group the deploy uses, and why they carry Lustre's traffic.
    let hint = browser
        .wait_for_text(Locator::Css(".fsx-network"), |text| {
            text.contains("node group g4dn")
        })
        .await;
    assert!(hint.contains("cluster security group"), "{hint}");
    assert!(hint.contains("988"), "{hint}");
    for label in [FsxVolume::SUBNET.label, FsxVolume::SECURITY_GROUPS.label] {
        let value = browser
            .field_by_label(label)
            .await
            .prop("value")
            .await
            .unwrap();
        assert_eq!(value.as_deref(), Some(""), "{label}");
    }
    browser
        .by_id("tab-preview-storage-yaml")
        .await
        .click()
        .await
        .unwrap();
    let volumes = browser
        .wait_for_text(Locator::Id("preview-storage-yaml"), |text| {
            text.contains("fsx.csi.aws.com")
        })
        .await;
    assert!(
        volumes.contains("subnetId: FILLED_AT_DEPLOY_FSX_SUBNET_ID"),
        "{volumes}"
    );
    let findings = browser.wait_for_text(FINDINGS, |_| true).await;
    assert!(
        !findings.contains("needs the subnet") && !findings.contains("at least one security group"),
        "{findings}"
    );
    browser.screenshot("fsx-new-vpc").await;
    browser.client.set_window_size(390, 844).await.unwrap();
    browser
        .field_by_label(FsxVolume::SUBNET.label)
        .await
        .click()
        .await
        .unwrap();
    browser.screenshot("fsx-new-vpc-390").await;
    // A subnet typed in is used as typed; the hint says only the group is the deploy's.
    browser
        .fill_by_label(FsxVolume::SUBNET.label, "subnet-0123456789abcdef0")
        .await;
    browser
        .wait_for_text(Locator::Css(".fsx-network"), |text| {
            text.contains("no security group given")
        })
        .await;
    browser.close().await;
}

#[tokio::test]
async fn checkpoint_volumes_are_edited_beside_their_add_ons_and_previewed_as_the_drivers_read_them()
{
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.client.set_window_size(1280, 800).await.unwrap();
    browser.open(&studio).await;
    browser.choose_template("p5-checkpoint-storage").await;
    browser.go_to_step(7).await;
    assert_eq!(
        browser
            .field_by_label(FsxVolume::STORAGE.label)
            .await
            .prop("value")
            .await
            .unwrap()
            .as_deref(),
        Some("2400")
    );
    // The server writes storage/volumes.yaml; the page shows it in its own tab.
    browser
        .by_id("tab-preview-storage-yaml")
        .await
        .click()
        .await
        .unwrap();
    let volumes = browser
        .wait_for_text(Locator::Id("preview-storage-yaml"), |text| {
            text.contains("fsx.csi.aws.com")
        })
        .await;
    assert!(volumes.contains("s3.csi.aws.com"), "{volumes}");
    assert!(volumes.contains("prefix checkpoints/"), "{volumes}");

    // A scratch file system takes no throughput: choosing one clears it.
    select(&browser, "f-storage-fsx-deployment-type", "SCRATCH_2").await;
    let throughput = browser.field_by_label(FsxVolume::THROUGHPUT.label).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while throughput.prop("value").await.unwrap().as_deref() != Some("") {
        assert!(Instant::now() < deadline, "the throughput stayed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    browser
        .wait_for_text(Locator::Id("preview-storage-yaml"), |text| {
            text.contains("SCRATCH_2") && !text.contains("perUnitStorageThroughput")
        })
        .await;
    // Back to persistent with a throughput FSx does not sell for it: said beside the field.
    select(&browser, "f-storage-fsx-deployment-type", "PERSISTENT_2").await;
    browser
        .fill_by_label(FsxVolume::THROUGHPUT.label, "200")
        .await;
    let beside = browser
        .wait_for_text(
            Locator::Id("f-storage-fsx-per-unit-storage-throughput-findings"),
            |text| text.contains("not sold"),
        )
        .await;
    assert!(beside.contains("125, 250, 500, 1000"), "{beside}");
    browser
        .fill_by_label(S3Volume::BUCKET.label, "Training_Data")
        .await;
    browser
        .wait_for_text(Locator::Id("f-storage-s3-bucket-findings"), |text| {
            text.contains("lowercase")
        })
        .await;
    browser.screenshot("checkpoint-volumes").await;

    // Without the FSx CSI driver nothing would provision the claim.
    browser
        .client
        .find(Locator::Css("input[id='f-addons-aws-fsx-csi-driver']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(Locator::Id("f-storage-fsx-findings"), |text| {
            text.contains("aws-fsx-csi-driver add-on is not installed")
        })
        .await;

    // The file the tab showed reads back into the design, undoing the edits to the volumes.
    browser.go_to_step(1).await;
    let result = browser.import_yaml(&volumes).await;
    // The design was edited, so replacing it asks first, and the result says so.
    assert_eq!(
        result,
        "Read an FSx for Lustre file system and an S3 bucket volume. Confirm to replace the current design with it."
    );
    // Declined: said so, and the design keeps its edits.
    browser.click_button("Keep my design").await;
    browser
        .wait_for_text(Locator::Id("import-result"), |text| {
            text == "Not imported: the current design was kept."
        })
        .await;
    // Asked again (the text is still in the box), and confirmed.
    browser.by_id("import-button").await.click().await.unwrap();
    browser
        .wait_for_element("replace-yes")
        .await
        .click()
        .await
        .unwrap();
    browser
        .wait_for_text(Locator::Id("import-result"), |text| {
            text == "Imported an FSx for Lustre file system and an S3 bucket volume."
        })
        .await;
    browser.go_to_step(7).await;
    let field = |label: &'static str| {
        let browser = &browser;
        async move {
            browser
                .field_by_label(label)
                .await
                .prop("value")
                .await
                .unwrap()
                .unwrap_or_default()
        }
    };
    assert_eq!(field("FSx throughput (MB/s per TiB)").await, "250");
    assert_eq!(field("S3 bucket").await, "PLACEHOLDER_S3_BUCKET");
    browser.close().await;
}

#[tokio::test]
async fn node_group_labels_taints_and_instance_type_lists_are_editable() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("g4dn").await;
    browser.go_to_step(4).await;
    browser
        .fill("f-node-groups-0-labels", "team=ml, workload=training")
        .await;
    browser
        .fill(
            "f-node-groups-0-taints",
            "nvidia.com/gpu:NoSchedule, dedicated=training:NoExecute",
        )
        .await;
    let preview = browser
        .wait_for_text(PREVIEW, |text| text.contains("dedicated"))
        .await;
    assert!(preview.contains("team: ml"), "{preview}");
    assert!(preview.contains("workload: training"), "{preview}");
    assert!(preview.contains("effect: NoExecute"), "{preview}");

    // A half-typed taint keeps what was typed and says what is missing, next to the field.
    browser
        .fill("f-node-groups-0-taints", "dedicated=training")
        .await;
    let findings = browser
        .wait_for_text(Locator::Id("f-node-groups-0-taints-findings"), |text| {
            text.contains("effect")
        })
        .await;
    assert!(findings.contains("NoSchedule"), "{findings}");

    browser
        .fill("f-node-groups-0-instance-types", "g5.12xlarge, g6.12xlarge")
        .await;
    let preview = browser
        .wait_for_text(PREVIEW, |text| text.contains("g6.12xlarge"))
        .await;
    assert!(preview.contains("instanceTypes"), "{preview}");
    browser.close().await;
}

#[tokio::test]
async fn the_page_holds_at_a_phone_width() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.client.set_window_size(390, 844).await.unwrap();
    browser.open(&studio).await;
    browser.screenshot("narrow-start").await;
    browser.go_to_step(5).await;
    browser.screenshot("narrow-capacity").await;
    let overflow = browser
        .eval(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth;",
            vec![],
        )
        .await;
    assert_eq!(overflow, 0, "the page scrolls sideways");
    // The Karpenter step with a static pool and node repair, and the add-ons with a
    // storage driver's policy field, hold the width too.
    browser
        .choose_template("karpenter-static-capacity-block")
        .await;
    for (step, name) in [(6, "narrow-karpenter"), (7, "narrow-addons")] {
        browser.go_to_step(step).await;
        if step == 7 {
            browser
                .by_id("f-addons-aws-fsx-csi-driver")
                .await
                .click()
                .await
                .unwrap();
            browser
                .field_by_label("IAM policy ARNs for aws-fsx-csi-driver")
                .await;
        }
        browser.screenshot(name).await;
        let overflow = browser
            .eval(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth;",
                vec![],
            )
            .await;
        assert_eq!(overflow, 0, "step {step} scrolls sideways");
    }
    browser.close().await;
}

#[tokio::test]
async fn a_shared_reservations_owner_account_goes_on_its_tag_terms() {
    let studio = Studio::start();
    let browser = Browser::start().await;
    browser.open(&studio).await;
    browser.choose_template("karpenter-reserved-training").await;
    browser.go_to_step(6).await;
    browser
        .fill_by_label(
            "Capacity reservation tags (one term each)",
            "purpose=training",
        )
        .await;
    browser
        .fill_by_label(Ec2NodeClass::RESERVATION_OWNER.label, "12345")
        .await;
    browser
        .wait_for_text(Locator::Css("main"), |text| {
            text.contains("owner id 12345 is not a 12-digit AWS account id")
        })
        .await;
    browser
        .fill_by_label(
            "Capacity reservation owner account (ownerID)",
            "123456789012",
        )
        .await;
    browser
        .wait_for_text(Locator::Css("main"), |text| {
            !text.contains("is not a 12-digit AWS account id")
        })
        .await;
    browser
        .by_id("tab-preview-nodepools-yaml")
        .await
        .click()
        .await
        .unwrap();
    let nodepools = browser
        .wait_for_text(Locator::Id("preview-nodepools-yaml"), |text| {
            text.contains("123456789012")
        })
        .await;
    let term = nodepools
        .split("capacityReservationSelectorTerms:")
        .nth(1)
        .unwrap_or_else(|| panic!("no reservation terms in:\n{nodepools}"));
    assert!(
        term.contains("ownerID: '123456789012'") && term.contains("purpose: training"),
        "{term}"
    );
    browser.close().await;
}
