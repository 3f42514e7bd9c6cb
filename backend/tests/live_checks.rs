//! Live checks against a real EC2 API emulator on loopback (moto's server with the fixture
//! actions of `tests/fixtures/ec2_emulator.py`), through `app(state).oneshot(...)`.
//! Every reservation, block offering and Spot score here is fixture data.

mod emulator;
mod live_support;

use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::http::StatusCode;
use backend::aws::{AwsOptions, LiveAws};
use emulator::{Emulator, REGION};
use live_support::*;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread")]
async fn instance_type_offered_or_not_in_the_zones_a_group_may_use() {
    let emulator = Emulator::start();
    let router = router(emulator.live_aws().await);
    // The emulator's AWS data offers p4de.24xlarge in us-east-1b and us-east-1c only;
    // us-east-1b's zone id is use1-az1 there.
    let spec = spec(
        new_vpc(),
        json!([
            group(
                "p4de-in-a",
                "p4de.24xlarge",
                &["us-east-1a"],
                on_demand(),
                2
            ),
            group(
                "p4de-in-b",
                "p4de.24xlarge",
                &["us-east-1b"],
                on_demand(),
                2
            ),
            group(
                "p4de-by-zone-id",
                "p4de.24xlarge",
                &["use1-az1"],
                on_demand(),
                2
            ),
            group("g5-in-a", "g5.8xlarge", &["us-east-1a"], on_demand(), 1),
        ]),
    );
    let report = checks(&router, &spec).await;

    let not_offered = check(
        &report,
        "instance-type-offered",
        "node_groups[0].instance_type",
    );
    assert_eq!(not_offered["status"], "failed", "{not_offered:#}");
    assert!(
        not_offered["message"]
            .as_str()
            .unwrap()
            .contains("p4de.24xlarge is not offered in us-east-1a"),
        "{not_offered:#}"
    );
    assert!(has_finding(
        &report,
        "instance-type-not-offered",
        "node_groups[0].instance_type"
    ));

    for index in 1..=3 {
        let offered = check(
            &report,
            "instance-type-offered",
            &format!("node_groups[{index}].instance_type"),
        );
        assert_eq!(offered["status"], "ok", "{offered:#}");
    }
    let zones = &check(
        &report,
        "instance-type-offered",
        "node_groups[1].instance_type",
    )["detail"]["offerings"][0]["zones"];
    assert_eq!(zones[0], json!({ "name": "us-east-1b", "id": "use1-az1" }));

    // EC2's instance facts agree with the catalog for these types.
    let facts = check(
        &report,
        "instance-type-facts",
        "node_groups[0].instance_type",
    );
    assert_eq!(facts["status"], "ok", "{facts:#}");
    assert_eq!(facts["detail"]["live"]["gpu_count"], 8);
    assert_eq!(facts["detail"]["live"]["efa_supported"], true);
    // p4de's four network cards, from EC2's answer, as Karpenter's VPC limits say.
    assert_eq!(facts["detail"]["live"]["network_cards"], 4);
    // And the facts name the zones by name and id.
    let offering = report["facts"]["offerings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|offering| offering["instance_type"] == "p4de.24xlarge")
        .unwrap();
    assert_eq!(
        offering["availability_zones"],
        json!(["us-east-1b", "use1-az1", "us-east-1c", "use1-az2"])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_instance_type_ec2_does_not_know_fails_its_facts_check() {
    let emulator = Emulator::start();
    let router = router(emulator.live_aws().await);
    let spec = spec(
        new_vpc(),
        json!([group(
            "imaginary",
            "p9.imaginary",
            &["us-east-1a"],
            on_demand(),
            1
        )]),
    );
    let report = checks(&router, &spec).await;
    let facts = check(
        &report,
        "instance-type-facts",
        "node_groups[0].instance_type",
    );
    assert_eq!(facts["status"], "failed", "{facts:#}");
    assert!(facts["message"].as_str().unwrap().contains("does not know"));
    let offered = check(
        &report,
        "instance-type-offered",
        "node_groups[0].instance_type",
    );
    assert_eq!(offered["status"], "failed", "{offered:#}");
    assert!(
        offered["message"]
            .as_str()
            .unwrap()
            .contains("not offered in any zone")
    );
}

const GOOD: &str = "cr-0a1b2c3d4e5f60001";
const WRONG_ZONE: &str = "cr-0a1b2c3d4e5f60002";
const WRONG_TYPE: &str = "cr-0a1b2c3d4e5f60003";
const TOO_FEW: &str = "cr-0a1b2c3d4e5f60004";
const EXPIRED: &str = "cr-0a1b2c3d4e5f60005";
const BLOCK: &str = "cr-0a1b2c3d4e5f60006";
const MISSING: &str = "cr-0a1b2c3d4e5f6ffff";

async fn seed_reservations(emulator: &Emulator) {
    let reservation = |id: &str, instance_type: &str, zone: &str, total: u32, available: u32| {
        json!({
            "CapacityReservationId": id,
            "InstanceType": instance_type,
            "AvailabilityZone": zone,
            "TotalInstanceCount": total,
            "AvailableInstanceCount": available,
        })
    };
    let mut expired = reservation(EXPIRED, "p5.48xlarge", "us-east-1a", 2, 2);
    expired["State"] = json!("expired");
    expired["EndDate"] = json!("2024-01-01T00:00:00Z");
    let mut block = reservation(BLOCK, "p5.48xlarge", "us-east-1a", 2, 2);
    block["ReservationType"] = json!("capacity-block");
    block["State"] = json!("scheduled");
    block["StartDate"] = json!("2030-01-01T11:30:00Z");
    block["EndDate"] = json!("2030-01-15T11:30:00Z");
    emulator
        .seed(
            "capacity-reservations",
            json!({
                "region": REGION,
                "capacity_reservations": [
                    reservation(GOOD, "p5.48xlarge", "us-east-1a", 2, 2),
                    reservation(WRONG_ZONE, "p5.48xlarge", "us-east-1c", 2, 2),
                    reservation(WRONG_TYPE, "p4d.24xlarge", "us-east-1a", 2, 2),
                    reservation(TOO_FEW, "p5.48xlarge", "us-east-1a", 4, 1),
                    expired,
                    block,
                ],
            }),
        )
        .await;
}

/// The reserved Karpenter template in the emulator's region, its pool pinned to `types`,
/// with a zone requirement when `zones` names any.
fn karpenter_pool(types: &[&str], zones: &[&str]) -> Value {
    let mut spec: Value = serde_json::from_str(
        &shared::template("karpenter-reserved-training")
            .unwrap()
            .spec()
            .to_json(),
    )
    .unwrap();
    spec["cluster"]["region"] = json!(REGION);
    spec["network"] = new_vpc();
    spec["karpenter"]["node_classes"][0]["spec"]["capacityReservationSelectorTerms"] = json!([]);
    let mut requirements =
        vec![json!({"key": "node.kubernetes.io/instance-type", "operator": "In", "values": types})];
    if !zones.is_empty() {
        requirements
            .push(json!({"key": "topology.kubernetes.io/zone", "operator": "In", "values": zones}));
    }
    spec["karpenter"]["node_pools"][0]["spec"]["template"]["spec"]["requirements"] =
        json!(requirements);
    spec
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nodepools_types_are_looked_up_in_its_zones_in_one_call() {
    let emulator = Emulator::start();
    let router = router(emulator.live_aws().await);
    // The emulator offers p4de.24xlarge in us-east-1b and us-east-1c only.
    let pool_check =
        |report: &Value| check(report, "instance-type-offered", "karpenter.node_pools[0]").clone();
    let in_a = checks(
        &router,
        &karpenter_pool(&["p4de.24xlarge"], &["us-east-1a"]),
    )
    .await;
    let nowhere = pool_check(&in_a);
    assert_eq!(nowhere["status"], "failed", "{nowhere:#}");
    assert_eq!(fired(&nowhere), ["karpenter-pool-offered-nowhere"]);
    assert!(has_finding(
        &in_a,
        "karpenter-pool-offered-nowhere",
        "karpenter.node_pools[0]"
    ));

    let in_b = checks(
        &router,
        &karpenter_pool(&["p4de.24xlarge"], &["us-east-1b"]),
    )
    .await;
    let offered = pool_check(&in_b);
    assert_eq!(offered["status"], "ok", "{offered:#}");
    assert!(
        text(&offered["message"])
            .starts_with("1 of the 1 instance types the pool allows are offered"),
        "{offered:#}"
    );
    assert_eq!(
        offered["detail"]["offerings"][0]["zones"],
        json!(["us-east-1b", "us-east-1c"])
    );

    // Many types, one DescribeInstanceTypeOfferings call (and one for the zones).
    emulator.reset().await;
    let many = [
        "g5.xlarge",
        "g5.2xlarge",
        "g5.4xlarge",
        "g5.8xlarge",
        "g6.xlarge",
        "g6.2xlarge",
    ];
    let report = checks(&router, &karpenter_pool(&many, &[])).await;
    assert_eq!(pool_check(&report)["status"], "ok", "{report:#}");
    assert_eq!(emulator.calls("DescribeInstanceTypeOfferings").await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spot_nodepool_gets_the_placement_score_of_the_types_it_allows() {
    let emulator = Emulator::start();
    emulator
        .seed(
            "spot-placement-scores",
            json!({ "scores": [
                { "region": REGION, "availability_zone_id": null, "instance_types": ["g5.8xlarge"], "score": 2 },
                { "region": REGION, "availability_zone_id": null, "instance_types": ["g6e.12xlarge"], "score": 9 },
            ]}),
        )
        .await;
    let router = router(emulator.live_aws().await);
    let spot_pool = |types: &[&str]| {
        let mut spec = karpenter_pool(types, &[]);
        spec["karpenter"]["node_pools"][0]["spec"]["template"]["spec"]["requirements"]
            .as_array_mut()
            .unwrap()
            .push(
                json!({"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}),
            );
        spec
    };
    let low_report = checks(&router, &spot_pool(&["g5.8xlarge"])).await;
    let low = check(
        &low_report,
        "spot-placement-score",
        "karpenter.node_pools[0]",
    );
    assert_eq!(low["status"], "failed", "{low:#}");
    assert_eq!(fired(low), ["karpenter-spot-placement-score-low"]);
    let high_report = checks(&router, &spot_pool(&["g5.8xlarge", "g6e.12xlarge"])).await;
    let high = check(
        &high_report,
        "spot-placement-score",
        "karpenter.node_pools[0]",
    );
    assert_eq!(high["status"], "ok", "{high:#}");
    assert!(text(&high["message"]).contains("9 of 10"), "{high:#}");
    // The pool's Spot prices: each type at its cheapest zone, the cheapest type first,
    // and the same prices among the facts the page shows beside the pool's types.
    let price = check(&high_report, "spot-price", "karpenter.node_pools[0]");
    assert_eq!(price["status"], "ok", "{price:#}");
    let cheapest = |instance_type: &str| {
        high_report["facts"]["spot_prices"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|fact| fact["instance_type"] == instance_type)
            .map(|fact| text(&fact["price_per_hour"]).parse::<f64>().unwrap())
            .min_by(f64::total_cmp)
            .unwrap_or_else(|| panic!("no Spot price fact for {instance_type}: {high_report:#}"))
    };
    let message = text(&price["message"]);
    let (first, second) = if cheapest("g5.8xlarge") <= cheapest("g6e.12xlarge") {
        ("g5.8xlarge", "g6e.12xlarge")
    } else {
        ("g6e.12xlarge", "g5.8xlarge")
    };
    assert!(
        message.starts_with("latest Linux Spot prices, cheapest first: ")
            && message.find(first) < message.find(second)
            && message.contains("/h in us-east-1"),
        "{price:#}"
    );
    // An On-Demand pool is not scored, nor priced at Spot.
    let on_demand = checks(&router, &karpenter_pool(&["g5.8xlarge"], &[])).await;
    assert!(
        !on_demand["checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|check| check["id"] == "spot-placement-score" || check["id"] == "spot-price"),
        "{on_demand:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reservations_a_node_class_selects_are_looked_up_and_judged_against_its_pools() {
    let emulator = Emulator::start();
    seed_reservations(&emulator).await;
    let router = router(emulator.live_aws().await);
    let mut spec: Value = serde_json::from_str(
        &shared::template("karpenter-reserved-training")
            .unwrap()
            .spec()
            .to_json(),
    )
    .unwrap();
    spec["cluster"]["region"] = json!(REGION);
    spec["network"] = new_vpc();
    spec["karpenter"]["node_classes"][0]["spec"]["capacityReservationSelectorTerms"] = json!([
        {"id": GOOD}, {"id": WRONG_TYPE}, {"id": EXPIRED}, {"id": MISSING}
    ]);
    let report = checks(&router, &spec).await;
    let term = |index: usize| {
        check(
            &report,
            "capacity-reservation",
            &format!("karpenter.node_classes[0].spec.capacityReservationSelectorTerms[{index}].id"),
        )
        .clone()
    };
    let good = term(0);
    assert_eq!(good["status"], "ok", "{good:#}");
    assert!(
        text(&good["message"]).contains("for p5.48xlarge in us-east-1a"),
        "{good:#}"
    );
    let wrong_type = term(1);
    assert_eq!(wrong_type["status"], "failed", "{wrong_type:#}");
    assert_eq!(
        fired(&wrong_type),
        ["karpenter-reservation-type-not-launched"]
    );
    assert!(
        text(&wrong_type["message"]).contains("p4d.24xlarge, which no NodePool"),
        "{wrong_type:#}"
    );
    let expired = term(2);
    assert_eq!(
        fired(&expired),
        ["karpenter-reservation-not-active"],
        "{expired:#}"
    );
    let missing = term(3);
    assert_eq!(missing["status"], "failed");
    assert_eq!(
        fired(&missing),
        ["karpenter-reservation-not-found"],
        "{missing:#}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn reservations_in_the_wrong_zone_of_the_wrong_type_too_small_expired_or_missing_fail() {
    let emulator = Emulator::start();
    seed_reservations(&emulator).await;
    let router = router(emulator.live_aws().await);
    let zone_a = &["us-east-1a"];
    let spec = spec(
        new_vpc(),
        json!([
            group("good", "p5.48xlarge", zone_a, reservation(GOOD), 2),
            group(
                "wrong-zone",
                "p5.48xlarge",
                zone_a,
                reservation(WRONG_ZONE),
                2
            ),
            group(
                "wrong-type",
                "p5.48xlarge",
                zone_a,
                reservation(WRONG_TYPE),
                2
            ),
            group("too-few", "p5.48xlarge", zone_a, reservation(TOO_FEW), 2),
            group("expired", "p5.48xlarge", zone_a, reservation(EXPIRED), 2),
            group("block", "p5.48xlarge", zone_a, capacity_block(BLOCK), 2),
            group("missing", "p5.48xlarge", zone_a, reservation(MISSING), 2),
            group(
                "placeholder",
                "p5.48xlarge",
                zone_a,
                reservation("cr-xxxxxxxxxx"),
                2
            ),
            group(
                "block-as-odcr",
                "p5.48xlarge",
                zone_a,
                reservation(BLOCK),
                2
            ),
        ]),
    );
    let report = checks(&router, &spec).await;
    let reservation_check = |index: usize| {
        check(
            &report,
            "capacity-reservation",
            &format!("node_groups[{index}].capacity.reservation_id"),
        )
        .clone()
    };

    let good = reservation_check(0);
    assert_eq!(good["status"], "ok", "{good:#}");
    assert_eq!(
        good["detail"]["reservation"]["availability_zone"],
        "us-east-1a"
    );
    assert_eq!(
        good["detail"]["reservation"]["availability_zone_id"],
        "use1-az6"
    );
    assert_eq!(good["detail"]["reservation"]["available_instances"], 2);

    let expectations = [
        (1, "reservation-zone-mismatch", "is in us-east-1c"),
        (
            2,
            "reservation-instance-type-mismatch",
            "is for p4d.24xlarge",
        ),
        (3, "reservation-capacity-short", "has 1 of 4 instances free"),
        (4, "reservation-not-active", "is expired"),
        (6, "reservation-not-found", "was not found"),
        (
            8,
            "capacity-block-market-type-mismatch",
            "is a Capacity Block",
        ),
    ];
    for (index, rule, words) in expectations {
        let result = reservation_check(index);
        assert_eq!(result["status"], "failed", "group {index}: {result:#}");
        assert!(
            fired(&result).contains(&rule.to_owned()),
            "group {index}: {result:#}"
        );
        assert!(
            result["message"].as_str().unwrap().contains(words),
            "group {index}: {result:#}"
        );
    }

    // A scheduled Capacity Block is a reservation to launch into once it starts: its size
    // and dates are shown, and a group that asks for nodes at creation is told to wait.
    let block = reservation_check(5);
    assert_eq!(block["status"], "failed", "{block:#}");
    assert_eq!(
        block["detail"]["reservation"]["start_date"],
        "2030-01-01T11:30:00Z"
    );
    assert_eq!(
        block["detail"]["reservation"]["end_date"],
        "2030-01-15T11:30:00Z"
    );
    assert!(
        fired(&block).contains(&"capacity-block-not-started".to_owned()),
        "{block:#}"
    );
    let message = block["message"].as_str().unwrap();
    assert!(
        message.contains("starts 2030-01-01 11:30 UTC: node group `block` asks for 2 nodes"),
        "{message}"
    );
    assert!(
        message.contains("2 × p5.48xlarge in us-east-1a, scheduled, 2 free, from 2030-01-01 11:30 UTC to 2030-01-15 11:30 UTC"),
        "{message}"
    );

    // A placeholder is never sent to EC2.
    let placeholder = reservation_check(7);
    assert_eq!(placeholder["status"], "could-not-run", "{placeholder:#}");
    assert!(
        placeholder["message"]
            .as_str()
            .unwrap()
            .contains("placeholder")
    );

    assert_eq!(report["facts"]["missing_reservations"], json!([MISSING]));
    assert!(has_finding(
        &report,
        "reservation-zone-mismatch",
        "node_groups[1].placement"
    ));
    assert_eq!(emulator.calls("DescribeCapacityReservations").await, 7);
}

#[tokio::test(flavor = "multi_thread")]
async fn capacity_block_offerings_are_found_for_a_type_count_and_duration() {
    let emulator = Emulator::start();
    emulator
        .seed(
            "capacity-block-offerings",
            json!({
                "region": REGION,
                "offerings": [
                    {
                        "CapacityBlockOfferingId": "cb-fixture0000000001",
                        "InstanceType": "p5.48xlarge",
                        "AvailabilityZone": "us-east-1a",
                        "InstanceCount": 2,
                        "StartDate": "2030-02-01T11:30:00Z",
                        "CapacityBlockDurationHours": 48,
                        "UpfrontFee": "4915.20",
                    },
                    {
                        "CapacityBlockOfferingId": "cb-fixture0000000002",
                        "InstanceType": "p5.48xlarge",
                        "AvailabilityZone": "us-east-1b",
                        "InstanceCount": 2,
                        "StartDate": "2030-01-20T11:30:00Z",
                        "CapacityBlockDurationHours": 48,
                        "UpfrontFee": "5015.20",
                    },
                    {
                        "CapacityBlockOfferingId": "cb-fixture0000000003",
                        "InstanceType": "p5.48xlarge",
                        "AvailabilityZone": "us-east-1a",
                        "InstanceCount": 4,
                        "StartDate": "2030-02-01T11:30:00Z",
                        "CapacityBlockDurationHours": 48,
                    },
                    {
                        "CapacityBlockOfferingId": "cb-fixture0000000004",
                        "InstanceType": "p4d.24xlarge",
                        "AvailabilityZone": "us-east-1a",
                        "InstanceCount": 2,
                        "StartDate": "2030-02-01T11:30:00Z",
                        "CapacityBlockDurationHours": 48,
                    },
                ],
            }),
        )
        .await;
    let router = router(emulator.live_aws().await);
    let (status, body) = post(
        &router,
        "/api/capacity-block-offerings",
        &json!({
            "region": REGION,
            "instance_type": "p5.48xlarge",
            "instance_count": 2,
            "duration_hours": 48,
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "ok");
    let offerings = body["offerings"].as_array().unwrap();
    assert_eq!(offerings.len(), 2, "{body:#}");
    // Soonest first.
    assert_eq!(offerings[0]["id"], "cb-fixture0000000002");
    assert_eq!(offerings[0]["availability_zone"], "us-east-1b");
    assert_eq!(offerings[0]["start_date"], "2030-01-20T11:30:00Z");
    assert_eq!(offerings[0]["end_date"], "2030-01-22T11:30:00Z");
    assert_eq!(offerings[0]["upfront_fee"], "5015.20");
    assert_eq!(offerings[1]["id"], "cb-fixture0000000001");

    let (status, body) = post(
        &router,
        "/api/capacity-block-offerings",
        &json!({
            "region": REGION,
            "instance_type": "p5.48xlarge",
            "instance_count": 2,
            "duration_hours": 48,
            "start_after": "2030-01-25T00:00:00Z",
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["offerings"].as_array().unwrap().len(), 1, "{body:#}");

    let (status, body) = post(
        &router,
        "/api/capacity-block-offerings",
        &json!({ "region": "mars-north-1", "instance_type": "p5.48xlarge", "instance_count": 2, "duration_hours": 48 }),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        body["error"].as_str().unwrap().contains("mars-north-1"),
        "{body}"
    );

    let (status, body) = post(
        &router,
        "/api/capacity-block-offerings",
        &json!({ "region": REGION, "instance_type": "p5.48xlarge" }),
    )
    .await;
    assert!(status.is_client_error(), "{status}");
    assert!(
        body["error"].as_str().unwrap().contains("instance_count"),
        "{body}"
    );

    let (status, body) = post(
        &router,
        "/api/capacity-block-offerings",
        &json!({ "region": REGION, "instance_type": "p5.48xlarge", "instance_count": 2,
                 "duration_hours": 48, "start_after": "next tuesday" }),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("start_after `next tuesday`"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn ultraserver_capacity_blocks_are_found_by_ultraserver_type_not_by_instance_type() {
    let emulator = Emulator::start();
    emulator
        .seed(
            "capacity-block-offerings",
            json!({
                "region": REGION,
                "offerings": [
                    {
                        "CapacityBlockOfferingId": "cb-fixture0000000011",
                        "InstanceType": "p6e-gb200.36xlarge",
                        "AvailabilityZone": "us-east-1a",
                        "InstanceCount": 9,
                        "UltraserverType": "u-p6e-gb200x36",
                        "UltraserverCount": 1,
                        "StartDate": "2030-03-01T11:30:00Z",
                        "CapacityBlockDurationHours": 24,
                    },
                    {
                        "CapacityBlockOfferingId": "cb-fixture0000000012",
                        "InstanceType": "p6e-gb200.36xlarge",
                        "AvailabilityZone": "us-east-1a",
                        "InstanceCount": 18,
                        "UltraserverType": "u-p6e-gb200x72",
                        "UltraserverCount": 1,
                        "StartDate": "2030-03-02T11:30:00Z",
                        "CapacityBlockDurationHours": 24,
                    },
                ],
            }),
        )
        .await;
    let router = router(emulator.live_aws().await);
    let (status, body) = post(
        &router,
        "/api/capacity-block-offerings",
        &json!({
            "region": REGION,
            "instance_type": "p6e-gb200.36xlarge",
            "instance_count": 9,
            "duration_hours": 24,
            "ultraserver_type": "u-p6e-gb200x36",
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let offerings = body["offerings"].as_array().unwrap();
    assert_eq!(offerings.len(), 1, "{body:#}");
    assert_eq!(offerings[0]["id"], "cb-fixture0000000011");
    assert_eq!(offerings[0]["ultraserver_type"], "u-p6e-gb200x36");
    assert_eq!(offerings[0]["ultraserver_count"], 1);
    assert_eq!(offerings[0]["instance_count"], 9);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("for 1 × u-p6e-gb200x36 for 24 h"),
        "{body}"
    );
    // Asked by instance type and count, EC2's search does not return UltraServer blocks.
    let (status, body) = post(
        &router,
        "/api/capacity-block-offerings",
        &json!({
            "region": REGION,
            "instance_type": "p6e-gb200.36xlarge",
            "instance_count": 9,
            "duration_hours": 24,
        }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["offerings"].as_array().unwrap().len(), 0, "{body:#}");
    // A count of none is refused before EC2 is asked.
    let (status, body) = post(
        &router,
        "/api/capacity-block-offerings",
        &json!({
            "region": REGION,
            "instance_type": "",
            "instance_count": 0,
            "duration_hours": 24,
            "ultraserver_type": "u-p6e-gb200x72",
            "ultraserver_count": 0,
        }),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("ultraserver_count"),
        "{body}"
    );
}

/// A VPC made in the emulator; its id.
async fn new_vpc_in(ec2: &aws_sdk_ec2::Client, cidr: &str) -> String {
    let made = ec2.create_vpc().cidr_block(cidr).send().await.unwrap();
    made.vpc().unwrap().vpc_id().unwrap().to_owned()
}

/// A subnet made in the emulator; its id.
async fn new_subnet_in(ec2: &aws_sdk_ec2::Client, vpc_id: &str, cidr: &str, zone: &str) -> String {
    let made = ec2
        .create_subnet()
        .vpc_id(vpc_id)
        .cidr_block(cidr)
        .availability_zone(zone)
        .send()
        .await
        .unwrap();
    made.subnet().unwrap().subnet_id().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn subnets_must_exist_belong_to_the_vpc_and_sit_in_the_stated_zone() {
    let emulator = Emulator::start();
    let ec2 = emulator.ec2_client();
    let cluster_vpc = new_vpc_in(&ec2, "10.10.0.0/16").await;
    let other_vpc = new_vpc_in(&ec2, "10.20.0.0/16").await;
    let in_a = new_subnet_in(&ec2, &cluster_vpc, "10.10.0.0/20", "us-east-1a").await;
    let in_b = new_subnet_in(&ec2, &cluster_vpc, "10.10.16.0/20", "us-east-1b").await;
    let small = new_subnet_in(&ec2, &cluster_vpc, "10.10.32.0/27", "us-east-1c").await;
    let elsewhere = new_subnet_in(&ec2, &other_vpc, "10.20.0.0/20", "us-east-1a").await;
    let missing = "subnet-0fedcba9876543210".to_owned();

    let router = router(emulator.live_aws().await);
    let subnet_entry = |name: &str, id: &str, zone: &str| json!({ "name": name, "id": id, "availability_zone": zone });
    let spec = spec(
        json!({
            "mode": "existing-vpc",
            "vpc_id": cluster_vpc,
            "public_subnets": [
                subnet_entry("public-a", &in_a, "us-east-1a"),
                subnet_entry("public-b", &in_b, "us-east-1c"),
            ],
            "private_subnets": [
                subnet_entry("private-a", &elsewhere, "us-east-1a"),
                subnet_entry("private-b", &missing, "us-east-1b"),
                subnet_entry("private-c", &small, "us-east-1c"),
            ],
        }),
        json!([]),
    );
    let report = checks(&router, &spec).await;

    let vpc_check = check(&report, "vpc-exists", "network.vpc_id");
    assert_eq!(vpc_check["status"], "ok", "{vpc_check:#}");
    assert_eq!(vpc_check["detail"]["vpc"]["cidr_block"], "10.10.0.0/16");

    let ok = check(&report, "subnet", "network.public_subnets[0].id");
    assert_eq!(ok["status"], "ok", "{ok:#}");
    assert_eq!(ok["detail"]["subnet"]["availability_zone"], "us-east-1a");
    assert!(
        ok["detail"]["subnet"]["available_addresses"]
            .as_u64()
            .unwrap()
            > 4000
    );

    let wrong_zone = check(&report, "subnet", "network.public_subnets[1].id");
    assert_eq!(wrong_zone["status"], "failed", "{wrong_zone:#}");
    assert_eq!(fired(wrong_zone), ["subnet-zone-mismatch"]);

    let other = check(&report, "subnet", "network.private_subnets[0].id");
    assert_eq!(other["status"], "failed", "{other:#}");
    assert_eq!(fired(other), ["subnet-wrong-vpc"]);
    assert!(other["message"].as_str().unwrap().contains(&other_vpc));

    let not_found = check(&report, "subnet", "network.private_subnets[1].id");
    assert_eq!(not_found["status"], "failed", "{not_found:#}");
    assert_eq!(fired(not_found), ["subnet-not-found"]);
    assert_eq!(report["facts"]["missing_subnets"], json!([missing]));

    let few = check(&report, "subnet", "network.private_subnets[2].id");
    assert_eq!(few["status"], "failed", "{few:#}");
    assert_eq!(fired(few), ["subnet-few-free-addresses"]);

    // A VPC that does not exist.
    let mut gone = spec.clone();
    gone["network"]["vpc_id"] = json!("vpc-0123456789abcdef0");
    let report = checks(&router, &gone).await;
    let vpc_check = check(&report, "vpc-exists", "network.vpc_id");
    assert_eq!(vpc_check["status"], "failed", "{vpc_check:#}");
    assert!(
        vpc_check["message"]
            .as_str()
            .unwrap()
            .contains("does not exist")
    );
}

/// A node group may name a subnet the cluster does not list: eksctl looks it up by id and
/// takes it only in the cluster's VPC, so EC2 is asked, once per id, and answers decide.
#[tokio::test(flavor = "multi_thread")]
async fn a_node_groups_unlisted_subnet_is_asked_about_and_judged_by_its_vpc() {
    let emulator = Emulator::start();
    let ec2 = emulator.ec2_client();
    let cluster_vpc = new_vpc_in(&ec2, "10.10.0.0/16").await;
    let other_vpc = new_vpc_in(&ec2, "10.20.0.0/16").await;
    let listed = new_subnet_in(&ec2, &cluster_vpc, "10.10.0.0/20", "us-east-1a").await;
    let unlisted = new_subnet_in(&ec2, &cluster_vpc, "10.10.16.0/20", "us-east-1a").await;
    let elsewhere = new_subnet_in(&ec2, &other_vpc, "10.20.0.0/20", "us-east-1a").await;
    let missing = "subnet-0fedcba9876543210".to_owned();

    let router = router(emulator.live_aws().await);
    let on = |name: &str, subnets: &[&str]| {
        let mut group = group(name, "m5.large", &[], json!({ "kind": "on-demand" }), 1);
        group["placement"] = json!({ "kind": "subnets", "subnets": subnets });
        group
    };
    let spec = spec(
        json!({
            "mode": "existing-vpc",
            "vpc_id": cluster_vpc,
            "private_subnets": [
                { "name": "private-a", "id": listed, "availability_zone": "us-east-1a" },
            ],
        }),
        json!([
            on("in-vpc", &[&unlisted]),
            on("elsewhere", &[&elsewhere]),
            on("missing", &[&missing]),
            on("again", &[&unlisted]),
        ]),
    );
    let report = checks(&router, &spec).await;

    let ok = check(&report, "subnet", "node_groups[0].placement.subnets[0]");
    assert_eq!(ok["status"], "ok", "{ok:#}");
    assert!(
        !has_finding(
            &report,
            "nodegroup-subnet-unlisted",
            "node_groups[0].placement.subnets[0]"
        ),
        "EC2 said where it is: {report:#}"
    );
    let other = check(&report, "subnet", "node_groups[1].placement.subnets[0]");
    assert_eq!(fired(other), ["subnet-wrong-vpc"], "{other:#}");
    assert!(
        other["message"]
            .as_str()
            .unwrap()
            .contains("not in the attached VPC")
    );
    let gone = check(&report, "subnet", "node_groups[2].placement.subnets[0]");
    assert_eq!(fired(gone), ["subnet-not-found"], "{gone:#}");
    // The same id is asked once.
    let asked = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|check| {
            check["id"] == "subnet" && check["path"] == "node_groups[3].placement.subnets[0]"
        })
        .count();
    assert_eq!(asked, 0, "{report:#}");
}

#[tokio::test(flavor = "multi_thread")]
async fn spot_groups_get_placement_scores_and_prices() {
    let emulator = Emulator::start();
    emulator
        .seed(
            "spot-placement-scores",
            json!({ "scores": [
                { "region": REGION, "availability_zone_id": "use1-az6", "instance_types": ["g5.8xlarge"], "score": 2 },
                { "region": REGION, "availability_zone_id": "use1-az1", "instance_types": ["g5.8xlarge"], "score": 3 },
                { "region": REGION, "availability_zone_id": "use1-az1", "instance_types": ["g6e.12xlarge"], "score": 9 },
            ]}),
        )
        .await;
    let router = router(emulator.live_aws().await);
    let spot = json!({ "kind": "spot" });
    let mut unlikely = group(
        "unlikely",
        "g5.8xlarge",
        &["us-east-1a", "us-east-1b"],
        spot.clone(),
        4,
    );
    unlikely["instance_type"] = json!("");
    unlikely["instance_types"] = json!(["g5.8xlarge"]);
    let likely = group("likely", "g6e.12xlarge", &["us-east-1b"], spot, 2);
    let report = checks(&router, &spec(new_vpc(), json!([unlikely, likely]))).await;

    let low = check(&report, "spot-placement-score", "node_groups[0].capacity");
    assert_eq!(low["status"], "failed", "{low:#}");
    assert_eq!(fired(low), ["spot-placement-score-low"]);
    assert_eq!(
        low["detail"]["scores"][0]["availability_zone"],
        "us-east-1b"
    );
    assert_eq!(low["detail"]["target_capacity"], 4);

    let high = check(&report, "spot-placement-score", "node_groups[1].capacity");
    assert_eq!(high["status"], "ok", "{high:#}");
    assert!(
        high["message"].as_str().unwrap().contains("9 of 10"),
        "{high:#}"
    );

    let price = check(&report, "spot-price", "node_groups[1].capacity");
    assert_eq!(price["status"], "ok", "{price:#}");
    assert!(
        price["message"]
            .as_str()
            .unwrap()
            .contains("g6e.12xlarge $"),
        "{price:#}"
    );
    assert!(
        report["facts"]["spot_prices"]
            .as_array()
            .unwrap()
            .iter()
            .any(|fact| fact["instance_type"] == "g6e.12xlarge"),
        "{report:#}"
    );
    assert!(!price["detail"]["prices"].as_array().unwrap().is_empty());

    assert!(report["facts"]["spot_scores"].as_array().unwrap().contains(
        &json!({ "instance_type": "g5.8xlarge", "availability_zone": "us-east-1a", "score": 2 })
    ));
}

fn reservation_spec() -> Value {
    spec(
        new_vpc(),
        json!([group(
            "good",
            "p5.48xlarge",
            &["us-east-1a"],
            reservation(GOOD),
            2
        )]),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_identical_checks_share_one_upstream_call_and_the_cache_answers_after() {
    let emulator = Emulator::start();
    seed_reservations(&emulator).await;
    // Slow answers, so every request arrives while the first call is still in flight.
    emulator.delay(0.5).await;
    let router = router(emulator.live_aws().await);
    let spec = reservation_spec();
    let requests = (0..8).map(|_| {
        let router = router.clone();
        let spec = spec.clone();
        tokio::spawn(async move { checks(&router, &spec).await })
    });
    let started = Instant::now();
    let reports = futures_util::future::join_all(requests).await;
    let cold = started.elapsed();
    for report in &reports {
        let report = report.as_ref().unwrap();
        let result = check(
            report,
            "capacity-reservation",
            "node_groups[0].capacity.reservation_id",
        );
        assert_eq!(result["status"], "ok", "{result:#}");
    }
    let calls = emulator.all_calls().await;
    for action in [
        "DescribeCapacityReservations",
        "DescribeAvailabilityZones",
        "DescribeInstanceTypeOfferings",
        "DescribeInstanceTypes",
    ] {
        assert_eq!(calls[action], 1, "{action}: {calls}");
    }

    // Within the cache lifetime nothing is asked again.
    emulator.delay(0.0).await;
    let started = Instant::now();
    let report = checks(&router, &spec).await;
    let warm = started.elapsed();
    assert_eq!(emulator.all_calls().await, calls, "no call repeated");
    assert_eq!(
        check(
            &report,
            "capacity-reservation",
            "node_groups[0].capacity.reservation_id"
        )["status"],
        "ok"
    );
    eprintln!("8 concurrent cold checks: {cold:?}; one warm check: {warm:?}");
    assert!(
        warm < Duration::from_millis(200),
        "warm check took {warm:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stopped_emulator_makes_checks_could_not_run_within_seconds_and_the_server_keeps_serving()
{
    let mut emulator = Emulator::start();
    seed_reservations(&emulator).await;
    let aws = emulator
        .live_aws_with(AwsOptions {
            cache_lifetime: Duration::from_millis(100),
            call_timeout: emulator::GENEROUS_TIMEOUT,
            ..AwsOptions::default()
        })
        .await;
    let router = router(aws);
    let spec = reservation_spec();
    let report = checks(&router, &spec).await;
    assert!(
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|check| check["status"] == "ok"),
        "{report:#}"
    );

    emulator.stop();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    let report = checks(&router, &spec).await;
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    let results = report["checks"].as_array().unwrap();
    assert!(!results.is_empty());
    for result in results {
        assert_eq!(result["status"], "could-not-run", "{result:#}");
        assert_eq!(result["detail"]["reason"], "unreachable", "{result:#}");
        assert!(
            result["message"]
                .as_str()
                .unwrap()
                .contains("cannot reach AWS at"),
            "{result:#}"
        );
    }
    // Offline rules still answer.
    assert!(report["findings"].is_array());

    let (status, health) = call(&router, "GET", "/api/health", Body::empty()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(health["status"], "ok");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_slow_endpoint_times_out_into_could_not_run() {
    let emulator = Emulator::start();
    seed_reservations(&emulator).await;
    emulator.delay(10.0).await;
    let aws = emulator
        .live_aws_with(AwsOptions {
            call_timeout: Duration::from_secs(1),
            ..AwsOptions::default()
        })
        .await;
    let router = router(aws);
    let started = Instant::now();
    let report = checks(&router, &reservation_spec()).await;
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(4), "took {elapsed:?}");
    for result in report["checks"].as_array().unwrap() {
        assert_eq!(result["status"], "could-not-run", "{result:#}");
        assert_eq!(result["detail"]["reason"], "timeout", "{result:#}");
    }
}

#[tokio::test]
async fn offline_mode_says_so_in_health_and_every_check_could_not_run_with_the_reason() {
    let router = router(LiveAws::offline(
        "no AWS credentials found by the default chain",
        AwsOptions::default(),
    ));
    let (status, health) = call(&router, "GET", "/api/health", Body::empty()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(health["aws"]["credentials"], false);
    assert_eq!(
        health["aws"]["reason"],
        "no AWS credentials found by the default chain"
    );

    let report = checks(&router, &reservation_spec()).await;
    let results = report["checks"].as_array().unwrap();
    let ids: Vec<&str> = results
        .iter()
        .map(|check| check["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "kubernetes-version",
            "instance-type-offered",
            "instance-type-facts",
            "capacity-reservation"
        ]
    );
    for result in results {
        assert_eq!(result["status"], "could-not-run", "{result:#}");
        assert_eq!(result["detail"]["reason"], "offline");
        assert_eq!(
            result["message"],
            "offline: no AWS credentials found by the default chain"
        );
    }
    assert_eq!(
        report["facts"],
        json!({
            "offerings": [], "reservations": [], "missing_reservations": [],
            "subnets": [], "missing_subnets": [], "missing_vpcs": [],
            "placement_groups": [], "missing_placement_groups": [],
            "instance_types": [], "unknown_instance_types": [], "spot_scores": [],
            "spot_prices": [],
            "today": backend::today().to_string(),
        })
    );

    let (status, body) = post(
        &router,
        "/api/capacity-block-offerings",
        &json!({ "region": REGION, "instance_type": "p5.48xlarge", "instance_count": 1, "duration_hours": 24 }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "could-not-run");
}

#[tokio::test]
async fn a_spec_that_does_not_parse_gets_a_json_error_naming_the_problem() {
    let router = router(LiveAws::default());
    let (status, body) = call(&router, "POST", "/api/checks", Body::from("{\"cluster\": ")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("line 1 column"),
        "{body}"
    );

    let (status, body) = post(
        &router,
        "/api/checks",
        &json!({ "cluster": { "name": "x" } }),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body["error"].as_str().unwrap().contains("region"), "{body}");

    let mut unknown_region = reservation_spec();
    unknown_region["cluster"]["region"] = json!("mars-north-1");
    let report = checks(&router, &unknown_region).await;
    for result in report["checks"].as_array().unwrap() {
        assert_eq!(result["status"], "could-not-run");
    }
}

/// `eks-studio check` as a user runs it, with test credentials in the child's environment
/// and nothing from this machine's AWS configuration.
async fn check_command(
    spec: &Value,
    endpoint: Option<&str>,
    with_credentials: bool,
) -> (i32, String) {
    let path = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "live-check-spec-{}-{}.json",
        std::process::id(),
        rand_suffix()
    ));
    std::fs::write(&path, spec.to_string()).unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_eks-studio"));
    command
        .arg("check")
        .arg("--spec")
        .arg(&path)
        .env_remove("AWS_ACCESS_KEY_ID")
        .env_remove("AWS_SECRET_ACCESS_KEY")
        .env_remove("AWS_SESSION_TOKEN")
        .env_remove("AWS_PROFILE")
        .env_remove("AWS_ENDPOINT_URL")
        .env_remove("AWS_ENDPOINT_URL_EC2")
        .env_remove("AWS_ENDPOINT_URL_EKS")
        .env("AWS_CONFIG_FILE", "/nonexistent/aws-config")
        .env(
            "AWS_SHARED_CREDENTIALS_FILE",
            "/nonexistent/aws-credentials",
        )
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env(
            "EKS_STUDIO_EC2_TIMEOUT_SECONDS",
            emulator::GENEROUS_TIMEOUT.as_secs().to_string(),
        );
    if let Some(endpoint) = endpoint {
        command.args(["--ec2-endpoint", endpoint, "--eks-endpoint", endpoint]);
    }
    if with_credentials {
        command
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing");
    }
    let output = command.output().await.expect("eks-studio runs");
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (output.status.code().unwrap_or(-1), stdout)
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_check_command_prints_each_result_and_exits_by_the_worst() {
    let emulator = Emulator::start();
    seed_reservations(&emulator).await;

    let (code, stdout) = check_command(&reservation_spec(), Some(&emulator.endpoint), true).await;
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("ok             capacity-reservation"),
        "{stdout}"
    );
    assert!(
        stdout.contains("4 ok, 0 failed, 0 could not run"),
        "{stdout}"
    );

    let failing = spec(
        new_vpc(),
        json!([group(
            "wrong-zone",
            "p5.48xlarge",
            &["us-east-1a"],
            reservation(WRONG_ZONE),
            2
        )]),
    );
    let (code, stdout) = check_command(&failing, Some(&emulator.endpoint), true).await;
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("failed         capacity-reservation"),
        "{stdout}"
    );
    assert!(
        stdout.contains("error[reservation-zone-mismatch]: node_groups[0].placement"),
        "{stdout}"
    );

    let (code, stdout) = check_command(&reservation_spec(), Some(&emulator.endpoint), false).await;
    assert_eq!(code, 2, "{stdout}");
    assert!(stdout.contains("offline: no AWS credentials"), "{stdout}");
    assert!(
        stdout.contains("0 ok, 0 failed, 4 could not run"),
        "{stdout}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_emulator_serves_its_fixture_actions_as_genuine_ec2_answers() {
    // The fixture actions go through moto's serializer: the SDK parses them like AWS's.
    let emulator = Emulator::start();
    emulator
        .seed(
            "placement-groups",
            json!({ "region": REGION, "placement_groups": [
                { "GroupName": "fixture-efa", "Strategy": "cluster", "GroupId": "pg-0123456789abcdef0" },
            ]}),
        )
        .await;
    let ec2 = emulator.ec2_client();
    let groups = ec2
        .describe_placement_groups()
        .group_names("fixture-efa")
        .send()
        .await
        .unwrap();
    let group = &groups.placement_groups()[0];
    assert_eq!(group.group_name(), Some("fixture-efa"));
    assert_eq!(
        group.strategy().map(|strategy| strategy.as_str()),
        Some("cluster")
    );
    assert_eq!(group.tags()[0].key(), Some("fixture"));
    assert_eq!(emulator.calls("DescribePlacementGroups").await, 1);

    emulator.reset().await;
    assert_eq!(emulator.all_calls().await, json!({}));
    let unknown = ec2
        .describe_placement_groups()
        .group_names("fixture-efa")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        aws_sdk_ec2::error::ProvideErrorMetadata::code(&unknown),
        Some("InvalidPlacementGroup.Unknown")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_call_is_remembered_briefly_so_repeats_do_not_pay_again() {
    let emulator = Emulator::start();
    seed_reservations(&emulator).await;
    emulator
        .refuse(json!({ "DescribeCapacityReservations": "UnauthorizedOperation" }))
        .await;
    let router = router(emulator.live_aws().await);
    let first = checks(&router, &reservation_spec()).await;
    let asked = emulator.calls("DescribeCapacityReservations").await;
    assert!(asked >= 1, "{}", emulator.all_calls().await);
    // The same checks again at once: the refusal is remembered, EC2 is not asked.
    let again = checks(&router, &reservation_spec()).await;
    assert_eq!(
        emulator.calls("DescribeCapacityReservations").await,
        asked,
        "a refused call was repeated"
    );
    for report in [&first, &again] {
        let result = check(
            report,
            "capacity-reservation",
            "node_groups[0].capacity.reservation_id",
        );
        assert_eq!(result["status"], "could-not-run", "{result:#}");
        assert_eq!(result["detail"]["reason"], "refused", "{result:#}");
        assert!(
            result["message"]
                .as_str()
                .unwrap()
                .contains("UnauthorizedOperation"),
            "{result:#}"
        );
    }
    // A few seconds later EC2 is asked again.
    tokio::time::sleep(Duration::from_millis(5500)).await;
    checks(&router, &reservation_spec()).await;
    assert!(emulator.calls("DescribeCapacityReservations").await > asked);
}

#[tokio::test(flavor = "multi_thread")]
async fn one_request_makes_at_most_its_budget_of_ec2_calls() {
    let emulator = Emulator::start();
    let router = router(emulator.live_aws().await);
    // 150 groups, each on a reservation of its own: 150 reservations to ask about.
    let groups: Vec<Value> = (0..150)
        .map(|index| {
            group(
                &format!("g{index}"),
                "p5.48xlarge",
                &["us-east-1a"],
                reservation(&format!("cr-{index:017x}")),
                1,
            )
        })
        .collect();
    let report = checks(&router, &spec(new_vpc(), Value::from(groups))).await;
    let calls = emulator.all_calls().await;
    let total: u64 = calls
        .as_object()
        .unwrap()
        .values()
        .filter_map(Value::as_u64)
        .sum();
    assert!(total <= 100, "{total} EC2 calls: {calls}");
    let over: Vec<&Value> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|result| result["detail"]["reason"] == "call-budget")
        .collect();
    assert!(!over.is_empty(), "no check was held back");
    for result in &over {
        assert_eq!(result["status"], "could-not-run");
        assert!(
            result["message"]
                .as_str()
                .unwrap()
                .contains("more than 100 EC2 calls"),
            "{result}"
        );
    }
    let asked = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|result| {
            result["id"] == "capacity-reservation" && result["detail"]["reason"] != "call-budget"
        })
        .count();
    assert!(asked >= 90, "only {asked} reservations were asked about");
}

fn with_version(mut spec: Value, version: &str) -> Value {
    spec["cluster"]["kubernetes_version"] = json!(version);
    spec
}

#[tokio::test(flavor = "multi_thread")]
async fn the_kubernetes_version_is_checked_against_what_eks_lists_in_the_region() {
    let emulator = Emulator::start();
    let router = router(emulator.live_aws().await);

    // Without seeded data the emulator answers from AWS's release calendar: every version
    // of it is listed, with its dates.
    let report = checks(&router, &with_version(reservation_spec(), "1.35")).await;
    let version = check(&report, "kubernetes-version", "cluster.kubernetes_version");
    let listed: Vec<&str> = version["detail"]["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|fact| fact["version"].as_str().unwrap())
        .collect();
    let calendar: Vec<&str> = shared::catalog::versions::calendar()
        .iter()
        .map(|entry| entry.version)
        .collect();
    assert_eq!(listed, calendar, "{version:#}");

    // A region where EKS lists other versions: EKS's answer wins over the calendar.
    emulator
        .seed(
            "cluster-versions",
            json!({ "region": REGION, "cluster_versions": [
                { "clusterVersion": "1.36", "versionStatus": "STANDARD_SUPPORT",
                  "endOfStandardSupportDate": "2027-09-01T00:00:00Z" },
                { "clusterVersion": "1.35", "versionStatus": "EXTENDED_SUPPORT",
                  "endOfStandardSupportDate": "2026-11-01T00:00:00Z",
                  "endOfExtendedSupportDate": "2027-11-01T00:00:00Z" },
                { "clusterVersion": "1.34", "versionStatus": "UNSUPPORTED",
                  "endOfExtendedSupportDate": "2026-11-30T00:00:00Z" },
            ]}),
        )
        .await;
    let router = router_with_fresh_cache(&emulator).await;

    let report = checks(&router, &with_version(reservation_spec(), "1.36")).await;
    let version = check(&report, "kubernetes-version", "cluster.kubernetes_version");
    assert_eq!(version["status"], "ok", "{version:#}");
    assert_eq!(
        version["message"],
        "EKS offers Kubernetes 1.36 in us-east-1 (standard support until 2027-09-01)"
    );
    assert!(
        !has_finding(
            &report,
            "kubernetes-version-newer-than-calendar",
            "cluster.kubernetes_version"
        ),
        "{report:#}"
    );

    let report = checks(&router, &with_version(reservation_spec(), "1.35")).await;
    let version = check(&report, "kubernetes-version", "cluster.kubernetes_version");
    assert_eq!(
        version["status"], "ok",
        "extended support costs, EKS still creates it"
    );
    assert_eq!(fired(version), ["kubernetes-version-extended-support"]);
    assert!(
        version["message"]
            .as_str()
            .unwrap()
            .contains("left standard support on 2026-11-01"),
        "{version:#}"
    );

    let report = checks(&router, &with_version(reservation_spec(), "1.34")).await;
    let version = check(&report, "kubernetes-version", "cluster.kubernetes_version");
    assert_eq!(version["status"], "failed", "{version:#}");
    assert_eq!(
        version["message"],
        "Kubernetes 1.34 is no longer offered by EKS: its extended support ended on 2026-11-30"
    );

    let report = checks(&router, &with_version(reservation_spec(), "1.33")).await;
    let version = check(&report, "kubernetes-version", "cluster.kubernetes_version");
    assert_eq!(version["status"], "failed", "{version:#}");
    assert_eq!(
        version["message"],
        "EKS in us-east-1 does not offer Kubernetes 1.33; it offers 1.36, 1.35 (DescribeClusterVersions)"
    );
    // Four requests on this router, one call (the first router made the other): the
    // answer is the region's, cached.
    assert_eq!(emulator.calls("DescribeClusterVersions").await, 2);

    // A version that is not `1.NN` is not asked about.
    let report = checks(&router, &with_version(reservation_spec(), "1.3x")).await;
    let version = check(&report, "kubernetes-version", "cluster.kubernetes_version");
    assert_eq!(version["status"], "could-not-run");
    assert_eq!(version["detail"]["reason"], "spec-value");

    // Refused (no eks:DescribeClusterVersions permission): could not run, and the
    // calendar still judges the version.
    emulator
        .refuse(json!({ "DescribeClusterVersions": "AccessDeniedException" }))
        .await;
    let router = router_with_fresh_cache(&emulator).await;
    let report = checks(&router, &with_version(reservation_spec(), "1.31")).await;
    let version = check(&report, "kubernetes-version", "cluster.kubernetes_version");
    assert_eq!(version["status"], "could-not-run", "{version:#}");
    assert_eq!(version["detail"]["reason"], "refused");
    assert!(
        version["message"]
            .as_str()
            .unwrap()
            .contains("DescribeClusterVersions was refused: AccessDeniedException"),
        "{version:#}"
    );
    assert!(has_finding(
        &report,
        "kubernetes-version-unsupported",
        "cluster.kubernetes_version"
    ));
}

/// A router whose EC2 and EKS answers are not yet cached.
async fn router_with_fresh_cache(emulator: &Emulator) -> Router {
    router(emulator.live_aws().await)
}

#[test]
fn the_live_checks_page_lists_every_live_check_and_every_permission_it_needs() {
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/live-checks.md"
    ))
    .expect("docs/live-checks.md reads");
    let policy_start = readme
        .find("\"Sid\": \"EksTrainingStudioLiveChecks\"")
        .expect("docs/live-checks.md has the live checks' IAM policy");
    let policy = &readme[policy_start..];
    let policy = &policy[..policy.find("```").expect("the policy block ends")];
    for kind in shared::model::live_checks::LIVE_CHECKS {
        assert!(
            readme.contains(&format!("| `{}` |", kind.id)),
            "docs/live-checks.md's table has no row for {}",
            kind.id
        );
        for action in kind.asks {
            assert!(
                policy.contains(&format!("\"{action}\"")),
                "docs/live-checks.md's IAM policy lacks {action} (check {})",
                kind.id
            );
        }
    }
    // Every call the server makes, checks or not (the picker's offerings, where a type is
    // sold), is in the policy.
    let calls = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/aws/calls.rs"))
        .expect("calls.rs reads");
    let mut seen = 0;
    for line in calls.lines() {
        let Some(call) = line
            .trim()
            .strip_prefix("const CALL: &str = \"")
            .and_then(|rest| rest.strip_suffix("\";"))
        else {
            continue;
        };
        seen += 1;
        let service = if call == "DescribeClusterVersions" {
            "eks"
        } else {
            "ec2"
        };
        assert!(
            policy.contains(&format!("\"{service}:{call}\"")),
            "docs/live-checks.md's IAM policy lacks {service}:{call}"
        );
    }
    assert!(seen >= 10, "{seen} calls found in calls.rs");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn placement_groups_are_looked_up_by_name_or_id_and_judged_by_strategy() {
    let emulator = Emulator::start();
    emulator
        .seed(
            "placement-groups",
            json!({
                "region": REGION,
                "placement_groups": [
                    {"GroupName": "training", "GroupId": "pg-0aaaaaaaaaaaaaaa1", "Strategy": "cluster"},
                    {"GroupName": "spread-out", "GroupId": "pg-0aaaaaaaaaaaaaaa2", "Strategy": "spread"},
                ],
            }),
        )
        .await;
    let router = router(emulator.live_aws().await);
    let mut efa = group("efa", "p5.48xlarge", &["us-east-1a"], on_demand(), 2);
    efa["efa_enabled"] = json!(true);
    efa["placement_group"] = json!("training");
    let mut spread = group("spread", "g5.8xlarge", &["us-east-1a"], on_demand(), 8);
    spread["placement_group"] = json!("spread-out");
    let mut missing = group("missing", "g5.8xlarge", &["us-east-1a"], on_demand(), 1);
    missing["placement_group"] = json!("no-such-group");
    let mut design = spec(new_vpc(), json!([efa, spread, missing]));
    let mut karpenter: Value = serde_json::from_str(
        &shared::template("karpenter-spot-inference")
            .unwrap()
            .spec()
            .to_json(),
    )
    .unwrap();
    karpenter["karpenter"]["node_classes"][0]["spec"]["placementGroupSelector"] =
        json!({"id": "pg-0aaaaaaaaaaaaaaa1"});
    design["karpenter"] = karpenter["karpenter"].clone();
    let report = checks(&router, &design).await;

    let found = check(&report, "placement-group", "node_groups[0].placement_group");
    assert_eq!(found["status"], "ok", "{found:#}");
    assert!(
        text(&found["message"])
            .contains("training (pg-0aaaaaaaaaaaaaaa1) exists: cluster strategy"),
        "{found:#}"
    );
    let too_many = check(&report, "placement-group", "node_groups[1].placement_group");
    assert_eq!(too_many["status"], "failed", "{too_many:#}");
    assert_eq!(fired(too_many), ["placement-group-spread-too-small"]);
    let unknown = check(&report, "placement-group", "node_groups[2].placement_group");
    assert_eq!(unknown["status"], "failed", "{unknown:#}");
    assert_eq!(fired(unknown), ["placement-group-not-found"]);
    assert!(has_finding(
        &report,
        "placement-group-not-found",
        "node_groups[2].placement_group"
    ));
    let by_id = check(
        &report,
        "placement-group",
        "karpenter.node_classes[0].spec.placementGroupSelector.id",
    );
    assert_eq!(by_id["status"], "ok", "{by_id:#}");
    assert!(
        text(&by_id["message"]).contains("training (pg-0aaaaaaaaaaaaaaa1)"),
        "{by_id:#}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_picker_learns_every_type_offered_in_the_regions_zones_in_one_cached_search() {
    let emulator = Emulator::start();
    let app = router(emulator.live_aws().await);
    let (status, body) = post(&app, "/api/offerings", &json!({ "region": REGION })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "ok", "{body:#}");
    assert_eq!(body["region"], REGION);
    let zones: Vec<&str> = body["zones"].as_array().unwrap().iter().map(text).collect();
    assert!(zones.contains(&"us-east-1a"), "{zones:?}");
    let types = body["instance_types"].as_object().unwrap();
    // EC2's (moto's) own offering data: hundreds of types, each in some of the zones.
    assert!(types.len() > 100, "{} types", types.len());
    let p5: Vec<&str> = types["p5.48xlarge"]
        .as_array()
        .unwrap()
        .iter()
        .map(text)
        .collect();
    assert!(!p5.is_empty());
    assert!(
        p5.iter().all(|zone| zones.contains(zone)),
        "{p5:?} {zones:?}"
    );
    assert!(!types.contains_key("p9.imaginary"));
    let asked = emulator.calls("DescribeInstanceTypeOfferings").await;
    assert!(asked >= 1);

    // Asked again (another picker, the same region): answered from the cache.
    let (_, again) = post(&app, "/api/offerings", &json!({ "region": REGION })).await;
    assert_eq!(again, body);
    assert_eq!(emulator.calls("DescribeInstanceTypeOfferings").await, asked);

    // A region the studio does not know is the request's fault, said as such.
    let (status, body) = post(&app, "/api/offerings", &json!({ "region": "mars-1" })).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(text(&body["error"]).contains("mars-1"), "{body}");

    // EC2 refusing is an answer that could not be had, with EC2's reason.
    emulator.reset().await;
    emulator
        .refuse(json!({ "DescribeAvailabilityZones": "UnauthorizedOperation" }))
        .await;
    let fresh = router(emulator.live_aws().await);
    let (status, body) = post(&fresh, "/api/offerings", &json!({ "region": REGION })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "could-not-run", "{body:#}");
    assert!(
        text(&body["message"]).contains("UnauthorizedOperation"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn where_a_gpu_type_is_sold_is_asked_of_every_region_with_its_capacity_blocks() {
    let emulator = Emulator::start();
    // A day-long block for one p5 on sale in us-east-1 only.
    emulator
        .seed(
            "capacity-block-offerings",
            json!({
                "region": REGION,
                "offerings": [
                    {
                        "InstanceType": "p5.48xlarge",
                        "AvailabilityZone": "us-east-1a",
                        "InstanceCount": 1,
                        "StartDate": "2030-03-01T11:30:00Z",
                        "CapacityBlockDurationHours": 24,
                    },
                    {
                        "InstanceType": "p5.48xlarge",
                        "AvailabilityZone": "us-east-1b",
                        "InstanceCount": 1,
                        "StartDate": "2030-02-01T11:30:00Z",
                        "CapacityBlockDurationHours": 24,
                    },
                ],
            }),
        )
        .await;
    let router = router(emulator.live_aws().await);
    let (status, body) = post(
        &router,
        "/api/where-sold",
        &json!({ "region": REGION, "instance_types": ["p5.48xlarge", "g4dn.8xlarge", "p5.48xlarge"] }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "ok", "{body:#}");
    let entries = body["instance_types"].as_array().unwrap();
    // Each type once, in the order asked.
    assert_eq!(entries.len(), 2, "{body:#}");
    assert_eq!(entries[0]["instance_type"], "p5.48xlarge");
    assert_eq!(entries[1]["instance_type"], "g4dn.8xlarge");
    let regions = |entry: &Value| -> Vec<String> {
        entry["regions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|region| text(region).to_owned())
            .collect()
    };
    let p5 = regions(&entries[0]);
    let g4dn = regions(&entries[1]);
    assert!(p5.contains(&REGION.to_owned()), "{p5:?}");
    // g4dn is older and sold more widely than p5.
    assert!(g4dn.len() > p5.len(), "{g4dn:?} vs {p5:?}");
    let asked_regions = emulator.calls("DescribeRegions").await;
    assert_eq!(asked_regions, 1);
    // One search per region offering p5 (g4dn is not sold as Capacity Blocks), and the
    // block on sale is found where it is, with its earliest start.
    assert_eq!(
        emulator.calls("DescribeCapacityBlockOfferings").await,
        p5.len() as u64
    );
    assert_eq!(
        entries[0]["capacity_blocks"],
        json!([{ "region": REGION, "earliest_start": "2030-02-01T11:30:00Z" }])
    );
    assert_eq!(entries[1]["capacity_blocks"], json!([]));

    // Bad requests say which field is wrong.
    for bad in [
        json!({ "region": REGION, "instance_types": [] }),
        json!({ "region": REGION, "instance_types": ["not a type"] }),
        json!({ "region": "nowhere-1", "instance_types": ["p5.48xlarge"] }),
    ] {
        let (status, body) = post(&router, "/api/where-sold", &bad).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad} → {body}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn where_an_ultraserver_type_is_sold_searches_each_ultraserver_size_for_blocks() {
    let emulator = Emulator::start();
    // moto's bundled offerings predate P6e-GB200: EC2 here offers it in one region, and
    // sells a day-long block of one 72-GPU UltraServer there (none of 36 GPUs).
    emulator
        .seed(
            "instance-type-offerings",
            json!({
                "region": REGION,
                "instance_types": ["p6e-gb200.36xlarge"],
                "zones": ["us-east-1a"],
            }),
        )
        .await;
    emulator
        .seed(
            "capacity-block-offerings",
            json!({
                "region": REGION,
                "offerings": [
                    {
                        "InstanceType": "p6e-gb200.36xlarge",
                        "AvailabilityZone": "us-east-1a",
                        "InstanceCount": 18,
                        "UltraserverType": "u-p6e-gb200x72",
                        "UltraserverCount": 1,
                        "StartDate": "2030-04-01T11:30:00Z",
                        "CapacityBlockDurationHours": 24,
                    },
                ],
            }),
        )
        .await;
    let router = router(emulator.live_aws().await);
    let (status, body) = post(
        &router,
        "/api/where-sold",
        &json!({ "region": REGION, "instance_types": ["p6e-gb200.36xlarge"] }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "ok", "{body:#}");
    let entry = &body["instance_types"][0];
    assert_eq!(entry["instance_type"], "p6e-gb200.36xlarge");
    assert_eq!(entry["regions"], json!([REGION]), "{body:#}");
    // One search per UltraServer size the type makes (u-p6e-gb200x36 and x72): an
    // UltraServer block is never found by its instance type.
    assert_eq!(emulator.calls("DescribeCapacityBlockOfferings").await, 2);
    assert_eq!(
        entry["capacity_blocks"],
        json!([{
            "region": REGION,
            "earliest_start": "2030-04-01T11:30:00Z",
            "ultraserver_type": "u-p6e-gb200x72",
        }]),
        "{body:#}"
    );
    assert_eq!(entry["unanswered"], json!([]), "{body:#}");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_credentials_the_offerings_say_why_they_are_not_known() {
    let router = router(LiveAws::offline(
        "no credentials in this test",
        AwsOptions::default(),
    ));
    let (status, body) = post(&router, "/api/offerings", &json!({ "region": REGION })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "could-not-run");
    assert!(
        text(&body["message"]).contains("no credentials in this test"),
        "{body}"
    );
    let (_, body) = post(
        &router,
        "/api/where-sold",
        &json!({ "region": REGION, "instance_types": ["p5.48xlarge"] }),
    )
    .await;
    assert_eq!(body["status"], "could-not-run", "{body}");
}
