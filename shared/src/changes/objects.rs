//! The objects inside a running cluster that belong to a design — Karpenter's NodePools,
//! EC2NodeClasses and NodeOverlays, EKS Auto Mode's NodePools and NodeClasses — as
//! `kubectl get RESOURCE -o json` answers them, read into the design the cluster's EKS
//! read made. Auto Mode's NodePools come back from the same `get` as Karpenter's (they
//! are `karpenter.sh` NodePools on an `eks.amazonaws.com` NodeClass); they are read as
//! kubectl applied them (its last-applied annotation), since the defaults EKS's NodeClass
//! schema fills in are not the studio's to know. EKS's own pools (`general-purpose`,
//! `system`) are its `computeConfig`'s, read from EKS.
//!
//! The API server answers with more than was applied: what it and the controllers keep
//! about the object (`uid`, `resourceVersion`, `generation`, `creationTimestamp`,
//! `managedFields`, `finalizers`, `status`, kubectl's `last-applied-configuration`,
//! Karpenter's hash annotations) is not the design's and is left out; the defaults its
//! CRD schema fills in are taken back out when a plan compares
//! ([`crate::upstream::crd_defaults`]).

use yaml_serde::Value;

use crate::changes::read::{NOT_READ_YET, Reading};
use crate::upstream::eks::NotRead;

/// What a read asks the cluster for, with the words a gap is named by: one `kubectl get`
/// each, since one unknown resource type fails a `get` of several.
pub const RESOURCES: &[(&str, &str)] = &[
    ("nodepools.karpenter.sh", "NodePools"),
    (
        "ec2nodeclasses.karpenter.k8s.aws",
        "Karpenter's EC2NodeClasses",
    ),
    ("nodeoverlays.karpenter.sh", "Karpenter's NodeOverlays"),
    (
        "nodeclasses.eks.amazonaws.com",
        "EKS Auto Mode's NodeClasses",
    ),
];

/// The annotation where `kubectl apply` keeps the object as it was applied.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The NodePools and NodeClass EKS Auto Mode makes itself (`computeConfig.nodePools`, read
/// from DescribeCluster): not the design's objects.
const AUTO_MODE_BUILT_IN: &[&str] = &["general-purpose", "system", "default"];

/// An Auto Mode object as it was applied: kubectl's last-applied annotation, which holds
/// the manifest without what EKS's NodeClass schema fills in (a schema the studio does
/// not hold). `None` when it was not applied with `kubectl apply`.
fn as_last_applied(object: &Value) -> Option<Value> {
    let text = object
        .get("metadata")?
        .get("annotations")?
        .get(LAST_APPLIED)?
        .as_str()?;
    let json: serde_json::Value = serde_json::from_str(text).ok()?;
    yaml_serde::to_value(json).ok()
}

/// Metadata the API server keeps about an object, never written in a manifest.
const SERVER_METADATA: &[&str] = &[
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
    "finalizers",
    "ownerReferences",
];

/// Annotations kubectl and the controllers write on the objects they apply or reconcile
/// (kubectl's `apply`; Karpenter's `nodepool-hash` and `ec2nodeclass-hash`, each with its
/// version).
const SERVER_ANNOTATIONS: &[&str] = &[
    "kubectl.kubernetes.io/last-applied-configuration",
    "karpenter.sh/nodepool-hash",
    "karpenter.sh/nodepool-hash-version",
    "karpenter.k8s.aws/ec2nodeclass-hash",
    "karpenter.k8s.aws/ec2nodeclass-hash-version",
];

/// The object as a manifest would write it: without `status` and what the API server and
/// the controllers keep about it.
pub fn as_applied(object: &Value) -> Value {
    let Some(mapping) = object.as_mapping() else {
        return object.clone();
    };
    let mut out = mapping.clone();
    out.remove("status");
    if let Some(Value::Mapping(metadata)) = out.get_mut("metadata") {
        for key in SERVER_METADATA {
            metadata.remove(*key);
        }
        if let Some(Value::Mapping(annotations)) = metadata.get_mut("annotations") {
            for key in SERVER_ANNOTATIONS {
                annotations.remove(*key);
            }
            if annotations.is_empty() {
                metadata.remove("annotations");
            }
        }
    }
    Value::Mapping(out)
}

