//! The ownership marker: which files in a folder vatcar-site wrote, and what the folder holds.
//! An output folder is vatcar-site's when it holds a marker; every path in it that the marker
//! does not list is the webmaster's.

use anyhow::Context;
use std::fs;
use std::path::Path;

/// The marker's file name, at the top of every folder this tool publishes.
pub const MARKER: &str = ".vatcar-site.json";

/// Who wrote a marker: this version.
const GENERATOR: &str = concat!("vatcar-site ", env!("CARGO_PKG_VERSION"));

/// What an output folder holds. A folder of one kind is never published over with another,
/// so a report run can never prune a site. A marker names it `site`, `reports` or `snapshot`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FolderKind {
    Site,
    Reports,
    Snapshot,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Marker {
    pub generator: String,
    /// What the folder holds.
    #[serde(default = "site_kind")]
    pub kind: FolderKind,
    /// Sorted as [`Marker::new`] writes them.
    pub files: Vec<String>,
}

fn site_kind() -> FolderKind {
    FolderKind::Site
}

impl Marker {
    /// A marker listing `files`, sorted, each once.
    pub fn new<'a>(kind: FolderKind, files: impl Iterator<Item = &'a str>) -> Self {
        Self {
            generator: GENERATOR.into(),
            kind,
            files: files.map(str::to_owned).collect(),
        }
    }

    /// The marker of `dir`, if it has one. A marker that does not read is an error: the folder
    /// cannot be told apart from a foreign one.
    pub fn read(dir: &Path) -> anyhow::Result<Option<Marker>> {
        let path = dir.join(MARKER);
        if !fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_file()) {
            return Ok(None);
        }
        let bytes =
            fs::read(&path).with_context(|| format!("could not read {}", path.display()))?;
        let marker = serde_json::from_slice(&bytes)
            .with_context(|| format!("{} is damaged; remove it to rebuild", path.display()))?;
        Ok(Some(marker))
    }

    pub fn to_json(&self) -> Vec<u8> {
        let mut json = serde_json::to_vec_pretty(self).expect("a marker serializes");
        json.push(b'\n');
        json
    }
}

impl FolderKind {
    /// Whether a folder of kind `inner` may not sit inside one of kind `outer`, or hold one:
    /// a site is published, snapshots and reports hold private data (members' email
    /// addresses, a student's contact details), so neither may be nested in the other.
    pub(super) fn must_stay_apart(outer: Self, inner: Self) -> bool {
        (outer == Self::Site) != (inner == Self::Site)
    }

    /// The kind as a noun: "a vatcar-site reports" is not English.
    pub(super) fn in_words(self) -> &'static str {
        match self {
            Self::Site => "site",
            Self::Reports => "reports folder",
            Self::Snapshot => "snapshot",
        }
    }
}

/// Why a site and a private folder stay apart, in the words a webmaster needs.
pub(super) const APART: &str = "reports and snapshots hold private data (email addresses, contact details) and \
     would be published with the site; keep them in a folder outside it";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_is_written_and_read_as_the_word_markers_have_always_held() {
        for (kind, word) in [
            (FolderKind::Site, "site"),
            (FolderKind::Reports, "reports"),
            (FolderKind::Snapshot, "snapshot"),
        ] {
            let json = String::from_utf8(Marker::new(kind, std::iter::empty()).to_json()).unwrap();
            assert!(json.contains(&format!("\"kind\": \"{word}\",")), "{json}");
            let old = format!(
                r#"{{"generator": "vatcar-site 0.1.0", "kind": "{word}", "files": ["a.html"]}}"#
            );
            assert_eq!(serde_json::from_str::<Marker>(&old).unwrap().kind, kind);
        }
        // The first markers had no kind: only sites were published then.
        let first = r#"{"generator": "vatcar-site 0.1.0", "files": ["index.html"]}"#;
        let marker: Marker = serde_json::from_str(first).unwrap();
        assert_eq!(marker.kind, FolderKind::Site);
    }

    #[test]
    fn a_marker_with_the_page_hashes_earlier_versions_recorded_still_reads() {
        let json = r#"{"generator": "vatcar-site 0.1.0", "kind": "site", "files": ["a.html"],
            "made_from": {"a.html": "0 1"}}"#;
        let marker: Marker = serde_json::from_str(json).unwrap();
        assert_eq!(marker.files, ["a.html"]);
    }

    #[test]
    fn a_marker_of_an_unknown_kind_is_damaged_and_says_which() {
        let dir = tempfile::tempdir().unwrap();
        let marker = r#"{"generator": "vatcar-site 9.0.0", "kind": "pages", "files": []}"#;
        fs::write(dir.path().join(MARKER), marker).unwrap();
        let error = format!("{:#}", Marker::read(dir.path()).unwrap_err());
        assert!(
            error.contains(".vatcar-site.json is damaged; remove it"),
            "{error}"
        );
        assert!(error.contains("unknown variant `pages`"), "{error}");
    }
}
