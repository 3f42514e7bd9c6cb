//! Every key of an eksctl node group has one row saying what day two does with it
//! (`shared::upstream::node_group_keys`): a key cannot be added to the renderer, or appear
//! in eksctl's schema, without saying whether the server carries it, how a running group
//! takes a change of it and where a read finds it.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use shared::upstream::node_group_keys::{GROUP_KEYS, ManagedRead, TakesChange, group_key};

fn schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/schemas/eksctl-clusterconfig-v1alpha5.schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The rows are eksctl's node group keys, no more and no fewer: each property of its
/// `ManagedNodeGroup` and `NodeGroup` definitions has one row, once.
#[test]
fn each_key_of_eksctl_s_node_groups_has_one_row() {
    let schema = schema();
    let definitions = schema
        .get("definitions")
        .or_else(|| schema.get("$defs"))
        .unwrap();
    let mut keys = BTreeSet::new();
    for definition in ["ManagedNodeGroup", "NodeGroup"] {
        let properties = definitions[definition]["properties"].as_object().unwrap();
        keys.extend(properties.keys().cloned());
    }
    let rows: Vec<&str> = GROUP_KEYS.iter().map(|row| row.key).collect();
    let unique: BTreeSet<&str> = rows.iter().copied().collect();
    assert_eq!(unique.len(), rows.len(), "a key has two rows");
    let missing: Vec<&String> = keys.iter().filter(|key| group_key(key).is_none()).collect();
    assert_eq!(missing, Vec::<&String>::new(), "keys with no row");
    let unknown: Vec<&&str> = rows.iter().filter(|row| !keys.contains(**row)).collect();
    assert_eq!(unknown, Vec::<&&str>::new(), "rows eksctl has no key for");
}

/// Every key the renderer writes into a node group, for every template and for eksctl's
/// own examples read in and written out, has a row.
#[test]
fn each_key_the_renderer_writes_into_a_node_group_has_a_row() {
    let mut designs: Vec<(String, shared::Spec)> = shared::TEMPLATES
        .iter()
        .map(|template| (template.id.to_owned(), template.spec()))
        .collect();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/corpus/eksctl");
    for entry in std::fs::read_dir(&corpus).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let start = shared::template("g4dn").unwrap().spec();
        if let Ok((spec, _)) = shared::documents::import::import_text(&text, &start) {
            designs.push((path.display().to_string(), spec));
        }
    }
    let mut written = BTreeSet::new();
    for (name, spec) in &designs {
        let Ok(document) = shared::documents::render::cluster_document(spec) else {
            continue;
        };
        for list in ["managedNodeGroups", "nodeGroups"] {
            for group in document
                .get(list)
                .and_then(yaml_serde::Value::as_sequence)
                .into_iter()
                .flatten()
            {
                for key in group.as_mapping().unwrap().keys() {
                    let key = key.as_str().unwrap().to_owned();
                    assert!(
                        group_key(&key).is_some(),
                        "{name}: {list} key `{key}` has no row"
                    );
                    written.insert(key);
                }
            }
        }
    }
    // The walk saw the keys that matter most on day two.
    for key in ["minSize", "labels", "instanceType", "volumeSize", "iam"] {
        assert!(written.contains(key), "{written:?}");
    }
}

/// The rows say what the peers do: EKS scales and changes labels, taints, update and
/// repair settings in place, rolls an AMI release, and fixes the rest at creation; what
/// EKS does not hold is the design's.
#[test]
fn the_rows_say_what_eks_and_eksctl_do_with_a_running_group() {
    let change = |key: &str| group_key(key).unwrap().change;
    for key in ["minSize", "maxSize", "desiredCapacity"] {
        assert_eq!(change(key), TakesChange::Scale);
    }
    for key in ["labels", "taints", "updateConfig", "nodeRepairConfig"] {
        assert_eq!(change(key), TakesChange::NodegroupConfig);
    }
    assert_eq!(change("releaseVersion"), TakesChange::ReleaseVersion);
    for key in ["instanceType", "amiFamily", "volumeSize", "subnets", "iam"] {
        assert_eq!(change(key), TakesChange::Replacement, "{key}");
    }
    assert!(matches!(
        group_key("iam").unwrap().managed_read,
        ManagedRead::Design
    ));
    assert!(matches!(
        group_key("volumeSize").unwrap().managed_read,
        ManagedRead::LaunchTemplate(_)
    ));
    assert_eq!(
        shared::upstream::node_group_keys::takes_change("notAKey"),
        TakesChange::Replacement
    );
}
