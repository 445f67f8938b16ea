//! What's new: the changes between the previous build and this one (members who joined,
//! promotions, events and documents posted or changed), for the page, the home block, the
//! Atom feed and data/changes.json.
//!
//! The history is rolling: the previous build's changes are carried on for as long as they
//! are within `whats_new_days` (and among the newest [`MAX_CHANGES`]) and their subject is
//! still in today's data. Only ids and dates come from the previous build; every title is
//! written from today's data, so nothing of its text is ever published. Private facts
//! (a rating lowered, a suspension, a member who left) make no change at all, and a change
//! whose subject has gone (a member who left, a promotion undone or followed by another) is
//! dropped. A promotion is carried only while the rosters show it: see [`promoted_from`].

mod documents;

use super::events::{EventIndex, EventStatus, EventSummary};
use super::time::midnight;
use super::{BuildInputs, DocumentGroup, EventKey, Texts};
use crate::model::previous::{ChangeId, Previous, PreviousMember};
use crate::model::{Member, Rating, Roster};
use crate::settings::Settings;
use chrono::{DateTime, NaiveDate, TimeDelta, Utc};
pub use documents::document_id;
use documents::{DocumentRef, document_changes};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The most entries the history keeps, however many days it spans.
pub const MAX_CHANGES: usize = 200;

/// How many of the latest changes the home page shows.
pub const HOME_CHANGES: usize = 5;

/// One change, as the page, the feed and changes.json show it.
#[derive(Clone, Debug, Serialize)]
pub struct Change {
    /// Stable across builds: `promotion:1234567:S2`.
    pub id: String,
    /// `new_member`, `new_visitor`, `promotion`, `new_event`, `event_changed`,
    /// `new_document`, `document_updated` or `document_renamed`.
    pub kind: &'static str,
    /// The kind in the site's language: `Promotion`.
    pub kind_name: String,
    /// RFC 3339, UTC: `2026-11-20T12:00:00Z`.
    pub date: String,
    /// The date as the pages show it: `20 Nov 2026`.
    pub day: String,
    /// Plain text in the site's language, from today's data.
    pub title: String,
    /// Relative to the site root: `roster/`, `events/412/`, `documents/#sops`.
    pub url: String,
    /// Found by this build: not among the previous build's changes.
    pub new: bool,
}

/// The history, and what the next build compares against.
#[derive(Clone, Debug, Default, Serialize)]
pub struct WhatsNew {
    /// Newest first, ties by id.
    pub changes: Vec<Change>,
    /// There was no previous build to compare with (or it could not be used): only the
    /// changes today's data dates (members' join dates) are listed, and nothing is "new" to
    /// an announcer.
    pub first_build: bool,
    pub days: u32,
    #[serde(skip)]
    pub state: State,
    /// Each promotion listed, by CID. data/roster.json records where it was from, so that
    /// the next build can check the promotion it carries on.
    #[serde(skip)]
    pub promotions: BTreeMap<u64, Promoted>,
}

/// A promotion listed: the rating reached, and the one it was from.
#[derive(Clone, Copy, Debug)]
pub struct Promoted {
    pub from: Rating,
    pub to: Rating,
}

/// What the next build needs to find changed events and documents: fingerprints and dates,
/// no text.
#[derive(Clone, Debug, Default, Serialize)]
pub struct State {
    /// Each event's fingerprint (its time and name), by its page's folder name.
    pub events: BTreeMap<String, String>,
    /// Each document's last update (`YYYY-MM-DD`), by document id.
    pub documents: BTreeMap<String, Option<String>>,
    /// The fingerprint of each document's address, by document id, for the documents that
    /// have one the site links to: see [`renamed_from`].
    pub document_links: BTreeMap<String, String>,
}

/// Today's data, looked up by what change ids name.
struct Today<'d> {
    /// By CID: the member and whether a visitor. `None` when the roster is not published.
    members: Option<HashMap<u64, (&'d Member, bool)>>,
    /// The previous build's roster, by CID, if it had one.
    before: Option<&'d HashMap<u64, PreviousMember>>,
    events: HashMap<String, (&'d EventSummary, &'d crate::model::Event)>,
    documents: HashMap<String, DocumentRef<'d>>,
    /// The start of each member's first session at the facility, where it is known
    /// (`[activity]`'s rule: [`super::activity::first_sessions`]), by CID; `None` when the
    /// roster is not published.
    first_sessions: Option<&'d HashMap<u64, DateTime<Utc>>>,
    texts: &'d Texts,
}

