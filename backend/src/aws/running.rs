//! Reading a running cluster with read-only EKS, EC2, CloudFormation and Auto Scaling
//! calls, made concurrently: the cluster, its managed node groups with their launch
//! templates, eksctl's self-managed node groups from their stacks, add-ons, access entries
//! with their policies, Pod Identity associations, and the subnets they use. Nothing is
//! cached: a read is of the cluster as it is now. A call refused or failed leaves its part
//! out, named in `not_read` with the reason; only the cluster itself must be readable.

use std::collections::BTreeMap;

use futures_util::future::join_all;
use shared::changes::read::{Reading, design_of};
use shared::model::ids::Region;
use shared::upstream::eks::{
    EksAccessEntry, EksAccessPolicy, EksAddon, EksCluster, EksNodegroup, EksPodIdentityAssociation,
    EksTaint, GroupSizes, LaunchTemplateFacts, NotRead, RunningCluster, RunningSubnet,
    SelfManagedStack, VolumeFacts,
};

use super::{AwsError, LiveAws};

/// The read-only calls a read makes, as an IAM policy's actions.
pub const READ_ACTIONS: &[&str] = &[
    "eks:DescribeCluster",
    "eks:ListClusters",
    "eks:ListNodegroups",
    "eks:DescribeNodegroup",
    "eks:ListAddons",
    "eks:DescribeAddon",
    "eks:ListAccessEntries",
    "eks:DescribeAccessEntry",
    "eks:ListAssociatedAccessPolicies",
    "eks:ListPodIdentityAssociations",
    "eks:DescribePodIdentityAssociation",
    "ec2:DescribeSubnets",
    "ec2:DescribeLaunchTemplateVersions",
    "eks:DescribeAddonVersions",
    "cloudformation:DescribeStacks",
    "cloudformation:GetTemplate",
    "cloudformation:DescribeStackResource",
    "autoscaling:DescribeAutoScalingGroups",
    // A plan's: the reservations the design's groups run on.
    "ec2:DescribeCapacityReservations",
];

fn not_read(what: impl Into<String>, error: &AwsError) -> NotRead {
    NotRead {
        what: what.into(),
        why: error.to_string(),
    }
}

/// How to reach a cluster's API server: what `aws eks update-kubeconfig` writes into a
/// kubeconfig.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiAccess {
    /// The cluster's ARN, which names its kubeconfig entries.
    pub arn: String,
    /// The API server's URL.
    pub endpoint: String,
    /// The cluster's certificate authority, base64 as EKS gives it.
    pub certificate_authority: String,
}

/// The most node groups a plan describes by the design's names before EKS lists them:
/// EKS's default quota of managed node groups per cluster.
const MAX_GUESSED_GROUPS: usize = 30;

/// A design's group names bounded before they become calls: names EKS could have given
/// a group, each once, no more than [`MAX_GUESSED_GROUPS`].
fn guessable(expected: &[String]) -> Vec<&String> {
    let mut names: Vec<&String> = Vec::new();
    for name in expected {
        let plausible = name.len() <= 63
            && name
                .chars()
                .next()
                .is_some_and(|first| first.is_ascii_alphanumeric())
            && name.chars().all(|character| {
                character.is_ascii_alphanumeric() || matches!(character, '-' | '_')
            });
        if plausible && !names.contains(&name) && names.len() < MAX_GUESSED_GROUPS {
            names.push(name);
        }
    }
    names
}

impl LiveAws {
    /// The running cluster `name` as a design, with what could not be read. `Err` when
    /// the cluster itself cannot be read; a design that does not import (it cannot, from
    /// answers EKS gives) is `Failed`. `expected_groups` are the managed node groups the
    /// caller expects (a plan's design's), described without waiting for the list.
    pub async fn read_design(
        &self,
        region: &Region,
        name: &str,
        expected_groups: &[String],
    ) -> Result<Reading, AwsError> {
        let running = self.running_cluster(region, name, expected_groups).await?;
        design_of(&running).map_err(|detail| AwsError::Failed {
            call: "DescribeCluster",
            detail: format!("the cluster read does not import: {detail}"),
        })
    }

