//! Events: which page each record gets, where it stands at the build time, its summary for
//! the lists and its own page.

use super::calendar_links::google_event;
use super::outputs::EVENT_PAGE;
use super::positions::{Names, Position, position, position_cid};
use super::{BuildInputs, Instant, Texts, When, when};
use crate::banner_copies::LocalBanner;
use crate::model::{Event, SiteData, timestamp};
use crate::sanitize::description::{Sanitizer, html_to_text};
use crate::sanitize::links::{SafeLink, safe_image, safe_link};
use crate::settings::Settings;
use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

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
    /// The banner at the API's address, over https; shown where it is not served with the
    /// site ([`EventSummary::banner_copies`]).
    pub banner: Option<SafeLink>,
    /// The banner served with the site, copied at a few widths (`banners = "local"`).
    pub banner_copies: Option<Arc<LocalBanner>>,
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
    /// The description the API sent (markdown or HTML, untrusted), sanitized.
    pub description_html: String,
    /// The description's opening as plain text, for link previews (`og:description`).
    pub excerpt: Option<String>,
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
    /// When the event starts and ends, for the Google Calendar link.
    #[serde(skip)]
    span: (DateTime<Utc>, DateTime<Utc>),
    /// The CIDs its positions name, each once, sorted: the members who staff it, for their
    /// pages.
    #[serde(skip)]
    pub staffed_by: Vec<u64>,
}

impl EventPage {
    pub(super) fn start(&self) -> DateTime<Utc> {
        self.span.0
    }

    /// What the event's template gets: the page, and the link that opens Google Calendar's
    /// new-event form filled in with this event (`google_calendar`; none once the event is
    /// over). The link is 2 to 3 KB, made here rather than kept with the page.
    pub fn context(&self) -> serde_json::Result<Value> {
        let mut context = serde_json::to_value(self)?;
        if let Value::Object(fields) = &mut context {
            fields.insert("google_calendar".into(), self.google_calendar().into());
        }
        Ok(context)
    }

    /// The description as plain text, for the event's calendar, its Atom entry and its Google
    /// Calendar link: made where each needs it, as holding it for every event of a large
    /// division cost as much memory again as their pages' HTML.
    pub fn text(&self) -> String {
        html_to_text(&self.description_html)
    }

