//! YAML text into values with positions: where paths point, what malformed input says, and
//! that no input makes the parser panic or run away.

use std::path::Path;

use shared::yaml::source::{
    MAX_ALIAS_EXPANSION, MAX_NESTING_DEPTH, PathSegment, Position, SourceDocument, YamlPath,
    parse_documents,
};

fn path(text: &str) -> YamlPath {
    text.parse()
        .unwrap_or_else(|error| panic!("bad path {text:?}: {error}"))
}

fn single_document(text: &str) -> SourceDocument {
    let mut documents = parse_documents(text).unwrap();
    assert_eq!(documents.len(), 1, "{text}");
    documents.remove(0)
}

/// Each `(path, "line:col")` is where `position` points for that path in `document`.
fn check_positions(document: &SourceDocument, expected: &[(&str, &str)]) {
    let actual: Vec<(&str, String)> = expected
        .iter()
        .map(|(path_text, _)| (*path_text, document.position(&path(path_text)).to_string()))
        .collect();
    let expected: Vec<(&str, String)> = expected
        .iter()
        .map(|(path_text, position)| (*path_text, (*position).to_owned()))
        .collect();
    assert_eq!(actual, expected);
}

/// Each `(text, "line:col: message")` fails to parse with exactly that error.
fn check_errors(cases: &[(&str, &str)]) {
    for (text, expected) in cases {
        let error = parse_documents(text).err();
        assert_eq!(
            error.map(|error| error.to_string()).as_deref(),
            Some(*expected),
            "for input {text:?}"
        );
    }
}

const CLUSTER: &str = "\
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: demo
  region: us-west-2
