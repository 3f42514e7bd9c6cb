//! `cargo xtask earlier-types`: the instance types Karpenter's generated tables list but its
//! generated instance-type docs no longer describe, with what an earlier revision of those
//! docs said about each, written as `xtask/data/karpenter-earlier-types.csv` for
//! `cargo xtask catalog` to join.
//!
//! Karpenter's docs page (`website/content/en/preview/reference/instance-types.md`,
//! generated from EC2's DescribeInstanceTypes in one region) drops a type EC2 stops offering
//! there — p3, dl1, f1, g3 — while its VPC limits and bandwidth tables
//! (`pkg/providers/instancetype/zz_generated.*.go`) still list it, and accounts that hold
//! such instances still run them. For each such type this reads the newest revision of the
//! docs page that has it, in the checkout's git history. A type no revision describes (a
//! new size such as `c8g-flex.large`) gets its family, generation, category and
//! architecture from a described type of the same family (or of its base family, for
//! `-flex`), its bandwidth from the bandwidth table, and 0 (unknown) for its sizes. A type
//! with no described relative (the Mac types, which run macOS) is left out and named.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::process::Command;

use crate::error::{self, Error};

/// Where the generated file goes, relative to the workspace root.
pub const OUTPUT: &str = "xtask/data/karpenter-earlier-types.csv";

/// The generated docs page, in the checkout.
const DOCS: &str = "website/content/en/preview/reference/instance-types.md";
/// Karpenter's VPC limits table, in the checkout.
const VPC_LIMITS: &str = "pkg/providers/instancetype/zz_generated.vpclimits.go";
/// Karpenter's network bandwidth table, in the checkout.
const BANDWIDTH: &str = "pkg/providers/instancetype/zz_generated.bandwidth.go";

/// The columns written: `instance-types.csv`'s, then `local_nvme_gb` (which makes the
/// instance-storage flag) and where the row came from.
pub const HEADER: &str = "instance_type,category,family,generation,size,vcpu,memory_mib,gpu_count,gpu_name,gpu_manufacturer,gpu_memory_mib,accelerator_name,accelerator_count,efa_count,network_bandwidth_mbps,arch,local_nvme_gb,source";

