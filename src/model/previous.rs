//! The previous build's state, read back from its `data/roster.json` and `data/changes.json`
//! to find what changed since (see `view::whats_new`).
//!
//! Those files are untrusted: a stale site, someone else's, or a tampered copy. Only what a
//! comparison needs is taken from them, typed and checked: CIDs, ratings, change ids, dates
//! and fingerprints. No text of theirs (a name, a title) is kept, so none can be published.
//! A file that does not have the documented shape is refused whole, and the build goes on
//! as a first build.

use super::{Rating, Roster};
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The `version` of the files this program writes and reads.
pub const DATA_VERSION: u64 = 1;

/// The most change ids a previous changes.json may hold: far more than a build writes
/// (`view::whats_new` keeps 200), little enough to compare quickly.
const MAX_CHANGES: usize = 10_000;

/// Whose data made a build: a build compares only with one made from the same, so that the
/// demo, or another facility's site, built into the same output folder first is never taken
/// for this site's day before (its members "new", its events announced).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// The facility the roster names: its id, else its short name, else its long name;
    /// `None` when the roster names none.
    pub facility: Option<String>,
    /// Made from the demo's data.
    pub demo: bool,
}

impl Origin {
    pub fn of(roster: &Roster, demo: bool) -> Origin {
        let facility = roster.facility.as_ref().and_then(|facility| {
            (facility.id.map(|id| id.to_string()))
                .or_else(|| facility.short_name.clone())
                .or_else(|| facility.long_name.clone())
        });
        Origin { facility, demo }
    }

    /// Why a build made from `self` is not to be compared with one made from `previous`, if
    /// it is not; the reason goes into a warning, so it quotes nothing of the file's. A
    /// previous build that says nothing of its origin (made before it was written) is
    /// compared with, as it was then; a facility unknown on either side is no difference.
    pub fn differs_from(&self, previous: &Option<Origin>) -> Option<&'static str> {
        let previous = previous.as_ref()?;
        match (previous.demo, self.demo, &previous.facility, &self.facility) {
            (true, false, ..) => Some("was made from the demo's data"),
            (false, true, ..) => Some("was made from a facility's data, not the demo's"),
            (.., Some(then), Some(now)) if then != now => {
                Some("was made from another facility's data")
            }
            _ => None,
        }
    }
}

/// What the previous build published, as far as a comparison needs it.
#[derive(Clone, Debug, Default)]
pub struct Previous {
    /// Whose data made it; `None` when its changes.json does not say (an older build).
    pub origin: Option<Origin>,
    /// When it was built: only a session that began after it is a first session found since
    /// (`view::whats_new`).
    pub generated: Option<DateTime<Utc>>,
    /// The month of the activity summary it carried (`[activity] monthly_summary`), if it
    /// carried one: a summary of another month is new to `announce`.
    pub summary_month: Option<NaiveDate>,
    /// Its roster, by CID; `None` when it published none (the roster section was off).
    pub members: Option<HashMap<u64, PreviousMember>>,
    /// The changes it listed, as ids and dates.
    pub changes: Vec<(ChangeId, DateTime<Utc>)>,
    /// Every id it listed, the ones this program cannot read back too: a change already
    /// announced is never new again.
    pub listed: HashSet<String>,
    /// Each event's fingerprint, by its page's folder name (`412`, `412-division`).
    pub events: HashMap<String, String>,
    /// Each document's last update (`None` when it had no date), by document id.
    pub documents: HashMap<String, Option<NaiveDate>>,
    /// The fingerprint of each document's address, by document id: how a renamed document
    /// is told from a new one. Empty when the previous build was made before it was kept.
    pub document_links: HashMap<String, String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PreviousMember {
    pub visitor: bool,
    pub rating: Option<Rating>,
    /// The rating the previous build listed this member as promoted from (to `rating`), if
    /// it listed a promotion of theirs.
    pub promoted_from: Option<Rating>,
}

/// A change's stable id: the same change gets the same id on every build, so that a reader
/// of changes.json (and `announce`) can tell a change it has seen from a new one.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ChangeId {
    NewMember(u64),
    NewVisitor(u64),
    /// A member's first session at the facility (by `[activity]`'s rule), by CID.
    FirstSession(u64),
    /// The CID and the rating reached.
    Promotion(u64, Rating),
    /// The event page's folder name: `412`, `412-division`.
    NewEvent(String),
    /// The folder name and the fingerprint of the new time and name.
    EventChanged(String, String),
    NewDocument(String),
    /// The document id and its new date.
    DocumentUpdated(String, NaiveDate),
    /// The document's new id (its name or category changed, its address did not).
    DocumentRenamed(String),
}

