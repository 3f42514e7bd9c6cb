//! Cluster-wide rules: placeholders, names, region, version, zones and the VPC.

use super::{Check, Context, Report, Rule, Severity, Stage};
use crate::catalog::versions::{self, Support};
use crate::fields;
use crate::model::ids::{self, AvailabilityZone, IdError, ResourceName, SubnetId, VpcId};
use crate::model::spec::{Addon, AutoMode, ClusterSettings, Spec};
use crate::model::spec::{GroupPlacement, Network};

pub(super) static RULES: &[Rule] = &[
    Rule {
        id: "placeholder-left",
        severity: Severity::Error,
        summary: super::described(
            "a PLACEHOLDER_* or example value from a template is still in the spec",
        ),
        help: "replace it with the real value from your AWS account",
        reference: super::described(
            "reference manifests, aws-samples/awsome-distributed-training 1.architectures/4.amazon-eks",
        ),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(placeholder_left),
    },
    Rule {
        id: "cluster-name-invalid",
        severity: Severity::Error,
        summary: super::described(
            "cluster name must start with a letter and hold only letters, digits and hyphens",
        ),
        help: "use a name such as `training-p5`",
        reference: super::described(
            "eksctl validation.go:1052-1066 (A2.1); pkg/ctl/create/cluster.go:155",
        ),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(cluster_name_invalid),
    },
    Rule {
        id: "region-unknown",
        severity: Severity::Error,
        summary: super::described("region is not an AWS region where EKS runs"),
        help: "pick a region such as `us-east-1` or `us-west-2`",
        reference: super::described(
            "eksctl pkg/eks/api.go IsSupportedRegion against pkg/apis/eksctl.io/v1alpha5/types.go SupportedRegions; pkg/ctl/cmdutils/cmdutils.go ErrUnsupportedRegion",
        ),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(region_unknown),
    },
    Rule {
        id: "region-other-partition",
        severity: Severity::Warning,
        summary: super::described(
            "the region is one eksctl supports in another AWS partition (China, isolated regions), which the studio does not check",
        ),
        help: "check instance types, versions and every ARN against that partition before deploying",
        reference: super::described(
            "eksctl pkg/apis/eksctl.io/v1alpha5/types.go SupportedRegions (cn-*, us-iso*, eu-isoe-*); ARNs in those partitions begin arn:aws-cn:, arn:aws-iso:, …",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(region_other_partition),
    },
    Rule {
        id: "vpc-cidr-invalid",
        severity: Severity::Error,
        summary: super::described(
            "the new VPC's CIDR block is not an IPv4 block eksctl can split into the cluster's subnets",
        ),
        help: "give an IPv4 block from /16 to /24, such as 10.10.0.0/16 (eksctl's default is 192.168.0.0/16)",
        reference: super::described(
            "eksctl pkg/vpc/vpc.go validateVPCCIDR (\"VPC CIDR prefix must be between /16 and /24\"); pkg/utils/ipnet (the CIDR is parsed when the file is read)",
        ),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(vpc_cidr_invalid),
    },
    Rule {
        id: "kubernetes-version-unsupported",
        severity: Severity::Error,
        summary: super::described(
            "Kubernetes version is not one EKS offers: malformed, past its extended support, or not released yet",
        ),
        help: "pick a version in standard support (see `shared/data/eks-kubernetes-versions.csv`)",
        reference: super::described(
            "AWS docs: Amazon EKS Kubernetes release calendar (kubernetes-versions.html), or EKS DescribeClusterVersions for the region when live checks run; EKS CreateCluster refuses the version (eksctl create cluster fails before any stack)",
        ),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(kubernetes_version_unsupported),
    },
    Rule {
        id: "kubernetes-version-extended-support",
        severity: Severity::Warning,
        summary: super::described(
            "Kubernetes version is in EKS extended support: the cluster costs more per hour and must be upgraded soon",
        ),
        help: "pick a version in standard support, or plan the upgrade before extended support ends",
        reference: super::described(
            "AWS docs: Amazon EKS Kubernetes release calendar, or EKS DescribeClusterVersions when live checks run; Amazon EKS pricing (extended support: USD 0.60 per cluster hour instead of 0.10)",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(kubernetes_version_extended_support),
    },
    Rule {
        id: "kubernetes-version-omitted",
        severity: Severity::Warning,
        summary: super::described(
            "no Kubernetes version: eksctl creates the cluster at its own default version",
        ),
        help: "name the version (`metadata.version`), so the file says which Kubernetes the cluster gets",
        reference: super::described(
            "eksctl pkg/apis/eksctl.io/v1alpha5/types.go DefaultVersion (Version1_34), set by SetClusterConfigDefaults when metadata.version is empty; its support by the EKS release calendar",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(kubernetes_version_omitted),
    },
    Rule {
        id: "kubernetes-version-newer-than-calendar",
        severity: Severity::Warning,
        summary: super::described(
            "Kubernetes version is newer than the studio's EKS release calendar",
        ),
        help: "check that EKS offers it in your region (`aws eks describe-cluster-versions`)",
        reference: super::described("AWS docs: Amazon EKS Kubernetes release calendar"),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(kubernetes_version_newer_than_calendar),
    },
    Rule {
        id: "auto-mode-config-invalid",
        severity: Severity::Error,
        summary: super::described(
            "autoModeConfig has node pools other than general-purpose and system, a duplicate, or settings that need Auto Mode on",
        ),
        help: "use nodePools [general-purpose, system]; nodeRoleARN and permissionsBoundaryARN only with Auto Mode enabled and node pools, not both",
        reference: super::described(
            "eksctl pkg/apis/eksctl.io/v1alpha5/auto_mode.go (ValidateAutoModeConfig); eksctl refuses the file before calling AWS",
        ),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(auto_mode_config_invalid),
    },
    Rule {
        id: "auto-mode-create-conflict",
        severity: Severity::Error,
        summary: super::described(
            "with Auto Mode on, eksctl creates no node groups and no core networking add-ons with the cluster",
        ),
        help: "leave node groups out of the file (add them later with `eksctl create nodegroup`, or let Auto Mode launch the nodes); drop vpc-cni, kube-proxy and coredns from the add-ons",
        reference: super::described(
            "eksctl pkg/ctl/cmdutils/configfile.go (NewCreateClusterLoader: Auto Mode refuses managed and self-managed node groups, and default add-ons other than metrics-server unless Fargate or hybrid nodes are set); eksctl create cluster refuses the file before calling AWS",
        ),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(auto_mode_create_conflict),
    },
    Rule {
        id: "availability-zone-not-in-region",
        severity: Severity::Error,
        summary: super::described("an availability zone is not a zone of the cluster's region"),
        help: "zones are the region name plus a letter, e.g. `us-east-1a` in `us-east-1`",
        reference: super::described("AWS docs: Regions and Zones"),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(availability_zone_not_in_region),
    },
    Rule {
        id: "new-vpc-zones-too-few",
        severity: Severity::Error,
        summary: super::described("a new VPC needs at least two availability zones"),
        help: "list two or more zones for the cluster's subnets",
        reference: super::described("eksctl validation.go:1918-1932; vpc.go:246-250 (A2.3)"),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(new_vpc_zones_too_few),
    },
    Rule {
        id: "vpc-id-malformed",
        severity: Severity::Error,
        summary: super::described("VPC id is not `vpc-` followed by 8 or 17 hex digits"),
        help: "copy the id from the VPC console or `aws ec2 describe-vpcs`",
        reference: super::described("AWS docs: resource IDs"),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(vpc_id_malformed),
    },
    Rule {
        id: "subnet-id-malformed",
        severity: Severity::Error,
        summary: super::described("subnet id is not `subnet-` followed by 8 or 17 hex digits"),
        help: "copy the id from the VPC console or `aws ec2 describe-subnets`",
        reference: super::described("AWS docs: resource IDs"),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(subnet_id_malformed),
    },
    Rule {
        id: "existing-vpc-subnets-too-few",
        severity: Severity::Error,
        summary: super::described(
            "an existing VPC needs at least two public subnets if any, and two private if any",
        ),
        help: "add a second subnet in another availability zone",
        reference: super::described("eksctl pkg/apis/eksctl.io/v1alpha5/vpc.go:466-486 (A2.5)"),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(existing_vpc_subnets_too_few),
    },
    Rule {
        id: "existing-vpc-no-subnets",
        severity: Severity::Error,
        summary: super::described("an existing VPC is given without any subnets"),
        help: "list the VPC's private (and public) subnets the cluster may use",
        reference: super::described(
            "eksctl pkg/ctl/create/cluster.go createOrImportVPC: with no subnets given it lays out new ones (vpc.SetSubnets) whatever vpc.id says, and pkg/cfn/builder/cluster.go then builds on the existing VPC's subnet ids, which are empty; ValidateClusterConfig has no check for it",
        ),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(existing_vpc_no_subnets),
    },
    Rule {
        id: "subnet-duplicate",
        severity: Severity::Error,
        summary: super::described("two subnets of one list share a name"),
        help: "give each subnet of the list its own name",
        reference: super::described(
            "eksctl pkg/eks/api.go ParseConfig: sigs.k8s.io/yaml UnmarshalStrict refuses a key set twice in a map, and vpc.subnets.public and .private are maps keyed by name",
        ),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(subnet_duplicate),
    },
    Rule {
        id: "subnet-id-twice",
        severity: Severity::Error,
        summary: super::described(
            "one subnet id is listed under two names of one list, neither of them its zone",
        ),
        help: "list the subnet once",
        reference: super::described(
            "eksctl pkg/apis/eksctl.io/v1alpha5/vpc.go validateLocalConfigAgainstRemote: a subnet found by id under two keys is \"unable to unambiguously import subnet by ID\"; one keyed by its zone is found by that key first",
        ),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(subnet_id_twice),
    },
    Rule {
        id: "subnet-public-and-private",
        severity: Severity::Warning,
        summary: super::described("one subnet id is listed as public and as private"),
        help: "list it where it belongs: public when it routes to an internet gateway",
        reference: super::described(
            "eksctl pkg/vpc/vpc.go ImportSubnetsFromSpec imports each list on its own; pkg/cfn/builder/cluster.go gives EKS both lists' ids",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(subnet_public_and_private),
    },
    Rule {
        id: "existing-vpc-single-zone",
        severity: Severity::Error,
        summary: super::described("the cluster's subnets all sit in one availability zone"),
        help: "EKS needs subnets in at least two zones for the control plane",
        reference: super::described("AWS docs: Amazon EKS VPC and subnet requirements"),
        live: false,
        stage: Stage::AwsCreate,
        check: Check::Spec(existing_vpc_single_zone),
    },
    Rule {
        id: "addon-irsa-without-oidc",
        severity: Severity::Error,
        summary: super::described(
            "an add-on's IAM policies need the cluster's OIDC provider, which is off",
        ),
        help: "turn on the cluster's OIDC provider (iam.withOIDC): without it eksctl only warns and creates no role, and the add-on runs without AWS credentials",
        reference: super::described(
            "eksctl pkg/actions/addon/create.go (IRSA set and withOIDC off: OIDCDisabledWarning, no role is created)",
        ),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(addon_irsa_without_oidc),
    },
    Rule {
        id: "pod-identity-agent-missing",
        severity: Severity::Error,
        summary: super::described(
            "Pod Identity associations are asked for without the eks-pod-identity-agent add-on",
        ),
        help: "add the eks-pod-identity-agent add-on (Add-ons step): eksctl refuses to create pod identity associations without it, unless EKS Auto Mode is on",
        reference: super::described(
            "eksctl pkg/ctl/cmdutils/configfile.go (create cluster: \"the eks-pod-identity-agent addon must be installed to create pod identity associations\")",
        ),
        live: false,
        stage: Stage::EksctlValidation,
        check: Check::Spec(pod_identity_agent_missing),
    },
    Rule {
        id: "storage-association-after-controller",
        severity: Severity::Warning,
        summary: super::described(
            "the FSx driver's Pod Identity association is made after its controller starts, so the controller has no AWS role until restarted",
        ),
        help: "give the association on the aws-fsx-csi-driver add-on (Add-ons step, EKS Pod Identity), so EKS makes it with the add-on",
        reference: super::described(
            "eksctl pkg/ctl/create/cluster.go (iam.podIdentityAssociations are created after the add-ons); EKS user guide, EKS Pod Identity: credentials are injected when a pod is created",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(storage_association_after_controller),
    },
    Rule {
        id: "storage-addon-without-iam",
        severity: Severity::Warning,
        summary: super::described(
            "a storage CSI add-on has no IAM policy, so its driver cannot call FSx or S3",
        ),
        help: "give the add-on its policy: AmazonFSxFullAccess for FSx for Lustre; a policy on your bucket (s3:ListBucket, s3:GetObject, s3:PutObject, s3:AbortMultipartUpload, s3:DeleteObject) for Mountpoint",
        reference: super::described(
            "EKS user guide: Deploy the FSx for Lustre driver (AmazonFSxFullAccess for fsx-csi-controller-sa); Deploy the Mountpoint for Amazon S3 driver (IAM policy and role for s3-csi-driver-sa)",
        ),
        live: false,
        stage: Stage::Advice,
        check: Check::Spec(storage_addon_without_iam),
    },
    Rule {
        id: "addon-duplicate",
        severity: Severity::Error,
        summary: super::described(
            "the same EKS add-on is listed twice with different settings, and only the first entry's are applied",
        ),
        help: "keep one entry per add-on, with the settings you want",
        reference: super::described(
            "eksctl pkg/actions/addon/tasks.go createAddonTask (the add-ons are created one after another) and create.go Manager.Create (an add-on already present and not CREATE_FAILED is skipped: \"addon is already present on the cluster, as an EKS managed addon, skipping creation\"); ValidateClusterConfig has no check for it",
        ),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(addon_duplicate),
    },
];

fn placeholder_left(context: &Context<'_>, report: &mut Report<'_>) {
    super::strings::each_string(context.spec, &mut |path, text| {
        if ids::is_placeholder(text) {
            report.fire(
                path.render(),
                format!("`{text}` is a placeholder; fill in the real value"),
            );
        }
    });
}

fn vpc_cidr_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    if !matches!(context.spec.network, Network::NewVpc { .. }) {
        return;
    }
    let Some(cidr) = context.spec.vpc_cidr() else {
        return;
    };
    if ids::is_placeholder(cidr) {
        return;
    }
    let parsed = cidr.split_once('/').and_then(|(address, prefix)| {
        let address: std::net::Ipv4Addr = address.parse().ok()?;
        let prefix: u8 = prefix.parse().ok().filter(|prefix| *prefix <= 32)?;
        Some((address, prefix))
    });
    match parsed {
        None => report.fire(
            Spec::VPC_CIDR.path(),
            format!("`{cidr}` is not an IPv4 CIDR block (such as 10.10.0.0/16): eksctl refuses the file when it reads it"),
        ),
        Some((_, prefix)) if !(16..=24).contains(&prefix) => report.fire(
            Spec::VPC_CIDR.path(),
            format!("`{cidr}`: eksctl refuses it (\"VPC CIDR prefix must be between /16 and /24\")"),
        ),
        Some(_) => {}
    }
}

fn cluster_name_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    let name = &context.spec.cluster.name;
    match ResourceName::check(name) {
        Ok(_) | Err(IdError::Placeholder) => {}
        Err(IdError::Empty) => report.fire(
            ClusterSettings::NAME.path(),
            "the cluster name is empty: eksctl refuses the file (\"metadata.name must be set\")",
        ),
        Err(error) => report.fire(
            ClusterSettings::NAME.path(),
            format!("cluster name `{name}` {error}"),
        ),
    }
}

fn region_unknown(context: &Context<'_>, report: &mut Report<'_>) {
    let region = &context.spec.cluster.region;
    match crate::model::ids::Region::parse(region) {
        Ok(_) | Err(IdError::Placeholder) => {}
        // With a file, eksctl takes no region from `--region` or the AWS profile.
        Err(IdError::Empty) => report.fire(
            ClusterSettings::REGION.path(),
            "the region is empty: eksctl refuses the file (\"metadata.region must be set\") and takes no region from the AWS profile instead",
        ),
        Err(_) if ids::OTHER_PARTITION_REGIONS.contains(&region.trim()) => {}
        Err(_) => report.fire(
            ClusterSettings::REGION.path(),
            format!(
                "region `{region}` is not one eksctl knows: it stops before creating anything (\"--region={region} is not supported - use one of: …\")"
            ),
        ),
    }
}

fn region_other_partition(context: &Context<'_>, report: &mut Report<'_>) {
    let region = context.spec.cluster.region.trim();
    if ids::OTHER_PARTITION_REGIONS.contains(&region) {
        report.fire(
            ClusterSettings::REGION.path(),
            format!(
                "eksctl supports `{region}`, but it is in another AWS partition than the studio knows: its instance types, prices and versions are not checked, and the policy ARNs the studio writes (`arn:aws:…`) need that partition's prefix"
            ),
        );
    }
}

/// The spec's version and its support today, as EKS lists it when live checks asked, else
/// as the calendar has it; `None` when unset or a placeholder (eksctl then picks its
/// default version).
fn version_support<'a>(context: &Context<'a>) -> Option<(&'a str, Option<Support>)> {
    let version = context.spec.cluster.kubernetes_version.as_str();
    if let Err(IdError::Placeholder | IdError::Empty) = ids::check_common(version) {
        return None;
    }
    let support = match &context.live.cluster_versions {
        Some(listed) => versions::support_listed(
            version,
            listed.iter().map(|fact| {
                (
                    fact.version.as_str(),
                    fact.status.as_str(),
                    fact.end_of_standard_support,
                    fact.end_of_extended_support,
                )
            }),
            context.today(),
        ),
        None => versions::support_on(version, context.today()),
    };
    Some((version, support))
}

fn kubernetes_version_unsupported(context: &Context<'_>, report: &mut Report<'_>) {
    let Some((version, support)) = version_support(context) else {
        return;
    };
    let message = match support {
        None => format!("Kubernetes version `{version}` is not a version: EKS versions are `1.NN`"),
        Some(Support::Ended { ended }) => format!(
            "Kubernetes {version} is no longer offered by EKS: its extended support ended on {ended}"
        ),
        Some(Support::OlderThanCalendar) => {
            format!("Kubernetes {version} is older than every version EKS still offers")
        }
        Some(Support::NotYetReleased { released }) => {
            format!("Kubernetes {version} is not released on EKS before {released}")
        }
        Some(Support::NotListedByEks { offered }) => format!(
            "EKS in {} does not offer Kubernetes {version}; it offers {} (DescribeClusterVersions)",
            context.spec.cluster.region,
            if offered.is_empty() {
                "no version".to_owned()
            } else {
                offered.join(", ")
            }
        ),
        Some(Support::Standard { .. } | Support::Extended { .. } | Support::NewerThanCalendar) => {
            return;
        }
    };
    report.fire(ClusterSettings::KUBERNETES_VERSION.path(), message);
}

fn kubernetes_version_extended_support(context: &Context<'_>, report: &mut Report<'_>) {
    if let Some((
        version,
        Some(Support::Extended {
            ends,
            standard_ended,
        }),
    )) = version_support(context)
    {
        report.fire(
            ClusterSettings::KUBERNETES_VERSION.path(),
            format!(
                "Kubernetes {version} left standard support on {standard_ended}: in extended support the control plane costs USD 0.60 an hour instead of 0.10, and EKS upgrades it on {ends}"
            ),
        );
    }
}

/// The Kubernetes version eksctl creates a cluster with when its file names none
/// (`DefaultVersion` in eksctl's `pkg/apis/eksctl.io/v1alpha5/types.go`).
pub const EKSCTL_DEFAULT_VERSION: &str = "1.34";

fn kubernetes_version_omitted(context: &Context<'_>, report: &mut Report<'_>) {
    if !context.spec.cluster.kubernetes_version.trim().is_empty() {
        return;
    }
    let support = match versions::support_on(EKSCTL_DEFAULT_VERSION, context.today()) {
        Some(Support::Extended { standard_ended, .. }) => format!(
            ", which left standard support on {standard_ended}: in extended support the control plane costs USD 0.60 an hour instead of 0.10"
        ),
        Some(Support::Ended { ended }) => {
            format!(", which EKS stopped offering on {ended}")
        }
        Some(Support::Standard { ends }) => {
            format!(", in standard support until {ends}")
        }
        _ => String::new(),
    };
    report.fire(
        ClusterSettings::KUBERNETES_VERSION.path(),
        format!(
            "no Kubernetes version: eksctl creates the cluster at its own default, {EKSCTL_DEFAULT_VERSION}{support}"
        ),
    );
}

fn kubernetes_version_newer_than_calendar(context: &Context<'_>, report: &mut Report<'_>) {
    if let Some((version, Some(Support::NewerThanCalendar))) = version_support(context) {
        let newest = versions::calendar()
            .first()
            .map_or("", |entry| entry.version);
        report.fire(
            ClusterSettings::KUBERNETES_VERSION.path(),
            format!(
                "Kubernetes {version} is newer than {newest}, the newest version in the studio's EKS calendar (checked {}); EKS may not offer it yet",
                versions::CALENDAR_CHECKED
            ),
        );
    }
}

/// Where a spec names an availability zone; written out only for a finding.
enum ZonePath {
    Network(usize),
    Subnet(super::SubnetPath),
    Group { group: usize, index: usize },
}

impl std::fmt::Display for ZonePath {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ZonePath::Network(index) => write!(formatter, "network.availability_zones[{index}]"),
            ZonePath::Subnet(subnet) => write!(formatter, "{subnet}.availability_zone"),
            ZonePath::Group { group, index } => write!(
                formatter,
                "node_groups[{group}].placement.availability_zones[{index}]"
            ),
        }
    }
}

