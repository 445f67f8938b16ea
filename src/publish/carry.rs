//! The webmaster's files in a publication: which of theirs it would overwrite, and
//! everything in the old tree that is not ours carried into the new one as it is (hard links),
//! with what they saved while this run staged.

use super::marker::MARKER;
use super::tree::{Entry, below};
use super::{Staged, Staging, tree};
use anyhow::{Context, Result, bail};
use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::fs;
use std::io::ErrorKind;
use std::path::{Component, Path};

impl Staging {
    /// Paths of the webmaster's that this publication would overwrite (allowed with `force`,
    /// and listed), and the errors no flag overrides: a link, or a folder holding their files,
    /// where a path of ours must go. `names` are the files this publication writes.
    pub(super) fn check_ownership<'n>(
        &self,
        names: impl Iterator<Item = &'n str>,
    ) -> Result<Vec<String>> {
        let mut overwritten = Vec::new();
        let mut problems = Vec::new();
        let dir = &self.place.dir;
        let mut checked_folders = HashSet::new();
        for name in names {
            let mut folder = name;
            while let Some((parent, _)) = folder.rsplit_once('/') {
                folder = parent;
                if !checked_folders.insert(folder) {
                    continue;
                }
                match self.old.get(folder) {
                    None | Some(Entry::Folder) => {}
                    Some(Entry::Link) => problems.push(format!(
                        "{} is a link; vatcar-site never writes through links inside the output \
                         folder: remove it, or copy what it points to in its place",
                        below(dir, folder).display()
                    )),
                    Some(_) => {
                        if !self.previous.contains_key(folder) {
                            problems.push(format!(
                                "{} is a file of yours where vatcar-site needs a folder: move it",
                                below(dir, folder).display()
                            ));
                        }
                    }
                }
            }
            let ours = self.previous.contains_key(name);
            // Made only for a message: a rebuild checks every file it publishes.
            let path = || below(dir, name);
            match self.old.get(name) {
                None => {}
                Some(Entry::File) if ours => {}
                Some(Entry::Link) => problems.push(format!(
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
                        problems.push(format!(
                            "{} is a folder of yours where vatcar-site needs a file: move it",
                            path().display()
                        ));
                    }
                }
                Some(_) if self.force => overwritten.push(name.to_owned()),
                Some(_) => problems.push(format!(
                    "{} was not written by vatcar-site (its marker does not list it); pass \
                     --force to overwrite it, or move it",
                    path().display()
                )),
            }
        }
        // The names come in no order; what is reported comes in the paths' order.
        overwritten.sort_unstable();
        problems.sort_unstable();
        match problems.len() {
            0 => Ok(overwritten),
            n => {
                let shown = problems
                    .iter()
                    .take(10)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n  ");
                let more = if n > 10 {
                    format!("\n  and {} more", n - 10)
                } else {
                    String::new()
                };
                bail!(
                    "nothing was written, because of what is in the output folder:\n  {shown}{more}"
                )
            }
        }
    }

    /// Hard links from the old tree into the new one, for files whose bytes stay.
    pub(super) fn link_unchanged<'p>(&self, paths: impl Iterator<Item = &'p String>) -> Result<()> {
        for path in paths {
            self.link(path.as_ref())?;
        }
        Ok(())
    }

    /// Everything in the old tree that is not ours goes into the new tree as it is: files and
    /// links hard-linked, folders made.
    pub(super) fn carry_webmasters_files(&self, names: &HashMap<String, Staged>) -> Result<()> {
        let mut listed: Vec<&str> = self.previous.keys().map(String::as_str).collect();
        listed.sort_unstable();
        for (path, entry) in self.old.in_order() {
            let ours = path
                .to_str()
                .is_some_and(|p| self.previous.contains_key(p) || names.contains_key(p));
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
                        let target = below(&self.new_dir, path);
                        fs::create_dir_all(&target)
                            .with_context(|| format!("could not create {}", target.display()))?;
                        copy_permissions(&below(&self.place.dir, path), &target);
                    }
                }
                _ => self.link(path)?,
            }
        }
        copy_permissions(&self.place.dir, &self.new_dir);
        Ok(())
    }

    /// Moves into the output folder what the webmaster put there while this run staged: a file
    /// or folder made after the scan, or a file of theirs replaced since (an editor saves by
    /// renaming a new file over the old one). The swap took those into the old tree at
    /// `old_tree`, which is removed next. A path the new site took meanwhile is left as it is.
    pub(super) fn rescue_late_files(&self, old_tree: &Path, names: &HashMap<String, Staged>) {
        let ours = |key: &OsStr| {
            key.to_str().is_some_and(|k| {
                k == MARKER || self.previous.contains_key(k) || names.contains_key(k)
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
            let key = tree::key(relative.components().map(Component::as_os_str));
            if ours(&key) {
                continue;
            }
            let live = below(&self.place.dir, &key);
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
    pub(super) fn link(&self, key: &OsStr) -> Result<()> {
        let (from, to) = (below(&self.place.dir, key), below(&self.new_dir, key));
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent)
                .with_context(|| format!("could not create {}", parent.display()))?;
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
