//! The webmaster's settings: one typed model, read from `vatcar-site.toml` and checked as it
//! is read, with every default in [`Settings::default`]. A leaf module that imports no stage,
//! so that `cmd` (which lays flags and the environment over it, in `cmd/settings.rs`) and
//! `view` (which takes its areas: [`SiteSettings`], [`Events`], [`Feeds`],
//! [`RosterSettings`]) both use it.
//!
//! A new key is a field of [`File`] (as written), a field of its area (with its default) and
//! a line of [`Settings::from_file`], all in this file; then the code that uses it.

mod addresses;
mod values;
mod words;

pub use addresses::{
    check_base_url, is_host_name, parse_live_url, parse_previous_url, parse_site_url,
};
use anyhow::{Context, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;
pub use values::{
    BannerSource, HeaderStyle, LogoBackdrop, MenuEntry, MenuTarget, Sections, SiteFile,
    parse_colour, parse_zone,
};
use values::{
    BaseUrl, BitValue, Colour, Email, FeedLimit, KeyText, LiveFile, LiveTable, RecentDays,
    RefreshMinutes, SiteUrl, StaticPath, Timeout, WhatsNewDays, Zone,
};

/// The file looked for in the working folder when `--config` is not given.
pub const DEFAULT_FILE: &str = "vatcar-site.toml";

/// The API's address unless `base_url` or `--base-url` says otherwise.
pub const DEFAULT_BASE_URL: &str = "https://vatcar.net";

/// Seconds one request may take unless `timeout` or `--timeout` says otherwise.
pub const DEFAULT_TIMEOUT: f64 = 30.0;

/// Entries in the Atom feed unless `feed_limit` says otherwise. Hugo's and Zola's feeds are
/// unlimited unless a limit is set; this one is bounded by default (as MediaWiki's, at 50, and
/// Pelican's, at 100, are), since readers poll it often and, unbounded, it grows with the data
/// (6.7 MB at 10,000 upcoming events) while a reader shows the first few dozen entries.
pub const DEFAULT_FEED_LIMIT: usize = 50;

/// VATSIM's data feed, which the visitor's browser reads for who is on now.
pub const DEFAULT_LIVE_FEED: &str = "https://data.vatsim.net/v3/vatsim-data.json";

/// VATSIM's ATC bookings list, read at build time.
pub const DEFAULT_BOOKINGS: &str = "https://atc-bookings.vatsim.net/api/booking";

/// Everything a run is configured with, before the command line's flags are laid over it.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The config file read, if any: paths in it are relative to its folder.
    pub path: Option<PathBuf>,
    pub api: Api,
    pub folders: Folders,
    /// `language` as written and where, checked once the templates folder is known.
    pub language: Option<Language>,
    pub site: SiteSettings,
    pub events: Events,
    pub feeds: Feeds,
    pub roster: RosterSettings,
    pub whats_new: WhatsNewSettings,
    /// The live page and its bookings (on unless `live = false`: `site.sections.live`).
    pub live: Live,
}

/// The live page: who is on now (read by the visitor's browser) and who is booked (read at
/// build time).
#[derive(Clone, Debug)]
pub struct Live {
    /// Callsign prefixes that are ours (before the first `_`), upper-cased; empty for the
    /// facility's code from the roster.
    pub callsigns: Vec<String>,
    /// ICAO codes whose departures and arrivals are listed; none leaves the traffic out.
    pub airports: Vec<String>,
    /// VATSIM's data feed.
    pub feed: LiveAddress,
    /// The ATC bookings list.
    pub bookings: LiveAddress,
    /// `serve --demo`: the pages read the server's built-in sample of the feed instead, and
    /// say so. Never set from the file.
    pub sample_feed: bool,
}

/// An address of `[live]`, and where it was set, for errors.
#[derive(Clone, Debug)]
pub struct LiveAddress {
    pub url: url::Url,
    /// `vatcar-site.toml:14: live.feed`, or `the default live.feed`.
    pub origin: String,
}

impl LiveAddress {
    fn default_for(key: &str, url: &str) -> Self {
        Self {
            url: url::Url::parse(url).expect("the default addresses parse"),
            origin: format!("the default live.{key}"),
        }
    }
}

/// How the API is reached.
#[derive(Clone, Debug)]
pub struct Api {
    pub base_url: String,
    /// Seconds one request may take.
    pub timeout: f64,
    /// `api_key` in the file (accepted with a warning: it belongs in the environment).
    pub key: Option<String>,
}

/// The folders the file names, relative to the file's folder.
#[derive(Clone, Debug)]
pub struct Folders {
    pub output: PathBuf,
    pub templates: Option<PathBuf>,
    /// The webmaster's own files, copied into the site as they are; `static` beside the file
    /// when not set and there is one.
    pub static_files: Option<PathBuf>,
    /// The webmaster's own pages; `content` beside the file when not set and there is one.
    pub content: Option<PathBuf>,
}

