//! Splits the page's wasm so that a first visit loads only what it shows.
//!
//! The page's build links the wasm with relocations (`-Clink-args=--emit-relocs`) and
//! `--cfg page_split`, under which each wizard step past Start is a split point
//! (`frontend/src/page/split.rs`, `frontend/src/codec/reading.rs`). After trunk has built the page, this step reads the
//! wasm cargo linked, moves the code only a split point reaches into its own file with
//! `wasm_split_cli_support` (the splitter cargo-leptos uses), and puts the result where
//! trunk's files were, under trunk's content hash:
//!
//! - `NAME-HASH.js` and `NAME-HASH_bg.wasm`: wasm-bindgen's glue and the main module,
//!   which now imports the chunk loader;
//! - `NAME-split-HASH.js`: the loader, fetching a step's files the first time it opens;
//! - `split_STEP-HASH.wasm` and `chunk_N-HASH.wasm`: a step's code, and code several
//!   steps share.
//!
//! Every wasm file is optimised by wasm-opt as trunk would have (`-Oz`). The hash is the
//! one trunk gave the cargo output, so each file's name still changes with its content
//! and the server may let browsers keep them.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{self, Error};
use crate::{status, target_dir};

/// The page's cargo package and the base of trunk's file names.
const PAGE: &str = "eks-studio-frontend";

/// What the split wrote, for the build's report.
pub struct Split {
    /// The files loaded on demand, by name in `dist`.
    pub chunks: Vec<String>,
}

impl Split {
    /// Whether `file` (relative to `dist`, or one of its compressed copies) is loaded
    /// only when a step opens.
    pub fn is_on_demand(&self, file: &Path) -> bool {
        let name = file.to_string_lossy();
        self.chunks.iter().any(|chunk| {
            name.strip_prefix(chunk.as_str())
                .is_some_and(|rest| rest.is_empty() || rest == ".br" || rest == ".gz")
        })
    }
}

/// Replaces trunk's wasm and JS glue in `dist` with the split page.
pub fn split_page(dist: &Path, search_path: &std::ffi::OsStr) -> Result<Split, Error> {
    let linked = target_dir().join(format!("wasm32-unknown-unknown/wasm-release/{PAGE}.wasm"));
    let input = std::fs::read(&linked).map_err(error::file(&linked))?;
    let hash = trunk_hash(dist)?;
    let work = target_dir().join("wasm-split");
    if work.exists() {
        std::fs::remove_dir_all(&work).map_err(error::file(&work))?;
    }
    std::fs::create_dir_all(&work).map_err(error::file(&work))?;

    let glue = format!("{PAGE}-{hash}");
    let loader = format!("{PAGE}-split-{hash}.js");
    let link_name = format!("./{loader}");
    let main_module = format!("./{glue}.js");
    let main_out = work.join("main.wasm");
    let split = wasm_split_cli_support::transform({
        let mut options = wasm_split_cli_support::Options::new(&input);
        options.output_dir = &work;
        options.main_out_path = &main_out;
        options.link_name = &link_name;
        options.main_module = &main_module;
        options
    })
    .map_err(|error| Error::Task(format!("splitting {}: {error:#}", linked.display())))?;

    let tool = |name: &str| find_tool(name, search_path);
    let wasm_bindgen = tool("wasm-bindgen")?;
    let wasm_opt = tool("wasm-opt")?;
    // The chunks call the main module's functions by the names the linker gave them.
    status(
        Command::new(&wasm_bindgen)
            .args([
                "--target",
                "web",
                "--keep-lld-exports",
                "--no-demangle",
                "--no-typescript",
            ])
            .arg("--out-name")
            .arg(&glue)
            .arg("--out-dir")
            .arg(&work)
            .arg(&main_out),
    )?;
    // The splitter keeps a names subsection wasm-opt does not know and warns about once
    // per file; its output is shown only when it fails.
    let optimise = |from: &Path, to: &Path| {
        let mut command = Command::new(&wasm_opt);
        command.arg("-Oz").arg(from).arg("-o").arg(to);
        let shown = format!("{command:?}");
        let output = command.output().map_err(|source| Error::Start {
            command: shown.clone(),
            source,
        })?;
        if output.status.success() {
            return Ok(());
        }
        eprint!("{}", String::from_utf8_lossy(&output.stderr));
        Err(Error::Failed {
            command: shown,
            status: output.status,
        })
    };
    optimise(
        &work.join(format!("{glue}_bg.wasm")),
        &dist.join(format!("{glue}_bg.wasm")),
    )?;
    copy(
        &work.join(format!("{glue}.js")),
        &dist.join(format!("{glue}.js")),
    )?;

    // The loader fetches each chunk by its name next to the loader; hashed names keep a
    // page from loading a chunk of another build.
    let mut chunks = Vec::new();
    let loader_path = work.join(&loader);
    let mut loader_text =
        std::fs::read_to_string(&loader_path).map_err(error::file(&loader_path))?;
    for chunk in &split.split_modules {
        let stem = chunk
            .file_stem()
            .and_then(|stem| stem.to_str())
            .ok_or_else(|| Error::Task(format!("unexpected chunk {}", chunk.display())))?;
        let named = format!("{stem}-{hash}.wasm");
        let reference = format!("\"./{stem}.wasm\"");
        if !loader_text.contains(&reference) {
            return Err(Error::Task(format!("the loader never names {stem}.wasm")));
        }
        loader_text = loader_text.replace(&reference, &format!("\"./{named}\""));
        optimise(chunk, &dist.join(&named))?;
        chunks.push(named);
    }
    let loader_dist = dist.join(&loader);
    std::fs::write(&loader_dist, loader_text).map_err(error::file(&loader_dist))?;
    Ok(Split { chunks })
}

/// The content hash trunk put in the page's file names (`NAME-HASH_bg.wasm`).
fn trunk_hash(dist: &Path) -> Result<String, Error> {
    let entries = std::fs::read_dir(dist).map_err(error::file(dist))?;
    for entry in entries {
        let entry = entry.map_err(error::file(dist))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(hash) = name
            .strip_prefix(&format!("{PAGE}-"))
            .and_then(|rest| rest.strip_suffix("_bg.wasm"))
        {
            return Ok(hash.to_owned());
        }
    }
    Err(Error::Task(format!(
        "trunk wrote no {PAGE}-HASH_bg.wasm in {}",
        dist.display()
    )))
}

fn find_tool(name: &str, search_path: &std::ffi::OsStr) -> Result<PathBuf, Error> {
    std::env::split_paths(search_path)
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
        .ok_or_else(|| Error::Task(format!("{name} is not on the build's PATH")))
}

fn copy(from: &Path, to: &Path) -> Result<(), Error> {
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(error::file(from))
}
