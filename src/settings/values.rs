//! The values a setting may take, each checked as it is read: a value of the wrong kind is
//! refused by serde (and worded by [`super::words`]), a value of the right kind but out of
//! bounds by the type's `TryFrom`, with an [`Invalid`] naming what is expected.

use super::addresses::{check_base_url, parse_core_api_url, parse_live_url, parse_site_url};
use crate::secret::without_userinfo;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Range;
use toml::Spanned;

/// Marks the message of a value refused by its type, so that the error printer puts the key
/// before it (`recent_days: expected 0 to 3650, found -1`).
pub(super) const INVALID: &str = "invalid setting value: ";

/// A value of the right kind that is not one the setting takes.
#[derive(Debug)]
pub struct Invalid(String);

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{INVALID}{}", self.0)
    }
}

pub(super) fn invalid<T>(message: String) -> Result<T, Invalid> {
    Err(Invalid(message))
}

/// `TryFrom<String>` for a setting held as what `$parse` makes of its text (`site_url` and
/// `display_zone` as their flags are), refusing what it refuses in its words.
macro_rules! parsed {
    ($type:ty, $parse:path) => {
        impl TryFrom<String> for $type {
            type Error = Invalid;
            fn try_from(text: String) -> Result<Self, Invalid> {
                $parse(&text).map(Self).map_err(Invalid)
            }
        }
    };
}

/// `new(value, origin)` for a value the file did not give (a flag's, a default, the demo's):
/// held in `$field`, said to come from `origin`, at no place in the file.
macro_rules! placed_elsewhere {
    ($type:ty, $field:ident: $held:ty) => {
        impl $type {
            pub fn new($field: impl Into<$held>, origin: &str) -> Self {
                let ($field, origin) = ($field.into(), origin.to_owned());
                Self {
                    $field,
                    origin,
                    span: 0..0,
                }
            }
        }
    };
}

/// `base_url`: the API's address.
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "String")]
pub struct BaseUrl(pub String);

impl Default for BaseUrl {
    fn default() -> Self {
        Self(super::DEFAULT_BASE_URL.to_owned())
    }
}

impl TryFrom<String> for BaseUrl {
    type Error = Invalid;
    fn try_from(text: String) -> Result<Self, Invalid> {
        match check_base_url(&text) {
            Ok(_) => Ok(Self(text)),
            Err(reason) => {
                let hidden = without_userinfo(&text);
                let mut shown: String = hidden.chars().take(200).collect();
                if shown.len() < hidden.len() {
                    shown.push('…');
                }
                invalid(format!("invalid base URL {shown:?}: {reason}"))
            }
        }
    }
}

/// `api_key` as the file, a flag or the environment gives it, and where (for its errors):
/// read as any value, so that one of the wrong type is refused without echoing it (serde's
/// type errors quote the value).
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "Spanned<toml::Value>")]
pub struct KeyText {
    pub text: String,
    /// `vatcar-site.toml:3: api_key`, `--api-key`.
    pub origin: String,
    pub(super) span: Range<usize>,
}

placed_elsewhere!(KeyText, text: String);

impl TryFrom<Spanned<toml::Value>> for KeyText {
    type Error = Invalid;
    fn try_from(value: Spanned<toml::Value>) -> Result<Self, Invalid> {
        let span = value.span();
        match value.into_inner() {
            toml::Value::String(text) => Ok(Self {
                span,
                ..Self::new(text, "")
            }),
            other => invalid(format!(
                "expected the key as a quoted string, found a {} (the value is not shown)",
                other.type_str()
            )),
        }
    }
}

/// `site_url` and `previous`.
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "String")]
pub struct SiteUrl(pub url::Url);

parsed!(SiteUrl, parse_site_url);

/// `logo` and `favicon`: a file of the webmaster's static folder (`logo = "logo.svg"`).
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "Spanned<String>")]
pub struct SiteFile {
    /// Below the static folder, which is its path in the site.
    pub path: String,
    /// Where it was named (`vatcar-site.toml:4: logo`), for errors.
    pub origin: String,
    pub(super) span: Range<usize>,
}

placed_elsewhere!(SiteFile, path: String);

