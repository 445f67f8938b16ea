//! Times as the pages show them: Zulu first, local time beside it when a zone is set.

use super::Texts;
use crate::model::Event;
use chrono::{DateTime, Datelike, Utc, Weekday};
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
        // Written field by field: chrono's `format` parses its pattern on every call, and a
        // large site formats 80,000 of these.
        // Digits pushed, not formatted: `format!` was most of the view's time on them.
        use chrono::Timelike;
        let mut date = String::with_capacity(10);
        push_year(&mut date, t.year());
        date.push('-');
        push_digits(&mut date, t.month(), 2);
        date.push('-');
        push_digits(&mut date, t.day(), 2);
        let mut time = String::with_capacity(6);
        push_digits(&mut time, t.hour(), 2);
        time.push(':');
        push_digits(&mut time, t.minute(), 2);
        let mut iso = String::with_capacity(20);
        iso.push_str(&date);
        iso.push('T');
        iso.push_str(&time);
        iso.push(':');
        push_digits(&mut iso, t.second(), 2);
        iso.push('Z');
        let mut zulu = String::with_capacity(17);
        zulu.push_str(&date);
        zulu.push(' ');
        zulu.push_str(&time);
        zulu.push('Z');
        time.push('Z');
        Self {
            iso,
            zulu,
            time,
            date,
        }
    }
}

/// `20261121T230000Z`: RFC 5545's UTC date-time, the form Google Calendar's `dates` takes
/// too, onto the end of `out`.
pub fn push_basic_utc(out: &mut String, t: DateTime<Utc>) {
    use chrono::Timelike;
    push_year(out, t.year());
    push_digits(out, t.month(), 2);
    push_digits(out, t.day(), 2);
    out.push('T');
    push_digits(out, t.hour(), 2);
    push_digits(out, t.minute(), 2);
    push_digits(out, t.second(), 2);
    out.push('Z');
}

/// `year` as `{:04}` writes it.
pub(super) fn push_year(out: &mut String, year: i32) {
    match u32::try_from(year) {
        Ok(year) if year <= 9999 => push_digits(out, year, 4),
        _ => out.push_str(&format!("{year:04}")),
    }
}

/// The last `width` decimal digits of `n`, zeros first: `{:02}` for a `n` below 100.
pub(super) fn push_digits(out: &mut String, n: u32, width: u32) {
    for place in (0..width).rev() {
        out.push(char::from(b'0' + (n / 10u32.pow(place) % 10) as u8));
    }
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

pub(super) fn month_name(texts: &Texts, month0: u32) -> String {
    texts.text(
        &format!("time.months_short.{}", MONTHS[month0 as usize]),
        &[],
    )
}

/// `Sat 28 Nov` in the site's language (`time.local_date`).
fn local_date(texts: &Texts, date: impl Datelike) -> String {
    texts.text(
        "time.local_date",
        &[
            (
                "weekday",
                &weekday_name(texts, "weekdays_short", date.weekday()),
            ),
            ("day", &date.day().to_string()),
            ("month", &month_name(texts, date.month0())),
        ],
    )
}

/// A day as the live page heads its bookings: `Friday 20 Nov` (`time.local_date`, with the
/// day's whole name).
pub(super) fn day_title(texts: &Texts, date: impl Datelike) -> String {
    texts.text(
        "time.local_date",
        &[
            ("weekday", &weekday_name(texts, "weekdays", date.weekday())),
            ("day", &date.day().to_string()),
            ("month", &month_name(texts, date.month0())),
        ],
    )
}

/// A month as the activity's top and summary name it: `November 2026` (`time.month_year`).
pub fn month_title(texts: &Texts, date: impl Datelike) -> String {
    texts.text(
        "time.month_year",
        &[
            (
                "month",
                &texts.text(
                    &format!("time.months.{}", MONTHS[date.month0() as usize]),
                    &[],
                ),
            ),
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
            ("month", &month_name(texts, date.month0())),
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
    let local = zone.map(|zone| {
        let (ls, le) = (start.with_timezone(&zone), end.with_timezone(&zone));
        if ls.date_naive() == le.date_naive() {
            format!(
                "{} {}–{} {}",
                local_date(texts, ls),
                ls.format("%H:%M"),
                le.format("%H:%M"),
                le.format("%Z")
            )
        } else {
            format!(
                "{} {} – {} {} {}",
                local_date(texts, ls),
                ls.format("%H:%M"),
                local_date(texts, le),
                le.format("%H:%M"),
                le.format("%Z")
            )
        }
    });
    When {
        same_day: start.date_naive() == end.date_naive(),
        start: Instant::new(start),
        end: Instant::new(end),
        end_assumed: false,
        local,
        weekday: weekday_name(texts, "weekdays", start.weekday()),
        day: start.day().to_string(),
        month: month_name(texts, start.month0()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn an_instant_is_written_in_the_forms_formatting_writes() {
        use chrono::Timelike;
        for (y, mo, d, h, mi, s) in [
            (2026, 11, 5, 23, 0, 0),
            (2027, 1, 31, 0, 9, 59),
            (999, 12, 1, 7, 30, 5),
            (10000, 6, 7, 12, 0, 1),
            (-44, 3, 15, 12, 0, 0),
        ] {
            let t = Utc.with_ymd_and_hms(y, mo, d, h, mi, s).unwrap();
            let instant = Instant::new(t);
            let date = format!("{:04}-{:02}-{:02}", t.year(), t.month(), t.day());
            let time = format!("{:02}:{:02}", t.hour(), t.minute());
            assert_eq!(instant.iso, format!("{date}T{time}:{:02}Z", t.second()));
            assert_eq!(instant.zulu, format!("{date} {time}Z"));
            assert_eq!(instant.date, date);
            assert_eq!(instant.time, format!("{time}Z"));
        }
        let t = Utc.with_ymd_and_hms(2026, 11, 5, 23, 0, 0).unwrap();
        assert_eq!(
            Instant::new(t).iso,
            t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
        );
    }
}