    /// The versions EKS offers of each of `addons` for Kubernetes `kubernetes_version`
    /// (DescribeAddonVersions, one call per add-on, concurrently).
    pub async fn addon_versions(
        &self,
        region: &Region,
        addons: &[String],
        kubernetes_version: &str,
    ) -> Result<shared::changes::addons::AddonOffer, AwsError> {
        const CALL: &str = "DescribeAddonVersions";
        let eks = self.eks_client(region)?;
        // One call per distinct name, cached like the live checks' answers.
        let names: std::collections::BTreeSet<&String> = addons.iter().collect();
        let answers = join_all(names.into_iter().map(|name| {
            let eks = eks.clone();
            let fetch = async move {
                let pages = eks
                    .describe_addon_versions()
                    .addon_name(name)
                    .kubernetes_version(kubernetes_version)
                    .into_paginator()
                    .send()
                    .collect::<Result<Vec<_>, _>>()
                    .await
                    .map_err(|error| self.service_error("eks", CALL, region, error))?;
                let versions: Vec<String> = pages
                    .iter()
                    .flat_map(|page| page.addons())
                    .filter(|addon| addon.addon_name() == Some(name.as_str()))
                    .flat_map(|addon| addon.addon_versions())
                    .filter_map(|version| version.addon_version().map(str::to_owned))
                    .collect();
                Ok(std::sync::Arc::new(versions))
            };
            async move {
                let versions = self
                    .inner
                    .caches
                    .addon_versions
                    .get_or_fetch(
                        (
                            region.as_str(),
                            (name.clone(), kubernetes_version.to_owned()),
                        ),
                        fetch,
                    )
                    .await?;
                Ok::<_, AwsError>((name.clone(), versions.as_ref().clone()))
            }
        }))
        .await;
        let mut offer = shared::changes::addons::AddonOffer {
            kubernetes_version: kubernetes_version.to_owned(),
            ..Default::default()
        };
        for answer in answers {
            let (name, versions) = answer?;
            offer.versions.insert(name, versions);
        }
        Ok(offer)
    }

    /// The names of the region's clusters (ListClusters).
    pub async fn cluster_names(&self, region: &Region) -> Result<Vec<String>, AwsError> {
        const CALL: &str = "ListClusters";
        let client = self.eks_client(region)?;
        let pages = client
            .list_clusters()
            .into_paginator()
            .send()
            .collect::<Result<Vec<_>, _>>()
            .await
            .map_err(|error| self.service_error("eks", CALL, region, error))?;
        Ok(pages
            .iter()
            .flat_map(|page| page.clusters().iter().cloned())
            .collect())
    }

    /// Everything the studio reads of cluster `name`.
    ///
    /// Every call that needs no other's answer starts at once: the cluster and then its
    /// VPC's subnets, beside the node groups (listed, described, then each launch
    /// template), the add-ons, the access entries and the Pod Identity associations. The
    /// longest chain is three calls (ListNodegroups, DescribeNodegroup,
    /// DescribeLaunchTemplateVersions; EKS has no call that describes node groups in
    /// bulk), two for the groups of `expected_groups`, described beside the list.
    pub async fn running_cluster(
        &self,
        region: &Region,
        name: &str,
        expected_groups: &[String],
    ) -> Result<RunningCluster, AwsError> {
        let cluster_and_subnets = async {
            let cluster = self.described_cluster(region, name).await?;
            let subnets = self.vpc_subnets(region, &cluster.vpc_id).await;
            Ok::<_, AwsError>((cluster, subnets))
        };
        let (cluster, groups, self_managed, addons, entries, associations) = tokio::join!(
            cluster_and_subnets,
            self.node_groups(region, name, expected_groups),
            self.self_managed_groups(region, name),
            self.addons(region, name),
            self.access_entries(region, name),
            self.pod_identity_associations(region, name),
        );
        let (running_cluster, subnets) = cluster?;
        let mut running = RunningCluster {
            region: region.as_str().to_owned(),
            cluster: running_cluster,
            ..RunningCluster::default()
        };
        match groups {
            Ok((groups, mut missing)) => {
                running.node_groups = groups;
                running.not_read.append(&mut missing);
            }
            Err(error) => running
                .not_read
                .push(not_read(shared::changes::read::MANAGED_GROUPS, &error)),
        }
        match self_managed {
            Ok((stacks, mut missing)) => {
                running.self_managed = Some(stacks);
                running.not_read.append(&mut missing);
            }
            Err(error) => running.not_read.push(not_read(
                "self-managed node groups (eksctl's stacks)",
                &error,
            )),
        }
        match addons {
            Ok(addons) => running.addons = addons,
            Err(error) => running.not_read.push(not_read("add-ons", &error)),
        }
        match entries {
            Ok(entries) => running.access_entries = entries,
            Err(error) => running.not_read.push(not_read("access entries", &error)),
        }
        match associations {
            Ok(associations) => running.pod_identity_associations = associations,
            Err(error) => running
                .not_read
                .push(not_read("Pod Identity associations", &error)),
        }
        match subnets {
            Ok(mut by_id) => {
                // In the order the cluster and then its groups name them, as EKS lists them.
                let mut ids: Vec<&String> = running.cluster.subnet_ids.iter().collect();
                for group in &running.node_groups {
                    ids.extend(&group.subnets);
                }
                running.subnets = ids
                    .into_iter()
                    .filter_map(|id| by_id.remove(id.as_str()))
                    .collect();
            }
            Err(error) => running.not_read.push(not_read(
                "subnets (zones, public or private, made by eksctl or not)",
                &error,
            )),
        }
        Ok(running)
    }

