//! vatcar-site: a VATCAR facility's API data, turned into a website, iCal feeds and reports.
//!
//! The pipeline, one folder a stage, each importing only the stages before it:
//!
//! 1. [`fetch`]: raw bodies from the API ([`fetch::client`]), a snapshot folder or the demo
//!    ([`fetch::snapshot`]); the API key ([`fetch::secret`]).
//! 2. [`model`]: bodies decoded into typed models, every shape quirk absorbed.
//! 3. [`view`]: what each page and report shows, sorted and formatted once; untrusted text
//!    made safe on the way ([`sanitize`]).
//! 4. [`render`]: views into files through the Tera theme, plus the iCal writer.
//! 5. [`publish`]: the only code that writes an output folder, all or nothing.
//!
//! [`cmd`] is the command line: one file per subcommand, each running the stages in order
//! ([`cmd::build`] is the site pipeline, [`cmd::report`] the reports'). [`parallel`],
//! [`memory`] and [`toml_errors`] serve every stage.

pub mod cmd;
pub mod fetch;
pub mod memory;
pub mod model;
pub mod parallel;
pub mod publish;
pub mod render;
pub mod sanitize;
pub mod toml_errors;
pub mod view;
