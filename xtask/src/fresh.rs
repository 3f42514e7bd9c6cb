//! `cargo xtask fresh`: what a newcomer's machine does with the README's two commands.
//!
//! Everything a first run downloads or builds is pointed at one empty directory: cargo's
//! home (registry, installed tools), rustup's home (so no nightly, nor any other toolchain
//! but the stable one a new machine comes with), the target directory (page, server,
//! wasm-opt, the emulator's Python environment) and npm's and pip's caches. Then
//! `cargo xtask run` is started and left running until the studio answers, and with
//! `--test` `cargo xtask test` runs to the end. Debian's packages (Chromium, wrk) are
//! system-wide and cannot be made fresh; they are installed when missing as usual.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::{self, Error};

use crate::{root, status};

/// One part of the proof and how it went.
struct Part {
    what: String,
    seconds: f64,
    detail: String,
}

/// The rustup proxies a toolchain's commands go through.
const PROXIES: [&str; 8] = [
    "cargo",
    "rustc",
    "rustdoc",
    "cargo-clippy",
    "clippy-driver",
    "rustfmt",
    "cargo-fmt",
    "rustup",
];

/// The fresh directories and the environment that points every tool at them.
struct Fresh {
    dir: PathBuf,
    path: std::ffi::OsString,
}

impl Fresh {
    fn cargo_home(&self) -> PathBuf {
        self.dir.join("cargo-home")
    }

    fn rustup_home(&self) -> PathBuf {
        self.dir.join("rustup-home")
    }

    fn target(&self) -> PathBuf {
        self.dir.join("target")
    }

    /// `program` with every home, cache and the target directory in the fresh directory.
    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .current_dir(root())
            .env("PATH", &self.path)
            .env("CARGO_HOME", self.cargo_home())
            .env("RUSTUP_HOME", self.rustup_home())
            .env("CARGO_TARGET_DIR", self.target())
            .env("npm_config_cache", self.dir.join("npm-cache"))
            .env("PIP_CACHE_DIR", self.dir.join("pip-cache"))
            // The outer `cargo xtask` set these for itself; the inner run finds its own.
            .env_remove("CARGO")
            .env_remove("CARGO_MANIFEST_DIR")
            .env_remove("RUSTUP_TOOLCHAIN")
            .env_remove("RUSTC")
            .env_remove("RUSTDOC");
        command
    }
}

/// The stable toolchain `rust-toolchain.toml` names: a new machine has it already.
fn pinned_stable() -> Result<String, Error> {
    let path = root().join("rust-toolchain.toml");
    let text = std::fs::read_to_string(&path).map_err(error::file(&path))?;
    text.lines()
        .find_map(|line| {
            let value = line
                .trim()
                .strip_prefix("channel")?
                .trim()
                .strip_prefix('=')?;
            Some(value.trim().trim_matches('"').to_owned())
        })
        .ok_or_else(|| Error::Task(format!("{} names no channel", path.display())))
}

fn rustup_binary() -> Result<PathBuf, Error> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("rustup"))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| Error::from("rustup is not on PATH"))
}

/// PATH with the fresh cargo home's `bin` and the rustup proxies first, and without the
/// directories of the machine's own cargo home (whose hand-installed tools would hide a
/// missing install step).
fn fresh_path(dir: &Path, rustup: &Path) -> Result<std::ffi::OsString, Error> {
    let proxies = dir.join("proxies");
    std::fs::create_dir_all(&proxies).map_err(error::file(&proxies))?;
    for proxy in PROXIES {
        std::os::unix::fs::symlink(rustup, proxies.join(proxy))
            .map_err(|error| format!("cannot link {proxy} to rustup: {error}"))?;
    }
    let machine_cargo_bin = rustup.parent().map(Path::to_path_buf);
    let existing = std::env::var_os("PATH").unwrap_or_default();
    let kept = std::env::split_paths(&existing)
        .filter(|entry| Some(entry) != machine_cargo_bin.as_ref())
        .collect::<Vec<_>>();
    let dirs = [dir.join("cargo-home/bin"), proxies]
        .into_iter()
        .chain(kept);
    std::env::join_paths(dirs).map_err(|error| Error::Task(format!("cannot build PATH: {error}")))
}

