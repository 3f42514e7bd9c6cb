//! Rules on Karpenter's EC2NodeClasses and NodeOverlays: the node role or instance
//! profile, AMI aliases, selector terms, instance store, placement groups, network
//! interfaces and EFA, and what NodeOverlays may say. Their rows are in
//! [`super::karpenter::RULES`].

use super::reading::{class_path, classes, pool_path, pools};
use super::{Context, Report};
use crate::catalog::instances::InstanceType;
use crate::model::ids::{IdError, SecurityGroupId, SubnetId};
use crate::upstream::karpenter::{NodePool, SelectorTerm};
use crate::upstream::matching::matching_instance_types;

pub(super) fn karpenter_role_or_instance_profile(context: &Context<'_>, report: &mut Report<'_>) {
    for (class_index, class) in classes(context) {
        let set = |value: &Option<String>| {
            value
                .as_deref()
                .is_some_and(|value| !value.trim().is_empty())
        };
        let (role, profile) = (set(&class.spec.role), set(&class.spec.instance_profile));
        if role == profile {
            let what = if role {
                "both are set"
            } else {
                "neither is set"
            };
            report.fire(
                format!("{}.spec.role", class_path(class_index)),
                format!(
                    "EC2NodeClass `{}` needs exactly one of role and instanceProfile; {what}",
                    class.metadata.name
                ),
            );
        }
    }
}

const ALIAS_FAMILIES: &[&str] = &[
    "al2",
    "al2023",
    "bottlerocket",
    "windows2019",
    "windows2022",
    "windows2025",
];

pub(super) fn karpenter_ami_alias_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    for (class_index, class) in classes(context) {
        let terms = &class.spec.ami_selector_terms;
        let path = format!("{}.spec.amiSelectorTerms", class_path(class_index));
        if terms.is_empty() || terms.len() > 30 {
            report.fire(
                path.clone(),
                format!("{} AMI selector terms; 1 to 30 are needed", terms.len()),
            );
        }
        for (index, term) in terms.iter().enumerate() {
            let term_path = format!("{path}[{index}]");
            let selectors = [
                term.alias.is_some(),
                term.id.is_some(),
                term.name.is_some(),
                !term.tags.is_empty(),
            ]
            .iter()
            .filter(|set| **set)
            .count();
            if selectors == 0 && !term.extra.contains_key("ssmParameter") {
                report.fire(
                    term_path.clone(),
                    "an AMI term needs one of alias, id, name, tags or ssmParameter",
                );
            }
            if (term.alias.is_some() || term.id.is_some()) && selectors > 1 {
                report.fire(
                    term_path.clone(),
                    "`alias` and `id` must be the only field of their term",
                );
            }
            if let Some(alias) = &term.alias {
                if terms.len() > 1 {
                    report.fire(
                        term_path.clone(),
                        "an alias term must be the only AMI selector term",
                    );
                }
                let valid = alias.split_once('@').is_some_and(|(family, version)| {
                    ALIAS_FAMILIES.contains(&family)
                        && !version.is_empty()
                        && (!family.starts_with("windows") || version == "latest")
                });
                if !valid {
                    report.fire(
                        format!("{term_path}.alias"),
                        format!(
                            "alias `{alias}` is not family@version with family one of {}",
                            ALIAS_FAMILIES.join(", ")
                        ),
                    );
                }
            }
        }
    }
}

/// Whether `version` has the form AMIs of `family` are published under: an
/// amazon-eks-ami release (`v20240807`) for al2 and al2023, a Bottlerocket release
/// (`1.20.3`, with or without a `v`) for bottlerocket; `latest` for any.
fn published_alias_version(family: &str, version: &str) -> bool {
    if version == "latest" {
        return true;
    }
    match family {
        "al2" | "al2023" => version
            .strip_prefix('v')
            .is_some_and(|date| date.len() == 8 && date.bytes().all(|byte| byte.is_ascii_digit())),
        "bottlerocket" => {
            let parts: Vec<&str> = version.trim_start_matches('v').split('.').collect();
            parts.len() == 3
                && parts
                    .iter()
                    .all(|part| !part.is_empty() && part.bytes().all(|byte| byte.is_ascii_digit()))
        }
        _ => true,
    }
}

