//! Inputs the fuzz targets of `cargo xtask fuzz` found a problem with, kept as data in
//! `tests/data/fuzz/` (named after the target that found them), and smaller cases of the
//! same kind. Each is read the ways the studio reads text: `eks-studio lint`, the strict
//! import of `eks-studio convert`, and the browser's import through `shared::documents::import`.

use shared::documents::import::{self, ImportError};
use shared::lint::{self, LintFailure};
use shared::yaml::source::{self, YamlPath};

fn fuzz_input(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/fuzz")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn shown(failure: &LintFailure) -> String {
    format!("{}:{}: {}", failure.line, failure.column, failure.message)
}

/// `eks-studio lint` and the strict import both refuse `text` with `expected`
/// (`line:col: message`).
fn check_refused(text: &str, expected: &str) {
    let linted = lint::lint_text("input.yaml", text).map(|findings| findings.len());
    assert_eq!(
        linted.map_err(|failure| shown(&failure)),
        Err(expected.to_owned()),
        "lint of:\n{text}"
    );
    let imported = lint::import_yaml(text).map(|file| file.documents.len());
    let failures: Result<usize, Vec<String>> =
        imported.map_err(|failures| failures.iter().map(shown).collect());
    assert_eq!(
        failures,
        Err(vec![expected.to_owned()]),
        "import of:\n{text}"
    );
}

/// The browser's import of the first document: the error and where it points.
fn browser_import_error(text: &str) -> (ImportError, String) {
    let documents = source::parse_documents(text).unwrap();
    let document = &documents[0];
    let error = import::import_cluster_config(&document.to_value())
        .or_else(|_| {
            import::import_karpenter(std::slice::from_ref(&document.to_value()))
                .map(|_| shared::Spec::default())
        })
        .unwrap_err();
    let position = document.position(&error.path.parse::<YamlPath>().unwrap());
    (error, position.to_string())
}

const NOT_A_STRING: &str =
    "is not a string; the studio saves designs as JSON, whose keys are strings (quote it)";

/// import_yaml: a tagged key (`! withAddonPolicies:`) went into the node group's unmodelled
/// keys, and the placeholder rule's JSON view of the spec panicked on it.
#[test]
fn a_tagged_key_is_refused_at_the_key() {
    let text = fuzz_input("import_yaml-tagged-key.yaml");
    let expected = format!("40:5: a tagged key {NOT_A_STRING}");
    check_refused(&text, &expected);
    let (error, position) = browser_import_error(&text);
    assert_eq!(
        (error.path.as_str(), error.message),
        (
            "managedNodeGroups[1].withAddonPolicies",
            format!("a tagged key {NOT_A_STRING}")
        )
    );
    assert_eq!(position, "40:5");
}

/// Every kind of key JSON cannot hold is refused where it is, in eksctl and Karpenter
/// documents alike; the same keys quoted are kept.
#[test]
fn keys_json_cannot_hold_are_refused_and_quoted_ones_kept() {
    let cluster = |labels: &str| {
        format!(
            "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: demo\n  region: us-east-1\nmanagedNodeGroups:\n- name: gpu\n  instanceType: g5.8xlarge\n  labels:\n    {labels}\n"
        )
    };
    let cases = [
        ("1: one", "the key `1`", "managedNodeGroups[0].labels.1"),
        (
            "true: yes",
            "the key `true`",
            "managedNodeGroups[0].labels.true",
        ),
        (
            "~: nothing",
            "a null key",
            "managedNodeGroups[0].labels.null",
        ),
        (
            "!custom team: ml",
            "a tagged key",
            "managedNodeGroups[0].labels.team",
        ),
        (
            "[a, b]: pair",
            "a sequence used as a key",
            "managedNodeGroups[0].labels",
        ),
        (
            "{a: b}: map",
            "a mapping used as a key",
            "managedNodeGroups[0].labels",
        ),
    ];
    for (labels, described, path) in cases {
        let text = cluster(labels);
        let (error, position) = browser_import_error(&text);
        assert_eq!(
            (error.path.as_str(), error.message),
            (path, format!("{described} {NOT_A_STRING}")),
            "{labels}"
        );
        let expected_line = if path.ends_with("labels") { 9 } else { 10 };
        assert!(
            position.starts_with(&format!("{expected_line}:")),
            "{labels}: at {position}"
        );
    }

    let quoted = cluster("\"1\": one");
    let spec =
        import::import_cluster_config(&source::parse_documents(&quoted).unwrap()[0].to_value())
            .unwrap();
    assert_eq!(
        spec.node_groups[0].labels.get("1").map(String::as_str),
        Some("one")
    );
    // What was imported can always be saved and read back.
    assert_eq!(shared::Spec::from_json(&spec.to_json()).unwrap(), spec);

    let pool = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: gpu\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}\n      requirements: []\n  weight: 1\n  7: seven\n";
    let (error, position) = browser_import_error(pool);
    assert_eq!(
        (
            error.path.as_str(),
            error.message.as_str(),
            position.as_str()
        ),
        (
            "spec.7",
            format!("the key `7` {NOT_A_STRING}").as_str(),
            "11:3"
        )
    );
}

/// lint_file: a file without a final line break that ends inside a mapping was refused at
/// a line after the last one.
#[test]
fn an_error_at_the_end_of_the_text_points_into_the_text() {
    let text = fuzz_input("lint_file-error-past-the-end.yaml");
    assert!(!text.ends_with('\n'));
    let last_line = text.lines().count();
    let last_column = text.lines().last().unwrap().chars().count() + 1;
    let failure = lint::lint_text("input.yaml", &text).unwrap_err();
    assert_eq!(
        (failure.line, failure.column),
        (last_line, last_column),
        "{failure}"
    );
    let error = source::parse_documents(&text).unwrap_err();
    assert_eq!((error.line, error.column), (last_line, last_column));

    // The same text with a final line break is refused on the line that break opens.
    let error = source::parse_documents(&format!("{text}\n")).unwrap_err();
    assert_eq!((error.line, error.column), (last_line + 1, 1), "{error}");
}
