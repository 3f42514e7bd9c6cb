//! `cargo xtask bench`: the figures SPEC §11 budgets, measured on this machine and printed
//! as one table. Nothing here asserts a time; the numbers go into the README.

use std::io::Write;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::{build_frontend, cargo, root, status, target_dir, tools};

/// One row of the results table.
struct Row {
    what: String,
    figure: String,
    budget: String,
}

fn gzip9(bytes: &[u8]) -> usize {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder
        .write_all(bytes)
        .expect("writing to memory cannot fail");
    encoder
        .finish()
        .expect("writing to memory cannot fail")
        .len()
}

/// Raw and gzip -9 size of every file the page loads.
fn page_weight(rows: &mut Vec<Row>) -> Result<(), String> {
    let dist = root().join("target/dist");
    let mut entries: Vec<_> = std::fs::read_dir(&dist)
        .map_err(|error| format!("cannot read {}: {error}", dist.display()))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_file())
        .collect();
    entries.sort();
    let (mut raw_total, mut gzip_total) = (0, 0);
    for path in entries {
        let bytes = std::fs::read(&path).map_err(|error| error.to_string())?;
        let gzip = gzip9(&bytes);
        raw_total += bytes.len();
        gzip_total += gzip;
        rows.push(Row {
            what: format!(
                "page file {}",
                path.file_name().unwrap_or_default().to_string_lossy()
            ),
            figure: format!(
                "{:.1} KiB raw, {:.1} KiB gzip -9",
                kib(bytes.len()),
                kib(gzip)
            ),
            budget: String::new(),
        });
    }
    rows.push(Row {
        what: "everything the page loads".into(),
        figure: format!(
            "{:.1} KiB raw, {:.1} KiB gzip -9",
            kib(raw_total),
            kib(gzip_total)
        ),
        budget: "<= 350 KiB gzip -9".into(),
    });
    Ok(())
}

fn kib(bytes: usize) -> f64 {
    bytes as f64 / 1024.0
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Whole-process time of `eks-studio lint` on a seed manifest (release build).
fn lint_process(rows: &mut Vec<Row>) -> Result<(), String> {
    status(cargo().args([
        "build",
        "--release",
        "--package",
        "eks-studio",
        "--bin",
        "eks-studio",
    ]))?;
    let binary = target_dir().join("release/eks-studio");
    let seed = root().join("shared/tests/data/seeds/eks-p5-odcr-vpc.yaml");
    let run = || -> Result<Duration, String> {
        let started = Instant::now();
        let output = Command::new(&binary)
            .arg("lint")
            .arg(&seed)
            .output()
            .map_err(|error| format!("cannot run {}: {error}", binary.display()))?;
        let elapsed = started.elapsed();
        // The seed has placeholders: lint exits 1, which is what is measured.
        if output.status.code() != Some(1) {
            return Err(format!("lint exited {:?}", output.status.code()));
        }
        Ok(elapsed)
    };
    for _ in 0..3 {
        run()?;
    }
    let samples = (0..30).map(|_| run()).collect::<Result<Vec<_>, _>>()?;
    rows.push(Row {
        what: "eks-studio lint eks-p5-odcr-vpc.yaml (whole process, median of 30)".into(),
        figure: format!("{:.1} ms", median(samples).as_secs_f64() * 1000.0),
        budget: "<= 20 ms".into(),
    });
    Ok(())
}

/// Runs every benchmark and prints the table.
pub fn bench() -> Result<(), String> {
    let mut rows = Vec::new();
    println!("==> criterion: validate + render (shared)");
    status(cargo().args([
        "bench",
        "--package",
        "eks-studio-shared",
        "--bench",
        "validate_render",
    ]))?;
    println!("\n==> page weight");
    let build_tools = tools::ensure_build_tools()?;
    build_frontend(&build_tools)?;
    page_weight(&mut rows)?;
    println!("\n==> eks-studio lint, whole process");
    lint_process(&mut rows)?;
    let width = rows.iter().map(|row| row.what.len()).max().unwrap_or(0);
    println!("\n==> results ({})", machine());
    for row in &rows {
        println!("{:width$}  {:32}  {}", row.what, row.figure, row.budget);
    }
    println!("criterion's figures for validate + render are above (and in target/criterion/).");
    Ok(())
}

fn machine() -> String {
    let cores = std::thread::available_parallelism()
        .map(|cores| cores.get())
        .unwrap_or(0);
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split(':').nth(1))
                .map(|model| model.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    format!("{cores} cores, {model}")
}
