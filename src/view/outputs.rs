//! What the site writes, in one table: each file's path (or the pattern of a family of them),
//! what it is, and what turns it off. The rendering writes these paths, the check that no
//! content page lands on one of them reads them, `build` counts its summary by their kinds,
//! and docs/output.md's "What it writes" lists them (a test holds it to this table).

use super::Sections;

/// One file, or one family of files, that the site writes.
#[derive(Debug, PartialEq, Eq)]
pub struct Output {
    /// Relative to the site root, with `/` separators. A family's has one `<…>` part that each
    /// file fills in ([`Output::at`]): `events/<id>/index.html`.
    pub path: &'static str,
    pub kind: Kind,
    pub written: Written,
    /// What it is, in messages: "the roster page". A family's names one of it.
    pub what: &'static str,
}

/// What a file is, for the build's summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Page,
    /// An event's own page (a page too, and counted as one).
    EventPage,
    /// An iCal file.
    Calendar,
    /// The Atom feed.
    Feed,
    Sitemap,
    /// A file of the templates' own (`static/style.css`).
    StaticFile,
    /// A public JSON file, for bots and other sites.
    Data,
    /// A copy of an event's banner, served with the site.
    Image,
}

impl Kind {
    /// Whether the build's summary counts it among the pages.
    pub fn is_page(self) -> bool {
        matches!(self, Kind::Page | Kind::EventPage)
    }
}

/// When a file is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    Always,
    /// Unless its switch under `[sections]` in vatcar-site.toml is off.
    UnlessOff(Section),
    /// An event's files: unless the switch of the list it is in (`events`, `division`) is
    /// off.
    UnlessEventSectionOff,
    /// Only with `--site-url`: it needs absolute addresses.
    WithSiteUrl,
    /// Only with `[activity] enabled = true`.
    WithActivity,
    /// Only with `[people] enabled = true` (and the roster on): a member's page.
    WithPeople,
}

/// A switch under `[sections]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    Roster,
    Events,
    Division,
    Documents,
    /// Not under `[sections]`: `live = false` at the top of the file.
    Live,
}

impl Section {
    /// Its name under `[sections]`.
    pub fn key(self) -> &'static str {
        match self {
            Section::Roster => "roster",
            Section::Events => "events",
            Section::Division => "division",
            Section::Documents => "documents",
            Section::Live => "live",
        }
    }

    /// How the webmaster turns it off, as a message says it.
    pub fn switch(self) -> String {
        match self {
            Section::Live => "with live = false in vatcar-site.toml".to_owned(),
            _ => "under [sections] in vatcar-site.toml".to_owned(),
        }
    }

    pub fn is_on(self, sections: &Sections) -> bool {
        match self {
            Section::Roster => sections.roster,
            Section::Events => sections.events,
            Section::Division => sections.division,
            Section::Documents => sections.documents,
            Section::Live => sections.live,
        }
    }
}

impl Output {
    /// A family's path with its `<…>` part filled in: `events/<id>/index.html` at `412` is
    /// `events/412/index.html`.
    pub fn at(&self, name: &str) -> String {
        match (self.path.find('<'), self.path.find('>')) {
            (Some(open), Some(close)) => {
                format!("{}{name}{}", &self.path[..open], &self.path[close + 1..])
            }
            _ => self.path.to_owned(),
        }
    }

    /// A page's folder: `roster/` for `roster/index.html`, empty for the home page.
    pub fn folder(&self) -> &'static str {
        self.path.strip_suffix("index.html").unwrap_or(self.path)
    }

    /// Whether it is one file (not a family).
    pub fn is_single(&self) -> bool {
        !self.path.contains('<')
    }

    /// Whether a single file is written, given the sections and whether the site's URL is
    /// known. Families depend on more (each event's list) and are decided by their makers.
    pub fn is_written(&self, sections: &Sections, has_site_url: bool) -> bool {
        match self.written {
            Written::Always => true,
            Written::UnlessOff(section) => section.is_on(sections),
            Written::UnlessEventSectionOff => sections.events || sections.division,
            Written::WithSiteUrl => has_site_url,
            Written::WithActivity => sections.activity,
            Written::WithPeople => sections.people && sections.roster,
        }
    }

    /// Whether turning a switch under `[sections]` off removes this page.
    pub fn is_switchable_page(&self) -> bool {
        self.kind == Kind::Page && matches!(self.written, Written::UnlessOff(_))
    }
}