pub(super) fn karpenter_ami_alias_version_unpublished(
    context: &Context<'_>,
    report: &mut Report<'_>,
) {
    for (class_index, class) in classes(context) {
        for (index, term) in class.spec.ami_selector_terms.iter().enumerate() {
            let Some((family, version)) = term
                .alias
                .as_deref()
                .and_then(|alias| alias.split_once('@'))
            else {
                continue;
            };
            if !ALIAS_FAMILIES.contains(&family)
                || version.is_empty()
                || published_alias_version(family, version)
            {
                continue;
            }
            report.fire(
                format!("{}.spec.amiSelectorTerms[{index}].alias", class_path(class_index)),
                format!(
                    "alias `{family}@{version}`: the API server accepts it, but no {family} AMI is published as version `{version}`, so Karpenter finds no AMI for it (\"failed to discover any AMIs for alias\"), EC2NodeClass `{}` never becomes Ready and its NodePools launch nothing",
                    class.metadata.name
                ),
            );
        }
    }
}

fn check_id_terms(
    terms: &[SelectorTerm],
    path: &str,
    what: &str,
    parse: fn(&str) -> Result<(), IdError>,
    report: &mut Report<'_>,
) {
    if terms.is_empty() {
        report.fire(
            path.to_owned(),
            format!("no {what} selector terms: Karpenter cannot launch nodes"),
        );
    }
    if terms.len() > 30 {
        report.fire(
            path.to_owned(),
            format!("{} {what} terms; at most 30 are allowed", terms.len()),
        );
    }
    for (index, term) in terms.iter().enumerate() {
        let term_path = format!("{path}[{index}]");
        match &term.id {
            Some(id) => {
                if let Err(IdError::Malformed(expected)) = parse(id) {
                    report.fire(
                        format!("{term_path}.id"),
                        format!("{what} id `{id}` is not {expected}"),
                    );
                }
                if !term.tags.is_empty() || term.name.is_some() {
                    report.fire(
                        term_path,
                        format!("a {what} term with `id` may not also set tags or name"),
                    );
                }
            }
            None if term.tags.is_empty() && term.name.is_none() => {
                report.fire(term_path, format!("a {what} term needs `tags` or `id`"));
            }
            None => {
                if term
                    .tags
                    .iter()
                    .any(|(key, value)| key.is_empty() || value.is_empty())
                {
                    report.fire(
                        format!("{term_path}.tags"),
                        "tag keys and values must not be empty",
                    );
                }
            }
        }
    }
}

pub(super) fn karpenter_selector_terms_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    for (class_index, class) in classes(context) {
        let base = class_path(class_index);
        check_id_terms(
            &class.spec.subnet_selector_terms,
            &format!("{base}.spec.subnetSelectorTerms"),
            "subnet",
            SubnetId::check,
            report,
        );
        check_id_terms(
            &class.spec.security_group_selector_terms,
            &format!("{base}.spec.securityGroupSelectorTerms"),
            "security group",
            SecurityGroupId::check,
            report,
        );
    }
}

pub(super) fn karpenter_instance_store_policy(context: &Context<'_>, report: &mut Report<'_>) {
    for (class_index, class) in classes(context) {
        if let Some(policy) = &class.spec.instance_store_policy
            && policy != "RAID0"
        {
            report.fire(
                format!("{}.spec.instanceStorePolicy", class_path(class_index)),
                format!("instanceStorePolicy `{policy}` is not RAID0"),
            );
        }
    }
}

pub(super) fn karpenter_placement_group_selector_invalid(
    context: &Context<'_>,
    report: &mut Report<'_>,
) {
    for (class_index, class) in classes(context) {
        let Some(selector) = &class.spec.placement_group_selector else {
            continue;
        };
        let path = format!("{}.spec.placementGroupSelector", class_path(class_index));
        match (&selector.name, &selector.id) {
            (Some(_), Some(_)) => report.fire(
                path,
                format!(
                    "EC2NodeClass `{}`: 'name' and 'id' are mutually exclusive",
                    class.metadata.name
                ),
            ),
            (None, None) => report.fire(
                path,
                format!(
                    "EC2NodeClass `{}`: expected at least one, got none, ['name', 'id']",
                    class.metadata.name
                ),
            ),
            (Some(name), None) if name.is_empty() => report.fire(
                format!("{path}.name"),
                "the placement group's name is empty",
            ),
            (None, Some(id)) if !crate::upstream::karpenter::is_placement_group_id(id) => report.fire(
                format!("{path}.id"),
                format!(
                    "`{id}` is not a placement group id (`pg-` then lowercase letters and digits)"
                ),
            ),
            _ => {}
        }
    }
}

