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
        use chrono::{Datelike, Timelike};
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

fn month_name(texts: &Texts, month0: u32) -> String {
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
    let (start, end) = (event.start, event.effective_end());
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
        end_assumed: !event.has_valid_end(),
        local,
        weekday: weekday_name(texts, "weekdays", start.weekday()),
        day: start.day().to_string(),
        month: month_name(texts, start.month0()),
    }
}
