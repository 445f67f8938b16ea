//! The webmaster's own files from the site folder: `static/` (a logo, images, PDFs, `CNAME`,
//! `_redirects`, `.well-known/`), read as they are, to be copied into the site byte for byte;
//! and `content/`, the Markdown pages.

use crate::sanitize::quote::{breaks_lines, path as quoted_path};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// A path as a message names it: quoted when its name could end or start a line.
fn quoted(path: &Path) -> String {
    quoted_path(&path.display().to_string()).into_owned()
}

/// One file, by its path below the static folder (`/`-separated), which is also its path in
/// the site.
#[derive(Clone, Debug)]
pub struct StaticFile {
    pub path: String,
    pub bytes: Vec<u8>,
}

/// A content file as read: its path below the content folder (`/`-separated), where it came
/// from (for messages), and its text.
#[derive(Clone, Debug)]
pub struct ContentFile {
    pub path: String,
    /// `content/join.md`, or `built-in demo content/join.md`.
    pub origin: String,
    pub text: String,
}

/// Every file below `dir`, in path order. Links are not followed (a link could reach any file
/// on the machine and publish it); each is named in a warning and left out. `.git` folders
/// are left out. A name that is not UTF-8 is an error naming the file.
pub fn read_static(dir: &Path) -> Result<Vec<StaticFile>> {
    if !dir.is_dir() {
        bail!("the static folder {} does not exist", dir.display());
    }
    files_below(dir, "static")?
        .into_iter()
        .filter(|(path, file)| {
            // A name that could end a printed line or move a terminal's cursor makes no
            // address either: no link could be written to it.
            let plain = !path.chars().any(breaks_lines);
            if !plain {
                log::warn!(
                    "{}: a file's name becomes its address, and this one holds control characters; rename it (it is left out)",
                    quoted(file)
                );
            }
            plain
        })
        .map(|(path, file)| {
            let bytes = std::fs::read(&file)
                .with_context(|| format!("could not read {}", file.display()))?;
            Ok(StaticFile { path, bytes })
        })
        .collect()
}

/// Every page (`.md` file) below `dir`, in path order, on the same terms as [`read_static`].
/// Other files are named in a warning and left out: they belong in `static/`. Hidden files
/// (an editor's, the system's) are left out silently.
pub fn read_content(dir: &Path) -> Result<Vec<ContentFile>> {
    if !dir.is_dir() {
        bail!("the content folder {} does not exist", dir.display());
    }
    let mut pages = Vec::new();
    for (path, file) in files_below(dir, "content")? {
        if path.split('/').any(|part| part.starts_with('.')) {
            continue;
        }
        if !path.ends_with(".md") {
            log::warn!(
                "{} is not a page (pages are .md files); images and other files belong in the static folder, so it is left out",
                quoted(&file)
            );
            continue;
        }
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("could not read {} (pages are UTF-8 text)", file.display()))?;
        pages.push(ContentFile {
            path,
            origin: file.display().to_string(),
            text,
        });
    }
    Ok(pages)
}

/// The demo's site folder (`build --demo` without a config file): an introduction, two pages
/// and a logo, built into the binary, to show what a site folder adds.
macro_rules! demo_site {
    ($macro:ident, $folder:literal, $($name:literal),* $(,)?) => {
        [$(($name, $macro!(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/site/", $folder, "/", $name)))),*]
    };
}

pub fn demo_content() -> Vec<ContentFile> {
    demo_site!(include_str, "content", "_index.md", "join.md", "pilots.md")
        .into_iter()
        .map(|(path, text)| ContentFile {
            path: path.to_owned(),
            origin: format!("the demo's content/{path}"),
            text: text.to_owned(),
        })
        .collect()
}

/// The demo's logo, named by [`DEMO_LOGO`].
pub fn demo_static() -> Vec<StaticFile> {
    demo_site!(include_bytes, "static", "logo.svg")
        .into_iter()
        .map(|(path, bytes)| StaticFile {
            path: path.to_owned(),
            bytes: bytes.to_vec(),
        })
        .collect()
}

pub const DEMO_LOGO: &str = "logo.svg";

/// The plain files below `dir` by their `/`-separated path below it, links and special files
/// left out with a warning, `.git` folders left out.
fn files_below(dir: &Path, what: &str) -> Result<Vec<(String, PathBuf)>> {
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
                "{} is a link or a special file; only plain files in the {what} folder are \
                 read, so it is left out",
                quoted(entry.path())
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
        files.push((
            path.replace(std::path::MAIN_SEPARATOR, "/"),
            entry.path().to_path_buf(),
        ));
    }
    Ok(files)
}
