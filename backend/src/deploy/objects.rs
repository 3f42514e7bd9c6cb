//! The objects inside a running cluster, read with the server's own tools: a kubeconfig
//! for that cluster, written as `aws eks update-kubeconfig` writes one (from the read's
//! own DescribeCluster, without starting the AWS CLI for it) into a private directory
//! made for this read (never the user's `~/.kube/config`, removed afterwards), then one
//! `kubectl get RESOURCE -o json` per kind of object, `helm get values karpenter` for
//! the chart's settings and `helm list` for its version. kubectl and helm get their token
//! from `aws eks get-token`, as with AWS's own kubeconfig. The tools get the same
//! environment as a deploy's steps: none of the server's own secrets.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use shared::changes::objects::{RESOURCES, items_of};
use shared::changes::read::Reading;
use shared::changes::workloads::Workloads;
use shared::model::ids::Region;
use shared::upstream::eks::NotRead;
use tokio::process::Command;
use yaml_serde::Value;

use super::Tools;
use super::runner::tool_environment;
use crate::aws::running::ApiAccess;
use crate::aws::{AwsError, LiveAws};

/// How long one tool may take before the read gives up on it.
const TOOL_TIMEOUT: Duration = Duration::from_secs(60);

/// What kubectl says when a kind's CRD is not installed: there are none of that kind.
const NO_SUCH_RESOURCE: &str = "the server doesn't have a resource type";

/// A directory of this process's own, 0700, removed when dropped.
pub struct PrivateDir(PathBuf);

impl PrivateDir {
    /// A new one under the temporary folder, with a random name.
    pub fn new() -> Result<PrivateDir, String> {
        use std::os::unix::fs::DirBuilderExt;
        let mut suffix = [0u8; 8];
        getrandom::fill(&mut suffix).map_err(|error| error.to_string())?;
        let name: String = suffix.iter().map(|byte| format!("{byte:02x}")).collect();
        let path =
            std::env::temp_dir().join(format!("eks-studio-read-{}-{name}", std::process::id()));
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .map_err(|error| format!("cannot make {}: {error}", path.display()))?;
        Ok(PrivateDir(path))
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs a tool to its end (or [`TOOL_TIMEOUT`]): its standard output, or what it said
/// on standard error when it failed.
pub(crate) async fn run(
    program: &Path,
    args: &[&str],
    kubeconfig: &Path,
) -> Result<Vec<u8>, String> {
    run_with(program, args, kubeconfig, None).await
}

/// [`run`], its standard output written into the file `into` when given (and then
/// answered empty), so an answer of any size is never held whole.
async fn run_with(
    program: &Path,
    args: &[&str],
    kubeconfig: &Path,
    into: Option<&Path>,
) -> Result<Vec<u8>, String> {
    let shown = program.display().to_string();
    let mut command = Command::new(program);
    // `output()` would pipe standard output whatever was set: spawn, then wait.
    match into {
        Some(into) => {
            let file = std::fs::File::create(into)
                .map_err(|error| format!("cannot write {}: {error}", into.display()))?;
            command.stdout(file);
        }
        None => {
            command.stdout(Stdio::piped());
        }
    }
    command.stderr(Stdio::piped());
    command
        .args(args)
        .env_clear()
        .envs(tool_environment(std::env::vars_os()))
        .env("KUBECONFIG", kubeconfig)
        // In the read's own directory: whatever a tool leaves there goes with it.
        .current_dir(kubeconfig.parent().unwrap_or(Path::new("/")))
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let child = command
        .spawn()
        .map_err(|error| format!("`{shown}` could not be started: {error}"))?;
    let output = tokio::time::timeout(TOOL_TIMEOUT, child.wait_with_output())
        .await
        .map_err(|_| format!("`{shown}` did not finish in {} s", TOOL_TIMEOUT.as_secs()))?
        .map_err(|error| format!("`{shown}` could not be read: {error}"))?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        let said = String::from_utf8_lossy(&output.stderr);
        Err(format!(
            "`{shown} {}` failed ({}): {}",
            args.join(" "),
            output.status,
            said.trim()
        ))
    }
}

/// What a read finds inside the cluster.
#[derive(Debug)]
pub struct ClusterObjects {
    /// Karpenter's objects as applied.
    pub objects: Vec<Value>,
    /// The kinds that could not be read, with why.
    pub gaps: Vec<NotRead>,
    /// The chart's user-supplied values, when its release is there.
    pub values: Option<serde_json::Value>,
    /// The chart and its version as `helm list` names them (`karpenter-1.14.1`).
    pub chart: Option<String>,
    /// The nodes, the pods a drain would move and the PodDisruptionBudgets, or why they
    /// could not be read.
    pub workloads: Result<Workloads, String>,
}

/// What a read of the workloads asks kubectl for, in one `get`: the nodes, and the pods
/// and PodDisruptionBudgets of every namespace.
const WORKLOAD_RESOURCES: &str = "nodes,pods,poddisruptionbudgets";

/// The workloads on the cluster's nodes, from kubectl's answer in the file `answer`
/// (read as it arrives, off the async workers, keeping only what a plan uses).
async fn workloads_of(answer: Result<Vec<u8>, String>, file: PathBuf) -> Result<Workloads, String> {
    answer?;
    tokio::task::spawn_blocking(move || {
        let opened = std::fs::File::open(&file)
            .map_err(|error| format!("cannot read kubectl's answer: {error}"))?;
        let read = Workloads::from_kubectl_reader(std::io::BufReader::new(opened));
        let _ = std::fs::remove_file(&file);
        read
    })
    .await
    .map_err(|error| error.to_string())?
}

/// Writes the kubeconfig `aws eks update-kubeconfig --name CLUSTER --region REGION`
/// writes for `access` (one cluster, context and user, all named by the cluster's ARN;
/// the user's token from `aws --region REGION eks get-token --cluster-name CLUSTER
/// --output json`, with `aws` the server's own), readable by its owner only.
fn write_kubeconfig(
    path: &Path,
    aws: &Path,
    region: &str,
    cluster: &str,
    access: &ApiAccess,
) -> Result<(), String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let arn = access.arn.as_str();
    let config = serde_json::json!({
        "apiVersion": "v1",
        "kind": "Config",
        "preferences": {},
        "clusters": [{
            "name": arn,
            "cluster": {
                "server": access.endpoint,
                "certificate-authority-data": access.certificate_authority,
            },
        }],
        "contexts": [{"name": arn, "context": {"cluster": arn, "user": arn}}],
        "current-context": arn,
        "users": [{
            "name": arn,
            "user": {"exec": {
                "apiVersion": "client.authentication.k8s.io/v1beta1",
                "command": aws.display().to_string(),
                "args": ["--region", region, "eks", "get-token", "--cluster-name", cluster, "--output", "json"],
                "interactiveMode": "IfAvailable",
                "provideClusterInfo": false,
            }},
        }],
    });
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    file.write_all(config.to_string().as_bytes())
        .map_err(|error| format!("cannot write {}: {error}", path.display()))
}

