//! The files of a design that can be edited as text in the page's preview: each read back
//! into the design as it is typed, and the design's findings placed on the file's lines.
//!
//! Editing one file changes only what that file holds: `cluster.yaml` is the
//! `ClusterConfig` (Karpenter's objects stay as they were), `karpenter/nodepools.yaml` the
//! NodePools and EC2NodeClasses (the cluster stays as it was), `auto-mode/nodepools.yaml`
//! EKS Auto Mode's NodePools and NodeClasses. A file as rendered reads
//! back into the same design, so opening a file to edit it changes nothing by itself.

use crate::documents::import::{self, DocumentKind, TextImportError};
use crate::documents::render::{self, RenderError};
use crate::lint::DocumentLayout;
use crate::model::spec::Spec;
use crate::rules::Finding;
use crate::yaml::source::{self, Position, SourceDocument};

/// A file the page lets the user edit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EditableFile {
    /// `cluster.yaml`: the eksctl `ClusterConfig`.
    ClusterConfig,
    /// `karpenter/nodepools.yaml`: Karpenter's NodePools and EC2NodeClasses.
    NodePools,
    /// `auto-mode/nodepools.yaml`: EKS Auto Mode's NodePools and NodeClasses.
    AutoModePools,
}

/// A finding of the design placed in a file: which finding (its index in the list given)
/// and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlacedFinding {
    /// Index of the finding in the list that was placed.
    pub finding: usize,
    /// Line and column in the file's text, from 1.
    pub position: Position,
}

