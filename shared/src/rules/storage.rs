//! Rules on the volumes for datasets and checkpoints: what the FSx and Mountpoint CSI
//! drivers, FSx and S3 refuse. A refused volume leaves its claim Pending and the training
//! pods that mount it unscheduled, so these fail at run time.

use super::{Check, Context, Report, Rule, Severity, Stage};
use crate::documents::storage::{self, FSX_DEPLOYMENT_TYPES};
use crate::model::ids::{IdError, SecurityGroupId, SubnetId};
use crate::model::spec::{FsxVolume, Spec};

pub(super) static RULES: &[Rule] = &[
    Rule {
        id: "storage-without-csi-driver",
        severity: Severity::Error,
        summary: super::described(
            "a volume is asked for without the add-on whose CSI driver makes or mounts it",
        ),
        help: "tick the FSx for Lustre CSI driver (for the file system) or the Mountpoint for S3 CSI driver (for the bucket) in Add-ons and storage",
        reference: super::described(
            "kubernetes-sigs/aws-fsx-csi-driver (provisioner fsx.csi.aws.com), awslabs/mountpoint-s3-csi-driver (driver s3.csi.aws.com): without the driver nothing provisions or mounts the claim, which stays Pending",
        ),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(storage_without_csi_driver),
    },
    Rule {
        id: "storage-fsx-network-invalid",
        severity: Severity::Error,
        summary: super::described(
            "the FSx file system's subnet or security groups are missing or malformed",
        ),
        help: "give one subnet id (`subnet-…`, in the zone of the GPU nodes) and at least one security group id (`sg-…`) that allows Lustre traffic (TCP 988 and 1018-1023); in a new VPC leave both empty and the deploy uses the GPU nodes' subnet and the cluster security group",
        reference: super::described(
            "kubernetes-sigs/aws-fsx-csi-driver examples/kubernetes/dynamic_provisioning (subnetId and securityGroupIds are required); FSx CreateFileSystem refuses a malformed id, and the claim stays Pending",
        ),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(storage_fsx_network_invalid),
    },
    Rule {
        id: "storage-fsx-deployment-invalid",
        severity: Severity::Error,
        summary: super::described(
            "the FSx deployment type, throughput or size is one FSx does not sell",
        ),
        help: "use SCRATCH_2 (no throughput) or PERSISTENT_2 with 125, 250, 500 or 1000 MB/s per TiB; ask for at least 1200 GiB",
        reference: super::described(
            "FSx API CreateFileSystemLustreConfiguration: DeploymentType SCRATCH_1 | SCRATCH_2 | PERSISTENT_1 | PERSISTENT_2; PerUnitStorageThroughput required for PERSISTENT_1 (50, 100, 200; HDD 12, 40) and PERSISTENT_2 (125, 250, 500, 1000), valid only for them; the driver sends the claim's size, rounded up, as StorageCapacity (at least 1200 GiB)",
        ),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(storage_fsx_deployment_invalid),
    },
    Rule {
        id: "storage-s3-bucket-invalid",
        severity: Severity::Error,
        summary: super::described("the S3 bucket name is not one S3 allows"),
        help: "3 to 63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit; no `..`, not an IP address",
        reference: super::described(
            "Amazon S3 User Guide, general purpose bucket naming rules; Mountpoint cannot mount a bucket that cannot exist, and the pod stays ContainerCreating",
        ),
        live: false,
        stage: Stage::Runtime,
        check: Check::Spec(storage_s3_bucket_invalid),
    },
];

fn has_addon(context: &Context<'_>, name: &str) -> bool {
    context.spec.addons.iter().any(|addon| addon.name == name)
}

fn storage_without_csi_driver(context: &Context<'_>, report: &mut Report<'_>) {
    let volumes = &context.spec.storage;
    if volumes.fsx.is_some() && !has_addon(context, storage::FSX_ADDON) {
        report.fire(
            Spec::FSX_VOLUME.path(),
            format!(
                "an FSx for Lustre file system is asked for, but the {} add-on is not installed: nothing provisions the claim",
                storage::FSX_ADDON
            ),
        );
    }
    if volumes.s3.is_some() && !has_addon(context, storage::S3_ADDON) {
        report.fire(
            "storage.s3",
            format!(
                "an S3 bucket volume is asked for, but the {} add-on is not installed: nothing mounts it",
                storage::S3_ADDON
            ),
        );
    }
}

