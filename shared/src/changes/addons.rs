//! Add-on versions against what EKS offers for the Kubernetes version a design asks for
//! (`DescribeAddonVersions`, read live): a version pinned in the design that EKS does not
//! offer for that version is refused by `CreateAddon` and `UpdateAddon`
//! (`InvalidParameterException`), so `eksctl update addon --version` fails; a running
//! version EKS does not offer for the new version is to be updated once the control plane
//! is (EKS user guide, "Update existing cluster to new Kubernetes version": add-ons after
//! the control plane).

use std::collections::BTreeMap;

use crate::changes::read::Reading;
use crate::model::spec::Addon;
use crate::model::spec::Spec;
use crate::rules::{Finding, changes};

/// Each add-on's versions EKS offers for one Kubernetes version, newest first, as
/// `DescribeAddonVersions` answers; an add-on with no entry was not asked about.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AddonOffer {
    /// The Kubernetes version asked about (`1.35`).
    pub kubernetes_version: String,
    /// Add-on name → the versions offered for it.
    pub versions: BTreeMap<String, Vec<String>>,
}

fn pinned(version: Option<&str>) -> Option<&str> {
    version.filter(|version| !matches!(*version, "" | "latest" | "default"))
}

fn listed(versions: &[String]) -> String {
    match versions {
        [] => "no version".to_owned(),
        [one] => one.clone(),
        [newest, .., oldest] => format!("{} versions, {newest} to {oldest}", versions.len()),
    }
}

/// What the design's add-on versions meet on the Kubernetes version it asks for.
pub fn addon_findings(reading: &Reading, design: &Spec, offer: &AddonOffer) -> Vec<Finding> {
    let kubernetes = offer.kubernetes_version.as_str();
    let upgrade = reading.spec.cluster.kubernetes_version.trim() != kubernetes;
    let mut findings = Vec::new();
    for (index, addon) in design.addons.iter().enumerate() {
        let Some(offered) = offer.versions.get(&addon.name) else {
            continue;
        };
        let version = |extra: &yaml_serde::Mapping| {
            extra
                .get("version")
                .and_then(yaml_serde::Value::as_str)
                .map(str::to_owned)
        };
        if let Some(wanted) = pinned(version(&addon.extra).as_deref()) {
            if !offered.iter().any(|candidate| candidate == wanted) {
                findings.push(changes::ADDON_VERSION_NOT_OFFERED.finding(
                    Addon::VERSION.at(&[index]),
                    format!(
                        "EKS offers {} for Kubernetes {kubernetes} in {}; {wanted} is not one of them: EKS refuses it (UpdateAddon, CreateAddon: InvalidParameterException)",
                        addon.name,
                        listed(offered)
                    ),
                ));
            }
            continue;
        }
        let running = reading
            .spec
            .addons
            .iter()
            .find(|own| own.name == addon.name)
            .and_then(|own| version(&own.extra));
        if let Some(running) = running
            && upgrade
            && !offered.contains(&running)
        {
            findings.push(changes::ADDON_UPDATE_AFTER_UPGRADE.finding(
                format!("addons[{index}]"),
                format!(
                    "{} runs {running}, which EKS does not offer for Kubernetes {kubernetes}: update it (eksctl update addon) once the control plane is upgraded, before the node groups",
                    addon.name
                ),
            ));
        }
    }
    findings
}
