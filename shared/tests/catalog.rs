//! The embedded instance-type catalog answers with the facts of the reference tables.

use shared::catalog::instances::{self, Architecture, CatalogFilter, InstanceType};

const GIB: u32 = 1024;

fn instance(name: &str) -> &'static InstanceType {
    instances::lookup(name).unwrap_or_else(|| panic!("{name} is not in the catalog"))
}

fn names(found: &[&InstanceType]) -> Vec<&'static str> {
    found
        .iter()
        .map(|instance_type| instance_type.name)
        .collect()
}

#[test]
fn the_catalog_holds_every_type_of_both_reference_tables_sorted_by_name() {
    // 1363 types in instance-types.csv, 1220 in eksctl-instance-flags.csv, all of which are
    // among the 1363; the 143 others are mostly `.metal` sizes eksctl does not list. 49 more
    // from Karpenter's earlier docs (xtask/data/karpenter-earlier-types.csv); the two
    // UltraServer types, trn2.3xlarge and u7inh-32tb.480xlarge come from the additions table (`cargo xtask catalog`).
    let all = instances::all();
    assert_eq!(all.len(), 1416);
    assert!(all.windows(2).all(|pair| pair[0].name < pair[1].name));
    assert_eq!(all.first().map(|first| first.name), Some("a1.2xlarge"));
}

#[test]
fn p5_48xlarge_has_eight_h100s_with_80_gib_each_and_32_efa_interfaces() {
    let p5 = instance("p5.48xlarge");
    assert_eq!(p5.family, "p5");
    assert_eq!(p5.generation, 5);
    assert_eq!(p5.vcpus, 192);
    assert_eq!(p5.memory_mib, 2048 * GIB);
    assert_eq!(p5.gpu_count, 8);
    assert_eq!(p5.gpu_name, Some("h100"));
    assert_eq!(p5.gpu_manufacturer, Some("nvidia"));
    assert_eq!(p5.gpu_memory_mib, Some(81920));
    assert_eq!(p5.total_gpu_memory_mib(), 8 * 81920);
    assert_eq!(p5.efa_interfaces, 32);
    assert!(p5.efa_supported);
    assert_eq!(p5.network_bandwidth_mbps, Some(3_200_000));
    assert_eq!(p5.architecture, Architecture::Amd64);
    assert!(p5.capacity_block_eligible);
    assert!(p5.nvidia_gpu);
    assert!(!p5.neuron);
    assert!(p5.instance_storage);
    assert!(p5.is_accelerated());
}

#[test]
fn g4dn_8xlarge_has_one_t4_and_efa_but_no_capacity_blocks() {
    let g4dn = instance("g4dn.8xlarge");
    assert_eq!(g4dn.gpu_count, 1);
    assert_eq!(g4dn.gpu_name, Some("t4"));
    assert_eq!(g4dn.gpu_memory_mib, Some(16 * GIB));
    assert!(g4dn.efa_supported);
    assert_eq!(g4dn.efa_interfaces, 1);
    assert!(!g4dn.capacity_block_eligible);
    assert!(g4dn.is_accelerated());
}

#[test]
fn g5_2xlarge_has_an_a10g_and_no_efa() {
    let g5 = instance("g5.2xlarge");
    assert_eq!(g5.gpu_name, Some("a10g"));
    assert!(!g5.efa_supported);
    assert_eq!(g5.efa_interfaces, 0);
    assert!(!g5.capacity_block_eligible);
}

#[test]
fn trn1_32xlarge_is_neuron_with_16_trainium_devices_efa_and_capacity_blocks() {
    let trn1 = instance("trn1.32xlarge");
    assert!(trn1.neuron);
    assert!(!trn1.nvidia_gpu);
    assert_eq!(trn1.accelerator_name, Some("trainium"));
    assert_eq!(trn1.accelerator_count, 16);
    assert_eq!(trn1.gpu_count, 0);
    assert_eq!(trn1.gpu_name, None);
    assert_eq!(trn1.total_gpu_memory_mib(), 0);
    assert!(trn1.efa_supported);
    assert_eq!(trn1.efa_interfaces, 8);
    assert!(trn1.capacity_block_eligible);
    assert!(trn1.is_accelerated());
}

