//! The browser studio. Components live here so browser tests can mount them;
//! `main.rs` only mounts [`App`] on the page.
//!
//! Layers, lowest first (each folder uses only its own and those below it):
//! `codec` (reading texts into a design, JSON) < `server` (HTTP calls to the studio
//! server) < `state` (the design being edited, undo, which steps are loaded) < `widgets`
//! (inputs, findings, panels) < `steps` (the eight wizard steps) < `page` (the page
//! around them: step list, preview, split points).
#![cfg(target_arch = "wasm32")]

mod codec;
mod page;
mod server;
mod state;
mod steps;
mod widgets;

pub use codec::json;
pub use page::app::App;
pub use widgets::{drafts, share};
