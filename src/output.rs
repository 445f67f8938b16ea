//! The output file, shared by the stages that make files (render, and `cmd` for snapshots)
//! and the one that writes them (publish).

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
