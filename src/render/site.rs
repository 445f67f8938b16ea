//! Rendering the site: each page's template with that page's view, plus feeds, sitemap and
//! static files, each handed to a sink as soon as it is made. Publishing them is the next
//! stage's job.

use crate::parallel::map_parallel;
use crate::render::ical;
use crate::render::page::{Page, SiteContext, render_page};
pub use crate::render::sink::{Rendered, Sink};
use crate::render::theme::Theme;
use crate::settings::Sections;
use crate::view::outputs::{self, Output};
use crate::view::{EventKey, EventPage, SiteView};
use anyhow::Result;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::HashMap;

/// A page of its own for each section.
struct SectionPage {
    output: &'static Output,
    template: &'static str,
    section: &'static str,
    /// The title's text key; `None`: the site's title.
    title: Option<&'static str>,
    /// The name the page's data goes under in the template.
    name: &'static str,
    /// Made on the rendering thread: an event list is large.
    data: fn(&SiteView) -> Result<Value>,
}

const SECTION_PAGES: [SectionPage; 7] = [
    SectionPage {
        output: &outputs::HOME,
        template: "index.html",
        section: "home",
        title: None,
        name: "home",
        data: |v| to_value(&v.home),
    },
    SectionPage {
        output: &outputs::ROSTER,
        template: "roster.html",
        section: "roster",
        title: Some("page.roster"),
        name: "roster",
        data: |v| to_value(&v.roster),
    },
    SectionPage {
        output: &outputs::EVENTS,
        template: "events.html",
        section: "events",
        title: Some("page.events"),
        name: "events",
        data: |v| to_value(&v.facility_events),
    },
    SectionPage {
        output: &outputs::DIVISION,
        template: "division.html",
        section: "division",
        title: Some("page.division"),
        name: "events",
        data: |v| to_value(&v.division_events),
    },
    SectionPage {
        output: &outputs::DOCUMENTS,
        template: "documents.html",
        section: "documents",
        title: Some("page.documents"),
        name: "documents",
        data: |v| to_value(&v.documents),
    },
    SectionPage {
        output: &outputs::LIVE,
        template: "live.html",
        section: "live",
        title: Some("page.live"),
        name: "live",
        data: |v| to_value(&v.live),
    },
    SectionPage {
        output: &outputs::WHATS_NEW,
        template: "whats-new.html",
        section: "whats_new",
        title: Some("whats_new.title"),
        name: "whats_new",
        data: |v| to_value(&v.whats_new),
    },
];

/// The other templates a site renders by name, and the file each makes.
const OTHER_TEMPLATES: [(&Output, &str); 6] = [
    (&outputs::EVENT_PAGE, "event.html"),
    (&outputs::PERSON_PAGE, "person.html"),
    (&outputs::NOT_FOUND, "404.html"),
    (&outputs::SITEMAP, "sitemap.xml"),
    (&outputs::FEED, "feed.xml"),
    (&outputs::WHATS_NEW_FEED, "whats-new.xml"),
];

/// The built-in templates a site's build renders itself, with `sections`, with a site's
/// address or without (`has_site_url`), and with content pages or none (`content`): the
/// theme parses these and the templates they name, and no other built-in one.
pub fn templates_rendered(
    sections: &Sections,
    has_site_url: bool,
    content: bool,
) -> Vec<&'static str> {
    let written = |output: &Output| output.is_written(sections, has_site_url);
    let pages = SECTION_PAGES
        .iter()
        .map(|page| (page.output, page.template));
    let mut names: Vec<&'static str> = (pages.chain(OTHER_TEMPLATES))
        .filter(|(output, _)| written(output))
        .map(|(_, template)| template)
        .collect();
    if content {
        names.extend(["page.html", "section.html"]);
    }
    names
}

