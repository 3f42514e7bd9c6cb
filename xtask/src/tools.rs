//! Every tool is pinned; each is looked for first and installed only when missing or at
//! another version. Nothing here downloads outside the package registries' own clients
//! (rustup, cargo, npm, apt, pip).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{self, Error};

use crate::{root, status, target_dir};

const TRUNK_VERSION: &str = "0.21.14";
/// cargo-fuzz, for `cargo xtask fuzz` (it drives libFuzzer with the nightly toolchain).
const CARGO_FUZZ_VERSION: &str = "0.13.2";
/// binaryen's wasm-opt, from npm; Debian's older binaryen breaks the externref table.
const BINARYEN_VERSION: &str = "132.0.0";
const WASM_OPT_VERSION_LINE: &str = "version 132";
/// The EC2 API emulator the backend's live checks are tested against.
const MOTO_REQUIREMENT: &str = "moto[server]==5.2.5";
/// CloudFormation's own linter, which the tests run on the bundle's templates.
const CFN_LINT_REQUIREMENT: &str = "cfn-lint==1.58.0";

/// Paths of the tools the frontend build needs.
pub struct BuildTools {
    /// trunk, at [`TRUNK_VERSION`].
    pub trunk: PathBuf,
    /// wasm-bindgen-test-runner, at the wasm-bindgen version in Cargo.lock.
    pub wasm_bindgen_test_runner: PathBuf,
    /// Directories to put first on PATH so trunk finds wasm-bindgen and wasm-opt.
    bin_dirs: Vec<PathBuf>,
}

impl BuildTools {
    /// PATH with the pinned tools first.
    pub fn search_path(&self) -> OsString {
        let existing = std::env::var_os("PATH").unwrap_or_default();
        let dirs = self
            .bin_dirs
            .iter()
            .cloned()
            .chain(std::env::split_paths(&existing));
        std::env::join_paths(dirs).expect("PATH entries contain no separator")
    }
}

/// Paths of what the browser and end-to-end tests need.
pub struct TestTools {
    /// Debian's chromedriver.
    pub chromedriver: PathBuf,
    /// Debian's chromium.
    pub chromium: PathBuf,
    /// Python of the virtual environment that has `moto[server]`.
    pub emulator_python: PathBuf,
}

fn cargo_bin_dir() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))
        .expect("CARGO_HOME or HOME is set")
        .join("bin")
}

/// Tools installed for this checkout (wasm-opt, the emulator's Python), beside its build
/// output, so a build in another target directory installs its own.
fn tools_dir() -> PathBuf {
    target_dir().join("tools")
}

/// Runs an install step and says how long it took: `cargo xtask fresh` reports these
/// lines, the README quotes them.
fn timed_install<T>(what: &str, install: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    let started = std::time::Instant::now();
    let result = install()?;
    println!(
        "xtask: installed {what} in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(result)
}

/// What `program --version` prints, or nothing when it does not run.
fn version_output(program: &Path) -> String {
    Command::new(program)
        .arg("--version")
        .output()
        .map(|output| String::from_utf8_lossy(&output.stdout).into_owned())
        .unwrap_or_default()
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// The wasm-bindgen version Cargo.lock resolved; the CLI must match it exactly.
pub fn locked_wasm_bindgen_version() -> Result<String, Error> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock"))
        .map_err(|error| format!("cannot read Cargo.lock: {error}"))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == "name = \"wasm-bindgen\"" {
            let version = lines
                .next()
                .and_then(|next| next.strip_prefix("version = \""))
                .and_then(|rest| rest.strip_suffix('"'));
            if let Some(version) = version {
                return Ok(version.to_owned());
            }
        }
    }
    Err("Cargo.lock has no wasm-bindgen entry".into())
}

fn ensure_wasm_target() -> Result<(), Error> {
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map(|output| String::from_utf8_lossy(&output.stdout).into_owned())
        .unwrap_or_default();
    if installed
        .lines()
        .any(|line| line.trim() == "wasm32-unknown-unknown")
    {
        return Ok(());
    }
    println!("xtask: adding the wasm32-unknown-unknown target");
    timed_install("the stable wasm32-unknown-unknown target", || {
        status(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))
    })
}

/// Installs `krate` at `version` with cargo unless `binary --version` already says so.
fn ensure_cargo_tool(
    binary: &str,
    krate: &str,
    version: &str,
    locked: bool,
) -> Result<PathBuf, Error> {
    let path = cargo_bin_dir().join(binary);
    let wanted = format!("{binary} {version}");
    if version_output(&path).trim() == wanted {
        return Ok(path);
    }
    println!(
        "xtask: installing {krate} {version} (first run only; trunk takes about 9 minutes, cargo-fuzz about 3)"
    );
    let mut install = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    install.args(["install", krate, "--version", version]);
    if locked {
        install.arg("--locked");
    }
    timed_install(&format!("{krate} {version}"), || status(&mut install))?;
    let found = version_output(&path);
    if found.trim() == wanted {
        Ok(path)
    } else {
        Err(Error::Task(format!(
            "{} reports `{}` after installing, expected `{wanted}`",
            path.display(),
            found.trim()
        )))
    }
}

