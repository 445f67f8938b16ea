//! `report activity`: every roster member's hours in the window against the division's rule
//! (`[activity] rule_hours`), for the facility's staff: the members below the rule, furthest
//! behind first; the members whose hours are unknown, apart (never counted as 0 h, nor as
//! below the rule); then every home and visiting controller. The public pages show hours
//! alone: which members are below the rule is said here only (issue 49).
//!
//! The figures are the roster's, from the same function ([`super::activity::figures`]), at the
//! report's time: the window ends when the report is made. Names are the roster's as the API
//! sends them, whatever `[people] names` and `opt_out` say: those choose what the public site
//! shows, and this report is private, for the staff who see the whole roster in the API
//! already (docs/activity.md, "The staff's report").

use super::activity::{MemberActivity, figures};
use super::report::{ReportSettings, roster_header};
use super::{PersonRow, Texts, roster_page};
use crate::model::Roster;
use crate::model::activity::{Activity, window_start};
use serde::Serialize;

/// What decides a member's standing: the rule and which sessions count.
pub struct Rule<'a> {
    /// The callsign prefixes whose sessions count (`view::activity::prefixes`).
    pub prefixes: &'a [String],
    pub window_days: u32,
    /// Hours a member controls in the window, at least.
    pub rule_hours: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct ActivityReport {
    pub facility: String,
    pub generated_at: String,
    /// Header text for every printed page, escaped for a CSS string.
    pub css_header: String,
    pub window: Window,
    /// The rule's hours as the config file gives them: `3`, `2.5`.
    pub rule_hours: String,
    /// The callsign prefixes whose sessions count.
    pub callsigns: Vec<String>,
    pub totals: Totals,
    /// The members whose hours are known and under the rule, furthest behind first.
    pub below: Vec<ActivityRow>,
    /// The members whose hours are unknown, in the roster's order (home, then visiting).
    pub unknown: Vec<ActivityRow>,
    /// Every home controller, in the roster's order (rating, then name).
    pub controllers: Vec<ActivityRow>,
    /// Every visiting controller, in the roster's order.
    pub visitors: Vec<ActivityRow>,
    /// The days the known figures' sessions were read, oldest and newest; `None` when no
    /// figure is known.
    pub read: Option<ReadSpan>,
}

/// The window the hours are counted in, `YYYY-MM-DD HH:MMZ`.
#[derive(Clone, Debug, Serialize)]
pub struct Window {
    pub days: u32,
    pub start: String,
    pub end: String,
}

/// How many members stand where; `members` is the sum of the other three.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    pub members: usize,
    /// At or above the rule.
    pub met: usize,
    pub below: usize,
    pub unknown: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct ReadSpan {
    pub oldest: String,
    pub newest: String,
}

/// One member's line.
#[derive(Clone, Debug, Serialize)]
pub struct ActivityRow {
    pub cid: u64,
    pub name: String,
    pub rating_code: String,
    pub visiting: bool,
    /// A visitor's home facility.
    pub home_facility: Option<String>,
    /// The roster's figures: hours, last controlled, when the sessions were read.
    pub activity: MemberActivity,
    /// `met`, `below` or `unknown`.
    pub standing: &'static str,
    /// Below the rule: the hours missing, rounded up to the tenth (`0.4`), so that a member
    /// whose hours round to the rule's is never shown short by 0.0.
    pub short_by: Option<String>,
    /// Unknown: why, in the report's language (not read yet, or tried on a day without
    /// being read whole).
    pub unknown_why: Option<String>,
}

/// The report of `roster`'s members from what is known of their sessions, at the report's
/// time.
pub fn activity_report(
    roster: &Roster,
    known: &Activity,
    rule: &Rule,
    settings: &ReportSettings,
) -> ActivityReport {
    let texts = &*settings.texts;
    let now = settings.generated_at;
    let page = roster_page(roster, texts);
    let row = |person: &PersonRow, visiting: bool| -> ActivityRow {
        member_row(person, visiting, known, rule, settings)
    };
    let controllers: Vec<ActivityRow> = page.controllers.iter().map(|p| row(p, false)).collect();
    let visitors: Vec<ActivityRow> = page.visitors.iter().map(|p| row(p, true)).collect();
    let everyone = || controllers.iter().chain(&visitors);
    let standing = |s| everyone().filter(move |r| r.standing == s).cloned();
    let mut below: Vec<ActivityRow> = standing(BELOW).collect();
    below.sort_by_cached_key(|r| (r.activity.seconds, r.name.to_lowercase(), r.cid));
    let unknown: Vec<ActivityRow> = standing(UNKNOWN).collect();
    let totals = Totals {
        members: controllers.len() + visitors.len(),
        met: everyone().filter(|r| r.standing == MET).count(),
        below: below.len(),
        unknown: unknown.len(),
    };
    let read_days = || everyone().filter_map(|r| r.activity.checked.clone());
    let read = (read_days().min().zip(read_days().max()))
        .map(|(oldest, newest)| ReadSpan { oldest, newest });
    let title = texts.text("report.activity_title", &[]);
    let (facility, generated_at, css_header) = roster_header(roster, &title, settings);
    ActivityReport {
        css_header,
        facility,
        window: Window {
            days: rule.window_days,
            start: window_start(now, rule.window_days)
                .format("%Y-%m-%d %H:%MZ")
                .to_string(),
            end: generated_at.clone(),
        },
        generated_at,
        rule_hours: rule.rule_hours.to_string(),
        callsigns: rule.prefixes.to_vec(),
        totals,
        below,
        unknown,
        controllers,
        visitors,
        read,
    }
}