#[derive(Clone, Debug)]
pub struct Language {
    pub name: String,
    /// `file:line`, for the error if the templates cannot speak it.
    pub origin: String,
}

/// How the site names and presents itself.
#[derive(Clone, Debug, Default)]
pub struct SiteSettings {
    /// The site's name; the facility's name when not set.
    pub title: Option<String>,
    /// A shorter name, shown in the header where the whole one would be cut.
    pub short_title: Option<String>,
    /// A line under the site's title.
    pub tagline: Option<String>,
    /// Where the site will be published; needed for the sitemap, the feed and absolute links.
    pub site_url: Option<url::Url>,
    /// A zone to show local times in, beside Zulu.
    pub display_zone: Option<chrono_tz::Tz>,
    pub sections: Sections,
    /// The `[[menu]]` entries, in order.
    pub menu: Vec<MenuEntry>,
    pub logo: Option<SiteFile>,
    pub favicon: Option<SiteFile>,
    /// The theme's main colour as written, checked.
    pub accent: Option<String>,
    /// The header's colours: the page's own, or the accent's.
    pub header: HeaderStyle,
    /// What is drawn behind the logo.
    pub logo_backdrop: LogoBackdrop,
    /// `[extra]`: a theme's own settings, any table, handed to every template as `extra`
    /// as written (dates as their text); empty when the file has none.
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// How events are listed.
#[derive(Clone, Debug)]
pub struct Events {
    /// How many days an event stays listed as "recent" after it ends.
    pub recent_days: i64,
    /// How many upcoming events the home page lists.
    pub home_events: usize,
    /// Names for bits of the events' `facilities` mask, by bit value, ascending.
    pub facility_bits: Vec<(u64, String)>,
    /// Where the banners are loaded from: published with the site, or the API's addresses.
    pub banners: BannerSource,
}

/// The Atom feed and the calendars.
#[derive(Clone, Debug)]
pub struct Feeds {
    /// Entries in the Atom feed, soonest first; `None` for every upcoming event.
    pub feed_limit: Option<usize>,
    /// Calendar names; derived from the site's title when not set.
    pub facility_calendar_name: Option<String>,
    pub division_calendar_name: Option<String>,
    /// How often calendar apps should refresh the feeds, in minutes.
    pub refresh_minutes: u32,
}

/// What's new: the changes between builds.
#[derive(Clone, Debug)]
pub struct WhatsNewSettings {
    /// How many days a change stays listed.
    pub days: u32,
    /// The published site whose `data/` the build compares with; the output folder's own
    /// previous build when not set.
    pub previous: Option<url::Url>,
}

#[derive(Clone, Debug, Default)]
pub struct RosterSettings {
    pub staff_emails: StaffEmails,
}

/// Role addresses shown on the roster (never the API's personal ones), one per staff post
/// (the view gives each `model::StaffRole` its own).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StaffEmails {
    pub atm: Option<String>,
    pub datm: Option<String>,
    pub ta: Option<String>,
    pub ec: Option<String>,
    pub fe: Option<String>,
    pub wm: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            path: None,
            api: Api {
                base_url: DEFAULT_BASE_URL.to_owned(),
                timeout: DEFAULT_TIMEOUT,
                key: None,
            },
            folders: Folders {
                output: PathBuf::from("output"),
                templates: None,
                static_files: None,
                content: None,
            },
            language: None,
            site: SiteSettings::default(),
            events: Events {
                recent_days: 60,
                home_events: 5,
                facility_bits: Vec::new(),
                banners: BannerSource::Local,
            },
            feeds: Feeds {
                feed_limit: Some(DEFAULT_FEED_LIMIT),
                facility_calendar_name: None,
                division_calendar_name: None,
                refresh_minutes: 180,
            },
            roster: RosterSettings::default(),
            whats_new: WhatsNewSettings {
                days: 30,
                previous: None,
            },
            live: Live {
                callsigns: Vec::new(),
                airports: Vec::new(),
                feed: LiveAddress::default_for("feed", DEFAULT_LIVE_FEED),
                bookings: LiveAddress::default_for("bookings", DEFAULT_BOOKINGS),
                sample_feed: false,
            },
        }
    }
}

