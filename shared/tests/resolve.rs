//! Which instance types each NodePool can launch, checked against the pools' own
//! requirements type by type, and kept in step with the rules' matcher.

use shared::catalog::instances::{self, Architecture};
use shared::model::resolve::resolve;
use shared::upstream::karpenter::Requirement;

#[test]
fn the_best_practice_spot_pool_resolves_to_the_recent_big_memory_gpu_types_and_nothing_else() {
    let spec = shared::template("karpenter-spot-inference").unwrap().spec();
    let pools = resolve(&spec);
    assert_eq!(pools.len(), 1);
    let pool = &pools[0];
    assert_eq!(pool.name, "gpu-inference-spot");
    assert_eq!(pool.path, "karpenter.node_pools[0]");
    assert_eq!(pool.count, pool.instance_types.len());
    // Every type the catalog holds that fits the requirements is listed, and no other.
    // Karpenter's category is the family's letters before its generation (`gr6` is `gr`).
    let category = |family: &str| {
        family
            .split(|c: char| c.is_ascii_digit())
            .next()
            .unwrap_or_default()
            .to_owned()
    };
    let fits = |instance: &instances::InstanceType| {
        ["g", "p"].contains(&category(instance.family).as_str())
            && instance.generation > 3
            && instance.gpu_memory_mib.is_some_and(|mib| mib > 20480)
            && instance.architecture == Architecture::Amd64
    };
    let expected: Vec<&str> = instances::all()
        .iter()
        .filter(|instance| fits(instance))
        .map(|instance| instance.name)
        .collect();
    let mut listed: Vec<&str> = pool
        .instance_types
        .iter()
        .map(|instance| instance.name)
        .collect();
    listed.sort_unstable();
    let mut expected_sorted = expected.clone();
    expected_sorted.sort_unstable();
    assert_eq!(listed, expected_sorted);
    for name in ["g5.xlarge", "g6.xlarge", "g6e.48xlarge"] {
        assert!(listed.contains(&name), "{name}");
    }
    for name in [
        "g4dn.xlarge",
        "g5g.xlarge",
        "m6i.large",
        "inf2.xlarge",
        "trn1.32xlarge",
    ] {
        assert!(!listed.contains(&name), "{name}");
    }
}

#[test]
fn a_pool_pinned_to_one_type_resolves_to_it_and_changes_follow_its_requirements() {
    let mut spec = shared::template("karpenter-reserved-training")
        .unwrap()
        .spec();
    let names = |spec: &shared::Spec| -> Vec<&'static str> {
        resolve(spec)[0]
            .instance_types
            .iter()
            .map(|instance| instance.name)
            .collect()
    };
    assert_eq!(names(&spec), ["p5.48xlarge"]);
    let requirements = &mut spec.karpenter.as_mut().unwrap().node_pools[0]
        .spec
        .template
        .spec
        .requirements;
    requirements[1] = Requirement::new("karpenter.k8s.aws/instance-family", "In", &["g5", "g66"]);
    let listed = names(&spec);
    assert!(
        listed.iter().all(|name| name.starts_with("g5.")),
        "{listed:?}"
    );
    assert_eq!(listed.len(), 8, "g66 is no family: {listed:?}");
    requirements_of(&mut spec)[1] =
        Requirement::new("karpenter.k8s.aws/instance-family", "In", &["g66"]);
    assert!(names(&spec).is_empty());
}

fn requirements_of(spec: &mut shared::Spec) -> &mut Vec<Requirement> {
    &mut spec.karpenter.as_mut().unwrap().node_pools[0]
        .spec
        .template
        .spec
        .requirements
}

#[test]
fn a_design_without_karpenter_has_no_pools_to_resolve() {
    assert!(resolve(&shared::template("g4dn").unwrap().spec()).is_empty());
}

