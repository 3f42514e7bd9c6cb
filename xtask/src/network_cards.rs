//! `cargo xtask network-cards`: how many network cards each instance type has and how many
//! network interfaces each card takes, from the VPC limits table Karpenter ships
//! (aws/karpenter-provider-aws, `pkg/providers/instancetype/zz_generated.vpclimits.go`),
//! written as `xtask/data/network-cards.csv` for `cargo xtask catalog` to join.
//!
//! Karpenter checks an EC2NodeClass's `networkInterfaces` against these numbers (its
//! `compatibility.go`: a type whose cards are fewer than an interface's card index, or whose
//! card takes fewer interfaces than a device index, is not launched), and eksctl gives an
//! EFA node group one interface per network card.

use std::fmt::Write as _;
use std::path::Path;

use crate::error::{self, Error};

/// Where the generated file goes, relative to the workspace root.
pub const OUTPUT: &str = "xtask/data/network-cards.csv";

/// The generated Go file read, in the instancetype directory.
const SOURCE: &str = "zz_generated.vpclimits.go";

/// One type's cards: how many, and the interfaces each takes (the same on every card of
/// every type in the table; a type where they differ is refused rather than averaged).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Cards {
    pub(crate) name: String,
    cards: u32,
    interfaces_per_card: u32,
}

/// Writes `xtask/data/network-cards.csv` from the table in `instancetype` (a checkout's
/// `pkg/providers/instancetype` directory).
pub fn network_cards(root: &Path, instancetype: &Path) -> Result<(), Error> {
    let path = instancetype.join(SOURCE);
    let text = std::fs::read_to_string(&path).map_err(error::file(&path))?;
    let generated = text
        .lines()
        .find_map(|line| line.trim().strip_prefix("// This file was generated at "))
        .ok_or_else(|| Error::Task(format!("{SOURCE}: no `// This file was generated at` line")))?;
    let mut rows = read_table(&text)?;
    rows.sort_by(|a, b| a.name.cmp(&b.name));
    let mut csv = format!(
        "# Network cards per instance type, from aws/karpenter-provider-aws\n\
         # pkg/providers/instancetype/{SOURCE} (generated at {generated}).\n\
         instance_type,network_cards,interfaces_per_card\n"
    );
    for row in &rows {
        writeln!(
            csv,
            "{},{},{}",
            row.name, row.cards, row.interfaces_per_card
        )
        .expect("writing to a String");
    }
    let output = root.join(OUTPUT);
    std::fs::write(&output, csv).map_err(error::file(&output))?;
    println!(
        "wrote the network cards of {} types to {}; run `cargo xtask catalog` to join them",
        rows.len(),
        output.display()
    );
    Ok(())
}

/// An entry being read: the type, its `(card index, interfaces)` so far, and a card's
/// `MaximumNetworkInterfaces` waiting for its `NetworkCardIndex`.
type Entry = (String, Vec<(u32, u32)>, Option<u32>);

