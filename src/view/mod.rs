//! The view model: what each page shows, decided once, in plain serializable structs.
//!
//! Everything a template needs is computed here (sorted, formatted, made safe), so templates
//! only lay it out, and each page's context holds only that page's data. Times are UTC and
//! shown as Zulu; a display zone, when configured, adds local time beside them.
//!
//! One file per page kind (`events.rs`, `roster.rs`, `documents.rs`), the feeds (`feeds.rs`),
//! what every page shares (`site.rs`, `time.rs`), and the private reports ([`report`]); this
//! file puts the site's views together.

pub mod activity;
pub mod activity_report;
mod calendar_links;
mod content;
mod documents;
mod events;
mod feeds;
mod identity;
mod live;
mod month;
pub mod outputs;
mod people;
mod positions;
mod public_data;
pub mod report;
mod roster;
mod settings;
mod site;
mod time;
pub use time::push_basic_utc;
mod whats_new;

pub use crate::i18n::Texts;
pub use content::{
    ContentPageView, ContentView, GeneratedAnchor, HomeIntro, MenuItem, PageLink, add_content,
    check_generated_anchors, ids_in, menu_renames,
};
pub use documents::{DocumentGroup, DocumentRow};
pub use events::{
    EventKey, EventLists, EventPage, EventStatus, EventSummary, banner_address, event_name,
};
pub use feeds::{CalendarEntry, CalendarFeeds, FeedEntry};
pub use identity::{AccentView, HeaderColours, HeaderView, accent, header};
pub use live::{
    BookingDay, BookingEntry, BookingRow, BookingsCalendar, LivePage, SAMPLE_FEED_PATH, is_ours,
    our_prefixes, ours_not_ended,
};
pub use month::{MonthSummary, MonthTop, Ranked, SummaryEntry};
pub use people::{PersonPage, StaffPost};
pub use positions::Position;
pub use public_data::PublicData;
pub use roster::{
    PersonRow, RatingCount, RosterPage, StaffHolder, StaffRow, rating_names, roster_page,
};
pub use settings::{
    BuildInputs, DEFAULT_FEED_LIMIT, FeedSettings, LogoFile, MenuEntry, MenuTarget, Sections,
    Settings, SiteFile,
};
pub use site::{CalendarLinks, FacilityView, Favicon, LogoSize, Site};
pub use time::{Instant, When, when};
pub use whats_new::{Change, WhatsNew, document_id};

use crate::model::SiteData;
use crate::sanitize::description::Sanitizer;
use crate::sanitize::frames::FrameTags;
use events::{EventIndex, Listed, event_lists, event_page, index_events, summary};
use feeds::{calendar_feeds, feed};
use positions::{Names, roster_names};
use serde::Serialize;
use site::site_view;
use std::collections::{BTreeMap, HashMap};
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
    /// The paragraph under the home page's heading, in the site's language where the
    /// webmaster gives one: `content/_index.md`'s `description`; else nothing when that file
    /// has a text of its own (which then opens the page); else the facility's description
    /// from the API.
    pub lead: Option<String>,
    /// `content/_index.md`, when the site folder has one.
    pub intro: Option<HomeIntro>,
    /// The latest few changes (the What's new page has them all).
    pub whats_new: Vec<Change>,
    /// The live block: who is on now (shown by the browser script) and the bookings of the
    /// next 24 hours; `None` with the live page off.
    pub live: Option<LivePage>,
    /// The month's most active controllers; `None` unless `[activity] home_top` is on.
    pub month_top: Option<MonthTop>,
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
    /// One page per roster member not opted out, sorted by CID; none with `[people]` off.
    pub people: Vec<PersonPage>,
    pub feed: Vec<FeedEntry>,
    /// The newest `updated` of the feed's entries.
    pub feed_updated: String,
    pub calendars: CalendarFeeds,
    /// The webmaster's own pages ([`add_content`]).
    pub content: ContentView,
    /// The changes since earlier builds, for the What's new page.
    pub whats_new: WhatsNew,
    /// The live page: the bookings, and what its script reads.
    pub live: LivePage,
    /// The bookings calendar's entries.
    pub bookings_calendar: BookingsCalendar,
    /// The public JSON files and the What's new feed.
    pub public: PublicData,
    /// The frames wide tables and code blocks scroll in, named in the site's language: the
    /// descriptions got theirs in [`build`], the webmaster's pages get theirs in
    /// [`add_content`].
    pub frames: FrameTags,
    /// `[extra]` of the config file, as every template gets it (`extra`): an object.
    pub extra: serde_json::Value,
}