impl TryFrom<Spanned<String>> for SiteFile {
    type Error = Invalid;
    fn try_from(text: Spanned<String>) -> Result<Self, Invalid> {
        let span = text.span();
        let text = text.into_inner();
        let path = text.trim().trim_start_matches("./");
        if path.starts_with('/') && !path.trim_start_matches('/').is_empty() {
            // The site's root, as a web address would write it: the file is in static/.
            let below = path.trim_start_matches('/');
            let below = below.strip_prefix("static/").unwrap_or(below);
            return invalid(format!(
                "{text:?} starts with /; write {below:?}: paths are relative to the static folder (static/)"
            ));
        }
        if path.is_empty() || path.split('/').any(|p| p == "..") {
            return invalid(format!(
                "{text:?} is not a path in the static folder (such as \"logo.svg\")"
            ));
        }
        Ok(Self {
            span,
            ..Self::new(path, "")
        })
    }
}

/// `accent`: a colour as written, `#rgb` or `#rrggbb`.
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "String")]
pub struct Colour(pub String);

impl TryFrom<String> for Colour {
    type Error = Invalid;
    fn try_from(text: String) -> Result<Self, Invalid> {
        parse_colour(&text).map_err(Invalid)?;
        Ok(Self(text))
    }
}

/// `#rgb` or `#rrggbb` as red, green and blue from 0 to 255, else an error saying what is
/// expected.
pub fn parse_colour(text: &str) -> Result<[f64; 3], String> {
    let hex = text.trim().strip_prefix('#').unwrap_or("");
    let digits: Vec<u32> = hex.chars().filter_map(|c| c.to_digit(16)).collect();
    if digits.len() != hex.len() || !matches!(hex.len(), 3 | 6) {
        return Err(format!(
            "{text:?} is not a colour: write it as #rrggbb (such as \"#0b5d7a\") or #rgb"
        ));
    }
    let channel = |i: usize| -> f64 {
        if hex.len() == 3 {
            f64::from(digits[i] * 17)
        } else {
            f64::from(digits[2 * i] * 16 + digits[2 * i + 1])
        }
    };
    Ok([channel(0), channel(1), channel(2)])
}

/// `TryFrom<String>` for a setting that is one of a few names (`$name`, each the variant
/// `$variant`): [`one_of`] them, refusing others as not `$what`, with the nearest name or
/// `$otherwise` (what to write).
macro_rules! choice {
    ($type:ty, [$(($name:literal, $variant:ident)),+], $what:literal, $otherwise:literal) => {
        impl TryFrom<String> for $type {
            type Error = Invalid;
            fn try_from(text: String) -> Result<Self, Invalid> {
                one_of(&text, &[$(($name, Self::$variant)),+], $what, $otherwise)
            }
        }
    };
}

/// `header`: how the header is coloured. `plain`, the default, is the page's own paper with
/// the accent as a highlight, so that a logo in the accent reads on it; `accent` fills the
/// header with the accent and sets the logo on a plate.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(try_from = "String", rename_all = "lowercase")]
pub enum HeaderStyle {
    #[default]
    Plain,
    Accent,
}

choice!(
    HeaderStyle,
    [("plain", Plain), ("accent", Accent)],
    "a header style",
    "write \"plain\" (the default: the page's colours, the accent as a highlight) or \"accent\" (the header in the accent)"
);

/// `logo_backdrop`: what the header draws behind the logo, the same in both schemes. `auto`
/// (the default): nothing behind a logo that brings its own ground (a PNG, JPEG or WebP with
/// no transparent pixel), and behind one drawn on nothing a plate where the accent would not
/// read on the header in either scheme; `plate`: a plate always; `none`: never.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(try_from = "String", rename_all = "lowercase")]
pub enum LogoBackdrop {
    #[default]
    Auto,
    Plate,
    None,
}

choice!(
    LogoBackdrop,
    [("auto", Auto), ("plate", Plate), ("none", None)],
    "a logo backdrop",
    "write \"auto\" (the default), \"plate\" or \"none\""
);

/// `banners`: where event banners are loaded from. `local` (the default): fetched at build
/// time and published with the site, resized; `remote`: the API's address, as the API gives it.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(try_from = "String", rename_all = "lowercase")]
pub enum BannerSource {
    #[default]
    Local,
    Remote,
}

choice!(
    BannerSource,
    [("local", Local), ("remote", Remote)],
    "a banner source",
    "write \"local\" (the default: banners fetched at build time and served with the site) or \"remote\" (the API's addresses)"
);

/// The choice `text` names (trimmed) among `choices`; else a refusal saying it is not `what`,
/// with the nearest name, or `otherwise` (what to write) when none is near.
fn one_of<T: Copy>(
    text: &str,
    choices: &[(&str, T)],
    what: &str,
    otherwise: &str,
) -> Result<T, Invalid> {
    let text = text.trim();
    if let Some((_, choice)) = choices.iter().find(|(name, _)| *name == text) {
        return Ok(*choice);
    }
    let names = choices.iter().map(|(name, _)| *name);
    invalid(match crate::suggest::nearest(text, names) {
        Some(near) => format!("{text:?} is not {what}: did you mean {near:?}?"),
        None => format!("{text:?} is not {what}; {otherwise}"),
    })
}

