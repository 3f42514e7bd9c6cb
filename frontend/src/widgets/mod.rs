//! Pieces the steps and the page are made of.

/// Inputs bound to one object of the spec in one line, and lists of rows.
pub mod bind;
/// The placeholders still to fill in, as one checklist.
pub mod checklist;
/// The deploy panel: token, plan, progress by CloudFormation stack, live log, history.
pub mod deploy_panel;
/// A disclosure whose contents' code is fetched when it is first opened.
pub mod disclosure;
/// The work kept in localStorage as it changes, and named drafts beside it.
pub mod drafts;
/// Text with line numbers and findings marked on its lines.
pub mod editor;
/// Labelled inputs bound to the spec, each with its findings beside it.
pub mod fields;
/// The findings list grouped by severity.
pub mod findings;
/// The heading every step opens with.
pub mod heading;
/// Rule and check text with its backticked parts as code.
pub mod prose;
/// Share links: the spec in the URL fragment.
pub mod share;
/// Undo and Redo buttons, and asking before the design is replaced.
pub mod undo;
