//! `eks-studio lint` and `eks-studio convert`: thin shells over `shared::lint` and the
//! importer. Exit codes follow docs/command-line.md: 0 no error findings, 1 any error finding, 2 a
//! file that cannot be read or parsed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;
use shared::lint::{self, LintFailure, LintFinding};
use shared::rules::Severity;

use crate::cli::read::{read_capped, terminal_safe};

/// How lint prints its findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Compiler-style diagnostics: `file:line:col: severity[rule]: message`.
    Human,
    /// One JSON object: `{"files":[{"path","findings":[…]}]}`.
    Json,
}

#[derive(Serialize)]
struct FileReport {
    path: String,
    findings: Vec<LintFinding>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<LintFailure>,
}

#[derive(Serialize)]
struct Report {
    files: Vec<FileReport>,
    /// Files a directory held that hold no eksctl or Karpenter document (a bundle's Helm
    /// values, CloudFormation templates, storage objects), left out of the design.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    skipped: Vec<String>,
}

/// Whether a YAML text found by walking a directory holds nothing `lint` reads: it parses,
/// and every document either has neither `apiVersion` nor `kind` (Helm values, a
/// CloudFormation template) or names an API group that is neither eksctl's nor Karpenter's
/// (a StorageClass, a PersistentVolume). A document that names one of those groups, or a
/// `kind` without an `apiVersion`, is linted, so a typo is still reported.
fn holds_no_design(text: &str) -> bool {
    // The same bounded reader as lint's: aliases cannot make a found file expand.
    let Ok(documents) = shared::yaml::source::parse_documents(text) else {
        return false;
    };
    let documents: Vec<shared::yaml::node::Node<'_>> = documents
        .iter()
        .map(shared::yaml::source::SourceDocument::node)
        .filter(|document| !document.is_null())
        .collect();
    !documents.is_empty()
        && documents.iter().all(|document| {
            let kind = document.get("kind");
            match document
                .get("apiVersion")
                .and_then(shared::yaml::node::Node::as_str)
            {
                None => kind.is_none() && document.get("apiVersion").is_none(),
                Some(api_version) => {
                    let group = api_version.split_once('/').map_or("", |(group, _)| group);
                    group != "eksctl.io" && !group.starts_with("karpenter.")
                }
            }
        })
}

/// The files to lint: each file given, and every `*.yaml`/`*.yml` under each directory
/// given (recursively, in name order, hidden entries skipped), each with whether it was
/// found in a directory.
fn expand(paths: &[PathBuf]) -> Vec<(PathBuf, bool)> {
    /// Regular files only (or links to them): a FIFO or device named `*.yaml` would block
    /// or never end.
    fn walk(directory: &Path, found: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(directory) else {
            // Unreadable: keep it, so the report says why.
            found.push(directory.to_path_buf());
            return;
        };
        let mut entries: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|entry| !entry.file_name().to_string_lossy().starts_with('.'))
            .map(|entry| entry.path())
            .collect();
        entries.sort();
        for entry in entries {
            if entry.is_dir() {
                walk(&entry, found);
            } else if entry.is_file()
                && entry
                    .extension()
                    .is_some_and(|extension| extension == "yaml" || extension == "yml")
            {
                found.push(entry);
            }
        }
    }
    let mut found = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut walked = Vec::new();
            walk(path, &mut walked);
            found.extend(walked.into_iter().map(|file| (file, true)));
        } else {
            found.push((path.clone(), false));
        }
    }
    found
}