/// `display_zone`: an IANA zone.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(try_from = "String")]
pub struct Zone(pub chrono_tz::Tz);

parsed!(Zone, parse_zone);

/// An IANA zone by its name (`display_zone`, `--display-zone`); a name that is none says
/// which it may have meant (`America/Santo Domingo` for `America/Santo_Domingo`).
pub fn parse_zone(text: &str) -> Result<chrono_tz::Tz, String> {
    text.parse().map_err(|_| {
        let names = chrono_tz::TZ_VARIANTS.iter().map(|zone| zone.name());
        match crate::suggest::nearest(text, names) {
            Some(near) => format!("{text:?} is not an IANA time zone name; did you mean {near:?}?"),
            None => format!("{text:?} is not an IANA time zone name (such as America/Puerto_Rico)"),
        }
    })
}

/// A key of `[facilities]`: one bit's value.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(try_from = "String")]
pub struct BitValue(pub u64);

impl TryFrom<String> for BitValue {
    type Error = Invalid;
    fn try_from(text: String) -> Result<Self, Invalid> {
        match text.parse::<u64>() {
            Ok(bit) if bit.is_power_of_two() => Ok(Self(bit)),
            _ => invalid(format!("{text:?} is not a bit value (1, 2, 4, 8, ...)")),
        }
    }
}

/// A role address of `[staff_emails]`, trimmed.
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "String")]
pub struct Email(pub String);

impl TryFrom<String> for Email {
    type Error = Invalid;
    fn try_from(text: String) -> Result<Self, Invalid> {
        let address = text.trim();
        let plausible = address.split_once('@').is_some_and(|(user, host)| {
            !user.is_empty() && host.contains('.') && !host.starts_with('.')
        }) && !address
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "<>\"'()[],;:\\".contains(c));
        if !plausible {
            return invalid(format!("{address:?} is not an email address"));
        }
        Ok(Self(address.to_owned()))
    }
}

/// Which parts of the site to build; all by default (`[sections]` in the config file).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct Sections {
    pub roster: bool,
    pub events: bool,
    pub division: bool,
    pub documents: bool,
    /// The live page, its bookings calendar and the home page's live block: `live = false`
    /// at the top of the file turns them off, not a key of `[sections]`.
    #[serde(skip_deserializing)]
    pub live: bool,
    /// The roster's activity columns and data/activity.json: `[activity] enabled`, not a
    /// key of `[sections]`.
    #[serde(skip_deserializing)]
    pub activity: bool,
    /// The member pages: `[people] enabled`, not a key of `[sections]`.
    #[serde(skip_deserializing)]
    pub people: bool,
}

impl Default for Sections {
    fn default() -> Self {
        Self {
            roster: true,
            events: true,
            division: true,
            documents: true,
            live: true,
            activity: false,
            people: false,
        }
    }
}

/// `live.callsigns`: callsign prefixes of letters and digits, upper-cased (the part before a
/// callsign's first `_`); none for the facility's code. Every code that is none is named at
/// once.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(try_from = "Vec<String>")]
pub struct Codes(pub Vec<String>);

impl TryFrom<Vec<String>> for Codes {
    type Error = Invalid;
    fn try_from(list: Vec<String>) -> Result<Self, Invalid> {
        if list.is_empty() {
            // Left out, the facility's code is meant; written empty, it may not be.
            return invalid("the list is empty; name the callsign prefixes that are yours, or leave callsigns out for the facility's code".into());
        }
        codes(list, |text, code| match code.split_once('_') {
            Some((prefix, _)) => Some(format!(
                "{text:?} holds a _; write the part before the first _ ({prefix:?} for {code:?})"
            )),
            None if code.is_empty()
                || code.len() > 12
                || !code.chars().all(|c| c.is_ascii_alphanumeric()) =>
            {
                Some(format!(
                    "{text:?} is not a code of letters and digits (such as \"TJSJ\")"
                ))
            }
            None => None,
        })
        .map(Self)
    }
}

/// `live.airports`: ICAO codes (four letters or digits), upper-cased, as VATSIM's flight plans
/// name airports; none leaves the traffic out. Every code that is none is named at once.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(try_from = "Vec<String>")]
pub struct Airports(pub Vec<String>);