/// Every kind a change can be, as changes.json names them ([`ChangeId::kind`]): what
/// `announce` accepts.
pub const KINDS: [&str; 9] = [
    "new_member",
    "new_visitor",
    "first_session",
    "promotion",
    "new_event",
    "event_changed",
    "new_document",
    "document_updated",
    "document_renamed",
];

impl ChangeId {
    /// The kind, as changes.json names it.
    pub fn kind(&self) -> &'static str {
        match self {
            ChangeId::NewMember(_) => "new_member",
            ChangeId::NewVisitor(_) => "new_visitor",
            ChangeId::FirstSession(_) => "first_session",
            ChangeId::Promotion(..) => "promotion",
            ChangeId::NewEvent(_) => "new_event",
            ChangeId::EventChanged(..) => "event_changed",
            ChangeId::NewDocument(_) => "new_document",
            ChangeId::DocumentUpdated(..) => "document_updated",
            ChangeId::DocumentRenamed(_) => "document_renamed",
        }
    }

    /// Read back from its text; `None` for anything this program does not write (a later
    /// version's kind, or a tampered id).
    pub fn parse(text: &str) -> Option<ChangeId> {
        let mut parts = text.split(':');
        let kind = parts.next()?;
        let first = parts.next()?;
        let second = parts.next();
        if parts.next().is_some() {
            return None;
        }
        let cid = || first.parse::<u64>().ok().filter(|_| is_digits(first));
        let id = match (kind, second) {
            ("new_member", None) => ChangeId::NewMember(cid()?),
            ("new_visitor", None) => ChangeId::NewVisitor(cid()?),
            ("first_session", None) => ChangeId::FirstSession(cid()?),
            // A build lists promotions to controller ratings only: one to SUS, INA or OBS
            // is a tampered id, and would say a private fact.
            ("promotion", Some(code)) => {
                let rating = exact_rating(code).filter(|r| r.is_controller())?;
                ChangeId::Promotion(cid()?, rating)
            }
            ("new_event", None) if is_event_folder(first) => ChangeId::NewEvent(first.into()),
            ("event_changed", Some(print)) if is_event_folder(first) && is_hex(print) => {
                ChangeId::EventChanged(first.into(), print.into())
            }
            ("new_document", None) if is_document_id(first) => ChangeId::NewDocument(first.into()),
            ("document_updated", Some(date)) if is_document_id(first) => {
                ChangeId::DocumentUpdated(first.into(), parse_date(date)?)
            }
            ("document_renamed", None) if is_document_id(first) => {
                ChangeId::DocumentRenamed(first.into())
            }
            _ => return None,
        };
        Some(id)
    }
}

impl std::fmt::Display for ChangeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = self.kind();
        match self {
            ChangeId::NewMember(cid) | ChangeId::NewVisitor(cid) | ChangeId::FirstSession(cid) => {
                write!(f, "{kind}:{cid}")
            }
            ChangeId::Promotion(cid, rating) => write!(f, "{kind}:{cid}:{}", rating.code()),
            ChangeId::NewEvent(id) | ChangeId::NewDocument(id) | ChangeId::DocumentRenamed(id) => {
                write!(f, "{kind}:{id}")
            }
            ChangeId::EventChanged(id, print) => write!(f, "{kind}:{id}:{print}"),
            ChangeId::DocumentUpdated(id, date) => {
                write!(f, "{kind}:{id}:{}", date.format("%Y-%m-%d"))
            }
        }
    }
}

