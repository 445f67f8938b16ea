//! The API's timestamp formats, all read as UTC.
//!
//! Seen in the spec and in real responses: ISO 8601 with microseconds and `Z`
//! (`2025-11-05T23:00:00.000000Z`), ISO without a fraction, `YYYY-MM-DD HH:MM:SS` with no zone,
//! `YYYY-MM-DD`, and `DD-Mon-YYYY` for documents. A time with no zone is UTC ("Zulu"), as
//! everywhere on the network. A time with an explicit offset is converted to UTC. A date alone
//! means midnight UTC where an instant is needed.

//!
//! Only years 1 to 9999 are accepted. chrono reads years up to ±262,143, but iCal and most
//! calendar apps write four digits and no sign, and arithmetic near chrono's limits
//! overflows; a year outside the range is a typo in the data, reported like any other bad
//! timestamp.

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Utc};

/// The formats accepted, for error messages.
pub const EXPECTED: &str = "expected YYYY-MM-DD HH:MM:SS, ISO 8601, YYYY-MM-DD or DD-Mon-YYYY";

/// The years a timestamp may have.
pub const YEARS: std::ops::RangeInclusive<i32> = 1..=9999;

/// The last instant of year 9999: times computed from the data (an assumed end, say) stop
/// here rather than leave the range.
pub fn latest() -> DateTime<Utc> {
    NaiveDate::from_ymd_opt(9999, 12, 31)
        .and_then(|d| d.and_hms_opt(23, 59, 59))
        .expect("a valid date")
        .and_utc()
}

/// The first year no event may reach: an event that starts or ends in it or later is left out
/// of the site and its calendars, with a warning naming it (see `view::events`).
///
/// Calendar apps do arithmetic on the dates they read: they expand a calendar's events a
/// year or more past the last one, and many (every client built on Python's `datetime`, as
/// `recurring-ical-events` is) stop at the end of year 9999. An event on 9998-12-31 still
/// overflows them. A thousand years of margin is far more than any client adds, and no
/// real event is planned there: such a date is a typo, and the webmaster is told.
pub const CALENDAR_HORIZON_YEAR: i32 = 9000;

/// The first instant of [`CALENDAR_HORIZON_YEAR`]: every date a calendar holds is before it.
pub fn calendar_horizon() -> DateTime<Utc> {
    NaiveDate::from_ymd_opt(CALENDAR_HORIZON_YEAR, 1, 1)
        .expect("a valid date")
        .and_time(NaiveTime::MIN)
        .and_utc()
}

/// The first instant of year 1.
pub fn earliest() -> DateTime<Utc> {
    NaiveDate::from_ymd_opt(1, 1, 1)
        .expect("a valid date")
        .and_time(NaiveTime::MIN)
        .and_utc()
}

/// `t + delta`, kept within years 1 to 9999.
pub fn add_clamped(t: DateTime<Utc>, delta: TimeDelta) -> DateTime<Utc> {
    t.checked_add_signed(delta).map_or(
        if delta < TimeDelta::zero() {
            earliest()
        } else {
            latest()
        },
        |sum| sum.clamp(earliest(), latest()),
    )
}

/// Why a timestamp was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejected {
    Unrecognised,
    YearOutOfRange(i32),
}

/// An instant in any of the formats, with the year checked.
pub fn parse_instant(text: &str) -> Result<DateTime<Utc>, Rejected> {
    let t = parse_with_chrono(text.trim()).ok_or(Rejected::Unrecognised)?;
    check_year(t.year()).map(|()| t)
}

/// `parse_date_any_year`, with the year checked.
pub fn parse_date(text: &str) -> Result<NaiveDate, Rejected> {
    let d = parse_date_any_year(text).ok_or(Rejected::Unrecognised)?;
    check_year(d.year()).map(|()| d)
}

fn check_year(year: i32) -> Result<(), Rejected> {
    if YEARS.contains(&year) {
        Ok(())
    } else {
        Err(Rejected::YearOutOfRange(year))
    }
}

