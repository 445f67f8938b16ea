//! Where the files rendered go: the sink every renderer hands its files to as soon as each is
//! made ([`Sink`]).

use crate::output::OutputFile;
use crate::view::outputs::{Kind, Output};
use anyhow::Result;

/// A file made, and what it is.
pub struct Rendered {
    pub kind: Kind,
    pub file: OutputFile,
}

impl Rendered {
    pub(super) fn new(
        output: &Output,
        path: impl Into<String>,
        contents: impl Into<Vec<u8>>,
    ) -> Self {
        Self {
            kind: output.kind,
            file: OutputFile::new(path, contents),
        }
    }
}

/// Where rendered files go as they are made: called from every rendering thread.
pub type Sink<'s> = &'s (dyn Fn(Rendered) -> Result<()> + Sync);