/// `vatcar-site.toml` as written: each value checked by its type as it is read.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    base_url: Option<BaseUrl>,
    api_key: Option<Spanned<KeyText>>,
    site_url: Option<SiteUrl>,
    title: Option<String>,
    short_title: Option<String>,
    tagline: Option<String>,
    logo: Option<Spanned<StaticPath>>,
    favicon: Option<Spanned<StaticPath>>,
    accent: Option<Colour>,
    header: Option<HeaderStyle>,
    logo_backdrop: Option<LogoBackdrop>,
    banners: Option<BannerSource>,
    /// A built-in language (en, es, fr, nl) or one the templates folder has a catalogue for.
    language: Option<Spanned<String>>,
    display_zone: Option<Zone>,
    recent_days: Option<RecentDays>,
    feed_limit: Option<FeedLimit>,
    output: Option<PathBuf>,
    templates: Option<PathBuf>,
    #[serde(rename = "static")]
    static_files: Option<PathBuf>,
    content: Option<PathBuf>,
    timeout: Option<Timeout>,
    #[serde(default)]
    calendar: CalendarFile,
    /// Names for bits of the events' `facilities` bitmask, keyed by the bit's value ("1",
    /// "2", "4", ...). The API does not document them, so none are shown by default.
    #[serde(default)]
    facilities: BTreeMap<BitValue, String>,
    /// Role addresses shown on the roster (never the API's personal ones).
    #[serde(default)]
    staff_emails: StaffEmailsFile,
    #[serde(default)]
    sections: Sections,
    #[serde(default)]
    menu: Vec<MenuFile>,
    /// What's new: how many days a change stays listed.
    whats_new_days: Option<WhatsNewDays>,
    /// What's new: the published site to compare with (its data/roster.json and
    /// data/changes.json), for CI runs that start from an empty output folder.
    previous: Option<SiteUrl>,
    /// The live page: `false`, or the `[live]` table.
    live: Option<LiveFile>,
    /// A theme's own settings: any table, no key checked.
    extra: Option<Spanned<toml::Table>>,
}

/// A `[[menu]]` entry: a name, and an address elsewhere or a page of the site.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MenuFile {
    name: Spanned<String>,
    url: Option<Spanned<String>>,
    page: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CalendarFile {
    facility_name: Option<String>,
    division_name: Option<String>,
    refresh_minutes: Option<RefreshMinutes>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct StaffEmailsFile {
    atm: Option<Email>,
    datm: Option<Email>,
    ta: Option<Email>,
    ec: Option<Email>,
    fe: Option<Email>,
    wm: Option<Email>,
}

impl Settings {
    /// `--config PATH` must exist; without it, `vatcar-site.toml` in the working folder is
    /// read if there is one, and without that, the defaults.
    pub fn load(explicit: Option<&Path>) -> Result<Self> {
        let path = match explicit {
            Some(path) => path.to_path_buf(),
            None if Path::new(DEFAULT_FILE).is_file() => PathBuf::from(DEFAULT_FILE),
            None => return Ok(Self::default()),
        };
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("could not read the config file {}", path.display()))?;
        Self::parse(&text, &path)
    }

    /// A config file's text; errors name `path`, the line and the key: every mistake of the
    /// file at once, each on a line of its own.
    pub fn parse(text: &str, path: &Path) -> Result<Self> {
        let located = |message: String, at: Option<usize>| match at {
            Some(at) => format!("{}:{}: {message}", path.display(), words::line_of(text, at)),
            None => format!("{}: {message}", path.display()),
        };
        let file: File = crate::toml_errors::every_mistake(text).map_err(|mistakes| {
            let syntax = toml::de::DeTable::parse(text).is_err();
            let lines: Vec<String> = (mistakes.iter())
                .map(|e| {
                    let at = e.span().map(|s| s.start);
                    let message = match at.map(|at| words::line_of(text, at)) {
                        // A syntax error on the key's own line may quote part of it.
                        Some(line) if syntax && words::defines_api_key(text, line) => {
                            "api_key: not valid TOML; write it as api_key = \"...\" (the value is not shown)"
                                .to_owned()
                        }
                        _ => words::readable(e),
                    };
                    located(message, at)
                })
                .collect();
            anyhow::anyhow!(lines.join("\n"))
        })?;
        let at = |span: std::ops::Range<usize>| {
            format!("{}:{}", path.display(), words::line_of(text, span.start))
        };
        Self::from_file(file, path, &at).map_err(anyhow::Error::msg)
    }

    /// The file's values in their areas, over the defaults; the checks that need more than
    /// one value, and the places of values that later errors name.
    fn from_file(
        file: File,
        path: &Path,
        at: &dyn Fn(std::ops::Range<usize>) -> String,
    ) -> Result<Self, String> {
        let defaults = Self::default();
        let folder = path.parent().unwrap_or(Path::new(""));
        let relative = |p: PathBuf| folder.join(p);
        if let Some(key) = &file.api_key {
            log::warn!(
                "{}: api_key in a config file is easy to commit by mistake; set VATCAR_API_KEY (a CI secret) instead",
                at(key.span())
            );
        }
        let site_file = |key: &str, value: Option<Spanned<StaticPath>>| {
            value.map(|value| SiteFile {
                origin: format!("{}: {key}", at(value.span())),
                path: value.into_inner().0,
            })
        };
        let emails = file.staff_emails;
        let (live_on, live) = match file.live {
            None | Some(LiveFile::Switch(true)) => (true, LiveTable::default()),
            Some(LiveFile::Switch(false)) => (false, LiveTable::default()),
            Some(LiveFile::Table(table)) => (true, *table),
        };
        let mut sections = file.sections;
        sections.live = live_on;
        Ok(Self {
            path: Some(path.to_path_buf()),
            api: Api {
                base_url: file.base_url.map_or(defaults.api.base_url, |b| b.0),
                timeout: file.timeout.map_or(defaults.api.timeout, |t| t.0),
                key: file.api_key.map(|k| k.into_inner().0),
            },
            folders: Folders {
                output: file.output.map_or(defaults.folders.output, relative),
                templates: file.templates.map(relative),
                static_files: file.static_files.map(relative),
                content: file.content.map(relative),
            },
            language: file.language.map(|l| Language {
                origin: at(l.span()),
                name: l.into_inner().trim().to_owned(),
            }),
            site: SiteSettings {
                title: file.title,
                short_title: file.short_title,
                tagline: file.tagline,
                site_url: file.site_url.map(|u| u.0),
                display_zone: file.display_zone.map(|z| z.0),
                sections,
                menu: menu(file.menu, at)?,
                logo: site_file("logo", file.logo),
                favicon: site_file("favicon", file.favicon),
                accent: file.accent.map(|c| c.0),
                header: file.header.unwrap_or_default(),
                logo_backdrop: file.logo_backdrop.unwrap_or_default(),
                extra: extra(file.extra, at)?,
            },
            events: Events {
                recent_days: file
                    .recent_days
                    .map_or(defaults.events.recent_days, |d| d.0),
                facility_bits: (file.facilities.into_iter())
                    .map(|(bit, name)| (bit.0, name.trim().to_owned()))
                    .collect(),
                banners: file.banners.unwrap_or_default(),
                ..defaults.events
            },
            feeds: Feeds {
                feed_limit: match file.feed_limit {
                    Some(limit) => (limit.0 > 0).then_some(limit.0),
                    None => defaults.feeds.feed_limit,
                },
                facility_calendar_name: file.calendar.facility_name,
                division_calendar_name: file.calendar.division_name,
                refresh_minutes: (file.calendar.refresh_minutes)
                    .map_or(defaults.feeds.refresh_minutes, |m| m.0),
            },
            roster: RosterSettings {
                staff_emails: StaffEmails {
                    atm: emails.atm.map(|e| e.0),
                    datm: emails.datm.map(|e| e.0),
                    ta: emails.ta.map(|e| e.0),
                    ec: emails.ec.map(|e| e.0),
                    fe: emails.fe.map(|e| e.0),
                    wm: emails.wm.map(|e| e.0),
                },
            },
            whats_new: WhatsNewSettings {
                days: file.whats_new_days.map_or(defaults.whats_new.days, |d| d.0),
                previous: file.previous.map(|u| u.0),
            },
            live: live_settings(live, defaults.live, at)?,
        })
    }
}

