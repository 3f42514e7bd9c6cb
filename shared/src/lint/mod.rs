//! Linting a file: every finding the rules have about it, placed at its line and column.
//!
//! A file is an eksctl `ClusterConfig`, Karpenter `NodePool`/`EC2NodeClass` documents, both
//! (multi-document YAML), or a spec (`studio.json`). YAML documents get the document rules
//! (schemas, eksctl structure) as written, then are imported into a spec for the spec
//! rules, whose findings are mapped back to paths inside the file.

/// The files the page edits as text: read back into the design, findings on their lines.
pub mod editable;
/// The placeholders a design still holds, as one checklist; filling one fills every use.
pub mod placeholders;

use std::borrow::Cow;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use yaml_serde::Value;

use crate::documents::import::{self, DocumentKind};
use crate::model::spec::Spec;
use crate::rules::{self, Finding, Severity};
use crate::yaml::source::{self, PathSegment, SourceDocument, YamlPath};

/// A finding placed in the file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LintFinding {
    /// Rule id.
    pub rule: Cow<'static, str>,
    /// Severity.
    pub severity: Severity,
    /// Path inside the file (YAML path, or spec field path for a spec file).
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: Cow<'static, str>,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

/// Why a file could not be linted at all (exit code 2 territory).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LintFailure {
    /// 1-based line of the problem.
    pub line: usize,
    /// 1-based column of the problem.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for LintFailure {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{}:{}: {}", self.line, self.column, self.message)
    }
}

/// What a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileFormat {
    /// A spec, `studio.json`.
    SpecJson,
    /// eksctl and/or Karpenter YAML.
    Yaml,
}

impl FileFormat {
    /// Guesses from the file name, then from the first character.
    pub fn detect(file_name: &str, text: &str) -> FileFormat {
        if file_name.ends_with(".json") || text.trim_start().starts_with('{') {
            FileFormat::SpecJson
        } else {
            FileFormat::Yaml
        }
    }
}

/// Lints one file's text, judging day-dependent rules as of the version calendar's day.
pub fn lint_text(file_name: &str, text: &str) -> Result<Vec<LintFinding>, LintFailure> {
    lint_text_with(file_name, text, &rules::LiveFacts::default())
}

/// Lints one file's text with these facts (today's date, say).
pub fn lint_text_with(
    file_name: &str,
    text: &str,
    live: &rules::LiveFacts,
) -> Result<Vec<LintFinding>, LintFailure> {
    match FileFormat::detect(file_name, text) {
        FileFormat::SpecJson => lint_spec_json(text, live),
        FileFormat::Yaml => lint_yaml(text, live),
    }
}

fn lint_spec_json(text: &str, live: &rules::LiveFacts) -> Result<Vec<LintFinding>, LintFailure> {
    let spec = Spec::from_json(text).map_err(|error| LintFailure {
        line: error.line().max(1),
        column: error.column().max(1),
        message: format!("not a studio spec: {error}"),
    })?;
    // JSON is YAML, so the same position index places spec paths in the file.
    let source = source::parse_documents(text)
        .ok()
        .and_then(|documents| documents.into_iter().next());
    Ok(rules::validate_with(&spec, live)
        .into_iter()
        .map(|finding| {
            let (line, column) = source
                .as_ref()
                .zip(YamlPath::from_str(&finding.path).ok())
                .map(|(document, path)| {
                    let position = document.position(&path);
                    (position.line, position.column)
                })
                .unwrap_or((1, 1));
            placed(finding, line, column)
        })
        .collect())
}

fn placed(finding: Finding, line: usize, column: usize) -> LintFinding {
    LintFinding {
        rule: finding.rule,
        severity: finding.severity,
        path: finding.path,
        message: finding.message,
        help: finding.help,
        line,
        column,
    }
}

/// The documents of a YAML file, read into one spec.
pub struct ParsedFile {
    /// Every document with positions.
    pub documents: Vec<SourceDocument>,
    /// The spec the documents describe.
    pub spec: Spec,
    /// Index of the `ClusterConfig` document, if any.
    pub cluster_document: Option<usize>,
    /// Document index of each Karpenter node pool in the spec.
    pub node_pool_documents: Vec<usize>,
    /// Document index of each Karpenter node class in the spec.
    pub node_class_documents: Vec<usize>,
    /// Document index of each Karpenter node overlay in the spec.
    pub node_overlay_documents: Vec<usize>,
    /// Document index of each EKS Auto Mode NodePool in the spec.
    pub auto_mode_pool_documents: Vec<usize>,
    /// Document index of each EKS Auto Mode NodeClass in the spec.
    pub auto_mode_class_documents: Vec<usize>,
}