availabilityZones: [\"us-west-2a\", \"us-west-2b\"]
managedNodeGroups:
  - name: system
    instanceType: c5.2xlarge
  - name: gpu
    subnets:
      - subnet-0123456789abcdef0
    labels: {karpenter.sh/capacity-type: on-demand, team: ml}
";

#[test]
fn keys_point_at_the_key_and_items_at_the_item() {
    let document = single_document(CLUSTER);
    check_positions(
        &document,
        &[
            ("", "1:1"),
            ("apiVersion", "1:1"),
            ("metadata", "3:1"),
            ("metadata.name", "4:3"),
            ("metadata.region", "5:3"),
            ("availabilityZones", "6:1"),
            ("availabilityZones[0]", "6:21"),
            ("availabilityZones[1]", "6:35"),
            ("managedNodeGroups[0]", "8:5"),
            ("managedNodeGroups[0].instanceType", "9:5"),
            ("managedNodeGroups[1].name", "10:5"),
            ("managedNodeGroups[1].subnets", "11:5"),
            ("managedNodeGroups[1].subnets[0]", "12:9"),
            (
                "managedNodeGroups[1].labels[\"karpenter.sh/capacity-type\"]",
                "13:14",
            ),
            ("managedNodeGroups[1].labels.team", "13:53"),
        ],
    );
}

#[test]
fn locate_gives_the_value_and_the_key_separately() {
    let document = single_document(CLUSTER);
    let location = document.locate(&path("metadata.region"));
    assert_eq!(location.key, Some(Position { line: 5, column: 3 }));
    assert_eq!(
        location.value,
        Position {
            line: 5,
            column: 11
        }
    );
    assert_eq!(location.matched_segments, 2);

    let flow_list = document.locate(&path("availabilityZones"));
    assert_eq!(flow_list.key, Some(Position { line: 6, column: 1 }));
    assert_eq!(
        flow_list.value,
        Position {
            line: 6,
            column: 20
        }
    );

    let block_mapping = document.locate(&path("metadata"));
    assert_eq!(block_mapping.value, Position { line: 4, column: 3 });

    let item = document.locate(&path("managedNodeGroups[1]"));
    assert_eq!(item.key, None);
    assert_eq!(
        item.value,
        Position {
            line: 10,
            column: 5
        }
    );
}

#[test]
fn a_missing_path_points_at_its_nearest_existing_ancestor() {
    let document = single_document(CLUSTER);
    check_positions(
        &document,
        &[
            ("metadata.version", "3:1"),
            ("managedNodeGroups[0].desiredCapacity", "8:5"),
            ("managedNodeGroups[7].name", "7:1"),
            ("metadata.name.first", "4:3"),
            ("metadata[0]", "3:1"),
            ("nodeGroups", "1:1"),
        ],
    );
    let location = document.locate(&path("managedNodeGroups[0].desiredCapacity"));
    assert_eq!(location.matched_segments, 2);
}

#[test]
fn positions_in_the_second_document_count_lines_from_the_top_of_the_file() {
    let text = "\
apiVersion: karpenter.sh/v1
kind: NodePool
---
# the class
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
spec:
  subnetSelectorTerms:
    - tags: {karpenter.sh/discovery: demo}
    - id: subnet-0123456789abcdef0
...
";
    let documents = parse_documents(text).unwrap();
    assert_eq!(documents.len(), 2);
    check_positions(&documents[0], &[("kind", "2:1")]);
    check_positions(
        &documents[1],
        &[
            ("", "5:1"),
            ("kind", "6:1"),
            ("spec.subnetSelectorTerms[0]", "9:7"),
            (
                "spec.subnetSelectorTerms[0].tags[\"karpenter.sh/discovery\"]",
                "9:14",
            ),
            ("spec.subnetSelectorTerms[1].id", "10:7"),
        ],
    );
    assert_eq!(
        documents[1].to_value()["spec"]["subnetSelectorTerms"][1]["id"],
        "subnet-0123456789abcdef0"
    );
}

#[test]
fn an_empty_value_points_at_its_key() {
    let document = single_document("metadata:\n  name:\n  region: us-east-1\n");
    let location = document.locate(&path("metadata.name"));
    assert_eq!(location.value, Position { line: 2, column: 3 });
    assert!(document.to_value()["metadata"]["name"].is_null());
}

#[test]
fn aliases_point_at_the_alias_and_paths_through_them_at_the_anchor() {
    let text = "\
defaults: &defaults
  instanceType: g5.8xlarge
  volumeSize: 200
managedNodeGroups:
  - name: a
    settings: *defaults
";
    let document = single_document(text);
    check_positions(
        &document,
        &[
            ("managedNodeGroups[0].settings", "6:5"),
            ("managedNodeGroups[0].settings.volumeSize", "3:3"),
        ],
    );
    assert_eq!(
        document.to_value()["managedNodeGroups"][0]["settings"]["instanceType"],
        "g5.8xlarge"
    );
}

#[test]
fn empty_text_and_comments_have_no_documents() {
    assert!(parse_documents("").unwrap().is_empty());
    assert!(parse_documents("# only a comment\n").unwrap().is_empty());
    let empty_documents = parse_documents("---\n---\n").unwrap();
    assert_eq!(empty_documents.len(), 2);
    assert!(empty_documents[0].to_value().is_null());
}

#[test]
fn malformed_yaml_reports_line_and_column() {
    check_errors(&[
        (
            "metadata:\n  name: a\n  region: b: c\n",
            "3:12: mapping values are not allowed in this context",
        ),
        (
            "availabilityZones: [a, b\nmetadata: {}\n",
            "2:9: illegal placement of ':' indicator",
        ),
        (
            "name: \"unterminated\n",
            "1:7: while scanning a quoted scalar, found unexpected end of stream",
        ),
        (
            "metadata:\n    name: a\n  region: b\n",
            "3:9: while parsing a block mapping, did not find expected key",
        ),
        (
            "settings: *undefined\n",
            "1:11: while parsing node, found unknown anchor",
        ),
        (
            "metadata:\n  name: a\n  name: b\n",
            "3:3: duplicate entry with key \"name\"",
        ),
        (
            "a: 1\n---\nb: !!int twelve\n",
            "3:10: cannot decode !!str `twelve` as a !!int",
        ),
        (
            "loop: &loop [1, *loop]\n",
            "1:17: alias refers to a node that contains it (recursive alias)",
        ),
    ]);
}

#[test]
fn nesting_deeper_than_the_limit_is_refused_with_a_position() {
    let at_limit = format!(
        "{}{}",
        "[".repeat(MAX_NESTING_DEPTH),
        "]".repeat(MAX_NESTING_DEPTH)
    );
    assert!(parse_documents(&at_limit).is_ok());

    let flow = "[".repeat(200);
    let error = parse_documents(&flow).unwrap_err();
    assert_eq!(error.to_string(), "1:129: nesting deeper than 128 levels");

    // yaml-rust2's scanner reads ahead and stops first, at 256 flow levels.
    let flow = "[".repeat(10_000);
    let error = parse_documents(&flow).unwrap_err();
    assert_eq!(error.to_string(), "1:256: nesting deeper than 128 levels");

    let block: String = (0..1_000)
        .map(|depth| format!("{}k{depth}:\n", " ".repeat(depth)))
        .collect();
    let error = parse_documents(&block).unwrap_err();
    assert_eq!(
        (error.line, error.column),
        (129, 133),
        "at the `:` of `k128:`"
    );

    let sequences = "- ".repeat(5_000) + "x\n";
    assert!(parse_documents(&sequences).is_err());
}

#[test]
fn alias_expansion_beyond_the_limit_is_refused() {
    let billion_laughs = "\
a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]
";
    let error = parse_documents(billion_laughs).unwrap_err();
    assert_eq!(
        error.message,
        format!("aliases expand to more than {MAX_ALIAS_EXPANSION} nodes; refusing to expand them")
    );
    assert_eq!(error.line, 6);

    let deep_through_aliases = format!(
        "a: &a {}x{}\nb: [[[*a]]]\n",
        "[".repeat(MAX_NESTING_DEPTH - 2),
        "]".repeat(MAX_NESTING_DEPTH - 2)
    );
    let error = parse_documents(&deep_through_aliases).unwrap_err();
    assert_eq!(error.to_string(), "2:7: nesting deeper than 128 levels");
}

#[test]
fn aliases_are_bounded_by_the_bytes_they_copy_not_only_by_their_nodes() {
    // 2,000 aliases of one 100 KB string: few nodes, 200 MB of copies.
    let mut text = format!("big: &big \"{}\"\n", "x".repeat(100_000));
    for index in 0..2_000 {
        text.push_str(&format!("t{index}: *big\n"));
    }
    let error = parse_documents(&text).unwrap_err();
    assert!(
        error
            .message
            .starts_with("aliases copy more than 4194304 bytes"),
        "{error}"
    );
    // The 42nd alias is the first past 4 MiB: line 43.
    assert_eq!((error.line, error.column), (43, 6));

    // Spread over many documents, each within the limit, the copies count for the whole
    // text: 60 documents of twenty 10 KB copies each.
    let mut text = String::new();
    for _ in 0..60 {
        text.push_str(&format!("---\nbig: &big \"{}\"\n", "y".repeat(10_000)));
        for copy in 0..20 {
            text.push_str(&format!("c{copy}: *big\n"));
        }
    }
    let Err(error) = parse_documents(&text) else {
        panic!("12 MB of copies over 60 documents were read");
    };
    assert!(
        error.message.starts_with("aliases copy more than"),
        "{error}"
    );
}

/// A mapping of many keys is found by its index, the few-key ones by reading their list:
/// both place every key, merged keys and a later key that overrides a merged one.
#[test]
fn keys_of_large_mappings_point_at_their_lines() {
    let mut text = "base: &base {m0: a, m1: b}\ntags:\n  <<: *base\n".to_owned();
    for index in 0..40 {
        text.push_str(&format!("  k{index}: v{index}\n"));
    }
    text.push_str("  m1: c\n");
    let document = single_document(&text);
    for index in [0, 15, 16, 39] {
        let position = document.position(&path(&format!("tags.k{index}")));
        assert_eq!((position.line, position.column), (index + 4, 3), "k{index}");
    }
    // m0 comes from the anchored mapping; m1 was merged, then set again on the last line.
    assert_eq!(document.position(&path("tags.m0")).line, 1);
    assert_eq!(document.position(&path("tags.m1")).line, 44);
    assert_eq!(document.to_value()["tags"]["m1"].as_str(), Some("c"));
    let missing = document.locate(&path("tags.k40"));
    assert_eq!(missing.matched_segments, 1);
}

#[test]
fn what_a_text_reads_into_stays_within_a_multiple_of_its_size() {
    use shared::yaml::source::{byte_budget, counted_bytes};
    let anchored_many_times = {
        let mut text = "base: &base {a: 1, b: [x, y, z], c: {d: e}}\n".to_owned();
        for index in 0..500 {
            text.push_str(&format!("k{index}: {{<<: *base, n: {index}}}\n"));
        }
        text
    };
    let cases = [
        "a: 1\n".to_owned(),
        "[".to_owned() + &"a,".repeat(10_000) + "]",
        "[".to_owned() + &"{}, ".repeat(3_000) + "]",
        "---\n".repeat(1_000),
        anchored_many_times,
    ];
    for text in cases {
        let documents = match parse_documents(&text) {
            Ok(documents) => documents,
            Err(error) => panic!("{error}"),
        };
        let held: usize = documents
            .iter()
            .map(|document| counted_bytes(&document.to_value()))
            .sum();
        assert!(
            held <= byte_budget(text.len()),
            "{} bytes of text hold {held}, over {}",
            text.len(),
            byte_budget(text.len())
        );
        // What the documents hold as read (values and places together): an entry is 24
        // bytes and takes at least two bytes of text (`a,` in a flow mapping) or is copied
        // by a merge, which the alias limit counts; these texts, merges included, stay
        // under 16 bytes for each byte.
        let held: usize = documents.iter().map(SourceDocument::held_bytes).sum();
        assert!(
            held <= 16 * (text.len() + 4),
            "{} bytes of text hold {held} bytes as read",
            text.len(),
        );
    }
}

/// A small deterministic generator, so failures reproduce.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }
}

