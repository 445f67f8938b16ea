//! The month's activity, under `[activity]`'s rule ([`super::activity`]): the three most
//! active controllers the home page shows (`[activity] home_top`), and the last full month's
//! summary that data/changes.json carries for `announce` (`[activity] monthly_summary`).
//!
//! **Which month.** Months are UTC's. The home page shows the current month so far, but in a
//! month's first [`FIRST_DAYS`] days, when it has little to show yet, the last full month.
//! The summary is always of the last full month. A month is shown only when all of it lies
//! within the sessions the site keeps (those of the last `window_days`); with a window
//! shorter than that, the home page falls back to the month so far, and else shows nothing.
//!
//! **Who is ranked.** Members whose sessions were read whole; a member whose figures are
//! unknown cannot be ranked, and the page says how many are known and since when. A member
//! in `[people] opt_out` is never named (whether `[people]` is on or not), though their hours
//! count in the month's total.

use super::PersonPage;
use super::activity::{hours, prefixes, seconds_between};
use super::time::{midnight, month_start};
use crate::model::activity::{Activity, window_start};
use crate::model::{Member, Roster};
use crate::settings::Settings;
use chrono::{DateTime, Datelike, NaiveDate, Utc};
use serde::Serialize;
use std::collections::HashMap;

/// How many controllers the home page and the summary name.
pub const TOP: usize = 3;

/// The days at a month's start on which the home page shows the last full month.
const FIRST_DAYS: u32 = 7;

/// The most new controllers a summary names.
const MAX_NEW: usize = 20;

/// The home page's most active controllers of the month.
#[derive(Clone, Debug, Serialize)]
pub struct MonthTop {
    /// The month in the site's language: `November 2026`.
    pub month: String,
    /// Whether it is the current month, so far (else the last full month).
    pub so_far: bool,
    /// At most three, the most hours first (ties by CID); empty when no member whose figures
    /// are known controlled in the month.
    pub controllers: Vec<Ranked>,
    /// Members whose figures are known, of `members`.
    pub known: usize,
    pub members: usize,
    /// The day the known member read longest ago was read (`27 Nov 2026`): every figure is
    /// at least that fresh. `None` when none is known.
    pub read_since: Option<String>,
    /// The same, `YYYY-MM-DD`.
    pub read_since_iso: Option<String>,
}

/// A member named in the month's activity.
#[derive(Clone, Debug, Serialize)]
pub struct Ranked {
    pub cid: u64,
    /// As `[people]` shows it.
    pub name: String,
    /// Hours in the month, one decimal: `12.5`.
    pub hours: String,
    /// The member's page (`roster/1234567/`), when they have one.
    pub page: Option<String>,
}

/// The last full month's summary, as data/changes.json carries it (`activity_month`).
#[derive(Clone, Debug, Serialize)]
pub struct MonthSummary {
    /// `2026-11`.
    pub month: String,
    /// The hours every member whose figures are known controlled in it: `42.5`.
    pub hours: String,
    pub known: usize,
    pub members: usize,
    /// The three most active, with their hours.
    pub top: Vec<SummaryEntry>,
    /// Members whose first session at the facility was in the month, the first first.
    pub new_controllers: Vec<SummaryEntry>,
    /// The post's title and text, in the site's language, plain.
    pub title: String,
    pub text: String,
    /// Not the previous build's month: `announce` posts it. `false` on a first build.
    pub new: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct SummaryEntry {
    pub name: String,
    /// Hours in the month; the top's entries only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hours: Option<String>,
    /// The member's page, else the roster; absolute with the site's URL.
    pub url: String,
}

/// A month's bounds: its first day, and the instant it is counted to.
#[derive(Clone, Copy)]
struct Month {
    first: NaiveDate,
    to: DateTime<Utc>,
}

/// The current month so far at `now`, and the last full one.
fn months(now: DateTime<Utc>) -> Option<(Month, Month)> {
    let first = month_start(now.date_naive(), 0)?;
    let last_first = month_start(first.pred_opt()?, 0)?;
    Some((
        Month { first, to: now },
        Month {
            first: last_first,
            to: midnight(first),
        },
    ))
}

/// What the month's views read, gathered once.
struct Facts<'d> {
    known: &'d Activity,
    prefixes: Vec<String>,
    /// Each roster member once, by CID, and whether opted out.
    members: Vec<&'d Member>,
    settings: &'d Settings,
    pages: HashMap<u64, String>,
}

impl Facts<'_> {
    fn seconds(&self, cid: u64, month: Month) -> Option<i64> {
        let from = midnight(month.first);
        seconds_between(
            self.known.members.get(&cid),
            &self.prefixes,
            (from, month.to),
        )
    }

    /// The members ranked by their hours in `month`, most first: only those whose figures
    /// are known, who controlled in it, and who did not opt out.
    fn ranked(&self, month: Month) -> Vec<Ranked> {
        let mut ranked: Vec<(i64, &Member)> = (self.members.iter())
            .filter(|m| !self.settings.people.is_opted_out(m.cid))
            .filter_map(|m| Some((self.seconds(m.cid, month)?, *m)))
            .filter(|(seconds, _)| *seconds > 0)
            .collect();
        ranked.sort_by_key(|(seconds, m)| (std::cmp::Reverse(*seconds), m.cid));
        (ranked.into_iter().take(TOP))
            .map(|(seconds, m)| Ranked {
                cid: m.cid,
                name: m.display_name(),
                hours: hours(seconds),
                page: self.pages.get(&m.cid).cloned(),
            })
            .collect()
    }

    fn known_count(&self) -> usize {
        let known = |m: &&&Member| self.known.was_checked(m.cid);
        self.members.iter().filter(known).count()
    }
}

