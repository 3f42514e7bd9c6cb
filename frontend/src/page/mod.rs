//! The page around the steps.

/// The whole page: step list, step on screen, findings, preview, saved work restored.
pub mod app;
/// The live preview pane: tabs, line numbers, highlighting, editing a file in place.
pub mod preview;
/// The steps past Start as split points, loaded when first opened.
pub mod split;