pub(super) fn karpenter_network_interfaces_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    use crate::upstream::karpenter::{EFA_ONLY, INTERFACE};
    for (class_index, class) in classes(context) {
        let interfaces = &class.spec.network_interfaces;
        let path = format!("{}.spec.networkInterfaces", class_path(class_index));
        for (index, interface) in interfaces.iter().enumerate() {
            if interface.interface_type != INTERFACE && interface.interface_type != EFA_ONLY {
                report.fire(
                    format!("{path}[{index}].interfaceType"),
                    format!(
                        "EC2NodeClass `{}`: interfaceType `{}` is not one of interface, efa-only",
                        class.metadata.name, interface.interface_type
                    ),
                );
            }
        }
        let primary = interfaces.iter().any(|interface| {
            interface.network_card_index == 0
                && interface.device_index == 0
                && interface.interface_type == INTERFACE
        });
        if !interfaces.is_empty() && !primary {
            report.fire(
                path.clone(),
                format!(
                    "EC2NodeClass `{}`: networkInterfaces must include a primary interface with interfaceType='interface'",
                    class.metadata.name
                ),
            );
        }
        let on_card = |card: u32, device: Option<u32>, efa_only: bool| {
            interfaces
                .iter()
                .filter(|other| other.network_card_index == card)
                .filter(|other| device.is_none_or(|device| other.device_index == device))
                .filter(|other| !efa_only || other.interface_type == EFA_ONLY)
                .count()
        };
        let broken = interfaces.iter().any(|interface| {
            let card = interface.network_card_index;
            on_card(card, Some(interface.device_index), false) != 1
                || (interface.interface_type == EFA_ONLY && on_card(card, None, true) != 1)
        });
        if broken {
            report.fire(
                path,
                format!(
                    "EC2NodeClass `{}`: networkInterfaces must not have duplicate networkCardIndex and deviceIndex pairs, and can have at most one efa device per network card",
                    class.metadata.name
                ),
            );
        }
    }
}

