//! The volumes a training cluster keeps datasets and checkpoints on, written as the
//! Kubernetes objects the storage add-ons' CSI drivers act on (`storage/volumes.yaml`):
//! an FSx for Lustre file system made by dynamic provisioning (a StorageClass of the FSx
//! CSI driver and a claim, as in kubernetes-sigs/aws-fsx-csi-driver's
//! `examples/kubernetes/dynamic_provisioning`), and an S3 bucket mounted by Mountpoint for
//! S3 (a volume and its claim, as in awslabs/mountpoint-s3-csi-driver's
//! `examples/kubernetes/static_provisioning`).

use yaml_serde::{Mapping, Value};

use crate::documents::render::RenderError;
use crate::model::spec::Addon;
use crate::model::spec::{FsxVolume, Network, NodeGroup, S3Volume, Spec};

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
/// What `subnetId` holds in `storage/volumes.yaml` when the deploy finds the subnet: the
/// deploy applies a copy with the subnet it read in its place.
pub const FSX_SUBNET_AT_DEPLOY: &str = "FILLED_AT_DEPLOY_FSX_SUBNET_ID";
/// What `securityGroupIds` holds when the deploy uses the cluster security group.
pub const FSX_SECURITY_GROUP_AT_DEPLOY: &str = "FILLED_AT_DEPLOY_FSX_SECURITY_GROUP_ID";

/// What the deploy finds for the FSx file system's network, because the design leaves it
/// to the VPC eksctl makes. In an existing VPC the user names both; in a new one the ids
/// do not exist before eksctl runs, so an empty subnet means "the subnet of the GPU nodes"
/// and no security group means "the cluster security group". EKS makes that group, every
/// managed node group's launch template attaches it (eksctl's `SecurityGroups()` of the
/// VPC importer), Karpenter's node classes select it by the discovery tag the cluster
/// carries, and it allows all traffic between its members, which covers Lustre's TCP 988
/// and 1018-1023.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FsxAtDeploy {
    /// The subnet is read after the cluster is created.
    pub subnet: bool,
    /// The cluster security group is read after the cluster is created.
    pub security_group: bool,
}

impl FsxAtDeploy {
    /// Whether the deploy reads anything.
    pub fn any(self) -> bool {
        self.subnet || self.security_group
    }
}

/// What the deploy finds for `spec`'s FSx file system (nothing without one, or in an
/// existing VPC).
pub fn fsx_at_deploy(spec: &Spec) -> FsxAtDeploy {
    match (&spec.storage.fsx, &spec.network) {
        (Some(fsx), Network::NewVpc { .. }) => FsxAtDeploy {
            subnet: fsx.subnet_id.trim().is_empty(),
            security_group: fsx.security_group_ids.is_empty(),
        },
        _ => FsxAtDeploy::default(),
    }
}

/// The node group whose subnet the file system goes in: the first with GPUs or Neuron
/// devices (training reads and writes checkpoints there), else the first; none when
/// Karpenter or Auto Mode launches every node.
pub fn fsx_node_group(spec: &Spec) -> Option<&NodeGroup> {
    let accelerated = |group: &&NodeGroup| {
        std::iter::once(&group.instance_type)
            .chain(&group.instance_types)
            .filter_map(|name| crate::catalog::instances::lookup(name))
            .any(|known| known.is_accelerated())
    };
    spec.node_groups
        .iter()
        .find(accelerated)
        .or_else(|| spec.node_groups.first())
}

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

fn fsx_documents(fsx: &FsxVolume, at_deploy: FsxAtDeploy) -> [Value; 2] {
    let subnet = if at_deploy.subnet {
        FSX_SUBNET_AT_DEPLOY.to_owned()
    } else {
        fsx.subnet_id.clone()
    };
    let groups = if at_deploy.security_group {
        FSX_SECURITY_GROUP_AT_DEPLOY.to_owned()
    } else {
        fsx.security_group_ids.join(",")
    };
    let mut parameters = vec![
        ("subnetId", text(&subnet)),
        ("securityGroupIds", text(&groups)),
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
        documents.extend(fsx_documents(fsx, fsx_at_deploy(spec)));
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
        .map(crate::yaml::text::to_string)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(texts.join("---\n")))
}

/// How a storage driver's pods get their AWS role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DriverIdentity {
    /// IAM roles for service accounts: the add-on's `attachPolicyARNs`, a role trusting the
    /// cluster's OIDC provider.
    Irsa,
    /// EKS Pod Identity: an association for the driver's service account, a role trusting
    /// `pods.eks.amazonaws.com`.
    PodIdentity,
}

