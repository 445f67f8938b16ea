//! `data/changes.json` as `build` writes it, read as untrusted input: a file in an output
//! folder may be an old one, a hand-edited one or another program's. It is refused whole,
//! before anything is posted, when it is too large or does not match the schema
//! (docs/discord.md; the full schema is the build's, in docs/).
//!
//! Fields this version does not know are ignored, so that a newer build's additions do not
//! stop an older announce.

use crate::model::previous::KINDS;
use crate::plain_files::{Plain, read_plain_at_most};
use crate::sanitize::quote::excerpt;
use anyhow::{Context, Result, bail};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use std::path::Path;

/// Where the build writes the file, below the output folder.
pub const PATH: &str = "data/changes.json";

/// The largest file read: the same bound the build puts on it when it reads it back as its
/// previous state. The file also holds what the next build compares with (every event's and
/// document's fingerprint), which grows with the facility.
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// The longest history a build keeps (issue 25: `whats_new_days` or 200 entries).
pub const MAX_CHANGES: usize = 200;

/// The version of the format this program reads.
const VERSION: u32 = 1;

/// What a build found: data/changes.json, as announce reads it.
#[derive(Debug, Deserialize)]
pub struct Changes {
    version: u32,
    /// When the build was made.
    #[serde(deserialize_with = "rfc3339")]
    pub generated: DateTime<Utc>,
    /// The site's address, when the build knew it.
    pub site_url: Option<String>,
    /// Whether the build had no previous state: then every entry looks new.
    pub first_build: bool,
    pub changes: Vec<Change>,
    /// The last full month's activity summary, when the build wrote one
    /// (`[activity] monthly_summary`).
    #[serde(default, rename = "activity_month")]
    pub summary: Option<Summary>,
}

/// `activity_month`, as announce posts it: the build wrote its text in the site's language.
#[derive(Debug, Clone, Deserialize)]
pub struct Summary {
    /// `2026-11`.
    pub month: String,
    pub title: String,
    /// Lines of plain text.
    pub text: String,
    /// Not the previous build's month: posted once, as a change is.
    pub new: bool,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Change {
    pub id: String,
    /// One of [`KINDS`], as [`crate::model::previous::ChangeId::kind`] names them.
    #[serde(deserialize_with = "kind")]
    pub kind: String,
    #[serde(deserialize_with = "rfc3339")]
    pub date: DateTime<Utc>,
    pub title: String,
    pub url: String,
    pub new: bool,
}

fn kind<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let text = String::deserialize(d)?;
    match KINDS.contains(&text.as_str()) {
        true => Ok(text),
        false => Err(serde::de::Error::unknown_variant(&text, &KINDS)),
    }
}

fn rfc3339<'de, D: serde::Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
    let text = String::deserialize(d)?;
    DateTime::parse_from_rfc3339(&text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| {
            serde::de::Error::custom(format!(
                "{:?} is not an RFC 3339 time (such as \"2026-11-20T18:00:00Z\")",
                excerpt(&text, 60)
            ))
        })
}

/// The changes file of the site built into `output`, each change once.
pub fn read(output: &Path) -> Result<Changes> {
    let path = output.join(PATH);
    let bytes = read_capped(output)?;
    let mut read = parse(&bytes).with_context(|| {
        format!(
            "{} is not a changes file this vatcar-site can read, so nothing was posted; it is written by `vatcar-site build`: build the site again with this version",
            path.display()
        )
    })?;
    let (once, repeated) = first_of_each(std::mem::take(&mut read.changes));
    read.changes = once;
    if !repeated.is_empty() {
        let named =
            (repeated.iter()).map(|(id, times)| format!("{:?} {times} times", excerpt(id, 80)));
        log::warn!(
            "{} lists the same change more than once ({}); only the first entry of each is read: a build lists each change once, so build the site again to replace the file",
            path.display(),
            crate::sanitize::quote::first_few(named, 10)
        );
    }
    Ok(read)
}

