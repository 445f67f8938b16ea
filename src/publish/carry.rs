//! The webmaster's files in a publication: which of theirs it would overwrite, and
//! everything in the old tree that is not ours carried into the new one as it is (hard links),
//! with what they saved while this run staged.

use super::Staged;
use super::marker::MARKER;
use super::stamp::Stamp;
use super::tree::{self, Entry, OldTree, below};
use anyhow::{Context, Result, bail};
use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::fs;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

/// What tells the webmaster's files from ours, in the output folder and in the new tree
/// staged beside it.
pub(super) struct Carry<'a> {
    /// The output folder.
    pub dir: &'a Path,
    /// The new tree, staged.
    pub new_dir: &'a Path,
    /// What the output folder held when this publication began.
    pub old: &'a OldTree,
    /// The files the marker lists: ours.
    pub previous: &'a HashMap<String, Option<Stamp>>,
    /// The files this publication makes: ours too.
    pub made: &'a HashMap<String, Staged>,
    /// Whether a file of the webmaster's may be overwritten.
    pub force: bool,
}

/// What the old tree holds where a file of ours must go.
enum InTheWay {
    Nothing,
    /// A file of the webmaster's: overwritten with `force`.
    Theirs,
    /// What no flag overrides.
    Problem(String),
}

impl Carry<'_> {
    /// Paths of the webmaster's that the files this publication writes would overwrite
    /// (allowed with `force`, and listed), and the errors no flag overrides: a link, or a
    /// folder holding their files, where a path of ours must go.
    pub(super) fn check_ownership(&self) -> Result<Vec<String>> {
        let mut overwritten = Vec::new();
        let mut problems = Vec::new();
        let mut checked_folders = HashSet::new();
        let written = self.made.iter().filter(|(_, staged)| staged.written);
        for name in written.map(|(name, _)| name.as_str()) {
            let mut folder = name;
            while let Some((parent, _)) = folder.rsplit_once('/') {
                folder = parent;
                if checked_folders.insert(folder) {
                    problems.extend(self.in_the_way_of_a_folder(folder));
                }
            }
            match self.in_the_way_of_a_file(name) {
                InTheWay::Nothing => {}
                InTheWay::Theirs if self.force => overwritten.push(name.to_owned()),
                InTheWay::Theirs => problems.push(format!(
                    "{} was not written by vatcar-site (its marker does not list it); pass \
                     --force to overwrite it, or move it",
                    below(self.dir, name).display()
                )),
                InTheWay::Problem(problem) => problems.push(problem),
            }
        }
        // The names come in no order; what is reported comes in the paths' order.
        overwritten.sort_unstable();
        problems.sort_unstable();
        if problems.is_empty() {
            return Ok(overwritten);
        }
        let shown = problems.iter().take(10).cloned().collect::<Vec<_>>();
        let more = match problems.len() {
            n if n > 10 => format!("\n  and {} more", n - 10),
            _ => String::new(),
        };
        bail!(
            "nothing was written, because of what is in the output folder:\n  {}{more}",
            shown.join("\n  ")
        )
    }

    /// What stops a folder of ours at `folder`: a link, or a file of the webmaster's.
    fn in_the_way_of_a_folder(&self, folder: &str) -> Option<String> {
        match self.old.get(folder) {
            None | Some(Entry::Folder) => None,
            Some(Entry::Link) => Some(format!(
                "{} is a link; vatcar-site never writes through links inside the output \
                 folder: remove it, or copy what it points to in its place",
                below(self.dir, folder).display()
            )),
            Some(_) if self.previous.contains_key(folder) => None,
            Some(_) => Some(format!(
                "{} is a file of yours where vatcar-site needs a folder: move it",
                below(self.dir, folder).display()
            )),
        }
    }

    /// What is in the way of a file of ours at `name`.
    fn in_the_way_of_a_file(&self, name: &str) -> InTheWay {
        // Made only for a message: a rebuild checks every file it publishes.
        let path = || below(self.dir, name);
        match self.old.get(name) {
            None => InTheWay::Nothing,
            Some(Entry::File) if self.previous.contains_key(name) => InTheWay::Nothing,
            Some(Entry::Link) => InTheWay::Problem(format!(
                "{} is a link; vatcar-site never replaces links inside the output folder: \
                 remove it",
                path().display()
            )),
            Some(Entry::Folder) => {
                let theirs = self.old.under(name).any(|(inner, entry)| {
                    entry == Entry::Folder
                        || !inner
                            .to_str()
                            .is_some_and(|p| self.previous.contains_key(p))
                });
                if theirs {
                    InTheWay::Problem(format!(
                        "{} is a folder of yours where vatcar-site needs a file: move it",
                        path().display()
                    ))
                } else {
                    // Our files only: they go with the old tree.
                    InTheWay::Nothing
                }
            }
            Some(_) => InTheWay::Theirs,
        }
    }

    /// Hard links from the old tree into the new one, for files whose bytes stay.
    pub(super) fn link_unchanged<'p>(&self, paths: impl Iterator<Item = &'p String>) -> Result<()> {
        let mut folder = None;
        for path in paths {
            self.link(path.as_ref(), &mut folder)?;
        }
        Ok(())
    }

    /// Everything in the old tree's folder `scope` (`""`, the whole tree) that is not ours
    /// goes into the new tree's as it is: files and links hard-linked, folders made.
    pub(super) fn carry_webmasters_files(&self, scope: &str) -> Result<()> {
        let mut listed: Vec<&str> = self.previous.keys().map(String::as_str).collect();
        listed.sort_unstable();
        let mut folder = None;
        for (path, entry) in self.old.under(scope) {
            let ours = path
                .to_str()
                .is_some_and(|p| self.previous.contains_key(p) || self.made.contains_key(p));
            match entry {
                _ if ours => {}
                Entry::Folder => {
                    // Folders that held only our files are made again only where needed.
                    let held_ours = path.to_str().is_some_and(|p| {
                        let prefix = format!("{p}/");
                        let first = listed.partition_point(|f| *f < prefix.as_str());
                        listed.get(first).is_some_and(|f| f.starts_with(&prefix))
                    });
                    if !held_ours {
                        let target = below(self.new_dir, path);
                        fs::create_dir_all(&target)
                            .with_context(|| format!("could not create {}", target.display()))?;
                        copy_permissions(&below(self.dir, path), &target);
                    }
                }
                _ => self.link(path, &mut folder)?,
            }
        }
        copy_permissions(&below(self.dir, scope), &below(self.new_dir, scope));
        Ok(())
    }

    /// Moves into the output folder what the webmaster put there while this run staged: a file
    /// or folder made after the scan, or a file of theirs replaced since (an editor saves by
    /// renaming a new file over the old one). The swap took those into the old tree at
    /// `old_tree`, the old folder `scope` (`""`, the top), which is removed next. A path the
    /// new site took meanwhile is left as it is.
    pub(super) fn rescue_late_files(&self, old_tree: &Path, scope: &str) {
        let ours = |key: &OsStr| {
            key.to_str().is_some_and(|k| {
                k == MARKER || self.previous.contains_key(k) || self.made.contains_key(k)
            })
        };
        let mut walk = walkdir::WalkDir::new(old_tree)
            .min_depth(1)
            .same_file_system(true)
            .into_iter();
        while let Some(item) = walk.next() {
            let Ok(item) = item else {
                continue;
            };
            let Ok(relative) = item.path().strip_prefix(old_tree) else {
                continue;
            };
            let inside = relative.components().map(Component::as_os_str);
            let key = tree::key(
                (!scope.is_empty())
                    .then_some(OsStr::new(scope))
                    .into_iter()
                    .chain(inside),
            );
            if ours(&key) {
                continue;
            }
            let live = below(self.dir, &key);
            let scanned = self.old.get(&key);
            let is_folder = item.file_type().is_dir();
            let late = match scanned {
                // A folder of the scan's: what is inside is looked at.
                Some(Entry::Folder) if is_folder => false,
                // Made after the scan. Where the new site has a folder there, it is looked
                // inside.
                None => fs::symlink_metadata(&live).is_err(),
                // Carried into the new site; replaced since, unless it is the same file. (One
                // the new site lacks was removed from it meanwhile.)
                Some(_) => {
                    fs::symlink_metadata(&live).is_ok_and(|meta| !meta.is_dir())
                        && !carried_as_is(item.path(), &live)
                }
            };
            if !late {
                continue;
            }
            if is_folder {
                walk.skip_current_dir();
            }
            let moved = live
                .parent()
                .map_or(Ok(()), fs::create_dir_all)
                .and_then(|()| fs::rename(item.path(), &live));
            match moved {
                Ok(()) => log::info!(
                    "{} changed while vatcar-site was publishing; it is kept",
                    live.display()
                ),
                Err(error) => log::warn!(
                    "{} changed while vatcar-site was publishing, and could not be kept \
                     ({error}); it is lost with the old site",
                    live.display()
                ),
            }
        }
    }

    /// Puts the old tree's entry at `key` into the new tree: a hard link, or where the file
    /// system has none, a copy. Never over a file already staged there.
    /// `folder` is the folder the last call linked into: the paths come in order, so a
    /// folder's files come together, and it is made (or found made) once for them all rather
    /// than asked for again, a failed `mkdir` and a `stat`, for each.
    fn link(&self, key: &OsStr, folder: &mut Option<PathBuf>) -> Result<()> {
        let (from, to) = (below(self.dir, key), below(self.new_dir, key));
        if let Some(parent) = to.parent()
            && folder.as_deref() != Some(parent)
        {
            fs::create_dir_all(parent)
                .with_context(|| format!("could not create {}", parent.display()))?;
            *folder = Some(parent.to_path_buf());
        }
        // `hard_link` links a link itself, not what it points to.
        match fs::hard_link(&from, &to) {
            Ok(()) => {}
            Err(error) if error.kind() == ErrorKind::AlreadyExists => {
                return Err(error).with_context(|| {
                    format!(
                        "internal error: {} was staged twice, once new and once from the old tree",
                        to.display()
                    )
                });
            }
            Err(_) => {
                // A file system without hard links: a copy, with its mtime kept.
                let meta = fs::symlink_metadata(&from)
                    .with_context(|| format!("could not read {}", from.display()))?;
                if meta.is_symlink() {
                    copy_link(&from, &to)?;
                } else if !meta.is_file() {
                    // Reading a FIFO would wait for a writer; a device would be copied whole.
                    bail!(
                        "{} is neither a file, a folder nor a link, and this file system cannot \
                         hard-link it into the new site: move it out of the output folder",
                        from.display()
                    );
                } else {
                    fs::copy(&from, &to)
                        .with_context(|| format!("could not copy {}", from.display()))?;
                    if let Ok(modified) = meta.modified() {
                        let _ = fs::File::options()
                            .write(true)
                            .open(&to)
                            .and_then(|f| f.set_modified(modified));
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(unix)]
fn copy_link(from: &Path, to: &Path) -> Result<()> {
    let target =
        fs::read_link(from).with_context(|| format!("could not read {}", from.display()))?;
    std::os::unix::fs::symlink(target, to)
        .with_context(|| format!("could not copy {}", from.display()))
}

#[cfg(not(unix))]
fn copy_link(from: &Path, _: &Path) -> Result<()> {
    bail!("could not copy the link {}", from.display())
}

/// Whether `carried` is `original` as the new tree got it: the same file (a hard link), or a
/// copy with its length and mtime. A file replaced since (by an editor's save) is not.
fn carried_as_is(original: &Path, carried: &Path) -> bool {
    match (
        fs::symlink_metadata(original),
        fs::symlink_metadata(carried),
    ) {
        (Ok(a), Ok(b)) => {
            same_inode(&a, &b) || (a.len() == b.len() && a.modified().ok() == b.modified().ok())
        }
        _ => true,
    }
}

#[cfg(unix)]
fn same_inode(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_inode(_: &fs::Metadata, _: &fs::Metadata) -> bool {
    false
}

fn copy_permissions(from: &Path, to: &Path) {
    if let Ok(meta) = fs::metadata(from) {
        let _ = fs::set_permissions(to, meta.permissions());
    }
}
