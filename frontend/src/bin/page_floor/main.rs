//! The page's own work with no view at all: the floor of its weight
//! (see `work.rs` and `cargo xtask bench --only page`).

#[cfg(target_arch = "wasm32")]
mod work;

fn main() {}
