//! What the output folder holds before a publication, read without following a single link
//! or crossing into a mounted volume: which paths are real files and folders, which are links,
//! and whether a private folder or a site sits somewhere inside.
//!
//! A path below the output folder has one form everywhere in publishing, its key: the names of
//! its components joined with `/` on every platform ([`key`]), as the marker and the rendered
//! files name them. [`below`] turns a key back into a path of the platform.

use super::marker::{FolderKind, MARKER, Marker};
use super::mounts::{device, device_of, mount_advice};
use super::place::Nested;
use super::stamp::Seen;
use anyhow::{Context, Result, bail};
use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Entry {
    File,
    Folder,
    /// A symbolic link: never followed, written through or replaced.
    Link,
    /// A socket, a FIFO, a device.
    Other,
}

/// Every entry under the output folder, by relative path (`/`-separated). A rebuild looks up
/// each file it publishes (a large site has 60,000 entries), so they are hashed; the few
/// questions that need them in order ([`OldTree::under`]) sort them
/// once, when first asked.
#[derive(Debug, Default)]
pub(super) struct OldTree {
    /// Each entry, with how a regular file looked (its length, mtime and inode) when the
    /// scan was asked to look.
    pub entries: HashMap<OsString, (Entry, Option<Seen>)>,
    sorted: std::sync::OnceLock<Vec<OsString>>,
}

impl OldTree {
    /// Reads `dir` (missing is empty), leaving out `skip` (the key of a staging folder inside
    /// it) and the marker at its top. Only the directory listings are read (their entries
    /// carry their types): no file is opened. Folders are `stat`ed (for their device), files
    /// only with `stat_files` (for their stamps), each by its name in the listing's open
    /// folder, which costs no walk down the path; and a marker below the top is read. A folder
    /// of a kind that must stay apart from `kind` is an error, and so is a folder on another
    /// device: a volume mounted inside. `expected` is about how many entries there are, if
    /// known: room for them is made at once, not by growing the table (rehashing every key)
    /// ten times over.
    pub fn scan(
        dir: &Path,
        kind: FolderKind,
        skip: Option<&str>,
        stat_files: bool,
        expected: usize,
    ) -> Result<OldTree> {
        let mut tree = OldTree::default();
        if !dir.is_dir() {
            return Ok(tree);
        }
        tree.entries.reserve(expected);
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
                let entry = if file_type.is_symlink() {
                    Entry::Link
                } else if file_type.is_dir() {
                    let on = item.metadata().ok().and_then(|meta| device_of(&meta));
                    if on != top_device {
                        let mount = [item.path()];
                        bail!(
                            "{} is on another device than the output folder {} (a volume is \
                             mounted there), so nothing was written: vatcar-site replaces the \
                             output folder as a whole, and a mounted volume cannot come along; \
                             {}, then run again",
                            item.path().display(),
                            dir.display(),
                            mount_advice(&mount)
                        );
                    }
                    folders.push((item.path(), path.clone()));
                    Entry::Folder
                } else if file_type.is_file() {
                    Entry::File
                } else {
                    Entry::Other
                };
                if name == MARKER && entry == Entry::File {
                    if folder_key.is_empty() {
                        continue;
                    }
                    check_nested(&folder, kind)?;
                }
                let seen = if stat_files && entry == Entry::File {
                    item.metadata().ok().as_ref().and_then(Seen::of)
                } else {
                    None
                };
                tree.entries.insert(path, (entry, seen));
            }
        }
        Ok(tree)
    }

    /// The entry at `path`, and how it looked if it is a regular file the scan `stat`ed.
    pub fn lookup(&self, path: &str) -> Option<(Entry, Option<Seen>)> {
        self.entries.get(OsStr::new(path)).copied()
    }

    /// How the regular file at `path` looked to the scan, if it was asked to look.
    pub fn seen(&self, path: &str) -> Option<Seen> {
        self.lookup(path).and_then(|(_, seen)| seen)
    }

    pub fn get(&self, path: impl AsRef<OsStr>) -> Option<Entry> {
        self.entries.get(path.as_ref()).map(|(entry, _)| *entry)
    }

    pub fn is_file(&self, path: &str) -> bool {
        self.get(path) == Some(Entry::File)
    }

    /// The paths of the entries, sorted by their bytes: a folder comes before what it holds.
    fn sorted(&self) -> &[OsString] {
        self.sorted.get_or_init(|| {
            let mut paths: Vec<OsString> = self.entries.keys().cloned().collect();
            paths.sort_unstable_by(|a, b| a.as_encoded_bytes().cmp(b.as_encoded_bytes()));
            paths
        })
    }

    /// The entries below `folder` (below `""`, every entry), a folder before what it holds.
    pub fn under<'a>(&'a self, folder: &'a str) -> impl Iterator<Item = (&'a OsString, Entry)> {
        let prefix = if folder.is_empty() {
            String::new()
        } else {
            format!("{folder}/")
        };
        let sorted = self.sorted();
        let start = sorted.partition_point(|path| path.as_encoded_bytes() < prefix.as_bytes());
        sorted[start..]
            .iter()
            .take_while(move |path| path.as_encoded_bytes().starts_with(prefix.as_bytes()))
            .map(|path| (path, self.entries[path.as_os_str()].0))
    }
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
    fn the_scan_keys_nested_entries_by_their_slash_keys() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path();
        std::fs::create_dir_all(dir.join("events").join("7")).unwrap();
        std::fs::write(dir.join("events").join("7").join("index.html"), "x").unwrap();
        std::fs::write(dir.join(MARKER), "{}").unwrap();
        // Sorts between `events` and `events/7`: not below `events`.
        std::fs::write(dir.join("events-x"), "y").unwrap();
        let tree = OldTree::scan(dir, FolderKind::Site, None, true, 0).unwrap();
        let keys: Vec<_> = tree.under("").map(|(path, _)| path.clone()).collect();
        assert_eq!(
            keys,
            ["events", "events-x", "events/7", "events/7/index.html"]
        );
        assert!(tree.is_file("events/7/index.html"));
        assert_eq!(tree.get("events/7"), Some(Entry::Folder));
        assert_eq!(tree.under("events").count(), 2);
        #[cfg(unix)]
        assert!(tree.seen("events/7/index.html").is_some());
        assert_eq!(tree.seen("events/7"), None);
        let unstated = OldTree::scan(dir, FolderKind::Site, None, false, 3).unwrap();
        assert_eq!(unstated.seen("events/7/index.html"), None);
    }
}
