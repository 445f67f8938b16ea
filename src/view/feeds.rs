//! What the Atom feed and the iCal feeds are written from.

use super::calendar_links::{shortened, with_line};
use super::events::{EventIndex, by_start};
use super::outputs::EVENT_CALENDAR;
use super::{BuildInputs, EventKey, EventPage, EventStatus, EventSummary, FeedSettings, Site};
use crate::settings::Settings;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// An entry of the Atom feed.
#[derive(Clone, Debug, Serialize)]
pub struct FeedEntry {
    pub id: String,
    pub url: String,
    pub title: String,
    pub updated: String,
    pub published: Option<String>,
    pub summary: String,
}

/// What the iCal feeds are written from.
pub struct CalendarFeeds {
    pub facility: FeedSettings,
    pub division: FeedSettings,
    /// The bookings of our positions ([`super::LivePage`]).
    pub bookings: FeedSettings,
    /// Every event once, with its plain-text description and location.
    pub entries: BTreeMap<EventKey, CalendarEntry>,
    /// The events of each feed, by start time.
    pub facility_ids: Vec<EventKey>,
    pub division_ids: Vec<EventKey>,
    pub uid_host: String,
}

pub struct CalendarEntry {
    /// The event's times, which are all its calendars read of it: a copy of the whole event
    /// for each would hold every description twice.
    pub start: DateTime<Utc>,
    /// [`crate::model::Event::effective_end`].
    pub end: DateTime<Utc>,
    pub created_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
    /// The name shown: the event's, or "Event <id>".
    pub name: String,
    /// The line that links to the event's page, below its description (with the site URL).
    page_line: Option<String>,
    pub location: String,
    /// The same on every build (see [`EventKey::uid`]).
    pub uid: String,
    /// Absolute address of the event's page, when the site URL is known.
    pub url: Option<String>,
    /// Relative to the site root: `events/412/event.ics`.
    pub path: String,
}

/// The most characters of an event's description a calendar carries. The event's page shows
/// it whole (up to [`crate::sanitize::description::MAX_TEXT_BYTES`]), and the calendar links
/// to the page below the text; a subscribed feed holds every event's text and is fetched
/// again on every refresh, and calendar apps show a description in a small pane.
pub const CALENDAR_TEXT_CHARS: usize = 64 * 1024;

impl CalendarEntry {
    /// The event's description in its calendars: its plain text (the event page's
    /// [`super::EventPage::text`]), cut at [`CALENDAR_TEXT_CHARS`], and a line linking to
    /// its page. Made as each event is rendered, not kept for every event.
    pub fn description(&self, text: &str) -> String {
        with_line(
            shortened(text, CALENDAR_TEXT_CHARS),
            self.page_line.as_deref(),
        )
    }
}

/// What an event's description adds to the end of its feed entry's `summary`: its first 280
/// characters of plain text, and "…" when there are more.
fn description_part(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let short: String = text.chars().take(280).collect();
    let mut part = format!("\n\n{short}");
    if short.len() < text.len() {
        part.push('…');
    }
    part
}