fn seed_texts() -> Vec<String> {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/seeds");
    let mut paths: Vec<_> = std::fs::read_dir(directory)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| std::fs::read_to_string(path).unwrap())
        .collect()
}

/// Parses and, when that works, locates every path of the value: neither may panic.
fn parse_without_panicking(text: &str) {
    if let Ok(documents) = parse_documents(text) {
        for document in &documents {
            let _ = document.position(&path("a.b[0].c"));
            let _ = document.position(&YamlPath::root().with_index(3));
        }
    }
}

#[test]
fn no_input_makes_the_parser_panic() {
    let mut random = XorShift(0x9E37_79B9_7F4A_7C15);
    for _ in 0..2_000 {
        let length = random.below(200);
        let bytes: Vec<u8> = (0..length).map(|_| random.next() as u8).collect();
        parse_without_panicking(&String::from_utf8_lossy(&bytes));
    }

    let pieces = [
        "a",
        ":",
        " ",
        "\n",
        "- ",
        "[",
        "]",
        "{",
        "}",
        ",",
        "&x ",
        "*x",
        "!t ",
        "!!int ",
        "?",
        "\"",
        "'",
        "|",
        ">",
        "#",
        "---\n",
        "...\n",
        "%YAML 1.2\n",
        "\t",
        "\\",
        "0x",
        "~",
        "  ",
    ];
    for _ in 0..5_000 {
        let text: String = (0..random.below(40))
            .map(|_| pieces[random.below(pieces.len())])
            .collect();
        parse_without_panicking(&text);
    }

    for seed in seed_texts() {
        for (cut, _) in seed.char_indices() {
            parse_without_panicking(&seed[..cut]);
        }
    }
}