/// The data the sections show: one that is switched off contributes no pages, no events
/// and no calendar.
fn in_sections(data: &mut SiteData, sections: Sections) {
    if !sections.events {
        data.facility_events = Vec::new();
    }
    if !sections.division {
        data.division_events = Vec::new();
    }
}

/// The frames wide tables and code blocks scroll in, named in the site's language: in event
/// descriptions and in the webmaster's pages alike.
fn scroll_frames(texts: &Texts) -> FrameTags {
    FrameTags::new(
        &texts.text("frame.table", &[]),
        &texts.text("frame.code", &[]),
    )
}

/// Every event's description as the API sent it, taken out of the models, by whether it is
/// the facility's list and its id (the first record of each, the one [`index_events`] keeps):
/// each is dropped once its page has the sanitized HTML. Held beside every page's HTML, the
/// descriptions of 10,000 events took a build past 200 MiB.
fn take_descriptions(data: &mut SiteData) -> HashMap<(bool, u64), String> {
    let mut taken = HashMap::new();
    for (facility, list) in [
        (true, &mut data.facility_events),
        (false, &mut data.division_events),
    ] {
        for event in list {
            (taken.entry((facility, event.id)))
                .or_insert_with(|| std::mem::take(&mut event.description));
        }
    }
    taken
}

/// How many upcoming events the home page lists.
const HOME_EVENTS: usize = 5;

/// The site's views from the data, the webmaster's settings and what this run decided.
pub fn build(mut data: SiteData, settings: &Settings, inputs: &BuildInputs) -> SiteView {
    in_sections(&mut data, settings.sections);
    let written_names = people::apply_names(&mut data.roster, &settings.people);
    let descriptions = take_descriptions(&mut data);
    let data = &data;
    let frames = scroll_frames(&inputs.texts);
    let sanitizer = Sanitizer::new(&inputs.base_url).with_frames(frames.clone());
    let site = site_view(data, settings, inputs);

    let (events, facility_keys, division_keys) = index_events(data);
    let (summaries, event_pages) = event_views(
        &events,
        descriptions,
        (&sanitizer, &roster_names(&data.roster, written_names)),
        settings,
        inputs,
    );
    let [facility_events, division_events] = [&facility_keys, &division_keys]
        .map(|keys| event_lists(keys, &events, &summaries, settings, inputs));

    let (roster, mut people) = roster_views(data, settings, inputs);
    let first_sessions = activity::first_sessions(
        &data.roster,
        settings,
        inputs.activity.as_deref(),
        inputs.build_time,
    );
    let documents = documents::documents(data, inputs);
    let mut whats_new = whats_new::whats_new(
        &data.roster,
        (&events, &summaries),
        (&documents, &first_sessions),
        settings,
        inputs,
    );

    let (feed, feed_updated) = feed(&events, (&summaries, &event_pages), settings);
    let calendars = calendar_feeds(
        (&facility_keys, &division_keys),
        &events,
        &summaries,
        &site,
        (settings, inputs),
    );

    let (live, bookings_calendar) = live::live_page(
        inputs.bookings.as_deref(),
        &data.roster,
        settings,
        (inputs.build_time, &inputs.texts, &calendars.uid_host),
    );
    let live_on = settings.sections.live.then_some(&live);
    people::add_to_pages(&mut people, &mut whats_new, live_on, &event_pages);
    let (month_top, month_summary) =
        month::month_views(&data.roster, &first_sessions, settings, inputs, &people);
    let home = HomePage {
        staff: roster.staff.clone(),
        next_events: next_events(&summaries, HOME_EVENTS),
        controllers: data.roster.controllers.len(),
        visitors: data.roster.visitors.len(),
        documents: data.documents.iter().map(|c| c.files.len()).sum(),
        upcoming_facility: facility_events.upcoming.len(),
        upcoming_division: division_events.upcoming.len(),
        lead: site.facility.description.clone(),
        intro: None,
        live: live_on.cloned(),
        month_top,
        whats_new: (whats_new.changes.iter())
            .take(whats_new::HOME_CHANGES)
            .cloned()
            .collect(),
    };
    let public = public_data::public_data(
        (&whats_new, month_summary),
        &roster,
        &event_pages,
        &site,
        inputs,
    );
    SiteView {
        site,
        home,
        roster,
        facility_events,
        division_events,
        documents,
        event_pages,
        people,
        feed,
        feed_updated,
        calendars,
        content: ContentView::default(),
        whats_new,
        live,
        bookings_calendar,
        public,
        frames,
        extra: serde_json::Value::Object(settings.extra.clone()),
    }
}

