//! `templates export`: the built-in templates, static files and catalogues, written into a
//! folder for a webmaster to edit.

use super::{STATIC_FILES, TEMPLATES};
use crate::i18n as texts;
use anyhow::{Context, Result};
use std::path::Path;

/// Every file `templates export` writes, by its path in the folder (`/`-separated): the
/// templates at the top, the static files under `static/`, the catalogues under `i18n/`.
pub fn exported_files() -> Vec<(String, &'static [u8])> {
    TEMPLATES
        .iter()
        .map(|(name, text)| (name.to_string(), text.as_bytes()))
        .chain(
            STATIC_FILES
                .iter()
                .map(|(name, bytes)| (format!("static/{name}"), *bytes)),
        )
        .chain(
            texts::BUILT_IN
                .iter()
                .map(|(language, text)| (format!("i18n/{language}.toml"), text.as_bytes())),
        )
        .collect()
}

/// Writes `files` (from [`exported_files`]) into `dir` for editing. Existing files are kept
/// unless `force`. Returns how many files were written.
pub fn export(dir: &Path, files: &[(String, &[u8])], force: bool) -> Result<usize> {
    let files: Vec<(std::path::PathBuf, &[u8])> = files
        .iter()
        .map(|(name, bytes)| (dir.join(name), *bytes))
        .collect();
    if !force {
        let existing: Vec<String> = files
            .iter()
            .filter(|(path, _)| path.exists())
            .map(|(path, _)| path.display().to_string())
            .collect();
        if !existing.is_empty() {
            anyhow::bail!(
                "these files exist already and were kept: {}; pass --force to overwrite them",
                existing.join(", ")
            );
        }
    }
    for (path, bytes) in &files {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("could not create {}", parent.display()))?;
        }
        std::fs::write(path, bytes)
            .with_context(|| format!("could not write {}", path.display()))?;
    }
    Ok(files.len())
}
