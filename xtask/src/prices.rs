//! `cargo xtask prices`: the on-demand prices Karpenter ships as its initial price table
//! (aws/karpenter-provider-aws, `pkg/providers/pricing/zz_generated.pricing_aws*.go`,
//! generated from the AWS Price List API), written as `shared/data/on-demand-prices.csv`.
//!
//! Only the tables priced in US dollars are read (the `aws` and `aws-us-gov` partitions);
//! the China table is priced in yuan. Each file says when and for which regions it was
//! generated; the CSV keeps that line as a comment, so the page can say how old a price is.

use std::fmt::Write as _;
use std::path::Path;

use crate::error::{self, Error};

/// Where the generated file goes, relative to the workspace root.
const OUTPUT: &str = "shared/data/on-demand-prices.csv";

/// The generated Go files read, in the pricing directory.
const SOURCES: &[&str] = &[
    "zz_generated.pricing_aws.go",
    "zz_generated.pricing_aws_us_gov.go",
];

/// Writes `shared/data/on-demand-prices.csv` from the generated price tables in `pricing`
/// (a checkout's `pkg/providers/pricing` directory).
pub fn prices(root: &Path, pricing: &Path) -> Result<(), Error> {
    let mut csv = String::from(
        "# On-demand Linux prices in USD per hour, from aws/karpenter-provider-aws\n# pkg/providers/pricing (its initial price table, generated from the AWS Price List API).\n",
    );
    let mut rows = Vec::new();
    for source in SOURCES {
        let path = pricing.join(source);
        let text = std::fs::read_to_string(&path).map_err(error::file(&path))?;
        let generated = text
            .lines()
            .find_map(|line| line.trim().strip_prefix("// generated at "))
            .ok_or_else(|| Error::Task(format!("{source}: no `// generated at` line")))?;
        writeln!(csv, "# {source}: generated at {generated}").expect("writing to a String");
        rows.extend(read_table(source, &text)?);
    }
    rows.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    csv.push_str("region,instance_type,usd_per_hour\n");
    for (region, instance_type, price) in &rows {
        writeln!(csv, "{region},{instance_type},{price}").expect("writing to a String");
    }
    let output = root.join(OUTPUT);
    std::fs::write(&output, csv).map_err(error::file(&output))?;
    println!("wrote {} prices to {}", rows.len(), output.display());
    Ok(())
}

/// The (region, instance type, price) entries of one generated file: a `"region": {`
/// line opens a region, `"type": price,` pairs follow until its `},`.
fn read_table(source: &str, text: &str) -> Result<Vec<(String, String, String)>, Error> {
    let mut rows = Vec::new();
    let mut region: Option<String> = None;
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(name) = line.strip_suffix(": {").and_then(|key| unquote(key)) {
            region = Some(name.to_owned());
            continue;
        }
        if line == "}," {
            region = None;
            continue;
        }
        let Some(region) = &region else { continue };
        if line.starts_with("//") || line.is_empty() {
            continue;
        }
        for pair in line
            .split(',')
            .map(str::trim)
            .filter(|pair| !pair.is_empty())
        {
            let (name, price) = pair.split_once(':').ok_or_else(|| {
                Error::Task(format!(
                    "{source}:{}: `{pair}` is not \"type\": price",
                    number + 1
                ))
            })?;
            let name = unquote(name.trim()).ok_or_else(|| {
                Error::Task(format!("{source}:{}: `{name}` is not quoted", number + 1))
            })?;
            let price: f64 = price.trim().parse().map_err(|_| {
                Error::Task(format!("{source}:{}: `{price}` is not a price", number + 1))
            })?;
            rows.push((region.clone(), name.to_owned(), format!("{price}")));
        }
    }
    if rows.is_empty() {
        return Err(Error::Task(format!("{source}: no prices found")));
    }
    Ok(rows)
}

fn unquote(text: &str) -> Option<&str> {
    text.strip_prefix('"')?.strip_suffix('"')
}

#[cfg(test)]
mod tests {
    use super::read_table;

    #[test]
    fn a_generated_table_is_read_region_by_region_and_a_malformed_pair_is_refused() {
        let text = "var InitialOnDemandPricesAWS = map[string]map[ec2types.InstanceType]float64{\n\t// us-east-1\n\t\"us-east-1\": {\n\t\t// a1 family\n\t\t\"a1.2xlarge\": 0.204000, \"a1.large\": 0.051000,\n\t\t\"p5.48xlarge\": 55.040000,\n\t},\n\t\"us-west-2\": {\n\t\t\"c5.large\": 0.085000,\n\t},\n}\n";
        let rows = read_table("sample.go", text).unwrap();
        let rows: Vec<(&str, &str, &str)> = rows
            .iter()
            .map(|(region, name, price)| (region.as_str(), name.as_str(), price.as_str()))
            .collect();
        assert_eq!(
            rows,
            [
                ("us-east-1", "a1.2xlarge", "0.204"),
                ("us-east-1", "a1.large", "0.051"),
                ("us-east-1", "p5.48xlarge", "55.04"),
                ("us-west-2", "c5.large", "0.085"),
            ]
        );
        let broken = text.replace("\"c5.large\": 0.085000", "c5.large 0.085");
        assert!(read_table("sample.go", &broken).is_err());
        assert!(read_table("empty.go", "package pricing\n").is_err());
    }
}
