//! The ownership marker: which files in a folder this tool wrote, and what the folder holds.
//! A path the marker does not list belongs to the webmaster. Each file it lists may have a
//! stamp ([`super::stamp`]) that lets the next build keep it without reading it.

use super::stamp::Stamp;
use anyhow::Context;
use std::collections::{BTreeMap, BTreeSet};
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
    pub files: BTreeSet<String>,
    /// The stamp of each file in `files`, in the same order, `""` for none. A marker written
    /// before stamps has none, and one whose count differs from the files' is not trusted.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "any_stamps"
    )]
    pub stamps: Vec<String>,
}

/// Stamps only spare work: a `stamps` that is not a list of strings (a marker edited by hand)
/// reads as none, an entry that is not a string as that file's none, and the marker is still
/// read, where any other damage makes it unreadable.
fn any_stamps<'de, D: serde::Deserializer<'de>>(stamps: D) -> Result<Vec<String>, D::Error> {
    use serde::Deserialize;
    use serde_json::Value;
    Ok(match Value::deserialize(stamps)? {
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::String(stamp) => stamp,
                _ => String::new(),
            })
            .collect(),
        _ => Vec::new(),
    })
}

fn site_kind() -> FolderKind {
    FolderKind::Site
}

impl Marker {
    /// A marker listing `files`, with `stamp` giving the stamp of each (or none).
    pub fn new(
        kind: FolderKind,
        files: BTreeSet<String>,
        stamp: impl Fn(&str) -> Option<Stamp>,
    ) -> Self {
        let mut stamps: Vec<String> = files
            .iter()
            .map(|file| stamp(file).map_or_else(String::new, |s| s.encode()))
            .collect();
        if stamps.iter().all(String::is_empty) {
            stamps.clear();
        }
        Self {
            generator: GENERATOR.into(),
            kind,
            files,
            stamps,
        }
    }

    /// Whether this version wrote the marker: one that lists the same files with the same
    /// stamps would be written again byte for byte.
    pub fn written_by_this_version(&self) -> bool {
        self.generator == GENERATOR
    }

    /// The stamps that read, by file (a map built in one pass from the files' order, without
    /// hashing). Stamps that do not pair with the files one to one (a marker edited by hand)
    /// are all ignored.
    pub fn take_stamps(&mut self) -> BTreeMap<String, Stamp> {
        let stamps = std::mem::take(&mut self.stamps);
        if stamps.len() != self.files.len() {
            return BTreeMap::new();
        }
        self.files
            .iter()
            .zip(&stamps)
            .filter_map(|(file, text)| Some((file.clone(), Stamp::decode(text)?)))
            .collect()
    }

    /// The marker of `dir`, if it has one. A marker that does not read is an error: the folder
    /// cannot be told apart from a foreign one.
    pub fn read(dir: &Path) -> anyhow::Result<Option<Marker>> {
        Ok(Self::read_with_bytes(dir)?.map(|(marker, _)| marker))
    }

    /// [`Marker::read`], with the file's bytes, to tell later whether it changes.
    pub fn read_with_bytes(dir: &Path) -> anyhow::Result<Option<(Marker, Vec<u8>)>> {
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

    /// Why two kinds stay apart, in the words a webmaster needs.
    pub(super) fn apart_advice(this: Self, other: Self) -> &'static str {
        if this == Self::Site || other == Self::Site {
            "reports and snapshots hold private data (email addresses, contact details) and \
             would be published with the site; keep them in a folder outside it"
        } else {
            "choose another folder"
        }
    }
}

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
            let json =
                String::from_utf8(Marker::new(kind, BTreeSet::new(), |_| None).to_json()).unwrap();
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
    fn stamps_that_do_not_read_are_none_and_the_marker_still_reads() {
        let stamp = "12 1795176000 5 77 000102030405060708090a0b0c0d0e0f";
        let read = |stamps: &str| {
            let json = format!(
                r#"{{"generator": "vatcar-site 0.1.0", "kind": "site",
                    "files": ["a.html", "b.html", "c.html"], "stamps": {stamps}}}"#
            );
            let mut marker: Marker = serde_json::from_str(&json).unwrap();
            assert_eq!(marker.files.len(), 3);
            let mut stamps: Vec<_> = marker.take_stamps().into_keys().collect();
            stamps.sort();
            stamps
        };
        let whole = format!(r#"["{stamp}", "{stamp}", "{stamp}"]"#);
        assert_eq!(read(&whole), ["a.html", "b.html", "c.html"]);
        // One entry damaged, or not a string: only that file loses its stamp.
        assert_eq!(
            read(&format!(
                r#"["{stamp}", "{}g", "{stamp}"]"#,
                &stamp[..stamp.len() - 1]
            )),
            ["a.html", "c.html"]
        );
        assert_eq!(
            read(&format!(r#"["{stamp}", 7, "{stamp}"]"#)),
            ["a.html", "c.html"]
        );
        // One entry missing: which stamp is whose is lost, and so are all.
        assert!(read(&format!(r#"["{stamp}", "{stamp}"]"#)).is_empty());
        assert!(read(r#"{"a.html": 1}"#).is_empty());
        assert!(read("null").is_empty());
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
