//! Stage four: views into files. The theme (built-in templates, overridable one file at a
//! time, and what a template may not do), the site's pages and feeds, the RFC 5545 writer
//! the public data files and the reports' contexts.

mod data;
pub mod escape;
pub mod frame;
pub mod ical;
pub mod limits;
mod page;
pub mod reports;
pub mod sink;
pub mod site;
mod tera_glue;
pub mod theme;

pub use escape::escape_html;
pub use theme::{STATIC_FILES, TEMPLATES, Theme, exported_files};
