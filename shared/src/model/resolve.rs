//! Which instance types each NodePool can launch: the catalog's types its requirements
//! allow, by the same matcher the rules use (`upstream::matching::matching_instance_types`), so the
//! page, `eks-studio resolve` and `POST /api/resolve` list exactly what the rules judge.
//! Requirements on labels the catalog does not hold (zone, capacity type) do not narrow
//! the list; Karpenter narrows it further by what each zone offers. Each type carries its
//! on-demand price per hour where the price table knows it (`crate::catalog::prices`).

use serde::Serialize;

use crate::catalog::instances::InstanceType;
use crate::catalog::prices::{self, Price};
use crate::model::spec::Spec;
use crate::upstream::matching::{Exclusion, exclusions, matching_instance_types};

/// One NodePool and the instance types it can launch.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PoolTypes {
    /// The NodePool's name.
    pub name: String,
    /// Its spec path, e.g. `karpenter.node_pools[0]`.
    pub path: String,
    /// How many types it can launch.
    pub count: usize,
    /// Those types with their facts, by family then size.
    pub instance_types: Vec<Launchable>,
    /// When it can launch nothing: each requirement that alone shuts out types the others
    /// allow ([`exclusions`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub excluded_by: Vec<Exclusion>,
}

/// An instance type a NodePool can launch, with its price in the design's region.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Launchable {
    /// The catalog's facts.
    #[serde(flatten)]
    pub instance: &'static InstanceType,
    /// On-demand price per hour, when known (see [`prices::on_demand`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_demand: Option<Price>,
}

impl std::ops::Deref for Launchable {
    type Target = InstanceType;

    fn deref(&self) -> &InstanceType {
        self.instance
    }
}

/// Every NodePool of the spec with its instance types (none without Karpenter).
pub fn resolve(spec: &Spec) -> Vec<PoolTypes> {
    spec.karpenter
        .iter()
        .flat_map(|karpenter| karpenter.node_pools.iter().enumerate())
        .map(|(index, pool)| {
            let mut instance_types = matching_instance_types(pool);
            instance_types.sort_by_key(|instance| (instance.family, instance.vcpus, instance.name));
            PoolTypes {
                excluded_by: if instance_types.is_empty() {
                    exclusions(pool)
                } else {
                    Vec::new()
                },
                name: pool.metadata.name.clone(),
                path: format!("karpenter.node_pools[{index}]"),
                count: instance_types.len(),
                instance_types: instance_types
                    .into_iter()
                    .map(|instance| Launchable {
                        instance,
                        on_demand: prices::on_demand(&spec.cluster.region, instance.name),
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The type's vCPUs and memory in GiB as text, `?` where the catalog does not know them.
pub fn sizes(instance_type: &InstanceType) -> (String, String) {
    let text = |value: Option<u32>| value.map_or_else(|| "?".to_owned(), |value| value.to_string());
    (
        text(instance_type.known_vcpus()),
        text(instance_type.known_memory_gib()),
    )
}

/// "8 × H100 80 GiB", "16 × trainium", or "no GPU".
pub fn accelerators(instance_type: &InstanceType) -> String {
    if let Some(gpu) = instance_type.gpu_name {
        let memory = instance_type
            .gpu_memory_mib
            .map(|mib| format!(" {} GiB", mib / 1024))
            .unwrap_or_default();
        format!(
            "{} × {}{memory}",
            instance_type.gpu_count.max(1),
            gpu.to_uppercase()
        )
    } else if let Some(accelerator) = instance_type.accelerator_name {
        format!("{} × {accelerator}", instance_type.accelerator_count)
    } else {
        "no GPU".to_owned()
    }
}

/// Why the prices shown for `region` are another region's, in words, when they are:
/// the region is not set yet, or the table holds no prices for it. `None` when the prices
/// are the region's own, or when there are none (China, unknown GovCloud).
pub fn price_note(region: &str) -> Option<String> {
    let priced = prices::price_region(region)?;
    let region = region.trim();
    if priced == region {
        return None;
    }
    Some(
        if region.is_empty() || crate::model::ids::is_placeholder(region) {
            format!("prices are {priced}'s until the region is set")
        } else {
            format!(
                "the studio's price table has no prices for {region}: prices shown are {priced}'s, which may differ"
            )
        },
    )
}
