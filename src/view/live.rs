//! The live page and the home page's live block: the bookings of our positions, read at
//! build time, and what the browser script that shows who is on now reads (our callsign
//! prefixes, our airports, the feed's address, its words).

use super::Texts;
use super::time::{Instant, When, between, local_date};
use crate::model::Roster;
use crate::model::bookings::{Booking, Bookings};
use crate::settings::{Live, Settings};
use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;
use std::collections::BTreeMap;

/// Where `serve --demo` serves its sample of the data feed: below the server's own reserved
/// folder, which no build may publish into.
pub const SAMPLE_FEED_PATH: &str = "/__vatcar-site/live/vatsim-data.json";

/// How far ahead the home page's block lists bookings.
const NEXT_HOURS: i64 = 24;

/// What the live page and the home page's block show.
#[derive(Clone, Debug, Serialize)]
pub struct LivePage {
    /// The callsign prefixes that are ours (before the first `_`).
    pub callsigns: Vec<String>,
    /// The airports whose traffic is listed; none leaves the traffic out.
    pub airports: Vec<String>,
    /// `serve --demo` feeds the page a built-in sample of the data feed, and the page says
    /// so.
    pub sample_feed: bool,
    /// Whether the bookings list could be read; else the page says bookings are unavailable.
    pub bookings_available: bool,
    /// Our bookings that have not ended, by UTC day of their start.
    pub days: Vec<BookingDay>,
    /// Those that start in the next 24 hours (or have started), for the home page's block.
    pub next: Vec<BookingRow>,
    /// How many bookings `days` holds.
    pub count: usize,
    /// What the browser script reads, as JSON, for an attribute of the block
    /// (`data-live-config`).
    pub script_data: String,
}

/// The bookings that start on one UTC day.
#[derive(Clone, Debug, Serialize)]
pub struct BookingDay {
    /// `2026-11-20`.
    pub date: String,
    /// `Friday 20 Nov`, in the site's language.
    pub title: String,
    pub bookings: Vec<BookingRow>,
}

/// One booking as the pages show it.
#[derive(Clone, Debug, Serialize)]
pub struct BookingRow {
    pub callsign: String,
    pub when: When,
    /// What it is for, in the site's language (`Exam`); a word the API has not defined, as
    /// it came.
    pub kind: String,
    /// `booking`, `event`, `exam`, `training`, `mentoring` or `other`, for styles.
    pub kind_code: &'static str,
    /// The controller's name and rating as the roster has them, when the CID is on it.
    pub name: Option<String>,
    pub rating: Option<String>,
    /// The CID, shown alone when it is not on the roster; `None` when the list gave none.
    pub cid: Option<u64>,
    /// `Name (S2)`, `CID 1234567`, or nothing.
    pub who: Option<String>,
    /// Whether it had started when the site was built.
    pub started: bool,
}

/// A booking as its calendar writes it.
#[derive(Clone, Debug)]
pub struct BookingEntry {
    /// The same on every build: from the bookings API's id.
    pub uid: String,
    /// `TJSJ_APP: Name (S2)`.
    pub summary: String,
    /// What it is for, and the live page's address when the site's is known.
    pub description: String,
    /// The live page's absolute address, when the site's is known.
    pub url: Option<String>,
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
}

/// The bookings calendar's entries, soonest first.
#[derive(Clone, Debug, Default)]
pub struct BookingsCalendar {
    pub entries: Vec<BookingEntry>,
}

/// The names and ratings of the roster, by CID: whoever is a home controller, a visitor or
/// on the staff. Never an address: the roster model holds none.
fn roster_people(roster: &Roster) -> BTreeMap<u64, (Option<String>, Option<String>)> {
    let mut people: BTreeMap<u64, (Option<String>, Option<String>)> = BTreeMap::new();
    for member in roster.everyone() {
        let (name, rating) = people.entry(member.cid).or_default();
        if name.is_none() {
            name.clone_from(&member.name);
        }
        if rating.is_none() {
            *rating = member.rating.map(|r| r.code().into_owned());
        }
    }
    people
}

/// Whether `callsign` is one of ours: its part before the first `_` is one of `prefixes`
/// (`TJSJ_I_TWR` is TJSJ's, `TJSJX_TWR` is not, and `TJSJ` alone is no position). The
/// browser script holds the same rule (static/live.js, `isOurs`).
pub fn is_ours(callsign: &str, prefixes: &[String]) -> bool {
    match callsign.split_once('_') {
        Some((prefix, rest)) => {
            !rest.is_empty() && prefixes.iter().any(|p| p.eq_ignore_ascii_case(prefix))
        }
        None => false,
    }
}