#[test]
fn c5_2xlarge_is_not_accelerated() {
    let c5 = instance("c5.2xlarge");
    assert_eq!(c5.gpu_count, 0);
    assert_eq!(c5.gpu_name, None);
    assert_eq!(c5.accelerator_name, None);
    assert!(!c5.is_accelerated());
    assert!(!c5.instance_storage);
}

#[test]
fn only_nvidia_and_neuron_count_as_accelerated() {
    // An AMD Radeon GPU and Qualcomm AI 100 cards are devices EKS's accelerated AMIs do
    // not drive.
    assert_eq!(instance("g4ad.xlarge").gpu_manufacturer, Some("amd"));
    assert!(!instance("g4ad.xlarge").is_accelerated());
    assert_eq!(
        instance("dl2q.24xlarge").accelerator_name,
        Some("qualcomm-ai100")
    );
    assert!(!instance("dl2q.24xlarge").is_accelerated());
    assert_eq!(instance("g5g.xlarge").architecture, Architecture::Arm64);
    assert!(instance("g5g.xlarge").is_accelerated());
}

#[test]
fn fractional_gpu_types_have_no_whole_gpu_but_their_slice_of_memory() {
    let g6f = instance("g6f.large");
    assert_eq!(g6f.gpu_count, 0);
    assert_eq!(g6f.gpu_name, Some("l4"));
    assert_eq!(g6f.gpu_memory_mib, Some(2861));
    assert_eq!(g6f.total_gpu_memory_mib(), 2861);
    assert!(g6f.nvidia_gpu);
}

#[test]
fn old_types_have_no_bandwidth_figure() {
    assert_eq!(instance("m1.small").network_bandwidth_mbps, None);
}

#[test]
fn types_eksctl_does_not_list_get_flags_from_their_facts_and_family() {
    // g4dn.metal is missing from eksctl's table: EFA and NVIDIA follow from its facts,
    // instance storage from the rest of g4dn, and Capacity Blocks default to no.
    let metal = instance("g4dn.metal");
    assert_eq!(metal.gpu_count, 8);
    assert!(metal.efa_supported);
    assert!(metal.nvidia_gpu);
    assert!(metal.instance_storage);
    assert!(!metal.capacity_block_eligible);
    assert!(!instance("c5.metal").instance_storage);
    assert!(instance("c5d.metal").instance_storage);
}

#[test]
fn lookup_of_an_unknown_or_misspelled_type_is_none() {
    assert_eq!(instances::lookup("p9.96xlarge"), None);
    assert_eq!(instances::lookup("P5.48XLARGE"), None);
    assert_eq!(instances::lookup(""), None);
}

#[test]
fn the_default_filter_finds_every_type() {
    assert_eq!(instances::search(&CatalogFilter::default()).len(), 1416);
}

#[test]
fn efa_40_gib_gpus_and_capacity_blocks_find_the_p4d_and_later_p_types() {
    let filter = CatalogFilter {
        efa_required: true,
        min_gpu_memory_mib: 40 * GIB,
        capacity_block_only: true,
        ..CatalogFilter::default()
    };
    assert_eq!(
        names(&instances::search(&filter)),
        [
            "p4d.24xlarge",
            "p4de.24xlarge",
            "p5.48xlarge",
            "p5.4xlarge",
            "p5e.48xlarge",
            "p5en.48xlarge",
            "p6-b200.48xlarge",
            "p6-b300.48xlarge",
        ]
    );
}

#[test]
fn gpu_memory_alone_also_finds_the_g6e_and_g7e_sizes_with_efa() {
    let filter = CatalogFilter {
        efa_required: true,
        min_gpu_memory_mib: 40 * GIB,
        ..CatalogFilter::default()
    };
    let found = names(&instances::search(&filter));
    assert_eq!(found.len(), 17);
    assert!(found.contains(&"g6e.48xlarge"));
    assert!(found.contains(&"g7e.8xlarge"));
    assert!(!found.iter().any(|name| name.starts_with("g5.")));
}