    /// eksctl's self-managed node groups of `cluster`, as `eksctl get nodegroup` finds them
    /// (eksctl-io/eksctl `pkg/cfn/manager/nodegroup.go`, `pkg/actions/nodegroup/get.go`):
    /// the region's stacks tagged with the cluster and a node group name whose type is
    /// `unmanaged` or not given; each one's template, and its `NodeGroup` resource's Auto
    /// Scaling group for the sizes now. A stack whose template or group could not be read
    /// is named in the second list; `Err` when the stacks could not be listed.
    async fn self_managed_groups(
        &self,
        region: &Region,
        cluster: &str,
    ) -> Result<(Vec<SelfManagedStack>, Vec<NotRead>), AwsError> {
        const CLUSTER_TAGS: [&str; 2] = [
            "alpha.eksctl.io/cluster-name",
            "eksctl.cluster.k8s.io/v1alpha1/cluster-name",
        ];
        const GROUP_TAGS: [&str; 3] = [
            "alpha.eksctl.io/nodegroup-name",
            "eksctl.cluster.k8s.io/v1alpha1/nodegroup-name",
            "eksctl.io/v1alpha2/nodegroup-name",
        ];
        let stacks = self.stack_client(region)?;
        let pages = stacks
            .describe_stacks()
            .into_paginator()
            .send()
            .collect::<Result<Vec<_>, _>>()
            .await
            .map_err(|error| {
                self.service_error("cloudformation", "DescribeStacks", region, error)
            })?;
        let found: Vec<(String, String, BTreeMap<String, String>)> = pages
            .iter()
            .flat_map(|page| page.stacks())
            .filter(|stack| {
                !matches!(
                    stack.stack_status(),
                    Some(
                        aws_sdk_cloudformation::types::StackStatus::DeleteComplete
                            | aws_sdk_cloudformation::types::StackStatus::DeleteInProgress
                    )
                )
            })
            .filter_map(|stack| {
                let tags: BTreeMap<String, String> = stack
                    .tags()
                    .iter()
                    .filter_map(|tag| Some((tag.key()?.to_owned(), tag.value()?.to_owned())))
                    .collect();
                let ours = CLUSTER_TAGS
                    .iter()
                    .any(|key| tags.get(*key).map(String::as_str) == Some(cluster));
                let group = GROUP_TAGS.iter().find_map(|key| tags.get(*key))?.clone();
                let unmanaged = tags
                    .get("alpha.eksctl.io/nodegroup-type")
                    .is_none_or(|kind| kind == "unmanaged");
                (ours && unmanaged)
                    .then(|| Some((group, stack.stack_name()?.to_owned(), tags)))
                    .flatten()
            })
            .collect();
        let templates = join_all(found.iter().map(|(_, stack_name, _)| {
            let stacks = stacks.clone();
            async move {
                let (template, resource) = tokio::join!(
                    stacks.get_template().stack_name(stack_name).send(),
                    stacks
                        .describe_stack_resource()
                        .stack_name(stack_name)
                        .logical_resource_id("NodeGroup")
                        .send(),
                );
                let template = template
                    .map_err(|error| {
                        self.service_error("cloudformation", "GetTemplate", region, error)
                    })
                    .map(|answer| answer.template_body().unwrap_or_default().to_owned());
                let scaling_group = resource.ok().and_then(|answer| {
                    answer
                        .stack_resource_detail()?
                        .physical_resource_id()
                        .map(str::to_owned)
                });
                (template, scaling_group)
            }
        }))
        .await;
        let names: Vec<String> = templates
            .iter()
            .filter_map(|(_, scaling_group)| scaling_group.clone())
            .collect();
        let sizes = self.scaling_group_sizes(region, &names).await;
        let mut read = Vec::new();
        let mut missing = Vec::new();
        for ((group, stack_name, tags), (template, scaling_group)) in
            found.into_iter().zip(templates)
        {
            let template = match template {
                Ok(template) => template,
                Err(error) => {
                    missing.push(not_read(format!("self-managed node group {group}"), &error));
                    continue;
                }
            };
            let group_sizes = match (&sizes, &scaling_group) {
                (Ok(sizes), Some(name)) => sizes.get(name).copied(),
                _ => None,
            };
            if let (Err(error), Some(_)) = (&sizes, &scaling_group) {
                missing.push(not_read(
                    format!("self-managed node group {group}: its sizes now"),
                    error,
                ));
            }
            read.push(SelfManagedStack {
                name: group,
                stack_name,
                tags,
                template,
                sizes: group_sizes,
            });
        }
        Ok((read, missing))
    }

