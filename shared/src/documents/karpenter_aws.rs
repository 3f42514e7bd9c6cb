//! What Karpenter needs on AWS, as the two CloudFormation templates of a Karpenter bundle,
//! rendered from typed structs. The facts follow Karpenter's getting-started guide for the
//! chart the bundle installs (the design's `KarpenterRelease`): its node role, its controller's
//! managed policies (their statements are `shared/data/karpenter-controller-policies.json`,
//! taken from the guide's template) and its interruption queue with the EventBridge rules
//! that feed it.
//!
//! - [`PREREQUISITES_PATH`], stack `Karpenter-<cluster>`, created before the cluster: the
//!   node role, the managed policies, the controller's role for EKS Pod Identity, and,
//!   when the design names an interruption queue, the queue, its policy and the rules.
//! - [`CLUSTER_ACCESS_PATH`], stack `Karpenter-<cluster>-access`, created once the cluster
//!   exists: the node role's access entry (`EC2_LINUX`, so nodes can join) and the
//!   controller's Pod Identity association (so it can call AWS at all).
//!
//! With IRSA ([`ControllerIdentity::Irsa`]) the controller's role trusts the cluster's OIDC
//! provider, which exists only with the cluster: the access stack creates that role, from
//! the issuer the deploy reads (parameter [`OIDC_ISSUER_PARAMETER`]) and the policies the
//! first stack exports, and there is no Pod Identity association.
//!
//! The guide has eksctl create the controller's role and map the node role, which needs the
//! account id written into the ClusterConfig; as CloudFormation resources they need none,
//! so every file of the bundle is deployed as it was reviewed.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize, Serializer};

use crate::model::spec::{ControllerIdentity, KarpenterSettings, Network, Spec};
use crate::upstream::karpenter::{DISCOVERY_TAG, discovery_value};

/// The stack of what Karpenter needs before the cluster.
pub const PREREQUISITES_PATH: &str = "karpenter/cloudformation.yaml";
/// The stack that gives Karpenter's nodes and controller access to the cluster.
pub const CLUSTER_ACCESS_PATH: &str = "karpenter/cluster-access.yaml";
/// The namespace the bundle installs Karpenter into.
pub const NAMESPACE: &str = "kube-system";

/// The CRDs Karpenter's chart installs (1.9 to 1.14 alike: `pkg/apis/crds/`).
pub const CRDS: &[&str] = &[
    "ec2nodeclasses.karpenter.k8s.aws",
    "nodeclaims.karpenter.sh",
    "nodeoverlays.karpenter.sh",
    "nodepools.karpenter.sh",
];
/// The chart's service account (its default name).
pub const SERVICE_ACCOUNT: &str = "karpenter";
/// The add-on that hands Pod Identity credentials to pods.
pub const POD_IDENTITY_AGENT: &str = "eks-pod-identity-agent";
/// The access stack's parameter for the cluster's OIDC issuer URL (IRSA only).
pub const OIDC_ISSUER_PARAMETER: &str = "OidcIssuer";

/// `Karpenter-<cluster>`, as the guide names it.
pub fn prerequisites_stack(cluster: &str) -> String {
    format!("Karpenter-{cluster}")
}

/// `Karpenter-<cluster>-access`.
pub fn access_stack(cluster: &str) -> String {
    format!("Karpenter-{cluster}-access")
}

/// The node role the bundle creates, `KarpenterNodeRole-<cluster>` as in the guide.
pub fn node_role(cluster: &str) -> String {
    format!("KarpenterNodeRole-{cluster}")
}

/// The controller's role, `<cluster>-karpenter` as in the guide.
pub fn controller_role(cluster: &str) -> String {
    format!("{cluster}-karpenter")
}

/// A value of a template: text, or one of CloudFormation's functions.
#[derive(Clone, Debug, PartialEq)]
pub enum CfnValue {
    /// Plain text.
    Text(String),
    /// `Fn::Sub`: text with `${Parameter}` and `${AWS::Region}` substituted.
    Sub(String),
    /// `Ref` to a parameter or resource.
    Ref(String),
    /// `Fn::GetAtt` of a resource.
    GetAtt(String, &'static str),
    /// `Fn::ImportValue` of another stack's export.
    ImportValue(String),
    /// `Fn::Sub` with its own variables, each a JSON value (which may be a function).
    SubWith(String, BTreeMap<String, serde_json::Value>),
}

impl Serialize for CfnValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let (function, argument): (&str, serde_json::Value) = match self {
            CfnValue::Text(text) => return serializer.serialize_str(text),
            CfnValue::Sub(text) => ("Fn::Sub", text.as_str().into()),
            CfnValue::Ref(name) => ("Ref", name.as_str().into()),
            CfnValue::GetAtt(resource, attribute) => {
                ("Fn::GetAtt", serde_json::json!([resource, attribute]))
            }
            CfnValue::ImportValue(export) => ("Fn::ImportValue", export.as_str().into()),
            CfnValue::SubWith(text, variables) => ("Fn::Sub", serde_json::json!([text, variables])),
        };
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(function, &argument)?;
        map.end()
    }
}

