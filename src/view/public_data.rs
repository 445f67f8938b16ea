//! The public JSON files, for bots and other sites: data/changes.json, data/roster.json and
//! events.json (a JSON Feed 1.1). Each has a `version`; docs/data.md documents them and
//! docs/schemas/ holds their schemas. The next build reads changes.json and roster.json back
//! as its previous state (`model::previous`).

use super::events::{EventPage, EventStatus};
use super::whats_new::{Promoted, State, WhatsNew};
use super::{BuildInputs, FeedEntry, MonthSummary, PersonRow, RosterPage, Site, StaffRow};
use crate::model::StaffRole;
use crate::model::previous::{DATA_VERSION, Origin};
use serde::Serialize;
use std::collections::BTreeMap;

/// data/changes.json: the What's new history, and what the next build compares with.
#[derive(Clone, Debug, Serialize)]
pub struct ChangesFile {
    pub version: u64,
    /// The build time, RFC 3339 UTC.
    pub generated: String,
    pub site_url: Option<String>,
    pub language: String,
    /// Whose data made this build: the next build compares only with one of the same.
    pub origin: Origin,
    /// No previous build was compared with: nothing in `changes` is news to an announcer.
    pub first_build: bool,
    /// How many days a change stays listed (`whats_new_days`).
    pub days: u32,
    pub changes: Vec<ChangeEntry>,
    pub state: State,
    /// The last full month's activity (`[activity] monthly_summary`), for `announce`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activity_month: Option<MonthSummary>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ChangeEntry {
    pub id: String,
    pub kind: &'static str,
    pub date: String,
    pub title: String,
    /// Absolute when the site's URL is known, else relative to the site root.
    pub url: String,
    pub new: bool,
}

/// data/roster.json: exactly what the roster page shows, without the staff posts' e-mail
/// addresses.
#[derive(Clone, Debug, Serialize)]
pub struct RosterFile {
    pub version: u64,
    pub generated: String,
    pub site_url: Option<String>,
    pub staff: Vec<StaffEntry>,
    pub controllers: Vec<PersonEntry>,
    pub visitors: Vec<PersonEntry>,
}