#[test]
fn each_type_carries_its_on_demand_price_for_the_designs_region_or_says_whose_it_is() {
    use shared::catalog::prices::{REFERENCE_REGION, on_demand};
    // Figures of Karpenter's generated table (pkg/providers/pricing), as embedded.
    let p5 = on_demand("us-east-1", "p5.48xlarge").unwrap();
    assert_eq!((p5.usd_per_hour, p5.region), (55.04, "us-east-1"));
    let gov = on_demand("us-gov-west-1", "p5.48xlarge").unwrap();
    assert_eq!((gov.usd_per_hour, gov.region), (66.048, "us-gov-west-1"));
    // A region the table does not hold gets us-east-1's price, named as such.
    let elsewhere = on_demand("eu-west-1", "p5.48xlarge").unwrap();
    assert_eq!(elsewhere.region, REFERENCE_REGION);
    // China is priced in yuan, a GovCloud type the table lacks has no price, nor a typo.
    assert_eq!(on_demand("cn-north-1", "p5.48xlarge"), None);
    assert_eq!(on_demand("us-east-1", "p5.48xlargee"), None);
    assert!(!shared::catalog::prices::generated_at().is_empty());

    let mut spec = shared::template("karpenter-reserved-training")
        .unwrap()
        .spec();
    spec.cluster.region = "us-east-1".into();
    let pool = &resolve(&spec)[0];
    let price = pool.instance_types[0].on_demand.unwrap();
    assert_eq!(pool.instance_types[0].name, "p5.48xlarge");
    assert_eq!(shared::catalog::prices::per_hour(&price), "$55.04/h");
    let json = serde_json::to_value(pool).unwrap();
    assert_eq!(json["instance_types"][0]["name"], "p5.48xlarge");
    assert_eq!(
        json["instance_types"][0]["on_demand"]["usd_per_hour"],
        55.04
    );
    assert_eq!(
        json["instance_types"][0]["on_demand"]["region"],
        "us-east-1"
    );
}

#[test]
fn the_plan_says_where_what_and_how_much_before_anything_is_created() {
    let mut spec = shared::template("karpenter-reserved-training")
        .unwrap()
        .spec();
    spec.cluster.region = "us-east-1".into();
    let plan = shared::deploy::plan::summary(&spec);
    let cluster = &spec.cluster.name;
    assert_eq!(plan.region, "us-east-1");
    assert_eq!(plan.stacks.first(), Some(&format!("Karpenter-{cluster}")));
    assert!(plan.stacks.contains(&format!("eksctl-{cluster}-cluster")));
    assert_eq!(
        plan.stacks.last(),
        Some(&format!("Karpenter-{cluster}-access"))
    );
    let system = &plan.node_groups[0];
    assert_eq!(
        system.desired,
        spec.node_groups[0].desired_capacity.unwrap()
    );
    let price = shared::catalog::prices::on_demand("us-east-1", &spec.node_groups[0].instance_type)
        .unwrap()
        .usd_per_hour;
    let (total, region) = plan.hourly.unwrap();
    assert_eq!(region, "us-east-1");
    assert!((total - price * f64::from(system.desired)).abs() < 1e-9);
    assert_eq!(
        plan.node_pools,
        [(
            spec.karpenter.as_ref().unwrap().node_pools[0]
                .metadata
                .name
                .clone(),
            1
        )]
    );
    let lines = shared::deploy::plan::lines(&plan);
    assert!(
        lines[0].starts_with("Region us-east-1, zones "),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|line| line.contains("an hour at on-demand rates")),
        "{lines:?}"
    );
    // A type the table does not price leaves the total out rather than guessing.
    spec.node_groups[0].instance_type = "p5.48xlargee".into();
    assert_eq!(shared::deploy::plan::summary(&spec).hourly, None);
}

#[test]
fn the_plan_names_the_volumes_it_makes_and_what_bills() {
    let spec = shared::template("p5-checkpoint-storage").unwrap().spec();
    let lines = shared::deploy::plan::lines(&shared::deploy::plan::summary(&spec));
    assert!(
        lines.iter().any(|line| line.starts_with(
            "FSx for Lustre file system: PERSISTENT_2, 2400 GiB at 250 MB/s per TiB, in subnet PLACEHOLDER_SUBNET_PRIVATE_1"
        ) && line.ends_with("billed until that claim is deleted")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|line| line.starts_with("S3 bucket PLACEHOLDER_S3_BUCKET under checkpoints/:")),
        "{lines:?}"
    );
    // The approval step's title carries them and gives them back line by line.
    let title = shared::deploy::plan::approval_title(&shared::deploy::plan::summary(&spec));
    let back = shared::deploy::plan::lines_of_approval_title(&title);
    assert_eq!(back.len(), lines.len(), "{back:?}");
    let plain = shared::template("p5-odcr-vpc").unwrap().spec();
    assert!(shared::deploy::plan::summary(&plain).volumes.is_empty());
}