/// A storage CSI driver's service account, and where its Pod Identity association goes.
#[derive(Clone, Copy, Debug)]
pub struct Driver {
    /// The EKS add-on.
    pub addon: &'static str,
    /// The namespace of its service account.
    pub namespace: &'static str,
    /// The service account that calls AWS.
    pub service_account: &'static str,
    /// Whether EKS creates the association with the add-on (`addons[].podIdentityAssociations`)
    /// rather than eksctl after it (`iam.podIdentityAssociations`).
    pub association_on_addon: bool,
}

/// The FSx for Lustre driver: its controller (`fsx-csi-controller-sa`) calls FSx. The EKS
/// add-on takes Pod Identity associations (EKS user guide, "Deploy the FSx for Lustre
/// driver"), and only an association made with the add-on exists before the controller
/// starts: eksctl makes `iam.podIdentityAssociations` after the add-ons, and a pod reads its
/// Pod Identity credentials when it is created.
///
/// The Mountpoint for S3 driver: `s3-csi-driver-sa` in `kube-system`, through an
/// association of its own (awslabs/mountpoint-s3-csi-driver docs/CONFIGURATION.md,
/// "Driver-Level Credentials with EKS Pod Identity"; its `dev/mp-dev-cluster.yaml` puts it
/// under `iam.podIdentityAssociations`). eksctl refuses associations on this add-on, whose
/// EKS configuration lists none (awslabs/mountpoint-s3-csi-driver#215); the driver asks for
/// the service account's credentials at each mount, so an association made after the add-on
/// serves.
pub const DRIVERS: [Driver; 2] = [
    Driver {
        addon: FSX_ADDON,
        namespace: "kube-system",
        service_account: "fsx-csi-controller-sa",
        association_on_addon: true,
    },
    Driver {
        addon: S3_ADDON,
        namespace: "kube-system",
        service_account: "s3-csi-driver-sa",
        association_on_addon: false,
    },
];

/// The storage driver of this add-on, if it is one.
pub fn driver(addon: &str) -> Option<&'static Driver> {
    DRIVERS.iter().find(|driver| driver.addon == addon)
}

impl Driver {
    fn is_mine(&self, association: &crate::model::spec::PodIdentityAssociation) -> bool {
        association.namespace == self.namespace
            && association.service_account_name == self.service_account
    }

    /// Where the driver's association is, as a spec path, and the association; `None`
    /// when the design has none for its service account (where it belongs).
    pub fn association<'a>(
        &self,
        spec: &'a Spec,
    ) -> Option<(String, &'a crate::model::spec::PodIdentityAssociation)> {
        if self.association_on_addon {
            spec.addons
                .iter()
                .enumerate()
                .filter(|(_, addon)| addon.name == self.addon)
                .find_map(|(index, addon)| {
                    addon
                        .pod_identity_associations
                        .iter()
                        .enumerate()
                        .find(|(_, association)| self.is_mine(association))
                        .map(|(item, association)| {
                            (
                                format!("addons[{index}].pod_identity_associations[{item}]"),
                                association,
                            )
                        })
                })
        } else {
            spec.cluster
                .pod_identity_associations
                .iter()
                .enumerate()
                .find(|(_, association)| self.is_mine(association))
                .map(|(item, association)| {
                    (
                        format!("cluster.pod_identity_associations[{item}]"),
                        association,
                    )
                })
        }
    }

    /// How the design gives the driver its role.
    pub fn identity(&self, spec: &Spec) -> DriverIdentity {
        if self.association(spec).is_some() {
            DriverIdentity::PodIdentity
        } else {
            DriverIdentity::Irsa
        }
    }

    /// Gives the driver its role the other way, moving its policy ARNs along. Pod Identity
    /// also installs the `eks-pod-identity-agent` add-on when the design lacks it: eksctl
    /// refuses associations without it.
    pub fn set_identity(&self, spec: &mut Spec, identity: DriverIdentity) {
        if self.identity(spec) == identity {
            return;
        }
        let Some(addon) = spec
            .addons
            .iter_mut()
            .find(|addon| addon.name == self.addon)
        else {
            return;
        };
        match identity {
            DriverIdentity::PodIdentity => {
                let association = crate::model::spec::PodIdentityAssociation {
                    namespace: self.namespace.into(),
                    service_account_name: self.service_account.into(),
                    permission_policy_arns: std::mem::take(&mut addon.attach_policy_arns),
                    extra: Mapping::new(),
                };
                if self.association_on_addon {
                    addon.pod_identity_associations.push(association);
                } else {
                    spec.cluster.pod_identity_associations.push(association);
                }
                let agent = crate::documents::karpenter_aws::POD_IDENTITY_AGENT;
                if !spec.addons.iter().any(|addon| addon.name == agent) {
                    spec.addons.push(crate::model::spec::Addon {
                        name: agent.into(),
                        ..crate::model::spec::Addon::default()
                    });
                }
            }
            DriverIdentity::Irsa => {
                let mine = |association: &crate::model::spec::PodIdentityAssociation| {
                    self.is_mine(association)
                };
                let list = if self.association_on_addon {
                    &mut addon.pod_identity_associations
                } else {
                    &mut spec.cluster.pod_identity_associations
                };
                let mut policies = Vec::new();
                list.retain(|association| {
                    if mine(association) {
                        policies.extend(association.permission_policy_arns.iter().cloned());
                        false
                    } else {
                        true
                    }
                });
                if let Some(addon) = spec
                    .addons
                    .iter_mut()
                    .find(|addon| addon.name == self.addon)
                {
                    addon.attach_policy_arns.extend(policies);
                }
            }
        }
    }

    /// The policy ARNs the driver's role gets, and their spec path: the association's
    /// with Pod Identity, the add-on's `attach_policy_arns` with IRSA.
    pub fn policies(&self, spec: &Spec) -> Option<(String, Vec<String>)> {
        if let Some((path, association)) = self.association(spec) {
            return Some((
                format!("{path}.permission_policy_arns"),
                association.permission_policy_arns.clone(),
            ));
        }
        let (index, addon) = spec
            .addons
            .iter()
            .enumerate()
            .find(|(_, addon)| addon.name == self.addon)?;
        Some((
            Addon::POLICY_ARNS.at(&[index]),
            addon.attach_policy_arns.clone(),
        ))
    }

    /// Sets the policy ARNs of the driver's role, wherever [`Driver::policies`] reads them.
    pub fn set_policies(&self, spec: &mut Spec, arns: Vec<String>) {
        let on_addon = self.association_on_addon;
        let addon = spec
            .addons
            .iter_mut()
            .find(|addon| addon.name == self.addon);
        let association = if on_addon {
            addon.and_then(|addon| {
                addon
                    .pod_identity_associations
                    .iter_mut()
                    .find(|association| self.is_mine(association))
            })
        } else {
            spec.cluster
                .pod_identity_associations
                .iter_mut()
                .find(|association| self.is_mine(association))
        };
        match association {
            Some(association) => association.permission_policy_arns = arns,
            None => {
                if let Some(addon) = spec
                    .addons
                    .iter_mut()
                    .find(|addon| addon.name == self.addon)
                {
                    addon.attach_policy_arns = arns;
                }
            }
        }
    }
}