/// yaml_serde's reading of every document in `text`.
fn serde_yaml_documents(text: &str) -> Vec<yaml_serde::Value> {
    yaml_serde::Deserializer::from_str(text)
        .map(|document| serde::Deserialize::deserialize(document).unwrap())
        .collect()
}

fn check_same_values_as_serde_yaml(text: &str) {
    let ours: Vec<yaml_serde::Value> = parse_documents(text)
        .unwrap_or_else(|error| panic!("{error} in\n{text}"))
        .into_iter()
        .map(|document| document.to_value())
        .collect();
    assert_eq!(ours, serde_yaml_documents(text), "for input\n{text}");
}

/// Documents with no plain scalar that YAML 1.1 and 1.2 read differently: there, this reader
/// and yaml_serde (YAML 1.2) agree value for value.
#[test]
fn unambiguous_documents_read_as_serde_yaml_reads_them() {
    for seed in seed_texts() {
        check_same_values_as_serde_yaml(&seed);
    }
    let schemas = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schemas");
    for file in [
        "karpenter.sh_nodepools.aws-provider.yaml",
        "karpenter.k8s.aws_ec2nodeclasses.yaml",
        "karpenter.sh_nodeclaims.yaml",
    ] {
        check_same_values_as_serde_yaml(&std::fs::read_to_string(schemas.join(file)).unwrap());
    }
    for text in [
        "---\na: 1\n---\nb: 2\n...\n---\n",
        "a: !Custom {b: 1}\nc: !Custom 12\nd: !!str 12\ne: !!float 1\nf: !!binary aGk=\n",
        "g: !!null ~\nh: ! bare\ni: !!map {x: 1}\nj: !Named 'quoted'\n",
        "? [complex, key]\n: value\n1: one\ntrue: 'yes'\n~: nothing\n",
        "folded: >\n  one\n  two\nliteral: |-\n  keep\n    this\n",
        "%YAML 1.2\n---\nversion: '1.30'\n",
    ] {
        check_same_values_as_serde_yaml(text);
    }
}

