//! Links that hand an event or a calendar to Google Calendar or Outlook on the web.
//!
//! Neither service documents these addresses; they are the forms in wide use (Google's
//! "add event" template, Google's `cid` subscribe link, Outlook's `addfromweb`). Each value
//! is percent-encoded whole, so that text from the API cannot add or change a parameter, and
//! the same data always gives the same link.

use super::time::push_basic_utc;
use chrono::{DateTime, Utc};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// Everything but RFC 3986's unreserved characters is encoded; a space is `%20`, never `+`,
/// which some readers of a query take literally.
const QUERY_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// How much of an event's description goes into a Google link. A long description would
/// make a link some servers refuse (every non-ASCII character is nine bytes once encoded);
/// the event page, linked at the end, has the rest.
const DETAILS_CHARS: usize = 1000;

fn encoded(value: &str) -> impl std::fmt::Display + '_ {
    utf8_percent_encode(value, QUERY_VALUE)
}

/// Opens Google Calendar's form for a new event, filled in with this one: its name, times,
/// description and location as plain text, as the calendars carry them, and its own page
/// when the site URL is known.
pub(super) fn google_event(
    name: &str,
    (start, end): (DateTime<Utc>, DateTime<Utc>),
    description: &str,
    location: &str,
    page: Option<&str>,
) -> String {
    let page = page.map(|page| format!("Event page: {page}"));
    let details = with_line(
        shortened(description.trim(), DETAILS_CHARS),
        page.as_deref(),
    );
    let mut link = format!(
        "https://calendar.google.com/calendar/render?action=TEMPLATE&text={}&dates=",
        encoded(name)
    );
    push_basic_utc(&mut link, start);
    link.push('/');
    push_basic_utc(&mut link, end);
    if !details.is_empty() {
        link.push_str(&format!("&details={}", encoded(&details)));
    }
    if !location.is_empty() {
        link.push_str(&format!("&location={}", encoded(location)));
    }
    link
}

/// Subscribes Google Calendar to the calendar at `webcal` (a `webcal://` address).
pub(super) fn google_subscribe(webcal: &str) -> String {
    format!(
        "https://calendar.google.com/calendar/r?cid={}",
        encoded(webcal)
    )
}

/// Subscribes Outlook on the web to the calendar at `https` (its `https://` address),
/// under `name`.
pub(super) fn outlook_subscribe(https: &str, name: &str) -> String {
    format!(
        "https://outlook.live.com/calendar/0/addfromweb?url={}&name={}",
        encoded(https),
        encoded(name)
    )
}

/// `text`, then `line` after a blank line; `line` alone where `text` is empty.
pub(super) fn with_line(mut text: String, line: Option<&str>) -> String {
    if let Some(line) = line {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(line);
    }
    text
}

/// The first `limit` characters of `text`, with "…" when some were left out.
pub(super) fn shortened(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        None => text.to_owned(),
        Some((cut, _)) => format!("{}…", text[..cut].trim_end()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    /// The link of an event from 2026-11-21 23:00Z to 02:30Z, from TJSJ to TNCM.
    fn event(name: &str, description: &str, page: Option<&str>) -> String {
        let start = Utc.with_ymd_and_hms(2026, 11, 21, 23, 0, 0).unwrap();
        let end = Utc.with_ymd_and_hms(2026, 11, 22, 2, 30, 0).unwrap();
        google_event(name, (start, end), description, "TJSJ → TNCM", page)
    }

    #[test]
    fn an_event_link_encodes_every_value_whole() {
        let link = event(
            "Fly & Drive=fun #1 + more",
            "Line one\nline two",
            Some("https://tjzs.example.org/events/7/"),
        );
        assert_eq!(
            link,
            "https://calendar.google.com/calendar/render?action=TEMPLATE\
             &text=Fly%20%26%20Drive%3Dfun%20%231%20%2B%20more\
             &dates=20261121T230000Z/20261122T023000Z\
             &details=Line%20one%0Aline%20two%0A%0AEvent%20page%3A%20https%3A%2F%2Ftjzs.example.org%2Fevents%2F7%2F\
             &location=TJSJ%20%E2%86%92%20TNCM"
        );
    }

    #[test]
    fn a_long_description_is_cut_and_an_empty_one_left_out() {
        let long = "é".repeat(5000);
        let link = event("Night ops", &long, None);
        let details = link.split("&details=").nth(1).unwrap();
        let details = details.split('&').next().unwrap();
        // 1000 é (6 bytes encoded each) and the ellipsis.
        assert_eq!(details.len(), 1000 * 6 + 9);
        let link = event("Night ops", "  ", None);
        assert!(!link.contains("details="), "{link}");
    }

    #[test]
    fn dates_are_googles_form() {
        let mut link = String::new();
        for (y, mo, d, h, mi, s) in [
            (2026, 1, 2, 3, 4, 5),
            (987, 12, 31, 23, 59, 59),
            (10000, 6, 7, 0, 0, 0),
        ] {
            push_basic_utc(&mut link, Utc.with_ymd_and_hms(y, mo, d, h, mi, s).unwrap());
            link.push(' ');
        }
        assert_eq!(link, "20260102T030405Z 09871231T235959Z 100000607T000000Z ");
    }

    #[test]
    fn shortening_counts_characters_not_bytes() {
        assert_eq!(shortened("héllo wörld", 11), "héllo wörld");
        assert_eq!(shortened("héllo wörld", 6), "héllo…");
        assert_eq!(shortened("✈✈✈✈", 2), "✈✈…");
        assert_eq!(shortened("𝄞𝄞𝄞", 3), "𝄞𝄞𝄞");
        assert_eq!(shortened("", 0), "");
        assert_eq!(shortened("abc", 0), "…");
        assert_eq!(shortened("ab cd", 3), "ab…");
    }

    #[test]
    fn subscribe_links_carry_the_calendar_address_encoded() {
        assert_eq!(
            google_subscribe("webcal://tjzs.example.org/calendar/facility.ics"),
            "https://calendar.google.com/calendar/r?cid=webcal%3A%2F%2Ftjzs.example.org%2Fcalendar%2Ffacility.ics"
        );
        assert_eq!(
            outlook_subscribe(
                "https://tjzs.example.org/calendar/facility.ics",
                "San Juan CERAP events"
            ),
            "https://outlook.live.com/calendar/0/addfromweb?url=https%3A%2F%2Ftjzs.example.org%2Fcalendar%2Ffacility.ics&name=San%20Juan%20CERAP%20events"
        );
    }
}