/// Writes `xtask/data/karpenter-earlier-types.csv` from the git history of `checkout`
/// (a clone of aws/karpenter-provider-aws).
pub fn earlier_types(root: &Path, checkout: &Path) -> Result<(), Error> {
    let git = Git { checkout };
    let head = git.run(&["log", "-1", "--format=%h %cs"])?;
    let head = head.trim();
    let vpc_limits = git.run(&["show", &format!("HEAD:{VPC_LIMITS}")])?;
    let bandwidth_text = git.run(&["show", &format!("HEAD:{BANDWIDTH}")])?;
    let bandwidth = read_bandwidth(&bandwidth_text)?;
    let mut listed: BTreeSet<String> = crate::network_cards::read_table(&vpc_limits)?
        .into_iter()
        .map(|cards| cards.name)
        .collect();
    listed.extend(bandwidth.keys().cloned());

    let current = read_docs(&git.run(&["show", &format!("HEAD:{DOCS}")])?);
    if current.is_empty() {
        return Err(Error::Task(format!(
            "{DOCS} at HEAD describes no instance type"
        )));
    }
    let mut wanted: BTreeSet<&str> = listed
        .iter()
        .map(String::as_str)
        .filter(|name| !current.contains_key(*name))
        .collect();

    let mut rows: BTreeMap<String, String> = BTreeMap::new();
    let mut found: BTreeMap<String, Labels> = BTreeMap::new();
    let revisions = git.run(&["log", "--format=%h %cs", "--", DOCS])?;
    for revision in revisions.lines().skip(1) {
        if wanted.is_empty() {
            break;
        }
        let (hash, date) = revision.split_once(' ').unwrap_or((revision, ""));
        let text = git.run(&["show", &format!("{hash}:{DOCS}")])?;
        if !wanted.iter().any(|name| text.contains(&heading(name))) {
            continue;
        }
        let described = read_docs(&text);
        let source = format!("Karpenter's instance-type docs at {hash} ({date})");
        wanted.retain(|name| match described.get(*name) {
            Some(labels) => {
                rows.insert(
                    (*name).to_owned(),
                    described_row(name, labels, bandwidth.get(*name).copied(), &source),
                );
                found.insert((*name).to_owned(), labels.clone());
                false
            }
            None => true,
        });
    }

    let mut left_out = Vec::new();
    for name in wanted {
        let relative = relative(name, &current)
            .map(|(relative_name, labels)| (relative_name, labels, "its docs there"))
            .or_else(|| {
                relative(name, &found).map(|(relative_name, labels)| {
                    (relative_name, labels, "an earlier revision of its docs")
                })
            });
        match relative {
            Some((relative_name, labels, docs)) => {
                let source = format!(
                    "named in Karpenter's tables at {head}; family facts of {relative_name} in {docs}; sizes unknown"
                );
                rows.insert(
                    name.to_owned(),
                    undescribed_row(name, labels, bandwidth.get(name).copied(), &source),
                );
            }
            None => left_out.push(name),
        }
    }

    let mut csv = format!(
        "# Instance types aws/karpenter-provider-aws at {head} lists in {VPC_LIMITS} or\n\
         # {BANDWIDTH} but whose {DOCS} no longer describes,\n\
         # each from the newest revision of that page that did. Written by `cargo xtask earlier-types`.\n\
         {HEADER}\n"
    );
    for line in rows.values() {
        csv.push_str(line);
        csv.push('\n');
    }
    let output = root.join(OUTPUT);
    std::fs::write(&output, csv).map_err(error::file(&output))?;
    println!(
        "wrote {} types to {}; run `cargo xtask catalog` to join them",
        rows.len(),
        output.display()
    );
    if !left_out.is_empty() {
        println!(
            "left out (no revision of the docs describes them or their family; \
             `xtask/data/instance-type-additions.csv` may give their facts): {}",
            left_out.join(" ")
        );
    }
    Ok(())
}

/// `git -C <checkout> …`, its standard output as text.
struct Git<'a> {
    checkout: &'a Path,
}

impl Git<'_> {
    fn run(&self, args: &[&str]) -> Result<String, Error> {
        let output = Command::new("git")
            .arg("-C")
            .arg(self.checkout)
            .args(args)
            .output()
            .map_err(error::file(&self.checkout))?;
        if !output.status.success() {
            return Err(Error::Task(format!(
                "git {} in {}: {}",
                args.join(" "),
                self.checkout.display(),
                String::from_utf8_lossy(&output.stderr).trim()
            )));
        }
        String::from_utf8(output.stdout)
            .map_err(|_| Error::Task(format!("git {}: output is not UTF-8", args.join(" "))))
    }
}

fn heading(name: &str) -> String {
    format!("### `{name}`")
}

/// One type's label and resource rows, by key.
type Labels = HashMap<String, String>;

/// Each type the docs page describes, with its labels and resources: a `### \`type\``
/// heading, then table rows ` |key|value|` up to the next heading.
fn read_docs(text: &str) -> BTreeMap<String, Labels> {
    let mut described = BTreeMap::new();
    let mut current: Option<(String, Labels)> = None;
    for line in text.lines() {
        if let Some(name) = line
            .strip_prefix("### `")
            .and_then(|rest| rest.strip_suffix('`'))
        {
            if let Some((name, labels)) = current.take() {
                described.insert(name, labels);
            }
            current = Some((name.to_owned(), Labels::new()));
            continue;
        }
        if line.starts_with("## ") {
            if let Some((name, labels)) = current.take() {
                described.insert(name, labels);
            }
            continue;
        }
        let Some((_, labels)) = &mut current else {
            continue;
        };
        let cells: Vec<&str> = line.trim().trim_matches('|').split('|').collect();
        if let [key, value] = cells[..] {
            labels.insert(key.trim().to_owned(), value.trim().to_owned());
        }
    }
    if let Some((name, labels)) = current {
        described.insert(name, labels);
    }
    described
}

