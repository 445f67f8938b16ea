//! The ownership marker: which files in a folder this tool wrote, and what the folder holds.
//! A path the marker does not list belongs to the webmaster. Each file it lists may have a
//! stamp ([`super::stamp`]) that lets the next build keep it without reading it.

use super::stamp::Stamp;
use anyhow::Context;
use serde::de::IgnoredAny;
use std::collections::HashMap;
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
    /// Sorted as [`Marker::new`] writes them. Read as they are listed: a marker edited by hand
    /// may repeat one.
    pub files: Vec<String>,
    /// The stamp of each file in `files`, in the same order, `""` for none. A marker written
    /// before stamps has none, and one whose count differs from the files' is not trusted.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "write_stamps",
        deserialize_with = "any_stamps"
    )]
    pub stamps: Vec<Option<Stamp>>,
}

fn write_stamps<S: serde::Serializer>(
    stamps: &[Option<Stamp>],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(
        stamps
            .iter()
            .map(|stamp| stamp.map_or_else(String::new, |stamp| stamp.encode())),
    )
}

/// Stamps only spare work: a `stamps` that is not a list (a marker edited by hand) reads as
/// none, an entry that is not a stamp as that file's none, and the marker is still read,
/// where any other damage makes it unreadable. Each stamp is decoded from the marker's text
/// as it is read, without a copy (a large site's marker holds 40,000).
fn any_stamps<'de, D: serde::Deserializer<'de>>(stamps: D) -> Result<Vec<Option<Stamp>>, D::Error> {
    stamps.deserialize_any(StampList)
}

/// Reads the list of stamps.
struct StampList;

/// Reads one entry of the list: a stamp if it is one.
struct StampEntry;

impl<'de> serde::Deserialize<'de> for StampOrNone {
    fn deserialize<D: serde::Deserializer<'de>>(entry: D) -> Result<Self, D::Error> {
        entry.deserialize_any(StampEntry).map(StampOrNone)
    }
}

struct StampOrNone(Option<Stamp>);

/// The visits of any other JSON value than the one a visitor reads: it stands for nothing
/// (`Default`), and a list or an object in it is read through, unlooked at.
macro_rules! anything_else_is_nothing {
    () => {
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Self::Value::default())
        }

        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Self::Value::default())
        }

        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Self::Value::default())
        }

        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Self::Value::default())
        }

        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Self::Value::default())
        }

        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(Self::Value::default())
        }
    };
}

impl<'de> serde::de::Visitor<'de> for StampList {
    type Value = Vec<Option<Stamp>>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut stamps = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(StampOrNone(stamp)) = seq.next_element()? {
            stamps.push(stamp);
        }
        Ok(stamps)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }

    anything_else_is_nothing!();
}

impl<'de> serde::de::Visitor<'de> for StampEntry {
    type Value = Option<Stamp>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Stamp::decode(text))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    anything_else_is_nothing!();
}

fn site_kind() -> FolderKind {
    FolderKind::Site
}

impl Marker {
    /// A marker listing `files`, each with its stamp (or none). They come sorted, each once.
    pub fn new(kind: FolderKind, files: impl Iterator<Item = (String, Option<Stamp>)>) -> Self {
        let (files, mut stamps): (Vec<String>, Vec<Option<Stamp>>) = files.unzip();
        debug_assert!(
            files.is_sorted_by(|a, b| a < b),
            "listed in order, each once"
        );
        if stamps.iter().all(Option::is_none) {
            stamps.clear();
        }
        Self {
            generator: GENERATOR.into(),
            kind,
            files,
            stamps,
        }
    }

    /// The files listed, each with its stamp if one reads, and whether every file is listed
    /// once with a stamp: a marker this version would write again byte for byte if nothing
    /// changed. Stamps that do not pair with the files one to one (a marker edited by hand)
    /// are all ignored.
    pub fn into_files(self) -> (HashMap<String, Option<Stamp>>, bool) {
        let count = self.files.len();
        let paired = self.stamps.len() == count;
        let mut stamps = self.stamps.into_iter();
        let files: HashMap<String, Option<Stamp>> = self
            .files
            .into_iter()
            .map(|file| (file, stamps.next().flatten().filter(|_| paired)))
            .collect();
        let whole = paired
            && self.generator == GENERATOR
            && files.len() == count
            && files.values().all(Option::is_some);
        (files, whole)
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
    fn stamps_that_do_not_read_are_none_and_the_marker_still_reads() {
        let stamp = "12 1795176000 5 77 000102030405060708090a0b0c0d0e0f";
        let read = |stamps: &str| {
            let json = format!(
                r#"{{"generator": "vatcar-site 0.1.0", "kind": "site",
                    "files": ["a.html", "b.html", "c.html"], "stamps": {stamps}}}"#
            );
            let marker: Marker = serde_json::from_str(&json).unwrap();
            assert_eq!(marker.files.len(), 3);
            let (files, whole) = marker.into_files();
            let mut stamps: Vec<_> = files
                .into_iter()
                .filter_map(|(file, stamp)| stamp.map(|_| file))
                .collect();
            stamps.sort();
            assert_eq!(whole, stamps.len() == 3);
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
        for other in [
            "null",
            "true",
            "-1.5",
            "[]",
            r#"["{stamp}"]"#,
            r#"{"stamp": "{stamp}"}"#,
        ] {
            let other = other.replace("{stamp}", stamp);
            assert_eq!(
                read(&format!(r#"["{stamp}", {other}, "{stamp}"]"#)),
                ["a.html", "c.html"],
                "{other}"
            );
        }
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
