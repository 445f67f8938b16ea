//! The roster's activity columns: each member's hours in the rolling window and the end of
//! their latest session, under the division's rule of which sessions count (docs/activity.md).
//!
//! A session counts when its callsign is the facility's (its prefix among the `[activity]
//! callsigns`, as [`super::live::is_ours`] decides for the live page) with a controlling
//! suffix (its last `_` part: DEL, GND, TWR, APP, DEP, CTR or FSS, never OBS, ATIS or any
//! other), it has ended, and it lasted less than 24 hours (a longer one is a known fault of
//! VATSIM's records). Its hours are the part of it inside `[now − window_days, now]`.

use super::live::{is_ours, our_prefixes};
use crate::model::Roster;
use crate::model::activity::{self, Activity, Session};
use chrono::{DateTime, Datelike, TimeDelta, Utc};
use serde::Serialize;
use std::collections::HashMap;

/// The suffixes of a controlling position.
pub const CONTROLLING: [&str; 7] = ["DEL", "GND", "TWR", "APP", "DEP", "CTR", "FSS"];

/// A session this long or longer is dropped: a known fault of VATSIM's records.
const LONGEST_HOURS: i64 = 24;

/// One member's figures, as the roster shows them; the default is unknown.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MemberActivity {
    /// Whether the member's sessions were ever read whole; when not, every figure is unknown
    /// (never 0 h).
    pub known: bool,
    /// Hours in the window, with one decimal (`3.5`); `None` when unknown.
    pub hours: Option<String>,
    /// Seconds in the window, for sorting; `None` when unknown.
    pub seconds: Option<i64>,
    /// The end of the latest counted session, `YYYY-MM-DD`; `None` when unknown or when no
    /// session in the window counts.
    pub last: Option<String>,
    /// The same, RFC 3339, for `<time datetime>` and sorting.
    pub last_iso: Option<String>,
    /// When the member's sessions were last read whole, `YYYY-MM-DD`.
    pub checked: Option<String>,
}

/// One calendar month (UTC) of a member's hours, a bar of the chart on their page.
#[derive(Clone, Debug, Serialize)]
pub struct MonthHours {
    /// `2026-09`, for `<time datetime>`.
    pub month: String,
    /// `Sep 2026`, in the site's language.
    pub label: String,
    /// As the window's total is written: `3.5`.
    pub hours: String,
    /// The bar's length in hundredths of the busiest month's: 0 to 100, and at least 1 for a
    /// month with any time at all.
    pub bar: i64,
}

/// What the roster says of the activity columns as a whole.
#[derive(Clone, Debug, Serialize)]
pub struct ActivitySummary {
    pub window_days: u32,
    /// Members whose figures are known, of `members`.
    pub known: usize,
    pub members: usize,
}

/// Whether a session on `callsign` counts for the facility of `prefixes`.
pub fn counts(callsign: &str, prefixes: &[String]) -> bool {
    let suffix = callsign.rsplit_once('_').map(|(_, suffix)| suffix);
    is_ours(callsign, prefixes)
        && suffix.is_some_and(|s| CONTROLLING.iter().any(|c| c.eq_ignore_ascii_case(s)))
}

/// `member`'s sessions that count: the facility's controlling positions, under a day long.
/// The one rule the roster's hours, the month's top and the first sessions all read.
pub fn counted<'m>(
    member: &'m activity::MemberActivity,
    prefixes: &'m [String],
) -> impl Iterator<Item = &'m Session> {
    (member.sessions.iter()).filter(|s| {
        counts(&s.callsign, prefixes) && s.end - s.start < TimeDelta::hours(LONGEST_HOURS)
    })
}

/// The seconds of `session` inside `[from, to]`.
fn seconds_within(session: &Session, from: DateTime<Utc>, to: DateTime<Utc>) -> i64 {
    (session.end.min(to) - session.start.max(from))
        .num_seconds()
        .max(0)
}

/// The seconds `member` controlled inside `[from, to]`, by the rule; `None` when their
/// sessions were never read whole (unknown, never 0).
pub fn seconds_between(
    member: Option<&activity::MemberActivity>,
    prefixes: &[String],
    (from, to): (DateTime<Utc>, DateTime<Utc>),
) -> Option<i64> {
    let member = member.filter(|m| m.checked.is_some())?;
    Some(
        counted(member, prefixes)
            .map(|s| seconds_within(s, from, to))
            .sum(),
    )
}

/// Hours as the site writes them: one decimal, `3.5`.
pub fn hours(seconds: i64) -> String {
    format!("{:.1}", seconds as f64 / 3600.0)
}