fn sub(text: &str) -> CfnValue {
    CfnValue::Sub(text.to_owned())
}

/// A CloudFormation template.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Template {
    /// Always `2010-09-09`.
    #[serde(rename = "AWSTemplateFormatVersion")]
    pub format_version: String,
    /// What the stack is for.
    pub description: String,
    /// Parameters, by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub parameters: BTreeMap<String, Parameter>,
    /// Resources, by logical id.
    pub resources: BTreeMap<String, Resource>,
    /// Outputs, by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub outputs: BTreeMap<String, Output>,
}

/// A template parameter.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Parameter {
    /// `String`.
    #[serde(rename = "Type")]
    pub kind: String,
    /// What it is.
    pub description: String,
    /// Its value unless the deploy gives another; without one, the deploy must give it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// A template output, exported for the other stack.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Output {
    /// What it is.
    pub description: String,
    /// Its value.
    pub value: CfnValue,
    /// The export other stacks import it by.
    pub export: Export,
}

/// `Export` of an output.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Export {
    /// Export name, unique in the region.
    pub name: CfnValue,
}

/// The resources these templates use, each with its properties.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "Type", content = "Properties")]
pub enum Resource {
    /// An IAM role.
    #[serde(rename = "AWS::IAM::Role")]
    Role(Role),
    /// A customer-managed IAM policy.
    #[serde(rename = "AWS::IAM::ManagedPolicy")]
    ManagedPolicy(ManagedPolicy),
    /// An SQS queue.
    #[serde(rename = "AWS::SQS::Queue")]
    Queue(Queue),
    /// Who may use a queue.
    #[serde(rename = "AWS::SQS::QueuePolicy")]
    QueuePolicy(QueuePolicy),
    /// An EventBridge rule.
    #[serde(rename = "AWS::Events::Rule")]
    EventRule(EventRule),
    /// An EKS access entry.
    #[serde(rename = "AWS::EKS::AccessEntry")]
    AccessEntry(AccessEntry),
    /// An EKS Pod Identity association.
    #[serde(rename = "AWS::EKS::PodIdentityAssociation")]
    PodIdentityAssociation(PodIdentityAssociation),
}

/// `AWS::IAM::Role` properties.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Role {
    /// Role name.
    pub role_name: CfnValue,
    /// IAM path.
    pub path: String,
    /// Who may assume it.
    pub assume_role_policy_document: PolicyText,
    /// Policies attached to it.
    pub managed_policy_arns: Vec<CfnValue>,
}

/// `AWS::IAM::ManagedPolicy` properties.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ManagedPolicy {
    /// Policy name.
    pub managed_policy_name: CfnValue,
    /// IAM path.
    pub path: String,
    /// The document as JSON text under `Fn::Sub`: its condition keys name the cluster,
    /// which CloudFormation substitutes only in text.
    pub policy_document: CfnValue,
}

/// `AWS::SQS::Queue` properties.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Queue {
    /// Queue name.
    pub queue_name: String,
    /// Seconds a message is kept.
    pub message_retention_period: u32,
    /// Server-side encryption with SQS-owned keys.
    pub sqs_managed_sse_enabled: bool,
}

/// `AWS::SQS::QueuePolicy` properties.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct QueuePolicy {
    /// The queues (URLs).
    pub queues: Vec<CfnValue>,
    /// Who may send to them.
    pub policy_document: PolicyDocument,
}

/// `AWS::Events::Rule` properties.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct EventRule {
    /// Which events it matches.
    pub event_pattern: EventPattern,
    /// Where it sends them.
    pub targets: Vec<Target>,
}

/// An EventBridge event pattern.
#[derive(Clone, Debug, Serialize)]
pub struct EventPattern {
    /// Event sources.
    pub source: Vec<String>,
    /// Event detail types.
    #[serde(rename = "detail-type")]
    pub detail_type: Vec<String>,
}

