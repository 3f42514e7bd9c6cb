//! The EKS add-ons a training cluster commonly wants, as checkboxes over `spec.addons`.
//! Add-ons the spec holds that are not listed here (from an import) are kept and shown.

use leptos::prelude::*;
use shared::spec::Addon;

use crate::fields::FieldFindings;
use crate::{Step, StepHeading, Studio, field_id};

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

/// What a newly ticked add-on looks like.
fn new_addon(name: &str) -> Addon {
    Addon {
        name: name.to_owned(),
        resolve_conflicts: Some("overwrite".into()),
        attach_policy_arns: if name == "amazon-cloudwatch-observability" {
            vec!["arn:aws:iam::aws:policy/CloudWatchFullAccess".into()]
        } else {
            Vec::new()
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
                "Storage drivers also need their IAM policies: FSx for Lustre is an IAM add-on policy of each node group."
            </p>
            <FieldFindings path="addons" nested=true />
        </section>
    }
}