impl EditableFile {
    /// The file's path in a bundle.
    pub fn path(self) -> &'static str {
        match self {
            EditableFile::ClusterConfig => render::CLUSTER_YAML_PATH,
            EditableFile::NodePools => render::NODEPOOLS_PATH,
            EditableFile::AutoModePools => crate::documents::auto_mode::PATH,
        }
    }

    /// The file's text for a design; none when the design has no such file (no Karpenter).
    pub fn render(self, spec: &Spec) -> Result<Option<String>, RenderError> {
        match self {
            EditableFile::ClusterConfig => render::render_cluster_yaml(spec).map(Some),
            EditableFile::NodePools => render::render_karpenter_yaml(spec),
            EditableFile::AutoModePools => crate::documents::auto_mode::render(spec),
        }
    }

    /// Whether the design's field at `spec_path` is written in this file.
    pub fn writes(self, spec_path: &str) -> bool {
        match self {
            EditableFile::ClusterConfig => {
                !spec_path.starts_with("karpenter")
                    && !spec_path.starts_with("storage")
                    && !spec_path.starts_with("auto_mode_pools")
            }
            EditableFile::AutoModePools => spec_path.starts_with("auto_mode_pools"),
            EditableFile::NodePools => {
                spec_path.starts_with("karpenter.node_pools")
                    || spec_path.starts_with("karpenter.node_classes")
            }
        }
    }

    /// Reads the edited text into `current`, replacing what this file holds and keeping
    /// the rest; or says what keeps it from being read, at its line and column.
    pub fn read(self, text: &str, current: &Spec) -> Result<Spec, TextImportError> {
        let documents = documents(text)?;
        let count = documents.len();
        match self {
            EditableFile::ClusterConfig => {
                if let Some(second) = documents.get(1) {
                    return Err(import::placed(
                        second,
                        1,
                        count,
                        &import::ImportError {
                            path: String::new(),
                            message: "cluster.yaml holds one document, the ClusterConfig; \
                                      NodePools and EC2NodeClasses go in karpenter/nodepools.yaml"
                                .into(),
                        },
                    ));
                }
                let document = &documents[0];
                let at = |error: import::ImportError| import::placed(document, 0, count, &error);
                if import::document_kind(document.node()).map_err(at)?
                    != DocumentKind::ClusterConfig
                {
                    return Err(at(import::ImportError {
                        path: "kind".into(),
                        message:
                            "cluster.yaml holds the eksctl ClusterConfig (kind: ClusterConfig)"
                                .into(),
                    }));
                }
                let mut spec = import::import_cluster_config(document.node()).map_err(at)?;
                spec.karpenter = current.karpenter.clone();
                // The volumes and Auto Mode's pools have files of their own.
                spec.storage = current.storage.clone();
                spec.auto_mode_pools = current.auto_mode_pools.clone();
                // What the studio alone knows of a group (a Capacity Block's window) stays
                // with the group of that name.
                for group in &mut spec.node_groups {
                    if let Some(known) = current
                        .node_groups
                        .iter()
                        .find(|known| known.name == group.name)
                    {
                        group.block_window = known.block_window.clone();
                    }
                }
                if spec.karpenter.is_some() {
                    import::settle_leftovers(&mut spec);
                }
                Ok(spec)
            }
            EditableFile::NodePools => {
                let mut spec = current.clone();
                let settings = spec.karpenter.get_or_insert_with(Default::default);
                settings.node_pools.clear();
                settings.node_classes.clear();
                for (index, document) in documents.iter().enumerate() {
                    let at =
                        |error: import::ImportError| import::placed(document, index, count, &error);
                    if import::document_kind(document.node()).map_err(at)?
                        == DocumentKind::ClusterConfig
                    {
                        return Err(at(import::ImportError {
                            path: "kind".into(),
                            message: "the ClusterConfig goes in cluster.yaml; this file holds \
                                      NodePools and EC2NodeClasses"
                                .into(),
                        }));
                    }
                    let imported = import::import_karpenter(&[document.to_value()]).map_err(at)?;
                    settings.node_pools.extend(imported.settings.node_pools);
                    settings.node_classes.extend(imported.settings.node_classes);
                }
                import::settle_leftovers(&mut spec);
                Ok(spec)
            }
            EditableFile::AutoModePools => {
                let mut spec = current.clone();
                let mut pools = crate::upstream::auto_mode::AutoModePools::default();
                for (index, document) in documents.iter().enumerate() {
                    let at = |message: String| {
                        import::placed(
                            document,
                            index,
                            count,
                            &import::ImportError {
                                path: "spec".into(),
                                message,
                            },
                        )
                    };
                    if crate::documents::auto_mode::read_into(document.node(), &mut pools)
                        .map_err(at)?
                        .is_none()
                    {
                        return Err(import::placed(
                            document,
                            index,
                            count,
                            &import::ImportError {
                                path: "kind".into(),
                                message: "this file holds EKS Auto Mode's NodePools (nodeClassRef group eks.amazonaws.com) and eks.amazonaws.com/v1 NodeClasses".into(),
                            },
                        ));
                    }
                }
                spec.auto_mode_pools = pools;
                Ok(spec)
            }
        }
    }

    /// Where each of `findings` (about `spec`) is in `text`, this file as `spec` would have
    /// it: the findings about what this file writes, in the order given. Text that is not
    /// YAML places nothing.
    pub fn place(self, text: &str, spec: &Spec, findings: &[Finding]) -> Vec<PlacedFinding> {
        let Ok(documents) = documents(text) else {
            return Vec::new();
        };
        let mut cluster_document = None;
        let mut node_pool_documents = Vec::new();
        let mut node_class_documents = Vec::new();
        let mut node_overlay_documents = Vec::new();
        let mut auto_mode_pool_documents = Vec::new();
        let mut auto_mode_class_documents = Vec::new();
        for (index, document) in documents.iter().enumerate() {
            if crate::documents::auto_mode::is_auto_mode_pool(document.node()) {
                auto_mode_pool_documents.push(index);
                continue;
            }
            if crate::documents::auto_mode::is_node_class(document.node()) {
                auto_mode_class_documents.push(index);
                continue;
            }
            match DocumentKind::of(document.node()) {
                DocumentKind::ClusterConfig => cluster_document = cluster_document.or(Some(index)),
                DocumentKind::NodePool => node_pool_documents.push(index),
                DocumentKind::Ec2NodeClass => node_class_documents.push(index),
                DocumentKind::NodeOverlay => node_overlay_documents.push(index),
                DocumentKind::Unknown { .. } => {}
            }
        }
        let layout = DocumentLayout {
            cluster_document,
            node_pool_documents: &node_pool_documents,
            node_class_documents: &node_class_documents,
            node_overlay_documents: &node_overlay_documents,
            auto_mode_pool_documents: &auto_mode_pool_documents,
            auto_mode_class_documents: &auto_mode_class_documents,
        };
        findings
            .iter()
            .enumerate()
            .filter(|(_, finding)| self.writes(&finding.path))
            .map(|(index, finding)| {
                let (document, path) = layout.path(spec, &finding.path);
                let position = documents
                    .get(document)
                    .map_or(Position { line: 1, column: 1 }, |document| {
                        document.position(&path)
                    });
                PlacedFinding {
                    finding: index,
                    position,
                }
            })
            .collect()
    }
}

