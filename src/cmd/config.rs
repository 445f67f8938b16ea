//! `vatcar-site.toml`: the settings a webmaster writes once. Command-line flags and the
//! environment override it. Unknown keys and bad values are errors naming the file, the line
//! and the key.

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use crate::view::Sections;
use crate::view::{AccentView, MenuEntry, MenuTarget, SiteFile};
use toml::Spanned;

/// The file looked for in the working folder when `--config` is not given.
pub const DEFAULT_FILE: &str = "vatcar-site.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The API's address.
    pub base_url: Option<Spanned<String>>,
    /// Accepted, with a warning: the key belongs in the environment (a CI secret). Read as
    /// any value, so that a key of the wrong type is reported without echoing it (serde's
    /// type errors quote the value).
    pub api_key: Option<Spanned<toml::Value>>,
    /// Where the site is published.
    pub site_url: Option<Spanned<String>>,
    pub title: Option<String>,
    pub tagline: Option<String>,
    /// The facility's logo: a file in the static folder, shown in the header.
    pub logo: Option<Spanned<String>>,
    /// The browser tab's icon: a file in the static folder (SVG, PNG or ICO).
    pub favicon: Option<Spanned<String>>,
    /// The theme's main colour, `#rrggbb`.
    pub accent: Option<Spanned<String>>,
    /// The language of the pages: a built-in one (en, es, fr, nl) or one the templates folder
    /// has a catalogue for. Checked once the templates folder is known.
    pub language: Option<Spanned<String>>,
    /// An IANA zone for local times beside Zulu.
    pub display_zone: Option<Spanned<String>>,
    /// Days an event stays listed as recent after it ends.
    pub recent_days: Option<Spanned<i64>>,
    /// Entries in the Atom feed, soonest first; 0 for every upcoming event. Read as any value,
    /// so that a value of the wrong type is reported naming the key (serde's type errors name
    /// only the type).
    pub feed_limit: Option<Spanned<toml::Value>>,
    /// Output folder, relative to this file.
    pub output: Option<PathBuf>,
    /// Templates folder, relative to this file.
    pub templates: Option<PathBuf>,
    /// The webmaster's own files, copied into the site as they are; relative to this file,
    /// `static` beside it by default.
    #[serde(rename = "static")]
    pub static_files: Option<PathBuf>,
    /// The webmaster's own pages (Markdown with TOML front matter); relative to this file,
    /// `content` beside it by default.
    pub content: Option<PathBuf>,
    /// Seconds one request may take.
    pub timeout: Option<Spanned<f64>>,
    #[serde(default)]
    pub calendar: CalendarConfig,
    /// Names for bits of the events' `facilities` bitmask, keyed by the bit's value ("1",
    /// "2", "4", ...). The API does not document them, so none are shown by default.
    #[serde(default)]
    pub facilities: BTreeMap<String, Spanned<String>>,
    /// Role addresses shown on the roster (never the API's personal ones).
    #[serde(default)]
    pub staff_emails: StaffEmails,
    #[serde(default)]
    pub sections: Sections,
    /// Entries of the header's navigation beyond the built-in sections.
    #[serde(default)]
    pub menu: Vec<MenuConfig>,
}