/// A rule's target.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Target {
    /// Target id within the rule.
    pub id: String,
    /// Target ARN.
    pub arn: CfnValue,
}

/// `AWS::EKS::AccessEntry` properties.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct AccessEntry {
    /// The cluster.
    pub cluster_name: String,
    /// The role given access.
    pub principal_arn: CfnValue,
    /// `EC2_LINUX`: nodes of that role join the cluster.
    #[serde(rename = "Type")]
    pub kind: String,
}

/// `AWS::EKS::PodIdentityAssociation` properties.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct PodIdentityAssociation {
    /// The cluster.
    pub cluster_name: String,
    /// The service account's namespace.
    pub namespace: String,
    /// The service account.
    pub service_account: String,
    /// The role its pods get.
    pub role_arn: CfnValue,
}

/// A policy as a document, or as JSON text under `Fn::Sub` when one of its keys must be
/// substituted (CloudFormation substitutes only in text).
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum PolicyText {
    /// The document itself.
    Document(PolicyDocument),
    /// Its JSON text, substituted.
    Substituted(CfnValue),
}

/// An IAM policy document.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct PolicyDocument {
    /// `2012-10-17`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Document id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Its statements.
    pub statement: Vec<Statement>,
}

/// One statement of a policy document. Values stay JSON: a principal or a condition may
/// hold CloudFormation functions.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Statement {
    /// Statement id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sid: Option<String>,
    /// `Allow` or `Deny`.
    pub effect: String,
    /// Who (resource policies and trust policies only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub principal: Option<serde_json::Value>,
    /// The actions: one or a list.
    pub action: serde_json::Value,
    /// The resources: one or a list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<serde_json::Value>,
    /// Conditions, by operator and key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<serde_json::Value>,
}

/// One of the controller's managed policies, as the data file lists them.
#[derive(Clone, Debug, Deserialize)]
struct ControllerPolicy {
    /// `NodeLifecycle` names `KarpenterControllerNodeLifecyclePolicy-<cluster>`.
    name: String,
    statements: Vec<Statement>,
}

#[derive(Deserialize)]
struct ControllerPolicies {
    policies: Vec<ControllerPolicy>,
}

fn controller_policies() -> &'static [ControllerPolicy] {
    static POLICIES: OnceLock<Vec<ControllerPolicy>> = OnceLock::new();
    POLICIES.get_or_init(|| {
        // Read as YAML (JSON is YAML 1.2) by the reader the page already carries, so the
        // page holds no JSON reader for this one file.
        let documents = crate::yaml::source::parse_documents(include_str!(
            "../../data/karpenter-controller-policies.json"
        ))
        .expect("the embedded controller policies are JSON");
        let document = documents
            .into_iter()
            .next()
            .expect("the embedded controller policies are one document");
        let data: ControllerPolicies = yaml_serde::from_value(document.to_value())
            .expect("the embedded controller policies parse");
        data.policies
    })
}

/// The policy that lets the controller read the interruption queue.
const INTERRUPTION_POLICY: &str = "Interruption";

/// The events Karpenter handles from its queue, as (rule id, source, detail type).
const INTERRUPTION_EVENTS: &[(&str, &str, &str)] = &[
    ("ScheduledChangeRule", "aws.health", "AWS Health Event"),
    (
        "SpotInterruptionRule",
        "aws.ec2",
        "EC2 Spot Instance Interruption Warning",
    ),
    (
        "RebalanceRule",
        "aws.ec2",
        "EC2 Instance Rebalance Recommendation",
    ),
    (
        "InstanceStateChangeRule",
        "aws.ec2",
        "EC2 Instance State-change Notification",
    ),
    (
        "CapacityReservationInterruptionRule",
        "aws.ec2",
        "EC2 Capacity Reservation Instance Interruption Warning",
    ),
];

const QUEUE: &str = "KarpenterInterruptionQueue";
const NODE_ROLE: &str = "KarpenterNodeRole";
const CONTROLLER_ROLE: &str = "KarpenterControllerRole";

/// Who may assume a role: one service principal.
fn trusted_service(service: serde_json::Value, actions: &[&str]) -> PolicyText {
    PolicyText::Document(PolicyDocument {
        version: Some("2012-10-17".into()),
        id: None,
        statement: vec![Statement {
            sid: None,
            effect: "Allow".into(),
            principal: Some(serde_json::json!({ "Service": service })),
            action: serde_json::json!(actions),
            resource: None,
            condition: None,
        }],
    })
}