#[test]
fn text_matches_part_of_the_name_in_any_case() {
    let filter = CatalogFilter {
        text: " TRN ".to_owned(),
        ..CatalogFilter::default()
    };
    assert_eq!(
        names(&instances::search(&filter)),
        [
            "trn1.2xlarge",
            "trn1.32xlarge",
            "trn1n.32xlarge",
            "trn2.3xlarge",
            "trn2.48xlarge",
            "trn2u.48xlarge"
        ]
    );
}

#[test]
fn gpu_model_matches_gpu_or_accelerator_names_whole_and_in_any_case() {
    let h100 = CatalogFilter {
        gpu_model: "H100".to_owned(),
        ..CatalogFilter::default()
    };
    assert_eq!(
        names(&instances::search(&h100)),
        ["p5.48xlarge", "p5.4xlarge"]
    );
    // Whole names: `trainium` does not also bring in `trainium2`, nor `t4` the `t4g`.
    let trainium = CatalogFilter {
        gpu_model: "Trainium".to_owned(),
        ..CatalogFilter::default()
    };
    assert_eq!(
        names(&instances::search(&trainium)),
        ["trn1.2xlarge", "trn1.32xlarge", "trn1n.32xlarge"]
    );
    let t4 = CatalogFilter {
        gpu_model: "t4".to_owned(),
        ..CatalogFilter::default()
    };
    let found = instances::search(&t4);
    assert!(!found.is_empty());
    assert!(
        found
            .iter()
            .all(|instance_type| instance_type.family == "g4dn")
    );
}

#[test]
fn min_gpu_count_and_min_generation_narrow_to_large_recent_gpu_types() {
    let filter = CatalogFilter {
        min_gpu_count: 8,
        min_generation: 6,
        ..CatalogFilter::default()
    };
    assert_eq!(
        names(&instances::search(&filter)),
        [
            "g6.48xlarge",
            "g6e.48xlarge",
            "g7.48xlarge",
            "g7e.48xlarge",
            "p6-b200.48xlarge",
            "p6-b300.48xlarge",
        ]
    );
}

#[test]
fn accelerated_only_keeps_nvidia_and_neuron_types() {
    let filter = CatalogFilter {
        accelerated_only: true,
        ..CatalogFilter::default()
    };
    let found = instances::search(&filter);
    // 79 in the reference tables, p3 and g3 (three sizes each) and trn2.3xlarge.
    assert_eq!(found.len(), 86);
    assert!(
        found
            .iter()
            .all(|instance_type| instance_type.is_accelerated())
    );
    assert!(names(&found).contains(&"inf2.xlarge"));
    assert!(!names(&found).contains(&"g4ad.xlarge"));
}

#[test]
fn capacity_block_only_lists_the_thirteen_eligible_types() {
    let filter = CatalogFilter {
        capacity_block_only: true,
        ..CatalogFilter::default()
    };
    assert_eq!(
        names(&instances::search(&filter)),
        [
            "p4d.24xlarge",
            "p4de.24xlarge",
            "p5.48xlarge",
            "p5.4xlarge",
            "p5e.48xlarge",
            "p5en.48xlarge",
            "p6-b200.48xlarge",
            "p6-b300.48xlarge",
            "p6e-gb200.36xlarge",
            "trn1.32xlarge",
            "trn2.3xlarge",
            "trn2.48xlarge",
            "trn2u.48xlarge",
        ]
    );
}

#[test]
fn gpu_models_lists_each_gpu_and_accelerator_once() {
    assert_eq!(
        instances::gpu_models(),
        [
            "a100",
            "a10g",
            "b200",
            "b300",
            "gaudi-hl-205",
            "gb200",
            "h100",
            "h200",
            "inferentia",
            "inferentia2",
            "l4",
            "l40s",
            "m60",
            "qualcomm-ai100",
            "radeon-pro-v520",
            "rtx-pro-4500",
            "rtx-pro-server-6000",
            "t4",
            "t4g",
            "trainium",
            "trainium2",
            "v100",
        ]
    );
}

#[test]
fn architecture_is_spelled_as_the_kubernetes_label() {
    assert_eq!(Architecture::Amd64.as_str(), "amd64");
    assert_eq!(Architecture::Arm64.as_str(), "arm64");
}