/// A `[[menu]]` entry: a name, and an address elsewhere or a page of the site.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MenuConfig {
    pub name: Spanned<String>,
    pub url: Option<Spanned<String>>,
    pub page: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalendarConfig {
    pub facility_name: Option<String>,
    pub division_name: Option<String>,
    /// How often calendar apps should refresh, in minutes.
    pub refresh_minutes: Option<Spanned<i64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaffEmails {
    pub atm: Option<Spanned<String>>,
    pub datm: Option<Spanned<String>>,
    pub ta: Option<Spanned<String>>,
    pub ec: Option<Spanned<String>>,
    pub fe: Option<Spanned<String>>,
    pub wm: Option<Spanned<String>>,
}

/// A loaded, checked configuration and where it came from.
#[derive(Debug, Default)]
pub struct Loaded {
    pub path: Option<PathBuf>,
    pub config: Config,
    /// Values already checked and converted.
    pub display_zone: Option<chrono_tz::Tz>,
    pub site_url: Option<url::Url>,
    /// `feed_limit` as written: 0 for no limit.
    pub feed_limit: Option<usize>,
    pub facility_bits: Vec<(u64, String)>,
    pub staff_emails: Vec<(&'static str, String)>,
    pub menu: Vec<MenuEntry>,
    pub logo: Option<SiteFile>,
    pub favicon: Option<SiteFile>,
    pub accent: Option<AccentView>,
    /// Where `language` is set, `file:line`, for the error if it is not available.
    pub language_at: Option<String>,
}

impl Loaded {
    /// `--config PATH` must exist; without it, `vatcar-site.toml` in the working folder is
    /// read if there is one.
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

    pub fn parse(text: &str, path: &Path) -> Result<Self> {
        let config: Config = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start));
            let message = match &line {
                // A syntax error on the key's own line may quote part of it.
                Some(line) if defines_api_key(text, *line) => {
                    "api_key: not valid TOML; write it as api_key = \"...\" (the value is not shown)"
                        .to_owned()
                }
                _ => readable(&e),
            };
            match line {
                Some(line) => anyhow::anyhow!("{}:{line}: {message}", path.display()),
                None => anyhow::anyhow!("{}: {message}", path.display()),
            }
        })?;
        let at = |span: std::ops::Range<usize>| {
            format!("{}:{}", path.display(), line_of(text, span.start))
        };

        if let Some(key) = &config.api_key {
            if !key.get_ref().is_str() {
                bail!(
                    "{}: api_key: expected the key as a quoted string, found a {} (the value is not shown)",
                    at(key.span()),
                    key.get_ref().type_str()
                );
            }
            log::warn!(
                "{}: api_key in a config file is easy to commit by mistake; set VATCAR_API_KEY (a CI secret) instead",
                at(key.span())
            );
        }
        let display_zone = match &config.display_zone {
            Some(zone) => Some(zone.get_ref().parse::<chrono_tz::Tz>().map_err(|_| {
                anyhow::anyhow!(
                    "{}: display_zone: {:?} is not an IANA time zone name (such as America/Puerto_Rico)",
                    at(zone.span()),
                    zone.get_ref()
                )
            })?),
            None => None,
        };
        let site_url = match &config.site_url {
            Some(url) => Some(
                parse_site_url(url.get_ref())
                    .map_err(|e| anyhow::anyhow!("{}: site_url: {e}", at(url.span())))?,
            ),
            None => None,
        };
        if let Some(base) = &config.base_url {
            crate::fetch::client::parse_base_url(base.get_ref())
                .map_err(|e| anyhow::anyhow!("{}: base_url: {e}", at(base.span())))?;
        }
        if let Some(days) = &config.recent_days
            && !(0..=3650).contains(days.get_ref())
        {
            bail!(
                "{}: recent_days: expected 0 to 3650, found {}",
                at(days.span()),
                days.get_ref()
            );
        }
        let feed_limit = match &config.feed_limit {
            Some(limit) => Some(match limit.get_ref() {
                // Beyond usize (on a 32-bit machine) is as good as no limit.
                toml::Value::Integer(n) if *n >= 0 => usize::try_from(*n).unwrap_or(usize::MAX),
                value => {
                    let found = match value {
                        toml::Value::Integer(n) => n.to_string(),
                        other => format!("a {}", other.type_str()),
                    };
                    bail!(
                        "{}: feed_limit: expected a whole number of entries (0 for no limit), found {found}",
                        at(limit.span())
                    );
                }
            }),
            None => None,
        };
        if let Some(minutes) = &config.calendar.refresh_minutes
            && !(1..=10080).contains(minutes.get_ref())
        {
            bail!(
                "{}: calendar.refresh_minutes: expected 1 to 10080 (a week), found {}",
                at(minutes.span()),
                minutes.get_ref()
            );
        }
        if let Some(timeout) = &config.timeout
            && !(*timeout.get_ref() > 0.0 && *timeout.get_ref() <= 86_400.0)
        {
            bail!(
                "{}: timeout: expected seconds between 0 and 86400",
                at(timeout.span())
            );
        }
        let mut facility_bits = Vec::new();
        for (bit, name) in &config.facilities {
            let value: u64 = bit
                .parse()
                .ok()
                .filter(|v: &u64| v.is_power_of_two())
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "{}: facilities: {bit:?} is not a bit value (1, 2, 4, 8, ...)",
                        at(name.span())
                    )
                })?;
            facility_bits.push((value, name.get_ref().trim().to_owned()));
        }
        facility_bits.sort();
        let emails = &config.staff_emails;
        let mut staff_emails = Vec::new();
        for (role, email) in [
            ("ATM", &emails.atm),
            ("DATM", &emails.datm),
            ("TA", &emails.ta),
            ("EC", &emails.ec),
            ("FE", &emails.fe),
            ("WM", &emails.wm),
        ] {
            if let Some(email) = email {
                let address = email.get_ref().trim();
                let plausible = address.split_once('@').is_some_and(|(user, host)| {
                    !user.is_empty() && host.contains('.') && !host.starts_with('.')
                }) && !address
                    .chars()
                    .any(|c| c.is_whitespace() || c.is_control() || "<>\"'()[],;:\\".contains(c));
                if !plausible {
                    bail!(
                        "{}: staff_emails.{}: {address:?} is not an email address",
                        at(email.span()),
                        role.to_ascii_lowercase()
                    );
                }
                staff_emails.push((role, address.to_owned()));
            }
        }
        let mut menu = Vec::new();
        for entry in &config.menu {
            let origin = at(entry.name.span());
            let name = entry.name.get_ref().trim();
            if name.is_empty() {
                bail!("{origin}: menu: name is empty");
            }
            let target = match (&entry.url, &entry.page) {
                (Some(url), None) => MenuTarget::Url(
                    menu_url(url.get_ref())
                        .map_err(|e| anyhow::anyhow!("{}: menu: url: {e}", at(url.span())))?,
                ),
                (None, Some(page)) => MenuTarget::Page(page.get_ref().trim().to_owned()),
                _ => bail!(
                    "{origin}: menu: {name:?} needs either url = \"https://...\" (an address elsewhere) or page = \"join.md\" (a page of the site), not both"
                ),
            };
            menu.push(MenuEntry {
                name: name.to_owned(),
                target,
                origin: at(entry.page.as_ref().map_or(entry.name.span(), |p| p.span())),
            });
        }
        let site_file = |key: &str, value: &Option<Spanned<String>>| -> Result<Option<SiteFile>> {
            let Some(value) = value else { return Ok(None) };
            let path = value.get_ref().trim().trim_start_matches("./");
            if path.is_empty() || path.starts_with('/') || path.split('/').any(|p| p == "..") {
                bail!(
                    "{}: {key}: {:?} is not a path in the static folder (such as \"logo.svg\")",
                    at(value.span()),
                    value.get_ref()
                );
            }
            Ok(Some(SiteFile {
                path: path.to_owned(),
                origin: format!("{}: {key}", at(value.span())),
            }))
        };
        let logo = site_file("logo", &config.logo)?;
        let favicon = site_file("favicon", &config.favicon)?;
        let accent = match &config.accent {
            Some(colour) => Some(
                crate::view::accent(colour.get_ref())
                    .map_err(|e| anyhow::anyhow!("{}: accent: {e}", at(colour.span())))?,
            ),
            None => None,
        };
        Ok(Self {
            menu,
            logo,
            favicon,
            accent,
            language_at: config.language.as_ref().map(|l| at(l.span())),
            path: Some(path.to_path_buf()),
            display_zone,
            site_url,
            feed_limit,
            facility_bits,
            staff_emails,
            config,
        })
    }

    /// A path from the file, taken relative to the file's folder.
    pub fn relative(&self, path: &Path) -> PathBuf {
        match self.path.as_deref().and_then(Path::parent) {
            Some(folder) if path.is_relative() => folder.join(path),
            _ => path.to_path_buf(),
        }
    }
}