/// Every availability zone the spec names, with its path.
fn zones_with_paths<'a>(context: &Context<'a>) -> impl Iterator<Item = (ZonePath, &'a str)> {
    let network = match &context.spec.network {
        Network::NewVpc { availability_zones } => availability_zones.as_slice(),
        Network::ExistingVpc { .. } => &[],
    };
    let network = network
        .iter()
        .enumerate()
        .map(|(index, zone)| (ZonePath::Network(index), zone.as_str()));
    let subnets = context.subnets().filter_map(|(path, subnet)| {
        let zone = subnet.availability_zone.as_deref()?;
        Some((ZonePath::Subnet(path), zone))
    });
    let groups = context
        .spec
        .node_groups
        .iter()
        .enumerate()
        .flat_map(|(group, node_group)| {
            let zones = match &node_group.placement {
                GroupPlacement::AvailabilityZones { availability_zones } => {
                    availability_zones.as_slice()
                }
                _ => &[],
            };
            zones
                .iter()
                .enumerate()
                .map(move |(index, zone)| (ZonePath::Group { group, index }, zone.as_str()))
        });
    network.chain(subnets).chain(groups)
}

fn availability_zone_not_in_region(context: &Context<'_>, report: &mut Report<'_>) {
    let Some(region) = &context.region else {
        return;
    };
    for (path, zone) in zones_with_paths(context) {
        match AvailabilityZone::check_in(zone, region) {
            Ok(()) | Err(IdError::Placeholder) => {}
            Err(error) => report.fire(
                path.to_string(),
                format!("availability zone `{zone}` {error}"),
            ),
        }
    }
}

