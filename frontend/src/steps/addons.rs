//! The EKS add-ons a training cluster commonly wants, as checkboxes over `spec.addons`.
//! Add-ons the spec holds that are not listed here (from a template or an import) are kept
//! and shown.

use leptos::prelude::*;
use shared::fields;
use shared::model::spec::Addon;

use crate::state::step::Step;
use crate::state::step::field_id;
use crate::state::studio::Studio;
use crate::widgets::bind::Bound;
use crate::widgets::fields::{
    CheckboxField, FieldFindings, ListField, NumberField, Place, SelectField, TextField, options,
};
use crate::widgets::heading::StepHeading;
use shared::model::spec::{FsxVolume, S3Volume, Spec};

/// Items of a list field (a plain name, as `view!` attribute closures need).
type Items = Vec<String>;
/// A number field's value (a plain name, as `view!` attribute closures need).
type Number = Option<u32>;

/// The add-ons offered, with one line on what each is for.
const OFFERED: &[(&str, &str)] = &[
    (
        "eks-node-monitoring-agent",
        "Node monitoring agent: reports GPU, network and storage faults; node auto-repair acts on them",
    ),
    (
        "amazon-cloudwatch-observability",
        "CloudWatch observability: Container Insights metrics and logs, including GPU metrics",
    ),
    (
        "aws-mountpoint-s3-csi-driver",
        "Mountpoint for Amazon S3 CSI driver: mount an S3 bucket for datasets and checkpoints",
    ),
    (
        "aws-fsx-csi-driver",
        "FSx for Lustre CSI driver: a fast shared file system for checkpoints",
    ),
];

/// Whether the add-on's policy field is shown: for the add-ons that start with a policy,
/// and for any a file gave one.
fn shows_policies(addon: &Addon) -> bool {
    !addon.attach_policy_arns.is_empty() || !new_addon(&addon.name).attach_policy_arns.is_empty()
}

/// What a newly ticked add-on looks like.
fn new_addon(name: &str) -> Addon {
    shared::templates::starting_addon(name)
}

/// Add-on `index`, bound.
fn addon(index: usize) -> Bound<Addon> {
    Bound::new(
        expect_context::<Studio>(),
        fields::item(fields::ADDON_ITEM, &[index]),
        move |spec| spec.addons.get(index),
        move |spec| spec.addons.get_mut(index),
    )
}

/// Add-on checkboxes.
#[component]
pub fn AddonsStep() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let spec = studio.spec;
    let boxes = OFFERED
        .iter()
        .map(|&(name, description)| {
            let id = field_id(&format!("addons.{name}"));
            // A memo, so the field is made again only when the add-on moves, not as it is typed in.
            let index = Memo::new(move |_| {
                spec.with(|spec| spec.addons.iter().position(|addon| addon.name == name && shows_policies(addon)))
            });
            if let Some(driver) = shared::documents::storage::driver(name) {
                return view! {
                    <AddonBox id=id name=name description=description />
                    <DriverIdentityFields driver=driver />
                }
                .into_any();
            }
            let policies = move || {
                index.get().map(|index| {
                    view! {
                        <ListField
                            at=addon(index).place(Addon::POLICY_ARNS).of_item(name)
                            placeholder="arn:aws:iam::123456789012:policy/training-bucket"
                            value=addon(index).get(|addon| addon.attach_policy_arns.clone())
                            set=addon(index).set(|addon, arns: Items| addon.attach_policy_arns = arns)
                        />
                    }
                })
            };
            view! {
                <AddonBox id=id name=name description=description />
                {policies}
            }
            .into_any()
        })
        .collect_view();
    let others = move || {
        spec.with(|spec| {
            spec.addons
                .iter()
                .filter(|addon| !OFFERED.iter().any(|(name, _)| *name == addon.name))
                .map(|addon| addon.name.clone())
                .collect::<Vec<_>>()
        })
    };
    // The policy and identity fields above show their own findings.
    let shown_beside = Signal::derive(move || {
        spec.with(|spec| {
            let mut beside: Vec<String> = spec
                .addons
                .iter()
                .enumerate()
                .filter(|(_, addon)| {
                    OFFERED.iter().any(|(name, _)| *name == addon.name) && shows_policies(addon)
                })
                .map(|(index, _)| Addon::POLICY_ARNS.at(&[index]))
                .collect();
            for driver in &shared::documents::storage::DRIVERS {
                if let Some((path, _)) = driver.policies(spec) {
                    beside.push(path);
                }
                if let Some((path, _)) = driver.association(spec) {
                    beside.push(path);
                }
            }
            beside
        })
    });
    view! {
        <section class="step" aria-labelledby="step-title-7">
            <StepHeading step=Step::Addons />
            <fieldset>
                <legend>"EKS add-ons"</legend>
                {boxes}
            </fieldset>
            <Show when=move || !others().is_empty()>
                <p>"Also installed, as the design has them: " {move || others().join(", ")}</p>
            </Show>
            <p class="hint">
                "eksctl installs the NVIDIA device plugin on node groups with NVIDIA GPUs and the EFA device plugin on groups with EFA enabled; nothing to choose here. "
                "Add-ons with IAM policies get a role for their service account through the cluster's OIDC provider (Cluster step); the storage drivers can get theirs through EKS Pod Identity instead."
            </p>
            <FieldFindings path="addons" nested=true except=shown_beside />
            <Volumes />
        </section>
    }
}