/// An http(s) address with a trailing slash, for `--site-url` and `site_url`.
pub fn parse_site_url(text: &str) -> Result<url::Url, String> {
    let mut url =
        url::Url::parse(text.trim()).map_err(|e| format!("{text:?} is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(format!("{text:?} is not an http(s) address"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!("{text:?}: a site URL takes no query or fragment"));
    }
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

/// A menu entry's address elsewhere: http, https or mailto, nothing a browser would run.
fn menu_url(text: &str) -> Result<String, String> {
    let url = url::Url::parse(text.trim()).map_err(|_| {
        format!("{text:?} is not an absolute address; for a page of the site write page = \"join.md\" (or \"roster\")")
    })?;
    match url.scheme() {
        "http" | "https" | "mailto" => Ok(url.to_string()),
        scheme => Err(format!(
            "{text:?}: only http, https and mailto addresses are linked, not {scheme}:"
        )),
    }
}

/// A TOML error in a webmaster's words: which key, what it takes and what was found
/// (`recent_days: expected a whole number, found the text "sixty"`), and for an unknown key
/// the nearest known one. serde's wording (`invalid type: string "sixty", expected i64`)
/// names Rust types and not the key; anything not recognised here is passed on as it is.
fn readable(error: &toml::de::Error) -> String {
    let message = error.message();
    let key = error_key(error);
    if let Some(rest) = message.strip_prefix("unknown field `")
        && let Some((unknown, rest)) = rest.split_once('`')
    {
        // ", expected one of `a`, `b`" or ", expected `a`": the names between backticks.
        let known: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
        let place = key.map(|k| format!(" in [{k}]")).unwrap_or_default();
        return match nearest(unknown, &known) {
            Some(near) => format!("unknown key `{unknown}`{place}: did you mean `{near}`?"),
            None if known.is_empty() => format!("unknown key `{unknown}`{place}"),
            None => format!(
                "unknown key `{unknown}`{place}; the known keys are {}",
                known
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
    }
    let wrong = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "));
    if let (Some(rest), Some(key)) = (wrong, &key)
        && let Some((found, expected)) = rest.rsplit_once(", expected ")
    {
        return format!(
            "{key}: expected {}, found {}",
            expected_in_words(expected),
            found_in_words(found)
        );
    }
    message.to_owned()
}

/// The dotted key an error is about (`calendar.refresh_minutes`), which the error shows
/// only when it is printed without the document.
fn error_key(error: &toml::de::Error) -> Option<String> {
    let mut bare = error.clone();
    bare.set_input(None);
    let text = bare.to_string();
    let key = text
        .lines()
        .last()?
        .strip_prefix("in `")?
        .strip_suffix('`')?;
    Some(key.to_owned())
}

/// serde's name for what a key takes, in words.
fn expected_in_words(expected: &str) -> String {
    match expected {
        "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "usize" => {
            "a whole number".into()
        }
        "f32" | "f64" => "a number".into(),
        "a string" | "a borrowed string" => "text in quotes".into(),
        "path string" => "a path in quotes".into(),
        "a boolean" => "true or false".into(),
        "a sequence" => "a list".into(),
        "a map" => "a table".into(),
        other if other.starts_with("struct ") => "a table".into(),
        other => other.into(),
    }
}

/// serde's description of the value found, in words: `string "x"` is the text "x".
fn found_in_words(found: &str) -> String {
    let quoted = |prefix: &str| {
        found
            .strip_prefix(prefix)
            .map(|v| v.trim_matches('`').to_owned())
    };
    if let Some(text) = found.strip_prefix("string ") {
        format!("the text {text}")
    } else if let Some(n) = quoted("integer ") {
        format!("the whole number {n}")
    } else if let Some(n) = quoted("floating point ") {
        format!("the number {n}")
    } else if let Some(b) = quoted("boolean ") {
        b
    } else {
        match found {
            "sequence" => "a list".into(),
            // TOML dates reach serde as maps too.
            "map" => "a table or a date".into(),
            other => other.into(),
        }
    }
}

/// The known key nearest to `unknown`, if it is near enough to be a slip: the same but for
/// case, or a few letters changed, added, dropped or swapped (each one edit: the optimal
/// string alignment distance, which counts two neighbours swapped as one).
fn nearest<'k>(unknown: &str, known: &[&'k str]) -> Option<&'k str> {
    let unknown = unknown.to_lowercase();
    let limit = (unknown.chars().count() / 3).max(1);
    known
        .iter()
        .map(|k| (strsim::osa_distance(&unknown, &k.to_lowercase()), *k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Whether line `number` (from 1) of a TOML text sets `api_key`.
fn defines_api_key(text: &str, number: usize) -> bool {
    text.lines().nth(number - 1).is_some_and(|line| {
        let line = line.trim_start();
        ["api_key", "\"api_key\"", "'api_key'"].iter().any(|key| {
            line.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
    })
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Loaded> {
        Loaded::parse(text, Path::new("vatcar-site.toml"))
    }

    #[test]
    fn a_full_file_reads() {
        let loaded = parse(
            r#"
base_url = "https://vatcar.net/public"
site_url = "https://tjzs.example.org"
title = "San Juan CERAP"
tagline = "Caribbean skies"
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
            loaded.site_url.unwrap().as_str(),
            "https://tjzs.example.org/"
        );
        assert_eq!(loaded.display_zone, Some(chrono_tz::America::Puerto_Rico));
        assert_eq!(
            loaded.facility_bits,
            [(1, "San Juan CERAP".into()), (64, "Piarco FIR".into())]
        );
        assert_eq!(
            loaded.staff_emails,
            [("ATM", "atm@tjzs.example.org".into())]
        );
        assert!(!loaded.config.sections.documents && loaded.config.sections.roster);
        assert_eq!(loaded.feed_limit, Some(20));
        assert_eq!(parse("feed_limit = 0\n").unwrap().feed_limit, Some(0));
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
        assert_eq!(
            loaded.config.api_key.unwrap().get_ref().as_str(),
            Some("98765432123456789")
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
    fn only_a_near_key_is_suggested() {
        let known = ["site_url", "base_url", "title", "recent_days"];
        assert_eq!(nearest("site_ulr", &known), Some("site_url"));
        assert_eq!(nearest("SITE_URL", &known), Some("site_url"));
        assert_eq!(nearest("recentdays", &known), Some("recent_days"));
        assert_eq!(nearest("titel", &known), Some("title"));
        assert_eq!(nearest("colour", &known), None);
        assert_eq!(nearest("url", &known), None);
    }
}