/// Renders every file of the site and hands each to `sink` as soon as it is made: each
/// event's page and calendar on every core, and beside them, on a thread of its own, the
/// section pages, the 404 page and the sitemap; then the feeds, which list every event.
pub fn render(mut view: SiteView, theme: &Theme, sink: Sink) -> Result<()> {
    let site = SiteContext::new(serde_json::to_value(&view.site)?, view.extra.clone());
    // Each event's page is dropped once its files are made: a large division's pages are
    // most of the build's memory.
    let event_pages = std::mem::take(&mut view.event_pages);
    let event_urls: Vec<String> = event_pages.iter().map(|e| e.summary.url.clone()).collect();
    let view = &view;
    let site_url = view.site.site_url.as_deref();
    let blocks = std::thread::scope(|scope| {
        let site_wide = scope.spawn(|| site_wide_files(view, theme, &site, &event_urls, sink));
        let blocks = map_parallel(event_pages, |event| {
            let page = event_page(&event, site_url);
            let html = render_page(theme, &site, view, &page, "event", event.context()?)?;
            sink(Rendered::new(&outputs::EVENT_PAGE, page.path, html))?;
            let block = single_calendar(&view.calendars, &event, sink)?;
            Ok(block.map(|block| (event.summary.key, block)))
        });
        let site_wide = site_wide.join().expect("rendering does not panic");
        site_wide.and(blocks)
    })?;
    if view.site.site_url.is_some() {
        atom_feed(view, theme, &site, sink)?;
    }
    crate::render::data::events_feed(view, sink)?;
    let blocks: HashMap<EventKey, ical::VEvent> = blocks.into_iter().flatten().collect();
    calendar_feeds(view, &blocks, sink)
}

/// The Atom feed of the upcoming events.
fn atom_feed(view: &SiteView, theme: &Theme, site: &SiteContext, sink: Sink) -> Result<()> {
    let mut context = site.context();
    context.insert("entries", &view.feed);
    context.insert("updated", &view.feed_updated);
    sink(Rendered::new(
        &outputs::FEED,
        outputs::FEED.path,
        theme.render("feed.xml", &context)?,
    ))
}

fn site_wide_files(
    view: &SiteView,
    theme: &Theme,
    site: &SiteContext,
    event_urls: &[String],
    sink: Sink,
) -> Result<()> {
    let section_pages: Vec<(Page, &SectionPage)> = SECTION_PAGES
        .iter()
        .filter(|s| s.output.is_written(&view.site.sections, view.site.has_feed))
        .map(|s| {
            let page = Page {
                path: s.output.path.to_owned(),
                template: s.template,
                section: s.section,
                title: s.title.map_or_else(
                    || view.site.title.clone(),
                    |key| theme.texts().text(key, &[]),
                ),
                description: None,
                image: None,
            };
            (page, s)
        })
        .collect();
    for (page, section) in &section_pages {
        let data = (section.data)(view)?;
        let html = render_page(theme, site, view, page, section.name, data)?;
        sink(Rendered::new(section.output, page.path.clone(), html))?;
    }
    for content in &view.content.pages {
        let page = Page {
            path: format!("{}index.html", content.url),
            template: &content.template,
            section: "content",
            title: content.title.clone(),
            description: content.description.clone(),
            image: None,
        };
        let html = render_page(theme, site, view, &page, "content", to_value(content)?)?;
        sink(Rendered::new(&outputs::CONTENT_PAGE, page.path, html))?;
    }

    for person in &view.people {
        let page = Page {
            path: outputs::PERSON_PAGE.at(&person.row.cid.to_string()),
            template: "person.html",
            section: "roster",
            title: person.row.name.clone(),
            description: Some(person.description.clone()),
            image: None,
        };
        let html = render_page(theme, site, view, &page, "person", to_value(person)?)?;
        sink(Rendered::new(&outputs::PERSON_PAGE, page.path, html))?;
    }

    not_found_page(view, theme, site, sink)?;

    if let Some(site_url) = &view.site.site_url {
        // Member pages are listed only where the facility lets search engines index them.
        let indexed_people = view.people.iter().filter(|person| person.index);
        let urls: Vec<String> = section_pages
            .iter()
            .map(|(page, _)| page.url())
            .chain(view.content.pages.iter().map(|c| c.url.clone()))
            .chain(event_urls.iter().cloned())
            .chain(indexed_people.filter_map(|person| person.row.page.clone()))
            .map(|u| format!("{site_url}{u}"))
            .collect();
        let mut context = site.context();
        context.insert("urls", &urls);
        sink(Rendered::new(
            &outputs::SITEMAP,
            outputs::SITEMAP.path,
            theme.render("sitemap.xml", &context)?,
        ))?;
    } else {
        log::warn!(
            "no --site-url: sitemap.xml, feed.xml and calendar subscribe links are left out, since they need absolute addresses"
        );
    }

    crate::render::data::render(view, theme, site, sink)?;
    for (name, bytes) in theme.static_files() {
        sink(Rendered::new(
            &outputs::STATIC,
            outputs::STATIC.at(name),
            bytes.clone(),
        ))?;
    }
    Ok(())
}

