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

/// Each byte as [`QUERY_VALUE`] encodes it: its three bytes (the byte itself then two unused,
/// for RFC 3986's unreserved characters, or `%XX`) and how many of them count.
const ENCODED: [([u8; 3], usize); 256] = {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut encoded = [([0_u8; 3], 0); 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        encoded[byte] = if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            ([b, 0, 0], 1)
        } else {
            ([b'%', HEX[byte >> 4], HEX[byte & 15]], 3)
        };
        byte += 1;
    }
    encoded
};

/// [`encoded`], onto the end of `link`. The encoder's own iterator gives a piece for each run
/// of plain bytes and each encoded one, and pushing those pieces (often of one to five
/// bytes: descriptions are words and spaces) cost more than twice this on 20,000 event
/// pages: each stretch of the value is encoded into a buffer on the stack, three bytes
/// written for each and one or three kept, then pushed whole. The tests hold it to the
/// encoder.
fn push_encoded(link: &mut String, value: &str) {
    const STRETCH: usize = 64;
    link.reserve(value.len() + value.len() / 4);
    let mut buffer = [0_u8; 3 * STRETCH];
    for stretch in value.as_bytes().chunks(STRETCH) {
        let mut at = 0;
        for &byte in stretch {
            let (bytes, count) = ENCODED[usize::from(byte)];
            buffer[at..at + 3].copy_from_slice(&bytes);
            at += count;
        }
        // Only ASCII was written, so this is never empty for want of text.
        link.push_str(std::str::from_utf8(&buffer[..at]).unwrap_or_default());
    }
}

/// What an event is, for [`google_event`]: plain text, as the calendars carry it.
pub(super) struct EventText<'a> {
    pub name: &'a str,
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
    pub description: &'a str,
    pub location: &'a str,
    /// The event's own page, when the site URL is known.
    pub page: Option<&'a str>,
}

/// Opens Google Calendar's form for a new event, filled in with this one.
pub(super) fn google_event(event: &EventText) -> String {
    let mut details = shortened(event.description.trim(), DETAILS_CHARS);
    if let Some(page) = event.page {
        if !details.is_empty() {
            details.push_str("\n\n");
        }
        details.push_str("Event page: ");
        details.push_str(page);
    }
    let mut link = String::with_capacity(128 + 3 * (event.name.len() + details.len()));
    link.push_str("https://calendar.google.com/calendar/render?action=TEMPLATE&text=");
    push_encoded(&mut link, event.name);
    link.push_str("&dates=");
    push_basic_utc(&mut link, event.start);
    link.push('/');
    push_basic_utc(&mut link, event.end);
    if !details.is_empty() {
        link.push_str("&details=");
        push_encoded(&mut link, &details);
    }
    if !event.location.is_empty() {
        link.push_str("&location=");
        push_encoded(&mut link, event.location);
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

/// The first `limit` characters of `text`, with "…" when some were left out.
pub(super) fn shortened(text: &str, limit: usize) -> String {
    // Where the character after the first `limit` starts. The next `left` characters take
    // `left` bytes at least: each step counts those bytes' characters with the standard
    // library's word-at-a-time count, and most descriptions are done in one.
    let (mut at, mut left) = (0, limit);
    while left > 0 {
        if at == text.len() {
            return text.to_owned();
        }
        let mut end = (at + left).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        left -= text[at..end].chars().count();
        at = end;
    }
    if at == text.len() {
        text.to_owned()
    } else {
        format!("{}…", text[..at].trim_end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn event<'a>(name: &'a str, description: &'a str, page: Option<&'a str>) -> EventText<'a> {
        EventText {
            name,
            start: Utc.with_ymd_and_hms(2026, 11, 21, 23, 0, 0).unwrap(),
            end: Utc.with_ymd_and_hms(2026, 11, 22, 2, 30, 0).unwrap(),
            description,
            location: "TJSJ → TNCM",
            page,
        }
    }

    #[test]
    fn an_event_link_encodes_every_value_whole() {
        let link = google_event(&event(
            "Fly & Drive=fun #1 + more",
            "Line one\nline two",
            Some("https://tjzs.example.org/events/7/"),
        ));
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
        let link = google_event(&event("Night ops", &long, None));
        let details = link.split("&details=").nth(1).unwrap();
        let details = details.split('&').next().unwrap();
        // 1000 é (6 bytes encoded each) and the ellipsis.
        assert_eq!(details.len(), 1000 * 6 + 9);
        let link = google_event(&event("Night ops", "  ", None));
        assert!(!link.contains("details="), "{link}");
    }

    #[test]
    fn pieces_pushed_are_the_encoding_and_dates_are_googles_form() {
        let every_byte: String = (0..=0x7f_u8)
            .map(char::from)
            .chain(['é', '→', '𝄞'])
            .collect();
        for value in [
            "",
            "plain-text_1.0~",
            "a b&c=d/e?f#g+h%",
            "é → ✈ 𝄞\u{0}\n\"'<>",
            &every_byte,
        ] {
            let mut pushed = String::from("x=");
            push_encoded(&mut pushed, value);
            assert_eq!(pushed, format!("x={}", encoded(value)));
        }
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
        // Against counting one character at a time, on mixed widths and lengths.
        let text = "aé✈𝄞 b".repeat(40);
        for limit in 0..=text.chars().count() + 2 {
            let slow = match text.char_indices().nth(limit) {
                None => text.clone(),
                Some((cut, _)) => format!("{}…", text[..cut].trim_end()),
            };
            assert_eq!(shortened(&text, limit), slow, "limit {limit}");
        }
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