/// Whether a document is one of the storage objects the studio writes (a StorageClass, a
/// PersistentVolume or a PersistentVolumeClaim).
pub fn is_storage_document<'a>(document: impl Into<crate::yaml::node::Node<'a>>) -> bool {
    let document = document.into();
    let text = |key: &str| document.get(key).and_then(crate::yaml::node::Node::as_str);
    matches!(
        (text("apiVersion"), text("kind")),
        (Some("storage.k8s.io/v1"), Some("StorageClass"))
            | (
                Some("v1"),
                Some("PersistentVolume" | "PersistentVolumeClaim")
            )
    )
}

/// A storage object the studio cannot read back as written: which one (its index among
/// those given) and where inside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StorageImportError {
    /// Index of the document among those given.
    pub document: usize,
    /// Path inside the document (`spec.parameters.subnetId`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// Reads back the volumes of `storage/volumes.yaml`: the FSx StorageClass and claim, the
/// S3 volume and claim, written for a cluster in `region`. Only what the studio writes is
/// read; a document it would write differently (another name, a key it does not model, a
/// mount in another region) is refused at the first difference, so nothing in the file is
/// lost or changed on the way in.
pub fn import(
    documents: &[&Value],
    region: &str,
) -> Result<crate::model::spec::Storage, StorageImportError> {
    let text = |document: &Value, path: &[&str]| -> Option<String> {
        let mut value = document;
        for key in path {
            value = value.get(*key)?;
        }
        value.as_str().map(str::to_owned)
    };
    let named = |kind: &str, name: &str| {
        documents.iter().position(|document| {
            text(document, &["kind"]).as_deref() == Some(kind)
                && text(document, &["metadata", "name"]).as_deref() == Some(name)
        })
    };
    let gib = |document: &Value| {
        text(document, &["spec", "resources", "requests", "storage"])
            .and_then(|size| {
                size.strip_suffix("Gi")
                    .and_then(|number| number.parse().ok())
            })
            .unwrap_or(0)
    };
    let mut storage = crate::model::spec::Storage::default();
    if let Some(class) = named("StorageClass", FSX_STORAGE_CLASS) {
        let parameter =
            |key: &str| text(documents[class], &["parameters", key]).unwrap_or_default();
        // What the deploy fills in reads back as left to the deploy (empty).
        let subnet = parameter("subnetId");
        storage.fsx = Some(FsxVolume {
            subnet_id: if subnet == FSX_SUBNET_AT_DEPLOY {
                String::new()
            } else {
                subnet
            },
            security_group_ids: parameter("securityGroupIds")
                .split(',')
                .map(str::trim)
                .filter(|id| !id.is_empty() && *id != FSX_SECURITY_GROUP_AT_DEPLOY)
                .map(str::to_owned)
                .collect(),
            deployment_type: parameter("deploymentType"),
            per_unit_storage_throughput: parameter("perUnitStorageThroughput").parse().ok(),
            storage_gib: named("PersistentVolumeClaim", FSX_CLAIM)
                .map_or(0, |claim| gib(documents[claim])),
        });
    }
    if let Some(volume) = named("PersistentVolume", S3_VOLUME) {
        let options: Vec<String> = documents[volume]
            .get("spec")
            .and_then(|spec| spec.get("mountOptions"))
            .and_then(Value::as_sequence)
            .map(|options| {
                options
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        storage.s3 = Some(S3Volume {
            bucket: text(
                documents[volume],
                &["spec", "csi", "volumeAttributes", "bucketName"],
            )
            .unwrap_or_default(),
            prefix: options
                .iter()
                .find_map(|option| option.strip_prefix("prefix "))
                .unwrap_or_default()
                .to_owned(),
        });
    }
    // What the studio writes for that, matched to the documents given by kind and name.
    let spec = Spec {
        cluster: crate::model::spec::ClusterSettings {
            region: region.to_owned(),
            ..crate::model::spec::ClusterSettings::default()
        },
        storage: storage.clone(),
        // A new VPC, where an id left to the deploy is written as the value it fills in.
        network: Network::NewVpc {
            availability_zones: Vec::new(),
        },
        ..Spec::default()
    };
    let rendered = self::documents(&spec);
    for (index, document) in documents.iter().enumerate() {
        let kind = text(document, &["kind"]).unwrap_or_default();
        let name = text(document, &["metadata", "name"]).unwrap_or_default();
        let Some(written) = rendered.iter().find(|written| {
            text(written, &["kind"]).as_deref() == Some(kind.as_str())
                && text(written, &["metadata", "name"]).as_deref() == Some(name.as_str())
        }) else {
            return Err(StorageImportError {
                document: index,
                path: "metadata.name".to_owned(),
                message: format!(
                    "{kind} `{name}` is not one of the volumes the studio writes (StorageClass {FSX_STORAGE_CLASS} and claim {FSX_CLAIM}, PersistentVolume {S3_VOLUME} and claim {S3_CLAIM})"
                ),
            });
        };
        if let Some(path) = first_difference(document, written, String::new()) {
            return Err(StorageImportError {
                document: index,
                path: path.clone(),
                message: format!(
                    "{kind} `{name}`: `{path}` is not as the studio writes it for this design (a cluster in `{region}`), so it would not be read back unchanged"
                ),
            });
        }
    }
    // A claim without its class or volume: nothing above reads it.
    for (claim, owner) in [
        (FSX_CLAIM, storage.fsx.is_some()),
        (S3_CLAIM, storage.s3.is_some()),
    ] {
        if let (Some(index), false) = (named("PersistentVolumeClaim", claim), owner) {
            return Err(StorageImportError {
                document: index,
                path: "metadata.name".to_owned(),
                message: format!("the claim `{claim}` comes without the volume it binds"),
            });
        }
    }
    Ok(storage)
}

/// The first path where `original` and `written` differ (a key only one has, or another
/// value), `None` when they are equal.
fn first_difference(original: &Value, written: &Value, at: String) -> Option<String> {
    let join = |key: &str| {
        if at.is_empty() {
            key.to_owned()
        } else {
            format!("{at}.{key}")
        }
    };
    match (original, written) {
        (Value::Mapping(original), Value::Mapping(written)) => {
            for (key, value) in original {
                let name = key.as_str().unwrap_or_default();
                match written.get(key) {
                    None => return Some(join(name)),
                    Some(other) => {
                        if let Some(path) = first_difference(value, other, join(name)) {
                            return Some(path);
                        }
                    }
                }
            }
            written
                .keys()
                .find(|key| !original.contains_key(*key))
                .map(|key| join(key.as_str().unwrap_or_default()))
        }
        (Value::Sequence(original), Value::Sequence(written))
            if original.len() == written.len() =>
        {
            original
                .iter()
                .zip(written)
                .enumerate()
                .find_map(|(index, (value, other))| {
                    first_difference(value, other, format!("{at}[{index}]"))
                })
        }
        (original, written) if original == written => None,
        _ => Some(at),
    }
}
