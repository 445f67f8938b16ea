//! Untrusted text made safe to show: markdown and HTML sanitized, URLs limited to safe
//! schemes, characters no page or feed may carry removed, lines of a file quoted in an error cut short. Used by the model (cleaning), the
//! views (descriptions, links) and the renderer (a last pass over every page).
//!
//! A leaf, not a stage: functions of text alone, importing no stage, so that any stage may
//! use them (tests/it/layers.rs holds it to that).

pub mod chars;
pub mod description;
pub mod links;
pub mod quote;