/// Who may assume the controller's role with IRSA: the service account, through the
/// cluster's OIDC provider (`${Provider}`, the issuer URL without its scheme).
fn trusted_service_account() -> PolicyText {
    let document = PolicyDocument {
        version: Some("2012-10-17".into()),
        id: None,
        statement: vec![Statement {
            sid: None,
            effect: "Allow".into(),
            principal: Some(serde_json::json!({
                "Federated": "arn:${AWS::Partition}:iam::${AWS::AccountId}:oidc-provider/${Provider}"
            })),
            action: "sts:AssumeRoleWithWebIdentity".into(),
            resource: None,
            condition: Some(serde_json::json!({
                "StringEquals": {
                    "${Provider}:aud": "sts.amazonaws.com",
                    "${Provider}:sub": format!("system:serviceaccount:{NAMESPACE}:{SERVICE_ACCOUNT}"),
                }
            })),
        }],
    };
    let provider = serde_json::json!({
        "Fn::Select": [1, { "Fn::Split": ["//", { "Ref": OIDC_ISSUER_PARAMETER }] }]
    });
    PolicyText::Substituted(CfnValue::SubWith(
        serde_json::to_string_pretty(&document).expect("a policy serialises"),
        BTreeMap::from([("Provider".to_owned(), provider)]),
    ))
}

/// The controller's role: `<cluster>-karpenter` with the managed policies.
fn controller_role_resource(identity: ControllerIdentity, policies: Vec<CfnValue>) -> Resource {
    Resource::Role(Role {
        role_name: sub("${ClusterName}-karpenter"),
        path: "/".into(),
        assume_role_policy_document: match identity {
            ControllerIdentity::PodIdentity => trusted_service(
                serde_json::json!("pods.eks.amazonaws.com"),
                &["sts:AssumeRole", "sts:TagSession"],
            ),
            ControllerIdentity::Irsa => trusted_service_account(),
        },
        managed_policy_arns: policies,
    })
}

/// The cluster name parameter both stacks take.
fn cluster_parameter(cluster: &str) -> (String, Parameter) {
    (
        "ClusterName".to_owned(),
        Parameter {
            kind: "String".into(),
            description: "EKS cluster name".into(),
            default: Some(cluster.to_owned()),
        },
    )
}

/// An output exported as `<stack>-<name>`.
fn exported(description: &str, value: CfnValue, name: &str) -> Output {
    Output {
        description: description.into(),
        value,
        export: Export {
            name: CfnValue::Sub(format!("${{AWS::StackName}}-{name}")),
        },
    }
}