/// The text's YAML documents, empty ones left out; an error when there is none.
fn documents(text: &str) -> Result<Vec<SourceDocument>, TextImportError> {
    let documents: Vec<SourceDocument> = source::parse_documents(text)
        .map_err(|error| TextImportError {
            document: None,
            line: error.line,
            column: error.column,
            syntax: true,
            message: error.message,
        })?
        .into_iter()
        .filter(|document| !document.is_null())
        .collect();
    if documents.is_empty() {
        return Err(import::whole_text("The file holds no YAML document."));
    }
    Ok(documents)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules;

    #[test]
    fn every_template_reads_back_from_its_files_unchanged() {
        for template in crate::TEMPLATES {
            let spec = template.spec();
            for file in [
                EditableFile::ClusterConfig,
                EditableFile::NodePools,
                EditableFile::AutoModePools,
            ] {
                let Some(text) = file.render(&spec).expect("templates render") else {
                    continue;
                };
                let read = file
                    .read(&text, &spec)
                    .unwrap_or_else(|error| panic!("{} {}: {error}", template.id, file.path()));
                assert_eq!(read, spec, "{} read back from {}", template.id, file.path());
            }
        }
    }

    #[test]
    fn an_edit_changes_the_design_and_keeps_what_the_file_does_not_hold() {
        let spec = crate::template("karpenter-reserved-training")
            .expect("template")
            .spec();
        let text = EditableFile::ClusterConfig
            .render(&spec)
            .unwrap()
            .unwrap()
            .replace("name: eks-p5-training", "name: renamed-in-text");
        let read = EditableFile::ClusterConfig.read(&text, &spec).unwrap();
        assert_eq!(read.cluster.name, "renamed-in-text");
        assert_eq!(read.karpenter, spec.karpenter);

        let pools = EditableFile::NodePools.render(&spec).unwrap().unwrap();
        let first_pool = &spec.karpenter.as_ref().unwrap().node_pools[0].metadata.name;
        let edited = pools.replacen(&format!("name: {first_pool}"), "name: edited-pool", 1);
        let read = EditableFile::NodePools.read(&edited, &spec).unwrap();
        assert_eq!(read.cluster, spec.cluster);
        assert_eq!(read.node_groups, spec.node_groups);
        assert_eq!(
            read.karpenter.unwrap().node_pools[0].metadata.name,
            "edited-pool"
        );
    }

    #[test]
    fn auto_mode_pools_are_edited_in_their_file_with_findings_on_their_lines() {
        let spec = crate::template("auto-mode-reserved-training")
            .expect("template")
            .spec();
        let file = EditableFile::AutoModePools;
        let text = file.render(&spec).unwrap().unwrap();
        // The NodeClass no longer selects the reservation: the pool cannot launch.
        let edited = text.replace(
            "  capacityReservationSelectorTerms:\n  - id: PLACEHOLDER_CAPACITY_RESERVATION_ID\n",
            "",
        );
        assert_ne!(edited, text);
        let read = file.read(&edited, &spec).unwrap();
        assert_eq!(read.cluster, spec.cluster);
        let findings = rules::validate(&read);
        let placed = file.place(&edited, &read, &findings);
        let (index, position) = placed
            .iter()
            .map(|placed| (placed.finding, placed.position))
            .find(|(index, _)| findings[*index].rule == "auto-mode-reserved-without-selector")
            .expect("the finding is placed in the file");
        let line = edited
            .lines()
            .position(|line| line.trim() == "requirements:")
            .unwrap()
            + 1;
        assert_eq!(position.line, line, "{}", findings[index].message);
        // Findings on the cluster are not placed here, nor Auto Mode's in cluster.yaml.
        assert!(
            placed
                .iter()
                .all(|placed| findings[placed.finding].path.starts_with("auto_mode_pools"))
        );
        assert!(!EditableFile::ClusterConfig.writes("auto_mode_pools.node_pools[0]"));
        // Another kind is refused at its line.
        let error = file
            .read(&format!("{text}---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: x\n"), &spec)
            .unwrap_err();
        assert!(
            error.message.contains("eks.amazonaws.com/v1 NodeClasses"),
            "{error}"
        );
    }

    #[test]
    fn text_that_cannot_be_read_says_where() {
        let spec = crate::template("p5-odcr-vpc").expect("template").spec();
        let text = EditableFile::ClusterConfig.render(&spec).unwrap().unwrap();
        let broken = text.replacen("metadata:", "metadata: [", 1);
        let error = EditableFile::ClusterConfig
            .read(&broken, &spec)
            .unwrap_err();
        assert!(error.syntax, "{error}");
        assert!(error.line >= 3, "{error}");

        let with_pool = format!(
            "{text}---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: x\n"
        );
        let error = EditableFile::ClusterConfig
            .read(&with_pool, &spec)
            .unwrap_err();
        assert_eq!(error.line, text.lines().count() + 2, "{error}");
        assert!(
            error.message.contains("karpenter/nodepools.yaml"),
            "{error}"
        );

        let wrong_kind = text.replacen("kind: ClusterConfig", "kind: NodePool", 1);
        let error = EditableFile::ClusterConfig
            .read(&wrong_kind, &spec)
            .unwrap_err();
        let kind_line = text
            .lines()
            .position(|line| line == "kind: ClusterConfig")
            .expect("a kind line")
            + 1;
        assert_eq!((error.syntax, error.line), (false, kind_line), "{error}");
        let key_not_text = text.replacen("metadata:", "metadata:\n  1: one", 1);
        let error = EditableFile::ClusterConfig
            .read(&key_not_text, &spec)
            .unwrap_err();
        assert!(!error.syntax && error.line > 1, "{error}");
        assert_eq!(
            EditableFile::ClusterConfig
                .read("", &spec)
                .unwrap_err()
                .line,
            0
        );
    }

    #[test]
    fn findings_land_on_the_lines_of_their_fields() {
        let mut spec = crate::template("karpenter-reserved-training")
            .expect("template")
            .spec();
        spec.node_groups[0].max_size = Some(0);
        let findings = rules::validate(&spec);
        for file in [EditableFile::ClusterConfig, EditableFile::NodePools] {
            let text = file.render(&spec).unwrap().unwrap();
            let lines: Vec<&str> = text.lines().collect();
            let placed = file.place(&text, &spec, &findings);
            assert!(!placed.is_empty(), "{}", file.path());
            for placed in &placed {
                let finding = &findings[placed.finding];
                assert!(file.writes(&finding.path));
                let line = lines[placed.position.line - 1];
                // A placeholder finding sits on the line holding the placeholder.
                if finding.rule == "placeholder-left" {
                    assert!(
                        line.contains("PLACEHOLDER_")
                            || line.contains(crate::model::ids::EXAMPLE_RESERVATION_ID),
                        "{line:?} for {finding:?}"
                    );
                }
            }
        }
        let too_small = findings
            .iter()
            .position(|finding| finding.path == "node_groups[0].max_size")
            .expect("a finding on max_size");
        let text = EditableFile::ClusterConfig.render(&spec).unwrap().unwrap();
        let placed = EditableFile::ClusterConfig.place(&text, &spec, &findings);
        let at = placed
            .iter()
            .find(|placed| placed.finding == too_small)
            .expect("placed");
        let line = text.lines().nth(at.position.line - 1).unwrap();
        assert!(line.trim_start().starts_with("maxSize:"), "{line:?}");
    }
}