/// The pools on `class_name`, with their index.
fn pools_on<'a>(
    context: &Context<'a>,
    class_name: &'a str,
) -> impl Iterator<Item = (usize, &'a NodePool)> + use<'a> {
    pools(context).filter(move |(_, pool)| {
        let reference = &pool.spec.template.spec.node_class_ref;
        reference.kind == "EC2NodeClass" && reference.name == class_name
    })
}

/// Why Karpenter's compatibility check turns `instance_type` away for `interfaces`, or
/// `None` when it launches it. Card counts the catalog does not know are not held against
/// a type.
fn interfaces_misfit(
    interfaces: &[crate::upstream::karpenter::NetworkInterface],
    instance_type: &InstanceType,
) -> Option<String> {
    let cards = instance_type.network_cards;
    if let Some(card) = interfaces
        .iter()
        .map(|interface| interface.network_card_index)
        .filter(|card| cards > 0 && *card >= cards)
        .max()
    {
        return Some(format!(
            "an interface on network card {card}, and {} has {cards} cards (0 to {})",
            instance_type.name,
            cards - 1
        ));
    }
    let per_card = instance_type.interfaces_per_card;
    if let Some(device) = interfaces
        .iter()
        .map(|interface| interface.device_index)
        .filter(|device| per_card > 0 && *device >= per_card)
        .max()
    {
        return Some(format!(
            "device index {device} on a card, and each card of {} takes {per_card} interfaces (0 to {})",
            instance_type.name,
            per_card - 1
        ));
    }
    let asked = crate::upstream::karpenter::efa_devices(interfaces);
    // An EFA type whose EFA count the catalog lacks (p6e-gb200) is given the benefit.
    let unknown = instance_type.efa_supported && instance_type.efa_interfaces == 0;
    (!unknown && asked > instance_type.efa_interfaces as usize).then(|| {
        format!(
            "{asked} EFA devices, and {} takes {}",
            instance_type.name, instance_type.efa_interfaces
        )
    })
}

pub(super) fn karpenter_efa_interfaces_fit_no_type(context: &Context<'_>, report: &mut Report<'_>) {
    for (_, class) in classes(context) {
        let interfaces = &class.spec.network_interfaces;
        if interfaces.is_empty() {
            continue;
        }
        for (pool_index, pool) in pools_on(context, &class.metadata.name) {
            let types = matching_instance_types(pool);
            // A pool the catalog knows no type of is another rule's finding; the reason
            // given is the one of the type with the most EFA interfaces, the nearest fit.
            let misfits: Option<Vec<(u32, String)>> = types
                .iter()
                .map(|instance_type| {
                    interfaces_misfit(interfaces, instance_type)
                        .map(|reason| (instance_type.efa_interfaces, reason))
                })
                .collect();
            let Some(reason) = misfits
                .and_then(|misfits| misfits.into_iter().max_by_key(|(efa, _)| *efa))
                .map(|(_, reason)| reason)
            else {
                continue;
            };
            report.fire(
                format!("{}.spec.template.spec.requirements", pool_path(pool_index)),
                format!(
                    "NodePool `{}` uses EC2NodeClass `{}`, whose network interfaces no instance type of the pool takes ({reason}), so Karpenter launches none of them",
                    pool.metadata.name, class.metadata.name
                ),
            );
        }
    }
}

pub(super) fn karpenter_efa_on_card_without_efa(context: &Context<'_>, report: &mut Report<'_>) {
    for (class_index, class) in classes(context) {
        let on_card_zero = class.spec.network_interfaces.iter().any(|interface| {
            interface.network_card_index == 0
                && interface.interface_type == crate::upstream::karpenter::EFA_ONLY
        });
        if !on_card_zero {
            continue;
        }
        for (_, pool) in pools_on(context, &class.metadata.name) {
            let types = matching_instance_types(pool);
            let fitting: Vec<&InstanceType> = types
                .into_iter()
                .filter(|instance_type| {
                    interfaces_misfit(&class.spec.network_interfaces, instance_type).is_none()
                })
                .collect();
            // Only when every type the pool would launch is refused: with others left,
            // Karpenter may still pick one of them.
            let refused = !fitting.is_empty()
                && fitting
                    .iter()
                    .all(|instance_type| !instance_type.efa_on_card_zero);
            if refused {
                let names: Vec<&str> = fitting
                    .iter()
                    .map(|instance_type| instance_type.name)
                    .collect();
                report.fire(
                    format!("{}.spec.networkInterfaces", class_path(class_index)),
                    format!(
                        "EC2NodeClass `{}` puts an efa-only device on network card 0, but NodePool `{}` launches only {}, whose card 0 takes no EFA device: EC2 refuses every launch",
                        class.metadata.name,
                        pool.metadata.name,
                        names.join(", ")
                    ),
                );
            }
        }
    }
}

pub(super) fn karpenter_efa_types_without_efa(context: &Context<'_>, report: &mut Report<'_>) {
    for (_, class) in classes(context) {
        if !class.spec.network_interfaces.is_empty() {
            continue;
        }
        for (pool_index, pool) in pools_on(context, &class.metadata.name) {
            let types = matching_instance_types(pool);
            let all_efa = !types.is_empty()
                && types
                    .iter()
                    .all(|instance_type| instance_type.efa_interfaces > 0);
            if all_efa {
                report.fire(
                    format!("{}.spec.template.spec.nodeClassRef.name", pool_path(pool_index)),
                    format!(
                        "NodePool `{}` launches only EFA instance types, but EC2NodeClass `{}` gives its nodes no EFA device: traffic between nodes goes over TCP",
                        pool.metadata.name, class.metadata.name
                    ),
                );
            }
        }
    }
}

pub(super) fn karpenter_placement_group_with_reservation(
    context: &Context<'_>,
    report: &mut Report<'_>,
) {
    for (class_index, class) in classes(context) {
        let Some(selector) = &class.spec.placement_group_selector else {
            continue;
        };
        if class.spec.capacity_reservation_selector_terms.is_empty() {
            continue;
        }
        let group = selector
            .name
            .as_deref()
            .or(selector.id.as_deref())
            .unwrap_or_default();
        report.fire(
            format!("{}.spec.placementGroupSelector", class_path(class_index)),
            format!(
                "EC2NodeClass `{}` launches into placement group `{group}` and selects capacity reservations: EC2 uses a reservation there only if it was made in that placement group",
                class.metadata.name
            ),
        );
    }
}

/// `\d*\.?\d+`: digits with at most one point, ending in a digit.
fn is_unsigned_decimal(text: &str) -> bool {
    text.ends_with(|character: char| character.is_ascii_digit())
        && text
            .bytes()
            .all(|byte| byte.is_ascii_digit() || byte == b'.')
        && text.bytes().filter(|byte| *byte == b'.').count() <= 1
}

/// The CRD's `priceAdjustment` pattern: `+1.2` or `-0.5`, `+N%`, `-N%` below 100, `-100%`.
fn is_price_adjustment(text: &str) -> bool {
    if text == "-100%" {
        return true;
    }
    if let Some(percent) = text.strip_suffix('%') {
        return match percent.split_at_checked(1) {
            Some(("+", number)) => is_unsigned_decimal(number),
            Some(("-", number)) => {
                let whole = number.split('.').next().unwrap_or_default();
                (1..=2).contains(&whole.len())
                    && whole.bytes().all(|byte| byte.is_ascii_digit())
                    && number.split_once('.').is_none_or(|(_, fraction)| {
                        !fraction.is_empty() && fraction.bytes().all(|byte| byte.is_ascii_digit())
                    })
            }
            _ => false,
        };
    }
    matches!(text.split_at_checked(1), Some(("+" | "-", number)) if is_unsigned_decimal(number))
}

pub(super) fn karpenter_node_overlay_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    let overlays = context
        .spec
        .karpenter
        .iter()
        .flat_map(|karpenter| karpenter.node_overlays.iter().enumerate());
    for (index, overlay) in overlays {
        let path = format!("karpenter.node_overlays[{index}].spec");
        let name = &overlay.metadata.name;
        if overlay.spec.price.is_some() && overlay.spec.price_adjustment.is_some() {
            report.fire(
                path.clone(),
                format!("NodeOverlay `{name}`: cannot set both 'price' and 'priceAdjustment'"),
            );
        }
        if let Some(price) = &overlay.spec.price {
            let (whole, fraction) = price.split_once('.').unwrap_or((price, "0"));
            let digits =
                |part: &str| !part.is_empty() && part.bytes().all(|byte| byte.is_ascii_digit());
            if !(digits(whole) && digits(fraction)) {
                report.fire(
                    format!("{path}.price"),
                    format!("NodeOverlay `{name}`: price `{price}` is not a number such as `5.00`"),
                );
            }
        }
        if let Some(adjustment) = &overlay.spec.price_adjustment
            && !is_price_adjustment(adjustment)
        {
            report.fire(
                format!("{path}.priceAdjustment"),
                format!("NodeOverlay `{name}`: priceAdjustment `{adjustment}` is not like `-0.5`, `+1.2`, `+10%` or `-15%`"),
            );
        }
        if let Some(weight) = overlay.spec.weight
            && !(1..=10_000).contains(&weight)
        {
            report.fire(
                format!("{path}.weight"),
                format!("NodeOverlay `{name}`: weight {weight} is outside 1-10000"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::published_alias_version;

    #[test]
    fn alias_versions_are_read_as_the_ami_names_are_published() {
        for (family, version) in [
            ("al2023", "latest"),
            ("al2023", "v20240807"),
            ("al2", "v20251120"),
            ("bottlerocket", "1.20.3"),
            ("bottlerocket", "v1.49.0"),
            ("windows2022", "latest"),
        ] {
            assert!(
                published_alias_version(family, version),
                "{family}@{version}"
            );
        }
        for (family, version) in [
            ("al2", "lates"),
            ("al2023", "20240807"),
            ("al2023", "v2024080"),
            ("al2023", "1.20.3"),
            ("bottlerocket", "1.20"),
            ("bottlerocket", "v20240807"),
        ] {
            assert!(
                !published_alias_version(family, version),
                "{family}@{version}"
            );
        }
    }
}