/// Lints the files and directories given as one design and prints the findings.
pub fn lint(files: &[PathBuf], format: Format, max_bytes: u64) -> ExitCode {
    let found = expand(files);
    if found.is_empty() {
        eprintln!("error: no .yaml or .yml files in the directories given");
        return ExitCode::from(2);
    }
    let mut paths = Vec::new();
    let mut texts = Vec::new();
    let mut skipped = Vec::new();
    let mut unreadable: Vec<(usize, LintFailure)> = Vec::new();
    for (path, walked) in found {
        match read_capped(&path, max_bytes) {
            Ok(text) if walked && holds_no_design(&text) => {
                skipped.push(path.display().to_string());
            }
            Ok(text) => {
                texts.push((path.display().to_string(), text));
                paths.push(path);
            }
            Err(failure) => {
                unreadable.push((paths.len(), failure));
                paths.push(path);
            }
        }
    }
    if paths.is_empty() {
        eprintln!(
            "error: no eksctl or Karpenter documents in the directories given (skipped {})",
            skipped.join(", ")
        );
        return ExitCode::from(2);
    }
    let facts = crate::clock::todays_facts();
    // One file (the usual case) is linted without holding its text beside its design.
    let linted = match texts.pop() {
        Some((name, text)) if texts.is_empty() => {
            let outcome = lint::lint_only_file(&name, text, &facts);
            vec![lint::FileFindings { name, outcome }]
        }
        last => {
            texts.extend(last);
            lint::lint_files_with(&texts, &facts)
        }
    };
    let mut linted = linted.into_iter();
    let reports: Vec<FileReport> = paths
        .iter()
        .enumerate()
        .map(|(index, path)| {
            let shown = path.display().to_string();
            let failure = unreadable
                .iter()
                .find(|(failed, _)| *failed == index)
                .map(|(_, failure)| failure.clone());
            let outcome = match failure {
                Some(failure) => Err(failure),
                None => linted
                    .next()
                    .map(|file| file.outcome)
                    .unwrap_or_else(|| Ok(Vec::new())),
            };
            match outcome {
                Ok(findings) => FileReport {
                    path: shown,
                    findings,
                    error: None,
                },
                Err(failure) => FileReport {
                    path: shown,
                    findings: Vec::new(),
                    error: Some(failure),
                },
            }
        })
        .collect();
    match format {
        Format::Json => {
            let report = Report {
                files: reports,
                skipped,
            };
            println!(
                "{}",
                serde_json::to_string(&report).expect("a report serialises")
            );
            exit_code(&report.files)
        }
        Format::Human => {
            for report in &reports {
                let path = terminal_safe(&report.path);
                if let Some(failure) = &report.error {
                    println!(
                        "{path}:{}:{}: error: {}",
                        failure.line,
                        failure.column,
                        terminal_safe(&failure.message)
                    );
                }
                for finding in &report.findings {
                    println!(
                        "{path}:{}:{}: {}[{}]: {}",
                        finding.line,
                        finding.column,
                        finding.severity,
                        finding.rule,
                        terminal_safe(&finding.message)
                    );
                    println!("  = help: {}", terminal_safe(&finding.help));
                    if finding.severity == Severity::Error
                        && let Some(rule) = shared::rules::rule(&finding.rule)
                        && rule.stage != shared::rules::Stage::Advice
                    {
                        println!("  = fails at: {}", rule.stage.describe());
                    }
                }
            }
            let count = |severity: Severity| {
                reports
                    .iter()
                    .flat_map(|report| &report.findings)
                    .filter(|finding| finding.severity == severity)
                    .count()
            };
            let unreadable = reports
                .iter()
                .filter(|report| report.error.is_some())
                .count();
            if !skipped.is_empty() {
                let (count, verb) = if skipped.len() == 1 {
                    ("1 file".to_owned(), "holds")
                } else {
                    (format!("{} files", skipped.len()), "hold")
                };
                eprintln!(
                    "note: skipped {count} that {verb} no eksctl or Karpenter document: {}",
                    skipped
                        .iter()
                        .map(|path| terminal_safe(path))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            eprintln!(
                "{} file(s): {} error(s), {} warning(s), {} note(s){}",
                reports.len(),
                count(Severity::Error),
                count(Severity::Warning),
                count(Severity::Info),
                if unreadable > 0 {
                    format!(", {unreadable} could not be read")
                } else {
                    String::new()
                }
            );
            exit_code(&reports)
        }
    }
}

fn exit_code(reports: &[FileReport]) -> ExitCode {
    if reports.iter().any(|report| report.error.is_some()) {
        ExitCode::from(2)
    } else if reports
        .iter()
        .flat_map(|report| &report.findings)
        .any(|finding| finding.severity == Severity::Error)
    {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Reads and imports one YAML file; on failure every problem is printed at its line and
/// column (as `shown`) and the exit code is 2.
fn import_file(path: &Path, shown: &str, max_bytes: u64) -> Result<lint::ParsedFile, ExitCode> {
    read_capped(path, max_bytes)
        .map_err(|failure| vec![failure])
        .and_then(|text| lint::import_yaml(&text))
        .map_err(|failures| {
            for failure in failures {
                eprintln!(
                    "{shown}:{}:{}: error: {}",
                    failure.line,
                    failure.column,
                    terminal_safe(&failure.message)
                );
            }
            ExitCode::from(2)
        })
}

/// Imports each file and renders it again into `out`: eksctl input to `cluster.yaml`,
/// Karpenter input to `karpenter/nodepools.yaml`, EKS Auto Mode's NodePools and NodeClasses
/// to `auto-mode/nodepools.yaml`.
pub fn convert(files: &[PathBuf], out: &Path, max_bytes: u64) -> ExitCode {
    let mut cluster: Option<(String, String)> = None;
    // Karpenter documents are written back in the order they were read, and so are Auto
    // Mode's.
    let mut karpenter_documents: Vec<yaml_serde::Value> = Vec::new();
    let mut auto_mode_documents: Vec<yaml_serde::Value> = Vec::new();
    for path in files {
        let shown = terminal_safe(&path.display().to_string()).into_owned();
        let file = match import_file(path, &shown, max_bytes) {
            Ok(file) => file,
            Err(code) => return code,
        };
        if file.cluster_document.is_some() {
            if let Some((first, _)) = &cluster {
                eprintln!("{shown}: error: a second ClusterConfig (the first came from {first})");
                return ExitCode::from(2);
            }
            let yaml = match shared::render_cluster_yaml(&file.spec) {
                Ok(yaml) => yaml,
                Err(error) => {
                    eprintln!("{shown}: error: {error}");
                    return ExitCode::from(2);
                }
            };
            cluster = Some((shown.clone(), yaml));
        }
        // Each rendered document goes where its source was read (document order).
        let in_order =
            |rendered: Result<Vec<yaml_serde::Value>, shared::documents::render::RenderError>,
             indices: Vec<usize>,
             into: &mut Vec<yaml_serde::Value>| {
                let rendered: Vec<yaml_serde::Value> = match rendered {
                    Ok(rendered) => rendered,
                    Err(error) => {
                        eprintln!("{shown}: error: {error}");
                        return false;
                    }
                };
                let mut ordered: Vec<(usize, yaml_serde::Value)> =
                    indices.into_iter().zip(rendered).collect();
                ordered.sort_by_key(|(index, _)| *index);
                into.extend(ordered.into_iter().map(|(_, document)| document));
                true
            };
        if let Some(settings) = &file.spec.karpenter {
            let indices = file
                .node_pool_documents
                .iter()
                .chain(&file.node_class_documents)
                .chain(&file.node_overlay_documents)
                .copied()
                .collect();
            let rendered = shared::documents::render::karpenter_documents(settings);
            if !in_order(rendered, indices, &mut karpenter_documents) {
                return ExitCode::from(2);
            }
        }
        if !file.spec.auto_mode_pools.is_empty() {
            let indices = file
                .auto_mode_pool_documents
                .iter()
                .chain(&file.auto_mode_class_documents)
                .copied()
                .collect();
            let rendered = shared::documents::auto_mode::documents(&file.spec.auto_mode_pools);
            if !in_order(rendered, indices, &mut auto_mode_documents) {
                return ExitCode::from(2);
            }
        }
    }
    let mut outputs = Vec::new();
    if let Some((_, yaml)) = cluster {
        outputs.push((out.join("cluster.yaml"), yaml));
    }
    for (documents, path) in [
        (
            &karpenter_documents,
            shared::documents::render::NODEPOOLS_PATH,
        ),
        (&auto_mode_documents, shared::documents::auto_mode::PATH),
    ] {
        if documents.is_empty() {
            continue;
        }
        let texts: Result<Vec<String>, _> = documents
            .iter()
            .map(shared::yaml::text::to_string)
            .collect();
        match texts {
            Ok(texts) => outputs.push((out.join(path), texts.join("---\n"))),
            Err(error) => {
                eprintln!("error: {error}");
                return ExitCode::from(2);
            }
        }
    }
    for (path, contents) in outputs {
        if let Err(error) = crate::cli::files::write_file(&path, &contents, false) {
            eprintln!("error: cannot write {}: {error}", path.display());
            return ExitCode::from(2);
        }
        println!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}

/// `eks-studio resolve`: each NodePool of the files, the template or the spec, with the
/// instance types it can launch. Exit 0, or 2 when an input cannot be read.
pub fn resolve(
    files: &[PathBuf],
    template: Option<&str>,
    spec: Option<&Path>,
    format: Format,
    max_bytes: u64,
) -> ExitCode {
    let mut design = shared::Spec::default();
    if files.is_empty() {
        match crate::cli::read::design(template, spec, max_bytes) {
            Ok(spec) => design = spec,
            Err(code) => return code,
        }
    } else {
        let settings = design.karpenter.get_or_insert_with(Default::default);
        for path in files {
            let shown = terminal_safe(&path.display().to_string()).into_owned();
            match import_file(path, &shown, max_bytes) {
                Ok(file) => {
                    if let Some(karpenter) = file.spec.karpenter {
                        settings.node_pools.extend(karpenter.node_pools);
                        settings.node_classes.extend(karpenter.node_classes);
                    }
                }
                Err(code) => return code,
            }
        }
    }
    let pools = shared::model::resolve::resolve(&design);
    match format {
        Format::Json => {
            let json = serde_json::json!({ "node_pools": pools });
            println!("{json}");
        }
        Format::Human => {
            if pools.is_empty() {
                println!("no NodePools");
            }
            for pool in &pools {
                println!(
                    "NodePool {} ({}): {} instance type(s)",
                    terminal_safe(&pool.name),
                    pool.path,
                    pool.count
                );
                for instance in &pool.instance_types {
                    let price = instance
                        .on_demand
                        .map(|price| {
                            let place = if price.region == design.cluster.region.trim() {
                                String::new()
                            } else {
                                format!(" in {}", price.region)
                            };
                            format!("{}{place}", shared::catalog::prices::per_hour(&price))
                        })
                        .unwrap_or_else(|| "price unknown".to_owned());
                    let (vcpus, memory_gib) = shared::model::resolve::sizes(instance);
                    println!(
                        "  {:18} {:>4} vCPU {:>5} GiB  {:22} EFA {:>2}  {}{}",
                        instance.name,
                        vcpus,
                        memory_gib,
                        shared::model::resolve::accelerators(instance),
                        instance.efa_interfaces,
                        price,
                        if instance.capacity_block_eligible {
                            "  Capacity Blocks"
                        } else {
                            ""
                        }
                    );
                }
            }
        }
    }
    ExitCode::SUCCESS
}