/// The matcher keeps its last answers; a pool whose requirements change gets the answer
/// for its new requirements, and going back gives the first answer again.
#[test]
fn a_changed_requirement_is_answered_afresh_and_a_restored_one_as_before() {
    let spec = shared::template("karpenter-spot-inference").unwrap().spec();
    let mut pool = spec.karpenter.as_ref().unwrap().node_pools[0].clone();
    let names = |pool: &shared::upstream::karpenter::NodePool| -> Vec<&'static str> {
        shared::upstream::matching::matching_instance_types(pool)
            .iter()
            .map(|instance| instance.name)
            .collect()
    };
    let first = names(&pool);
    assert!(first.contains(&"g6e.48xlarge"));
    let requirements = &mut pool.spec.template.spec.requirements;
    requirements.push(Requirement {
        key: "karpenter.k8s.aws/instance-family".into(),
        operator: "In".into(),
        values: vec!["g6e".into()].into(),
        ..Requirement::default()
    });
    let narrowed = names(&pool);
    assert!(!narrowed.is_empty());
    assert!(
        narrowed.iter().all(|name| name.starts_with("g6e.")),
        "{narrowed:?}"
    );
    // One value changed in place, the list's length the same.
    pool.spec
        .template
        .spec
        .requirements
        .last_mut()
        .unwrap()
        .values = vec!["g5".into()].into();
    let other = names(&pool);
    assert!(
        other.iter().all(|name| name.starts_with("g5.")),
        "{other:?}"
    );
    assert!(!other.is_empty());
    pool.spec.template.spec.requirements.pop();
    assert_eq!(names(&pool), first);
}

#[test]
fn a_pool_that_launches_nothing_says_which_requirement_shuts_out_which_types_and_by_how_much() {
    let mut spec = shared::template("karpenter-spot-inference").unwrap().spec();
    let karpenter = spec.karpenter.as_mut().unwrap();
    let requirements = &mut karpenter.node_pools[0].spec.template.spec.requirements;
    requirements.clear();
    requirements.push(Requirement::new(
        "karpenter.k8s.aws/instance-family",
        "In",
        &["g5", "g6"],
    ));
    // "At least 24 GiB of GPU memory": g5 and g6 report 22,888 MiB per GPU.
    requirements.push(Requirement::new(
        "karpenter.k8s.aws/instance-gpu-memory",
        "Gte",
        &["24576"],
    ));
    requirements.push(Requirement::new("kubernetes.io/arch", "In", &["amd64"]));
    let pool = &resolve(&spec)[0];
    assert_eq!(pool.count, 0);
    // Without the memory requirement every g5 and g6 would do; without the family, the
    // types with more GPU memory (g6e, p4d…).
    let blamed: Vec<usize> = pool
        .excluded_by
        .iter()
        .map(|exclusion| exclusion.requirement)
        .collect();
    assert_eq!(blamed, [0, 1]);
    assert!(
        pool.excluded_by[0]
            .nearest
            .iter()
            .all(|excluded| !["g5", "g6"].contains(&excluded.value.as_str()))
    );
    let exclusion = &pool.excluded_by[1];
    let expected = instances::all()
        .iter()
        .filter(|instance| ["g5", "g6"].contains(&instance.family))
        .filter(|instance| instance.architecture == Architecture::Amd64)
        .count();
    assert_eq!(exclusion.excluded, expected);
    assert!(
        exclusion
            .nearest
            .iter()
            .all(|excluded| excluded.value == "22,888 MiB"),
        "{exclusion:?}"
    );
    // The smallest first: g5.xlarge, then g5.2xlarge.
    assert_eq!(exclusion.nearest[0].name, "g5.xlarge");
    assert!(
        exclusion.words.starts_with(&format!(
            "`karpenter.k8s.aws/instance-gpu-memory Gte 24576` (24 GiB) alone shuts out {expected} types every other requirement allows: "
        )),
        "{}",
        exclusion.words
    );
    // The rule that refuses the pool says the same, so `lint` does too.
    let finding = shared::rules::validate(&spec)
        .into_iter()
        .find(|finding| finding.rule == "karpenter-requirements-match-nothing")
        .expect("the pool launches nothing");
    assert!(
        finding.message.contains(&exclusion.words),
        "{}",
        finding.message
    );
    // A pool that launches something has nothing to explain.
    let karpenter = spec.karpenter.as_mut().unwrap();
    karpenter.node_pools[0].spec.template.spec.requirements[1] =
        Requirement::new("karpenter.k8s.aws/instance-gpu-memory", "Gte", &["20480"]);
    let pool = &resolve(&spec)[0];
    assert!(pool.count > 0);
    assert!(pool.excluded_by.is_empty());
}