pub const HOME: Output = Output {
    path: "index.html",
    kind: Kind::Page,
    written: Written::Always,
    what: "the home page",
};
pub const ROSTER: Output = Output {
    path: "roster/index.html",
    kind: Kind::Page,
    written: Written::UnlessOff(Section::Roster),
    what: "the roster page",
};
pub const EVENTS: Output = Output {
    path: "events/index.html",
    kind: Kind::Page,
    written: Written::UnlessOff(Section::Events),
    what: "the events page",
};
pub const DIVISION: Output = Output {
    path: "division/index.html",
    kind: Kind::Page,
    written: Written::UnlessOff(Section::Division),
    what: "the division's events page",
};
pub const DOCUMENTS: Output = Output {
    path: "documents/index.html",
    kind: Kind::Page,
    written: Written::UnlessOff(Section::Documents),
    what: "the documents page",
};
/// `<cid>` is the member's CID.
pub const PERSON_PAGE: Output = Output {
    path: "roster/<cid>/index.html",
    kind: Kind::Page,
    written: Written::WithPeople,
    what: "a member's page",
};
/// `<id>` is the event's id, or `412-division` for the division's record of an id the
/// facility lists as another event.
pub const EVENT_PAGE: Output = Output {
    path: "events/<id>/index.html",
    kind: Kind::EventPage,
    written: Written::UnlessEventSectionOff,
    what: "an event's page",
};
pub const EVENT_CALENDAR: Output = Output {
    path: "events/<id>/event.ics",
    kind: Kind::Calendar,
    written: Written::UnlessEventSectionOff,
    what: "an event's calendar file",
};
pub const FACILITY_CALENDAR: Output = Output {
    path: "calendar/facility.ics",
    kind: Kind::Calendar,
    written: Written::UnlessOff(Section::Events),
    what: "the facility's calendar",
};
pub const DIVISION_CALENDAR: Output = Output {
    path: "calendar/division.ics",
    kind: Kind::Calendar,
    written: Written::UnlessOff(Section::Division),
    what: "the division's calendar",
};
/// `<page>` is the content page's folder: `join` for `content/join.md`.
pub const CONTENT_PAGE: Output = Output {
    path: "<page>/index.html",
    kind: Kind::Page,
    written: Written::Always,
    what: "a content page",
};
pub const NOT_FOUND: Output = Output {
    path: "404.html",
    kind: Kind::Page,
    written: Written::Always,
    what: "the page-not-found page",
};
pub const STATIC: Output = Output {
    path: "static/<file>",
    kind: Kind::StaticFile,
    written: Written::Always,
    what: "the templates' file",
};
pub const SITEMAP: Output = Output {
    path: "sitemap.xml",
    kind: Kind::Sitemap,
    written: Written::WithSiteUrl,
    what: "the sitemap",
};
pub const FEED: Output = Output {
    path: "feed.xml",
    kind: Kind::Feed,
    written: Written::WithSiteUrl,
    what: "the Atom feed",
};

pub const WHATS_NEW: Output = Output {
    path: "whats-new/index.html",
    kind: Kind::Page,
    written: Written::Always,
    what: "the What's new page",
};
pub const WHATS_NEW_FEED: Output = Output {
    path: "whats-new.xml",
    kind: Kind::Feed,
    written: Written::WithSiteUrl,
    what: "the What's new Atom feed",
};
/// Also the next build's previous state (with [`ROSTER_JSON`]).
pub const CHANGES_JSON: Output = Output {
    path: "data/changes.json",
    kind: Kind::Data,
    written: Written::Always,
    what: "the changes as JSON",
};
pub const ROSTER_JSON: Output = Output {
    path: "data/roster.json",
    kind: Kind::Data,
    written: Written::UnlessOff(Section::Roster),
    what: "the roster as JSON",
};
/// Also the next build's known sessions (with the copy in the cache).
pub const ACTIVITY_JSON: Output = Output {
    path: "data/activity.json",
    kind: Kind::Data,
    written: Written::WithActivity,
    what: "the members' sessions as JSON",
};
pub const LIVE: Output = Output {
    path: "live/index.html",
    kind: Kind::Page,
    written: Written::UnlessOff(Section::Live),
    what: "the live page",
};
pub const BOOKINGS_CALENDAR: Output = Output {
    path: "calendar/bookings.ics",
    kind: Kind::Calendar,
    written: Written::UnlessOff(Section::Live),
    what: "the bookings calendar",
};
pub const EVENTS_JSON: Output = Output {
    path: "events.json",
    kind: Kind::Data,
    written: Written::WithSiteUrl,
    what: "the upcoming events as a JSON Feed",
};

