//! `eks-studio jobs`: the deploys and applies a server keeps in its data directory, newest
//! first, each with who asked for it and who approved it. Exit 0 listed, 2 no job store
//! there or one that cannot be read.

use std::path::Path;
use std::process::ExitCode;

use crate::cli::read::terminal_safe;
use crate::deploy::store::Store;

/// `eks-studio jobs [--data-dir DIR]`.
pub fn jobs(data_dir: Option<&Path>) -> ExitCode {
    let dir = data_dir
        .map(Path::to_path_buf)
        .unwrap_or_else(crate::deploy::default_data_dir);
    let path = dir.join("deploys.sqlite3");
    if !path.is_file() {
        eprintln!(
            "error: no job store at {} (a server started with --data-dir {} makes one)",
            path.display(),
            dir.display()
        );
        return ExitCode::from(2);
    }
    let listed = Store::open(&path)
        .map_err(|error| error.to_string())
        .and_then(|store| {
            tokio::runtime::Builder::new_current_thread()
                .build()
                .map_err(|error| error.to_string())?
                .block_on(store.jobs())
                .map_err(|error| error.to_string())
        });
    let jobs = match listed {
        Ok(jobs) => jobs,
        Err(error) => {
            eprintln!(
                "error: cannot read the job store {}: {error}",
                path.display()
            );
            return ExitCode::from(2);
        }
    };
    let nobody = "—".to_owned();
    for job in jobs {
        let line = format!(
            "{}  {} in {}  {}  {}  asked by {}  approved by {}",
            job.id,
            job.cluster,
            job.region,
            job.state,
            job.created_at,
            job.requested_by.as_ref().unwrap_or(&nobody),
            job.approved_by.as_ref().unwrap_or(&nobody),
        );
        println!("{}", terminal_safe(&line));
    }
    ExitCode::SUCCESS
}
