//! The `eks-studio` binary: see `backend::cli`.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    backend::cli::main()
}
