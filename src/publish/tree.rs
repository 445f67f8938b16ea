//! What the output folder holds, read before a publication without following a single link
//! (the files of ours, what else is there, a private folder or a site somewhere inside), and an
//! old tree taken apart after it, keeping what is not ours.
//!
//! A path below the output folder has one form everywhere in publishing, its key: the names of
//! its components joined with `/` on every platform, as the marker and the rendered files name
//! them. [`below`] turns a key back into a path of the platform.

use super::marker::{APART, FolderKind, MARKER, Marker};
use super::place::{IN_PLACE_STAGING, Nested};
use anyhow::{Context, Result};
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs;
use std::path::{Component, Path, PathBuf};

#[derive(Debug, Default)]
pub(super) struct OldTree {
    /// The regular files the marker lists, reached through real folders: ours.
    pub ours: HashSet<String>,
    /// Everything else, by key, sorted, a folder that holds no file of ours named alone (with
    /// a `/`, what it holds left out): the webmaster's.
    pub foreign: Vec<String>,
}

impl OldTree {
    /// Reads `dir` (missing is empty), leaving out the marker at its top and a staging folder
    /// of a mounted output folder; `listed` is what the marker lists. Only the directory
    /// listings are read (their entries carry their types), and a marker below the top: a
    /// folder of a kind that must stay apart from `kind` is an error.
    pub fn scan(dir: &Path, kind: FolderKind, mut listed: HashSet<String>) -> Result<OldTree> {
        let mut tree = OldTree::default();
        if dir.is_dir() {
            tree.scan_folder(dir, "", kind, &mut listed)?;
        }
        tree.foreign.sort_unstable();
        Ok(tree)
    }

    /// Adds what `folder` (key `key`) holds; whether it holds a file of ours.
    fn scan_folder(
        &mut self,
        folder: &Path,
        key: &str,
        kind: FolderKind,
        listed: &mut HashSet<String>,
    ) -> Result<bool> {
        let mut holds_ours = false;
        // Read whole before descending, so that no more than one folder is open at a time.
        for item in read_folder(folder)? {
            let (name, file_type) = (item.file_name(), item.file_type()?);
            let path = join(key, &name);
            let top_file = |wanted| key.is_empty() && name == wanted && file_type.is_file();
            if top_file(MARKER) || (key.is_empty() && name == IN_PLACE_STAGING) {
                continue;
            } else if name.to_str().is_none() {
                // No path of ours is: not Unicode, it is the webmaster's, all it holds too.
                self.foreign.push(path);
            } else if file_type.is_dir() {
                let before = self.foreign.len();
                if self.scan_folder(&item.path(), &path, kind, listed)? {
                    holds_ours = true;
                } else {
                    self.foreign.truncate(before);
                    self.foreign.push(format!("{path}/"));
                }
            } else {
                if name == MARKER && file_type.is_file() {
                    check_nested(folder, kind)?;
                }
                match listed.take(&path).filter(|_| file_type.is_file()) {
                    Some(path) => {
                        self.ours.insert(path);
                        holds_ours = true;
                    }
                    None => self.foreign.push(path),
                }
            }
        }
        Ok(holds_ours)
    }
}

/// The key of `name` in the folder of key `key`.
fn join(key: &str, name: &OsStr) -> String {
    match key {
        "" => name.to_string_lossy().into_owned(),
        key => format!("{key}/{}", name.to_string_lossy()),
    }
}

fn read_folder(folder: &Path) -> Result<Vec<fs::DirEntry>> {
    let items = fs::read_dir(folder).and_then(|items| items.collect());
    items.with_context(|| format!("could not read {}", folder.display()))
}

fn check_nested(folder: &Path, kind: FolderKind) -> Result<()> {
    if let Ok(Some(marker)) = Marker::read(folder)
        && FolderKind::must_stay_apart(kind, marker.kind)
    {
        return Err(Nested(format!(
            "{} is a vatcar-site {}, inside the {} being written: {}",
            folder.display(),
            marker.kind.in_words(),
            kind.in_words(),
            APART
        ))
        .into());
    }
    Ok(())
}