/// The first 16 hex digits of the SHA-256 of `parts`, each ended by a zero byte: the same
/// on every machine and in every version.
pub(super) fn fingerprint(parts: &[&str]) -> String {
    let mut context = ring::digest::Context::new(&ring::digest::SHA256);
    for part in parts {
        context.update(part.as_bytes());
        context.update(&[0]);
    }
    let digest = context.finish();
    digest.as_ref()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// An event's fingerprint: what a change of it means (its start, end and name).
fn event_fingerprint(event: &crate::model::Event) -> String {
    fingerprint(&[
        &event.start.to_rfc3339(),
        &event.effective_end().to_rfc3339(),
        &event.name,
    ])
}

pub(super) fn whats_new(
    roster: &Roster,
    (events, summaries): (&EventIndex, &BTreeMap<EventKey, Arc<EventSummary>>),
    (documents, first_sessions): (&[DocumentGroup], &HashMap<u64, DateTime<Utc>>),
    settings: &Settings,
    inputs: &BuildInputs,
) -> WhatsNew {
    let days = settings.whats_new_days.0;
    let today = today(
        roster,
        (events, summaries),
        (documents, first_sessions),
        settings,
        inputs,
    );
    let state = State {
        events: today
            .events
            .iter()
            .map(|(folder, (_, event))| (folder.clone(), event_fingerprint(event)))
            .collect(),
        documents: today
            .documents
            .iter()
            .map(|(id, doc)| {
                let date = doc.updated.map(|d| d.format("%Y-%m-%d").to_string());
                (id.clone(), date)
            })
            .collect(),
        document_links: today
            .documents
            .iter()
            .filter_map(|(id, doc)| Some((id.clone(), doc.link.clone()?)))
            .collect(),
    };
    let previous = inputs.previous.as_deref();
    let mut found = detect(&today, &state, previous, inputs.build_time);
    if let Some(previous) = previous {
        // A change listed before keeps the date it was given then, unless today's data
        // dates it.
        for (id, date) in &previous.changes {
            found
                .entry(id.clone())
                .and_modify(|(when, dated)| {
                    if !*dated {
                        *when = *date;
                    }
                })
                .or_insert((*date, true));
        }
    }
    let oldest =
        crate::model::timestamp::add_clamped(inputs.build_time, -TimeDelta::days(days.into()));
    let mut listed: Vec<(DateTime<Utc>, ChangeId)> = found
        .into_iter()
        .filter(|(_, (date, _))| (oldest..=inputs.build_time).contains(date))
        .map(|(id, (date, _))| (date, id))
        .collect();
    listed.sort_by_cached_key(|(date, id)| (std::cmp::Reverse(*date), id.to_string()));
    let (ids, changes): (Vec<ChangeId>, Vec<Change>) = listed
        .into_iter()
        .filter_map(|(date, id)| {
            let (title, url) = describe(&id, &today)?;
            let text = id.to_string();
            let change = Change {
                new: previous.is_none_or(|p| !p.listed.contains(&text)),
                id: text,
                kind: id.kind(),
                kind_name: (inputs.texts).text(&format!("whats_new.kind_{}", id.kind()), &[]),
                date: date.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
                day: super::time::date(&inputs.texts, date),
                title,
                url,
            };
            Some((id, change))
        })
        .take(MAX_CHANGES)
        .unzip();
    let promotions = ids
        .iter()
        .filter_map(|id| match id {
            ChangeId::Promotion(cid, to) => {
                let from = promoted_from(*cid, *to, &today)?;
                Some((*cid, Promoted { from, to: *to }))
            }
            _ => None,
        })
        .collect();
    WhatsNew {
        changes,
        first_build: previous.is_none(),
        days,
        state,
        promotions,
    }
}

fn today<'d>(
    roster: &'d Roster,
    (events, summaries): (&EventIndex<'d>, &'d BTreeMap<EventKey, Arc<EventSummary>>),
    (documents, first_sessions): (&'d [DocumentGroup], &'d HashMap<u64, DateTime<Utc>>),
    settings: &Settings,
    inputs: &'d BuildInputs,
) -> Today<'d> {
    let sections = settings.sections;
    let members = sections.roster.then(|| {
        let mut members = HashMap::new();
        for (visitor, list) in [(false, &roster.controllers), (true, &roster.visitors)] {
            for member in list {
                members.entry(member.cid).or_insert((member, visitor));
            }
        }
        members
    });
    let events = events
        .iter()
        .map(|(key, listed)| (key.folder_name(), (&*summaries[key], listed.event)))
        .collect();
    let mut by_id = HashMap::new();
    if sections.documents {
        for group in documents {
            for file in &group.files {
                let updated = file
                    .updated_iso
                    .as_deref()
                    .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok());
                by_id
                    .entry(document_id(&group.name, &file.name))
                    .or_insert(DocumentRef {
                        anchor: &group.anchor,
                        name: &file.name,
                        updated,
                        link: file.link.as_ref().map(|link| fingerprint(&[&link.href])),
                    });
            }
        }
    }
    Today {
        // Changes to the roster are listed only when it is published.
        first_sessions: members.is_some().then_some(first_sessions),
        members,
        before: inputs.previous.as_deref().and_then(|p| p.members.as_ref()),
        events,
        documents: by_id,
        texts: &inputs.texts,
    }
}