/// When each roster member first controlled at the facility, where that is known, by CID: the
/// start of their earliest counted session, when their sessions were read whole and they
/// came to the facility (a home member's join date, a visitor's first day) on or after the
/// first day of what is kept (the window's start), so that every session of theirs since is
/// among those kept. None with `[activity]` off, and none for a member who opted out
/// (`[people] opt_out`, whether `[people]` is on or not: the activity's lists never name
/// them).
pub fn first_sessions(
    roster: &Roster,
    settings: &crate::settings::Settings,
    known: Option<&Activity>,
    now: DateTime<Utc>,
) -> HashMap<u64, DateTime<Utc>> {
    let Some(known) = known.filter(|_| settings.activity.enabled) else {
        return HashMap::new();
    };
    let prefixes = prefixes(settings, roster);
    let kept_from = activity::window_start(now, settings.activity.window_days.0);
    let home = roster.controllers.iter().map(|m| (m, m.joined));
    let visiting = roster.visitors.iter().map(|m| (m, m.visit_start));
    let mut first = HashMap::new();
    for (member, came) in home.chain(visiting) {
        if settings.people.is_opted_out(member.cid) || first.contains_key(&member.cid) {
            continue;
        }
        let Some(sessions) = known
            .members
            .get(&member.cid)
            .filter(|m| m.checked.is_some())
        else {
            continue;
        };
        if came.is_some_and(|came| super::time::midnight(came) >= kept_from)
            && let Some(start) = counted(sessions, &prefixes).map(|s| s.start).min()
        {
            first.insert(member.cid, start);
        }
    }
    first
}

/// A member's figures at `now`, from what is known of their sessions.
pub fn figures(
    member: Option<&activity::MemberActivity>,
    prefixes: &[String],
    now: DateTime<Utc>,
    window_days: u32,
) -> MemberActivity {
    let Some(member) = member.filter(|m| m.checked.is_some()) else {
        return MemberActivity::default();
    };
    let start = activity::window_start(now, window_days);
    let within = || counted(member, prefixes).map(|s| (s, seconds_within(s, start, now)));
    let seconds = within().map(|(_, seconds)| seconds).sum();
    // The latest end of a session with time in the window.
    let last = (within().filter(|(_, seconds)| *seconds > 0))
        .map(|(s, _)| s.end.min(now))
        .max();
    MemberActivity {
        known: true,
        hours: Some(hours(seconds)),
        seconds: Some(seconds),
        last: last.map(|t| t.format("%Y-%m-%d").to_string()),
        last_iso: last.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
        checked: (member.checked).map(|t| t.format("%Y-%m-%d").to_string()),
    }
}

/// The member's hours in each calendar month (UTC) the window touches, oldest first, by the
/// same rule as the window's total: the first month counted from the window's start, the
/// last up to `now`, and a session across a month's end counted in each month for its part
/// in it, so that the months add up to the total. Empty when the member's sessions were
/// never read whole.
pub fn by_month(
    member: Option<&activity::MemberActivity>,
    prefixes: &[String],
    now: DateTime<Utc>,
    window_days: u32,
    texts: &super::Texts,
) -> Vec<MonthHours> {
    let Some(member) = member.filter(|m| m.checked.is_some()) else {
        return Vec::new();
    };
    let mut months = Vec::new();
    let mut from = activity::window_start(now, window_days);
    while from < now {
        let next = super::time::month_start(from.date_naive(), 1).map(super::time::midnight);
        let to = next.unwrap_or(DateTime::<Utc>::MAX_UTC).min(now);
        let seconds = counted(member, prefixes).map(|s| seconds_within(s, from, to));
        months.push((from, seconds.sum::<i64>()));
        from = to;
    }
    let busiest = months
        .iter()
        .map(|(_, seconds)| *seconds)
        .max()
        .unwrap_or(0);
    (months.into_iter())
        .map(|(month, seconds)| MonthHours {
            month: month.format("%Y-%m").to_string(),
            label: format!(
                "{} {}",
                super::time::month_name(texts, "months_short", month.month0()),
                month.year()
            ),
            hours: hours(seconds),
            bar: match seconds {
                0 => 0,
                _ => (seconds * 100 / busiest).max(1),
            },
        })
        .collect()
}

/// The callsign prefixes whose sessions count: `[activity] callsigns`, else the live page's.
pub fn prefixes(settings: &crate::settings::Settings, roster: &Roster) -> Vec<String> {
    match &settings.activity.callsigns {
        Some(codes) => codes.0.clone(),
        None => our_prefixes(&settings.live, roster),
    }
}