/// The 404 page: served at any depth, so its links start from the site's own path.
fn not_found_page(view: &SiteView, theme: &Theme, site: &SiteContext, sink: Sink) -> Result<()> {
    let mut context = site.context();
    let root_path = view
        .site
        .site_url
        .as_deref()
        .and_then(|u| url::Url::parse(u).ok())
        .map(|u| u.path().to_owned())
        .unwrap_or_else(|| "/".into());
    context.insert("root", &root_path);
    context.insert(
        "page",
        &json!({
            "section": "",
            "title": theme.texts().text("page.not_found", &[]),
            "url": outputs::NOT_FOUND.path,
            "canonical": null,
            "description": null,
            "image": null,
            "image_wide": false,
        }),
    );
    sink(Rendered::new(
        &outputs::NOT_FOUND,
        outputs::NOT_FOUND.path,
        theme.render("404.html", &context)?,
    ))
}

/// An event's page. Its social image is the banner's widest copy where the site serves it
/// (at the site's address: a preview needs an absolute one), else the API's address.
fn event_page(event: &EventPage, site_url: Option<&str>) -> Page<'static> {
    let summary = &event.summary;
    let image = match (&summary.banner_copies, site_url) {
        (Some(copies), Some(site_url)) => Some(format!("{site_url}{}", copies.src)),
        (Some(_), None) => None,
        (None, _) => summary.banner.as_ref().map(|banner| banner.href.clone()),
    };
    Page {
        path: format!("{}index.html", event.summary.url),
        template: "event.html",
        section: if event.summary.facility {
            "events"
        } else {
            "division"
        },
        title: event.summary.name.clone(),
        description: event.excerpt.clone(),
        image: image.map(|image| (image, true)),
    }
}

/// One event's own calendar, beside its page; and its VEVENT, for the feeds.
fn single_calendar(
    feeds: &crate::view::CalendarFeeds,
    event: &EventPage,
    sink: Sink,
) -> Result<Option<ical::VEvent>> {
    let key = event.summary.key;
    let Some(entry) = feeds.entries.get(&key) else {
        return Ok(None);
    };
    let block = ical::vevent(entry, &entry.description(&event.text()));
    let single = ical::FeedSettings {
        name: entry.name.clone(),
        description: String::new(),
        refresh_minutes: feeds.facility.refresh_minutes,
        empty: feeds.facility.empty.clone(),
    };
    sink(Rendered::new(
        &outputs::EVENT_CALENDAR,
        entry.path.clone(),
        ical::assemble(&single, &[&block], &feeds.uid_host),
    ))?;
    Ok(Some(block))
}

/// The facility's, the bookings' and the division's feeds, each of every event's VEVENT
/// (`blocks`, written once with its page) that it lists.
fn calendar_feeds(
    view: &SiteView,
    blocks: &HashMap<EventKey, ical::VEvent>,
    sink: Sink,
) -> Result<()> {
    let feeds = &view.calendars;
    let listed = |keys: &[EventKey]| -> Vec<&ical::VEvent> {
        keys.iter().filter_map(|key| blocks.get(key)).collect()
    };
    let bookings: Vec<ical::VEvent> = (view.bookings_calendar.entries.iter())
        .map(ical::booking_vevent)
        .collect();
    let calendars = [
        (
            &outputs::FACILITY_CALENDAR,
            &feeds.facility,
            listed(&feeds.facility_ids),
        ),
        (
            &outputs::BOOKINGS_CALENDAR,
            &feeds.bookings,
            bookings.iter().collect(),
        ),
        (
            &outputs::DIVISION_CALENDAR,
            &feeds.division,
            listed(&feeds.division_ids),
        ),
    ];
    for (output, settings, events) in calendars {
        if output.is_written(&view.site.sections, view.site.has_feed) {
            let text = ical::assemble(settings, &events, &feeds.uid_host);
            sink(Rendered::new(output, output.path, text))?;
        }
    }
    Ok(())
}

fn to_value(value: &impl Serialize) -> Result<Value> {
    Ok(serde_json::to_value(value)?)
}