/// The changes today's data shows against the previous build's (or, without one, the ones
/// today's data dates itself: home controllers' join dates). Each with its date and whether
/// the data gave that date (else it is the build time).
fn detect(
    today: &Today,
    state: &State,
    previous: Option<&Previous>,
    build_time: DateTime<Utc>,
) -> HashMap<ChangeId, (DateTime<Utc>, bool)> {
    let mut found = FoundChanges {
        changes: HashMap::new(),
        build_time,
    };
    if let Some(members) = &today.members {
        member_changes(
            members,
            previous.and_then(|p| p.members.as_ref()),
            &mut found,
        );
    }
    if let Some(previous) = previous {
        // Only a session begun since the previous build is news: a member read for the
        // first time brings sessions of any age.
        for (cid, start) in today.first_sessions.into_iter().flatten() {
            if previous.generated.is_some_and(|then| *start > then) {
                found.add(ChangeId::FirstSession(*cid), Some(*start));
            }
        }
        event_changes(&today.events, state, previous, &mut found);
        document_changes(&today.documents, previous, &mut found);
    }
    found.changes
}

/// The changes found so far, each with its date and whether the data gave it.
pub(super) struct FoundChanges {
    changes: HashMap<ChangeId, (DateTime<Utc>, bool)>,
    build_time: DateTime<Utc>,
}

impl FoundChanges {
    /// `id`, dated by `date`; by the build when there is none, or when it is after the build
    /// (a mistake in the data).
    fn add(&mut self, id: ChangeId, date: Option<DateTime<Utc>>) {
        let dated = match date {
            Some(date) if date <= self.build_time => (date, true),
            _ => (self.build_time, false),
        };
        self.changes.insert(id, dated);
    }
}

/// New members and visitors, and promotions, against the previous roster (`before`).
fn member_changes(
    members: &HashMap<u64, (&Member, bool)>,
    before: Option<&HashMap<u64, PreviousMember>>,
    found: &mut FoundChanges,
) {
    for (cid, (member, visitor)) in members {
        let was = before.map(|before| before.get(cid));
        let (joined, id) = match visitor {
            true => (member.visit_start, ChangeId::NewVisitor(*cid)),
            false => (member.joined, ChangeId::NewMember(*cid)),
        };
        // Not on the previous roster, or a visitor then and a home controller now.
        let new = match was {
            Some(None) => true,
            Some(Some(was)) => was.visitor && !visitor,
            None => false,
        };
        // Home controllers' join dates tell without a previous roster.
        if new || (!visitor && joined.is_some()) {
            found.add(id, joined.map(midnight));
        }
        if let (Some(Some(was)), Some(now)) = (was, member.rating)
            && is_promotion(was.rating, now)
        {
            found.add(ChangeId::Promotion(*cid, now), None);
        }
    }
}

/// New events, and upcoming ones whose fingerprint changed.
fn event_changes(
    events: &HashMap<String, (&EventSummary, &crate::model::Event)>,
    state: &State,
    previous: &Previous,
    found: &mut FoundChanges,
) {
    for (folder, (summary, event)) in events {
        match previous.events.get(folder) {
            None => found.add(ChangeId::NewEvent(folder.clone()), event.created_at),
            Some(print) if summary.status == EventStatus::Upcoming => {
                // Made once, for the state (which has every event of today's): a fingerprint
                // is two dates formatted and hashed, and a rebuild compares every upcoming
                // event's.
                let now = &state.events[folder];
                if print != now {
                    let id = ChangeId::EventChanged(folder.clone(), now.clone());
                    found.add(id, event.updated_at);
                }
            }
            Some(_) => {}
        }
    }
}

/// A controller rating reached from a lower one an active account held: an observer's first
/// S1, or a controller's next rating. Never to inactive, suspended or observer, whatever the
/// numbers say (INA is -1, SUS 0), and never from inactive or suspended: an account coming
/// back says what it was.
fn is_promotion(was: Option<Rating>, now: Rating) -> bool {
    was.is_some_and(|was| {
        (was == Rating::Observer || was.is_controller())
            && now.is_controller()
            && now.number() > was.number()
    })
}

