//! What a site is built with beyond the data: the config file's choices, decided by `cmd`.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde::Serialize;
use std::sync::Arc;
use url::Url;

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

/// Entries in the Atom feed unless `feed_limit` says otherwise. Hugo's and Zola's feeds are
/// unlimited unless a limit is set; this one is bounded by default (as MediaWiki's, at 50, and
/// Pelican's, at 100, are), since readers poll it often and, unbounded, it grows with the data
/// (6.7 MB at 10,000 upcoming events) while a reader shows the first few dozen entries.
pub const DEFAULT_FEED_LIMIT: usize = 50;

/// A file of the webmaster's static folder that a setting names (`logo = "logo.svg"`).
#[derive(Clone, Debug)]
pub struct SiteFile {
    /// Below the static folder, which is its path in the site.
    pub path: String,
    /// Where it was named (`vatcar-site.toml:4: logo`), for errors.
    pub origin: String,
}

/// An entry of the header's navigation from the config's `[[menu]]`.
#[derive(Clone, Debug)]
pub struct MenuEntry {
    pub name: String,
    pub target: MenuTarget,
    /// Where it was written (`vatcar-site.toml:12`), for errors.
    pub origin: String,
}

#[derive(Clone, Debug)]
pub enum MenuTarget {
    /// An address elsewhere (http, https or mailto).
    Url(String),
    /// A page of the site, as an `@/` link names it: `join.md`, `roster`.
    Page(String),
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
    /// How many entries the Atom feed lists, soonest first; `None` for every upcoming event.
    pub feed_limit: Option<usize>,
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
    /// The config's `[[menu]]` entries, in order.
    pub menu: Vec<MenuEntry>,
    pub logo: Option<SiteFile>,
    pub favicon: Option<SiteFile>,
    pub accent: Option<super::AccentView>,
    /// The words the view writes itself (dates, calendar names, titles), in the site's
    /// language.
    pub texts: Arc<super::Texts>,
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
            feed_limit: Some(DEFAULT_FEED_LIMIT),
            build_time,
            facility_calendar_name: None,
            division_calendar_name: None,
            calendar_refresh_minutes: 180,
            tagline: None,
            facility_bits: Vec::new(),
            staff_emails: Vec::new(),
            sections: Sections::default(),
            menu: Vec::new(),
            logo: None,
            favicon: None,
            accent: None,
            texts: super::Texts::english(),
        }
    }
}

/// How a feed names itself and how often clients should refresh it.
#[derive(Clone, Debug)]
pub struct FeedSettings {
    pub name: String,
    pub description: String,
    /// Refresh hint in minutes (REFRESH-INTERVAL and X-PUBLISHED-TTL).
    pub refresh_minutes: u32,
    /// What a feed with no events says in their place.
    pub empty: String,
}