fn new_vpc_zones_too_few(context: &Context<'_>, report: &mut Report<'_>) {
    if let Network::NewVpc { availability_zones } = &context.spec.network
        && !availability_zones.is_empty()
        && availability_zones.len() < 2
    {
        report.fire(
            Network::AVAILABILITY_ZONES.path(),
            format!(
                "a new VPC needs at least 2 availability zones, {} given",
                availability_zones.len()
            ),
        );
    }
}

fn vpc_id_malformed(context: &Context<'_>, report: &mut Report<'_>) {
    if let Network::ExistingVpc {
        vpc_id,
        public_subnets,
        private_subnets,
    } = &context.spec.network
    {
        // Without an id eksctl takes the VPC of the first subnet it finds by id
        // (eksctl-io/eksctl pkg/vpc/vpc.go, ImportSubnets: "if VPC wasn't defined, import
        // it based on VPC of the first subnet").
        let a_subnet_by_id = public_subnets
            .iter()
            .chain(private_subnets)
            .any(|subnet| !subnet.id.trim().is_empty());
        if vpc_id.trim().is_empty() && a_subnet_by_id {
            return;
        }
        match VpcId::check(vpc_id) {
            Ok(_) | Err(IdError::Placeholder) => {}
            Err(error) => report.fire(Network::VPC_ID.path(), format!("VPC id `{vpc_id}` {error}")),
        }
    }
}

