//! `[people]`: a page per roster member, and the facility's privacy choices applied to every
//! name the site shows (docs/people.md).
//!
//! Names are changed once, in the view's own copy of the roster, before any page is made:
//! the roster, the staff list, What's new, the event pages' positions, the live page's
//! bookings and data/roster.json all read their names from it, so none can show one the
//! facility chose to hide. With `[people]` off nothing here runs.

use super::activity::{MonthHours, by_month, prefixes};
use super::{EventPage, EventSummary, PersonRow, RosterPage};
use crate::model::{Roster, StaffRole};
use crate::settings::{NameMode, People, Settings};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::HashMap;
use std::sync::Arc;

/// A member's page: what the roster says of them and, with `[activity]` on, their hours.
/// Never an address: the roster model holds none.
#[derive(Clone, Debug, Serialize)]
pub struct PersonPage {
    /// The roster's row of the member: CID, name as shown, rating, dates, hours.
    #[serde(flatten)]
    pub row: PersonRow,
    /// `true` for a visiting controller, `false` for a home one.
    pub visitor: bool,
    /// The staff posts the member holds, in the roster's order.
    pub staff: Vec<StaffPost>,
    /// The activity window in days; `None` with `[activity]` off.
    pub window_days: Option<u32>,
    /// Whether search engines may index the page (`[people] index`).
    pub index: bool,
    /// What the page is, for search engines and link previews: the name, home or visiting,
    /// the rating (`Tyrone G. · Home controller · S2 Tower Controller`).
    #[serde(skip)]
    pub description: String,
    /// The member's milestones among What's new's changes (joins, promotions, a first
    /// session), newest first.
    pub history: Vec<super::Change>,
    /// The member's bookings that have not ended, soonest first; empty with the live page
    /// off.
    pub bookings: Vec<super::BookingRow>,
    /// The member's hours in each calendar month (UTC) the window touches, oldest first, for
    /// the chart; empty with `[activity]` off or while their hours are unknown.
    pub months: Vec<MonthHours>,
    /// The events whose positions name the member by CID, newest first.
    pub events: Vec<Arc<EventSummary>>,
    /// With the live page on, what its script reads (`data-live-config`), for the line that
    /// says whether the member is controlling now.
    pub live: Option<String>,
}

/// A staff post a member holds.
#[derive(Clone, Debug, Serialize)]
pub struct StaffPost {
    /// `ATM`, ...
    pub code: StaffRole,
    pub title: String,
}

/// The page's folder below the site root: `roster/1234567/`.
pub fn page_url(cid: u64) -> String {
    let path = super::outputs::PERSON_PAGE.at(&cid.to_string());
    path.strip_suffix("index.html").unwrap_or(&path).to_owned()
}

/// `Tyrone Gonzalez` as `Tyrone G.`: the first word and the last word's first letter. A
/// single word is kept as it is: it names no one more than the first name would.
fn first_and_initial(name: &str) -> String {
    let words: Vec<&str> = name.split_whitespace().collect();
    match words.as_slice() {
        [] => String::new(),
        [only] => (*only).to_owned(),
        [first, .., last] => {
            let initial: String = last.chars().next().into_iter().collect();
            format!("{first} {}.", initial.to_uppercase())
        }
    }
}

/// A member's name as the facility chose to show it; `None`, shown as the CID alone, for an
/// opted-out member, in `cid` mode, or where the API sent no name.
fn shown_name(cid: u64, name: Option<&str>, people: &People) -> Option<String> {
    if people.is_opted_out(cid) {
        return None;
    }
    in_mode(name?, people.names)
}

/// `name` in the name mode: whole, or the first name and an initial (`None` where that leaves
/// nothing); `None` in `cid` mode.
fn in_mode(name: &str, mode: NameMode) -> Option<String> {
    match mode {
        NameMode::Full => Some(name.to_owned()),
        NameMode::FirstInitial => Some(first_and_initial(name)).filter(|n| !n.is_empty()),
        NameMode::Cid => None,
    }
}

/// `[people]`'s rule for a name the API wrote as text, with no CID (an event position's
/// controller): a roster member's name is shown as the roster shows it, by full name
/// case-insensitively; another name in the name mode (in `cid` mode, not at all: there is
/// no CID to show).
pub(super) struct WrittenNames {
    people: People,
    /// Each member's full name, lowercased, and their CID.
    cids: HashMap<String, u64>,
}