pub(super) fn calendar_feeds(
    (facility_keys, division_keys): (&[EventKey], &[EventKey]),
    events: &EventIndex,
    summaries: &BTreeMap<EventKey, Arc<EventSummary>>,
    site: &Site,
    (settings, inputs): (&Settings, &BuildInputs),
) -> CalendarFeeds {
    let uid_host = settings
        .site_url
        .as_ref()
        .and_then(|u| u.0.host_str())
        .or_else(|| inputs.base_url.host_str())
        .unwrap_or("vatcar-site.invalid")
        .to_owned();
    let page = |key: &EventKey| site.site_url.as_ref().map(|u| format!("{u}{}", key.url()));
    let entries = events
        .iter()
        .map(|(key, listed)| {
            let url = page(key);
            let page_line = url
                .as_ref()
                .map(|url| inputs.texts.text("calendar.event_page", &[("url", url)]));
            let event = listed.event;
            let entry = CalendarEntry {
                start: event.start,
                end: event.effective_end(),
                created_at: event.created_at,
                updated_at: event.updated_at,
                page_line,
                location: summaries[key].route.clone(),
                name: summaries[key].name.clone(),
                uid: key.uid(&uid_host),
                url,
                path: EVENT_CALENDAR.at(&key.folder_name()),
            };
            (*key, entry)
        })
        .collect();
    let texts = &inputs.texts;
    let described = |what: &str| match &site.site_url {
        Some(url) => texts.text("calendar.published_by", &[("calendar", what), ("url", url)]),
        None => what.to_owned(),
    };
    CalendarFeeds {
        facility: FeedSettings {
            name: site.calendars.facility_name.clone(),
            description: described(&texts.text(
                "calendar.facility_description",
                &[("facility", &site.facility.name)],
            )),
            refresh_minutes: settings.calendar.refresh_minutes.0,
            empty: texts.text("calendar.empty", &[]),
        },
        division: FeedSettings {
            name: site.calendars.division_name.clone(),
            description: described(&texts.text("calendar.division_description", &[])),
            refresh_minutes: settings.calendar.refresh_minutes.0,
            empty: texts.text("calendar.empty", &[]),
        },
        bookings: FeedSettings {
            name: site.calendars.bookings_name.clone(),
            description: described(&texts.text(
                "calendar.bookings_description",
                &[("facility", &site.facility.name)],
            )),
            refresh_minutes: settings.calendar.refresh_minutes.0,
            empty: texts.text("calendar.no_bookings", &[]),
        },
        entries,
        facility_ids: by_start(facility_keys.iter().copied(), events),
        division_ids: by_start(division_keys.iter().copied(), events),
        uid_host,
    }
}

/// The Atom feed's entries: the upcoming and ongoing events, soonest first (then by key),
/// at most `feed_limit` of them; and the feed's `<updated>`, the latest change among the
/// entries listed. An event beyond the limit changes neither, so the feed stays
/// byte-identical until what it shows changes.
pub(super) fn feed(
    events: &EventIndex,
    (summaries, pages): (&BTreeMap<EventKey, Arc<EventSummary>>, &[EventPage]),
    settings: &Settings,
) -> (Vec<FeedEntry>, String) {
    let Some(site_url) = settings.site_url.as_ref().map(|u| &u.0) else {
        return (Vec::new(), String::new());
    };
    let pages: HashMap<EventKey, &EventPage> =
        pages.iter().map(|page| (page.summary.key, page)).collect();
    let upcoming = summaries
        .iter()
        .filter(|(_, s)| s.status != EventStatus::Past);
    let mut entries = by_start(upcoming.map(|(key, _)| *key), events);
    if let Some(limit) = settings.feed_limit.0 {
        entries.truncate(limit);
    }
    let stamp = |t: DateTime<Utc>| t.format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let mut newest: Option<DateTime<Utc>> = None;
    let feed = entries
        .into_iter()
        .map(|key| {
            let event = events[&key].event;
            let summary = &summaries[&key];
            let updated = event.updated_at.or(event.created_at).unwrap_or(event.start);
            newest = newest.max(Some(updated));
            let url = site_url
                .join(&summary.url)
                .map(|u| u.to_string())
                .unwrap_or_default();
            let mut text = format!("{} – {}", summary.when.start.zulu, summary.when.end.zulu);
            if !summary.route.is_empty() {
                text.push_str(&format!(" · {}", summary.route));
            }
            text.push_str(&description_part(&pages[&key].text()));
            FeedEntry {
                id: url.clone(),
                url,
                title: summary.name.clone(),
                updated: stamp(updated),
                published: event.created_at.map(stamp),
                summary: text,
            }
        })
        .collect();
    // Without entries there is no data-derived time; the epoch keeps rebuilds identical.
    let updated = stamp(newest.unwrap_or(DateTime::UNIX_EPOCH));
    (feed, updated)
}
