//! What the output folder holds before a publication, read without following a single link
//! or crossing into a mounted volume: the files of ours, what else is there (the webmaster's),
//! and whether a private folder or a site sits somewhere inside.
//!
//! A path below the output folder has one form everywhere in publishing, its key: the names of
//! its components joined with `/` on every platform ([`key`]), as the marker and the rendered
//! files name them. [`below`] turns a key back into a path of the platform.

use super::marker::{FolderKind, MARKER, Marker};
use super::mounts::{device, device_of, mount_advice};
use super::place::Nested;
use anyhow::{Context, Result, bail};
use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};

#[derive(Debug, Default)]
pub(super) struct OldTree {
    /// The regular files the marker lists, reached through real folders: ours.
    pub ours: HashSet<String>,
    /// Everything else, by key, sorted, the folders that hold a file of ours left out and
    /// what lies in a folder named already: the webmaster's.
    pub foreign: Vec<String>,
}

impl OldTree {
    /// Reads `dir` (missing is empty), leaving out `skip` (the key of a staging folder inside
    /// it) and the marker at its top; `listed` is what the marker lists. Only the directory
    /// listings are read (their entries carry their types), and a marker below the top: a
    /// folder of a kind that must stay apart from `kind` is an error, and so is a folder on
    /// another device, a volume mounted inside.
    pub fn scan(
        dir: &Path,
        kind: FolderKind,
        skip: Option<&str>,
        listed: &HashSet<String>,
    ) -> Result<OldTree> {
        let mut tree = OldTree::default();
        if !dir.is_dir() {
            return Ok(tree);
        }
        tree.ours.reserve(listed.len());
        let mut others = Vec::new();
        let mut folders_seen = Vec::new();
        let top_device = device(dir);
        let mut folders = vec![(dir.to_path_buf(), OsString::new())];
        while let Some((folder, folder_key)) = folders.pop() {
            let unreadable = || format!("could not read {}", folder.display());
            for item in fs::read_dir(&folder).with_context(unreadable)? {
                let item = item.with_context(unreadable)?;
                let name = item.file_name();
                let path = if folder_key.is_empty() {
                    name.clone()
                } else {
                    key([folder_key.as_os_str(), &name])
                };
                if skip.is_some_and(|skip| path == skip) {
                    continue;
                }
                let file_type = item.file_type().with_context(unreadable)?;
                let path = match path.into_string() {
                    Ok(path) => path,
                    // No path of ours is: not Unicode, it is the webmaster's, all it holds too.
                    Err(path) => {
                        others.push(path.to_string_lossy().into_owned());
                        continue;
                    }
                };
                if file_type.is_dir() && !file_type.is_symlink() {
                    let on = item.metadata().ok().and_then(|meta| device_of(&meta));
                    if on != top_device {
                        bail!(
                            "{} is on another device than the output folder {} (a volume is \
                             mounted there), so nothing was written: vatcar-site replaces the \
                             output folder as a whole, and a mounted volume cannot come along; \
                             {}, then run again",
                            item.path().display(),
                            dir.display(),
                            mount_advice(&[item.path()])
                        );
                    }
                    folders.push((item.path(), OsString::from(&path)));
                    folders_seen.push(path);
                    continue;
                }
                if name == MARKER && file_type.is_file() {
                    if folder_key.is_empty() {
                        continue;
                    }
                    check_nested(&folder, kind)?;
                }
                if file_type.is_file() && listed.contains(&path) {
                    tree.ours.insert(path);
                } else {
                    others.push(path);
                }
            }
        }
        tree.foreign = foreign(&tree.ours, &folders_seen, others);
        Ok(tree)
    }
}

/// What is not ours, sorted: `others` (every entry but folders and our files) and the folders
/// that hold no file of `ours`, without what lies in such a folder.
fn foreign(ours: &HashSet<String>, folders: &[String], others: Vec<String>) -> Vec<String> {
    let mut holding_ours = HashSet::new();
    for file in ours {
        let mut folder = file.as_str();
        while let Some((parent, _)) = folder.rsplit_once('/') {
            if !holding_ours.insert(parent) {
                break;
            }
            folder = parent;
        }
    }
    let foreign_folders: HashSet<&str> = folders
        .iter()
        .map(String::as_str)
        .filter(|folder| !holding_ours.contains(folder))
        .collect();
    let in_foreign_folder = |path: &str| {
        let mut path = path;
        while let Some((parent, _)) = path.rsplit_once('/') {
            if foreign_folders.contains(parent) {
                return true;
            }
            path = parent;
        }
        false
    };
    let mut foreign: Vec<String> = foreign_folders
        .iter()
        .map(|folder| format!("{folder}/"))
        .chain(others)
        .filter(|path| !in_foreign_folder(path.trim_end_matches('/')))
        .collect();
    foreign.sort_unstable();
    foreign
}

/// The key of a path below the output folder, from its components' names: joined with `/`
/// whatever the platform's separator, so that it matches the marker's paths and the rendered
/// files' names.
pub(super) fn key<'a>(names: impl IntoIterator<Item = &'a OsStr>) -> OsString {
    let mut key = OsString::new();
    for name in names {
        if !key.is_empty() {
            key.push("/");
        }
        key.push(name);
    }
    key
}

/// The path of the platform for `key` below `dir`, one component at a time.
pub(super) fn below(dir: &Path, key: impl AsRef<OsStr>) -> PathBuf {
    let key = key.as_ref();
    let mut path = dir.to_path_buf();
    match key.to_str() {
        Some(text) => path.extend(text.split('/')),
        // Not Unicode: only Unix allows that, and its separator is `/` already.
        None => path.push(key),
    }
    path
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
            FolderKind::apart_advice(kind, marker.kind)
        ))
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Component;

    #[test]
    fn a_key_joins_the_names_with_a_slash_whatever_the_platform() {
        let names = ["events", "1234", "index.html"].map(OsStr::new);
        assert_eq!(key(names), "events/1234/index.html");
        assert_eq!(key([OsStr::new("CNAME")]), "CNAME");
        assert_eq!(key(std::iter::empty()), "");
        // A relative path of the platform, read component by component, gives the same key.
        let native: PathBuf = ["events", "1234", "index.html"].iter().collect();
        assert_eq!(
            key(native.components().map(Component::as_os_str)),
            "events/1234/index.html"
        );
    }

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
        for folder in ["events/7", "events/media/new", "mine"] {
            fs::create_dir_all(below(dir, folder)).unwrap();
        }
        for file in [
            "events/7/index.html",
            "events/7/notes.txt",
            "events/media/new/photo.jpg",
            "events-x",
            "CNAME",
            MARKER,
        ] {
            fs::write(below(dir, file), "x").unwrap();
        }
        let listed: HashSet<String> = ["events/7/index.html", "events-x", "gone.html"]
            .map(String::from)
            .into();
        let tree = OldTree::scan(dir, FolderKind::Site, None, &listed).unwrap();
        let mut ours: Vec<_> = tree.ours.iter().map(String::as_str).collect();
        ours.sort_unstable();
        assert_eq!(ours, ["events-x", "events/7/index.html"]);
        assert_eq!(
            tree.foreign,
            ["CNAME", "events/7/notes.txt", "events/media/", "mine/"]
        );
    }
}
