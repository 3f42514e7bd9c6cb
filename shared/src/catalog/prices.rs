//! On-demand prices per hour, from the table Karpenter ships as its initial prices
//! (`shared/data/on-demand-prices.csv`, written by `cargo xtask prices` from
//! aws/karpenter-provider-aws). The table holds us-east-1 and the GovCloud regions; for any
//! other region of the `aws` partition the us-east-1 price is given, named as such, since
//! it is the one public figure at hand. China's regions are priced in yuan and get none.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Serialize;

const PRICES_CSV: &str = include_str!("../../data/on-demand-prices.csv");

/// The region whose prices stand in for the `aws` partition's other regions.
pub const REFERENCE_REGION: &str = "us-east-1";

/// An on-demand price per hour.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Price {
    /// US dollars per hour, Linux, on-demand.
    pub usd_per_hour: f64,
    /// The region the price is for: the design's, or [`REFERENCE_REGION`] when the table
    /// has none for the design's region.
    pub region: &'static str,
}

struct Table {
    /// Region → instance type → USD per hour.
    regions: HashMap<&'static str, HashMap<&'static str, f64>>,
    /// When the table was generated, as its comment lines say.
    generated: Vec<&'static str>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut regions: HashMap<&str, HashMap<&str, f64>> = HashMap::new();
        let mut generated = Vec::new();
        for line in PRICES_CSV.lines() {
            if let Some(comment) = line.strip_prefix("# ") {
                if let Some((_, when)) = comment.split_once(": generated at ") {
                    generated.push(when);
                }
                continue;
            }
            let mut fields = line.split(',');
            let (Some(region), Some(name), Some(price)) =
                (fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            if let Ok(price) = price.parse::<f64>() {
                regions.entry(region).or_default().insert(name, price);
            }
        }
        Table { regions, generated }
    })
}

/// The on-demand price of `instance_type` in `region`, or in [`REFERENCE_REGION`] for a
/// region of the `aws` partition the table does not hold; `None` when unknown.
pub fn on_demand(region: &str, instance_type: &str) -> Option<Price> {
    let region = price_region(region)?;
    table()
        .regions
        .get(region)?
        .get(instance_type)
        .map(|price| Price {
            usd_per_hour: *price,
            region,
        })
}

/// The region whose prices apply to `region`: itself when the table holds it, else
/// [`REFERENCE_REGION`] for the `aws` partition; `None` for China and unknown GovCloud.
pub fn price_region(region: &str) -> Option<&'static str> {
    let region = region.trim();
    match table().regions.get_key_value(region) {
        Some((known, _)) => Some(known),
        None if region.starts_with("cn-") || region.starts_with("us-gov-") => None,
        None => Some(REFERENCE_REGION),
    }
}

/// When the table's sources were generated (one timestamp per source file).
pub fn generated_at() -> &'static [&'static str] {
    &table().generated
}

/// "$55.04/h", or "$0.0255/h" below a dollar.
pub fn per_hour(price: &Price) -> String {
    if price.usd_per_hour >= 1.0 {
        format!("${:.2}/h", price.usd_per_hour)
    } else {
        format!("${:.4}/h", price.usd_per_hour)
    }
}