impl WrittenNames {
    pub(super) fn shown(&self, text: &str) -> Option<String> {
        let key = text.split_whitespace().collect::<Vec<_>>().join(" ");
        match self.cids.get(&key.to_lowercase()) {
            Some(&cid) => Some(
                shown_name(cid, Some(&key), &self.people).unwrap_or_else(|| format!("CID {cid}")),
            ),
            None => in_mode(text, self.people.names),
        }
    }
}

/// Every name of the roster as `[people]` has it, and the rule for the names the API writes
/// as text; nothing, and `None`, with `[people]` off.
pub(super) fn apply_names(roster: &mut Roster, people: &People) -> Option<WrittenNames> {
    if !people.enabled {
        return None;
    }
    let cids = (roster.everyone())
        .filter_map(|m| {
            let name = m.name.as_deref()?.split_whitespace().collect::<Vec<_>>();
            Some((name.join(" ").to_lowercase(), m.cid))
        })
        .collect();
    let written = WrittenNames {
        people: people.clone(),
        cids,
    };
    let staff = roster.staff.iter_mut().flat_map(|p| p.holders.iter_mut());
    for member in (roster.controllers.iter_mut())
        .chain(roster.visitors.iter_mut())
        .chain(staff)
    {
        member.name = shown_name(member.cid, member.name.as_deref(), people);
    }
    Some(written)
}

/// A page for each controller and visitor not opted out, and each such row of the roster
/// linked to it; nothing with `[people]` off.
pub(super) fn people_pages(
    roster_page: &mut RosterPage,
    roster: &Roster,
    settings: &Settings,
    inputs: &super::BuildInputs,
) -> Vec<PersonPage> {
    let (people, texts) = (&settings.people, &inputs.texts);
    if !people.enabled {
        return Vec::new();
    }
    let window_days = roster_page.activity.as_ref().map(|a| a.window_days);
    // Each member's hours by month, for the chart on their page; none with `[activity]` off.
    let known = inputs
        .activity
        .as_deref()
        .filter(|_| settings.activity.enabled);
    let prefixes = prefixes(settings, roster);
    let months = |cid| {
        let member = known.and_then(|known| known.members.get(&cid));
        let days = settings.activity.window_days.0;
        by_month(member, &prefixes, inputs.build_time, days, texts)
    };
    let mut pages = Vec::new();
    let controllers = roster_page.controllers.iter_mut().map(|row| (row, false));
    let visitors = roster_page.visitors.iter_mut().map(|row| (row, true));
    for (row, visitor) in controllers.chain(visitors) {
        if people.is_opted_out(row.cid) {
            continue;
        }
        row.page = Some(page_url(row.cid));
        // The roster page's staff rows are the roster's posts, in its order, titled.
        let staff = (roster_page.staff.iter())
            .filter(|post| post.holders.iter().any(|h| h.cid == row.cid))
            .map(|post| StaffPost {
                code: post.code,
                title: post.title.clone(),
            })
            .collect();
        let kind = match visitor {
            true => texts.text("person.visiting", &[]),
            false => texts.text("person.home", &[]),
        };
        let rating = format!("{} {}", row.rating_code, row.rating_name);
        let description = [row.name.as_str(), &kind, rating.trim()]
            .into_iter()
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join(" · ");
        pages.push(PersonPage {
            description,
            row: row.clone(),
            visitor,
            staff,
            window_days,
            index: people.index,
            history: Vec::new(),
            bookings: Vec::new(),
            months: months(row.cid),
            events: Vec::new(),
            live: None,
        });
    }
    pages.sort_by_key(|page| page.row.cid);
    // A member on both lists (the API's data is not always tidy) gets one page, the first.
    pages.dedup_by_key(|page| page.row.cid);
    for holder in roster_page
        .staff
        .iter_mut()
        .flat_map(|post| &mut post.holders)
    {
        if pages
            .binary_search_by_key(&holder.cid, |page| page.row.cid)
            .is_ok()
        {
            holder.page = Some(page_url(holder.cid));
        }
    }
    pages
}

/// The CID a member's change names: `promotion:1234567:S2`, `new_member:1234567`,
/// `new_visitor:1234567`, `first_session:1234567`; `None` for a change of an event or a document.
fn member_of(change: &super::Change) -> Option<u64> {
    let mut parts = change.id.split(':');
    match parts.next()? {
        "promotion" | "new_member" | "new_visitor" | "first_session" => parts.next()?.parse().ok(),
        _ => None,
    }
}