/// The roster page (the staff's addresses from the config, the activity columns, the links
/// to the member pages) and the member pages.
fn roster_views(
    data: &SiteData,
    settings: &Settings,
    inputs: &BuildInputs,
) -> (RosterPage, Vec<PersonPage>) {
    let mut roster = roster_page(&data.roster, &inputs.texts);
    for row in &mut roster.staff {
        row.email = roster::staff_email(&settings.staff_emails, row.code).map(|e| e.0.clone());
    }
    activity::add_to_roster(
        &mut roster,
        inputs.activity.as_deref(),
        &data.roster,
        settings,
        inputs.build_time,
    );
    // Member pages sit below the roster's: none without it.
    let people = match settings.sections.roster {
        true => people::people_pages(&mut roster, &data.roster, settings, inputs),
        false => Vec::new(),
    };
    (roster, people)
}

/// Each event's summary and page (its description sanitized, the costliest step), made on
/// every core.
fn event_views(
    events: &EventIndex,
    mut descriptions: HashMap<(bool, u64), String>,
    (sanitizer, names): (&Sanitizer, &Names),
    settings: &Settings,
    inputs: &BuildInputs,
) -> (BTreeMap<EventKey, Arc<EventSummary>>, Vec<EventPage>) {
    let list: Vec<(&EventKey, &Listed, String)> = (events.iter())
        .map(|(key, listed)| {
            let record = (listed.facility, listed.event.id);
            (
                key,
                listed,
                descriptions.remove(&record).unwrap_or_default(),
            )
        })
        .collect();
    let per_event = crate::parallel::map_parallel(list, |(key, listed, description)| {
        let summary = Arc::new(summary(*key, listed, settings, inputs));
        let page = event_page(
            (listed.event, &description),
            Arc::clone(&summary),
            sanitizer,
            names,
            (settings, inputs),
        );
        Ok(((*key, summary), page))
    })
    .expect("building the view cannot fail");
    per_event.into_iter().unzip()
}

/// The next events the home page lists: not past, soonest first, at most `count`.
fn next_events(
    summaries: &BTreeMap<EventKey, Arc<EventSummary>>,
    count: usize,
) -> Vec<Arc<EventSummary>> {
    let mut next_events: Vec<Arc<EventSummary>> = summaries
        .values()
        .filter(|s| s.status != EventStatus::Past)
        .cloned()
        .collect();
    next_events.sort_by(|a, b| (&a.when.start.iso, a.id).cmp(&(&b.when.start.iso, b.id)));
    next_events.truncate(count);
    next_events
}

