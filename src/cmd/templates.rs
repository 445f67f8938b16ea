//! `vatcar-site templates export`: the built-in theme written out, to edit and use with
//! `--templates`; all of it, or the files `--only` names.

use super::args::TemplatesAction;
use super::new_files;
use super::progress::Progress;
use crate::render;
use crate::suggest::nearest;
use crate::usage::UsageError;
use anyhow::Result;

pub(crate) fn run(action: &TemplatesAction, progress: &Progress) -> Result<()> {
    match action {
        TemplatesAction::Export { dir, force, only } => {
            let files = chosen(render::exported_files(), only)?;
            new_files::check("templates export", dir, &files, &[], *force)?.write(progress)?;
            let written = files.len();
            // A copy replaces the built-in file for good: say so while the choice is fresh.
            progress.step(
                "a copied file no longer gets the fixes and improvements of later vatcar-site versions: \
                 keep only the files you change and delete the others (export one file with --only FILE)",
            );
            progress.done(&format!(
                "wrote {written} file{} into {}; use {} with --templates {} (or `templates = \"{}\"` in vatcar-site.toml)",
                if written == 1 { "" } else { "s" },
                dir.display(),
                if written == 1 { "it" } else { "them" },
                dir.display(),
                dir.display()
            ));
            Ok(())
        }
    }
}

/// The files `--only` names, in the order asked (all of them without it). A name that is not
/// one of them is a usage error suggesting the nearest: the same file name in another folder
/// (`style.css` is `static/style.css`), or a slip of a few letters.
fn chosen(
    files: Vec<(String, &'static [u8])>,
    only: &[String],
) -> Result<Vec<(String, &'static [u8])>> {
    if only.is_empty() {
        return Ok(files);
    }
    let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
    let file_name = |path: &str| {
        path.rsplit_once('/')
            .map_or(path, |(_, name)| name)
            .to_owned()
    };
    let mut picked: Vec<(String, &'static [u8])> = Vec::new();
    for asked in only {
        let name = asked.trim().replace('\\', "/");
        let name = name.trim_start_matches("./");
        let Some(file) = files.iter().find(|(known, _)| known == name) else {
            let suggestion = names
                .iter()
                .find(|known| file_name(known) == file_name(name))
                .copied()
                .or_else(|| nearest(name, names.iter().copied()))
                .map(|near| format!("; did you mean `{near}`?"))
                .unwrap_or_default();
            return Err(UsageError(format!(
                "--only {asked:?}: there is no built-in file of that name{suggestion} \
                 (the names are those the export writes: {})",
                names.join(", ")
            ))
            .into());
        };
        if !picked.iter().any(|(known, _)| *known == file.0) {
            picked.push(file.clone());
        }
    }
    Ok(picked)
}