/// The home page's top (with `home_top` on) and the summary (with `monthly_summary` on);
/// nothing with `[activity]` off.
pub(super) fn month_views(
    roster: &Roster,
    first_sessions: &HashMap<u64, DateTime<Utc>>,
    settings: &Settings,
    inputs: &super::BuildInputs,
    people: &[PersonPage],
) -> (Option<MonthTop>, Option<MonthSummary>) {
    let activity = &settings.activity;
    let Some(known) = inputs.activity.as_deref().filter(|_| activity.enabled) else {
        return (None, None);
    };
    let mut members: Vec<&Member> = roster.controllers.iter().chain(&roster.visitors).collect();
    members.sort_by_key(|m| m.cid);
    members.dedup_by_key(|m| m.cid);
    let facts = Facts {
        known,
        prefixes: prefixes(settings, roster),
        members,
        settings,
        pages: (people.iter())
            .filter_map(|p| Some((p.row.cid, p.row.page.clone()?)))
            .collect(),
    };
    let now = inputs.build_time;
    let kept_from = window_start(now, activity.window_days.0);
    let Some((this, last)) = months(now) else {
        return (None, None);
    };
    let whole = |month: &Month| midnight(month.first) >= kept_from;
    let top = activity.home_top.then(|| {
        let shown = match now.day() <= FIRST_DAYS {
            true => [last, this].into_iter().find(whole),
            false => Some(this).filter(whole),
        };
        shown.map(|month| home_top(&facts, month, month.first == this.first, inputs))
    });
    let summary = (activity.monthly_summary && whole(&last))
        .then(|| summary(&facts, last, first_sessions, inputs));
    (top.flatten(), summary)
}

fn home_top(facts: &Facts, month: Month, so_far: bool, inputs: &super::BuildInputs) -> MonthTop {
    let read = (facts.members.iter())
        .filter_map(|m| facts.known.members.get(&m.cid)?.checked)
        .min();
    MonthTop {
        month: super::time::month_title(&inputs.texts, month.first),
        so_far,
        controllers: facts.ranked(month),
        known: facts.known_count(),
        members: facts.members.len(),
        read_since: read.map(|t| super::time::date(&inputs.texts, t)),
        read_since_iso: read.map(|t| t.format("%Y-%m-%d").to_string()),
    }
}

fn summary(
    facts: &Facts,
    month: Month,
    first: &HashMap<u64, DateTime<Utc>>,
    inputs: &super::BuildInputs,
) -> MonthSummary {
    let texts = &inputs.texts;
    let roster = super::outputs::ROSTER.folder();
    let total: i64 = (facts.members.iter())
        .filter_map(|m| facts.seconds(m.cid, month))
        .sum();
    let top: Vec<SummaryEntry> = (facts.ranked(month).into_iter())
        .map(|r| SummaryEntry {
            name: r.name,
            hours: Some(r.hours),
            url: r.page.unwrap_or_else(|| roster.to_owned()),
        })
        .collect();
    let from = midnight(month.first);
    let mut new: Vec<(DateTime<Utc>, &Member)> = (facts.members.iter())
        .filter_map(|m| Some((*first.get(&m.cid)?, *m)))
        .filter(|(start, _)| (from..month.to).contains(start))
        .collect();
    new.sort_by_key(|(start, m)| (*start, m.cid));
    let new_controllers: Vec<SummaryEntry> = (new.iter())
        .map(|(_, m)| SummaryEntry {
            name: m.display_name(),
            hours: None,
            url: (facts.pages.get(&m.cid).cloned()).unwrap_or_else(|| roster.to_owned()),
        })
        .collect();
    let name = super::time::month_title(texts, month.first);
    let title = texts.text(
        "month.summary_title",
        &[("month", &name), ("hours", &hours(total))],
    );
    let mut lines = Vec::new();
    if !top.is_empty() {
        let names: Vec<String> = (top.iter())
            .map(|e| {
                let hours = texts.text(
                    "month.hours",
                    &[("hours", e.hours.as_deref().unwrap_or(""))],
                );
                format!("{} ({hours})", e.name)
            })
            .collect();
        lines.push(texts.text("month.summary_top", &[("names", &names.join(", "))]));
    }
    if !new_controllers.is_empty() {
        let mut names: Vec<&str> = (new_controllers.iter().take(MAX_NEW))
            .map(|e| e.name.as_str())
            .collect();
        let more = format!("+{}", new_controllers.len().saturating_sub(MAX_NEW));
        if new_controllers.len() > MAX_NEW {
            names.push(&more);
        }
        lines.push(texts.text("month.summary_new", &[("names", &names.join(", "))]));
    }
    let (known, members) = (facts.known_count(), facts.members.len());
    lines.push(texts.text(
        "month.summary_known",
        &[
            ("known", &known.to_string()),
            ("members", &members.to_string()),
        ],
    ));
    let previous = inputs.previous.as_deref();
    MonthSummary {
        month: month.first.format("%Y-%m").to_string(),
        hours: hours(total),
        known,
        members,
        top,
        new_controllers,
        title,
        text: lines.join("\n"),
        new: previous.is_some_and(|p| p.summary_month != Some(month.first)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_months_are_utcs_and_the_last_one_ends_where_this_one_begins() {
        let at = |t: &str| t.parse::<DateTime<Utc>>().unwrap();
        let (this, last) = months(at("2026-01-03T05:00:00Z")).unwrap();
        assert_eq!(this.first.to_string(), "2026-01-01");
        assert_eq!(this.to, at("2026-01-03T05:00:00Z"));
        assert_eq!(last.first.to_string(), "2025-12-01");
        assert_eq!(last.to, at("2026-01-01T00:00:00Z"));
    }
}
