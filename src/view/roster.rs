//! The roster page: staff posts, controllers and visitors, in an order that is the same on
//! every build.

use super::Texts;
use crate::model::{Member, Rating, Roster, StaffRole};
use crate::settings::{Email, StaffEmails};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct StaffRow {
    /// `ATM`, ...
    pub code: StaffRole,
    pub title: String,
    /// Names; empty when vacant.
    pub names: Vec<String>,
    /// The same holders with their CIDs and, with `[people]` on, their pages.
    pub holders: Vec<StaffHolder>,
    /// The role's address from the configuration (never the API's personal one).
    pub email: Option<String>,
}

/// Who holds a staff post.
#[derive(Clone, Debug, Serialize)]
pub struct StaffHolder {
    pub cid: u64,
    pub name: String,
    /// The member's page below the site root (`roster/1234567/`); `None` with `[people]`
    /// off, for a member who opted out, or one who is on neither list of the roster.
    pub page: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PersonRow {
    pub cid: u64,
    pub name: String,
    pub rating_code: String,
    pub rating_name: String,
    pub joined: Option<String>,
    pub home_facility: Option<String>,
    pub visit_start: Option<String>,
    /// Hours in the window and last controlled; `None` with `[activity]` off.
    pub activity: Option<super::activity::MemberActivity>,
    /// The member's page below the site root (`roster/1234567/`); `None` with `[people]` off
    /// or for a member who opted out.
    pub page: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RosterPage {
    pub staff: Vec<StaffRow>,
    pub controllers: Vec<PersonRow>,
    pub visitors: Vec<PersonRow>,
    /// Controllers per rating code, highest rating first.
    pub rating_counts: Vec<RatingCount>,
    /// The activity columns' window and how many members' figures are known; `None` with
    /// `[activity]` off.
    pub activity: Option<super::activity::ActivitySummary>,
}

/// How many home controllers hold one rating.
#[derive(Clone, Debug, Serialize)]
pub struct RatingCount {
    /// `C1`; empty for controllers without a rating.
    pub code: String,
    pub controllers: usize,
}

/// A rating's code (`C1`) and name (`Enroute Controller`) in the site's language; a number
/// the network has not defined is `Unknown (13)` in both.
pub fn rating_names(rating: Rating, texts: &Texts) -> (String, String) {
    if let Rating::Unknown(number) = rating {
        let unknown = texts.text("rating.unknown", &[("number", &number.to_string())]);
        return (unknown.clone(), unknown);
    }
    let code = rating.code().into_owned();
    let name = texts.text(&format!("rating.{code}"), &[]);
    (code, name)
}

pub(super) fn person(member: &Member, texts: &Texts) -> PersonRow {
    let (rating_code, rating_name) = member
        .rating
        .map(|r| rating_names(r, texts))
        .unwrap_or_default();
    PersonRow {
        cid: member.cid,
        name: member.display_name(),
        rating_code,
        rating_name,
        joined: member.joined.map(|d| d.format("%Y-%m-%d").to_string()),
        home_facility: member.home_facility.clone(),
        visit_start: member.visit_start.map(|d| d.format("%Y-%m-%d").to_string()),
        activity: None,
        page: None,
    }
}

/// Highest rating first, then name (case-insensitively), then CID, so that the order is the
/// same on every build.
pub(super) fn sorted_people(members: &[Member], texts: &Texts) -> Vec<PersonRow> {
    let mut sorted: Vec<&Member> = members.iter().collect();
    sorted.sort_by_cached_key(|m| {
        (
            std::cmp::Reverse(m.rating.map_or(i64::MIN, |r| r.number())),
            m.display_name().to_lowercase(),
            m.cid,
        )
    });
    sorted.into_iter().map(|m| person(m, texts)).collect()
}

/// The address the config gives a staff post.
pub(super) fn staff_email(emails: &StaffEmails, role: StaffRole) -> Option<&Email> {
    match role {
        StaffRole::Atm => emails.atm.as_ref(),
        StaffRole::Datm => emails.datm.as_ref(),
        StaffRole::Ta => emails.ta.as_ref(),
        StaffRole::Ec => emails.ec.as_ref(),
        StaffRole::Fe => emails.fe.as_ref(),
        StaffRole::Wm => emails.wm.as_ref(),
    }
}

pub fn roster_page(roster: &Roster, texts: &Texts) -> RosterPage {
    let staff = StaffRole::ALL
        .iter()
        .map(|role| {
            let holders: Vec<StaffHolder> = (roster.staff.iter())
                .find(|p| p.role == *role)
                .map(|p| {
                    (p.holders.iter())
                        .map(|m| StaffHolder {
                            cid: m.cid,
                            name: m.display_name(),
                            page: None,
                        })
                        .collect()
                })
                .unwrap_or_default();
            StaffRow {
                code: *role,
                title: texts.text(&format!("staff.{}", role.code().to_ascii_lowercase()), &[]),
                names: holders.iter().map(|h| h.name.clone()).collect(),
                holders,
                email: None,
            }
        })
        .collect();
    let controllers = sorted_people(&roster.controllers, texts);
    let rating_counts = (controllers.chunk_by(|a, b| a.rating_code == b.rating_code))
        .map(|same| RatingCount {
            code: same[0].rating_code.clone(),
            controllers: same.len(),
        })
        .collect();
    RosterPage {
        staff,
        controllers,
        visitors: sorted_people(&roster.visitors, texts),
        rating_counts,
        activity: None,
    }
}