    /// The link that opens Google Calendar's new-event form filled in with this event; none
    /// once it is over.
    pub fn google_calendar(&self) -> Option<String> {
        let summary = &self.summary;
        (summary.status != EventStatus::Past).then(|| {
            google_event(
                &summary.name,
                self.span,
                &self.text(),
                &summary.route,
                self.canonical.as_deref(),
            )
        })
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct EventLists {
    pub upcoming: Vec<Arc<EventSummary>>,
    pub recent: Vec<Arc<EventSummary>>,
    pub recent_days: i64,
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
        let mut page = EVENT_PAGE.at(&self.folder_name());
        page.truncate(page.len() - "index.html".len());
        page
    }

    /// What fills in the event's files' paths: `412`, or `412-division`.
    pub fn folder_name(self) -> String {
        if self.division_copy {
            format!("{}-division", self.id)
        } else {
            self.id.to_string()
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
pub fn event_name(event: &Event, texts: &Texts) -> String {
    if event.name.is_empty() {
        texts.text("event.unnamed", &[("id", &event.id.to_string())])
    } else {
        event.name.clone()
    }
}

/// An event record and which lists carry it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Listed<'d> {
    pub event: &'d Event,
    pub facility: bool,
    pub division: bool,
}

/// Each event once, by key, with the lists that carry it.
pub(super) type EventIndex<'d> = BTreeMap<EventKey, Listed<'d>>;

/// One page per event: a facility event and the division's record of the same event are one
/// page (the facility's record wins, it carries the positions), marked as both. Returns the
/// index and the keys of each list, in the lists' order, each key once.
pub(super) fn index_events(data: &SiteData) -> (EventIndex<'_>, Vec<EventKey>, Vec<EventKey>) {
    let mut warned = std::collections::HashSet::new();
    let mut showable = |event: &&Event| {
        let keep = before_the_horizon(event);
        if !keep && warned.insert((event.id, event.start, event.name.clone())) {
            log::warn!(
                "event {} {} starts {} and ends {}: events reaching year {} or later are \
                 left out of the site and its calendars (calendar apps cannot work with dates \
                 so close to the end of year 9999); correct the event's date",
                event.id,
                crate::sanitize::quote::quoted_cut(&event.name, 80),
                event.start.format("%Y-%m-%d %H:%MZ"),
                event.effective_end().format("%Y-%m-%d %H:%MZ"),
                timestamp::CALENDAR_HORIZON_YEAR,
            );
        }
        keep
    };
    // Of each list, the first record of each id, in the list's order (a repeat adds
    // nothing), where it can be shown.
    let [facility, division] = [&data.facility_events, &data.division_events].map(|list| {
        let mut seen = std::collections::HashSet::new();
        let first = list.iter().filter(|e| seen.insert(e.id));
        first.filter(&mut showable).collect::<Vec<&Event>>()
    });
    let mut events: EventIndex = facility
        .iter()
        .map(|e| {
            let listed = Listed {
                event: e,
                facility: true,
                division: false,
            };
            (EventKey::shared(e.id), listed)
        })
        .collect();
    let mut division_keys = Vec::with_capacity(division.len());
    for event in division {
        let shared = EventKey::shared(event.id);
        let key = match events.get_mut(&shared) {
            Some(own) if own.event.name == event.name && own.event.start == event.start => {
                own.division = true;
                shared
            }
            Some(own) => {
                let key = EventKey {
                    id: event.id,
                    division_copy: true,
                };
                log::warn!(
                    "event {}: the facility lists {} starting {} and the division {} starting {}; \
                     both are kept, the division's at {}",
                    event.id,
                    crate::sanitize::quote::quoted_cut(&own.event.name, 80),
                    own.event.start.format("%Y-%m-%d %H:%MZ"),
                    crate::sanitize::quote::quoted_cut(&event.name, 80),
                    event.start.format("%Y-%m-%d %H:%MZ"),
                    key.url()
                );
                key
            }
            None => shared,
        };
        events.entry(key).or_insert(Listed {
            event,
            facility: false,
            division: true,
        });
        division_keys.push(key);
    }
    let facility_keys = facility.iter().map(|e| EventKey::shared(e.id)).collect();
    (events, facility_keys, division_keys)
}

/// Whether the event ends before [`timestamp::CALENDAR_HORIZON_YEAR`] (and so starts before
/// it). One that does not is left out of everything, not only the calendars: its page would
/// offer an "Add to calendar" file that cannot hold it, and the lists and feeds would show an
/// event the calendars lack.
fn before_the_horizon(event: &Event) -> bool {
    event.effective_end() < timestamp::calendar_horizon()
}

pub(super) fn route(event: &Event) -> String {
    let (dep, arr) = (&event.departure, &event.arrival);
    match (dep.is_empty(), arr.is_empty()) {
        // Neither given is the same list both ways: nothing.
        _ if dep == arr => dep.join(", "),
        (_, true) => dep.join(", "),
        (true, false) => arr.join(", "),
        (false, false) => format!("{} → {}", dep.join(", "), arr.join(", ")),
    }
}

/// The address a banner is read from at build time, as [`crate::banner_copies::Banners`]
/// keys it: the API's `image_url` made absolute against the API's address, any http(s).
pub fn banner_address(image_url: &str, base_url: &url::Url) -> Option<String> {
    safe_link(image_url, base_url).map(|link| link.href)
}

pub(super) fn summary(
    key: EventKey,
    listed: &Listed,
    settings: &Settings,
    inputs: &BuildInputs,
) -> EventSummary {
    let event = listed.event;
    let now = inputs.build_time;
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
        name: event_name(event, &inputs.texts),
        url: key.url(),
        when: when(event, settings.display_zone.map(|z| z.0), &inputs.texts),
        route: route(event),
        banner: event
            .image_url
            .as_deref()
            .and_then(|u| safe_image(u, &inputs.base_url)),
        banner_copies: (event.image_url.as_deref())
            .and_then(|u| banner_address(u, &inputs.base_url))
            .and_then(|address| inputs.banners.get(&address).cloned()),
        status,
        facility: listed.facility,
        division: listed.division,
    }
}

pub(super) fn event_lists(
    keys: &[EventKey],
    events: &EventIndex,
    summaries: &BTreeMap<EventKey, Arc<EventSummary>>,
    settings: &Settings,
    inputs: &BuildInputs,
) -> EventLists {
    let horizon = crate::model::timestamp::add_clamped(
        inputs.build_time,
        -TimeDelta::days(settings.recent_days.0),
    );
    // Each key once (see `index_events`); the lists sort by start, then key, the recent
    // latest first.
    let past = |key: &EventKey| summaries[key].status == EventStatus::Past;
    let (recent, upcoming): (Vec<EventKey>, Vec<EventKey>) = (keys.iter())
        .filter(|key| !past(key) || events[*key].event.effective_end() >= horizon)
        .partition(|key| past(key));
    let pick = |keys| {
        by_start(keys, events)
            .into_iter()
            .map(|key| summaries[&key].clone())
    };
    EventLists {
        upcoming: pick(upcoming).collect(),
        recent: pick(recent).rev().collect(),
        recent_days: settings.recent_days.0,
    }
}

/// `keys` by the start of their events, then by key: each start looked up once, not at each
/// comparison.
pub(super) fn by_start(
    keys: impl IntoIterator<Item = EventKey>,
    events: &EventIndex,
) -> Vec<EventKey> {
    let mut keys: Vec<EventKey> = keys.into_iter().collect();
    keys.sort_by_cached_key(|key| (events[key].event.start, *key));
    keys
}

/// An event's page, from its model, its description sanitized.
pub(super) fn event_page(
    (event, description): (&Event, &str),
    summary: Arc<EventSummary>,
    sanitizer: &Sanitizer,
    names: &Names,
    (settings, inputs): (&Settings, &BuildInputs),
) -> EventPage {
    // The same list both ways is shown once, as the airports.
    let (airports, departure, arrival) = match event.departure == event.arrival {
        true => (event.departure.clone(), Vec::new(), Vec::new()),
        false => (Vec::new(), event.departure.clone(), event.arrival.clone()),
    };
    let canonical = (settings.site_url.as_ref())
        .and_then(|u| u.0.join(&summary.url).ok())
        .map(|u| u.to_string());
    let description_html = sanitizer.render(description);
    let text = html_to_text(&description_html);
    let mut staffed_by: Vec<u64> = (event.positions.iter())
        .filter_map(|p| p.as_object().and_then(position_cid))
        .collect();
    staffed_by.sort_unstable();
    staffed_by.dedup();
    EventPage {
        staffed_by,
        canonical,
        description_html,
        excerpt: excerpt(&text, 200),
        span: (event.start, event.effective_end()),
        summary,
        airports,
        departure,
        arrival,
        positions: (event.positions.iter())
            .filter_map(|p| position(p, names, &inputs.texts))
            .collect(),
        participants: (settings.facilities.iter())
            .filter(|(bit, _)| {
                event
                    .facilities
                    .is_some_and(|mask| mask as u64 & bit.0 != 0)
            })
            .map(|(_, name)| name.trim().to_owned())
            .collect(),
        updated: event.updated_at.or(event.created_at).map(Instant::new),
    }
}

/// The first words of `text`, at most about `limit` characters, cut at a word and marked with
/// an ellipsis when cut; `None` for empty text.
pub(super) fn excerpt(text: &str, limit: usize) -> Option<String> {
    // Words are joined only until the limit is passed: a description may be long. Room for
    // the limit in ASCII: an excerpt is kept for every event, so room for four bytes a
    // character would be three quarters empty in most.
    let mut joined = String::with_capacity(text.len().min(limit + 8));
    let mut chars = 0;
    for word in text.split_whitespace() {
        if chars > limit {
            break;
        }
        if !joined.is_empty() {
            joined.push(' ');
            chars += 1;
        }
        joined.push_str(word);
        chars += word.chars().count();
    }
    if joined.is_empty() {
        return None;
    }
    if chars <= limit {
        return Some(joined);
    }
    let end = joined
        .char_indices()
        .nth(limit)
        .map_or(joined.len(), |(at, _)| at);
    let cut = &joined[..end];
    let cut = match cut.rfind(' ') {
        Some(space) if space > limit / 2 => &cut[..space],
        _ => cut,
    };
    let shown = cut.trim_end_matches([',', '.', ';', ':']).len();
    joined.truncate(shown);
    joined.push('…');
    Some(joined)
}

#[cfg(test)]
impl EventPage {
    /// The page of `summary` with nothing else on it, for tests of what is made of pages
    /// (whose fields they then set).
    pub fn of_summary(summary: EventSummary) -> Self {
        Self {
            summary: Arc::new(summary),
            description_html: String::new(),
            excerpt: None,
            airports: Vec::new(),
            departure: Vec::new(),
            arrival: Vec::new(),
            positions: Vec::new(),
            participants: Vec::new(),
            updated: None,
            canonical: None,
            span: (DateTime::UNIX_EPOCH, DateTime::UNIX_EPOCH),
            staffed_by: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::excerpt;

    /// The rule as first written: all the words joined, then cut.
    fn excerpt_of_whole_text(text: &str, limit: usize) -> Option<String> {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if text.is_empty() {
            return None;
        }
        if text.chars().count() <= limit {
            return Some(text);
        }
        let cut: String = text.chars().take(limit).collect();
        let cut = match cut.rfind(' ') {
            Some(space) if space > limit / 2 => &cut[..space],
            _ => &cut,
        };
        Some(format!("{}…", cut.trim_end_matches([',', '.', ';', ':'])))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// Joining words only up to the limit cuts where joining them all did, at the limit
        /// and just around it.
        #[test]
        fn the_excerpt_is_cut_where_the_whole_text_would_be(
            text in "([a-zé✈,.]{0,12}[ \n\t\r\x0b\x0c\u{85}\u{a0}\u{2003}\u{3000}]{1,3}){0,30}",
            limit in 0usize..60,
        ) {
            proptest::prop_assert_eq!(excerpt(&text, limit), excerpt_of_whole_text(&text, limit));
        }
    }

    #[test]
    fn a_long_description_is_cut_at_a_word_with_an_ellipsis() {
        assert_eq!(
            excerpt("Join us  for\nthe  Caribbean night, with charts.", 20).as_deref(),
            Some("Join us for the…")
        );
        assert_eq!(excerpt("  short \n", 20).as_deref(), Some("short"));
        assert_eq!(excerpt(" \n ", 20), None);
    }
}
