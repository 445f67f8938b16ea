//! The files of a user's templates folder that no build reads, each named in a warning: a
//! theme file with a mistyped name otherwise changes nothing, silently.

use super::embedded::{STATIC_FILES, TEMPLATES};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A file or folder in the user's templates folder that no build reads.
#[derive(Debug, PartialEq, Eq)]
pub struct Ignored {
    /// The file or folder, below the templates folder as the user named it.
    pub path: PathBuf,
    pub folder: bool,
    /// Why it is not read, and what follows.
    pub reason: String,
}

impl std::fmt::Display for Ignored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let slash = if self.folder { "/" } else { "" };
        write!(f, "{}{slash} {}", self.path.display(), self.reason)
    }
}

/// Why a link (or a FIFO, a device) in the templates folder is not read, as the site folder's
/// `static/` says it.
const LINK_LEFT_OUT: &str = "is a link or a special file; only plain files in the templates folder are read, so it is left out";

/// Warns once for each file in the templates folder that the build will not read (see
/// [`ignored_files`]): a theme file with a mistyped or made-up name otherwise changes nothing,
/// silently.
pub(super) fn warn_ignored(dir: &Path, extra_templates: &BTreeSet<String>) {
    match ignored_files(dir, extra_templates) {
        Ok(ignored) => {
            for file in ignored {
                log::warn!("{file}");
            }
        }
        Err(error) => log::warn!(
            "could not list {} to check for files it ignores: {error}",
            dir.display()
        ),
    }
}

/// The files in the templates folder `dir` that no build reads, by path. Read are the
/// built-in templates' names at its top, the built-in static files' under `static/`, and
/// `extra_templates`: names (relative to `dir`, with `/`) of further templates something uses,
/// the templates content pages name in their front matter.
///
/// A folder that holds nothing read is reported once, not file by file (a theme's `images/`
/// or `node_modules/` is one mistake, not hundreds).
///
/// Links and special files are reported too, wherever a read file could be: nothing is read
/// through them (see [`read_plain`]).
///
/// Hidden files and folders (a name starting with `.`) are never reported: they belong to the
/// tools around a theme (`.git`, `.gitignore`, `.DS_Store`, editors' swap files), are never
/// meant as templates, and reporting them would warn on every build of a theme kept in git.
pub fn ignored_files(
    dir: &Path,
    extra_templates: &BTreeSet<String>,
) -> std::io::Result<Vec<Ignored>> {
    let read: BTreeSet<String> = TEMPLATES
        .iter()
        .map(|(name, _)| name.to_string())
        .chain(
            STATIC_FILES
                .iter()
                .map(|(name, _)| format!("static/{name}")),
        )
        .chain(extra_templates.iter().cloned())
        .collect();
    let mut ignored = Vec::new();
    walk_theme(dir, "", &read, &mut ignored)?;
    ignored.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(ignored)
}

/// [`ignored_files`] below `prefix` (`""` or a relative folder ending in `/`).
fn walk_theme(
    root: &Path,
    prefix: &str,
    read: &BTreeSet<String>,
    ignored: &mut Vec<Ignored>,
) -> std::io::Result<()> {
    let in_static = prefix.starts_with("static/");
    let static_names = || {
        STATIC_FILES
            .iter()
            .map(|(name, _)| *name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    for entry in std::fs::read_dir(root.join(prefix))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let relative = format!("{prefix}{name}");
        let kind = entry.file_type()?;
        let folder = kind.is_dir();
        let reason = if !folder && !kind.is_file() {
            LINK_LEFT_OUT.to_owned()
        } else if folder {
            let inside = format!("{relative}/");
            // The catalogues are any `i18n/<language>.toml`: the folder is looked into even
            // when none is read, to name a link there rather than the whole folder.
            if read.iter().any(|used| used.starts_with(&inside)) || relative == "i18n" {
                walk_theme(root, &inside, read, ignored)?;
                continue;
            }
            if in_static {
                format!(
                    "is a folder vatcar-site does not copy (it copies only the static files {}); it is ignored",
                    static_names()
                )
            } else {
                "is a folder vatcar-site does not read (templates are read from the top of the templates folder, static files from static/); it is ignored".to_owned()
            }
        } else if read.contains(&relative) {
            continue;
        } else {
            let same_but_case = read
                .iter()
                .find(|used| used.eq_ignore_ascii_case(&relative));
            match same_but_case {
                Some(used) => format!(
                    "differs from {used} in case only: rename it, since it is ignored wherever file names are case-sensitive (on Linux, as in most CI)"
                ),
                None if in_static => format!(
                    "is not a static file vatcar-site copies (only {} are); it is ignored",
                    static_names()
                ),
                None => "is not a template vatcar-site uses (`vatcar-site templates export DIR` writes out the ones it does); it is ignored".to_owned(),
            }
        };
        ignored.push(Ignored {
            path: root.join(&relative),
            folder,
            reason,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::ignored_files;
    use std::collections::BTreeSet;

    #[test]
    fn templates_named_by_something_else_are_not_reported() {
        let tmp = tempfile::tempdir().unwrap();
        for name in [
            "visiting.html",
            "index.html",
            "pages/about.html",
            "pages/draft.html",
            "notes/todo.txt",
        ] {
            let path = tmp.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let reported = |extra: &[&str]| -> Vec<String> {
            let extra: BTreeSet<String> = extra.iter().map(|s| s.to_string()).collect();
            ignored_files(tmp.path(), &extra)
                .unwrap()
                .iter()
                .map(|i| {
                    let path = i.path.strip_prefix(tmp.path()).unwrap().display();
                    format!("{path}{}", if i.folder { "/" } else { "" })
                })
                .collect()
        };
        assert_eq!(reported(&[]), ["notes/", "pages/", "visiting.html"]);
        // A folder holding a used template is looked into, file by file.
        assert_eq!(
            reported(&["visiting.html", "pages/about.html"]),
            ["notes/", "pages/draft.html"]
        );
    }
}