fn subnet_id_malformed(context: &Context<'_>, report: &mut Report<'_>) {
    for (path, subnet) in context.subnets() {
        // eksctl finds a subnet by any unambiguous mix of id, zone and CIDR: without an id
        // the zone or the CIDR names it.
        let named_otherwise =
            subnet.availability_zone.is_some() || subnet.extra.contains_key("cidr");
        if subnet.id.is_empty() && named_otherwise {
            continue;
        }
        match SubnetId::check(&subnet.id) {
            Ok(_) | Err(IdError::Placeholder) => {}
            Err(error) => report.fire(
                format!("{path}.id"),
                format!("subnet id `{}` {error}", subnet.id),
            ),
        }
    }
    for (group_index, group) in context.spec.node_groups.iter().enumerate() {
        if let GroupPlacement::Subnets { subnets } = &group.placement {
            for (index, subnet) in subnets.iter().enumerate() {
                // Node groups may name subnets by id or by their local name; only ids are checked here.
                if subnet.starts_with("subnet-")
                    && let Err(error) = SubnetId::check(subnet)
                {
                    report.fire(
                        format!("node_groups[{group_index}].placement.subnets[{index}]"),
                        format!("subnet id `{subnet}` {error}"),
                    );
                }
            }
        }
    }
}

fn existing_vpc_subnets_too_few(context: &Context<'_>, report: &mut Report<'_>) {
    // A control plane on AWS Outposts takes one subnet in the Outpost's zone.
    if context.spec.eksctl_extra.contains_key("outpost") {
        return;
    }
    if let Network::ExistingVpc {
        public_subnets,
        private_subnets,
        ..
    } = &context.spec.network
    {
        for (kind, subnets) in [("public", public_subnets), ("private", private_subnets)] {
            if subnets.len() == 1 {
                report.fire(
                    format!("network.{kind}_subnets"),
                    format!("an existing VPC needs at least 2 {kind} subnets when any are given, 1 given"),
                );
            }
        }
    }
}