/// A kubeconfig of its own for cluster `cluster` (as [`write_kubeconfig`] writes one,
/// from EKS's DescribeCluster), in a private folder that goes with it.
pub async fn private_kubeconfig(
    aws: &LiveAws,
    tools: &Tools,
    region: &Region,
    cluster: &str,
) -> Result<(PrivateDir, PathBuf), String> {
    let access = aws
        .api_access(region, cluster)
        .await
        .map_err(|error| format!("no kubeconfig for the cluster: {error}"))?;
    let directory = PrivateDir::new()?;
    let kubeconfig = directory.0.join("kubeconfig");
    write_kubeconfig(&kubeconfig, &tools.aws, region.as_str(), cluster, &access)?;
    Ok((directory, kubeconfig))
}

/// The cluster's Karpenter objects and chart values, through the API server `access`
/// names. `Err` when nothing could be read (no `kubectl`, no kubeconfig for the cluster).
pub async fn read_objects(
    tools: &Tools,
    region: &str,
    cluster: &str,
    access: &ApiAccess,
) -> Result<ClusterObjects, String> {
    // EKS's pattern for a cluster's name (CreateCluster): nothing a tool could take for
    // one of its options.
    let allowed = cluster.len() <= 100
        && cluster
            .chars()
            .next()
            .is_some_and(|first| first.is_ascii_alphanumeric())
        && cluster
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || matches!(character, '-' | '_'));
    if !allowed {
        return Err(format!(
            "`{cluster}` is not a name EKS gives a cluster, so its objects were not asked for"
        ));
    }
    let directory = PrivateDir::new()?;
    let kubeconfig = directory.0.join("kubeconfig");
    let kubeconfig_text = kubeconfig.to_string_lossy().into_owned();
    write_kubeconfig(&kubeconfig, &tools.aws, region, cluster, access)?;
    let (release, namespace) = shared::changes::objects::KARPENTER_RELEASE;
    let helm_args = [
        "get",
        "values",
        release,
        "--namespace",
        namespace,
        "--output",
        "json",
        "--kubeconfig",
        &kubeconfig_text,
    ];
    let values = run(&tools.helm, &helm_args, &kubeconfig);
    let filter = format!("^{release}$");
    let list_args = [
        "list",
        "--namespace",
        namespace,
        "--filter",
        &filter,
        "--output",
        "json",
        "--kubeconfig",
        &kubeconfig_text,
    ];
    let listed = run(&tools.helm, &list_args, &kubeconfig);
    let answers = futures_util::future::join_all(RESOURCES.iter().map(|(resource, what)| {
        let kubeconfig = &kubeconfig;
        let kubeconfig_text = &kubeconfig_text;
        async move {
            let answer = run(
                &tools.kubectl,
                &[
                    "get",
                    resource,
                    "--output",
                    "json",
                    "--kubeconfig",
                    kubeconfig_text,
                ],
                kubeconfig,
            )
            .await;
            (*what, answer)
        }
    }));
    let workload_args = [
        "get",
        WORKLOAD_RESOURCES,
        "--all-namespaces",
        "--output",
        "json",
        "--kubeconfig",
        &kubeconfig_text,
    ];
    let workloads_file = directory.0.join("workloads.json");
    let workloads = async {
        let answer = run_with(
            &tools.kubectl,
            &workload_args,
            &kubeconfig,
            Some(&workloads_file),
        )
        .await;
        workloads_of(answer, workloads_file.clone()).await
    };
    let (answers, values, listed, workloads) = tokio::join!(answers, values, listed, workloads);
    let chart = listed
        .ok()
        .and_then(|stdout| serde_json::from_slice::<serde_json::Value>(&stdout).ok())
        .and_then(|list| {
            list.as_array()?
                .iter()
                .find(|item| item["name"] == release)?
                .get("chart")?
                .as_str()
                .map(str::to_owned)
        });
    // No release (Karpenter installed another way, or not at all) is no gap: the
    // objects' reading says what it can.
    let values = values
        .ok()
        .and_then(|stdout| serde_json::from_slice::<serde_json::Value>(&stdout).ok())
        .filter(serde_json::Value::is_object);
    let mut objects = Vec::new();
    let mut gaps = Vec::new();
    for (what, answer) in answers {
        let read = answer.and_then(|stdout| {
            let json: serde_json::Value = serde_json::from_slice(&stdout)
                .map_err(|error| format!("kubectl's answer is not JSON: {error}"))?;
            items_of(&json)
        });
        match read {
            Ok(items) => objects.extend(items),
            Err(why) if why.contains(NO_SUCH_RESOURCE) => {}
            Err(why) => gaps.push(NotRead {
                what: what.to_owned(),
                why,
            }),
        }
    }
    Ok(ClusterObjects {
        objects,
        gaps,
        values,
        chart,
        workloads,
    })
}