fn ensure_wasm_opt() -> Result<PathBuf, Error> {
    let prefix = tools_dir().join("binaryen");
    let bin_dir = prefix.join("node_modules/.bin");
    if version_output(&bin_dir.join("wasm-opt")).contains(WASM_OPT_VERSION_LINE) {
        return Ok(bin_dir);
    }
    println!("xtask: installing wasm-opt (npm binaryen {BINARYEN_VERSION})");
    std::fs::create_dir_all(&prefix).map_err(error::file(&prefix))?;
    timed_install(&format!("npm binaryen {BINARYEN_VERSION}"), || {
        status(
            Command::new("npm")
                .args([
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--no-save",
                    "--prefix",
                ])
                .arg(&prefix)
                .arg(format!("binaryen@{BINARYEN_VERSION}")),
        )
    })?;
    if version_output(&bin_dir.join("wasm-opt")).contains(WASM_OPT_VERSION_LINE) {
        Ok(bin_dir)
    } else {
        Err("wasm-opt from npm binaryen does not report version 132".into())
    }
}

/// The wasm target, trunk, wasm-bindgen-cli and wasm-opt.
pub fn ensure_build_tools() -> Result<BuildTools, Error> {
    ensure_wasm_target()?;
    ensure_page_toolchain()?;
    let trunk = ensure_cargo_tool("trunk", "trunk", TRUNK_VERSION, true)?;
    // wasm-bindgen-cli's own lockfile pins a crate the registry no longer serves,
    // so it is installed without --locked.
    let wasm_bindgen_version = locked_wasm_bindgen_version()?;
    ensure_cargo_tool(
        "wasm-bindgen",
        "wasm-bindgen-cli",
        &wasm_bindgen_version,
        false,
    )?;
    let wasm_opt_dir = ensure_wasm_opt()?;
    Ok(BuildTools {
        trunk,
        wasm_bindgen_test_runner: cargo_bin_dir().join("wasm-bindgen-test-runner"),
        bin_dirs: vec![cargo_bin_dir(), wasm_opt_dir],
    })
}

/// Installs Debian packages with apt-get (through sudo unless running as root).
fn apt_install(packages: &[&str]) -> Result<(), Error> {
    let as_root = Command::new("id")
        .arg("-u")
        .output()
        .map(|output| output.stdout.starts_with(b"0"))
        .unwrap_or(false);
    let apt = |args: &[&str]| {
        let mut command = if as_root {
            Command::new("apt-get")
        } else {
            let mut sudo = Command::new("sudo");
            sudo.arg("apt-get");
            sudo
        };
        command.env("DEBIAN_FRONTEND", "noninteractive").args(args);
        command
    };
    status(&mut apt(&["update", "-q"]))?;
    status(apt(&["install", "-y", "-q"]).args(packages))
}

fn ensure_chromium() -> Result<(PathBuf, PathBuf), Error> {
    if let (Some(chromium), Some(chromedriver)) =
        (find_on_path("chromium"), find_on_path("chromedriver"))
    {
        return Ok((chromium, chromedriver));
    }
    println!("xtask: installing Debian's chromium and chromium-driver");
    timed_install("Debian's chromium and chromium-driver", || {
        apt_install(&["chromium", "chromium-driver"])
    })?;
    match (find_on_path("chromium"), find_on_path("chromedriver")) {
        (Some(chromium), Some(chromedriver)) => Ok((chromium, chromedriver)),
        _ => Err("chromium and chromedriver are still not on PATH after apt-get install".into()),
    }
}

fn ensure_emulator_venv() -> Result<PathBuf, Error> {
    let venv = tools_dir().join("ec2-emulator-venv");
    let python = venv.join("bin/python");
    let ready = Command::new(&python)
        .args(["-c", "import moto.server, flask, cfnlint.runner"])
        .output()
        .map(|output| output.status.success())
        .unwrap_or(false);
    if ready {
        return Ok(python);
    }
    println!(
        "xtask: creating a Python virtual environment with {MOTO_REQUIREMENT} (the EC2 emulator) and {CFN_LINT_REQUIREMENT}"
    );
    timed_install(MOTO_REQUIREMENT, || {
        status(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
        status(
            Command::new(&python)
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                ])
                .args([MOTO_REQUIREMENT, CFN_LINT_REQUIREMENT]),
        )
    })?;
    Ok(python)
}