/// The non-empty documents of a YAML file, or why it cannot be read.
fn read_documents(text: &str) -> Result<Vec<SourceDocument>, LintFailure> {
    let documents = source::parse_documents(text).map_err(|error| LintFailure {
        line: error.line,
        column: error.column,
        message: error.message.clone(),
    })?;
    let documents: Vec<SourceDocument> = documents
        .into_iter()
        .filter(|document| !document.is_null())
        .collect();
    if documents.is_empty() {
        return Err(LintFailure {
            line: 1,
            column: 1,
            message: "the file has no YAML documents".into(),
        });
    }
    Ok(documents)
}

/// Parses and imports a YAML file of eksctl and Karpenter documents.
pub fn parse_yaml_file(text: &str) -> Result<ParsedFile, LintFailure> {
    import_documents(read_documents(text)?)
}

/// Imports parsed documents (of one file, or of several read as one design) into a spec.
fn import_documents(documents: Vec<SourceDocument>) -> Result<ParsedFile, LintFailure> {
    let failure_at = |document: &SourceDocument, error: import::ImportError| {
        let position = YamlPath::from_str(&error.path)
            .map(|path| document.position(&path))
            .unwrap_or_else(|_| document.position(&YamlPath::root()));
        LintFailure {
            line: position.line,
            column: position.column,
            message: error.message,
        }
    };
    let mut cluster_document = None;
    let mut karpenter_indices = Vec::new();
    let mut auto_mode_pools = crate::upstream::auto_mode::AutoModePools::default();
    let mut auto_mode_pool_documents = Vec::new();
    let mut auto_mode_class_documents = Vec::new();
    for (index, document) in documents.iter().enumerate() {
        let unreadable = |message: String| {
            failure_at(
                document,
                import::ImportError {
                    path: "spec".into(),
                    message,
                },
            )
        };
        match crate::documents::auto_mode::read_into(document.node(), &mut auto_mode_pools)
            .map_err(unreadable)?
        {
            Some(crate::documents::auto_mode::Object::NodePool) => {
                auto_mode_pool_documents.push(index);
                continue;
            }
            Some(crate::documents::auto_mode::Object::NodeClass) => {
                auto_mode_class_documents.push(index);
                continue;
            }
            None => {}
        }
        match import::document_kind(document.node()).map_err(|error| failure_at(document, error))? {
            DocumentKind::ClusterConfig => {
                if cluster_document.is_some() {
                    return Err(failure_at(
                        document,
                        import::ImportError {
                            path: "kind".into(),
                            message: "a file may hold one ClusterConfig".into(),
                        },
                    ));
                }
                cluster_document = Some(index);
            }
            _ => karpenter_indices.push(index),
        }
    }
    let mut spec = match cluster_document {
        Some(index) => import::import_cluster_config(documents[index].node())
            .map_err(|error| failure_at(&documents[index], error))?,
        None => Spec::default(),
    };
    let mut node_pool_documents = Vec::new();
    let mut node_class_documents = Vec::new();
    let mut node_overlay_documents = Vec::new();
    if !karpenter_indices.is_empty() {
        let values: Vec<Value> = karpenter_indices
            .iter()
            .map(|index| documents[*index].to_value())
            .collect();
        let imported = import::import_karpenter(&values).map_err(|error| {
            let document = &documents[karpenter_indices[0]];
            failure_at(document, error)
        })?;
        node_pool_documents = imported
            .node_pool_documents
            .iter()
            .map(|index| karpenter_indices[*index])
            .collect();
        node_class_documents = imported
            .node_class_documents
            .iter()
            .map(|index| karpenter_indices[*index])
            .collect();
        node_overlay_documents = imported
            .node_overlay_documents
            .iter()
            .map(|index| karpenter_indices[*index])
            .collect();
        spec.karpenter = Some(imported.settings);
        crate::documents::import::settle_leftovers(&mut spec);
    }
    spec.auto_mode_pools = auto_mode_pools;
    Ok(ParsedFile {
        documents,
        spec,
        cluster_document,
        node_pool_documents,
        node_class_documents,
        node_overlay_documents,
        auto_mode_pool_documents,
        auto_mode_class_documents,
    })
}

