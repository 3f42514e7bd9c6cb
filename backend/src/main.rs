//! The `eks-studio` binary: see `backend::cli`.

fn main() -> std::process::ExitCode {
    backend::cli::main()
}
