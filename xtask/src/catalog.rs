//! `cargo xtask catalog`: joins the two reference tables of EC2 instance types into the
//! one compact file `shared` embeds, `shared/data/instance-catalog.csv`.
//!
//! The inputs are `instance-types.csv` (what each type has: CPUs, memory, GPUs,
//! accelerators, EFA interfaces, bandwidth) and `eksctl-instance-flags.csv` (eksctl's own
//! table: EFA, NVIDIA, Neuron, Capacity-Block and instance-storage flags). Neither has
//! quoted fields, so a line is split on commas; a quote anywhere is refused rather than
//! misread.
//!
//! Types newer than both tables (the UltraServer types) come from
//! `xtask/data/instance-type-additions.csv`: one fact per line with the public source it
//! was read from. An addition fills a type or a value the tables do not have; one that
//! contradicts them is refused. `shared/data/instance-catalog-sources.md` is written beside
//! the catalog: where each column comes from, and every added fact with its source.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crate::error::{self, Error};

/// The header of the generated file; `shared/src/catalog.rs` expects exactly this.
const HEADER: &str = "name,family,gen,vcpu,mem_mib,gpus,gpu,gpu_mfr,gpu_mib,acc,accs,efa,net_mbps,arch,efa_ok,nvidia,neuron,cb,store,cb_only,eksctl,cards,card_enis,efa_card0";

/// Where the generated file goes, relative to the workspace root.
const OUTPUT: &str = "shared/data/instance-catalog.csv";

/// Facts about types the reference tables lack, each with its source.
const ADDITIONS: &str = "xtask/data/instance-type-additions.csv";

/// The types Karpenter's tables list that its current docs no longer describe, written by
/// `cargo xtask earlier-types`.
const EARLIER: &str = crate::earlier_types::OUTPUT;

/// Where each column's values come from, and the added facts, written beside the catalog.
const SOURCES_OUTPUT: &str = "shared/data/instance-catalog-sources.md";