/// The entries of `var Limits = map[string]*VPCLimits{`: a `"type": {` line opens one,
/// its `NetworkCards` list holds `MaximumNetworkInterfaces: N,` and `NetworkCardIndex: I,`
/// pairs, and a line `},` at the entry's depth closes it.
pub(crate) fn read_table(text: &str) -> Result<Vec<Cards>, Error> {
    let mut rows = Vec::new();
    let mut current: Option<Entry> = None;
    for (number, line) in text.lines().enumerate() {
        let at = || format!("{SOURCE}:{}", number + 1);
        let indented = line.strip_prefix('\t').unwrap_or("");
        if !indented.starts_with('\t') {
            if let Some(name) = indented
                .strip_suffix(": {")
                .and_then(|key| key.strip_prefix('"')?.strip_suffix('"'))
            {
                current = Some((name.to_owned(), Vec::new(), None));
                continue;
            }
            if indented == "}," {
                let (name, cards, _) = current
                    .take()
                    .ok_or_else(|| Error::Task(format!("{}: `}},` closes no entry", at())))?;
                rows.push(
                    cards_of(name, &cards)
                        .map_err(|reason| Error::Task(format!("{}: {reason}", at())))?,
                );
                continue;
            }
        }
        let Some((_, cards, pending)) = &mut current else {
            continue;
        };
        let field = line.trim().trim_end_matches(',');
        let value = |prefix: &str| -> Result<Option<u32>, Error> {
            field
                .strip_prefix(prefix)
                .map(|value| {
                    value.trim().parse().map_err(|_| {
                        Error::Task(format!("{}: `{field}` is not a whole number", at()))
                    })
                })
                .transpose()
        };
        if let Some(maximum) = value("MaximumNetworkInterfaces:")? {
            *pending = Some(maximum);
        } else if let Some(index) = value("NetworkCardIndex:")? {
            let maximum = pending.take().ok_or_else(|| {
                Error::Task(format!(
                    "{}: NetworkCardIndex before its MaximumNetworkInterfaces",
                    at()
                ))
            })?;
            cards.push((index, maximum));
        }
    }
    if rows.is_empty() {
        return Err(Error::Task(format!("{SOURCE}: no instance types found")));
    }
    Ok(rows)
}

fn cards_of(name: String, cards: &[(u32, u32)]) -> Result<Cards, String> {
    let indices: Vec<u32> = cards.iter().map(|(index, _)| *index).collect();
    if indices.is_empty() || indices != (0..indices.len() as u32).collect::<Vec<_>>() {
        return Err(format!(
            "{name}: network card indices {indices:?} are not 0, 1, …"
        ));
    }
    let interfaces_per_card = cards[0].1;
    if cards
        .iter()
        .any(|(_, maximum)| *maximum != interfaces_per_card)
    {
        return Err(format!(
            "{name}: its cards take different numbers of interfaces; the catalog has one per type"
        ));
    }
    Ok(Cards {
        name,
        cards: cards.len() as u32,
        interfaces_per_card,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "var Limits = map[string]*VPCLimits{\n\t\"a1.large\": {\n\t\tInterface:               3,\n\t\tNetworkCards: []NetworkCard{\n\t\t\t{\n\t\t\t\tMaximumNetworkInterfaces: 3,\n\t\t\t\tNetworkCardIndex:         0,\n\t\t\t},\n\t\t},\n\t\tHypervisor:  \"nitro\",\n\t},\n\t\"p5.48xlarge\": {\n\t\tNetworkCards: []NetworkCard{\n\t\t\t{\n\t\t\t\tMaximumNetworkInterfaces: 2,\n\t\t\t\tNetworkCardIndex:         0,\n\t\t\t},\n\n\t\t\t{\n\t\t\t\tMaximumNetworkInterfaces: 2,\n\t\t\t\tNetworkCardIndex:         1,\n\t\t\t},\n\t\t},\n\t},\n}\n";

    #[test]
    fn each_type_gets_its_card_count_and_interfaces_per_card() {
        let rows = read_table(SAMPLE).unwrap();
        assert_eq!(
            rows,
            [
                Cards {
                    name: "a1.large".into(),
                    cards: 1,
                    interfaces_per_card: 3
                },
                Cards {
                    name: "p5.48xlarge".into(),
                    cards: 2,
                    interfaces_per_card: 2
                },
            ]
        );
    }

    #[test]
    fn cards_out_of_order_or_unequal_are_refused_with_the_type_named() {
        let skipped = SAMPLE.replace("NetworkCardIndex:         1", "NetworkCardIndex:         2");
        let error = read_table(&skipped).unwrap_err().to_string();
        assert!(error.contains("p5.48xlarge"), "{error}");
        let unequal = SAMPLE.replacen(
            "MaximumNetworkInterfaces: 2",
            "MaximumNetworkInterfaces: 4",
            1,
        );
        let error = read_table(&unequal).unwrap_err().to_string();
        assert!(error.contains("different numbers"), "{error}");
        assert!(read_table("package instancetype\n").is_err());
    }
}