/// Takes the old tree at `tree` apart: removes the files of `ours` (by default, what its marker
/// lists) and the marker, and the folders that held only those. If anything else is left (a file the webmaster saved, a
/// link), the tree is moved to `kept_at`; their keys are returned. Nothing is followed through
/// a link. Folders are taken apart side by side, on every core.
pub(super) fn discard(
    tree: &Path,
    kept_at: &Path,
    ours: Option<&HashSet<String>>,
) -> Result<Vec<String>> {
    if !fs::symlink_metadata(tree).is_ok_and(|meta| meta.is_dir()) {
        return Ok(Vec::new());
    }
    // A marker that does not read lists nothing: everything is kept.
    let listed = ours.map_or_else(
        || {
            Cow::Owned(
                Marker::read(tree)
                    .ok()
                    .flatten()
                    .map_or_else(HashSet::new, |m| m.files.into_iter().collect()),
            )
        },
        Cow::Borrowed,
    );
    let mut kept = remove_ours(tree, "", &listed)?;
    if kept.is_empty() {
        fs::remove_dir(tree).with_context(|| format!("could not remove {}", tree.display()))?;
    } else {
        kept.sort_unstable();
        fs::rename(tree, kept_at).with_context(|| {
            format!("could not move {} to {}", tree.display(), kept_at.display())
        })?;
    }
    Ok(kept)
}

/// Removes what is ours in `dir` (key `key`), returning the keys of the rest.
fn remove_ours(dir: &Path, key: &str, listed: &HashSet<String>) -> Result<Vec<String>> {
    let kept: Vec<Vec<String>> = read_folder(dir)?
        .par_iter()
        .map(|item| {
            let (name, path, file_type) = (item.file_name(), item.path(), item.file_type()?);
            let key = join(key, &name);
            if file_type.is_dir() {
                let mut kept = remove_ours(&path, &key, listed)?;
                if kept.is_empty() && fs::remove_dir(&path).is_err() {
                    kept.push(format!("{key}/"));
                }
                Ok(kept)
            } else if file_type.is_file()
                && name.to_str().is_some()
                && (listed.contains(&key) || key == MARKER)
            {
                fs::remove_file(&path)
                    .with_context(|| format!("could not remove {}", path.display()))?;
                Ok(Vec::new())
            } else {
                Ok(vec![key])
            }
        })
        .collect::<Result<_>>()?;
    Ok(kept.concat())
}

/// The path of the platform for `key` below `dir`, one component at a time.
pub(super) fn below(dir: &Path, key: &str) -> PathBuf {
    let mut path = dir.to_path_buf();
    path.extend(key.split('/'));
    path
}

pub(super) fn check_relative(path: &str) -> Result<()> {
    let plain = Path::new(path)
        .components()
        .all(|c| matches!(c, Component::Normal(_)));
    anyhow::ensure!(
        !path.is_empty() && plain && !path.contains('\\'),
        "internal error: output path {path:?} is not a plain relative path"
    );
    Ok(())
}

/// Whether the file at `path` holds exactly `contents`.
pub(super) fn same_bytes(path: &Path, contents: &[u8]) -> bool {
    use std::io::Read;
    // One byte more than `contents` tells a longer file; no stat, as every file of an
    // unchanged rebuild is read here.
    let mut old = Vec::with_capacity(contents.len() + 1);
    let file = fs::File::open(path);
    let read = file.and_then(|file| file.take(contents.len() as u64 + 1).read_to_end(&mut old));
    read.is_ok() && old == contents
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_below_a_folder_is_a_path_of_the_platform() {
        let dir = Path::new("out");
        let expected: PathBuf = ["out", "events", "1234", "index.html"].iter().collect();
        assert_eq!(below(dir, "events/1234/index.html"), expected);
        assert_eq!(below(dir, "events/1234/index.html").components().count(), 4);
    }

    #[test]
    fn the_scan_tells_our_files_from_the_webmasters_by_their_slash_keys() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path();
        for folder in ["events/7", "events/media/new", "mine/deeper"] {
            fs::create_dir_all(below(dir, folder)).unwrap();
        }
        for file in [
            "events/7/index.html",
            "events/7/notes.txt",
            "events/media/new/photo.jpg",
            "mine/deeper/x.txt",
            "events-x",
            "CNAME",
            MARKER,
        ] {
            fs::write(below(dir, file), "x").unwrap();
        }
        let listed: HashSet<String> = ["events/7/index.html", "events-x", "gone.html"]
            .map(String::from)
            .into();
        let tree = OldTree::scan(dir, FolderKind::Site, listed).unwrap();
        let mut ours: Vec<_> = tree.ours.iter().map(String::as_str).collect();
        ours.sort_unstable();
        assert_eq!(ours, ["events-x", "events/7/index.html"]);
        assert_eq!(
            tree.foreign,
            ["CNAME", "events/7/notes.txt", "events/media/", "mine/"]
        );
    }
}