#[test]
fn memory_labels_are_read_in_mebibytes_and_sizes_written_in_binary_units_convert() {
    use shared::upstream::matching::{gibibytes_text, in_mebibytes, mebibytes};
    assert!(in_mebibytes("karpenter.k8s.aws/instance-gpu-memory"));
    assert!(in_mebibytes("eks.amazonaws.com/instance-memory"));
    assert!(!in_mebibytes("karpenter.k8s.aws/instance-gpu-count"));
    assert_eq!(mebibytes("24Gi"), Some(24576));
    assert_eq!(mebibytes("24 GiB"), Some(24576));
    assert_eq!(mebibytes("0.5 TiB"), Some(524_288));
    assert_eq!(mebibytes("22888"), Some(22888));
    assert_eq!(mebibytes("1.5Gi"), Some(1536));
    // Decimal units are ambiguous (Kubernetes reads G as 10^9 bytes): not guessed.
    assert_eq!(mebibytes("24G"), None);
    assert_eq!(mebibytes("24GB"), None);
    assert_eq!(mebibytes("lots"), None);
    assert_eq!(gibibytes_text(24576), "24 GiB");
    assert_eq!(gibibytes_text(22888), "22.35 GiB");
    use shared::upstream::matching::unit_note;
    let key = "karpenter.k8s.aws/instance-gpu-memory";
    let note = unit_note(key, &["24576".to_owned()]).unwrap();
    assert_eq!(
        note.words,
        "`instance-gpu-memory` is in MiB: 24,576 is 24 GiB"
    );
    assert_eq!(note.in_mebibytes, None);
    let note = unit_note(key, &["24Gi".to_owned()]).unwrap();
    assert_eq!(note.in_mebibytes, Some(vec!["24576".to_owned()]));
    assert!(note.words.contains("24Gi is 24576"), "{}", note.words);
    let note = unit_note(key, &["24G".to_owned()]).unwrap();
    assert_eq!(note.in_mebibytes, None);
    assert!(unit_note("karpenter.k8s.aws/instance-gpu-count", &["8".to_owned()]).is_none());
}

#[test]
fn prices_of_another_region_say_why_in_plain_words() {
    use shared::catalog::prices::{REFERENCE_REGION, price_region};
    use shared::model::resolve::price_note;
    assert_eq!(price_note(REFERENCE_REGION), None);
    assert_eq!(
        price_note("PLACEHOLDER_AWS_REGION").as_deref(),
        Some("prices are us-east-1's until the region is set")
    );
    // A region of the aws partition the table does not hold.
    let absent = "xx-nowhere-9";
    assert_eq!(price_region(absent), Some(REFERENCE_REGION));
    assert_eq!(
        price_note(absent).as_deref(),
        Some(
            "the studio's price table has no prices for xx-nowhere-9: prices shown are us-east-1's, which may differ"
        )
    );
    // China has no prices at all, so no note about another region's.
    assert_eq!(price_note("cn-north-1"), None);
}
