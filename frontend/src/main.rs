//! Mounts the studio on the page.

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    // index.html draws a frame and a loading line until the studio runs.
    if let Some(boot) = leptos::prelude::document().get_element_by_id("boot") {
        boot.remove();
    }
    leptos::mount::mount_to_body(frontend::App);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the studio runs in a browser: build it with `cargo xtask run`");
}