#[test]
fn search_words_find_a_type_by_name_family_gpu_model_or_gpu_memory() {
    let names = |text: &str| -> Vec<&'static str> {
        instances::search(&CatalogFilter {
            text: text.into(),
            ..CatalogFilter::default()
        })
        .into_iter()
        .map(|instance| instance.name)
        .collect()
    };
    // The column says H100, so searching H100 finds them, in any case.
    let h100 = names("H100");
    assert!(h100.contains(&"p5.48xlarge"), "{h100:?}");
    assert!(
        h100.iter()
            .all(|name| { instances::lookup(name).unwrap().gpu_name == Some("h100") })
    );
    // Words narrow each other: a model and a size.
    assert_eq!(names("h100 48xlarge"), ["p5.48xlarge"]);
    assert_eq!(names("h100, 48xlarge"), ["p5.48xlarge"]);
    // One GPU's memory, with or without its unit.
    let big = names("141gb");
    assert!(
        !big.is_empty()
            && big
                .iter()
                .all(|name| name.starts_with("p5e") || name.starts_with("p5en")),
        "{big:?}"
    );
    // Neuron accelerators by name, a family whole.
    assert!(names("trainium").iter().all(|name| name.starts_with("trn")));
    assert!(names("trainium").contains(&"trn1.32xlarge"));
    assert!(names("g6e").iter().all(|name| name.starts_with("g6e.")));
    assert_eq!(names("nothing-like-this"), Vec::<&str>::new());
}

/// The UltraServer types, newer than both reference tables, with the facts their sources
/// give and nothing guessed: p6e-gb200's GPU memory is not known here and stays unset.
#[test]
fn the_ultraserver_types_are_known_with_their_sourced_facts() {
    let gb200 = instance("p6e-gb200.36xlarge");
    assert_eq!(gb200.family, "p6e-gb200");
    assert_eq!(gb200.generation, 6);
    assert_eq!(gb200.gpu_count, 4);
    assert_eq!(gb200.gpu_name, Some("gb200"));
    assert_eq!(gb200.architecture, Architecture::Arm64);
    assert_eq!(gb200.network_bandwidth_mbps, Some(3_200_000));
    assert!(gb200.nvidia_gpu && gb200.efa_supported && gb200.capacity_block_eligible);
    assert_eq!(gb200.memory_mib, 960 * GIB);
    assert_eq!(gb200.gpu_memory_mib, None);
    let trn2u = instance("trn2u.48xlarge");
    let trn2 = instance("trn2.48xlarge");
    assert!(trn2u.neuron && trn2u.capacity_block_eligible);
    assert_eq!(trn2u.accelerator_name, trn2.accelerator_name);
    assert_eq!(
        (trn2u.accelerator_count, trn2u.efa_interfaces, trn2u.vcpus),
        (trn2.accelerator_count, trn2.efa_interfaces, trn2.vcpus)
    );
    // Every added fact is listed with its source beside the catalog.
    let sources = include_str!("../data/instance-catalog-sources.md");
    for name in ["p6e-gb200.36xlarge", "trn2u.48xlarge"] {
        assert!(
            sources.contains(&format!("| `{name}` | `gpus` |"))
                || sources.contains(&format!("| `{name}` | `accs` |")),
            "{name}"
        );
    }
}

#[test]
fn network_cards_come_from_karpenters_vpc_limits_with_p6_b300s_card_zero_without_efa() {
    let cards = |name: &str| {
        let instance_type = instance(name);
        (
            instance_type.network_cards,
            instance_type.interfaces_per_card,
            instance_type.efa_on_card_zero,
        )
    };
    // zz_generated.vpclimits.go at 1d927085: p5 has 32 cards of 2 interfaces, p5en 16 of 4.
    assert_eq!(cards("p5.48xlarge"), (32, 2, true));
    assert_eq!(cards("p5en.48xlarge"), (16, 4, true));
    assert_eq!(cards("p4d.24xlarge"), (4, 15, true));
    // 17 cards but 16 EFA interfaces: card 0 is ENA only.
    assert_eq!(cards("p6-b300.48xlarge"), (17, 4, false));
    assert_eq!(instance("p6-b300.48xlarge").efa_interfaces, 16);
    assert_eq!(cards("c5.2xlarge"), (1, 4, false));
    // Not in Karpenter's table: from EC2's own answer as moto ships it (the additions).
    assert_eq!(cards("trn2.48xlarge"), (16, 2, true));
    assert_eq!(cards("trn2u.48xlarge"), (16, 2, true));
    // In neither: from AWS's maintainers in aws/aws-parallelcluster#6930 (17 cards, two
    // interfaces on even cards, one on odd; `efa` on card 0).
    assert_eq!(cards("p6e-gb200.36xlarge"), (17, 2, true));
}

