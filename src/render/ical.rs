//! An RFC 5545 writer for event feeds: small, and strict where calendar apps are not.
//!
//! - Lines end in CRLF and are folded at 75 octets (a continuation's leading space counts),
//!   never inside a UTF-8 character.
//! - TEXT values escape `\`, `;`, `,` and newlines, so no string from the API can start a
//!   property or a component of its own.
//! - Times are UTC (`...Z`), so no VTIMEZONE is needed and no client can misread a zone.
//! - Nothing depends on the clock: DTSTAMP is the event's last change, so the same data gives
//!   the same bytes.
//!
//! Rules for bad data: an event with no end, or an end not after its start, lasts
//! [`Event::DEFAULT_LENGTH`] (two hours); an id that appears twice is written once; a change
//! time in [`timestamp::CALENDAR_HORIZON_YEAR`] or later is not written (DTSTAMP is then the
//! start), so that no client meets a date near the end of year 9999.

use crate::model::timestamp;
use crate::view::{BookingEntry, CalendarEntry};
use chrono::{DateTime, Utc};
use std::collections::HashSet;

pub use crate::view::FeedSettings;

/// Keeps a literal `\\` and a following `n` apart for careless parsers; see [`escape_text`].
pub const WORD_JOINER: char = '\u{2060}';

pub const PRODID: &str = concat!(
    "-//vatcar-site//vatcar-site ",
    env!("CARGO_PKG_VERSION"),
    "//EN"
);

/// One event's VEVENT block, written once and shared by every calendar that lists it (the
/// feed and the event's own file).
pub struct VEvent {
    uid: String,
    text: String,
}

/// A VCALENDAR around ready-made events, each id once, in the order given. `uid_host` is the
/// host in each UID: the site's, or the API's when the site URL is unknown.
pub fn assemble(feed: &FeedSettings, events: &[&VEvent], uid_host: &str) -> String {
    let mut out = Writer(String::with_capacity(
        600 + events.iter().map(|e| e.text.len()).sum::<usize>(),
    ));
    out.line("BEGIN", "VCALENDAR");
    out.line("VERSION", "2.0");
    out.text("PRODID", PRODID);
    out.line("CALSCALE", "GREGORIAN");
    out.line("METHOD", "PUBLISH");
    out.text("X-WR-CALNAME", &feed.name);
    out.text("NAME", &feed.name);
    if !feed.description.is_empty() {
        out.text("X-WR-CALDESC", &feed.description);
        out.text("DESCRIPTION", &feed.description);
    }
    let refresh = format!("PT{}M", feed.refresh_minutes.max(1));
    out.line("REFRESH-INTERVAL;VALUE=DURATION", &refresh);
    out.line("X-PUBLISHED-TTL", &refresh);

    let mut seen = HashSet::new();
    for block in events {
        if seen.insert(&block.uid) {
            out.0.push_str(&block.text);
        }
    }
    if seen.is_empty() {
        // RFC 5545 3.4 wants at least one component. A journal entry is ignored by calendar
        // apps, so subscribers see an empty calendar instead of an error.
        out.line("BEGIN", "VJOURNAL");
        out.text("UID", &format!("vatcar-no-events@{uid_host}"));
        out.line("DTSTAMP", "19700101T000000Z");
        out.text("SUMMARY", &feed.empty);
        out.line("END", "VJOURNAL");
    }
    out.line("END", "VCALENDAR");
    out.0
}

/// An event's VEVENT, with `description` (plain text, no markup) as its calendars carry it.
pub fn vevent(entry: &CalendarEntry, description: &str) -> VEvent {
    let mut out = Writer(String::with_capacity(400 + description.len() * 11 / 10));
    // Every date written is before the calendar horizon (see
    // `timestamp::CALENDAR_HORIZON_YEAR`): the view leaves out events that reach it, and a
    // change time that does is bad data, left unwritten here.
    let horizon = timestamp::calendar_horizon();
    let before_horizon = |t: Option<DateTime<Utc>>| t.filter(|t| *t < horizon);
    let (created, updated) = (
        before_horizon(entry.created_at),
        before_horizon(entry.updated_at),
    );
    let changed = updated.or(created).unwrap_or(entry.start);
    out.line("BEGIN", "VEVENT");
    out.text("UID", &entry.uid);
    out.line("DTSTAMP", &stamp(changed));
    out.line("DTSTART", &stamp(entry.start));
    // An end must be later than the start; an event whose end was clamped to its start has
    // none, and then lasts no time (RFC 5545 3.6.1).
    if entry.end > entry.start {
        out.line("DTEND", &stamp(entry.end));
    }
    out.text("SUMMARY", &entry.name);
    if !description.is_empty() {
        out.text("DESCRIPTION", description);
    }
    if !entry.location.is_empty() {
        out.text("LOCATION", &entry.location);
    }
    if let Some(url) = &entry.url {
        out.line("URL", url);
    }
    if let Some(created) = created {
        out.line("CREATED", &stamp(created));
    }
    if let Some(updated) = updated {
        out.line("LAST-MODIFIED", &stamp(updated));
    }
    out.line("SEQUENCE", &sequence(entry.updated_at).to_string());
    out.line("STATUS", "CONFIRMED");
    out.line("END", "VEVENT");
    VEvent {
        uid: entry.uid.clone(),
        text: out.0,
    }
}