/// One offered add-on's checkbox.
#[component]
fn AddonBox(id: String, name: &'static str, description: &'static str) -> impl IntoView {
    let spec = expect_context::<Studio>().spec;
    view! {
        <div class="field checkbox">
            <input
                id=id.clone()
                type="checkbox"
                prop:checked=move || spec.with(|spec| spec.addons.iter().any(|addon| addon.name == name))
                on:change=move |event| {
                    let on = event_target_checked(&event);
                    spec.update(|spec| {
                        spec.addons.retain(|addon| addon.name != name);
                        if on {
                            spec.addons.push(new_addon(name));
                        }
                    })
                }
            />
            <label for=id>
                <code>{name}</code>
                " — "
                {description}
            </label>
        </div>
    }
}

/// How a ticked storage driver gets its AWS role, and the policies of that role.
#[component]
fn DriverIdentityFields(driver: &'static shared::documents::storage::Driver) -> impl IntoView {
    use shared::documents::storage::DriverIdentity;
    let spec = expect_context::<Studio>().spec;
    // Memos, so the fields are made again only when the design moves them.
    let policies_path =
        Memo::new(move |_| spec.with(|spec| driver.policies(spec).map(|(path, _)| path)));
    let association_path =
        Memo::new(move |_| spec.with(|spec| driver.association(spec).map(|(path, _)| path)));
    let name = driver.addon;
    let account = format!("{}/{}", driver.namespace, driver.service_account);
    move || {
        let policies = policies_path.get()?;
        let identity_path = association_path
            .get()
            .unwrap_or_else(|| policies.trim_end_matches(".attach_policy_arns").to_owned());
        let account = account.clone();
        Some(view! {
            <SelectField
                at=Place::new(identity_path, format!("How {name} gets its AWS role"))
                options=options(&[
                    ("pod-identity", "EKS Pod Identity"),
                    ("irsa", "IRSA (the cluster's OIDC provider)"),
                ])
                value=Signal::derive(move || spec.with(|spec| match driver.identity(spec) {
                    DriverIdentity::PodIdentity => "pod-identity".to_owned(),
                    DriverIdentity::Irsa => "irsa".to_owned(),
                }))
                set=move |choice: String| spec.update(|spec| {
                    let identity = if choice == "pod-identity" {
                        DriverIdentity::PodIdentity
                    } else {
                        DriverIdentity::Irsa
                    };
                    driver.set_identity(spec, identity);
                })
            />
            <ListField
                at=Place::new(policies, Addon::POLICY_ARNS.label).of_item(name)
                placeholder="arn:aws:iam::123456789012:policy/training-bucket"
                value=Signal::derive(move || spec.with(|spec| {
                    driver.policies(spec).map(|(_, arns)| arns).unwrap_or_default()
                }))
                set=move |arns: Items| spec.update(|spec| driver.set_policies(spec, arns))
            />
            <p class="hint">"The role is for the driver's service account " <code>{account}</code> "; EKS Pod Identity also installs the eks-pod-identity-agent add-on."</p>
        })
    }
}