/// The `[live]` table over the defaults.
fn live_settings(
    table: LiveTable,
    defaults: Live,
    at: &dyn Fn(std::ops::Range<usize>) -> String,
) -> Result<Live, String> {
    let callsigns = match table.callsigns {
        Some(list) if list.get_ref().0.is_empty() => {
            return Err(format!(
                "{}: live.callsigns: the list is empty; name the callsign prefixes that are yours, or leave callsigns out for the facility's code",
                at(list.span())
            ));
        }
        Some(list) => list.into_inner().0,
        None => defaults.callsigns,
    };
    let address = |key: &str, value: Option<Spanned<values::LiveUrl>>, default: LiveAddress| {
        value.map_or(default, |value| LiveAddress {
            origin: format!("{}: live.{key}", at(value.span())),
            url: value.into_inner().0,
        })
    };
    Ok(Live {
        callsigns,
        airports: table.airports.map_or(defaults.airports, |a| a.0),
        feed: address("feed", table.feed, defaults.feed),
        bookings: address("bookings", table.bookings, defaults.bookings),
        sample_feed: false,
    })
}

/// `[extra]` as the templates get it: TOML's values as JSON's, a date as its text. A float
/// that is not a number (`nan`, `inf`) has no JSON value, and is refused naming its key.
fn extra(
    table: Option<Spanned<toml::Table>>,
    at: &dyn Fn(std::ops::Range<usize>) -> String,
) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    let Some(table) = table else {
        return Ok(serde_json::Map::new());
    };
    let origin = at(table.span());
    as_json_table(table.into_inner(), "extra").map_err(|key| {
        format!("{origin}: {key}: nan and inf are not numbers a template can show; write them as text, in quotes")
    })
}

/// A TOML table's values as JSON's; `Err` names the key (`extra.a.b[2]`) of a float that
/// JSON cannot hold.
fn as_json_table(
    table: toml::Table,
    path: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    table
        .into_iter()
        .map(|(key, value)| {
            let value = as_json(value, &format!("{path}.{key}"))?;
            Ok((key, value))
        })
        .collect()
}