/// Parses and imports a YAML file the way eksctl and the API server would accept it:
/// documents that break their schema (unknown keys, wrong types) are refused, every
/// problem with its line and column.
pub fn import_yaml(text: &str) -> Result<ParsedFile, Vec<LintFailure>> {
    let file = parse_yaml_file(text).map_err(|failure| vec![failure])?;
    let mut failures: Vec<LintFailure> = file
        .documents
        .iter()
        .flat_map(|document| {
            rules::check_document(document.node())
                .into_iter()
                .filter(|finding| {
                    finding.rule == "eksctl-schema" || finding.rule == "karpenter-schema"
                })
                .map(move |finding| {
                    let position = YamlPath::from_str(&finding.path)
                        .map(|path| document.position(&path))
                        .unwrap_or_else(|_| document.position(&YamlPath::root()));
                    LintFailure {
                        line: position.line,
                        column: position.column,
                        message: format!("{}: {}", finding.path, finding.message),
                    }
                })
        })
        .collect();
    failures.sort_by_key(|failure| (failure.line, failure.column));
    if failures.is_empty() {
        Ok(file)
    } else {
        Err(failures)
    }
}

fn lint_yaml(text: &str, live: &rules::LiveFacts) -> Result<Vec<LintFinding>, LintFailure> {
    lint_read(read_documents(text)?, live, "this file defines")
}

/// Lints the one file given to the CLI, as [`lint_files_with`] lints a list of one: the
/// text is dropped once read, so a large file is not held beside its documents and design.
pub fn lint_only_file(
    name: &str,
    text: String,
    live: &rules::LiveFacts,
) -> Result<Vec<LintFinding>, LintFailure> {
    if FileFormat::detect(name, &text) == FileFormat::SpecJson {
        return lint_spec_json(&text, live);
    }
    let documents = read_documents(&text)?;
    drop(text);
    lint_read(documents, live, "the files given define")
}

/// The findings on one file's documents, sorted by place; `scope` as in [`lint_parsed`].
fn lint_read(
    documents: Vec<SourceDocument>,
    live: &rules::LiveFacts,
    scope: &str,
) -> Result<Vec<LintFinding>, LintFailure> {
    let checked = check_documents(&documents);
    let as_written = missing_required_as_written(&documents, &checked);
    let file = match import_documents(documents) {
        Ok(file) => file,
        Err(failure) => {
            return as_written
                .filter(|found| stands_for(found, &failure))
                .ok_or(failure);
        }
    };
    let mut findings: Vec<LintFinding> = lint_parsed(&file, checked, live, scope)
        .into_iter()
        .map(|(_, finding)| finding)
        .collect();
    findings.sort_by(|left, right| {
        (left.line, left.column, &left.rule).cmp(&(right.line, right.column, &right.rule))
    });
    Ok(findings)
}

/// The documents' findings as written, placed and sorted, when one of them is a required
/// field the schema says is missing (the API server's or eksctl's refusal, at its place);
/// `None` otherwise, the common case, so nothing is copied.
fn missing_required_as_written(
    documents: &[SourceDocument],
    checked: &[Vec<rules::Finding>],
) -> Option<Vec<LintFinding>> {
    let missing = checked.iter().flatten().any(|finding| {
        finding.severity == rules::Severity::Error
            && finding.message.starts_with("missing required field `")
    });
    if !missing {
        return None;
    }
    let mut found: Vec<LintFinding> = documents
        .iter()
        .zip(checked)
        .flat_map(|(document, findings)| {
            findings.iter().map(move |finding| {
                let position = YamlPath::from_str(&finding.path)
                    .map(|path| document.position(&path))
                    .unwrap_or_else(|_| document.position(&YamlPath::root()));
                placed(finding.clone(), position.line, position.column)
            })
        })
        .collect();
    found.sort_by(|left, right| {
        (left.line, left.column, &left.rule).cmp(&(right.line, right.column, &right.rule))
    });
    Some(found)
}