/// Everything the site writes besides the webmaster's own static files.
pub const BANNER_COPY: Output = Output {
    path: "banners/<file>",
    kind: Kind::Image,
    written: Written::UnlessEventSectionOff,
    what: "an event banner's copy",
};

pub const OUTPUTS: [&Output; 24] = [
    &HOME,
    &ROSTER,
    &PERSON_PAGE,
    &EVENTS,
    &EVENT_PAGE,
    &EVENT_CALENDAR,
    &DIVISION,
    &DOCUMENTS,
    &FACILITY_CALENDAR,
    &DIVISION_CALENDAR,
    &LIVE,
    &BOOKINGS_CALENDAR,
    &CONTENT_PAGE,
    &NOT_FOUND,
    &STATIC,
    &SITEMAP,
    &FEED,
    &WHATS_NEW,
    &WHATS_NEW_FEED,
    &CHANGES_JSON,
    &ROSTER_JSON,
    &ACTIVITY_JSON,
    &EVENTS_JSON,
    &BANNER_COPY,
];

#[cfg(test)]
mod tests {
    use super::{EVENT_PAGE, OUTPUTS, ROSTER, Section, Written};
    use std::collections::BTreeSet;

    #[test]
    fn a_family_path_is_filled_in_and_a_page_has_its_folder() {
        assert_eq!(
            EVENT_PAGE.at("412-division"),
            "events/412-division/index.html"
        );
        assert_eq!(ROSTER.folder(), "roster/");
        assert_eq!(super::HOME.folder(), "");
    }

    /// The "What it writes" tables of docs/output.md and of docs/data.md (the public data files
    /// and What's new): each row's paths, in backticks, and its text.
    fn documented() -> Vec<(Vec<String>, String)> {
        let documents = [
            ("docs/output.md", include_str!("../../docs/output.md")),
            ("docs/data.md", include_str!("../../docs/data.md")),
        ];
        let mut rows = Vec::new();
        for (name, text) in documents {
            let (_, section) = text
                .split_once("\n## What it writes\n")
                .unwrap_or_else(|| panic!("{name} has a section \"What it writes\""));
            let table = section
                .lines()
                .skip_while(|line| !line.starts_with('|'))
                .take_while(|line| line.starts_with('|'));
            rows.extend(table.skip(2).map(|row| {
                let cell = row.split('|').nth(1).expect("a table row has a path cell");
                let paths = cell.split('`').skip(1).step_by(2).map(str::to_owned);
                (paths.collect(), row.to_owned())
            }));
        }
        rows
    }

    #[test]
    fn the_guide_lists_every_path_the_site_writes_and_no_other() {
        let written: BTreeSet<String> = OUTPUTS.iter().map(|o| o.path.to_owned()).collect();
        let listed: BTreeSet<String> = documented().into_iter().flat_map(|(p, _)| p).collect();
        assert_eq!(listed, written);
    }

    #[test]
    fn the_guide_names_the_switch_that_turns_each_path_off() {
        let rows = documented();
        for output in OUTPUTS {
            let (_, row) = rows
                .iter()
                .find(|(paths, _)| paths.iter().any(|p| p == output.path))
                .expect("listed");
            let switches: &[Section] = match output.written {
                Written::UnlessOff(section) => &[section][..],
                Written::UnlessEventSectionOff => &[Section::Events, Section::Division],
                Written::WithPeople => &[Section::Roster],
                Written::Always | Written::WithSiteUrl | Written::WithActivity => &[],
            };
            for section in switches {
                let off = format!("`{} = false`", section.key());
                assert!(row.contains(&off), "{}: {off} is not named", output.path);
            }
            if output.written == Written::WithSiteUrl {
                assert!(row.contains("--site-url"), "{}", output.path);
            }
            if output.written == Written::WithActivity {
                assert!(row.contains("`[activity]`"), "{}", output.path);
            }
            if output.written == Written::WithPeople {
                assert!(row.contains("`[people]`"), "{}", output.path);
            }
        }
    }

    #[test]
    fn the_banners_copies_are_where_fetch_puts_them() {
        let folder = crate::banner_copies::OUTPUT_FOLDER;
        assert_eq!(
            super::BANNER_COPY.at("a-480.jpg"),
            format!("{folder}/a-480.jpg")
        );
    }

    #[test]
    fn every_output_has_a_path_of_its_own() {
        let paths: BTreeSet<&str> = OUTPUTS.iter().map(|o| o.path).collect();
        assert_eq!(paths.len(), OUTPUTS.len());
    }
}