/// Our bookings that have not ended at `now`, soonest first (then by callsign and id): what
/// the server was asked for is not trusted to be all it sent. One that ends in the calendar
/// horizon's year or later is left out, as an event would be.
pub fn ours_not_ended<'b>(
    bookings: &'b [Booking],
    prefixes: &[String],
    now: DateTime<Utc>,
) -> Vec<&'b Booking> {
    // A date a calendar cannot hold is a typo in the data (see `timestamp::CALENDAR_HORIZON_YEAR`).
    let horizon = crate::model::timestamp::calendar_horizon();
    let mut kept: Vec<&Booking> = bookings
        .iter()
        .filter(|b| b.end > now && b.end < horizon && is_ours(&b.callsign, prefixes))
        .collect();
    kept.sort_by(|a, b| (a.start, &a.callsign, a.id).cmp(&(b.start, &b.callsign, b.id)));
    kept
}

/// The prefixes that are ours: `[live] callsigns`, else the facility's code from the roster.
pub fn our_prefixes(live: &Live, roster: &Roster) -> Vec<String> {
    if !live.callsigns.0.is_empty() {
        return live.callsigns.0.clone();
    }
    let code = roster
        .facility
        .as_ref()
        .and_then(|f| f.short_name.as_deref())
        .map(|code| code.trim().to_ascii_uppercase())
        .filter(|code| !code.is_empty() && code.chars().all(|c| c.is_ascii_alphanumeric()));
    code.into_iter().collect()
}

/// The live page's view and the bookings calendar's entries. `bookings` is the list as read,
/// or why it could not be.
pub(super) fn live_page(
    bookings: Option<&Result<Bookings, String>>,
    roster: &Roster,
    settings: &Settings,
    (now, texts, uid_host): (DateTime<Utc>, &Texts, &str),
) -> (LivePage, BookingsCalendar) {
    let live = &settings.live;
    let prefixes = our_prefixes(live, roster);
    let people = roster_people(roster);
    let (available, list): (bool, &[Booking]) = match bookings {
        Some(Ok(read)) => (true, &read.list),
        _ => (false, &[]),
    };
    let mut days: Vec<BookingDay> = Vec::new();
    let mut next = Vec::new();
    let mut calendar = BookingsCalendar::default();
    let horizon = now + TimeDelta::hours(NEXT_HOURS);
    let page = (settings.site_url.as_ref())
        .and_then(|u| u.0.join(super::outputs::LIVE.folder()).ok())
        .map(String::from);
    let page_line = (page.as_ref()).map(|url| texts.text("calendar.live_page", &[("url", url)]));
    let kept = ours_not_ended(list, &prefixes, now);
    for booking in &kept {
        let (name, rating) = booking
            .cid
            .and_then(|cid| people.get(&cid))
            .cloned()
            .unwrap_or_default();
        let who = match (&name, &rating, booking.cid) {
            (Some(name), Some(rating), _) => Some(format!("{name} ({rating})")),
            (Some(name), None, _) => Some(name.clone()),
            (None, _, Some(cid)) => Some(texts.text("live.cid", &[("cid", &cid.to_string())])),
            (None, _, None) => None,
        };
        let kind = match booking.kind.key() {
            Some(key) => texts.text(key, &[]),
            None => match &booking.kind {
                crate::model::bookings::BookingKind::Other(word) => word.clone(),
                _ => String::new(),
            },
        };
        let row = BookingRow {
            callsign: booking.callsign.clone(),
            when: between(
                booking.start,
                booking.end,
                settings.display_zone.map(|z| z.0),
                texts,
            ),
            kind: kind.clone(),
            kind_code: booking.kind.code(),
            name,
            rating,
            cid: booking.cid,
            who: who.clone(),
            started: booking.start <= now,
        };
        let summary = match &who {
            Some(who) => format!("{}: {who}", booking.callsign),
            None => booking.callsign.clone(),
        };
        calendar.entries.push(BookingEntry {
            uid: booking_uid(booking, uid_host),
            summary,
            description: super::calendar_links::with_line(kind.clone(), page_line.as_deref()),
            start: booking.start,
            end: booking.end,
            url: page.clone(),
        });
        if booking.start < horizon {
            next.push(row.clone());
        }
        let date = Instant::new(booking.start).date;
        match days.last_mut() {
            Some(day) if day.date == date => day.bookings.push(row),
            _ => days.push(BookingDay {
                title: local_date(texts, "weekdays", booking.start.date_naive()),
                date,
                bookings: vec![row],
            }),
        }
    }
    let page = LivePage {
        script_data: script_data(&prefixes, live, texts),
        callsigns: prefixes,
        airports: live.airports.0.clone(),
        sample_feed: live.sample_feed,
        bookings_available: available,
        count: kept.len(),
        days,
        next,
    };
    (page, calendar)
}

/// A booking's UID, the same on every build: `vatcar-booking-<id>@<host>`; from its callsign
/// and start when the list gave no id.
fn booking_uid(booking: &Booking, host: &str) -> String {
    match booking.id {
        Some(id) => format!("vatcar-booking-{id}@{host}"),
        None => {
            let mut stamp = String::new();
            super::push_basic_utc(&mut stamp, booking.start);
            let callsign: String = (booking.callsign.chars())
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect();
            format!("vatcar-booking-{callsign}-{stamp}@{host}")
        }
    }
}

