//! The API's timestamp formats, all read as UTC.
//!
//! Seen in the spec and in real responses: ISO 8601 with microseconds and `Z`
//! (`2025-11-05T23:00:00.000000Z`), ISO without a fraction, `YYYY-MM-DD HH:MM:SS` with no zone,
//! `YYYY-MM-DD`, and `DD-Mon-YYYY` for documents. A time with no zone is UTC ("Zulu"), as
//! everywhere on the network. A time with an explicit offset is converted to UTC. A date alone
//! means midnight UTC where an instant is needed.

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};

/// The formats accepted, for error messages.
pub const EXPECTED: &str = "expected YYYY-MM-DD HH:MM:SS, ISO 8601, YYYY-MM-DD or DD-Mon-YYYY";

pub fn parse_instant(text: &str) -> Option<DateTime<Utc>> {
    let text = text.trim();
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
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    parse_date_only(text.trim()).or_else(|| parse_instant(text).map(|t| t.date_naive()))
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
            assert_eq!(parse_instant(input), Some(utc(expected)), "{input}");
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
            assert_eq!(parse_date(input), Some(nov5), "{input}");
        }
        // An offset moves the instant, and so its UTC date.
        assert_eq!(
            parse_date("2025-11-05T22:00:00-04:00"),
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
            assert_eq!(parse_instant(input), None, "{input}");
        }
    }
}