/// The bandwidth table's `"type": megabits,` entries. A type the table names only in a
/// comment ("has vague bandwidth information") has no number and is left out.
fn read_bandwidth(text: &str) -> Result<BTreeMap<String, u32>, Error> {
    let mut bandwidth = BTreeMap::new();
    for (number, line) in text.lines().enumerate() {
        let Some((key, value)) = line.trim().trim_end_matches(',').split_once(':') else {
            continue;
        };
        let Some(name) = key
            .trim()
            .strip_prefix('"')
            .and_then(|key| key.strip_suffix('"'))
        else {
            continue;
        };
        let megabits = value.trim().parse().map_err(|_| {
            Error::Task(format!(
                "{BANDWIDTH}:{}: {name} has bandwidth {value:?}, not a whole number",
                number + 1
            ))
        })?;
        bandwidth.insert(name.to_owned(), megabits);
    }
    if bandwidth.is_empty() {
        return Err(Error::Task(format!("{BANDWIDTH}: no instance types found")));
    }
    Ok(bandwidth)
}

const LABEL: &str = "karpenter.k8s.aws/instance-";

fn label<'a>(labels: &'a Labels, key: &str) -> &'a str {
    labels
        .get(&format!("{LABEL}{key}"))
        .map_or("", String::as_str)
}

fn count(labels: &Labels, key: &str) -> String {
    match label(labels, key) {
        "" => "0".to_owned(),
        value => value.to_owned(),
    }
}

fn size(name: &str) -> &str {
    name.split_once('.').map_or("", |(_, size)| size)
}

/// A described type's row. The bandwidth table's current number, when it has one, is
/// preferred to the revision's (older revisions had no bandwidth label).
fn described_row(name: &str, labels: &Labels, bandwidth: Option<u32>, source: &str) -> String {
    let network = bandwidth.map_or_else(
        || label(labels, "network-bandwidth").to_owned(),
        |mbps| mbps.to_string(),
    );
    let efa = labels
        .get("vpc.amazonaws.com/efa")
        .map_or("0", String::as_str);
    [
        name,
        label(labels, "category"),
        label(labels, "family"),
        label(labels, "generation"),
        size(name),
        label(labels, "cpu"),
        label(labels, "memory"),
        &count(labels, "gpu-count"),
        label(labels, "gpu-name"),
        label(labels, "gpu-manufacturer"),
        label(labels, "gpu-memory"),
        label(labels, "accelerator-name"),
        &count(labels, "accelerator-count"),
        efa,
        &network,
        labels.get("kubernetes.io/arch").map_or("", String::as_str),
        label(labels, "local-nvme"),
        source,
    ]
    .join(",")
}

/// A type no revision describes: what its family shares with `relative`, sizes unknown.
fn undescribed_row(name: &str, relative: &Labels, bandwidth: Option<u32>, source: &str) -> String {
    let family = name.split('.').next().unwrap_or(name);
    let network = bandwidth.map(|mbps| mbps.to_string()).unwrap_or_default();
    [
        name,
        label(relative, "category"),
        family,
        label(relative, "generation"),
        size(name),
        "0",
        "0",
        "0",
        "",
        "",
        "",
        "",
        "0",
        "0",
        &network,
        relative
            .get("kubernetes.io/arch")
            .map_or("", String::as_str),
        "",
        source,
    ]
    .join(",")
}

