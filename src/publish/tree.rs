//! What the output folder holds before a publication, read without following a single link:
//! which paths are real files and folders, which are links, and whether a private folder or a
//! site sits somewhere inside.

use super::marker::{MARKER, Marker, must_stay_apart};
use super::place::{Nested, apart_advice, kind_in_words};
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Entry {
    File,
    Folder,
    /// A symbolic link: never followed, written through or replaced.
    Link,
    /// A socket, a FIFO, a device.
    Other,
}

/// Every entry under the output folder, by relative path (`/`-separated). Keys are the
/// paths' bytes, compared as bytes: a large site has 60,000 entries, and comparing `Path`s
/// component by component made the lookups a visible part of a rebuild.
#[derive(Debug, Default)]
pub(super) struct OldTree {
    pub entries: BTreeMap<OsString, Entry>,
}

impl OldTree {
    /// Reads `dir` (missing is empty), leaving out `skip` (a staging folder inside it) and the
    /// marker at its top. Only the directory listings are read (their entries carry their
    /// types): no file is opened or even `stat`ed, except a marker below the top. A folder of
    /// a kind that must stay apart from `kind` is an error.
    pub fn scan(dir: &Path, kind: &str, skip: Option<&Path>) -> Result<OldTree> {
        let mut tree = OldTree::default();
        if !dir.is_dir() {
            return Ok(tree);
        }
        let mut walk = walkdir::WalkDir::new(dir).min_depth(1).into_iter();
        while let Some(item) = walk.next() {
            let item = item.with_context(|| format!("could not read {}", dir.display()))?;
            let path = item.path().strip_prefix(dir).expect("under dir");
            if skip == Some(path) {
                walk.skip_current_dir();
                continue;
            }
            let file_type = item.file_type();
            let entry = if file_type.is_symlink() {
                Entry::Link
            } else if file_type.is_dir() {
                Entry::Folder
            } else if file_type.is_file() {
                Entry::File
            } else {
                Entry::Other
            };
            if item.file_name() == MARKER && entry == Entry::File {
                if item.depth() == 1 {
                    continue;
                }
                check_nested(item.path().parent().expect("below dir"), kind)?;
            }
            tree.entries.insert(path.as_os_str().to_owned(), entry);
        }
        Ok(tree)
    }

    pub fn get(&self, path: impl AsRef<OsStr>) -> Option<Entry> {
        self.entries.get(path.as_ref()).copied()
    }

    pub fn is_file(&self, path: &str) -> bool {
        self.get(path) == Some(Entry::File)
    }

    /// The entries below `folder`.
    pub fn under<'a>(&'a self, folder: &'a str) -> impl Iterator<Item = (&'a OsString, Entry)> {
        let prefix = format!("{folder}/");
        self.entries
            .range::<OsStr, _>((
                std::ops::Bound::Included(OsStr::new(&prefix)),
                std::ops::Bound::Unbounded,
            ))
            .take_while(move |(path, _)| path.as_encoded_bytes().starts_with(prefix.as_bytes()))
            .map(|(path, entry)| (path, *entry))
    }
}

fn check_nested(folder: &Path, kind: &str) -> Result<()> {
    if let Ok(Some(marker)) = Marker::read(folder)
        && must_stay_apart(kind, &marker.kind)
    {
        return Err(Nested(format!(
            "{} is a vatcar-site {}, inside the {} being written: {}",
            folder.display(),
            kind_in_words(&marker.kind),
            kind_in_words(kind),
            apart_advice(kind, &marker.kind)
        ))
        .into());
    }
    Ok(())
}
