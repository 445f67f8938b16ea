//! Where the files rendered go, and what goes with each: the sink every renderer hands its
//! files to as soon as each is made ([`Sink`]), and the question a renderer asks before it
//! makes a page the last build may have left as it would make it ([`Keep`]).

use crate::output::OutputFile;
use crate::view::outputs::{Kind, Output};
use anyhow::Result;

/// A file made, and what it is.
pub struct Rendered {
    pub kind: Kind,
    pub file: OutputFile,
    /// For a page made in two parts ([`crate::render::frame`]), the hash of all it was made from: the
    /// program's version, the theme, the frame and the page's own values. Recorded, it lets
    /// the next build keep the page without making it ([`Keep`]).
    pub input: Option<u128>,
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
            input: None,
        }
    }
}

/// Where rendered files go as they are made: called from every rendering thread.
pub type Sink<'s> = &'s (dyn Fn(Rendered) -> Result<()> + Sync);

/// Asked before a page made in two parts is rendered: whether the output folder holds it as
/// the last build made it from inputs of the same hash, and keeps it. Called from every
/// rendering thread; a page kept this way is not handed to the sink.
pub type Keep<'s> = &'s (dyn Fn(&str, u128) -> bool + Sync);
