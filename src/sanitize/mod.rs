//! Untrusted text made safe to show: markdown and HTML sanitized, URLs limited to safe
//! schemes, characters no page or feed may carry removed, a file's lines and the server's text
//! quoted in an error cut short; wide tables and code put in frames that scroll. Used by fetching and the model (errors, cleaning), the views
//! (descriptions, links) and the renderer (a last pass over every page).
//!
//! A leaf, not a stage: functions of text alone, importing no stage, so that any stage may
//! use them (tests/it/layers.rs holds it to that).

pub mod chars;
pub mod description;
pub mod frames;
pub mod links;
pub mod quote;
