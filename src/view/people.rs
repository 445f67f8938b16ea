//! `[people]`: a page per roster member, and the facility's privacy choices applied to every
//! name the site shows (docs/people.md).
//!
//! Names are changed once, in the view's own copy of the roster, before any page is made:
//! the roster, the staff list, What's new, the event pages' positions, the live page's
//! bookings and data/roster.json all read their names from it, so none can show one the
//! facility chose to hide. With `[people]` off nothing here runs.

use super::{PersonRow, RosterPage, Texts};
use crate::model::{Member, Roster, StaffRole};
use crate::settings::{NameMode, People};
use serde::Serialize;

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
    format!("roster/{cid}/")
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
fn shown_name(member: &Member, people: &People) -> Option<String> {
    if people.is_opted_out(member.cid) {
        return None;
    }
    let name = member.name.as_deref()?;
    match people.names {
        NameMode::Full => Some(name.to_owned()),
        NameMode::FirstInitial => Some(first_and_initial(name)).filter(|n| !n.is_empty()),
        NameMode::Cid => None,
    }
}

/// Every name of the roster as `[people]` has it; nothing with `[people]` off.
pub(super) fn apply_names(roster: &mut Roster, people: &People) {
    if !people.enabled {
        return;
    }
    let staff = roster.staff.iter_mut().flat_map(|p| p.holders.iter_mut());
    for member in (roster.controllers.iter_mut())
        .chain(roster.visitors.iter_mut())
        .chain(staff)
    {
        member.name = shown_name(member, people);
    }
}

/// A page for each controller and visitor not opted out, and each such row of the roster
/// linked to it; nothing with `[people]` off.
pub(super) fn people_pages(
    roster_page: &mut RosterPage,
    roster: &Roster,
    people: &People,
    texts: &Texts,
) -> Vec<PersonPage> {
    if !people.enabled {
        return Vec::new();
    }
    let window_days = roster_page.activity.as_ref().map(|a| a.window_days);
    let mut pages = Vec::new();
    let controllers = roster_page.controllers.iter_mut().map(|row| (row, false));
    let visitors = roster_page.visitors.iter_mut().map(|row| (row, true));
    for (row, visitor) in controllers.chain(visitors) {
        if people.is_opted_out(row.cid) {
            continue;
        }
        row.page = Some(page_url(row.cid));
        let staff = (roster.staff.iter())
            .filter(|post| post.holders.iter().any(|h| h.cid == row.cid))
            .map(|post| StaffPost {
                code: post.role,
                title: texts.text(
                    &format!("staff.{}", post.role.code().to_ascii_lowercase()),
                    &[],
                ),
            })
            .collect();
        pages.push(PersonPage {
            row: row.clone(),
            visitor,
            staff,
            window_days,
            index: people.index,
        });
    }
    pages.sort_by_key(|page| page.row.cid);
    // A member on both lists (the API's data is not always tidy) gets one page, the first.
    pages.dedup_by_key(|page| page.row.cid);
    pages
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Cid;

    fn member(cid: u64, name: Option<&str>) -> Member {
        Member {
            cid,
            name: name.map(str::to_owned),
            rating: None,
            joined: None,
            home_facility: None,
            visit_start: None,
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
        assert_eq!(shown_name(&tyrone, &people).as_deref(), Some("Tyrone G."));
        assert_eq!(
            shown_name(&member(3, Some("Cher")), &people).as_deref(),
            Some("Cher")
        );
        assert_eq!(
            shown_name(&member(3, Some("ana élan")), &people).as_deref(),
            Some("ana É.")
        );
        assert_eq!(shown_name(&member(2, Some("Hidden Person")), &people), None);
        people.names = NameMode::Full;
        assert_eq!(
            shown_name(&tyrone, &people).as_deref(),
            Some("Tyrone  van Gonzalez")
        );
        assert_eq!(shown_name(&member(2, Some("Hidden Person")), &people), None);
        people.names = NameMode::Cid;
        assert_eq!(shown_name(&tyrone, &people), None);
        assert_eq!(member(1, None).display_name(), "CID 1");
    }
}