/// Where the reference tables' columns come from, by generated column.
const COLUMN_SOURCES: [(&str, &str); 24] = [
    ("name", "both tables' `instance_type`"),
    (
        "family",
        "instance-types.csv `family` (Karpenter's `karpenter.k8s.aws/instance-family`)",
    ),
    (
        "gen",
        "instance-types.csv `generation` (`karpenter.k8s.aws/instance-generation`)",
    ),
    (
        "vcpu",
        "instance-types.csv `vcpu` (`karpenter.k8s.aws/instance-cpu`)",
    ),
    (
        "mem_mib",
        "instance-types.csv `memory_mib` (`karpenter.k8s.aws/instance-memory`)",
    ),
    (
        "gpus",
        "instance-types.csv `gpu_count` (`karpenter.k8s.aws/instance-gpu-count`)",
    ),
    (
        "gpu",
        "instance-types.csv `gpu_name` (`karpenter.k8s.aws/instance-gpu-name`)",
    ),
    (
        "gpu_mfr",
        "instance-types.csv `gpu_manufacturer` (`karpenter.k8s.aws/instance-gpu-manufacturer`)",
    ),
    (
        "gpu_mib",
        "instance-types.csv `gpu_memory_mib` (`karpenter.k8s.aws/instance-gpu-memory`)",
    ),
    (
        "acc",
        "instance-types.csv `accelerator_name` (`karpenter.k8s.aws/instance-accelerator-name`)",
    ),
    (
        "accs",
        "instance-types.csv `accelerator_count` (`karpenter.k8s.aws/instance-accelerator-count`)",
    ),
    (
        "efa",
        "instance-types.csv `efa_count` (the `vpc.amazonaws.com/efa` resource)",
    ),
    (
        "net_mbps",
        "instance-types.csv `network_bandwidth_mbps` (`karpenter.k8s.aws/instance-network-bandwidth`)",
    ),
    (
        "arch",
        "instance-types.csv `arch` (`kubernetes.io/arch`); eksctl's `cpu_arch` for types only eksctl lists",
    ),
    (
        "efa_ok",
        "eksctl-instance-flags.csv `efa_supported`; derived from `efa` for types eksctl lacks",
    ),
    (
        "nvidia",
        "eksctl-instance-flags.csv `nvidia_gpu_supported`; derived from `gpu_mfr` for types eksctl lacks",
    ),
    (
        "neuron",
        "eksctl-instance-flags.csv `neuron_supported`; derived from `acc` for types eksctl lacks",
    ),
    (
        "cb",
        "eksctl-instance-flags.csv `cbr_supported`; 0 for types eksctl lacks",
    ),
    (
        "store",
        "eksctl-instance-flags.csv `instance_storage_supported`; the family's value for types eksctl lacks",
    ),
    (
        "cb_only",
        "neither table says; 0 unless the additions table gives the type's purchase constraint",
    ),
    (
        "eksctl",
        "1 when eksctl-instance-flags.csv lists the type: eksctl picks a managed group's AMI type and the device plugins it installs from that table (pkg/utils/instance/instance_types.go)",
    ),
    (
        "cards",
        "network-cards.csv `network_cards` (written by `cargo xtask network-cards` from aws/karpenter-provider-aws pkg/providers/instancetype/zz_generated.vpclimits.go, EC2's `MaximumNetworkCards`); for types that table lacks, the additions table's, else 0 (unknown)",
    ),
    (
        "card_enis",
        "network-cards.csv `interfaces_per_card` (the same table's `MaximumNetworkInterfaces` of each card, equal on every card of a type); for types that table lacks, the additions table's, else 0 (unknown)",
    ),
    (
        "efa_card0",
        "derived: 1 when the type has EFA and network card 0 takes an EFA device, which is every EFA type whose EFA interfaces are as many as its network cards (or whose cards or EFA count are unknown: p6e-gb200, whose card 0 takes `efa` in AWS's own launch templates, aws/aws-parallelcluster#6930); 0 for p6-b300.48xlarge, whose 17th card is card 0, ENA only (aws/aws-parallelcluster#7143, quoting AWS: 'P6-B300 has 17 network cards, of which the primary network card (network card index 0) only supports ENA')",
    ),
];

/// The network cards of each type, written by `cargo xtask network-cards`.
const NETWORK_CARDS: &str = crate::network_cards::OUTPUT;