fn existing_vpc_no_subnets(context: &Context<'_>, report: &mut Report<'_>) {
    if let Network::ExistingVpc {
        public_subnets,
        private_subnets,
        ..
    } = &context.spec.network
        && public_subnets.is_empty()
        && private_subnets.is_empty()
    {
        report.fire(
            Spec::VPC.path(),
            "an existing VPC is given by its id alone: eksctl does not look up its subnets, lays out new subnets' address ranges instead and builds the cluster's stack on the existing VPC with no subnet ids, which fails; list the subnets the cluster may use",
        );
    }
}

fn subnet_duplicate(context: &Context<'_>, report: &mut Report<'_>) {
    let subnets = context.subnets();
    let at = |index: usize| subnets.clone().nth(index);
    // Names are the keys of eksctl's `public` and `private` maps: unique within each, and
    // the same zone name keys both in eksctl's documented layout.
    let public_count = subnets
        .clone()
        .filter(|(path, _)| path.list == "public_subnets")
        .count();
    for (list, start) in [("public_subnets", 0), ("private_subnets", public_count)] {
        let names = subnets
            .clone()
            .filter(move |(path, _)| path.list == list)
            .map(|(_, subnet)| Some(subnet.name.as_str()));
        super::each_repeat(names, |index, first| {
            if let (Some((path, subnet)), Some((first, _))) = (at(start + index), at(start + first))
            {
                let map = if list == "public_subnets" {
                    "public"
                } else {
                    "private"
                };
                report.fire(
                    format!("{path}.name"),
                    format!(
                        "subnet name `{}` is already used at {first}: as keys of `vpc.subnets.{map}` the two are one key set twice, which eksctl refuses as it reads the file (\"key \\\"{}\\\" already set in map\")",
                        subnet.name, subnet.name
                    ),
                );
            }
        });
    }
}