/// What go-yaml v2 (through sigs.k8s.io/yaml: eksctl's and kubectl's reader) makes of a
/// plain scalar, as JSON. Rows marked `decode_test` are go-yaml v2.4.2's own decode tests;
/// the others follow its `resolve` function (resolve.go) and Go's strconv.
#[test]
fn plain_scalars_resolve_as_go_yaml_v2_resolves_them() {
    use serde_json::json;
    let cases = [
        // decode_test
        ("hi", json!("hi")),
        ("true", json!(true)),
        ("10", json!(10)),
        ("0b10", json!(2)),
        ("0xA", json!(10)),
        ("4294967296", json!(4294967296u64)),
        ("0.1", json!(0.1)),
        (".1", json!(0.1)),
        ("-10", json!(-10)),
        ("-.1", json!(-0.1)),
        ("6.8523e+5", json!(685230.0)),
        ("685.230_15e+03", json!(685230.15)),
        ("685_230.15", json!(685230.15)),
        ("y", json!(true)),
        ("NO", json!(false)),
        ("True", json!(true)),
        ("on", json!(true)),
        ("+685_230", json!(685230)),
        ("02472256", json!(685230)),
        ("0x_0A_74_AE", json!(685230)),
        ("0b1010_0111_0100_1010_1110", json!(685230)),
        ("-0b101010", json!(-42)),
        (
            "-0b1000000000000000000000000000000000000000000000000000000000000000",
            json!(i64::MIN),
        ),
        ("2015-01-01", json!("2015-01-01")),
        ("-b_c", json!("-b_c")),
        ("+b_c", json!("+b_c")),
        ("50cent_of_dollar", json!("50cent_of_dollar")),
        // resolve.go
        ("", json!(null)),
        ("~", json!(null)),
        ("Null", json!(null)),
        ("Y", json!(true)),
        ("yes", json!(true)),
        ("Off", json!(false)),
        ("n", json!(false)),
        ("OFF", json!(false)),
        ("012", json!(10)),
        ("08", json!(8.0)),
        ("0o17", json!(15)),
        ("1_000", json!(1000)),
        ("18446744073709551615", json!(u64::MAX)),
        ("18446744073709551616", json!(18446744073709551616.0)),
        ("1e3", json!(1000.0)),
        ("1.", json!(1.0)),
        ("1.30", json!(1.3)),
        ("0x", json!("0x")),
        ("12:30", json!("12:30")),
        ("2012-10-17", json!("2012-10-17")),
        ("0.0.0.0/0", json!("0.0.0.0/0")),
        ("p5.48xlarge", json!("p5.48xlarge")),
        ("inf", json!("inf")),
        ("nan", json!("nan")),
        ("t", json!("t")),
        ("+", json!("+")),
        (".", json!(".")),
    ];
    for (scalar, expected) in cases {
        let text = format!("value: {scalar}\n");
        let documents =
            parse_documents(&text).unwrap_or_else(|error| panic!("{error} in {text:?}"));
        let value: serde_json::Value =
            serde_json::to_value(&documents[0].to_value()["value"]).unwrap();
        assert_eq!(value, expected, "for `{scalar}`");
    }
    // Infinities and NaN have no JSON form: compare them as floats.
    for (scalar, expected) in [
        (".Inf", f64::INFINITY),
        ("-.Inf", f64::NEG_INFINITY),
        ("+.INF", f64::INFINITY),
    ] {
        let documents = parse_documents(&format!("value: {scalar}\n")).unwrap();
        assert_eq!(
            documents[0].to_value()["value"].as_f64(),
            Some(expected),
            "for `{scalar}`"
        );
    }
    let nan = parse_documents("value: .NaN\n").unwrap();
    assert!(nan[0].to_value()["value"].as_f64().is_some_and(f64::is_nan));
    // Quoted and block scalars are strings; an explicit core tag must agree with the text.
    let quoted =
        parse_documents("a: 'yes'\nb: \"012\"\nc: !!float '1.1'\nd: !!null ''\ne: !!str yes\n")
            .unwrap();
    assert_eq!(
        serde_json::to_value(quoted[0].to_value()).unwrap(),
        json!({"a": "yes", "b": "012", "c": 1.1, "d": null, "e": "yes"})
    );
}