#[derive(Clone, Debug, Serialize)]
pub struct StaffEntry {
    pub code: StaffRole,
    pub title: String,
    pub names: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PersonEntry {
    pub cid: u64,
    pub name: String,
    /// `C1`; `null` without a rating.
    pub rating: Option<String>,
    pub rating_name: Option<String>,
    /// `S3` beside `C1`: the rating from which What's new lists this member's promotion to
    /// `rating`, while it lists one. The next build carries that promotion on only if this
    /// shows it (`view::whats_new`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub promoted_from: Option<String>,
    /// `YYYY-MM-DD`; home controllers only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub joined: Option<String>,
    /// Visitors only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub home_facility: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visit_start: Option<String>,
}

/// events.json: a JSON Feed 1.1 (<https://jsonfeed.org/version/1.1>) of the upcoming and
/// ongoing events, with their times and airports in the `_vatcar` extension.
#[derive(Clone, Debug, Serialize)]
pub struct EventsFeed {
    pub version: &'static str,
    pub title: String,
    pub home_page_url: String,
    pub feed_url: String,
    pub language: String,
    #[serde(rename = "_vatcar")]
    pub vatcar: FeedExtension,
    pub items: Vec<EventItem>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FeedExtension {
    pub about: &'static str,
    pub version: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct EventItem {
    pub id: String,
    pub url: String,
    pub title: String,
    pub content_text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date_modified: Option<String>,
    #[serde(rename = "_vatcar")]
    pub vatcar: EventExtension,
}

#[derive(Clone, Debug, Serialize)]
pub struct EventExtension {
    pub about: &'static str,
    pub event_id: u64,
    pub start: String,
    pub end: String,
    /// The API gave no usable end; `end` is assumed.
    pub end_assumed: bool,
    pub departure: Vec<String>,
    pub arrival: Vec<String>,
    /// Listed by the facility, the division, or both.
    pub facility: bool,
    pub division: bool,
}

/// Where docs/data.md describes the extension, as JSON Feed asks an extension to say.
const ABOUT: &str = "https://github.com/vatcar/vatcar-site/blob/main/docs/data.md";

/// The files' views; events.json only with the site's URL (a feed's addresses are
/// absolute).
pub struct PublicData {
    pub changes: ChangesFile,
    pub roster: RosterFile,
    pub events: Option<EventsFeed>,
    /// whats-new.xml's entries (with the site's URL), and its `<updated>`.
    pub whats_new_feed: Vec<FeedEntry>,
    pub whats_new_updated: String,
    /// data/activity.json as the next build reads it back (`model::activity`); `None` with
    /// `[activity]` off.
    pub activity: Option<Vec<u8>>,
}

pub(super) fn public_data(
    (whats_new, activity_month): (&WhatsNew, Option<MonthSummary>),
    roster: &RosterPage,
    event_pages: &[EventPage],
    site: &Site,
    inputs: &BuildInputs,
) -> PublicData {
    let generated = inputs.build_time.format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let absolute = |url: &str| match &site.site_url {
        Some(site_url) => format!("{site_url}{url}"),
        None => url.to_owned(),
    };
    let changes = ChangesFile {
        version: DATA_VERSION,
        generated: generated.clone(),
        site_url: site.site_url.clone(),
        language: inputs.texts.language.clone(),
        origin: inputs.origin.clone(),
        first_build: whats_new.first_build,
        days: whats_new.days,
        changes: (whats_new.changes.iter())
            .map(|c| ChangeEntry {
                id: c.id.clone(),
                kind: c.kind,
                date: c.date.clone(),
                title: c.title.clone(),
                url: absolute(&c.url),
                new: c.new,
            })
            .collect(),
        state: whats_new.state.clone(),
        activity_month: activity_month.map(|mut summary| {
            for entry in summary.top.iter_mut().chain(&mut summary.new_controllers) {
                entry.url = absolute(&entry.url);
            }
            summary
        }),
    };
    let (whats_new_feed, whats_new_updated) = match &site.site_url {
        Some(site_url) => {
            let entries: Vec<FeedEntry> = (whats_new.changes.iter())
                .map(|c| FeedEntry {
                    id: format!("{site_url}whats-new/#{}", c.id),
                    url: absolute(&c.url),
                    title: c.title.clone(),
                    updated: c.date.clone(),
                    published: Some(c.date.clone()),
                    summary: c.kind_name.clone(),
                })
                .collect();
            // The newest change, else the build: the same data gives the same feed.
            let updated = entries
                .first()
                .map_or(generated.clone(), |e| e.updated.clone());
            (entries, updated)
        }
        None => (Vec::new(), String::new()),
    };
    PublicData {
        changes,
        roster: roster_file(roster, &whats_new.promotions, site, generated),
        events: events_feed(event_pages, site, inputs),
        whats_new_feed,
        whats_new_updated,
        activity: (inputs.activity.as_ref())
            .zip(roster.activity.as_ref())
            .map(|(known, shown)| {
                known.encode(inputs.build_time, shown.window_days, &inputs.origin)
            }),
    }
}

fn roster_file(
    roster: &RosterPage,
    promotions: &BTreeMap<u64, Promoted>,
    site: &Site,
    generated: String,
) -> RosterFile {
    let person = |row: &PersonRow| PersonEntry {
        cid: row.cid,
        name: row.name.clone(),
        rating: (!row.rating_code.is_empty()).then(|| row.rating_code.clone()),
        rating_name: (!row.rating_name.is_empty()).then(|| row.rating_name.clone()),
        // On a row at the rating reached only: a CID the API lists twice (a home controller
        // and a visitor, at two ratings) has one promotion, not one on each row.
        promoted_from: (promotions.get(&row.cid))
            .filter(|p| p.to.code() == row.rating_code)
            .map(|p| p.from.code().into_owned()),
        joined: row.joined.clone(),
        home_facility: row.home_facility.clone(),
        visit_start: row.visit_start.clone(),
    };
    let staff = |row: &StaffRow| StaffEntry {
        code: row.code,
        title: row.title.clone(),
        names: row.names.clone(),
    };
    RosterFile {
        version: DATA_VERSION,
        generated,
        site_url: site.site_url.clone(),
        staff: roster.staff.iter().map(staff).collect(),
        controllers: roster.controllers.iter().map(person).collect(),
        visitors: roster.visitors.iter().map(person).collect(),
    }
}

fn events_feed(event_pages: &[EventPage], site: &Site, inputs: &BuildInputs) -> Option<EventsFeed> {
    let site_url = site.site_url.as_ref()?;
    let mut upcoming: Vec<&EventPage> = event_pages
        .iter()
        .filter(|page| page.summary.status != EventStatus::Past)
        .collect();
    upcoming.sort_by_key(|page| (&page.summary.when.start.iso, &page.summary.url));
    let items = upcoming
        .into_iter()
        .map(|page| {
            let summary = &page.summary;
            let url = format!("{site_url}{}", summary.url);
            let (departure, arrival) = if page.airports.is_empty() {
                (page.departure.clone(), page.arrival.clone())
            } else {
                (page.airports.clone(), page.airports.clone())
            };
            EventItem {
                id: url.clone(),
                url,
                title: summary.name.clone(),
                // The description's opening; the name for an event without one.
                content_text: (page.excerpt.clone()).unwrap_or_else(|| summary.name.clone()),
                date_modified: page.updated.as_ref().map(|u| u.iso.clone()),
                vatcar: EventExtension {
                    about: ABOUT,
                    event_id: summary.id,
                    start: summary.when.start.iso.clone(),
                    end: summary.when.end.iso.clone(),
                    end_assumed: summary.when.end_assumed,
                    departure,
                    arrival,
                    facility: summary.facility,
                    division: summary.division,
                },
            }
        })
        .collect();
    Some(EventsFeed {
        version: "https://jsonfeed.org/version/1.1",
        title: inputs.texts.text("feed.title", &[("site", &site.title)]),
        home_page_url: format!("{site_url}events/"),
        feed_url: format!("{site_url}{}", super::outputs::EVENTS_JSON.path),
        language: inputs.texts.language.clone(),
        vatcar: FeedExtension {
            about: ABOUT,
            version: DATA_VERSION,
        },
        items,
    })
}