/// `changes` with only the first entry of each id, and the ids listed more than once, each
/// with how many times, in the order they first appear. A change is one thing that happened:
/// posting it twice in one run would announce it twice.
fn first_of_each(changes: Vec<Change>) -> (Vec<Change>, Vec<(String, usize)>) {
    // Each id with how many times it is listed; at most MAX_CHANGES, as parse checked.
    let mut times: Vec<(String, usize)> = Vec::new();
    let mut once = Vec::with_capacity(changes.len());
    for change in changes {
        match times.iter_mut().find(|(id, _)| *id == change.id) {
            Some((_, seen)) => *seen += 1,
            None => {
                times.push((change.id.clone(), 1));
                once.push(change);
            }
        }
    }
    times.retain(|(_, seen)| *seen > 1);
    (once, times)
}

/// The file's bytes, read as the build reads the files it reads back: never through a link
/// (which could lead to any file on the machine) nor from a named pipe or a device (which
/// would never end).
fn read_capped(output: &Path) -> Result<Vec<u8>> {
    let path = output.join(PATH);
    match read_plain_at_most(output, PATH, MAX_BYTES)? {
        Plain::TooLarge => bail!(
            "{} is over {} MiB, far more than a build writes; nothing was posted: build the site again to replace it",
            path.display(),
            MAX_BYTES / (1024 * 1024)
        ),
        Plain::File(bytes) => Ok(bytes),
        Plain::Missing => bail!(
            "{} does not exist: announce posts what `vatcar-site build` recorded there; build the site into that folder first (or pass the folder it was built into with --output)",
            path.display()
        ),
        Plain::NotPlain { path, is, expected } => bail!(
            "{} is {is}, not a plain {expected}; announce reads only the file `vatcar-site build` wrote there, never through a link or from a special file, so nothing was posted: build the site again into this folder, or pass the folder it was built into with --output",
            path.display()
        ),
    }
}