/// A booking's VEVENT. The bookings list has no change times: DTSTAMP is the booking's
/// start, so that nothing depends on the clock and the same list gives the same bytes. The
/// view keeps only bookings whose end is after their start and before the calendar horizon.
pub fn booking_vevent(booking: &BookingEntry) -> VEvent {
    let mut out = Writer(String::with_capacity(300 + booking.description.len()));
    out.line("BEGIN", "VEVENT");
    out.text("UID", &booking.uid);
    out.line("DTSTAMP", &stamp(booking.start));
    out.line("DTSTART", &stamp(booking.start));
    out.line("DTEND", &stamp(booking.end));
    out.text("SUMMARY", &booking.summary);
    if !booking.description.is_empty() {
        out.text("DESCRIPTION", &booking.description);
    }
    if let Some(url) = &booking.url {
        out.line("URL", url);
    }
    out.line("STATUS", "CONFIRMED");
    out.line("TRANSP", "TRANSPARENT");
    out.line("END", "VEVENT");
    VEvent {
        uid: booking.uid.clone(),
        text: out.0,
    }
}

/// Minutes from 2020-01-01 to the event's last change: it grows with every edit (clients
/// take a higher SEQUENCE as the newer version), never goes backwards, and fits in the 31
/// bits clients allow for centuries.
pub fn sequence(updated_at: Option<DateTime<Utc>>) -> i64 {
    const ORIGIN: i64 = 1_577_836_800; // 2020-01-01T00:00:00Z
    updated_at.map_or(0, |t| {
        ((t.timestamp() - ORIGIN) / 60).clamp(0, i32::MAX as i64)
    })
}

fn stamp(t: DateTime<Utc>) -> String {
    let mut out = String::with_capacity(16);
    crate::view::push_basic_utc(&mut out, t);
    out
}

/// RFC 5545 3.3.11: backslash, semicolon, comma and newline escaped; other control
/// characters dropped (they are not allowed in a content line).
///
/// A literal backslash before `n` or `N` is written `\\` followed by an invisible WORD JOINER
/// (U+2060): some parsers (node-ical among them) unescape `\n` before `\\` and would show a
/// line break where the text has a backslash and a letter.
pub fn escape_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    // C0, DEL and C1 are controls; runs of other characters are copied whole.
    while let Some(at) = rest.find(|c: char| matches!(c, '\\' | ';' | ',') || c.is_control()) {
        out.push_str(&rest[..at]);
        let c = rest[at..].chars().next().expect("found at a character");
        rest = &rest[at + c.len_utf8()..];
        match c {
            '\\' => {
                out.push_str("\\\\");
                if rest.starts_with(['n', 'N']) {
                    out.push(WORD_JOINER);
                }
            }
            ';' => out.push_str("\\;"),
            ',' => out.push_str("\\,"),
            '\r' if rest.starts_with('\n') => {}
            '\r' | '\n' => out.push_str("\\n"),
            '\t' => out.push(' '),
            _ => {}
        }
    }
    out.push_str(rest);
    out
}

/// The content lines written so far.
struct Writer(String);

impl Writer {
    /// A property whose value is written as given (dates, numbers, fixed words).
    fn line(&mut self, name: &str, value: &str) {
        let mut line = String::with_capacity(name.len() + value.len() + 1);
        line.push_str(name);
        line.push(':');
        line.push_str(value);
        fold_into(&mut self.0, &line);
    }