/// Whether the import's failure is a field the findings already say is missing: a
/// NodePool without `nodeClassRef` is the API server's refusal at that place, not a file
/// that cannot be read.
fn stands_for(found: &[LintFinding], failure: &LintFailure) -> bool {
    let Some(field) = import::missing_field(&failure.message) else {
        return false;
    };
    found.iter().any(|finding| {
        finding.severity == rules::Severity::Error
            && finding.message == format!("missing required field `{field}`")
    })
}

/// Each document's findings as written ([`rules::check_document`]), in document order.
fn check_documents(documents: &[SourceDocument]) -> Vec<Vec<rules::Finding>> {
    documents
        .iter()
        .map(|document| rules::check_document(document.node()))
        .collect()
}

/// Every finding on a parsed design, each with the index of the document it is in.
/// `checked` holds each document's findings as written, taken before the import (which
/// may have dropped parts of the values); `scope` names where EC2NodeClasses were looked
/// for ("this file defines", "the files given define").
fn lint_parsed(
    file: &ParsedFile,
    checked: Vec<Vec<rules::Finding>>,
    live: &rules::LiveFacts,
    scope: &str,
) -> Vec<(usize, LintFinding)> {
    let mut findings = Vec::new();
    for (index, (document, document_findings)) in file.documents.iter().zip(checked).enumerate() {
        for finding in document_findings {
            let position = YamlPath::from_str(&finding.path)
                .map(|path| document.position(&path))
                .unwrap_or_else(|_| document.position(&YamlPath::root()));
            findings.push((index, placed(finding, position.line, position.column)));
        }
    }
    let document_findings = findings.len();
    for finding in rules::validate_with(&file.spec, live) {
        // The document rules (eksctl-schema, eksctl-key-dropped, karpenter-schema)
        // report the same keys, each on its own line.
        if matches!(
            finding.rule.as_ref(),
            "eksctl-unknown-field" | "eksctl-field-dropped" | "karpenter-unknown-field"
        ) {
            continue;
        }
        let (document_index, path) = file_path(file, &finding.path);
        let position = file.documents[document_index].position(&path);
        // A document rule's error at the same place already says what is wrong there (a
        // fractional size is the schema's wrong type and the size rule's invalid size; a
        // version written as a number is the schema's wrong type, not a version left out).
        if findings[..document_findings].iter().any(|(index, placed)| {
            *index == document_index
                && placed.severity == rules::Severity::Error
                && (placed.line, placed.column) == (position.line, position.column)
        }) {
            continue;
        }
        // Karpenter's and Auto Mode's objects are judged without a ClusterConfig too, but
        // whether Auto Mode is on is the ClusterConfig's to say.
        let from_karpenter = finding.path.starts_with("karpenter")
            || (finding.path.starts_with("auto_mode_pools")
                && finding.rule != "auto-mode-pools-without-auto-mode");
        if file.cluster_document.is_none() && !from_karpenter {
            continue;
        }
        let mut placed = LintFinding {
            path: path.to_string(),
            ..placed(finding, position.line, position.column)
        };
        // A NodePool whose EC2NodeClass is in none of the documents read is accepted by the
        // API server; the class may be applied from elsewhere. Only the page, which holds
        // the whole design, knows it is missing.
        // So may an Auto Mode NodeClass.
        if placed.rule == "auto-mode-node-class-missing" {
            placed.severity = rules::Severity::Warning;
            placed.message.push_str(&format!(
                "; {scope} no NodeClass of that name: apply it from elsewhere, or fix the name"
            ));
        }
        if placed.rule == "karpenter-node-class-missing" {
            placed.severity = rules::Severity::Warning;
            if file.node_class_documents.is_empty() {
                placed.message.push_str(&format!(
                    "; {scope} no EC2NodeClass, so it must come from elsewhere"
                ));
            } else {
                placed.message.push_str(&format!(
                    "; {scope} other EC2NodeClasses: apply this one from elsewhere, or fix the name"
                ));
            }
        }
        findings.push((document_index, placed));
    }
    // A spec rule that quotes a CEL rule's message says the same thing at the field it is
    // about (`spec.weight` rather than `spec`); the CEL finding goes.
    let (document_rules, spec_rules) = findings.split_at(document_findings);
    let repeated: Vec<bool> = document_rules
        .iter()
        .map(|(index, placed)| {
            placed.rule == "karpenter-crd-rule"
                && spec_rules.iter().any(|(spec_index, spec_placed)| {
                    spec_index == index && spec_placed.message.contains(&placed.message)
                })
        })
        .collect();
    findings
        .into_iter()
        .enumerate()
        .filter(|(index, _)| !repeated.get(*index).copied().unwrap_or(false))
        .map(|(_, finding)| finding)
        .collect()
}

