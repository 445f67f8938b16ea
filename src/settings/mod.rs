//! The webmaster's settings: [`Settings`] is `vatcar-site.toml` as written, a field for each
//! key at the top and a struct for each table, each value checked by its type as it is read
//! (`values.rs`) and each default in its type's `Default`. A leaf module that imports no
//! stage, so that `cmd` (which lays flags and the environment over it, in `cmd/settings.rs`)
//! and `view` both use it.
//!
//! A new key is a field of [`Settings`] (or of its table), of a type that checks and defaults
//! it; then the code that uses it.

mod addresses;
mod extra;
mod menu;
mod numbers;
mod values;
mod words;

use crate::problems::{ConfigMistakes, Problem};
pub use addresses::{
    check_base_url, is_host_name, parse_live_url, parse_previous_url, parse_site_url,
};
use anyhow::{Context, Result};
pub use menu::{MenuEntry, MenuTarget};
use menu::{MenuFile, menu};
pub use numbers::{
    ActivityDays, FeedLimit, Interval, RecentDays, RefreshMinutes, RequestBudget, RuleHours,
    Timeout, WhatsNewDays,
};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
pub use values::{
    Airports, BannerSource, BaseUrl, BitValue, Cid, Codes, Colour, CoreApi, Email, HeaderStyle,
    KeyText, Language, LiveAddress, LogoBackdrop, NameMode, Sections, SiteFile, SiteUrl, Zone,
    parse_colour, parse_zone,
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

/// The output folder unless `output` or `--output` says otherwise: in the working folder,
/// wherever the config file is.
pub const DEFAULT_OUTPUT: &str = "output";

/// VATSIM's data feed, which the visitor's browser reads for who is on now.
pub const DEFAULT_LIVE_FEED: &str = "https://data.vatsim.net/v3/vatsim-data.json";

/// VATSIM's ATC bookings list, read at build time.
pub const DEFAULT_BOOKINGS: &str = "https://atc-bookings.vatsim.net/api/booking";

/// VATSIM's Core API, which lists each member's ATC sessions (`[activity] api`).
pub const DEFAULT_CORE_API: &str = "https://api.vatsim.net";

/// Everything a run is configured with: `vatcar-site.toml` as written, each key left out
/// taking its type's default; `cmd` lays the command line's flags over it.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// The config file read, if any: paths in it are relative to its folder.
    #[serde(skip)]
    pub path: Option<PathBuf>,
    pub base_url: BaseUrl,
    /// Accepted with a warning: it belongs in the environment.
    pub api_key: Option<KeyText>,
    /// Where the site will be published; needed for the sitemap, the feed and absolute links.
    pub site_url: Option<SiteUrl>,
    /// The site's name; the facility's name when not set.
    pub title: Option<String>,
    /// A shorter name, shown in the header where the whole one would be cut.
    pub short_title: Option<String>,
    /// A line under the site's title.
    pub tagline: Option<String>,
    pub logo: Option<SiteFile>,
    pub favicon: Option<SiteFile>,
    /// The theme's main colour.
    pub accent: Option<Colour>,
    /// The header's colours: the page's own, or the accent's.
    pub header: HeaderStyle,
    /// What is drawn behind the logo.
    pub logo_backdrop: LogoBackdrop,
    /// Where the banners are loaded from: published with the site, or the API's addresses.
    pub banners: BannerSource,
    /// A built-in language (en, es, fr, nl) or one the templates folder has a catalogue for.
    pub language: Option<Language>,
    /// A zone to show local times in, beside Zulu.
    pub display_zone: Option<Zone>,
    pub recent_days: RecentDays,
    pub feed_limit: FeedLimit,
    /// Relative to the config file's folder; [`DEFAULT_OUTPUT`] when not set.
    pub output: Option<PathBuf>,
    pub templates: Option<PathBuf>,
    /// The webmaster's own files, copied into the site as they are; `static` beside the file
    /// when not set and there is one.
    #[serde(rename = "static")]
    pub static_files: Option<PathBuf>,
    /// The webmaster's own pages; `content` beside the file when not set and there is one.
    pub content: Option<PathBuf>,
    /// Seconds one request may take.
    pub timeout: Timeout,
    pub calendar: Calendar,
    /// Names for bits of the events' `facilities` bitmask, keyed by the bit's value ("1",
    /// "2", "4", ...). The API does not document them, so none are shown by default.
    pub facilities: BTreeMap<BitValue, String>,
    pub staff_emails: StaffEmails,
    /// Which parts of the site to build; `live` is set by `live = false`.
    pub sections: Sections,
    /// The `[[menu]]` entries as written, read into [`Settings::menu`] once checked.
    #[serde(rename = "menu")]
    menu_written: Vec<MenuFile>,
    /// The `[[menu]]` entries, in order.
    #[serde(skip)]
    pub menu: Vec<MenuEntry>,
    /// What's new: how many days a change stays listed.
    pub whats_new_days: WhatsNewDays,
    /// What's new: the published site whose `data/` the build compares with (its
    /// data/roster.json and data/changes.json), for CI runs that start from an empty output
    /// folder; the output folder's own previous build when not set.
    pub previous: Option<SiteUrl>,
    /// The live page: `false`, or the `[live]` table.
    #[serde(deserialize_with = "live")]
    pub live: Live,
    /// `[activity]`: each member's controlling hours, read from VATSIM's Core API.
    pub activity: Activity,
    /// `[people]`: a page per member, and how members' names are shown.
    pub people: People,
    /// `[extra]`: a theme's own settings, any table, no key checked, handed to every template
    /// as `extra` as written (dates as their text).
    #[serde(deserialize_with = "extra::extra")]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// `[calendar]`: the calendars' names, derived from the site's title when not set, and how
/// often calendar apps should refresh them.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Calendar {
    pub facility_name: Option<String>,
    pub division_name: Option<String>,
    pub refresh_minutes: RefreshMinutes,
}