/// Writes `shared/data/instance-catalog.csv` from the reference tables in `reference`
/// (by default `../shared/reference` next to the workspace root).
pub fn catalog(root: &Path, reference: Option<PathBuf>) -> Result<(), Error> {
    let reference = reference.unwrap_or_else(|| root.join("../shared/reference"));
    let types = Table::read(&reference.join("instance-types.csv"))?;
    let flags = Table::read(&reference.join("eksctl-instance-flags.csv"))?;

    let earlier = Table::read(&root.join(EARLIER))?;

    // Each name with its facts' table and row (instance-types.csv first, then the types
    // Karpenter's earlier docs described) and its row of eksctl's table.
    let mut joined: BTreeMap<&str, Joined<'_>> = BTreeMap::new();
    for (row_idx, row) in types.rows.iter().enumerate() {
        let name = types.field(row, "instance_type")?;
        if joined
            .insert(name, (Some((&types, row_idx)), None))
            .is_some()
        {
            return Err(Error::Task(format!(
                "instance-types.csv lists {name} twice"
            )));
        }
    }
    let mut from_earlier = Vec::new();
    for (row_idx, row) in earlier.rows.iter().enumerate() {
        let name = earlier.field(row, "instance_type")?;
        let entry = joined.entry(name).or_default();
        match entry.0 {
            Some((table, _)) if std::ptr::eq(table, &earlier) => {
                return Err(Error::Task(format!("{EARLIER} lists {name} twice")));
            }
            // The reference table describes it: that is the newer description.
            Some(_) => {}
            None => {
                entry.0 = Some((&earlier, row_idx));
                from_earlier.push(name);
            }
        }
    }
    for (row_idx, row) in flags.rows.iter().enumerate() {
        let name = flags.field(row, "instance_type")?;
        let entry = joined.entry(name).or_default();
        if entry.1.replace(row_idx).is_some() {
            return Err(Error::Task(format!(
                "eksctl-instance-flags.csv lists {name} twice"
            )));
        }
    }

    let storage_by_family = instance_storage_by_family(&flags)?;
    let mut rows: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let (mut only_types, mut only_flags) = (Vec::new(), Vec::new());
    for (name, (type_row, flag_idx)) in &joined {
        let type_row = type_row.map(|(table, row_idx)| (table, &table.rows[row_idx]));
        let flag_row = flag_idx.map(|row_idx| &flags.rows[row_idx]);
        let (facts, row_flags) = match (type_row, flag_row) {
            (Some((table, type_row)), Some(flag_row)) => {
                let facts = Facts::from_types(table, type_row)?;
                let row_flags = Flags::from_eksctl(&flags, flag_row)?;
                warn_on_disagreement(name, &facts, &row_flags);
                (facts, row_flags)
            }
            (Some((table, type_row)), None) => {
                only_types.push(*name);
                let facts = Facts::from_types(table, type_row)?;
                let mut row_flags = Flags::guessed(&facts, &storage_by_family);
                // Karpenter's docs label local NVMe (`instance-local-nvme`, in GB).
                if table.columns.contains_key("local_nvme_gb")
                    && table
                        .optional_number(type_row, "local_nvme_gb")?
                        .is_some_and(|gb| gb > 0)
                {
                    row_flags.instance_storage = true;
                }
                (facts, row_flags)
            }
            (None, Some(flag_row)) => {
                only_flags.push(*name);
                let row_flags = Flags::from_eksctl(&flags, flag_row)?;
                let facts = Facts::guessed(name, &flags, flag_row, &row_flags)?;
                (facts, row_flags)
            }
            (None, None) => unreachable!("every joined name came from one of the tables"),
        };
        rows.insert(
            (*name).to_owned(),
            row(name, &facts, &row_flags, flag_row.is_some()),
        );
    }
    let additions = Table::read(&root.join(ADDITIONS))?;
    let added = add_facts(&mut rows, &additions)?;
    let cards = Table::read(&root.join(NETWORK_CARDS))?;
    let carded = add_cards(&mut rows, &cards)?;
    let mut text = String::with_capacity(rows.len() * 80);
    text.push_str(HEADER);
    text.push('\n');
    for fields in rows.values() {
        text.push_str(&fields.join(","));
        text.push('\n');
    }

    let output = root.join(OUTPUT);
    if let Some(parent) = output.parent() {
        std::fs::create_dir_all(parent).map_err(error::file(&parent))?;
    }
    std::fs::write(&output, &text).map_err(error::file(&output))?;
    println!(
        "xtask: wrote {} instance types ({} bytes) to {}",
        rows.len(),
        text.len(),
        output.display()
    );
    let earlier_sources = from_earlier
        .iter()
        .map(|name| {
            let (table, row_idx) = joined[name].0.expect("joined from the earlier table");
            table
                .field(&table.rows[row_idx], "source")
                .map(|source| (*name, source))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let sources = sources_text(&earlier_sources, &added);
    let sources_output = root.join(SOURCES_OUTPUT);
    std::fs::write(&sources_output, sources).map_err(error::file(&sources_output))?;
    println!(
        "xtask: {} facts added from {ADDITIONS}; sources in {}",
        added.len(),
        sources_output.display()
    );
    let cards_idx = HEADER.split(',').position(|column| column == "cards");
    let unknown: Vec<&str> = rows
        .iter()
        .filter(|(_, row)| cards_idx.is_some_and(|idx| row[idx] == "0"))
        .map(|(name, _)| name.as_str())
        .collect();
    println!(
        "xtask: network cards of {carded} types from {NETWORK_CARDS}; unknown for {}",
        unknown.join(" ")
    );
    println!(
        "xtask: {} types from {EARLIER} (Karpenter's earlier docs): {}",
        from_earlier.len(),
        from_earlier.join(" ")
    );
    if !only_types.is_empty() {
        println!(
            "xtask: {} types are not in eksctl's table; their flags are derived: {}",
            only_types.len(),
            only_types.join(" ")
        );
    }
    if !only_flags.is_empty() {
        println!(
            "xtask: {} types are only in eksctl's table; their sizes are 0 (unknown): {}",
            only_flags.len(),
            only_flags.join(" ")
        );
    }
    Ok(())
}

/// One type's rows: its facts' table and row, and its row of eksctl's table.
type Joined<'a> = (Option<(&'a Table, usize)>, Option<usize>);