/// Total bytes and files under `path`.
fn du(path: &Path) -> (u64, u64) {
    let Ok(entries) = std::fs::read_dir(path) else {
        return (0, 0);
    };
    let mut total = (0, 0);
    for entry in entries.filter_map(Result::ok) {
        let Ok(meta) = entry.path().symlink_metadata() else {
            continue;
        };
        if meta.is_dir() {
            let (bytes, files) = du(&entry.path());
            total.0 += bytes;
            total.1 += files;
        } else {
            total.0 += meta.len();
            total.1 += 1;
        }
    }
    total
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

/// Crates downloaded into the fresh cargo home, and their size.
fn downloaded_crates(fresh: &Fresh) -> (usize, u64) {
    let cache = fresh.cargo_home().join("registry/cache");
    let mut count = 0;
    let mut bytes = 0;
    for registry in std::fs::read_dir(cache).into_iter().flatten().flatten() {
        for file in std::fs::read_dir(registry.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            count += 1;
            bytes += file.metadata().map(|meta| meta.len()).unwrap_or(0);
        }
    }
    (count, bytes)
}

/// Runs `command`, echoing its output and keeping the lines that say what was installed.
fn run_logged(mut command: Command, installs: &mut Vec<String>) -> Result<(), Error> {
    let shown = format!("{command:?}");
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|source| Error::Start {
            command: shown.clone(),
            source,
        })?;
    let stdout = child.stdout.take().expect("stdout is piped");
    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
        println!("{line}");
        if let Some(install) = line.strip_prefix("xtask: installed ") {
            installs.push(install.to_owned());
        }
    }
    let exit = child
        .wait()
        .map_err(|error| format!("cannot wait for {shown}: {error}"))?;
    if exit.success() {
        Ok(())
    } else {
        Err(Error::Failed {
            command: shown,
            status: exit,
        })
    }
}