    /// The sizes of the Auto Scaling groups `names`, by name (DescribeAutoScalingGroups,
    /// fifty names a call, as the API takes).
    async fn scaling_group_sizes(
        &self,
        region: &Region,
        names: &[String],
    ) -> Result<BTreeMap<String, GroupSizes>, AwsError> {
        let mut sizes = BTreeMap::new();
        if names.is_empty() {
            return Ok(sizes);
        }
        let scaling = self.scaling_client(region)?;
        let answers = join_all(names.chunks(50).map(|chunk| {
            scaling
                .describe_auto_scaling_groups()
                .set_auto_scaling_group_names(Some(chunk.to_vec()))
                .into_paginator()
                .send()
                .collect::<Result<Vec<_>, _>>()
        }))
        .await;
        for answer in answers {
            let pages = answer.map_err(|error| {
                self.service_error("autoscaling", "DescribeAutoScalingGroups", region, error)
            })?;
            for group in pages.iter().flat_map(|page| page.auto_scaling_groups()) {
                let count = |value: Option<i32>| u32::try_from(value.unwrap_or(0)).unwrap_or(0);
                if let Some(name) = group.auto_scaling_group_name() {
                    sizes.insert(
                        name.to_owned(),
                        GroupSizes {
                            min: count(group.min_size()),
                            desired: count(group.desired_capacity()),
                            max: count(group.max_size()),
                        },
                    );
                }
            }
        }
        Ok(sizes)
    }

    /// What a kubeconfig for cluster `name` needs (DescribeCluster): its ARN, its API
    /// server's endpoint and the certificate authority's data, as
    /// `aws eks update-kubeconfig` takes them.
    pub async fn api_access(&self, region: &Region, name: &str) -> Result<ApiAccess, AwsError> {
        let cluster = self.describe_cluster(region, name).await?;
        let field = |value: Option<&str>, what: &str| {
            value
                .filter(|value| !value.is_empty())
                .map(str::to_owned)
                .ok_or_else(|| AwsError::Failed {
                    call: "DescribeCluster",
                    detail: format!(
                        "EKS gave cluster {name} no {what} (is it still being created?)"
                    ),
                })
        };
        Ok(ApiAccess {
            arn: field(cluster.arn(), "ARN")?,
            endpoint: field(cluster.endpoint(), "endpoint")?,
            certificate_authority: field(
                cluster
                    .certificate_authority()
                    .and_then(|authority| authority.data()),
                "certificate authority",
            )?,
        })
    }

    /// EKS's answer to DescribeCluster for `name`.
    async fn describe_cluster(
        &self,
        region: &Region,
        name: &str,
    ) -> Result<aws_sdk_eks::types::Cluster, AwsError> {
        let eks = self.eks_client(region)?;
        let described = eks
            .describe_cluster()
            .name(name)
            .send()
            .await
            .map_err(|error| self.service_error("eks", "DescribeCluster", region, error))?;
        described.cluster.ok_or_else(|| AwsError::Failed {
            call: "DescribeCluster",
            detail: format!("EKS described no cluster named {name}"),
        })
    }