/// A CSV file without quoting: a header and rows of equal width.
struct Table {
    file_name: String,
    columns: HashMap<String, usize>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn read(path: &Path) -> Result<Table, Error> {
        let text = std::fs::read_to_string(path).map_err(error::file(&path))?;
        let file_name = path.file_name().map_or_else(
            || path.display().to_string(),
            |name| name.to_string_lossy().into_owned(),
        );
        let mut lines = text
            .lines()
            .enumerate()
            .skip_while(|(_, line)| line.starts_with('#'));
        let (_, header) = lines
            .next()
            .ok_or_else(|| format!("{file_name} is empty"))?;
        let columns: HashMap<String, usize> = header
            .split(',')
            .enumerate()
            .map(|(column_idx, column)| (column.trim().to_owned(), column_idx))
            .collect();
        let n_columns = header.split(',').count();
        let mut rows = Vec::new();
        for (line_idx, line) in lines {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            if line.contains('"') {
                return Err(Error::Task(format!(
                    "{file_name} line {}: quoted fields are not supported",
                    line_idx + 1
                )));
            }
            let fields: Vec<String> = line
                .split(',')
                .map(|field| field.trim().to_owned())
                .collect();
            if fields.len() != n_columns {
                return Err(Error::Task(format!(
                    "{file_name} line {}: {} fields, the header has {n_columns}",
                    line_idx + 1,
                    fields.len()
                )));
            }
            rows.push(fields);
        }
        Ok(Table {
            file_name,
            columns,
            rows,
        })
    }

    fn field<'a>(&self, row: &'a [String], column: &str) -> Result<&'a str, Error> {
        let column_idx = self
            .columns
            .get(column)
            .ok_or_else(|| format!("{} has no column {column}", self.file_name))?;
        Ok(&row[*column_idx])
    }

    fn number(&self, row: &[String], column: &str) -> Result<u32, Error> {
        let text = self.field(row, column)?;
        text.parse().map_err(|_| {
            Error::Task(format!(
                "{}: {column} of {} is {text:?}, not a whole number",
                self.file_name, row[0]
            ))
        })
    }

    fn optional_number(&self, row: &[String], column: &str) -> Result<Option<u32>, Error> {
        if self.field(row, column)?.is_empty() {
            Ok(None)
        } else {
            self.number(row, column).map(Some)
        }
    }

    fn flag(&self, row: &[String], column: &str) -> Result<bool, Error> {
        match self.field(row, column)? {
            "true" => Ok(true),
            "false" => Ok(false),
            other => Err(Error::Task(format!(
                "{}: {column} of {} is {other:?}, not true or false",
                self.file_name, row[0]
            ))),
        }
    }
}

/// What a type has, from `instance-types.csv`.
struct Facts {
    family: String,
    generation: u32,
    vcpus: u32,
    memory_mib: u32,
    gpu_count: u32,
    gpu_name: String,
    gpu_manufacturer: String,
    gpu_memory_mib: Option<u32>,
    accelerator_name: String,
    accelerator_count: u32,
    efa_interfaces: u32,
    /// None for old types AWS rates only as "Moderate" or "High".
    network_bandwidth_mbps: Option<u32>,
    architecture: &'static str,
}