/// What each member's page shows of the rest of the site: their milestones among What's new's
/// changes (joins, promotions, a first session; each such change then links to their page
/// rather than to the roster), their bookings and, with the live page on, what its script
/// reads, and the events whose positions name them by CID, newest first (only a CID: a name
/// written in a position is no evidence of who it is).
pub(super) fn add_to_pages(
    pages: &mut [PersonPage],
    whats_new: &mut super::WhatsNew,
    live: Option<&super::LivePage>,
    event_pages: &[EventPage],
) {
    let mut by_cid: HashMap<u64, &mut PersonPage> =
        pages.iter_mut().map(|page| (page.row.cid, page)).collect();
    for change in &mut whats_new.changes {
        if let Some(page) = member_of(change).and_then(|cid| by_cid.get_mut(&cid)) {
            if let Some(url) = &page.row.page {
                change.url.clone_from(url);
            }
            page.history.push(change.clone());
        }
    }
    for page in by_cid.values_mut() {
        page.live = live.map(|live| live.script_data.clone());
    }
    let bookings = live.into_iter().flat_map(|live| &live.days);
    for booking in bookings.flat_map(|day| &day.bookings) {
        if let Some(page) = booking.cid.and_then(|cid| by_cid.get_mut(&cid)) {
            page.bookings.push(booking.clone());
        }
    }
    let mut staffed: Vec<&EventPage> = (event_pages.iter())
        .filter(|event| !event.staffed_by.is_empty())
        .collect();
    staffed.sort_by_key(|event| Reverse((event.start(), event.summary.key)));
    for event in staffed {
        for cid in &event.staffed_by {
            if let Some(page) = by_cid.get_mut(cid) {
                page.events.push(Arc::clone(&event.summary));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Member;
    use crate::settings::Cid;

    fn shown(member: &Member, people: &People) -> Option<String> {
        shown_name(member.cid, member.name.as_deref(), people)
    }

    fn member(cid: u64, name: Option<&str>) -> Member {
        Member {
            cid,
            name: name.map(str::to_owned),
            ..Member::default()
        }
    }

    #[test]
    fn a_name_is_shown_in_the_facilitys_mode_and_an_opted_out_member_by_cid_alone() {
        let mut people = People {
            enabled: true,
            opt_out: vec![Cid(2)],
            ..People::default()
        };
        let tyrone = member(1, Some("Tyrone  van Gonzalez"));
        assert_eq!(shown(&tyrone, &people).as_deref(), Some("Tyrone G."));
        assert_eq!(
            shown(&member(3, Some("Cher")), &people).as_deref(),
            Some("Cher")
        );
        assert_eq!(
            shown(&member(3, Some("ana élan")), &people).as_deref(),
            Some("ana É.")
        );
        assert_eq!(shown(&member(2, Some("Hidden Person")), &people), None);
        people.names = NameMode::Full;
        assert_eq!(
            shown(&tyrone, &people).as_deref(),
            Some("Tyrone  van Gonzalez")
        );
        assert_eq!(shown(&member(2, Some("Hidden Person")), &people), None);
        people.names = NameMode::Cid;
        assert_eq!(shown(&tyrone, &people), None);
        assert_eq!(member(1, None).display_name(), "CID 1");
    }

    #[test]
    fn a_name_written_as_text_is_the_members_where_it_is_one_and_in_the_mode_where_not() {
        let mut roster = Roster {
            facility: None,
            staff: Vec::new(),
            controllers: vec![member(1, Some("Tyrone Gumbs")), member(2, Some("Ana Ruiz"))],
            visitors: Vec::new(),
        };
        let people = People {
            enabled: true,
            opt_out: vec![Cid(2)],
            ..People::default()
        };
        let written = apply_names(&mut roster, &people).unwrap();
        assert_eq!(written.shown("tyrone  GUMBS").as_deref(), Some("tyrone G."));
        assert_eq!(written.shown("Ana Ruiz").as_deref(), Some("CID 2"));
        assert_eq!(written.shown("Jo Bloggs").as_deref(), Some("Jo B."));
        let cid = People {
            names: NameMode::Cid,
            ..people
        };
        let written = apply_names(&mut roster, &cid).unwrap();
        assert_eq!(written.shown("Jo Bloggs"), None);
        assert!(apply_names(&mut roster, &People::default()).is_none());
    }
}