/// `<<` merges mappings as go-yaml v2 does: the merged keys, then explicit keys after the
/// merge override them; a sequence of mappings merges with earlier ones winning.
#[test]
fn merge_keys_merge_and_point_at_the_anchored_values() {
    let text = "\
defaults: &defaults
  instanceType: m5.large
  volumeSize: 80
gpu: &gpu
  instanceType: p5.48xlarge
  efaEnabled: true
groups:
  - <<: *defaults
    name: cpu
    volumeSize: 100
  - <<: [*gpu, *defaults]
    name: train
";
    let documents = parse_documents(text).unwrap();
    let document = &documents[0];
    assert_eq!(
        serde_json::to_value(&document.to_value()["groups"]).unwrap(),
        serde_json::json!([
            {"instanceType": "m5.large", "volumeSize": 100, "name": "cpu"},
            {"instanceType": "p5.48xlarge", "efaEnabled": true, "volumeSize": 80, "name": "train"},
        ])
    );
    check_positions(
        document,
        &[
            ("groups[0].instanceType", "2:3"),
            ("groups[0].volumeSize", "10:5"),
            ("groups[1].efaEnabled", "6:3"),
            ("groups[1].name", "12:5"),
        ],
    );
    // A quoted `<<` is an ordinary key; a merge of a scalar is refused.
    let quoted = parse_documents("'<<': 1\n").unwrap();
    assert_eq!(quoted[0].to_value()["<<"].as_i64(), Some(1));
    assert!(parse_documents("a:\n  <<: 1\n").is_err());
}

#[test]
fn paths_display_and_parse_the_same_notation() {
    let cases: [(YamlPath, &str); 7] = [
        (YamlPath::root(), ""),
        (
            YamlPath::root().with_key("metadata").with_key("name"),
            "metadata.name",
        ),
        (
            YamlPath::root()
                .with_key("managedNodeGroups")
                .with_index(1)
                .with_key("subnets"),
            "managedNodeGroups[1].subnets",
        ),
        (
            YamlPath::root()
                .with_key("labels")
                .with_key("karpenter.sh/capacity-type"),
            "labels[\"karpenter.sh/capacity-type\"]",
        ),
        (YamlPath::root().with_index(0).with_index(2), "[0][2]"),
        (
            YamlPath::root()
                .with_key("odd \"key\" \\ here")
                .with_key("x"),
            "[\"odd \\\"key\\\" \\\\ here\"].x",
        ),
        (
            YamlPath::root().with_key("a b").with_key("2"),
            "[\"a b\"].2",
        ),
    ];
    for (built, text) in cases {
        assert_eq!(built.to_string(), text);
        assert_eq!(path(text), built, "parsing {text:?}");
    }

    let mut pushed = YamlPath::root();
    pushed.push_key("spec");
    pushed.push_index(0);
    assert_eq!(
        pushed.segments(),
        [PathSegment::Key("spec".to_owned()), PathSegment::Index(0)]
    );
    assert_eq!(pushed.pop(), Some(PathSegment::Index(0)));
    assert_eq!(pushed.last_key(), Some("spec"));

    assert_eq!(
        path("spec.template.metadata.labels.example.com/team"),
        YamlPath::root()
            .with_key("spec")
            .with_key("template")
            .with_key("metadata")
            .with_key("labels")
            .with_key("example")
            .with_key("com/team"),
    );
    assert_eq!(
        path("labels.team/a"),
        YamlPath::root().with_key("labels").with_key("team/a")
    );

    let errors: Vec<String> = [
        ".a",
        "a..b",
        "a[",
        "a[x]",
        "a[\"b",
        "a[1",
        "a]",
        "a[\"b\\n\"]",
    ]
    .iter()
    .map(|text| text.parse::<YamlPath>().unwrap_err().to_string())
    .collect();
    assert_eq!(
        errors,
        [
            "invalid path at byte 0: expected a key",
            "invalid path at byte 2: expected a key",
            "invalid path at byte 2: expected an index or a quoted key",
            "invalid path at byte 2: expected an index or a quoted key",
            "invalid path at byte 4: unclosed `\"`",
            "invalid path at byte 3: expected `]`",
            "invalid path at byte 1: expected `.` or `[`",
            "invalid path at byte 5: only `\\\"` and `\\\\` escapes",
        ]
    );
}