/// The volumes for datasets and checkpoints the deploy creates (`storage/volumes.yaml`).
#[component]
fn Volumes() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let spec = studio.spec;
    let has_fsx = Signal::derive(move || spec.with(|spec| spec.storage.fsx.is_some()));
    let has_s3 = Signal::derive(move || spec.with(|spec| spec.storage.s3.is_some()));
    let fsx = Bound::new(
        studio,
        Spec::FSX_VOLUME.path(),
        |spec| spec.storage.fsx.as_ref(),
        |spec| spec.storage.fsx.as_mut(),
    );
    let s3 = Bound::new(
        studio,
        Spec::S3_VOLUME.path(),
        |spec| spec.storage.s3.as_ref(),
        |spec| spec.storage.s3.as_mut(),
    );
    // Which subnet and security group the file system gets, and why, in this design's VPC.
    let fsx_network_hint = move || {
        spec.with(|spec| {
            let at_deploy = shared::documents::storage::fsx_at_deploy(spec);
            let group = shared::documents::storage::fsx_node_group(spec)
                .map(|group| format!("node group {}", group.name))
                .unwrap_or_else(|| "a private subnet eksctl makes".to_owned());
            match (at_deploy.subnet, at_deploy.security_group) {
                (true, true) => format!(
                    "New VPC: the ids do not exist until eksctl makes it, so leave both empty. After the cluster is created the deploy puts the file system in the subnet of {group} (the GPU nodes' zone, so no traffic crosses zones) with the cluster security group, which every node has and which passes Lustre's TCP 988 and 1018–1023 between its members."
                ),
                (true, false) => format!(
                    "New VPC: the subnet is left empty, so the deploy uses the subnet of {group} once eksctl made it. Each security group must allow Lustre's TCP 988 and 1018–1023 from itself and from the nodes."
                ),
                (false, true) => "New VPC: no security group given, so the deploy uses the cluster security group (every node has it; it passes Lustre's TCP 988 and 1018–1023 between its members). The subnet must be in the GPU nodes' zone.".to_owned(),
                (false, false) => "The subnet in the GPU nodes' zone (traffic across zones is slower and billed), and security groups that allow Lustre's TCP 988 and 1018–1023 from themselves and from the nodes.".to_owned(),
            }
        })
    };
    view! {
        <fieldset>
            <legend>"Volumes for datasets and checkpoints"</legend>
            <p class="hint">
                "Written to storage/volumes.yaml and applied after the cluster is created; teardown deletes the claims first, so FSx deletes the file system its driver made."
            </p>
            <CheckboxField
                at=Spec::FSX_VOLUME
                checked=has_fsx
                set=move |on: bool| spec.update(|spec| {
                    // In a new VPC the ids do not exist yet: left empty, the deploy finds them.
                    let new_vpc = matches!(spec.network, shared::model::spec::Network::NewVpc { .. });
                    spec.storage.fsx = on.then(|| shared::model::spec::FsxVolume {
                        subnet_id: if new_vpc { String::new() } else { "PLACEHOLDER_FSX_SUBNET_ID".into() },
                        security_group_ids: if new_vpc {
                            Vec::new()
                        } else {
                            vec!["PLACEHOLDER_FSX_SECURITY_GROUP_ID".into()]
                        },
                        deployment_type: "PERSISTENT_2".into(),
                        per_unit_storage_throughput: Some(250),
                        storage_gib: 1200,
                    });
                })
            />
            <Show when=move || has_fsx.get()>
                <p class="hint fsx-network">{fsx_network_hint}</p>
                <TextField
                    at=fsx.place(FsxVolume::SUBNET)
                    placeholder="subnet-0123456789abcdef0 (the GPU nodes' zone)"
                    value=fsx.get(|fsx| fsx.subnet_id.clone())
                    set=fsx.set(|fsx, id: String| fsx.subnet_id = id)
                />
                <ListField
                    at=fsx.place(FsxVolume::SECURITY_GROUPS)
                    placeholder="sg-0123456789abcdef0"
                    value=fsx.get(|fsx| fsx.security_group_ids.clone())
                    set=fsx.set(|fsx, groups: Items| fsx.security_group_ids = groups)
                />
                <SelectField
                    at=fsx.place(FsxVolume::DEPLOYMENT_TYPE)
                    options=options(&[
                        ("PERSISTENT_2", "PERSISTENT_2: kept, replicated in its zone"),
                        ("SCRATCH_2", "SCRATCH_2: temporary, not replicated"),
                        ("PERSISTENT_1", "PERSISTENT_1 (older)"),
                        ("SCRATCH_1", "SCRATCH_1 (older)"),
                    ])
                    value=fsx.get(|fsx| fsx.deployment_type.clone())
                    set=fsx.set(|fsx, kind: String| {
                        // Scratch file systems take no throughput; persistent ones need one.
                        fsx.per_unit_storage_throughput = shared::documents::storage::fsx_throughputs(&kind)
                            .first()
                            .map(|_| fsx.per_unit_storage_throughput.unwrap_or(if kind == "PERSISTENT_2" { 250 } else { 200 }));
                        fsx.deployment_type = kind;
                    })
                />
                <NumberField
                    at=fsx.place(FsxVolume::THROUGHPUT)
                    value=fsx.get(|fsx| fsx.per_unit_storage_throughput)
                    set=fsx.set(|fsx, throughput: Number| fsx.per_unit_storage_throughput = throughput)
                />
                <NumberField
                    at=fsx.place(FsxVolume::STORAGE)
                    value=fsx.get(|fsx| Some(fsx.storage_gib))
                    set=fsx.set(|fsx, gib: Number| fsx.storage_gib = gib.unwrap_or(0))
                />
            </Show>
            <CheckboxField
                at=Spec::S3_VOLUME
                checked=has_s3
                set=move |on: bool| spec.update(|spec| {
                    spec.storage.s3 = on.then(|| shared::model::spec::S3Volume {
                        bucket: "PLACEHOLDER_S3_BUCKET".into(),
                        prefix: String::new(),
                    });
                })
            />
            <Show when=move || has_s3.get()>
                <TextField
                    at=s3.place(S3Volume::BUCKET)
                    placeholder="training-checkpoints"
                    value=s3.get(|s3| s3.bucket.clone())
                    set=s3.set(|s3, bucket: String| s3.bucket = bucket)
                />
                <TextField
                    at=s3.place(S3Volume::PREFIX)
                    placeholder="empty: the whole bucket; e.g. checkpoints/"
                    value=s3.get(|s3| s3.prefix.clone())
                    set=s3.set(|s3, prefix: String| s3.prefix = prefix)
                />
            </Show>
        </fieldset>
    }
}