/// The file's bytes checked against the schema; an error names the field and the line.
fn parse(bytes: &[u8]) -> Result<Changes> {
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let file: Changes = serde_path_to_error::deserialize(&mut json).map_err(|error| {
        let field = error.path().to_string();
        let inner = error.into_inner();
        let place = format!("line {}", inner.line());
        // serde_json ends its message with the place, which goes first here.
        let text = inner.to_string();
        let position = format!(" at line {} column {}", inner.line(), inner.column());
        let reason = excerpt(text.strip_suffix(&position).unwrap_or(&text), 300);
        if field == "." {
            anyhow::anyhow!("{place}: {reason}")
        } else {
            anyhow::anyhow!("{place}: {field}: {reason}")
        }
    })?;
    // A build writes one JSON value and nothing after it; more is another program's doing.
    if let Err(error) = json.end() {
        bail!(
            "line {}: text after the end of the JSON; a changes file holds one JSON object and nothing after it",
            error.line()
        );
    }
    if file.version != VERSION {
        bail!(
            "version: {} is not a version this vatcar-site reads (it reads {VERSION}); use the same vatcar-site version for build and announce",
            file.version
        );
    }
    if file.changes.len() > MAX_CHANGES {
        bail!(
            "changes: {} entries, more than the {MAX_CHANGES} a build keeps",
            file.changes.len()
        );
    }
    for (index, change) in file.changes.iter().enumerate() {
        if change.id.trim().is_empty() {
            bail!("changes[{index}].id: empty; every change has an id");
        }
        if change.title.trim().is_empty() {
            bail!("changes[{index}].title: empty; every change has a title");
        }
    }
    if let Some(summary) = &file.summary {
        let month = chrono::NaiveDate::parse_from_str(&format!("{}-01", summary.month), "%Y-%m-%d");
        if summary.month.len() != 7 || month.is_err() {
            bail!("activity_month.month: not a month written YYYY-MM, as a build writes it");
        }
        if summary.title.trim().is_empty() {
            bail!("activity_month.title: empty; a build writes the summary's title");
        }
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(changes: &str) -> String {
        format!(
            r#"{{"version": 1, "generated": "2026-11-20T18:00:00Z", "site_url": null,
                "language": "en", "first_build": false, "changes": [{changes}]}}"#
        )
    }

    const ONE: &str = r#"{"id": "promotion:1:S2", "kind": "promotion",
        "date": "2026-11-19T12:00:00+02:00", "title": "A is now S2", "url": "roster/",
        "new": true, "added_later": [1, 2]}"#;

    #[test]
    fn the_builds_format_is_read_with_fields_it_does_not_know() {
        let read = parse(file(ONE).as_bytes()).unwrap();
        assert!(!read.first_build);
        assert_eq!(read.changes.len(), 1);
        assert_eq!(read.changes[0].kind, "promotion");
        assert_eq!(
            read.changes[0].date.to_rfc3339(),
            "2026-11-19T10:00:00+00:00"
        );
    }

    #[test]
    fn a_mistake_is_named_by_its_field_and_line() {
        let wrong_kind = file(&ONE.replace("\"promotion\",", "\"demotion\","));
        let message = format!("{:#}", parse(wrong_kind.as_bytes()).unwrap_err());
        assert!(
            message.starts_with("line 2: changes[0].kind: unknown variant `demotion`"),
            "{message}"
        );
        let wrong_type = file(&ONE.replace("\"new\": true", "\"new\": \"yes\""));
        let message = format!("{:#}", parse(wrong_type.as_bytes()).unwrap_err());
        assert!(
            message.contains("changes[0].new: invalid type: string \"yes\", expected a boolean")
        );
        let bad_date = file(&ONE.replace("2026-11-19T12:00:00+02:00", "yesterday"));
        let message = format!("{:#}", parse(bad_date.as_bytes()).unwrap_err());
        assert!(message.contains("changes[0].date: \"yesterday\" is not an RFC 3339 time"));
        let newer = file(ONE).replace("\"version\": 1", "\"version\": 2");
        let message = format!("{:#}", parse(newer.as_bytes()).unwrap_err());
        assert!(message.starts_with("version: 2 is not a version this vatcar-site reads"));
        let no_flag = file(ONE).replace("\"first_build\": false,", "");
        let message = format!("{:#}", parse(no_flag.as_bytes()).unwrap_err());
        assert!(message.contains("missing field `first_build`"), "{message}");
    }

    #[test]
    fn a_change_listed_again_is_kept_once_as_first_listed() {
        let entry = |id: &str, title: &str| {
            ONE.replace("promotion:1:S2", id)
                .replace("A is now S2", title)
        };
        let listed = [
            entry("a", "first"),
            entry("b", "b"),
            entry("a", "second"),
            entry("c", "c"),
            entry("b", "b again"),
            entry("a", "third"),
        ];
        let read = parse(file(&listed.join(",")).as_bytes()).unwrap();
        let (once, repeated) = first_of_each(read.changes);
        let titles: Vec<&str> = once.iter().map(|c| c.title.as_str()).collect();
        assert_eq!(titles, ["first", "b", "c"]);
        assert_eq!(repeated, [("a".to_owned(), 3), ("b".to_owned(), 2)]);
    }

    #[test]
    fn text_after_the_json_is_refused_naming_its_line() {
        // The object ends on line 4.
        for (after, line) in [("garbage", 4), ("{}", 4), ("\n\n,", 6)] {
            let message = format!("{:#}", parse((file(ONE) + after).as_bytes()).unwrap_err());
            assert!(
                message.starts_with(&format!("line {line}: text after the end of the JSON")),
                "{after:?}: {message}"
            );
        }
        // White space after it is no text.
        assert!(parse((file(ONE) + "\n \t\r\n").as_bytes()).is_ok());
    }

    #[test]
    fn more_entries_than_a_build_keeps_are_refused() {
        let many = vec![ONE; MAX_CHANGES + 1].join(",");
        let message = format!("{:#}", parse(file(&many).as_bytes()).unwrap_err());
        assert_eq!(
            message,
            "changes: 201 entries, more than the 200 a build keeps"
        );
    }
}
