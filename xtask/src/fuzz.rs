//! `cargo xtask fuzz`: runs each libFuzzer target of `fuzz/` for a bounded time, starting
//! from seeds made from the repository (the templates through `shared`, the YAML test
//! data), and reports per target how many inputs ran, the coverage reached and whether it
//! stayed clean. A crash leaves its input in `fuzz/artifacts/<target>/`: copy it into
//! `shared/tests/data/fuzz/`, test it in `shared/tests/fuzz_regressions.rs`, and fix it;
//! it then seeds later runs.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::{self, Error};

use crate::{root, status, tools};

/// Every target in `fuzz/Cargo.toml`, with the seeds it starts from.
const TARGETS: &[(&str, Seeds)] = &[
    ("import_yaml", Seeds::Yaml),
    ("api_spec_json", Seeds::SpecJson),
    ("lint_file", Seeds::Both),
];

#[derive(Clone, Copy)]
enum Seeds {
    Yaml,
    SpecJson,
    Both,
}

/// How one target's run went.
struct Outcome {
    target: &'static str,
    runs: Option<u64>,
    exec_per_second: Option<u64>,
    coverage: String,
    clean: bool,
    artifacts: Vec<String>,
}

fn fuzz_dir() -> PathBuf {
    root().join("fuzz")
}

/// The seed YAML files: the reference manifests and the other test manifests, each
/// template's rendered files, and each Karpenter template's files joined into one
/// multi-document file after its ClusterConfig.
fn yaml_seeds() -> Result<Vec<(String, String)>, Error> {
    let mut seeds = Vec::new();
    // `fuzz/` holds inputs that once found a problem: good places to start from again.
    for folder in ["seeds", "manifests", "fuzz"] {
        let dir = root().join("shared/tests/data").join(folder);
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map_err(error::file(&dir))?
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| {
                path.extension()
                    .is_some_and(|extension| extension == "yaml")
            })
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).map_err(error::file(&path))?;
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            seeds.push((format!("{folder}-{name}"), text));
        }
    }
    for template in shared::TEMPLATES {
        let spec = template.spec();
        let rendered = |what: &str, result: Result<Option<String>, shared::RenderError>| {
            result.map_err(|error| format!("template {} {what}: {error}", template.id))
        };
        let cluster = rendered("cluster.yaml", shared::render_cluster_yaml(&spec).map(Some))?
            .unwrap_or_default();
        let nodepools = rendered(
            "nodepools.yaml",
            shared::documents::render::render_karpenter_yaml(&spec),
        )?;
        let values = rendered(
            "values.yaml",
            shared::documents::render::render_karpenter_values(&spec),
        )?;
        if let Some(nodepools) = nodepools {
            seeds.push((
                format!("template-{}-all.yaml", template.id),
                format!("{cluster}---\n{nodepools}"),
            ));
            seeds.push((
                format!("template-{}-nodepools.yaml", template.id),
                nodepools,
            ));
        }
        if let Some(values) = values {
            seeds.push((format!("template-{}-values.yaml", template.id), values));
        }
        seeds.push((format!("template-{}-cluster.yaml", template.id), cluster));
    }
    Ok(seeds)
}

/// Every template's `studio.json`, and a generated large design.
fn spec_json_seeds() -> Vec<(String, String)> {
    shared::TEMPLATES
        .iter()
        .map(|template| {
            (
                format!("template-{}.json", template.id),
                template.spec().to_json(),
            )
        })
        .chain([(
            "sized-8-groups-2-pools.json".to_owned(),
            shared::templates::sized_spec(8, 2).to_json(),
        )])
        .collect()
}