/// The findings of one file of a set linted together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileFindings {
    /// The file's name as given.
    pub name: String,
    /// Its findings, or why it could not be read.
    pub outcome: Result<Vec<LintFinding>, LintFailure>,
}

/// Lints several files as one design: every YAML document of every file is read together,
/// so a NodePool in one file finds its EC2NodeClass in another, and spec rules see the one
/// ClusterConfig with all the Karpenter documents. A reference to something in none of
/// the files is a warning that says so. Spec files (`studio.json`), and every file when
/// more than one holds a ClusterConfig (several clusters, not one design), are linted on
/// their own. Findings come back per file, in the order given.
pub fn lint_files_with(files: &[(String, String)], live: &rules::LiveFacts) -> Vec<FileFindings> {
    let mut outcomes: Vec<Option<Result<Vec<LintFinding>, LintFailure>>> = vec![None; files.len()];
    // Each readable YAML file's documents, and whether it holds a ClusterConfig.
    let mut read_files: Vec<(usize, Vec<SourceDocument>, bool)> = Vec::new();
    for (index, (name, text)) in files.iter().enumerate() {
        if FileFormat::detect(name, text) == FileFormat::SpecJson {
            outcomes[index] = Some(lint_spec_json(text, live));
            continue;
        }
        match read_documents(text) {
            Ok(read) => {
                let holds_cluster = read.iter().any(|document| {
                    matches!(
                        import::document_kind(document.node()),
                        Ok(DocumentKind::ClusterConfig)
                    )
                });
                read_files.push((index, read, holds_cluster));
            }
            Err(failure) => outcomes[index] = Some(Err(failure)),
        }
    }
    let clusters = read_files
        .iter()
        .filter(|(_, _, holds_cluster)| *holds_cluster)
        .count();
    // One design: every file together. Several ClusterConfigs are several clusters: each
    // file that holds one is linted on its own, and the other files (Karpenter's, Auto
    // Mode's) together, so a NodePool still finds its EC2NodeClass in a sibling file.
    let groups: Vec<Vec<(usize, Vec<SourceDocument>)>> = if clusters <= 1 {
        vec![
            read_files
                .into_iter()
                .map(|(index, read, _)| (index, read))
                .collect(),
        ]
    } else {
        let (with_cluster, others): (Vec<_>, Vec<_>) = read_files
            .into_iter()
            .partition(|(_, _, holds_cluster)| *holds_cluster);
        with_cluster
            .into_iter()
            .map(|(index, read, _)| vec![(index, read)])
            .chain(std::iter::once(
                others
                    .into_iter()
                    .map(|(index, read, _)| (index, read))
                    .collect(),
            ))
            .collect()
    };
    for group in groups {
        if group.is_empty() {
            continue;
        }
        let indices: Vec<usize> = group.iter().map(|(index, _)| *index).collect();
        let mut owners = Vec::new();
        let mut documents = Vec::new();
        for (index, read) in group {
            owners.extend(std::iter::repeat_n(index, read.len()));
            documents.extend(read);
        }
        let checked = check_documents(&documents);
        let combined = (!documents.is_empty())
            .then(|| import_documents(documents))
            .and_then(Result::ok);
        match combined {
            Some(file) => {
                let mut per_file: Vec<Vec<LintFinding>> = vec![Vec::new(); files.len()];
                for (document, finding) in
                    lint_parsed(&file, checked, live, "the files given define")
                {
                    per_file[owners[document]].push(finding);
                }
                for index in indices {
                    let mut findings = std::mem::take(&mut per_file[index]);
                    findings.sort_by(|left, right| {
                        (left.line, left.column, &left.rule).cmp(&(
                            right.line,
                            right.column,
                            &right.rule,
                        ))
                    });
                    outcomes[index] = Some(Ok(findings));
                }
            }
            // Documents that do not import together: each file alone, so every failure is
            // placed in its own file.
            None => {
                for index in indices {
                    let (name, text) = &files[index];
                    outcomes[index] = Some(lint_text_with(name, text, live));
                }
            }
        }
    }
    files
        .iter()
        .zip(outcomes)
        .map(|((name, _), outcome)| FileFindings {
            name: name.clone(),
            outcome: outcome.unwrap_or_else(|| {
                Err(LintFailure {
                    line: 1,
                    column: 1,
                    message: "not linted".into(),
                })
            }),
        })
        .collect()
}

