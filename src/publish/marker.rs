//! The ownership marker: which files in a folder vatcar-site wrote, and what the folder holds.
//! An output folder is vatcar-site's when it holds a marker; every path in it that the marker
//! does not list is the webmaster's.

use anyhow::Context;
use serde::Deserialize;
use std::collections::BTreeMap;
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
    /// For each page made from inputs the render stage hashed: the hash of its bytes and of
    /// its inputs (`CONTENT INPUT`, XXH3-128 in hex), so that the next build may keep the page
    /// without making it again. Only a shortcut: what does not read is none.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "any_made_from"
    )]
    pub made_from: BTreeMap<String, String>,
}

/// A `made_from` that is not a map of strings (a marker edited by hand) reads as empty.
fn any_made_from<'de, D: serde::Deserializer<'de>>(
    value: D,
) -> Result<BTreeMap<String, String>, D::Error> {
    let value = serde_json::Value::deserialize(value)?;
    Ok(serde_json::from_value(value).unwrap_or_default())
}

fn site_kind() -> FolderKind {
    FolderKind::Site
}

/// The hash a marker records of a file's bytes or a page's inputs.
pub(super) fn hash(bytes: &[u8]) -> u128 {
    xxhash_rust::xxh3::xxh3_128(bytes)
}

impl Marker {
    /// A marker listing `files` (sorted, each once), each with its hashes if it is a page made
    /// from hashed inputs.
    pub fn new<'a>(
        kind: FolderKind,
        files: impl Iterator<Item = (&'a str, Option<(u128, u128)>)>,
    ) -> Self {
        let mut listed = Vec::new();
        let mut made_from = BTreeMap::new();
        for (path, hashes) in files {
            if let Some((content, input)) = hashes {
                made_from.insert(path.to_owned(), format!("{content:032x} {input:032x}"));
            }
            listed.push(path.to_owned());
        }
        Self {
            generator: GENERATOR.into(),
            kind,
            files: listed,
            made_from,
        }
    }

    /// The hashes of the bytes and the inputs of the page at `path`, if recorded.
    pub fn made_from(&self, path: &str) -> Option<(u128, u128)> {
        let (content, input) = self.made_from.get(path)?.split_once(' ')?;
        let hex = |digits: &str| {
            (digits.len() == 32 && digits.bytes().all(|b| b.is_ascii_hexdigit()))
                .then(|| u128::from_str_radix(digits, 16).ok())
                .flatten()
        };
        Some((hex(content)?, hex(input)?))
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
    fn hashes_read_back_and_damaged_ones_are_none_with_the_marker_still_read() {
        let marker = Marker::new(
            FolderKind::Site,
            [("a.html", Some((7, u128::MAX))), ("b.ics", None)].into_iter(),
        );
        let marker: Marker = serde_json::from_slice(&marker.to_json()).unwrap();
        assert_eq!(marker.made_from("a.html"), Some((7, u128::MAX)));
        assert_eq!(marker.made_from("b.ics"), None);
        let read = |made_from: &str| {
            let json =
                format!(r#"{{"generator": "x", "files": ["a.html"], "made_from": {made_from}}}"#);
            serde_json::from_str::<Marker>(&json)
                .unwrap()
                .made_from("a.html")
        };
        let good = format!("{:032x} {:032x}", 1, 2);
        assert_eq!(read(&format!(r#"{{"a.html": "{good}"}}"#)), Some((1, 2)));
        for damaged in [
            format!(r#"{{"a.html": "{}"}}"#, &good[1..]),
            format!(r#"{{"a.html": "+{}"}}"#, &good[1..]),
            r#"{"a.html": 7}"#.to_owned(),
            "[1, 2]".to_owned(),
            "null".to_owned(),
        ] {
            assert_eq!(read(&damaged), None, "{damaged}");
        }
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
