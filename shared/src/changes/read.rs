//! A running cluster read back into a design: EKS's and EC2's answers are written as the
//! `ClusterConfig` eksctl would have been given, then imported like any file, so what the
//! studio does not model is kept the way import keeps it.
//!
//! What eksctl wrote that EKS does not hold (IAM policies of node roles, bootstrap
//! commands, volume sizes), and what lives inside the cluster (Karpenter's objects, Auto
//! Mode's own pools), is listed as not read, never guessed. For a plan, [`super::align::aligned`] takes
//! those from the design being planned and says so: they are not compared.
//!
//! Reverse mappings, each from the peer's source: eksctl's tags and labels
//! (`pkg/apis/eksctl.io/v1alpha5/types.go`: `alpha.eksctl.io/cluster-name`,
//! `alpha.eksctl.io/nodegroup-name`, `alpha.eksctl.io/cluster-oidc-enabled`); its AMI
//! types (`amitype.go`, `GetAMIType`); its subnet tags (`kubernetes.io/role/elb` on the
//! public subnets it makes); its defaults (`defaults.go`: `AmazonLinux2023`,
//! `API_AND_CONFIG_MAP`; access entries of type `STANDARD`).

use std::collections::BTreeMap;

use yaml_serde::{Mapping, Value};

use crate::model::spec::Spec;
use crate::upstream::eks::{EksNodegroup, NotRead, RunningCluster};

/// A running cluster as a design, with what could not be read.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    /// The design.
    pub spec: Spec,
    /// The `ClusterConfig` it was imported from, as eksctl would read it.
    pub cluster_config: Value,
    /// Everything not read, by name, with why.
    pub not_read: Vec<NotRead>,
    /// Whether the objects inside the cluster (Karpenter's) were read with kubectl
    /// ([`crate::changes::objects::read_into`]).
    pub objects_read: bool,
    /// Whether Karpenter's chart values were read (`helm get values`).
    pub helm_read: bool,
    /// Whether EKS Auto Mode's NodePools and NodeClasses were read from the cluster.
    pub auto_mode_read: bool,
    /// Whether eksctl's self-managed node groups were read from their stacks.
    pub self_managed_read: bool,
    /// What runs on the cluster's nodes now, when it was read
    /// ([`crate::changes::workloads`]).
    pub workloads: Option<crate::changes::workloads::Workloads>,
    /// The managed node groups as EKS holds them, by name: what a design may set and a
    /// read leaves out where it is EKS's or eksctl's default (the AMI release, the launch
    /// template's volume, IMDS and monitoring) is compared where the design sets it.
    pub running_groups: BTreeMap<String, EksNodegroup>,
}

impl Reading {
    /// Takes what runs on the cluster's nodes, and names as not read every node group whose
    /// nodes run but that EKS does not list: eksctl's self-managed groups (`nodeGroups`),
    /// which live in CloudFormation stacks the read does not open. When EKS's own list
    /// could not be read, no group is taken for self-managed.
    pub fn with_workloads(&mut self, workloads: crate::changes::workloads::Workloads) {
        let list_unread = self.not_read.iter().any(|gap| gap.what == MANAGED_GROUPS);
        // A managed group EKS listed but whose description could not be read.
        let undescribed = |group: &str| {
            self.not_read.iter().any(|gap| {
                gap.what
                    .strip_prefix("node group ")
                    .and_then(|rest| rest.strip_prefix(group))
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(':'))
            })
        };
        let mut unlisted: Vec<(&str, usize)> = Vec::new();
        for group in workloads
            .nodes
            .iter()
            .filter_map(|node| node.group.as_deref())
        {
            if list_unread
                || undescribed(group)
                || self
                    .spec
                    .node_groups
                    .iter()
                    .any(|known| known.name == group)
                || self_managed_names(&self.spec).contains(&group)
            {
                continue;
            }
            match unlisted.iter_mut().find(|(name, _)| *name == group) {
                Some((_, nodes)) => *nodes += 1,
                None => unlisted.push((group, 1)),
            }
        }
        let cluster = &self.spec.cluster.name;
        for (group, nodes) in unlisted {
            let running = if nodes == 1 {
                "1 node runs".to_owned()
            } else {
                format!("{nodes} nodes run")
            };
            let why = if self.self_managed_read {
                format!(
                    "EKS lists no managed node group of that name, and no eksctl stack of the cluster is a self-managed group of that name (eksctl-{cluster}-nodegroup-{group}): the design leaves the group out, and a plan neither changes nor deletes it"
                )
            } else {
                format!(
                    "EKS lists managed node groups only; eksctl keeps a self-managed group in its CloudFormation stack (eksctl-{cluster}-nodegroup-{group}), which could not be read. The design leaves the group out, and a plan neither changes nor deletes it"
                )
            };
            self.not_read.push(NotRead {
                what: format!("self-managed node group {group} ({running})"),
                why,
            });
        }
        self.workloads = Some(workloads);
    }
}