fn path_of(segments: Vec<PathSegment>) -> YamlPath {
    YamlPath::from(segments)
}

/// Where a spec field path lives in the file: which document, and the path inside it.
pub fn file_path(file: &ParsedFile, spec_path: &str) -> (usize, YamlPath) {
    let layout = DocumentLayout {
        cluster_document: file.cluster_document,
        node_pool_documents: &file.node_pool_documents,
        node_class_documents: &file.node_class_documents,
        node_overlay_documents: &file.node_overlay_documents,
        auto_mode_pool_documents: &file.auto_mode_pool_documents,
        auto_mode_class_documents: &file.auto_mode_class_documents,
    };
    layout.path(&file.spec, spec_path)
}

/// Which document of a file holds which part of a design.
#[derive(Clone, Copy, Debug)]
pub struct DocumentLayout<'a> {
    /// Index of the `ClusterConfig` document, if any.
    pub cluster_document: Option<usize>,
    /// Document index of each Karpenter node pool of the design.
    pub node_pool_documents: &'a [usize],
    /// Document index of each Karpenter node class of the design.
    pub node_class_documents: &'a [usize],
    /// Document index of each Karpenter node overlay of the design.
    pub node_overlay_documents: &'a [usize],
    /// Document index of each EKS Auto Mode NodePool of the design.
    pub auto_mode_pool_documents: &'a [usize],
    /// Document index of each EKS Auto Mode NodeClass of the design.
    pub auto_mode_class_documents: &'a [usize],
}

impl DocumentLayout<'_> {
    /// Where a field of `spec` (`node_groups[0].capacity.reservation_id`) is written:
    /// which document, and the path inside it.
    pub fn path(&self, spec: &Spec, spec_path: &str) -> (usize, YamlPath) {
        let segments = YamlPath::from_str(spec_path)
            .map(|path| path.segments().to_vec())
            .unwrap_or_default();
        let cluster_document = self.cluster_document.unwrap_or(0);
        let keys: Vec<Option<&str>> = segments
            .iter()
            .map(|segment| match segment {
                PathSegment::Key(name) => Some(name.as_str()),
                PathSegment::Index(_) => None,
            })
            .collect();
        let index_at = |position: usize| match segments.get(position) {
            Some(PathSegment::Index(index)) => Some(*index),
            _ => None,
        };
        match keys.first().copied().flatten() {
            Some("auto_mode_pools") => {
                let documents = match keys.get(1).copied().flatten() {
                    Some("node_classes") => self.auto_mode_class_documents,
                    _ => self.auto_mode_pool_documents,
                };
                match index_at(2).and_then(|index| documents.get(index).copied()) {
                    Some(document) => (
                        document,
                        path_of(segments.get(3..).unwrap_or_default().to_vec()),
                    ),
                    None => (cluster_document, path_of(Vec::new())),
                }
            }
            Some("karpenter") => {
                let (documents, kind) = match keys.get(1).copied().flatten() {
                    Some("node_pools") => (&self.node_pool_documents, true),
                    Some("node_classes") => (&self.node_class_documents, true),
                    Some("node_overlays") => (&self.node_overlay_documents, true),
                    _ => (&self.node_pool_documents, false),
                };
                let document = index_at(2)
                    .filter(|_| kind)
                    .and_then(|index| documents.get(index).copied())
                    .or_else(|| self.node_pool_documents.first().copied())
                    .unwrap_or(cluster_document);
                let rest = if kind {
                    segments.get(3..).unwrap_or_default().to_vec()
                } else {
                    Vec::new()
                };
                (document, path_of(rest))
            }
            _ => (
                cluster_document,
                path_of(crate::documents::cluster::yaml_path(spec, &segments)),
            ),
        }
    }
}