    /// DescribeCluster, as the studio keeps it.
    async fn described_cluster(&self, region: &Region, name: &str) -> Result<EksCluster, AwsError> {
        let cluster = &self.describe_cluster(region, name).await?;
        let vpc = cluster.resources_vpc_config();
        let compute = cluster.compute_config();
        Ok(EksCluster {
            name: cluster.name().unwrap_or(name).to_owned(),
            version: cluster.version().unwrap_or_default().to_owned(),
            status: cluster
                .status()
                .map(|status| status.as_str().to_owned())
                .unwrap_or_default(),
            tags: cluster
                .tags()
                .map(|tags| tags.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default(),
            vpc_id: vpc
                .and_then(|vpc| vpc.vpc_id())
                .unwrap_or_default()
                .to_owned(),
            subnet_ids: vpc.map(|vpc| vpc.subnet_ids().to_vec()).unwrap_or_default(),
            authentication_mode: cluster
                .access_config()
                .and_then(|access| access.authentication_mode())
                .map(|mode| mode.as_str().to_owned()),
            auto_mode: compute.and_then(|compute| compute.enabled()) == Some(true),
            auto_mode_node_pools: compute
                .map(|compute| compute.node_pools().to_vec())
                .unwrap_or_default(),
            auto_mode_node_role_arn: compute
                .and_then(|compute| compute.node_role_arn())
                .map(str::to_owned),
            endpoint_public_access: vpc.map(|vpc| vpc.endpoint_public_access()),
            endpoint_private_access: vpc.map(|vpc| vpc.endpoint_private_access()),
            public_access_cidrs: vpc
                .map(|vpc| vpc.public_access_cidrs().to_vec())
                .unwrap_or_default(),
            enabled_log_types: cluster
                .logging()
                .map(|logging| {
                    logging
                        .cluster_logging()
                        .iter()
                        .filter(|setup| setup.enabled() == Some(true))
                        .flat_map(|setup| setup.types().iter().map(|kind| kind.as_str().to_owned()))
                        .collect()
                })
                .unwrap_or_default(),
            support_type: cluster
                .upgrade_policy()
                .and_then(|policy| policy.support_type())
                .map(|support| support.as_str().to_owned()),
            secrets_key_arn: cluster
                .encryption_config()
                .iter()
                .find(|config| {
                    config
                        .resources()
                        .iter()
                        .any(|resource| resource == "secrets")
                })
                .and_then(|config| config.provider())
                .and_then(|provider| provider.key_arn())
                .map(str::to_owned),
            zonal_shift: cluster
                .zonal_shift_config()
                .and_then(|config| config.enabled())
                == Some(true),
        })
    }

    /// The cluster's managed node groups (ListNodegroups, then DescribeNodegroup and the
    /// launch template's version for each). The groups in `expected` (the design's, for a
    /// plan; at most [`MAX_GUESSED_GROUPS`] names EKS could give a group) are described
    /// while the list is asked for, so a group's three calls are two one after another;
    /// a guess the list does not hold is dropped.
    async fn node_groups(
        &self,
        region: &Region,
        cluster: &str,
        expected: &[String],
    ) -> Result<(Vec<EksNodegroup>, Vec<NotRead>), AwsError> {
        let eks = self.eks_client(region)?;
        let listing = async {
            eks.list_nodegroups()
                .cluster_name(cluster)
                .into_paginator()
                .send()
                .collect::<Result<Vec<_>, _>>()
                .await
                .map_err(|error| self.service_error("eks", "ListNodegroups", region, error))
        };
        let expected = guessable(expected);
        let guesses = join_all(
            expected
                .iter()
                .map(|name| self.node_group(&eks, region, cluster, name)),
        );
        let (pages, guessed) = tokio::join!(listing, guesses);
        let names: Vec<String> = pages?
            .iter()
            .flat_map(|page| page.nodegroups().iter().cloned())
            .collect();
        let unguessed: Vec<&String> = names
            .iter()
            .filter(|name| !expected.contains(name))
            .collect();
        let mut rest = join_all(
            unguessed
                .iter()
                .map(|name| self.node_group(&eks, region, cluster, name)),
        )
        .await
        .into_iter();
        let mut guessed: Vec<Option<_>> = guessed.into_iter().map(Some).collect();
        let mut groups = Vec::new();
        let mut missing = Vec::new();
        for name in &names {
            let answer = match expected.iter().position(|guess| *guess == name) {
                Some(at) => guessed[at].take(),
                None => rest.next(),
            };
            match answer {
                Some(Ok((group, gap))) => {
                    groups.extend(group);
                    missing.extend(gap);
                }
                Some(Err(error)) => missing.push(not_read(format!("node group {name}"), &error)),
                None => {}
            }
        }
        Ok((groups, missing))
    }

    /// One managed node group (DescribeNodegroup) and what its launch template says.
    async fn node_group(
        &self,
        eks: &aws_sdk_eks::Client,
        region: &Region,
        cluster: &str,
        name: &String,
    ) -> Result<(Option<EksNodegroup>, Option<NotRead>), AwsError> {
        let answer = eks
            .describe_nodegroup()
            .cluster_name(cluster)
            .nodegroup_name(name)
            .send()
            .await
            .map_err(|error| self.service_error("eks", "DescribeNodegroup", region, error))?;
        let Some(group) = answer.nodegroup() else {
            return Ok((None, None));
        };
        let scaling = group.scaling_config();
        let mut read = EksNodegroup {
            name: name.clone(),
            status: group
                .status()
                .map(|status| status.as_str().to_owned())
                .unwrap_or_default(),
            instance_types: group.instance_types().to_vec(),
            ami_type: group
                .ami_type()
                .map(|ami| ami.as_str().to_owned())
                .unwrap_or_default(),
            capacity_type: group
                .capacity_type()
                .map(|capacity| capacity.as_str().to_owned())
                .unwrap_or_default(),
            min_size: scaling
                .and_then(|scaling| scaling.min_size())
                .unwrap_or_default()
                .max(0) as u32,
            max_size: scaling
                .and_then(|scaling| scaling.max_size())
                .unwrap_or_default()
                .max(0) as u32,
            desired_size: scaling
                .and_then(|scaling| scaling.desired_size())
                .unwrap_or_default()
                .max(0) as u32,
            labels: group
                .labels()
                .map(|labels| labels.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default(),
            taints: group
                .taints()
                .iter()
                .map(|taint| EksTaint {
                    key: taint.key().unwrap_or_default().to_owned(),
                    value: taint.value().map(str::to_owned),
                    effect: taint
                        .effect()
                        .map(|effect| effect.as_str().to_owned())
                        .unwrap_or_default(),
                })
                .collect(),
            subnets: group.subnets().to_vec(),
            tags: group
                .tags()
                .map(|tags| tags.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default(),
            launch_template: None,
            node_repair: group
                .node_repair_config()
                .and_then(|repair| repair.enabled()),
            node_role: group.node_role().unwrap_or_default().to_owned(),
            release_version: group.release_version().map(str::to_owned),
            max_unavailable: group
                .update_config()
                .and_then(|update| update.max_unavailable()),
            max_unavailable_percentage: group
                .update_config()
                .and_then(|update| update.max_unavailable_percentage()),
        };
        let mut missing = None;
        if let Some(template) = group.launch_template()
            && let Some(id) = template.id()
        {
            match self
                .launch_template_facts(region, id, template.version())
                .await
            {
                Ok(facts) => read.launch_template = Some(facts),
                Err(error) => {
                    missing = Some(not_read(
                        format!("node group {name}: its launch template {id}"),
                        &error,
                    ));
                }
            }
        } else {
            // No launch template: EKS made the nodes from its own settings, so
            // there is no EFA, reservation or placement group to read.
            read.launch_template = Some(LaunchTemplateFacts::default());
        }
        Ok((Some(read), missing))
    }

    async fn launch_template_facts(
        &self,
        region: &Region,
        id: &str,
        version: Option<&str>,
    ) -> Result<LaunchTemplateFacts, AwsError> {
        const CALL: &str = "DescribeLaunchTemplateVersions";
        let ec2 = self.client(region)?;
        let answer = ec2
            .describe_launch_template_versions()
            .launch_template_id(id)
            .versions(version.unwrap_or("$Default"))
            .send()
            .await
            .map_err(|error| self.service_error("ec2", CALL, region, error))?;
        let data = answer
            .launch_template_versions()
            .first()
            .and_then(|version| version.launch_template_data());
        Ok(LaunchTemplateFacts {
            efa: data.is_some_and(|data| {
                data.network_interfaces()
                    .iter()
                    .any(|interface| interface.interface_type() == Some("efa"))
            }),
            capacity_reservation_id: data
                .and_then(|data| data.capacity_reservation_specification())
                .and_then(|spec| spec.capacity_reservation_target())
                .and_then(|target| target.capacity_reservation_id())
                .map(str::to_owned),
            market_type: data
                .and_then(|data| data.instance_market_options())
                .and_then(|options| options.market_type())
                .map(|market| market.as_str().to_owned()),
            placement_group: data
                .and_then(|data| data.placement())
                .and_then(|placement| placement.group_name())
                .filter(|name| !name.is_empty())
                .map(str::to_owned),
            image_id: data.and_then(|data| data.image_id()).map(str::to_owned),
            volume: data
                .and_then(|data| {
                    data.block_device_mappings()
                        .iter()
                        .find_map(|mapping| mapping.ebs())
                })
                .map(|ebs| VolumeFacts {
                    size: ebs.volume_size(),
                    kind: ebs.volume_type().map(|kind| kind.as_str().to_owned()),
                    iops: ebs.iops(),
                    throughput: ebs.throughput(),
                    encrypted: ebs.encrypted(),
                    kms_key_id: ebs.kms_key_id().map(str::to_owned),
                }),
            imds_v1_disabled: data
                .and_then(|data| data.metadata_options())
                .and_then(|options| options.http_tokens())
                .map(|tokens| tokens.as_str() == "required"),
            detailed_monitoring: data
                .and_then(|data| data.monitoring())
                .and_then(|monitoring| monitoring.enabled()),
        })
    }

    async fn addons(&self, region: &Region, cluster: &str) -> Result<Vec<EksAddon>, AwsError> {
        let eks = self.eks_client(region)?;
        let pages = eks
            .list_addons()
            .cluster_name(cluster)
            .into_paginator()
            .send()
            .collect::<Result<Vec<_>, _>>()
            .await
            .map_err(|error| self.service_error("eks", "ListAddons", region, error))?;
        let names: Vec<String> = pages
            .iter()
            .flat_map(|page| page.addons().iter().cloned())
            .collect();
        let described = join_all(names.iter().map(|name| {
            let eks = eks.clone();
            async move {
                eks.describe_addon()
                    .cluster_name(cluster)
                    .addon_name(name)
                    .send()
                    .await
                    .map_err(|error| self.service_error("eks", "DescribeAddon", region, error))
            }
        }))
        .await;
        let mut addons = Vec::new();
        for answer in described {
            if let Some(addon) = answer?.addon() {
                addons.push(EksAddon {
                    name: addon.addon_name().unwrap_or_default().to_owned(),
                    version: addon.addon_version().unwrap_or_default().to_owned(),
                    service_account_role_arn: addon.service_account_role_arn().map(str::to_owned),
                    configuration_values: addon
                        .configuration_values()
                        .filter(|values| !values.is_empty())
                        .map(str::to_owned),
                    arn: addon.addon_arn().unwrap_or_default().to_owned(),
                });
            }
        }
        Ok(addons)
    }

    async fn access_entries(
        &self,
        region: &Region,
        cluster: &str,
    ) -> Result<Vec<EksAccessEntry>, AwsError> {
        let eks = self.eks_client(region)?;
        let pages = eks
            .list_access_entries()
            .cluster_name(cluster)
            .into_paginator()
            .send()
            .collect::<Result<Vec<_>, _>>()
            .await
            .map_err(|error| self.service_error("eks", "ListAccessEntries", region, error))?;
        let principals: Vec<String> = pages
            .iter()
            .flat_map(|page| page.access_entries().iter().cloned())
            .collect();
        let described = join_all(principals.iter().map(|principal| {
            let eks = eks.clone();
            async move {
                let (entry, policies) = tokio::join!(
                    eks.describe_access_entry()
                        .cluster_name(cluster)
                        .principal_arn(principal)
                        .send(),
                    eks.list_associated_access_policies()
                        .cluster_name(cluster)
                        .principal_arn(principal)
                        .into_paginator()
                        .send()
                        .collect::<Result<Vec<_>, _>>(),
                );
                let entry = entry.map_err(|error| {
                    self.service_error("eks", "DescribeAccessEntry", region, error)
                })?;
                let policies = policies.map_err(|error| {
                    self.service_error("eks", "ListAssociatedAccessPolicies", region, error)
                })?;
                let Some(entry) = entry.access_entry() else {
                    return Ok(None);
                };
                Ok::<_, AwsError>(Some(EksAccessEntry {
                    principal_arn: principal.clone(),
                    entry_type: entry.r#type().unwrap_or_default().to_owned(),
                    kubernetes_groups: entry.kubernetes_groups().to_vec(),
                    username: entry.username().unwrap_or_default().to_owned(),
                    policies: policies
                        .iter()
                        .flat_map(|page| page.associated_access_policies())
                        .map(|policy| EksAccessPolicy {
                            policy_arn: policy.policy_arn().unwrap_or_default().to_owned(),
                            scope: policy
                                .access_scope()
                                .and_then(|scope| scope.r#type())
                                .map(|scope| scope.as_str().to_owned())
                                .unwrap_or_default(),
                            namespaces: policy
                                .access_scope()
                                .map(|scope| scope.namespaces().to_vec())
                                .unwrap_or_default(),
                        })
                        .collect(),
                }))
            }
        }))
        .await;
        let mut entries = Vec::new();
        for answer in described {
            entries.extend(answer?);
        }
        Ok(entries)
    }

    async fn pod_identity_associations(
        &self,
        region: &Region,
        cluster: &str,
    ) -> Result<Vec<EksPodIdentityAssociation>, AwsError> {
        let eks = self.eks_client(region)?;
        let pages = eks
            .list_pod_identity_associations()
            .cluster_name(cluster)
            .into_paginator()
            .send()
            .collect::<Result<Vec<_>, _>>()
            .await
            .map_err(|error| {
                self.service_error("eks", "ListPodIdentityAssociations", region, error)
            })?;
        let ids: Vec<String> = pages
            .iter()
            .flat_map(|page| page.associations())
            .filter_map(|summary| summary.association_id().map(str::to_owned))
            .collect();
        let described = join_all(ids.iter().map(|id| {
            let eks = eks.clone();
            async move {
                eks.describe_pod_identity_association()
                    .cluster_name(cluster)
                    .association_id(id)
                    .send()
                    .await
                    .map_err(|error| {
                        self.service_error("eks", "DescribePodIdentityAssociation", region, error)
                    })
            }
        }))
        .await;
        let mut associations = Vec::new();
        for answer in described {
            if let Some(association) = answer?.association() {
                associations.push(EksPodIdentityAssociation {
                    namespace: association.namespace().unwrap_or_default().to_owned(),
                    service_account: association.service_account().unwrap_or_default().to_owned(),
                    role_arn: association.role_arn().unwrap_or_default().to_owned(),
                    owner_arn: association.owner_arn().map(str::to_owned),
                });
            }
        }
        Ok(associations)
    }

    /// The subnets of the cluster's VPC, by id. By the VPC rather than by the ids the
    /// cluster and its groups name: that needs only DescribeCluster's answer, and one id
    /// that no longer exists would fail a call by ids.
    async fn vpc_subnets(
        &self,
        region: &Region,
        vpc_id: &str,
    ) -> Result<BTreeMap<String, RunningSubnet>, AwsError> {
        if vpc_id.is_empty() {
            return Ok(BTreeMap::new());
        }
        let ec2 = self.client(region)?;
        let answer = ec2
            .describe_subnets()
            .filters(
                aws_sdk_ec2::types::Filter::builder()
                    .name("vpc-id")
                    .values(vpc_id)
                    .build(),
            )
            .send()
            .await
            .map_err(|error| self.service_error("ec2", "DescribeSubnets", region, error))?;
        Ok(answer
            .subnets()
            .iter()
            .filter_map(|subnet| {
                let id = subnet.subnet_id()?;
                let tag = |key: &str| {
                    subnet
                        .tags()
                        .iter()
                        .find(|tag| tag.key() == Some(key))
                        .and_then(|tag| tag.value())
                        .map(str::to_owned)
                };
                Some((
                    id.to_owned(),
                    RunningSubnet {
                        id: id.to_owned(),
                        availability_zone: subnet
                            .availability_zone()
                            .unwrap_or_default()
                            .to_owned(),
                        public: tag("kubernetes.io/role/elb").is_some()
                            || (tag("kubernetes.io/role/internal-elb").is_none()
                                && subnet.map_public_ip_on_launch() == Some(true)),
                        eksctl_cluster: tag("alpha.eksctl.io/cluster-name"),
                    },
                ))
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_design_s_names_become_at_most_the_quota_of_plausible_distinct_guesses() {
        let mut names: Vec<String> = vec!["gpu".into(), "gpu".into(), "-x".into(), "a b".into()];
        names.push("n".repeat(64));
        names.extend((0..100).map(|index| format!("group-{index}")));
        let guessed = guessable(&names);
        assert_eq!(guessed.len(), MAX_GUESSED_GROUPS);
        assert_eq!(guessed[0], "gpu");
        assert_eq!(guessed[1], "group-0");
    }
}