fn storage_fsx_network_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    let Some(fsx) = &context.spec.storage.fsx else {
        return;
    };
    // In a new VPC an empty subnet or security group list is found by the deploy.
    let at_deploy = storage::fsx_at_deploy(context.spec);
    match SubnetId::check(&fsx.subnet_id) {
        Ok(_) | Err(IdError::Placeholder) => {}
        Err(IdError::Empty) if at_deploy.subnet => {}
        Err(IdError::Empty) => report.fire(
            FsxVolume::SUBNET.path(),
            "the FSx file system needs the subnet it is created in",
        ),
        Err(error) => report.fire(
            FsxVolume::SUBNET.path(),
            format!("subnet id `{}` {error}", fsx.subnet_id),
        ),
    }
    if fsx.security_group_ids.is_empty() && !at_deploy.security_group {
        report.fire(
            FsxVolume::SECURITY_GROUPS.path(),
            "the FSx file system needs at least one security group",
        );
    }
    for (index, group) in fsx.security_group_ids.iter().enumerate() {
        match SecurityGroupId::check(group) {
            Ok(_) | Err(IdError::Placeholder) => {}
            Err(error) => report.fire(
                format!("storage.fsx.security_group_ids[{index}]"),
                format!("security group id `{group}` {error}"),
            ),
        }
    }
}

/// The least storage an FSx for Lustre file system has, GiB.
const FSX_SMALLEST_GIB: u32 = 1200;

fn storage_fsx_deployment_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    let Some(fsx) = &context.spec.storage.fsx else {
        return;
    };
    if !FSX_DEPLOYMENT_TYPES.contains(&fsx.deployment_type.as_str()) {
        report.fire(
            FsxVolume::DEPLOYMENT_TYPE.path(),
            format!(
                "`{}` is not an FSx for Lustre deployment type ({})",
                fsx.deployment_type,
                FSX_DEPLOYMENT_TYPES.join(", ")
            ),
        );
        return;
    }
    let sold = storage::fsx_throughputs(&fsx.deployment_type);
    match (fsx.per_unit_storage_throughput, sold.is_empty()) {
        (Some(throughput), true) => report.fire(
            FsxVolume::THROUGHPUT.path(),
            format!(
                "a {} file system takes no throughput per TiB (FSx refuses {throughput})",
                fsx.deployment_type
            ),
        ),
        (None, false) => report.fire(
            FsxVolume::THROUGHPUT.path(),
            format!(
                "a {} file system needs its throughput per TiB: one of {}",
                fsx.deployment_type,
                list(sold)
            ),
        ),
        (Some(throughput), false) if !sold.contains(&throughput) => report.fire(
            FsxVolume::THROUGHPUT.path(),
            format!(
                "{throughput} MB/s per TiB is not sold for {}: one of {}",
                fsx.deployment_type,
                list(sold)
            ),
        ),
        _ => {}
    }
    if fsx.storage_gib < FSX_SMALLEST_GIB {
        report.fire(
            FsxVolume::STORAGE.path(),
            format!(
                "{} GiB is less than the smallest FSx for Lustre file system ({FSX_SMALLEST_GIB} GiB)",
                fsx.storage_gib
            ),
        );
    }
}

fn list(values: &[u32]) -> String {
    values
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why `name` cannot be an S3 general purpose bucket's name, if it cannot.
fn bucket_name_problem(name: &str) -> Option<&'static str> {
    let allowed = |character: char| {
        character.is_ascii_lowercase() || character.is_ascii_digit() || ".-".contains(character)
    };
    let edge_ok = |character: Option<char>| {
        character
            .is_some_and(|character| character.is_ascii_lowercase() || character.is_ascii_digit())
    };
    let looks_like_ip = name.split('.').count() == 4
        && name.split('.').all(|part| {
            !part.is_empty() && part.chars().all(|character| character.is_ascii_digit())
        });
    if !(3..=63).contains(&name.len()) {
        Some("must be 3 to 63 characters long")
    } else if !name.chars().all(allowed) {
        Some("may hold only lowercase letters, digits, dots and hyphens")
    } else if !edge_ok(name.chars().next()) || !edge_ok(name.chars().last()) {
        Some("must start and end with a letter or digit")
    } else if name.contains("..") {
        Some("must not hold two dots in a row")
    } else if looks_like_ip {
        Some("must not look like an IP address")
    } else if ["xn--", "sthree-", "amzn-s3-demo-"]
        .iter()
        .any(|prefix| name.starts_with(prefix))
        || ["-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"]
            .iter()
            .any(|suffix| name.ends_with(suffix))
    {
        Some("uses a prefix or suffix S3 reserves")
    } else {
        None
    }
}

fn storage_s3_bucket_invalid(context: &Context<'_>, report: &mut Report<'_>) {
    let Some(s3) = &context.spec.storage.s3 else {
        return;
    };
    if crate::model::ids::is_placeholder(&s3.bucket) {
        return;
    }
    if s3.bucket.is_empty() {
        report.fire("storage.s3.bucket", "the S3 volume needs its bucket's name");
    } else if let Some(problem) = bucket_name_problem(&s3.bucket) {
        report.fire(
            "storage.s3.bucket",
            format!("bucket name `{}` {problem}", s3.bucket),
        );
    }
}
