//! `eks-studio render`: a bundle's files written into a directory.

use std::path::Path;
use std::process::ExitCode;

use crate::cli::read::design;

/// Writes the bundle of the design `--template` or `--spec` names into `out`.
pub fn render(
    template_id: Option<&str>,
    spec_path: Option<&Path>,
    out: &Path,
    max_bytes: u64,
) -> ExitCode {
    let spec = match design(template_id, spec_path, max_bytes) {
        Ok(spec) => spec,
        Err(code) => return code,
    };
    write_bundle(&spec, out)
}

/// Writes the bundle of `spec` into `out`, naming each file written; the error is
/// already printed.
pub(crate) fn write_bundle(spec: &shared::Spec, out: &Path) -> ExitCode {
    let findings = shared::rules::validate_with(spec, &crate::clock::todays_facts());
    let files = match shared::deploy::bundle::bundle_files(spec, &findings, &[]) {
        Ok(files) => files,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    for file in &files {
        let path = out.join(&file.path);
        if let Err(error) = write_file(&path, &file.contents, file.executable) {
            eprintln!("error: cannot write {}: {error}", path.display());
            return ExitCode::from(2);
        }
        println!("wrote {}", path.display());
    }
    let errors = findings
        .iter()
        .filter(|finding| finding.severity == shared::rules::Severity::Error)
        .count();
    if errors > 0 {
        eprintln!(
            "note: {errors} error finding(s) still open; see {}",
            out.join("README.md").display()
        );
    }
    ExitCode::SUCCESS
}

fn write_file(path: &Path, contents: &str, executable: bool) -> std::io::Result<()> {
    crate::cli::files::write_file(path, contents, executable)
}
