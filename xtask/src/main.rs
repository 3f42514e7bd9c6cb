//! Project tasks behind `cargo xtask`: `run` sets up and starts the studio, `test` sets
//! up and runs every test, `bench` measures the budgets, `fuzz` runs the fuzz targets.
//! Each installs what is missing, at pinned versions, and skips what is already there, so
//! a second run starts at once.

/// The benchmarks behind `cargo xtask bench`.
mod bench;
/// Generating the instance-type catalog `shared` embeds from the reference tables.
mod catalog;
/// Brotli and gzip copies of the built page's files.
mod compress;
/// `cargo xtask earlier-types`: the types Karpenter's tables list that its docs no longer describe.
mod earlier_types;
/// What stops a task, as a type.
mod error;
/// `cargo xtask fresh`: the README's commands proven from nothing.
mod fresh;
/// The fuzz targets behind `cargo xtask fuzz`.
mod fuzz;
/// Each crate's layers: which folder may use which, and no import circle.
mod layers;
/// `cargo xtask network-cards`: each type's network cards, from Karpenter's VPC limits.
mod network_cards;
/// `cargo xtask prices`: the on-demand price table `shared` embeds.
mod prices;
/// Splitting the page's wasm so a first visit loads only the steps it shows.
mod split;
/// Installing the tools the build and the tests need.
mod tools;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};

use crate::error::Error;