/// The names of a design's self-managed node groups (`nodeGroups`, kept as written).
pub(crate) fn self_managed_names(spec: &Spec) -> Vec<&str> {
    spec.eksctl_extra
        .get("nodeGroups")
        .and_then(Value::as_sequence)
        .map(|groups| {
            groups
                .iter()
                .filter_map(|group| group.get("name").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default()
}

/// How a read names EKS's list of managed node groups when it could not be read.
pub const MANAGED_GROUPS: &str = "managed node groups";

/// How a read names the objects inside the cluster it has not read (yet): the gap
/// [`crate::changes::objects::read_into`] and `not_at_hand` take over.
pub(crate) const NOT_READ_YET: &str = "reading them needs kubectl";

fn users_own(tags: &BTreeMap<String, String>) -> Mapping {
    tags.iter()
        .filter(|(key, _)| !crate::upstream::eksctl::made_by_the_peers(key))
        .map(|(key, value)| (Value::from(key.as_str()), Value::from(value.as_str())))
        .collect()
}

fn strings(items: impl IntoIterator<Item = impl Into<String>>) -> Value {
    Value::Sequence(
        items
            .into_iter()
            .map(|item| Value::String(item.into()))
            .collect(),
    )
}

pub(super) fn put(mapping: &mut Mapping, key: &str, value: impl Into<Value>) {
    mapping.insert(Value::from(key), value.into());
}

/// eksctl's `amiFamily` for an EKS AMI type; `None` for eksctl's default
/// (`AmazonLinux2023`), `Err` for a custom AMI.
fn ami_family(ami_type: &str) -> Result<Option<&'static str>, ()> {
    Ok(match ami_type {
        "" => None,
        t if t.starts_with("AL2023_") => None,
        t if t.starts_with("AL2_") => Some("AmazonLinux2"),
        t if t.starts_with("BOTTLEROCKET_") => Some("Bottlerocket"),
        "WINDOWS_CORE_2019_x86_64" => Some("WindowsServer2019CoreContainer"),
        "WINDOWS_FULL_2019_x86_64" => Some("WindowsServer2019FullContainer"),
        "WINDOWS_CORE_2022_x86_64" => Some("WindowsServer2022CoreContainer"),
        "WINDOWS_FULL_2022_x86_64" => Some("WindowsServer2022FullContainer"),
        _ => return Err(()),
    })
}

fn taint_effect(effect: &str) -> &str {
    match effect {
        "NO_SCHEDULE" => "NoSchedule",
        "NO_EXECUTE" => "NoExecute",
        "PREFER_NO_SCHEDULE" => "PreferNoSchedule",
        other => other,
    }
}

/// What eksctl wrote into every managed group that EKS and the launch template do not
/// hold, so a read cannot see it.
const GROUP_KEYS_NOT_HELD: &str = "iam (the node role's policies are IAM's), overrideBootstrapCommand, preBootstrapCommands and maxPodsPerNode (the launch template's user data), instancePrefix, instanceName, additionalVolumes, disablePodIMDS, securityGroups and propagateASGTags (eksctl's launch template and stack; its volume, IMDS and monitoring are read from the template, compared where the design sets them)";

/// The design of a running cluster.
pub fn design_of(running: &RunningCluster) -> Result<Reading, String> {
    let mut not_read = running.not_read.clone();
    let cluster = &running.cluster;
    let zone_of: BTreeMap<&str, &str> = running
        .subnets
        .iter()
        .map(|subnet| (subnet.id.as_str(), subnet.availability_zone.as_str()))
        .collect();
    let public_of: BTreeMap<&str, bool> = running
        .subnets
        .iter()
        .map(|subnet| (subnet.id.as_str(), subnet.public))
        .collect();
    let cluster_subnets: Vec<_> = running
        .subnets
        .iter()
        .filter(|subnet| cluster.subnet_ids.contains(&subnet.id))
        .collect();
    // eksctl made the VPC when it made every one of the cluster's subnets.
    let eksctl_vpc = !cluster_subnets.is_empty()
        && cluster_subnets
            .iter()
            .all(|subnet| subnet.eksctl_cluster.as_deref() == Some(cluster.name.as_str()));
    let mut zones: Vec<&str> = Vec::new();
    for id in &cluster.subnet_ids {
        if let Some(zone) = zone_of.get(id.as_str())
            && !zones.contains(zone)
        {
            zones.push(zone);
        }
    }

    let mut document = Mapping::new();
    put(
        &mut document,
        "apiVersion",
        crate::upstream::eksctl::API_VERSION,
    );
    put(&mut document, "kind", "ClusterConfig");
    let mut metadata = Mapping::new();
    put(&mut metadata, "name", cluster.name.as_str());
    put(&mut metadata, "region", running.region.as_str());
    if !cluster.version.is_empty() {
        put(&mut metadata, "version", cluster.version.as_str());
    }
    let tags = users_own(&cluster.tags);
    if !tags.is_empty() {
        put(&mut metadata, "tags", Value::Mapping(tags));
    }
    put(&mut document, "metadata", Value::Mapping(metadata));

    if eksctl_vpc {
        put(
            &mut document,
            "availabilityZones",
            strings(zones.iter().copied()),
        );
    } else {
        let mut vpc = Mapping::new();
        put(&mut vpc, "id", cluster.vpc_id.as_str());
        let mut subnets = Mapping::new();
        for (kind, public) in [("public", true), ("private", false)] {
            let mut by_name = Mapping::new();
            for subnet in cluster_subnets
                .iter()
                .filter(|subnet| subnet.public == public)
            {
                let mut entry = Mapping::new();
                put(&mut entry, "id", subnet.id.as_str());
                // Keyed by zone as eksctl's own examples are; a second subnet of a zone
                // goes by its id.
                let key = if by_name.contains_key(subnet.availability_zone.as_str()) {
                    subnet.id.as_str()
                } else {
                    subnet.availability_zone.as_str()
                };
                put(&mut by_name, key, Value::Mapping(entry));
            }
            if !by_name.is_empty() {
                put(&mut subnets, kind, Value::Mapping(by_name));
            }
        }
        put(&mut vpc, "subnets", Value::Mapping(subnets));
        put(&mut document, "vpc", Value::Mapping(vpc));
    }
    endpoint_access(&mut document, cluster);
    // eksctl's `cloudWatch.clusterLogging.enableTypes`: the types EKS says are on.
    if !cluster.enabled_log_types.is_empty() {
        let mut logging = Mapping::new();
        put(
            &mut logging,
            "enableTypes",
            strings(cluster.enabled_log_types.iter().cloned()),
        );
        let mut cloud_watch = Mapping::new();
        put(&mut cloud_watch, "clusterLogging", Value::Mapping(logging));
        put(&mut document, "cloudWatch", Value::Mapping(cloud_watch));
    }
    // EKS's default support is EXTENDED (CreateCluster, `upgradePolicy`): only the other
    // is written, as eksctl's users write it.
    if let Some(support) = cluster.support_type.as_deref()
        && support != "EXTENDED"
    {
        let mut policy = Mapping::new();
        put(&mut policy, "supportType", support);
        put(&mut document, "upgradePolicy", Value::Mapping(policy));
    }

    if let Some(key) = &cluster.secrets_key_arn {
        let mut encryption = Mapping::new();
        put(&mut encryption, "keyARN", key.as_str());
        put(
            &mut document,
            "secretsEncryption",
            Value::Mapping(encryption),
        );
    }
    if cluster.zonal_shift {
        let mut zonal_shift = Mapping::new();
        put(&mut zonal_shift, "enabled", true);
        put(
            &mut document,
            "zonalShiftConfig",
            Value::Mapping(zonal_shift),
        );
    }

    let mut iam = Mapping::new();
    match cluster.tags.get("alpha.eksctl.io/cluster-oidc-enabled") {
        Some(enabled) if enabled == "true" => put(&mut iam, "withOIDC", true),
        Some(_) => {}
        None => not_read.push(NotRead {
            what: "iam.withOIDC".into(),
            why: "the cluster has no eksctl tag saying whether an IAM OIDC provider is associated, and IAM is not read".into(),
        }),
    }
    let associations: Vec<Value> = running
        .pod_identity_associations
        .iter()
        .filter(|association| association.owner_arn.is_none())
        .map(|association| {
            let mut entry = Mapping::new();
            put(&mut entry, "namespace", association.namespace.as_str());
            put(
                &mut entry,
                "serviceAccountName",
                association.service_account.as_str(),
            );
            put(&mut entry, "roleARN", association.role_arn.as_str());
            Value::Mapping(entry)
        })
        .collect();
    if !associations.is_empty() {
        put(
            &mut iam,
            "podIdentityAssociations",
            Value::Sequence(associations),
        );
    }
    if !iam.is_empty() {
        put(&mut document, "iam", Value::Mapping(iam));
    }

    let groups: Vec<Value> = running
        .node_groups
        .iter()
        .map(|group| {
            managed_group(
                group,
                &zones,
                &cluster_subnets
                    .iter()
                    .map(|subnet| subnet.id.as_str())
                    .collect::<Vec<_>>(),
                &zone_of,
                &public_of,
                eksctl_vpc,
                &mut not_read,
            )
        })
        .collect();
    if !groups.is_empty() {
        put(&mut document, "managedNodeGroups", Value::Sequence(groups));
        not_read.push(NotRead {
            what: "every managed node group: what eksctl wrote into its launch template and stack"
                .into(),
            why: format!("EKS does not hold what eksctl wrote there: {GROUP_KEYS_NOT_HELD}"),
        });
    }

    let cluster_subnet_ids: Vec<&str> = cluster_subnets
        .iter()
        .map(|subnet| subnet.id.as_str())
        .collect();
    let places = crate::changes::stacks::Places {
        cluster_subnets: &cluster_subnet_ids,
        cluster_zones: &zones,
        zone_of: &zone_of,
        public_of: &public_of,
        eksctl_vpc,
        cluster_tags: &cluster.tags,
    };
    let self_managed: Vec<Value> = running
        .self_managed
        .iter()
        .flatten()
        .filter_map(|stack| {
            crate::changes::stacks::self_managed_group(stack, &places, &mut not_read)
        })
        .collect();
    if !self_managed.is_empty() {
        put(&mut document, "nodeGroups", Value::Sequence(self_managed));
    }

    let addons: Vec<Value> = running
        .addons
        .iter()
        .map(|addon| {
            let mut entry = Mapping::new();
            put(&mut entry, "name", addon.name.as_str());
            if !addon.version.is_empty() {
                put(&mut entry, "version", addon.version.as_str());
            }
            if let Some(role) = &addon.service_account_role_arn {
                put(&mut entry, "serviceAccountRoleARN", role.as_str());
            }
            if let Some(values) = &addon.configuration_values {
                put(&mut entry, "configurationValues", values.as_str());
            }
            let own: Vec<Value> = running
                .pod_identity_associations
                .iter()
                .filter(|association| association.owner_arn.as_deref() == Some(addon.arn.as_str()))
                .map(|association| {
                    let mut item = Mapping::new();
                    put(
                        &mut item,
                        "serviceAccountName",
                        association.service_account.as_str(),
                    );
                    put(&mut item, "roleARN", association.role_arn.as_str());
                    Value::Mapping(item)
                })
                .collect();
            if !own.is_empty() {
                put(&mut entry, "podIdentityAssociations", Value::Sequence(own));
            }
            Value::Mapping(entry)
        })
        .collect();
    if !addons.is_empty() {
        put(&mut document, "addons", Value::Sequence(addons));
    }

    let node_roles: Vec<&str> = running
        .node_groups
        .iter()
        .map(|group| group.node_role.as_str())
        .chain(cluster.auto_mode_node_role_arn.as_deref())
        .collect();
    let entries: Vec<Value> = running
        .access_entries
        .iter()
        // EKS makes an entry for each managed group's and Auto Mode's node role itself,
        // and eksctl's stack one for each self-managed group's role it made.
        .filter(|entry| {
            !(entry.entry_type.starts_with("EC2")
                && (node_roles.contains(&entry.principal_arn.as_str())
                    || self_managed_role(&entry.principal_arn, &cluster.name, running)))
        })
        .map(|entry| {
            let mut item = Mapping::new();
            put(&mut item, "principalARN", entry.principal_arn.as_str());
            if !entry.entry_type.is_empty() && entry.entry_type != "STANDARD" {
                put(&mut item, "type", entry.entry_type.as_str());
            }
            if !entry.kubernetes_groups.is_empty() {
                put(
                    &mut item,
                    "kubernetesGroups",
                    strings(entry.kubernetes_groups.iter().cloned()),
                );
            }
            if !entry.username.is_empty()
                && entry.username != default_username(&entry.principal_arn)
            {
                put(&mut item, "kubernetesUsername", entry.username.as_str());
            }
            let policies: Vec<Value> = entry
                .policies
                .iter()
                .map(|policy| {
                    let mut scope = Mapping::new();
                    put(&mut scope, "type", policy.scope.as_str());
                    if !policy.namespaces.is_empty() {
                        put(
                            &mut scope,
                            "namespaces",
                            strings(policy.namespaces.iter().cloned()),
                        );
                    }
                    let mut item = Mapping::new();
                    put(&mut item, "policyARN", policy.policy_arn.as_str());
                    put(&mut item, "accessScope", Value::Mapping(scope));
                    Value::Mapping(item)
                })
                .collect();
            if !policies.is_empty() {
                put(&mut item, "accessPolicies", Value::Sequence(policies));
            }
            Value::Mapping(item)
        })
        .collect();
    let mut access = Mapping::new();
    if let Some(mode) = &cluster.authentication_mode
        && mode != "API_AND_CONFIG_MAP"
    {
        put(&mut access, "authenticationMode", mode.as_str());
    }
    if !entries.is_empty() {
        put(&mut access, "accessEntries", Value::Sequence(entries));
    }
    if !access.is_empty() {
        put(&mut document, "accessConfig", Value::Mapping(access));
    }

    if cluster.auto_mode {
        let mut auto_mode = Mapping::new();
        put(&mut auto_mode, "enabled", true);
        if let Some(role) = &cluster.auto_mode_node_role_arn {
            put(&mut auto_mode, "nodeRoleARN", role.as_str());
        }
        put(
            &mut auto_mode,
            "nodePools",
            strings(cluster.auto_mode_node_pools.iter().cloned()),
        );
        put(&mut document, "autoModeConfig", Value::Mapping(auto_mode));
        not_read.push(NotRead {
            what: "EKS Auto Mode's NodePools and NodeClasses".into(),
            why: format!(
                "they are objects inside the cluster; {NOT_READ_YET}, which was not at hand"
            ),
        });
    }
    not_read.push(NotRead {
        what: "Karpenter's NodePools, EC2NodeClasses and NodeOverlays".into(),
        why: format!(
            "they are objects inside the cluster; {}, which was not at hand",
            NOT_READ_YET
        ),
    });

    let cluster_config = Value::Mapping(document);
    let spec = crate::documents::import::import_cluster_config(&cluster_config)
        .map_err(|error| format!("{}: {}", error.path, error.message))?;
    Ok(Reading {
        spec,
        cluster_config,
        not_read,
        objects_read: false,
        helm_read: false,
        auto_mode_read: false,
        self_managed_read: running.self_managed.is_some(),
        workloads: None,
        running_groups: running
            .node_groups
            .iter()
            .map(|group| (group.name.clone(), group.clone()))
            .collect(),
    })
}

/// eksctl's `vpc.clusterEndpoints` and `vpc.publicAccessCIDRs`, where the cluster's differ
/// from what eksctl makes (a public endpoint and no private one; EKS's `0.0.0.0/0`).
fn endpoint_access(document: &mut Mapping, cluster: &crate::upstream::eks::EksCluster) {
    let mut endpoints = Mapping::new();
    if let Some(public) = cluster.endpoint_public_access
        && !public
    {
        put(&mut endpoints, "publicAccess", false);
    }
    if let Some(private) = cluster.endpoint_private_access
        && private
    {
        put(&mut endpoints, "privateAccess", true);
    }
    let cidrs = &cluster.public_access_cidrs;
    let open = cidrs.is_empty() || cidrs.iter().all(|cidr| cidr == "0.0.0.0/0");
    if endpoints.is_empty() && open {
        return;
    }
    let vpc = match document
        .entry(Value::from("vpc"))
        .or_insert_with(|| Value::Mapping(Mapping::new()))
    {
        Value::Mapping(vpc) => vpc,
        _ => return,
    };
    if !endpoints.is_empty() {
        // eksctl writes both once either is set (its defaults filled in).
        let public = cluster.endpoint_public_access.unwrap_or(true);
        let private = cluster.endpoint_private_access.unwrap_or(false);
        let mut both = Mapping::new();
        put(&mut both, "publicAccess", public);
        put(&mut both, "privateAccess", private);
        put(vpc, "clusterEndpoints", Value::Mapping(both));
    }
    if !open {
        put(vpc, "publicAccessCIDRs", strings(cidrs.iter().cloned()));
    }
}

/// Whether `principal_arn` is the node role eksctl's stack made for one of the cluster's
/// self-managed groups (`eksctl-CLUSTER-nodegroup-NAME-NodeInstanceRole-…`).
fn self_managed_role(principal_arn: &str, cluster: &str, running: &RunningCluster) -> bool {
    let role = principal_arn.rsplit('/').next().unwrap_or_default();
    running.self_managed.iter().flatten().any(|stack| {
        role.starts_with(&format!(
            "eksctl-{cluster}-nodegroup-{}-NodeInstanceRole",
            stack.name
        ))
    })
}

/// The user name EKS gives an access entry made without one (EKS API reference,
/// `CreateAccessEntry`, `username`): an IAM role's assumed-role session, or the user.
fn default_username(principal_arn: &str) -> String {
    match principal_arn.split_once(":role/") {
        Some((head, role)) => {
            let account = head.rsplit(':').next().unwrap_or_default();
            let partition = head.split(':').nth(1).unwrap_or("aws");
            let name = role.rsplit('/').next().unwrap_or(role);
            format!("arn:{partition}:sts::{account}:assumed-role/{name}/{{{{SessionName}}}}")
        }
        None => principal_arn.to_owned(),
    }
}

fn managed_group(
    group: &EksNodegroup,
    cluster_zones: &[&str],
    cluster_subnets: &[&str],
    zone_of: &BTreeMap<&str, &str>,
    public_of: &BTreeMap<&str, bool>,
    eksctl_vpc: bool,
    not_read: &mut Vec<NotRead>,
) -> Value {
    let mut entry = Mapping::new();
    put(&mut entry, "name", group.name.as_str());
    match group.instance_types.as_slice() {
        [one] => put(&mut entry, "instanceType", one.as_str()),
        [] => {}
        many => put(&mut entry, "instanceTypes", strings(many.iter().cloned())),
    }
    match ami_family(&group.ami_type) {
        Ok(Some(family)) => put(&mut entry, "amiFamily", family),
        Ok(None) => {}
        Err(()) => {
            let image = group
                .launch_template
                .as_ref()
                .and_then(|facts| facts.image_id.as_deref());
            if let Some(image) = image {
                put(&mut entry, "ami", image);
            }
            not_read.push(NotRead {
                what: format!("node group {}: amiFamily", group.name),
                why: format!(
                    "its AMI type is {}: a custom AMI{}, whose family only eksctl's config said",
                    group.ami_type,
                    image.map(|image| format!(" ({image})")).unwrap_or_default()
                ),
            });
        }
    }
    let private = !group.subnets.is_empty()
        && group
            .subnets
            .iter()
            .all(|subnet| public_of.get(subnet.as_str()) == Some(&false));
    if private {
        put(&mut entry, "privateNetworking", true);
    }
    let facts = group.launch_template.clone().unwrap_or_default();
    if facts.efa {
        put(&mut entry, "efaEnabled", true);
    }
    put(&mut entry, "minSize", group.min_size);
    put(&mut entry, "desiredCapacity", group.desired_size);
    put(&mut entry, "maxSize", group.max_size);
    // EKS's default, one node unavailable at a time, is left out, as eksctl's users leave it.
    match (group.max_unavailable_percentage, group.max_unavailable) {
        (Some(percentage), _) => {
            let mut update = Mapping::new();
            put(&mut update, "maxUnavailablePercentage", percentage);
            put(&mut entry, "updateConfig", Value::Mapping(update));
        }
        (None, Some(count)) if count != 1 => {
            let mut update = Mapping::new();
            put(&mut update, "maxUnavailable", count);
            put(&mut entry, "updateConfig", Value::Mapping(update));
        }
        _ => {}
    }
    let same_kind: Vec<&str> = cluster_subnets
        .iter()
        .copied()
        .filter(|subnet| public_of.get(subnet) == Some(&!private))
        .collect();
    let everywhere = {
        let mut theirs: Vec<&str> = group.subnets.iter().map(String::as_str).collect();
        let mut all = same_kind.clone();
        theirs.sort_unstable();
        all.sort_unstable();
        theirs == all
    };
    if !everywhere && !group.subnets.is_empty() {
        if eksctl_vpc {
            let zones: Vec<&str> = cluster_zones
                .iter()
                .copied()
                .filter(|zone| {
                    group
                        .subnets
                        .iter()
                        .any(|subnet| zone_of.get(subnet.as_str()) == Some(zone))
                })
                .collect();
            put(&mut entry, "availabilityZones", strings(zones));
        } else {
            put(
                &mut entry,
                "subnets",
                strings(group.subnets.iter().cloned()),
            );
        }
    }
    match group.capacity_type.as_str() {
        "SPOT" => put(&mut entry, "spot", true),
        "CAPACITY_BLOCK" if facts.market_type.is_none() => {
            let mut market = Mapping::new();
            put(&mut market, "marketType", "capacity-block");
            put(&mut entry, "instanceMarketOptions", Value::Mapping(market));
        }
        _ => {}
    }
    if let Some(market_type) = &facts.market_type {
        let mut market = Mapping::new();
        put(&mut market, "marketType", market_type.as_str());
        put(&mut entry, "instanceMarketOptions", Value::Mapping(market));
    }
    if let Some(reservation) = &facts.capacity_reservation_id {
        let mut target = Mapping::new();
        put(&mut target, "capacityReservationID", reservation.as_str());
        let mut outer = Mapping::new();
        put(
            &mut outer,
            "capacityReservationTarget",
            Value::Mapping(target),
        );
        put(&mut entry, "capacityReservation", Value::Mapping(outer));
    }
    if let Some(placement_group) = &facts.placement_group {
        let mut placement = Mapping::new();
        put(&mut placement, "groupName", placement_group.as_str());
        put(&mut entry, "placement", Value::Mapping(placement));
    }
    let labels: Mapping = group
        .labels
        .iter()
        .filter(|(key, _)| !key.starts_with("alpha.eksctl.io/"))
        .map(|(key, value)| (Value::from(key.as_str()), Value::from(value.as_str())))
        .collect();
    if !labels.is_empty() {
        put(&mut entry, "labels", Value::Mapping(labels));
    }
    let taints: Vec<Value> = group
        .taints
        .iter()
        .map(|taint| {
            let mut item = Mapping::new();
            put(&mut item, "key", taint.key.as_str());
            if let Some(value) = taint.value.as_deref().filter(|value| !value.is_empty()) {
                put(&mut item, "value", value);
            }
            put(&mut item, "effect", taint_effect(&taint.effect));
            Value::Mapping(item)
        })
        .collect();
    if !taints.is_empty() {
        put(&mut entry, "taints", Value::Sequence(taints));
    }
    if group.node_repair == Some(true) {
        let mut repair = Mapping::new();
        put(&mut repair, "enabled", true);
        put(&mut entry, "nodeRepairConfig", Value::Mapping(repair));
    }
    let tags = users_own(&group.tags);
    if !tags.is_empty() {
        put(&mut entry, "tags", Value::Mapping(tags));
    }
    if group.launch_template.is_none() {
        not_read.push(NotRead {
            what: format!(
                "node group {}: efaEnabled, capacityReservation, placement",
                group.name
            ),
            why: "its launch template was not read".into(),
        });
    }
    Value::Mapping(entry)
}
