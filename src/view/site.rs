//! What every page shows: the site's name, the facility, its calendars.

use super::BuildInputs;
use super::Sections;
use super::calendar_links::{google_subscribe, outlook_subscribe};
use super::content::encode;
use super::outputs::{BOOKINGS_CALENDAR, DIVISION_CALENDAR, FACILITY_CALENDAR};
use crate::model::SiteData;
use crate::sanitize::links::{SafeLink, safe_link};
use crate::settings::Settings;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct Site {
    pub title: String,
    /// A shorter name, which the header shows where the whole one would be cut.
    pub short_title: Option<String>,
    pub tagline: Option<String>,
    /// What the site is, for search engines and link previews: the home page introduction's
    /// `description`, else the tagline, else the facility's own description.
    pub description: Option<String>,
    pub sections: Sections,
    pub facility: FacilityView,
    /// Absolute, with a trailing slash, when known.
    pub site_url: Option<String>,
    /// The display zone as IANA names it (`America/Curacao`), and its place, as the page
    /// names it where the browser has no name of its own for the zone (`Curacao`).
    pub display_zone: Option<String>,
    pub display_zone_name: Option<String>,
    pub has_feed: bool,
    pub calendars: CalendarLinks,
    pub generator: &'static str,
    /// The header's entries beyond the built-in sections, in order.
    pub menu: Vec<super::MenuItem>,
    /// The logo's address relative to the site root (its path, percent-encoded), when one is
    /// set.
    pub logo: Option<String>,
    /// The logo's own width and height, for its `<img>`, so that the header keeps its room
    /// while it loads; set with the static files ([`crate::images::natural_size`]).
    pub logo_size: Option<LogoSize>,
    /// The browser tab's icon, when one is set (else the theme's own).
    pub favicon: Option<Favicon>,
    pub accent: Option<super::AccentView>,
    /// The header's colours, and whether the logo sits on a plate.
    pub header: super::HeaderView,
    /// The pages that show who is on now (the live page, the home page) limit what their
    /// script may connect to: `'self'` and the data feed's origin, for their
    /// Content-Security-Policy. `None` with the live page off.
    pub live_connect_src: Option<String>,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct LogoSize {
    pub width: u32,
    pub height: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct Favicon {
    /// Its address relative to the site root (its path, percent-encoded).
    pub path: String,
    /// Its media type, from its name, for `<link rel="icon" type>`.
    pub media_type: Option<&'static str>,
}

/// Where the two calendars are, and their subscribe links.
#[derive(Clone, Debug, Serialize)]
pub struct CalendarLinks {
    /// Relative to the site root.
    pub facility: &'static str,
    pub division: &'static str,
    /// `webcal://` subscribe links, when the site URL is known.
    pub facility_webcal: Option<String>,
    pub division_webcal: Option<String>,
    /// Each calendar's name (its `X-WR-CALNAME`).
    pub facility_name: String,
    pub division_name: String,
    /// Links that subscribe Google Calendar and Outlook on the web, when the site URL is
    /// known (a calendar they cannot fetch cannot be subscribed to).
    pub facility_google: Option<String>,
    pub facility_outlook: Option<String>,
    pub division_google: Option<String>,
    pub division_outlook: Option<String>,
    /// The bookings of our positions (with the live page on).
    pub bookings: &'static str,
    pub bookings_webcal: Option<String>,
    pub bookings_name: String,
    pub bookings_google: Option<String>,
    pub bookings_outlook: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FacilityView {
    pub name: String,
    pub short_name: Option<String>,
    pub description: Option<String>,
    pub website: Option<SafeLink>,
}

pub(super) fn site_view(data: &SiteData, settings: &Settings, inputs: &BuildInputs) -> Site {
    let facility = data.roster.facility.clone().unwrap_or_default();
    let name = facility
        .display_name()
        .unwrap_or_else(|| "VATCAR facility".into());
    let site_url = settings.site_url.as_ref().map(|u| {
        let mut text = u.0.to_string();
        if !text.ends_with('/') {
            text.push('/');
        }
        text
    });
    let title = settings.title.clone().unwrap_or_else(|| name.clone());
    let calendars = calendar_links(settings, inputs, &title);
    // Checked as the settings were read: a colour.
    let accent = (settings.accent.as_ref()).and_then(|c| super::accent(&c.0).ok());
    Site {
        title,
        short_title: settings.short_title.clone(),
        tagline: settings.tagline.clone(),
        description: settings
            .tagline
            .clone()
            .or_else(|| facility.description.clone()),
        sections: settings.sections,
        facility: FacilityView {
            name,
            short_name: facility.short_name.clone(),
            description: facility.description.clone(),
            website: facility
                .website_url
                .as_deref()
                .and_then(|u| safe_link(u, &inputs.base_url)),
        },
        has_feed: site_url.is_some(),
        site_url,
        display_zone: settings.display_zone.map(|z| z.0.name().to_owned()),
        display_zone_name: settings.display_zone.map(|z| zone_place(z.0.name())),
        calendars,
        generator: concat!("vatcar-site ", env!("CARGO_PKG_VERSION")),
        menu: Vec::new(),
        // Pages write these after `root`, as addresses: a name with a space, `#` or `?` would
        // otherwise end the path or start a fragment.
        logo: settings.logo.as_ref().map(|l| encode(&l.path)),
        logo_size: (inputs.logo.and_then(|logo| logo.size))
            .map(|(width, height)| LogoSize { width, height }),
        // The logo is the site's mark: the tab shows it too, unless `favicon` names another.
        favicon: settings
            .favicon
            .as_ref()
            .or(settings.logo.as_ref())
            .map(|f| Favicon {
                path: encode(&f.path),
                media_type: media_type(&f.path),
            }),
        header: super::header(
            settings.header,
            accent.as_ref(),
            super::identity::plate_for(settings.logo_backdrop, inputs.logo),
        ),
        accent,
        live_connect_src: (settings.sections.live).then(|| super::live_connect_src(&settings.live)),
    }
}

/// Where the calendars are, their names, and the links that subscribe to them (absolute ones
/// only when the site's address is known).
fn calendar_links(settings: &Settings, inputs: &BuildInputs, title: &str) -> CalendarLinks {
    let absolute = |file: &str| {
        settings
            .site_url
            .as_ref()
            .and_then(|u| u.0.join(file).ok())
            .map(String::from)
    };
    let webcal = |file: &str| Some(format!("webcal://{}", absolute(file)?.split_once("://")?.1));
    let facility_name = settings.calendar.facility_name.clone().unwrap_or_else(|| {
        inputs
            .texts
            .text("calendar.facility_name", &[("site", title)])
    });
    let division_name = (settings.calendar)
        .division_name
        .clone()
        .unwrap_or_else(|| inputs.texts.text("calendar.division_name", &[]));
    let bookings_name = inputs
        .texts
        .text("calendar.bookings_name", &[("site", title)]);
    const FACILITY: &str = FACILITY_CALENDAR.path;
    const DIVISION: &str = DIVISION_CALENDAR.path;
    const BOOKINGS: &str = BOOKINGS_CALENDAR.path;
    CalendarLinks {
        facility: FACILITY,
        division: DIVISION,
        facility_webcal: webcal(FACILITY),
        division_webcal: webcal(DIVISION),
        facility_google: webcal(FACILITY).map(|w| google_subscribe(&w)),
        facility_outlook: absolute(FACILITY).map(|u| outlook_subscribe(&u, &facility_name)),
        division_google: webcal(DIVISION).map(|w| google_subscribe(&w)),
        division_outlook: absolute(DIVISION).map(|u| outlook_subscribe(&u, &division_name)),
        bookings: BOOKINGS,
        bookings_webcal: webcal(BOOKINGS),
        bookings_google: webcal(BOOKINGS).map(|w| google_subscribe(&w)),
        bookings_outlook: absolute(BOOKINGS).map(|u| outlook_subscribe(&u, &bookings_name)),
        facility_name,
        division_name,
        bookings_name,
    }
}

/// A time zone's place, from its IANA name: the last part, with spaces for underscores
/// (`America/Argentina/Buenos_Aires` is `Buenos Aires`, `UTC` is `UTC`). The pages show it
/// where the reader's browser has no name of its own for the zone in the page's language.
fn zone_place(zone: &str) -> String {
    zone.rsplit('/').next().unwrap_or(zone).replace('_', " ")
}

fn media_type(path: &str) -> Option<&'static str> {
    let extension = path.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match extension.as_str() {
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "gif" => "image/gif",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        _ => return None,
    })
}