impl Facts {
    fn from_types(types: &Table, row: &[String]) -> Result<Facts, Error> {
        Ok(Facts {
            family: types.field(row, "family")?.to_owned(),
            generation: types.number(row, "generation")?,
            vcpus: types.number(row, "vcpu")?,
            memory_mib: types.number(row, "memory_mib")?,
            gpu_count: types.number(row, "gpu_count")?,
            gpu_name: types.field(row, "gpu_name")?.to_owned(),
            gpu_manufacturer: types.field(row, "gpu_manufacturer")?.to_owned(),
            gpu_memory_mib: types.optional_number(row, "gpu_memory_mib")?,
            accelerator_name: types.field(row, "accelerator_name")?.to_owned(),
            accelerator_count: types.number(row, "accelerator_count")?,
            efa_interfaces: types.number(row, "efa_count")?,
            network_bandwidth_mbps: types.optional_number(row, "network_bandwidth_mbps")?,
            architecture: architecture(&types.file_name, &row[0], types.field(row, "arch")?)?,
        })
    }

    /// A type eksctl knows but `instance-types.csv` does not (none today). The family and
    /// generation come from the name and the device names from eksctl's flags; counts,
    /// and sizes are unknown and written as 0 rather than invented.
    fn guessed(
        name: &str,
        flags: &Table,
        row: &[String],
        row_flags: &Flags,
    ) -> Result<Facts, Error> {
        let family = name.split('.').next().unwrap_or(name).to_owned();
        let generation = family
            .chars()
            .skip_while(|character| !character.is_ascii_digit())
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .unwrap_or(0);
        // eksctl spells device types "RTX PRO 4500" and "Trainium"; instance-types.csv,
        // like Karpenter's labels, spells them "rtx-pro-4500" and "trainium".
        let label = |text: &str| text.to_lowercase().replace(' ', "-");
        let gpu_name = label(flags.field(row, "nvidia_gpu_type")?);
        let accelerator_name = label(flags.field(row, "neuron_device_type")?);
        Ok(Facts {
            family,
            generation,
            vcpus: 0,
            memory_mib: 0,
            gpu_count: 0,
            gpu_manufacturer: if row_flags.nvidia_gpu {
                "nvidia".to_owned()
            } else {
                String::new()
            },
            gpu_name,
            gpu_memory_mib: None,
            accelerator_name,
            accelerator_count: 0,
            efa_interfaces: 0,
            network_bandwidth_mbps: None,
            architecture: architecture(&flags.file_name, name, flags.field(row, "cpu_arch")?)?,
        })
    }
}

/// Both tables' CPU architecture spellings, as Kubernetes' `kubernetes.io/arch` values.
fn architecture(file_name: &str, name: &str, text: &str) -> Result<&'static str, Error> {
    match text {
        "amd64" | "x86-64" | "x86_64" => Ok("amd64"),
        "arm64" => Ok("arm64"),
        other => Err(Error::Task(format!(
            "{file_name}: arch of {name} is {other:?}"
        ))),
    }
}

/// eksctl's flags for a type, from `eksctl-instance-flags.csv`.
struct Flags {
    efa_supported: bool,
    nvidia_gpu: bool,
    neuron: bool,
    capacity_block_eligible: bool,
    instance_storage: bool,
}

impl Flags {
    fn from_eksctl(flags: &Table, row: &[String]) -> Result<Flags, Error> {
        Ok(Flags {
            efa_supported: flags.flag(row, "efa_supported")?,
            nvidia_gpu: flags.flag(row, "nvidia_gpu_supported")?,
            neuron: flags.flag(row, "neuron_supported")?,
            capacity_block_eligible: flags.flag(row, "cbr_supported")?,
            instance_storage: flags.flag(row, "instance_storage_supported")?,
        })
    }