/// Writes a target's seeds afresh into `fuzz/seeds/<target>/`.
fn write_seeds(target: &str, seeds: Seeds) -> Result<PathBuf, Error> {
    let dir = fuzz_dir().join("seeds").join(target);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)
            .map_err(|error| format!("cannot clear {}: {error}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir).map_err(error::file(&dir))?;
    let files = match seeds {
        Seeds::Yaml => yaml_seeds()?,
        Seeds::SpecJson => spec_json_seeds(),
        Seeds::Both => [yaml_seeds()?, spec_json_seeds()].concat(),
    };
    for (name, text) in &files {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(error::file(&path))?;
    }
    println!(
        "xtask: {} seed file(s) for {target} in {}",
        files.len(),
        dir.display()
    );
    Ok(dir)
}

/// `cargo +nightly fuzz …` in `fuzz/`, building into `fuzz/target`.
///
/// The code under test is safe Rust (`unsafe_code` is forbidden in the workspace), so no
/// sanitizer is compiled in: it would cost speed and find nothing ASan-specific.
/// Overflow checks and debug assertions stay on.
fn cargo_fuzz(subcommand: &str) -> Command {
    let mut command = Command::new("rustup");
    command
        .current_dir(fuzz_dir())
        .args(["run", tools::NIGHTLY, "cargo", "fuzz", subcommand])
        .args(["--release", "--debug-assertions", "--sanitizer", "none"])
        .arg("--target-dir")
        .arg(fuzz_dir().join("target"))
        // The workspace's target directory is for stable builds; fuzz builds use
        // other flags and keep to their own.
        .env_remove("CARGO_TARGET_DIR");
    command
}

/// The number after `label` in a libFuzzer status line (`cov: 1234`).
fn number_after(line: &str, label: &str) -> Option<u64> {
    let rest = &line[line.find(label)? + label.len()..];
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Runs one target for `seconds`, echoing what matters and keeping the full log.
fn run_target(target: &'static str, seeds: &Path, seconds: u64) -> Result<Outcome, Error> {
    let corpus = fuzz_dir().join("corpus").join(target);
    std::fs::create_dir_all(&corpus).map_err(error::file(&corpus))?;
    let log_path = fuzz_dir().join("logs").join(format!("{target}.log"));
    std::fs::create_dir_all(log_path.parent().expect("the log is in a folder"))
        .map_err(|error| format!("cannot create the log folder: {error}"))?;
    let mut log = std::fs::File::create(&log_path).map_err(error::file(&log_path))?;
    println!(
        "\n==> fuzz {target} for {seconds} s (log: {})",
        log_path.display()
    );
    let mut command = cargo_fuzz("run");
    command
        .arg(target)
        // The first folder collects new inputs; the seeds are only read.
        .arg(&corpus)
        .arg(seeds)
        .arg("--")
        .arg(format!("-max_total_time={seconds}"))
        // An input that takes this long is a finding too (a slow path on hostile input).
        .arg("-timeout=10")
        .arg("-print_final_stats=1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .map_err(|error| format!("cannot start cargo fuzz: {error}"))?;
    // libFuzzer writes to stderr; cargo-fuzz's own advice on a crash goes to stdout.
    let stdout = child.stdout.take().expect("stdout is piped");
    let stdout_reader = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<_>>()
    });
    let stderr = child.stderr.take().expect("stderr is piped");
    let mut outcome = Outcome {
        target,
        runs: None,
        exec_per_second: None,
        coverage: String::new(),
        clean: false,
        artifacts: Vec::new(),
    };
    let mut last_status = String::new();
    // The panic message is on the line after `panicked at`.
    let mut after_panic = false;
    for line in BufReader::new(stderr).lines().map_while(Result::ok) {
        let _ = writeln!(log, "{line}");
        if line.contains(" cov: ") {
            last_status.clone_from(&line);
        }
        if let Some(runs) = line
            .strip_prefix("stat::number_of_executed_units:")
            .and_then(|rest| rest.trim().parse().ok())
        {
            outcome.runs = Some(runs);
        }
        if let Some(rate) = line
            .strip_prefix("stat::average_exec_per_sec:")
            .and_then(|rest| rest.trim().parse().ok())
        {
            outcome.exec_per_second = Some(rate);
        }
        if let Some(artifact) = line
            .split_once("Test unit written to ")
            .map(|(_, path)| path.trim().to_owned())
        {
            outcome.artifacts.push(artifact);
        }
        let matters = std::mem::take(&mut after_panic)
            || line.contains("INITED")
            || line.contains("DONE")
            || line.contains("panicked")
            || line.contains("ERROR")
            || line.contains("SUMMARY")
            || line.contains("Test unit written")
            || line.starts_with("stat::");
        if matters {
            println!("{line}");
        }
        after_panic = line.contains("panicked at");
    }
    let exit = child
        .wait()
        .map_err(|error| format!("cargo fuzz did not finish: {error}"))?;
    for line in stdout_reader.join().unwrap_or_default() {
        let _ = writeln!(log, "{line}");
        if !exit.success() {
            println!("{line}");
        }
    }
    if let (Some(coverage), Some(features)) = (
        number_after(&last_status, "cov:"),
        number_after(&last_status, "ft:"),
    ) {
        let corpus_size = number_after(&last_status, "corp:")
            .map(|units| format!(", corpus {units}"))
            .unwrap_or_default();
        outcome.coverage = format!("cov {coverage}, ft {features}{corpus_size}");
    }
    outcome.clean = exit.success() && outcome.artifacts.is_empty();
    Ok(outcome)
}

/// Installs what is missing, writes the seeds and runs each target (or only `only`).
pub fn fuzz(seconds: u64, only: &[String]) -> Result<(), Error> {
    for name in only {
        if !TARGETS.iter().any(|(target, _)| target == name) {
            let known: Vec<&str> = TARGETS.iter().map(|(target, _)| *target).collect();
            return Err(Error::Task(format!(
                "no fuzz target `{name}` (known: {})",
                known.join(", ")
            )));
        }
    }
    tools::ensure_fuzz_tools()?;
    println!("xtask: building the fuzz targets (nightly, fuzz/target)");
    status(&mut cargo_fuzz("build"))?;
    let mut outcomes = Vec::new();
    for (target, seeds) in TARGETS {
        if !only.is_empty() && !only.iter().any(|name| name == target) {
            continue;
        }
        let seeds_dir = write_seeds(target, *seeds)?;
        outcomes.push(run_target(target, &seeds_dir, seconds)?);
    }
    println!("\n==> fuzz summary ({seconds} s per target)");
    for outcome in &outcomes {
        let runs = outcome
            .runs
            .map_or_else(|| "? runs".to_owned(), |runs| format!("{runs} runs"));
        let rate = outcome
            .exec_per_second
            .map(|rate| format!(" ({rate}/s)"))
            .unwrap_or_default();
        let verdict = if outcome.clean {
            "clean".to_owned()
        } else if outcome.artifacts.is_empty() {
            "FAILED (see the log)".to_owned()
        } else {
            format!("CRASH: {}", outcome.artifacts.join(", "))
        };
        println!(
            "{:<14} {:>22}  {:<34} {verdict}",
            outcome.target,
            format!("{runs}{rate}"),
            outcome.coverage
        );
    }
    let failed = outcomes.iter().filter(|outcome| !outcome.clean).count();
    if failed == 0 {
        Ok(())
    } else {
        Err(Error::Task(format!(
            "{failed} fuzz target(s) found a problem; reproduce with `cd fuzz && cargo +{} fuzz run --sanitizer none <target> <artifact>`",
            tools::NIGHTLY
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::number_after;

    #[test]
    fn status_numbers_come_from_libfuzzer_lines() {
        let line =
            "#65536\tpulse  cov: 2961 ft: 11227 corp: 512/98Kb lim: 4096 exec/s: 2184 rss: 61Mb";
        assert_eq!(number_after(line, "cov:"), Some(2961));
        assert_eq!(number_after(line, "ft:"), Some(11227));
        assert_eq!(number_after(line, "corp:"), Some(512));
        assert_eq!(number_after(line, "missing:"), None);
    }
}
