//! Times as the pages show them: Zulu first, local time beside it when a zone is set.

use super::Texts;
use crate::model::Event;
use chrono::{DateTime, Datelike, Timelike, Utc, Weekday};
use chrono_tz::Tz;
use serde::Serialize;

/// One instant, in the forms the pages use.
#[derive(Clone, Debug, Serialize)]
pub struct Instant {
    /// For `<time datetime>`: `2025-11-05T23:00:00Z`.
    pub iso: String,
    /// `2025-11-05 23:00Z`.
    pub zulu: String,
    /// `2025-11-05`.
    pub date: String,
    /// `23:00Z`.
    pub time: String,
}

impl Instant {
    pub(super) fn new(t: DateTime<Utc>) -> Self {
        let date = format!("{:04}-{:02}-{:02}", t.year(), t.month(), t.day());
        let time = format!("{:02}:{:02}", t.hour(), t.minute());
        Self {
            iso: format!("{date}T{time}:{:02}Z", t.second()),
            zulu: format!("{date} {time}Z"),
            time: format!("{time}Z"),
            date,
        }
    }
}

/// `20261121T230000Z`: RFC 5545's UTC date-time, the form Google Calendar's `dates` takes
/// too, onto the end of `out`.
pub fn push_basic_utc(out: &mut String, t: DateTime<Utc>) {
    use std::fmt::Write;
    // Writing to a String cannot fail.
    let _ = write!(
        out,
        "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    );
}

#[derive(Clone, Debug, Serialize)]
pub struct When {
    pub start: Instant,
    pub end: Instant,
    /// Start and end fall on the same UTC date; otherwise both dates are shown.
    pub same_day: bool,
    /// The API gave no usable end; the end shown is assumed.
    pub end_assumed: bool,
    /// `Thu 5 Nov 19:00–22:00 AST` in the display zone, when one is set.
    pub local: Option<String>,
    /// Day name of the start in UTC: `Thursday`.
    pub weekday: String,
    /// Day of the month and short month of the start in UTC, for date badges: `5`, `Nov`.
    pub day: String,
    pub month: String,
}

/// Keys of the day and month names in the catalogues (`time.weekdays.mon`, ...).
pub(super) const WEEKDAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
pub(super) const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

fn weekday_name(texts: &Texts, group: &str, day: Weekday) -> String {
    let key = WEEKDAYS[day.num_days_from_monday() as usize];
    texts.text(&format!("time.{group}.{key}"), &[])
}

/// The first instant of `date`, in UTC: where a day's (or a month's) figures begin.
pub(super) fn midnight(date: chrono::NaiveDate) -> DateTime<Utc> {
    date.and_time(chrono::NaiveTime::MIN).and_utc()
}

/// The first day of the calendar month `later` months after `date`'s: the one rule for
/// where a month begins. `None` past the dates chrono holds.
pub(super) fn month_start(date: chrono::NaiveDate, later: u32) -> Option<chrono::NaiveDate> {
    date.with_day(1)?
        .checked_add_months(chrono::Months::new(later))
}

/// A month's name in the site's language, whole (`group` `months`) or short
/// (`months_short`).
pub(super) fn month_name(texts: &Texts, group: &str, month0: u32) -> String {
    texts.text(&format!("time.{group}.{}", MONTHS[month0 as usize]), &[])
}

/// A day in the site's language (`time.local_date`), its weekday short (`weekdays_short`:
/// `Sat 28 Nov`, as local times are shown) or whole (`weekdays`: `Friday 20 Nov`, as the live
/// page heads its bookings).
pub(super) fn local_date(texts: &Texts, weekdays: &str, date: impl Datelike) -> String {
    texts.text(
        "time.local_date",
        &[
            ("weekday", &weekday_name(texts, weekdays, date.weekday())),
            ("day", &date.day().to_string()),
            ("month", &month_name(texts, "months_short", date.month0())),
        ],
    )
}

/// A month as the activity's top and summary name it: `November 2026` (`time.month_year`).
pub fn month_title(texts: &Texts, date: impl Datelike) -> String {
    texts.text(
        "time.month_year",
        &[
            ("month", &month_name(texts, "months", date.month0())),
            ("year", &date.year().to_string()),
        ],
    )
}

/// A date as a document's is shown: `5 Nov 2025` (`time.date`).
pub fn date(texts: &Texts, date: impl Datelike) -> String {
    texts.text(
        "time.date",
        &[
            ("day", &date.day().to_string()),
            ("month", &month_name(texts, "months_short", date.month0())),
            ("year", &date.year().to_string()),
        ],
    )
}

pub fn when(event: &Event, zone: Option<Tz>, texts: &Texts) -> When {
    let mut when = between(event.start, event.effective_end(), zone, texts);
    when.end_assumed = !event.has_valid_end();
    when
}

/// From `start` to `end` (after it), in the forms the pages use.
pub(super) fn between(
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    zone: Option<Tz>,
    texts: &Texts,
) -> When {
    // `Thu 5 Nov 19:00–22:00 AST`; the end's day too where it is another.
    let local = zone.map(|zone| {
        let (ls, le) = (start.with_timezone(&zone), end.with_timezone(&zone));
        let day = |t| local_date(texts, "weekdays_short", t);
        let end = match ls.date_naive() == le.date_naive() {
            true => format!("–{}", le.format("%H:%M")),
            false => format!(" – {} {}", day(le), le.format("%H:%M")),
        };
        format!(
            "{} {}{end} {}",
            day(ls),
            ls.format("%H:%M"),
            le.format("%Z")
        )
    });
    When {
        same_day: start.date_naive() == end.date_naive(),
        start: Instant::new(start),
        end: Instant::new(end),
        end_assumed: false,
        local,
        weekday: weekday_name(texts, "weekdays", start.weekday()),
        day: start.day().to_string(),
        month: month_name(texts, "months_short", start.month0()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn an_instant_is_written_in_the_forms_the_pages_use() {
        let t = Utc.with_ymd_and_hms(2027, 1, 31, 0, 9, 59).unwrap();
        let instant = Instant::new(t);
        assert_eq!(instant.iso, "2027-01-31T00:09:59Z");
        assert_eq!(instant.zulu, "2027-01-31 00:09Z");
        assert_eq!(instant.date, "2027-01-31");
        assert_eq!(instant.time, "00:09Z");
        let early = Instant::new(Utc.with_ymd_and_hms(999, 12, 1, 7, 30, 5).unwrap());
        assert_eq!(early.iso, "0999-12-01T07:30:05Z");
    }
}