/// A rating as a build writes its code (`S2`, never `s2` nor ` S2`): a code spelt otherwise
/// was not written by a build.
fn exact_rating(code: &str) -> Option<Rating> {
    Rating::from_code(code).filter(|r| r.code() == code)
}

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.len() <= 20 && text.bytes().all(|b| b.is_ascii_digit())
}

fn is_hex(text: &str) -> bool {
    text.len() == 16 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// `412` or `412-division`.
fn is_event_folder(text: &str) -> bool {
    is_digits(text.strip_suffix("-division").unwrap_or(text))
}

/// `doc-` and a fingerprint (see `view::whats_new`).
fn is_document_id(text: &str) -> bool {
    text.strip_prefix("doc-").is_some_and(is_hex)
}

fn parse_date(text: &str) -> Option<NaiveDate> {
    (text.len() == 10)
        .then(|| NaiveDate::parse_from_str(text, "%Y-%m-%d").ok())
        .flatten()
}

/// data/roster.json, as far as it is read: who was on it, with which rating.
#[derive(Deserialize)]
struct RosterFile {
    version: u64,
    controllers: Vec<PersonFile>,
    visitors: Vec<PersonFile>,
}

#[derive(Deserialize)]
struct PersonFile {
    cid: u64,
    rating: Option<String>,
    promoted_from: Option<String>,
}

/// data/changes.json, as far as it is read.
#[derive(Deserialize)]
struct ChangesFile {
    version: u64,
    origin: Option<Origin>,
    /// Always written; a file without it is read as if nothing told its time.
    generated: Option<String>,
    /// Written with `[activity] monthly_summary` on.
    activity_month: Option<SummaryFile>,
    changes: Vec<ChangeFile>,
    state: StateFile,
}

/// data/changes.json's `activity_month`, as far as it is read: its month.
#[derive(Deserialize)]
struct SummaryFile {
    month: String,
}

#[derive(Deserialize)]
struct ChangeFile {
    id: String,
    date: String,
}

#[derive(Deserialize)]
struct StateFile {
    events: BTreeMap<String, String>,
    documents: BTreeMap<String, Option<String>>,
    /// Written since renamed documents are told apart: an earlier build's file has none.
    #[serde(default)]
    document_links: BTreeMap<String, String>,
}

/// The previous build's files decoded; an error says which file and what is wrong with it.
/// `roster` is `None` when the previous build published no roster.
pub fn decode_previous(changes: &[u8], roster: Option<&[u8]>) -> Result<Previous, String> {
    let changes_file: ChangesFile = from_json(changes, "data/changes.json")?;
    check_version(changes_file.version, "data/changes.json")?;
    if changes_file.changes.len() > MAX_CHANGES {
        return Err(format!(
            "data/changes.json: {} changes, more than the {MAX_CHANGES} a build writes",
            changes_file.changes.len()
        ));
    }
    let (generated, summary_month) = when(&changes_file)?;
    let mut previous = Previous {
        origin: changes_file.origin,
        generated,
        summary_month,
        ..Previous::default()
    };
    for (n, change) in changes_file.changes.into_iter().enumerate() {
        let date = DateTime::parse_from_rfc3339(&change.date)
            .map_err(|_| format!("data/changes.json: changes[{n}].date is not an RFC 3339 time"))?
            .with_timezone(&Utc);
        if let Some(id) = ChangeId::parse(&change.id) {
            previous.changes.push((id, date));
        }
        previous.listed.insert(change.id);
    }
    for (folder, print) in changes_file.state.events {
        if !is_event_folder(&folder) || !is_hex(&print) {
            return Err(format!(
                "data/changes.json: state.events has an entry that is not an event's folder and fingerprint (at {:?})",
                crate::sanitize::quote::excerpt(&folder, 40)
            ));
        }
        previous.events.insert(folder, print);
    }
    for (id, date) in changes_file.state.documents {
        let date = (date.map(|text| parse_date(&text)))
            .map(|date| {
                date.ok_or("data/changes.json: state.documents has a date that is not YYYY-MM-DD")
            })
            .transpose()?;
        if !is_document_id(&id) {
            return Err(
                "data/changes.json: state.documents has a key that is not a document id".into(),
            );
        }
        previous.documents.insert(id, date);
    }
    for (id, print) in changes_file.state.document_links {
        if !is_document_id(&id) || !is_hex(&print) {
            return Err(
                "data/changes.json: state.document_links has an entry that is not a document id and fingerprint".into(),
            );
        }
        previous.document_links.insert(id, print);
    }
    if let Some(roster) = roster {
        let roster: RosterFile = from_json(roster, "data/roster.json")?;
        check_version(roster.version, "data/roster.json")?;
        let mut members = HashMap::with_capacity(roster.controllers.len() + roster.visitors.len());
        let lists = [
            ("controllers", false, roster.controllers),
            ("visitors", true, roster.visitors),
        ];
        for (list, visitor, people) in lists {
            for (n, person) in people.into_iter().enumerate() {
                let rating = person.rating.as_deref().and_then(Rating::from_code);
                // Kept strict, unlike `rating` (which a build writes as `Unknown (13)` for a
                // number the network has not defined): a build writes it only beside a
                // promotion it lists, and the next build trusts it to carry that promotion.
                let promoted_from = match person.promoted_from.as_deref() {
                    None => None,
                    Some(code) => Some(exact_rating(code).ok_or_else(|| {
                        format!("data/roster.json: {list}[{n}].promoted_from is not a rating")
                    })?),
                };
                members.entry(person.cid).or_insert(PreviousMember {
                    visitor,
                    rating,
                    promoted_from,
                });
            }
        }
        previous.members = Some(members);
    }
    Ok(previous)
}

/// The build's time and its activity summary's month (its first day), where it has them.
fn when(file: &ChangesFile) -> Result<(Option<DateTime<Utc>>, Option<NaiveDate>), String> {
    let generated = (file.generated.as_deref())
        .map(|text| DateTime::parse_from_rfc3339(text).map(|time| time.to_utc()))
        .transpose()
        .map_err(|_| "data/changes.json: generated is not an RFC 3339 time")?;
    let summary_month = (file.activity_month.as_ref())
        .map(|summary| parse_date(&format!("{}-01", summary.month)))
        .map(|month| month.ok_or("data/changes.json: activity_month.month is not YYYY-MM"))
        .transpose()?;
    Ok((generated, summary_month))
}

fn from_json<'a, T: Deserialize<'a>>(bytes: &'a [u8], file: &str) -> Result<T, String> {
    // Bytes that are not UTF-8 are no JSON either, as serde_json would say of them.
    let text = std::str::from_utf8(bytes).map_err(|_| format!("{file} is not valid JSON"))?;
    super::json_path::from_str_with_path(text).map_err(|error| {
        let path = error.path().to_string();
        // serde's message can quote a value of the file: only its kind is said.
        let what = match error.inner().classify() {
            serde_json::error::Category::Data => "has the wrong type or is missing",
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                "is not valid JSON"
            }
            serde_json::error::Category::Io => "could not be read",
        };
        match error.inner().classify() {
            serde_json::error::Category::Data if path != "." => format!("{file}: {path} {what}"),
            _ => format!("{file} {what}"),
        }
    })
}