/// `[staff_emails]`: role addresses shown on the roster (never the API's personal ones), one
/// per staff post (the view gives each `model::StaffRole` its own).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StaffEmails {
    pub atm: Option<Email>,
    pub datm: Option<Email>,
    pub ta: Option<Email>,
    pub ec: Option<Email>,
    pub fe: Option<Email>,
    pub wm: Option<Email>,
}

/// `[live]`: the live page, who is on now (read by the visitor's browser) and who is booked
/// (read at build time).
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Live {
    /// Callsign prefixes that are ours, before the first `_`.
    pub callsigns: Codes,
    /// ICAO codes whose departures and arrivals are listed.
    pub airports: Airports,
    /// VATSIM's data feed.
    pub feed: LiveAddress,
    /// The ATC bookings list.
    pub bookings: LiveAddress,
    /// `serve --demo`: the pages read the server's built-in sample of the feed instead, and
    /// say so. Never set from the file.
    #[serde(skip)]
    pub sample_feed: bool,
    /// `live = false` turns the page off: `sections.live`, where the pages look.
    #[serde(skip)]
    on: bool,
}

impl Default for Live {
    fn default() -> Self {
        let default = |key: &str, url: &str| {
            let url = url::Url::parse(url).expect("the default addresses parse");
            LiveAddress::new(url, &format!("the default live.{key}"))
        };
        Self {
            callsigns: Codes::default(),
            airports: Airports::default(),
            feed: default("feed", DEFAULT_LIVE_FEED),
            bookings: default("bookings", DEFAULT_BOOKINGS),
            sample_feed: false,
            on: true,
        }
    }
}

/// `[activity]`: the hours each member controlled in a rolling window, from VATSIM's Core
/// API, a few members a build (docs/activity.md). Off unless `enabled = true`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Activity {
    pub enabled: bool,
    /// The rolling window, in days back from the build.
    pub window_days: ActivityDays,
    /// The division's rule: hours a member controls in the window (for the staff report).
    pub rule_hours: RuleHours,
    /// Callsign prefixes whose sessions count; `[live] callsigns`, else the facility's code,
    /// when not set.
    pub callsigns: Option<Codes>,
    /// The most requests to the Core API one build makes.
    pub requests: RequestBudget,
    /// Seconds between two requests: VATSIM allows about ten a minute.
    pub interval_seconds: Interval,
    /// VATSIM's Core API.
    pub api: CoreApi,
    /// Whether the home page shows the month's three most active controllers.
    pub home_top: bool,
    /// Whether data/changes.json carries the last full month's summary, which `announce`
    /// posts once a month.
    pub monthly_summary: bool,
}