impl TryFrom<Vec<String>> for Airports {
    type Error = Invalid;
    fn try_from(list: Vec<String>) -> Result<Self, Invalid> {
        codes(list, |text, code| {
            let icao = code.len() == 4 && code.chars().all(|c| c.is_ascii_alphanumeric());
            let iata = code.len() == 3 && code.chars().all(|c| c.is_ascii_alphabetic());
            match (icao, iata) {
                (true, _) => None,
                (false, true) => Some(format!(
                    "{text:?} is an IATA code; write the airport's ICAO code, which VATSIM's flight plans use (\"TJSJ\" for SJU)"
                )),
                (false, false) => Some(format!(
                    "{text:?} is not an ICAO airport code (four letters, such as \"TJSJ\")"
                )),
            }
        })
        .map(Self)
    }
}

/// `list` upper-cased, trimmed and each once, where `refuse` (given a code as written and
/// upper-cased) finds nothing wrong; else every refusal, in one message.
fn codes(
    list: Vec<String>,
    refuse: impl Fn(&str, &str) -> Option<String>,
) -> Result<Vec<String>, Invalid> {
    let mut codes: Vec<String> = Vec::with_capacity(list.len());
    let mut refused = Vec::new();
    for text in list {
        let code = text.trim().to_ascii_uppercase();
        match refuse(&text, &code) {
            Some(why) => refused.push(why),
            None if !codes.contains(&code) => codes.push(code),
            None => {}
        }
    }
    match refused.is_empty() {
        true => Ok(codes),
        false => invalid(refused.join("; ")),
    }
}

/// `live.feed` and `live.bookings`: an http(s) address with a host and no user name or
/// password (the feed's address is published in the pages), and where it was set, for
/// errors. Where it may be read from (https, or http to this machine) is `fetch::public`'s
/// rule, held by the command.
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "Spanned<String>")]
pub struct LiveAddress {
    pub url: url::Url,
    /// `vatcar-site.toml:14: live.feed`, `--bookings-url`, or `the default live.feed`.
    pub origin: String,
    pub(super) span: Range<usize>,
}

placed_elsewhere!(LiveAddress, url: url::Url);

impl TryFrom<Spanned<String>> for LiveAddress {
    type Error = Invalid;
    fn try_from(text: Spanned<String>) -> Result<Self, Invalid> {
        let span = text.span();
        let url = parse_live_url(text.get_ref()).map_err(Invalid)?;
        Ok(Self {
            span,
            ..Self::new(url, "")
        })
    }
}

/// `language`, trimmed, and where it was set: whether the templates speak it is known once
/// the templates folder is.
#[derive(Clone, Debug, Deserialize)]
#[serde(from = "Spanned<String>")]
pub struct Language {
    pub name: String,
    /// `vatcar-site.toml:2: language`, or `--language`.
    pub origin: String,
    pub(super) span: Range<usize>,
}

placed_elsewhere!(Language, name: String);

impl From<Spanned<String>> for Language {
    fn from(text: Spanned<String>) -> Self {
        Self {
            span: text.span(),
            ..Self::new(text.get_ref().trim(), "")
        }
    }
}

/// `activity.api`: VATSIM's Core API, read with no key over https (http to this machine
/// only, as every public read is); no user name, password, query or fragment.
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "String")]
pub struct CoreApi(pub url::Url);

impl Default for CoreApi {
    fn default() -> Self {
        Self(url::Url::parse(super::DEFAULT_CORE_API).expect("the default address parses"))
    }
}

parsed!(CoreApi, parse_core_api_url);

/// `people.names`: how a member's name is shown wherever the site shows one, with `[people]`
/// on. `first-initial` (the default) keeps a member findable by those who know them and
/// hardly by anyone else; `cid` shows no name at all.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(try_from = "String", rename_all = "kebab-case")]
pub enum NameMode {
    Full,
    #[default]
    FirstInitial,
    Cid,
}

choice!(
    NameMode,
    [
        ("full", Full),
        ("first-initial", FirstInitial),
        ("cid", Cid)
    ],
    "a name mode",
    "write \"full\" (the name as the API sends it), \"first-initial\" (the default: \"Tyrone G.\") or \"cid\" (the CID alone)"
);

/// A member's VATSIM CID in `people.opt_out`: a positive whole number.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(try_from = "i64")]
pub struct Cid(pub u64);

impl TryFrom<i64> for Cid {
    type Error = Invalid;
    fn try_from(cid: i64) -> Result<Self, Invalid> {
        match u64::try_from(cid) {
            Ok(cid) if cid > 0 => Ok(Self(cid)),
            _ => invalid(format!(
                "expected a CID (a positive whole number, such as 1234567), found {cid}"
            )),
        }
    }
}
