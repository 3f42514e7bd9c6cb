//! What a deploy on the server will carry: every template is deployable as it is, and of
//! eksctl's own example files only the keys that act on the machine eksctl runs on are
//! refused (`shared::deploy::keys`).

use std::path::Path;

use shared::deploy::keys::refused_keys;
use shared::yaml::source::parse_documents;

#[test]
fn no_template_carries_a_key_the_deploy_refuses() {
    for template in shared::TEMPLATES {
        let cluster = shared::documents::render::cluster_document(&template.spec()).unwrap();
        assert_eq!(refused_keys(&cluster), [], "template {}", template.id);
    }
}

/// eksctl's examples (`examples/` of eksctl-io/eksctl, in the corpus) with the keys a
/// deploy refuses in each; files not named refuse nothing.
const REFUSED_IN_EKSCTL_EXAMPLES: &[(&str, &[&str])] = &[
    ("12-gitops-toolkit.yaml", &["gitops"]),
    // ng-2: `ssh: {allow: true}` with no key reads ~/.ssh/id_rsa.pub.
    ("07-ssh-keys.yaml", &["nodeGroups[1].ssh.allow"]),
    (
        "22-managed-nodes-launch-template.yaml",
        &["managedNodeGroups[1].ssh.allow"],
    ),
];

#[test]
fn of_eksctls_examples_only_keys_acting_on_the_server_are_refused() {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/corpus/eksctl");
    let mut files: Vec<_> = std::fs::read_dir(&directory)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    let mut refused_anywhere = Vec::new();
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&file).unwrap();
        let Ok(documents) = parse_documents(&text) else {
            continue;
        };
        for document in documents {
            let refused: Vec<String> = refused_keys(&document.to_value())
                .into_iter()
                .map(|key| key.path)
                .collect();
            let expected: Vec<&str> = REFUSED_IN_EKSCTL_EXAMPLES
                .iter()
                .find(|(file, _)| *file == name)
                .map(|(_, keys)| keys.to_vec())
                .unwrap_or_default();
            assert_eq!(refused, expected, "{name}");
            refused_anywhere.extend(refused);
        }
    }
    assert!(refused_anywhere.contains(&"gitops".to_owned()));
}