/// EKS Training Studio project tasks.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Install what is missing, build the page and the server, and serve the studio.
    Run {
        /// Address to serve on.
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: String,
    },
    /// Install what tests need, then run formatting, lints, host, browser and end-to-end tests.
    Test,
    /// Build the page into target/dist (installing the build tools when missing).
    BuildFrontend,
    /// Measure the budgets of docs/performance.md and print the table (slow: release builds).
    Bench {
        /// Measure only these parts (default: all).
        #[arg(long, value_enum, value_delimiter = ',')]
        only: Vec<bench::Part>,
        /// Seconds each load-generator run lasts (`load` part).
        #[arg(long, default_value_t = 10)]
        load_seconds: u64,
    },
    /// Run each fuzz target (fuzz/, nightly) for a bounded time from seeds made from the
    /// repository; exits non-zero when any target crashes.
    Fuzz {
        /// Seconds per target.
        #[arg(long, default_value_t = 60)]
        seconds: u64,
        /// Run only these targets (default: all).
        targets: Vec<String>,
    },
    /// Prove the README's commands from nothing: in an empty CARGO_HOME, RUSTUP_HOME,
    /// target directory and package caches, run `cargo xtask run` until it serves the
    /// studio (and with --test, `cargo xtask test`), and report what each part downloaded
    /// and how long it took.
    Fresh {
        /// Also run `cargo xtask test` there (about as long again).
        #[arg(long)]
        test: bool,
        /// Where the empty homes go (default: a directory under the system's temp dir).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Keep that directory afterwards (it holds several GB).
        #[arg(long)]
        keep: bool,
    },
    /// Print each crate's layers and the uses between its files; exit non-zero when a use
    /// goes up a layer or closes a circle.
    Layers,
    /// Regenerate the golden files (rendered templates, reduced schemas) after an intended change.
    Bless,
    /// Join the reference instance-type tables into shared/data/instance-catalog.csv.
    Catalog {
        /// Directory holding instance-types.csv and eksctl-instance-flags.csv
        /// (default: ../shared/reference next to the workspace root).
        #[arg(long)]
        reference: Option<PathBuf>,
    },
    /// Write xtask/data/network-cards.csv from Karpenter's generated VPC limits table.
    NetworkCards {
        /// A checkout's pkg/providers/instancetype directory (aws/karpenter-provider-aws).
        instancetype: PathBuf,
    },
    /// Write xtask/data/karpenter-earlier-types.csv: the types Karpenter's generated tables
    /// list that its generated docs no longer describe, each from the newest revision that did.
    EarlierTypes {
        /// A git clone of aws/karpenter-provider-aws, with its history.
        checkout: PathBuf,
    },
    /// Write shared/data/on-demand-prices.csv from Karpenter's generated price tables.
    Prices {
        /// A checkout's pkg/providers/pricing directory (aws/karpenter-provider-aws).
        pricing: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.task {
        Task::Run { addr } => run(&addr),
        Task::Test => test(),
        Task::BuildFrontend => tools::ensure_build_tools().and_then(|tools| build_frontend(&tools)),
        Task::Bench { only, load_seconds } => bench::bench(&only, load_seconds),
        Task::Fuzz { seconds, targets } => fuzz::fuzz(seconds, &targets),
        Task::Fresh { test, dir, keep } => fresh::fresh(test, dir, keep),
        Task::Bless => status(
            cargo()
                .args([
                    "test",
                    "--package",
                    "eks-studio-shared",
                    "--test",
                    "rendered",
                    "--test",
                    "schema_check",
                ])
                .env("UPDATE_EXPECT", "1"),
        ),
        Task::Catalog { reference } => catalog::catalog(&root(), reference),
        Task::NetworkCards { instancetype } => network_cards::network_cards(&root(), &instancetype),
        Task::EarlierTypes { checkout } => earlier_types::earlier_types(&root(), &checkout),
        Task::Prices { pricing } => prices::prices(&root(), &pricing),
        Task::Layers => {
            let problems = layers::print(&root());
            if problems.is_empty() {
                Ok(())
            } else {
                Err(error::Error::Task(problems.join("\n")))
            }
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("xtask: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (the parent of this crate). `cargo run` tells the running binary
/// where its manifest is; the path compiled in is only the fallback, because one build of
/// xtask can serve several checkouts that share a target directory.
fn root() -> PathBuf {
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest_dir
        .parent()
        .expect("xtask lives inside the workspace")
        .to_path_buf()
}

/// Where cargo puts build output: `CARGO_TARGET_DIR` when set, else `target/`.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

/// Where trunk writes the page and the server serves it from.
fn dist_dir() -> PathBuf {
    target_dir().join("dist")
}

fn cargo() -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.current_dir(root());
    command
}

/// Runs a command to completion, failing with its command line when it fails.
fn status(command: &mut Command) -> Result<(), Error> {
    let shown = format!("{command:?}");
    let exit = command.status().map_err(|source| Error::Start {
        command: shown.clone(),
        source,
    })?;
    if exit.success() {
        Ok(())
    } else {
        Err(Error::Failed {
            command: shown,
            status: exit,
        })
    }
}

/// Builds the page into [`dist_dir`] and writes the brotli and gzip copies the server sends.
fn build_frontend(tools: &tools::BuildTools) -> Result<(), Error> {
    // Trunk runs cargo with --offline, so every crate must already be downloaded: the
    // workspace's, and those of the standard library the page's build compiles again.
    status(as_page_build(&mut cargo()).arg("fetch"))?;
    tools::fetch_std_dependencies()?;
    let dist = dist_dir();
    status(
        as_page_build(&mut Command::new(&tools.trunk))
            .current_dir(root())
            .env("PATH", tools.search_path())
            .args(["build", "--config", "Trunk.toml", "--dist"])
            .arg(&dist),
    )?;
    let split = split::split_page(&dist, &tools.search_path())?;
    let compressed = compress::precompress(&dist)?;
    let total =
        |files: &mut dyn Iterator<Item = &compress::Compressed>,
         size: fn(&compress::Compressed) -> usize| files.map(size).sum::<usize>();
    println!(
        "xtask: the page in {}: {} bytes, {} with brotli, {} with gzip",
        dist.display(),
        total(&mut compressed.iter(), |file| file.raw),
        total(&mut compressed.iter(), |file| file
            .brotli
            .unwrap_or(file.raw)),
        total(&mut compressed.iter(), |file| file.gzip.unwrap_or(file.raw)),
    );
    let on_demand = |file: &&compress::Compressed| split.is_on_demand(&file.file);
    println!(
        "xtask: a first visit loads {} bytes with brotli; {} files ({} bytes with brotli) load when their step opens",
        total(
            &mut compressed.iter().filter(|file| !on_demand(file)),
            |file| { file.brotli.unwrap_or(file.raw) }
        ),
        split.chunks.len(),
        total(&mut compressed.iter().filter(on_demand), |file| file
            .brotli
            .unwrap_or(file.raw)),
    );
    Ok(())
}

/// Sets how every wasm build of the page compiles (trunk's, and the bench's builds
/// beside it). The page is built on nightly so that the standard library is rebuilt with
/// the page's size profile and a panic stops the page without carrying the code and text
/// that format panic messages: about 40 KiB less to load. `erase_components` makes each
/// Leptos component return a type-erased view, so a step's view code is generated once
/// instead of once per nesting of view types around it: about 48 KiB less to load.
/// `page_split` turns the steps past Start into split points, and the relocations let
/// `split::split_page` move their code into files loaded when a step opens.
fn as_page_build(command: &mut Command) -> &mut Command {
    command
        .env("RUSTUP_TOOLCHAIN", tools::NIGHTLY)
        .env("CARGO_UNSTABLE_BUILD_STD", "std,panic_abort")
        .env(
            "RUSTFLAGS",
            "-Zunstable-options -Cpanic=immediate-abort --cfg erase_components --cfg page_split \
             -Clink-args=--emit-relocs",
        )
}

fn build_backend() -> Result<(), Error> {
    status(cargo().args(["build", "--package", "eks-studio", "--bin", "eks-studio"]))
}

/// The server as the host tests built it (`target/debug/eks-studio`, which the backend's
/// integration tests run). `cargo test` unifies the features the workspace's
/// dev-dependencies ask for, so a plain `cargo build` of the server would compile it, and
/// aws-sdk-ec2 with it, a second time; this step compiles nothing new after them.
fn build_backend_as_tested() -> Result<(), Error> {
    status(cargo().args(["test", "--workspace", "--exclude", "studio-e2e", "--no-run"]))
}

fn run(addr: &str) -> Result<(), Error> {
    let tools = tools::ensure_build_tools()?;
    build_frontend(&tools)?;
    build_backend()?;
    let server = target_dir().join("debug/eks-studio");
    let dist = dist_dir();
    println!("xtask: starting the studio at http://{addr}/ (Ctrl-C stops it)");
    status(
        Command::new(server)
            .current_dir(root())
            .arg("serve")
            .args(["--addr", addr])
            .arg("--static-dir")
            .arg(dist),
    )
}

/// One step of `cargo xtask test` and how it went.
struct StepOutcome {
    name: &'static str,
    passed: bool,
    duration: Duration,
    tests_passed: u64,
    tests_failed: u64,
}

/// Runs a command, echoing its output, and counts cargo's `test result:` lines.
fn counted(command: &mut Command) -> (bool, u64, u64) {
    let shown = format!("{command:?}");
    let child = command.stdout(Stdio::piped()).spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(error) => {
            eprintln!("xtask: cannot start {shown}: {error}");
            return (false, 0, 0);
        }
    };
    let (mut passed, mut failed) = (0, 0);
    let stdout = child.stdout.take().expect("stdout is piped");
    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
        println!("{line}");
        if let Some(rest) = line.trim_start().strip_prefix("test result: ") {
            passed += count_before(rest, " passed");
            failed += count_before(rest, " failed");
        }
    }
    let success = child.wait().map(|exit| exit.success()).unwrap_or(false);
    (success, passed, failed)
}

/// In `ok. 3 passed; 0 failed; …`, the number before `label`.
fn count_before(text: &str, label: &str) -> u64 {
    text.split(';')
        .find_map(|part| part.trim().strip_suffix(label.trim()).map(str::trim))
        .map(|number| number.rsplit(' ').next().unwrap_or(number))
        .and_then(|number| number.parse().ok())
        .unwrap_or(0)
}

fn test() -> Result<(), Error> {
    let started = Instant::now();
    let tools = tools::ensure_build_tools()?;
    let test_tools = tools::ensure_test_tools()?;
    let mut outcomes: Vec<StepOutcome> = Vec::new();
    let mut step = |name: &'static str, command: &mut Command| {
        println!("\n==> {name}");
        let step_started = Instant::now();
        // Tests talk to loopback only: the AWS SDK must not ask the instance metadata
        // service (a link-local address) for credentials or a region.
        command.env("AWS_EC2_METADATA_DISABLED", "true");
        let (passed, tests_passed, tests_failed) = counted(command);
        outcomes.push(StepOutcome {
            name,
            passed,
            duration: step_started.elapsed(),
            tests_passed,
            tests_failed,
        });
        passed
    };

    step("format", cargo().args(["fmt", "--all", "--check"]));
    step(
        "clippy (host)",
        cargo().args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--all-features",
            "--",
            "-D",
            "warnings",
        ]),
    );
    const CLIPPY_PAGE: [&str; 9] = [
        "clippy",
        "--package",
        "eks-studio-frontend",
        "--target",
        "wasm32-unknown-unknown",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ];
    step("clippy (browser)", cargo().args(CLIPPY_PAGE));
    // The page's build compiles the split points (`--cfg page_split`), which the check
    // above does not see; its own target directory keeps both checks' builds.
    step(
        "clippy (browser, split page)",
        cargo()
            .env("RUSTFLAGS", "--cfg page_split")
            .env("CARGO_TARGET_DIR", target_dir().join("clippy-split-page"))
            .args(CLIPPY_PAGE),
    );
    step(
        "host tests",
        cargo()
            // Every test binary runs even after one fails, so one run reports every failure.
            .args([
                "test",
                "--workspace",
                "--exclude",
                "studio-e2e",
                "--no-fail-fast",
            ])
            // The backend's live-check tests run against the EC2 emulator.
            .env("EC2_EMULATOR_PYTHON", &test_tools.emulator_python),
    );
    // chromedriver leaves each session's Chromium profile (about 70 MB) in the temporary
    // directory when wasm-bindgen-test-runner ends it; the browser tests get a temporary
    // directory of their own, removed after them.
    let browser_tmp = target_dir().join("tmp/browser-tests");
    let _ = std::fs::remove_dir_all(&browser_tmp);
    if let Err(error) = std::fs::create_dir_all(&browser_tmp) {
        eprintln!("xtask: cannot create {}: {error}", browser_tmp.display());
    }
    step(
        "browser tests",
        cargo()
            .env("TMPDIR", &browser_tmp)
            .args([
                "test",
                "--package",
                "eks-studio-frontend",
                "--target",
                "wasm32-unknown-unknown",
            ])
            .env("PATH", tools.search_path())
            .env(
                "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER",
                &tools.wasm_bindgen_test_runner,
            )
            .env("CHROMEDRIVER", &test_tools.chromedriver)
            .env("WASM_BINDGEN_TEST_TIMEOUT", "120"),
    );
    let _ = std::fs::remove_dir_all(&browser_tmp);
    let built = build_frontend(&tools).and_then(|()| build_backend_as_tested());
    if let Err(error) = &built {
        eprintln!("xtask: {error}");
    }
    if built.is_ok() {
        step(
            "end-to-end tests",
            cargo()
                .args([
                    "test",
                    "--package",
                    "studio-e2e",
                    "--features",
                    "e2e",
                    "--no-fail-fast",
                ])
                .env("EKS_STUDIO_BIN", target_dir().join("debug/eks-studio"))
                .env("EKS_STUDIO_DIST", dist_dir())
                .env("CHROMEDRIVER", &test_tools.chromedriver)
                .env("CHROMIUM", &test_tools.chromium)
                .env("EC2_EMULATOR_PYTHON", &test_tools.emulator_python),
        );
    } else {
        outcomes.push(StepOutcome {
            name: "build page and server for end-to-end tests",
            passed: false,
            duration: Duration::ZERO,
            tests_passed: 0,
            tests_failed: 0,
        });
    }

    println!("\n==> summary");
    for outcome in &outcomes {
        let verdict = if outcome.passed { "ok  " } else { "FAIL" };
        let counts = if outcome.tests_passed + outcome.tests_failed > 0 {
            format!(
                " ({} tests passed, {} failed)",
                outcome.tests_passed, outcome.tests_failed
            )
        } else {
            String::new()
        };
        println!(
            "{verdict} {:<28} {:>6.1}s{counts}",
            outcome.name,
            outcome.duration.as_secs_f64()
        );
    }
    let total_passed: u64 = outcomes.iter().map(|outcome| outcome.tests_passed).sum();
    let total_failed: u64 = outcomes.iter().map(|outcome| outcome.tests_failed).sum();
    let failed_steps = outcomes.iter().filter(|outcome| !outcome.passed).count();
    println!(
        "total time {:.0}s, {} of {} steps failed",
        started.elapsed().as_secs_f64(),
        failed_steps,
        outcomes.len()
    );
    println!("tests: {total_passed} passed, {total_failed} failed");
    if failed_steps == 0 {
        Ok(())
    } else {
        Err(Error::Task(format!("{failed_steps} step(s) failed")))
    }
}