/// `[people]`: a page per roster member at `roster/{cid}/`, and the privacy the facility
/// chose for its members (docs/people.md). Off unless `enabled = true`; off, no page and no
/// name changes.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct People {
    pub enabled: bool,
    /// How names are shown wherever the site shows one.
    pub names: NameMode,
    /// Members who get no page and are shown by their CID alone.
    pub opt_out: Vec<Cid>,
    /// Whether search engines may index the member pages (and the sitemap lists them).
    pub index: bool,
}

impl People {
    /// Whether the member of `cid` asked to be left out.
    pub fn is_opted_out(&self, cid: u64) -> bool {
        self.opt_out.iter().any(|c| c.0 == cid)
    }
}

/// `live`: `false` (or `true`), or the `[live]` table.
fn live<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Live, D::Error> {
    struct Visitor;
    impl<'de> serde::de::Visitor<'de> for Visitor {
        type Value = Live;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("false (no live page) or a [live] table")
        }
        fn visit_bool<E: serde::de::Error>(self, on: bool) -> Result<Live, E> {
            Ok(Live {
                on,
                ..Live::default()
            })
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Live, A::Error> {
            Live::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
    }
    d.deserialize_any(Visitor)
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
        let at = |at: usize| format!("{}:{}", path.display(), words::line_of(text, at));
        let file = path.display().to_string();
        let mut settings: Self = crate::toml_errors::every_mistake(text).map_err(|mistakes| {
            let syntax = toml::de::DeTable::parse(text).is_err();
            let problems = (mistakes.iter())
                .map(|e| {
                    let line = e.span().map(|s| words::line_of(text, s.start));
                    let message = match line {
                        // A syntax error on the key's own line may quote part of it.
                        Some(line) if syntax && words::defines_api_key(text, line) => {
                            "api_key: not valid TOML; write it as api_key = \"...\" (the value is not shown)"
                                .to_owned()
                        }
                        _ => words::readable(e),
                    };
                    match line {
                        Some(line) => Problem::at(&file, line, None, message),
                        None => Problem::in_file(&file, message),
                    }
                })
                .collect();
            ConfigMistakes(problems)
        })?;
        let line = |at: usize| words::line_of(text, at);
        settings.placed(path, &at).map_err(|(start, message)| {
            ConfigMistakes(vec![Problem::at(&file, line(start), None, message)])
        })?;
        Ok(settings)
    }

    /// What the file's values alone do not say: where each value that later errors name was
    /// written, the folders relative to the file's, the `[[menu]]` entries checked with the
    /// lines of their keys, and the live page's switch in `sections`.
    /// A mistake is `Err` of where it starts in the text, and what it is.
    fn placed(&mut self, path: &Path, at: &dyn Fn(usize) -> String) -> Result<(), (usize, String)> {
        self.path = Some(path.to_path_buf());
        let folder = path.parent().unwrap_or(Path::new(""));
        let folders = [
            &mut self.output,
            &mut self.templates,
            &mut self.static_files,
            &mut self.content,
        ];
        for named in folders {
            *named = named.take().map(|p| folder.join(p));
        }
        if let Some(key) = &mut self.api_key {
            key.origin = format!("{}: api_key", at(key.span.start));
            log::warn!(
                "{}: api_key in a config file is easy to commit by mistake; set VATCAR_API_KEY (a CI secret) instead",
                at(key.span.start)
            );
        }
        for (key, file) in [("logo", &mut self.logo), ("favicon", &mut self.favicon)] {
            if let Some(file) = file {
                file.origin = format!("{}: {key}", at(file.span.start));
            }
        }
        if let Some(language) = &mut self.language {
            language.origin = format!("{}: language", at(language.span.start));
        }
        self.menu = menu(std::mem::take(&mut self.menu_written), at)?;
        let live = &mut self.live;
        for (key, address) in [("feed", &mut live.feed), ("bookings", &mut live.bookings)] {
            if address.origin.is_empty() {
                address.origin = format!("{}: live.{key}", at(address.span.start));
            }
        }
        self.sections.live = live.on;
        self.sections.activity = self.activity.enabled;
        self.sections.people = self.people.enabled;
        Ok(())
    }

    /// The output folder: `output`, or [`DEFAULT_OUTPUT`].
    pub fn output_folder(&self) -> PathBuf {
        self.output
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_OUTPUT))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Settings> {
        Settings::parse(text, Path::new("vatcar-site.toml"))
    }

    #[test]
    fn a_timeout_is_more_than_no_time_and_at_most_a_day() {
        assert_eq!(parse("timeout = 2.5\n").unwrap().timeout.0, 2.5);
        for text in [
            "timeout = 0",
            "timeout = 86401",
            "timeout = nan",
            "timeout = -1",
        ] {
            let error = parse(&format!("{text}\n")).unwrap_err().to_string();
            let expected = "timeout: expected seconds between 0 and 86400, found";
            assert!(error.contains(expected), "{error}");
        }
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
            ("[activity]\n", "activity."),
            ("[people]\n", "people."),
            ("[[menu]]\nname = \"Discord\"\n", "menu."),
        ];
        let mut rows = 0;
        for (table, prefix) in tables {
            let text = format!("{table}not_a_key = 1\n");
            let error = toml::from_str::<Settings>(&text).unwrap_err();
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
            loaded.site_url.unwrap().0.as_str(),
            "https://tjzs.example.org/"
        );
        assert_eq!(
            loaded.display_zone.map(|z| z.0),
            Some(chrono_tz::America::Puerto_Rico)
        );
        let bits: Vec<(u64, &str)> = (loaded.facilities.iter())
            .map(|(bit, name)| (bit.0, name.as_str()))
            .collect();
        assert_eq!(bits, [(1, "San Juan CERAP"), (64, "Piarco FIR")]);
        let emails = &loaded.staff_emails;
        assert_eq!(emails.atm.as_ref().unwrap().0, "atm@tjzs.example.org");
        assert!(emails.datm.is_none() && emails.wm.is_none());
        assert!(!loaded.sections.documents && loaded.sections.roster);
        assert_eq!(loaded.header, HeaderStyle::Accent);
        assert_eq!(parse("").unwrap().header, HeaderStyle::Plain);
        assert_eq!(loaded.banners, BannerSource::Remote);
        assert_eq!(parse("").unwrap().banners, BannerSource::Local);
        assert_eq!(loaded.feed_limit.0, Some(20));
        assert_eq!(loaded.calendar.refresh_minutes.0, 60);
        assert_eq!(loaded.output, Some(PathBuf::from("public")));
        assert_eq!(parse("feed_limit = 0\n").unwrap().feed_limit.0, None);
        let defaults = parse("").unwrap();
        assert_eq!(defaults.feed_limit.0, Some(DEFAULT_FEED_LIMIT));
        assert_eq!(defaults.recent_days.0, 60);
        assert_eq!(defaults.calendar.refresh_minutes.0, 180);
        assert_eq!(defaults.whats_new_days.0, 30);
        assert_eq!(defaults.output_folder(), Path::new(DEFAULT_OUTPUT));
    }

    #[test]
    fn the_live_table_reads_and_live_false_turns_the_page_off() {
        let loaded = parse(
            "[live]\ncallsigns = [\" tjsj\", \"TJZS\", \"TJSJ\"]\nairports = [\"TJSJ\"]\nfeed = \"http://127.0.0.1:9/feed.json\"\n",
        )
        .unwrap();
        assert!(loaded.sections.live);
        assert_eq!(loaded.live.callsigns.0, ["TJSJ", "TJZS"]);
        assert_eq!(loaded.live.airports.0, ["TJSJ"]);
        assert_eq!(
            loaded.live.feed.url.as_str(),
            "http://127.0.0.1:9/feed.json"
        );
        assert_eq!(loaded.live.feed.origin, "vatcar-site.toml:4: live.feed");
        assert_eq!(loaded.live.bookings.url.as_str(), DEFAULT_BOOKINGS);
        let off = parse("live = false\n").unwrap();
        assert!(!off.sections.live && off.sections.roster);
        let defaults = parse("").unwrap();
        assert!(defaults.sections.live && defaults.live.callsigns.0.is_empty());
        assert_eq!(defaults.live.feed.origin, "the default live.feed");
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
    fn the_activity_table_reads_with_its_defaults_and_refuses_what_it_cannot_take() {
        let defaults = parse("").unwrap().activity;
        assert!(!defaults.enabled && defaults.callsigns.is_none());
        assert!(!defaults.home_top && !defaults.monthly_summary);
        assert_eq!(
            (
                defaults.window_days.0,
                defaults.rule_hours.0,
                defaults.requests.0
            ),
            (90, 3.0, 60)
        );
        assert_eq!(defaults.interval_seconds.0, 6.0);
        assert_eq!(defaults.api.0.as_str(), "https://api.vatsim.net/");
        let loaded = parse(
            "[activity]\nenabled = true\nwindow_days = 30\nrule_hours = 2.5\ncallsigns = [\"tjsj\"]\nrequests = 0\ninterval_seconds = 0\napi = \"http://127.0.0.1:9/\"\n",
        )
        .unwrap();
        let activity = &loaded.activity;
        assert!(activity.enabled && loaded.sections.activity);
        let shown = parse("[activity]\nhome_top = true\nmonthly_summary = true\n").unwrap();
        assert!(shown.activity.home_top && shown.activity.monthly_summary);
        assert_eq!(activity.callsigns.as_ref().unwrap().0, ["TJSJ"]);
        assert_eq!((activity.window_days.0, activity.requests.0), (30, 0));
        assert_eq!(activity.api.0.as_str(), "http://127.0.0.1:9/");
        for (text, expected) in [
            (
                "window_days = 0",
                "activity.window_days: expected 1 to 365 days, found 0",
            ),
            (
                "rule_hours = -1",
                "activity.rule_hours: expected 0 to 1000 hours",
            ),
            (
                "requests = 100000",
                "activity.requests: expected 0 to 10000 requests",
            ),
            (
                "interval_seconds = 700",
                "activity.interval_seconds: expected 0 to 600 seconds",
            ),
            (
                "api = \"http://api.vatsim.net\"",
                "activity.api: \"http://api.vatsim.net\": the Core API is read over https (http only on this machine)",
            ),
            ("api = \"https://api.vatsim.net/?x=1\"", "takes no query"),
            (
                "api = \"https://me:pw@api.vatsim.net\"",
                "user name or password",
            ),
            ("callsigns = []", "activity.callsigns: the list is empty"),
        ] {
            let error = parse(&format!("[activity]\n{text}\n"))
                .unwrap_err()
                .to_string();
            assert!(
                error.starts_with("vatcar-site.toml:2: ") && error.contains(expected),
                "{text}\n  gave {error}\n  want {expected}"
            );
            assert!(!error.contains("pw@"), "{error}");
        }
    }

    #[test]
    fn the_people_table_reads_with_its_defaults_and_refuses_what_it_cannot_take() {
        let defaults = parse("").unwrap().people;
        assert!(!defaults.enabled && !defaults.index && defaults.opt_out.is_empty());
        assert_eq!(defaults.names, NameMode::FirstInitial);
        let loaded =
            parse("[people]\nenabled = true\nnames = \"cid\"\nopt_out = [1234567]\nindex = true\n")
                .unwrap();
        assert!(loaded.people.enabled && loaded.people.index && loaded.sections.people);
        assert_eq!(loaded.people.names, NameMode::Cid);
        assert!(loaded.people.is_opted_out(1234567) && !loaded.people.is_opted_out(1));
        for (text, expected) in [
            (
                "names = \"first\"",
                "people.names: \"first\" is not a name mode",
            ),
            (
                "opt_out = [0]",
                "people.opt_out: expected a CID (a positive whole number, such as 1234567), found 0",
            ),
            ("index = 1", "people.index: expected true or false"),
        ] {
            let error = parse(&format!("[people]\n{text}\n"))
                .unwrap_err()
                .to_string();
            assert!(
                error.starts_with("vatcar-site.toml:2: ") && error.contains(expected),
                "{text}\n  gave {error}\n  want {expected}"
            );
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
        let key = loaded.api_key.unwrap();
        assert_eq!(key.text, "98765432123456789");
        assert_eq!(key.origin, "vatcar-site.toml:1: api_key");
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
            serde_json::Value::Object(loaded.extra),
            serde_json::json!({
                "banner": "<b>hi</b>",
                "opens": "1979-05-27T07:32:00Z",
                "social": {"hours": [18, 22.5, true]},
            })
        );
        assert!(parse("title = \"x\"\n").unwrap().extra.is_empty());
        let error = parse("\n[extra.a]\nb = [1, nan]\n")
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("vatcar-site.toml:2: extra.a.b[1]: nan and inf are not numbers"),
            "{error}"
        );
    }
}