    /// A TEXT property, escaped.
    fn text(&mut self, name: &str, value: &str) {
        self.line(name, &escape_text(value));
    }
}

/// Appends `line` folded at 75 octets: the first line holds up to 75, each continuation a
/// space and up to 74 more, and a character is never split.
pub fn fold_into(out: &mut String, line: &str) {
    let mut rest = line;
    let mut limit = 75;
    while rest.len() > limit {
        let mut cut = limit;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        out.push_str(&rest[..cut]);
        out.push_str("\r\n ");
        rest = &rest[cut..];
        limit = 74;
    }
    out.push_str(rest);
    out.push_str("\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(line: &str) -> String {
        let mut out = String::new();
        fold_into(&mut out, line);
        out
    }

    #[test]
    fn folds_at_75_octets_including_the_leading_space() {
        let folded = fold(&"x".repeat(200));
        let lines: Vec<&str> = folded.split("\r\n").filter(|l| !l.is_empty()).collect();
        assert_eq!(lines[0].len(), 75);
        assert!(
            lines[1..]
                .iter()
                .all(|l| l.len() <= 75 && l.starts_with(' '))
        );
        assert_eq!(folded.replace("\r\n ", "").trim_end(), "x".repeat(200));
    }

    #[test]
    fn never_splits_a_utf8_character() {
        // 74 ASCII bytes, then a 4-byte emoji that would straddle the 75-octet limit.
        let line = format!("{}😀{}", "a".repeat(74), "é".repeat(60));
        let folded = fold(&line);
        for physical in folded.split("\r\n") {
            assert!(physical.len() <= 75, "{} octets", physical.len());
        }
        assert_eq!(folded.replace("\r\n ", "").trim_end(), line);
    }

    #[test]
    fn escapes_what_could_break_out_of_a_value() {
        assert_eq!(
            escape_text("a\\b;c,d\r\nEND:VEVENT\nx\u{7}"),
            "a\\\\b\\;c\\,d\\nEND:VEVENT\\nx"
        );
        assert_eq!(escape_text("C:\\new\\x"), "C:\\\\\u{2060}new\\\\x");
    }

    /// The rules of [`escape_text`] written the plain way, one character at a time, to check
    /// the version that copies the runs between escapes against.
    fn escape_slowly(text: &str) -> String {
        let mut out = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    out.push_str("\\\\");
                    if matches!(chars.peek(), Some('n' | 'N')) {
                        out.push(WORD_JOINER);
                    }
                }
                ';' => out.push_str("\\;"),
                ',' => out.push_str("\\,"),
                '\r' if chars.peek() == Some(&'\n') => {}
                '\r' | '\n' => out.push_str("\\n"),
                '\t' => out.push(' '),
                c if c.is_control() => {}
                c => out.push(c),
            }
        }
        out
    }

    /// The rule of [`fold_into`] written the plain way, one character at a time, to check
    /// the one that cuts by bytes against.
    fn fold_slowly(line: &str) -> String {
        let (mut out, mut used, mut limit) = (String::new(), 0, 75);
        for c in line.chars() {
            if used + c.len_utf8() > limit {
                out.push_str("\r\n ");
                used = 1;
            }
            out.push(c);
            used += c.len_utf8();
            limit = 75;
        }
        out + "\r\n"
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        #[test]
        fn an_escaped_text_holds_no_control_and_no_bare_separator(
            text in "(\\PC|[\\\\;,\r\n\t\u{0}-\u{1f}\u{7f}-\u{a0}nN]){0,60}"
        ) {
            let escaped = escape_text(&text);
            proptest::prop_assert!(!escaped.chars().any(char::is_control), "{escaped:?}");
            // Taking the escapes away leaves no `;` or `,` that a parser would split at.
            let plain = escaped.replace("\\\\", "").replace("\\;", "").replace("\\,", "");
            proptest::prop_assert!(!plain.contains([';', ',']), "{escaped:?}");
            let letters = |t: &str| t.chars().filter(char::is_ascii_alphanumeric).count();
            proptest::prop_assert_eq!(letters(&escaped), letters(&text) + text.matches(['\r', '\n']).count() - text.matches("\r\n").count());
            proptest::prop_assert_eq!(escaped, escape_slowly(&text));
        }

        #[test]
        fn folding_matches_the_rules_on_any_text(text in "(\\PC|[é😀a]){0,200}") {
            proptest::prop_assert_eq!(fold(&text), fold_slowly(&text));
        }
    }
}
