//! Who may reach the cluster's Kubernetes API (`accessConfig`), in the Cluster step: the
//! authentication mode, whether the creator is an admin, and the access entries with their
//! EKS access policies.

use leptos::prelude::*;
use shared::model::spec::{AccessConfig, AccessEntry, AccessPolicy};

use crate::state::studio::Studio;
use crate::widgets::bind::{Bound, Rows, field};
use crate::widgets::fields::{CheckboxField, FieldFindings, ListField, SelectField, TextField};
use shared::model::spec::ClusterSettings;

/// Items of a list field (a plain name, as `view!` attribute closures need).
type Items = Vec<String>;

/// The EKS access policies most entries use, for the policy field's suggestions.
const POLICIES: &[&str] = &[
    "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy",
    "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAdminPolicy",
    "arn:aws:eks::aws:cluster-access-policy/AmazonEKSEditPolicy",
    "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy",
    AccessEntry::AUTO_NODE_POLICY,
];

fn options(values: &[&str], unset: &str) -> Vec<(String, String)> {
    std::iter::once((String::new(), unset.to_owned()))
        .chain(
            values
                .iter()
                .map(|value| ((*value).to_owned(), (*value).to_owned())),
        )
        .collect()
}

/// Changes `accessConfig`, creating it when needed and dropping it when it says nothing
/// eksctl's defaults do not.
fn update_access(studio: Studio, change: impl FnOnce(&mut AccessConfig)) {
    studio.spec.update(|spec| {
        let access = spec
            .cluster
            .access
            .get_or_insert_with(AccessConfig::default);
        change(access);
        if *access == AccessConfig::default() {
            spec.cluster.access = None;
        }
    });
}

/// One access policy's inputs: ARN, scope, namespaces.
fn policy_row(policy: Bound<AccessPolicy>) -> impl IntoView {
    view! {
        <TextField
            at=policy.place(AccessPolicy::ARN)
            suggestions="access-policies"
            value=policy.get(|policy| policy.policy_arn.clone())
            set=policy.set(|policy, arn| policy.policy_arn = arn)
        />
        <SelectField
            at=policy.place(AccessPolicy::SCOPE)
            options=options(&["cluster", "namespace"], "not set")
            value=policy.get(|policy| policy.scope.clone())
            set=policy.set(|policy, scope| policy.scope = scope)
        />
        <ListField
            at=policy.place(AccessPolicy::NAMESPACES)
            placeholder="training, eval"
            value=policy.get(|policy| policy.namespaces.clone())
            set=policy.set(|policy, namespaces: Items| policy.namespaces = namespaces)
        />
    }
}

/// One access entry's inputs.
fn entry_row(entry: Bound<AccessEntry>) -> impl IntoView {
    let add_policy = entry.clone();
    view! {
        <TextField
            at=entry.place(AccessEntry::PRINCIPAL_ARN)
            placeholder="arn:aws:iam::111122223333:role/ml-admins"
            value=entry.get(|entry| entry.principal_arn.clone())
            set=entry.set(|entry, arn| entry.principal_arn = arn)
        />
        <SelectField
            at=entry.place(AccessEntry::ENTRY_TYPE)
            options=options(&AccessEntry::TYPES, "not set (STANDARD)")
            value=entry.get(|entry| entry.entry_type.clone())
            set=entry.set(|entry, kind| entry.entry_type = kind)
        />
        <ListField
            at=entry.place(AccessEntry::KUBERNETES_GROUPS)
            placeholder="ml-users"
            value=entry.get(|entry| entry.kubernetes_groups.clone())
            set=entry.set(|entry, groups: Items| entry.kubernetes_groups = groups)
        />
        <TextField
            at=entry.place(AccessEntry::KUBERNETES_USERNAME)
            value=entry.get(|entry| entry.kubernetes_username.clone())
            set=entry.set(|entry, name: String| entry.kubernetes_username = name)
        />
        <FieldFindings path=entry.place(AccessEntry::ACCESS_POLICIES).path />
        <Rows
            list=field!(entry, access_policies)
            noun="Access policy"
            class="access-policy"
            row=policy_row
            add_label="Add access policy"
            add=move || add_policy.write(|entry| {
                entry.access_policies.push(AccessPolicy { scope: "cluster".into(), ..AccessPolicy::default() });
            })
        />
    }
}

/// `accessConfig`: authentication mode, the creator's admin rights, the access entries.
#[component]
pub fn AccessSettings() -> impl IntoView {
    let studio = expect_context::<Studio>();
    let spec = studio.spec;
    let read = move |read: fn(&AccessConfig) -> String| {
        Signal::derive(move || {
            spec.with(|spec| spec.cluster.access.as_ref().map(read).unwrap_or_default())
        })
    };
    let entries = Bound::new(
        studio,
        AccessConfig::ACCESS_ENTRIES.path(),
        |spec| {
            spec.cluster
                .access
                .as_ref()
                .map(|access| &access.access_entries)
        },
        |spec| {
            spec.cluster
                .access
                .as_mut()
                .map(|access| &mut access.access_entries)
        },
    );
    view! {
        <h3>"Access to the cluster"</h3>
        <p class="hint">
            "Who may use the Kubernetes API (eksctl's accessConfig): EKS access entries let IAM roles and users in, as Kubernetes groups or through EKS access policies; an EKS Auto Mode NodeClass with its own node role needs an entry of type EC2 for it."
        </p>
        <datalist id="access-policies">
            {POLICIES.iter().map(|policy| view! { <option value=*policy></option> }).collect_view()}
        </datalist>
        <div class="grid">
            <SelectField
                at=AccessConfig::AUTHENTICATION_MODE
                options=options(&AccessConfig::MODES, "not set (API_AND_CONFIG_MAP)")
                value=read(|access| access.authentication_mode.clone())
                set=move |mode: String| update_access(studio, |access| access.authentication_mode = mode)
            />
        </div>
        <CheckboxField
            at=AccessConfig::CREATOR_IS_ADMIN
            checked=Signal::derive(move || spec.with(|spec| {
                spec.cluster
                    .access
                    .as_ref()
                    .and_then(|access| access.bootstrap_cluster_creator_admin_permissions)
                    != Some(false)
            }))
            set=move |on: bool| update_access(studio, |access| {
                access.bootstrap_cluster_creator_admin_permissions = (!on).then_some(false);
            })
        />
        <FieldFindings path=ClusterSettings::ACCESS_CONFIG.path() />
        <Rows
            list=entries
            noun="Access entry"
            class="access-entry"
            row=entry_row
            add_label="Add access entry"
            add=move || update_access(studio, |access| access.access_entries.push(AccessEntry::admin("")))
        />
    }
}
