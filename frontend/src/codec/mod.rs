//! Texts in and out of a design, below everything else on the page.

/// Reading JSON with the reader imports use.
pub mod json;
/// Reading texts into a design and writing it as JSON, loaded when first needed.
pub mod reading;
