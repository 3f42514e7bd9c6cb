//! The design being edited and the page's memory of it, without views.

/// Undo, redo, and the replacement waiting for the user's yes.
pub mod history;
/// Which steps' code is loaded.
pub mod loading;
/// The running cluster a design was read from.
pub mod running;
/// The wizard's steps; a spec path's step and DOM id.
pub mod step;
/// The [`studio::Studio`] in context: the design, its findings, its history.
pub mod studio;