/// The stack of what Karpenter needs before the cluster exists; `None` without Karpenter.
pub fn prerequisites(spec: &Spec) -> Option<Template> {
    let karpenter = spec.karpenter.as_ref()?;
    let cluster = &spec.cluster.name;
    let mut resources = BTreeMap::new();
    resources.insert(
        NODE_ROLE.to_owned(),
        Resource::Role(Role {
            role_name: sub("KarpenterNodeRole-${ClusterName}"),
            path: "/".into(),
            assume_role_policy_document: trusted_service(
                serde_json::json!({ "Fn::Sub": "ec2.${AWS::URLSuffix}" }),
                &["sts:AssumeRole"],
            ),
            managed_policy_arns: [
                "AmazonEKS_CNI_Policy",
                "AmazonEKSWorkerNodePolicy",
                "AmazonEC2ContainerRegistryPullOnly",
                "AmazonSSMManagedInstanceCore",
            ]
            .iter()
            .map(|policy| {
                CfnValue::Sub(format!("arn:${{AWS::Partition}}:iam::aws:policy/{policy}"))
            })
            .collect(),
        }),
    );
    let queue = interruption_queue(karpenter);
    let identity = karpenter.controller_identity;
    let mut attached = Vec::new();
    let mut outputs = BTreeMap::new();
    for policy in controller_policies() {
        if policy.name == INTERRUPTION_POLICY && queue.is_none() {
            continue;
        }
        let logical_id = format!("{}Policy", policy.name);
        let document = PolicyDocument {
            version: Some("2012-10-17".into()),
            id: None,
            statement: policy.statements.clone(),
        };
        resources.insert(
            logical_id.clone(),
            Resource::ManagedPolicy(ManagedPolicy {
                managed_policy_name: CfnValue::Sub(format!(
                    "KarpenterController{}Policy-${{ClusterName}}",
                    policy.name
                )),
                path: "/".into(),
                policy_document: CfnValue::Sub(
                    serde_json::to_string_pretty(&document).expect("a policy serialises"),
                ),
            }),
        );
        if identity == ControllerIdentity::Irsa {
            // The access stack's role attaches it once the cluster's OIDC provider exists.
            outputs.insert(
                logical_id.clone(),
                exported(
                    &format!("The controller's {} policy", policy.name),
                    CfnValue::Ref(logical_id.clone()),
                    &logical_id,
                ),
            );
        }
        attached.push(CfnValue::Ref(logical_id));
    }
    if identity == ControllerIdentity::PodIdentity {
        resources.insert(
            CONTROLLER_ROLE.to_owned(),
            controller_role_resource(identity, attached),
        );
        outputs.insert(
            "ControllerRoleArn".to_owned(),
            exported(
                "The role the Karpenter controller gets through EKS Pod Identity",
                CfnValue::GetAtt(CONTROLLER_ROLE.into(), "Arn"),
                "ControllerRoleArn",
            ),
        );
    }
    if let Some(queue) = queue {
        add_interruption_queue(&mut resources, queue);
    }
    outputs.insert(
        "NodeRoleArn".to_owned(),
        exported(
            "The role of the nodes Karpenter launches",
            CfnValue::GetAtt(NODE_ROLE.into(), "Arn"),
            "NodeRoleArn",
        ),
    );
    Some(Template {
        format_version: "2010-09-09".into(),
        description: format!(
            "What Karpenter needs on AWS for cluster {cluster}: its node role, its controller's policies{}{}",
            match identity {
                ControllerIdentity::PodIdentity => " and role (EKS Pod Identity)",
                ControllerIdentity::Irsa => {
                    " (its role, for IRSA, is made with the cluster's OIDC provider by the access stack)"
                }
            },
            if queue.is_some() {
                ", its interruption queue and the rules that feed it"
            } else {
                ""
            }
        ),
        parameters: BTreeMap::from([cluster_parameter(cluster)]),
        resources,
        outputs,
    })
}

fn add_interruption_queue(resources: &mut BTreeMap<String, Resource>, queue: &str) {
    let queue_arn = || CfnValue::GetAtt(QUEUE.into(), "Arn");
    resources.insert(
        QUEUE.to_owned(),
        Resource::Queue(Queue {
            queue_name: queue.to_owned(),
            message_retention_period: 300,
            sqs_managed_sse_enabled: true,
        }),
    );
    let arn = serde_json::json!({ "Fn::GetAtt": [QUEUE, "Arn"] });
    resources.insert(
        format!("{QUEUE}Policy"),
        Resource::QueuePolicy(QueuePolicy {
            queues: vec![CfnValue::Ref(QUEUE.into())],
            policy_document: PolicyDocument {
                version: None,
                id: Some("EC2InterruptionPolicy".into()),
                statement: vec![
                    Statement {
                        sid: None,
                        effect: "Allow".into(),
                        principal: Some(serde_json::json!({
                            "Service": ["events.amazonaws.com", "sqs.amazonaws.com"]
                        })),
                        action: "sqs:SendMessage".into(),
                        resource: Some(arn.clone()),
                        condition: None,
                    },
                    Statement {
                        sid: Some("DenyHTTP".into()),
                        effect: "Deny".into(),
                        principal: Some("*".into()),
                        action: "sqs:*".into(),
                        resource: Some(arn),
                        condition: Some(serde_json::json!({
                            "Bool": { "aws:SecureTransport": false }
                        })),
                    },
                ],
            },
        }),
    );
    for (rule, source, detail_type) in INTERRUPTION_EVENTS {
        resources.insert(
            (*rule).to_owned(),
            Resource::EventRule(EventRule {
                event_pattern: EventPattern {
                    source: vec![(*source).to_owned()],
                    detail_type: vec![(*detail_type).to_owned()],
                },
                targets: vec![Target {
                    id: "KarpenterInterruptionQueueTarget".into(),
                    arn: queue_arn(),
                }],
            }),
        );
    }
}