#[test]
fn an_empty_sequence_item_is_placed_at_its_dash() {
    // (text, path of the empty item, its dash's line and column)
    let cases = [
        ("a:\n  - name: test\n  -\n  - name: test2\n", "a[1]", (3, 3)),
        ("a:\n  - x\n  -\nb: 1\n", "a[1]", (3, 3)),
        ("a:\n  -\n  -\n  - y\n", "a[0]", (2, 3)),
        ("a:\n  -\n  -\n  - y\n", "a[1]", (3, 3)),
        ("a:\n  -\n\n  # between\n  - y\n", "a[0]", (2, 3)),
        ("- x\n-\n", "[1]", (2, 1)),
    ];
    for (text, path, (line, column)) in cases {
        let documents = shared::yaml::source::parse_documents(text).unwrap();
        let path: shared::yaml::source::YamlPath = path.parse().unwrap();
        let location = documents[0].locate(&path);
        assert_eq!(
            (location.value.line, location.value.column),
            (line, column),
            "{text:?} {path}"
        );
    }
}

/// Reads `tree` and `copy` (the same value, one where it was parsed, one copied out) the
/// same way, asserting at each step that they agree.
fn assert_reads_alike(tree: shared::yaml::node::Node<'_>, copy: shared::yaml::node::Node<'_>) {
    use shared::yaml::node::Kind;
    assert!(tree.same_as(copy), "{tree:?} vs {copy:?}");
    assert_eq!(tree.is_null(), copy.is_null());
    assert_eq!(tree.as_str(), copy.as_str());
    assert_eq!(tree.as_bool(), copy.as_bool());
    assert_eq!(tree.as_i64(), copy.as_i64());
    assert_eq!(
        tree.as_f64().map(f64::to_bits),
        copy.as_f64().map(f64::to_bits)
    );
    assert_eq!(tree.key_text(), copy.key_text());
    match (tree.kind(), copy.kind()) {
        (Kind::Mapping(left), Kind::Mapping(right)) => {
            assert_eq!(left.len(), right.len());
            for ((left_key, left_value), (right_key, right_value)) in left.iter().zip(right.iter())
            {
                assert_reads_alike(left_key, right_key);
                assert_reads_alike(left_value, right_value);
                // A key that is a plain string is found by it, in both.
                if let Kind::String(key) = left_key.kind() {
                    let (Some(left), Some(right)) = (tree.get(key), copy.get(key)) else {
                        panic!("`{key}` is missing from one of {tree:?} and {copy:?}");
                    };
                    assert!(left.same_as(right));
                }
                if let Some(key) = left_key.as_str() {
                    assert_eq!(tree.get(key).is_some(), copy.get(key).is_some());
                }
            }
            assert!(tree.get("no such key").is_none());
        }
        (Kind::Sequence(left), Kind::Sequence(right)) => {
            assert_eq!(left.len(), right.len());
            for (left, right) in left.iter().zip(right.iter()) {
                assert_reads_alike(left, right);
            }
            assert!(left.get(left.len()).is_none());
        }
        (Kind::Tagged(left_tag, left), Kind::Tagged(right_tag, right)) => {
            assert_eq!(left_tag, right_tag);
            assert_reads_alike(left, right);
        }
        (left, right) => assert_eq!(format!("{left:?}"), format!("{right:?}")),
    }
}

#[test]
fn a_parsed_document_reads_as_the_value_it_copies_out() {
    let many_keys: String = (0..100)
        .map(|index| format!("k{index}: {index}\n"))
        .collect();
    let texts = [
        "a: 1\nb: [x, 'y', 2.5, -0.0, .inf, ~, yes, 0x1F]\nc: {d: e}\n".to_owned(),
        "base: &b {size: 1, zone: a}\ngroups:\n  - <<: *b\n    size: 2\n  - *b\n".to_owned(),
        "tagged: !Ref name\nlist: !Join [a, b]\n!k key: v\n1: number key\n'1': string key\n"
            .to_owned(),
        "? [a, b]\n: collection key\nnull: ~\ntrue: yes\n".to_owned(),
        many_keys.clone() + "nested:\n" + &many_keys.replace('k', "  j"),
        std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/seeds/eks-p5-odcr-vpc.yaml"),
        )
        .unwrap(),
    ];
    for text in texts {
        for document in parse_documents(&text).unwrap() {
            let copied = document.to_value();
            assert_reads_alike(document.node(), shared::yaml::node::Node::from(&copied));
        }
    }
}
