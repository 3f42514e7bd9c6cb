//! A bundle is what download and deploy share: the rendered files, the spec, scripts
//! that run each step and stop at the first failure, and a README that says what is
//! still open. It is built in memory; the server builds it for the page (`POST
//! /api/bundle`), which then carries neither the zip writer nor the files only the
//! bundle holds.

use std::io::Write;

use crate::documents::render::{self, KARPENTER_VALUES_PATH, NODEPOOLS_PATH, RenderError};
use crate::model::spec::Spec;
use crate::rules::{Finding, Severity};
use crate::{deploy::sequence, documents::device_plugins, documents::karpenter_aws};

/// One file of a bundle.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BundleFile {
    /// Path inside the bundle, `/`-separated.
    pub path: String,
    /// File contents.
    pub contents: String,
    /// Whether the file is a script to run.
    #[serde(default)]
    pub executable: bool,
}

/// The outcome of one live check, as the bundle README lists it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CheckLine {
    /// Check id.
    pub id: String,
    /// How it went.
    pub status: crate::model::live_checks::CheckStatus,
    /// What it found.
    pub message: String,
}

fn file(path: &str, contents: String, executable: bool) -> BundleFile {
    BundleFile {
        path: path.into(),
        contents,
        executable,
    }
}

/// Every file of the bundle for `spec`, with the findings still open and the live
/// checks that ran listed in its README.
pub fn bundle_files(
    spec: &Spec,
    findings: &[Finding],
    checks: &[CheckLine],
) -> Result<Vec<BundleFile>, RenderError> {
    let mut files = vec![file(
        "cluster.yaml",
        render::render_cluster_yaml(spec)?,
        false,
    )];
    if let Some(volumes) = crate::documents::storage::render(spec)? {
        files.push(file(
            crate::documents::storage::STORAGE_PATH,
            volumes,
            false,
        ));
    }
    if let Some(pools) = crate::documents::auto_mode::render(spec)? {
        files.push(file(crate::documents::auto_mode::PATH, pools, false));
    }
    let nodepools = render::render_karpenter_yaml(spec)?;
    let values = render::render_karpenter_values(spec)?;
    if let (Some(nodepools), Some(values)) = (nodepools, values) {
        files.push(file(NODEPOOLS_PATH, nodepools, false));
        files.push(file(KARPENTER_VALUES_PATH, values, false));
    }
    let templates = [
        (
            karpenter_aws::PREREQUISITES_PATH,
            karpenter_aws::prerequisites(spec),
        ),
        (
            karpenter_aws::CLUSTER_ACCESS_PATH,
            karpenter_aws::cluster_access(spec),
        ),
    ];
    for (path, template) in templates {
        if let Some(template) = template {
            files.push(file(path, crate::yaml::text::to_string(&template)?, false));
        }
    }
    if let Some(karpenter) = &spec.karpenter {
        for (plugin, pools) in device_plugins::needed(karpenter) {
            let values = device_plugins::values(plugin, &pools);
            files.push(file(
                plugin.chart().values_path,
                crate::yaml::text::to_string(&values)?,
                false,
            ));
        }
    }
    files.push(file("studio.json", spec.to_json() + "\n", false));
    files.push(file("deploy.sh", deploy_script(spec, findings), true));
    files.push(file("teardown.sh", teardown_script(spec), true));
    let readme = readme(spec, findings, checks, &files);
    files.push(file("README.md", readme, false));
    Ok(files)
}

/// The flag that makes `deploy.sh` start although the design has open errors.
pub const DESPITE_OPEN_ERRORS: &str = "--despite-open-errors";

fn deploy_script(spec: &Spec, findings: &[Finding]) -> String {
    let script = sequence::script(
        "Creates the cluster designed in EKS Training Studio.",
        &sequence::deploy_steps(spec),
    );
    let errors: Vec<&Finding> = findings
        .iter()
        .filter(|finding| finding.severity == Severity::Error)
        .collect();
    if errors.is_empty() {
        return script;
    }
    // The design's open errors, listed, and the script stops before its first step
    // unless told to go on: a peer would refuse what they name, part way through.
    let noun = if errors.len() == 1 { "error" } else { "errors" };
    let mut guard = format!(
        "\nif [ \"${{1:-}}\" != {flag} ]; then\n  echo {said} >&2\n",
        flag = DESPITE_OPEN_ERRORS,
        said = sequence::shell_quote(&format!(
            "deploy.sh: the design has {} open {noun} (README.md lists them with how to fix each):",
            errors.len()
        ))
    );
    for finding in errors {
        let line = format!(
            "  {} at {}: {}",
            finding.rule,
            readme_line(&finding.path),
            readme_line(&finding.message)
        );
        guard.push_str(&format!("  echo {} >&2\n", sequence::shell_quote(&line)));
    }
    guard.push_str(&format!(
        "  echo {} >&2\n  exit 3\nfi\n",
        sequence::shell_quote(&format!(
            "fix them in the studio and download the bundle again, or run ./deploy.sh {DESPITE_OPEN_ERRORS} to start anyway"
        ))
    ));
    // After `set -euo pipefail` and the `cd`, before the first step.
    match script.find("\nstep() {") {
        Some(at) => {
            let end = script[at + 1..]
                .find('\n')
                .map_or(script.len(), |line| at + 1 + line + 1);
            format!("{}{}{}", &script[..end], guard, &script[end..])
        }
        None => format!("{script}{guard}"),
    }
}

