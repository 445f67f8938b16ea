//! Stage four: views into files. The theme (built-in templates, overridable one file at a
//! time, and what a template may not do), the site's pages and feeds, the RFC 5545 writer,
//! the reports' contexts, and the generated template documentation.

pub mod docs;
pub mod ical;
pub mod limits;
pub mod reports;
pub mod site;
mod tera_errors;
pub mod theme;

pub use theme::{STATIC_FILES, TEMPLATES, Theme, escape_html, export};

/// A file made in memory, to be published: what rendering hands to [`crate::publish`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputFile {
    /// Relative, with `/` separators, e.g. `events/412/index.html`.
    pub path: String,
    pub contents: Vec<u8>,
}

impl OutputFile {
    pub fn new(path: impl Into<String>, contents: impl Into<Vec<u8>>) -> Self {
        Self {
            path: path.into(),
            contents: contents.into(),
        }
    }
}