/// The stack that lets Karpenter's nodes join and its controller call AWS, once the
/// cluster exists; `None` without Karpenter.
pub fn cluster_access(spec: &Spec) -> Option<Template> {
    let karpenter = spec.karpenter.as_ref()?;
    let cluster = &spec.cluster.name;
    let imported =
        |export: &str| CfnValue::ImportValue(format!("{}-{export}", prerequisites_stack(cluster)));
    let mut resources = BTreeMap::from([(
        "NodeAccessEntry".to_owned(),
        Resource::AccessEntry(AccessEntry {
            cluster_name: cluster.clone(),
            principal_arn: imported("NodeRoleArn"),
            kind: "EC2_LINUX".into(),
        }),
    )]);
    let mut parameters = BTreeMap::new();
    let mut outputs = BTreeMap::new();
    let identity = karpenter.controller_identity;
    match identity {
        ControllerIdentity::PodIdentity => {
            resources.insert(
                "ControllerPodIdentity".to_owned(),
                Resource::PodIdentityAssociation(PodIdentityAssociation {
                    cluster_name: cluster.clone(),
                    namespace: NAMESPACE.into(),
                    service_account: SERVICE_ACCOUNT.into(),
                    role_arn: imported("ControllerRoleArn"),
                }),
            );
        }
        ControllerIdentity::Irsa => {
            let policies = controller_policies()
                .iter()
                .filter(|policy| {
                    policy.name != INTERRUPTION_POLICY || interruption_queue(karpenter).is_some()
                })
                .map(|policy| imported(&format!("{}Policy", policy.name)))
                .collect();
            resources.insert(
                CONTROLLER_ROLE.to_owned(),
                controller_role_resource(identity, policies),
            );
            parameters.extend([
                cluster_parameter(cluster),
                (
                    OIDC_ISSUER_PARAMETER.to_owned(),
                    Parameter {
                        kind: "String".into(),
                        description: "The cluster's OIDC issuer URL (aws eks describe-cluster: cluster.identity.oidc.issuer)".into(),
                        default: None,
                    },
                ),
            ]);
            outputs.insert(
                "ControllerRoleArn".to_owned(),
                exported(
                    "The role the Karpenter controller's service account is annotated with (IRSA)",
                    CfnValue::GetAtt(CONTROLLER_ROLE.into(), "Arn"),
                    "ControllerRoleArn",
                ),
            );
        }
    }
    Some(Template {
        format_version: "2010-09-09".into(),
        description: format!(
            "Access to cluster {cluster} for Karpenter: its nodes join (access entry), its controller gets its role ({})",
            match identity {
                ControllerIdentity::PodIdentity => "EKS Pod Identity",
                ControllerIdentity::Irsa => "IRSA, through the cluster's OIDC provider",
            }
        ),
        parameters,
        resources,
        outputs,
    })
}

/// The interruption queue the design names, if any.
pub fn interruption_queue(karpenter: &KarpenterSettings) -> Option<&str> {
    karpenter
        .interruption_queue
        .as_deref()
        .filter(|name| !name.trim().is_empty())
}

/// The value the node classes discover subnets and security groups by, which the cluster
/// is tagged with: the first class's subnet tag, else its security group tag.
pub fn discovery(karpenter: &KarpenterSettings) -> Option<String> {
    karpenter.node_classes.iter().find_map(|class| {
        let subnets = discovery_value(&class.spec.subnet_selector_terms);
        let groups = discovery_value(&class.spec.security_group_selector_terms);
        [subnets, groups]
            .into_iter()
            .find(|value| !value.is_empty())
    })
}

/// The tags eksctl puts on everything it creates (`metadata.tags`): the discovery tag, so
/// the node classes find eksctl's subnets and security groups.
pub fn cluster_tags(spec: &Spec) -> Option<BTreeMap<String, String>> {
    let value = discovery(spec.karpenter.as_ref()?)?;
    Some(BTreeMap::from([(DISCOVERY_TAG.to_owned(), value)]))
}

/// The subnets of an existing VPC that need the discovery tag, which eksctl does not add
/// to subnets it did not create: the private ones, or the public ones when there are none.
pub fn subnets_to_tag(spec: &Spec) -> Vec<String> {
    if spec.karpenter.is_none() {
        return Vec::new();
    }
    let Network::ExistingVpc {
        public_subnets,
        private_subnets,
        ..
    } = &spec.network
    else {
        return Vec::new();
    };
    let chosen = if private_subnets.is_empty() {
        public_subnets
    } else {
        private_subnets
    };
    chosen
        .iter()
        .filter(|subnet| !subnet.id.is_empty())
        .map(|subnet| subnet.id.clone())
        .collect()
}
