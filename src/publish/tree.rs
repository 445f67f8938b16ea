//! What the output folder holds before a publication, read without following a single link:
//! which paths are real files and folders, which are links, and whether a private folder or a
//! site sits somewhere inside.

use super::marker::{MARKER, Marker, must_stay_apart};
use super::place::{Nested, apart_advice};
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Entry {
    File {
        len: u64,
    },
    Folder,
    /// A symbolic link: never followed, written through or replaced.
    Link,
    /// A socket, a FIFO, a device.
    Other,
}

/// Every entry under the output folder, by relative path.
#[derive(Debug, Default)]
pub(super) struct OldTree {
    pub entries: BTreeMap<PathBuf, Entry>,
}

impl OldTree {
    /// Reads `dir` (missing is empty), leaving out `skip` (a staging folder inside it) and the
    /// marker at its top. A folder of a kind that must stay apart from `kind` is an error.
    pub fn scan(dir: &Path, kind: &str, skip: Option<&Path>) -> Result<OldTree> {
        let mut tree = OldTree::default();
        if !dir.is_dir() {
            return Ok(tree);
        }
        let mut walk = walkdir::WalkDir::new(dir).min_depth(1).into_iter();
        while let Some(item) = walk.next() {
            let item = item.with_context(|| format!("could not read {}", dir.display()))?;
            let path = item
                .path()
                .strip_prefix(dir)
                .expect("under dir")
                .to_path_buf();
            if skip == Some(path.as_path()) {
                walk.skip_current_dir();
                continue;
            }
            let file_type = item.file_type();
            let entry = if file_type.is_symlink() {
                Entry::Link
            } else if file_type.is_dir() {
                Entry::Folder
            } else if file_type.is_file() {
                let len = item
                    .metadata()
                    .with_context(|| format!("could not read {}", item.path().display()))?
                    .len();
                Entry::File { len }
            } else {
                Entry::Other
            };
            if path == Path::new(MARKER) {
                continue;
            }
            if entry == Entry::Folder && item.depth() > 0 {
                check_nested(item.path(), kind)?;
            }
            tree.entries.insert(path, entry);
        }
        Ok(tree)
    }

    pub fn get(&self, path: &Path) -> Option<Entry> {
        self.entries.get(path).copied()
    }

    pub fn file_len(&self, path: &str) -> Option<u64> {
        match self.get(Path::new(path)) {
            Some(Entry::File { len }) => Some(len),
            _ => None,
        }
    }

    /// The entries below `folder`.
    pub fn under<'a>(&'a self, folder: &'a Path) -> impl Iterator<Item = (&'a PathBuf, Entry)> {
        self.entries
            .range::<Path, _>((
                std::ops::Bound::Excluded(folder),
                std::ops::Bound::Unbounded,
            ))
            .take_while(move |(path, _)| path.starts_with(folder))
            .map(|(path, entry)| (path, *entry))
    }
}

fn check_nested(folder: &Path, kind: &str) -> Result<()> {
    if let Ok(Some(marker)) = Marker::read(folder)
        && must_stay_apart(kind, &marker.kind)
    {
        return Err(Nested(format!(
            "{} is a vatcar-site {} inside the folder of a {kind}: {}",
            folder.display(),
            marker.kind,
            apart_advice(kind, &marker.kind)
        ))
        .into());
    }
    Ok(())
}