/// Every format the API has been seen to send, through chrono.
fn parse_with_chrono(text: &str) -> Option<DateTime<Utc>> {
    if let Ok(with_zone) = DateTime::parse_from_rfc3339(text) {
        return Some(with_zone.with_timezone(&Utc));
    }
    for format in [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(naive) = NaiveDateTime::parse_from_str(text, format) {
            return Some(naive.and_utc());
        }
    }
    parse_date_only(text).map(|date| date.and_time(NaiveTime::MIN).and_utc())
}

/// A calendar date; a full timestamp is cut to its UTC date.
fn parse_date_any_year(text: &str) -> Option<NaiveDate> {
    parse_date_only(text.trim()).or_else(|| parse_with_chrono(text.trim()).map(|t| t.date_naive()))
}

fn parse_date_only(text: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .or_else(|_| NaiveDate::parse_from_str(text, "%d-%b-%Y"))
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn every_documented_format_is_utc() {
        let cases = [
            ("2025-11-05T23:00:00.000000Z", "2025-11-05T23:00:00Z"),
            ("2025-11-05T23:00:00.123456Z", "2025-11-05T23:00:00.123456Z"),
            ("2025-11-05T23:00:00Z", "2025-11-05T23:00:00Z"),
            ("2025-11-05T23:00:00", "2025-11-05T23:00:00Z"),
            ("2025-11-05 23:00:00", "2025-11-05T23:00:00Z"),
            ("2025-11-05 23:00", "2025-11-05T23:00:00Z"),
            ("2025-11-05T19:00:00-04:00", "2025-11-05T23:00:00Z"),
            ("2025-11-05", "2025-11-05T00:00:00Z"),
            ("05-Nov-2025", "2025-11-05T00:00:00Z"),
            (" 2025-11-05 23:00:00 ", "2025-11-05T23:00:00Z"),
        ];
        for (input, expected) in cases {
            assert_eq!(parse_instant(input), Ok(utc(expected)), "{input}");
        }
    }

    #[test]
    fn dates_from_any_format() {
        let nov5 = NaiveDate::from_ymd_opt(2025, 11, 5).unwrap();
        for input in [
            "05-Nov-2025",
            "5-nov-2025",
            "2025-11-05",
            "2025-11-05 23:59:59",
        ] {
            assert_eq!(parse_date(input), Ok(nov5), "{input}");
        }
        // An offset moves the instant, and so its UTC date.
        assert_eq!(
            parse_date("2025-11-05T22:00:00-04:00").ok(),
            NaiveDate::from_ymd_opt(2025, 11, 6)
        );
    }

    #[test]
    fn nonsense_is_rejected() {
        for input in [
            "",
            "yesterday",
            "2025-13-01 10:00:00",
            "2025-02-30",
            "31-Foo-2025",
            "2025-11-05 25:00:00",
            "1730847600",
        ] {
            assert_eq!(parse_instant(input), Err(Rejected::Unrecognised), "{input}");
        }
    }

    #[test]
    fn only_years_1_to_9999_are_accepted() {
        for (input, year) in [
            ("+262142-12-31 23:00:00", 262142),
            ("-262143-01-01", -262143),
            ("+10000-01-01 00:00:00", 10000),
            ("-0001-06-01 10:00", -1),
            ("0000-12-31 23:59:59", 0),
        ] {
            assert_eq!(
                parse_instant(input),
                Err(Rejected::YearOutOfRange(year)),
                "{input}"
            );
            assert_eq!(
                parse_date(input),
                Err(Rejected::YearOutOfRange(year)),
                "{input}"
            );
        }
        assert_eq!(
            parse_instant("9999-12-31 23:00:00"),
            Ok(utc("9999-12-31T23:00:00Z"))
        );
        assert_eq!(parse_instant("0001-01-01"), Ok(earliest()));
    }

    #[test]
    fn arithmetic_stops_at_the_ends_of_the_range() {
        let late = utc("9999-12-31T23:00:00Z");
        assert_eq!(add_clamped(late, TimeDelta::hours(2)), latest());
        assert_eq!(add_clamped(late, TimeDelta::MAX), latest());
        assert_eq!(add_clamped(earliest(), TimeDelta::days(-1)), earliest());
        assert_eq!(add_clamped(earliest(), TimeDelta::MIN), earliest());
        assert_eq!(
            add_clamped(late, TimeDelta::minutes(30)),
            utc("9999-12-31T23:30:00Z")
        );
    }
}