const MET: &str = "met";
const BELOW: &str = "below";
const UNKNOWN: &str = "unknown";

/// `person`'s line: the roster's figures, and where they stand against the rule.
fn member_row(
    person: &PersonRow,
    visiting: bool,
    known: &Activity,
    rule: &Rule,
    settings: &ReportSettings,
) -> ActivityRow {
    let member = known.members.get(&person.cid);
    let activity = figures(
        member,
        rule.prefixes,
        settings.generated_at,
        rule.window_days,
    );
    // The rule is held to the seconds, not to the rounded hours shown.
    let rule_seconds = (rule.rule_hours * 3600.0).round() as i64;
    let (standing, short_by, unknown_why) = match activity.seconds {
        None => {
            let why = unknown_why(member.and_then(|m| m.tried), &settings.texts);
            (UNKNOWN, None, Some(why))
        }
        Some(seconds) if seconds < rule_seconds => {
            // Tenths of an hour (360 s) missing, rounded up.
            let tenths = (rule_seconds - seconds + 359) / 360;
            let short = format!("{}.{}", tenths / 10, tenths % 10);
            (BELOW, Some(short), None)
        }
        Some(_) => (MET, None, None),
    };
    ActivityRow {
        cid: person.cid,
        name: person.name.clone(),
        rating_code: person.rating_code.clone(),
        visiting,
        home_facility: person.home_facility.clone(),
        activity,
        standing,
        short_by,
        unknown_why,
    }
}

/// Why a member's hours are unknown: never tried, or tried (the last time on `tried`) without
/// a read that came to its end (it failed, or the budget ran out part way).
fn unknown_why(tried: Option<chrono::DateTime<chrono::Utc>>, texts: &Texts) -> String {
    match tried {
        None => texts.text("report.activity_not_read", &[]),
        Some(tried) => texts.text(
            "report.activity_tried",
            &[("date", &tried.format("%Y-%m-%d").to_string())],
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::activity::Session;
    use chrono::{DateTime, Utc};
    use std::sync::Arc;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().to_utc()
    }

    fn settings() -> ReportSettings {
        ReportSettings {
            include_contact: false,
            generated_at: at("2026-11-29T12:00:00Z"),
            base_url: url::Url::parse("https://vatcar.net/").unwrap(),
            texts: Arc::new(Texts::load("en", None).unwrap()),
            accent: None,
        }
    }

    /// A member row of the roster, for [`member_row`].
    fn person(cid: u64) -> PersonRow {
        PersonRow {
            cid,
            name: format!("Member {cid}"),
            rating_code: "S2".into(),
            rating_name: "Tower Controller".into(),
            joined: None,
            home_facility: None,
            visit_start: None,
            activity: None,
            page: None,
        }
    }

    /// Known with one TJSJ_TWR session of `seconds` ending a day before the report.
    fn with_seconds(known: &mut Activity, cid: u64, seconds: i64) {
        let end = at("2026-11-28T12:00:00Z");
        let session = Session {
            id: cid,
            callsign: "TJSJ_TWR".into(),
            start: end - chrono::TimeDelta::seconds(seconds),
            end,
        };
        known.record(cid, vec![session], at("2026-11-29T00:00:00Z"));
    }

    #[test]
    fn the_rule_is_held_to_the_seconds_and_the_shortfall_rounds_up() {
        let mut known = Activity::default();
        with_seconds(&mut known, 1, 3 * 3600);
        with_seconds(&mut known, 2, 3 * 3600 - 10);
        with_seconds(&mut known, 3, 3600 + 1800);
        known.tried(4, at("2026-11-20T08:00:00Z"));
        let prefixes = ["TJSJ".to_owned()];
        let rule = Rule {
            prefixes: &prefixes,
            window_days: 90,
            rule_hours: 3.0,
        };
        let settings = settings();
        let row = |cid| member_row(&person(cid), false, &known, &rule, &settings);
        let met = row(1);
        assert_eq!((met.standing, met.short_by), (MET, None));
        // 2 h 59 min 50 s shows as 3.0 h, and is 0.1 h short.
        let just = row(2);
        assert_eq!(just.activity.hours.as_deref(), Some("3.0"));
        assert_eq!(
            (just.standing, just.short_by.as_deref()),
            (BELOW, Some("0.1"))
        );
        let half = row(3);
        assert_eq!(half.short_by.as_deref(), Some("1.5"));
        let tried = row(4);
        assert_eq!(tried.standing, UNKNOWN);
        assert!(tried.unknown_why.unwrap().contains("2026-11-20"));
        let never = row(5);
        assert_eq!(
            (never.standing, never.unknown_why.as_deref()),
            (UNKNOWN, Some("not read yet"))
        );
    }
}
