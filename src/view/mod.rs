//! The view model: what each page shows, decided once, in plain serializable structs.
//!
//! Everything a template needs is computed here (sorted, formatted, made safe), so templates
//! only lay it out, and each page's context holds only that page's data. Times are UTC and
//! shown as Zulu; a display zone, when configured, adds local time beside them.
//!
//! One file per page kind (`events.rs`, `roster.rs`, `documents.rs`), the feeds (`feeds.rs`),
//! what every page shares (`site.rs`, `time.rs`), and the private reports ([`report`]); this
//! file puts the site's views together.

mod calendar_links;
mod content;
mod documents;
mod events;
mod feeds;
mod identity;
pub mod outputs;
pub mod report;
mod roster;
mod settings;
mod site;
pub mod texts;
mod time;

pub use content::{ContentPageView, ContentView, HomeIntro, MenuItem, PageLink, add_content};
pub use documents::{DocumentGroup, DocumentRow, slug};
pub use events::{
    EventKey, EventLists, EventPage, EventStatus, EventSummary, Position, event_name,
};
pub use feeds::{CalendarEntry, CalendarFeeds, FeedEntry};
pub use identity::{AccentView, accent};
pub use roster::{PersonRow, RatingCount, RosterPage, StaffRow, rating_names, roster_page};
pub use settings::{
    DEFAULT_FEED_LIMIT, FeedSettings, MenuEntry, MenuTarget, Sections, SiteFile, SiteSettings,
};
pub use site::{Calendars, FacilityView, Favicon, Site};
pub use texts::Texts;
pub use time::{Instant, When, when};

use crate::model::SiteData;
use crate::sanitize::description::{Sanitizer, html_to_text};
use events::{Listed, event_lists, event_page, index_events, roster_names, summary};
use feeds::{Descriptions, calendar_feeds, feed};
use serde::Serialize;
use site::site_view;
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Clone, Debug, Serialize)]
pub struct HomePage {
    pub staff: Vec<StaffRow>,
    pub next_events: Vec<Arc<EventSummary>>,
    pub controllers: usize,
    pub visitors: usize,
    pub documents: usize,
    pub upcoming_facility: usize,
    pub upcoming_division: usize,
    /// `content/_index.md`, when the site folder has one.
    pub intro: Option<HomeIntro>,
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
    /// The webmaster's own pages ([`add_content`]).
    pub content: ContentView,
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
    let list: Vec<(EventKey, Listed)> = events.iter().map(|(k, l)| (*k, *l)).collect();
    let per_event = crate::parallel::in_parallel(&list, |(key, listed)| {
        let summary = Arc::new(summary(*key, listed, settings));
        let html = sanitizer.render(&listed.event.description);
        let text = html_to_text(&html);
        let mut page = event_page(
            listed.event,
            Arc::clone(&summary),
            (html, &text),
            &names,
            settings,
        );
        page.excerpt = events::excerpt(&text, 200);
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

    let mut roster = roster_page(&data.roster, &settings.texts);
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
        intro: None,
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
        documents: documents::documents(data, settings),
        event_pages,
        feed,
        feed_updated,
        calendars,
        content: ContentView::default(),
    }
}