/// Chromium, chromedriver and the EC2 emulator's Python environment.
pub fn ensure_test_tools() -> Result<TestTools, Error> {
    let (chromium, chromedriver) = ensure_chromium()?;
    let emulator_python = ensure_emulator_venv()?;
    Ok(TestTools {
        chromedriver,
        chromium,
        emulator_python,
    })
}

/// The nightly the page is built with and the fuzz targets run on, by date, so every
/// machine builds the same bytes. Only the page's size build and libFuzzer need nightly;
/// everything else builds with the stable toolchain `rust-toolchain.toml` names.
pub const NIGHTLY: &str = "nightly-2026-05-20";

/// Output of `rustup ARGS…`, or nothing when rustup does not run.
fn rustup_output(args: &[&str]) -> String {
    Command::new("rustup")
        .args(args)
        .output()
        .map(|output| String::from_utf8_lossy(&output.stdout).into_owned())
        .unwrap_or_default()
}

/// [`NIGHTLY`] with `components` and `targets`, each installed through rustup when missing.
fn ensure_nightly(components: &[&str], targets: &[&str]) -> Result<(), Error> {
    let toolchains = rustup_output(&["toolchain", "list"]);
    let installed = toolchains
        .lines()
        .any(|line| line.starts_with(&format!("{NIGHTLY}-")) || line.trim() == NIGHTLY);
    if !installed {
        println!("xtask: installing the {NIGHTLY} toolchain (first run only, under a minute)");
        let mut install = Command::new("rustup");
        install.args([
            "toolchain",
            "install",
            NIGHTLY,
            "--profile",
            "minimal",
            "--no-self-update",
        ]);
        for component in components {
            install.args(["--component", component]);
        }
        for target in targets {
            install.args(["--target", target]);
        }
        return timed_install(NIGHTLY, || status(&mut install));
    }
    let present = rustup_output(&["component", "list", "--installed", "--toolchain", NIGHTLY]);
    let has = |name: &str| present.lines().any(|line| line.starts_with(name));
    for component in components {
        if !has(component) {
            println!("xtask: adding {component} to the {NIGHTLY} toolchain");
            status(Command::new("rustup").args([
                "component",
                "add",
                component,
                "--toolchain",
                NIGHTLY,
            ]))?;
        }
    }
    for target in targets {
        if !has(&format!("rust-std-{target}")) {
            println!("xtask: adding the {target} target to the {NIGHTLY} toolchain");
            status(Command::new("rustup").args(["target", "add", target, "--toolchain", NIGHTLY]))?;
        }
    }
    Ok(())
}

/// The nightly toolchain and cargo-fuzz.
pub fn ensure_fuzz_tools() -> Result<PathBuf, Error> {
    ensure_nightly(&[], &[])?;
    ensure_cargo_tool("cargo-fuzz", "cargo-fuzz", CARGO_FUZZ_VERSION, true)
}

/// What the page's build needs from nightly: the standard library's source (rebuilt for
/// the page) and the wasm target.
fn ensure_page_toolchain() -> Result<(), Error> {
    ensure_nightly(&["rust-src"], &["wasm32-unknown-unknown"])
}

/// Downloads the crates the standard library's own build depends on (its source carries
/// a Cargo.lock of its own), so that the page's `-Zbuild-std` build works offline, as
/// trunk runs cargo. `cargo fetch` of the workspace does not reach them.
pub fn fetch_std_dependencies() -> Result<(), Error> {
    let sysroot = Command::new("rustup")
        .args(["run", NIGHTLY, "rustc", "--print", "sysroot"])
        .output()
        .map_err(|error| format!("cannot run rustc of {NIGHTLY}: {error}"))?;
    if !sysroot.status.success() {
        return Err(Error::Task(format!(
            "rustc of {NIGHTLY} cannot print its sysroot: {}",
            String::from_utf8_lossy(&sysroot.stderr).trim()
        )));
    }
    let sysroot = PathBuf::from(String::from_utf8_lossy(&sysroot.stdout).trim());
    let manifest = sysroot.join("lib/rustlib/src/rust/library/Cargo.toml");
    if !manifest.is_file() {
        return Err(Error::Task(format!(
            "{} is missing: {NIGHTLY} has no rust-src component",
            manifest.display()
        )));
    }
    status(
        Command::new("cargo")
            .env("RUSTUP_TOOLCHAIN", NIGHTLY)
            .args(["fetch", "--locked", "--quiet", "--manifest-path"])
            .arg(&manifest),
    )
}

/// Debian's `wrk`, the HTTP load generator of `cargo xtask bench`.
pub fn ensure_wrk() -> Result<PathBuf, Error> {
    if let Some(wrk) = find_on_path("wrk") {
        return Ok(wrk);
    }
    println!("xtask: installing Debian's wrk (HTTP load generator)");
    apt_install(&["wrk"])?;
    find_on_path("wrk").ok_or_else(|| "wrk is still not on PATH after apt-get install".into())
}