/// One HTTP/1.1 GET on loopback: status line and headers, and the body.
fn get(address: &str, path: &str, accept_encoding: &str) -> Result<(String, Vec<u8>), Error> {
    let mut stream = TcpStream::connect(address)
        .map_err(|error| format!("cannot connect to {address}: {error}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(|error| error.to_string())?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nAccept-Encoding: {accept_encoding}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|error| format!("cannot send to {address}: {error}"))?;
    let mut answer = Vec::new();
    stream
        .read_to_end(&mut answer)
        .map_err(|error| format!("cannot read from {address}: {error}"))?;
    let split = answer
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .ok_or_else(|| format!("{path}: no end of headers in the answer"))?;
    let head = String::from_utf8_lossy(&answer[..split]).into_owned();
    Ok((head, answer[split + 4..].to_vec()))
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

/// Waits for `cargo xtask run` to say where the studio listens, then asks it for the
/// page and its wasm the way a browser does.
fn check_served(
    child: &mut Child,
    started: Instant,
    installs: &mut Vec<String>,
) -> Result<String, Error> {
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut lines = BufReader::new(stdout).lines();
    let mut address = None;
    for line in lines.by_ref().map_while(Result::ok) {
        println!("{line}");
        if let Some(install) = line.strip_prefix("xtask: installed ") {
            installs.push(install.to_owned());
        }
        if let Some((_, url)) = line.split_once("listening on http://") {
            address = Some(url.trim().trim_end_matches('/').to_owned());
            break;
        }
    }
    std::thread::spawn(move || {
        lines
            .map_while(Result::ok)
            .for_each(|line| println!("{line}"))
    });
    let address = address.ok_or("`cargo xtask run` ended without serving the studio")?;
    let serving_after = started.elapsed().as_secs_f64();
    let (index, page) = get(&address, "/", "identity")?;
    if !index.starts_with("HTTP/1.1 200") {
        return Err(Error::Task(format!(
            "GET / answered `{}`",
            index.lines().next().unwrap_or_default()
        )));
    }
    let page = String::from_utf8_lossy(&page);
    let wasm = page
        .split('"')
        .find(|part| part.ends_with("_bg.wasm"))
        .ok_or("the served index.html names no wasm file")?
        .to_owned();
    let (wasm_head, wasm_body) = get(&address, &wasm, "br, gzip")?;
    let encoding = header(&wasm_head, "content-encoding").unwrap_or("none");
    let cache = header(&wasm_head, "cache-control").unwrap_or("none");
    if !wasm_head.starts_with("HTTP/1.1 200") || encoding != "br" {
        return Err(Error::Task(format!(
            "GET {wasm} with `Accept-Encoding: br, gzip` answered `{}` with content-encoding `{encoding}`",
            wasm_head.lines().next().unwrap_or_default()
        )));
    }
    Ok(format!(
        "served after {serving_after:.0} s; {wasm}: {} bytes brotli, cache-control `{cache}`",
        wasm_body.len()
    ))
}

fn stop_group(child: &mut Child) {
    // The child leads its own process group: the server `cargo xtask run` started is in
    // it. Signalled through killpg, never a `kill` command line (whose parsing of a
    // negative id differs between implementations).
    let group = nix::unistd::Pid::from_raw(child.id() as i32);
    let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGTERM);
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
    let _ = child.wait();
}

/// `cargo xtask fresh`.
pub fn fresh(with_tests: bool, dir: Option<PathBuf>, keep: bool) -> Result<(), Error> {
    let dir = dir.unwrap_or_else(|| std::env::temp_dir().join("eks-studio-fresh"));
    if dir.exists() {
        std::fs::remove_dir_all(&dir)
            .map_err(|error| format!("cannot empty {}: {error}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir).map_err(error::file(&dir))?;
    let rustup = rustup_binary()?;
    let fresh = Fresh {
        path: fresh_path(&dir, &rustup)?,
        dir,
    };
    println!(
        "xtask: fresh homes, caches and target directory in {}",
        fresh.dir.display()
    );
    let mut parts = Vec::new();
    let result = prove(&fresh, with_tests, &mut parts);
    if !keep {
        let _ = std::fs::remove_dir_all(&fresh.dir);
    }
    // The parts that ran are reported whether or not the last one failed.
    println!("\n==> from nothing ({})", crate::bench::machine());
    let width = parts.iter().map(|part| part.what.len()).max().unwrap_or(0);
    for part in &parts {
        println!(
            "{:width$}  {:>6.0} s  {}",
            part.what, part.seconds, part.detail
        );
    }
    result
}

/// The `xtask: installed WHAT in N s` lines seen, as parts of the one they were seen in.
fn install_parts(installs: &mut Vec<String>, parts: &mut Vec<Part>) {
    for install in installs.drain(..) {
        if let Some((what, seconds)) = install.rsplit_once(" in ") {
            parts.push(Part {
                what: format!("  of which installing {what}"),
                seconds: seconds.trim_end_matches(" s").parse().unwrap_or(0.0),
                detail: String::new(),
            });
        }
    }
}

fn prove(fresh: &Fresh, with_tests: bool, parts: &mut Vec<Part>) -> Result<(), Error> {
    let stable = pinned_stable()?;
    let started = Instant::now();
    status(fresh.command("rustup").args([
        "toolchain",
        "install",
        &stable,
        "--profile",
        "minimal",
        "--no-self-update",
        "--component",
        "clippy",
        "--component",
        "rustfmt",
    ]))?;
    parts.push(Part {
        what: format!("the machine's own stable toolchain ({stable}; a new machine has it)"),
        seconds: started.elapsed().as_secs_f64(),
        detail: String::new(),
    });

    let mut installs = Vec::new();
    let started = Instant::now();
    let mut run = fresh.command("cargo");
    run.args(["xtask", "run", "--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped());
    std::os::unix::process::CommandExt::process_group(&mut run, 0);
    let mut child = run
        .spawn()
        .map_err(|error| format!("cannot start `cargo xtask run`: {error}"))?;
    let served = check_served(&mut child, started, &mut installs);
    stop_group(&mut child);
    let served = served?;
    let (crates, crate_bytes) = downloaded_crates(fresh);
    let (rustup_bytes, _) = du(&fresh.rustup_home());
    parts.push(Part {
        what: "`cargo xtask run` until the studio answers".into(),
        seconds: started.elapsed().as_secs_f64(),
        detail: served,
    });
    install_parts(&mut installs, parts);
    parts.push(Part {
        what: "  downloaded".into(),
        seconds: 0.0,
        detail: format!(
            "{crates} crates ({:.0} MB), toolchains {:.0} MB on disk, npm cache {:.0} MB",
            mb(crate_bytes),
            mb(rustup_bytes),
            mb(du(&fresh.dir.join("npm-cache")).0),
        ),
    });

    if with_tests {
        let started = Instant::now();
        let mut test = fresh.command("cargo");
        test.args(["xtask", "test"])
            .env("CI", "true")
            .stdin(Stdio::null());
        let outcome = run_logged(test, &mut installs);
        let seconds = started.elapsed().as_secs_f64();
        let (crates, crate_bytes) = downloaded_crates(fresh);
        parts.push(Part {
            what: "`cargo xtask test` after it".into(),
            seconds,
            detail: match &outcome {
                Ok(()) => "passed".into(),
                Err(error) => format!("FAILED: {error}"),
            },
        });
        install_parts(&mut installs, parts);
        parts.push(Part {
            what: "  downloaded in all".into(),
            seconds: 0.0,
            detail: format!(
                "{crates} crates ({:.0} MB), pip cache {:.0} MB, target directory {:.1} GB",
                mb(crate_bytes),
                mb(du(&fresh.dir.join("pip-cache")).0),
                mb(du(&fresh.target()).0) / 1000.0,
            ),
        });
        outcome?;
    }
    Ok(())
}
