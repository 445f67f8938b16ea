//! The integration tests, one binary for all (as mdBook's and ripgrep's are): one link step
//! instead of one per file, and one set of helpers ([`support`]) that every module shares.
//!
//! Run one module with `cargo test --test it <module>::`, e.g. `cargo test --test it report::`.

mod activity;
mod announce;
mod banner_cache;
mod banners;
mod calendar;
mod calendar_links;
mod ci;
mod circles;
mod cli;
mod client;
mod completions;
mod content;
mod contributing;
mod decode;
mod decode_props;
mod docs;
mod errors;
mod feed;
mod fixtures;
mod frames;
mod github_action;
mod guide;
mod header;
mod identity;
mod init;
mod languages;
mod layers;
mod layout;
mod lengths;
mod live;
mod people;
mod printed_lines;
mod publish;
mod report;
mod secret;
mod serve;
mod serve_errors;
mod site;
mod static_files;
mod support;
mod templates_export;
// util-linux's `script` makes the pseudo-terminal; other systems' `script` takes other flags.
#[cfg(target_os = "linux")]
mod terminal;
mod theme_files;
mod theme_hooks;
mod theme_warnings;
mod whats_new;
mod workflow;