/// What the pages that show who is on now may connect to: their own origin (the server's
/// sample feed in `serve --demo`) and the data feed's. The feed's origin goes into their
/// Content-Security-Policy, so only one whose host is a plain name or IP address (as the
/// config's rule has it, [`crate::settings::is_host_name`]) is written there: nothing in it
/// can end the source list.
fn live_connect_src(live: &crate::settings::Live) -> String {
    let url = &live.feed.url;
    match url.host() {
        Some(host) if !live.sample_feed && crate::settings::is_host_name(&host) => {
            format!("'self' {}", url.origin().ascii_serialization())
        }
        _ => "'self'".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use crate::i18n::{BUILT_IN, Catalogue};
    use crate::model::previous::ChangeId;
    use crate::model::{Rating, StaffRole};
    use std::collections::BTreeSet;

    /// The config refuses such an address (settings' tests), but settings are made in code
    /// too (`serve --demo`, tests): the policy takes the feed's origin only where its host is
    /// a plain name or address, whatever made it.
    #[test]
    fn the_feeds_origin_goes_into_the_policy_only_where_nothing_in_it_can_end_a_source() {
        let mut live = crate::settings::Settings::default().live;
        assert_eq!(
            super::live_connect_src(&live),
            "'self' https://data.vatsim.net"
        );
        for hostile in [
            "https://x;script-src/v3/vatsim-data.json",
            "https://x,y/",
            "https://x'y/",
            "https://x\"y/",
            "https://x_y/",
        ] {
            live.feed.url = url::Url::parse(hostile).unwrap();
            assert_eq!(super::live_connect_src(&live), "'self'", "{hostile}");
        }
        live.feed.url = url::Url::parse("http://[::1]:8080/feed.json").unwrap();
        assert_eq!(super::live_connect_src(&live), "'self' http://[::1]:8080");
        live.sample_feed = true;
        assert_eq!(super::live_connect_src(&live), "'self'");
    }

    /// The keys the program writes with itself, not through a template (`Texts::text`, which
    /// shows the key itself where a catalogue lacks it): the ones written out in the source
    /// (every string of the form `section.key` whose section is one of the English
    /// catalogue's), and the ones put together with `format!` (day and month names, ratings,
    /// staff titles).
    #[test]
    fn every_key_the_program_writes_is_in_every_built_in_catalogue() {
        let english = Catalogue::parse(BUILT_IN[0].1, "en").unwrap();
        let sections: BTreeSet<&str> = english
            .entries
            .keys()
            .filter_map(|k| k.split('.').next())
            .collect();
        let is_key = |text: &str| {
            let mut parts = text.split('.');
            let section = parts.next().unwrap_or("");
            text.contains('.')
                && sections.contains(section)
                && text.split('.').all(|p| {
                    !p.is_empty()
                        && p.chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                })
                && ![
                    "html", "toml", "md", "ics", "xml", "css", "js", "json", "txt", "svg", "png",
                ]
                .iter()
                .any(|extension| text.ends_with(&format!(".{extension}")))
        };
        let mut keys = BTreeSet::new();
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        for entry in walkdir::WalkDir::new(&src) {
            let path = entry.unwrap().into_path();
            if path.extension().is_some_and(|e| e == "rs") && !path.starts_with(src.join("i18n")) {
                let text = std::fs::read_to_string(&path).unwrap();
                // The program's own code, not its tests (whose strings quote templates).
                let code = text
                    .split("#[cfg(test)]\nmod tests")
                    .next()
                    .unwrap_or(&text);
                // Between quotes every other piece: escaped quotes cannot hide a key, as
                // keys hold none.
                for piece in code.split('"').skip(1).step_by(2) {
                    if is_key(piece) {
                        keys.insert(piece.to_owned());
                    }
                }
            }
        }
        assert!(
            keys.len() >= 25,
            "only {} literal keys found: {keys:?}",
            keys.len()
        );
        for group in ["weekdays", "weekdays_short"] {
            keys.extend(super::time::WEEKDAYS.map(|day| format!("time.{group}.{day}")));
        }
        keys.extend(super::time::MONTHS.map(|month| format!("time.months_short.{month}")));
        keys.extend(super::time::MONTHS.map(|month| format!("time.months.{month}")));
        keys.extend((-1..=12).map(|n| format!("rating.{}", Rating::from_number(n).code())));
        keys.extend(
            StaffRole::ALL.map(|role| format!("staff.{}", role.code().to_ascii_lowercase())),
        );
        let doc = || "doc-1".to_owned();
        for change in [
            ChangeId::NewMember(1),
            ChangeId::NewVisitor(1),
            ChangeId::FirstSession(1),
            ChangeId::Promotion(1, Rating::S2),
            ChangeId::NewEvent("412".into()),
            ChangeId::EventChanged("412".into(), "0".into()),
            ChangeId::NewDocument(doc()),
            ChangeId::DocumentUpdated(doc(), chrono::NaiveDate::MIN),
            ChangeId::DocumentRenamed(doc()),
        ] {
            for part in ["kind", "title"] {
                keys.insert(format!("whats_new.{part}_{}", change.kind()));
            }
        }
        for (language, text) in BUILT_IN {
            let catalogue = Catalogue::parse(text, language).unwrap();
            let has = |key: &str| catalogue.entries.contains_key(key);
            let missing: Vec<&String> = keys
                .iter()
                .filter(|key| {
                    !(has(key) || has(&format!("{key}.one")) && has(&format!("{key}.other")))
                })
                .collect();
            assert!(
                missing.is_empty(),
                "the {language} catalogue lacks {missing:?}"
            );
        }
    }
}