/// The running cluster `name` as a design: what EKS and EC2 describe, and the objects
/// inside it, read at the same time. Only the cluster itself must be readable; every
/// other gap is named in the reading. The managed node groups `expected_groups` names
/// are described without waiting for EKS's list of them.
pub async fn read_running(
    aws: &LiveAws,
    tools: &Tools,
    region: &Region,
    name: &str,
    expected_groups: &[String],
) -> Result<Reading, AwsError> {
    // The objects' read needs the API server's endpoint: its own DescribeCluster, beside
    // the design's (one call sooner than waiting for the whole design).
    let objects = async {
        let access = aws
            .api_access(region, name)
            .await
            .map_err(|error| format!("no kubeconfig for the cluster: {error}"))?;
        read_objects(tools, region.as_str(), name, &access).await
    };
    let (reading, objects) = tokio::join!(aws.read_design(region, name, expected_groups), objects);
    let mut reading = reading?;
    match objects {
        Ok(found) => {
            shared::changes::objects::read_into(
                &mut reading,
                &found.objects,
                found.gaps,
                found.values.as_ref(),
                found.chart.as_deref(),
            );
            match found.workloads {
                Ok(workloads) => reading.with_workloads(workloads),
                Err(why) => reading.not_read.push(NotRead {
                    what: shared::changes::workloads::WHAT.to_owned(),
                    why,
                }),
            }
        }
        Err(why) => {
            shared::changes::objects::not_at_hand(&mut reading, &why);
            reading.not_read.push(NotRead {
                what: shared::changes::workloads::WHAT.to_owned(),
                why,
            });
        }
    }
    Ok(reading)
}