fn teardown_script(spec: &Spec) -> String {
    sequence::script(
        "Deletes the cluster and everything the deploy created for it, in reverse order.",
        &sequence::teardown_steps(spec),
    )
}

/// Whether `char` would change how the README reads rather than stand in it: control
/// characters (an escape sequence, NUL, a line break that would start a heading of its
/// own), line separators and bidirectional overrides.
fn changes_the_text(char: char) -> bool {
    char.is_control()
        || matches!(char, '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Prose for the README, such characters written as escapes (backticks kept: they mark
/// code).
fn readme_line(text: &str) -> String {
    text.chars()
        .map(|char| {
            if changes_the_text(char) {
                char.escape_unicode().to_string()
            } else {
                char.to_string()
            }
        })
        .collect()
}

/// A value inside a code span of the README: as [`readme_line`], and a backtick, which
/// would end the span, escaped.
fn readme_text(text: &str) -> String {
    readme_line(text).replace('`', "\\`")
}

/// Where a finding is, as the page says it (`Node group `gpu` › Instance type`); a path
/// inside a file (a document rule's) stays a path.
fn place_of(spec: &Spec, path: &str) -> String {
    let place = crate::model::places::place(spec, path);
    if place.is_empty() {
        format!("`{}`", path.replace('`', "\\`"))
    } else {
        place
    }
}

/// What a bundled file is for, in a line.
fn what_it_is(path: &str) -> &'static str {
    use crate::documents::{auto_mode, storage};
    match path {
        "cluster.yaml" => "the eksctl ClusterConfig: the cluster, its network, node groups, add-ons and access",
        "studio.json" => "the design; open it in the studio to keep editing",
        "deploy.sh" => "creates the cluster: eksctl, then the steps the design needs after it",
        "teardown.sh" => "deletes the cluster and what the deploy made for it",
        NODEPOOLS_PATH => "Karpenter's NodePools and EC2NodeClasses, applied once Karpenter runs",
        KARPENTER_VALUES_PATH => "the Helm values of the Karpenter controller",
        karpenter_aws::PREREQUISITES_PATH => {
            "CloudFormation for what Karpenter needs before the cluster: its node role, controller policy and interruption queue"
        }
        karpenter_aws::CLUSTER_ACCESS_PATH => {
            "CloudFormation for what Karpenter needs once the cluster exists: the node role's access entry and the controller's identity"
        }
        storage::STORAGE_PATH => {
            "the volumes for datasets and checkpoints (FSx for Lustre StorageClass and claim, S3 volume and claim); in a new VPC, a `FILLED_AT_DEPLOY_…` value is the subnet or security group the deploy reads once eksctl made them; teardown deletes the claims first, so FSx deletes the file system it made"
        }
        auto_mode::PATH => "EKS Auto Mode's NodePools and NodeClasses, applied once the cluster is up",
        _ => device_plugins::Plugin::ALL
            .into_iter()
            .find(|plugin| plugin.chart().values_path == path)
            .map_or("a file the deploy uses", |_| {
                "the Helm values of a device plugin, scheduled only where a NodePool can launch its hardware"
            }),
    }
}

fn readme(spec: &Spec, findings: &[Finding], checks: &[CheckLine], files: &[BundleFile]) -> String {
    let mut text = format!(
        "# {name}\n\nEKS cluster `{name}` in `{region}` (Kubernetes {version}), designed in EKS Training Studio.\n\n",
        name = readme_text(&spec.cluster.name),
        region = readme_text(&spec.cluster.region),
        version = readme_text(&spec.cluster.kubernetes_version)
    );
    text.push_str("## Files\n\n");
    for bundled in files {
        text.push_str(&format!(
            "- `{}` — {}\n",
            bundled.path,
            what_it_is(&bundled.path)
        ));
    }
    text.push_str("- `README.md` — this file\n\n");
    text.push_str("## Before you run it\n\n");
    let mut tools: Vec<sequence::Tool> = sequence::deploy_steps(spec)
        .iter()
        .map(|step| step.tool)
        .collect();
    tools.sort_by_key(|tool| tool.command());
    tools.dedup();
    text.push_str(&format!(
        "- On your `PATH`: {}.\n- AWS credentials for the account the cluster goes in, allowed to create what these files describe (an EKS cluster, its VPC, node groups and IAM roles through CloudFormation).\n- The region is the design's: `{}`.\n\n",
        tools
            .iter()
            .map(|tool| format!("`{}`", tool.command()))
            .collect::<Vec<_>>()
            .join(", "),
        readme_text(&spec.cluster.region)
    ));
    text.push_str("## Run it\n\n`./deploy.sh` runs each step in order and stops at the first that fails (the studio's one-click deploy runs the same steps); `./teardown.sh` deletes what it made, in reverse order.\n\n");
    if crate::rules::has_errors(findings) {
        text.push_str(&format!(
            "`deploy.sh` does not start while the design has the errors below: a peer would refuse what they name part way through the deploy. Fix them in the studio and download the bundle again, or run `./deploy.sh {DESPITE_OPEN_ERRORS}` to start anyway.\n\n"
        ));
    }
    // Capacity Blocks: what to run, and when (a block that has not started, an upgrade due
    // before one, a block that ends before the run is done).
    let timed: Vec<&Finding> = findings
        .iter()
        .filter(|finding| {
            matches!(
                &*finding.rule,
                "capacity-block-not-started"
                    | "capacity-block-crosses-support-end"
                    | "capacity-block-ends-before-needed"
            )
        })
        .collect();
    if !timed.is_empty() {
        text.push_str("## When to run what\n\n");
        for finding in timed {
            text.push_str(&format!(
                "- {}: {}\n",
                readme_line(&place_of(spec, &finding.path)),
                readme_line(&finding.message)
            ));
        }
        text.push('\n');
    }
    text.push_str("## Findings still open\n\n");
    if findings.is_empty() {
        text.push_str("None.\n");
    }
    for severity in [Severity::Error, Severity::Warning, Severity::Info] {
        for finding in findings
            .iter()
            .filter(|finding| finding.severity == severity)
        {
            text.push_str(&format!(
                "- **{}** `{}` at {}: {} — {}\n",
                finding.severity,
                finding.rule,
                readme_line(&place_of(spec, &finding.path)),
                readme_line(&finding.message),
                readme_line(&finding.help)
            ));
        }
    }
    text.push_str("\n## Live AWS checks\n\n");
    if checks.is_empty() {
        text.push_str("No live checks ran for this bundle.\n");
    }
    for check in checks {
        text.push_str(&format!(
            "- `{}`: {} — {}\n",
            readme_text(&check.id),
            check.status,
            readme_line(&check.message)
        ));
    }
    text
}

/// How bundle files are zipped: deflated where deflate is built in (the `deflate`
/// feature: server and CLI), stored in the page, which leaves deflate's code out to load
/// less (a bundle is a few dozen KB of text).
#[cfg(feature = "deflate")]
const BUNDLE_COMPRESSION: zip::CompressionMethod = zip::CompressionMethod::Deflated;
#[cfg(not(feature = "deflate"))]
const BUNDLE_COMPRESSION: zip::CompressionMethod = zip::CompressionMethod::Stored;

/// Longest bundle file name, without `.zip`.
const MAX_FILE_NAME: usize = 100;

/// The bundle's download name, from the cluster name: letters, digits, `-`, `_` and `.`
/// kept, anything else `-`, at most 100 characters and no leading dot, then `.zip`;
/// `eks-cluster.zip` when nothing is left. The page and the server name it alike.
pub fn file_name(cluster_name: &str) -> String {
    let cleaned: String = cluster_name
        .trim()
        .chars()
        .map(|character| {
            if character.is_ascii_alphanumeric() || matches!(character, '-' | '_' | '.') {
                character
            } else {
                '-'
            }
        })
        .take(MAX_FILE_NAME)
        .collect();
    let cleaned = cleaned.trim_start_matches('.');
    if cleaned.is_empty() {
        "eks-cluster.zip".to_owned()
    } else {
        format!("{cleaned}.zip")
    }
}

/// Zips the files in memory (scripts marked executable).
pub fn zip_bundle(files: &[BundleFile]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for bundle_file in files {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(BUNDLE_COMPRESSION)
            .unix_permissions(if bundle_file.executable { 0o755 } else { 0o644 });
        writer
            .start_file(bundle_file.path.as_str(), options)
            .expect("writing to memory cannot fail");
        writer
            .write_all(bundle_file.contents.as_bytes())
            .expect("writing to memory cannot fail");
    }
    writer
        .finish()
        .expect("writing to memory cannot fail")
        .into_inner()
}