/// What the browser script reads: the feed's address, our prefixes and airports, and its
/// words in the site's language (with their `{placeholders}` left for it to fill). The
/// roster's names and ratings it reads from the site's own `data/roster.json`, which the
/// template names (none with the roster page off), so that no page but the roster's carries
/// the whole roster.
fn script_data(prefixes: &[String], live: &Live, texts: &Texts) -> String {
    let feed = if live.sample_feed {
        SAMPLE_FEED_PATH.to_owned()
    } else {
        live.feed.url.to_string()
    };
    let keep = |key: &str, names: &[&str]| {
        let args: Vec<(&str, String)> = names.iter().map(|n| (*n, format!("{{{n}}}"))).collect();
        let args: Vec<(&str, &str)> = args.iter().map(|(n, v)| (*n, v.as_str())).collect();
        texts.text(key, &args)
    };
    let text = serde_json::json!({
        "as_of": keep("live.as_of", &["time"]),
        "unavailable": keep("live.unavailable", &[]),
        "no_controllers": keep("live.no_controllers", &[]),
        "no_atis": keep("live.no_atis", &[]),
        "no_traffic": keep("live.no_traffic", &[]),
        "visiting": keep("live.visiting", &[]),
        "online_hours": keep("live.online_hours", &["hours", "minutes"]),
        "online_minutes": keep("live.online_minutes", &["minutes"]),
        "flights_one": keep("live.flights.one", &["n"]),
        "flights_other": keep("live.flights.other", &["n"]),
        "controllers_one": keep("live.controllers_online.one", &["n"]),
        "controllers_other": keep("live.controllers_online.other", &["n"]),
        "atis_text": keep("live.atis_text", &["callsign"]),
        "not_listed_one": keep("live.not_listed.one", &["n"]),
        "not_listed_other": keep("live.not_listed.other", &["n"]),
        "loading": keep("live.loading", &[]),
        "held_by": keep("live.held_by", &["name"]),
        "held_by_another": keep("live.held_by_another", &[]),
    });
    serde_json::json!({
        "feed": feed,
        "callsigns": prefixes,
        "airports": live.airports.0,
        "text": text,
        "one": texts.one_counts(),
        "sample": live.sample_feed,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::bookings::BookingKind;
    use chrono::TimeZone;

    fn prefixes(list: &[&str]) -> Vec<String> {
        list.iter().map(|p| (*p).to_owned()).collect()
    }

    fn at(day: u32, hour: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, day, hour, 0, 0).unwrap()
    }

    fn booking(id: u64, callsign: &str, start: DateTime<Utc>, end: DateTime<Utc>) -> Booking {
        Booking {
            id: Some(id),
            cid: Some(1_000_000 + id),
            kind: BookingKind::Booking,
            callsign: callsign.to_owned(),
            start,
            end,
        }
    }

    #[test]
    fn a_callsign_is_ours_by_its_prefix_before_the_first_underscore() {
        let ours = prefixes(&["TJSJ", "SJU"]);
        for yes in ["TJSJ_TWR", "TJSJ_I_TWR", "tjsj_app", "SJU_CTR", "TJSJ__X"] {
            assert!(is_ours(yes, &ours), "{yes}");
        }
        for no in [
            "TJSJX_TWR",
            "XTJSJ_TWR",
            "TJSJ",
            "TJSJ_",
            "TJS_TWR",
            "_TJSJ_TWR",
            "TNCM_TWR",
            "",
            "TJSJ\u{202e}_TWR",
            "<img src=x onerror=alert(1)>_TWR",
        ] {
            assert!(!is_ours(no, &ours), "{no}");
        }
        assert!(!is_ours("TJSJ_TWR", &[]));
    }

    #[test]
    fn only_our_bookings_that_have_not_ended_are_kept_soonest_first() {
        let now = at(20, 12);
        let list = [
            booking(1, "TJSJ_APP", at(20, 8), at(20, 10)),
            booking(2, "TJSJ_TWR", at(20, 11), at(20, 12)),
            booking(3, "TJZS_CTR", at(20, 11), at(20, 14)),
            booking(4, "TJSJ_I_TWR", at(21, 22), at(22, 2)),
            booking(5, "TJSJX_TWR", at(20, 20), at(20, 22)),
            booking(6, "TNCM_TWR", at(20, 20), at(20, 22)),
            booking(7, "TJSJ_GND", at(20, 22), at(21, 0)),
        ];
        let kept: Vec<u64> = ours_not_ended(&list, &prefixes(&["TJSJ", "TJZS"]), now)
            .iter()
            .filter_map(|b| b.id)
            .collect();
        assert_eq!(kept, [3, 7, 4]);
    }

    #[test]
    fn a_booking_without_an_id_still_has_a_stable_uid() {
        let mut b = booking(1, "TJSJ_APP", at(20, 8), at(20, 10));
        assert_eq!(booking_uid(&b, "x.org"), "vatcar-booking-1@x.org");
        b.id = None;
        assert_eq!(
            booking_uid(&b, "x.org"),
            "vatcar-booking-TJSJ-APP-20261120T080000Z@x.org"
        );
    }
}