    /// Flags for a type eksctl's table lacks (today 143 types, nearly all `.metal`).
    /// EFA, NVIDIA and Neuron follow from the type's own facts, which agree with eksctl's
    /// flags on every type both tables list. Instance storage is the family's, since eksctl
    /// gives every size of a family the same value. Capacity Blocks are sold for a short
    /// named list of types, so a type missing from that list is not eligible.
    fn guessed(facts: &Facts, storage_by_family: &HashMap<String, bool>) -> Flags {
        Flags {
            efa_supported: facts.efa_interfaces > 0,
            nvidia_gpu: facts.gpu_manufacturer == "nvidia",
            neuron: is_neuron(&facts.accelerator_name),
            capacity_block_eligible: false,
            instance_storage: storage_by_family
                .get(&facts.family)
                .copied()
                .unwrap_or(false),
        }
    }
}

/// AWS's own accelerators, the ones the Neuron SDK drives (not, say, Qualcomm's AI 100).
fn is_neuron(accelerator_name: &str) -> bool {
    accelerator_name.starts_with("inferentia") || accelerator_name.starts_with("trainium")
}

/// Each family's instance-storage flag in eksctl's table, for families where every size
/// agrees (all of them today).
fn instance_storage_by_family(flags: &Table) -> Result<HashMap<String, bool>, Error> {
    let mut seen: HashMap<String, BTreeSet<bool>> = HashMap::new();
    for row in &flags.rows {
        let name = flags.field(row, "instance_type")?;
        let family = name.split('.').next().unwrap_or(name).to_owned();
        seen.entry(family)
            .or_default()
            .insert(flags.flag(row, "instance_storage_supported")?);
    }
    Ok(seen
        .into_iter()
        .filter(|(_, values)| values.len() == 1)
        .filter_map(|(family, values)| values.first().map(|value| (family, *value)))
        .collect())
}

/// Reports where the two tables contradict each other; the generated row keeps the facts
/// from `instance-types.csv` and the flags from eksctl's table.
fn warn_on_disagreement(name: &str, facts: &Facts, flags: &Flags) {
    if (facts.efa_interfaces > 0) != flags.efa_supported {
        println!(
            "xtask: warning: {name} has {} EFA interfaces but eksctl's EFA flag is {}",
            facts.efa_interfaces, flags.efa_supported
        );
    }
    if (facts.gpu_manufacturer == "nvidia") != flags.nvidia_gpu {
        println!(
            "xtask: warning: {name} GPU maker is {:?} but eksctl's NVIDIA flag is {}",
            facts.gpu_manufacturer, flags.nvidia_gpu
        );
    }
    if is_neuron(&facts.accelerator_name) != flags.neuron {
        println!(
            "xtask: warning: {name} accelerator is {:?} but eksctl's Neuron flag is {}",
            facts.accelerator_name, flags.neuron
        );
    }
}

fn row(name: &str, facts: &Facts, flags: &Flags, eksctl_lists: bool) -> Vec<String> {
    let bit = |value: bool| if value { "1" } else { "0" };
    let optional = |value: Option<u32>| value.map(|number| number.to_string()).unwrap_or_default();
    let fields: [&str; 24] = [
        name,
        &facts.family,
        &facts.generation.to_string(),
        &facts.vcpus.to_string(),
        &facts.memory_mib.to_string(),
        &facts.gpu_count.to_string(),
        &facts.gpu_name,
        &facts.gpu_manufacturer,
        &optional(facts.gpu_memory_mib),
        &facts.accelerator_name,
        &facts.accelerator_count.to_string(),
        &facts.efa_interfaces.to_string(),
        &optional(facts.network_bandwidth_mbps),
        facts.architecture,
        bit(flags.efa_supported),
        bit(flags.nvidia_gpu),
        bit(flags.neuron),
        bit(flags.capacity_block_eligible),
        bit(flags.instance_storage),
        // Sold only as Capacity Blocks: neither table says; the additions table does.
        "0",
        bit(eksctl_lists),
        // Network cards: joined from their own table after the additions.
        "0",
        "0",
        "0",
    ];
    fields.iter().map(|field| (*field).to_owned()).collect()
}