#[cfg(test)]
mod tests {
    use super::count_before;

    #[test]
    fn counts_come_from_cargo_test_result_lines() {
        let line =
            "ok. 12 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s";
        assert_eq!(count_before(line, " passed"), 12);
        assert_eq!(count_before(line, " failed"), 1);
        assert_eq!(count_before("FAILED. 0 passed; 3 failed;", " failed"), 3);
    }

    /// ARCHITECTURE.md has an entry for every folder of each crate's `src/` (`aws/`,
    /// `rules/`) and every file at the top of `src/` other than the crate root
    /// (`templates.rs`, `clock.rs`): the map of layers, not of every file.
    #[test]
    fn architecture_names_every_folder_and_top_level_module() {
        let root = super::root();
        let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
        let mut missing = Vec::new();
        for crate_dir in [
            "shared/src",
            "frontend/src",
            "backend/src",
            "xtask/src",
            "tests/src",
        ] {
            for entry in std::fs::read_dir(root.join(crate_dir)).unwrap().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let named = if entry.path().is_dir() {
                    format!("`{name}/`")
                } else if name.ends_with(".rs") && !matches!(name.as_str(), "lib.rs" | "main.rs") {
                    format!("`{name}`")
                } else {
                    continue;
                };
                if !text.contains(&named) {
                    missing.push(format!("{crate_dir}/{name}"));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "ARCHITECTURE.md has no entry for: {missing:?}"
        );
        let lines = text.lines().count();
        assert!(
            lines <= 200,
            "ARCHITECTURE.md is {lines} lines; keep it to 200"
        );
    }
}
