//! `cargo xtask bench`: the figures docs/performance.md budgets, measured on this machine and printed
//! as one table. Nothing here asserts a time; the numbers go into docs/performance.md.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::{self, Error};

use crate::{
    as_page_build, build_backend, build_frontend, cargo, dist_dir, root, status, target_dir, tools,
};

/// One row of the results table.
struct Row {
    what: String,
    figure: String,
    budget: String,
}

fn gzip9(bytes: &[u8]) -> usize {
    crate::compress::gzip9(bytes).len()
}

/// What the page's files weigh as built and as the server sends them (the brotli copies
/// `build_frontend` wrote, which browsers that accept `br` get).
fn page_weight(rows: &mut Vec<Row>) -> Result<(), Error> {
    let files = crate::compress::precompress(&dist_dir())?;
    let (mut raw_total, mut brotli_total, mut gzip_total) = (0, 0, 0);
    for file in &files {
        let brotli = file.brotli.unwrap_or(file.raw);
        let gzip = file.gzip.unwrap_or(file.raw);
        raw_total += file.raw;
        brotli_total += brotli;
        gzip_total += gzip;
        rows.push(Row {
            what: format!("page file {}", file.file.display()),
            figure: format!(
                "{:.1} KiB raw, {:.1} KiB brotli, {:.1} KiB gzip",
                kib(file.raw),
                kib(brotli),
                kib(gzip)
            ),
            budget: String::new(),
        });
    }
    rows.push(Row {
        what: "every file of the page, as stored".into(),
        figure: format!(
            "{:.1} KiB raw, {:.1} KiB brotli, {:.1} KiB gzip",
            kib(raw_total),
            kib(brotli_total),
            kib(gzip_total)
        ),
        budget: String::new(),
    });
    Ok(())
}

