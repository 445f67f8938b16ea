//! The view model: what each page shows, decided once, in plain serializable structs.
//!
//! Everything a template needs is computed here (sorted, formatted, made safe), so templates
//! only lay it out, and each page's context holds only that page's data. Times are UTC and
//! shown as Zulu; a display zone, when configured, adds local time beside them.

use crate::model::SiteData;
use crate::model::{Event, Member, Roster, StaffRole};
use crate::sanitize::description::{Sanitizer, html_to_text};
use crate::sanitize::links::{SafeLink, safe_image, safe_link};
use chrono::{DateTime, Datelike, TimeDelta, Utc};
use chrono_tz::Tz;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use url::Url;

pub mod report;

/// Which parts of the site to build; all by default (`[sections]` in the config file).
#[derive(Clone, Copy, Debug, serde::Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct Sections {
    pub roster: bool,
    pub events: bool,
    pub division: bool,
    pub documents: bool,
}

impl Default for Sections {
    fn default() -> Self {
        Self {
            roster: true,
            events: true,
            division: true,
            documents: true,
        }
    }
}

/// What the site is built with, beyond the data.
#[derive(Clone, Debug)]
pub struct SiteSettings {
    /// The site's name; the facility's name when not set.
    pub title: Option<String>,
    /// Where the site will be published; needed for the sitemap, the feed and absolute links.
    pub site_url: Option<Url>,
    /// The API's base URL: relative document and image URLs are resolved against it.
    pub base_url: Url,
    /// A zone to show local times in, beside Zulu.
    pub display_zone: Option<Tz>,
    /// How many days an event stays listed as "recent" after it ends.
    pub recent_days: i64,
    /// How many upcoming events the home page lists.
    pub home_events: usize,
    /// The "now" that decides upcoming and recent.
    pub build_time: DateTime<Utc>,
    /// Calendar names; derived from the site's title when not set.
    pub facility_calendar_name: Option<String>,
    pub division_calendar_name: Option<String>,
    /// How often calendar apps should refresh the feeds, in minutes.
    pub calendar_refresh_minutes: u32,
    /// A line under the site's title.
    pub tagline: Option<String>,
    /// Names for bits of the events' `facilities` mask, by bit value, ascending.
    pub facility_bits: Vec<(u64, String)>,
    /// Role addresses from the configuration, by staff code (`ATM`, ...).
    pub staff_emails: Vec<(&'static str, String)>,
    /// Which parts of the site to build.
    pub sections: Sections,
}

impl SiteSettings {
    pub fn new(base_url: Url, build_time: DateTime<Utc>) -> Self {
        Self {
            title: None,
            site_url: None,
            base_url,
            display_zone: None,
            recent_days: 60,
            home_events: 5,
            build_time,
            facility_calendar_name: None,
            division_calendar_name: None,
            calendar_refresh_minutes: 180,
            tagline: None,
            facility_bits: Vec::new(),
            staff_emails: Vec::new(),
            sections: Sections::default(),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Site {
    pub title: String,
    pub tagline: Option<String>,
    pub sections: Sections,
    pub facility: FacilityView,
    /// Absolute, with a trailing slash, when known.
    pub site_url: Option<String>,
    pub display_zone: Option<String>,
    pub has_feed: bool,
    pub calendars: Calendars,
    pub generator: &'static str,
}

#[derive(Clone, Debug, Serialize)]
pub struct Calendars {
    /// Relative to the site root.
    pub facility: &'static str,
    pub division: &'static str,
    /// `webcal://` subscribe links, when the site URL is known.
    pub facility_webcal: Option<String>,
    pub division_webcal: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FacilityView {
    pub name: String,
    pub short_name: Option<String>,
    pub description: Option<String>,
    pub website: Option<SafeLink>,
}

/// One instant, in the forms the pages use.
#[derive(Clone, Debug, Serialize)]
pub struct Instant {
    /// For `<time datetime>`: `2025-11-05T23:00:00Z`.
    pub iso: String,
    /// `2025-11-05 23:00Z`.
    pub zulu: String,
    /// `2025-11-05`.
    pub date: String,
    /// `23:00Z`.
    pub time: String,
}

impl Instant {
    fn new(t: DateTime<Utc>) -> Self {
        // Written field by field: chrono's `format` parses its pattern on every call, and a
        // large site formats 80,000 of these.
        use chrono::{Datelike, Timelike};
        let date = format!("{:04}-{:02}-{:02}", t.year(), t.month(), t.day());
        let time = format!("{:02}:{:02}", t.hour(), t.minute());
        Self {
            iso: format!("{date}T{time}:{:02}Z", t.second()),
            zulu: format!("{date} {time}Z"),
            time: format!("{time}Z"),
            date,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct When {
    pub start: Instant,
    pub end: Instant,
    /// Start and end fall on the same UTC date; otherwise both dates are shown.
    pub same_day: bool,
    /// The API gave no usable end; the end shown is assumed.
    pub end_assumed: bool,
    /// `Thu 5 Nov 19:00–22:00 AST` in the display zone, when one is set.
    pub local: Option<String>,
    /// Day name of the start in UTC: `Thursday`.
    pub weekday: String,
    /// Day of the month and short month of the start in UTC, for date badges: `5`, `Nov`.
    pub day: String,
    pub month: String,
}

/// Where an event stands at the build time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EventStatus {
    Upcoming,
    Ongoing,
    Past,
}

#[derive(Clone, Debug, Serialize)]
pub struct EventSummary {
    /// Which page this is (templates have `id` and `url`).
    #[serde(skip)]
    pub key: EventKey,
    pub id: u64,
    pub name: String,
    /// Relative to the site root: `events/412/`.
    pub url: String,
    pub when: When,
    /// `TJSJ → TNCM`, or one list when departure and arrival are the same.
    pub route: String,
    pub banner: Option<SafeLink>,
    /// Written for templates as `upcoming`, `ongoing` or `past`.
    pub status: EventStatus,
    pub facility: bool,
    pub division: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct EventPage {
    /// Shared with the event lists.
    #[serde(flatten)]
    pub summary: Arc<EventSummary>,
    pub description_html: String,
    /// Set when departure and arrival airports are the same list.
    pub airports: Vec<String>,
    pub departure: Vec<String>,
    pub arrival: Vec<String>,
    pub positions: Vec<Position>,
    /// Participating facilities named by the configuration's bitmask names.
    pub participants: Vec<String>,
    pub updated: Option<Instant>,
    /// Absolute URL of this page, when the site URL is known.
    pub canonical: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Position {
    pub label: String,
    pub detail: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct EventLists {
    pub upcoming: Vec<Arc<EventSummary>>,
    pub recent: Vec<Arc<EventSummary>>,
    pub recent_days: i64,
}

#[derive(Clone, Debug, Serialize)]
pub struct StaffRow {
    pub code: &'static str,
    pub title: &'static str,
    /// Names; empty when vacant.
    pub names: Vec<String>,
    /// The role's address from the configuration (never the API's personal one).
    pub email: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PersonRow {
    pub cid: u64,
    pub name: String,
    pub rating_code: String,
    pub rating_name: String,
    pub joined: Option<String>,
    pub home_facility: Option<String>,
    pub visit_start: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RosterPage {
    pub staff: Vec<StaffRow>,
    pub controllers: Vec<PersonRow>,
    pub visitors: Vec<PersonRow>,
    /// Controllers per rating code, highest rating first: `[("C1", 7), ...]`.
    pub rating_counts: Vec<(String, usize)>,
}

#[derive(Clone, Debug, Serialize)]
pub struct DocumentRow {
    pub name: String,
    pub details: Option<String>,
    pub updated: Option<String>,
    pub updated_iso: Option<String>,
    /// `None` when the URL was unsafe or unusable.
    pub link: Option<SafeLink>,
}

#[derive(Clone, Debug, Serialize)]
pub struct DocumentGroup {
    pub name: String,
    /// For in-page links: `standard-operating-procedures`.
    pub anchor: String,
    pub files: Vec<DocumentRow>,
}

#[derive(Clone, Debug, Serialize)]
pub struct HomePage {
    pub staff: Vec<StaffRow>,
    pub next_events: Vec<Arc<EventSummary>>,
    pub controllers: usize,
    pub visitors: usize,
    pub documents: usize,
    pub upcoming_facility: usize,
    pub upcoming_division: usize,
}

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

/// The whole site's views, built once.
pub struct SiteView {
    pub site: Site,
    pub home: HomePage,
    pub roster: RosterPage,
    pub facility_events: EventLists,
    pub division_events: EventLists,
    pub documents: Vec<DocumentGroup>,
    /// One page per event id, sorted by id.
    pub event_pages: Vec<EventPage>,
    pub feed: Vec<FeedEntry>,
    /// The newest `updated` of the feed's entries.
    pub feed_updated: String,
    pub calendars: CalendarFeeds,
}

/// How a feed names itself and how often clients should refresh it.
#[derive(Clone, Debug)]
pub struct FeedSettings {
    pub name: String,
    pub description: String,
    /// Refresh hint in minutes (REFRESH-INTERVAL and X-PUBLISHED-TTL).
    pub refresh_minutes: u32,
}

/// What the iCal feeds are written from.
pub struct CalendarFeeds {
    pub facility: FeedSettings,
    pub division: FeedSettings,
    /// Every event once, with its plain-text description and location.
    pub entries: BTreeMap<EventKey, CalendarEntry>,
    /// The events of each feed, by start time.
    pub facility_ids: Vec<EventKey>,
    pub division_ids: Vec<EventKey>,
    pub uid_host: String,
}

pub struct CalendarEntry {
    pub event: Event,
    /// The name shown: the event's, or "Event <id>".
    pub name: String,
    pub description: String,
    pub location: String,
    /// The same on every build (see [`EventKey::uid`]).
    pub uid: String,
    /// Absolute address of the event's page, when the site URL is known.
    pub url: Option<String>,
    /// Relative to the site root: `events/412/event.ics`.
    pub path: String,
}

/// Which page an event record gets. The facility's and the division's lists share ids, and a
/// record in both is one event with one page, unless the two records disagree (another name
/// or start): then they are two events, and the division's gets a page and a UID of its own
/// rather than vanish behind the facility's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventKey {
    pub id: u64,
    /// The division's record of an id the facility lists as a different event.
    pub division_copy: bool,
}

impl EventKey {
    pub fn shared(id: u64) -> Self {
        Self {
            id,
            division_copy: false,
        }
    }

    /// The page's folder, relative to the site root: `events/412/`, or `events/412-division/`.
    pub fn url(self) -> String {
        if self.division_copy {
            format!("events/{}-division/", self.id)
        } else {
            format!("events/{}/", self.id)
        }
    }

    /// The calendar UID: the same on every build, so subscribers never see duplicates.
    pub fn uid(self, host: &str) -> String {
        if self.division_copy {
            format!("vatcar-division-event-{}@{host}", self.id)
        } else {
            format!("vatcar-event-{}@{host}", self.id)
        }
    }
}

/// The name an event is shown by: its own, or "Event <id>" when it has none.
pub fn event_name(event: &Event) -> String {
    if event.name.is_empty() {
        format!("Event {}", event.id)
    } else {
        event.name.clone()
    }
}

/// Each event once, by key, with whether the facility and the division list it.
type EventIndex<'d> = BTreeMap<EventKey, (&'d Event, bool, bool)>;

/// The first record of each id in a list, in the list's order: a repeat adds nothing.
fn first_of_each(list: &[Event]) -> Vec<&Event> {
    let mut seen = std::collections::HashSet::new();
    list.iter().filter(|e| seen.insert(e.id)).collect()
}

/// One page per event: a facility event and the division's record of the same event are one
/// page (the facility's record wins, it carries the positions), marked as both. Returns the
/// index and the keys of each list, in the lists' order, each key once.
fn index_events(data: &SiteData) -> (EventIndex<'_>, Vec<EventKey>, Vec<EventKey>) {
    let facility = first_of_each(&data.facility_events);
    let division = first_of_each(&data.division_events);
    let mut events: EventIndex = facility
        .iter()
        .map(|e| (EventKey::shared(e.id), (*e, true, false)))
        .collect();
    let mut division_keys = Vec::with_capacity(division.len());
    for event in division {
        let shared = EventKey::shared(event.id);
        let key = match events.get_mut(&shared) {
            Some((own, _, in_division)) if own.name == event.name && own.start == event.start => {
                *in_division = true;
                shared
            }
            Some((own, ..)) => {
                let key = EventKey {
                    id: event.id,
                    division_copy: true,
                };
                log::warn!(
                    "event {}: the facility lists \"{}\" starting {} and the division \"{}\" starting {}; \
                     both are kept, the division's at {}",
                    event.id,
                    crate::fetch::error::excerpt(&own.name, 80),
                    own.start.format("%Y-%m-%d %H:%MZ"),
                    crate::fetch::error::excerpt(&event.name, 80),
                    event.start.format("%Y-%m-%d %H:%MZ"),
                    key.url()
                );
                key
            }
            None => shared,
        };
        events.entry(key).or_insert((event, false, true));
        division_keys.push(key);
    }
    let facility_keys = facility.iter().map(|e| EventKey::shared(e.id)).collect();
    (events, facility_keys, division_keys)
}

pub fn build(data: &SiteData, settings: &SiteSettings) -> SiteView {
    // A section that is switched off contributes no pages, no events and no calendar.
    let trimmed;
    let data = if settings.sections.events && settings.sections.division {
        data
    } else {
        trimmed = SiteData {
            facility_events: if settings.sections.events {
                data.facility_events.clone()
            } else {
                Vec::new()
            },
            division_events: if settings.sections.division {
                data.division_events.clone()
            } else {
                Vec::new()
            },
            ..data.clone()
        };
        &trimmed
    };
    let sanitizer = Sanitizer::new(&settings.base_url);
    let names = roster_names(&data.roster);
    let site = site_view(data, settings);

    let (events, facility_keys, division_keys) = index_events(data);
    // Everything made per event (its summary, its page, its description as safe HTML and as
    // text) is made on every core; sanitizing is the costliest step of the view.
    let list: Vec<(EventKey, &Event, bool, bool)> = events
        .iter()
        .map(|(key, (event, facility, division))| (*key, *event, *facility, *division))
        .collect();
    let per_event = crate::parallel::in_parallel(&list, |(key, event, facility, division)| {
        let summary = Arc::new(summary(*key, event, *facility, *division, settings));
        let html = sanitizer.render(&event.description);
        let text = html_to_text(&html);
        let page = event_page(event, Arc::clone(&summary), html, &names, settings);
        Ok((*key, summary, page, text))
    })
    .expect("building the view cannot fail");
    let mut summaries: BTreeMap<EventKey, Arc<EventSummary>> = BTreeMap::new();
    let mut descriptions = Descriptions::with_capacity(per_event.len());
    let mut event_pages = Vec::with_capacity(per_event.len());
    for (key, summary, page, text) in per_event {
        descriptions.insert(key, text);
        summaries.insert(key, summary);
        event_pages.push(page);
    }

    let lists = |keys: &[EventKey]| event_lists(keys, &events, &summaries, settings);
    let facility_events = lists(&facility_keys);
    let division_events = lists(&division_keys);

    let mut next_events: Vec<Arc<EventSummary>> = summaries
        .values()
        .filter(|s| s.status != EventStatus::Past)
        .cloned()
        .collect();
    next_events.sort_by(|a, b| (&a.when.start.iso, a.id).cmp(&(&b.when.start.iso, b.id)));
    next_events.truncate(settings.home_events);

    let mut roster = roster_page(&data.roster);
    for row in &mut roster.staff {
        row.email = settings
            .staff_emails
            .iter()
            .find(|(code, _)| *code == row.code)
            .map(|(_, email)| email.clone());
    }
    let home = HomePage {
        staff: roster.staff.clone(),
        next_events,
        controllers: data.roster.controllers.len(),
        visitors: data.roster.visitors.len(),
        documents: data.documents.iter().map(|c| c.files.len()).sum(),
        upcoming_facility: facility_events.upcoming.len(),
        upcoming_division: division_events.upcoming.len(),
    };

    let (feed, feed_updated) = feed(&events, &summaries, &descriptions, settings);
    let calendars = calendar_feeds(
        (&facility_keys, &division_keys),
        &events,
        &summaries,
        descriptions,
        &site,
        settings,
    );

    SiteView {
        site,
        home,
        roster,
        facility_events,
        division_events,
        documents: documents(data, settings),
        event_pages,
        feed,
        feed_updated,
        calendars,
    }
}

/// Each event's description as plain text, for the feeds.
type Descriptions = HashMap<EventKey, String>;

fn calendar_feeds(
    (facility_keys, division_keys): (&[EventKey], &[EventKey]),
    events: &EventIndex,
    summaries: &BTreeMap<EventKey, Arc<EventSummary>>,
    mut descriptions: Descriptions,
    site: &Site,
    settings: &SiteSettings,
) -> CalendarFeeds {
    let uid_host = settings
        .site_url
        .as_ref()
        .and_then(|u| u.host_str())
        .or_else(|| settings.base_url.host_str())
        .unwrap_or("vatcar-site.invalid")
        .to_owned();
    let page = |key: &EventKey| site.site_url.as_ref().map(|u| format!("{u}{}", key.url()));
    let entries = events
        .iter()
        .map(|(key, (event, ..))| {
            let mut description = descriptions.remove(key).unwrap_or_default();
            let url = page(key);
            if let Some(url) = &url {
                if !description.is_empty() {
                    description.push_str("\n\n");
                }
                description.push_str(&format!("Event page: {url}"));
            }
            let entry = CalendarEntry {
                // The calendar needs no description markdown or positions: leaving them out
                // keeps a large site's view small.
                event: Event {
                    description: String::new(),
                    positions: Vec::new(),
                    name: event.name.clone(),
                    image_url: None,
                    arrival: Vec::new(),
                    departure: Vec::new(),
                    ..**event
                },
                description,
                location: summaries[key].route.clone(),
                name: summaries[key].name.clone(),
                uid: key.uid(&uid_host),
                url,
                path: format!("{}event.ics", key.url()),
            };
            (*key, entry)
        })
        .collect();
    let by_start = |keys: &[EventKey]| {
        let mut keys: Vec<(DateTime<Utc>, EventKey)> =
            keys.iter().map(|key| (events[key].0.start, *key)).collect();
        keys.sort();
        keys.into_iter().map(|(_, key)| key).collect()
    };
    let described = |what: &str| match &site.site_url {
        Some(url) => format!("{what}, published by {url}"),
        None => what.to_owned(),
    };
    CalendarFeeds {
        facility: FeedSettings {
            name: settings
                .facility_calendar_name
                .clone()
                .unwrap_or_else(|| format!("{} events", site.title)),
            description: described(&format!("Events of {}", site.facility.name)),
            refresh_minutes: settings.calendar_refresh_minutes,
        },
        division: FeedSettings {
            name: settings
                .division_calendar_name
                .clone()
                .unwrap_or_else(|| "VATCAR division events".to_owned()),
            description: described("Events of the VATSIM Caribbean Division"),
            refresh_minutes: settings.calendar_refresh_minutes,
        },
        entries,
        facility_ids: by_start(facility_keys),
        division_ids: by_start(division_keys),
        uid_host,
    }
}

fn site_view(data: &SiteData, settings: &SiteSettings) -> Site {
    let facility = data.roster.facility.clone().unwrap_or_default();
    let name = facility
        .display_name()
        .unwrap_or_else(|| "VATCAR facility".into());
    let site_url = settings.site_url.as_ref().map(|u| {
        let text = u.to_string();
        if text.ends_with('/') {
            text
        } else {
            format!("{text}/")
        }
    });
    let webcal = |file: &str| {
        settings.site_url.as_ref().and_then(|u| {
            let absolute = u.join(file).ok()?;
            let rest = absolute.as_str().split_once("://")?.1.to_owned();
            Some(format!("webcal://{rest}"))
        })
    };
    Site {
        title: settings.title.clone().unwrap_or_else(|| name.clone()),
        tagline: settings.tagline.clone(),
        sections: settings.sections,
        facility: FacilityView {
            name,
            short_name: facility.short_name.clone(),
            description: facility.description.clone(),
            website: facility
                .website_url
                .as_deref()
                .and_then(|u| safe_link(u, &settings.base_url)),
        },
        has_feed: site_url.is_some(),
        site_url,
        display_zone: settings.display_zone.map(|z| z.name().to_owned()),
        calendars: Calendars {
            facility: "calendar/facility.ics",
            division: "calendar/division.ics",
            facility_webcal: webcal("calendar/facility.ics"),
            division_webcal: webcal("calendar/division.ics"),
        },
        generator: concat!("vatcar-site ", env!("CARGO_PKG_VERSION")),
    }
}

const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

pub fn when(event: &Event, zone: Option<Tz>) -> When {
    let (start, end) = (event.start, event.effective_end());
    let local = zone.map(|zone| {
        let (ls, le) = (start.with_timezone(&zone), end.with_timezone(&zone));
        if ls.date_naive() == le.date_naive() {
            format!(
                "{}–{} {}",
                ls.format("%a %-d %b %H:%M"),
                le.format("%H:%M"),
                le.format("%Z")
            )
        } else {
            format!(
                "{} – {} {}",
                ls.format("%a %-d %b %H:%M"),
                le.format("%a %-d %b %H:%M"),
                le.format("%Z")
            )
        }
    });
    When {
        same_day: start.date_naive() == end.date_naive(),
        start: Instant::new(start),
        end: Instant::new(end),
        end_assumed: !event.has_valid_end(),
        local,
        weekday: WEEKDAYS[start.weekday().num_days_from_monday() as usize].to_owned(),
        day: start.day().to_string(),
        month: MONTHS[start.month0() as usize].to_owned(),
    }
}

fn route(event: &Event) -> String {
    let (dep, arr) = (&event.departure, &event.arrival);
    match (dep.is_empty(), arr.is_empty()) {
        (true, true) => String::new(),
        _ if dep == arr => dep.join(", "),
        (false, true) => dep.join(", "),
        (true, false) => arr.join(", "),
        (false, false) => format!("{} → {}", dep.join(", "), arr.join(", ")),
    }
}

fn summary(
    key: EventKey,
    event: &Event,
    facility: bool,
    division: bool,
    settings: &SiteSettings,
) -> EventSummary {
    let now = settings.build_time;
    let status = if event.start > now {
        EventStatus::Upcoming
    } else if event.effective_end() > now {
        EventStatus::Ongoing
    } else {
        EventStatus::Past
    };
    EventSummary {
        id: event.id,
        key,
        name: event_name(event),
        url: key.url(),
        when: when(event, settings.display_zone),
        route: route(event),
        banner: event
            .image_url
            .as_deref()
            .and_then(|u| safe_image(u, &settings.base_url)),
        status,
        facility,
        division,
    }
}

fn event_lists(
    keys: &[EventKey],
    events: &EventIndex,
    summaries: &BTreeMap<EventKey, Arc<EventSummary>>,
    settings: &SiteSettings,
) -> EventLists {
    let horizon = crate::model::timestamp::add_clamped(
        settings.build_time,
        -TimeDelta::days(settings.recent_days),
    );
    // Each key once (see `index_events`); the lists sort by start, then key.
    let mut upcoming: Vec<(DateTime<Utc>, EventKey)> = Vec::new();
    let mut recent: Vec<(DateTime<Utc>, EventKey)> = Vec::new();
    for &key in keys {
        let event = events[&key].0;
        if summaries[&key].status != EventStatus::Past {
            upcoming.push((event.start, key));
        } else if event.effective_end() >= horizon {
            recent.push((event.start, key));
        }
    }
    upcoming.sort();
    recent.sort_by(|a, b| b.cmp(a));
    let pick = |list: Vec<(DateTime<Utc>, EventKey)>| {
        list.into_iter()
            .map(|(_, key)| summaries[&key].clone())
            .collect()
    };
    EventLists {
        upcoming: pick(upcoming),
        recent: pick(recent),
        recent_days: settings.recent_days,
    }
}

fn event_page(
    event: &Event,
    summary: Arc<EventSummary>,
    description_html: String,
    names: &HashMap<u64, String>,
    settings: &SiteSettings,
) -> EventPage {
    let same = event.departure == event.arrival;
    EventPage {
        canonical: settings
            .site_url
            .as_ref()
            .and_then(|u| u.join(&summary.url).ok())
            .map(|u| u.to_string()),
        summary,
        description_html,
        airports: if same {
            event.departure.clone()
        } else {
            Vec::new()
        },
        departure: if same {
            Vec::new()
        } else {
            event.departure.clone()
        },
        arrival: if same {
            Vec::new()
        } else {
            event.arrival.clone()
        },
        positions: event
            .positions
            .iter()
            .filter_map(|p| position(p, names))
            .collect(),
        participants: settings
            .facility_bits
            .iter()
            .filter(|(bit, _)| event.facilities.is_some_and(|mask| mask as u64 & bit != 0))
            .map(|(_, name)| name.clone())
            .collect(),
        updated: event.updated_at.or(event.created_at).map(Instant::new),
    }
}

/// A position entry of unknown shape, shown as well as can be: a label from the first of
/// `position`, `callsign`, `name`, `title`; a detail naming who staffs it (a controller name,
/// or a CID looked up in the roster, or "open" for a null CID) and any times given.
fn position(value: &Value, names: &HashMap<u64, String>) -> Option<Position> {
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.trim().to_owned()).filter(|s| !s.is_empty()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    };
    let object = match value {
        Value::Object(object) => object,
        other => {
            return text(other).map(|label| Position {
                label,
                detail: None,
            });
        }
    };
    let label_key = ["position", "callsign", "name", "title"]
        .into_iter()
        .find(|k| object.get(*k).and_then(&text).is_some())?;
    let label = text(&object[label_key])?;
    let mut details = Vec::new();
    let person = ["controller", "controller_name", "user_name"]
        .into_iter()
        .find_map(|k| object.get(k).and_then(&text));
    match (person, object.get("cid")) {
        (Some(name), _) => details.push(name),
        (None, Some(Value::Null)) => details.push("open".into()),
        (None, Some(cid)) => {
            if let Some(cid) = cid
                .as_u64()
                .or_else(|| text(cid).and_then(|t| t.parse().ok()))
            {
                details.push(
                    names
                        .get(&cid)
                        .cloned()
                        .unwrap_or_else(|| format!("CID {cid}")),
                );
            }
        }
        (None, None) => {}
    }
    let times: Vec<String> = ["start", "end"]
        .into_iter()
        .filter_map(|k| object.get(k).and_then(&text))
        .collect();
    if !times.is_empty() {
        details.push(times.join("–"));
    }
    Some(Position {
        label,
        detail: (!details.is_empty()).then(|| details.join(", ")),
    })
}

fn roster_names(roster: &Roster) -> HashMap<u64, String> {
    let staff = roster.staff.iter().flat_map(|s| s.holders.iter());
    roster
        .controllers
        .iter()
        .chain(roster.visitors.iter())
        .chain(staff)
        .filter_map(|m| m.name.clone().map(|n| (m.cid, n)))
        .collect()
}

fn person(member: &Member) -> PersonRow {
    PersonRow {
        cid: member.cid,
        name: member.display_name(),
        rating_code: member
            .rating
            .map(|r| r.code().into_owned())
            .unwrap_or_default(),
        rating_name: member
            .rating
            .map(|r| r.name().into_owned())
            .unwrap_or_default(),
        joined: member.joined.map(|d| d.format("%Y-%m-%d").to_string()),
        home_facility: member.home_facility.clone(),
        visit_start: member.visit_start.map(|d| d.format("%Y-%m-%d").to_string()),
    }
}

/// Highest rating first, then name (case-insensitively), then CID, so that the order is the
/// same on every build.
fn sorted_people(members: &[Member]) -> Vec<PersonRow> {
    let mut sorted: Vec<&Member> = members.iter().collect();
    sorted.sort_by_cached_key(|m| {
        (
            std::cmp::Reverse(m.rating.map_or(i64::MIN, |r| r.number())),
            m.display_name().to_lowercase(),
            m.cid,
        )
    });
    sorted.into_iter().map(person).collect()
}

pub fn roster_page(roster: &Roster) -> RosterPage {
    let staff = StaffRole::ALL
        .iter()
        .map(|role| {
            let holders = roster
                .staff
                .iter()
                .find(|p| p.role == *role)
                .map(|p| p.holders.iter().map(Member::display_name).collect())
                .unwrap_or_default();
            StaffRow {
                code: role.code(),
                title: role.title(),
                names: holders,
                email: None,
            }
        })
        .collect();
    let controllers = sorted_people(&roster.controllers);
    let mut rating_counts: Vec<(String, usize)> = Vec::new();
    for row in &controllers {
        match rating_counts.last_mut() {
            Some((code, count)) if *code == row.rating_code => *count += 1,
            _ => rating_counts.push((row.rating_code.clone(), 1)),
        }
    }
    RosterPage {
        staff,
        controllers,
        visitors: sorted_people(&roster.visitors),
        rating_counts,
    }
}

fn documents(data: &SiteData, settings: &SiteSettings) -> Vec<DocumentGroup> {
    let mut used: HashMap<String, usize> = HashMap::new();
    data.documents
        .iter()
        .map(|category| {
            let mut anchor = slug(&category.name);
            let seen = used.entry(anchor.clone()).or_insert(0);
            *seen += 1;
            if *seen > 1 {
                anchor = format!("{anchor}-{seen}");
            }
            let mut files: Vec<DocumentRow> = category
                .files
                .iter()
                .map(|doc| DocumentRow {
                    name: doc.name.clone(),
                    details: doc.details.clone(),
                    updated: doc.updated.map(|d| d.format("%-d %b %Y").to_string()),
                    updated_iso: doc.updated.map(|d| d.format("%Y-%m-%d").to_string()),
                    link: safe_link(&doc.url, &settings.base_url),
                })
                .collect();
            files.sort_by_cached_key(|f| f.name.to_lowercase());
            DocumentGroup {
                name: category.name.clone(),
                anchor,
                files,
            }
        })
        .collect()
}

/// An id-safe slug: ASCII letters and digits, joined by hyphens; `section` if nothing is left.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() {
        "section".into()
    } else {
        out
    }
}

fn feed(
    events: &EventIndex,
    summaries: &BTreeMap<EventKey, Arc<EventSummary>>,
    descriptions: &Descriptions,
    settings: &SiteSettings,
) -> (Vec<FeedEntry>, String) {
    let Some(site_url) = &settings.site_url else {
        return (Vec::new(), String::new());
    };
    let mut entries: Vec<(DateTime<Utc>, EventKey)> = summaries
        .iter()
        .filter(|(_, s)| s.status != EventStatus::Past)
        .map(|(key, _)| (events[key].0.start, *key))
        .collect();
    entries.sort();
    let stamp = |t: DateTime<Utc>| t.format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let mut newest: Option<DateTime<Utc>> = None;
    let feed = entries
        .into_iter()
        .map(|(_, key)| {
            let (event, ..) = events[&key];
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
            let body = &descriptions[&key];
            if !body.is_empty() {
                let short: String = body.chars().take(280).collect();
                text.push_str("\n\n");
                text.push_str(&short);
                if short.len() < body.len() {
                    text.push('…');
                }
            }
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
