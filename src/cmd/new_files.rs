//! Files written into a folder of the user's, by `init` and `templates export`, on one set of
//! rules. Every path is checked before the first write, so that a refused run leaves the
//! folder as it was. A file of the user's is overwritten only with --force, and a link in a
//! file's place, even one that leads nowhere, is the user's too: --force replaces the link
//! itself, never what it leads to, which may be anywhere on the machine. A folder on the way
//! that is a link is written through only with --force (the user may have linked it on
//! purpose, and says so), and never when it leads to no folder. A write that fails part-way
//! (a full disk) removes what the run made.

use super::progress::Progress;
use anyhow::{Context, Result, bail};
use std::fs;
use std::path::{Path, PathBuf};

/// What a command is about to write into a folder, every path checked.
pub(crate) struct NewFiles<'a> {
    /// Each file: its name as given (`/`-separated), where it goes, its bytes.
    files: Vec<(&'a str, PathBuf, &'a [u8])>,
    /// Folders made empty, for the user to fill (init's `static/`).
    folders: Vec<PathBuf>,
    /// The folders on the way that are links to folders, written through (--force).
    linked: Vec<PathBuf>,
    /// The files (or links) already there, which the run overwrites (--force).
    present: Vec<PathBuf>,
}

/// Where `name` (`/`-separated) goes in the folder `dir`. In the working folder, the names
/// alone: `vatcar-site.toml` rather than `./vatcar-site.toml`.
pub(crate) fn place(dir: &Path, name: &str) -> PathBuf {
    if dir == Path::new(".") {
        PathBuf::from(name)
    } else {
        dir.join(name)
    }
}

/// Checks that `command` (its name, for the messages) may write `files` (names and bytes) and
/// make the empty `folders` inside `dir`. The folder `dir` itself is not checked for links:
/// the user named it, and it may well be reached through one.
pub(crate) fn check<'a>(
    command: &str,
    dir: &Path,
    files: &'a [(impl AsRef<str>, impl AsRef<[u8]>)],
    folders: &[&str],
    force: bool,
) -> Result<NewFiles<'a>> {
    if dir.is_file() {
        bail!(
            "{} is a file, where {command} needs a folder: name a folder",
            dir.display()
        );
    }
    let files: Vec<(&str, PathBuf, &[u8])> = files
        .iter()
        .map(|(name, bytes)| (name.as_ref(), place(dir, name.as_ref()), bytes.as_ref()))
        .collect();
    let mut linked: Vec<PathBuf> = Vec::new();
    for (name, _, _) in &files {
        let parts: Vec<&str> = name.split('/').collect();
        for depth in 1..parts.len() {
            let folder = place(dir, &parts[..depth].join("/"));
            check_folder(command, &folder, name, force, &mut linked)?;
        }
    }
    let names = folders;
    let folders: Vec<PathBuf> = names.iter().map(|name| place(dir, name)).collect();
    for (folder, name) in folders.iter().zip(names) {
        // A folder made and never written into: a link to a folder there is no harm.
        if !(fs::symlink_metadata(folder).is_ok_and(|m| m.is_symlink()) && folder.is_dir()) {
            check_folder(command, folder, &format!("{name}/"), force, &mut linked)?;
        }
    }
    let present = present_files(command, &files, force)?;
    Ok(NewFiles {
        files,
        folders,
        linked,
        present,
    })
}

impl NewFiles<'_> {
    /// Where each file goes, in the order given.
    pub(crate) fn paths(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(|(_, path, _)| path.as_path())
    }

    /// How many files were there already.
    pub(crate) fn overwritten(&self) -> usize {
        self.present.len()
    }

    /// Makes the folders and writes the files, saying which links it writes through. What
    /// this run made is removed again if a write fails part-way: the folder is left as it
    /// was, but for files --force has already overwritten.
    pub(crate) fn write(&self, progress: &Progress) -> Result<()> {
        for link in &self.linked {
            progress.step(&format!(
                "  writing through the link {} (--force)",
                link.display()
            ));
        }
        let mut made = Vec::new();
        let written = self.write_noting(&mut made);
        if written.is_err() {
            // The last made first, so that each folder is empty of them when its turn comes.
            for path in made.iter().rev() {
                let _ = fs::remove_file(path).or_else(|_| fs::remove_dir(path));
            }
        }
        written
    }

    /// Makes the folders and writes the files, noting in `made` each file and folder this
    /// run made, in the order made.
    fn write_noting(&self, made: &mut Vec<PathBuf>) -> Result<()> {
        for folder in &self.folders {
            make_folder(folder, made)?;
        }
        for (_, path, bytes) in &self.files {
            if let Some(parent) = path.parent() {
                make_folder(parent, made)?;
            }
            if fs::symlink_metadata(path).is_ok_and(|meta| meta.is_symlink()) {
                fs::remove_file(path)
                    .with_context(|| format!("could not replace the link {}", path.display()))?;
            } else if fs::symlink_metadata(path).is_err() {
                made.push(path.clone());
            }
            fs::write(path, bytes)
                .with_context(|| format!("could not write {}", path.display()))?;
        }
        Ok(())
    }
}