/// The items of a `kubectl get -o json` answer (a `List`), as applied. Auto Mode's
/// objects stay as the API server holds them: [`read_into`] reads them from kubectl's
/// last-applied annotation.
pub fn items_of(answer: &serde_json::Value) -> Result<Vec<Value>, String> {
    let items = answer
        .get("items")
        .and_then(serde_json::Value::as_array)
        .ok_or("the answer is not a list of objects (no `items`)")?;
    items
        .iter()
        .map(|item| {
            yaml_serde::to_value(item)
                .map(|value| {
                    if crate::documents::auto_mode::is_auto_mode_pool(&value)
                        || crate::documents::auto_mode::is_node_class(&value)
                    {
                        value
                    } else {
                        as_applied(&value)
                    }
                })
                .map_err(|error| error.to_string())
        })
        .collect()
}

fn name_of(object: &Value) -> &str {
    object
        .get("metadata")
        .and_then(|metadata| metadata.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The Helm release Karpenter's chart is installed as, and its namespace (the deploy's
/// `helm upgrade --install karpenter … --namespace kube-system`).
pub const KARPENTER_RELEASE: (&str, &str) =
    ("karpenter", crate::documents::karpenter_aws::NAMESPACE);

/// The Karpenter settings the chart's user-supplied values (`helm get values -o json`) say:
/// the interruption queue, the feature gates the studio writes, and the controller's
/// role (an IRSA role annotated on the service account, else EKS Pod Identity).
pub fn karpenter_settings_of(values: &serde_json::Value) -> crate::model::spec::KarpenterSettings {
    let settings = &values["settings"];
    let gate = |name: &str| settings["featureGates"][name].as_bool() == Some(true);
    let irsa = values["serviceAccount"]["annotations"]["eks.amazonaws.com/role-arn"].is_string();
    crate::model::spec::KarpenterSettings {
        interruption_queue: settings["interruptionQueue"]
            .as_str()
            .filter(|queue| !queue.is_empty())
            .map(str::to_owned),
        spot_to_spot_consolidation: gate("spotToSpotConsolidation"),
        node_repair: gate("nodeRepair"),
        controller_identity: if irsa {
            crate::model::spec::ControllerIdentity::Irsa
        } else {
            crate::model::spec::ControllerIdentity::PodIdentity
        },
        ..Default::default()
    }
}

/// Reads the cluster's Karpenter objects into `reading`'s design, and takes the gaps
/// their reading left (`gaps`, by [`RESOURCES`]' words) in place of "not read yet". An
/// object the studio cannot read is a gap, named. `values` are the Karpenter chart's
/// user-supplied values (`helm get values`), when they could be read, and `chart` the
/// chart's version as `helm list` gives it (`karpenter-1.14.1`).
pub fn read_into(
    reading: &mut Reading,
    objects: &[Value],
    gaps: Vec<NotRead>,
    values: Option<&serde_json::Value>,
    chart: Option<&str>,
) {
    let mut karpenter = Vec::new();
    let mut not_read = gaps;
    let mut auto_mode = crate::upstream::auto_mode::AutoModePools::default();
    let mut auto_mode_read = true;
    for object in objects {
        if crate::documents::auto_mode::is_auto_mode_pool(object)
            || crate::documents::auto_mode::is_node_class(object)
        {
            let what = format!(
                "Auto Mode {} {}",
                object
                    .get("kind")
                    .and_then(Value::as_str)
                    .unwrap_or("object"),
                name_of(object)
            );
            match as_last_applied(object) {
                Some(applied) => {
                    if let Err(why) =
                        crate::documents::auto_mode::read_into(&applied, &mut auto_mode)
                    {
                        auto_mode_read = false;
                        not_read.push(NotRead {
                            what,
                            why: format!("it does not read as the studio knows it: {why}"),
                        });
                    }
                }
                // EKS's own pools and class come with computeConfig, read from EKS.
                None if AUTO_MODE_BUILT_IN.contains(&name_of(object)) => {}
                None => {
                    auto_mode_read = false;
                    not_read.push(NotRead {
                        what,
                        why: "it was not applied with kubectl apply, so the cluster keeps no copy of it as applied, and its defaults come from EKS's NodeClass schema, which the studio does not hold".into(),
                    });
                }
            }
            continue;
        }
        match crate::documents::import::import_karpenter(std::slice::from_ref(object)) {
            Ok(imported) => karpenter.push(imported.settings),
            Err(error) => not_read.push(NotRead {
                what: format!(
                    "{} {}",
                    object
                        .get("kind")
                        .and_then(Value::as_str)
                        .unwrap_or("object"),
                    name_of(object)
                ),
                why: format!(
                    "it does not read as the studio knows it: {}: {}",
                    error.path, error.message
                ),
            }),
        }
    }
    let spec = &mut reading.spec;
    if let Some(values) = values {
        // The chart is installed: its settings are read, whether or not it has objects yet.
        let mut read = karpenter_settings_of(values);
        match chart {
            Some(chart) => {
                let version = chart.strip_prefix("karpenter-").unwrap_or(chart);
                match crate::upstream::karpenter_releases::KarpenterRelease::parse(version) {
                    Some(release) => read.release = release,
                    None => not_read.push(NotRead {
                        what: "the Karpenter release".into(),
                        why: format!(
                            "the cluster runs chart {version}, and the studio installs {} only: the design says {}, and a plan changes the chart only from one of those",
                            crate::upstream::karpenter_releases::KarpenterRelease::ALL
                                .map(|release| release.chart_version())
                                .join(" or "),
                            read.release.chart_version()
                        ),
                    }),
                }
            }
            None => not_read.push(NotRead {
                what: "the Karpenter release".into(),
                why: format!(
                    "`helm list` did not give the chart's version: the design says {}",
                    read.release.chart_version()
                ),
            }),
        }
        spec.karpenter = Some(read);
        reading.helm_read = true;
    }
    if !karpenter.is_empty() {
        let settings = match spec.karpenter.as_mut() {
            Some(settings) => settings,
            None => {
                // Objects, but no chart values read: the controller's role from the Pod
                // Identity associations (one for `karpenter`, or IRSA), the rest
                // Karpenter's defaults, said so.
                let pod_identity = spec
                    .cluster
                    .pod_identity_associations
                    .iter()
                    .any(|association| association.service_account_name == "karpenter");
                not_read.push(NotRead {
                    what: "Karpenter's Helm values (interruption queue, feature gates)".into(),
                    why: format!(
                        "`helm get values karpenter` could not be read; the controller's role is taken as {}",
                        if pod_identity {
                            "EKS Pod Identity (an association names the `karpenter` service account)"
                        } else {
                            "IRSA (no Pod Identity association names the `karpenter` service account)"
                        }
                    ),
                });
                spec.karpenter
                    .insert(crate::model::spec::KarpenterSettings {
                        controller_identity: if pod_identity {
                            crate::model::spec::ControllerIdentity::PodIdentity
                        } else {
                            crate::model::spec::ControllerIdentity::Irsa
                        },
                        ..Default::default()
                    })
            }
        };
        for imported in karpenter {
            settings.node_pools.extend(imported.node_pools);
            settings.node_classes.extend(imported.node_classes);
            settings.node_overlays.extend(imported.node_overlays);
        }
        crate::documents::import::settle_leftovers(spec);
    }
    if auto_mode_read {
        reading.spec.auto_mode_pools = auto_mode;
        reading.auto_mode_read = true;
    }
    reading
        .not_read
        .retain(|gap| !gap.why.contains(NOT_READ_YET));
    reading.not_read.extend(not_read);
    reading.objects_read = true;
}

/// Says why the cluster's objects were not read, in place of "not read yet".
pub fn not_at_hand(reading: &mut Reading, why: &str) {
    for gap in &mut reading.not_read {
        if gap.why.contains(NOT_READ_YET) {
            gap.why = format!("they are objects inside the cluster, read with kubectl: {why}");
        }
    }
}
