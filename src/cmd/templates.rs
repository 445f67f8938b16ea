//! `vatcar-site templates export`: the built-in theme written out, to edit and use with
//! `--templates`.

use super::args::TemplatesAction;
use super::progress::Progress;
use crate::render;
use anyhow::Result;

pub(crate) fn run(action: &TemplatesAction, progress: &Progress) -> Result<()> {
    match action {
        TemplatesAction::Export { dir, force } => {
            let written = render::export(dir, *force)?;
            progress.done(&format!(
                "wrote {written} files into {}; use them with --templates {} (or `templates = \"{}\"` in vatcar-site.toml)",
                dir.display(),
                dir.display(),
                dir.display()
            ));
            Ok(())
        }
    }
}
