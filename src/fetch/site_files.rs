//! The webmaster's own files from the site folder's `static/` (a logo, images, PDFs, `CNAME`,
//! `_redirects`, `.well-known/`), read as they are, to be copied into the site byte for byte.

use anyhow::{Context, Result, bail};
use std::path::Path;

/// One file, by its path below the static folder (`/`-separated), which is also its path in
/// the site.
#[derive(Clone, Debug)]
pub struct StaticFile {
    pub path: String,
    pub bytes: Vec<u8>,
}

/// Every file below `dir`, in path order. Links are not followed (a link could reach any file
/// on the machine and publish it); each is named in a warning and left out. `.git` folders
/// are left out. A name that is not UTF-8 is an error naming the file.
pub fn read_static(dir: &Path) -> Result<Vec<StaticFile>> {
    if !dir.is_dir() {
        bail!("the static folder {} does not exist", dir.display());
    }
    let mut files = Vec::new();
    let walk = walkdir::WalkDir::new(dir)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !(e.file_type().is_dir() && e.file_name() == ".git"));
    for entry in walk {
        let entry = entry.with_context(|| format!("could not read {}", dir.display()))?;
        let kind = entry.file_type();
        if kind.is_dir() {
            continue;
        }
        if kind.is_symlink() || !kind.is_file() {
            log::warn!(
                "{} is a link or a special file; only plain files in the static folder are \
                 copied, so it is left out",
                entry.path().display()
            );
            continue;
        }
        let relative = entry.path().strip_prefix(dir).expect("below dir");
        let Some(path) = relative.to_str() else {
            bail!(
                "{}: the name is not UTF-8; rename the file",
                entry.path().display()
            );
        };
        let path = path.replace(std::path::MAIN_SEPARATOR, "/");
        let bytes = std::fs::read(entry.path())
            .with_context(|| format!("could not read {}", entry.path().display()))?;
        files.push(StaticFile { path, bytes });
    }
    Ok(files)
}