/// Each subnet whose id an earlier subnet has, with that earlier one.
fn repeated_ids<'a>(
    context: &Context<'a>,
    mut repeated: impl FnMut(
        (super::SubnetPath, &'a crate::model::spec::Subnet),
        (super::SubnetPath, &'a crate::model::spec::Subnet),
    ),
) {
    let subnets = context.subnets();
    let at = |index: usize| subnets.clone().nth(index);
    let ids = subnets
        .clone()
        .map(|(_, subnet)| (!subnet.id.is_empty()).then_some(subnet.id.as_str()));
    super::each_repeat(ids, |index, first| {
        if let (Some(second), Some(first)) = (at(index), at(first)) {
            repeated(first, second);
        }
    });
}

fn subnet_id_twice(context: &Context<'_>, report: &mut Report<'_>) {
    repeated_ids(context, |(first, one), (path, other)| {
        if first.list != path.list {
            return;
        }
        // eksctl looks the subnet up by its zone's name first: a key that is the zone wins.
        let zone = one
            .availability_zone
            .as_deref()
            .or(other.availability_zone.as_deref());
        // Its zone unknown here, a key that is a zone of the region may be its own.
        let a_zone = |name: &str| {
            context
                .region
                .as_ref()
                .is_some_and(|region| ids::AvailabilityZone::check_in(name, region).is_ok())
        };
        let keyed_by_zone = |name: &str| zone == Some(name) || (zone.is_none() && a_zone(name));
        if keyed_by_zone(&one.name) || keyed_by_zone(&other.name) {
            return;
        }
        report.fire(
            format!("{path}.id"),
            format!(
                "subnet `{}` is listed twice, as `{}` and as `{}`: eksctl refuses it when it imports the subnets (\"unable to unambiguously import subnet by ID, found both {} and {}\")",
                other.id, one.name, other.name, one.name, other.name
            ),
        );
    });
}

fn subnet_public_and_private(context: &Context<'_>, report: &mut Report<'_>) {
    repeated_ids(context, |(first, one), (path, other)| {
        if first.list == path.list {
            return;
        }
        report.fire(
            format!("{path}.id"),
            format!(
                "subnet `{}` is listed as public (`{}`) and as private (`{}`): eksctl imports each list on its own and gives EKS the id twice, and node groups with and without privateNetworking both launch there",
                other.id, one.name, other.name
            ),
        );
    });
}

fn existing_vpc_single_zone(context: &Context<'_>, report: &mut Report<'_>) {
    // A control plane on AWS Outposts sits in the Outpost's one zone.
    if context.spec.eksctl_extra.contains_key("outpost") {
        return;
    }
    // Known zones only: a subnet without one (or with a placeholder) could be anywhere.
    let mut zones = context.subnets().map(|(_, subnet)| {
        subnet
            .availability_zone
            .as_deref()
            .filter(|zone| !ids::is_placeholder(zone))
    });
    let Some(Some(first)) = zones.next() else {
        return;
    };
    if zones.all(|zone| zone == Some(first)) {
        report.fire(
            Spec::VPC.path(),
            format!("every subnet is in {first}; EKS needs subnets in at least two zones"),
        );
    }
}

fn addon_duplicate(context: &Context<'_>, report: &mut Report<'_>) {
    let addons = &context.spec.addons;
    let names = addons.iter().map(|addon| Some(addon.name.as_str()));
    super::each_repeat(names, |index, first| {
        // The same entry twice asks for nothing the first does not give.
        if addons[index] == addons[first] {
            return;
        }
        report.fire(
            Addon::NAME.at(&[index]),
            format!(
                "add-on `{}` is listed twice, with other settings than add-on {}: eksctl creates it from that first entry and skips this one as already present (\"addon is already present on the cluster, as an EKS managed addon, skipping creation\"), so these settings are not applied",
                addons[index].name,
                first + 1
            ),
        );
    });
}

fn addon_irsa_without_oidc(context: &Context<'_>, report: &mut Report<'_>) {
    if context.spec.cluster.with_oidc {
        return;
    }
    for (index, addon) in context.spec.addons.iter().enumerate() {
        if !addon.attach_policy_arns.is_empty() {
            report.fire(
                Addon::POLICY_ARNS.at(&[index]),
                format!(
                    "add-on `{}` attaches IAM policies through its service account's role, but the cluster's OIDC provider is off: eksctl creates no role and the add-on gets no AWS credentials",
                    addon.name
                ),
            );
        }
    }
}

/// Where the design asks eksctl for a Pod Identity association: the first one's path.
fn first_association(spec: &crate::model::spec::Spec) -> Option<String> {
    if !spec.cluster.pod_identity_associations.is_empty() {
        return Some("cluster.pod_identity_associations[0]".to_owned());
    }
    let asks = |extra: &yaml_serde::Mapping, key: &str| {
        extra
            .get(key)
            .is_some_and(|value| value.as_bool() == Some(true))
    };
    spec.addons.iter().enumerate().find_map(|(index, addon)| {
        if !addon.pod_identity_associations.is_empty() {
            Some(format!("addons[{index}].pod_identity_associations[0]"))
        } else if asks(&addon.extra, "useDefaultPodIdentityAssociations")
            || addon
                .extra
                .get("podIdentityAssociations")
                .and_then(yaml_serde::Value::as_sequence)
                .is_some_and(|list| !list.is_empty())
        {
            Some(fields::item(fields::ADDON_ITEM, &[index]))
        } else {
            None
        }
    })
}

fn pod_identity_agent_missing(context: &Context<'_>, report: &mut Report<'_>) {
    let spec = context.spec;
    if spec.cluster.auto_mode_enabled()
        || spec
            .addons
            .iter()
            .any(|addon| addon.name == crate::documents::karpenter_aws::POD_IDENTITY_AGENT)
    {
        return;
    }
    let auto_apply = spec
        .eksctl_extra
        .get("addonsConfig")
        .and_then(|config| config.get("autoApplyPodIdentityAssociations"))
        .is_some_and(|value| value.as_bool() == Some(true));
    let path = first_association(spec)
        .or_else(|| (auto_apply && !spec.addons.is_empty()).then(|| "addons".to_owned()));
    if let Some(path) = path {
        report.fire(
            path,
            "pod identity associations need the eks-pod-identity-agent add-on, which the design does not install: eksctl refuses to create the cluster",
        );
    }
}

fn storage_association_after_controller(context: &Context<'_>, report: &mut Report<'_>) {
    for driver in crate::documents::storage::DRIVERS
        .iter()
        .filter(|driver| driver.association_on_addon)
    {
        let late = context
            .spec
            .cluster
            .pod_identity_associations
            .iter()
            .position(|association| {
                association.namespace == driver.namespace
                    && association.service_account_name == driver.service_account
            });
        let on_addon = driver.association(context.spec).is_some();
        if let (Some(item), false) = (late, on_addon)
            && context
                .spec
                .addons
                .iter()
                .any(|addon| addon.name == driver.addon)
        {
            report.fire(
                format!("cluster.pod_identity_associations[{item}]"),
                format!(
                    "{}/{} gets its role from iam.podIdentityAssociations, which eksctl makes after the {} add-on: its controller pods start without the role and cannot create file systems until they are restarted",
                    driver.namespace, driver.service_account, driver.addon
                ),
            );
        }
    }
}

fn storage_addon_without_iam(context: &Context<'_>, report: &mut Report<'_>) {
    for (index, addon) in context.spec.addons.iter().enumerate() {
        let Some(driver) = crate::documents::storage::driver(&addon.name) else {
            continue;
        };
        // An association for the driver's service account, wherever it is, is its IAM.
        let associated = context
            .spec
            .cluster
            .pod_identity_associations
            .iter()
            .chain(&addon.pod_identity_associations)
            .any(|association| {
                association.namespace == driver.namespace
                    && association.service_account_name == driver.service_account
                    && (!association.permission_policy_arns.is_empty()
                        || !association.extra.is_empty())
            });
        // A role given by ARN, an inline policy or pod identity associations (kept from an
        // import) are IAM too.
        let has_other_iam = associated
            || [
                "serviceAccountRoleARN",
                "attachPolicy",
                "wellKnownPolicies",
                "podIdentityAssociations",
                "useDefaultPodIdentityAssociations",
            ]
            .iter()
            .any(|key| addon.extra.contains_key(*key));
        // eksctl's `fsx` add-on policy on a node group gives the nodes' role FSx access.
        let nodes_have_fsx = addon.name == "aws-fsx-csi-driver"
            && context
                .spec
                .node_groups
                .iter()
                .any(|group| group.addon_policies.fsx);
        if addon.attach_policy_arns.is_empty() && !has_other_iam && !nodes_have_fsx {
            let path = driver
                .policies(context.spec)
                .map_or_else(|| Addon::POLICY_ARNS.at(&[index]), |(path, _)| path);
            report.fire(
                path,
                format!(
                    "add-on `{}` has no IAM policy: its driver cannot create or mount file systems",
                    addon.name
                ),
            );
        }
    }
}

fn auto_mode_config_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    let Some(auto) = &context.spec.cluster.auto_mode else {
        return;
    };
    let role = !auto.node_role_arn.is_empty();
    let boundary = !auto.permissions_boundary_arn.is_empty();
    if !auto.enabled {
        if role
            || boundary
            || auto
                .node_pools
                .as_ref()
                .is_some_and(|pools| !pools.is_empty())
        {
            report.fire(
                ClusterSettings::AUTO_MODE_ON.path(),
                "a node role, permissions boundary or node pools need Auto Mode enabled",
            );
        }
        return;
    }
    // eksctl's defaults come first: no list is both built-in pools.
    let defaults = crate::model::spec::AutoMode::NODE_POOLS
        .map(str::to_owned)
        .to_vec();
    let pools = auto.node_pools.as_ref().unwrap_or(&defaults);
    if pools.is_empty() && (role || boundary) {
        report.fire(
            AutoMode::BUILT_IN_POOLS.path(),
            "a node role or permissions boundary cannot be given when Auto Mode has no node pools",
        );
    }
    if role && boundary {
        report.fire(
            AutoMode::BOUNDARY.path(),
            "a permissions boundary cannot be given when the node role is: it bounds only the role eksctl creates",
        );
    }
    for (index, pool) in pools.iter().enumerate() {
        let path = format!("cluster.auto_mode.node_pools[{index}]");
        if pools[..index].contains(pool) {
            report.fire(path, format!("node pool `{pool}` is listed twice"));
        } else if !crate::model::spec::AutoMode::NODE_POOLS.contains(&pool.as_str()) {
            report.fire(
                path,
                format!("`{pool}` is not an Auto Mode node pool (general-purpose, system)"),
            );
        }
    }
}