fn as_json(value: toml::Value, path: &str) -> Result<serde_json::Value, String> {
    use serde_json::Value as Json;
    Ok(match value {
        toml::Value::String(text) => Json::String(text),
        toml::Value::Integer(number) => Json::from(number),
        toml::Value::Float(number) => serde_json::Number::from_f64(number)
            .map(Json::Number)
            .ok_or_else(|| path.to_owned())?,
        toml::Value::Boolean(flag) => Json::Bool(flag),
        toml::Value::Datetime(time) => Json::String(time.to_string()),
        toml::Value::Array(items) => Json::Array(
            (items.into_iter().enumerate())
                .map(|(i, item)| as_json(item, &format!("{path}[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        toml::Value::Table(table) => Json::Object(as_json_table(table, path)?),
    })
}

/// The `[[menu]]` entries: each a name and exactly one of an address or a page.
fn menu(
    entries: Vec<MenuFile>,
    at: &dyn Fn(std::ops::Range<usize>) -> String,
) -> Result<Vec<MenuEntry>, String> {
    let mut menu = Vec::new();
    for entry in entries {
        let origin = at(entry.name.span());
        let name = entry.name.get_ref().trim();
        if name.is_empty() {
            return Err(format!("{origin}: menu: name is empty"));
        }
        let target = match (&entry.url, &entry.page) {
            (Some(url), None) => MenuTarget::Url(
                values::menu_url(url.get_ref())
                    .map_err(|e| format!("{}: menu: url: {e}", at(url.span())))?,
            ),
            (None, Some(page)) => MenuTarget::Page(page.get_ref().trim().to_owned()),
            _ => {
                return Err(format!(
                    "{origin}: menu: {name:?} needs either url = \"https://...\" (an address elsewhere) or page = \"join.md\" (a page of the site), not both"
                ));
            }
        };
        menu.push(MenuEntry {
            name: name.to_owned(),
            target,
            origin: at(entry.page.as_ref().map_or(entry.name.span(), |p| p.span())),
        });
    }
    Ok(menu)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Settings> {
        Settings::parse(text, Path::new("vatcar-site.toml"))
    }

    /// docs/configuration.md has a row for every key the file takes, as serde lists them when
    /// it refuses an unknown one: a new key fails here until the guide explains it.
    #[test]
    fn the_guide_has_a_row_for_every_key() {
        let guide = include_str!("../../docs/configuration.md");
        let tables = [
            ("", ""),
            ("[calendar]\n", "calendar."),
            ("[staff_emails]\n", "staff_emails."),
            ("[sections]\n", "sections."),
            ("[live]\n", "live."),
            ("[[menu]]\nname = \"Discord\"\n", "menu."),
        ];
        let mut rows = 0;
        for (table, prefix) in tables {
            let text = format!("{table}not_a_key = 1\n");
            let error = toml::from_str::<File>(&text).unwrap_err();
            let crate::toml_errors::Complaint::UnknownField { known, .. } =
                crate::toml_errors::complaint(&error)
            else {
                panic!("{table}: serde did not list the keys: {error}");
            };
            assert!(known.len() > 2, "{table}: {known:?}");
            for key in known {
                let row = format!("\n| `{prefix}{key}` |");
                assert!(
                    guide.contains(&row),
                    "docs/configuration.md has no row for `{prefix}{key}`: add one to its table \"Every key\" (the default, what it takes, an example)"
                );
                rows += 1;
            }
        }
        assert!(rows > 30, "{rows}");
    }

    #[test]
    fn a_full_file_reads() {
        let loaded = parse(
            r#"
base_url = "https://vatcar.net/public"
site_url = "https://tjzs.example.org"
title = "San Juan CERAP"
tagline = "Caribbean skies"
header = "accent"
banners = "remote"
display_zone = "America/Puerto_Rico"
recent_days = 30
feed_limit = 20
output = "public"

[calendar]
facility_name = "TJZS events"
refresh_minutes = 60

[facilities]
"1" = "San Juan CERAP"
"64" = "Piarco FIR"

[staff_emails]
atm = "atm@tjzs.example.org"

[sections]
documents = false
"#,
        )
        .unwrap();
        assert_eq!(
            loaded.site.site_url.unwrap().as_str(),
            "https://tjzs.example.org/"
        );
        assert_eq!(
            loaded.site.display_zone,
            Some(chrono_tz::America::Puerto_Rico)
        );
        assert_eq!(
            loaded.events.facility_bits,
            [(1, "San Juan CERAP".into()), (64, "Piarco FIR".into())]
        );
        assert_eq!(
            loaded.roster.staff_emails,
            StaffEmails {
                atm: Some("atm@tjzs.example.org".into()),
                ..StaffEmails::default()
            }
        );
        assert!(!loaded.site.sections.documents && loaded.site.sections.roster);
        assert_eq!(loaded.site.header, HeaderStyle::Accent);
        assert_eq!(parse("").unwrap().site.header, HeaderStyle::Plain);
        assert_eq!(loaded.events.banners, BannerSource::Remote);
        assert_eq!(parse("").unwrap().events.banners, BannerSource::Local);
        assert_eq!(loaded.feeds.feed_limit, Some(20));
        assert_eq!(parse("feed_limit = 0\n").unwrap().feeds.feed_limit, None);
        assert_eq!(
            parse("").unwrap().feeds.feed_limit,
            Some(DEFAULT_FEED_LIMIT)
        );
    }

    #[test]
    fn the_live_table_reads_and_live_false_turns_the_page_off() {
        let loaded = parse(
            "[live]\ncallsigns = [\" tjsj\", \"TJZS\", \"TJSJ\"]\nairports = [\"TJSJ\"]\nfeed = \"http://127.0.0.1:9/feed.json\"\n",
        )
        .unwrap();
        assert!(loaded.site.sections.live);
        assert_eq!(loaded.live.callsigns, ["TJSJ", "TJZS"]);
        assert_eq!(loaded.live.airports, ["TJSJ"]);
        assert_eq!(
            loaded.live.feed.url.as_str(),
            "http://127.0.0.1:9/feed.json"
        );
        assert_eq!(loaded.live.feed.origin, "vatcar-site.toml:4: live.feed");
        assert_eq!(loaded.live.bookings.url.as_str(), DEFAULT_BOOKINGS);
        let off = parse("live = false\n").unwrap();
        assert!(!off.site.sections.live && off.site.sections.roster);
        let defaults = parse("").unwrap();
        assert!(defaults.site.sections.live && defaults.live.callsigns.is_empty());
        assert_eq!(defaults.live.feed.url.as_str(), DEFAULT_LIVE_FEED);
        // Not a key of [sections]: `live = false` is.
        assert!(parse("[sections]\nlive = false\n").is_err());
    }

    /// The feed's origin is written into the Content-Security-Policy of the pages that read
    /// it (issue 45): an address whose host could end the source list, or add a directive
    /// after it, is refused where it is written, saying what to write.
    #[test]
    fn a_live_address_that_could_change_the_pages_policy_is_refused_saying_what_to_write() {
        let cases = [
            (
                "https://x;script-src/v3/vatsim-data.json",
                "\"https://x;script-src/v3/vatsim-data.json\" holds a \";\", which an address here may not hold: a host name has none, and in a path or query write it as %3B",
            ),
            (
                "https://data.vatsim.net,https://evil.example/",
                "holds a comma, which an address here may not hold: a host name has none, and in a path or query write it as %2C",
            ),
            ("https://x'/", "holds a quote"),
            ("https://x\\\"/", "holds a double quote"),
            (
                "https://data.vatsim.net https://evil.example/",
                "holds a space, which an address here may not hold: a host name has none, and in a path or query write it as %20",
            ),
            (
                "https://data.vatsim\\t.net/",
                "holds white space (U+0009), which an address here may not hold; leave it out",
            ),
            (
                "https://x*y.example/feed.json",
                "\"https://x*y.example/feed.json\": \"x*y.example\" is not a host name; write one of letters, digits, hyphens and dots (such as \"data.vatsim.net\"), or an IP address",
            ),
            (
                "https://x%3Bscript-src/",
                "\"x;script-src\" is not a host name",
            ),
            ("https://data_feed.example/", "is not a host name"),
            ("https://data..vatsim.net/", "is not a host name"),
        ];
        for (address, expected) in cases {
            for key in ["feed", "bookings"] {
                let text = format!("title = \"x\"\n[live]\n{key} = \"{address}\"\n");
                let error = parse(&text).unwrap_err().to_string();
                let at = format!("vatcar-site.toml:3: live.{key}: ");
                assert!(
                    error.starts_with(&at) && error.contains(expected),
                    "{address:?}\n  gave {error}\n  want {at}…{expected}"
                );
            }
        }
        // Quoted without its password.
        let error = parse("[live]\nfeed = \"https://me:s3cret;x@data.vatsim.net/\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("\"https://data.vatsim.net/\" holds a \";\"")
                && !error.contains("s3cret"),
            "{error}"
        );
        let error = parse("[live]\nfeed = \"gopher://me:s3cret@data.vatsim.net/\"\n")
            .unwrap_err()
            .to_string();
        assert!(!error.contains("s3cret"), "{error}");
        // Names DNS writes, international ones as their ASCII form, and IP addresses.
        for (address, origin) in [
            (
                "https://data.vatsim.net/v3/vatsim-data.json",
                "https://data.vatsim.net",
            ),
            (
                "https://Dätä.example:8443/f.json",
                "https://xn--dt-viab.example:8443",
            ),
            ("http://127.0.0.1:9/feed.json", "http://127.0.0.1:9"),
            ("http://[::1]:9/feed.json", "http://[::1]:9"),
            ("https://x.example/feed.json?a=%3B%2C", "https://x.example"),
        ] {
            let loaded = parse(&format!("[live]\nfeed = \"{address}\"\n")).unwrap();
            assert_eq!(loaded.live.feed.url.origin().ascii_serialization(), origin);
        }
    }

    #[test]
    fn the_value_of_api_key_is_never_echoed() {
        for text in [
            "api_key = 98765432123456789\nfoo = 1\n",
            "api_key = 98765432123456789\n",
            "api_key = [98765432123456789]\n",
            "title = \"x\"\napi_key = 98765432123456789x\n",
            "api_key = \"98765432123456789\n",
            "\"api_key\" = 98765432.123456789\n",
            "api_kye = \"98765432123456789\"\n",
            "[calendar]\napi_key = \"98765432123456789\"\n",
        ] {
            let error = parse(text).unwrap_err().to_string();
            assert!(
                !error.contains("98765432") && error.contains("api_key"),
                "{text:?} gave {error}"
            );
        }
        let loaded = parse("api_key = \"98765432123456789\"\n").unwrap();
        assert_eq!(loaded.api.key.as_deref(), Some("98765432123456789"));
    }

    /// Every mistake of the file at once, in its order (issue 50): three of one kind, and
    /// others, in the top level, a table and a list of tables.
    #[test]
    fn every_mistake_is_named_at_once_in_the_files_order() {
        let text = "site_ulr = \"https://x.org\"\ntitel = \"T\"\ncolour = \"red\"\n\
                    recent_days = \"many\"\n[live]\nairports = [\"SDQ\"]\nfeed = \"ftp://x\"\n\
                    [[menu]]\nname = \"A\"\nulr = \"https://x.org\"\n";
        let error = format!("{:#}", parse(text).unwrap_err());
        let lines: Vec<&str> = error.lines().collect();
        let starts: Vec<&str> = lines
            .iter()
            .map(|l| &l[..l.find(": ").unwrap_or(0) + 1])
            .collect();
        assert_eq!(
            starts,
            [
                "vatcar-site.toml:1:",
                "vatcar-site.toml:2:",
                "vatcar-site.toml:3:",
                "vatcar-site.toml:4:",
                "vatcar-site.toml:6:",
                "vatcar-site.toml:7:",
                "vatcar-site.toml:10:"
            ],
            "{error}"
        );
        assert!(
            lines[0].ends_with("unknown key `site_ulr`: did you mean `site_url`?"),
            "{error}"
        );
        assert!(
            lines[1].ends_with("unknown key `titel`: did you mean `title`?"),
            "{error}"
        );
        assert!(
            lines[6].ends_with("unknown key `ulr` in [menu]: did you mean `url`?"),
            "{error}"
        );
    }

    #[test]
    fn errors_name_the_file_line_and_key() {
        let cases = [
            (
                "title = \"x\"\nsite_ulr = \"https://x.org\"\n",
                "vatcar-site.toml:2: unknown key `site_ulr`: did you mean `site_url`?",
            ),
            (
                "\n\ndisplay_zone = \"Mars/Olympus\"\n",
                "vatcar-site.toml:3: display_zone: \"Mars/Olympus\" is not an IANA time zone name",
            ),
            (
                "display_zone = \"America/Santo Domingo\"\n",
                "vatcar-site.toml:1: display_zone: \"America/Santo Domingo\" is not an IANA time zone name; did you mean \"America/Santo_Domingo\"?",
            ),
            (
                "recent_days = \"many\"\n",
                "vatcar-site.toml:1: recent_days: expected a whole number, found the text \"many\"",
            ),
            (
                "[facilities]\n\"3\" = \"Nope\"\n",
                "vatcar-site.toml:2: facilities: \"3\" is not a bit value",
            ),
            (
                "[staff_emails]\natm = \"not an address\"\n",
                "vatcar-site.toml:2: staff_emails.atm: \"not an address\" is not an email address",
            ),
            (
                "[sections]\nblog = true\n",
                "vatcar-site.toml:2: unknown key `blog` in [sections]; the known keys are `roster`, `events`, `division`, `documents`",
            ),
            (
                "site_url = \"ftp://x.org\"\n",
                "vatcar-site.toml:1: site_url: \"ftp://x.org\" is not an http(s) address",
            ),
            (
                "base_url = \"http://vatcar.net\"\n",
                "vatcar-site.toml:1: base_url: invalid base URL",
            ),
            (
                "\nfeed_limit = -1\n",
                "vatcar-site.toml:2: feed_limit: expected a whole number of entries (0 for no limit), found -1",
            ),
            (
                "feed_limit = 2.5\n",
                "vatcar-site.toml:1: feed_limit: expected a whole number of entries (0 for no limit), found a float",
            ),
            (
                "feed_limit = \"50\"\n",
                "vatcar-site.toml:1: feed_limit: expected a whole number of entries (0 for no limit), found a string",
            ),
            (
                "[calendar]\nrefresh_minutes = 0\n",
                "vatcar-site.toml:2: calendar.refresh_minutes: expected 1 to 10080",
            ),
            (
                "[calendar]\nrefresh_minutes = \"often\"\n",
                "vatcar-site.toml:2: calendar.refresh_minutes: expected a whole number, found the text \"often\"",
            ),
            (
                "calendar = { facility_name = 5 }\n",
                "vatcar-site.toml:1: calendar.facility_name: expected text in quotes, found the whole number 5",
            ),
            (
                "timeout = true\n",
                "vatcar-site.toml:1: timeout: expected a number, found true",
            ),
            (
                "[sections]\nroster = \"yes\"\n",
                "vatcar-site.toml:2: sections.roster: expected true or false, found the text \"yes\"",
            ),
            (
                "output = [\"a\"]\n",
                "vatcar-site.toml:1: output: expected a path in quotes, found a list",
            ),
            (
                "Title = \"x\"\n",
                "vatcar-site.toml:1: unknown key `Title`: did you mean `title`?",
            ),
            (
                "[staff_emial]\natm = \"a@b.org\"\n",
                "vatcar-site.toml:1: unknown key `staff_emial`: did you mean `staff_emails`?",
            ),
            (
                "[calendar]\nfacilty_name = \"x\"\n",
                "vatcar-site.toml:2: unknown key `facilty_name` in [calendar]: did you mean `facility_name`?",
            ),
            (
                "banners = \"remot\"\n",
                "vatcar-site.toml:1: banners: \"remot\" is not a banner source: did you mean \"remote\"?",
            ),
            (
                "header = \"acent\"\n",
                "vatcar-site.toml:1: header: \"acent\" is not a header style: did you mean \"accent\"?",
            ),
            (
                "\nheader = \"blue\"\n",
                "vatcar-site.toml:2: header: \"blue\" is not a header style; write \"plain\" (the default",
            ),
            (
                "header = true\n",
                "vatcar-site.toml:1: header: expected text in quotes, found true",
            ),
            (
                "[live]\ncallsigns = [\"TJSJ_APP\"]\n",
                "vatcar-site.toml:2: live.callsigns: \"TJSJ_APP\" holds a _; write the part before the first _ (\"TJSJ\" for \"TJSJ_APP\")",
            ),
            (
                // Every mistake of the list at once (issue 50), not the first alone.
                "[live]\ncallsigns = [\"MDCS_\", \"MDSD_\", \"MDPC\", \"MD PC\"]\n",
                "vatcar-site.toml:2: live.callsigns: \"MDCS_\" holds a _; write the part before the first _ (\"MDCS\" for \"MDCS_\"); \"MDSD_\" holds a _; write the part before the first _ (\"MDSD\" for \"MDSD_\"); \"MD PC\" is not a code of letters and digits",
            ),
            (
                "[live]\nairports = [\"TJ SJ\"]\n",
                "vatcar-site.toml:2: live.airports: \"TJ SJ\" is not an ICAO airport code (four letters, such as \"TJSJ\")",
            ),
            (
                "[live]\nairports = [\"MDSD\", \"SDQ\"]\n",
                "vatcar-site.toml:2: live.airports: \"SDQ\" is an IATA code; write the airport's ICAO code",
            ),
            (
                "\n[live]\ncallsigns = []\n",
                "vatcar-site.toml:3: live.callsigns: the list is empty; name the callsign prefixes",
            ),
            (
                "live = \"off\"\n",
                "vatcar-site.toml:1: live: expected false (no live page) or a [live] table, found the text \"off\"",
            ),
            (
                "[live]\nfeed = \"ftp://x.org/feed.json\"\n",
                "vatcar-site.toml:2: live.feed: \"ftp://x.org/feed.json\" is not an http(s) address",
            ),
            (
                "[live]\nbookings = \"https://me:s3cret@x.org/\"\n",
                "vatcar-site.toml:2: live.bookings: the address holds a user name or password",
            ),
            (
                "[live]\ncalsigns = [\"TJSJ\"]\n",
                "vatcar-site.toml:2: unknown key `calsigns` in [live]: did you mean `callsigns`?",
            ),
            (
                "colour = \"blue\"\n",
                "vatcar-site.toml:1: unknown key `colour`; the known keys are `base_url`, `api_key`,",
            ),
        ];
        for (text, expected) in cases {
            let error = parse(text).unwrap_err().to_string();
            assert!(
                error.starts_with(expected),
                "{text:?}\n  gave {error}\n  want {expected}"
            );
        }
    }

    #[test]
    fn extra_is_any_table_as_json_and_a_float_json_cannot_hold_is_refused() {
        let loaded = parse(
            "title = \"x\"\n[extra]\nbanner = \"<b>hi</b>\"\nopens = 1979-05-27T07:32:00Z\n[extra.social]\nhours = [18, 22.5, true]\n",
        )
        .unwrap();
        assert_eq!(
            serde_json::Value::Object(loaded.site.extra),
            serde_json::json!({
                "banner": "<b>hi</b>",
                "opens": "1979-05-27T07:32:00Z",
                "social": {"hours": [18, 22.5, true]},
            })
        );
        assert!(parse("title = \"x\"\n").unwrap().site.extra.is_empty());
        let error = parse("\n[extra.a]\nb = [1, nan]\n")
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("vatcar-site.toml:2: extra.a.b[1]: nan and inf are not numbers"),
            "{error}"
        );
    }
}
