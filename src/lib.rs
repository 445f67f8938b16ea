//! vatcar-site: a VATCAR facility's API data, turned into a website, iCal feeds and reports.
//!
//! The pipeline, one folder a stage, each importing only the stages before it:
//!
//! 1. [`fetch`]: raw bodies from the API ([`fetch::client`]), a snapshot folder or the demo
//!    ([`fetch::snapshot`]), and the webmaster's own files ([`fetch::site_files`]); once the
//!    events are decoded, their banners ([`fetch::banners`]: their addresses are in the
//!    events).
//! 2. [`model`]: bodies decoded into typed models, every shape quirk absorbed.
//! 3. [`view`]: what each page and report shows, sorted, formatted and made safe once (every
//!    description sanitized here); the webmaster's pages' Markdown rendered, with their ids.
//! 4. [`render`]: views into files ([`output`]) through the Tera theme, plus the iCal writer.
//!    It reads the view and writes nothing back. The ids of the pages a webmaster's link
//!    points into (`roster/#staff`) are read from those pages once rendered: the templates
//!    make them.
//! 5. [`publish`]: the only code that writes an output folder, all or nothing.
//!
//! [`settings`] is the webmaster's configuration, one typed model of the config file's shape
//! that `cmd` reads (laying the flags over it) and hands to the view.
//!
//! [`i18n`] is the words of the pages in each language, loaded once by the command and
//! handed to the view and the theme; [`plain_files`] reads the user's files without
//! following links; [`usage`] is the error any layer gives for a mistake in how the
//! program was called.
//!
//! [`cmd`] is the command line: one file per subcommand, each running the stages in order
//! ([`cmd::build`] is the site pipeline, [`cmd::report`] the reports').
//!
//! Leaves serve every stage and import none: [`settings`] (the webmaster's settings),
//! [`i18n`] (the pages' words), [`sanitize`] (untrusted text made safe to show), [`secret`]
//! (the API key), [`output`] (a file to publish), [`usage`], [`plain_files`], [`toml_errors`],
//! [`problems`] (a build's mistakes, reported together), [`suggest`] ("did you mean"),
//! [`images`] (an image decoded within limits, copied at a few widths), [`banner_copies`]
//! (the banners' copies as pages name them) and [`parallel`]. No file of [`view`] or
//! [`render`] uses [`fetch`]: what they need of it comes through a leaf or [`model`]. The test tests/it/layers.rs holds the order.

#![forbid(unsafe_code)]

pub mod banner_copies;
pub mod cmd;
pub mod fetch;
pub mod i18n;
pub mod images;
pub mod model;
pub mod output;
pub mod parallel;
pub mod plain_files;
pub mod problems;
pub mod publish;
pub mod render;
pub mod sanitize;
pub mod secret;
pub mod settings;
pub mod suggest;
pub mod toml_errors;
pub mod usage;
pub mod view;