/// One fact of the additions table, as applied.
struct Added {
    name: String,
    column: String,
    value: String,
    source: String,
}

/// A row for a type neither table lists: family and generation from its name, every
/// count 0 and every name empty (unknown), no flag set, until facts fill it. The
/// architecture has no unknown value in the catalog, so [`add_facts`] requires a fact
/// for it.
fn unknown_row(name: &str) -> Vec<String> {
    let family = name.split('.').next().unwrap_or(name);
    let generation: String = family
        .chars()
        .skip_while(|character| !character.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    let generation = if generation.is_empty() {
        "0".to_owned()
    } else {
        generation
    };
    HEADER
        .split(',')
        .map(|column| match column {
            "name" => name.to_owned(),
            "family" => family.to_owned(),
            "gen" => generation.clone(),
            "gpu" | "gpu_mfr" | "gpu_mib" | "acc" | "net_mbps" => String::new(),
            "arch" => String::new(),
            _ => "0".to_owned(),
        })
        .collect()
}

/// Applies the additions: a fact may fill a type the tables lack, or a value they leave
/// unknown (empty or 0); a fact that contradicts them, or a column the catalog does not
/// have, is an error naming its line.
fn add_facts(
    rows: &mut BTreeMap<String, Vec<String>>,
    additions: &Table,
) -> Result<Vec<Added>, Error> {
    let columns: Vec<&str> = HEADER.split(',').collect();
    let mut new_types = BTreeSet::new();
    let mut added = Vec::new();
    for (line_idx, fields) in additions.rows.iter().enumerate() {
        let at = || format!("{ADDITIONS} line {}", line_idx + 2);
        let name = additions.field(fields, "instance_type")?;
        let column = additions.field(fields, "column")?;
        let value = additions.field(fields, "value")?;
        let source = additions.field(fields, "source")?;
        if source.is_empty() {
            return Err(Error::Task(format!(
                "{}: {name} {column} has no source",
                at()
            )));
        }
        let column_idx = columns
            .iter()
            .position(|known| *known == column)
            .filter(|idx| *idx > 0)
            .ok_or_else(|| Error::Task(format!("{}: no catalog column {column:?}", at())))?;
        if !rows.contains_key(name) {
            rows.insert(name.to_owned(), unknown_row(name));
            new_types.insert(name.to_owned());
        }
        let row = rows.get_mut(name).expect("inserted above");
        let current = &row[column_idx];
        let unknown = current.is_empty() || current == "0" || new_types.contains(name);
        if current != value && !unknown {
            return Err(Error::Task(format!(
                "{}: {name} {column} is {current:?} in the reference tables, not {value:?}",
                at()
            )));
        }
        row[column_idx] = value.to_owned();
        added.push(Added {
            name: name.to_owned(),
            column: column.to_owned(),
            value: value.to_owned(),
            source: source.to_owned(),
        });
    }
    let arch_idx = columns.iter().position(|column| *column == "arch");
    if let Some(name) = new_types
        .iter()
        .find(|name| arch_idx.is_some_and(|idx| rows[*name][idx].is_empty()))
    {
        return Err(Error::Task(format!(
            "{ADDITIONS}: {name} is in neither reference table and has no `arch` fact"
        )));
    }
    Ok(added)
}

/// Fills `cards` and `card_enis` from the network-cards table, then derives `efa_card0`
/// for every type (after the additions, which may give a type its EFA count). A card
/// table entry for a type the catalog lacks is skipped: that table also lists types no
/// EKS AMI runs (mac, f1). Returns how many types got their cards.
fn add_cards(rows: &mut BTreeMap<String, Vec<String>>, cards: &Table) -> Result<usize, Error> {
    let columns: Vec<&str> = HEADER.split(',').collect();
    let index = |name: &str| {
        columns
            .iter()
            .position(|column| *column == name)
            .expect("a column of HEADER")
    };
    let (cards_idx, enis_idx, efa_idx, efa_ok_idx, card0_idx) = (
        index("cards"),
        index("card_enis"),
        index("efa"),
        index("efa_ok"),
        index("efa_card0"),
    );
    let mut carded = 0;
    for fields in &cards.rows {
        let name = cards.field(fields, "instance_type")?;
        let Some(row) = rows.get_mut(name) else {
            continue;
        };
        row[cards_idx] = cards.number(fields, "network_cards")?.to_string();
        row[enis_idx] = cards.number(fields, "interfaces_per_card")?.to_string();
        carded += 1;
    }
    for (name, row) in rows.iter_mut() {
        let number = |idx: usize| -> Result<u32, Error> {
            row[idx]
                .parse()
                .map_err(|_| Error::Task(format!("{name}: {} is {:?}", columns[idx], row[idx])))
        };
        let (efa, network_cards) = (number(efa_idx)?, number(cards_idx)?);
        // An EFA type whose EFA count is unknown (p6e-gb200) is taken to have EFA on card
        // 0, as AWS's own launch templates for it do (aws/aws-parallelcluster#6930).
        let efa_type = efa > 0 || row[efa_ok_idx] == "1";
        let card0 = efa_type && (network_cards == 0 || efa == 0 || efa >= network_cards);
        row[card0_idx] = if card0 { "1" } else { "0" }.to_owned();
    }
    Ok(carded)
}

/// `instance-catalog-sources.md`: each column's source, then every added fact's.
fn sources_text(earlier: &[(&str, &str)], added: &[Added]) -> String {
    let mut text = String::from(
        "# Where the instance catalog's values come from\n\n\
         Written by `cargo xtask catalog` with `instance-catalog.csv`; the reference tables and \
         their upstream commits are listed in the reference directory's `SOURCES.md`.\n\n\
         | column | source |\n|---|---|\n",
    );
    for (column, source) in COLUMN_SOURCES {
        text.push_str(&format!("| `{column}` | {source} |\n"));
    }
    text.push_str(&format!(
        "\n## Types from `{EARLIER}`\n\n\
         Types Karpenter's generated VPC limits or bandwidth tables list but `instance-types.csv` \
         (Karpenter's current instance-type docs) does not describe: EC2 no longer offers them \
         in the region the docs are generated from, or they are newer than the docs. Their \
         `instance-types.csv` columns come from the newest revision of Karpenter's docs that \
         described them (`cargo xtask earlier-types` reads the docs page's git history); a type \
         no revision described has its family's category, generation and architecture, the \
         bandwidth table's number and 0 (unknown) for its sizes. eksctl's table lists none of \
         them, so their flags are derived as for other types eksctl lacks (instance storage \
         also from the docs' `instance-local-nvme` label).\n\n| type | source |\n|---|---|\n"
    ));
    for (name, source) in earlier {
        text.push_str(&format!("| `{name}` | {source} |\n"));
    }
    text.push_str(&format!(
        "\n## Facts added from `{ADDITIONS}`\n\n\
         Types and values newer than both tables. A value left out is unknown (0 or empty), \
         not guessed.\n\n| type | column | value | source |\n|---|---|---|---|\n"
    ));
    for fact in added {
        text.push_str(&format!(
            "| `{}` | `{}` | {} | {} |\n",
            fact.name, fact.column, fact.value, fact.source
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_column_of_the_catalog_has_its_source_said() {
        let said: Vec<&str> = COLUMN_SOURCES.iter().map(|(column, _)| *column).collect();
        assert_eq!(said, HEADER.split(',').collect::<Vec<_>>());
    }
}