/// The page's weight before its views: the frontend's `page_floor` binary (everything the
/// page computes, no view) and `page_floor_leptos` (the same behind one Leptos text field),
/// each built, bound and optimised as trunk builds the page. What the studio's own views
/// weigh is the page's total less the second.
fn page_floor(rows: &mut Vec<Row>, build_tools: &tools::BuildTools) -> Result<(), Error> {
    const FLOORS: [(&str, &str); 2] = [
        (
            "page_floor",
            "the page's work alone: rules, rendering, import, zip, catalog, JSON (wasm + JS)",
        ),
        (
            "page_floor_leptos",
            "the same behind one Leptos text field, before any studio view (wasm + JS)",
        ),
    ];
    let mut build = Command::new("cargo");
    as_page_build(&mut build)
        .current_dir(root())
        .env("PATH", build_tools.search_path())
        .args([
            "build",
            "--package",
            "eks-studio-frontend",
            "--target",
            "wasm32-unknown-unknown",
            "--profile",
            "wasm-release",
        ]);
    for (bin, _) in FLOORS {
        build.args(["--bin", bin]);
    }
    status(&mut build)?;
    let out_dir = target_dir().join("page-floor");
    for (bin, what) in FLOORS {
        let built = target_dir().join(format!("wasm32-unknown-unknown/wasm-release/{bin}.wasm"));
        status(
            Command::new("wasm-bindgen")
                .env("PATH", build_tools.search_path())
                .args(["--target", "web", "--no-typescript", "--out-dir"])
                .arg(&out_dir)
                .args(["--out-name", bin])
                .arg(&built),
        )?;
        let bound = out_dir.join(format!("{bin}_bg.wasm"));
        let optimised = out_dir.join(format!("{bin}_opt.wasm"));
        status(
            Command::new("wasm-opt")
                .env("PATH", build_tools.search_path())
                .args([
                    "-Oz",
                    "--enable-bulk-memory",
                    "--enable-nontrapping-float-to-int",
                    "--enable-sign-ext",
                    "--enable-reference-types",
                    "--enable-mutable-globals",
                    "--enable-multivalue",
                ])
                .arg(&bound)
                .arg("-o")
                .arg(&optimised),
        )?;
        let read = |path: &Path| std::fs::read(path).map_err(error::file(&path));
        let wasm = read(&optimised)?;
        let js = read(&out_dir.join(format!("{bin}.js")))?;
        rows.push(Row {
            what: what.to_owned(),
            figure: format!(
                "{:.1} KiB raw, {:.1} KiB gzip -9",
                kib(wasm.len() + js.len()),
                kib(gzip9(&wasm) + gzip9(&js))
            ),
            budget: String::new(),
        });
    }
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
fn lint_process(rows: &mut Vec<Row>) -> Result<(), Error> {
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
    let run = || -> Result<Duration, Error> {
        let started = Instant::now();
        let output = Command::new(&binary)
            .arg("lint")
            .arg(&seed)
            .output()
            .map_err(|error| format!("cannot run {}: {error}", binary.display()))?;
        let elapsed = started.elapsed();
        // The seed has placeholders: lint exits 1, which is what is measured.
        if output.status.code() != Some(1) {
            return Err(Error::Task(format!(
                "lint exited {:?}",
                output.status.code()
            )));
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
    lint_linearity(&binary, rows)
}

/// Lint time against input size: ClusterConfigs of 1, 2, 4 and 8 MB (thousands of node
/// groups), so a rule that is quadratic in the groups shows as a ratio far above 8.
fn lint_linearity(binary: &Path, rows: &mut Vec<Row>) -> Result<(), Error> {
    const MEGABYTE: usize = 1024 * 1024;
    let directory = target_dir().join("bench");
    std::fs::create_dir_all(&directory).map_err(|error| error.to_string())?;
    let mut times = Vec::new();
    for megabytes in [1usize, 2, 4, 8] {
        let mut text = String::from(
            "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: large\n  region: us-east-1\n  version: \"1.35\"\nmanagedNodeGroups:\n",
        );
        let mut index = 0;
        while text.len() < megabytes * MEGABYTE {
            text.push_str(&format!(
                "  - name: group-{index}\n    instanceType: m5.large\n    minSize: 1\n    desiredCapacity: 1\n    maxSize: 2\n    labels: {{team: ml, shard: s{index}}}\n    taints:\n      - {{key: example.com/shard, value: s{index}, effect: NoSchedule}}\n"
            ));
            index += 1;
        }
        let file = directory.join(format!("lint-{megabytes}mb.yaml"));
        std::fs::write(&file, &text).map_err(|error| error.to_string())?;
        let run = || -> Result<(Duration, u64), Error> {
            let mut command = Command::new(binary);
            command
                .arg("lint")
                .arg("--format")
                .arg("json")
                .arg("--max-bytes")
                .arg((16 * MEGABYTE).to_string())
                .arg(&file);
            let (code, elapsed, peak_kib) = run_measured(command)?;
            if !matches!(code, Some(0 | 1)) {
                return Err(Error::Task(format!(
                    "lint of {} exited {code:?}",
                    file.display()
                )));
            }
            Ok((elapsed, peak_kib))
        };
        let samples = (0..3).map(|_| run()).collect::<Result<Vec<_>, _>>()?;
        let peak_kib = samples.iter().map(|(_, peak)| *peak).max().unwrap_or(0);
        let time = median(samples.into_iter().map(|(time, _)| time).collect());
        rows.push(Row {
            what: format!("eks-studio lint of a {megabytes} MB ClusterConfig ({index} node groups, median of 3)"),
            figure: format!(
                "{:.2} s, peak {:.0} MiB ({:.1}x the file)",
                time.as_secs_f64(),
                peak_kib as f64 / 1024.0,
                (peak_kib * 1024) as f64 / text.len() as f64
            ),
            budget: if megabytes == 8 {
                "<= 2 s, <= 10x the file".into()
            } else {
                "linear in the size".into()
            },
        });
        times.push(time.as_secs_f64());
    }
    let ratio = times[3] / times[0];
    rows.push(Row {
        what: "lint time of 8 MB / lint time of 1 MB".into(),
        figure: format!("{ratio:.1}x"),
        budget: "<= 10x (linear: 8x)".into(),
    });
    Ok(())
}

/// Runs `command` to its end, its output discarded; its exit code, how long it took and
/// its peak resident memory in KiB (the kernel's high-water mark, read from `/proc` until
/// the process ends: the last reading is within a few milliseconds of its end).
fn run_measured(mut command: Command) -> Result<(Option<i32>, Duration, u64), Error> {
    let started = Instant::now();
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| format!("cannot run {command:?}: {error}"))?;
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0;
    loop {
        if let Some(peak) = high_water_mark_kib(&status_file) {
            peak_kib = peak_kib.max(peak);
        }
        if let Some(status) = child.try_wait().map_err(|error| error.to_string())? {
            return Ok((status.code(), started.elapsed(), peak_kib));
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// `VmHWM` of a `/proc/PID/status` file, in KiB.
fn high_water_mark_kib(status_file: &str) -> Option<u64> {
    let text = std::fs::read_to_string(status_file).ok()?;
    let line = text.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `POST /api/checks` of the largest design the server accepts (300 node groups, each
/// with its own types and subnets): the request's time and what it adds to the server's
/// peak memory. The server has no AWS credentials here, so every planned call answers at
/// once: this is what planning, the call budget and judging cost, not EC2's latency.
fn checks_of_the_largest_design(rows: &mut Vec<Row>, dir: &Path) -> Result<(), Error> {
    use std::io::Write;
    let mut spec = largest_seed_template().spec();
    let first = spec.node_groups[0].clone();
    spec.node_groups = (0..shared::model::spec::MOST_NODE_GROUPS)
        .map(|index| {
            let mut group = first.clone();
            group.name = format!("group-{index}");
            group
        })
        .collect();
    let body = spec.to_json();
    let mut studio_command = Command::new(target_dir().join("release/eks-studio"));
    studio_command
        .args(["serve", "--addr", "127.0.0.1:0", "--static-dir"])
        .arg(dir.join("no-page"))
        .arg("--data-dir")
        .arg(dir.join("checks-data"))
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env_remove("AWS_PROFILE")
        .env_remove("AWS_ACCESS_KEY_ID");
    let studio = Server::start(studio_command, &dir.join("eks-studio-checks.log"))?;
    let address = studio.base_url.trim_start_matches("http://").to_owned();
    let status_file = format!("/proc/{}/status", studio.child.id());
    let before = high_water_mark_kib(&status_file).unwrap_or(0);
    let mut request = Vec::new();
    write!(
        request,
        "POST /api/checks HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .map_err(|error| error.to_string())?;
    let samples = (0..5)
        .map(|_| http_request(&address, &request))
        .collect::<Result<Vec<_>, _>>()?;
    let after = high_water_mark_kib(&status_file).unwrap_or(0);
    rows.push(Row {
        what: format!(
            "POST /api/checks of {} node groups ({} KB), offline (median of 5)",
            shared::model::spec::MOST_NODE_GROUPS,
            body.len() / 1000
        ),
        figure: format!(
            "{:.0} ms, server peak +{:.0} MiB",
            millis(median(samples)),
            after.saturating_sub(before) as f64 / 1024.0
        ),
        budget: "bounded by the 300-group limit".into(),
    });
    Ok(())
}

/// `plan` against a cluster the eksctl stand-in made in the emulator, each call answered
/// after the same delay, beside the slowest single call: the measurement in
/// `backend/tests/running.rs`, run in the release build.
fn plan_latency(rows: &mut Vec<Row>) -> Result<(), Error> {
    let test_tools = tools::ensure_test_tools()?;
    let output = cargo()
        .args([
            "test",
            "--release",
            "--package",
            "eks-studio",
            "--test",
            "running",
            "--",
            "--ignored",
            "--nocapture",
            "--exact",
            "plan_latency_beside_the_slowest_single_call",
        ])
        .env("EC2_EMULATOR_PYTHON", &test_tools.emulator_python)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|error| format!("cannot run the plan measurement: {error}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    print!("{stdout}");
    if !output.status.success() {
        return Err(Error::Task(format!(
            "the plan measurement failed ({})",
            output.status
        )));
    }
    for line in stdout.lines() {
        let Some((what, figure)) = line
            .strip_prefix("plan-latency: ")
            .and_then(|rest| rest.split_once(": "))
        else {
            continue;
        };
        rows.push(Row {
            what: what.to_owned(),
            figure: figure.to_owned(),
            budget: "<= 1.5x the slowest single call".into(),
        });
    }
    Ok(())
}

/// The parts of `cargo xtask bench`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Part {
    /// criterion: validate + render in process (`shared`).
    Criterion,
    /// The page's weight as stored, raw, brotli and gzip (builds the page).
    Page,
    /// A first and a repeat visit in headless Chromium: bytes on the wire, and time to the
    /// preview over throttled links (builds the page and server).
    Visit,
    /// `eks-studio lint`, whole process.
    Lint,
    /// `POST /api/validate` under load beside a bare axum handler.
    Load,
    /// Keystroke → validated preview in headless Chromium (builds the page and server).
    Browser,
    /// `eks-studio plan` against a cluster in the emulator, every call delayed alike,
    /// beside its slowest single AWS call (release build).
    Plan,
}

/// Runs the benchmarks (every part unless `only` names some) and prints the table.
pub fn bench(only: &[Part], load_seconds: u64) -> Result<(), Error> {
    let wanted = |part: Part| only.is_empty() || only.contains(&part);
    let mut rows = Vec::new();
    if wanted(Part::Criterion) {
        println!("==> criterion: validate + render (shared)");
        status(cargo().args([
            "bench",
            "--package",
            "eks-studio-shared",
            "--bench",
            "validate_render",
        ]))?;
    }
    if wanted(Part::Page) {
        println!("\n==> page weight");
        let build_tools = tools::ensure_build_tools()?;
        build_frontend(&build_tools)?;
        page_weight(&mut rows)?;
        page_floor(&mut rows, &build_tools)?;
    }
    if wanted(Part::Lint) {
        println!("\n==> eks-studio lint, whole process");
        lint_process(&mut rows)?;
        let dir = target_dir().join("bench");
        checks_of_the_largest_design(&mut rows, &dir)?;
    }
    if wanted(Part::Load) {
        println!("\n==> POST /api/validate under load, beside a bare axum handler");
        api_load(&mut rows, load_seconds)?;
    }
    if wanted(Part::Visit) {
        println!("\n==> first and repeat visit, in headless Chromium");
        let build_tools = tools::ensure_build_tools()?;
        build_frontend(&build_tools)?;
        build_backend()?;
        e2e_measurement(&mut rows, "first_visit", &[("visit, ", "")], visit_budget)?;
    }
    if wanted(Part::Browser) {
        println!("\n==> keystroke → validated preview, in headless Chromium");
        let build_tools = tools::ensure_build_tools()?;
        build_frontend(&build_tools)?;
        build_backend()?;
        e2e_measurement(
            &mut rows,
            "latency",
            &[
                ("keystroke → validated preview, ", "keystroke → preview, "),
                ("import of a ", "import of a "),
            ],
            latency_budget,
        )?;
    }
    if wanted(Part::Plan) {
        println!("\n==> eks-studio plan against a running cluster (the emulator)");
        plan_latency(&mut rows)?;
    }
    let width = rows.iter().map(|row| row.what.len()).max().unwrap_or(0);
    println!("\n==> results ({})", machine());
    for row in &rows {
        println!("{:width$}  {:32}  {}", row.what, row.figure, row.budget);
    }
    let written = write_results(&rows)?;
    println!("the figures are in {}", written.display());
    if wanted(Part::Criterion) {
        println!("criterion's figures for validate + render are above (and in target/criterion/).");
    }
    Ok(())
}

/// Writes the run's figures as a Markdown table to `target/bench/results.md` (the day,
/// the machine, each figure with its budget), for docs/performance.md and `BENCHMARKS.md`.
fn write_results(rows: &[Row]) -> Result<std::path::PathBuf, Error> {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs() / 86_400);
    let day = shared::catalog::versions::Date::from_days_since_epoch(days as i64);
    let mut text = format!(
        "# cargo xtask bench, {day} ({})\n\n| what | measured | budget |\n|---|---|---|\n",
        machine()
    );
    for row in rows {
        text.push_str(&format!(
            "| {} | {} | {} |\n",
            row.what,
            row.figure.replace('|', "/"),
            row.budget
        ));
    }
    let directory = crate::target_dir().join("bench");
    std::fs::create_dir_all(&directory).map_err(error::file(&directory))?;
    let file = directory.join("results.md");
    std::fs::write(&file, text).map_err(error::file(&file))?;
    Ok(file)
}

/// The largest of the seven seed templates (by its cluster.yaml), as the criterion
/// bench and the in-browser measurement choose it.
fn largest_seed_template() -> &'static shared::Template {
    shared::TEMPLATES
        .iter()
        .take(7)
        .max_by_key(|template| {
            shared::render_cluster_yaml(&template.spec())
                .map(|yaml| yaml.len())
                .unwrap_or(0)
        })
        .expect("there are seed templates")
}

/// Connections wrk keeps open; one wrk thread drives them. On a 2-core machine the load
/// generator takes about one core and the server the other, for both servers alike.
const LOAD_CONNECTIONS: u32 = 16;

/// Turns each server gets under load (an odd number, so there is one median round). One
/// round's ratio moves by several points on a shared 2-core machine; five make the median
/// steadier than three did.
const LOAD_ROUNDS: usize = 5;

/// What one wrk run measured.
#[derive(Clone, Copy)]
struct LoadResult {
    requests: u64,
    seconds: f64,
    p50: Duration,
    p99: Duration,
}

impl LoadResult {
    fn per_second(&self) -> f64 {
        self.requests as f64 / self.seconds
    }
}

/// A server process this bench started; dropping it stops that process (by its id).
struct Server {
    child: Child,
    base_url: String,
}

impl Server {
    /// Starts `command` and waits for the stdout line that says where it listens.
    fn start(mut command: Command, log: &Path) -> Result<Server, Error> {
        let shown = format!("{command:?}");
        let log_file = std::fs::File::create(log).map_err(error::file(&log))?;
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(log_file)
            .spawn()
            .map_err(|source| Error::Start {
                command: shown.clone(),
                source,
            })?;
        let mut lines = BufReader::new(child.stdout.take().expect("stdout is piped")).lines();
        let base_url = lines.by_ref().map_while(Result::ok).find_map(|line| {
            line.split_once("listening on ")
                .map(|(_, url)| url.trim().trim_end_matches('/').to_owned())
        });
        let mut server = Server {
            child,
            base_url: String::new(),
        };
        match base_url {
            Some(base_url) => server.base_url = base_url,
            None => {
                return Err(Error::Task(format!(
                    "{shown} ended without saying where it listens; see {}",
                    log.display()
                )));
            }
        }
        // Keep reading stdout so the server never writes into a closed pipe.
        std::thread::spawn(move || lines.map_while(Result::ok).for_each(drop));
        Ok(server)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One wrk run against `url`, POSTing `body` on every request.
fn wrk_run(
    wrk: &Path,
    script: &Path,
    body: &Path,
    url: &str,
    seconds: u64,
) -> Result<LoadResult, Error> {
    let output = Command::new(wrk)
        .args(["--threads", "1", "--connections"])
        .arg(LOAD_CONNECTIONS.to_string())
        .arg("--duration")
        .arg(format!("{seconds}s"))
        .args(["--timeout", "10s", "--script"])
        .arg(script)
        .arg(url)
        .arg("--")
        .arg(body)
        .output()
        .map_err(|error| format!("cannot run wrk: {error}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let result_line = stdout
        .lines()
        .find_map(|line| line.strip_prefix("wrk-result "))
        .ok_or_else(|| {
            format!(
                "wrk gave no result ({}): {stdout}{}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            )
        })?;
    let field = |name: &str| -> Result<u64, Error> {
        result_line
            .split(' ')
            .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
            .and_then(|value| value.parse().ok())
            .ok_or_else(|| Error::Task(format!("no {name} in wrk's result `{result_line}`")))
    };
    let requests = field("requests")?;
    let failed = field("status_errors")? + field("socket_errors")?;
    if requests == 0 || failed > 0 {
        return Err(Error::Task(format!(
            "{url}: {requests} requests, {failed} failed; the measurement is not valid"
        )));
    }
    Ok(LoadResult {
        requests,
        seconds: field("duration_us")? as f64 / 1e6,
        p50: Duration::from_micros(field("p50_us")?),
        p99: Duration::from_micros(field("p99_us")?),
    })
}

/// Warms a server up for two seconds, then measures it for `seconds`.
fn measure(
    wrk: &Path,
    script: &Path,
    body: &Path,
    url: &str,
    seconds: u64,
) -> Result<LoadResult, Error> {
    wrk_run(wrk, script, body, url, 2)?;
    let result = wrk_run(wrk, script, body, url, seconds)?;
    println!(
        "{url}: {} requests in {:.1} s, {:.0} req/s, latency median {:.2} ms, p99 {:.2} ms",
        result.requests,
        result.seconds,
        result.per_second(),
        millis(result.p50),
        millis(result.p99)
    );
    Ok(result)
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// `POST /api/validate` of the real server and a bare axum handler on the same stack,
/// loaded one after the other with the same request (release builds, 127.0.0.1).
fn api_load(rows: &mut Vec<Row>, seconds: u64) -> Result<(), Error> {
    let wrk = tools::ensure_wrk()?;
    status(cargo().args([
        "build",
        "--release",
        "--package",
        "eks-studio",
        "--bin",
        "eks-studio",
        "--example",
        "bare_axum",
    ]))?;
    let dir: PathBuf = target_dir().join("bench");
    std::fs::create_dir_all(&dir).map_err(error::file(&dir))?;
    let template = largest_seed_template();
    let body = dir.join("validate-body.json");
    let script = dir.join("post_body.lua");
    let write =
        |path: &Path, contents: &str| std::fs::write(path, contents).map_err(error::file(&path));
    let body_text = template.spec().to_json();
    write(&body, &body_text)?;
    write(&script, include_str!("post_body.lua"))?;
    println!(
        "xtask: body: template {}'s studio.json ({} bytes); wrk: 1 thread, {LOAD_CONNECTIONS} connections, {seconds} s each after 2 s of warm-up",
        template.id,
        body_text.len()
    );

    // The machine's speed drifts by several percent from one run to the next, so the two
    // servers are loaded in turns, each for LOAD_ROUNDS rounds; the table shows the round
    // with the median ratio.
    let deploy_data = dir.join("deploy-data");
    let mut rounds: Vec<(LoadResult, LoadResult)> = Vec::new();
    for round in 1..=LOAD_ROUNDS {
        println!("xtask: round {round} of {LOAD_ROUNDS}");
        let bare = Server::start(
            Command::new(target_dir().join("release/examples/bare_axum")),
            &dir.join("bare_axum.log"),
        )?;
        let bare_result = measure(
            &wrk,
            &script,
            &body,
            &format!("{}/api/validate", bare.base_url),
            seconds,
        )?;
        drop(bare);

        let mut studio_command = Command::new(target_dir().join("release/eks-studio"));
        studio_command
            .args(["serve", "--addr", "127.0.0.1:0", "--static-dir"])
            .arg(dir.join("no-page"))
            .arg("--data-dir")
            .arg(&deploy_data)
            // Offline: the bench must not wait on the instance metadata service.
            .env("AWS_EC2_METADATA_DISABLED", "true");
        let studio = Server::start(studio_command, &dir.join("eks-studio.log"))?;
        let studio_result = measure(
            &wrk,
            &script,
            &body,
            &format!("{}/api/validate", studio.base_url),
            seconds,
        )?;
        drop(studio);
        rounds.push((bare_result, studio_result));
    }
    let ratio = |(bare, studio): &(LoadResult, LoadResult)| studio.per_second() / bare.per_second();
    let ratios: Vec<String> = rounds
        .iter()
        .map(|round| format!("{:.0}%", 100.0 * ratio(round)))
        .collect();
    rounds.sort_by(|left, right| ratio(left).total_cmp(&ratio(right)));
    let (bare_result, studio_result) = &rounds[rounds.len() / 2];

    let figure = |result: &LoadResult| {
        format!(
            "{:.0} req/s, median {:.2} ms, p99 {:.2} ms",
            result.per_second(),
            millis(result.p50),
            millis(result.p99)
        )
    };
    rows.push(Row {
        what: format!("bare axum handler, same body ({} bytes)", body_text.len()),
        figure: figure(bare_result),
        budget: String::new(),
    });
    rows.push(Row {
        what: format!("POST /api/validate, {}'s studio.json", template.id),
        figure: figure(studio_result),
        budget: String::new(),
    });
    rows.push(Row {
        what: format!(
            "POST /api/validate throughput / bare axum's (median of {})",
            ratios.join(", ")
        ),
        figure: format!("{:.0}%", 100.0 * ratio(&(*bare_result, *studio_result))),
        // No longer a budget (docs/performance.md): reported for comparison.
        budget: "reported".into(),
    });
    health_under_heavy_work(rows, &deploy_data, &dir)
}

/// One HTTP/1.1 request on its own connection, read to the end of its body; the time it took.
fn http_request(address: &str, request: &[u8]) -> Result<Duration, Error> {
    use std::io::{Read, Write};
    let started = Instant::now();
    let mut stream = std::net::TcpStream::connect(address).map_err(|error| error.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .map_err(|error| error.to_string())?;
    stream
        .write_all(request)
        .map_err(|error| error.to_string())?;
    let mut answer = Vec::new();
    stream
        .read_to_end(&mut answer)
        .map_err(|error| error.to_string())?;
    if !answer.starts_with(b"HTTP/1.1 200") {
        let head = String::from_utf8_lossy(&answer[..answer.len().min(120)]).into_owned();
        return Err(Error::Task(format!("unexpected answer: {head}")));
    }
    Ok(started.elapsed())
}

/// `GET /api/health` while eight clients render the bundle of a large design over and over
/// (issue: CPU-heavy work must stay off the async workers): its latency should stay near
/// the idle one.
fn health_under_heavy_work(
    rows: &mut Vec<Row>,
    deploy_data: &Path,
    dir: &Path,
) -> Result<(), Error> {
    const RENDERERS: usize = 8;
    const RENDERS_EACH: usize = 4;
    let mut studio_command = Command::new(target_dir().join("release/eks-studio"));
    studio_command
        .args(["serve", "--addr", "127.0.0.1:0", "--static-dir"])
        .arg(dir.join("no-page"))
        .arg("--data-dir")
        .arg(deploy_data)
        .env("AWS_EC2_METADATA_DISABLED", "true");
    let studio = Server::start(studio_command, &dir.join("eks-studio-heavy.log"))?;
    let address = studio
        .base_url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let health =
        format!("GET /api/health HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n")
            .into_bytes();
    let sample_health = |count: usize| -> Result<Vec<Duration>, Error> {
        let mut samples = Vec::new();
        for _ in 0..count {
            samples.push(http_request(&address, &health)?);
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(samples)
    };
    let idle = median(sample_health(50)?);

    let spec = shared::templates::sized_spec(2000, 40).to_json();
    let render = format!(
        "POST /api/render HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{spec}",
        spec.len()
    )
    .into_bytes();
    let busy = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(RENDERERS));
    let renderers: Vec<_> = (0..RENDERERS)
        .map(|_| {
            let (address, render, busy) = (address.clone(), render.clone(), busy.clone());
            std::thread::spawn(move || {
                let mut times = Vec::new();
                for _ in 0..RENDERS_EACH {
                    match http_request(&address, &render) {
                        Ok(time) => times.push(time),
                        Err(error) => {
                            busy.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                            return Err(error);
                        }
                    }
                }
                busy.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                Ok(times)
            })
        })
        .collect();
    let mut during = Vec::new();
    while busy.load(std::sync::atomic::Ordering::SeqCst) > 0 && during.len() < 2000 {
        during.push(http_request(&address, &health)?);
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut render_times = Vec::new();
    for renderer in renderers {
        render_times.extend(
            renderer
                .join()
                .map_err(|_| "a renderer panicked".to_owned())??,
        );
    }
    drop(studio);
    during.sort();
    let p99 = during[(during.len() * 99 / 100).min(during.len() - 1)];
    let ms = |duration: Duration| duration.as_secs_f64() * 1000.0;
    rows.push(Row {
        what: format!(
            "GET /api/health during {RENDERERS} concurrent renders of a {:.1} MB design ({} samples)",
            spec.len() as f64 / 1e6,
            during.len()
        ),
        figure: format!(
            "median {:.2} ms, p99 {:.2} ms (idle {:.2} ms)",
            ms(median(during.clone())),
            ms(p99),
            ms(idle)
        ),
        budget: "near idle".into(),
    });
    rows.push(Row {
        what: format!("POST /api/render of that design, {RENDERERS} at once"),
        figure: format!("median {:.0} ms", ms(median(render_times))),
        budget: "reported".into(),
    });
    Ok(())
}

pub fn machine() -> String {
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

/// The budget docs/performance.md sets for a figure of the visit measurement.
fn visit_budget(what: &str) -> &'static str {
    if what.starts_with("first visit on the wire") {
        "<= 350 KiB"
    } else if what.starts_with("repeat visit") {
        "<= 5 KiB"
    } else if what.contains("150 ms / 1.6 Mbit/s") {
        "<= 2.5 s"
    } else {
        ""
    }
}

/// The budget docs/performance.md sets for a figure of the keystroke measurement.
fn latency_budget(what: &str) -> &'static str {
    if what.starts_with("largest seed") || what.starts_with("first-visit") {
        "<= 2 ms median"
    } else if what.contains("MB ClusterConfig") {
        "refused before it replaces the design"
    } else if what.starts_with("after the refused") {
        "<= 1 s"
    } else if what.starts_with("64 node groups") {
        "<= 15 ms median"
    } else {
        ""
    }
}

/// Runs one of the in-browser measurements of `tests/e2e/` (`latency`: `performance.now()`
/// around the real update path of the built page; `first_visit`: bytes on the wire and
/// time to the preview) and takes the lines it prints that start with one of the
/// `(prefix, shown)` prefixes into the table, `shown` in its place.
fn e2e_measurement(
    rows: &mut Vec<Row>,
    test: &str,
    prefixes: &[(&str, &str)],
    budget: fn(&str) -> &'static str,
) -> Result<(), Error> {
    let test_tools = tools::ensure_test_tools()?;
    let output = cargo()
        .args([
            "test",
            "--package",
            "studio-e2e",
            "--features",
            "bench",
            "--test",
            test,
            "--",
            "--nocapture",
        ])
        .env("EKS_STUDIO_BIN", target_dir().join("debug/eks-studio"))
        .env("EKS_STUDIO_DIST", dist_dir())
        .env("CHROMEDRIVER", &test_tools.chromedriver)
        .env("CHROMIUM", &test_tools.chromium)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|error| format!("cannot run the {test} measurement: {error}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    print!("{stdout}");
    if !output.status.success() {
        return Err(Error::Task(format!(
            "the {test} measurement failed ({})",
            output.status
        )));
    }
    for line in stdout.lines() {
        let Some((shown, (what, figure))) = prefixes.iter().find_map(|(prefix, shown)| {
            Some((*shown, line.strip_prefix(prefix)?.split_once(": ")?))
        }) else {
            continue;
        };
        rows.push(Row {
            what: format!("{shown}{what}"),
            figure: figure.to_owned(),
            budget: budget(what).to_owned(),
        });
    }
    Ok(())
}