/// Each member's figures on the roster's rows, and the summary; nothing with `[activity]`
/// off.
pub(super) fn add_to_roster(
    page: &mut super::RosterPage,
    known: Option<&Activity>,
    roster: &Roster,
    settings: &crate::settings::Settings,
    now: DateTime<Utc>,
) {
    let Some(known) = known.filter(|_| settings.activity.enabled) else {
        return;
    };
    let prefixes = prefixes(settings, roster);
    let days = settings.activity.window_days.0;
    let mut summary = ActivitySummary {
        window_days: days,
        known: 0,
        members: 0,
    };
    for row in page.controllers.iter_mut().chain(page.visitors.iter_mut()) {
        let figures = figures(known.members.get(&row.cid), &prefixes, now, days);
        summary.members += 1;
        summary.known += usize::from(figures.known);
        row.activity = Some(figures);
    }
    page.activity = Some(summary);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().to_utc()
    }

    #[test]
    fn only_the_facilitys_controlling_positions_count() {
        let ours = ["TJSJ".to_owned(), "TJZS".to_owned()];
        for yes in [
            "TJSJ_TWR",
            "tjsj_gnd",
            "TJSJ_I_APP",
            "TJZS_CTR",
            "TJSJ_DEL",
            "TJZS_FSS",
            "TJSJ_DEP",
        ] {
            assert!(counts(yes, &ours), "{yes}");
        }
        for no in [
            "TJSJ_OBS",
            "TJSJ_ATIS",
            "TJSJX_TWR",
            "MDSD_TWR",
            "TJSJ",
            "TJSJ_",
            "TJSJ_SUP",
            "TJSJ_TWR_X",
        ] {
            assert!(!counts(no, &ours), "{no}");
        }
    }

    #[test]
    fn hours_are_the_part_inside_the_window_and_a_day_long_session_is_dropped() {
        let session = |id, callsign: &str, start: &str, end: &str| Session {
            id,
            callsign: callsign.into(),
            start: at(start),
            end: at(end),
        };
        let now = at("2026-11-29T12:00:00Z");
        let member = activity::MemberActivity {
            checked: Some(now),
            tried: Some(now),
            sessions: vec![
                session(
                    1,
                    "TJSJ_TWR",
                    "2026-11-28T23:00:00Z",
                    "2026-11-29T01:30:00Z",
                ),
                session(
                    2,
                    "TJSJ_OBS",
                    "2026-11-27T10:00:00Z",
                    "2026-11-27T18:00:00Z",
                ),
                session(
                    3,
                    "TJSJ_CTR",
                    "2026-11-20T00:00:00Z",
                    "2026-11-21T00:00:00Z",
                ),
                // Crosses the window's start (2026-08-31T12:00Z): 1 h inside.
                session(
                    4,
                    "TJSJ_APP",
                    "2026-08-31T10:00:00Z",
                    "2026-08-31T13:00:00Z",
                ),
            ],
        };
        let ours = ["TJSJ".to_owned()];
        let shown = figures(Some(&member), &ours, now, 90);
        assert_eq!(shown.hours.as_deref(), Some("3.5"));
        assert_eq!(shown.last.as_deref(), Some("2026-11-29"));
        let unknown = figures(None, &ours, now, 90);
        assert!(!unknown.known && unknown.hours.is_none());
        let never_whole = activity::MemberActivity {
            checked: None,
            ..member
        };
        assert!(!figures(Some(&never_whole), &ours, now, 90).known);
    }

    #[test]
    fn the_months_run_across_a_new_year_and_add_up_to_the_window() {
        let now = at("2027-01-10T06:00:00Z");
        let member = activity::MemberActivity {
            checked: Some(now),
            tried: Some(now),
            sessions: vec![Session {
                id: 1,
                callsign: "TJSJ_CTR".into(),
                start: at("2026-12-31T23:00:00Z"),
                end: at("2027-01-01T01:30:00Z"),
            }],
        };
        let ours = ["TJSJ".to_owned()];
        let texts = crate::i18n::Texts::english();
        let months = by_month(Some(&member), &ours, now, 30, &texts);
        let shown: Vec<(&str, &str, &str, i64)> = (months.iter())
            .map(|m| (m.month.as_str(), m.label.as_str(), m.hours.as_str(), m.bar))
            .collect();
        assert_eq!(
            shown,
            [
                ("2026-12", "Dec 2026", "1.0", 66),
                ("2027-01", "Jan 2027", "1.5", 100)
            ]
        );
        assert_eq!(
            figures(Some(&member), &ours, now, 30).hours.as_deref(),
            Some("2.5")
        );
        assert!(by_month(None, &ours, now, 30, &texts).is_empty());
    }
}
