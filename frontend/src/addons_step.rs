//! The EKS add-ons a training cluster commonly wants, as checkboxes over `spec.addons`.
//! Add-ons the spec holds that are not listed here (from an import) are kept and shown.

use leptos::prelude::*;
use shared::spec::Addon;

use crate::fields::{FieldFindings, ListField};
use crate::{Step, StepHeading, Studio, field_id};

/// Items of a list field (a plain name, as `view!` attribute closures need).
type Items = Vec<String>;

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
    Addon {
        name: name.to_owned(),
        resolve_conflicts: Some("overwrite".into()),
        // The policies AWS's guides give each add-on's service account role (eksctl
        // creates the role through the cluster's OIDC provider); Mountpoint's is a policy
        // on the user's own bucket, so it starts as a placeholder to fill in.
        attach_policy_arns: match name {
            "amazon-cloudwatch-observability" => {
                vec!["arn:aws:iam::aws:policy/CloudWatchFullAccess".into()]
            }
            "aws-fsx-csi-driver" => vec!["arn:aws:iam::aws:policy/AmazonFSxFullAccess".into()],
            "aws-mountpoint-s3-csi-driver" => vec!["PLACEHOLDER_S3_POLICY_ARN".into()],
            _ => Vec::new(),
        },
        ..Addon::default()
    }
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
            let policies = move || {
                index.get().map(|index| {
                    view! {
                        <ListField
                            label=format!("IAM policy ARNs for {name}")
                            path=format!("addons[{index}].attach_policy_arns")
                            placeholder="arn:aws:iam::123456789012:policy/training-bucket"
                            value=Signal::derive(move || spec.with(|spec| {
                                spec.addons.get(index).map(|addon| addon.attach_policy_arns.clone()).unwrap_or_default()
                            }))
                            set=move |arns: Items| spec.update(|spec| {
                                if let Some(addon) = spec.addons.get_mut(index) {
                                    addon.attach_policy_arns = arns;
                                }
                            })
                        />
                    }
                })
            };
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
                {policies}
            }
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
    // The policy fields above show their own findings.
    let shown_beside = Signal::derive(move || {
        spec.with(|spec| {
            spec.addons
                .iter()
                .enumerate()
                .filter(|(_, addon)| {
                    OFFERED.iter().any(|(name, _)| *name == addon.name) && shows_policies(addon)
                })
                .map(|(index, _)| format!("addons[{index}].attach_policy_arns"))
                .collect::<Vec<String>>()
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
                <p>"Also installed (kept from the imported file): " {move || others().join(", ")}</p>
            </Show>
            <p class="hint">
                "eksctl installs the NVIDIA device plugin on node groups with NVIDIA GPUs and the EFA device plugin on groups with EFA enabled; nothing to choose here. "
                "Add-ons with IAM policies get a role for their service account through the cluster's OIDC provider (Cluster step)."
            </p>
            <FieldFindings path="addons" nested=true except=shown_beside />
        </section>
    }
}