#[test]
fn every_ultraserver_is_made_of_a_type_sold_only_as_capacity_blocks() {
    for ultraserver in instances::ULTRASERVERS {
        let made_of = instance(ultraserver.instance_type);
        assert!(made_of.capacity_blocks_only, "{}", ultraserver.name);
        assert!(ultraserver.instances > 1, "{}", ultraserver.name);
    }
    let gb200: Vec<(&str, u32)> = instances::ultraservers_of("p6e-gb200.36xlarge")
        .map(|ultraserver| (ultraserver.name, ultraserver.instances))
        .collect();
    assert_eq!(gb200, [("u-p6e-gb200x72", 18), ("u-p6e-gb200x36", 9)]);
    // Every type sold only as Capacity Blocks is sold as some UltraServer.
    for instance_type in instances::all()
        .iter()
        .filter(|known| known.capacity_blocks_only)
    {
        assert!(
            instances::ultraservers_of(instance_type.name)
                .next()
                .is_some(),
            "{}",
            instance_type.name
        );
    }
    assert_eq!(
        instances::ultraserver("u-trn2x64").map(|u| u.instances),
        Some(4)
    );
    assert_eq!(instances::ultraserver("u-p5x8"), None);
}

/// Every type Karpenter's generated VPC limits table lists (xtask/data/network-cards.csv,
/// written from it) is in the catalog, except the Mac types, which the studio knows as
/// types no EKS node runs on.
#[test]
fn every_type_karpenters_vpc_limits_table_lists_is_known() {
    let table = include_str!("../../xtask/data/network-cards.csv");
    let mut rows = 0;
    let unknown: Vec<&str> = table
        .lines()
        .filter(|line| !line.starts_with('#') && !line.starts_with("instance_type,"))
        .filter_map(|line| line.split(',').next())
        .inspect(|_| rows += 1)
        .filter(|name| instances::lookup(name).is_none() && !instances::is_mac(name))
        .collect();
    assert!(rows > 1300, "{rows} rows read");
    assert_eq!(unknown, Vec::<&str>::new());
    assert!(instances::is_mac("mac2-m2pro.metal") && instances::is_mac("mac-m5.metal"));
    assert!(!instances::is_mac("m8g.metal-24xl") && !instances::is_mac("machine.large"));
}

#[test]
fn types_ec2_no_longer_offers_everywhere_keep_the_facts_karpenter_published() {
    let p3 = instance("p3.8xlarge");
    assert_eq!((p3.vcpus, p3.gpu_count, p3.gpu_name), (32, 4, Some("v100")));
    assert_eq!(p3.gpu_memory_mib, Some(16 * GIB));
    assert!(p3.nvidia_gpu && p3.is_accelerated() && !p3.efa_supported);
    let dl1 = instance("dl1.24xlarge");
    assert_eq!((dl1.gpu_count, dl1.gpu_manufacturer), (8, Some("habana")));
    assert_eq!(dl1.efa_interfaces, 4);
    assert!(dl1.instance_storage && !dl1.is_accelerated());
    let trn2 = instance("trn2.3xlarge");
    assert_eq!((trn2.vcpus, trn2.memory_mib), (12, 128 * GIB));
    assert_eq!(
        (trn2.accelerator_name, trn2.accelerator_count),
        (Some("trainium2"), 1)
    );
    assert!(trn2.neuron && trn2.capacity_block_eligible && trn2.efa_supported);
    // A size no revision of Karpenter's docs describes: its family's architecture, its
    // network cards, and sizes left unknown (0) rather than guessed.
    let flex = instance("c8g-flex.large");
    assert_eq!(flex.architecture, Architecture::Arm64);
    assert_eq!((flex.vcpus, flex.memory_mib), (0, 0));
    assert_eq!(flex.network_cards, 1);
}