/// The rating `cid` was promoted from to `rating`, when the two rosters show that promotion:
/// `rating` is theirs today, and the previous build's roster shows a lower one (a promotion
/// this build finds), or shows `rating` with the rating it was reached from (a promotion a
/// build found before, which that build's roster recorded). A previous changes.json is not
/// taken on its word: a tampered one could claim a promotion for anybody at the rating they
/// have held all along, and only the roster tells the two apart. The same [`is_promotion`]
/// as [`detect`]'s, so that no file makes a suspension, inactivity or observer a promotion.
/// Both files rewritten to agree can still claim one (docs/whats-new.md says so): whoever
/// can rewrite the published site can write anything on it.
fn promoted_from(cid: u64, rating: Rating, today: &Today) -> Option<Rating> {
    let (member, _) = today.members.as_ref()?.get(&cid)?;
    if member.rating != Some(rating) {
        return None;
    }
    let before = today.before?.get(&cid)?;
    let from = if before.rating == Some(rating) {
        before.promoted_from?
    } else {
        before.rating?
    };
    is_promotion(Some(from), rating).then_some(from)
}

/// The change's title and page from today's data; `None` when its subject is gone or no
/// longer shows it (a promotion undone, an event over), which drops the change. Its title is
/// the catalogue's `whats_new.title_<kind>`.
fn describe(id: &ChangeId, today: &Today) -> Option<(String, String)> {
    let member = |cid: &u64| Some(today.members.as_ref()?.get(cid)?.0);
    let roster = || super::outputs::ROSTER.folder().to_owned();
    let (args, url) = match id {
        ChangeId::NewMember(cid) | ChangeId::NewVisitor(cid) => {
            let (member, visitor) = today.members.as_ref()?.get(cid)?;
            if *visitor != matches!(id, ChangeId::NewVisitor(_)) {
                return None;
            }
            (vec![("name", member.display_name())], roster())
        }
        ChangeId::FirstSession(cid) => {
            today.first_sessions?.get(cid)?;
            (vec![("name", member(cid)?.display_name())], roster())
        }
        ChangeId::Promotion(cid, rating) => {
            promoted_from(*cid, *rating, today)?;
            let name = member(cid)?.display_name();
            let (code, rating_name) = super::rating_names(*rating, today.texts);
            let args = vec![
                ("name", name),
                ("rating", code),
                ("rating_name", rating_name),
            ];
            (args, roster())
        }
        ChangeId::NewEvent(folder) | ChangeId::EventChanged(folder, _) => {
            let (summary, _) = today.events.get(folder)?;
            if matches!(id, ChangeId::EventChanged(..)) && summary.status == EventStatus::Past {
                return None;
            }
            (vec![("event", summary.name.clone())], summary.url.clone())
        }
        ChangeId::NewDocument(doc)
        | ChangeId::DocumentUpdated(doc, _)
        | ChangeId::DocumentRenamed(doc) => {
            let found = today.documents.get(doc)?;
            let page = super::outputs::DOCUMENTS.folder();
            let url = format!("{page}#{}", found.anchor);
            (vec![("document", found.name.to_owned())], url)
        }
    };
    let args: Vec<(&str, &str)> = (args.iter()).map(|(k, v)| (*k, v.as_str())).collect();
    let key = format!("whats_new.title_{}", id.kind());
    Some((today.texts.text(&key, &args), url))
}

#[cfg(test)]
mod tests {
    use super::{fingerprint, is_promotion};
    use crate::model::Rating;

    #[test]
    fn only_a_rating_up_from_a_held_rating_is_a_promotion() {
        assert!(is_promotion(Some(Rating::S1), Rating::S2));
        assert!(is_promotion(Some(Rating::C1), Rating::C3));
        assert!(!is_promotion(Some(Rating::S2), Rating::S1));
        assert!(!is_promotion(Some(Rating::S2), Rating::S2));
        assert!(!is_promotion(Some(Rating::Suspended), Rating::S2));
        assert!(!is_promotion(Some(Rating::Inactive), Rating::S2));
        assert!(!is_promotion(None, Rating::S2));
        assert!(!is_promotion(Some(Rating::S1), Rating::Unknown(40)));
        assert!(is_promotion(Some(Rating::Observer), Rating::S1));
        assert!(!is_promotion(Some(Rating::Observer), Rating::Observer));
        // Up as numbers go, and no promotion: to a suspension, to observer.
        assert!(!is_promotion(Some(Rating::Inactive), Rating::Suspended));
        assert!(!is_promotion(Some(Rating::Inactive), Rating::Observer));
        assert!(!is_promotion(Some(Rating::Suspended), Rating::Observer));
    }

    #[test]
    fn a_fingerprint_is_fixed_and_tells_its_parts_apart() {
        // Pinned: a change here would make every event look changed after an upgrade.
        assert_eq!(fingerprint(&["a", "b"]), "8fb20ef63ced4145");
        assert_ne!(fingerprint(&["ab", ""]), fingerprint(&["a", "b"]));
        assert_eq!(fingerprint(&[""]).len(), 16);
    }
}
