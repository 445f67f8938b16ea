//! The ownership marker: which files in a folder this tool wrote, and what the folder holds.
//! A path the marker does not list belongs to the webmaster.

use anyhow::{Context, Result};
use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

/// The marker's file name, at the top of every folder this tool publishes.
pub const MARKER: &str = ".vatcar-site.json";

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Marker {
    pub generator: String,
    /// What the folder holds: `site`, `snapshot` or `reports`. A folder of one kind is never
    /// published over with another, so a report run can never prune a site.
    #[serde(default = "site_kind")]
    pub kind: String,
    pub files: BTreeSet<String>,
}

fn site_kind() -> String {
    "site".into()
}

impl Marker {
    pub fn new(kind: &str, files: BTreeSet<String>) -> Self {
        Self {
            generator: concat!("vatcar-site ", env!("CARGO_PKG_VERSION")).into(),
            kind: kind.to_owned(),
            files,
        }
    }

    /// The marker of `dir`, if it has one. A marker that does not read is an error: the folder
    /// cannot be told apart from a foreign one.
    pub fn read(dir: &Path) -> Result<Option<Marker>> {
        Ok(Self::read_with_bytes(dir)?.map(|(marker, _)| marker))
    }

    /// [`Marker::read`], with the file's bytes, to tell later whether it changes.
    pub fn read_with_bytes(dir: &Path) -> Result<Option<(Marker, Vec<u8>)>> {
        let path = dir.join(MARKER);
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_file() => {
                let bytes = fs::read(&path)
                    .with_context(|| format!("could not read {}", path.display()))?;
                let marker = serde_json::from_slice(&bytes).with_context(|| {
                    format!("{} is damaged; remove it to rebuild", path.display())
                })?;
                Ok(Some((marker, bytes)))
            }
            _ => Ok(None),
        }
    }

    pub fn to_json(&self) -> Vec<u8> {
        let mut json = serde_json::to_vec_pretty(self).expect("a marker serializes");
        json.push(b'\n');
        json
    }
}

/// Whether a folder of kind `inner` may not sit inside one of kind `outer`, or hold one: a
/// site is published, snapshots and reports hold private data (members' email addresses, a
/// student's contact details), so neither may be nested in the other.
pub(super) fn must_stay_apart(outer: &str, inner: &str) -> bool {
    (outer == "site") != (inner == "site")
}