/// Makes `folder` and the folders above it that are missing, noting each in `made`.
fn make_folder(folder: &Path, made: &mut Vec<PathBuf>) -> Result<()> {
    let missing: Vec<&Path> = folder
        .ancestors()
        .take_while(|f| !f.as_os_str().is_empty() && fs::symlink_metadata(f).is_err())
        .collect();
    for folder in missing.into_iter().rev() {
        fs::create_dir(folder).with_context(|| format!("could not create {}", folder.display()))?;
        made.push(folder.to_path_buf());
    }
    Ok(())
}

/// The files of `files` that exist already: refused without --force, and a folder always.
fn present_files(
    command: &str,
    files: &[(&str, PathBuf, &[u8])],
    force: bool,
) -> Result<Vec<PathBuf>> {
    // symlink_metadata, not exists(): a link, even a dangling one, is a file of the user's,
    // and writing through it would put the file somewhere else.
    let mut present: Vec<(PathBuf, bool)> = Vec::new();
    for (_, path, _) in files {
        match fs::symlink_metadata(path) {
            Ok(meta) if meta.is_dir() => bail!(
                "{} is a folder, where {command} writes a file: move it away ({command} never replaces a folder)",
                path.display()
            ),
            Ok(meta) => present.push((path.clone(), meta.is_symlink())),
            Err(_) => {}
        }
    }
    if !present.is_empty() && !force {
        let names: Vec<String> = present
            .iter()
            .map(|(path, link)| {
                let link = if *link { " (a link)" } else { "" };
                format!("{}{link}", path.display())
            })
            .collect();
        let links = if present.iter().any(|(_, link)| *link) {
            " (a link is replaced, never written through)"
        } else {
            ""
        };
        bail!(
            "these files exist already and were kept: {}; pass --force to overwrite them{links}",
            names.join(", ")
        );
    }
    Ok(present.into_iter().map(|(path, _)| path).collect())
}

/// Checks that `folder`, where `command` will write `file`, is a folder or can be made one: a
/// file there is an error, and so is a link unless `force` (then it is written through, and
/// added to `linked`).
fn check_folder(
    command: &str,
    folder: &Path,
    file: &str,
    force: bool,
    linked: &mut Vec<PathBuf>,
) -> Result<()> {
    let Ok(meta) = fs::symlink_metadata(folder) else {
        return Ok(());
    };
    if meta.is_dir() {
        return Ok(());
    }
    if !meta.is_symlink() {
        bail!(
            "{} is a file, where {command} needs a folder (for {file}): move it away",
            folder.display()
        );
    }
    if !folder.is_dir() {
        bail!(
            "{} is a link that leads to no folder, where {command} needs one (for {file}): remove the link",
            folder.display()
        );
    }
    if !force {
        bail!(
            "{} is a link to another folder; {command} does not write through it: remove the link, or pass --force to write through it",
            folder.display()
        );
    }
    if !linked.iter().any(|l| l == folder) {
        linked.push(folder.to_path_buf());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run that fails part-way removes the files and folders it made, and only those; a
    /// run that succeeds keeps them.
    #[test]
    fn what_a_failed_run_made_is_removed_again() {
        let tmp = tempfile::tempdir().unwrap();
        let mine = tmp.path().join("mine.txt");
        fs::write(&mine, "mine").unwrap();
        let run = |files: Vec<(&'static str, PathBuf, &'static [u8])>| NewFiles {
            files,
            folders: vec![tmp.path().join("a/empty")],
            linked: Vec::new(),
            present: Vec::new(),
        };
        let file = tmp.path().join("a/b/file");
        // The second file cannot be written: its folder is a file of the user's.
        let failing = run(vec![
            ("a/b/file", file.clone(), b"x"),
            ("mine.txt/x", mine.join("x"), b"y"),
        ]);
        assert!(failing.write(&Progress::new(true)).is_err());
        let left: Vec<_> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["mine.txt"]);
        assert_eq!(fs::read_to_string(&mine).unwrap(), "mine");
        run(vec![("a/b/file", file.clone(), b"x")])
            .write(&Progress::new(true))
            .unwrap();
        assert_eq!(fs::read_to_string(&file).unwrap(), "x");
        assert!(tmp.path().join("a/empty").is_dir());
    }
}
