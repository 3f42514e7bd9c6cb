//! The volumes a training cluster keeps datasets and checkpoints on, written as the
//! Kubernetes objects the storage add-ons' CSI drivers act on (`storage/volumes.yaml`):
//! an FSx for Lustre file system made by dynamic provisioning (a StorageClass of the FSx
//! CSI driver and a claim, as in kubernetes-sigs/aws-fsx-csi-driver's
//! `examples/kubernetes/dynamic_provisioning`), and an S3 bucket mounted by Mountpoint for
//! S3 (a volume and its claim, as in awslabs/mountpoint-s3-csi-driver's
//! `examples/kubernetes/static_provisioning`).

use serde_yaml::{Mapping, Value};

use crate::render::RenderError;
use crate::spec::{FsxVolume, S3Volume, Spec};

/// Where the bundle keeps the volumes.
pub const STORAGE_PATH: &str = "storage/volumes.yaml";
/// The StorageClass of the FSx file system.
pub const FSX_STORAGE_CLASS: &str = "fsx-lustre";
/// The claim pods mount the FSx file system through.
pub const FSX_CLAIM: &str = "fsx-claim";
/// The volume of the S3 bucket.
pub const S3_VOLUME: &str = "s3-pv";
/// The claim pods mount the S3 bucket through.
pub const S3_CLAIM: &str = "s3-claim";
/// Namespace of the claims.
pub const NAMESPACE: &str = "default";
/// The FSx CSI driver's add-on and provisioner.
pub const FSX_ADDON: &str = "aws-fsx-csi-driver";
/// The Mountpoint for S3 CSI driver's add-on.
pub const S3_ADDON: &str = "aws-mountpoint-s3-csi-driver";
/// FSx for Lustre deployment types (FSx `CreateFileSystemLustreConfiguration.DeploymentType`).
pub const FSX_DEPLOYMENT_TYPES: [&str; 4] =
    ["SCRATCH_1", "SCRATCH_2", "PERSISTENT_1", "PERSISTENT_2"];

/// The throughputs per TiB (MB/s) FSx sells for a deployment type; empty for scratch file
/// systems, which take none (FSx `PerUnitStorageThroughput`: PERSISTENT_1 SSD 50, 100,
/// 200 and HDD 12, 40; PERSISTENT_2 125, 250, 500, 1000).
pub fn fsx_throughputs(deployment_type: &str) -> &'static [u32] {
    match deployment_type {
        "PERSISTENT_1" => &[12, 40, 50, 100, 200],
        "PERSISTENT_2" => &[125, 250, 500, 1000],
        _ => &[],
    }
}

fn mapping(entries: impl IntoIterator<Item = (&'static str, Value)>) -> Value {
    let mut mapping = Mapping::new();
    for (key, value) in entries {
        mapping.insert(Value::from(key), value);
    }
    Value::Mapping(mapping)
}

fn text(value: &str) -> Value {
    Value::from(value)
}

fn list(values: &[&str]) -> Value {
    Value::Sequence(values.iter().map(|value| text(value)).collect())
}

fn metadata(name: &str, namespaced: bool) -> Value {
    let mut entries = vec![("name", text(name))];
    if namespaced {
        entries.push(("namespace", text(NAMESPACE)));
    }
    mapping(entries)
}

fn claim(name: &str, storage_class: &str, gib: u32, volume: Option<&str>) -> Value {
    let mut spec = vec![
        ("accessModes", list(&["ReadWriteMany"])),
        ("storageClassName", text(storage_class)),
        (
            "resources",
            mapping([(
                "requests",
                mapping([("storage", text(&format!("{gib}Gi")))]),
            )]),
        ),
    ];
    if let Some(volume) = volume {
        spec.push(("volumeName", text(volume)));
    }
    mapping([
        ("apiVersion", text("v1")),
        ("kind", text("PersistentVolumeClaim")),
        ("metadata", metadata(name, true)),
        ("spec", mapping(spec)),
    ])
}

fn fsx_documents(fsx: &FsxVolume) -> [Value; 2] {
    let mut parameters = vec![
        ("subnetId", text(&fsx.subnet_id)),
        ("securityGroupIds", text(&fsx.security_group_ids.join(","))),
        ("deploymentType", text(&fsx.deployment_type)),
    ];
    if let Some(throughput) = fsx.per_unit_storage_throughput {
        // The driver reads every parameter as a string.
        parameters.push(("perUnitStorageThroughput", text(&throughput.to_string())));
    }
    let class = mapping([
        ("apiVersion", text("storage.k8s.io/v1")),
        ("kind", text("StorageClass")),
        ("metadata", metadata(FSX_STORAGE_CLASS, false)),
        ("provisioner", text("fsx.csi.aws.com")),
        ("parameters", mapping(parameters)),
        ("mountOptions", list(&["flock"])),
    ]);
    [
        class,
        claim(FSX_CLAIM, FSX_STORAGE_CLASS, fsx.storage_gib, None),
    ]
}

/// Mountpoint ignores the size a volume states, but Kubernetes requires one.
const S3_STATED_GIB: u32 = 1200;

fn s3_documents(s3: &S3Volume, region: &str) -> [Value; 2] {
    let mut mount_options = vec![text("allow-delete"), text(&format!("region {region}"))];
    if !s3.prefix.is_empty() {
        mount_options.push(text(&format!("prefix {}", s3.prefix)));
    }
    let volume = mapping([
        ("apiVersion", text("v1")),
        ("kind", text("PersistentVolume")),
        ("metadata", metadata(S3_VOLUME, false)),
        (
            "spec",
            mapping([
                (
                    "capacity",
                    mapping([("storage", text(&format!("{S3_STATED_GIB}Gi")))]),
                ),
                ("accessModes", list(&["ReadWriteMany"])),
                // Empty: static provisioning, no StorageClass.
                ("storageClassName", text("")),
                (
                    "claimRef",
                    mapping([("namespace", text(NAMESPACE)), ("name", text(S3_CLAIM))]),
                ),
                ("mountOptions", Value::Sequence(mount_options)),
                (
                    "csi",
                    mapping([
                        ("driver", text("s3.csi.aws.com")),
                        ("volumeHandle", text("s3-csi-driver-volume")),
                        (
                            "volumeAttributes",
                            mapping([("bucketName", text(&s3.bucket))]),
                        ),
                    ]),
                ),
            ]),
        ),
    ]);
    [volume, claim(S3_CLAIM, "", S3_STATED_GIB, Some(S3_VOLUME))]
}

/// The storage objects of `spec`, FSx first; none when it asks for no volume.
pub fn documents(spec: &Spec) -> Vec<Value> {
    let mut documents = Vec::new();
    if let Some(fsx) = &spec.storage.fsx {
        documents.extend(fsx_documents(fsx));
    }
    if let Some(s3) = &spec.storage.s3 {
        documents.extend(s3_documents(s3, &spec.cluster.region));
    }
    documents
}

/// `storage/volumes.yaml`, or nothing when the design asks for no volume.
pub fn render(spec: &Spec) -> Result<Option<String>, RenderError> {
    let documents = documents(spec);
    if documents.is_empty() {
        return Ok(None);
    }
    let texts = documents
        .iter()
        .map(crate::yaml_text::to_string)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(texts.join("---\n")))
}