/// A described type of `name`'s family, or of its base family for a `-flex` family
/// (`c8g-flex` runs on `c8g`'s processor), whose family facts it shares. Only families
/// without accelerators qualify: a size's GPUs are not its family's to guess.
fn relative<'a>(
    name: &str,
    described: &'a BTreeMap<String, Labels>,
) -> Option<(&'a str, &'a Labels)> {
    let family = name.split('.').next()?;
    let base = family.strip_suffix("-flex").unwrap_or(family);
    [family, base].into_iter().find_map(|wanted| {
        described
            .iter()
            .find(|(_, labels)| label(labels, "family") == wanted)
            .filter(|(_, labels)| {
                count(labels, "gpu-count") == "0" && count(labels, "accelerator-count") == "0"
            })
            .map(|(relative_name, labels)| (relative_name.as_str(), labels))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOCS_SAMPLE: &str = "## dl1 Family\n### `dl1.24xlarge`\n#### Labels\n | Label | Value |\n |--|--|\n |karpenter.k8s.aws/instance-category|dl|\n |karpenter.k8s.aws/instance-cpu|96|\n |karpenter.k8s.aws/instance-family|dl1|\n |karpenter.k8s.aws/instance-generation|1|\n |karpenter.k8s.aws/instance-gpu-count|8|\n |karpenter.k8s.aws/instance-gpu-manufacturer|habana|\n |karpenter.k8s.aws/instance-gpu-memory|32768|\n |karpenter.k8s.aws/instance-gpu-name|gaudi-hl-205|\n |karpenter.k8s.aws/instance-local-nvme|4000|\n |karpenter.k8s.aws/instance-memory|786432|\n |karpenter.k8s.aws/instance-network-bandwidth|400000|\n |kubernetes.io/arch|amd64|\n#### Resources\n | Resource | Quantity |\n |--|--|\n |cpu|95690m|\n |vpc.amazonaws.com/efa|4|\n## m8g Family\n### `m8g.large`\n#### Labels\n |karpenter.k8s.aws/instance-category|m|\n |karpenter.k8s.aws/instance-family|m8g|\n |karpenter.k8s.aws/instance-generation|8|\n |karpenter.k8s.aws/instance-cpu|2|\n |kubernetes.io/arch|arm64|\n";

    #[test]
    fn a_described_type_keeps_every_fact_the_docs_gave() {
        let described = read_docs(DOCS_SAMPLE);
        assert_eq!(described.len(), 2);
        let row = described_row(
            "dl1.24xlarge",
            &described["dl1.24xlarge"],
            None,
            "docs at abc",
        );
        assert_eq!(
            row,
            "dl1.24xlarge,dl,dl1,1,24xlarge,96,786432,8,gaudi-hl-205,habana,32768,,0,4,400000,amd64,4000,docs at abc"
        );
        assert_eq!(row.split(',').count(), HEADER.split(',').count());
    }

    #[test]
    fn a_new_flex_size_shares_its_base_family_facts_and_no_sizes() {
        let described = read_docs(DOCS_SAMPLE);
        let (relative_name, labels) = relative("m8g-flex.large", &described).unwrap();
        assert_eq!(relative_name, "m8g.large");
        assert_eq!(
            undescribed_row("m8g-flex.large", labels, Some(12500), "tables"),
            "m8g-flex.large,m,m8g-flex,8,large,0,0,0,,,,,0,0,12500,arm64,,tables"
        );
        assert!(relative("mac2.metal", &described).is_none());
        assert!(
            relative("dl1.2xlarge", &described).is_none(),
            "an accelerated family's sizes are not guessed"
        );
    }

    #[test]
    fn bandwidth_entries_are_read_and_comments_skipped() {
        let text = "var (\n\tInstanceTypeBandwidthMegabits = map[string]int64{\n\t\t// c1.medium has vague bandwidth information, bandwidth is Moderate\n\t\t\"g3.4xlarge\":           5000,\n\t\t\"trn2.3xlarge\":         200000,\n\t}\n)\n";
        let bandwidth = read_bandwidth(text).unwrap();
        assert_eq!(bandwidth.len(), 2);
        assert_eq!(bandwidth["trn2.3xlarge"], 200_000);
        let broken = text.replace("5000", "five");
        assert!(
            read_bandwidth(&broken)
                .unwrap_err()
                .to_string()
                .contains("g3.4xlarge")
        );
    }
}