/// eksctl's default add-ons that Auto Mode runs itself (`KnownAddons` with `IsDefault` and
/// not `IsDefaultAutoMode`).
const CORE_NETWORKING_ADDONS: [&str; 3] = ["vpc-cni", "kube-proxy", "coredns"];

fn auto_mode_create_conflict(context: &Context<'_>, report: &mut Report<'_>) {
    let spec = context.spec;
    if !spec.cluster.auto_mode_enabled() {
        return;
    }
    let extra_has = |key: &str| {
        spec.eksctl_extra
            .get(key)
            .and_then(yaml_serde::Value::as_sequence)
            .is_some_and(|items| !items.is_empty())
    };
    if !spec.node_groups.is_empty() {
        report.fire(
            "node_groups",
            "Auto Mode is on: eksctl does not create managed node groups with the cluster; create them after it (`eksctl create nodegroup`) or let Auto Mode launch the nodes",
        );
    }
    if extra_has("nodeGroups") {
        report.fire(
            ClusterSettings::AUTO_MODE_ON.path(),
            "Auto Mode is on: eksctl does not create the self-managed nodeGroups with the cluster; create them after it",
        );
    }
    let has_other_nodes =
        extra_has("fargateProfiles") || spec.eksctl_extra.get("remoteNetworkConfig").is_some();
    if has_other_nodes {
        return;
    }
    for (index, addon) in spec.addons.iter().enumerate() {
        if CORE_NETWORKING_ADDONS.contains(&addon.name.as_str()) {
            report.fire(
                Addon::NAME.at(&[index]),
                format!(
                    "Auto Mode runs the core networking itself: eksctl refuses `{}` at cluster creation (add it later with `eksctl create addon` if you need it)",
                    addon.name
                ),
            );
        }
    }
}