fn check_version(version: u64, file: &str) -> Result<(), String> {
    if version == DATA_VERSION {
        Ok(())
    } else {
        Err(format!(
            "{file} is version {version}; this program reads version {DATA_VERSION}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::{ChangeId, decode_previous};
    use crate::model::Rating;

    #[test]
    fn an_id_reads_back_as_it_was_written_and_nothing_else_does() {
        let ids = [
            ChangeId::NewMember(1234567),
            ChangeId::NewVisitor(7),
            ChangeId::FirstSession(1234567),
            ChangeId::Promotion(1234567, Rating::S2),
            ChangeId::NewEvent("412-division".into()),
            ChangeId::EventChanged("412".into(), "0123456789abcdef".into()),
            ChangeId::NewDocument("doc-0123456789abcdef".into()),
            ChangeId::DocumentUpdated(
                "doc-0123456789abcdef".into(),
                chrono::NaiveDate::from_ymd_opt(2026, 11, 2).unwrap(),
            ),
            ChangeId::DocumentRenamed("doc-0123456789abcdef".into()),
        ];
        // One of each kind: announce accepts what a build writes.
        assert_eq!(
            ids.iter().map(ChangeId::kind).collect::<Vec<_>>(),
            super::KINDS
        );
        for id in ids {
            assert_eq!(ChangeId::parse(&id.to_string()), Some(id.clone()), "{id}");
        }
        assert_eq!(
            ChangeId::parse("promotion:1234567:S2").unwrap().to_string(),
            "promotion:1234567:S2"
        );
        for bad in [
            "promotion:1:s2",
            "promotion:1:<b>",
            "promotion:1:SUS",
            "promotion:1:INA",
            "promotion:1:OBS",
            "new_member:+1",
            "new_member:1:2",
            "first_session:x",
            "first_session:1:2",
            "new_event:<script>",
            "new_document:doc-XYZ",
            "document_updated:doc-0123456789abcdef:2026-13-01",
            "document_renamed:doc-0123456789abcdef:2026-11-02",
            "document_renamed:doc-XYZ",
            "retired:1",
            "",
        ] {
            assert_eq!(ChangeId::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_file_of_the_wrong_shape_is_refused_naming_the_field_without_quoting_it() {
        let changes = br#"{"version":1,"changes":[{"id":"new_member:1","date":"<b>x</b>"}],
            "state":{"events":{},"documents":{}}}"#;
        let error = decode_previous(changes, None).unwrap_err();
        assert_eq!(
            error,
            "data/changes.json: changes[0].date is not an RFC 3339 time"
        );
        let roster = br#"{"version":1,"controllers":[{"cid":"<img src=x>"}],"visitors":[]}"#;
        let ok = br#"{"version":1,"changes":[],"state":{"events":{},"documents":{}}}"#;
        let error = decode_previous(ok, Some(roster)).unwrap_err();
        assert!(
            error.starts_with("data/roster.json: controllers[0].cid "),
            "{error}"
        );
        assert!(!error.contains("img"), "{error}");
        let error = decode_previous(b"{\"version\": 1,", None).unwrap_err();
        assert_eq!(error, "data/changes.json is not valid JSON");
        // Bytes that are not UTF-8, anywhere in the file.
        let not_utf8 = b"{\"version\":1,\"changes\":[{\"id\":\"new_member:\xff\",\"date\":\"2026-01-01T00:00:00Z\"}],\"state\":{\"events\":{},\"documents\":{}}}";
        let error = decode_previous(not_utf8, None).unwrap_err();
        assert_eq!(error, "data/changes.json is not valid JSON");
    }

    #[test]
    fn a_promoted_from_is_a_rating_as_a_build_writes_it_or_the_roster_is_refused() {
        let changes = br#"{"version":1,"changes":[],"state":{"events":{},"documents":{}}}"#;
        let roster = |from: &str| {
            format!(
                r#"{{"version":1,"controllers":[{{"cid":1,"rating":"C1"}}],
                    "visitors":[{{"cid":2,"rating":"S3","promoted_from":{from}}}]}}"#
            )
        };
        let read = decode_previous(changes, Some(roster(r#""S2""#).as_bytes())).unwrap();
        let members = read.members.unwrap();
        assert_eq!(members[&1].promoted_from, None);
        assert_eq!(members[&2].promoted_from, Some(Rating::S2));
        // Read as any rating: which ones make a promotion is view::whats_new's rule.
        let read = decode_previous(changes, Some(roster(r#""SUS""#).as_bytes())).unwrap();
        assert_eq!(
            read.members.unwrap()[&2].promoted_from,
            Some(Rating::Suspended)
        );
        for bad in [r#""s2""#, r#"" S2""#, r#""Unknown (13)""#, r#""<b>x</b>""#] {
            let error = decode_previous(changes, Some(roster(bad).as_bytes())).unwrap_err();
            assert_eq!(
                error, "data/roster.json: visitors[0].promoted_from is not a rating",
                "{bad}"
            );
        }
        let error = decode_previous(changes, Some(roster("5").as_bytes())).unwrap_err();
        assert!(
            error.starts_with("data/roster.json: visitors[0].promoted_from "),
            "{error}"
        );
    }
}
